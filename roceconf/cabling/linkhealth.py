"""Link health (RC510-RC517) and ECMP balance (RC520) from link counters sampled twice or more, like ``health``.

Each end of every intent link is judged on eight checks, each ``ok``, ``finding``, ``unknown`` or ``n/a`` (with
the reason): ``fcs`` (FCS/CRC errors, RC510), ``fec`` (uncorrectable FEC codewords, RC511) and ``flaps``
(carrier transitions, RC512), judged on the rates between consecutive samples of that port, and ``speed``
(RC513): the operational speed read (the last sample holding it) against the intent's port speed, or against
the far end's speed read where the intent gives the two ends different speeds; the optics (DOM) ``rx_power``
(RC514), ``tx_power`` (RC515) and ``temperature`` (RC516): the reading of the last sample holding it against the
module's own alarm / warning thresholds in that sample (past a warning threshold: a warning, past an alarm
threshold: an error; a threshold missing: unknown); and ``fec_mode`` (RC517): the FEC mode read against the far
end's (``auto`` at either end is unknown: the mode negotiated is not in the answers).

A check whose counter the platform never reads (``CounterSpec.link_reads``: no sourced counter) is ``n/a``:
not observable there, said once per platform and check (RC519, :func:`not_observable`), and left out of the
end's status. A check the platform does read but that could not be judged - the device not read, a single
sample, the counter missing from the answers, invalid times, a counter that went backwards - is ``unknown``,
never ``ok``. An end is ``fail`` on a finding, ``ok`` when every observable check is ok, ``n/a`` when it has no
observable check at all, else ``unknown``.

ECMP: the tiers come from the intent's links (hosts are tier 0, a switch linked to a host tier 1, a switch
linked to tier 1 only tier 2, ...). The links of a switch toward the next tier up form its ECMP group; the
bytes each member sends (``tx_octets``) per second are compared (max / mean and coefficient of variation).
A group is ``n/a`` where the platform does not read bytes sent; a member not read makes it ``unknown``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from roceconf import platforms
from roceconf.cabling.rules import (
    DEFAULT,
    R_ECMP,
    R_FCS,
    R_FEC,
    R_FEC_MODE,
    R_FLAP,
    R_NOT_OBSERVABLE,
    R_RX_POWER,
    R_SPEED,
    R_TEMPERATURE,
    R_TX_POWER,
    LinkThresholds,
)
from roceconf.counters.model import FEC_MODES, NO_DOM, OPTICS_KEYS, OPTICS_LEVELS, PortCounters, Snapshot
from roceconf.intent import Fabric
from roceconf.intent.rules import Rule
from roceconf.names import natural_key

#: check -> (link counter, rule)
CHECKS: dict[str, tuple[str, Rule]] = {
    "fcs": ("fcs_errors", R_FCS),
    "fec": ("fec_uncorrectable", R_FEC),
    "flaps": ("carrier_transitions", R_FLAP),
    "speed": ("speed_bps", R_SPEED),
    "rx_power": ("rx_power_dbm", R_RX_POWER),
    "tx_power": ("tx_power_dbm", R_TX_POWER),
    "temperature": ("temperature_c", R_TEMPERATURE),
    "fec_mode": ("fec_mode", R_FEC_MODE),
}
#: the optics checks (RC514-RC516): the reading of the last sample holding it against the module's own thresholds
OPTICS_CHECKS = ("rx_power", "tx_power", "temperature")
#: the checks judged on rates (speed is a gauge: the value read, compared with the intent and the far end)
RATE_CHECKS = ("fcs", "fec", "flaps")
#: the counter the ECMP check (RC520) needs
ECMP_COUNTER = "tx_octets"
#: the statuses of a check or an ECMP group, in the order reports list them
STATUSES = ("ok", "finding", "unknown", "n/a")
NA = "n/a"


@cache
def link_reads(platform: str) -> frozenset[str]:
    """The link counters the platform's parser reads (its ``CounterSpec.link_reads``)."""
    return platforms.counters(platform).link_reads


def na_reason(platform: str, counter: str) -> str:
    return f"not observable on {platform}: no sourced counter ({counter} is not read; docs/cabling.md)"


