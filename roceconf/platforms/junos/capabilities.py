"""Juniper Junos: what the platform can state (``Capabilities``), each limit with its source."""

from __future__ import annotations

from roceconf.platforms.base import ALL_PORT_FIELDS, Capabilities, Fact
from roceconf.platforms.junos.syntax import (
    DOC_CNP,
    DOC_DROP_PROFILES,
    DOC_HASH,
    DOC_MTU,
    DOC_WATCHDOG,
    JUNOS_HASH_FIELDS,
    JVD_CONFIG,
    WD_RANGES,
    YANG_COS,
)

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
    # forwarding-options enhanced-hash-key ecmp-dlb (assigned-flow | flowlet [inactivity-interval <us>] |
    # per-packet): Juniper YANG 23.4R1 junos-qfx-conf-forwarding-options / junos-conf-forwarding-options
    # (container ecmp-dlb, choice mode; flowlet is marked "(default)", inactivity-interval default 256)
    dlb_modes=(
        ("platform", "flowlet"),
        ("flowlet", "flowlet"),
        ("per-packet", "per-packet"),
        ("assigned-flow", "assigned-flow"),
    ),
    dlb_flowlet_gap=True,
    # "Queue-Pair Hashing for RDMA Flows" (Junos OS Evolved AI-ML guide, juniper.net/documentation/us/en/
    # software/junos/ai-ml-evo/topics/topic-map/load-balancing-queue-pair-hash.html): on by default for
    # RoCEv2 on supported devices and releases, "No configuration is required"; disabled on LAGs with DLB
    hash_dest_qp="default",
    extra_config=True,
    lb_source="Juniper YANG 23.4R1 (github.com/Juniper/yang) enhanced-hash-key ecmp-dlb; Junos OS Evolved "
    "AI-ML guide 'Queue-Pair Hashing for RDMA Flows'",
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
