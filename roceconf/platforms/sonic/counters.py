"""SONiC counters over SSH: the sonic-utilities show commands (tabulate text tables).

Sources (``SOURCES``): sonic-utilities doc/Command-Reference.md and the commands' own tests, whose expected
outputs are recorded in tests/fixtures/sonic/counters/ (sonic-net/sonic-utilities, Apache-2.0):
* ``show pfc counters`` (pfcstat): "Port Rx" / "Port Tx" tables, PFC0-PFC7 frames;
* ``show queue counters`` (queuestat): per queue UC<n> Drop/pkts;
* ``show queue wredcounters`` (queuestat --wred): per queue EcnMarked/pkts;
* ``show priority-group drop counters`` (pg-drop): PG0-PG7 ingress drops;
* ``show pfcwd stats`` (pfcwd): QUEUE (port:queue), STATUS, STORM DETECTED/RESTORED;
* ``show queue watermark unicast`` (watermarkstat): UC0-UC7 bytes.
* link counters (``roceconf cabling``): ``show interfaces counters fec-stats`` (portstat -f): per IFACE
  ``FEC_CORR`` and ``FEC_UNCORR`` codewords, as sonic-utilities' ``tests/portstat_test.py`` records the tool's
  output. FCS errors (``show interfaces counters`` has only RX_ERR, every input error), carrier transitions and
  byte counts (that table prints rates, not totals) are not read. ``show interfaces status`` (intfutil -c
  status): the operational ``Speed`` (``25G``, ``100M``, ``2.5G``: Mb/s printed by intfutil's
  ``port_speed_parse``) of a port whose ``Oper`` is ``up`` (a down port shows its configured speed: not read)
  and its ``FEC`` (the configured mode intfutil takes from APPL_DB's PORT_TABLE: ``rs``, ``fc``, ``none``,
  ``auto``; ``N/A`` not read), as sonic-utilities' ``tests/intfutil_test.py`` records the tool's output.
* optics (DOM, ``roceconf cabling`` RC514-RC516): ``show interfaces transceiver eeprom --dom``, read by
  :mod:`roceconf.platforms.sonic.optics` (sfpshow's layout, as sonic-utilities' tests record it).
SONiC reports no pause duration in these commands (``show pfc counters --history`` has pause time only where
the PFC history feature is enabled): storms are judged from the pause frame rate.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from roceconf.counters.model import FEC_MODES, CounterSpec, PortCounters, fec_mode_code, same_commands, to_int
from roceconf.counters.parsing import priority_of, table_blocks
from roceconf.platforms.sonic import optics

log = logging.getLogger(__name__)

PFC = "show pfc counters"
QUEUES = "show queue counters"
WRED = "show queue wredcounters"
PG_DROP = "show priority-group drop counters"
PFCWD = "show pfcwd stats"
WATERMARK = "show queue watermark unicast"
COMMANDS = [PFC, QUEUES, WRED, PG_DROP, PFCWD, WATERMARK]
FEC = "show interfaces counters fec-stats"
#: ``show interfaces counters fec-stats`` column -> link counter (``_fec_row``)
FEC_COLUMNS = {"FEC_CORR": "fec_corrected", "FEC_UNCORR": "fec_uncorrectable"}
STATUS = "show interfaces status"
LINK_READS = frozenset({*FEC_COLUMNS.values(), "speed_bps", "fec_mode", "rx_power_dbm", "tx_power_dbm", "temperature_c"})
#: the optics answer, with or without a port after it (``eeprom -d Ethernet0`` as the recordings ask it)
_DOM_BASE = "show interfaces transceiver eeprom"
LINK_SOURCES = {
    optics.DOM: optics.SOURCE,
    FEC: "sonic-utilities tests/portstat_test.py intf_fec_counters: show interfaces counters fec-stats (IFACE, FEC_CORR, FEC_UNCORR)",
    STATUS: "sonic-utilities tests/intfutil_test.py show_interface_status_output and scripts/intfutil: show interfaces status (Interface, Speed of a port whose Oper is up, FEC configured)",
}
#: intfutil's printed speed: Mb/s below 1000 (``100M``), else Gb/s (``25G``, ``2.5G``)
_SONIC_SPEED = re.compile(r"([0-9]+(?:\.[0-9]+)?)([MG])")
_REF = "sonic-utilities doc/Command-Reference.md"
SOURCES = {
    PFC: f"{_REF}: show pfc counters (pfcstat: Port Rx/Port Tx, PFC0-PFC7)",
    QUEUES: f"{_REF}: show queue counters (queuestat: TxQ UC<n>, Drop/pkts)",
    WRED: f"{_REF}: show queue wredcounters (queuestat: TxQ UC<n>, EcnMarked/pkts)",
    PG_DROP: f"{_REF}: show priority-group drop counters (pg-drop: PG0-PG7)",
    PFCWD: f"{_REF}: show pfcwd stats (QUEUE, STATUS, STORM DETECTED/RESTORED)",
    WATERMARK: f"{_REF}: show queue watermark unicast (watermarkstat: UC0-UC7 bytes)",
}


#: the columns each command's table has (anything else is listed under --debug as not understood)
_KNOWN = {
    PFC: {"Port Rx", "Port Tx", *(f"PFC{p}" for p in range(8))},
    QUEUES: {"Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes"},
    WRED: {"Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts", "EcnMarked/bytes"},
    PG_DROP: {"Port", *(f"PG{p}" for p in range(16))},
    PFCWD: {
        "QUEUE",
        "STATUS",
        "STORM DETECTED/RESTORED",
        "STORM DETECTED",
        "TX OK/DROP",
        "RX OK/DROP",
        "TX LAST OK/DROP",
        "RX LAST OK/DROP",
    },
    WATERMARK: {"Port", *(f"UC{p}" for p in range(16))},
    STATUS: {"Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"},
    FEC: {"IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR", "FEC_PRE_BER", "FEC_POST_BER",
          "FEC_PRE_BER_MAX", "FLR(O)", "FLR(P) (Accuracy)", "FEC_MAX_T"},
}
#: a front-panel port name (alias names such as Ethernet1/1 too); anything else in the port column is no port
_PORT = re.compile(r"Ethernet[\w/.:-]*|[A-Za-z][\w/.:-]*")
#: multi-ASIC backplane ports between the ASICs of one chassis: an intent cannot name them (RC015)
BACKPLANE = re.compile(r"Ethernet-BP\d+")


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    conflicts: set[str] = set()
    backplane: set[str] = set()
    unknown: set[str] = set()
    #: port name -> -1 no port, 0 a front-panel port, 1 a backplane port
    port_kind: dict[str, int] = {}

    # every value read is kept in its port's counters (a port's priority counter or gauge holds the last value
    # read for it): the value already there is the one seen before
    def put(name: str, kind: str, counter: str, p: int, v: int) -> None:
        """One value; the same port, counter and priority twice with two values is a conflict."""
        if p > 7:
            return
        if BACKPLANE.fullmatch(name):
            backplane.add(name)
            return
        pc = ports.setdefault(name, PortCounters())
        old = (pc.gauges if kind == "gauge" else pc.prio).get(counter, {}).get(p)
        if old is not None and old != v:
            conflicts.add(name)
        if kind == "gauge":
            pc.set_gauge(counter, p, v)
        else:
            pc.set_prio(counter, p, v)

    try:
        for cmd, text in outputs.items():
            if cmd.startswith(_DOM_BASE):
                optics.read(text, ports)
                continue
            if cmd not in _KNOWN:
                continue
            blocks, problems = table_blocks(text, strip=False)  # the cells read are stripped here
            warnings += [f"{cmd}: {x}" for x in problems]
            if not any(rows for _head, rows in blocks):
                if text.strip() and cmd != PFCWD and not problems:  # pfcwd lists a queue only after a storm
                    warnings.append(f"{cmd}: no table found")
                continue
            known = _KNOWN[cmd]
            names: set[str] | None = None
            # the priority columns of the current header: (column, priority 0-7); others are never read
            pcols: list[tuple[str, int]] = []
            into = "gauges" if cmd == WATERMARK else "prio"
            for head, rows in blocks:
                if not rows:
                    continue
                # a row is dict(zip(head, cells)): a name's value is its last column's
                at = {c: k for k, c in enumerate(head)}
                if at.keys() != names:  # tables with the same names share them: they are looked at once
                    names = set(at)
                    unknown.update(f"{cmd}: {c}" for c in at if c not in known)
                    prefix = "PFC" if cmd == PFC else ("PG", "UC")
                    pcols = [(c, p) for c in dict.fromkeys(head) if c.startswith(prefix)
                             and (p := priority_of(c)) is not None and p <= 7]
                if cmd in (FEC, STATUS, PFCWD):
                    row_of = _fec_row if cmd == FEC else _status_row if cmd == STATUS else None
                    for cells in rows:
                        r = dict(zip(head, map(str.strip, cells), strict=True))
                        if row_of is None:
                            _wd_row(r, put, ports, backplane)
                        else:
                            row_of(r, ports, backplane)
                    continue
                if cmd == PFC:
                    rx, tx = at.get("Port Rx"), at.get("Port Tx")
                    counter = "pfc_rx" if rx is not None else "pfc_tx"
                elif cmd in (QUEUES, WRED):
                    at_port, at_q = at.get("Port"), at.get("TxQ")
                    at_v = at.get("Drop/pkts" if cmd == QUEUES else "EcnMarked/pkts")
                    counter = "queue_drops" if cmd == QUEUES else "ecn_marked"
                else:  # PG_DROP, WATERMARK
                    at_port = at.get("Port")
                    counter = "pg_drops" if cmd == PG_DROP else "queue_watermark_bytes"
                by_at = [(p, at[c]) for c, p in pcols]
                for cells in rows:
                    cols: list[tuple[int, str]]
                    if cmd == PFC:
                        name = (None if rx is None else cells[rx].strip()) or (
                            None if tx is None else cells[tx].strip()) or ""
                        cols = [(p, cells[k]) for p, k in by_at]
                    elif cmd in (QUEUES, WRED):
                        name = "" if at_port is None else cells[at_port].strip()
                        q = "" if at_q is None else cells[at_q].strip()
                        p = priority_of(q) if q.startswith("UC") else None
                        cols = [(p, "" if at_v is None else cells[at_v])] if p is not None and p <= 7 else []
                    else:
                        name = "" if at_port is None else cells[at_port].strip()
                        cols = [(p, cells[k]) for p, k in by_at]
                    # a port's rows follow each other: its name is matched once
                    bp = port_kind.get(name)
                    if bp is None:
                        bp = port_kind[name] = (
                            -1 if not _PORT.fullmatch(name) else int(BACKPLANE.fullmatch(name) is not None)
                        )
                    if bp < 0:
                        continue
                    # put() inlined for the rows' many values (the same checks, in the same order)
                    got: dict[int, int] | None = None
                    for p, val in cols:
                        # to_int() of a table cell: digits, with or without thousands separators
                        digits = val.strip().replace(",", "")
                        if len(digits) > 20 or not digits.isdigit():
                            continue
                        v = int(digits)
                        if bp:
                            backplane.add(name)
                            break
                        if got is None:
                            pc = ports.get(name)
                            if pc is None:
                                pc = ports[name] = PortCounters()
                            # set_prio / set_gauge: the counter is one of theirs, p is 0-7 and v a count
                            got = getattr(pc, into).setdefault(counter, {})
                        old = got.get(p)
                        if old is not None and old != v:
                            conflicts.add(name)
                        got[p] = v
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    for name in sorted(conflicts):
        warnings.append(f"{name}: two different values for one counter (two ASICs?); not read")
        ports.pop(name, None)
    if backplane:
        warnings.append(
            "backplane port(s) " + ", ".join(sorted(backplane, key=_natural)) + " read but not judged: "
            "they link the ASICs of one chassis and an intent cannot name them"
        )
    if unknown:
        log.debug("counter names not understood: %s", ", ".join(sorted(unknown)))
    return {n: p for n, p in ports.items() if p.has_health() or p.link or p.optics}, warnings


def _fec_row(r: dict[str, str], ports: dict[str, PortCounters], backplane: set[str]) -> None:
    """One ``show interfaces counters fec-stats`` row: FEC_CORR / FEC_UNCORR codewords (N/A: not read)."""
    name = r.get("IFACE", "")
    if not _PORT.fullmatch(name):
        return
    if BACKPLANE.fullmatch(name):
        backplane.add(name)
        return
    for col, counter in FEC_COLUMNS.items():
        v = to_int(r.get(col, ""))
        if v is not None:
            ports.setdefault(name, PortCounters()).set_link(counter, v)


def _status_row(r: dict[str, str], ports: dict[str, PortCounters], backplane: set[str]) -> None:
    """One ``show interfaces status`` row: the speed of an up port, the configured FEC mode (N/A: not read)."""
    name = r.get("Interface", "")
    if not _PORT.fullmatch(name) or name.startswith("PortChannel"):
        return
    if BACKPLANE.fullmatch(name):
        backplane.add(name)
        return
    got: dict[str, int] = {}
    m = _SONIC_SPEED.fullmatch(r.get("Speed", "").strip())
    if m and r.get("Oper", "").strip() == "up":
        bps = round(float(m.group(1)) * (10**6 if m.group(2) == "M" else 10**9))
        if bps > 0:
            got["speed_bps"] = bps
    mode = fec_mode_code(r.get("FEC", ""))
    if mode is not None:
        got["fec_mode"] = mode
    for c, v in got.items():
        ports.setdefault(name, PortCounters()).set_link(c, v)


def _natural(name: str) -> tuple[str, int]:
    m = re.search(r"(\d+)$", name)
    return (name[: m.start()], int(m.group(1))) if m else (name, -1)


def _wd_row(r: dict[str, str], put: Any, ports: dict[str, PortCounters], backplane: set[str]) -> None:
    """One ``show pfcwd stats`` row: QUEUE (port:queue), STATUS, STORM DETECTED/RESTORED."""
    name, _, q = r.get("QUEUE", "").rpartition(":")
    p = priority_of(q)
    if not _PORT.fullmatch(name) or p is None or p > 7:
        return
    if BACKPLANE.fullmatch(name):
        backplane.add(name)
        return
    det, sep, res = (r.get("STORM DETECTED/RESTORED") or r.get("STORM DETECTED") or "").partition("/")
    for val, counter in ((det, "wd_detected"), (res if sep else "", "wd_restored")):
        v = to_int(val)
        if v is not None:
            put(name, "prio", counter, p, v)
    status = r.get("STATUS", "").strip().lower()
    if status in ("operational", "stormed"):  # N/A: the state was not read
        # this queue's state only: a queue whose row is missing (a cut table) stays not read
        ports.setdefault(name, PortCounters()).wd_state(p, status == "stormed")


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
    if cmd == optics.DOM:
        return optics.simulate(ports)
    if cmd == FEC:
        rows = [
            [n, "U", *(_n(ports[n].link[c]) if c in ports[n].link else "N/A"
                       for c in ("fec_corrected", "fec_uncorrectable")), "0"]
            for n in names
        ]
        return _tab(["IFACE", "STATE", "FEC_CORR", "FEC_UNCORR", "FEC_SYMBOL_ERR"], rows) + "\n"
    if cmd == STATUS:
        rows = [[n, "0", _speed_text(ports[n].link.get("speed_bps")), "9100",
                 FEC_MODES.get(ports[n].link.get("fec_mode", -1), "N/A").replace("off", "none"), n, "routed",
                 "up" if "speed_bps" in ports[n].link else "down", "up", "N/A", "off"] for n in names]
        return _tab(["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type",
                     "Asym PFC"], rows) + "\n"
    return None


def _speed_text(bps: int | None) -> str:
    """intfutil's ``port_speed_parse`` of a speed: ``100M`` below 1 Gb/s, ``25G``, ``2.5G``."""
    if not bps:
        return "N/A"
    mb = bps // 10**6
    if mb < 1000:
        return f"{mb}M"
    return f"{mb / 1000:.1f}G" if mb % 1000 >= 100 else f"{mb // 1000}G"


COUNTERS = CounterSpec(
    commands=same_commands(COMMANDS),
    parse=parse,
    simulate=simulate,
    sources=SOURCES,
    transport="cli",
    link_commands=same_commands([FEC, STATUS, optics.DOM]),
    link_sources=LINK_SOURCES,
    link_reads=LINK_READS,
)
