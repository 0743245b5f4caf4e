"""Juniper Junos (QFX5000 line, Junos OS and Junos OS Evolved): capabilities, parser, template filters.

The parser reads ``show configuration | display set`` output (what the collector and the
template produce) and also the hierarchical (curly-brace) form that public configs are
published in. Both are flattened into the same list of statements first; the semantic pass
then only counts what is *applied*:

* a DSCP classifier counts for a port when ``class-of-service interfaces <ifd> [unit <n>]
  classifiers dscp <name>`` binds it (wildcards ``et-*`` / ``all`` / ``unit *`` expand onto the
  interfaces that ``interfaces <ifd>`` defines; an explicit interface entry wins over a wildcard);
* PFC comes from the congestion-notification profile (CNP) bound to the port: ``input
  ieee-802.1 code-point <bits> pfc`` gives the priority directly, ``input dscp code-point <bits>
  pfc`` gives the ``pfc-priority`` (or queue) of the forwarding class the port's classifier puts
  that DSCP in;
* ECN and scheduling come from the scheduler map bound to the port. A drop profile on a
  scheduler *without* ``explicit-congestion-notification`` is WRED drop, not ECN;
* defined-but-unbound objects give ``UNUSED`` warnings, references to undefined objects
  ``UNDEFINED`` warnings.

Traffic class of a forwarding class = its ``queue-num`` (roceconf assumes priority = TC = queue;
a ``pfc-priority`` that differs from the queue is reported as a warning).

ECN thresholds: Junos drop profiles state the fill level in *percent of the queue's dynamic buffer
share* (integers 0-100, Juniper 23.4R1 class-of-service YANG ``drop-profiles interpolate fill-level``).
A byte threshold has no fixed percent equivalent (the share depends on the shared-buffer partitioning
and the dynamic threshold), so nothing is converted: the state carries ``Ecn.min_percent`` /
``max_percent`` (the intent's ``ecn.junos`` fill levels), and an intent that states only bytes for a
Junos device is refused by validation (RC130).

Schema: Juniper/yang 23.4R1 ``junos-qfx-conf-class-of-service`` and (EVO) ``junos-conf-class-of-service``,
``*-conf-forwarding-options`` and ``*-conf-interfaces``; ``roceconf/platforms/junos/schema.py`` resolves
every rendered line against them (tests/conformance).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from roceconf.names import group_interfaces, natural_key
from roceconf.platforms.base import ALL_PORT_FIELDS, Capabilities, Fact, Platform, parse_shared_by_line
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched

# ------------------------------------------------------------------------------------ constants

DOC_CNP = (
    "https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/cos/topics/ref/"
    "statement/congestion-notification-profile-edit-class-of-service.html"
)
DOC_WATCHDOG = "https://www.juniper.net/documentation/us/en/software/junos/cos/topics/topic-map/cos-pfc-watchdog-configure.html"
DOC_DROP_PROFILES = (
    "https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/ref/"
    "statement/drop-profiles-edit-class-of-service.html"
)
DOC_HASH = (
    "https://www.juniper.net/documentation/en_US/junos13.2/topics/reference/configuration-statement/"
    "enhanced-hash-key-edit-forwarding-options-ex-series.html"
)
DOC_MTU = "https://juniper.net/documentation/en_US/junos13.2/topics/usage-guidelines/interfaces-configuring-the-media-mtu.html"
JVD_CONFIG = "Juniper/jvd data_center/adc/5stage_evpn_vxlan/configuration/conf/storage-leaf1_qfx5130-32cd.conf (mtu 9216)"

#: Juniper 23.4R1 QFX and EVO class-of-service YANG, congestion-notification-profile pfc-watchdog:
#: poll-interval 100..1000 ms, detection 2..10 polls, recovery 200..1000 ms, watchdog-action drop.
YANG_COS = "Juniper/yang 23.4R1 junos-qfx-conf-class-of-service / junos-conf-class-of-service (EVO)"
WD_RANGES = (("polling_ms", 100, 1000), ("detection_polls", 2, 10), ("restoration_ms", 200, 1000))

#: Documented PFC watchdog defaults (DOC_WATCHDOG): poll 100 ms, detection 2 polls, recovery 200 ms, drop.
WD_DEFAULT_POLL_MS = 100
WD_DEFAULT_DETECTION = 2
WD_DEFAULT_RECOVERY_MS = 200

#: QFX default forwarding classes that need no definition (Juniper "Configure CoS PFC with CNPs"):
#: best-effort q0, fcoe q3, no-loss q4, network-control q7.
DEFAULT_FCS = {"best-effort": 0, "fcoe": 3, "no-loss": 4, "network-control": 7}

#: Junos DSCP code-point aliases (RFC 2474/2597/3246 values).
DSCP_ALIASES = {
    "be": 0, "cs0": 0, "cs1": 8, "cs2": 16, "cs3": 24, "cs4": 32, "cs5": 40, "cs6": 48, "cs7": 56,
    "af11": 10, "af12": 12, "af13": 14, "af21": 18, "af22": 20, "af23": 22,
    "af31": 26, "af32": 28, "af33": 30, "af41": 34, "af42": 36, "af43": 38, "ef": 46,
    "nc1": 48, "nc2": 56,
}  # fmt: skip
#: IEEE 802.1p aliases accepted by Junos 802.1 classifiers.
PCP_ALIASES = {
    "be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "nc2": 7,
}  # fmt: skip

#: enhanced-hash-key exclusion keywords (DOC_HASH) -> canonical field.
HASH_EXCLUDE_V4 = {
    "no-ipv4-source-address": "src_ip",
    "no-ipv4-destination-address": "dst_ip",
    "no-protocol": "ip_proto",
    "no-l4-source-port": "src_port",
    "no-l4-destination-port": "dst_port",
}
HASH_EXCLUDE_V6 = {
    "no-ipv6-source-address": "src_ip",
    "no-ipv6-destination-address": "dst_ip",
    "no-next-header": "ip_proto",
    "no-l4-source-port": "src_port",
    "no-l4-destination-port": "dst_port",
}
JUNOS_HASH_FIELDS = ("src_ip", "dst_ip", "ip_proto", "src_port", "dst_port")

_PORT_RE = re.compile(r"^(et|xe|ge|mge|fte|ae)-?\d[\w/:.-]*$")
_NOT_PORT = ("irb", "lo0", "em", "fxp", "vme", "me0", "re0", "re1", "vlan", "vtep")

# ---------------------------------------------------------------------------- code points


def dscp_bits(value: int) -> str:
    return format(int(value), "06b")


def pcp_bits(value: int) -> str:
    return format(int(value), "03b")


def parse_dscp(token: str) -> int | None:
    t = token.lower()
    if re.fullmatch(r"[01]{6}", t):
        return int(t, 2)
    return DSCP_ALIASES.get(t)


def parse_pcp(token: str) -> int | None:
    t = token.lower()
    if re.fullmatch(r"[01]{3}", t):
        return int(t, 2)
    return PCP_ALIASES.get(t)


def _int(token: str | None) -> int | None:
    if token is None:
        return None
    try:
        return int(token)
    except ValueError:
        return None


def _num(token: str | None) -> float | None:
    if token is None:
        return None
    try:
        return float(token)
    except ValueError:
        return None


# ------------------------------------------------------------------------------ flattening


@dataclass
class Stmt:
    words: tuple[str, ...]
    line: int
    text: str


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\[|\]|\{|\}|;|[^\s\[\]{};"]+')


def _tokens(text: str) -> list[str]:
    return [
        t[1:-1] if t.startswith('"') and t.endswith('"') and len(t) > 1 else t for t in _TOKEN.findall(text)
    ]


def _expand_lists(words: list[str]) -> list[list[str]]:
    """`a b [ x y ] c` -> [[a b x c], [a b y c]] (display set prints one statement per value)."""
    if "[" not in words:
        return [words]
    i = words.index("[")
    j = words.index("]", i) if "]" in words[i:] else len(words)
    head, items, tail = words[:i], words[i + 1 : j], words[j + 1 :]
    if not items:
        return [head + tail]
    out: list[list[str]] = []
    for it in items:
        out.extend(_expand_lists(head + [it] + tail))
    return out


def _strip_comment(line: str) -> str:
    s = line.strip()
    if s.startswith("#") or s.startswith("/*") or s.startswith("*") or s.startswith("##"):
        return ""
    if " ## " in s:  # "## SECRET-DATA" style trailing annotations
        s = s.split(" ## ", 1)[0]
    return s


def flatten(text: str) -> tuple[list[Stmt], list[tuple[tuple[str, ...], int]]]:
    """Turn set-form or brace-form text into statements; return (statements, deactivated paths)."""
    stmts: list[Stmt] = []
    deactivated: list[tuple[tuple[str, ...], int]] = []
    stack: list[tuple[list[str], bool]] = []
    pending: list[str] = []
    pending_inactive = False
    in_block_comment = False
    for n, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = raw.strip()
        if in_block_comment:
            if "*/" in line:
                in_block_comment = False
                line = line.split("*/", 1)[1].strip()
            else:
                continue
        if line.startswith("/*"):
            if "*/" not in line:
                in_block_comment = True
            continue
        line = _strip_comment(line)
        if not line:
            continue
        first = line.split(None, 1)[0]
        if first in ("set", "deactivate", "delete", "activate") and not stack:
            words = _tokens(line)[1:]
            if first == "deactivate":
                deactivated.append((tuple(words), n))
                continue
            if first == "delete":
                # a load-set file is applied in order: 'delete X' removes what earlier lines set under X
                for w in _expand_lists([x for x in words if x not in ("{", "}", ";")]):
                    prefix = tuple(w)
                    stmts[:] = [st for st in stmts if st.words[: len(prefix)] != prefix]
                continue
            if first != "set":
                continue
            for w in _expand_lists([x for x in words if x not in ("{", "}", ";")]):
                stmts.append(Stmt(tuple(w), n, raw.strip()))
            continue
        # hierarchical form
        for tok in _tokens(line):
            if tok == "{":
                inactive = pending_inactive or (stack[-1][1] if stack else False)
                stack.append((pending, inactive))
                pending, pending_inactive = [], False
            elif tok == "}":
                if pending:
                    pending = []
                if stack:
                    stack.pop()
                pending_inactive = False
            elif tok == ";":
                inactive = pending_inactive or (stack[-1][1] if stack else False)
                if pending and not inactive:
                    prefix = [w for frame, _ in stack for w in frame]
                    for w in _expand_lists(prefix + pending):
                        stmts.append(Stmt(tuple(w), n, raw.strip()))
                pending, pending_inactive = [], False
            elif tok in ("inactive:", "protect:") and not pending:
                pending_inactive = pending_inactive or tok == "inactive:"
            else:
                pending.append(tok)
    return stmts, deactivated


# --------------------------------------------------------------------------------- model


@dataclass
class _Obj:
    line: int
    text: str
    used: bool = False


@dataclass
class _Classifier(_Obj):
    kind: str = "dscp"
    entries: dict[int, tuple[str, int, str]] = field(default_factory=dict)  # value -> (fc, line, text)
    #: code points assigned to more than one forwarding class (never guessed: left unknown)
    conflicts: set[int] = field(default_factory=set)


@dataclass
class _Fc(_Obj):
    queue: int | None = None
    no_loss: bool = False
    pfc_priority: int | None = None


@dataclass
class _Cnp(_Obj):
    in_dscp: dict[int, tuple[int, str]] = field(default_factory=dict)
    in_pcp: dict[int, tuple[int, str]] = field(default_factory=dict)
    out: dict[int, list[int]] = field(default_factory=dict)
    watchdog: bool = False
    wd_line: int | None = None
    detection: int | None = None
    poll: int | None = None
    recovery: int | None = None
    action: str | None = None
    wd_lines: list[int] = field(default_factory=list)


@dataclass
class _DropProfile(_Obj):
    fill: list[float] = field(default_factory=list)
    prob: list[float] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


@dataclass
class _Scheduler(_Obj):
    priority: str | None = None
    rate_percent: int | None = None
    rate_other: str | None = None
    ecn: bool = False
    maps: dict[str, str] = field(default_factory=dict)  # loss-priority -> drop profile
    lines: list[int] = field(default_factory=list)


@dataclass
class _Binding:
    value: str
    line: int
    text: str
    wildcard: bool


@dataclass
class _IfCos:
    cnp: _Binding | None = None
    sm: _Binding | None = None
    dscp: _Binding | None = None
    pcp: _Binding | None = None


class _Parser:
    def __init__(self, text: str) -> None:
        self.state = DeviceState(platform="junos")
        self.text = text
        self.classifiers: dict[tuple[str, str], _Classifier] = {}
        self.fcs: dict[str, _Fc] = {}
        self.cnps: dict[str, _Cnp] = {}
        self.drop_profiles: dict[str, _DropProfile] = {}
        self.schedulers: dict[str, _Scheduler] = {}
        self.smaps: dict[str, _Obj] = {}
        self.smap_entries: dict[str, dict[str, tuple[str, int, str]]] = {}
        self.ifds: dict[str, int] = {}  # port name -> first line
        self.mtu: dict[str, tuple[int, int, str]] = {}
        self.link_pause: dict[str, tuple[bool, int, str]] = {}
        self.ranges: dict[str, list[str]] = {}
        self.range_mtu: dict[str, tuple[int, int, str]] = {}
        self.cos_if: dict[str, _IfCos] = {}
        self.hash_v4: set[str] | None = None
        self.hash_v6: set[str] | None = None
        self.hash_lines: list[int] = []
        self.hash_mode: tuple[str, int] | None = None
        self.hash_seed: tuple[int, int, str] | None = None
        self._warned: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ helpers
    def warn(self, msg: str, line: int | None, code: str = "PARSE") -> None:
        if any(w.message == msg and w.line == line and w.code == code for w in self.state.warnings):
            return
        self.state.warn(msg, line, code)

    # ------------------------------------------------------------------ pass 1
    def collect(self, stmts: list[Stmt]) -> None:
        for st in stmts:
            w = st.words
            try:
                if len(w) >= 3 and w[0] == "system" and w[1] == "host-name":
                    self.state.hostname = w[2]
                    self.state.at("hostname", st.line, st.text)
                elif w and w[0] == "interfaces" and len(w) >= 2:
                    self._interfaces(st)
                elif w and w[0] == "class-of-service" and len(w) >= 2:
                    self._cos(st)
                elif len(w) >= 3 and w[0] == "forwarding-options" and w[1] == "enhanced-hash-key":
                    self._hash(st)
            except (IndexError, ValueError) as exc:  # malformed statement
                self.warn(f"cannot read statement ({exc}): {st.text}", st.line)

    def _interfaces(self, st: Stmt) -> None:
        w = st.words
        name = w[1].lower()
        if name == "interface-range" and len(w) >= 4:
            rng = w[2]
            rest = w[3:]
            if rest[0] == "member" and len(rest) >= 2:
                self.ranges.setdefault(rng, []).append(rest[1].lower())
            elif rest[0] == "member-range" and len(rest) >= 4 and rest[2] == "to":
                self.ranges.setdefault(rng, []).extend(_member_range(rest[1].lower(), rest[3].lower()))
            elif rest[0] == "mtu" and len(rest) >= 2 and _int(rest[1]) is not None:
                self.range_mtu[rng] = (int(rest[1]), st.line, st.text)
            return
        if not _is_port(name):
            return
        self.ifds.setdefault(name, st.line)
        rest = w[2:]
        if rest[:1] == ("mtu",) and len(rest) >= 2:
            v = _int(rest[1])
            if v is None:
                self.warn(f"interface {name}: mtu {rest[1]!r} is not a number", st.line)
            else:
                self.mtu[name] = (v, st.line, st.text)
        elif (
            len(rest) >= 2
            and rest[0] in ("ether-options", "gigether-options")
            and rest[1]
            in (
                "flow-control",
                "no-flow-control",
            )
        ):
            self.link_pause[name] = (rest[1] == "flow-control", st.line, st.text)

    def _cos(self, st: Stmt) -> None:
        w = st.words
        sec = w[1]
        if sec == "classifiers" and len(w) >= 4:
            self._classifier(st)
        elif sec == "forwarding-classes":
            self._fc(st)
        elif sec == "congestion-notification-profile" and len(w) >= 3:
            self._cnp(st)
        elif sec == "drop-profiles" and len(w) >= 3:
            self._drop_profile(st)
        elif sec == "schedulers" and len(w) >= 3:
            self._scheduler(st)
        elif sec == "scheduler-maps" and len(w) >= 3:
            sm = w[2]
            self.smaps.setdefault(sm, _Obj(st.line, st.text))
            if len(w) >= 7 and w[3] == "forwarding-class" and w[5] == "scheduler":
                self.smap_entries.setdefault(sm, {})[w[4]] = (w[6], st.line, st.text)
            elif len(w) > 3:
                self.warn(f"scheduler-map {sm}: statement not understood: {st.text}", st.line)
        elif sec == "interfaces" and len(w) >= 4:
            self._cos_interface(st)
        elif sec in ("forwarding-class-sets", "traffic-control-profiles"):
            self.warn(
                f"class-of-service {sec} (ETS priority-group scheduling) is not modelled; "
                "only direct scheduler-map port scheduling is read",
                st.line,
            )
        elif sec in ("pfc-watchdog", "explicit-congestion-notification"):
            self.warn(f"unrecognised class-of-service statement: {st.text}", st.line)

    def _classifier(self, st: Stmt) -> None:
        w = st.words
        kind, name = w[2], w[3]
        if kind not in ("dscp", "ieee-802.1", "dscp-ipv6"):
            return
        cl = self.classifiers.setdefault((kind, name), _Classifier(st.line, st.text, kind=kind))
        rest = w[4:]
        if not rest:
            return
        if rest[0] == "import":
            self.warn(f"classifier {name}: 'import' of another classifier is not expanded", st.line)
            return
        if (
            len(rest) >= 6
            and rest[0] == "forwarding-class"
            and rest[2] == "loss-priority"
            and rest[4] == "code-points"
        ):
            fc = rest[1]
            value = parse_dscp(rest[5]) if kind != "ieee-802.1" else parse_pcp(rest[5])
            if value is None:
                self.warn(f"classifier {name}: unknown code point {rest[5]!r}", st.line)
                return
            prev = cl.entries.get(value)
            if prev is not None and prev[0] != fc:
                cl.conflicts.add(value)
                self.warn(
                    f"classifier {name}: code point {rest[5]} is assigned to forwarding classes {prev[0]} "
                    f"(line {prev[1]}) and {fc}; its class is unknown",
                    st.line,
                    "AMBIGUOUS",
                )
            cl.entries[value] = (fc, st.line, st.text)
        else:
            self.warn(f"classifier {name}: statement not understood: {st.text}", st.line)

    def _fc(self, st: Stmt) -> None:
        w = st.words
        if len(w) >= 4 and w[2] == "class":
            name = w[3]
            fc = self.fcs.setdefault(name, _Fc(st.line, st.text))
            rest = list(w[4:])
            i = 0
            while i < len(rest):
                tok = rest[i]
                if tok == "queue-num" and i + 1 < len(rest):
                    fc.queue = _int(rest[i + 1])
                    i += 2
                elif tok == "pfc-priority" and i + 1 < len(rest):
                    fc.pfc_priority = _int(rest[i + 1])
                    i += 2
                elif tok == "no-loss":
                    fc.no_loss = True
                    i += 1
                elif tok in ("priority", "policing-priority") and i + 1 < len(rest):
                    i += 2
                else:
                    i += 1
        elif len(w) >= 5 and w[2] == "queue":  # legacy form: forwarding-classes queue <q> <name>
            fc = self.fcs.setdefault(w[4], _Fc(st.line, st.text))
            fc.queue = _int(w[3])

    def _cnp(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        cnp = self.cnps.setdefault(name, _Cnp(st.line, st.text))
        rest = w[3:]
        if not rest:
            return
        if rest[0] == "pfc-watchdog":
            cnp.watchdog = True
            cnp.wd_line = cnp.wd_line or st.line
            cnp.wd_lines.append(st.line)
            opt = rest[1:]
            if len(opt) >= 2 and opt[0] == "watchdog-action":
                cnp.action = opt[1]
                return
            if len(opt) >= 2 and opt[0] in ("detection", "poll-interval", "recovery"):
                v = _int(opt[1])
                if v is None:
                    self.warn(f"CNP {name}: pfc-watchdog {opt[0]} {opt[1]!r} is not a number", st.line)
                elif opt[0] == "detection":
                    cnp.detection = v
                elif opt[0] == "poll-interval":
                    cnp.poll = v
                else:
                    cnp.recovery = v
            elif opt:
                self.warn(f"CNP {name}: pfc-watchdog option not understood: {' '.join(opt)}", st.line)
            return
        if rest[0] == "input" and len(rest) >= 2:
            if rest[1] == "cable-length":
                return
            if len(rest) >= 5 and rest[1] in ("dscp", "ieee-802.1") and rest[2] == "code-point":
                parse = parse_dscp if rest[1] == "dscp" else parse_pcp
                value = parse(rest[3])
                if value is None:
                    self.warn(f"CNP {name}: unknown code point {rest[3]!r}", st.line)
                    return
                if rest[4] == "pfc":
                    (cnp.in_dscp if rest[1] == "dscp" else cnp.in_pcp)[value] = (st.line, st.text)
                    return
        if rest[0] == "output" and len(rest) >= 6 and rest[1] == "ieee-802.1" and rest[2] == "code-point":
            value = parse_pcp(rest[3])
            if rest[4] == "flow-control-queue" and value is not None:
                q = _int(rest[5])
                if q is not None:
                    cnp.out.setdefault(value, []).append(q)
                    return
        self.warn(f"CNP {name}: statement not understood: {st.text}", st.line)

    def _drop_profile(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        dp = self.drop_profiles.setdefault(name, _DropProfile(st.line, st.text))
        dp.lines.append(st.line)
        rest = list(w[3:])
        if rest[:1] == ["interpolate"]:
            rest = rest[1:]
        i = 0
        while i + 1 < len(rest):
            key, val = rest[i], _num(rest[i + 1])
            if key == "fill-level" and val is not None:
                dp.fill.append(val)
            elif key == "drop-probability" and val is not None:
                dp.prob.append(val)
            else:
                self.warn(f"drop profile {name}: statement not understood: {st.text}", st.line)
                return
            i += 2

    def _scheduler(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        s = self.schedulers.setdefault(name, _Scheduler(st.line, st.text))
        s.lines.append(st.line)
        rest = w[3:]
        if not rest:
            return
        key = rest[0]
        if key == "priority" and len(rest) >= 2:
            s.priority = rest[1]
        elif key == "transmit-rate" and len(rest) >= 2:
            if rest[1] == "percent" and len(rest) >= 3 and _int(rest[2]) is not None:
                s.rate_percent = int(rest[2])
            elif rest[1] not in ("exact", "rate-limit"):
                s.rate_other = rest[1]
        elif key == "explicit-congestion-notification":
            s.ecn = True
        elif key == "drop-profile-map" and len(rest) >= 7:
            # drop-profile-map loss-priority <lp> protocol <proto> drop-profile <dp>
            kv = dict(zip(rest[1::2], rest[2::2], strict=False))
            if "loss-priority" in kv and "drop-profile" in kv:
                s.maps[kv["loss-priority"]] = kv["drop-profile"]
            else:
                self.warn(f"scheduler {name}: drop-profile-map not understood: {st.text}", st.line)
        elif key in ("ecn-enhanced",):
            self.warn(f"scheduler {name}: {' '.join(rest)} is not modelled (head marking)", st.line)

    def _cos_interface(self, st: Stmt) -> None:
        w = st.words
        target = w[2].lower()
        rest = list(w[3:])
        wildcard = "*" in target or target == "all"
        if rest and rest[0] == "unit" and len(rest) >= 2:
            rest = rest[2:]
        ifc = self.cos_if.setdefault(target, _IfCos())
        if len(rest) >= 2 and rest[0] == "congestion-notification-profile":
            ifc.cnp = _Binding(rest[1], st.line, st.text, wildcard)
        elif len(rest) >= 2 and rest[0] == "scheduler-map":
            ifc.sm = _Binding(rest[1], st.line, st.text, wildcard)
        elif len(rest) >= 3 and rest[0] == "classifiers":
            if rest[1] == "dscp":
                ifc.dscp = _Binding(rest[2], st.line, st.text, wildcard)
            elif rest[1] == "ieee-802.1":
                ifc.pcp = _Binding(rest[2], st.line, st.text, wildcard)
        elif rest and rest[0] in ("forwarding-class-set", "output-traffic-control-profile"):
            self.warn(f"{target}: {rest[0]} (ETS hierarchy) is not modelled", st.line)

    def _hash(self, st: Stmt) -> None:
        w = list(st.words[2:])
        if w[:1] == ["family"]:
            w = w[1:]
        if not w:
            return
        if w[0] == "hash-mode" and len(w) >= 2:
            self.hash_mode = (w[1], st.line)
            self.hash_lines.append(st.line)
        elif w[0] in ("inet", "inet6"):
            table = HASH_EXCLUDE_V4 if w[0] == "inet" else HASH_EXCLUDE_V6
            cur = self.hash_v4 if w[0] == "inet" else self.hash_v6
            cur = set() if cur is None else cur
            if len(w) >= 2:
                if w[1] in table:
                    cur.add(table[w[1]])
                elif w[1] != "vlan-id":
                    self.warn(f"enhanced-hash-key {w[0]} {w[1]} is not modelled", st.line)
            if w[0] == "inet":
                self.hash_v4 = cur
            else:
                self.hash_v6 = cur
            self.hash_lines.append(st.line)
        elif w[0] == "hash-seed":
            if len(w) >= 3 and w[1] == "seed-value" and _int(w[2]) is not None:
                self.hash_seed = (int(w[2]), st.line, st.text)
            elif len(w) > 1:
                self.warn(f"enhanced-hash-key {' '.join(w)} is not understood", st.line)
        elif w[0] in ("symmetric-hash", "symmetric", "hash-parameters"):
            self.warn(f"enhanced-hash-key {' '.join(w)} is not modelled", st.line)

    # ------------------------------------------------------------------ pass 2
    def resolve(self) -> None:
        s = self.state
        ports = set(self.ifds)
        explicit = {k for k in self.cos_if if not ("*" in k or k == "all")}
        for name in explicit:
            if _is_port(name):
                ports.add(name)
        # interface ranges -> mtu
        for rng, (mtu, line, text) in self.range_mtu.items():
            for m in self.ranges.get(rng, []):
                ports.add(m)
                self.mtu.setdefault(m, (mtu, line, text))
        effective: dict[str, _IfCos] = {p: _IfCos() for p in ports}
        # wildcards first, most general first, then explicit entries override per attribute
        wild = sorted((k for k in self.cos_if if k not in explicit), key=lambda k: (k != "all", k))
        for pattern in wild:
            matched = [p for p in ports if pattern == "all" or fnmatch.fnmatchcase(p, pattern)]
            if not matched:
                b = self.cos_if[pattern]
                line = next((x.line for x in (b.cnp, b.sm, b.dscp, b.pcp) if x), None)
                self.warn(
                    f"class-of-service interfaces {pattern} matches no configured interface", line, "UNUSED"
                )
            for p in matched:
                _merge(effective[p], self.cos_if[pattern])
        for name in explicit:
            if name in effective:
                _merge(effective[name], self.cos_if[name])

        dscp_maps: dict[str, dict[str, int]] = {}
        for name in sorted(effective, key=natural_key):
            eff = effective[name]
            itf = Interface()
            touched = False
            if name in self.mtu:
                mtu, line, text = self.mtu[name]
                itf.mtu = mtu
                s.at(f"interfaces.{name}.mtu", line, text)
                s.at(f"interfaces.{name}", line, text)
                touched = True
            if name in self.link_pause:
                val, line, text = self.link_pause[name]
                itf.link_pause = val
                s.at(f"interfaces.{name}.link_pause", line, text)
                touched = True
            port_map: dict[str, int] | None = None
            if eff.dscp is not None:
                port_map = self._dscp_map(eff.dscp, name)
                if port_map is not None:
                    itf.trust = "dscp"
                    dscp_maps[name] = port_map
                    s.at(f"interfaces.{name}.trust", eff.dscp.line, eff.dscp.text)
                    touched = True
            if eff.pcp is not None and itf.trust is None:
                cl = self.classifiers.get(("ieee-802.1", eff.pcp.value))
                if cl is None:
                    self.warn(
                        f"{name}: ieee-802.1 classifier {eff.pcp.value} is not defined",
                        eff.pcp.line,
                        "UNDEFINED",
                    )
                else:
                    cl.used = True
                    itf.trust = "pcp"
                    s.at(f"interfaces.{name}.trust", eff.pcp.line, eff.pcp.text)
                    touched = True
            if eff.cnp is not None:
                touched |= self._apply_cnp(name, itf, eff, port_map)
            if eff.sm is not None:
                touched |= self._apply_sm(name, itf, eff.sm)
            if touched:
                s.interfaces[name] = itf
                for b in (eff.cnp, eff.sm, eff.dscp, eff.pcp):
                    if b is not None:
                        s.at(f"interfaces.{name}", b.line, b.text)
        self._device_dscp(dscp_maps)
        self._watchdog(effective)
        self._ecmp()
        self._unused()

    def _dscp_map(self, b: _Binding, port: str) -> dict[str, int] | None:
        cl = self.classifiers.get(("dscp", b.value))
        if cl is None:
            self.warn(f"{port}: dscp classifier {b.value} is not defined", b.line, "UNDEFINED")
            return None
        cl.used = True
        out: dict[str, int] = {}
        for d, (fc, line, text) in sorted(cl.entries.items()):
            if d in cl.conflicts:
                continue
            tc = self._fc_queue(fc, line)
            if tc is not None:
                out[str(d)] = tc
                self.state.at(f"dscp_to_tc.{d}", line, text)
        return out

    def _fc_queue(self, fc: str, line: int | None) -> int | None:
        obj = self.fcs.get(fc)
        if obj is not None:
            obj.used = True
            if obj.queue is None:
                self.warn(f"forwarding class {fc} has no queue-num", obj.line)
            return obj.queue
        if fc in DEFAULT_FCS:
            return DEFAULT_FCS[fc]
        key = ("UNDEFINED", fc)
        if key not in self._warned:
            self._warned.add(key)
            self.warn(f"forwarding class {fc} is not defined", line, "UNDEFINED")
        return None

    def _apply_cnp(self, name: str, itf: Interface, eff: _IfCos, port_map: dict[str, int] | None) -> bool:
        s = self.state
        b = eff.cnp
        assert b is not None
        cnp = self.cnps.get(b.value)
        if cnp is None:
            self.warn(
                f"{name}: congestion-notification-profile {b.value} is not defined", b.line, "UNDEFINED"
            )
            return False
        cnp.used = True
        prios: set[int] = set()
        lines: list[int] = [b.line]
        for p, (line, _text) in cnp.in_pcp.items():
            prios.add(p)
            lines.append(line)
        cl = self.classifiers.get(("dscp", eff.dscp.value)) if eff.dscp else None
        for d, (line, _text) in sorted(cnp.in_dscp.items()):
            if cl is not None and d in cl.conflicts:
                continue  # the code point's class is unknown (warned where the classifier is read)
            entry = cl.entries.get(d) if cl else None
            if entry is None:
                self.warn(
                    f"{name}: CNP {b.value} enables PFC on DSCP {d} but the port's classifier does not map it",
                    line,
                )
                continue
            fc = self.fcs.get(entry[0])
            if fc is not None and fc.pfc_priority is not None:
                prio = fc.pfc_priority
                if fc.queue is not None and fc.queue != fc.pfc_priority:
                    key = ("PRIO", entry[0])
                    if key not in self._warned:
                        self._warned.add(key)
                        self.warn(
                            f"forwarding class {entry[0]}: pfc-priority {fc.pfc_priority} differs from queue-num "
                            f"{fc.queue}; roceconf assumes priority = traffic class = queue",
                            fc.line,
                        )
            else:
                prio = self._fc_queue(entry[0], entry[1])
                if prio is None:
                    continue
            prios.add(prio)
            lines.append(line)
        if cnp.watchdog:
            itf.pfc_watchdog = True
            s.at(f"interfaces.{name}.pfc_watchdog", [b.line, cnp.wd_line or b.line], b.text)
        if not prios:
            if not cnp.in_pcp and not cnp.in_dscp:
                self.warn(
                    f"{name}: CNP {b.value} enables no input PFC code point (it only sets how received "
                    "PFC pauses queues); PFC generation is not configured",
                    b.line,
                )
            return cnp.watchdog
        itf.pfc = Pfc(enabled=True, no_drop=sorted(prios))
        s.at(f"interfaces.{name}.pfc", sorted(set(lines)), b.text)
        for p in sorted(prios):
            fc_ok = any(
                f.no_loss and (f.pfc_priority == p or (f.pfc_priority is None and f.queue == p))
                for f in self.fcs.values()
            ) or p in (3, 4)  # default lossless classes fcoe (3) and no-loss (4)
            if not fc_ok:
                key = ("NOLOSS", str(p))
                if key not in self._warned:
                    self._warned.add(key)
                    self.warn(
                        f"PFC priority {p} has no no-loss forwarding class: traffic is not lossless", b.line
                    )
        return True

    def _apply_sm(self, name: str, itf: Interface, b: _Binding) -> bool:
        s = self.state
        if b.value not in self.smaps:
            self.warn(f"{name}: scheduler-map {b.value} is not defined", b.line, "UNDEFINED")
            return False
        self.smaps[b.value].used = True
        touched = False
        for fc, (sched_name, line, text) in self.smap_entries.get(b.value, {}).items():
            tc = self._fc_queue(fc, line)
            sch = self.schedulers.get(sched_name)
            if sch is None:
                self.warn(
                    f"scheduler-map {b.value}: scheduler {sched_name} is not defined", line, "UNDEFINED"
                )
                continue
            sch.used = True
            if tc is None:
                continue
            key = str(tc)
            mode: Any = None
            bw = None
            if sch.priority == "strict-high":
                mode = "strict"
            elif sch.priority in (None, "low"):
                if sch.rate_percent is not None:
                    mode, bw = "dwrr", sch.rate_percent
                elif sch.priority == "low":
                    mode = "dwrr"
                elif sch.rate_other is not None:
                    self.warn(
                        f"scheduler {sched_name}: transmit-rate {sch.rate_other} is not a percent", sch.line
                    )
            else:
                self.warn(f"scheduler {sched_name}: priority {sch.priority} is not modelled", sch.line)
            if mode is not None:
                itf.scheduling[key] = Sched(mode=mode, bandwidth_percent=bw)
                s.at(f"interfaces.{name}.scheduling.{key}", [line, *sch.lines], text)
                touched = True
            dp_name = sch.maps.get("any") or sch.maps.get("low")
            if dp_name is None and sch.maps:
                dp_name = next(iter(sch.maps.values()))
            if dp_name is None:
                if sch.ecn:
                    self.warn(f"scheduler {sched_name}: ECN enabled without a drop profile", sch.line)
                continue
            dp = self.drop_profiles.get(dp_name)
            if dp is None:
                self.warn(
                    f"scheduler {sched_name}: drop profile {dp_name} is not defined", sch.line, "UNDEFINED"
                )
                continue
            dp.used = True
            if not sch.ecn:
                self.warn(
                    f"scheduler {sched_name}: drop profile {dp_name} without explicit-congestion-notification "
                    "is WRED drop, not ECN marking",
                    sch.line,
                    "WRED",
                )
                continue
            ecn = _ecn_from_profile(dp)
            if ecn is None:
                self.warn(
                    f"drop profile {dp_name}: only a two-point curve starting at probability 0 is modelled",
                    dp.line,
                )
                continue
            itf.ecn[key] = ecn
            s.at(f"interfaces.{name}.ecn.{key}", sorted({line, *sch.lines, *dp.lines}), dp.text)
            touched = True
        return touched

    def _device_dscp(self, dscp_maps: dict[str, dict[str, int]]) -> None:
        if not dscp_maps:
            return
        counts = Counter(tuple(sorted(m.items())) for m in dscp_maps.values())
        best = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        self.state.dscp_to_tc = dict(best)
        for name, m in dscp_maps.items():
            if tuple(sorted(m.items())) != best:
                self.state.interfaces[name].dscp_to_tc = m

    def _watchdog(self, effective: dict[str, _IfCos]) -> None:
        s = self.state
        used = sorted(
            {
                e.cnp.value
                for e in effective.values()
                if e.cnp and e.cnp.value in self.cnps and self.cnps[e.cnp.value].watchdog
            }
        )
        if not used:
            return
        vals = []
        for name in used:
            c = self.cnps[name]
            vals.append((c.poll, c.detection, c.recovery))
        if len(set(vals)) > 1:
            self.warn(
                f"PFC watchdog timers differ between CNPs {', '.join(used)}; reporting those of {used[0]}",
                self.cnps[used[0]].wd_line,
            )
        c = self.cnps[used[0]]
        wd = s.pfc_watchdog
        wd.enabled = True
        s.at("pfc_watchdog.enabled", c.wd_line, c.text)
        poll = c.poll
        if poll is None:
            poll = WD_DEFAULT_POLL_MS
            s.defaults.append("pfc_watchdog.polling_ms")
        detection = c.detection
        if detection is None:
            detection = WD_DEFAULT_DETECTION
            s.defaults.append("pfc_watchdog.detection_ms")
        recovery = c.recovery
        if recovery is None:
            recovery = WD_DEFAULT_RECOVERY_MS
            s.defaults.append("pfc_watchdog.restoration_ms")
        wd.polling_ms = poll
        wd.detection_ms = detection * poll
        wd.restoration_ms = recovery
        wd.action = "drop"
        if c.action is None:
            s.defaults.append("pfc_watchdog.action")
        elif c.action != "drop":
            wd.action = None
            self.warn(f"CNP {used[0]}: pfc-watchdog watchdog-action {c.action} is not modelled", c.wd_line)
        for f in ("polling_ms", "detection_ms", "restoration_ms"):
            s.at(f"pfc_watchdog.{f}", c.wd_lines, c.text)

    def _ecmp(self) -> None:
        s = self.state
        if self.hash_seed is not None:
            s.ecmp.seed = self.hash_seed[0]
            s.at("ecmp.seed", self.hash_seed[1], self.hash_seed[2])
        if self.hash_mode is None and self.hash_v4 is None and self.hash_v6 is None:
            return
        line = self.hash_lines[0] if self.hash_lines else None
        if self.hash_mode is not None and self.hash_mode[0] == "layer2-header":
            self.warn(
                "enhanced-hash-key hash-mode layer2-header: IP/L4 fields are not hashed", self.hash_mode[1]
            )
            s.ecmp.fields = []
            s.at("ecmp.fields", self.hash_lines, "")
            return
        v4 = self.hash_v4 or set()
        v6 = self.hash_v6 if self.hash_v6 is not None else v4
        if v6 != v4:
            self.warn("enhanced-hash-key: IPv4 and IPv6 field exclusions differ; reporting IPv4", line)
        s.ecmp.fields = sorted(f for f in JUNOS_HASH_FIELDS if f not in v4)
        s.defaults.append("ecmp.fields")
        s.at("ecmp.fields", self.hash_lines, "")

    def _unused(self) -> None:
        for (kind, name), cl in self.classifiers.items():
            if not cl.used and kind != "dscp-ipv6":
                self.warn(
                    f"{kind} classifier {name} is defined but not applied to any interface", cl.line, "UNUSED"
                )
        for name, c in self.cnps.items():
            if not c.used:
                self.warn(
                    f"congestion-notification-profile {name} is defined but not applied", c.line, "UNUSED"
                )
        for name, o in self.smaps.items():
            if not o.used:
                self.warn(f"scheduler-map {name} is defined but not applied", o.line, "UNUSED")
        for name, sc in self.schedulers.items():
            if not sc.used:
                self.warn(
                    f"scheduler {name} is defined but not used by an applied scheduler-map", sc.line, "UNUSED"
                )
        for name, dp in self.drop_profiles.items():
            if not dp.used:
                self.warn(
                    f"drop profile {name} is defined but not used by an applied scheduler", dp.line, "UNUSED"
                )


def _ecn_from_profile(dp: _DropProfile) -> Ecn | None:
    if len(dp.fill) != 2 or len(dp.prob) != 2 or dp.prob[0] != 0:
        return None
    lo, hi = dp.fill
    return Ecn(min_percent=int(round(lo)), max_percent=int(round(hi)), probability=int(round(dp.prob[1])))


def _merge(dst: _IfCos, src: _IfCos) -> None:
    for f in ("cnp", "sm", "dscp", "pcp"):
        v = getattr(src, f)
        if v is not None:
            setattr(dst, f, v)


def _is_port(name: str) -> bool:
    n = name.lower()
    if n.startswith(_NOT_PORT):
        return False
    return bool(_PORT_RE.match(n)) or bool(re.fullmatch(r"ae\d+", n))


def _member_range(a: str, b: str) -> list[str]:
    ma, mb = re.match(r"^(.*?)(\d+)$", a), re.match(r"^(.*?)(\d+)$", b)
    if not ma or not mb or ma.group(1) != mb.group(1):
        return [a, b]
    lo, hi = int(ma.group(2)), int(mb.group(2))
    if hi < lo or hi - lo > 4096:
        return [a, b]
    return [f"{ma.group(1)}{i}" for i in range(lo, hi + 1)]


#: the ``set`` line that names the device, with a name the statement splitter reads as it stands
_HOST_NAME_LINE = re.compile(r"set system host-name ([A-Za-z0-9._-]+)")


def _host_name_of(line: str) -> str | None:
    m = _HOST_NAME_LINE.fullmatch(line.strip())
    return m.group(1) if m else None


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse`` sharing one parse between ``set`` configs that differ only by their ``set system host-name``
    line (``base.parse_shared_by_line``)."""
    return parse_shared_by_line(parse, text, memo, lambda lines, i: _host_name_of(lines[i]))


