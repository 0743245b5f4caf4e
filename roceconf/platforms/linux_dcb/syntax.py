"""Linux DCB (iproute2): the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

NAME = "linux-dcb"

#: DSCP names that ``dcb app show`` prints (from /etc/iproute2/rt_dsfield; dcb uses the upper 6 bits).
DSCP_NAMES: dict[str, int] = {
    **{f"CS{i}": 8 * i for i in range(8)},
    **{f"AF{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)},
    "EF": 46,
    "VA": 44,
    "LE": 1,
}

#: Outputs that mean "this device / tool cannot answer": the values stay unknown.
_UNSUPPORTED = re.compile(
    r"operation not supported|not supported|command not found|no such file or directory|"
    r"cannot find device|does not exist|permission denied|invalid argument|"
    r"error: |^usage:",
    re.I | re.M,
)

_RDMA_CM = "/sys/kernel/config/rdma_cm"
_TOS_PATH = re.compile(r"/sys/kernel/config/rdma_cm/([^/\s]+)/ports/(\d+)/default_roce_tos")


# --------------------------------------------------------------------------- small helpers
def tos_path(dev: str, port: int = 1) -> str:
    return f"{_RDMA_CM}/{dev}/ports/{port}/default_roce_tos"


def dscp_value(token: str) -> int | None:
    """'26' / '0x1a' / 'AF31' -> DSCP, None if not a DSCP."""
    t = token.strip()
    if t.upper() in DSCP_NAMES:
        return DSCP_NAMES[t.upper()]
    try:
        v = int(t, 0)
    except ValueError:
        return None
    return v if 0 <= v <= 63 else None


def _int(token: Any, lo: int = 0, hi: int = 1 << 31) -> int | None:
    if isinstance(token, bool):
        return None
    if isinstance(token, int):
        return token if lo <= token <= hi else None
    try:
        v = int(str(token).strip(), 0)
    except ValueError:
        return None
    return v if lo <= v <= hi else None


def is_unsupported(output: str) -> bool:
    return bool(_UNSUPPORTED.search(output))


def _json(output: str) -> Any:
    try:
        return json.loads(output)
    except (ValueError, RecursionError):
        return None


def _kv_map(tokens: list[str], conv: Callable[[str], Any], size: int = 8) -> dict[int, Any]:
    """['all:off', '3:on'] -> {0: False, ..., 3: True}; keys outside 0..size-1 are ignored."""
    out: dict[int, Any] = {}
    for tok in tokens:
        k, sep, v = tok.partition(":")
        if not sep:
            continue
        val = conv(v)
        if val is None:
            continue
        if k == "all":
            for i in range(size):
                out[i] = val
        else:
            ki = _int(k, 0, size - 1)
            if ki is not None:
                out[ki] = val
    return out


def _onoff(v: str) -> bool | None:
    return {"on": True, "off": False, "true": True, "false": False}.get(v.strip().lower())


_TSA = {"strict", "ets", "cbs", "vendor"}


def _tsa(v: str) -> str | None:
    v = v.strip().lower()
    return v if v in _TSA or v == "???" else None


#: the selector keywords of ``dcb app`` entries (iproute2 dcb-app(8)), in commands and in its text output
APP_KEYWORDS = frozenset(
    {"dscp-prio", "dgram-port-prio", "default-prio", "pcp-prio", "ethtype-prio", "stream-port-prio", "port-prio"}
)


def _keyword_groups(text: str, keywords: set[str] | frozenset[str]) -> dict[str, list[str]]:
    """Plain-text dcb output: 'kw a:b c:d kw2 ...' -> {kw: [a:b, c:d], kw2: [...]}."""
    out: dict[str, list[str]] = {}
    cur: str | None = None
    for tok in text.split():
        if tok in keywords:
            cur = tok
            out.setdefault(cur, [])
        elif cur is not None and ":" in tok:
            out[cur].append(tok)
        elif cur is not None and tok not in keywords:
            # a scalar after a keyword (e.g. 'pfc-cap 8') ends the group
            out[cur].append(tok)
            cur = None
    return out


# --------------------------------------------------------------------------- raw per-port record
@dataclass
class RawPort:
    name: str
    lines: list[int] = field(default_factory=list)
    mtu: int | None = None
    link_pause: bool | None = None
    pfc: dict[int, bool] | None = None
    tsa: dict[int, str] = field(default_factory=dict)
    bw: dict[int, int] = field(default_factory=dict)
    prio_tc: dict[int, int] = field(default_factory=dict)
    ets_seen: bool = False
    #: DSCP APP entries as [(dscp, prio)] (a multiset); None = APP table not read.
    app_dscp: list[tuple[int, int]] | None = None
    app_dgram: list[tuple[int, int]] = field(default_factory=list)
    rdma_dev: str | None = None
    src: dict[str, tuple[list[int], str]] = field(default_factory=dict)

    def at(self, key: str, line: int | None, text: str) -> None:
        if line is None:
            return
        old = self.src.get(key)
        if old:
            old[0].append(line)
        else:
            self.src[key] = ([line], text.strip()[:200])
