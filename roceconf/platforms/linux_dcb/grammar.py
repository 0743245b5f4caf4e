"""iproute2's command grammar for the ``dcb`` and ``ip link`` commands roceconf's host scripts run.

A re-statement of what the iproute2 sources accept (iproute2 v6.1.0, the Debian 12 package, to HEAD), so
that the test suite can check every rendered command and the loopback lab can refuse what the real tool
refuses, with the real tool's message:

* ``dcb/dcb.c`` ``main`` (options ``-s -n NS -N -j -p -i -b -f``; objects), ``dcb_cmd_parse_dev``
  (``dev DEV`` first);
* ``dcb/dcb_app.c`` ``dcb_cmd_app`` (verbs show/flush/add/del/replace), ``dcb_cmd_app_parse_add_del``
  (selectors and ``KEY:PRIO`` mappings), ``dcb_cmd_app_flush`` / ``dcb_cmd_app_show`` (bare selectors:
  flush accepts only ``ethtype-prio``, ``default-prio``, ``dscp-prio`` and ``pcp-prio``);
  ``dcb_app_parse_dscp`` (a number or an rt_dsfield name), ``dcb_app_parse_mapping_port_prio``;
* ``dcb/dcb_ets.c`` ``dcb_cmd_ets_set`` and ``dcb_ets_parse_mapping_*`` (TSA names strict/cbs/ets/vendor,
  bandwidth 0..100, TC/PRIO 0..7); ``dcb/dcb_pfc.c`` ``dcb_cmd_pfc_set``;
* ``dcb/dcb.c`` ``dcb_parse_mapping`` (the "In X:Y mapping, X is expected to be 0..N" messages);
  ``lib/utils.c`` ``parse_mapping_gen`` / ``parse_mapping_num_all`` (``all`` keys) and ``matches``
  (a keyword may be abbreviated to any prefix);
* ``ip/iplink.c`` ``iplink_parse`` (``mtu`` takes an integer; ``dev`` is optional before the name).

Only the subset roceconf renders and reads back is modelled; any other ``dcb``/``ip`` command is refused
as "not modelled" so that nothing passes unchecked.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from roceconf.platforms.base import refusals

MAX_PRIO = 7
#: rt_dsfield names iproute2 ships (etc/iproute2/rt_dsfield): name -> DS field (DSCP << 2)
_DSFIELD = {
    "CS0": 0x00, "CS1": 0x20, "CS2": 0x40, "CS3": 0x60, "CS4": 0x80, "CS5": 0xA0, "CS6": 0xC0, "CS7": 0xE0,
    "EF": 0xB8,
    "AF11": 0x28, "AF12": 0x30, "AF13": 0x38, "AF21": 0x48, "AF22": 0x50, "AF23": 0x58,
    "AF31": 0x68, "AF32": 0x70, "AF33": 0x78, "AF41": 0x88, "AF42": 0x90, "AF43": 0x98,
}  # fmt: skip
_TSA = ("strict", "cbs", "ets", "vendor")
_APP_SELECTORS = (
    "ethtype-prio",
    "default-prio",
    "dscp-prio",
    "stream-port-prio",
    "dgram-port-prio",
    "port-prio",
)
#: dcb_cmd_app_flush: the selectors flush (and show) accept; pcp-prio needs the full word (strcmp)
_FLUSH_SELECTORS = ("ethtype-prio", "default-prio", "dscp-prio")


class Refused(ValueError):
    """The command iproute2 would refuse; ``str()`` is the message the tool prints."""


def matches(arg: str, keyword: str) -> bool:
    """lib/utils.c matches(): ``arg`` is a non-empty prefix of ``keyword``."""
    return bool(arg) and keyword.startswith(arg)


def _u32(text: str) -> int | None:
    """get_u32(..., 0): decimal, 0x hex or 0 octal; None if not a number."""
    try:
        return int(text, 0) if not re.fullmatch(r"0\d+", text) else int(text, 8)
    except ValueError:
        return None


def _mapping(
    tokens: list[str], i: int, what_key: str, what_value: str, max_key: int, value_of, allow_all: bool
):
    """parse_mapping_gen: consume KEY:VALUE tokens from ``i``; returns the index after them."""
    n = 0
    while i < len(tokens) and ":" in tokens[i]:
        key, _, value = tokens[i].partition(":")
        if allow_all and matches(key, "all"):
            k: int | None = -1
        else:
            k = value_of_key(key, what_key)
        if k is None:
            raise Refused(f"Invalid mapping {tokens[i]}")
        v = value_of(value)
        if v is None:
            raise Refused(f"Invalid mapping {tokens[i]}")
        if k != -1 and k > max_key:
            raise Refused(f"In {what_key}:{what_value} mapping, {what_key} is expected to be 0..{max_key}")
        i += 1
        n += 1
    if n == 0:
        raise Refused(f"Invalid mapping {tokens[i] if i < len(tokens) else ''}".rstrip())
    return i


def value_of_key(key: str, what_key: str) -> int | None:
    if what_key == "DSCP":
        v = _u32(key)
        if v is not None:
            return v
        ds = _DSFIELD.get(key.upper())
        return None if ds is None else ds >> 2
    return _u32(key)


def _bounded(limit: int, what_key: str, what_value: str):
    def conv(value: str) -> int | None:
        v = _u32(value)
        if v is None:
            return None
        if v > limit:
            raise Refused(f"In {what_key}:{what_value} mapping, {what_value} is expected to be 0..{limit}")
        return v

    return conv


def _one_of(names: tuple[str, ...], what: str):
    def conv(value: str) -> int | None:
        for idx, name in enumerate(names):
            if matches(value, name):
                return idx
        raise Refused(f'Invalid {what}: "{value}"')

    return conv


def _on_off(what: str, value: str) -> None:
    if value not in ("on", "off"):
        raise Refused(f'"{what}" must be either "on" or "off", not "{value}"')


def _check_app(verb: str, args: list[str]) -> None:
    if verb in ("show", "flush"):
        for a in args:
            if matches(a, "help"):
                return
            if verb == "show" and any(matches(a, s) for s in _APP_SELECTORS):
                continue
            if verb == "flush" and any(matches(a, s) for s in _FLUSH_SELECTORS):
                continue
            if a == "pcp-prio":
                continue
            raise Refused(f'What is "{a}"?')
        return
    if not args:
        return  # prints the usage, exits 0
    i = 0
    while i < len(args):
        a = args[i]
        if matches(a, "help"):
            return
        if not (any(matches(a, k) for k in _APP_SELECTORS) or a == "pcp-prio"):
            raise Refused(f'What is "{a}"?')
        if i + 1 >= len(args):
            raise Refused('Command line is not complete. Try option "help"')
        if matches(a, "ethtype-prio"):
            for t in args[i + 1 :]:
                if ":" not in t:
                    break
                k = _u32(t.partition(":")[0])
                if k is not None and k < 0x600:
                    raise Refused("Protocol IDs < 0x600 are reserved for EtherType")
            i = _mapping(args, i + 1, "ETHTYPE", "PRIO", 0xFFFF, _bounded(MAX_PRIO, "ETHTYPE", "PRIO"), False)
        elif matches(a, "default-prio"):
            i += 1
            while i < len(args) and _u32(args[i]) is not None:
                if _u32(args[i]) > MAX_PRIO:  # type: ignore[operator]
                    raise Refused(f"Invalid default priority {args[i]}")
                i += 1
        elif matches(a, "dscp-prio"):
            i = _mapping(args, i + 1, "DSCP", "PRIO", 63, _bounded(MAX_PRIO, "DSCP", "PRIO"), True)
        elif matches(a, "stream-port-prio") or matches(a, "dgram-port-prio") or matches(a, "port-prio"):
            for t in args[i + 1 :]:
                if ":" not in t:
                    break
                if _u32(t.partition(":")[0]) == 0:
                    raise Refused("Port ID of 0 is invalid")
            i = _mapping(args, i + 1, "PORT", "PRIO", 0xFFFF, _bounded(MAX_PRIO, "PORT", "PRIO"), False)
        elif a == "pcp-prio":
            i += 1
            while i < len(args) and ":" in args[i]:
                i += 1
        else:
            raise Refused(f'What is "{a}"?')


def _check_ets(args: list[str]) -> None:
    i = 0
    keys = {
        "tc-tsa": ("TC", "TSA", _one_of(_TSA, "TSA")),
        "reco-tc-tsa": ("TC", "TSA", _one_of(_TSA, "TSA")),
        "tc-bw": ("TC", "BW", _bounded(100, "TC", "BW")),
        "pg-bw": ("TC", "BW", _bounded(100, "TC", "BW")),
        "reco-tc-bw": ("TC", "BW", _bounded(100, "TC", "BW")),
        "prio-tc": ("PRIO", "TC", _bounded(MAX_PRIO, "PRIO", "TC")),
        "reco-prio-tc": ("PRIO", "TC", _bounded(MAX_PRIO, "PRIO", "TC")),
    }
    while i < len(args):
        a = args[i]
        if matches(a, "help"):
            return
        if not (matches(a, "willing") or any(matches(a, k) for k in keys)):
            raise Refused(f'What is "{a}"?')
        if i + 1 >= len(args):
            raise Refused('Command line is not complete. Try option "help"')
        if matches(a, "willing"):
            _on_off("willing", args[i + 1])
            i += 2
            continue
        # dcb_cmd_ets_set tests the keywords in this order: 'tc-tsa' before 'reco-tc-tsa', ...
        kw = next((k for k in keys if matches(a, k)), None)
        if kw is None:
            raise Refused(f'What is "{a}"?')
        what_key, what_value, conv = keys[kw]
        try:
            i = _mapping(args, i + 1, what_key, what_value, MAX_PRIO, conv, True)
        except Refused as exc:
            raise Refused(f"{exc}\nInvalid {kw} mapping {args[i + 1]}") from None


def _check_pfc(args: list[str]) -> None:
    i = 0
    while i < len(args):
        a = args[i]
        if matches(a, "help"):
            return
        if not any(matches(a, k) for k in ("prio-pfc", "macsec-bypass", "delay")):
            raise Refused(f'What is "{a}"?')
        if i + 1 >= len(args):
            raise Refused('Command line is not complete. Try option "help"')
        if matches(a, "prio-pfc"):

            def onoff(v: str) -> int:
                _on_off("PFC", v)
                return 1 if v == "on" else 0

            try:
                i = _mapping(args, i + 1, "PRIO", "PFC", MAX_PRIO, onoff, True)
            except Refused as exc:
                raise Refused(f"{exc}\nInvalid pfc mapping {args[i + 1]}") from None
        elif matches(a, "macsec-bypass"):
            _on_off("macsec-bypass", args[i + 1])
            i += 2
        elif matches(a, "delay"):
            v = _u32(args[i + 1])
            if v is None or v > 0xFFFF:
                raise Refused(f"Invalid delay `{args[i + 1]}', expected an integer 0..65535")
            i += 2
        else:
            raise Refused(f'What is "{a}"?')


_DCB_FLAGS_NOARG = {"-s", "--statistics", "-N", "--Numeric", "-j", "--json", "-p", "--pretty", "-i", "--iec"}


def _after_options(
    argv: list[str], flags: set[str] | tuple[str, ...], netns: tuple[str, str], unknown: Callable[[str], str]
) -> list[str]:
    """The words after the tool's global options: each of ``flags`` stands alone, each of ``netns`` takes the
    next word; any other option is refused with the message ``unknown(option)``."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in flags:
            i += 1
        elif argv[i] in netns:
            i += 2
        else:
            raise Refused(unknown(argv[i]))
    return argv[i:]


