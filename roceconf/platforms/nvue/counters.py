"""NVIDIA Cumulus Linux (NVUE) counters over SSH: ``nv show interface <port> ... -o json`` per port; the plain
text table (without ``-o json``) is read too, detected from the answer.

Sources (``SOURCES``; provenance in tests/fixtures/nvue/counters/README.md): NVIDIA Cumulus Linux 5.x user
guide, "Quality of Service" / "RDMA over Converged Ethernet - RoCE" and the NVUE command reference, whose
examples show the tables (``nv show interface <port> counters qos pfc-stats``: ``switch-priority``,
``rx-pause-frames``, ``rx-pause-duration``, ``tx-pause-frames``, ``tx-pause-duration``;
``... egress-queue-stats``: ``traffic-class``, ``tx-frames``, ``tx-bytes``, ``tx-uc-buffer-discards``,
``wred-discards``; ``... ingress-buffer-stats``: ``priority-group``, ``rx-frames``, ``rx-buffer-discards``),
the JSON key ``ecn-marked-frames`` per traffic class as public scripts read it from Spectrum switches, and
"PFC watchdog" (``nv show interface <port> qos pfc-watchdog status``: status and deadlock count per switch
priority; no public example shows its answer). Pause durations are in microseconds (the Spectrum
``rx_pause_duration`` / ``tx_pause_duration`` port counters). The text table renders some frame counts with
byte units and rounds above 1 KB: only whole ``N Bytes`` cells are read from it, the JSON is exact.

Link counters (``roceconf cabling``; ``LINK_SOURCES``, fixtures in tests/fixtures/nvue/counters/link/):

* ``nv show interface <port> link -o json``: the ``link`` object of the interface. Its layout is NVIDIA's NVUE
  schema's ``/interface/{interface-id}/link`` (PyPI ``nvueschema``, the 5.0-5.18 models): ``speed`` one of
  ``10M`` ... ``800G``, ``state`` ``{"up": {}}`` / ``{"down": {}}``. The schema in that package is the
  configuration schema: it has no ``stats``. The operational ``stats`` (``carrier-transitions``, ``in-bytes``,
  ``out-bytes``, ``in-errors``) are the NVUE command reference's (``nv show interface <id> link``, Cumulus Linux
  5.0 and later, the same names in 5.11+ next to ``oper-status``) and the NVUE API guide's JSON answer of the
  operational interface tree. Read: the speed of a port that is up (``oper-status`` ``up``, or where the
  answer has no ``oper-status`` its ``state`` ``up``), ``carrier-transitions``, ``in-bytes`` / ``out-bytes``.
  ``in-errors`` is every input error (not FCS alone): not read. The text form rounds bytes (``8.21 MB``): only
  the JSON is read.
* ``nv show interface <port> counters errors`` (Cumulus Linux 5.5 and later; text): the ``FCS Errors`` row's
  ``Receive`` cell, as the command reference's example lays the table out (``Counter  Receive  Transmit``). No
  JSON layout of it is documented: the text table is asked.
* FEC: no uncorrectable-codeword counter in these answers (``link phy health`` shows ``effective-errors``, a
  bit error count after FEC, not codewords): not read.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import jload, priority_of, read_outputs, tables

log = logging.getLogger(__name__)

_GUIDE = "NVIDIA Cumulus Linux 5.x user guide"
_KINDS = {
    "counters qos pfc-stats": f"{_GUIDE}, Quality of Service: pfc-stats (rx/tx-pause-frames, rx/tx-pause-duration per switch priority)",
    "counters qos egress-queue-stats": f"{_GUIDE}, Quality of Service: egress-queue-stats (tx-uc-buffer-discards, wred-discards, ecn-marked-frames per traffic class)",
    "counters qos ingress-buffer-stats": f"{_GUIDE}, Quality of Service: ingress-buffer-stats (rx-buffer-discards per priority group)",
    "qos pfc-watchdog status": f"{_GUIDE}, PFC watchdog: status and deadlock-count per switch priority",
}
SOURCES = {f"nv show interface <port> {k} -o json": v for k, v in _KINDS.items()}
_CMD = re.compile(r"nv show interface (\S+) (" + "|".join(re.escape(k) for k in _KINDS) + r")(?: -o json)?")


def commands(ports: dict[str, str | None]) -> list[str]:
    return [f"nv show interface {p} {k} -o json" for p in ports for k in _KINDS]


#: the key naming the row in each kind's table / list form
_ROW_KEY = {
    "counters qos pfc-stats": "switch-priority",
    "counters qos egress-queue-stats": "traffic-class",
    "counters qos ingress-buffer-stats": "priority-group",
    "qos pfc-watchdog status": "switch-priority",
}
#: the fields each kind has (anything else with a number is listed under --debug as not understood)
_KNOWN = {
    "counters qos pfc-stats": {
        "rx-pause-frames",
        "tx-pause-frames",
        "rx-pause-duration",
        "tx-pause-duration",
    },
    "counters qos egress-queue-stats": {
        "traffic-class",
        "tx-frames",
        "tx-bytes",
        "tx-uc-buffer-discards",
        "wred-discards",
        "ecn-marked-frames",
    },
    "counters qos ingress-buffer-stats": {"rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"},
    "qos pfc-watchdog status": {"status", "deadlock-count"},
}


#: the names of a row that are known or name its priority (a row with no other is not looked through)
_READ_NAMES = {kind: frozenset({*names, _ROW_KEY[kind]}) for kind, names in _KNOWN.items()}
_PFC_PAIRS = (
    ("rx-pause-frames", "pfc_rx"),
    ("tx-pause-frames", "pfc_tx"),
    ("rx-pause-duration", "pfc_rx_us"),
    ("tx-pause-duration", "pfc_tx_us"),
)


def _value(v: Any) -> int | None:
    """A JSON number, or a text cell: a plain count, or ``N Bytes`` with N whole (NVUE's table renders some
    frame counts with byte units; ``75.19 KB`` is a rounded rendering, never read as a count)."""
    if isinstance(v, str):
        m = re.fullmatch(r"\s*(\d{1,20})\s*Bytes\s*", v)
        if m:
            return int(m.group(1))
    return to_int(v)


def _rows(kind: str, text: str, cmd: str, warnings: list[str]) -> dict[int, dict[str, Any]] | None:
    """priority -> fields, from the JSON (a dict keyed by priority, or a list of rows naming it) or the
    text table; None when the answer is neither."""
    data = jload(text)
    out: dict[int, dict[str, Any]] = {}
    if isinstance(data, dict):
        for key, row in data.items():
            p = priority_of(key)
            if p is not None and isinstance(row, dict):
                out[p] = row
        return out
    if isinstance(data, list):
        for row in data:
            p = priority_of(str(row.get(_ROW_KEY[kind], ""))) if isinstance(row, dict) else None
            if p is not None:
                out[p] = row
        return out
    rws, problems = tables(text, align="left")
    warnings += [f"{cmd}: {x}" for x in problems]
    if not rws:
        return None
    for row in rws:
        p = priority_of(row.get(_ROW_KEY[kind], ""))
        if p is not None:
            out[p] = row
    return out


#: link commands (``roceconf cabling``): the interface's link object (JSON) and its error counters (text)
LINK_JSON = "link -o json"
LINK_ERRORS = "counters errors"
_LINK_CMD = re.compile(r"nv show interface (\S+) (link -o json|counters errors)")
_LINK = {"carrier-transitions": "carrier_transitions", "in-bytes": "rx_octets", "out-bytes": "tx_octets"}
LINK_READS = frozenset({*_LINK.values(), "speed_bps", "fcs_errors"})
LINK_SOURCES = {
    f"nv show interface <port> {LINK_JSON}": "NVIDIA's NVUE schema (PyPI nvueschema, /interface/{interface-id}/link: "
    "speed 10M..800G, state up/down) and the NVUE command reference, nv show interface <id> link (stats: "
    "carrier-transitions, in-bytes, out-bytes); the speed of a port that is up",
    f"nv show interface <port> {LINK_ERRORS}": "NVUE command reference, nv show interface <id> counters errors "
    "(Cumulus Linux 5.5+): the FCS Errors row, Receive column",
}
#: NVUE's link speeds (the schema's enum of ``link.speed``): a number and M or G
_NV_SPEED = re.compile(r"([0-9]{1,4})([MG])")


def link_commands(ports: dict[str, str | None]) -> list[str]:
    """``CounterSpec.link_commands``: each of the intent's ports' link object and error counters."""
    return [f"nv show interface {p} {k}" for p in ports for k in (LINK_JSON, LINK_ERRORS)]


def nv_speed_bps(text: Any) -> int | None:
    """Bits per second of an NVUE link speed (``1G``, ``400G``, ``100M``); None for ``auto`` or anything else."""
    m = _NV_SPEED.fullmatch(text.strip()) if isinstance(text, str) else None
    if not m or int(m.group(1)) == 0:
        return None
    return int(m.group(1)) * (10**9 if m.group(2) == "G" else 10**6)


def _is_up(link: dict[str, Any]) -> bool:
    oper = link.get("oper-status")
    if oper is not None:
        return oper == "up"
    state = link.get("state")
    return (isinstance(state, dict) and set(state) == {"up"}) or state == "up"


def _read_link(name: str, kind: str, text: str, cmd: str, ports: dict[str, PortCounters],
               warnings: list[str]) -> None:
    if kind == LINK_JSON:
        data = jload(text)
        if not isinstance(data, dict):
            if text.strip():
                warnings.append(f"{cmd}: not a JSON object")
            return
        got: dict[str, int] = {}
        stats = data.get("stats")
        if isinstance(stats, dict):
            got = {c: v for k, c in _LINK.items() if (v := to_int(stats.get(k))) is not None}
        speed = nv_speed_bps(data.get("speed")) if _is_up(data) else None
        if speed is not None:
            got["speed_bps"] = speed
    else:
        rws, problems = tables(text, align="left")
        warnings += [f"{cmd}: {x}" for x in problems]
        row = next((r for r in rws if r.get("Counter", "").strip() == "FCS Errors"), None)
        v = to_int(row.get("Receive")) if row else None
        if row is None and text.strip():
            warnings.append(f"{cmd}: no FCS Errors row")
        got = {"fcs_errors": v} if v is not None else {}
    if got:
        pc = ports.setdefault(name, PortCounters())
        for c, v in got.items():
            pc.set_link(c, v)


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    return read_outputs(outputs, _read, log)


def _read(
    cmd: str, text: str, ports: dict[str, PortCounters], warnings: list[str], unknown: set[str]
) -> None:
    """One port's answer (JSON or an NVUE table), by the command that asked for it."""
    m = _CMD.fullmatch(" ".join(cmd.split()))
    if not m:
        lm = _LINK_CMD.fullmatch(" ".join(cmd.split()))
        if lm:
            _read_link(lm.group(1), lm.group(2), text, cmd, ports, warnings)
        return
    name, kind = m.groups()
    data = _rows(kind, text, cmd, warnings)
    if data is None:
        if text.strip():
            warnings.append(f"{cmd}: neither JSON nor an NVUE table")
        return
    pc = ports.setdefault(name, PortCounters())
    read = _READ_NAMES[kind]
    for p, row in data.items():
        if not row.keys() <= read:
            unknown.update(
                f"{kind}: {k}"
                for k, v in row.items()
                if k not in _KNOWN[kind] and k != _ROW_KEY[kind] and _value(v) is not None
            )
        if kind == "counters qos pfc-stats":
            for k, c in _PFC_PAIRS:
                v = row.get(k)
                v = v if type(v) is int and v >= 0 else _value(v)  # a JSON count as _value reads it
                if v is not None and p <= 7:  # set_prio: p is 0-9 (priority_of), v a count
                    pc.prio.setdefault(c, {})[p] = v
        elif kind == "counters qos egress-queue-stats":
            drops = [_value(row[k]) for k in ("tx-uc-buffer-discards", "wred-discards") if k in row]
            if drops and None not in drops:  # a part that cannot be read makes the sum unknown
                pc.set_prio("queue_drops", p, sum(d for d in drops if d is not None))
            v = _value(row.get("ecn-marked-frames"))
            if v is not None:
                pc.set_prio("ecn_marked", p, v)
        elif kind == "counters qos ingress-buffer-stats":
            v = _value(row.get("rx-buffer-discards"))
            if v is not None:
                pc.set_prio("pg_drops", p, v)
        else:
            v = _value(row.get("deadlock-count"))
            if v is not None:
                pc.set_prio("wd_detected", p, v)
            status = str(row.get("status", "")).lower()
            if status in ("deadlock", "stormed", "storm", "ok"):  # another word: not read
                pc.wd_state(p, status != "ok")


