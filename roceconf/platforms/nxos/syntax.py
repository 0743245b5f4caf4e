"""Cisco NX-OS: the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from netutils.interface import canonical_interface_name

from roceconf.names import RangeError, expand_interfaces
from roceconf.state import Ecn, Sched
from roceconf.units import expand_ints

QOS_GUIDE = (
    "https://cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/105x/configuration/qos/"
    "cisco-nexus-9000-series-nx-os-quality-of-service-configuration-guide-105x/"
)

#: PFC watchdog timers (N9K QoS guide 10.5(x), "Configuring Priority Flow Control", PFC watchdog workflow:
#: a watchdog interval, a shutdown multiplier, auto-restore and fixed-restore multipliers; "poll timer of
#: 100ms"): ``priority-flow-control watch-dog interval <100-1000 ms>``, ``priority-flow-control watch-dog
#: shutdown-multiplier <1-10>`` (when a stuck queue is shut: multiplier x interval), ``priority-flow-control
#: auto-restore multiplier <1-100>`` (restoration: multiplier x interval). Keyword -> (state field, lo, hi).
WD_INTERVAL_DEFAULT_MS = 100
WD_TIMERS = {
    ("watch-dog", "interval"): ("polling_ms", 100, 1000),
    ("watch-dog", "shutdown-multiplier"): ("detection_ms", 1, 10),
    ("auto-restore", "multiplier"): ("restoration_ms", 1, 100),
}
INTERFACES_GUIDE = (
    "https://www.cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/102x/configuration/interfaces/"
    "cisco-nexus-9000-nx-os-interfaces-configuration-guide-102x/m-configuring-basic-interface-parameters.html"
)
ECMP_DOC = (
    "https://developer.cisco.com/docs/cisco-nexus-3000-and-9000-series-nx-api-rest-sdk-user-guide-and-"
    "api-reference-release-9-3x/configuring-ecmp-load-balancing"
)

#: Render-side policy names (any name works for the parser).
QOS_POLICY = "ROCECONF_QOS"
QOS_POLICY_COS = "ROCECONF_QOS_COS"
NQ_POLICY = "ROCECONF_NQ"
QUEUING_POLICY = "ROCECONF_QUEUING"

_KBYTE = 1000
#: An interface range larger than this is junk, not a switch.
MAX_PORTS = 4096
#: DSCP names NX-OS accepts in 'match dscp' (RFC 2474/2597/3246 code points).
DSCP_NAMES = {
    "default": 0,
    "ef": 46,
    **{f"cs{i}": 8 * i for i in range(8)},
    **{f"af{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)},
}
_UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1000 * 1000}

# Words that make an otherwise unknown line RoCE-relevant (it then becomes a warning).
_ROCE_WORDS = re.compile(
    r"priority-flow-control|pfc|random-detect|\becn\b|qos|queuing|load-sharing|flowcontrol|"
    r"\bmtu\b|\bpause\b|watch-?dog|\bdscp\b|\bpriority\b|bandwidth",
    re.I,
)
# System-defined class names: c-8q-nq3, c-8q-nq-default, c-out-8q-q3, c-out-8q-q-default, c-nq2, c-out-q1 ...
_SYSTEM_CLASS = re.compile(r"^c-(?:out-)?(?:8q-)?(?:nq|q)(?:(\d)|-default)$", re.I)


# --------------------------------------------------------------------------- config tree
@dataclass
class _Node:
    text: str
    line: int
    indent: int
    children: list[_Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return self.text.split()

    @property
    def low(self) -> list[str]:
        return self.text.lower().split()


# Sub-mode commands, used to read configs whose indentation was lost (pasted from documents): NX-OS
# itself reads a pasted config by mode, not by indentation.
_SUBMODE_WORDS = {
    "cmap": {"match", "description"},
    "pmap": {"class", "description"},
    "pclass": {
        "set",
        "priority",
        "bandwidth",
        "random-detect",
        "pause",
        "mtu",
        "shape",
        "queue-limit",
        "police",
        "congestion-control",
        "afd",
        "description",
        "no",
    },
    "sysqos": {"service-policy"},
}
_TOP_WORDS = {
    "interface",
    "class-map",
    "policy-map",
    "system",
    "hostname",
    "switchname",
    "vlan",
    "vrf",
    "router",
    "feature",
    "line",
    "boot",
    "vpc",
    "version",
    "logging",
    "snmp-server",
    "ntp",
    "username",
}


def _mode(text: str, parent_mode: str | None) -> str | None:
    """Config mode a line enters (None: it enters no sub-mode we read by keyword)."""
    low = text.lower().split()
    if parent_mode == "pmap":
        return "pclass"
    if parent_mode is not None:
        return None
    if low[0] == "class-map":
        return "cmap"
    if low[0] == "policy-map":
        return "pmap"
    if low[0] == "interface":
        return "if"
    if low[:2] == ["system", "qos"]:
        return "sysqos"
    return None


def _accepts(mode: str | None, text: str) -> bool:
    low = text.lower().split()
    if mode is None:
        return False
    if mode == "if":
        return low[0] not in _TOP_WORDS and low[:2] != ["ip", "load-sharing"]
    return low[0] in _SUBMODE_WORDS[mode]


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(line number, indent, text) of the config lines; comments, blanks and exit/end are dropped."""
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(2).rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith(("!", "#")) or stripped.lower() in ("exit", "end"):
            continue
        out.append((n, len(line) - len(line.lstrip(" ")), stripped))
    return out


