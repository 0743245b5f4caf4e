"""Juniper Junos counters over SSH: ``show interfaces extensive`` and ``show interfaces queue``, read in any of
the three forms Junos prints (detected from the answer): JSON (``| display json``, Junos's XML-to-JSON rule:
every leaf ``[{"data": value}]``), XML (``| display xml``) and the plain CLI text.

Sources (``SOURCES``; fixtures and their provenance in tests/fixtures/junos/counters/):
* ``show interfaces extensive``, "MAC Priority Flow Control Statistics": per priority the PFC frames received
  and sent. XML elements ``ethernet-mac-pfc-statistics`` (one per priority) with ``mac-pfc-dot1p``,
  ``input-mac-pfc-frames`` and ``output-mac-pfc-frames``; text lines ``Priority :  3   <received>  <sent>``.
  Names and layout as a public QFX recording (Junos 22.4) prints them.
* ``show interfaces queue``: per egress queue ``queue-counters-tail-drop-packets`` and
  ``queue-counters-red-packets`` (text "Tail-dropped packets", "RED-dropped packets", as in a public MX
  recording) and ECN-CE marked packets (text "ECN-CE packets"; XML ``queue-counters-ecn-ce-packets``, a name
  no public recording confirms). A QFX answers ``queue-counters-tail-drop-packets-na`` "Not Available" (a
  public Junos 17.2 recording in OpenDaylight NIC's tests): that queue's drops are not read, with a warning.
* link counters (``roceconf cabling``), from the same ``show interfaces extensive`` answer in its XML and JSON
  forms: ``output-error-list/carrier-transitions``, ``ethernet-mac-statistics/input-crc-errors`` and
  ``traffic-statistics/input-bytes`` / ``output-bytes`` of each ``physical-interface``, as a recorded SRX RPC
  reply in py-junos-eznc's tests shows them (tests/fixtures/junos/counters/real/). The CLI text form's lines
  are not read for them (no recording of that layout kept); no recording with FEC counters under a usable
  licence was found: FEC is not read on Junos. The operational speed is the physical interface's ``speed``
  (``1000mbps`` in the SRX reply, ``10Gbps`` in other recorded replies) where its ``oper-status`` is ``up``;
  the FEC mode is not in the recorded reply: not read.
* optics (DOM, ``roceconf cabling`` RC514-RC516): ``show interfaces diagnostics optics`` (RPC
  ``get-interface-optics-diagnostics-information``), ``optics-diagnostics`` of each ``physical-interface``:
  ``rx-signal-avg-optical-power-dbm``, ``laser-output-power-dbm``, ``module-temperature`` (``45 degrees C / 113
  degrees F``) and the module's thresholds ``laser-rx-power-{high,low}-{alarm,warn}-threshold-dbm``,
  ``laser-tx-power-...-threshold-dbm``, ``module-temperature-{high,low}-{alarm,warn}-threshold``, as napalm's
  Junos test data records the RPC reply (tests/fixtures/junos/counters/real/napalm-optics-*.txt). ``- Inf`` (no
  light) is no number: that reading is not read. Multi-lane modules' per-lane values
  (``optics-diagnostics-lane-values``) are in no recording kept: not read (their rx/tx power is then unknown).
Junos reports no PFC pause duration and no PFC watchdog counters in these commands: those rules cannot fire on
Junos (docs/health.md says so).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any
from xml.etree import ElementTree as ET

from roceconf.counters.model import CounterSpec, PortCounters, optics_value, same_commands, speed_bps, to_int
from roceconf.counters.parsing import jload, read_outputs

log = logging.getLogger(__name__)

QUEUES = "show interfaces queue | display json"
PFC = "show interfaces extensive | display json"
COMMANDS = [PFC, QUEUES]
OPTICS = "show interfaces diagnostics optics | display json"
SOURCES = {
    QUEUES: "Junos OS CLI reference, show interfaces queue (queue-counters-tail-drop-packets, queue-counters-red-packets; ECN-CE packets)",
    PFC: "Junos OS CLI reference, show interfaces extensive (MAC Priority Flow Control Statistics: ethernet-mac-pfc-statistics, mac-pfc-dot1p, input/output-mac-pfc-frames)",
}
#: the neutral counter each queue element feeds (drops add up)
_QUEUE = {
    "queue-counters-tail-drop-packets": "queue_drops",
    "queue-counters-red-packets": "queue_drops",
    "queue-counters-ecn-ce-packets": "ecn_marked",
}
_PFC = {"input-mac-pfc-frames": "pfc_rx", "output-mac-pfc-frames": "pfc_tx"}
#: (parent element of the physical interface, element) -> link counter
_LINK = {
    ("output-error-list", "carrier-transitions"): "carrier_transitions",
    ("ethernet-mac-statistics", "input-crc-errors"): "fcs_errors",
    ("traffic-statistics", "input-bytes"): "rx_octets",
    ("traffic-statistics", "output-bytes"): "tx_octets",
}
_PARENTS = {p for p, _e in _LINK}
#: optics reading -> (element of the reading, element of each threshold by level, before the level's words)
_OPTICS = {
    "rx_power_dbm": ("rx-signal-avg-optical-power-dbm", "laser-rx-power-{}-threshold-dbm"),
    "tx_power_dbm": ("laser-output-power-dbm", "laser-tx-power-{}-threshold-dbm"),
    "temperature_c": ("module-temperature", "module-temperature-{}-threshold"),
}
#: OPTICS_LEVELS -> the level's words in the threshold elements
_LEVEL_WORDS = {"high_alarm": "high-alarm", "high_warn": "high-warn", "low_warn": "low-warn", "low_alarm": "low-alarm"}
LINK_READS = frozenset({*_LINK.values(), "speed_bps", *_OPTICS})
LINK_SOURCES = {
    OPTICS: "napalm's Junos test data, RPC reply of get-interface-optics-diagnostics-information (physical-interface/optics-diagnostics: rx-signal-avg-optical-power-dbm, laser-output-power-dbm, module-temperature and their laser-rx-power-*-threshold-dbm, laser-tx-power-*-threshold-dbm, module-temperature-*-threshold)",
    PFC: "py-junos-eznc's recorded RPC reply of show interfaces extensive (physical-interface: output-error-list/carrier-transitions, ethernet-mac-statistics/input-crc-errors, traffic-statistics/input-bytes, output-bytes; speed of a physical-interface whose oper-status is up)",
}
#: queue elements real answers carry that the parser knows and does not need: tail + RED drops are read one
#: by one; rate-limit drops are policing, not buffer loss
_SEEN = {"queue-counters-total-drop-packets", "queue-counters-rate-limit-drop-packets"}
#: text labels of ``show interfaces queue`` (value: the first number after the colon)
_QUEUE_TEXT = {
    "Tail-dropped packets": "queue-counters-tail-drop-packets",
    "RED-dropped packets": "queue-counters-red-packets",
    "ECN-CE packets": "queue-counters-ecn-ce-packets",
}


# ------------------------------------------------------------------------------- one intermediate form
#: interface -> {"pfc": {prio: {element: value}}, "queue": {queue: {element: value}},
#: "link": {0: {link counter: value}}} (the link counters of the physical interface under the key 0)
Reading = dict[str, dict[str, dict[int, dict[str, int]]]]


def _leaf(node: Any) -> Any:
    """Junos JSON leaf: [{"data": value}] -> value."""
    if isinstance(node, list) and node and isinstance(node[0], dict):
        return node[0].get("data")
    return None


def _objs(node: Any, key: str) -> list[dict[str, Any]]:
    x = node.get(key) if isinstance(node, dict) else None
    return [i for i in x if isinstance(i, dict)] if isinstance(x, list) else []


def _from_json(data: Any, unknown: set[str]) -> Reading:
    out: Reading = {}
    for info in _objs(data, "interface-information"):
        for phy in _objs(info, "physical-interface"):
            name = _leaf(phy.get("name"))
            if not isinstance(name, str) or not name:
                continue
            entry = out.setdefault(name, {"pfc": {}, "queue": {}})
            _speed(entry, _leaf(phy.get("oper-status")), _leaf(phy.get("speed")))
            for (parent, el), c in _LINK.items():
                for block in _objs(phy, parent)[:1]:
                    v = to_int(_leaf(block.get(el)))
                    if v is not None:
                        entry.setdefault("link", {}).setdefault(0, {})[c] = v
            for od in _objs(phy, "optics-diagnostics")[:1]:
                entry["optics"] = {k: _leaf(v) for k, v in od.items() if k != "attributes"}
            for st in _objs(phy, "ethernet-mac-pfc-statistics"):
                _put_json(entry["pfc"], st, "mac-pfc-dot1p", _PFC, unknown)
            for qc in _objs(phy, "queue-counters"):
                for q in _objs(qc, "queue"):
                    _put_json(entry["queue"], q, "queue-number", _QUEUE, unknown)
    return out


def _put_json(
    into: dict[int, dict[str, int]], node: dict[str, Any], key: str, known: dict[str, str], unknown: set[str]
) -> None:
    """:func:`_put` of a JSON object's leaves (``{element: [{"data": value}]}``, its attributes left out),
    each leaf read only where its element is used."""
    if key not in node:
        return
    p = to_int(_leaf(node[key]))
    if p is None:
        return
    row = into.setdefault(p, {})
    elements = _ELEMENTS.get((key, id(known)))
    if elements is None:
        elements = _ELEMENTS[(key, id(known))] = {}
    for k, v in node.items():
        if k == "attributes":
            continue
        what = elements.get(k)
        if what is None:
            what = _element(key, k, known)
            if len(elements) < 4096:
                elements[k] = what
        # every leaf read as _put reads it (a value int() refuses ends the reading there too): _leaf, to_int
        val = v[0].get("data") if isinstance(v, list) and v and isinstance(v[0], dict) else None
        n = int(val) if type(val) is str and val.isdigit() and len(val) <= 20 else to_int(val)
        if what == 2:
            row[k[:-3]] = -1
        elif what == 1:
            row[k] = -1 if n is None else n
        elif what == 3 and n is not None:
            unknown.add(k)


#: (key, id of its table) -> element -> what :func:`_put` does with the element (:func:`_element`); the tables
#: are module constants
_ELEMENTS: dict[tuple[str, int], dict[str, int]] = {}


def _element(key: str, k: str, known: dict[str, str]) -> int:
    """What :func:`_put` does with element ``k``: 2 the "Not Available" of a known counter, 1 a known counter,
    3 a number worth listing as not understood, 0 nothing."""
    if k.endswith("-na") and k[:-3] in known:
        return 2
    if k in known:
        return 1
    return 3 if k != key and _notable(key, k) else 0


def _speed(entry: dict[str, Any], oper: Any, speed: Any) -> None:
    """The operational speed of an interface that is up (a down one shows its configured speed, or none)."""
    v = speed_bps(speed) if oper == "up" else None
    if v is not None:
        entry.setdefault("link", {}).setdefault(0, {})["speed_bps"] = v


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _from_xml(root: ET.Element, unknown: set[str]) -> Reading:
    out: Reading = {}
    for phy in root.iter():
        if _local(phy.tag) != "physical-interface":
            continue
        kids = {_local(k.tag): k for k in phy}
        name = (kids["name"].text or "").strip() if "name" in kids else ""
        if not name:
            continue
        entry = out.setdefault(name, {"pfc": {}, "queue": {}})
        text = {k: (kids[k].text or "").strip() for k in ("oper-status", "speed") if k in kids}
        _speed(entry, text.get("oper-status"), text.get("speed"))
        for el in phy:
            if _local(el.tag) in _PARENTS:
                for k in el:
                    c = _LINK.get((_local(el.tag), _local(k.tag)))
                    v = to_int((k.text or "").strip()) if c else None
                    if c and v is not None:
                        entry.setdefault("link", {}).setdefault(0, {}).setdefault(c, v)
            if _local(el.tag) == "optics-diagnostics" and "optics" not in entry:
                entry["optics"] = {_local(k.tag): (k.text or "").strip() for k in el}
            if _local(el.tag) == "ethernet-mac-pfc-statistics":
                _put(
                    entry["pfc"],
                    {_local(k.tag): (k.text or "").strip() for k in el},
                    "mac-pfc-dot1p",
                    _PFC,
                    unknown,
                )
            elif _local(el.tag) == "queue-counters":
                for q in el:
                    if _local(q.tag) == "queue":
                        flat = {_local(k.tag): (k.text or "").strip() for k in q}
                        _put(entry["queue"], flat, "queue-number", _QUEUE, unknown)
    return out


def _put(
    into: dict[int, dict[str, int]], flat: dict[str, Any], key: str, known: dict[str, str], unknown: set[str]
) -> None:
    p = to_int(flat.get(key))
    if p is None:
        return
    row = into.setdefault(p, {})
    for k, v in flat.items():
        n = to_int(v)
        if k.endswith("-na") and k[:-3] in known:
            # "Not Available" under its own element (QFX: queue-counters-tail-drop-packets-na, as a public
            # Junos 17.2 recording in OpenDaylight NIC's tests shows): the counter is there but not a count
            row[k[:-3]] = -1
        elif k in known:
            row[k] = -1 if n is None else n  # -1: there but not a count (makes the counter unknown)
        elif k != key and n is not None and _notable(key, k):
            unknown.add(k)


def _notable(key: str, name: str) -> bool:
    """A number the parser does not read but a new release may have moved a counter into: any in a PFC
    entry, a queue's drop / ECN ones (not rates or bytes)."""
    if name.endswith(("-rate", "-bytes", "-low", "-high")) or "-rate-" in name or "-bytes-" in name:
        return False
    if name in _SEEN:
        return False
    return key == "mac-pfc-dot1p" or any(w in name for w in ("drop", "ecn", "red-packets", "mark"))


