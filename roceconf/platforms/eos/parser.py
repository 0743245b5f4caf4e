"""Arista EOS: running-config text -> :class:`roceconf.state.DeviceState` (never raises; problems become
warnings)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from netutils.interface import canonical_interface_name

from roceconf.names import RangeError, expand_interfaces
from roceconf.platforms.eos.syntax import NAME
from roceconf.state import DeviceState, Interface, LazySources, Source
from roceconf.units import expand_ints

# --------------------------------------------------------------------------------------------- parser
_WARN_PARSE = "PARSE"
_WARN_UNSUPPORTED = "UNSUPPORTED"

_TRUST = {"dscp": "dscp", "cos": "pcp"}
_HASH_KW = {
    "source-ip": "src_ip",
    "destination-ip": "dst_ip",
    "source-port": "src_port",
    "destination-port": "dst_port",
    "ingress-interface": "ingress_port",
    "flow-label": "flow_label",
}
_HASH_RENDER = {v: k for k, v in _HASH_KW.items()}
# Order in which EOS itself lists the fields (annet's copy of the hidden default line).
_HASH_ORDER = ("src_ip", "src_port", "dst_ip", "dst_port", "ingress_port", "flow_label")
_SIZE_UNIT = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_ECN_RE = re.compile(
    r"^random-detect ecn minimum-threshold (\d+) ([a-z]+) maximum-threshold (\d+) ([a-z]+)"
    r"(?: max-mark-probability (\d+))?(?: weight (\d+))?$"
)
_RANGE_LEFT = re.compile(r"\d-\d")
_HOSTNAME_LINE = re.compile(r"^hostname(?=\s).*", re.M)
_PLAIN_PORT = re.compile(r"(?:Ethernet|Port-Channel)\d+(?:/\d+)*")
_QUEUE_KW = frozenset({"uc-tx-queue", "tx-queue", "mc-tx-queue"})
#: Interface / profile keywords that concern RoCE; unknown lines starting with them are warned about.
_ROCE_WORDS = frozenset(
    {"qos", "priority-flow-control", "service-profile", "flowcontrol", "random-detect", "dcbx", "pfc"}
)
_IGNORED_QUEUE = frozenset({"shape", "comment"})

_Val = tuple[Any, int, str]  # (value, line number, original text)


class _Block:
    """Settings stated in one `interface` or `qos profile` block (direct lines only)."""

    __slots__ = ("line", "text", "trust", "pfc_on", "prio", "wd", "queues", "mtu", "fc", "profile")

    def __init__(self, line: int, text: str) -> None:
        self.line = line
        self.text = text
        self.trust: _Val | None = None
        self.pfc_on: _Val | None = None
        self.prio: dict[int, _Val] = {}
        self.wd: _Val | None = None
        self.queues: dict[int, dict[str, _Val]] = {}
        self.mtu: _Val | None = None
        self.fc: dict[str, _Val] = {}
        self.profile: _Val | None = None

    def has_qos(self) -> bool:
        """Any direct line that would override an attached profile."""
        return bool(self.trust or self.pfc_on or self.prio or self.wd or self.queues)


@lru_cache(maxsize=4096)
def _canonical(name: str) -> str:
    low = name.lower()
    if low.startswith("ethernet"):
        return "Ethernet" + name[8:]
    if low.startswith("port-channel"):
        return "Port-Channel" + name[12:]
    if low.startswith("et") and name[2:3].isdigit():
        return "Ethernet" + name[2:]
    if low.startswith("po") and name[2:3].isdigit():
        return "Port-Channel" + name[2:]
    try:
        return canonical_interface_name(name, addl_name_map={"Po": "Port-Channel", "Et": "Ethernet"})
    except Exception:  # netutils raises on odd input; keep the name as written
        return name


def _interface_names(spec: str) -> list[str]:
    """'Ethernet1/1-4, Et2/1' / 'Ethernet 1-32' / 'Ethernet1-4,6' -> canonical names."""
    spec = spec.replace(" ", "")
    if _PLAIN_PORT.fullmatch(spec):  # one port, already canonical (the common case)
        return [spec]
    out: list[str] = []
    prefix = ""
    for part in spec.split(","):
        if not part:
            continue
        m = re.match(r"^([A-Za-z-]*)(.*)$", part)
        head = m.group(1) if m else ""
        if head:
            prefix = head
        elif prefix:
            part = prefix + part
        for name in expand_interfaces(part):
            out.append(_canonical(name))
    return out


def _seconds_to_ms(text: str) -> int | None:
    if text == "auto":
        return None
    value = Decimal(text) * 1000
    if not value.is_finite() or not 0 <= value <= 3_600_000:
        raise ValueError(f"time out of range {text!r}")
    return int(value.to_integral_value())


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.hostname: str | None = None
        self.dscp: dict[str, int] = {}
        self.wd: dict[str, Any] = {}
        self.warnings: list[dict[str, Any]] = []
        self.sources: dict[str, Source] = {}  # a LazySources once a port inherits a profile (from_profile)
        self.profiles: dict[str, _Block] = {}
        self.interfaces: dict[str, _Block] = {}
        self.all_off: tuple[int, str] | None = None
        self.ecmp_ip: _Val | None = None
        self.dlb: tuple[int, str] | None = None
        self.ecmp_ipv6: _Val | None = None
        self.views: dict[int, tuple[dict[str, Any] | None, list[tuple[str, list[int], str]]]] = {}
        #: Source objects shared by the ports of one range (the same lines): built once, never modified
        self.shared: dict[tuple, Any] = {}
        #: equal for two ports the profile fast path gave equal settings (validated once)
        self.port_keys: dict[str, tuple] = {}
        #: ports whose sources are one lazy group (``from_profile``)
        self.grouped: set[str] = set()

    # ------------------------------------------------------------------ helpers
    def warn(self, msg: str, line: int | None, code: str = _WARN_PARSE) -> None:
        self.warnings.append({"line": line, "message": msg, "code": code})

    # ------------------------------------------------------------------ main loop
    def run(self) -> DeviceState:
        blocks: list[_Block] | None = None  # current interface/profile block(s)
        queues: list[dict[str, _Val]] | None = None  # current queue sub-block(s)
        queue_indent = -1
        skip_queue = False
        for n, raw in enumerate(self.text.split("\n"), start=1):
            s = raw.strip()
            if not s or s[0] == "!":
                continue
            try:
                if not raw[0].isspace():  # indent 0 (isspace: what strip() removes)
                    queues, skip_queue, queue_indent = None, False, -1
                    blocks = self.top_line(s, n)
                    continue
                if blocks is None:
                    continue
                indent = len(raw) - len(raw.lstrip())
                if queue_indent >= 0:
                    if indent > queue_indent:
                        if not skip_queue and queues is not None:
                            self.queue_line(queues, s, n)
                        continue
                    queues, skip_queue, queue_indent = None, False, -1
                toks = s.split()
                t0 = toks[0]
                if t0 in _QUEUE_KW:
                    queue_indent = indent
                    if t0 == "mc-tx-queue":
                        skip_queue, queues = True, None
                        continue
                    tc = int(toks[1])
                    if len(toks) != 2 or not 0 <= tc <= 7:
                        raise ValueError("queue number 0-7 expected")
                    queues = [b.queues.setdefault(tc, {}) for b in blocks]
                    continue
                self.block_line(blocks, toks, s, n)
            except (ValueError, IndexError, InvalidOperation, OverflowError, RangeError) as exc:
                self.warn(f"cannot read {s!r}: {exc}", n)
        return self.finish()

    # ------------------------------------------------------------------ top level
    def top_line(self, s: str, n: int) -> list[_Block] | None:
        if s[:18] == "interface Ethernet" and (num := s[18:]).isdigit() and num.isascii():
            # one plain port (most lines of a running-config): what top_line_general makes of it
            name = s[10:]
            blk = self.interfaces.get(name)
            if blk is None:
                blk = self.interfaces[name] = _Block(n, s)
            return [blk]
        return self.top_line_general(s, n)

    def top_line_general(self, s: str, n: int) -> list[_Block] | None:
        toks = s.split()
        t0 = toks[0]
        if t0 == "interface":
            names = _interface_names(s[len("interface") :])
            out = []
            for name in names:
                if _RANGE_LEFT.search(name.replace("Port-Channel", "")):
                    self.warn(f"interface range {name!r} not understood", n)
                    continue
                if not name.startswith(("Ethernet", "Port-Channel")) or "." in name:
                    continue  # SVIs, loopbacks, management, sub-interfaces: not RoCE ports
                blk = self.interfaces.get(name)
                if blk is None:
                    blk = self.interfaces[name] = _Block(n, s)
                out.append(blk)
            return out or None
        if t0 == "hostname" and len(toks) == 2:
            self.hostname = toks[1]
            _at(self.sources, "hostname", (n,), s)
            return None
        if t0 == "qos":
            if len(toks) >= 3 and toks[1] == "profile":
                name = s.split(None, 2)[2]
                blk = self.profiles.get(name)
                if blk is None:
                    blk = self.profiles[name] = _Block(n, s)
                return [blk]
            self.qos_global(toks, s, n)
            return None
        if t0 == "priority-flow-control":
            self.pfc_global(toks, s, n)
            return None
        if t0 == "ip" and len(toks) > 1 and toks[1] == "load-sharing":
            self.load_sharing(toks, s, n)
            return None
        if t0 == "ip" and toks[1:6] == ["hardware", "fib", "load-balance", "distribution", "dynamic"]:
            # AVD ip_hardware.fib.load_balance_distribution.dynamic (eos/ip-hardware.j2); flow-set-size N
            # sizes the DLB groups and leaves the mode as it is
            self.dlb = (n, s)
            return None
        if t0 == "load-balance":
            self.warn(
                "EOS 'load-balance' profiles (Sand family hashing) are not modelled", n, _WARN_UNSUPPORTED
            )
            return None
        return None

    def qos_global(self, toks: list[str], s: str, n: int) -> None:
        if toks[1] == "map":
            kind = toks[2]
            to = toks.index("to")
            target = toks[to + 1]
            if kind == "dscp" and target == "traffic-class":
                tc = int(toks[to + 2])
                rest = toks[to + 3 :]
                if rest and not (len(rest) == 2 and rest[0] == "drop-precedence"):
                    raise ValueError("unexpected words after the traffic class")
                dscps = [int(d) for tok in toks[3:to] for d in _expand(tok)]
                if not dscps or not 0 <= tc <= 7 or any(not 0 <= d <= 63 for d in dscps):
                    raise ValueError("DSCP 0-63 and traffic class 0-7 expected")
                sources, src = self.sources, Source.of([n], s)  # one Source per line (replaced, never modified)
                for d in dscps:
                    self.dscp[str(d)] = tc
                    key = f"dscp_to_tc.{d}"
                    if key in sources:
                        _at(sources, key, (n,), s)
                    else:
                        sources[key] = src
                return
            if kind == "traffic-class" and target == "tx-queue":
                q = int(toks[to + 2])
                tcs = [int(t) for tok in toks[3:to] for t in _expand(tok)]
                if any(tc != q for tc in tcs):
                    self.warn(
                        "traffic class mapped to a different tx-queue; roceconf assumes TC N = queue N",
                        n,
                        _WARN_UNSUPPORTED,
                    )
                return
            if kind == "traffic-class":
                return  # rewrite maps (TC -> DSCP / CoS marking): not classification
            self.warn(f"'qos map {kind}' is not modelled", n, _WARN_UNSUPPORTED)
            return
        if toks[1] in ("rewrite", "trust"):
            return
        if toks[1] == "random-detect":
            self.warn("global ECN option not modelled", n, _WARN_UNSUPPORTED)
            return
        self.warn("unrecognised global qos line", n)

    def pfc_global(self, toks: list[str], s: str, n: int) -> None:
        rest = toks[1:]
        wd = self.wd
        if rest == ["all", "off"]:
            self.all_off = (n, s)
            return
        if rest[:2] == ["pause", "watchdog"]:
            r = rest[2:]
            if len(r) == 3 and r[0] == "default":
                ms = _seconds_to_ms(r[2])
                field = {
                    "timeout": "detection_ms",
                    "recovery-time": "restoration_ms",
                    "polling-interval": "polling_ms",
                }.get(r[1])
                if field is None:
                    raise ValueError("timeout | recovery-time | polling-interval expected")
                wd[field] = ms
                _at(self.sources, f"pfc_watchdog.{field}", (n,), s)
                return
            if len(r) == 2 and r[0] == "action":
                if r[1] == "drop":
                    wd["action"] = "drop"
                    _at(self.sources, "pfc_watchdog.action", (n,), s)
                elif r[1] in ("no-drop", "errdisable"):
                    self.warn(
                        f"watchdog action {r[1]!r} has no confirmed vendor-neutral equivalent",
                        n,
                        _WARN_UNSUPPORTED,
                    )
                else:
                    raise ValueError("drop | no-drop | errdisable expected")
                return
            if r[:1] in (["override"], ["hardware"]):
                self.warn("PFC watchdog option not modelled", n, _WARN_UNSUPPORTED)
                return
        self.warn("unrecognised global priority-flow-control line", n)

    def load_sharing(self, toks: list[str], s: str, n: int) -> None:
        if len(toks) >= 5 and toks[2] == "trident" and toks[3] == "fields" and toks[4] in ("ip", "ipv6"):
            fields = set()
            for kw in toks[5:]:
                f = _HASH_KW.get(kw)
                if f is None:
                    self.warn(f"hash field {kw!r} not modelled", n, _WARN_UNSUPPORTED)
                    continue
                fields.add(f)
            val = (sorted(fields), n, s)
            if toks[4] == "ip":
                self.ecmp_ip = val
            else:
                self.ecmp_ipv6 = val
            return
        self.warn("'ip load-sharing' form not modelled (hash seed syntax unconfirmed)", n, _WARN_UNSUPPORTED)

    # ------------------------------------------------------------------ blocks
    def block_line(self, blocks: list[_Block], toks: list[str], s: str, n: int) -> None:
        t0 = toks[0]
        neg = t0 == "no"
        if neg:
            toks = toks[1:]
            if not toks:
                return
            t0 = toks[0]
        val: _Val
        if t0 == "qos":
            if toks[1:2] == ["trust"]:
                if neg:
                    val = ("none", n, s)
                elif len(toks) == 3 and toks[2] in _TRUST:
                    val = (_TRUST[toks[2]], n, s)
                else:
                    raise ValueError("'qos trust dscp|cos' expected")
                for b in blocks:
                    b.trust = val
                return
            if toks[1:2] in (["cos"], ["dscp"]):
                return  # default marking of untrusted traffic: not modelled
            self.warn("unrecognised qos line", n)
            return
        if t0 == "priority-flow-control":
            r = toks[1:]
            if neg and not r:
                val = (False, n, s)
                for b in blocks:
                    b.pfc_on = val
                return
            if r in (["on"], ["mode", "on"]) and not neg:
                val = (True, n, s)
                for b in blocks:
                    b.pfc_on = val
                return
            if r in (["off"], ["mode", "off"]) and not neg:
                val = (False, n, s)
                for b in blocks:
                    b.pfc_on = val
                return
            if len(r) == 3 and r[0] == "priority" and r[2] in ("no-drop", "drop") and not neg:
                p = int(r[1])
                if not 0 <= p <= 7:
                    raise ValueError("priority 0-7 expected")
                val = (r[2] == "no-drop", n, s)
                for b in blocks:
                    b.prio[p] = val
                return
            if r == ["pause", "watchdog"]:
                val = (not neg, n, s)
                for b in blocks:
                    b.wd = val
                return
            if r[:3] == ["pause", "watchdog", "port"]:
                self.warn("per-port PFC watchdog action/timers are not modelled", n, _WARN_UNSUPPORTED)
                return
            self.warn("unrecognised priority-flow-control line", n)
            return
        if t0 == "service-profile":
            val = (s.split(None, 1)[1], n, s)
            for b in blocks:
                b.profile = val
            return
        if t0 == "mtu":
            if neg:
                return
            mtu = int(toks[1])
            val = (mtu, n, s)
            for b in blocks:
                b.mtu = val
            return
        if t0 == "flowcontrol":
            if len(toks) == 3 and toks[1] in ("send", "receive") and toks[2] in ("on", "off", "desired"):
                val = (toks[2] != "off", n, s)
                for b in blocks:
                    b.fc[toks[1]] = val
                return
            self.warn("unrecognised flowcontrol line", n)
            return
        if t0 == "service-policy" and "qos" in toks:
            self.warn("classification by a QoS policy-map is not modelled", n, _WARN_UNSUPPORTED)
            return
        if t0 == "l2" and toks[1:2] == ["mtu"]:
            self.warn("'l2 mtu' is not modelled (roceconf reads the L3 'mtu')", n, _WARN_UNSUPPORTED)
            return
        if t0 in _ROCE_WORDS:
            self.warn("unrecognised RoCE-related line", n)

    def queue_line(self, queues: list[dict[str, _Val]], s: str, n: int) -> None:
        toks = s.split()
        t0 = toks[0]
        if t0 == "priority" and toks[1:] == ["strict"]:
            val: _Val = ("strict", n, s)
            key = "mode"
        elif t0 == "no" and toks[1:] == ["priority"]:
            val, key = ("dwrr", n, s), "mode"
        elif t0 == "bandwidth" and len(toks) == 3 and toks[1] == "percent":
            pct = int(toks[2])
            if not 1 <= pct <= 100:
                raise ValueError("percent 1-100 expected")
            val, key = (pct, n, s), "bw"
        elif t0 == "bandwidth":
            self.warn("guaranteed bandwidth is not modelled", n, _WARN_UNSUPPORTED)
            return
        elif t0 == "random-detect":
            if toks[1:2] == ["drop"]:
                self.warn("WRED drop profile (not ECN) is not modelled", n, _WARN_UNSUPPORTED)
                return
            if toks[1:] == ["ecn", "count"]:
                return
            m = _ECN_RE.match(s)
            if m is None:
                self.warn("unrecognised random-detect line", n)
                return
            lo_u, hi_u = _SIZE_UNIT.get(m.group(2)), _SIZE_UNIT.get(m.group(4))
            prob = int(m.group(5)) if m.group(5) else None
            if prob is not None and not 1 <= prob <= 100:
                raise ValueError("max-mark-probability 1-100 expected")
            if lo_u is None or hi_u is None:
                self.warn(
                    f"ECN thresholds in {m.group(2)}/{m.group(4)} cannot be converted to bytes; kept unknown",
                    n,
                    _WARN_UNSUPPORTED,
                )
                ecn = (None, None, prob)
            else:
                ecn = (int(m.group(1)) * lo_u, int(m.group(3)) * hi_u, prob)
            val, key = (ecn, n, s), "ecn"
        elif t0 in _IGNORED_QUEUE:
            return
        else:
            self.warn("unrecognised line in a tx-queue block", n)
            return
        for q in queues:
            q[key] = val

    def source(self, lines: tuple[int, ...], text: str) -> Source:
        """One Source object per distinct (lines, text): the ports of a range share theirs."""
        key = (lines, text)
        src = self.shared.get(key)
        if src is None:
            src = self.shared[key] = Source.of(list(lines), text)
        return src

    # ------------------------------------------------------------------ merge
    def finish(self) -> DeviceState:
        interfaces: dict[str, dict[str, Any]] = {}
        used: set[str] = set()
        for name, blk in self.interfaces.items():
            prof: _Block | None = None
            if blk.profile is not None:
                pname = blk.profile[0]
                prof = self.profiles.get(pname)
                if prof is None:
                    self.warn(f"service-profile {pname!r} is not defined", blk.profile[1], "UNDEFINED")
                else:
                    used.add(pname)
            itf = self.effective(name, blk, prof)
            if itf is not None:
                interfaces[name] = itf
                if name not in self.grouped:
                    self.sources[f"interfaces.{name}"] = self.source((blk.line,), blk.text)
        for pname, prof in self.profiles.items():
            if pname not in used:
                self.warn(
                    f"qos profile {pname!r} is defined but not attached to any interface", prof.line, "UNUSED"
                )
        if self.all_off is not None:
            ln, text = self.all_off
            for name, itf in interfaces.items():
                itf["pfc"]["enabled"] = False
                _at(self.sources, f"interfaces.{name}.pfc", (ln,), text)
        ecmp: dict[str, Any] = {}
        if self.dlb is not None:
            ecmp["dynamic"] = "dynamic"
            _at(self.sources, "ecmp.dynamic", (self.dlb[0],), self.dlb[1])
        chosen = self.ecmp_ip or self.ecmp_ipv6
        if chosen is not None:
            ecmp["fields"] = chosen[0]
            _at(self.sources, "ecmp.fields", (chosen[1],), chosen[2])
            if self.ecmp_ip and self.ecmp_ipv6:
                v4 = set(self.ecmp_ip[0])
                v6 = set(self.ecmp_ipv6[0]) - {"flow_label"}
                if v4 != v6:
                    self.warn("IPv4 and IPv6 hash fields differ; reporting the IPv4 set", self.ecmp_ipv6[1])
        # One validation pass over plain data is far cheaper than thousands of small model objects; the ports
        # of a range (equal settings) are validated once: each port gets its own Interface object, sharing
        # the read-only sub-objects (PFC, ECN, scheduling) with the other ports of equal settings.
        models: dict[str, Interface] = {}
        first: dict[str, Interface] = {}
        keys = self.port_keys
        for name, itf in interfaces.items():
            key = keys.get(name) or repr(itf)
            model = first.get(key)
            if model is None:
                models[name] = first[key] = Interface.model_validate(itf)
            else:
                models[name] = _copy_port(model)
        return DeviceState.model_validate(
            {
                "platform": NAME,
                "hostname": self.hostname,
                "dscp_to_tc": self.dscp,
                "interfaces": models,
                "pfc_watchdog": self.wd,
                "ecmp": ecmp,
                "warnings": self.warnings,
                "sources": self.sources,
            }
        )

    def effective(self, name: str, blk: _Block, prof: _Block | None) -> dict[str, Any] | None:
        if prof is not None and blk.profile is not None and not blk.has_qos():
            return self.from_profile(name, blk, prof, blk.profile[1])
        return self.merge(name, blk, prof)

    def from_profile(self, name: str, blk: _Block, prof: _Block, attach_line: int) -> dict[str, Any] | None:
        """Fast path (the common case): the port only attaches a profile, plus MTU / flow control.

        Its sources are registered as one lazy group (``LazySources.inherit``): the profile's entries (one
        table per profile, shared by its ports; lines: the profile line and the attach line), then the
        port's own ``.mtu``, ``.link_pause`` and the port entry itself, in the order the eager form wrote
        them. Source objects are built only for the entries that are looked at."""
        view = self.views.get(id(prof))
        if view is None:
            scratch = _Parser("")
            fields = scratch.merge("", _Block(0, ""), prof)
            suffixes = tuple(
                (path[len("interfaces.") :], tuple(v.lines), v.text) for path, v in scratch.sources.items()
            )
            view = self.views[id(prof)] = (fields, suffixes)
        fields, suffixes = view
        mtu = pause = None
        own: list[tuple[str, tuple[int, ...], str]] = []
        if blk.mtu is not None:
            mtu = blk.mtu[0]
            own.append((".mtu", (blk.mtu[1],), blk.mtu[2]))
        if blk.fc:
            fc = blk.fc.values()
            pause = any(v[0] for v in fc)
            lines = [v[1] for v in fc]
            own.append((".link_pause", tuple(sorted(set(lines))), next(iter(fc))[2]))
        self.port_keys[name] = (id(view), mtu, pause)
        if fields is None and mtu is None and pause is None:
            return None  # nothing stated: no entries (an empty profile has no table either)
        own.append(("", (blk.line,), blk.text))  # the port itself (finish() leaves it to the group)
        sources = self.sources
        if type(sources) is not LazySources:
            sources = self.sources = LazySources(sources)
        sources.inherit(f"interfaces.{name}", attach_line, suffixes, tuple(own))
        self.grouped.add(name)
        if fields is None:
            return {"mtu": mtu, "link_pause": pause}
        out = dict(fields)
        out["pfc"] = dict(fields["pfc"])
        out["mtu"] = mtu
        out["link_pause"] = pause
        return out

    def merge(self, name: str, blk: _Block, prof: _Block | None) -> dict[str, Any] | None:
        sources = self.sources
        base = f"interfaces.{name}"
        attach_line = blk.profile[1] if blk.profile is not None else None

        def pick(direct: _Val | None, inherited: _Val | None, path: str) -> Any:
            if direct is not None:
                _at(sources, path, (direct[1],), direct[2])
                return direct[0]
            if inherited is not None:
                lines = (inherited[1],) if attach_line is None else (inherited[1], attach_line)
                _at(sources, path, lines, inherited[2])
                return inherited[0]
            return None

        mtu = pick(blk.mtu, None, f"{base}.mtu")
        trust = pick(blk.trust, prof.trust if prof else None, f"{base}.trust")
        wd = pick(blk.wd, prof.wd if prof else None, f"{base}.pfc_watchdog")
        enabled = pick(blk.pfc_on, prof.pfc_on if prof else None, f"{base}.pfc")
        if prof is not None and prof.prio:
            prio = dict(prof.prio)
            prio.update(blk.prio)
        else:
            prio = blk.prio
        no_drop = None
        if prio:
            no_drop = sorted(p for p, v in prio.items() if v[0])
            lines = [v[1] for v in prio.values()]
            if attach_line is not None and any(p not in blk.prio for p in prio):
                lines.append(attach_line)
            _at(sources, f"{base}.pfc", lines, next(iter(prio.values()))[2])
        pause = None
        if blk.fc:
            pause = any(v[0] for v in blk.fc.values())
            _at(
                sources, f"{base}.link_pause", [v[1] for v in blk.fc.values()], next(iter(blk.fc.values()))[2]
            )
        ecns: dict[str, dict[str, Any]] = {}
        scheds: dict[str, dict[str, Any]] = {}
        tcs = set(blk.queues)
        if prof is not None:
            tcs.update(prof.queues)
        for tc in sorted(tcs):
            dq = blk.queues.get(tc, _NO_QUEUE)
            pq = prof.queues.get(tc, _NO_QUEUE) if prof is not None else _NO_QUEUE
            ecn = pick(dq.get("ecn"), pq.get("ecn"), f"{base}.ecn.{tc}")
            if ecn is not None:
                ecns[str(tc)] = {"min_bytes": ecn[0], "max_bytes": ecn[1], "probability": ecn[2]}
            mode = pick(dq.get("mode"), pq.get("mode"), f"{base}.scheduling.{tc}")
            bw = pick(dq.get("bw"), pq.get("bw"), f"{base}.scheduling.{tc}")
            if mode is not None or bw is not None:
                scheds[str(tc)] = {"mode": mode, "bandwidth_percent": bw}
        if (
            mtu is None
            and trust is None
            and wd is None
            and enabled is None
            and no_drop is None
            and pause is None
            and not ecns
            and not scheds
        ):
            return None
        return {
            "mtu": mtu,
            "trust": trust,
            "pfc": {"enabled": enabled, "no_drop": no_drop},
            "pfc_watchdog": wd,
            "link_pause": pause,
            "ecn": ecns,
            "scheduling": scheds,
        }


_NO_QUEUE: dict[str, _Val] = {}
_set = object.__setattr__


def _copy_port(model: Interface) -> Interface:
    """``model.model_copy()`` (a distinct Interface sharing the sub-objects) without pydantic's generic
    ``__copy__`` (copy.copy of each attribute dictionary): the parser's Interface objects have no extra and
    no private attributes."""
    new = object.__new__(Interface)
    _set(new, "__dict__", model.__dict__.copy())
    _set(new, "__pydantic_extra__", None)
    _set(new, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    _set(new, "__pydantic_private__", None)
    return new


def _at(sources: dict[str, Source], path: str, lines: tuple[int, ...] | list[int], text: str) -> None:
    """Record source lines as plain data (validated once when the DeviceState is built)."""
    old = sources.get(path)
    if old is None:
        sources[path] = Source.of(sorted(set(lines)) if len(lines) > 1 else list(lines), text)
    else:  # possibly shared with other ports: replaced, never modified
        sources[path] = Source.of(sorted(set(old.lines).union(lines)), old.text or text)


def _expand(tok: str) -> list[int]:
    if tok.isdigit():
        return [int(tok)]
    return expand_ints(tok)


def parse(text: str) -> DeviceState:
    """Arista EOS running-config (or rendered config) -> DeviceState. Never raises."""
    try:
        if not isinstance(text, str):
            text = str(text)
        return _Parser(text).run()
    except Exception as exc:  # last resort: a parser must never raise
        st = DeviceState(platform=NAME)
        st.warn(f"parser failure: {type(exc).__name__}: {exc}", None, _WARN_PARSE)
        return st


def _hostname_lines(text: str) -> list[re.Match[str]]:
    """``list(_HOSTNAME_LINE.finditer(text))``, the candidates found by ``str.find`` (the regex engine would
    try every position of the text; ``^`` matches at the start and after each line break)."""
    out = []
    nxt = text.find("\nhostname")
    at = 0 if text.startswith("hostname") else nxt + 1 if nxt >= 0 else -1
    while at >= 0:
        m = _HOSTNAME_LINE.match(text, at)
        if m is not None:
            out.append(m)
        nxt = text.find("\nhostname", at if m is None else m.end())
        at = nxt + 1 if nxt >= 0 else -1
    return out


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse(text)`` for the configs of one audit, sharing the work between devices that differ only by
    their hostname (the leaves of one intent entry).

    The hostname line is the only part of the parse that depends on the hostname, and it contributes only
    ``hostname`` and ``sources["hostname"]`` (``_Parser.top_line``: no block, no warning; the lines indented
    under it are ignored). So two texts that are equal outside one such line parse to states equal outside
    those two fields: the text with that line cut out (the line number stays, the lines before it are part
    of the key) is the key, and a later text gets a copy of the first one's state with its own hostname.
    The copies share their values (read-only). Texts without exactly one hostname line are parsed."""
    if not isinstance(text, str):
        return parse(text)
    found = [
        (m, toks) for m in _hostname_lines(text) if len(toks := m.group().split()) == 2
    ]  # the lines top_line reads as a hostname (split on "\n" like the parser: `.` matches "\r")
    if len(found) != 1 or found[0][1][0] != "hostname":
        return parse(text)  # none, or several (the parse merges them)
    m, (_, name) = found[0]
    start, stop, line = m.start(), m.end(), m.group().strip()
    key = (text[:start], text[stop:])
    base = memo.get(key)
    if base is None:
        state = parse(text)
        if state.hostname == name:  # not a parser failure
            memo[key] = state
        return state
    return base.named(name, text.count("\n", 0, start) + 1, line)