def check_dcb(argv: list[str]) -> None:
    """Raise :class:`Refused` unless iproute2's ``dcb`` parses ``argv`` (``argv[0] == 'dcb'``)."""
    rest = _after_options(
        argv, _DCB_FLAGS_NOARG, ("-n", "--netns"), lambda opt: f"dcb: invalid option -- '{opt.lstrip('-')}'"
    )
    if not rest:
        raise Refused("Usage: dcb [ OPTIONS ] OBJECT { COMMAND | help }")
    obj = rest[0]
    objects = ("app", "buffer", "dcbx", "ets", "maxrate", "pfc")
    name = next((o for o in objects if matches(obj, o)), None)
    if name is None:
        raise Refused(f'Object "{obj}" is unknown, try "dcb help".')
    if len(rest) < 2:
        return
    verb = rest[1]
    verbs = {"app": ("show", "flush", "add", "del", "replace")}.get(name, ("show", "set"))
    v = next((x for x in verbs if matches(verb, x)), None)
    if v is None:
        raise Refused(f'What is "{verb}"?')
    args = rest[2:]
    if not args:
        return
    if not matches(args[0], "dev"):
        raise Refused(f"Expected `dev DEV', not `{args[0]}'")
    if len(args) < 2:
        raise Refused('Command line is not complete. Try option "help"')
    dev = args[1]
    if not dev or len(dev) >= 16 or "/" in dev or any(c.isspace() for c in dev):
        raise Refused(f'Error: argument "{dev}" is wrong: not a valid ifname')
    args = args[2:]
    if name == "app":
        _check_app(v, args)
    elif v == "show":
        return
    elif name == "ets":
        _check_ets(args)
    elif name == "pfc":
        _check_pfc(args)
    else:
        raise Refused(f"dcb {name} {v}: not modelled by roceconf's grammar check")