_PHY = re.compile(r"\s*Physical interface:\s*([^\s,]+),")
_PRIO = re.compile(r"\s+Priority\s*:\s*(\d)\s+(\d{1,20})\s+(\d{1,20})\s*")
_QNUM = re.compile(r"\s*Queue:\s*(\d{1,3}),")
_QVAL = re.compile(
    r"\s+(" + "|".join(re.escape(k) for k in _QUEUE_TEXT) + r")\s*:\s*(\d{1,20}|Not Available)(?:\s.*)?"
)


def _from_text(text: str) -> Reading:
    """The CLI text. A value on the last line of the output is never read: a cut answer ends mid-line, and
    the rest of a cut number would read as a smaller, wrong one."""
    out: Reading = {}
    lines = text.replace("\r", "").rstrip().split("\n")
    name: str | None = None
    queue: int | None = None
    in_pfc = False
    for line in lines[:-1]:
        m = _PHY.match(line)
        if m:
            name, queue, in_pfc = m.group(1), None, False
            out.setdefault(name, {"pfc": {}, "queue": {}})
            continue
        if name is None:
            continue
        if line.strip().startswith("MAC Priority Flow Control Statistics"):
            in_pfc = True
            continue
        if in_pfc:
            m = _PRIO.fullmatch(line)
            if m:
                out[name]["pfc"][int(m.group(1))] = {
                    "input-mac-pfc-frames": int(m.group(2)),
                    "output-mac-pfc-frames": int(m.group(3)),
                }
                continue
            in_pfc = False
        m = _QNUM.match(line)
        if m:
            queue = int(m.group(1))
            continue
        m = _QVAL.fullmatch(line)
        if m and queue is not None:
            row = out[name]["queue"].setdefault(queue, {})
            # the first is the queue's own total; "Not Available" (QFX) is there but no count: -1
            row.setdefault(_QUEUE_TEXT[m.group(1)], int(m.group(2)) if m.group(2).isdigit() else -1)
    return out


