"""Juniper Junos: the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

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


N = TypeVar("N", int, float)


def _int(token: str | None) -> int | None:
    return _number(token, int)


def _num(token: str | None) -> float | None:
    return _number(token, float)


def _number(token: str | None, kind: Callable[[str], N]) -> N | None:
    """``kind(token)`` (int or float), None where the token is absent or not such a number."""
    if token is None:
        return None
    try:
        return kind(token)
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
