"""What NVIDIA's ``mlnx_qos`` accepts before it touches the NIC (Mellanox/mlnx-tools ``python/mlnx_qos``).

A re-statement of the script's own checks, in the order it makes them, with its messages, so that the
loopback lab refuses what the real tool refuses. The test suite runs the real script (in-process, with
the netlink controller replaced by an in-memory device: ``tests/conformance/test_mlnx_qos.py``) on the
same commands and requires the same verdict. Checks, from the source:

* ``OptionParser`` options (``-f/--pfc``, ``-F/--specific_pfc``, ``-P/--get_pfc``, ``-p/--prio_tc``,
  ``-s/--tsa``, ``-t/--tcbw``, ``-r/--ratelimit``, ``-d/--dcbx``, ``--trust``, ``--dscp2prio`` (repeatable),
  ``--cable_len``, ``--prio2buffer``, ``--buffer_size``, ``-i/--interface``, ``-a``); optparse takes an
  unambiguous prefix of a long option and exits 2 on an unknown or ambiguous one;
* positional arguments: "Bad arguments"; no ``-i``: "Interface name is required" (exit 1);
* ``--pfc``: 8 items, each ``parse_int(0..1)``; ``--dscp2prio``: ``flush`` or ``set|del,<dscp <= 63>,<prio <= 7>``,
  never together with ``--trust``; ``--trust``: pcp | dscp; ``--tsa``: 8 of strict | ets | vendor;
  ``--tcbw``: 8 items 0..100, 0 for a TC that is not ETS (TSA of this command); ``--prio_tc``: 8 items 0..7;
  ``--ratelimit``: 8 items 0..1000000; ``--cable_len``: 0..65535; ``--dcbx``: fw | os | get.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from roceconf.platforms.base import refusals

_LONG = {
    "--pfc": "pfc",
    "--specific_pfc": "specific_pfc",
    "--get_pfc": "get_pfc",
    "--prio_tc": "prio_tc",
    "--tsa": "tsa",
    "--tcbw": "tc_bw",
    "--ratelimit": "ratelimit",
    "--dcbx": "dcbx",
    "--trust": "trust",
    "--dscp2prio": "dscp2prio",
    "--cable_len": "cable_len",
    "--prio2buffer": "prio2buffer",
    "--buffer_size": "buffer_size",
    "--interface": "intf",
    "--help": "help",
    "--version": "version",
}
_SHORT = {
    "-f": "pfc",
    "-F": "specific_pfc",
    "-P": "get_pfc",
    "-p": "prio_tc",
    "-s": "tsa",
    "-t": "tc_bw",
    "-r": "ratelimit",
    "-d": "dcbx",
    "-i": "intf",
    "-a": "printall",
    "-h": "help",
}
_FLAGS = {"printall", "help", "version"}
USAGE = "Usage: mlnx_qos -i <interface> [options]"


class Refused(ValueError):
    """``str()`` is what mlnx_qos prints; ``code`` its exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _opt_error(msg: str) -> Refused:
    return Refused(f"{USAGE}\n\nmlnx_qos: error: {msg}", 2)


def _next_word(argv: list[str], i: int, option: str) -> str:
    """The value of the option at ``argv[i]`` when it is not attached to it: the next word."""
    if i + 1 >= len(argv):
        raise _opt_error(f"{option} option requires 1 argument")
    return argv[i + 1]


