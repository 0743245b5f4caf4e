"""The vendor-neutral counter snapshot: what every platform's ``counters.py`` parses its outputs into.

One snapshot is one read of one device at one time. Counters are monotonic totals as the device reports
them (packets, frames, microseconds); gauges (buffer watermarks) are current values. Units are normalised:
pause durations in microseconds, watermarks in bytes, priorities / traffic classes 0-7 (in roceconf a
priority is its traffic class and its egress queue, see docs/architecture.md).

A counter a platform does not expose is simply absent (never 0): absent means "not read", and no rule
fires on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Per-priority monotonic counters.
PRIO_COUNTERS: dict[str, str] = {
    "pfc_rx": "PFC pause frames received",
    "pfc_tx": "PFC pause frames sent",
    "pfc_rx_us": "time paused by received PFC frames, microseconds",
    "pfc_tx_us": "time the port asked its partner to pause (sent PFC), microseconds",
    "wd_detected": "PFC watchdog storms detected",
    "wd_restored": "PFC watchdog storms restored",
    "queue_drops": "packets dropped or discarded on the egress queue",
    "pg_drops": "packets dropped on the ingress priority group / per-priority receive discards",
    "ecn_marked": "packets ECN-marked (CE) on the egress queue",
}
#: Per-port monotonic counters (host NIC RoCE counters, physical-port discards).
PORT_COUNTERS: dict[str, str] = {
    "cnp_sent": "CNPs sent by the notification point",
    "cnp_handled": "CNPs handled by the reaction point",
    "cnp_ignored": "CNPs received and ignored by the reaction point",
    "cnp_received": "CNPs received",
    "ecn_roce_rx": "ECN-marked RoCE packets received",
    "out_of_sequence": "RoCE packets received out of sequence",
    "packet_seq_err": "RoCE NAK sequence errors received",
    "local_ack_timeout_err": "RoCE local ACK timeouts",
    "implied_nak_seq_err": "RoCE implied NAK sequence errors",
    "rx_discards_phy": "packets discarded by the physical port (no receive buffer)",
}
#: Per-priority gauges.
PRIO_GAUGES: dict[str, str] = {
    "queue_watermark_bytes": "egress queue buffer high watermark, bytes",
    "pg_watermark_bytes": "ingress priority group buffer high watermark, bytes",
}
#: Per-port monotonic link counters (``roceconf cabling``'s link health and ECMP balance). Kept apart from the
#: counters above: ``health`` judges a port only on those, so a port whose answer carried link counters alone
#: is never judged healthy by it.
LINK_COUNTERS: dict[str, str] = {
    "fcs_errors": "frames received with a bad frame check sequence (FCS/CRC errors)",
    "fec_corrected": "FEC codewords corrected",
    "fec_uncorrectable": "FEC codewords that could not be corrected",
    "carrier_transitions": "link state changes (carrier up/down transitions, flaps)",
    "rx_octets": "bytes received",
    "tx_octets": "bytes sent",
    # a gauge, not a total: read as it is in each sample (RC513 compares it between the two ends and with the intent)
    "speed_bps": "operational speed of the link, bits per second (a gauge: the value read, never a rate)",
    # a state, not a count: the FEC mode's code (FEC_MODES) as read in each sample (RC517 compares the two ends)
    "fec_mode": "FEC mode of the port (a code of FEC_MODES: 0 auto, not a mode that can be compared)",
}
#: the FEC modes a link end can be read in, by code (``fec_mode``). 0 is ``auto``: the port negotiates its
#: mode and the answer does not say which one it runs (SONiC's configured ``auto``, ethtool's active ``Auto``)
FEC_MODES: dict[int, str] = {0: "auto", 1: "off", 2: "fc", 3: "rs", 4: "llrs"}
#: a FEC mode as the devices print it -> its code: SONiC ``show interfaces status`` (``rs``, ``fc``, ``none``,
#: ``auto``; sonic-utilities intfutil) and ethtool ``--show-fec`` ("Active FEC encoding: RS", ``BaseR`` (the
#: Clause 74 Fire-code FEC), ``Off``, ``LLRS``, ``Auto``). ethtool's ``None`` (the driver reports no active
#: mode) and ``N/A`` are no mode: not read.
_FEC_WORDS = {"auto": 0, "off": 1, "none": 1, "fc": 2, "baser": 2, "base-r": 2, "fire-code": 2, "rs": 3,
              "llrs": 4}


def fec_mode_code(text: Any, none_is_off: bool = True) -> int | None:
    """The code (``FEC_MODES``) of a printed FEC mode, None when it is no mode. ``none_is_off``: ``none``
    means FEC off (SONiC); ethtool prints ``None`` where the driver reports no active mode (not read)."""
    if not isinstance(text, str):
        return None
    w = text.strip().lower()
    if w == "none" and not none_is_off:
        return None
    return _FEC_WORDS.get(w)


#: Optics (DOM) readings of a port's transceiver, each a signed decimal (``PortCounters.optics``), read with the
#: module's own alarm / warning thresholds where the answer carries them (``OPTICS_LEVELS``). A gauge: the value
#: read, never a rate. Judged by ``roceconf cabling`` (RC514-RC516); a platform names the ones it reads in
#: ``CounterSpec.link_reads`` like the link counters.
OPTICS: dict[str, str] = {
    "rx_power_dbm": "optical power received, dBm",
    "tx_power_dbm": "optical power sent (laser output), dBm",
    "temperature_c": "transceiver module temperature, degrees Celsius",
}
#: the module's thresholds of a reading, kept as ``<reading>:<level>`` in ``PortCounters.optics``
OPTICS_LEVELS = ("high_alarm", "high_warn", "low_warn", "low_alarm")
#: reading -> level (or ``lane``) -> its key in ``PortCounters.optics``: one string object for every port (a
#: fabric has a hundred thousand ports, each with up to fifteen keys)
OPTICS_KEYS: dict[str, dict[str, str]] = {r: {lv: f"{r}:{lv}" for lv in (*OPTICS_LEVELS, "lane")} for r in OPTICS}
_OPTICS_KEY = {k: k for r, ks in OPTICS_KEYS.items() for k in (r, *ks.values())}
#: the port's module states it has no diagnostics to read (NX-OS "DOM is not supported": a copper cable / DAC,
#: or a module without DOM), kept in ``PortCounters.optics`` under this key with the value 1.0 (no reading then):
#: ``roceconf cabling`` judges its optics n/a, never ok; a reading simply missing stays unknown
NO_DOM = "dom:none"
#: threshold values already seen, each kept as one float object: the modules of a fabric are few models, whose
#: thresholds repeat on every port (bounded: past it a value is kept as it comes)
_SHARED: dict[float, float] = {}
_SHARED_MAX = 4096


def _shared(v: float) -> float:
    got = _SHARED.get(v)
    if got is None:
        got = v
        if len(_SHARED) < _SHARED_MAX:
            _SHARED[v] = v
    return got


#: a speed as the devices print it: ``10 Gb/s``, ``1000 Mb/s`` (NX-OS ``eth_speed``), ``1000mbps``, ``10Gbps``
#: (Junos ``speed``); anything else (``auto-speed``, ``Auto``, ``Unspecified``) is no speed
_SPEED = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt])(?:b/s|bps)\s*$", re.IGNORECASE)
_SPEED_UNIT = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def speed_bps(text: Any) -> int | None:
    """Bits per second from a printed speed (``10 Gb/s``, ``1000mbps``, ``100Gbps``), None when it is not one."""
    m = _SPEED.match(text) if isinstance(text, str) else None
    if not m:
        return None
    v = round(float(m.group(1)) * _SPEED_UNIT[m.group(2).lower()])
    return v if v > 0 else None


#: a signed decimal as the devices print a reading: ``-3.42``, ``45 degrees C / 113 degrees F`` (Junos), ``-30.45
#: dBm``, ``35.66 C`` (NX-OS): the first number; ``- Inf``, ``N/A``, ``off`` are none
_DECIMAL = re.compile(r"^\s*([-+]?[0-9]+(?:\.[0-9]+)?)(?![0-9.])")


def optics_value(text: Any) -> float | None:
    """A reading or threshold as a float (the first signed decimal of the text), None when it is not one."""
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(text) else None
    m = _DECIMAL.match(text) if isinstance(text, str) else None
    return float(m.group(1)) if m else None


def _badness(value: float, thresholds: dict[str, float | None]) -> tuple[int, float]:
    """How bad a reading is against its thresholds: (3 past an alarm, 2 past a warning, 1 within but a threshold
    missing, 0 within all four; then its margin to the nearest threshold, negated: a reading further past a
    threshold, or nearer to one, is worse)."""
    th = {k: v for k, v in thresholds.items() if v is not None and math.isfinite(v)}
    alarm = value > th.get("high_alarm", math.inf) or value < th.get("low_alarm", -math.inf)
    warn = value > th.get("high_warn", math.inf) or value < th.get("low_warn", -math.inf)
    rank = 3 if alarm else 2 if warn else 1 if len(th) < len(OPTICS_LEVELS) else 0
    margin = min((t - value if k.startswith("high") else value - t for k, t in th.items()), default=math.inf)
    return rank, -margin


ROCE_ERRORS = ("out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "implied_nak_seq_err")


@dataclass
class PortCounters:
    """Counters of one port (a switch interface, or a host netdev with its RDMA device port)."""

    prio: dict[str, dict[int, int]] = field(default_factory=dict)
    port: dict[str, int] = field(default_factory=dict)
    gauges: dict[str, dict[int, int]] = field(default_factory=dict)
    #: priorities whose queue the PFC watchdog holds shut right now (None: not read)
    wd_shut: list[int] | None = None
    #: priorities whose watchdog state was read (None: none): a priority not listed here is not known to be
    #: open - a cut answer that lost its row says nothing about it
    wd_read: list[int] | None = None
    #: link counters (``LINK_COUNTERS``); a name absent was not read (never 0)
    link: dict[str, int] = field(default_factory=dict)
    #: optics readings (``OPTICS``) and the module's thresholds (``<reading>:<level>``, ``OPTICS_LEVELS``), signed
    #: decimals; None where nothing was read (no dict per port then: most answers carry no optics)
    optics: dict[str, float] | None = None

    def set_link(self, counter: str, value: int) -> None:
        if counter not in LINK_COUNTERS:
            raise KeyError(counter)
        if value >= 0:
            self.link[counter] = int(value)

    def set_optics(self, reading: str, value: float | None, thresholds: dict[str, float | None] | None = None,
                   lane: int | None = None) -> None:
        """One optics reading (``OPTICS``) and the module's thresholds for it (``OPTICS_LEVELS`` -> value); a
        value that is no finite number (``- Inf``, ``N/A``: None) is not kept, so it reads as not read. ``lane``:
        the lane of a multi-lane module the reading is of (kept as ``<reading>:lane``)."""
        if reading not in OPTICS:
            raise KeyError(reading)
        keys = OPTICS_KEYS[reading]
        got: dict[str, float] = {}
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            got[reading] = float(value)
        for level, v in (thresholds or {}).items():
            if level not in OPTICS_LEVELS:
                raise KeyError(level)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                got[keys[level]] = _shared(float(v))
        if lane is not None and reading in got:
            got[keys["lane"]] = _shared(float(lane))
        if got:
            if self.optics is None:
                self.optics = {}
            self.optics.update(got)

    def add_optics_of(self, other: PortCounters) -> None:
        """Take the optics readings and thresholds ``other`` holds (a port's module parsed on its own), over
        any this port holds for the same keys."""
        if other.optics:
            self.optics = {**(self.optics or {}), **other.optics}

    def set_worst_lane(self, reading: str, lanes: list[tuple[int, float | None, dict[str, float | None]]]) -> None:
        """A multi-lane module's reading: of its lanes ``(lane, value, thresholds)`` the one that is worst - past
        an alarm threshold, then past a warning one, then one missing a threshold, then the nearest to one - so
        one bad lane is never hidden by good ones. A lane without a value is skipped (every lane without one:
        only the thresholds are kept, the reading reads as not read)."""
        read = [x for x in lanes if x[1] is not None and math.isfinite(x[1])]
        if not read:
            for _lane, _v, th in lanes[:1]:
                self.set_optics(reading, None, th)
            return
        if len(read) == 1:  # its lane is named where the module has others (or it is not lane 1)
            lane, v, th = read[0]
            self.set_optics(reading, v, th, lane if len(lanes) > 1 or lane != 1 else None)
            return
        self.set_optics(reading, *max(((v, th, lane) for lane, v, th in read), key=lambda x: _badness(x[0], x[1])))

    def set_prio(self, counter: str, priority: int, value: int) -> None:
        if counter not in PRIO_COUNTERS:
            raise KeyError(counter)
        if 0 <= priority <= 7 and value >= 0:
            self.prio.setdefault(counter, {})[priority] = int(value)

    def add_prio(self, counter: str, priority: int, value: int) -> None:
        """Add to a per-priority counter (several vendor counters feed one neutral counter)."""
        if 0 <= priority <= 7 and value >= 0:
            d = self.prio.setdefault(counter, {})
            d[priority] = d.get(priority, 0) + int(value)

    def set_port(self, counter: str, value: int) -> None:
        if counter not in PORT_COUNTERS:
            raise KeyError(counter)
        if value >= 0:
            self.port[counter] = int(value)

    def set_gauge(self, gauge: str, priority: int, value: int) -> None:
        if gauge not in PRIO_GAUGES:
            raise KeyError(gauge)
        if 0 <= priority <= 7 and value >= 0:
            self.gauges.setdefault(gauge, {})[priority] = int(value)

    def shut(self, priority: int) -> None:
        self.wd_state(priority, True)

    def wd_state(self, priority: int, shut: bool) -> None:
        """The watchdog state of one priority's queue, as read (held shut or not)."""
        if not 0 <= priority <= 7:
            return
        if self.wd_shut is None:
            self.wd_shut = []
        if self.wd_read is None:
            self.wd_read = []
        if priority not in self.wd_read:
            self.wd_read = sorted([*self.wd_read, priority])
        if shut and priority not in self.wd_shut:
            self.wd_shut = sorted([*self.wd_shut, priority])

    def empty(self) -> bool:
        return not (self.prio or self.port or self.gauges or self.wd_shut)

    def has_health(self) -> bool:
        """Something ``health`` judges was read (a count, or the watchdog state): link counters alone are not."""
        return not self.empty() or self.wd_shut is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "prio": {k: {str(p): v for p, v in sorted(d.items())} for k, d in sorted(self.prio.items())},
            "port": dict(sorted(self.port.items())),
            "gauges": {k: {str(p): v for p, v in sorted(d.items())} for k, d in sorted(self.gauges.items())},
            "wd_shut": self.wd_shut,
            "wd_read": self.wd_read,
        }
        if self.link:  # only where read: a snapshot without link counters reads as before
            out["link"] = dict(sorted(self.link.items()))
        if self.optics:
            out["optics"] = dict(sorted(self.optics.items()))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PortCounters:
        return cls(
            prio={k: {int(p): int(v) for p, v in d.items()} for k, d in data.get("prio", {}).items()},
            port={k: int(v) for k, v in data.get("port", {}).items()},
            gauges={k: {int(p): int(v) for p, v in d.items()} for k, d in data.get("gauges", {}).items()},
            wd_shut=data.get("wd_shut"),
            wd_read=data.get("wd_read"),
            link={k: int(v) for k, v in data.get("link", {}).items()},
            optics={_OPTICS_KEY.get(k, k): float(v) for k, v in data["optics"].items()} if data.get("optics") else None,
        )