def _xml(text: str) -> ET.Element | None:
    s = text.strip()
    start = s.find("<")
    if start < 0 or "<!" in s:  # no DOCTYPE / ENTITY: nothing the device sends needs them
        return None
    try:
        return ET.fromstring(s[start:])
    except ET.ParseError:
        return None


def read(text: str, unknown: set[str] | None = None) -> tuple[Reading, str]:
    """(reading, form) of one answer in whichever form it came: ``json``, ``xml``, ``text`` or ``""``."""
    unknown = set() if unknown is None else unknown
    data = jload(text)
    if isinstance(data, dict):
        return _from_json(data, unknown), "json"
    root = _xml(text)
    if root is not None:
        return _from_xml(root, unknown), "xml"
    if _PHY.search(text):
        return _from_text(text), "text"
    return {}, ""


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    return read_outputs(outputs, _read, log)


def _read(
    cmd: str, text: str, ports: dict[str, PortCounters], warnings: list[str], unknown: set[str]
) -> None:
    """One answer (Junos JSON, XML or CLI text): the interfaces it lists."""
    reading, form = read(text, unknown)
    if not form:
        if text.strip():
            warnings.append(f"{cmd}: neither Junos JSON, XML nor CLI text")
        return
    if "extensive" in cmd and reading and not any(e["pfc"] for e in reading.values()):
        # a real answer of a device without PFC counters (an SRX, tests/fixtures/junos/counters/real)
        warnings.append(f"{cmd}: no MAC Priority Flow Control Statistics in the answer")
    drop_keys = [k for k, c in _QUEUE.items() if c == "queue_drops"]
    na = [n for n, e in reading.items() if any(r.get(k, 0) < 0 for r in e["queue"].values() for k in drop_keys)]
    if na:
        warnings.append(f"{cmd}: {', '.join(sorted(na))}: a queue drop counter is not a count; drops not read")
    for name, entry in reading.items():
        pc = ports.setdefault(name, PortCounters())
        for c, v in entry.get("link", {}).get(0, {}).items():
            pc.set_link(c, v)
        od = entry.get("optics")
        for key, (el, th) in _OPTICS.items() if isinstance(od, dict) else ():
            pc.set_optics(key, optics_value(od.get(el)),
                          {lv: optics_value(od.get(th.format(w))) for lv, w in _LEVEL_WORDS.items()})
        for p, row in entry["pfc"].items():
            for k, c in _PFC.items():
                if row.get(k, -1) >= 0:
                    pc.set_prio(c, p, row[k])
        for p, row in entry["queue"].items():
            drops = [row[k] for k, c in _QUEUE.items() if c == "queue_drops" and k in row]
            if drops and min(drops) >= 0:  # a part that is no count makes the sum unknown
                pc.set_prio("queue_drops", p, sum(drops))
            if row.get("queue-counters-ecn-ce-packets", -1) >= 0:
                pc.set_prio("ecn_marked", p, row["queue-counters-ecn-ce-packets"])