def parse_options(argv: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """optparse as mlnx_qos configures it: ({dest: [values]}, positional args)."""
    opts: dict[str, list[str]] = {}
    args: list[str] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            args += argv[i + 1 :]
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            cands = [k for k in _LONG if k.startswith(name)]
            if name in _LONG:
                cands = [name]
            if not cands:
                raise _opt_error(f"no such option: {name}")
            if len(cands) > 1:
                raise _opt_error(f"ambiguous option: {name} ({', '.join(sorted(cands))}?)")
            dest = _LONG[cands[0]]
            if dest in _FLAGS:
                opts.setdefault(dest, []).append("")
                i += 1
                continue
            if not eq:
                value = _next_word(argv, i, cands[0])
                i += 1
            opts.setdefault(dest, []).append(value)
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                sw = "-" + a[j]
                dest = _SHORT.get(sw)
                if dest is None:
                    raise _opt_error(f"no such option: {sw}")
                if dest in _FLAGS:
                    opts.setdefault(dest, []).append("")
                    j += 1
                    continue
                value = a[j + 1 :]
                if not value:
                    value = _next_word(argv, i, sw)
                    i += 1
                opts.setdefault(dest, []).append(value)
                break
            i += 1
            continue
        args.append(a)
        i += 1
    return opts, args


def _int(text: str, lo: int, hi: int, what: str) -> int:
    try:
        v = int(text)
    except ValueError as exc:
        raise Refused(f"Bad value for {what}: {exc}\n{USAGE}") from None
    if not lo <= v <= hi:
        raise Refused(f"Bad value for {what}: {v} is not in the range {lo}..{hi}\n{USAGE}")
    return v


def _in(lo: int, hi: int, what: str) -> Callable[[int, str], object]:
    """The item check of a list of integers ``lo..hi`` (``parse_int``)."""
    return lambda n, t: _int(t, lo, hi, what)


def _items(text: str, too_many: str, item: Callable[[int, str], object], count: str | None) -> list[str]:
    """A comma list of one value per priority or TC, checked as mlnx_qos does: each item in turn with
    ``item(index, text)`` (a ninth item is refused as ``too_many`` when it is reached), then the number of
    items (``count``: the message when there are not 8; None: fewer are accepted)."""
    items = text.split(",")
    for n, t in enumerate(items):
        if n >= 8:
            raise Refused(too_many)
        item(n, t)
    if count is not None and len(items) != 8:
        raise Refused(count)
    return items


def _tsa(n: int, t: str) -> None:
    if t not in ("strict", "ets", "vendor"):
        raise Refused(f"('Bad TSA value: ', '{t}')\n{USAGE}")


def check(argv: list[str]) -> None:
    """Raise :class:`Refused` unless mlnx_qos accepts ``argv`` (``argv[0] == 'mlnx_qos'``)."""
    opts, args = parse_options(argv)
    if "help" in opts or "version" in opts:
        return
    last = {k: v[-1] for k, v in opts.items()}
    if args:
        raise Refused(f"Bad arguments\n{USAGE}")
    if "intf" not in last:
        raise Refused(f"Interface name is required\n{USAGE}")
    if last.get("dcbx") not in (None, "os", "fw", "get"):
        raise Refused("Invalid dcbx mode command. Refer to the help.")
    if "cable_len" in last:
        _int(last["cable_len"], 0, 0xFFFF, "cable_len")
    if "get_pfc" in last:
        try:
            idx = int(last["get_pfc"])
        except ValueError:
            raise Refused(
                f"ValueError: invalid literal for int() with base 10: '{last['get_pfc']}'"
            ) from None
        if idx not in range(8):
            raise Refused("pfc index must be in range of 0-7")
        return
    if "specific_pfc" in last:
        items = last["specific_pfc"].split(",")
        if len(items) != 8:
            raise Refused("pfc list must have 8 items")
        for t in items:
            if t != "x" and t not in ("0", "1"):
                raise Refused(f"Bad value for 'PFC': {t}")
        return
    if "pfc" in last:
        _items(last["pfc"], "Too many items for PFC", _in(0, 1, "PFC"), "pfc list must have 8 items")
    if "dscp2prio" in opts and "trust" in last:
        raise Refused("trust and dscp2prio commands cannot be used at the same time.")
    for opt in opts.get("dscp2prio", []):
        if opt == "flush":
            continue
        parts = opt.split(",")
        try:
            action, dscp, prio = parts[0], int(parts[1]), int(parts[2])
            if len(parts) != 3:
                raise ValueError
        except (ValueError, IndexError):
            raise Refused("Invalid dscp2prio command. Refer to the help.") from None
        if action not in ("set", "del") or dscp > 63 or prio > 7:
            raise Refused("")  # the script exits 1 without a message here
    if "trust" in last and last["trust"] not in ("dscp", "pcp"):
        raise Refused("Invalid trust state command. Refer to the help.")
    if "prio2buffer" in last:
        _items(last["prio2buffer"], "Too many items for prio2buffer", _in(0, 7, "prio buffer"), None)
    if "ratelimit" in last:
        limit = _in(0, 1_000_000, "ratelimit")
        _items(last["ratelimit"], "Too many items for ratelimit", limit, "ratelimit must have 8 items")
    tsa: list[str] | None = None
    if "tsa" in last:
        tsa = _items(last["tsa"], "Too many items for TSA", _tsa, "tsa list must have 8 items")

    def ets_bw(n: int, t: str) -> None:
        bw = _int(t, 0, 100, "ETS BW")
        # without --tsa in the same call the device's current TSA decides (not known here): strict
        if (tsa[n] if tsa is not None else "strict") != "ets" and bw != 0:
            raise Refused(f"ETS BW for a strict/vendor TC must be 0\n{USAGE}")

    if "tc_bw" in last:
        _items(last["tc_bw"], "Too many items for ETS BW", ets_bw, "tcbw list must have 8 items")
    if "prio_tc" in last:
        up_tc = _in(0, 7, "UP => TC mapping")
        _items(last["prio_tc"], "Too many items in UP => TC mapping", up_tc, "prio_tc list must have 8 items")


def _printed(exc: Refused) -> str:
    return str(exc) or f"(exit {exc.code}, no message)"


def check_line(line: str) -> None:
    """Check one shell command line that starts with ``mlnx_qos``."""
    check(shlex.split(line))


def check_script(text: str) -> list[tuple[int, str, str]]:
    """[(line, command, mlnx_qos's message)] for every refused mlnx_qos command of a script."""
    return refusals(commands_in_script(text), check, Refused, _printed)


def commands_in_script(text: str) -> list[tuple[int, list[str]]]:
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("mlnx_qos "):
            try:
                out.append((n, shlex.split(line.split(" #", 1)[0])))
            except ValueError:
                out.append((n, line.split()))
    return out
