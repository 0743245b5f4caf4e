"""What the simulated devices refuse, as the real ones do (docs/conformance.md, "refused").

The lab stores whatever a client sends; without these checks a live test could pass on a configuration a
switch rejects. Each rule is a documented grammar fact (keyword set or value range) with its source:

* NX-OS: ``priority-flow-control watch-dog-interval on|off`` (Cisco N9K QoS guide; other values are not
  its grammar); interface / network-qos ``mtu`` 576-9216 (Cisco N9K interfaces guide 10.2(x));
  ``pause pfc-cos`` and ``set qos-group`` 0-7 (Cisco N9K QoS guide); the PFC watchdog ``watch-dog interval``
  100-1000, ``watch-dog shutdown-multiplier`` 1-10, ``auto-restore multiplier`` 1-100 (same guide). Error: ``% Invalid command at '^'
  marker.`` as NX-OS prints it.
* NVUE: ``system forwarding ecmp-hash <field>`` takes ``enabled|disabled`` from Cumulus Linux 5.15 and
  ``on|off`` before ("New and Changed NVUE Commands", 5.15); ``router adaptive-routing`` (global and per
  interface) takes ``state enabled|disabled`` from 5.15 and ``enable on|off`` before (NVUE reference
  "Adaptive Routing"); ``interface <p> link mtu`` 552-9216,
  ``qos pfc-watchdog polling-interval`` 100-5000 and ``robustness`` 1-1000 (NVUE command reference).
  Error: ``Error: Invalid config [rev_id: N]`` with the offending path, as ``nv config apply`` reports it.
"""

from __future__ import annotations

import re
from typing import Any

from roceconf.platforms.base import version_key

#: The release a simulated NVUE device runs when none is given (the newest documented).
NVUE_DEFAULT_RELEASE = "5.15"

_NX_RANGES = (
    (re.compile(r"^mtu (\d+)$"), 576, 9216),
    (re.compile(r"^pause pfc-cos ([\d,\s-]+)$"), 0, 7),
    (re.compile(r"^set qos-group (\d+)$"), 0, 7),
    # PFC watchdog interval and multipliers (N9K QoS guide 10.5(x), PFC watchdog; roceconf.platforms.nxos.syntax)
    (re.compile(r"^priority-flow-control watch-dog interval (\d+)$"), 100, 1000),
    (re.compile(r"^priority-flow-control watch-dog shutdown-multiplier (\d+)$"), 1, 10),
    (re.compile(r"^priority-flow-control auto-restore multiplier (\d+)$"), 1, 100),
)


def nxos_refusal(line: str) -> str | None:
    """The NX-OS error for one configuration line, or None when the switch takes it."""
    text = line.strip()
    low = text.lower()
    m = re.match(r"^(no )?priority-flow-control watch-dog-interval(?: (\S+))?$", low)
    if m and not m.group(1) and m.group(2) not in ("on", "off"):
        return "                 ^\n% Invalid command at '^' marker."
    for pat, lo, hi in _NX_RANGES:
        m = pat.match(low)
        if m:
            values = [int(v) for v in re.findall(r"\d+", m.group(1))]
            if any(not lo <= v <= hi for v in values):
                return "                 ^\n% Invalid command at '^' marker."
    return None


