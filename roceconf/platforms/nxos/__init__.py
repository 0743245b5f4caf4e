"""Cisco NX-OS (Nexus 9000, MQC) platform: capabilities, template filters and running-config parser.

NX-OS expresses RoCE in four linked objects:

* ``class-map type qos`` + ``policy-map type qos`` (``match dscp`` -> ``set qos-group N``), attached per
  interface with ``service-policy type qos input`` -> the DSCP map and trust;
* ``policy-map type network-qos`` (``class type network-qos c-8q-nq<N>`` / ``pause pfc-cos <N>``), attached
  globally under ``system qos`` -> the no-drop priorities;
* ``policy-map type queuing`` (``class type queuing c-out-8q-q<N>`` / ``priority`` / ``bandwidth`` /
  ``random-detect ... ecn``), attached under ``system qos`` (or per interface) -> ECN and scheduling;
* interface lines (``mtu``, ``priority-flow-control mode``, ``priority-flow-control watch-dog-interval``,
  ``flowcontrol``) and global lines (watchdog, ``ip load-sharing``).

qos-group N is egress queue N (fixed on NX-OS), which is roceconf's priority/TC N.

The parser reads semantics, not text: only attached objects count. Objects defined but never attached
produce ``UNUSED`` warnings, references to undefined objects produce ``UNDEFINED`` warnings.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from netutils.interface import canonical_interface_name

from roceconf.names import RangeError, compress_interfaces, expand_interfaces, natural_key
from roceconf.platforms.base import Capabilities, Fact, Platform, negate_stale_lines
from roceconf.state import DeviceState, Ecn, Interface, Sched
from roceconf.units import compress_ints, expand_ints

QOS_GUIDE = (
    "https://cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/105x/configuration/qos/"
    "cisco-nexus-9000-series-nx-os-quality-of-service-configuration-guide-105x/"
)
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


# --------------------------------------------------------------------------- parser
class _Parser:
    def __init__(self, state: DeviceState) -> None:
        self.s = state
        self.cmaps: dict[str, _ClassMap] = {}
        self.cmap_kind: dict[str, str] = {}
        self.policies: dict[tuple[str, str], _Policy] = {}
        self.system: dict[str, tuple[str, int, str]] = {}
        self.itfs: dict[str, _Itf] = {}
        self.global_wd: tuple[bool, int, str] | None = None
        #: smallest class MTU of the attached network-qos policy (value, lines, text)
        self.nq_mtu: tuple[int, list[int], str] | None = None
        self.used_cmaps: set[tuple[str, str]] = set()
        self.used_policies: set[tuple[str, str]] = set()
        self.undefined_seen: set[tuple[str, str]] = set()

    # ------------------------------------------------------------ helpers
    def unknown(self, node: _Node, where: str = "") -> None:
        if _ROCE_WORDS.search(node.text):
            ctx = f" in {where}" if where else ""
            self.s.warn(f"unrecognised RoCE-relevant line{ctx}: {node.text!r}", node.line)

    def undefined(self, kind: str, name: str, node: _Node) -> None:
        if (kind, name) in self.undefined_seen:
            return
        self.undefined_seen.add((kind, name))
        self.s.warn(f"{kind} {name!r} is referenced but not defined", node.line, code="UNDEFINED")

    # ------------------------------------------------------------ pass 1: collect
    def collect(self, nodes: list[_Node]) -> None:
        for node in nodes:
            try:
                self.top(node)
            except Exception as exc:  # noqa: BLE001 - never raise: one bad block is one warning
                self.s.warn(f"could not read {node.text!r}: {exc}", node.line)

    def top(self, node: _Node) -> None:
        w, lw = node.words, node.low
        if lw[0] in ("hostname", "switchname") and len(w) == 2:
            self.s.hostname = w[1]
            self.s.at("hostname", node.line, node.text)
        elif lw[:2] == ["class-map", "type"] and len(w) >= 4:
            self.class_map(node)
        elif lw[:2] == ["policy-map", "type"] and len(w) == 4:
            self.policy_map(node)
        elif lw == ["system", "qos"]:
            self.system_qos(node)
        elif lw[0] == "interface" and len(w) >= 2:
            self.interface(node)
        elif (
            lw[:2] == ["priority-flow-control", "watch-dog-interval"]
            and len(lw) == 3
            and lw[2] in ("on", "off")
        ):
            self.global_wd = (lw[2] == "on", node.line, node.text)
        elif lw[:2] == ["priority-flow-control", "watch-dog-interval"] or lw[:2] in (
            ["priority-flow-control", "watch-dog"],
            ["priority-flow-control", "auto-restore"],
            ["priority-flow-control", "fixed-restore"],
        ):
            self.s.warn(
                f"PFC watchdog timer/multiplier not modelled by roceconf for nxos: {node.text!r}",
                node.line,
                code="UNSUPPORTED",
            )
        elif lw[:2] == ["ip", "load-sharing"]:
            self.load_sharing(node)
        elif lw[0] in ("feature", "version", "vlan", "vrf", "router", "line", "boot", "snmp-server", "ntp"):
            return
        else:
            self.unknown(node)

    def class_map(self, node: _Node) -> None:
        w, lw = node.words, node.low
        kind = lw[2]
        rest = w[3:]
        match_all = False
        if rest and rest[0].lower() in ("match-any", "match-all"):
            match_all = rest[0].lower() == "match-all"
            rest = rest[1:]
        if len(rest) != 1 or kind not in ("qos", "network-qos", "queuing"):
            if kind in ("qos", "network-qos", "queuing"):
                self.unknown(node)
            return
        cm = _ClassMap(rest[0], node.line, match_all)
        for ch in node.children:
            cl = ch.low
            if cl[:2] == ["match", "dscp"] and len(cl) >= 3:
                cm.dscp.append((_dscp_values(ch.low[2:]), ch.line, ch.text))
                cm.n_matches += 1
            elif cl[:2] == ["match", "cos"] and len(cl) >= 3:
                cm.cos.append((expand_ints(" ".join(ch.words[2:])), ch.line, ch.text))
                cm.n_matches += 1
            elif cl[:2] == ["match", "qos-group"] and len(cl) == 3 and cl[2].isdigit():
                cm.group = int(cl[2])
                cm.n_matches += 1
            elif cl and cl[0] == "match":
                cm.n_matches += 1
                self.s.warn(f"class-map {cm.name}: match criterion not modelled: {ch.text!r}", ch.line)
            else:
                self.unknown(ch, f"class-map {cm.name}")
        self.cmaps[f"{kind}:{cm.name}"] = cm
        self.cmap_kind[cm.name] = kind

    def policy_map(self, node: _Node) -> None:
        w, lw = node.words, node.low
        kind, name = lw[2], w[3]
        if kind not in ("qos", "network-qos", "queuing"):
            self.unknown(node)
            return
        pol = _Policy(kind, name, node.line)
        for ch in node.children:
            cl = ch.low
            if not cl or cl[0] != "class":
                self.unknown(ch, f"policy-map {name}")
                continue
            cname = ch.words[-1]
            if kind == "qos":
                self.used_cmaps.add(("qos", cname))
                pol.classes.append(self.qos_class(ch, cname))
            elif kind == "network-qos":
                pol.classes.append(self.nq_class(ch, cname))
            else:
                pol.classes.append(self.queue_class(ch, cname))
        self.policies[(kind, name)] = pol

    def qos_class(self, node: _Node, cname: str) -> _QosClass:
        qc = _QosClass(cname, node.line)
        for ch in node.children:
            cl = ch.low
            if cl[:2] == ["set", "qos-group"] and len(cl) == 3 and cl[2].isdigit():
                qc.group, qc.group_line, qc.group_text = int(cl[2]), ch.line, ch.text
            else:
                self.unknown(ch, f"class {cname}")
        return qc

    def nq_class(self, node: _Node, cname: str) -> _NqClass:
        nc = _NqClass(cname, node.line)
        for ch in node.children:
            cl = ch.low
            if cl and cl[0] == "pause" and "pfc-cos" in cl:
                vals = cl[cl.index("pfc-cos") + 1 :]
                nc.pfc_cos.extend(expand_ints(" ".join(vals)))
                nc.lines.append(ch.line)
                nc.text = ch.text
            elif cl[:2] == ["pause", "no-drop"]:
                nc.no_drop_class = True  # the class's own priority (older NX-OS form)
                nc.lines.append(ch.line)
                nc.text = ch.text
            elif cl and cl[0] == "mtu" and len(cl) == 2 and cl[1].isdigit():
                nc.mtu = (int(cl[1]), ch.line, ch.text)
            elif cl and cl[0] in ("congestion-control", "set"):
                continue  # marking: no roceconf field
            else:
                self.unknown(ch, f"network-qos class {cname}")
        return nc

    def queue_class(self, node: _Node, cname: str) -> _QueueClass:
        qc = _QueueClass(cname, node.line)
        for ch in node.children:
            cl = ch.low
            if cl and cl[0] == "priority":
                qc.sched = Sched(mode="strict")
                qc.sched_lines.append(ch.line)
                qc.sched_text = ch.text
            elif cl and cl[0] == "bandwidth" and len(cl) >= 3 and cl[-2] == "percent" and cl[-1].isdigit():
                if qc.sched is None or qc.sched.mode != "strict":
                    # 'bandwidth remaining percent 0' is a queue the intent does not use: round robin with no
                    # weight of its own (intent weights are 1-100), never strict priority
                    pct = int(cl[-1])
                    qc.sched = Sched(mode="dwrr", bandwidth_percent=pct or None)
                    qc.sched_text = ch.text
                qc.sched_lines.append(ch.line)
            elif cl and cl[0] == "random-detect":
                self.random_detect(qc, ch)
            else:
                self.unknown(ch, f"queuing class {cname}")
        return qc

    def random_detect(self, qc: _QueueClass, node: _Node) -> None:
        cl = node.low
        if "ecn" not in cl:
            self.s.warn(
                f"queuing class {qc.cls}: WRED drop without the 'ecn' keyword is not ECN marking: "
                f"{node.text!r}",
                node.line,
                code="WRED",
            )
            return

        def size(keyword: str) -> int | None:
            if keyword not in cl:
                return None
            i = cl.index(keyword)
            value = _int(cl[i + 1]) if i + 1 < len(cl) else None
            unit = cl[i + 2] if i + 2 < len(cl) else ""
            if value is None:
                return None
            if unit not in _UNITS:
                self.s.warn(f"queuing class {qc.cls}: threshold unit {unit!r} is not bytes", node.line)
                return None
            return value * _UNITS[unit]

        prob = None
        if "drop-probability" in cl:
            i = cl.index("drop-probability")
            prob = _int(cl[i + 1]) if i + 1 < len(cl) else None
        ecn = Ecn(min_bytes=size("minimum-threshold"), max_bytes=size("maximum-threshold"), probability=prob)
        if ecn.min_bytes is None and "minimum-threshold" not in cl:
            self.s.warn(
                f"queuing class {qc.cls}: ECN without explicit thresholds (platform-chosen): {node.text!r}",
                node.line,
                code="UNSUPPORTED",
            )
        qc.ecn, qc.ecn_lines, qc.ecn_text = ecn, [node.line], node.text

    def system_qos(self, node: _Node) -> None:
        for ch in node.children:
            cl, w = ch.low, ch.words
            if cl[:3] == ["service-policy", "type", "network-qos"] and len(w) == 4:
                self.system["network-qos"] = (w[3], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "output"):
                self.system["queuing"] = (w[4], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "qos"] and _attach(cl, "input"):
                self.system["qos"] = (w[4], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "input"):
                self.used_policies.add(("queuing", w[4]))  # ingress queuing: no roceconf field
            else:
                self.unknown(ch, "system qos")

    def interface(self, node: _Node) -> None:
        spec = node.text.split(None, 1)[1]
        try:
            names = expand_interface_spec(spec)
        except (RangeError, ValueError) as exc:
            self.s.warn(f"cannot expand interface list {spec!r}: {exc}", node.line)
            return
        for name in names:
            itf = self.itfs.setdefault(name, _Itf(name))
            itf.lines.append(node.line)
            for ch in node.children:
                self.interface_line(itf, ch)

    def interface_line(self, itf: _Itf, node: _Node) -> None:
        cl, w = node.low, node.words
        if cl[0] == "description":
            return  # free text
        if cl[0] == "mtu" and len(cl) == 2 and cl[1].isdigit():
            itf.set("mtu", int(cl[1]), node)
        elif cl[:2] == ["priority-flow-control", "mode"] and len(cl) >= 3:
            mode = cl[2]
            if mode in ("on", "off"):
                itf.set("pfc", mode == "on", node)
            elif mode == "auto":
                itf.set("pfc", None, node)
                self.s.warn(
                    f"{itf.name}: 'priority-flow-control mode auto' depends on DCBX negotiation; "
                    "PFC state is unknown",
                    node.line,
                )
            else:
                self.unknown(node, f"interface {itf.name}")
        elif (
            cl[:2] == ["priority-flow-control", "watch-dog-interval"]
            and len(cl) == 3
            and cl[2] in ("on", "off")
        ):
            itf.set("wd", cl[2] == "on", node)
        elif cl[:3] == ["service-policy", "type", "qos"] and _attach(cl, "input"):
            itf.set("qos", w[4], node)
        elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "output"):
            itf.set("queuing", w[4], node)
        elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "input"):
            self.used_policies.add(("queuing", w[4]))  # ingress queuing: no roceconf field
        elif (
            cl[0] == "flowcontrol"
            and len(cl) == 3
            and cl[1] in ("receive", "send")
            and cl[2] in ("on", "off")
        ):
            itf.set(f"fc_{cl[1]}", cl[2] == "on", node)
        elif cl[0] == "channel-group" and len(cl) >= 2 and cl[1].isdigit():
            itf.set("channel_group", int(cl[1]), node)
        elif cl[0] == "shutdown" or cl[:2] == ["no", "shutdown"]:
            return
        else:
            self.unknown(node, f"interface {itf.name}")

    def load_sharing(self, node: _Node) -> None:
        lw = node.low[2:]
        ip_fields = {
            "source": ["src_ip"],
            "destination": ["dst_ip"],
            "source-destination": ["src_ip", "dst_ip"],
        }
        port_fields = {
            "source": ["src_port"],
            "destination": ["dst_port"],
            "source-destination": ["src_port", "dst_port"],
        }
        fields: list[str] = []
        seed = None
        symmetric = False
        i = 0
        ok = bool(lw) and lw[0] == "address"
        while ok and i < len(lw):
            tok = lw[i]
            nxt = lw[i + 1] if i + 1 < len(lw) else ""
            if tok == "address" and nxt in ip_fields:
                fields += ip_fields[nxt]
                i += 2
            elif tok == "port" and nxt in port_fields:
                fields += port_fields[nxt]
                i += 2
            elif tok == "universal-id" and nxt.isdigit():
                seed = int(nxt)
                i += 2
            elif tok == "rotate" and nxt.isdigit():
                i += 2  # hash bit rotation: no roceconf field
            elif tok == "symmetric":
                symmetric = True
                i += 1
            elif tok in ("concatenation", "gre-outer"):
                i += 1
            else:
                self.s.warn(f"ip load-sharing option not modelled: {tok!r} in {node.text!r}", node.line)
                i += 1
        if not ok:
            self.unknown(node)
            return
        self.s.ecmp.fields = sorted(set(fields))  # type: ignore[assignment]
        self.s.ecmp.seed = seed
        self.s.ecmp.symmetric = symmetric
        for path in ("ecmp.fields", "ecmp.seed", "ecmp.symmetric"):
            self.s.at(path, node.line, node.text)

    # ------------------------------------------------------------ pass 2: resolve
    def policy(self, kind: str, name: str, node_line: int) -> _Policy | None:
        pol = self.policies.get((kind, name))
        self.used_policies.add((kind, name))
        if pol is None:
            self.undefined(f"policy-map type {kind}", name, _Node(name, node_line, 0))
        return pol

    def qos_map(self, pol: _Policy) -> tuple[dict[str, tuple[int, list[int], str]], str | None]:
        """policy-map type qos -> ({dscp: (tc, lines, text)}, trust)."""
        out: dict[str, tuple[int, list[int], str]] = {}
        has_dscp = has_cos = False
        for qc in pol.classes:
            if qc.cmap.lower() == "class-default":
                continue
            cm = self.cmaps.get(f"qos:{qc.cmap}")
            self.used_cmaps.add(("qos", qc.cmap))
            if cm is None:
                self.undefined("class-map type qos", qc.cmap, _Node(qc.cmap, qc.line, 0))
                continue
            has_dscp = has_dscp or bool(cm.dscp)
            has_cos = has_cos or bool(cm.cos)
            if cm.match_all and cm.n_matches > 1:
                self.s.warn(
                    f"class-map {cm.name} is match-all with {cm.n_matches} match lines; not modelled",
                    cm.line,
                )
                continue
            if qc.group is None:
                continue
            for values, line, text in cm.dscp:
                for d in values:
                    if 0 <= d <= 63 and str(d) not in out:
                        out[str(d)] = (qc.group, [line, qc.group_line or qc.line], text)
        trust = "dscp" if has_dscp else ("pcp" if has_cos else "none")
        return out, trust

    def resolve(self) -> None:
        s = self.s
        # network-qos: no-drop priorities (global)
        no_drop: list[int] | None = None
        nd_lines: list[int] = []
        nd_text = ""
        if "network-qos" in self.system:
            name, line, text = self.system["network-qos"]
            pol = self.policy("network-qos", name, line)
            if pol is not None:
                vals: set[int] = set()
                nd_lines = [line]
                for nc in pol.classes:
                    group = self.class_group("network-qos", nc.cls, nc.line)
                    if nc.no_drop_class and not nc.pfc_cos and group is not None:
                        vals.add(group)
                    for cos in nc.pfc_cos:
                        if group is not None and cos != group:
                            s.warn(
                                f"network-qos class {nc.cls} (qos-group {group}) pauses CoS {cos}: "
                                "priority and traffic class differ",
                                nc.line,
                            )
                        vals.add(cos)
                    nd_lines += nc.lines
                    nd_text = nd_text or nc.text
                no_drop = sorted(v for v in vals if 0 <= v <= 7)
                # class MTUs: a port carries every class, so the smallest class MTU bounds its frames
                # (Cisco N9K QoS guide, "Configuring Network QoS Policies": mtu per network-qos class)
                mtus = [nc.mtu for nc in pol.classes if nc.mtu is not None]
                if mtus:
                    low = min(m[0] for m in mtus)
                    lows = [m for m in mtus if m[0] == low]
                    self.nq_mtu = (low, [m[1] for m in lows], lows[0][2])

        # per-port resolution
        port_maps: dict[str, tuple[str, dict[str, tuple[int, list[int], str]]]] = {}
        for name in sorted(self.itfs, key=natural_key):
            itf = self.itfs[name]
            if not _is_port(name):
                # attachments on other interfaces (SVIs ...) still count as use
                for key, kind in (("qos", "qos"), ("queuing", "queuing")):
                    if key in itf.settings:
                        self.used_policies.add((kind, itf.settings[key][0]))
                continue
            self.port(itf, no_drop, nd_lines, nd_text, port_maps)

        # system-level attachments count as use even when the config lists no port
        for kind in ("qos", "queuing"):
            if kind in self.system:
                sys_pol = self.policy(kind, self.system[kind][0], self.system[kind][1])
                if kind == "qos" and sys_pol is not None and not port_maps:
                    sys_map = self.qos_map(sys_pol)[0]
                    if sys_map:
                        port_maps["system qos"] = (sys_pol.name, sys_map)

        # device DSCP map: the classification policy attached to most ports
        if port_maps:
            counts = Counter(pname for pname, _ in port_maps.values())
            best = max(counts, key=lambda p: counts[p])  # ties: the first attached in port order
            if len(counts) > 1:
                s.warn(
                    "interfaces attach different type qos policies ("
                    + ", ".join(f"{p}: {counts[p]} ports" for p in sorted(counts))
                    + f"); the device DSCP map is taken from {best!r}",
                    None,
                )
            best_map = next(m for pn, m in port_maps.values() if pn == best)
            for d in sorted(best_map, key=int):
                tc, lines, text = best_map[d]
                s.dscp_to_tc[d] = tc
                s.at(f"dscp_to_tc.{d}", lines, text)
            device = {d: v[0] for d, v in best_map.items()}
            for pname_port, (_pname, m) in port_maps.items():
                own = {d: v[0] for d, v in m.items()}
                if own != device and pname_port in s.interfaces:
                    s.interfaces[pname_port].dscp_to_tc = dict(sorted(own.items(), key=lambda kv: int(kv[0])))

        # watchdog (global)
        if self.global_wd is not None:
            s.pfc_watchdog.enabled = self.global_wd[0]
            s.at("pfc_watchdog.enabled", self.global_wd[1], self.global_wd[2])
            if self.global_wd[0]:
                # Cisco N9K QoS guide, "About Priority Flow Control Watchdog": when the interval is
                # exceeded "all outgoing packets are dropped" on the stuck no-drop queue
                s.pfc_watchdog.action = "drop"
                s.defaults.append("pfc_watchdog.action")

        # unused objects
        for (kind, name), pol in self.policies.items():
            if (kind, name) not in self.used_policies:
                s.warn(
                    f"policy-map type {kind} {name!r} is defined but not attached", pol.line, code="UNUSED"
                )
        for key, cm in self.cmaps.items():
            kind = key.split(":", 1)[0]
            if kind == "qos" and ("qos", cm.name) not in self.used_cmaps:
                s.warn(f"class-map type qos {cm.name!r} is defined but not used", cm.line, code="UNUSED")

        # per-port resolution repeats global findings: keep each warning once
        seen: set[tuple[int | None, str, str]] = set()
        unique = []
        for w in s.warnings:
            key = (w.line, w.message, w.code)
            if key not in seen:
                seen.add(key)
                unique.append(w)
        s.warnings = unique

    def class_group(self, kind: str, cls: str, line: int) -> int | None:
        group = _system_class_group(cls)
        if group is not None:
            return group
        cm = self.cmaps.get(f"{kind}:{cls}")
        if cm is None:
            self.undefined(f"class-map type {kind}", cls, _Node(cls, line, 0))
            return None
        if cm.group is None:
            self.s.warn(f"class-map type {kind} {cls!r} does not match a qos-group", cm.line)
        return cm.group

    def port(
        self,
        itf: _Itf,
        no_drop: list[int] | None,
        nd_lines: list[int],
        nd_text: str,
        port_maps: dict[str, tuple[str, dict[str, tuple[int, list[int], str]]]],
    ) -> None:
        s, st, name = self.s, itf.settings, itf.name
        out = Interface()
        path = f"interfaces.{name}"
        parent: _Itf | None = None
        if "channel_group" in st:
            parent = self.itfs.get(f"port-channel{st['channel_group'][0]}")

        def inherited(key: str) -> tuple[Any, int, str] | None:
            if key in st:
                return st[key]
            if parent is not None and key in parent.settings:
                return parent.settings[key]
            return None

        if "mtu" in st:
            out.mtu = st["mtu"][0]
            s.at(f"{path}.mtu", st["mtu"][1], st["mtu"][2])
            if self.nq_mtu is not None and self.nq_mtu[0] < out.mtu:
                # the network-qos class MTU is smaller: frames above it are dropped on this port
                out.mtu = self.nq_mtu[0]
                s.sources.pop(f"{path}.mtu", None)  # the value comes from the class's mtu line
                s.at(f"{path}.mtu", self.nq_mtu[1], self.nq_mtu[2])
        pfc_lines: list[int] = []
        if "pfc" in st:
            out.pfc.enabled = st["pfc"][0]
            pfc_lines.append(st["pfc"][1])
        if no_drop is not None:
            out.pfc.no_drop = list(no_drop)
            pfc_lines += nd_lines
        if pfc_lines:
            s.at(f"{path}.pfc", pfc_lines, st["pfc"][2] if "pfc" in st else nd_text)
        if "wd" in st:
            out.pfc_watchdog = st["wd"][0]
            s.at(f"{path}.pfc_watchdog", st["wd"][1], st["wd"][2])
        elif self.global_wd is not None:
            out.pfc_watchdog = self.global_wd[0]
            s.at(f"{path}.pfc_watchdog", self.global_wd[1], self.global_wd[2])
        rx, tx = st.get("fc_receive"), st.get("fc_send")
        if (rx and rx[0]) or (tx and tx[0]):
            out.link_pause = True
        elif rx and tx:
            out.link_pause = False
        if rx or tx:
            s.at(f"{path}.link_pause", [x[1] for x in (rx, tx) if x], (rx or tx)[2])  # type: ignore[index]

        # classification
        qos = inherited("qos") or self.system.get("qos")
        if qos is not None:
            pol = self.policy("qos", qos[0], qos[1])
            if pol is not None:
                m, trust = self.qos_map(pol)
                out.trust = trust  # type: ignore[assignment]
                s.at(f"{path}.trust", qos[1], qos[2])
                if m:
                    port_maps[name] = (pol.name, m)

        # egress queuing
        queuing = inherited("queuing") or self.system.get("queuing")
        if queuing is not None:
            pol = self.policy("queuing", queuing[0], queuing[1])
            if pol is not None:
                for qc in pol.classes:
                    tc = self.class_group("queuing", qc.cls, qc.line)
                    if tc is None:
                        continue
                    if qc.ecn is not None:
                        out.ecn[str(tc)] = qc.ecn.model_copy()
                        s.at(f"{path}.ecn.{tc}", qc.ecn_lines, qc.ecn_text)
                    if qc.sched is not None:
                        out.scheduling[str(tc)] = qc.sched.model_copy()
                        s.at(f"{path}.scheduling.{tc}", qc.sched_lines, qc.sched_text)
                out.ecn = dict(sorted(out.ecn.items()))
                out.scheduling = dict(sorted(out.scheduling.items()))

        if out != Interface():
            s.interfaces[name] = out
            s.at(path, itf.lines, f"interface {name}")


def parse(text: str) -> DeviceState:
    """Parse an NX-OS running-config (``show running-config``) into a DeviceState. Never raises."""
    state = DeviceState(platform="nxos")
    try:
        if not isinstance(text, str):
            text = str(text)
        parser = _Parser(state)
        parser.collect(_tree(text))
        parser.resolve()
    except Exception as exc:  # noqa: BLE001 - a parser never raises
        state.warn(f"internal parser error: {exc!r}", code="INTERNAL")
    return state


# --------------------------------------------------------------------------- template filters
def _kbytes(value: int) -> str:
    """ECN threshold in the confirmed ``<n> kbytes`` form (1 kbyte = 1000 bytes, as roceconf units)."""
    if value % _KBYTE == 0:
        return f"{value // _KBYTE} kbytes"
    return f"{value} bytes"


def _queue_class(tc: int | str) -> str:
    tc = int(tc)
    return "c-out-8q-q-default" if tc == 0 else f"c-out-8q-q{tc}"


def _nq_class(tc: int | str) -> str:
    tc = int(tc)
    return "c-8q-nq-default" if tc == 0 else f"c-8q-nq{tc}"


def _first(values: list[Any]) -> Any:
    return values[0] if values else None


def _plan(state: DeviceState) -> dict[str, Any]:
    """Device-wide objects for the template (NX-OS makes PFC no-drop, ECN and scheduling global)."""
    ports = [state.interfaces[n] for n in sorted(state.interfaces, key=natural_key)]
    no_drop = _first([p.pfc.no_drop for p in ports if p.pfc.no_drop is not None])
    ecn = _first([p.ecn for p in ports if p.ecn]) or {}
    sched = _first([p.scheduling for p in ports if p.scheduling]) or {}
    mtus = [p.mtu for p in ports if p.mtu is not None]
    tcs = sorted({int(t) for t in ecn} | {int(t) for t in sched})
    strict = sorted((int(t) for t, sc in sched.items() if sc.mode == "strict"), reverse=True)
    queues = []
    for tc in tcs:
        sc = sched.get(str(tc))
        queues.append(
            {
                "cls": _queue_class(tc),
                "strict_level": strict.index(tc) + 1 if tc in strict else None,
                # dwrr without a weight (a queue the intent does not use): 0 % of the remaining bandwidth
                "bandwidth": (sc.bandwidth_percent or 0) if sc is not None and sc.mode == "dwrr" else None,
                "ecn": ecn.get(str(tc)),
            }
        )
    trusts = {p.trust for p in ports}
    return {
        "dscp": [(tc, compress_ints(ds)) for tc, ds in _by_tc(state.dscp_to_tc)],
        "qos_dscp": bool(state.dscp_to_tc) or "dscp" in trusts,
        "qos_cos": "pcp" in trusts,
        "no_drop": no_drop,
        "nq_mtu": max(mtus) if mtus else None,
        "queues": queues,
        "queuing": bool(queues),
        "nq_policy": NQ_POLICY,
        "queuing_policy": QUEUING_POLICY,
    }


def _by_tc(dscp_to_tc: dict[str, int]) -> list[tuple[int, list[int]]]:
    by: dict[int, list[int]] = {}
    for d, tc in dscp_to_tc.items():
        by.setdefault(int(tc), []).append(int(d))
    return [(tc, sorted(ds)) for tc, ds in sorted(by.items())]


def _interface_list(names: list[str]) -> str:
    return ", ".join(compress_interfaces(names))


def _qos_policy(trust: str | None) -> str | None:
    return {"dscp": QOS_POLICY, "pcp": QOS_POLICY_COS}.get(trust or "")


def _onoff(value: bool) -> str:
    return "on" if value else "off"


def _ecmp_line(state: DeviceState) -> str | None:
    e = state.ecmp
    if not e.fields:
        return None
    f = set(e.fields)

    def kind(src: str, dst: str) -> str | None:
        if src in f and dst in f:
            return "source-destination"
        return "source" if src in f else ("destination" if dst in f else None)

    ip = kind("src_ip", "dst_ip")
    port = kind("src_port", "dst_port")
    if ip is None:
        return None  # the NX-OS grammar needs 'address'
    parts = ["ip load-sharing address", ip]
    if port:
        parts += ["port", port]
    if e.symmetric:
        parts.append("symmetric")
    if e.seed is not None:
        parts += ["universal-id", str(e.seed)]
    return " ".join(parts)


FILTERS = {
    "nxos_kbytes": _kbytes,
    "nxos_plan": _plan,
    "nxos_interfaces": _interface_list,
    "nxos_qos_policy": _qos_policy,
    "nxos_onoff": _onoff,
    "nxos_ecmp": _ecmp_line,
    "nxos_nq_class": _nq_class,
}

def unused_queues(hints: dict[str, str]) -> tuple[int, ...]:
    """Every queue of the 8-queue policy (c-out-8q-q<N>) that the intent does not use is stated
    'bandwidth remaining percent 0' (Sched(mode="dwrr") in the state), so none is left at a default."""
    return tuple(range(8))


CAPABILITIES = Capabilities(
    min_mtu=Fact(576, INTERFACES_GUIDE),
    max_mtu=Fact(9216, INTERFACES_GUIDE),
    max_lossless_priorities=Fact(3, QOS_GUIDE + "m-configuring-priority-flow-control.html (no-drop classes)"),
    # No-drop classes (network-qos) and the egress queuing policy are global (system qos); the DSCP
    # classification policy is one per device in roceconf's model.
    per_port=frozenset({"mtu", "pfc_watchdog", "link_pause"}),
    hash_fields=("src_ip", "dst_ip", "src_port", "dst_port"),
    hash_seed=True,
    hash_symmetric=True,
    watchdog_fields=frozenset({"enabled"}),
    watchdog_actions=("drop",),
    ecn_quantum_bytes=_KBYTE,
    dscp_match_additive=True,
    every_dscp_mapped=True,
    unused_queues_round_robin=unused_queues,
    notes=(
        "Every DSCP has a home: the DSCPs the intent does not name are matched explicitly ('match dscp "
        "<list>' in the default class's class-map) instead of falling to the implicit class-default "
        "(qos-group 0, Azure Local ToR QoS reference), so the running config states every DSCP's class and "
        "drift sees a DSCP moved away from the default class. Every queue the intent does not use is "
        "'bandwidth remaining percent 0' in the queuing policy (same reference: 'All other queues are "
        "configured with 0% bandwidth and remain unused'), read back as round robin without a weight; a "
        "'priority level' there is drift.",
        "MTU: 576-9216 on routed ports; Layer 2 ports take the system default (1500) or jumbo (9216) MTU.",
        "PFC no-drop priorities come from the network-qos policy under 'system qos': global, not per port.",
        "ECN and scheduling come from the queuing policy under 'system qos' (an interface-level "
        "'service-policy type queuing output' overrides it when present).",
        "PFC watchdog: only on/off ('priority-flow-control watch-dog-interval'); the action is drop "
        f"({QOS_GUIDE}m-configuring-priority-flow-control.html). The timers are multipliers of a watchdog "
        "interval (NX-API REST 9.3(x) 'Configuring Fixed Restore Multiplier'); their relation to the "
        "intent's milliseconds is not documented precisely, so they are not rendered: validation reports "
        "the intent's detection/restoration/polling times as not configured (RC150).",
        "ECN thresholds are rendered in kbytes (1 kbyte = 1000 bytes assumed).",
        "DSCP matches add up: a drift fix adds a moved DSCP to its intended class-map; the old class-map's "
        "match stays and the drift report asks for its removal by hand.",
        "ECMP: 'ip load-sharing address ... port ... [symmetric] universal-id <seed>' "
        f"({ECMP_DOC}); 'symmetric' is from secondary sources.",
    ),
)

PLATFORM = Platform(
    # Interface syntax: NX-OS "interface ethernet <slot>/<port>[/<breakout>]", "interface port-channel <n>"
    # (Cisco Nexus 9000 NX-OS Interfaces Configuration Guide); canonical forms as the parser prints them.
    interface_pattern=r"Ethernet\d+/\d+(?:/\d+)?|port-channel\d+",
    interface_example="Ethernet1/1, Ethernet1/1/1 (breakout), port-channel10",
    apply_method="napalm",
    name="nxos",
    kind="switch",
    title="Cisco NX-OS (Nexus 9000)",
    extension="cfg",
    capabilities=CAPABILITIES,
    parse=parse,
    filters=FILTERS,
    napalm_driver="nxos_ssh",
    netmiko_device_type="cisco_nxos",
    # cisco.nxos collection (cliconf/httpapi plugins named cisco.nxos.nxos); short form of Ansible < 2.10
    ansible_network_os=("cisco.nxos.nxos", "nxos"),
    collect_commands=("show running-config",),
    negate_stale=partial(
        # the queuing policy too: a 'priority level' added out of band to a queue the intent leaves round
        # robin must go before its 'bandwidth remaining percent' is restated (Cisco N9K QoS guide, queuing:
        # 'priority [level <n>]' / 'no priority')
        negate_stale_lines,
        indent="  ",
        blocks=("interface ", "policy-map type network-qos ", "policy-map type queuing "),
    ),
)