def _is_flat(entries: list[tuple[int, int, str]]) -> bool:
    """True when block headers are followed by their sub-commands at the same indentation."""
    flat = False
    for (_, indent, text), (_, nxt_indent, nxt) in zip(entries, entries[1:], strict=False):
        mode = _mode(text, None)
        if mode is None or mode == "if":
            continue
        if nxt_indent > indent:
            return False
        if nxt_indent == indent and _accepts(mode, nxt):
            flat = True
    return flat


def _tree(text: str) -> list[_Node]:
    """Config tree: by indentation (running-config), or by config mode when the indentation is flat."""
    entries = _lines(text)
    root = _Node("", 0, -1)
    if _is_flat(entries):
        stack: list[tuple[_Node, str | None]] = [(root, None)]
        for n, indent, stripped in entries:
            while len(stack) > 1 and not _accepts(stack[-1][1], stripped):
                stack.pop()
            parent, parent_mode = stack[-1]
            node = _Node(stripped, n, indent)
            parent.children.append(node)
            mode = _mode(stripped, parent_mode if parent is not root else None)
            if mode is not None:
                stack.append((node, mode))
        return root.children
    nodes = [root]
    for n, indent, stripped in entries:
        while len(nodes) > 1 and nodes[-1].indent >= indent:
            nodes.pop()
        node = _Node(stripped, n, indent)
        nodes[-1].children.append(node)
        nodes.append(node)
    return root.children


# --------------------------------------------------------------------------- helpers
def _int(word: str) -> int | None:
    return int(word) if word.isdigit() else None


def _dscp_values(words: list[str]) -> list[int]:
    """'26,48' / '24-31' / 'af31 cs6' -> integers. Raises ValueError on junk."""
    out: list[int] = []
    for part in re.split(r"[,\s]+", " ".join(words)):
        if part in DSCP_NAMES:
            out.append(DSCP_NAMES[part])
        elif part:
            out.extend(expand_ints(part))
    return out


def _attach(low: list[str], direction: str) -> bool:
    """'service-policy type <kind> <direction> <name> [no-stats]'."""
    return len(low) in (5, 6) and low[3] == direction and (len(low) == 5 or low[5] == "no-stats")