def _simulate_link(pc: PortCounters | None, kind: str) -> str:
    """The link answers as the schema and the command reference lay them out (the lab serves them)."""
    k = pc.link if pc is not None else {}
    if kind == LINK_JSON:
        bps = k.get("speed_bps")
        link: dict[str, Any] = {"mtu": 9216, "state": {"up": {}}, "oper-status": "up", "admin-status": "up"}
        if bps:
            link["speed"] = f"{bps // 10**9}G" if bps % 10**9 == 0 else f"{bps // 10**6}M"
        link["stats"] = {n: k[c] for n, c in _LINK.items() if c in k}
        return json.dumps(link, indent=2)
    cells = [("Alignment Errors", "0", "n/a"), ("FCS Errors", str(k.get("fcs_errors", 0)), "n/a"),
             ("Jabber Errors", "0", "n/a"), ("Total Errors", str(k.get("fcs_errors", 0)), "0")]
    w = [max(len(r[i]) for r in [("Counter", "Receive", "Transmit"), *cells]) for i in range(3)]
    line = lambda r: "  ".join(c.ljust(w[i]) for i, c in enumerate(r))  # noqa: E731
    return "\n".join([line(("Counter", "Receive", "Transmit")), line(tuple("-" * x for x in w)),
                      *(line(r) for r in cells)]) + "\n"


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    m = _CMD.fullmatch(" ".join(command.split()))
    if not m:
        lm = _LINK_CMD.fullmatch(" ".join(command.split()))
        return _simulate_link(ports.get(lm.group(1)), lm.group(2)) if lm else None
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
                "ecn-marked-frames": g("ecn_marked", p),
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


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="cli",
                       link_commands=link_commands, link_sources=LINK_SOURCES, link_reads=LINK_READS)