def _walk(node: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _walk(v, path + (str(k),))
    else:
        out.append((path, node))
    return out


def nvue_refusal(tree: Any, release: str | None = None) -> str | None:
    """The NVUE error for a patch / set tree (the ``set`` part), or None when NVUE takes it."""
    new_words = version_key(release or NVUE_DEFAULT_RELEASE) >= version_key("5.15")
    allowed = ("enabled", "disabled") if new_words else ("on", "off")
    for path, value in _walk(tree):
        word = str(value).strip().lower() if not isinstance(value, bool) else ("on" if value else "off")
        if path[:3] == ("system", "forwarding", "ecmp-hash") and len(path) == 4 and word not in allowed:
            return f"'{word}' is not one of {list(allowed)}: system/forwarding/ecmp-hash/{path[3]}"
        if path[-3:-1] == ("router", "adaptive-routing"):
            key = "state" if new_words else "enable"
            if path[-1] != key or word not in allowed:
                return f"'{path[-1]} {word}' is not '{key} {'|'.join(allowed)}': {'/'.join(path)}"
        ranges = {
            ("link", "mtu"): (552, 9216),
            ("qos", "pfc-watchdog", "polling-interval"): (100, 5000),
            ("qos", "pfc-watchdog", "robustness"): (1, 1000),
        }
        for suffix, (lo, hi) in ranges.items():
            if path[-len(suffix) :] == suffix:
                try:
                    n = int(str(value))
                except ValueError:
                    return f"'{value}' is not of type 'integer': {'/'.join(path)}"
                if not lo <= n <= hi:
                    return f"{n} is not in range {lo}-{hi}: {'/'.join(path)}"
    return None


def nvue_patch_refusal(patch: Any, release: str | None = None) -> str | None:
    """The refusal for a whole ``nv config patch`` document (a list of set/unset items or a tree)."""
    items = patch if isinstance(patch, list) else [patch]
    for item in items:
        if isinstance(item, dict):
            tree = item.get("set", item if "unset" not in item else None)
            if tree:
                err = nvue_refusal(tree, release)
                if err:
                    return err
    return None


# ------------------------------------------------------------------------------------------ Junos
# The lab's Junos device resolves every `set` / `delete` line in Juniper's own 23.4R1 YANG with the
# conformance oracle (roceconf/platforms/junos/schema.py check_line), so it refuses exactly what that oracle
# refuses. Answer: the Junos CLI's caret under the offending word, then the reason (schema.cli_error; the
# Junos CLI User Guide shows "syntax error." under a caret). `load set terminal` reports each refused line
# as "terminal:N:(C) <reason>: <word>" and "load complete (K errors)", the Junos XML <xnm:error> fields
# (filename, line-number, column, statement, message: Junos XML protocol reference, xnm:error).
# Statements outside the three modules the oracle holds (class-of-service, interfaces, forwarding-options)
# are not judged; without the vendor models (../shared/vendor-models, $ROCECONF_VENDOR_MODELS) or yanglint
# the lab cannot judge and takes every line.


def junos_flavour(model: str | None) -> str:
    """The Juniper YANG flavour of a device model: Junos OS Evolved (PTX, ACX7xxx, QFX5130/5220/5240/5700
    run EVO) or Junos OS (other QFX)."""
    m = (model or "").lower()
    evo = ("ptx", "acx7", "qfx5130", "qfx5220", "qfx5230", "qfx5240", "qfx5700")
    return "evo" if m.startswith(evo) else "qfx"


def junos_warm_up(model: str | None = None) -> None:
    """Load the device flavour's schema tree now (Lab.add, in the caller's thread): the first load parses
    yanglint's print (seconds on a cold cache) and must not stall the lab's event loop mid-session."""
    from roceconf.platforms.junos import schema

    if schema.unavailable_reason() is None:
        schema.load(junos_flavour(model))


def junos_refusal(line: str, model: str | None = None) -> str | None:
    """The Junos CLI error for one configuration-mode ``set`` / ``delete`` line, or None when it loads."""
    from roceconf.platforms.junos import schema

    words = line.split()
    if len(words) < 2 or words[0] not in ("set", "delete") or words[1] not in schema.SECTIONS:
        return None
    if schema.unavailable_reason() is not None:
        return None
    v = schema.check_line(schema.load(junos_flavour(model)), line)
    return None if v.ok else schema.cli_error(line, v)


def junos_load_errors(lines: list[str], model: str | None = None) -> tuple[list[str], list[str]]:
    """(lines that load, error messages) of a ``load set terminal`` input, numbered as the terminal."""
    from roceconf.platforms.junos import schema

    good, errors = [], []
    for n, line in enumerate(lines, start=1):
        refused = junos_refusal(line, model)
        if refused is None:
            good.append(line)
            continue
        v = schema.check_line(schema.load(junos_flavour(model)), line)
        ws = schema.words_of(line)
        at = (v.at or 0) + 1
        col = len(" ".join(ws[:at])) + 1
        word = ws[at] if at < len(ws) else ws[-1]
        errors.append(f"terminal:{n}:({col}) {v.message}: {word}\n  [edit]\n    '{line}'")
    return good, errors


# ------------------------------------------------------------------------------------------ SONiC
# The lab's SONiC `config load` / `config reload FILE` validate the CONFIG_DB that would result against
# SONiC's own YANG (sonic-net/sonic-buildimage src/sonic-yang-models), with the conformance oracle:
# roceconf/platforms/sonic/yang.py translate (sonic_yang_ext.py's CONFIG_DB -> YANG JSON; "All Keys are not
# parsed") and validate_many (Debian's yanglint -t config). The fragment is merged onto the device's PORT
# table (the device's ports and those the fragment's PORT table names, with lanes and speed as
# sonic-port.yang needs; where neither names a port, the ports the fragment names). Answer, as sonic-utilities config/main.py
# validate_config_by_cm prints it: "Failed to validate config_input. Error: Data Loading Failed" and the
# libyang message, exit 1, nothing written. Community `config load` itself validates only in releases
# with sonic-utilities PR 4534 (issue 3502: "No config validation in config load cli"); `config reload
# FILE` validates since PR 3576 (202405). The lab is the strict switch: a fragment SONiC's YANG refuses
# never passes a live test. Verdicts are cached per document (a yanglint run costs about half a second).

_SONIC_VERDICTS: dict[str, str | None] = {}


def _port_base(running: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """The PORT table a fragment is loaded onto: the device's ports and the ports the fragment's own PORT
    table names (a lab device lists only some of a switch's ports), with the lanes and speed a switch has."""
    from roceconf.platforms.sonic import yang

    ports = {**(running.get("PORT") or {}), **(fragment.get("PORT") or {})}
    if not ports:
        return yang.base_ports(fragment)
    return yang.merge(yang.base_ports({"PORT": ports}), {"PORT": running.get("PORT") or {}})


def sonic_load_refusal(running: dict[str, Any], fragment: dict[str, Any]) -> str | None:
    """The ``config load`` error for a fragment on a switch whose running CONFIG_DB is ``running``."""
    import json as _json

    from roceconf.platforms.sonic import yang

    if yang.unavailable_reason() is not None:
        return None
    head = "Failed to validate config_input. Error: Data Loading Failed\n"
    try:
        doc = yang.translate(yang.merge(_port_base(running, fragment), fragment))
    except yang.TranslateError as exc:
        return head + str(exc)
    key = _json.dumps(doc, sort_keys=True)
    if key not in _SONIC_VERDICTS:
        if len(_SONIC_VERDICTS) >= 256:
            _SONIC_VERDICTS.clear()
        res = yang.validate_many({"load": doc})["load"]
        _SONIC_VERDICTS[key] = None if res.ok else head + (res.message or "invalid")
    return _SONIC_VERDICTS[key]


# ------------------------------------------------------------------------------------------ hosts
# The lab's NIC hosts check every mlnx_qos / dcb / ip command with the conformance oracles' restatements of
# the tools' own parsers: roceconf/platforms/connectx/grammar.py (NVIDIA mlnx-tools python/mlnx_qos, the
# test suite runs the real script on the same commands) and roceconf/platforms/linux_dcb/grammar.py
# (iproute2 dcb/dcb_app.c, dcb_ets.c, dcb_pfc.c, dcb.c, ip/iplink.c; the test suite asks Debian's dcb/ip
# in a network namespace). A refused command prints the tool's message and exits with the tool's status:
# mlnx_qos its optparse / sys.exit code, dcb 1 (dcb.c main returns EXIT_FAILURE), ip 255 (lib/utils.c
# invarg: exit(-1)). Commands the restatement does not model are left to the lab's read-back simulation.


def host_command_refusal(argv: list[str]) -> tuple[str, int] | None:
    """(the tool's error, exit status) for a refused mlnx_qos / dcb / ip command, else None."""
    from roceconf.platforms.connectx import grammar as mlnx
    from roceconf.platforms.linux_dcb import grammar as iproute2

    if not argv:
        return None
    if argv[0] == "mlnx_qos":
        try:
            mlnx.check(argv)
        except mlnx.Refused as exc:
            return str(exc), exc.code
        return None
    if argv[0] in ("dcb", "ip"):
        try:
            iproute2.check_argv(argv)
        except iproute2.Refused as exc:
            if "not modelled" in str(exc):
                return None
            return str(exc), 1 if argv[0] == "dcb" else 255
    return None


def host_script_refusal(text: str) -> tuple[int, str, str, int] | None:
    """The first refused command of a host script as (line number, command, error, exit status)."""
    from roceconf.platforms.connectx import grammar as mlnx
    from roceconf.platforms.linux_dcb import grammar as iproute2

    cmds = mlnx.commands_in_script(text) + iproute2.commands_in_script(text)
    for n, argv in sorted(cmds, key=lambda c: c[0]):
        refused = host_command_refusal(argv)
        if refused is not None:
            return n, " ".join(argv), refused[0], refused[1]
    return None


# ------------------------------------------------------------------------------------------ EOS
# What Arista's own AVD schema (pyavd eos_cli_config_gen: ethernet_interfaces[].mtu max 65535,
# .flowcontrol.received desired|on|off, qos_profiles[].trust cos|dscp|disabled,
# .priority_flow_control.priorities[].priority 0..7, priority_flow_control.watchdog.action
# drop|errdisable|notify-only, .timeout pattern \d+(\.\d{1,2})?) refuses, in the CLI lines AVD renders from
# those keys; interface mtu also within EOS's CLI range 68..9214 (roceconf/platforms/eos Capabilities).
# tests/conformance/eos_negatives.py pairs each refused line with the structured config pyavd refuses.
# Answer: "% Invalid input (at token N: 'word')" (eAPI: error 1002 "CLI command ... failed: invalid
# command" with that text in "errors"), and the line is not applied.

_EOS_RULES: tuple[tuple[re.Pattern[str], int, Any], ...] = (
    (re.compile(r"^mtu (\S+)$"), 1, lambda v: v.isdigit() and 68 <= int(v) <= 9214),
    (re.compile(r"^flowcontrol receive (\S+)$"), 2, lambda v: v in ("on", "off", "desired")),
    (re.compile(r"^qos trust (\S+)$"), 2, lambda v: v in ("cos", "dscp", "disabled")),
    (
        re.compile(r"^priority-flow-control priority (\S+)(?: no-drop| drop)?$"),
        2,
        lambda v: v in "01234567" and len(v) == 1,
    ),
    (
        re.compile(r"^priority-flow-control pause watchdog action (\S+)$"),
        4,
        lambda v: v in ("drop", "errdisable", "notify-only"),
    ),
    (
        re.compile(r"^priority-flow-control pause watchdog default timeout (\S+)$"),
        5,
        lambda v: re.fullmatch(r"\d+(\.\d{1,2})?", v) is not None,
    ),
)


def eos_refusal(line: str) -> str | None:
    """The EOS CLI error for one configuration line, or None when EOS takes it."""
    text = " ".join(line.split())
    for pat, token, ok in _EOS_RULES:
        m = pat.match(text)
        if m and not ok(m.group(1)):
            return f"% Invalid input (at token {token}: '{m.group(1)}')"
    return None
