"""NX-OS optics (DOM) for ``roceconf cabling`` (RC514-RC516): ``show interface transceiver details``, CLI text.

Layout as a recorded NX-OS answer in ntc-templates' tests shows it (tests/fixtures/nxos/counters/real/
ntc-transceiver-details.txt, Apache-2.0): an interface name alone on a line, then per module (or, for a
multi-lane module, per ``Lane Number:<n>`` section) the table "SFP Detail Diagnostics Information" whose rows
``Temperature``, ``Tx Power`` and ``Rx Power`` give the current measurement (``-30.45 dBm``, ``35.66 C``, or
``N/A``; a flag ``++`` / ``+`` / ``--`` / ``-`` may follow it), then the high and low alarm thresholds and the
high and low warning thresholds, in that order. Of a multi-lane module the worst lane is kept
(``PortCounters.set_worst_lane``). A module that prints "DOM is not supported" in place of the table (copper
cables and a 1000BASE-SX module in napalm's recorded Nexus 3548 answer, tests/fixtures/nxos/counters/real/
napalm-n3548-transceiver-details.txt) states it has no diagnostics: kept as ``NO_DOM`` (its optics checks are
n/a, never ok); a port that prints neither (``transceiver is not present``, an answer cut short) has no
reading: unknown. No JSON form of this command was found recorded: the text is read.
"""

from __future__ import annotations

import re

from roceconf.counters.model import NO_DOM, PortCounters

DOM = "show interface transceiver details"
SOURCE = ("ntc-templates tests/cisco_nxos/show_interface_transceiver_details (a recorded NX-OS answer: rows "
          "Temperature, Tx Power, Rx Power with current, alarm high/low, warning high/low)")
_IF = re.compile(r"^([A-Za-z][A-Za-z-]*\d+(?:/\d+)*)\s*$")
_LANE = re.compile(r"^Lane Number:\s*(\d+)\b")
_ROW = re.compile(r"^\s+(Temperature|Tx Power|Rx Power)\s+(\S.*)$")
_READING = {"Temperature": "temperature_c", "Tx Power": "tx_power_dbm", "Rx Power": "rx_power_dbm"}
_UNITS = {"C", "dBm", "V", "mA"}
_FLAGS = {"++", "+", "--", "-"}
_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?")
#: the threshold columns after the measurement, in the table's order
_COLUMNS = ("high_alarm", "low_alarm", "high_warn", "low_warn")
#: the line a module without diagnostics prints in place of the table
NO_DOM_LINE = "DOM is not supported"


def _row(rest: str) -> tuple[float | None, dict[str, float | None]] | None:
    """(measurement, thresholds) of one row; None when the row has not its five values, each a number with
    its unit (``-30.45 dBm``) or ``N/A``: a number without its unit is an answer cut inside it."""
    tokens = rest.split()
    cells: list[float | None] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in _FLAGS:
            i += 1
        elif t == "N/A":
            cells.append(None)
            i += 1
        elif i + 1 < len(tokens) and tokens[i + 1] in _UNITS and _NUMBER.fullmatch(t):
            cells.append(float(t))
            i += 2
        else:
            return None
    if len(cells) != 5:
        return None
    return cells[0], dict(zip(_COLUMNS, cells[1:], strict=True))


def read(text: str, ports: dict[str, PortCounters]) -> None:
    """The optics of every interface whose module prints its diagnostics."""
    found: dict[str, dict[str, list[tuple[int, float | None, dict[str, float | None]]]]] = {}
    no_dom: list[str] = []
    port: str | None = None
    lane = 1
    lines = text.splitlines()
    # the last interface's block is whole only when its table's closing note is the answer's last line: an
    # answer cut inside it (a lane or a row lost) keeps none of it (a cut between two lanes' tables still
    # reads as a module with fewer lanes: the answer has no end mark to tell)
    last = next((ln for ln in reversed(lines) if ln.strip()), "")
    whole_end = last.strip().startswith("Note:") or last.strip() == NO_DOM_LINE
    for line in lines:
        m = _IF.match(line)
        if m:
            port, lane = m.group(1), 1
            continue
        if port is not None and line.strip() == NO_DOM_LINE:
            no_dom.append(port)
            continue
        m = _LANE.match(line)
        if m:
            lane = int(m.group(1))
            continue
        r = _ROW.match(line)
        if r and port is not None:
            got = _row(r.group(2))
            if got is not None:
                found.setdefault(port, {}).setdefault(_READING[r.group(1)], []).append((lane, *got))
    if port is not None and not whole_end:
        found.pop(port, None)
    for name, readings in found.items():
        pc = PortCounters()
        for reading, lanes in readings.items():
            pc.set_worst_lane(reading, lanes)
        if pc.optics:
            ports.setdefault(name, PortCounters()).add_optics_of(pc)
    for name in no_dom:
        if name not in found:  # the module's own statement, where it printed no reading
            ports.setdefault(name, PortCounters()).add_optics_of(PortCounters(optics={NO_DOM: 1.0}))


def simulate(ports: dict[str, PortCounters]) -> str:
    """The answer for every port with optics readings, laid out as the recorded one-lane module."""
    out = []
    for name, pc in ports.items():
        o = pc.optics or {}
        if not o:
            continue
        if NO_DOM in o and not any(k in o for k in _READING.values()):
            out.append(f"{name}\n    transceiver is present\n    type is SFP-H10GB-CU3M\n\n{NO_DOM_LINE}\n")
            continue
        lines = [name, "    transceiver is present", "",
                 "           SFP Detail Diagnostics Information (internal calibration)",
                 "  " + "-" * 76,
                 "                Current              Alarms                  Warnings",
                 "                Measurement     High        Low         High          Low",
                 "  " + "-" * 76]
        for label, reading in _READING.items():
            unit = "C" if reading == "temperature_c" else "dBm"
            vals = [o.get(reading), *(o.get(f"{reading}:{lv}") for lv in _COLUMNS)]
            if all(v is None for v in vals):
                continue
            cells = ["N/A" if v is None else f"{v:.2f} {unit}" for v in vals]
            lines.append(f"  {label:<12}{cells[0]:>11}    " + " ".join(f"{c:>11}" for c in cells[1:]))
        lines += ["  " + "-" * 76, "  Note: ++  high-alarm; +  high-warning; --  low-alarm; -  low-warning", ""]
        out.append("\n".join(lines))
    return "\n".join(out)


__all__ = ["DOM", "NO_DOM_LINE", "SOURCE", "read", "simulate"]
