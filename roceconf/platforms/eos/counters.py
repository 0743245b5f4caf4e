"""Arista EOS counters over eAPI (JSON results of show commands).

Sources (cited per command in ``SOURCES``):
* Arista EOS User Manual, "DCBX and Flow Control" (https://www.arista.com/um-eos/eos-dcbx-and-flow-control):
  ``show priority-flow-control counters [detail]`` (RxPfc / TxPfc pause frames) and
  ``show priority-flow-control counters watchdog`` (per tx-queue stuck / recovery counts; the JSON keys
  ``interfaces.<if>.txQueues.<queue>.stuckCount`` / ``recoveryCount`` are those public EOS automation reads).
* Arista EOS User Manual, "Quality of Service": ``show interfaces counters queue`` (per tx-queue packets and
  drops) and ``show qos interfaces ecn counters queue`` (ECN-marked packets per queue, needs
  ``random-detect ecn count``).
EOS has no per-priority pause *duration* counter in these commands: pause storms are judged from the pause
frame rate (see docs/health.md, RC303).
"""

from __future__ import annotations

import json
from typing import Any

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import jload, priority_of

PFC = "show priority-flow-control counters detail"
WATCHDOG = "show priority-flow-control counters watchdog"
QUEUES = "show interfaces counters queue"
ECN = "show qos interfaces ecn counters queue"
COMMANDS = [PFC, WATCHDOG, QUEUES, ECN]
SOURCES = {
    PFC: "Arista EOS User Manual, DCBX and Flow Control: show priority-flow-control counters detail (RxPfc/TxPfc per priority)",
    WATCHDOG: "Arista EOS User Manual, DCBX and Flow Control: show priority-flow-control counters watchdog (stuckCount/recoveryCount per tx-queue)",
    QUEUES: "Arista EOS User Manual, Quality of Service: show interfaces counters queue (per tx-queue dropped packets)",
    ECN: "Arista EOS User Manual, Quality of Service: show qos interfaces ecn counters queue (ECN-marked packets per tx-queue)",
}


def commands(ports: dict[str, str | None]) -> list[str]:
    return list(COMMANDS)


def _first(d: dict[str, Any], *names: str) -> int | None:
    for n in names:
        if n in d:
            v = to_int(d[n])
            if v is not None:
                return v
    return None


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    try:
        for cmd, text in outputs.items():
            data = jload(text)
            if not isinstance(data, dict):
                if text.strip():
                    warnings.append(f"{cmd}: not a JSON object")
                continue
            ifs = data.get("interfaces")
            if not isinstance(ifs, dict):
                continue
            for name, body in ifs.items():
                if not isinstance(body, dict):
                    continue
                pc = ports.setdefault(str(name), PortCounters())
                if cmd == PFC:
                    for prio, c in (body.get("priorities") or {}).items():
                        p = priority_of(prio)
                        if p is None or not isinstance(c, dict):
                            continue
                        rx, tx = _first(c, "rxPfcFrames", "rxFrames"), _first(c, "txPfcFrames", "txFrames")
                        if rx is not None:
                            pc.set_prio("pfc_rx", p, rx)
                        if tx is not None:
                            pc.set_prio("pfc_tx", p, tx)
                elif cmd == WATCHDOG:
                    pc.wd_shut = pc.wd_shut or []
                    for q, c in (body.get("txQueues") or {}).items():
                        p = priority_of(q)
                        if p is None or not isinstance(c, dict):
                            continue
                        stuck, rec = _first(c, "stuckCount"), _first(c, "recoveryCount")
                        if stuck is not None:
                            pc.set_prio("wd_detected", p, stuck)
                        if rec is not None:
                            pc.set_prio("wd_restored", p, rec)
                        if stuck is not None and rec is not None and stuck > rec:
                            pc.shut(p)  # stuck and not yet recovered: the watchdog holds the queue
                elif cmd == QUEUES:
                    for q, c in (body.get("ucastQueues") or {}).items():
                        p = priority_of(q)
                        v = _first(c, "droppedPackets") if isinstance(c, dict) else None
                        if p is not None and v is not None:
                            pc.set_prio("queue_drops", p, v)
                elif cmd == ECN:
                    for q, c in (body.get("txQueues") or {}).items():
                        p = priority_of(q)
                        v = _first(c, "ecnMarkedPackets") if isinstance(c, dict) else None
                        if p is not None and v is not None:
                            pc.set_prio("ecn_marked", p, v)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    return {n: p for n, p in ports.items() if not p.empty() or p.wd_shut is not None}, warnings


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    cmd = command.replace(" | json", "").strip()
    if cmd == PFC:
        out = {
            n: {
                "priorities": {
                    str(p): {
                        "rxPfcFrames": pc.prio.get("pfc_rx", {}).get(p, 0),
                        "txPfcFrames": pc.prio.get("pfc_tx", {}).get(p, 0),
                    }
                    for p in range(8)
                }
            }
            for n, pc in ports.items()
        }
    elif cmd == WATCHDOG:
        out = {}
        for n, pc in ports.items():
            det, res = pc.prio.get("wd_detected", {}), pc.prio.get("wd_restored", {})
            qs = {
                str(p): {"stuckCount": det[p], "recoveryCount": res.get(p, 0)} for p in sorted(det) if det[p]
            }
            if qs:  # EOS omits an interface until its first watchdog event
                out[n] = {"txQueues": qs}
    elif cmd == QUEUES:
        out = {
            n: {
                "ucastQueues": {
                    f"UC{p}": {"droppedPackets": pc.prio.get("queue_drops", {}).get(p, 0)} for p in range(8)
                }
            }
            for n, pc in ports.items()
        }
    elif cmd == ECN:
        out = {
            n: {
                "txQueues": {
                    str(p): {"ecnMarkedPackets": pc.prio.get("ecn_marked", {}).get(p, 0)} for p in range(8)
                }
            }
            for n, pc in ports.items()
        }
    else:
        return None
    return json.dumps({"interfaces": out})


COUNTERS = CounterSpec(
    commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="eapi-json"
)