def check_ip(argv: list[str]) -> None:
    """Raise :class:`Refused` unless iproute2's ``ip`` parses ``argv`` (``link set ... mtu N`` / ``link show``)."""
    rest = _after_options(
        argv,
        ("-j", "-json", "-d", "-details", "-s", "-stats", "-p", "-pretty"),
        ("-n", "-netns"),
        lambda opt: f'Option "{opt}" is unknown, try "ip -help".',
    )
    if not rest or not matches(rest[0], "link"):
        raise Refused(f"ip {' '.join(rest[:1])}: not modelled by roceconf's grammar check")
    if len(rest) < 2 or matches(rest[1], "show") or matches(rest[1], "list"):
        return
    if not matches(rest[1], "set"):
        raise Refused(f"ip link {rest[1]}: not modelled by roceconf's grammar check")
    args = rest[2:]
    if args and args[0] == "dev":
        args = args[1:]
    if not args:
        raise Refused('Not enough of information: "dev" argument is required.')
    args = args[1:]
    j = 0
    while j < len(args):
        a = args[j]
        if a in ("up", "down"):
            j += 1
        elif a == "mtu":
            if j + 1 >= len(args):
                raise Refused('Command line is not complete. Try option "help"')
            try:
                int(args[j + 1], 0)
            except ValueError:
                raise Refused(f'Error: argument "{args[j + 1]}" is wrong: Invalid "mtu" value') from None
            j += 2
        else:
            raise Refused(f"ip link set {a}: not modelled by roceconf's grammar check")