def parse(text: str) -> DeviceState:
    """Parse Junos configuration (display set or hierarchical) into a DeviceState. Never raises."""
    try:
        p = _Parser(text)
        stmts, deactivated = flatten(text)
        if deactivated:
            keep = []
            for st in stmts:
                if any(st.words[: len(path)] == path for path, _ in deactivated):
                    continue
                keep.append(st)
            stmts = keep
        p.collect(stmts)
        p.resolve()
        return p.state
    except Exception as exc:  # noqa: BLE001 - a parser must never raise
        state = DeviceState(platform="junos")
        state.warn(f"internal parser error: {type(exc).__name__}: {exc}", None, "INTERNAL")
        return state


# ------------------------------------------------------------------------------ render plan


def _short_hash(obj: Any) -> str:
    return hashlib.sha1(repr(obj).encode()).hexdigest()[:6].upper()


_GROUP_FIELDS = ("trust", "pfc", "pfc_watchdog", "ecn", "scheduling", "dscp_to_tc")


def render_plan(state: DeviceState) -> dict[str, Any]:
    """Names and objects the template prints. Pure data: names derive from content, not order."""
    itfs = state.interfaces
    tcs: set[int] = set(state.dscp_to_tc.values())
    lossless: set[int] = set()
    for itf in itfs.values():
        tcs.update(int(k) for k in itf.ecn)
        tcs.update(int(k) for k in itf.scheduling)
        if itf.dscp_to_tc:
            tcs.update(itf.dscp_to_tc.values())
        if itf.pfc.no_drop:
            lossless.update(itf.pfc.no_drop)
    tcs |= lossless
    fcs = [{"name": f"RC-TC{t}", "queue": t, "no_loss": t in lossless} for t in sorted(tcs)]

    def dscp_entries(m: dict[str, int]) -> list[dict[str, Any]]:
        return [
            {"fc": f"RC-TC{tc}", "bits": dscp_bits(int(d))}
            for d, tc in sorted(m.items(), key=lambda kv: (kv[1], int(kv[0])))
        ]

    classifiers = []
    if state.dscp_to_tc:
        classifiers.append({"kind": "dscp", "name": "RC-DSCP", "entries": dscp_entries(state.dscp_to_tc)})
    port_maps: dict[str, str] = {}
    for name in sorted(itfs, key=natural_key):
        m = itfs[name].dscp_to_tc
        if m:
            cname = f"RC-DSCP-{_short_hash(sorted(m.items()))}"
            port_maps[name] = cname
            if all(c["name"] != cname for c in classifiers):
                classifiers.append({"kind": "dscp", "name": cname, "entries": dscp_entries(m)})
    if any(itf.trust == "pcp" for itf in itfs.values()):
        classifiers.append(
            {
                "kind": "ieee-802.1",
                "name": "RC-PCP",
                "entries": [{"fc": f"RC-TC{t}", "bits": pcp_bits(t)} for t in sorted(tcs)],
            }
        )

    drop_profiles: dict[str, tuple[int, int, int]] = {}
    schedulers: dict[str, dict[str, Any]] = {}
    smaps: dict[str, list[tuple[str, str]]] = {}
    cnps: dict[str, dict[str, Any]] = {}
    bindings: list[dict[str, Any]] = []
    wd = state.pfc_watchdog
    wd_opts = _watchdog_options(wd.detection_ms, wd.polling_ms, wd.restoration_ms, wd.action)

    # one set of objects per group of ports with identical CoS settings
    for names, itf in group_interfaces(state, _GROUP_FIELDS):
        name = names[0]
        b: dict[str, Any] = {"name": name, "mtu": itf.mtu, "link_pause": itf.link_pause}
        # classifier
        if itf.trust == "dscp":
            b["dscp"] = port_maps.get(name, "RC-DSCP" if state.dscp_to_tc else None)
        elif itf.trust == "pcp":
            b["pcp"] = "RC-PCP"
        # scheduler map
        entries: list[tuple[str, str]] = []
        for tc in sorted({*itf.scheduling, *itf.ecn}, key=int):
            sch = itf.scheduling.get(tc)
            ecn = itf.ecn.get(tc)
            parts = [f"RC-TC{tc}"]
            spec: dict[str, Any] = {"priority": None, "rate": None, "dp": None}
            if sch is not None and sch.mode == "strict":
                parts.append("SP")
                spec["priority"] = "strict-high"
            elif sch is not None and sch.mode == "dwrr":
                if sch.bandwidth_percent is not None:
                    parts.append(f"BW{sch.bandwidth_percent}")
                    spec["rate"] = sch.bandwidth_percent
                else:
                    parts.append("WRR")
                    spec["priority"] = "low"
            if (
                ecn is not None
                and ecn.min_percent is not None
                and ecn.max_percent is not None
                and ecn.probability is not None
            ):
                # fill-level percent as stated (bytes are never converted: see the module docstring)
                lo, hi = ecn.min_percent, ecn.max_percent
                dp = f"RC-ECN-{lo}-{hi}-{ecn.probability}"
                drop_profiles[dp] = (lo, hi, ecn.probability)
                parts.append(f"E{lo}-{hi}-{ecn.probability}")
                spec["dp"] = dp
            if len(parts) == 1:
                continue
            sname = "-".join(parts)
            schedulers[sname] = spec
            entries.append((f"RC-TC{tc}", sname))
        if entries:
            smname = f"RC-SM-{_short_hash(entries)}"
            smaps[smname] = entries
            b["sm"] = smname
        # congestion notification profile
        no_drop = itf.pfc.no_drop or []
        pfc_on = bool(itf.pfc.enabled) and bool(no_drop)
        if pfc_on or itf.pfc_watchdog:
            port_map = itf.dscp_to_tc or state.dscp_to_tc
            dscps = sorted(int(d) for d, tc in port_map.items() if tc in no_drop)
            covered = {port_map[str(d)] for d in dscps}
            use_dscp = itf.trust == "dscp" and pfc_on and covered >= set(no_drop)
            parts = ["RC-PFC"]
            if pfc_on:
                parts.append(("DSCP-P" if use_dscp else "P") + "-".join(str(p) for p in no_drop))
            if itf.pfc_watchdog:
                parts.append("WD")
            cname = "-".join(parts)
            cnps[cname] = {
                "in_dscp": [dscp_bits(d) for d in dscps] if use_dscp else [],
                "in_pcp": [] if use_dscp or not pfc_on else [pcp_bits(p) for p in no_drop],
                "out": [(pcp_bits(p), p) for p in no_drop] if pfc_on else [],
                "watchdog": bool(itf.pfc_watchdog),
                "wd_opts": wd_opts,
            }
            b["cnp"] = cname
        for port_name in names:
            port = itfs[port_name]
            bindings.append({**b, "name": port_name, "mtu": port.mtu, "link_pause": port.link_pause})
    bindings.sort(key=lambda x: natural_key(x["name"]))

    hash_excl: dict[str, list[str]] = {}
    if state.ecmp.fields is not None:
        fields = set(state.ecmp.fields)
        hash_excl["inet"] = [k for k, f in HASH_EXCLUDE_V4.items() if f not in fields]
        hash_excl["inet6"] = [k for k, f in HASH_EXCLUDE_V6.items() if f not in fields]
    return {
        "fcs": fcs,
        "classifiers": classifiers,
        "drop_profiles": sorted(drop_profiles.items()),
        "schedulers": sorted(schedulers.items()),
        "scheduler_maps": sorted(smaps.items()),
        "cnps": sorted(cnps.items()),
        "bindings": bindings,
        "hash": hash_excl if state.ecmp.fields is not None else None,
        "seed": state.ecmp.seed,
    }