@dataclass(slots=True)
class Check:
    status: str  # ok | finding | unknown | n/a
    #: the highest rate per second over the intervals (flaps: the transitions counted), None when unknown
    value: float | None = None
    reason: str | None = None
    #: the FEC mode read (``fec_mode`` check: ``rs``, ``fc``, ``off``, ``llrs``, ``auto``), None otherwise
    mode: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"status": self.status, "value": None if self.value is None else round(self.value, 6),
               "reason": self.reason}
        if self.mode is not None:
            out["mode"] = self.mode
        return out


@cache
def _na(platform: str, counter: str) -> Check:
    """The n/a check of a counter the platform never reads: one shared object per platform and counter (a
    fabric has many ends of one platform; nothing changes a check once made)."""
    return Check(NA, reason=na_reason(platform, counter))


@dataclass(slots=True)
class EndHealth:
    device: str
    port: str
    checks: dict[str, Check] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``fail`` on any finding, ``ok`` when every observable check is ok, ``n/a`` when no check is
        observable on the platform, else ``unknown``."""
        seen = other = False
        for c in self.checks.values():
            st = c.status
            if st == "finding":
                return "fail"
            if st != NA:
                seen = True
                other = other or st != "ok"
        if not seen:
            return NA
        return "unknown" if other else "ok"

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "checks": {k: c.to_dict() for k, c in self.checks.items()}}


@dataclass
class EcmpGroup:
    device: str
    tier: int
    #: member port -> (peer device, bytes sent per second or None when not read)
    members: dict[str, tuple[str, float | None]]
    status: str = "unknown"  # ok | finding | unknown | n/a
    reason: str | None = None
    max_over_mean: float | None = None
    cv: float | None = None

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 6)

        return {
            "device": self.device, "tier": self.tier, "status": self.status, "reason": self.reason,
            "max_over_mean": r(self.max_over_mean), "cv": r(self.cv),
            "members": [{"port": p, "peer": peer, "tx_bytes_per_second": r(v)}
                        for p, (peer, v) in self.members.items()],
        }


@dataclass
class LinkFinding:
    rule: Rule
    device: str
    port: str | None
    message: str
    observed: str | None = None
    #: the finding's own severity where it is not the rule's (an optics warning threshold crossed: warning)
    severity: str | None = None


@dataclass
class NotObservable:
    """RC519: a check no end (or ECMP group) of the platform can be judged on: the platform reads no sourced
    counter for it. One per platform and check."""

    platform: str
    check: str  # fcs | fec | flaps | speed | fec_mode | ecmp
    counter: str
    #: devices of the report with an end (or ECMP group) of the platform
    devices: list[str]
    #: ends (ECMP: groups) concerned
    count: int

    @property
    def message(self) -> str:
        what = "ECMP group(s)" if self.check == "ecmp" else "link end(s)"
        return (f"{self.check} is not observable on {self.platform}: no sourced counter ({self.counter} is not "
                f"read); n/a on {self.count} {what} of {', '.join(self.devices[:5])}"
                + (f" and {len(self.devices) - 5} more device(s)" if len(self.devices) > 5 else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"rule": R_NOT_OBSERVABLE.id, "severity": R_NOT_OBSERVABLE.severity, "platform": self.platform,
                "check": self.check, "counter": self.counter, "devices": self.devices, "count": self.count,
                "message": self.message}


@dataclass
class LinkHealth:
    ends: dict[tuple[str, str], EndHealth]
    groups: list[EcmpGroup]
    findings: list[LinkFinding]
    #: device -> why its counters could not be read
    unread: dict[str, str]
    #: RC519: the checks not observable, per platform and check
    not_observable: list[NotObservable] = field(default_factory=list)


def _ports(snaps: list[Snapshot], port: str) -> list[PortCounters | None]:
    """The port's counters in each sample (None where a sample does not hold the port)."""
    return [s.ports.get(port) for s in snaps]