def check_argv(argv: list[str]) -> None:
    """Check one ``dcb`` or ``ip`` command (raises :class:`Refused`)."""
    if argv and argv[0] == "dcb":
        check_dcb(argv)
    elif argv and argv[0] == "ip":
        check_ip(argv)
    else:
        raise Refused(f"{argv[0] if argv else ''}: not an iproute2 dcb/ip command")


# --------------------------------------------------------------------------------- scripts
_SPLIT = re.compile(r"\|\||&&|;|\||\$\(|\)|`")


def commands_in_script(text: str) -> list[tuple[int, list[str]]]:
    """Every ``dcb`` / ``ip`` command of a bash script as (line number, argv). Shell variables are
    replaced by a value of their type: after ``dev`` an interface name, elsewhere a mapping ``0:0``."""
    out: list[tuple[int, list[str]]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\s#.*$", "", line)
        for seg in _SPLIT.split(line):
            try:
                words = shlex.split(seg, posix=True)
            except ValueError:
                words = seg.split()
            while words and words[0] in ("then", "do", "else", "{", "if", "!", "command", "sudo"):
                words = words[1:]
            if not words or words[0] not in ("dcb", "ip"):
                continue
            words = [w for w in words if w not in (">/dev/null", "2>&1", "2>/dev/null")]
            argv = []
            for k, w in enumerate(words):
                if "$" in w:
                    w = "eth0" if k and argv[-1] in ("dev", "-n") else "0:0"
                argv.append(w)
            out.append((n, argv))
    return out


def check_script(text: str) -> list[tuple[int, str, str]]:
    """[(line, command, iproute2's message)] for every refused dcb/ip command of a script."""
    return refusals(commands_in_script(text), check_argv, Refused)


# --------------------------------------------------------------------------------- APP table semantics
def run_app(table: list[tuple[str, int, int]], argv: list[str]) -> None:
    """Apply one ``dcb app`` command to an APP table [(selector, key, prio)] the way dcb_app.c does,
    including the part done before a refusal (``flush`` deletes selector by selector and only then meets
    a word it does not know). Raises :class:`Refused` where the command fails."""
    check_pos = [i for i, w in enumerate(argv) if w == "dev"]
    verb_i = 2 if argv[1] == "app" else argv.index("app") + 1
    verb = argv[verb_i]
    args = argv[check_pos[0] + 2 :] if check_pos else []
    if matches(verb, "flush"):
        for a in args:
            sel = next((s for s in _FLUSH_SELECTORS if matches(a, s)), None)
            if sel is None:
                raise Refused(f'What is "{a}"?')
            table[:] = [e for e in table if e[0] != sel]
        if not args:
            table.clear()
        return
    check_dcb(argv)  # add / del / replace parse everything before touching the device
    new: list[tuple[str, int, int]] = []
    sel = ""
    for a in args:
        if ":" not in a:
            sel = next(s for s in _APP_SELECTORS if matches(a, s))
            continue
        k, _, p = a.partition(":")
        new.append((sel, value_of_key(k, "DSCP" if sel == "dscp-prio" else "") or 0, int(p, 0)))
    if matches(verb, "add"):
        table.extend(e for e in new if e not in table)
    elif matches(verb, "del"):
        table[:] = [e for e in table if e not in new]
    elif matches(verb, "replace"):
        table.extend(e for e in new if e not in table)
        keys = {(s, k) for s, k, _ in new}
        table[:] = [e for e in table if (e[0], e[1]) not in keys or e in new]
