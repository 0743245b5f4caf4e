"""Juniper Junos counters over SSH, JSON output (``| display json``, every leaf wrapped as ``[{"data": v}]``).

Sources (``SOURCES``): Junos OS CLI reference, ``show interfaces queue`` (per queue tail-dropped, RED-dropped
and ECN-CE marked packets: ``queue-counters-tail-drop-packets``, ``queue-counters-red-packets``,
``queue-counters-ecn-ce-packets``) and ``show interfaces extensive`` ("MAC Priority Flow Control
Statistics": frames received / transmitted per priority). Junos reports no PFC pause duration and no PFC
watchdog counters in these commands: those rules cannot fire on Junos (docs/health.md says so). No public
recording of the JSON form with PFC statistics was found (tests/fixtures/junos/counters/README.md).
"""

from __future__ import annotations

import json
from typing import Any

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import jload

QUEUES = "show interfaces queue | display json"
PFC = "show interfaces extensive | display json"
COMMANDS = [PFC, QUEUES]
SOURCES = {
    QUEUES: "Junos OS CLI reference, show interfaces queue (queue-counters-tail-drop-packets, queue-counters-red-packets, queue-counters-ecn-ce-packets)",
    PFC: "Junos OS CLI reference, show interfaces extensive (MAC Priority Flow Control Statistics: received/transmitted per priority)",
}


def commands(ports: dict[str, str | None]) -> list[str]:
    return list(COMMANDS)


def _v(node: Any, key: str) -> Any:
    """Junos JSON leaf: {"key": [{"data": value}]} -> value."""
    if not isinstance(node, dict):
        return None
    x = node.get(key)
    if isinstance(x, list) and x and isinstance(x[0], dict):
        return x[0].get("data")
    return None


def _list(node: Any, key: str) -> list[dict[str, Any]]:
    x = node.get(key) if isinstance(node, dict) else None
    return [i for i in x if isinstance(i, dict)] if isinstance(x, list) else []


def _physical(data: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for info in _list(data, "interface-information"):
        out += _list(info, "physical-interface")
    return out


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
            for phy in _physical(data):
                name = _v(phy, "name")
                if not isinstance(name, str) or not name:
                    continue
                pc = ports.setdefault(name, PortCounters())
                for qc in _list(phy, "queue-counters"):
                    for q in _list(qc, "queue"):
                        p = to_int(_v(q, "queue-number"))
                        if p is None:
                            continue
                        drops = [
                            to_int(_v(q, k))
                            for k in ("queue-counters-tail-drop-packets", "queue-counters-red-packets")
                        ]
                        if any(d is not None for d in drops):
                            pc.set_prio("queue_drops", p, sum(d or 0 for d in drops))
                        ce = to_int(_v(q, "queue-counters-ecn-ce-packets"))
                        if ce is not None:
                            pc.set_prio("ecn_marked", p, ce)
                for st in _list(phy, "ethernet-pfc-statistics"):
                    for e in _list(st, "pfc-priority-statistics"):
                        p = to_int(_v(e, "pfc-priority"))
                        if p is None:
                            continue
                        for key, counter in (("pfc-received", "pfc_rx"), ("pfc-transmitted", "pfc_tx")):
                            v = to_int(_v(e, key))
                            if v is not None:
                                pc.set_prio(counter, p, v)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    return {n: p for n, p in ports.items() if not p.empty()}, warnings


def _d(value: Any) -> list[dict[str, str]]:
    return [{"data": str(value)}]


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    cmd = " ".join(command.split())
    if cmd not in (QUEUES, PFC):
        return None
    phys = []
    for n, pc in ports.items():
        g = lambda c, p, pc=pc: pc.prio.get(c, {}).get(p, 0)  # noqa: E731
        entry: dict[str, Any] = {"name": _d(n), "oper-status": _d("up")}
        if cmd == QUEUES:
            entry["queue-counters"] = [
                {
                    "queue": [
                        {
                            "queue-number": _d(p),
                            "queue-counters-queued-packets": _d(0),
                            "queue-counters-tail-drop-packets": _d(g("queue_drops", p)),
                            "queue-counters-red-packets": _d(0),
                            "queue-counters-ecn-ce-packets": _d(g("ecn_marked", p)),
                        }
                        for p in range(8)
                    ]
                }
            ]
        else:
            entry["ethernet-pfc-statistics"] = [
                {
                    "pfc-priority-statistics": [
                        {
                            "pfc-priority": _d(p),
                            "pfc-received": _d(g("pfc_rx", p)),
                            "pfc-transmitted": _d(g("pfc_tx", p)),
                        }
                        for p in range(8)
                    ]
                }
            ]
        phys.append(entry)
    return json.dumps({"interface-information": [{"physical-interface": phys}]}, indent=1)


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="cli")
