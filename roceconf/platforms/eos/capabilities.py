"""Arista EOS: what the platform can state (``Capabilities``), each limit with its source."""

from __future__ import annotations

from roceconf.platforms.base import ALL_PORT_FIELDS, Capabilities, Fact
from roceconf.platforms.eos.syntax import (
    _ANNET,
    _AVD,
    _AVD_PFC_SCHEMA,
    _AVD_QOS_PROFILES,
    _STIG_DSCP,
    unused_queues,
)

CAPABILITIES = Capabilities(
    min_mtu=Fact(68, "EOS interface 'mtu <68-9214>' (CLI range; not confirmed in a primary source)"),
    max_mtu=Fact(
        9214,
        "EOS maximum L3 MTU on most platforms; AVD uses 9214 as its default p2p uplink MTU "
        f"({_AVD}: eos_designs p2p_uplinks_mtu). Platform-specific maxima not confirmed.",
    ),
    max_lossless_priorities=Fact(
        8,
        f"'priority-flow-control priority <0-7> no-drop' accepts every priority ({_AVD_PFC_SCHEMA}); "
        "the number of lossless priorities the ASIC buffers can hold is platform specific and unconfirmed",
    ),
    # Every RoCE field can differ per port: each port attaches its own qos profile and may override it.
    per_port=ALL_PORT_FIELDS,
    hash_fields=("dst_ip", "dst_port", "ingress_port", "src_ip", "src_port"),
    hash_seed=False,
    hash_symmetric=False,
    watchdog_fields=frozenset({"detection_ms", "restoration_ms", "polling_ms"}),
    watchdog_actions=("drop",),
    # AVD's schema allows two decimals for the watchdog timers (pattern '\\d+(\\.\\d{1,2})?' on
    # priority_flow_control.watchdog.timeout/recovery_time/polling_interval): 10 ms resolution
    watchdog_quantum_ms=10,
    ecn_quantum_bytes=1,
    ecn=True,
    scheduling=True,
    every_dscp_mapped=True,
    unused_queues_round_robin=unused_queues,
    round_robin_demotes_lower=True,
    # 'ip hardware fib load-balance distribution dynamic': AVD eos_cli_config_gen schema
    # ip_hardware.fib.load_balance_distribution.dynamic.enabled ("Enable dynamic load balancing") and its
    # template j2templates/eos/ip-hardware.j2; no flowlet-gap or other mode key (refused, RC160)
    dlb_modes=(("platform", "dynamic"),),
    extra_config=True,
    lb_source=f"{_AVD}: pyavd/_eos_cli_config_gen schema ip_hardware.fib.load_balance_distribution.dynamic, "
    "templates eos/ip-hardware.j2 (DLB) and the top-level eos_cli key (raw lines at the end of the config); no "
    "BTH destination-QP hash field in the schema or in 'ip load-sharing' (refused, RC161)",
    notes=(
        "Every DSCP has a home: a DSCP without a 'qos map dscp' line keeps the EOS default traffic class "
        "(DSCP / 8), so the desired state maps all 64 DSCPs (the intent's default class takes the rest; "
        f"several DSCPs per line as in {_STIG_DSCP}), and every queue the intent does not use is set to "
        "'no priority' (round robin) instead of the strict-priority default (Sand: queue 7 excepted) - except "
        "the queues above the highest strict queue (CNP): EOS serves strict queues only above the round-robin "
        "ones, higher queue first, so a round-robin queue 7 would take queue 6 out of strict priority; an "
        "unused queue above the CNP queue keeps its strict default (nothing maps to it).",
        "Hash fields: 'ip load-sharing trident fields ip source-ip source-port destination-ip "
        f"destination-port ingress-interface' ({_ANNET}; secondary source). That field set is the hidden "
        "default, so an absent line is reported as unknown (None), not as the default.",
        "Hash seed: no EOS command for the ECMP hash seed was found in a primary source (Arista AVD's "
        "eos_cli_config_gen schema has no seed key); hash_seed=False, a seed in the intent is reported "
        "(warning RC150: not configured) and rendered as a comment only.",
        "Symmetric hashing: no confirmed EOS syntax; not expressed.",
        "PFC watchdog: timers are global ('priority-flow-control pause watchdog default timeout|"
        f"recovery-time|polling-interval <seconds>', {_AVD_PFC_SCHEMA}); the watchdog is armed per port or "
        "profile ('priority-flow-control pause watchdog'), so PfcWatchdog.enabled is not expressed. "
        "Global actions are drop | no-drop (| errdisable, the default); only 'drop' has a confirmed "
        "vendor-neutral meaning, 'no-drop' and 'errdisable' are reported as warnings.",
        "ECN thresholds are rendered in 'bytes' (unit list bytes|kbytes|mbytes|segments|milliseconds from "
        f"{_AVD_QOS_PROFILES}); when parsing, kbytes/mbytes are read as 1000/1000000 bytes (decimal, as in "
        "roceconf.units; the EOS multiplier is unconfirmed) and segments/time units stay unknown.",
        "Queues: rendered as 'uc-tx-queue N' (Trident/Tomahawk); 'tx-queue N' (Sand) is parsed too.",
        "MTU: EOS 'mtu' is the L3 MTU of a routed port; 'l2 mtu' is reported as a warning.",
    ),
)