def _watchdog_options(
    detection_ms: int | None, polling_ms: int | None, restoration_ms: int | None, action: str | None = None
) -> list[str]:
    opts: list[str] = []
    if polling_ms is not None:
        opts.append(f"poll-interval {polling_ms}")
    if detection_ms is not None:
        poll = polling_ms or WD_DEFAULT_POLL_MS
        opts.append(f"detection {max(1, int(round(detection_ms / poll)))}")
    if restoration_ms is not None:
        opts.append(f"recovery {restoration_ms}")  # YANG leaf 'recovery' (200..1000 ms), not 'recovery-time'
    if action == "drop":
        opts.append("watchdog-action drop")
    return opts


# ------------------------------------------------------------------------------ platform

CAPABILITIES = Capabilities(
    dscp_map_replaced=True,
    min_mtu=Fact(256, f"{DOC_MTU} (Junos media MTU floor; not confirmed for every QFX5K model)"),
    max_mtu=Fact(9216, f"{JVD_CONFIG}; {DOC_MTU}"),
    max_lossless_priorities=Fact(
        6,
        "Juniper QFX traffic management guide, 'Understanding CoS IEEE 802.1p Priorities for Lossless "
        "Traffic Flows' (up to six lossless priorities); "
        "https://juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/task/"
        "cos-congestion-notification-qfx-series-cli.html",
    ),
    per_port=ALL_PORT_FIELDS,
    hash_fields=JUNOS_HASH_FIELDS,
    hash_seed=True,
    hash_symmetric=False,
    watchdog_fields=frozenset({"enabled", "detection_ms", "restoration_ms", "polling_ms"}),
    watchdog_actions=("drop",),
    ecn_units="percent",
    every_dscp_mapped=True,
    watchdog_ranges=WD_RANGES,
    watchdog_ranges_source=f"{YANG_COS}: congestion-notification-profile pfc-watchdog",
    notes=(
        "ECN thresholds are drop-profile fill levels in percent of the queue's dynamic buffer share; the intent "
        f"states them (qos.classes[].ecn.junos), bytes are never converted ({YANG_COS}; {DOC_DROP_PROFILES})",
        f"PFC watchdog detection is a number of poll intervals (detection_ms = detection x poll-interval); "
        f"action drop is the documented default and the only one rendered ({DOC_WATCHDOG})",
        f"ECMP: enhanced-hash-key states exclusions; all five IP/L4 fields are hashed by default ({DOC_HASH}). "
        f"The seed is enhanced-hash-key hash-seed seed-value (0..4294967295, Juniper/yang 23.4R1 QFX and EVO "
        "forwarding-options). symmetric-hash is not rendered.",
        "Every DSCP 0-63 is in the RC-DSCP classifier (unnamed ones in the default class); default Junos "
        "schedulers are not strict priority, and only intent classes get a strict-high scheduler.",
        f"PFC is per port through congestion-notification profiles ({DOC_CNP}); at most one CNP per interface. "
        "PFC off is the absence of a CNP: a state with pfc.enabled false renders nothing.",
        "A DSCP map exists only as a classifier bound to ports: with no port trusting DSCP it cannot be stated.",
    ),
)

FILTERS = {
    "junos_plan": render_plan,
    "dscp_bits": dscp_bits,
    "pcp_bits": pcp_bits,
}

PLATFORM = Platform(
    # Interface syntax: Junos "<type>-<fpc>/<pic>/<port>[:<channel>]" (Junos "Interface Naming Overview":
    # et/xe/ge/mge media types, ":n" channelized ports) and aggregated "ae<n>".
    interface_pattern=r"(?:et|xe|ge|mge)-\d+/\d+/\d+(?::\d+)?|ae\d+",
    interface_example="et-0/0/0, et-0/0/1:2 (channelized), xe-0/0/3, ae0",
    apply_method="junos-cli",
    name="junos",
    kind="switch",
    title="Juniper Junos / Junos OS Evolved (QFX5000 line)",
    extension="set",
    capabilities=CAPABILITIES,
    parse=parse,
    parse_shared=parse_shared,
    filters=FILTERS,
    napalm_driver="junos",
    netmiko_device_type="juniper_junos",
    # junipernetworks.junos collection (cliconf/netconf plugins named junipernetworks.junos.junos)
    ansible_network_os=("junipernetworks.junos.junos", "junos"),
    collect_commands=("show configuration | display set",),
)