# ------------------------------------------------------------------------------------ the lab's answer
def _d(value: Any) -> list[dict[str, str]]:
    return [{"data": str(value)}]


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    """The JSON form, laid out as the public recordings show the XML (one ``ethernet-mac-pfc-statistics`` per
    priority; queue tail / RED drops). ECN-CE counts are not served: no public recording shows their element."""
    cmd = " ".join(command.split())
    if cmd == OPTICS:
        return _simulate_optics(ports)
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
                        }
                        for p in range(8)
                    ]
                }
            ]
        else:
            for (parent, el), c in _LINK.items():
                if c in pc.link:
                    entry.setdefault(parent, [{}])[0][el] = _d(pc.link[c])
            if "speed_bps" in pc.link:
                bps = pc.link["speed_bps"]
                entry["speed"] = _d(f"{bps // 10**9}Gbps" if bps % 10**9 == 0 else f"{bps // 10**6}mbps")
            entry["ethernet-mac-pfc-statistics"] = [
                {
                    "attributes": {"junos:style": "verbose"},
                    "mac-pfc-dot1p": _d(p),
                    "input-mac-pfc-frames": _d(g("pfc_rx", p)),
                    "output-mac-pfc-frames": _d(g("pfc_tx", p)),
                }
                for p in range(8)
            ]
        phys.append(entry)
    return json.dumps({"interface-information": [{"physical-interface": phys}]}, indent=1)