@dataclass
class Snapshot:
    """One read of one device: every port's counters at ``taken_at`` (seconds since the epoch)."""

    device: str
    platform: str
    taken_at: float
    ports: dict[str, PortCounters] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: when a port's own commands were answered, where they were sent one by one (more exact than taken_at)
    port_times: dict[str, float] = field(default_factory=dict)

    def time_of(self, port: str) -> float:
        return self.port_times.get(port, self.taken_at)

    def port(self, name: str) -> PortCounters:
        return self.ports.setdefault(name, PortCounters())

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "platform": self.platform,
            "taken_at": self.taken_at,
            "ports": {n: p.to_dict() for n, p in self.ports.items()},
            "warnings": self.warnings,
        }


def to_int(value: Any) -> int | None:
    """A counter value as an int: 1,234 / "1234" / 1234.0 / "N/A" (None). Never raises."""
    kind = type(value)
    if kind is int:  # the common cases first (bool is a subclass of int, never a count: its type is not int)
        return value if value >= 0 else None
    if kind is str:  # a plain string: the string path below, without the type tests on the way
        if value.isdigit() and len(value) <= 20:  # what the general path makes of it
            return int(value)
        s = value.strip().replace(",", "")
        return int(s) if s.isdigit() and len(s) <= 20 else None
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return int(value) if value >= 0 and value == value and value != float("inf") else None
    if isinstance(value, str):
        s = value.strip().replace(",", "")
        if s.isdigit() and len(s) <= 20:  # a 64-bit counter has at most 20 digits
            return int(s)
    return None