def _system_class_group(name: str) -> int | None:
    """c-8q-nq3 -> 3, c-out-8q-q-default -> 0, class-default -> 0, other names -> None."""
    if name.lower() == "class-default":
        return 0
    m = _SYSTEM_CLASS.match(name)
    if not m:
        return None
    return int(m.group(1)) if m.group(1) is not None else 0


_IF_PREFIX = re.compile(r"^([A-Za-z][A-Za-z-]*?)\s*(\d.*)$")


def canonical_name(name: str) -> str:
    """Eth1/1, ethernet 1/1, e1/1 -> Ethernet1/1; Po10 / port-channel10 -> port-channel10."""
    name = name.strip()
    m = _IF_PREFIX.match(name)
    if not m:
        return name
    prefix, rest = m.group(1).lower(), m.group(2).replace(" ", "")
    if prefix in ("e", "et", "eth", "ethernet"):
        return f"Ethernet{rest}"
    if prefix in ("po", "port-channel", "port-ch", "port-channel-"):
        return f"port-channel{rest}"
    try:
        return canonical_interface_name(f"{m.group(1)}{rest}")
    except Exception:  # noqa: BLE001 - netutils on odd input: keep the text
        return f"{m.group(1)}{rest}"


def expand_interface_spec(spec: str) -> list[str]:
    """'Ethernet1/1-4, Eth1/7' -> canonical names. Raises RangeError on junk."""
    out: list[str] = []
    spec = re.sub(r"\s*-\s*", "-", spec.strip())
    for part in re.split(r"\s*,\s*", spec):
        if not part:
            raise RangeError(f"empty item in {spec!r}")
        canon = canonical_name(part)
        m = re.match(r"^.*?(\d+)-(\d+)$", canon)
        if m and int(m.group(2)) - int(m.group(1)) > MAX_PORTS:
            raise RangeError(f"interface range {part!r} is too large")
        out.extend(expand_interfaces(canon))
        if len(out) > MAX_PORTS:
            raise RangeError(f"more than {MAX_PORTS} interfaces in {spec!r}")
    return out


def _is_port(name: str) -> bool:
    return bool(re.fullmatch(r"Ethernet\d+(?:/\d+)+", name)) or bool(re.fullmatch(r"port-channel\d+", name))


# --------------------------------------------------------------------------- parsed objects
@dataclass
class _ClassMap:
    name: str
    line: int
    match_all: bool
    dscp: list[tuple[list[int], int, str]] = field(default_factory=list)  # (values, line, text)
    cos: list[tuple[list[int], int, str]] = field(default_factory=list)
    group: int | None = None  # match qos-group (network-qos / queuing class-maps)
    n_matches: int = 0


@dataclass
class _QosClass:
    cmap: str
    line: int
    group: int | None = None
    group_line: int | None = None
    group_text: str = ""


@dataclass
class _Policy:
    kind: str  # qos | network-qos | queuing
    name: str
    line: int
    classes: list[Any] = field(default_factory=list)


@dataclass
class _NqClass:
    cls: str
    line: int
    pfc_cos: list[int] = field(default_factory=list)
    no_drop_class: bool = False
    lines: list[int] = field(default_factory=list)
    text: str = ""
    #: class MTU (value, line, text): frames of this class larger than it are dropped
    mtu: tuple[int, int, str] | None = None


@dataclass
class _QueueClass:
    cls: str
    line: int
    ecn: Ecn | None = None
    ecn_lines: list[int] = field(default_factory=list)
    ecn_text: str = ""
    sched: Sched | None = None
    sched_lines: list[int] = field(default_factory=list)
    sched_text: str = ""


@dataclass
class _Itf:
    name: str
    lines: list[int] = field(default_factory=list)
    settings: dict[str, tuple[Any, int, str]] = field(default_factory=dict)

    def set(self, key: str, value: Any, node: _Node) -> None:
        self.settings[key] = (value, node.line, node.text)