def _rates(snaps: list[Snapshot], port: str, counter: str,
           pcs: list[PortCounters | None] | None = None) -> tuple[list[tuple[float, float]], bool, bool]:
    """([(rate per second, seconds)] over consecutive samples that both read the counter, any read at all,
    any reset). ``pcs``: the port's counters in each sample (``_ports``), where already looked up."""
    if pcs is None:
        pcs = _ports(snaps, port)
    out: list[tuple[float, float]] = []
    seen = reset = False
    pa = pcs[0] if pcs else None
    va = pa.link.get(counter) if pa is not None else None
    for i in range(1, len(pcs)):
        pb = pcs[i]
        vb = pb.link.get(counter) if pb is not None else None
        if va is None or vb is None:
            seen = seen or va is not None or vb is not None
            va = vb
            continue
        seen = True
        t = snaps[i - 1].time_of(port)
        dt = snaps[i].time_of(port) - t
        if math.isfinite(t) and math.isfinite(dt) and dt > 0:
            if vb < va:
                reset = True
            else:
                out.append(((vb - va) / dt, dt))
        va = vb
    return out, seen, reset


#: the ok check of a rate that is zero (no error, no transition: the common case), shared by every such end
_OK_ZERO = Check("ok", 0.0)


def _ok(v: float) -> Check:
    return _OK_ZERO if v == 0 and math.copysign(1.0, v) > 0 else Check("ok", v)


def _check(name: str, snaps: list[Snapshot], port: str, platform: str, th: LinkThresholds,
           pcs: list[PortCounters | None] | None = None) -> Check:
    counter, _rule = CHECKS[name]
    if counter not in link_reads(platform):
        return _na(platform, counter)
    if len(snaps) < 2:
        return Check("unknown", reason=f"{len(snaps)} sample(s): rates need two")
    rates, seen, reset = _rates(snaps, port, counter, pcs)
    if not rates:
        if reset:
            why = f"{counter} went backwards (device restarted or counters cleared)"
        elif seen:
            why = f"{counter} was not read in two consecutive samples with valid times"
        else:
            why = f"{counter} missing from {platform}'s answers for this port (the platform reads it)"
        return Check("unknown", reason=why)
    if name == "flaps":
        n = sum(r * dt for r, dt in rates)
        return Check("finding", n) if n > th.flaps else _ok(n)
    top = max(r for r, _dt in rates)
    limit = th.fcs_per_second if name == "fcs" else th.fec_uncorrectable_per_second
    return Check("finding", top) if top > limit else _ok(top)


def _last_link(pcs: list[PortCounters | None], counter: str) -> int | None:
    """The link counter in the last sample that holds it (``speed_bps``: a zero is not held), None when none
    does."""
    for pc in reversed(pcs):
        if pc is not None:
            v = pc.link.get(counter)
            if v is not None and (v or counter != "speed_bps"):
                return v
    return None


def _gbps(bps: float) -> str:
    return f"{bps / 1e9:g} Gb/s"


#: speed (bits/s) -> the ok check of an end running at it (a fabric runs at a few speeds; bounded)
_OK_SPEED: dict[int, Check] = {}


def _speed(mine: int | None, platform: str, want_gbps: int | None, far_gbps: int | None,
           far: int | None) -> Check:
    """RC513 on one end: its speed read (``mine``) against the intent's for the port (``want_gbps``); where the
    intent gives the two ends different speeds (``far_gbps``), against the far end's speed as read (``far``)
    instead. ``value`` is the speed read, bits/s."""
    if "speed_bps" not in link_reads(platform):
        return _na(platform, "speed_bps")
    if mine is None:
        return Check("unknown", reason=f"speed_bps missing from {platform}'s answers for this port (the platform "
                                       "reads it where the port is up)")
    if want_gbps and far_gbps == want_gbps:
        ok = mine == want_gbps * 10**9
        why = None if ok else f"runs at {_gbps(mine)}, the intent says {want_gbps} Gb/s"
    elif far is not None:
        ok = mine == far
        why = None if ok else f"runs at {_gbps(mine)}, the far end at {_gbps(far)}"
    else:
        return Check("unknown", value=mine, reason="the intent gives the two ends different speeds and the far "
                                                   "end's speed was not read: nothing to compare with")
    if ok:
        got = _OK_SPEED.get(mine)
        if got is None:
            got = Check("ok", value=mine)
            if len(_OK_SPEED) < 64:
                _OK_SPEED[mine] = got
        return got
    if why and far is not None and far != mine and "far end" not in why:
        why += f" (the far end runs at {_gbps(far)})"
    return Check("finding", value=mine, reason=why)


