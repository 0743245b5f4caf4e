"""SONiC counters over SSH: the sonic-utilities show commands (tabulate text tables).

Sources (``SOURCES``): sonic-utilities doc/Command-Reference.md and the commands' own tests, whose expected
outputs are recorded in tests/fixtures/sonic/counters/ (sonic-net/sonic-utilities, Apache-2.0):
* ``show pfc counters`` (pfcstat): "Port Rx" / "Port Tx" tables, PFC0-PFC7 frames;
* ``show queue counters`` (queuestat): per queue UC<n> Drop/pkts;
* ``show queue wredcounters`` (queuestat --wred): per queue EcnMarked/pkts;
* ``show priority-group drop counters`` (pg-drop): PG0-PG7 ingress drops;
* ``show pfcwd stats`` (pfcwd): QUEUE (port:queue), STATUS, STORM DETECTED/RESTORED;
* ``show queue watermark unicast`` (watermarkstat): UC0-UC7 bytes.
SONiC reports no pause duration in these commands (``show pfc counters --history`` has pause time only where
the PFC history feature is enabled): storms are judged from the pause frame rate.
"""

from __future__ import annotations

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import priority_of, table

PFC = "show pfc counters"
QUEUES = "show queue counters"
WRED = "show queue wredcounters"
PG_DROP = "show priority-group drop counters"
PFCWD = "show pfcwd stats"
WATERMARK = "show queue watermark unicast"
COMMANDS = [PFC, QUEUES, WRED, PG_DROP, PFCWD, WATERMARK]
_REF = "sonic-utilities doc/Command-Reference.md"
SOURCES = {
    PFC: f"{_REF}: show pfc counters (pfcstat: Port Rx/Port Tx, PFC0-PFC7)",
    QUEUES: f"{_REF}: show queue counters (queuestat: TxQ UC<n>, Drop/pkts)",
    WRED: f"{_REF}: show queue wredcounters (queuestat: TxQ UC<n>, EcnMarked/pkts)",
    PG_DROP: f"{_REF}: show priority-group drop counters (pg-drop: PG0-PG7)",
    PFCWD: f"{_REF}: show pfcwd stats (QUEUE, STATUS, STORM DETECTED/RESTORED)",
    WATERMARK: f"{_REF}: show queue watermark unicast (watermarkstat: UC0-UC7 bytes)",
}


def commands(ports: dict[str, str | None]) -> list[str]:
    return list(COMMANDS)


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    try:
        for cmd, text in outputs.items():
            rws = table(text)
            if not rws:
                if text.strip() and cmd != PFCWD:  # pfcwd lists a queue only after its first storm
                    warnings.append(f"{cmd}: no table found")
                if cmd == PFCWD and "QUEUE" in text:
                    pass
                continue
            for r in rws:
                if cmd == PFC:
                    name = r.get("Port Rx") or r.get("Port Tx")
                    counter = "pfc_rx" if "Port Rx" in r else "pfc_tx"
                    if not name:
                        continue
                    pc = ports.setdefault(name, PortCounters())
                    for col, val in r.items():
                        p, v = priority_of(col) if col.startswith("PFC") else None, to_int(val)
                        if p is not None and v is not None:
                            pc.set_prio(counter, p, v)
                elif cmd in (QUEUES, WRED):
                    name, q = r.get("Port", ""), r.get("TxQ", "")
                    if not name or not q.startswith("UC"):
                        continue
                    p = priority_of(q)
                    key, counter = (
                        ("Drop/pkts", "queue_drops") if cmd == QUEUES else ("EcnMarked/pkts", "ecn_marked")
                    )
                    v = to_int(r.get(key))
                    if p is not None and v is not None:
                        ports.setdefault(name, PortCounters()).set_prio(counter, p, v)
                elif cmd in (PG_DROP, WATERMARK):
                    name = r.get("Port", "")
                    if not name:
                        continue
                    pc = ports.setdefault(name, PortCounters())
                    for col, val in r.items():
                        p, v = priority_of(col) if col.startswith(("PG", "UC")) else None, to_int(val)
                        if p is None or v is None:
                            continue
                        if cmd == PG_DROP:
                            pc.set_prio("pg_drops", p, v)
                        else:
                            pc.set_gauge("queue_watermark_bytes", p, v)
                elif cmd == PFCWD:
                    name, _, q = r.get("QUEUE", "").rpartition(":")
                    p = priority_of(q)
                    if not name or p is None:
                        continue
                    pc = ports.setdefault(name, PortCounters())
                    det, _, res = (
                        r.get("STORM DETECTED/RESTORED") or r.get("STORM DETECTED") or ""
                    ).partition("/")
                    for val, counter in ((det, "wd_detected"), (res, "wd_restored")):
                        v = to_int(val)
                        if v is not None:
                            pc.set_prio(counter, p, v)
                    if pc.wd_shut is None:
                        pc.wd_shut = []
                    if "storm" in r.get("STATUS", "").lower():
                        pc.shut(p)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    return {n: p for n, p in ports.items() if not p.empty() or p.wd_shut is not None}, warnings