__all__ = [
    "LINK_COUNTERS",
    "OPTICS",
    "OPTICS_LEVELS",
    "PORT_COUNTERS",
    "PRIO_COUNTERS",
    "PRIO_GAUGES",
    "FEC_MODES",
    "ROCE_ERRORS",
    "PortCounters",
    "Snapshot",
    "fec_mode_code",
    "speed_bps",
    "optics_value",
    "to_int",
]


# ------------------------------------------------------------------------------------ platform contract
def same_commands(commands: list[str]) -> Callable[[dict[str, str | None]], list[str]]:
    """``CounterSpec.commands`` of a device that answers for all its ports at once (a switch): the same
    commands whatever ports the intent names."""

    def for_ports(ports: dict[str, str | None]) -> list[str]:
        return list(commands)

    return for_ports


@dataclass(frozen=True)
class CounterSpec:
    """What a platform's ``counters.py`` provides (``COUNTERS = CounterSpec(...)``).

    * ``commands(ports)``: the read-only commands to run, given the intent's ports of the device
      (port name -> RDMA device name for host NIC ports, None for switch ports);
    * ``parse(outputs)``: ``{command: output}`` -> ``(ports, warnings)``; never raises (garbage gives
      warnings and no ports);
    * ``simulate(ports, command, rdma)``: the output of one command, formatted like the device does, from
      counters (the loopback lab serves it); None where the command is not a counter command;
    * ``sources``: command -> the vendor document that defines the command and the fields read;
    * ``transport``: ``eapi-json`` (EOS eAPI, JSON results), ``cli`` (SSH CLI), ``shell`` (host bundle);
    * ``link_commands(ports)``: the commands whose answers carry the link counters (``LINK_COUNTERS``:
      FCS errors, FEC, carrier transitions, octets) that ``roceconf cabling`` samples; None where the platform
      reads none (no primary source for them: docs/cabling.md); ``parse`` reads their answers too;
    * ``link_sources``: command -> the document or recording that defines the link counters read from it;
    * ``link_reads``: the link counters (``LINK_COUNTERS`` names) and optics readings (``OPTICS``, each with the
      module's thresholds) ``parse`` reads from those answers, each
      defined by a source in ``link_sources``: a counter not listed is never read on the platform, so
      ``roceconf cabling`` reports the checks that need it as not observable (RC519), not as unknown.
    """

    commands: Any
    parse: Any
    simulate: Any
    sources: dict[str, str]
    transport: str = "cli"
    link_commands: Any = None
    link_sources: dict[str, str] = field(default_factory=dict)
    link_reads: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        bad = sorted(self.link_reads - LINK_COUNTERS.keys() - OPTICS.keys())
        if bad:
            raise ValueError(f"link_reads names no link counter: {', '.join(bad)}")
        if bool(self.link_reads) != (self.link_commands is not None) or bool(self.link_reads) != bool(
                self.link_sources):
            raise ValueError("link_reads, link_commands and link_sources go together: all given or none")