#: FEC mode shown -> the ok check of an end in it (shared: a handful of modes)
_OK_MODE: dict[str | None, Check] = {}


def _fec_mode(mine: int | None, platform: str, far_platform: str | None, far: int | None) -> Check:
    """RC517 on one end: its FEC mode read (``mine``) against the far end's, as read. ``auto`` at either end is
    unknown: the answers give the mode configured (SONiC) or say the driver negotiates it (ethtool ``Auto``),
    not the mode the link runs in, so ``auto`` against an explicit mode can be a match or a mismatch. The far
    end on a platform that cannot show its mode: n/a (nothing to compare with; RC519 names that platform)."""
    if "fec_mode" not in link_reads(platform):
        return _na(platform, "fec_mode")
    shown = None if mine is None else FEC_MODES.get(mine, "?")
    if far_platform is not None and "fec_mode" not in link_reads(far_platform):
        return Check(NA, reason=f"the far end's FEC mode is not observable on {far_platform}: nothing to compare "
                                f"with (this end: {shown or 'not read'})", mode=shown)
    if mine is None:
        return Check("unknown", reason=f"fec_mode missing from {platform}'s answers for this port")
    if far is None:
        return Check("unknown", reason=f"this end {shown}, the far end's FEC mode was not read", mode=shown)
    if mine == 0 or far == 0:
        return Check("unknown", reason=f"this end {shown}, the far end {FEC_MODES.get(far, '?')}: auto is the "
                                       "mode negotiated, not one read", mode=shown)
    if mine == far:
        got = _OK_MODE.get(shown)
        if got is None:
            got = _OK_MODE[shown] = Check("ok", mode=shown)
        return got
    return Check("finding", reason=f"FEC {shown}, the far end FEC {FEC_MODES.get(far, '?')}", mode=shown)
#: optics check -> (what it is, unit) in messages
_OPTICS_WORDS = {"rx_power": ("received power", "dBm"), "tx_power": ("transmitted power", "dBm"),
                 "temperature": ("module temperature", "C")}
#: threshold level -> (words, severity of a reading past it); alarms first: the worse one crossed is reported
_LEVELS = (("high_alarm", "high alarm", "error", 1), ("low_alarm", "low alarm", "error", -1),
           ("high_warn", "high warning", "warning", 1), ("low_warn", "low warning", "warning", -1))
#: the optics check of a port whose module states it has no DOM (``NO_DOM``: a copper cable / DAC): n/a, never ok
_NO_DOM_CHECK = Check(NA, reason="not applicable (RC519): the module states it has no DOM to read (\"DOM is not "
                                 "supported\": a copper cable / DAC, or a module without diagnostics)")
#: optics check -> (its reading, the keys of its high alarm, low alarm, high warning, low warning thresholds)
_OPTICS_KEYS = {name: (CHECKS[name][0], *(OPTICS_KEYS[CHECKS[name][0]][lv[0]] for lv in _LEVELS))
                for name in OPTICS_CHECKS}


