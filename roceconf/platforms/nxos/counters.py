"""Cisco NX-OS counters over SSH, JSON output (``| json``).

Sources (``SOURCES``): Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, Release 10.5(x),
chapters "Configuring Priority Flow Control" (``show interface priority-flow-control detail``: RxPPP /
TxPPP per CoS; ``show queuing pfc-queue detail``: PFC watchdog state and storm / restore counts per queue)
and "Configuring Queuing and Scheduling" (``show queuing interface``: per qos-group egress Tx / Dropped /
ECN-marked packets and ingress MMU drops). The JSON keys follow NX-OS's TABLE_x / ROW_x convention for those
tables; no public recording of the JSON form was found (tests/fixtures/nxos/counters/README.md).
NX-OS reports no pause duration in these commands: pause storms are judged from the pause frame rate.
"""

from __future__ import annotations

import json

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import dig, jload, rows

PFC = "show interface priority-flow-control detail | json"
WATCHDOG = "show queuing pfc-queue detail | json"
QUEUING = "show queuing interface | json"
COMMANDS = [PFC, WATCHDOG, QUEUING]
_GUIDE = "Cisco Nexus 9000 NX-OS QoS Configuration Guide 10.5(x)"
SOURCES = {
    PFC: f"{_GUIDE}, Configuring Priority Flow Control: show interface priority-flow-control detail (RxPPP/TxPPP per CoS)",
    WATCHDOG: f"{_GUIDE}, Configuring Priority Flow Control: show queuing pfc-queue detail (watchdog state, stormed/restored counts)",
    QUEUING: f"{_GUIDE}, Configuring Queuing and Scheduling: show queuing interface (Dropped Pkts, ECN marked, Ingress MMU Drop Pkts per qos-group)",
}
_STAT = {"Dropped Pkts": "queue_drops", "ECN": "ecn_marked"}


def commands(ports: dict[str, str | None]) -> list[str]:
    return list(COMMANDS)


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    try:
        for cmd, text in outputs.items():
            data = jload(text)
            if not isinstance(data, dict):
                if text.strip():
                    warnings.append(f"{cmd}: not JSON")
                continue
            if cmd == PFC:
                for r in rows(dig(data, "TABLE_ppp", "ROW_ppp")):
                    pc = ports.setdefault(str(r.get("if_name", "")), PortCounters())
                    for c in rows(dig(r, "TABLE_cos", "ROW_cos")):
                        p = to_int(c.get("cos"))
                        if p is None:
                            continue
                        for key, counter in (("rx_ppp", "pfc_rx"), ("tx_ppp", "pfc_tx")):
                            v = to_int(c.get(key))
                            if v is not None:
                                pc.set_prio(counter, p, v)
            elif cmd == WATCHDOG:
                for r in rows(dig(data, "TABLE_pfc_queue", "ROW_pfc_queue")):
                    pc = ports.setdefault(str(r.get("if_name", "")), PortCounters())
                    p = to_int(r.get("cos"))
                    if pc.wd_shut is None:
                        pc.wd_shut = []
                    if p is None:
                        continue
                    for key, counter in (("stormed_count", "wd_detected"), ("restored_count", "wd_restored")):
                        v = to_int(r.get(key))
                        if v is not None:
                            pc.set_prio(counter, p, v)
                    if str(r.get("state", "")).lower() in ("stormed", "shutdown", "shut"):
                        pc.shut(p)
            elif cmd == QUEUING:
                for r in rows(dig(data, "TABLE_queuing_interface", "ROW_queuing_interface")):
                    pc = ports.setdefault(str(r.get("if_name_str", "")), PortCounters())
                    for g in rows(dig(r, "TABLE_qosgrp_egress_stats", "ROW_qosgrp_egress_stats")):
                        p = to_int(g.get("eq-qosgrp"))
                        if p is None:
                            continue
                        for e in rows(
                            dig(g, "TABLE_qosgrp_egress_stats_entry", "ROW_qosgrp_egress_stats_entry")
                        ):
                            counter = _STAT.get(str(e.get("eq-stat-type")))
                            v = to_int(e.get("eq-uc-stat-value"))
                            if counter and v is not None:
                                pc.set_prio(counter, p, v)
                    for g in rows(dig(r, "TABLE_ingress_mmu_stats", "ROW_ingress_mmu_stats")):
                        p, v = to_int(g.get("eq-qosgrp")), to_int(g.get("ingress-mmu-drop-pkts"))
                        if p is not None and v is not None:
                            pc.set_prio("pg_drops", p, v)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    ports.pop("", None)
    return {n: p for n, p in ports.items() if not p.empty() or p.wd_shut is not None}, warnings


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    def g(pc: PortCounters, c: str, p: int) -> int:
        return pc.prio.get(c, {}).get(p, 0)

    cmd = " ".join(command.split())
    if cmd == PFC:
        data = {
            "TABLE_ppp": {
                "ROW_ppp": [
                    {
                        "if_name": n,
                        "TABLE_cos": {
                            "ROW_cos": [
                                {"cos": p, "rx_ppp": g(pc, "pfc_rx", p), "tx_ppp": g(pc, "pfc_tx", p)}
                                for p in range(8)
                            ]
                        },
                    }
                    for n, pc in ports.items()
                ]
            }
        }
    elif cmd == WATCHDOG:
        rws = []
        for n, pc in ports.items():
            for p in sorted(set(pc.prio.get("wd_detected", {})) | set(pc.wd_shut or [])):
                rws.append(
                    {
                        "if_name": n,
                        "cos": p,
                        "state": "Stormed" if p in (pc.wd_shut or []) else "Monitoring",
                        "stormed_count": g(pc, "wd_detected", p),
                        "restored_count": g(pc, "wd_restored", p),
                    }
                )
        data = {"TABLE_pfc_queue": {"ROW_pfc_queue": rws}}
    elif cmd == QUEUING:
        data = {
            "TABLE_queuing_interface": {
                "ROW_queuing_interface": [
                    {
                        "if_name_str": n,
                        "TABLE_qosgrp_egress_stats": {
                            "ROW_qosgrp_egress_stats": [
                                {
                                    "eq-qosgrp": p,
                                    "TABLE_qosgrp_egress_stats_entry": {
                                        "ROW_qosgrp_egress_stats_entry": [
                                            {"eq-stat-type": "Tx Pkts", "eq-uc-stat-value": 0},
                                            {
                                                "eq-stat-type": "Dropped Pkts",
                                                "eq-uc-stat-value": g(pc, "queue_drops", p),
                                            },
                                            {
                                                "eq-stat-type": "ECN",
                                                "eq-uc-stat-value": g(pc, "ecn_marked", p),
                                            },
                                        ]
                                    },
                                }
                                for p in range(8)
                            ]
                        },
                        "TABLE_ingress_mmu_stats": {
                            "ROW_ingress_mmu_stats": [
                                {"eq-qosgrp": p, "ingress-mmu-drop-pkts": g(pc, "pg_drops", p)}
                                for p in range(8)
                            ]
                        },
                    }
                    for n, pc in ports.items()
                ]
            }
        }
    else:
        return None
    return json.dumps(data, indent=1)


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="cli")
