"""Arista EOS counters over eAPI (JSON results of show commands).

Sources (cited per command in ``SOURCES``; provenance in tests/fixtures/eos/counters/):
* ``show interfaces counters queue detail``: ``egressQueueCounters.interfaces.<if>.ucastQueues.trafficClasses
  .TC<n>.dropPrecedences.DP<n>.droppedPackets`` and ``show interfaces counters queue drops`` (VOQ platforms:
  ``interfaces.<if>.trafficClasses.TC<n>.egressQueueCounters.countersSum.droppedPackets``), and ``show qos
  interfaces ecn counters queue`` (``intfQueueCounters.<if>.queueCounters.<queue>``, ``-`` where the queue
  does not count), as Arista's ANTA test data (Apache-2.0) records the eAPI answers.
* ``show priority-flow-control counters detail``: ``interfaces.<if>.priorities.<p>.rxFrames / txFrames`` (the
  keys public EOS health checks read per priority; ANTA records only the per-port ``interfaceCounters`` of
  the command without ``detail``).
* ``show priority-flow-control counters watchdog``: per tx-queue ``stuckCount`` / ``recoveryCount``; no
  public answer confirms these keys (docs/health.md says so).
* link counters (``roceconf cabling``): ``show interfaces``, ``interfaces.<if>.interfaceCounters``:
  ``inputErrorsDetail.fcsErrors``, ``linkStatusChanges``, ``inOctets``, ``outOctets``, as napalm's EOS test data
  records the eAPI answer (tests/fixtures/eos/counters/real/). FEC counters are not in that answer and no
  public recording of another command's FEC counters was found: FEC is not read on EOS. The operational
  speed is the interface's ``bandwidth`` (bits/s; napalm's ``get_interfaces`` takes it as the speed) where
  ``interfaceStatus`` is ``connected`` (the recording's ``notconnect`` port shows a bandwidth too: not read). The
  FEC mode is not in this answer: not read.
EOS has no per-priority pause *duration* counter in these commands: pause storms are judged from the pause
frame rate (see docs/health.md, RC303).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from roceconf.counters.model import CounterSpec, PortCounters, same_commands, to_int
from roceconf.counters.parsing import base_command, dig, json_object, json_only, priority_of, read_outputs

log = logging.getLogger(__name__)

PFC = "show priority-flow-control counters detail"
WATCHDOG = "show priority-flow-control counters watchdog"
QUEUES = "show interfaces counters queue detail"
VOQ = "show interfaces counters queue drops"
ECN = "show qos interfaces ecn counters queue"
COMMANDS = [PFC, WATCHDOG, QUEUES, ECN]
LINK = "show interfaces"
_READ = {*COMMANDS, VOQ, LINK}
#: the link counters ``_link`` reads from ``show interfaces`` (its keys below)
LINK_READS = frozenset({"fcs_errors", "carrier_transitions", "rx_octets", "tx_octets", "speed_bps"})
LINK_SOURCES = {
    LINK: "napalm's EOS test data, eAPI answer to show interfaces (interfaceCounters: inputErrorsDetail.fcsErrors, linkStatusChanges, inOctets, outOctets; bandwidth, bits/s, of a connected interface, the speed napalm's get_interfaces reports)",
}
SOURCES = {
    PFC: "Arista EOS User Manual, DCBX and Flow Control: show priority-flow-control counters detail (RxPfc/TxPfc per priority)",
    WATCHDOG: "Arista EOS User Manual, DCBX and Flow Control: show priority-flow-control counters watchdog (stuckCount/recoveryCount per tx-queue; no public answer confirms the keys)",
    QUEUES: "Arista EOS User Manual, Quality of Service: show interfaces counters queue detail (egressQueueCounters: ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP<n>.droppedPackets, as ANTA reads it)",
    ECN: "Arista EOS User Manual, Quality of Service: show qos interfaces ecn counters queue (intfQueueCounters.<if>.queueCounters.<queue>, as ANTA reads it)",
}


_PFC_KEYS = frozenset({"rxFrames", "txFrames"})


def _first(d: dict[str, Any], *names: str) -> int | None:
    for n in names:
        if n in d:
            v = to_int(d[n])
            if v is not None:
                return v
    return None


def _drops(tc: dict[str, Any]) -> int | None:
    """The unicast drops of one traffic class: the sum over its drop precedences (unknown if one is)."""
    dps = tc.get("dropPrecedences")
    if isinstance(dps, dict) and dps:
        vals = [_first(d, "droppedPackets") if isinstance(d, dict) else None for d in dps.values()]
        return None if None in vals else sum(v for v in vals if v is not None)
    summed = dig(tc, "egressQueueCounters", "countersSum")
    return _first(summed, "droppedPackets") if isinstance(summed, dict) else None


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    return read_outputs(outputs, _read, log)


def _read(
    cmd: str, text: str, ports: dict[str, PortCounters], warnings: list[str], unknown: set[str]
) -> None:
    """One command's JSON answer (saved with ``| json`` or not): the interfaces it lists. The form is told
    from the answer: a text answer (the CLI's printed tables) is not read - no published recording or
    documented example of these commands' text layouts was found to read it against (docs/health.md)."""
    base = base_command(cmd)
    if base not in _READ or not json_only(base, text, warnings, "the eAPI JSON answer, `| json`"):
        return
    cmd = base
    data = json_object(cmd, text, warnings, "not a JSON object")
    if data is None:
        return
    if cmd == LINK:
        _link(data, ports)
        return
    if cmd == QUEUES:
        ifs = dig(data, "egressQueueCounters", "interfaces")
    elif cmd == ECN:
        ifs = data.get("intfQueueCounters")
    else:
        ifs = data.get("interfaces")
    if not isinstance(ifs, dict):
        unknown.update(f"{cmd}: {k}" for k in data)
        return
    for name, body in ifs.items():
        if not isinstance(body, dict):
            continue
        pc = ports.setdefault(str(name), PortCounters())
        if cmd == PFC:
            for prio, c in (body.get("priorities") or {}).items():
                p = priority_of(prio)
                if p is None or not isinstance(c, dict):
                    unknown.add(f"{cmd}: priority {prio}")
                    continue
                if not c.keys() <= _PFC_KEYS:
                    unknown.update(f"{cmd}: {k}" for k in c if k not in _PFC_KEYS)
                # _first(c, name) of each; set_prio (to_int gives a count or None)
                rx = to_int(c["rxFrames"]) if "rxFrames" in c else None
                tx = to_int(c["txFrames"]) if "txFrames" in c else None
                if rx is not None and 0 <= p <= 7:
                    pc.prio.setdefault("pfc_rx", {})[p] = rx
                if tx is not None and 0 <= p <= 7:
                    pc.prio.setdefault("pfc_tx", {})[p] = tx
        elif cmd == WATCHDOG:
            for q, c in (body.get("txQueues") or {}).items():
                p = priority_of(q)
                if p is None or not isinstance(c, dict):
                    unknown.add(f"{cmd}: tx-queue {q}")
                    continue
                unknown.update(f"{cmd}: {k}" for k in c if k not in ("stuckCount", "recoveryCount"))
                stuck, rec = _first(c, "stuckCount"), _first(c, "recoveryCount")
                if stuck is not None:
                    pc.set_prio("wd_detected", p, stuck)
                if rec is not None:
                    pc.set_prio("wd_restored", p, rec)
                if stuck is not None and rec is not None:
                    pc.wd_state(p, stuck > rec)  # stuck and not yet recovered: held shut
        elif cmd in (QUEUES, VOQ):
            tcs = (
                dig(body, "ucastQueues", "trafficClasses")
                if cmd == QUEUES
                else body.get("trafficClasses")
            )
            for q, c in (tcs if isinstance(tcs, dict) else {}).items():
                p = priority_of(q)
                if p is None:
                    unknown.add(f"{cmd}: traffic class {q}")
                v = _drops(c) if isinstance(c, dict) else None
                if p is not None and v is not None and 0 <= p <= 7:  # set_prio: v is a count
                    pc.prio.setdefault("queue_drops", {})[p] = v
        elif cmd == ECN:
            for q, c in (body.get("queueCounters") or {}).items():
                p, v = priority_of(q), to_int(c)
                if p is None:
                    unknown.add(f"{cmd}: queue {q}")
                if p is not None and v is not None and 0 <= p <= 7:  # "-": not counted on that queue
                    pc.prio.setdefault("ecn_marked", {})[p] = v


def _link(data: dict[str, Any], ports: dict[str, PortCounters]) -> None:
    """``show interfaces``: each interface's ``interfaceCounters`` (an interface without them, or a value
    that is no count, is not read). The key names the interface (the body's ``name`` may differ)."""
    ifs = data.get("interfaces")
    for name, body in (ifs if isinstance(ifs, dict) else {}).items():
        if not isinstance(body, dict):
            continue
        c = body.get("interfaceCounters")
        c = c if isinstance(c, dict) else {}
        got = {
            "fcs_errors": to_int(dig(c, "inputErrorsDetail", "fcsErrors")),
            "carrier_transitions": to_int(c.get("linkStatusChanges")),
            "rx_octets": to_int(c.get("inOctets")),
            "tx_octets": to_int(c.get("outOctets")),
            # the speed of a connected port only: the recording's notconnect port has a bandwidth too
            "speed_bps": to_int(body.get("bandwidth")) if body.get("interfaceStatus") == "connected" else None,
        }
        got = {k: v for k, v in got.items() if v is not None and (k != "speed_bps" or v > 0)}
        if got:
            pc = ports.setdefault(str(name), PortCounters())
            for k, v in got.items():
                pc.set_link(k, v)


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    cmd = command.replace(" | json", "").strip()
    if cmd == PFC:
        out = {
            n: {
                "priorities": {
                    str(p): {
                        "rxFrames": pc.prio.get("pfc_rx", {}).get(p, 0),
                        "txFrames": pc.prio.get("pfc_tx", {}).get(p, 0),
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
        tcs = {
            n: {
                f"TC{p}": {
                    "dropPrecedences": {"DP0": {"droppedPackets": pc.prio.get("queue_drops", {}).get(p, 0)}}
                }
                for p in range(8)
            }
            for n, pc in ports.items()
        }
        qs = {n: {"ucastQueues": {"trafficClasses": t}} for n, t in tcs.items()}
        return json.dumps({"egressQueueCounters": {"interfaces": qs}})
    elif cmd == ECN:
        ecn = {
            n: {"queueCounters": {str(p): str(pc.prio.get("ecn_marked", {}).get(p, 0)) for p in range(8)}}
            for n, pc in ports.items()
        }
        return json.dumps({"intfQueueCounters": ecn})
    elif cmd == LINK:
        ifs = {}
        for n, pc in ports.items():
            k = pc.link
            counters: dict[str, Any] = {}
            if "fcs_errors" in k:
                counters["inputErrorsDetail"] = {"fcsErrors": k["fcs_errors"], "alignmentErrors": 0, "symbolErrors": 0}
            for key, c in (("linkStatusChanges", "carrier_transitions"), ("inOctets", "rx_octets"),
                           ("outOctets", "tx_octets")):
                if c in k:
                    counters[key] = k[c]
            ifs[n] = {"name": n, "interfaceStatus": "connected", "interfaceCounters": counters,
                      **({"bandwidth": k["speed_bps"]} if "speed_bps" in k else {})}
        return json.dumps({"interfaces": ifs})
    else:
        return None
    return json.dumps({"interfaces": out})


COUNTERS = CounterSpec(
    commands=same_commands(COMMANDS),
    parse=parse,
    simulate=simulate,
    sources=SOURCES,
    transport="eapi-json",
    link_commands=same_commands([LINK]),
    link_sources=LINK_SOURCES,
    link_reads=LINK_READS,
)
