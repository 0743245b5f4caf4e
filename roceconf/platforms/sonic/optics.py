"""SONiC optics (DOM) for ``roceconf cabling`` (RC514-RC516): ``show interfaces transceiver eeprom --dom``.

Layout and names as sonic-utilities' ``scripts/sfpshow`` prints them and its ``tests/sfp_test.py`` records the
output (tests/fixtures/sonic/counters/real/sfpshow-*.txt, Apache-2.0): a ``<port>: SFP EEPROM detected`` line,
then indented sections ``ChannelMonitorValues`` (``RXPower`` / ``TXPower`` of a one-lane module, ``RX<n>Power``
/ ``TX<n>Power`` per lane of a multi-lane one, ``<value>dBm``), ``ChannelThresholdValues`` (``RxPowerHighAlarm``,
``RxPowerHighWarning``, ``RxPowerLowAlarm``, ``RxPowerLowWarning``, the same for ``TxPower``; one set for every
lane), ``ModuleMonitorValues`` (``Temperature: <value>C``) and ``ModuleThresholdValues`` (``TempHighAlarm``,
``TempHighWarning``, ``TempLowAlarm``, ``TempLowWarning``). Of a multi-lane module the worst lane is kept
(``PortCounters.set_worst_lane``). A module whose thresholds are not printed (an empty section) keeps its
readings only: the checks are unknown there, never ok.
"""

from __future__ import annotations

import re

from roceconf.counters.model import PortCounters

DOM = "show interfaces transceiver eeprom --dom"
SOURCE = ("sonic-utilities scripts/sfpshow and tests/sfp_test.py (show interfaces transceiver eeprom -d: "
          "ChannelMonitorValues RX<n>Power/TX<n>Power, ChannelThresholdValues RxPower*/TxPower*, "
          "ModuleMonitorValues Temperature, ModuleThresholdValues Temp*)")
_PORT = re.compile(r"^(\S+): SFP EEPROM detected\s*$")
_ENTRY = re.compile(r"^\s+([A-Za-z0-9 ]+?)\s*:\s*(\S.*?)\s*$")
_LANE = re.compile(r"^(RX|TX)(\d*)Power$")
#: threshold key prefix -> reading; suffix -> level
_TH = {"RxPower": "rx_power_dbm", "TxPower": "tx_power_dbm", "Temp": "temperature_c"}
_LEVEL = {"HighAlarm": "high_alarm", "HighWarning": "high_warn", "LowWarning": "low_warn", "LowAlarm": "low_alarm"}
_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?")
_SECTIONS = ("ChannelMonitorValues", "ChannelThresholdValues", "ModuleMonitorValues", "ModuleThresholdValues")


def _value(text: str, unit: str) -> float | None:
    """A value printed with its unit right after it (``-9.5001dBm``, ``30.9258C``); None for anything else
    (``N/A``, or a number whose unit is missing: an answer cut inside it)."""
    num = text[: -len(unit)] if text.endswith(unit) else ""
    return float(num) if _NUMBER.fullmatch(num) else None


def read(text: str, ports: dict[str, PortCounters]) -> None:
    """The optics of every port the answer shows a module of (a port not detected is left out)."""
    blocks: dict[str, dict[str, dict[str, str]]] = {}
    seen: dict[str, set[str]] = {}  # the sections each block began
    port: str | None = None
    section = ""
    for line in text.splitlines():
        m = _PORT.match(line)
        if m:
            port, section = m.group(1), ""
            blocks[port] = {s: {} for s in _SECTIONS}
            seen[port] = set()
            continue
        if port is None:
            continue
        if line and not line[0].isspace():  # another port's line (not detected): the block ends
            port = None
            continue
        head = line.strip().rstrip(":")
        if head in _SECTIONS and line.strip().endswith(":"):
            section = head
            seen[port].add(head)
            continue
        e = _ENTRY.match(line)
        if e and section:
            blocks[port][section][e.group(1)] = e.group(2)
    for name, b in blocks.items():
        # a section is whole when the next one began: an answer cut inside the lanes' readings (or before the
        # temperature's section ended) keeps none of them, so a bad lane is never left out
        if "ChannelThresholdValues" not in seen[name]:
            b["ChannelMonitorValues"].clear()
        if "ModuleThresholdValues" not in seen[name]:
            b["ModuleMonitorValues"].clear()
        th: dict[str, dict[str, float | None]] = {r: {} for r in _TH.values()}
        for k, v in (*b["ChannelThresholdValues"].items(), *b["ModuleThresholdValues"].items()):
            for prefix, reading in _TH.items():
                level = _LEVEL.get(k[len(prefix):]) if k.startswith(prefix) else None
                if level:
                    th[reading][level] = _value(v, "C" if reading == "temperature_c" else "dBm")
        lanes: dict[str, list[tuple[int, float | None, dict[str, float | None]]]] = {"rx_power_dbm": [],
                                                                                    "tx_power_dbm": []}
        for k, v in b["ChannelMonitorValues"].items():
            m = _LANE.match(k)
            if m:
                reading = "rx_power_dbm" if m.group(1) == "RX" else "tx_power_dbm"
                lanes[reading].append((int(m.group(2) or 1), _value(v, "dBm"), th[reading]))
        pc = PortCounters()
        for reading, ls in lanes.items():
            if ls:
                pc.set_worst_lane(reading, ls)
            elif th[reading]:
                pc.set_optics(reading, None, th[reading])
        temp = b["ModuleMonitorValues"].get("Temperature")
        pc.set_optics("temperature_c", _value(temp, "C") if temp else None, th["temperature_c"])
        if pc.optics:
            ports.setdefault(name, PortCounters()).add_optics_of(pc)


def simulate(ports: dict[str, PortCounters]) -> str:
    """The answer for every port with optics readings, laid out as sfpshow prints a one-lane module."""
    out = []
    for name, pc in ports.items():
        o = pc.optics or {}
        if not o:
            continue
        lines = [f"{name}: SFP EEPROM detected", "        ChannelMonitorValues:"]
        for key, reading in (("RXPower", "rx_power_dbm"), ("TXPower", "tx_power_dbm")):
            if reading in o:
                lines.append(f"                {key}: {o[reading]:.4f}dBm")
        lines.append("        ChannelThresholdValues:")
        for prefix in ("RxPower", "TxPower"):
            for suffix, level in _LEVEL.items():
                v = o.get(f"{_TH[prefix]}:{level}")
                if v is not None:
                    lines.append(f"                {prefix + suffix:<18}: {v:.4f}dBm")
        lines.append("        ModuleMonitorValues:")
        if "temperature_c" in o:
            lines.append(f"                Temperature: {o['temperature_c']:.4f}C")
        lines.append("        ModuleThresholdValues:")
        for suffix, level in _LEVEL.items():
            v = o.get(f"temperature_c:{level}")
            if v is not None:
                lines.append(f"                {'Temp' + suffix:<15}: {v:.4f}C")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


__all__ = ["DOM", "SOURCE", "read", "simulate"]
