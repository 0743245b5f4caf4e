"""Health rules RC300-RC349: what the counters of a running fabric say about its lossless configuration.

Registered in the same catalogue as the validation rules (``roceconf.intent.rules.RULES``), so
``docs/rules.md`` lists them; docs/health.md gives each one's threshold, reasoning and source.
"""

from __future__ import annotations

from dataclasses import dataclass

from roceconf.intent.rules import Rule, rule

#: IEEE 802.1Qbb: a PFC pause time is counted in quanta of 512 bit times; the largest is 65535 quanta.
PAUSE_QUANTUM_BITS = 512
MAX_PAUSE_QUANTA = 65535


@dataclass(frozen=True)
class Thresholds:
    #: RC303: share of the interval a port may spend paused by received PFC before it is a storm
    storm_share: float = 0.5
    #: RC310: a partner must count at least this share of the pauses the other end sent ...
    partner_share: float = 0.5
    #: ... once the sender sends at least this many pause frames per second
    partner_min_rate: float = 1.0


DEFAULT = Thresholds()

R_LOSSLESS_DROPS = rule(
    "RC300",
    "critical",
    "Drops or discards on a lossless priority",
    "find where the priority is not paused in time: PFC no-drop on both link ends, PFC headroom, trust/DSCP map",
    "a lossless priority must never drop: one drop costs a RoCE go-back-N retransmission of the whole window",
)
R_WATCHDOG = rule(
    "RC301",
    "critical",
    "PFC watchdog fired or restored during the interval",
    "find the device that keeps sending pauses (follow PFC-received upstream) and fix its stuck receiver",
    "the watchdog drops (or forwards lossy) a stormed lossless queue: RDMA traffic on it is being lost",
)
R_WATCHDOG_SHUT = rule(
    "RC302",
    "critical",
    "Queue held shut by the PFC watchdog",
    "the storm is still on: find the pausing partner; the queue is restored when pauses stop",
    "a queue the watchdog holds drops (or forwards lossy) every packet of the lossless priority",
)
R_STORM = rule(
    "RC303",
    "critical",
    "Pause storm: the port is paused most of the time",
    "find the partner that keeps pausing (a stuck NIC, a receiver without buffer) before the storm spreads",
    "a paused port stops every flow of the priority behind it; pauses spread upstream (head-of-line blocking, deadlock)",
)
R_LOSSY_PAUSE = rule(
    "RC304",
    "warning",
    "Pause frames on a priority the intent makes lossy",
    "check trust and the DSCP/PCP map on both ends: traffic of this priority is classified into the wrong class",
    "a pause on a lossy priority means one end treats it as lossless: a classification or trust mismatch",
)
R_ECN_UNEXPECTED = rule(
    "RC305",
    "warning",
    "ECN marks on a class the intent gives no ECN",
    "check the ECN / WRED profile of the queue and the DSCP map: RoCE may land in another queue",
    "marks where none are configured mean traffic lands in an unexpected queue or a stale ECN profile is active",
)
R_NO_CNP = rule(
    "RC306",
    "critical",
    "ECN-marked RoCE packets arrive but the NIC sends no CNPs",
    "enable the DCQCN notification point for the RoCE priority and check the CNP DSCP/priority",
    "without CNPs senders never slow down: congestion control is not working and queues grow to XOFF (pauses)",
)
R_CNP_IGNORED = rule(
    "RC307",
    "warning",
    "CNPs arrive but the reaction point ignores them",
    "enable the DCQCN reaction point for the priority the CNPs arrive on",
    "a sender that ignores CNPs keeps its rate: ECN cannot relieve congestion and PFC takes over",
)
R_ROCE_ERRORS = rule(
    "RC308",
    "critical",
    "RoCE sequence errors or ACK timeouts rising",
    "packets are lost on the path: look for drops (RC300), storms and lossy hops between the hosts",
    "out-of-sequence packets, NAKs and ACK timeouts are RoCE retransmissions: packets were lost on the path",
)
R_RESET = rule(
    "RC309",
    "warning",
    "Counter went backwards (reboot or clear)",
    "read again: the interval cannot be judged for these counters",
    "a counter that went backwards was cleared or the device restarted; no rate is computed from it",
)
R_PARTNER = rule(
    "RC310",
    "warning",
    "Pauses sent are not seen by the link partner",
    "check PFC on the partner's port for this priority, and the cabling in the intent",
    "the partner ignores (or does not count) pauses: on a lossless priority it keeps sending and the sender drops",
)
R_PHY_DISCARDS = rule(
    "RC311",
    "warning",
    "Physical-port discards on a NIC port that carries lossless traffic",
    "check the NIC's PFC setting and receive buffer; compare with the switch port's pauses",
    "the NIC dropped packets for lack of buffer; the counter names no priority, so RoCE may be among them",
)

ALL: tuple[Rule, ...] = (
    R_LOSSLESS_DROPS,
    R_WATCHDOG,
    R_WATCHDOG_SHUT,
    R_STORM,
    R_LOSSY_PAUSE,
    R_ECN_UNEXPECTED,
    R_NO_CNP,
    R_CNP_IGNORED,
    R_ROCE_ERRORS,
    R_RESET,
    R_PARTNER,
    R_PHY_DISCARDS,
)


def max_pause_seconds(speed_gbps: float) -> float:
    """The longest pause one PFC frame can ask for at a link speed (65535 quanta of 512 bit times)."""
    return MAX_PAUSE_QUANTA * PAUSE_QUANTUM_BITS / (speed_gbps * 1e9)
