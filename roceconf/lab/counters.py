"""Moving counters for the loopback lab: every device counts between reads, and can act out scenarios.

The counters are a function of time since the lab started (rates per second below), formatted by the
platform's own ``counters.simulate`` - so the collector, the parsers and the rules see what a real device
would print. Which ports exist, which priorities are lossless and which traffic classes mark ECN come from
the device's running configuration (parsed with the platform's parser), so a lab built from roceconf's
rendered configs acts out a healthy fabric of that intent.

Scenarios (``--scenario NAME[@DEVICE[:PORT]]``; without DEVICE every device, without PORT every port):

* ``healthy`` (default): load with ECN marks, CNPs and a few pauses within bounds (both directions at the
  same rate on every lossless priority, so link partners agree); drops only on lossy queues;
* ``pfc-storm``: the port receives 40,000 PFC frames/s (95 % of the time paused) on its first lossless
  priority;
* ``watchdog``: the PFC watchdog detects one more storm on the first lossless priority at every read and
  holds that queue shut;
* ``lossless-drops``: 50 packets/s dropped on the first lossless priority (switch: egress queue; NIC:
  receive discards of that priority);
* ``ecn-no-cnp`` (NIC ports): ECN-marked RoCE packets keep arriving, no CNP is sent;
* ``misclassified-pause``: 30 PFC frames/s received on the lowest lossy priority;
* ``counter-reset``: the counters restart from zero once, right after the first read of each command;
* ``crc`` (link counters): the port counts 200 FCS/CRC errors per second;
* ``flap`` (link counters): the port's carrier goes down and up once more at every read (2 transitions);
* ``fec`` (link counters): the port counts 50 uncorrectable FEC codewords per second (only SONiC's answer
  carries FEC counters);
* ``ecmp-imbalance`` (link counters): the port sends 4 times the bytes of the others; without PORT, the
  device's first port;
* ``speed-mismatch`` (link counters): the port runs at half the speed its cable was laid at
  (``Lab.set_links(..., speeds=...)``: as a port that came up at a lower speed than its peer);
* ``fec-mismatch`` (link counters): the port's FEC mode is Fire-code (``fc``; ethtool ``BaseR``) where every
  other port runs RS-FEC (only SONiC's and the hosts' answers carry the FEC mode);
* ``optics`` (optics, DOM): the port's transceiver receives ``OPTICS_LOW_RX`` dBm, below its low alarm
  threshold (a dirty or broken fibre; the answers of the platforms that read optics carry it).

Link counters (``roceconf cabling``): every port sends and receives ``LINK_BYTES`` bytes per second, counts no
FCS errors and no uncorrectable FEC codewords (1,000 corrected per second) and has one carrier transition (the
link coming up), runs RS-FEC; a port whose cable was laid with a speed (``Lab.set_links(links, speeds)``) runs at
it (none is answered otherwise). Every port's transceiver reads ``OPTICS`` (received and sent power, module
temperature) within the thresholds of a recorded module (``OPTICS_THRESHOLDS``). Each platform serves the ones
its answer carries.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from roceconf.counters.model import PortCounters

SCENARIOS = (
    "healthy",
    "pfc-storm",
    "watchdog",
    "lossless-drops",
    "ecn-no-cnp",
    "misclassified-pause",
    "counter-reset",
    "crc",
    "fec",
    "flap",
    "ecmp-imbalance",
    "speed-mismatch",
    "fec-mismatch",
    "optics",
)
#: scenarios that only make sense on one kind of device
HOST_ONLY = frozenset({"ecn-no-cnp"})
SWITCH_ONLY = frozenset({"watchdog"})
#: counters have counted for a while before the lab started
BASE = 1_000_000
PFC_RATE, PFC_US = 20.0, 2_000.0  # healthy: 20 pauses/s each way, paused 0.2 % of the time
ECN_RATE, CNP_RATE = 500.0, 480.0
LOSSY_DROPS = 5.0
STORM_RATE, STORM_US = 40_000.0, 950_000.0
DROP_RATE, MISCLASS_RATE = 50.0, 30.0
#: the FEC modes the lab's ports run (codes of roceconf.counters.model.FEC_MODES): RS-FEC, Fire-code with fec-mismatch
FEC_RS, FEC_FC = 3, 2
LINK_BYTES = 1.25e9  # 10 Gb/s each way on every port
CRC_RATE, FEC_CORRECTED, FEC_UNCORRECTABLE = 200.0, 1_000.0, 50.0
#: every port's optics readings, within the thresholds below
OPTICS = {"rx_power_dbm": -2.5, "tx_power_dbm": -1.5, "temperature_c": 41.0}
#: the module thresholds of napalm's recorded Junos SFP+ reply (tests/fixtures/junos/counters/real/)
OPTICS_THRESHOLDS = {
    "rx_power_dbm": {"high_alarm": 2.5, "high_warn": 2.0, "low_warn": -18.01, "low_alarm": -20.0},
    "tx_power_dbm": {"high_alarm": 2.0, "high_warn": 1.0, "low_warn": -7.01, "low_alarm": -8.01},
    "temperature_c": {"high_alarm": 78.0, "high_warn": 73.0, "low_warn": -8.0, "low_alarm": -13.0},
}
OPTICS_LOW_RX = -24.5  # optics: received power, below the low alarm threshold
HOT = 4.0  # ecmp-imbalance: the hot port's bytes, times the others'


@dataclass
class PortProfile:
    lossless: list[int]
    ecn: list[int]


@dataclass
class Scenario:
    name: str
    port: str | None = None  # None: every port of the device

    def applies(self, port: str) -> bool:
        return self.port is None or self.port == port


def parse_scenario(text: str) -> tuple[str, str | None, str | None]:
    """``NAME[@DEVICE[:PORT]]`` -> (name, device, port); ValueError with a one-line reason."""
    name, _, where = text.partition("@")
    device, _, port = where.partition(":")
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    if "@" in text and not device:
        raise ValueError(f"scenario {text!r}: no device after '@'")
    if ":" in where and not port:
        raise ValueError(f"scenario {text!r}: no port after ':'")
    return name, device or None, port or None


def profiles(platform: str, config: str, is_host: bool) -> dict[str, PortProfile]:
    """Ports of a device and their lossless / ECN priorities, from its running configuration."""
    from roceconf.platforms import get
    from roceconf.state import DeviceState

    state = DeviceState.model_validate(json.loads(config)) if is_host else get(platform).parse(config)
    out = {}
    for name, itf in state.interfaces.items():
        out[name] = PortProfile(
            sorted(itf.pfc.no_drop or []), sorted(int(k) for k in itf.ecn if str(k).isdigit())
        )
    return out


def rdma_devices(config: str) -> dict[str, str | None]:
    from roceconf.state import DeviceState

    state = DeviceState.model_validate(json.loads(config))
    return {n: (i.rdma.device if i.rdma else None) for n, i in state.interfaces.items()}


@dataclass
class LabCounters:
    """The counter engine of one device."""

    is_host: bool
    t0: float = field(default_factory=time.time)
    scenarios: list[Scenario] = field(default_factory=list)
    #: command -> (reads so far, time of the first read)
    reads: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: port -> the speed its cable was laid at, bits/s (``Lab.set_links``); a port not listed answers no speed
    speeds: dict[str, int] = field(default_factory=dict)

    def set_scenarios(self, scenarios: list[Scenario]) -> None:
        self.scenarios = [s for s in scenarios if s.name != "healthy"]
        self.reads.clear()

    def read(
        self, command: str, ports: dict[str, PortProfile], now: float | None = None
    ) -> dict[str, PortCounters]:
        now = time.time() if now is None else now
        n, first = self.reads.get(command, (0, now))
        n += 1
        self.reads[command] = (n, first)
        first_port = next(iter(ports), None)
        return {name: self._port(name, prof, now, n, first, name == first_port) for name, prof in ports.items()}

    def _port(
        self, name: str, prof: PortProfile, now: float, n: int, first: float, first_port: bool = False
    ) -> PortCounters:
        active = {s.name for s in self.scenarios if s.applies(name)}
        # ecmp-imbalance without a port makes the device's first port the hot one (every port hot is balanced)
        if any(s.name == "ecmp-imbalance" and s.port is None for s in self.scenarios) and not first_port:
            active.discard("ecmp-imbalance")
        reset = "counter-reset" in active and n >= 2
        elapsed = (now - first) if reset else (now - self.t0)
        base = 0 if reset else BASE

        def c(rate: float) -> int:
            return int(base + rate * elapsed)

        pc = PortCounters()
        hot = HOT if "ecmp-imbalance" in active else 1.0
        pc.set_link("rx_octets", c(LINK_BYTES))
        pc.set_link("tx_octets", c(LINK_BYTES * hot))
        pc.set_link("fcs_errors", c(CRC_RATE if "crc" in active else 0.0))
        pc.set_link("fec_corrected", c(FEC_CORRECTED))
        pc.set_link("fec_uncorrectable", c(FEC_UNCORRECTABLE if "fec" in active else 0.0))
        pc.set_link("carrier_transitions", 1 + (2 * n if "flap" in active else 0))
        pc.set_link("fec_mode", FEC_FC if "fec-mismatch" in active else FEC_RS)
        if name in self.speeds:
            pc.set_link("speed_bps", self.speeds[name] // (2 if "speed-mismatch" in active else 1))
        for reading, v in OPTICS.items():
            low_rx = reading == "rx_power_dbm" and "optics" in active
            pc.set_optics(reading, OPTICS_LOW_RX if low_rx else v, dict(OPTICS_THRESHOLDS[reading]))
        lossless = prof.lossless
        p = lossless[0] if lossless else None
        lossy = next((q for q in range(8) if q not in lossless), None)
        for q in range(8):
            rx = tx = rx_us = tx_us = 0.0
            if q in lossless:
                rx = tx = PFC_RATE
                rx_us = tx_us = PFC_US
            if q == p and "pfc-storm" in active:
                rx, rx_us = STORM_RATE, STORM_US
            if q == lossy and "misclassified-pause" in active:
                rx, rx_us = MISCLASS_RATE, 1_500.0
            pc.set_prio("pfc_rx", q, c(rx))
            pc.set_prio("pfc_tx", q, c(tx))
            pc.set_prio("pfc_rx_us", q, c(rx_us))
            pc.set_prio("pfc_tx_us", q, c(tx_us))
            drops = LOSSY_DROPS if (q == lossy and not self.is_host) else 0.0
            if q == p and "lossless-drops" in active:
                drops = DROP_RATE
            if self.is_host:
                pc.set_prio("pg_drops", q, c(drops))
            else:
                pc.set_prio("queue_drops", q, c(drops))
                pc.set_prio("pg_drops", q, c(0))
                pc.set_prio("ecn_marked", q, c(ECN_RATE if q in prof.ecn else 0.0))
                if q in lossless:
                    pc.set_gauge("queue_watermark_bytes", q, 120_000 + (int(now * 1000) % 7) * 1_000)
        if not self.is_host:
            for q in range(8):
                pc.wd_state(q, False)
            if p is not None and "watchdog" in active:
                pc.set_prio("wd_detected", p, 2 + (n - 1))
                pc.set_prio("wd_restored", p, 2)
                pc.shut(p)
        else:
            cnp = 0.0 if "ecn-no-cnp" in active else ECN_RATE
            pc.set_port("ecn_roce_rx", c(ECN_RATE))
            pc.set_port("cnp_sent", c(cnp))
            pc.set_port("cnp_received", c(CNP_RATE))
            pc.set_port("cnp_handled", c(CNP_RATE))
            pc.set_port("cnp_ignored", c(0))
            for e in (
                "out_of_sequence",
                "packet_seq_err",
                "local_ack_timeout_err",
                "implied_nak_seq_err",
                "rx_discards_phy",
            ):
                pc.set_port(e, c(0))
        return pc


def needs(name: str, is_host: bool) -> str | None:
    """Why a scenario cannot run on this kind of device (None: it can)."""
    if name in HOST_ONLY and not is_host:
        return f"scenario {name} acts on host NIC counters (CNPs); give a host"
    if name in SWITCH_ONLY and is_host:
        return f"scenario {name} acts on a switch's PFC watchdog; give a switch"
    return None


def describe(ports: dict[str, Any]) -> str:
    return ", ".join(sorted(ports))


__all__ = ["SCENARIOS", "LabCounters", "PortProfile", "Scenario", "needs", "parse_scenario", "profiles"]