def _simulate_optics(ports: dict[str, PortCounters]) -> str:
    """``show interfaces diagnostics optics`` in the JSON form, the recorded reply's elements (a port without
    optics readings is not listed, as an interface without a transceiver is not)."""
    phys = []
    for n, pc in ports.items():
        if not pc.optics:
            continue
        od: dict[str, Any] = {}
        for reading, (el, th) in _OPTICS.items():
            shown = {el: pc.optics.get(reading), **{th.format(w): pc.optics.get(f"{reading}:{lv}")
                                                    for lv, w in _LEVEL_WORDS.items()}}
            for k, v in shown.items():
                if v is None:
                    continue
                # as recorded: dBm with two decimals, temperatures in whole degrees C and F
                od[k] = _d(f"{round(v)} degrees C / {round(v * 9 / 5 + 32)} degrees F" if reading == "temperature_c"
                           else f"{v:.2f}")
        phys.append({"name": _d(n), "optics-diagnostics": [od]})
    return json.dumps({"interface-information": [{"physical-interface": phys}]}, indent=1)


COUNTERS = CounterSpec(
    commands=same_commands(COMMANDS),
    parse=parse,
    simulate=simulate,
    sources=SOURCES,
    transport="cli",
    link_commands=same_commands([PFC, OPTICS]),
    link_sources=LINK_SOURCES,
    link_reads=LINK_READS,
)