def _optics(pcs: list[PortCounters | None], platform: str, name: str) -> tuple[Check, str | None]:
    """RC514-RC516 on one end (``pcs``: its port's counters in each sample): the reading of the last sample
    holding it against the module's own thresholds of that sample; (check, severity of the finding or None).
    Past an alarm threshold: error, past a warning threshold: warning; no threshold crossed but one of the
    four missing: unknown (nothing to judge against). A module that states it has no DOM (``NO_DOM``, in the last
    sample with optics that lacks the reading): n/a; a reading missing without that statement: unknown."""
    reading, k_ha, k_la, k_hw, k_lw = _OPTICS_KEYS[name]
    if reading not in link_reads(platform):
        return _na(platform, reading), None
    got: dict[str, float] | None = None
    for pc in reversed(pcs):
        if pc is not None and pc.optics:
            if reading in pc.optics:
                got = pc.optics
                break
            if NO_DOM in pc.optics:  # the module's own statement: nothing to read, and nothing missing
                return _NO_DOM_CHECK, None
    if got is None:
        return Check("unknown", reason=f"{reading} missing from {platform}'s answers for this port (no transceiver, "
                                       "no DOM, or not read)"), None
    v = got[reading]
    ha, la, hw, lw = got.get(k_ha), got.get(k_la), got.get(k_hw), got.get(k_lw)
    if (ha is not None and la is not None and hw is not None and lw is not None
            and v <= ha and v >= la and v <= hw and v >= lw and la < ha and lw < hw):
        return Check("ok", v), None  # within all four thresholds (the common case)
    what, unit = _OPTICS_WORDS[name]
    keys = OPTICS_KEYS[reading]
    lane = got.get(keys["lane"])
    if lane is not None:
        what += f" (lane {lane:g})"
    if (ha is not None and la is not None and ha <= la) or (hw is not None and lw is not None and hw <= lw):
        # no window: a module that leaves its thresholds unset prints them all as 0 (napalm's recorded Nexus 3548
        # answer, Ethernet1/22: temperature 0.00 C, every threshold 0.00); judged against that it would be ok (or
        # past a 0 alarm), so it is unknown
        return Check("unknown", v, f"{what} read, the module's thresholds are not set (high alarm {ha:g} / low "
                                   f"alarm {la:g}, high warning {hw:g} / low warning {lw:g}): nothing to judge it "
                                   "against" if None not in (ha, la, hw, lw) else
                     f"{what} read, the module's thresholds leave no window (a high threshold at or below its low "
                     "one): nothing to judge it against"), None
    for (_level, words, severity, sign), t in zip(_LEVELS, (ha, la, hw, lw), strict=True):
        if t is not None and (v - t) * sign > 0:
            side = "above" if sign > 0 else "below"
            return Check("finding", v, f"{what} {v:g} {unit} is {side} the module's {words} threshold ({t:g} "
                                       f"{unit})"), severity
    missing = [lv for lv in OPTICS_LEVELS if keys[lv] not in got]
    if missing:
        # the reason names no value (it is the check's): the report counts unknown links by their reasons
        return Check("unknown", v, f"{what} read, the module's {', '.join(missing)} threshold(s) not read: "
                                   "nothing to judge it against"), None
    return Check("ok", v), None


def tiers(fab: Fabric) -> dict[str, int]:
    """Device -> tier from the intent's links: hosts 0, then one more per hop away from the hosts (the first
    tier a switch is reached at). Devices no link path reaches from a host have no tier."""
    nbrs: dict[str, set[str]] = {}
    for ln in fab.links:
        nbrs.setdefault(ln.a.device, set()).add(ln.b.device)
        nbrs.setdefault(ln.b.device, set()).add(ln.a.device)
    tier = {n: 0 for n, d in fab.devices.items() if d.is_host}
    edge = sorted(tier, key=natural_key)
    while edge:
        nxt = []
        for d in edge:
            for n in sorted(nbrs.get(d, ()), key=natural_key):
                if n not in tier and n in fab.devices and not fab.devices[n].is_host:
                    tier[n] = tier[d] + 1
                    nxt.append(n)
        edge = nxt
    return tier


def _mean_rate(snaps: list[Snapshot], port: str, counter: str) -> float | None:
    rates, _seen, _reset = _rates(snaps, port, counter)
    secs = sum(dt for _r, dt in rates)
    return sum(r * dt for r, dt in rates) / secs if secs > 0 else None


def _groups(fab: Fabric, snaps: dict[str, list[Snapshot]], unread: dict[str, str],
            th: LinkThresholds) -> list[EcmpGroup]:
    tier = tiers(fab)
    up: dict[str, dict[str, str]] = {}
    for ln in fab.links:
        for me, peer in ((ln.a, ln.b), (ln.b, ln.a)):
            t, tp = tier.get(me.device), tier.get(peer.device)
            if t is not None and tp is not None and t > 0 and tp == t + 1:
                up.setdefault(me.device, {})[me.port] = peer.device
    out = []
    for dev in sorted(up, key=natural_key):
        if dev not in snaps and dev not in unread:
            continue  # not asked for
        members = up[dev]
        if len(members) < 2:
            continue
        ss = snaps.get(dev, [])
        platform = fab.devices[dev].platform
        observable = ECMP_COUNTER in link_reads(platform)
        rates = {p: (members[p], _mean_rate(ss, p, ECMP_COUNTER) if ss and observable else None)
                 for p in sorted(members, key=natural_key)}
        g = EcmpGroup(dev, tier[dev], rates)
        vals = [v for _peer, v in rates.values()]
        missing = [p for p, (_peer, v) in rates.items() if v is None]
        if not observable:
            g.status, g.reason = NA, na_reason(platform, ECMP_COUNTER)
        elif dev in unread:
            g.reason = f"counters not read: {unread[dev]}"
        elif missing:
            g.reason = f"bytes sent not read on {', '.join(missing)}"
        else:
            nums = [v for v in vals if v is not None]
            mean = sum(nums) / len(nums)
            if mean < th.ecmp_min_bytes_per_second:
                g.reason = (f"mean {mean:.0f} B/s is below {th.ecmp_min_bytes_per_second:g} B/s: too little load "
                            "to judge the spread")
            else:
                g.max_over_mean = max(nums) / mean
                g.cv = math.sqrt(sum((v - mean) ** 2 for v in nums) / len(nums)) / mean
                bad = g.max_over_mean > th.ecmp_max_over_mean or g.cv > th.ecmp_cv
                g.status = "finding" if bad else "ok"
        out.append(g)
    return out