def _tab(head: list[str], body: list[list[str]]) -> str:
    """A tabulate 'simple' table: columns right-aligned except the first, two spaces apart."""
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))

    return "\n".join([line(head), "  ".join("-" * w for w in widths), *(line(r) for r in body)])


def _n(v: int) -> str:
    return f"{v:,}"


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    cmd = " ".join(command.split())
    names = list(ports)
    g = lambda pc, c, p: pc.prio.get(c, {}).get(p, 0)  # noqa: E731
    if cmd == PFC:
        parts = []
        for label, c in (("Port Rx", "pfc_rx"), ("Port Tx", "pfc_tx")):
            parts.append(
                _tab(
                    [label] + [f"PFC{p}" for p in range(8)],
                    [[n] + [_n(g(ports[n], c, p)) for p in range(8)] for n in names],
                )
            )
        return "\n\n".join(parts) + "\n"
    if cmd in (QUEUES, WRED):
        blocks = []
        for n in names:
            pc = ports[n]
            if cmd == QUEUES:
                head = ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"]
                body = [[n, f"UC{p}", "0", "0", _n(g(pc, "queue_drops", p)), "0"] for p in range(8)]
            else:
                head = ["Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"]
                body = [[n, f"UC{p}", "0", "0", _n(g(pc, "ecn_marked", p)), "0"] for p in range(8)]
            blocks.append("For namespace :\n" + _tab(head, body))
        return "\n\n".join(blocks) + "\n"
    if cmd == PG_DROP:
        return (
            "Ingress PG dropped packets:\n"
            + _tab(
                ["Port"] + [f"PG{p}" for p in range(8)],
                [[n] + [_n(g(ports[n], "pg_drops", p)) for p in range(8)] for n in names],
            )
            + "\n"
        )
    if cmd == WATERMARK:
        body = [
            [n] + [_n(ports[n].gauges.get("queue_watermark_bytes", {}).get(p, 0)) for p in range(8)]
            for n in names
        ]
        return (
            "Egress shared pool occupancy per unicast queue:\n"
            + _tab(["Port"] + [f"UC{p}" for p in range(8)], body)
            + "\n"
        )
    if cmd == PFCWD:
        body = []
        for n in names:
            pc = ports[n]
            for p in sorted(set(pc.prio.get("wd_detected", {})) | set(pc.wd_shut or [])):
                status = "stormed" if p in (pc.wd_shut or []) else "operational"
                body.append(
                    [
                        f"{n}:{p}",
                        status,
                        f"{g(pc, 'wd_detected', p)}/{g(pc, 'wd_restored', p)}",
                        "0/0",
                        "0/0",
                        "0/0",
                        "0/0",
                    ]
                )
        if not body:
            return ""
        head = [
            "QUEUE",
            "STATUS",
            "STORM DETECTED/RESTORED",
            "TX OK/DROP",
            "RX OK/DROP",
            "TX LAST OK/DROP",
            "RX LAST OK/DROP",
        ]
        return _tab(head, body) + "\n"
    return None


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="cli")
