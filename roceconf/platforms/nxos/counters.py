"""Cisco NX-OS counters over SSH, JSON output (``| json``).

Sources (``SOURCES``): Cisco Nexus 9000 Series NX-OS Command Reference (Show Commands), Release 9.3(x),
"Q Show Commands", whose syntax lines carry the JSON/XML schema of each command:
* ``show queuing interface``: ``TABLE_queuing_interface`` rows (``if_name_str``, ``dir``) with per qos-group
  ``TABLE_qosgrp_egress_stats`` (``eq-qosgrp``; entries ``eq-stat-type`` / ``eq-stat-units`` /
  ``eq-uc-stat-value`` / ``eq-oobfc-uc-stat-value``) and PFC per CoS ``TABLE_pfc_stats`` (``cos``,
  ``tx-pause-count``, ``rx-pause-count``). On the switch the rows sit under ``TABLE_module`` / ``ROW_module``
  (as public NX-API collectors read them); both are read.
* ``show queuing pfc-queue detail``: per interface ``TABLE_qosgrp_stats`` (``eq-qosgrp``, ``eq-qosgrp-state``,
  ``pfc-cos``) with ``TABLE_qosgrp_stats_entry`` (``q-stat-type``, ``q-shutdown``, ``q-restored``).
* link counters (``roceconf cabling``): ``show interface | json``, ``TABLE_interface`` / ``ROW_interface`` rows
  (``interface``; ``eth_crc`` FCS errors, ``eth_inbytes`` / ``eth_outbytes``), as napalm's NX-OS test data
  records a Nexus 3548 answer (tests/fixtures/nxos/counters/real/). The answer carries no count of link flaps
  (``eth_link_flapped`` is the time since the last one) and no FEC counter: those are not read. The
  operational speed is ``eth_speed`` of a row whose ``state`` is ``up`` (``10 Gb/s``, ``1000 Mb/s``; a down
  port prints ``auto-speed``, and ``eth_bw`` is the configured bandwidth, not the speed: neither is read). The
  FEC mode is not in this answer: not read.
* optics (DOM, ``roceconf cabling`` RC514-RC516): ``show interface transceiver details`` (CLI text), read by
  :mod:`roceconf.platforms.nxos.optics` against a recorded answer.
No public recording of the queuing JSON answers was found (tests/fixtures/nxos/counters/README.md): the fixtures
are built from the schema's names. NX-OS reports no pause duration in these commands: pause storms are
judged from the pause frame rate.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from roceconf.counters.model import CounterSpec, PortCounters, same_commands, speed_bps, to_int
from roceconf.counters.parsing import base_command, dig, json_object, json_only, read_outputs, rows
from roceconf.platforms.nxos import optics

log = logging.getLogger(__name__)

QUEUING = "show queuing interface | json"
WATCHDOG = "show queuing pfc-queue detail | json"
COMMANDS = [QUEUING, WATCHDOG]
LINK = "show interface | json"
#: a saved answer's command without its output filter (``| json``, ``| json-pretty``) -> the command read
_BY_BASE = {c.replace(" | json", ""): c for c in (*COMMANDS, LINK)}
#: ``show interface`` row key -> link counter
_LINK = {"eth_crc": "fcs_errors", "eth_inbytes": "rx_octets", "eth_outbytes": "tx_octets"}
LINK_READS = frozenset({*_LINK.values(), "speed_bps", "rx_power_dbm", "tx_power_dbm", "temperature_c"})
LINK_SOURCES = {
    optics.DOM: optics.SOURCE,
    LINK: "napalm's NX-OS test data, a Nexus 3548 answer to show interface | json (TABLE_interface/ROW_interface: eth_crc, eth_inbytes, eth_outbytes; eth_speed of a row whose state is up)",
}
_REF = "Cisco Nexus 9000 NX-OS Command Reference (Show Commands) 9.3(x), Q Show Commands"
SOURCES = {
    QUEUING: f"{_REF}: show queuing (TABLE_queuing_interface: TABLE_qosgrp_egress_stats eq-stat-type/eq-uc-stat-value per qos-group; TABLE_pfc_stats tx/rx-pause-count per cos)",
    WATCHDOG: f"{_REF}: show queuing pfc-queue (TABLE_qosgrp_stats eq-qosgrp-state, pfc-cos; q-shutdown, q-restored)",
}
#: eq-stat-type (with eq-stat-units "Pkts") -> neutral counter; the first present of the drop types is read
_DROPS = ("Dropped", "WRED/AFD & Tail Drop", "Tail Drop")
_ECN = ("ECN", "Tx ECN", "ECN Marked")
_KNOWN_STATS = {"Tx", "Q Depth", "WD & Tail Drop", "Rx", *_DROPS, *_ECN}


def _interfaces(data: Any) -> list[dict[str, Any]]:
    """ROW_queuing_interface rows, with or without the NX-API envelope and the TABLE_module level."""
    body = dig(data, "ins_api", "outputs", "output", "body")
    data = body if isinstance(body, dict) else data
    out = rows(dig(data, "TABLE_queuing_interface", "ROW_queuing_interface"))
    for m in rows(dig(data, "TABLE_module", "ROW_module")):
        out += rows(dig(m, "TABLE_queuing_interface", "ROW_queuing_interface"))
    return out


def _queuing(r: dict[str, Any], pc: PortCounters, unknown: set[str]) -> None:
    for g in rows(dig(r, "TABLE_qosgrp_egress_stats", "ROW_qosgrp_egress_stats")):
        p = to_int(g.get("eq-qosgrp"))
        if p is None:
            unknown.add(f"eq-qosgrp {g.get('eq-qosgrp')!r}")
        if p is None or p > 7:  # 8 and up: the control and SPAN groups, no priority of their own
            continue
        stats: dict[str, int] = {}
        for e in rows(dig(g, "TABLE_qosgrp_egress_stats_entry", "ROW_qosgrp_egress_stats_entry")):
            kind, units = str(e.get("eq-stat-type", "")), str(e.get("eq-stat-units", ""))
            uc, oobfc = to_int(e.get("eq-uc-stat-value")), to_int(e.get("eq-oobfc-uc-stat-value", 0))
            if kind not in _KNOWN_STATS:
                unknown.add(f"eq-stat-type {kind!r}")
            if units == "Pkts" and uc is not None and oobfc is not None:
                stats[kind] = uc + oobfc  # unicast, both ways out of the queue
        drop = next((stats[k] for k in _DROPS if k in stats), None)
        if drop is not None:
            pc.set_prio("queue_drops", p, drop)
        ecn = next((stats[k] for k in _ECN if k in stats), None)
        if ecn is not None:
            pc.set_prio("ecn_marked", p, ecn)
    for c in rows(dig(r, "TABLE_pfc_stats", "ROW_pfc_stats")):
        p = to_int(c.get("cos"))
        if p is None:
            continue
        for key, counter in (("rx-pause-count", "pfc_rx"), ("tx-pause-count", "pfc_tx")):
            v = to_int(c.get(key))
            if v is not None:
                pc.set_prio(counter, p, v)


def _watchdog(r: dict[str, Any], pc: PortCounters) -> None:
    groups = rows(dig(r, "TABLE_qosgrp_stats", "ROW_qosgrp_stats"))
    states = []
    for g in groups:
        p = to_int(g.get("pfc-cos"))
        p = to_int(g.get("eq-qosgrp")) if p is None else p
        if p is None or p > 7:
            continue
        entries = rows(dig(g, "TABLE_qosgrp_stats_entry", "ROW_qosgrp_stats_entry"))
        for key, counter in (("q-shutdown", "wd_detected"), ("q-restored", "wd_restored")):
            vals = [v for e in entries if (v := to_int(e.get(key))) is not None]
            if vals:  # current and aggregate entries: the aggregate is the largest
                pc.set_prio(counter, p, max(vals))
        state = str(g.get("eq-qosgrp-state", "")).strip().lower()
        if state:
            states.append((p, state))
    for p, state in states:
        pc.wd_state(p, "shut" in state or "storm" in state)


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    return read_outputs(outputs, _read, log)


def _read(
    cmd: str, text: str, ports: dict[str, PortCounters], warnings: list[str], unknown: set[str]
) -> None:
    """One command's JSON answer (saved with ``| json``, ``| json-pretty`` or without the filter): the
    interface rows it holds. The form is told from the answer: a text answer (the CLI's ``+---+`` tables) is
    not read - no published recording of these commands' text layouts was found to read it against, and
    Cisco's configuration-guide examples are not kept here (docs/health.md)."""
    if " ".join(cmd.split()) == optics.DOM:
        optics.read(text, ports)
        return
    base = base_command(cmd, ("json", "json-pretty"))
    if base not in _BY_BASE:
        return
    cmd = _BY_BASE[base]
    if not json_only(cmd, text, warnings, "the NX-API JSON answer, `| json`"):
        return
    data = json_object(cmd, text, warnings, "not JSON")
    if data is None:
        return
    if cmd == LINK:
        _link(data, ports)
        return
    for r in _interfaces(data):
        name = r.get("if_name_str")
        if not isinstance(name, str) or not name.strip():
            continue
        pc = ports.setdefault(name.strip(), PortCounters())
        if cmd == QUEUING:
            _queuing(r, pc, unknown)
        else:
            _watchdog(r, pc)


def _link(data: dict[str, Any], ports: dict[str, PortCounters]) -> None:
    """``show interface``'s rows: the link counters of each interface that has them (mgmt0 and SVIs
    have none)."""
    body = dig(data, "ins_api", "outputs", "output", "body")
    data = body if isinstance(body, dict) else data
    for r in rows(dig(data, "TABLE_interface", "ROW_interface")):
        name = r.get("interface")
        if not isinstance(name, str) or not name.strip():
            continue
        got = {c: v for k, c in _LINK.items() if (v := to_int(r.get(k))) is not None}
        speed = speed_bps(r.get("eth_speed")) if r.get("state") == "up" else None
        if speed is not None:
            got["speed_bps"] = speed
        if got:
            pc = ports.setdefault(name.strip(), PortCounters())
            for c, v in got.items():
                pc.set_link(c, v)


def _speed_text(bps: int) -> str:
    """``eth_speed`` as the recorded answer prints it: ``10 Gb/s``, ``1000 Mb/s``."""
    return f"{bps // 10**9} Gb/s" if bps % 10**9 == 0 else f"{bps // 10**6} Mb/s"


def _entry(kind: str, units: str, value: int) -> dict[str, Any]:
    return {
        "eq-stat-type": kind,
        "eq-stat-units": units,
        "eq-uc-stat-value": value,
        "eq-oobfc-uc-stat-value": 0,
        "eq-mc-stat-value": 0,
    }


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    """The schema's layout under TABLE_module / ROW_module, one egress row per interface."""

    def g(pc: PortCounters, c: str, p: int) -> int:
        return pc.prio.get(c, {}).get(p, 0)

    cmd = " ".join(command.split())
    if cmd == optics.DOM:
        return optics.simulate(ports)
    if cmd == QUEUING:
        rws = [
            {
                "dir": "Egress",
                "if_name_str": n,
                "TABLE_qosgrp_egress_stats": {
                    "ROW_qosgrp_egress_stats": [
                        {
                            "eq-qosgrp": p,
                            "TABLE_qosgrp_egress_stats_entry": {
                                "ROW_qosgrp_egress_stats_entry": [
                                    _entry("Tx", "Pkts", 0),
                                    _entry("Tx", "Byts", 0),
                                    _entry("Dropped", "Pkts", g(pc, "queue_drops", p)),
                                    _entry("ECN", "Pkts", g(pc, "ecn_marked", p)),
                                ]
                            },
                        }
                        for p in range(8)
                    ]
                },
                "tx-ppp": sum(pc.prio.get("pfc_tx", {}).values()),
                "rx-ppp": sum(pc.prio.get("pfc_rx", {}).values()),
                "TABLE_pfc_stats": {
                    "ROW_pfc_stats": [
                        {
                            "cos": p,
                            "tx-pause-state": "Inactive",
                            "tx-pause-count": g(pc, "pfc_tx", p),
                            "rx-pause-state": "Inactive",
                            "rx-pause-count": g(pc, "pfc_rx", p),
                        }
                        for p in range(8)
                    ]
                },
            }
            for n, pc in ports.items()
        ]
        data: dict[str, Any] = {
            "TABLE_module": {
                "ROW_module": {"module": 1, "TABLE_queuing_interface": {"ROW_queuing_interface": rws}}
            }
        }
    elif cmd == WATCHDOG:
        rws = []
        for n, pc in ports.items():
            groups = [
                {
                    "eq-qosgrp": p,
                    "eq-qosgrp-state": "Shutdown" if p in (pc.wd_shut or []) else "Ok",
                    "pfc-configured": "Yes",
                    "pfc-cos": p,
                    "TABLE_qosgrp_stats_entry": {
                        "ROW_qosgrp_stats_entry": {
                            "q-stat-type": "Aggregate",
                            "q-shutdown": g(pc, "wd_detected", p),
                            "q-restored": g(pc, "wd_restored", p),
                        }
                    },
                }
                for p in sorted(set(pc.prio.get("wd_detected", {})) | set(pc.wd_shut or []))
            ]
            row: dict[str, Any] = {"if_name_str": n, "wd-status": "Enabled"}
            if groups:
                row["TABLE_qosgrp_stats"] = {"ROW_qosgrp_stats": groups}
            rws.append(row)
        data = {"glb-wd-status": "Enabled", "TABLE_queuing_interface": {"ROW_queuing_interface": rws}}
    elif cmd == LINK:
        data = {
            "TABLE_interface": {
                "ROW_interface": [
                    {"interface": n, "state": "up", **{k: str(pc.link[c]) for k, c in _LINK.items() if c in pc.link},
                     **({"eth_speed": _speed_text(pc.link["speed_bps"])} if "speed_bps" in pc.link else {})}
                    for n, pc in ports.items()
                ]
            }
        }
    else:
        return None
    return json.dumps(data, indent=1)


COUNTERS = CounterSpec(
    commands=same_commands(COMMANDS),
    parse=parse,
    simulate=simulate,
    sources=SOURCES,
    transport="cli",
    link_commands=same_commands([LINK, optics.DOM]),
    link_sources=LINK_SOURCES,
    link_reads=LINK_READS,
)