def judge(
    fab: Fabric,
    snaps: dict[str, list[Snapshot]],
    unread: dict[str, str],
    th: LinkThresholds = DEFAULT,
    polarization: Callable[[str], str | None] | None = None,
) -> LinkHealth:
    """The link checks of every end of every intent link whose device is in ``snaps`` or ``unread`` (device ->
    why its counters could not be read), and the ECMP groups. ``polarization(device)``: the static hash
    polarization result (``roceconf check``'s RC213) to mention in an ECMP finding, or None."""
    ends: dict[tuple[str, str], EndHealth] = {}
    findings: list[LinkFinding] = []
    devices = fab.devices
    #: (device, port) -> its port's counters in each sample; speed and FEC mode read (each read by both ends)
    pcs_of: dict[tuple[str, str], list[PortCounters | None]] = {}

    def pcs(device: str, port: str) -> list[PortCounters | None]:
        got = pcs_of.get((device, port))
        if got is None:
            got = pcs_of[(device, port)] = _ports(snaps[device], port)
        return got

    for ln in fab.links:
        for me, peer in ((ln.a, ln.b), (ln.b, ln.a)):
            key = (me.device, me.port)
            if key in ends or (me.device not in snaps and me.device not in unread):
                continue
            platform = devices[me.device].platform
            reads = link_reads(platform)
            eh = ends[key] = EndHealth(me.device, me.port)
            checks = eh.checks
            if me.device in unread:
                why = f"counters not read: {unread[me.device]}"
                for name, (counter, _rule) in CHECKS.items():
                    checks[name] = Check("unknown", reason=why) if counter in reads else _na(platform, counter)
                continue
            ss = snaps[me.device]
            mine = pcs(me.device, me.port)
            for name in RATE_CHECKS:
                checks[name] = _check(name, ss, me.port, platform, th, mine)
            far_speed = None
            if peer.device in snaps and peer.device in devices and "speed_bps" in link_reads(
                    devices[peer.device].platform):
                far_speed = _last_link(pcs(peer.device, peer.port), "speed_bps")
            checks["speed"] = _speed(_last_link(mine, "speed_bps"), platform, _want(fab, me), _want(fab, peer),
                                     far_speed)
            severity: dict[str, str | None] = {}
            for name in OPTICS_CHECKS:
                checks[name], severity[name] = _optics(mine, platform, name)
            far_p = devices[peer.device].platform if peer.device in devices else None
            far = _last_link(pcs(peer.device, peer.port), "fec_mode") if peer.device in snaps else None
            checks["fec_mode"] = _fec_mode(_last_link(mine, "fec_mode"), platform, far_p, far)
            for name in CHECKS:
                c = checks[name]
                if c.status == "finding":
                    findings.append(_finding(name, c, me, peer, severity.get(name)))
    groups = _groups(fab, snaps, unread, th)
    for g in groups:
        if g.status != "finding":
            continue
        nums = {p: v for p, (_peer, v) in g.members.items() if v is not None}
        hot = max(nums, key=lambda p: nums[p])
        msg = (f"{len(nums)} links toward tier {g.tier + 1}: {hot} sends {nums[hot] / 1e6:.1f} MB/s, "
               f"{g.max_over_mean:.2f}x the mean (max/mean limit {th.ecmp_max_over_mean:g}), "
               f"coefficient of variation {g.cv:.2f} (limit {th.ecmp_cv:g})")
        if polarization is not None:
            static = polarization(g.device)
            msg += f"; roceconf check: {static}" if static else "; roceconf check finds no hash polarization (RC213)"
        findings.append(LinkFinding(R_ECMP, g.device, hot, msg, f"{g.max_over_mean:.2f}"))
    return LinkHealth(ends, groups, findings, dict(unread), not_observable(fab, ends, groups))


