"""NVIDIA Cumulus Linux (NVUE) counters over SSH: ``nv show interface <port> ... -o json`` per port.

Sources (``SOURCES``): NVIDIA Cumulus Linux 5.x user guide, "Quality of Service" / "RDMA over Converged
Ethernet - RoCE" (``nv show interface <port> counters qos pfc-stats``: Rx/Tx pause frames and pause
duration per switch priority; ``... counters qos egress-queue-stats``: Tx frames, Tx unicast buffer
discards, WRED discards, ECN-marked packets per traffic class; ``... counters qos ingress-buffer-stats``:
ingress buffer discards per priority group) and "PFC watchdog" (``nv show interface <port> qos pfc-watchdog
status``: status and deadlock count per switch priority). Pause durations are in microseconds (the Spectrum
``rx_pause_duration`` / ``tx_pause_duration`` port counters). No public recording of the JSON form was found
(tests/fixtures/nvue/counters/README.md).
"""

from __future__ import annotations

import json
import re

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import jload, priority_of

_GUIDE = "NVIDIA Cumulus Linux 5.x user guide"
_KINDS = {
    "counters qos pfc-stats": f"{_GUIDE}, Quality of Service: pfc-stats (rx/tx-pause-frames, rx/tx-pause-duration per switch priority)",
    "counters qos egress-queue-stats": f"{_GUIDE}, Quality of Service: egress-queue-stats (tx-uc-buffer-discards, wred-discards, ecn-marked-packets per traffic class)",
    "counters qos ingress-buffer-stats": f"{_GUIDE}, Quality of Service: ingress-buffer-stats (rx-buffer-discards per priority group)",
    "qos pfc-watchdog status": f"{_GUIDE}, PFC watchdog: status and deadlock-count per switch priority",
}
SOURCES = {f"nv show interface <port> {k} -o json": v for k, v in _KINDS.items()}
_CMD = re.compile(r"nv show interface (\S+) (" + "|".join(re.escape(k) for k in _KINDS) + r") -o json")


def commands(ports: dict[str, str | None]) -> list[str]:
    return [f"nv show interface {p} {k} -o json" for p in ports for k in _KINDS]


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    try:
        for cmd, text in outputs.items():
            m = _CMD.fullmatch(" ".join(cmd.split()))
            if not m:
                continue
            name, kind = m.groups()
            data = jload(text)
            if not isinstance(data, dict):
                if text.strip():
                    warnings.append(f"{cmd}: not JSON")
                continue
            pc = ports.setdefault(name, PortCounters())
            if kind.endswith("pfc-watchdog status") and pc.wd_shut is None:
                pc.wd_shut = []
            for key, row in data.items():
                p = priority_of(key)
                if p is None or not isinstance(row, dict):
                    continue
                if kind == "counters qos pfc-stats":
                    pairs = (
                        ("rx-pause-frames", "pfc_rx"),
                        ("tx-pause-frames", "pfc_tx"),
                        ("rx-pause-duration", "pfc_rx_us"),
                        ("tx-pause-duration", "pfc_tx_us"),
                    )
                    for k, c in pairs:
                        v = to_int(row.get(k))
                        if v is not None:
                            pc.set_prio(c, p, v)
                elif kind == "counters qos egress-queue-stats":
                    drops = [to_int(row.get(k)) for k in ("tx-uc-buffer-discards", "wred-discards")]
                    if any(d is not None for d in drops):
                        pc.set_prio("queue_drops", p, sum(d or 0 for d in drops))
                    v = to_int(row.get("ecn-marked-packets"))
                    if v is not None:
                        pc.set_prio("ecn_marked", p, v)
                elif kind == "counters qos ingress-buffer-stats":
                    v = to_int(row.get("rx-buffer-discards"))
                    if v is not None:
                        pc.set_prio("pg_drops", p, v)
                else:
                    v = to_int(row.get("deadlock-count"))
                    if v is not None:
                        pc.set_prio("wd_detected", p, v)
                    if str(row.get("status", "")).lower() in ("deadlock", "stormed", "storm"):
                        pc.shut(p)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    return {n: p for n, p in ports.items() if not p.empty() or p.wd_shut is not None}, warnings


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    m = _CMD.fullmatch(" ".join(command.split()))
    if not m:
        return None
    name, kind = m.groups()
    pc = ports.get(name)
    if pc is None:
        return json.dumps({})
    g = lambda c, p: pc.prio.get(c, {}).get(p, 0)  # noqa: E731
    if kind == "counters qos pfc-stats":
        data = {
            str(p): {
                "rx-pause-frames": g("pfc_rx", p),
                "rx-pause-duration": g("pfc_rx_us", p),
                "tx-pause-frames": g("pfc_tx", p),
                "tx-pause-duration": g("pfc_tx_us", p),
            }
            for p in range(8)
        }
    elif kind == "counters qos egress-queue-stats":
        data = {
            str(p): {
                "traffic-class": p,
                "tx-frames": 0,
                "tx-bytes": 0,
                "tx-uc-buffer-discards": g("queue_drops", p),
                "wred-discards": 0,
                "ecn-marked-packets": g("ecn_marked", p),
            }
            for p in range(8)
        }
    elif kind == "counters qos ingress-buffer-stats":
        data = {str(p): {"rx-frames": 0, "rx-buffer-discards": g("pg_drops", p)} for p in range(8)}
    else:
        shut = pc.wd_shut or []
        data = {
            str(p): {"status": "deadlock" if p in shut else "ok", "deadlock-count": g("wd_detected", p)}
            for p in range(8)
        }
    return json.dumps(data, indent=2)


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="cli")
