"""Broken SONiC CONFIG_DB fragments: the lab fragment with one defect each, as a device would refuse it.

Each mutation names what SONiC's YANG refuses (sonic-net/sonic-buildimage src/sonic-yang-models).
tests/conformance/test_sonic_yang.py requires yanglint (or the translator) to reject every one, and
tests/lab/test_refuse_oracles.py requires the lab's simulated SONiC `config load` to refuse every one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests.conformance.corpus import ROOT

LAB = ROOT / "tests" / "golden" / "leaf3.json"


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict], None]:
    def fn(d: dict) -> None:
        cur = d
        for p in path[:-1]:
            cur = cur.setdefault(p, {})
        cur[path[-1]] = value

    return fn


MUTATIONS: list[tuple[str, str, Callable[[dict], None]]] = [
    (
        "pfc_enable range form",
        "sonic-port-qos-map.yang pattern ([0-7](,[0-7])*)?",
        _set(("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "3-4"),
    ),
    ("DSCP 64", "sonic-dscp-tc-map.yang: Invalid DSCP", _set(("DSCP_TO_TC_MAP", "ROCE", "64"), "3")),
    ("TC 16", "sonic-dscp-tc-map.yang: Invalid Traffic Class", _set(("DSCP_TO_TC_MAP", "ROCE", "26"), "16")),
    (
        "scheduler type WFQ",
        "sonic-scheduler.yang type enumeration",
        _set(("SCHEDULER", "ROCE_STRICT", "type"), "WFQ"),
    ),
    (
        "scheduler weight 0",
        "sonic-scheduler.yang weight range",
        _set(("SCHEDULER", "ROCE_DWRR_50", "weight"), "0"),
    ),
    (
        "wred ecn mode",
        "sonic-wred-profile.yang ecn enumeration",
        _set(("WRED_PROFILE", "ROCE_ECN_150000_1500000_100", "ecn"), "ecn_everything"),
    ),
    ("port mtu 9217", "sonic-port.yang mtu range 68..9216", _set(("PORT", "Ethernet0", "mtu"), "9217")),
    (
        "undefined DSCP map",
        "sonic-port-qos-map.yang dscp_to_tc_map leafref",
        _set(("PORT_QOS_MAP", "Ethernet0", "dscp_to_tc_map"), "NOPE"),
    ),
    (
        "undefined scheduler",
        "sonic-queue.yang scheduler leafref",
        _set(("QUEUE", "Ethernet0|0", "scheduler"), "NOPE"),
    ),
    (
        "watchdog action",
        "sonic-pfcwd.yang action enumeration",
        _set(("PFC_WD", "Ethernet0", "action"), "shutdown"),
    ),
    (
        "buffer PG 3-8",
        "sonic-buffer-pg.yang pg_num pattern",
        _set(("BUFFER_PG", "Ethernet0|3-8"), {"profile": "NULL"}),
    ),
    (
        "buffer PG profile",
        "sonic-buffer-pg.yang profile leafref or NULL",
        _set(("BUFFER_PG", "Ethernet0|3", "profile"), "no_such_profile"),
    ),
    (
        "hash field",
        "sonic-hash.yang hash-field enumeration",
        _set(("SWITCH_HASH", "GLOBAL", "ecmp_hash"), ["SRC_IPX"]),
    ),
    (
        "unknown field",
        "no such leaf in PORT_QOS_MAP_LIST (translator: All Keys are not parsed)",
        _set(("PORT_QOS_MAP", "Ethernet0", "pfc_enabled"), "3"),
    ),
    (
        "port not in PORT",
        "PORT_QOS_MAP ifname leafref to PORT",
        _set(("PORT_QOS_MAP", "Ethernet999"), {"pfc_enable": "3"}),
    ),
]


def lab_fragment() -> dict[str, Any]:
    return json.loads(LAB.read_text())


def broken(fn: Callable[[dict], None]) -> dict[str, Any]:
    d = copy.deepcopy(lab_fragment())
    fn(d)
    return d
