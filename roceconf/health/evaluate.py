"""Evaluate counter snapshots against the intent: rates over each interval, the RC3xx rules, counter resets
and link-partner correlation.

The result is a plain data model (device -> port -> findings with their priority, plus per-port rates for
every interval) that every report format - and an HTML report - is drawn from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import roceconf.health.rules as R
from roceconf.counters.model import PORT_COUNTERS, ROCE_ERRORS, PortCounters, Snapshot
from roceconf.health import packed
from roceconf.intent import DeviceSpec, Fabric
from roceconf.intent.rules import Rule
from roceconf.jsontext import fields_of
from roceconf.names import natural_key
from roceconf.reports.causes import compress, summary
from roceconf.reports.scaffold import SEVERITY_RANK, AuditReport, device_head, worst

Severity = Literal["critical", "warning", "info"]
Status = Literal["healthy", "findings", "unknown"]


@dataclass
class Finding:
    rule: str
    severity: Severity
    title: str
    device: str
    port: str | None
    priority: int | None
    counters: list[str]
    value: float | None
    threshold: float | None
    message: str
    impact: str
    hint: str

    def to_dict(self) -> dict[str, Any]:
        """The fields, the value rounded to 6 decimals."""
        return {**fields_of(self), "value": None if self.value is None else round(self.value, 6)}


@dataclass
class Cause:
    """One finding per cause: the findings of one device that share a rule, a priority and the judged condition
    (the counters read), across ports; the threshold may differ with the port's speed (a frame-rate storm). The ports are written as ranges in the platform's naming
    (``Ethernet1-32``); the per-port findings stay reachable by (port, position in that port's findings)."""

    rule: str
    severity: Severity
    title: str
    device: str
    priority: int | None
    counters: list[str]
    impact: str
    hint: str
    findings: list[Finding] = field(default_factory=list)
    #: (port, position in that port's findings) of each finding, in port order
    items: list[tuple[str, int]] = field(default_factory=list)

    @property
    def ports(self) -> list[str]:
        return [f.port for f in self.findings if f.port]

    @property
    def where(self) -> str:
        """The ports as ranges (``Ethernet1-32``); "" for a device-wide finding."""
        return ", ".join(compress(self.ports))

    @property
    def message(self) -> str:
        """The first port's message; with several ports, how many and the range of the values."""
        first = self.findings[0].message
        if len(self.findings) == 1:
            return first
        vals = [f.value for f in self.findings if f.value is not None]
        span = f"; value {min(vals):g} to {max(vals):g}" if vals and min(vals) != max(vals) else ""
        return f"{len(self.findings)} ports{span}; first ({self.findings[0].port}): {first}"

    def to_dict(self) -> dict[str, Any]:
        vals = [f.value for f in self.findings if f.value is not None]
        limits = sorted({f.threshold for f in self.findings if f.threshold is not None})
        return {
            "rule": self.rule,
            "severity": self.severity,
            "title": self.title,
            "priority": self.priority,
            "counters": self.counters,
            "thresholds": limits,
            "interfaces": compress(self.ports),
            "ports": len(self.ports),
            "value_min": round(min(vals), 6) if vals else None,
            "value_max": round(max(vals), 6) if vals else None,
            "message": self.message,
            "impact": self.impact,
            "hint": self.hint,
            "items": [{"port": p, "finding": n} for p, n in self.items],
        }


def group(device: str, ports: list[PortHealth]) -> list[Cause]:
    """The findings of a device's ports as causes: one per (rule, priority, counters), worst first, then by rule
    and first port."""
    out: dict[tuple[Any, ...], Cause] = {}
    for ph in ports:
        for n, f in enumerate(ph.findings):
            key = (f.rule, f.priority, tuple(f.counters))
            c = out.get(key)
            if c is None:
                c = out[key] = Cause(f.rule, f.severity, f.title, device, f.priority, list(f.counters), f.impact,
                                     f.hint)
            c.findings.append(f)
            c.items.append((ph.port, n))
    return sorted(out.values(), key=lambda c: (SEVERITY_RANK[c.severity], c.rule,
                                               -1 if c.priority is None else c.priority, c.items[0][0]))


@dataclass
class Interval:
    """Rates of one port between two consecutive samples (per second); reset counters have no rate."""

    start: float
    seconds: float
    prio: dict[str, dict[int, float]] = field(default_factory=dict)
    port: dict[str, float] = field(default_factory=dict)
    reset: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "seconds": round(self.seconds, 6),
            "prio": {
                c: {str(p): round(v, 6) for p, v in sorted(d.items())} for c, d in sorted(self.prio.items())
            },
            "port": {c: round(v, 6) for c, v in sorted(self.port.items())},
            "reset": self.reset,
        }