def _finding(name: str, c: Check, me: Any, peer: Any, severity: str | None) -> LinkFinding:
    """The finding of one end's check ``name`` (its status ``finding``)."""
    rule = CHECKS[name][1]
    v = c.value or 0.0
    if name == "speed":
        msg = f"{me.port} (to {peer.device}:{peer.port}): {c.reason}"
        return LinkFinding(rule, me.device, me.port, msg, _gbps(v))
    if name == "fec_mode":
        msg = f"{me.port} (to {peer.device}:{peer.port}): {c.reason}"
        return LinkFinding(rule, me.device, me.port, msg, c.mode)
    if name in OPTICS_CHECKS:
        way = "from" if name == "rx_power" else "to"
        msg = f"{me.port} ({way} {peer.device}:{peer.port}): {c.reason}"
        return LinkFinding(rule, me.device, me.port, msg, f"{v:g}", severity)
    if name == "flaps":
        msg = f"{me.port} (to {peer.device}:{peer.port}): {v:.0f} carrier transition(s) between samples"
    else:
        what = "FCS/CRC errors" if name == "fcs" else "uncorrectable FEC codewords"
        msg = f"{me.port} (from {peer.device}:{peer.port}): {v:.2f} {what}/s received"
    return LinkFinding(rule, me.device, me.port, msg, f"{v:g}")


def _want(fab: Fabric, end: Any) -> int | None:
    """The intent's speed of a link end's port, Gb/s (None when the port is not in the device's ports)."""
    p = fab.devices[end.device].ports.get(end.port) if end.device in fab.devices else None
    return p.speed_gbps if p is not None else None


def not_observable(fab: Fabric, ends: dict[tuple[str, str], EndHealth], groups: list[EcmpGroup]) -> list[NotObservable]:
    """One RC519 note per platform and check that is ``n/a`` on the report's ends (or ECMP groups)."""
    #: (platform, check) -> (its devices, in the order met: a dict as an ordered set, [ends or groups])
    seen: dict[tuple[str, str], tuple[dict[str, None], list[int]]] = {}

    def add(platform: str, check: str, device: str) -> None:
        got = seen.get((platform, check))
        if got is None:
            got = seen[(platform, check)] = ({}, [0])
        got[0][device] = None
        got[1][0] += 1

    #: platform -> the checks whose counter it does not read (only these can be its own n/a)
    blind: dict[str, list[str]] = {}
    for (dev, _port), e in ends.items():
        platform = fab.devices[dev].platform
        names = blind.get(platform)
        if names is None:
            names = blind[platform] = [k for k, (c, _r) in CHECKS.items() if c not in link_reads(platform)]
        checks = e.checks
        for name in names:
            # an end n/a because of its far end's platform (fec_mode) is that platform's note, not its own
            c = checks.get(name)
            if c is not None and c.status == NA:
                add(platform, name, dev)
    for g in groups:
        if g.status == NA:
            add(fab.devices[g.device].platform, "ecmp", g.device)
    order = [*CHECKS, "ecmp"]
    counter = {**{k: c for k, (c, _r) in CHECKS.items()}, "ecmp": ECMP_COUNTER}
    return [NotObservable(p, k, counter[k], sorted(devs, key=natural_key), n[0])
            for (p, k), (devs, n) in sorted(seen.items(), key=lambda kv: (kv[0][0], order.index(kv[0][1])))]


__all__ = ["CHECKS", "ECMP_COUNTER", "NA", "OPTICS_CHECKS", "RATE_CHECKS", "STATUSES", "Check", "EcmpGroup", "EndHealth", "LinkHealth", "NotObservable",
           "judge", "link_reads", "na_reason", "not_observable", "tiers"]
