"""Cisco NX-OS: what the platform can state (``Capabilities``), each limit with its source."""

from __future__ import annotations

from roceconf.platforms.base import Capabilities, Fact
from roceconf.platforms.nxos.syntax import _KBYTE, ECMP_DOC, INTERFACES_GUIDE, QOS_GUIDE


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
    watchdog_fields=frozenset({"enabled", "detection_ms", "restoration_ms", "polling_ms"}),
    watchdog_actions=("drop",),
    class_mtu=True,
    watchdog_ranges=(("polling_ms", 100, 1000), ("detection_polls", 1, 10), ("restoration_polls", 1, 100)),
    watchdog_ranges_source=QOS_GUIDE + "m-configuring-priority-flow-control.html (PFC watchdog interval and "
    "multipliers)",
    ecn_quantum_bytes=_KBYTE,
    dscp_match_additive=True,
    every_dscp_mapped=True,
    unused_queues_round_robin=unused_queues,
    # NX-OS: no dynamic load balancing or QP hashing statement in a primary source roceconf holds (RC160,
    # RC161); extra_config lines are CLI text appended at the end (like EOS)
    extra_config=True,
    lb_source="no NX-OS DLB / QP-hashing source; extra_config: CLI lines at the end of the config",
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
        "PFC watchdog: on/off ('priority-flow-control watch-dog-interval'); the action is drop "
        f"({QOS_GUIDE}m-configuring-priority-flow-control.html). The timers are a watchdog interval "
        "('priority-flow-control watch-dog interval', the polling time) and multipliers of it: detection = "
        "'watch-dog shutdown-multiplier' x interval, restoration = 'auto-restore multiplier' x interval; "
        "validation refuses times that are not whole multiples of the polling time (RC131).",
        "ECN thresholds are rendered in kbytes (1 kbyte = 1000 bytes assumed).",
        "DSCP matches add up: a drift fix adds a moved DSCP to its intended class-map; the old class-map's "
        "match stays and the drift report asks for its removal by hand.",
        "ECMP: 'ip load-sharing address ... port ... [symmetric] universal-id <seed>' "
        f"({ECMP_DOC}); 'symmetric' is from secondary sources.",
    ),
)