class PortHealth:
    """One port's result: its rates per interval, its last sample and its findings.

    Once its device is evaluated the rates and the last sample are packed (:meth:`pack`, roceconf.health.packed:
    arrays instead of dicts, a fabric's worth of ports fits in memory); ``intervals`` and ``last`` then give
    new objects with the same values at each access (change them by assigning, not in place)."""

    __slots__ = ("_intervals", "_last", "_packed", "findings", "partner", "port")

    def __init__(
        self,
        port: str,
        partner: str | None = None,
        intervals: list[Interval] | None = None,
        last: PortCounters | None = None,
        findings: list[Finding] | None = None,
    ) -> None:
        self.port = port
        self.partner = partner
        self._intervals: Any = [] if intervals is None else intervals
        self._last: Any = last
        self._packed = False
        self.findings: list[Finding] = [] if findings is None else findings

    @property
    def intervals(self) -> list[Interval]:
        if self._packed:
            return [Interval(*packed.unpack_interval(t)) for t in self._intervals]
        return self._intervals  # type: ignore[no-any-return]

    @intervals.setter
    def intervals(self, value: list[Interval]) -> None:
        self._unpack()
        self._intervals = value

    @property
    def last(self) -> PortCounters | None:
        if self._packed and self._last is not None:
            return packed.unpack_counters(self._last)
        return self._last  # type: ignore[no-any-return]

    @last.setter
    def last(self, value: PortCounters | None) -> None:
        self._unpack()
        self._last = value

    @property
    def has_rates(self) -> bool:
        """Whether any interval gave rates (``bool(intervals)`` without unpacking them)."""
        return bool(self._intervals)

    def pack(self) -> None:
        """Keep the rates and the last sample packed (the same values, a fraction of the memory)."""
        if not self._packed:
            ivs = [packed.pack_interval(iv.start, iv.seconds, iv.prio, iv.port, iv.reset) for iv in self._intervals]
            self._intervals = tuple(ivs)
            self._last = None if self._last is None else packed.pack_counters(self._last)
            self._packed = True

    def _unpack(self) -> None:
        if self._packed:
            self._intervals, self._last = self.intervals, self.last
            self._packed = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PortHealth):
            return NotImplemented
        return (self.port, self.partner, self.intervals, self.last, self.findings) == (
            other.port, other.partner, other.intervals, other.last, other.findings)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"PortHealth(port={self.port!r}, partner={self.partner!r}, intervals={self.intervals!r}, "
                f"last={self.last!r}, findings={self.findings!r})")

    def mean(self, counter: str, priority: int | None = None) -> float | None:
        """Mean rate over the intervals that have one (None: never read or always reset)."""
        if self._packed:
            return packed.mean(self._intervals, counter, priority)
        total, secs = 0.0, 0.0
        for iv in self._intervals:
            v = iv.port.get(counter) if priority is None else iv.prio.get(counter, {}).get(priority)
            if v is not None:
                total += v * iv.seconds
                secs += iv.seconds
        return total / secs if secs > 0 else None

    def means(self, counter: str) -> list[float | None]:
        """:meth:`mean` of a per-priority counter for each priority 0-7."""
        if self._packed:
            return packed.means(self._intervals, counter)
        return [self.mean(counter, p) for p in range(8)]

    def by_priority(self) -> dict[int | None, list[Finding]]:
        out: dict[int | None, list[Finding]] = {}
        for f in self.findings:
            out.setdefault(f.priority, []).append(f)
        return out

    def to_dict(self) -> dict[str, Any]:
        last = self.last
        return {
            "port": self.port,
            "partner": self.partner,
            "intervals": [iv.to_dict() for iv in self.intervals],
            "watchdog_shut": (last.wd_shut if last else None),
            "gauges": (
                {c: {str(p): v for p, v in d.items()} for c, d in last.gauges.items()}
                if last
                else {}
            ),
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class DeviceHealth:
    device: str
    platform: str
    status: Status
    source: str = ""
    reason: str | None = None
    samples: list[float] = field(default_factory=list)
    ports: dict[str, PortHealth] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    attempts: int = 0
    seconds: float = 0.0

    @property
    def findings(self) -> list[Finding]:
        return [f for p in self.ports.values() for f in p.findings]

    @property
    def causes(self) -> list[Cause]:
        """The findings grouped into one per cause (:func:`group`)."""
        return group(self.device, list(self.ports.values()))

    @property
    def worst(self) -> str | None:
        return worst(self.findings)

    def tree(self) -> dict[str, dict[int | None, list[Finding]]]:
        """port -> priority -> findings (ports without findings left out)."""
        return {n: p.by_priority() for n, p in self.ports.items() if p.findings}

    def to_dict(self) -> dict[str, Any]:
        return {
            **device_head(self),
            "samples": self.samples,
            "warnings": self.warnings,
            "ports": [p.to_dict() for p in self.ports.values()],
            "findings": [c.to_dict() for c in self.causes],
        }


@dataclass
class HealthReport(AuditReport):
    intent: str
    source: str
    generated_at: str
    devices: list[DeviceHealth]

    @property
    def findings(self) -> list[Finding]:
        return [f for d in self.devices for f in d.findings]

    #: exit code (`AuditReport.exit_code`): 0 healthy, 1 findings, 3 some device could not be read and
    #: nothing was found elsewhere (as drift), or no device was judged at all (never healthy)
    STATUS_WORDS = (("healthy", "healthy"), ("findings", "with findings"), ("unknown", "unknown"))

    @property
    def counts(self) -> dict[str, int]:
        """Devices by status; causes (one finding per cause), the ports they cover and the per-port findings
        (items); causes by severity."""
        c = {"devices": len(self.devices), "healthy": 0, "findings": 0, "unknown": 0, "causes": 0, "ports": 0,
             "items": 0, "critical": 0, "warning": 0, "info": 0}
        for d in self.devices:
            c[d.status] += 1
            c["items"] += len(d.findings)
            for k, v in summary(d.causes).items():  # drift's tally of causes; its "findings" are causes here
                c["causes" if k == "findings" else k] += v
        return c

    def found(self, device: DeviceHealth) -> list[Cause]:
        return device.causes

    def findings_line(self, counts: dict[str, int]) -> str:
        """``2 finding(s) on 40 port(s): 1 critical, 1 warning (41 per-port finding(s))``: causes, not ports."""
        c = counts
        return (f"{c['causes']} finding(s) on {c['ports']} port(s): {c['critical']} critical, {c['warning']} warning "
                f"({c['items']} per-port finding(s))")

    def to_dict(self) -> dict[str, Any]:
        return {**self.head(), "devices": [d.to_dict() for d in self.devices]}


# ------------------------------------------------------------------------------------------- rates
def intervals(snaps: list[Snapshot], port: str) -> list[Interval]:
    out: list[Interval] = []
    for a, b in zip(snaps, snaps[1:], strict=False):
        pa, pb = a.ports.get(port), b.ports.get(port)
        ta = a.time_of(port)
        dt = b.time_of(port) - ta
        if pa is None or pb is None or not (math.isfinite(ta) and math.isfinite(dt) and dt > 0):
            continue  # equal, reversed or non-numeric times give no rate (never a rate of zero)
        inv = 1.0 / dt
        iv = Interval(ta, dt)
        reset: list[str] = []
        prio_a = pa.prio
        for c, vb in pb.prio.items():
            va = prio_a.get(c)
            if va is None:
                continue
            try:
                rates = {p: (x - va[p]) * inv for p, x in vb.items()}
            except KeyError:  # a priority read in one sample only
                rates = {p: (x - va[p]) * inv for p, x in vb.items() if p in va}
            if min(rates.values(), default=0.0) < 0:  # went backwards: no rate, never a negative one
                reset.append(c)
                rates = {p: v for p, v in rates.items() if v >= 0}
            iv.prio[c] = rates
        port_a = pa.port
        for c, x in pb.port.items():
            y = port_a.get(c)
            if y is None:
                continue
            if x < y:
                reset.append(c)
            else:
                iv.port[c] = (x - y) * inv
        iv.reset = sorted(reset)
        out.append(iv)
    return out


# ------------------------------------------------------------------------------------------- rules
class _Port:
    """Evaluates one port and collects its findings (one per rule and priority, worst value kept)."""

    def __init__(self, dev: DeviceSpec, ph: PortHealth, th: R.Thresholds) -> None:
        self.dev, self.ph, self.th = dev, ph, th
        self.found: dict[tuple[str, int | None], Finding] = {}

    def add(
        self,
        rule: Rule,
        prio: int | None,
        counters: list[str],
        value: float | None,
        threshold: float | None,
        message: str,
    ) -> None:
        key = (rule.id, prio)
        old = self.found.get(key)
        if old is not None and (old.value or 0) >= (value or 0):
            return
        self.found[key] = Finding(
            rule.id,
            rule.severity,
            rule.title,
            self.dev.name,
            self.ph.port,
            prio,
            counters,
            value,
            threshold,
            message,
            rule.why,
            rule.hint,  # fmt: skip
        )  # type: ignore[arg-type]


def _port_rules(dev: DeviceSpec, ph: PortHealth, th: R.Thresholds, lossless: set[int], ecn: set[int]) -> None:
    e = _Port(dev, ph, th)
    spec = dev.ports.get(ph.port)
    speed = spec.speed_gbps if spec is not None and spec.speed_gbps else None
    wd_fired: set[int] = set()
    resets: set[str] = set()
    storm_frames: dict[int, list[float]] = {}
    for iv in ph.intervals:
        resets.update(iv.reset)
        pr = iv.prio
        for c in ("queue_drops", "pg_drops"):
            for p, v in pr.get(c, {}).items():
                if v > 0 and p in lossless:
                    where = "egress queue" if c == "queue_drops" else "ingress priority group / receive"
                    e.add(
                        R.R_LOSSLESS_DROPS,
                        p,
                        [c],
                        v,
                        0,
                        f"{v:.1f} packets/s dropped on the {where} of lossless priority {p}",
                    )
        for c in ("wd_detected", "wd_restored"):
            for p, v in pr.get(c, {}).items():
                if v > 0:
                    wd_fired.add(p)
                    n = v * iv.seconds
                    e.add(
                        R.R_WATCHDOG,
                        p,
                        ["wd_detected", "wd_restored"],
                        n,
                        0,
                        f"PFC watchdog {'detected' if c == 'wd_detected' else 'restored'} {n:.0f} storm(s) on priority {p} during {iv.seconds:.2f} s",
                    )
        us = pr.get("pfc_rx_us", {})
        for p, v in us.items():
            share = v / 1e6
            if share > th.storm_share:
                e.add(
                    R.R_STORM,
                    p,
                    ["pfc_rx_us"],
                    share,
                    th.storm_share,
                    f"paused {share:.0%} of the interval by received PFC on priority {p}",
                )
        for p, v in pr.get("pfc_rx", {}).items():
            if p not in us:
                storm_frames.setdefault(p, []).append(v)
        for c in ("pfc_rx", "pfc_tx"):
            for p, v in pr.get(c, {}).items():
                if v > 0 and p not in lossless:
                    e.add(
                        R.R_LOSSY_PAUSE,
                        p,
                        [c],
                        v,
                        0,
                        f"{v:.1f} PFC frames/s {'received' if c == 'pfc_rx' else 'sent'} on priority {p}, which the intent makes lossy",
                    )
        for p, v in pr.get("ecn_marked", {}).items():
            if v > 0 and p not in ecn:
                e.add(
                    R.R_ECN_UNEXPECTED,
                    p,
                    ["ecn_marked"],
                    v,
                    0,
                    f"{v:.1f} packets/s ECN-marked on queue {p}, which has no ECN in the intent",
                )
        po = iv.port
        marked, cnp = po.get("ecn_roce_rx"), po.get("cnp_sent")
        if marked is not None and marked > 0 and cnp is not None and cnp == 0:
            e.add(
                R.R_NO_CNP,
                None,
                ["ecn_roce_rx", "cnp_sent"],
                marked,
                0,
                f"{marked:.1f} ECN-marked RoCE packets/s received, 0 CNPs sent",
            )
        ign = po.get("cnp_ignored")
        if ign is not None and ign > 0:
            e.add(
                R.R_CNP_IGNORED,
                None,
                ["cnp_ignored"],
                ign,
                0,
                f"{ign:.1f} CNPs/s received and ignored by the reaction point (handled: {po.get('cnp_handled', 0):.1f}/s)",
            )
        errs = {c: po[c] for c in ROCE_ERRORS if po.get(c, 0) > 0}
        if errs:
            e.add(
                R.R_ROCE_ERRORS,
                None,
                sorted(errs),
                sum(errs.values()),
                0,
                "rising: " + ", ".join(f"{c} {v:.1f}/s" for c, v in sorted(errs.items())),
            )
        phy = po.get("rx_discards_phy")
        if phy is not None and phy > 0 and lossless:
            e.add(
                R.R_PHY_DISCARDS,
                None,
                ["rx_discards_phy"],
                phy,
                0,
                f"{phy:.1f} packets/s discarded by the physical port",
            )
    # frame-rate storms: no duration counter; continuous pauses that could keep the port paused more than
    # the threshold share even at the largest pause time, on every interval
    if speed:
        longest = R.max_pause_seconds(speed)
        for p, rates in storm_frames.items():
            shares = [v * longest for v in rates]
            if shares and len(shares) == len(ph.intervals) and min(shares) > th.storm_share:
                e.add(
                    R.R_STORM,
                    p,
                    ["pfc_rx"],
                    min(rates),
                    th.storm_share / longest,
                    f"{min(rates):.0f} PFC frames/s received on priority {p} on every sample: enough to keep a {speed:g}G port paused {min(min(shares), 1.0):.0%} of the time",
                )
    if ph.last is not None and ph.last.wd_shut:
        for p in ph.last.wd_shut:
            if p not in wd_fired:
                e.add(
                    R.R_WATCHDOG_SHUT,
                    p,
                    ["wd_shut"],
                    None,
                    None,
                    f"the PFC watchdog holds the queue of priority {p} shut",
                )
    if resets:
        e.add(
            R.R_RESET,
            None,
            sorted(resets),
            None,
            None,
            "went backwards between samples (device restarted or counters cleared): "
            + ", ".join(sorted(resets)),
        )
    ph.findings = sorted(
        e.found.values(),
        key=lambda f: (SEVERITY_RANK[f.severity], f.rule, -1 if f.priority is None else f.priority),
    )


def _partners(fab: Fabric) -> dict[tuple[str, str], tuple[str, str]]:
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for ln in fab.links:
        out[(ln.a.device, ln.a.port)] = (ln.b.device, ln.b.port)
        out[(ln.b.device, ln.b.port)] = (ln.a.device, ln.a.port)
    return out


def _correlate(
    fab: Fabric,
    results: dict[str, DeviceHealth],
    th: R.Thresholds,
    partners: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> None:
    for (dev, port), (pdev, pport) in (_partners(fab) if partners is None else partners).items():
        a, b = results.get(dev), results.get(pdev)
        if a is None or b is None or a.status == "unknown" or b.status == "unknown":
            continue
        pa, pb = a.ports.get(port), b.ports.get(pport)
        if pa is None or pb is None or not pa.has_rates or not pb.has_rates:
            continue
        seens = None
        for p, sent in enumerate(pa.means("pfc_tx")):
            if sent is None or sent < th.partner_min_rate:
                continue
            if seens is None:
                seens = pb.means("pfc_rx")
            seen = seens[p]
            if seen is None:
                continue
            if seen < th.partner_share * sent:
                spec = fab.devices[dev]
                e = _Port(spec, pa, th)
                e.add(
                    R.R_PARTNER,
                    p,
                    ["pfc_tx", "pfc_rx"],
                    sent,
                    th.partner_share,
                    f"sent {sent:.1f} PFC frames/s on priority {p}; partner {pdev}:{pport} received {seen:.1f}/s",
                )
                pa.findings += list(e.found.values())


def evaluate_device(dev: DeviceSpec, snaps: list[Snapshot], th: R.Thresholds = R.DEFAULT) -> DeviceHealth:
    """Rates and per-port rules of one device (correlation across links is done by :func:`evaluate`)."""
    res = DeviceHealth(dev.name, dev.platform, "healthy", samples=[s.taken_at for s in snaps])
    for s in snaps:
        res.warnings += [w for w in s.warnings if w not in res.warnings]
    if len(snaps) < 2:
        res.status, res.reason = "unknown", f"{len(snaps)} sample(s): rates need two"
        return res
    wanted = list(dev.ports) or sorted({p for s in snaps for p in s.ports}, key=natural_key)
    # link counters alone (roceconf cabling's) are nothing health judges: such a port was not read here
    seen = [p for p in wanted if all(p in s.ports and s.ports[p].has_health() for s in snaps)]
    if not seen:
        first = "; ".join(res.warnings[:2])
        res.status = "unknown"
        res.reason = "no counters for any of the intent's ports were read" + (f" ({first})" if first else "")
        return res
    missing = [p for p in wanted if p not in seen]
    if missing:
        res.warnings.append("no counters read for port(s) " + ", ".join(missing))
    s = dev.settings
    lossless = set(s.lossless_priorities)
    ecn = {c.priority for c in s.classes if c.ecn is not None}
    timeless = []
    for name in seen:
        ph = PortHealth(name, intervals=intervals(snaps, name), last=snaps[-1].ports[name])
        if not ph.intervals:
            timeless.append(name)
            continue
        _port_rules(dev, ph, th, lossless, ecn)
        res.ports[name] = ph
    if timeless and not res.ports:
        res.status = "unknown"
        res.reason = f"the samples yield no valid rate: {_times_problem(snaps)}"
    elif timeless:
        res.warnings.append("no valid rate for port(s) " + ", ".join(timeless) + f": {_times_problem(snaps)}")
    return res


def _times_problem(snaps: list[Snapshot]) -> str:
    """Why consecutive samples give no rate, in words (their times)."""
    times = [s.taken_at for s in snaps]
    shown = ", ".join(repr(t) for t in times[:4]) + (", ..." if len(times) > 4 else "")
    if not all(math.isfinite(t) for t in times):
        why = "a sample time is not a number"
    elif any(b == a for a, b in zip(times, times[1:], strict=False)):
        why = "samples taken at the same time"
    elif any(b < a for a, b in zip(times, times[1:], strict=False)):
        why = "sample times go backwards"
    else:
        why = "per-port times are equal, reversed or not numbers"
    return f"{why} (taken_at {shown})"


def evaluate(
    fab: Fabric,
    snapshots: dict[str, list[Snapshot]],
    errors: dict[str, str] | None = None,
    *,
    source: str = "",
    thresholds: R.Thresholds = R.DEFAULT,
    meta: dict[str, dict[str, Any]] | None = None,
) -> HealthReport:
    """Evaluate every device named in ``snapshots`` or ``errors`` (errors: device -> reason it is unknown)."""
    errors = errors or {}
    names = sorted(set(snapshots) | set(errors), key=natural_key)
    got = ((n, errors[n] if n in errors else snapshots[n]) for n in names)
    return evaluate_each(fab, got, source=source, thresholds=thresholds, meta=meta)


def device_result(dev: DeviceSpec, got: list[Snapshot] | str, thresholds: R.Thresholds = R.DEFAULT) -> DeviceHealth:
    """One device's result before the correlation across links: unknown with the reason (``got`` a string), or
    its snapshots evaluated, its ports packed (the snapshots are no longer needed)."""
    if isinstance(got, str):
        return DeviceHealth(dev.name, dev.platform, "unknown", reason=got)
    res = evaluate_device(dev, got, thresholds)
    for ph in res.ports.values():
        ph.pack()
    return res


def evaluate_each(
    fab: Fabric,
    devices: Iterable[tuple[str, list[Snapshot] | str | DeviceHealth]],
    *,
    source: str = "",
    thresholds: R.Thresholds = R.DEFAULT,
    meta: dict[str, dict[str, Any]] | None = None,
) -> HealthReport:
    """:func:`evaluate` over ``(device, snapshots or the reason it is unknown)`` pairs, in report order, one at
    a time: a device's snapshots are dropped once it is evaluated (only its rates and findings are kept), so
    reading the devices one by one as they come keeps one device's snapshots in memory, not the fabric's. A
    pair may carry the device's :func:`device_result` instead (evaluated elsewhere, e.g. in a worker)."""
    results: dict[str, DeviceHealth] = {}
    for name, got in devices:
        results[name] = got if isinstance(got, DeviceHealth) else device_result(fab.devices[name], got, thresholds)
        del got
        for k, v in (meta or {}).get(name, {}).items():
            setattr(results[name], k, v)
    partners = _partners(fab)
    for d in results.values():
        for ph in d.ports.values():
            pd = partners.get((d.device, ph.port))
            ph.partner = f"{pd[0]}:{pd[1]}" if pd else None
    _correlate(fab, results, thresholds, partners)
    for d in results.values():
        if d.status != "unknown":
            d.status = "findings" if d.findings else "healthy"
    return HealthReport(
        intent=fab.file,
        source=source,
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        devices=list(results.values()),
    )


__all__ = [
    "Cause",
    "DeviceHealth",
    "Finding",
    "HealthReport",
    "Interval",
    "PortHealth",
    "evaluate",
    "evaluate_device",
    "evaluate_each",
    "device_result",
    "group",
    "intervals",
    "PORT_COUNTERS",
]
