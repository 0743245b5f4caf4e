"""Optics (DOM) of a host NIC port's module for ``roceconf cabling`` (RC514-RC516): ``ethtool -m <port>``.

Labels and layout as ethtool prints a module's diagnostics (its sfpdiag.c for SFP, qsfp.c for QSFP; a recorded
SFP answer in jc's tests is kept, tests/fixtures/connectx/counters/real/jc-ethtool-module-info.txt, MIT):
``<label> : <value>`` lines; power as ``0.8183 mW / -0.87 dBm`` (the dBm value is read; ``-inf dBm``, no light,
is no number), temperatures as ``34.99 degrees C / 94.99 degrees F``. Readings: ``Receiver signal average
optical power`` and ``Laser output power`` (SFP), ``Rcvr signal avg optical power (Channel <n>)`` and ``Transmit
avg optical power (Channel <n>)`` (QSFP, per lane; older ethtool prints no blank before the parenthesis), and
``Module temperature``; thresholds ``Laser rx power``, ``Laser output power`` and ``Module temperature``
``{high,low} {alarm,warning} threshold``. Of a multi-lane module the worst lane is kept
(``PortCounters.set_worst_lane``). A module without diagnostics prints none of these lines: nothing is read
and its optics checks are unknown. ``Receiver signal OMA`` (another quantity than the average power the
thresholds are for) and CMIS modules' lines (no recording kept) are not read.
"""

from __future__ import annotations

import re

from roceconf.counters.model import PortCounters, optics_value

MODULE = "ethtool -m {port}"
SOURCE = ("ethtool's module diagnostics (sfpdiag.c, qsfp.c) as jc's tests record an ethtool -m answer: Receiver "
          "signal average optical power, Laser output power, Module temperature and their high/low "
          "alarm/warning thresholds")
_LINE = re.compile(r"^\s*(\S[^:]*?)\s*:\s*(.*?)\s*$")
_CHANNEL = re.compile(r"^(.*?)\s*\(Channel (\d+)\)$")
_DBM = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?)\s*dBm\b")
#: reading label (without a channel) -> reading
_READINGS = {
    "Receiver signal average optical power": "rx_power_dbm",
    "Rcvr signal avg optical power": "rx_power_dbm",
    "Laser output power": "tx_power_dbm",
    "Transmit avg optical power": "tx_power_dbm",
    "Module temperature": "temperature_c",
}
#: threshold label prefix -> reading
_THRESHOLDS = {"Laser rx power": "rx_power_dbm", "Laser output power": "tx_power_dbm",
               "Module temperature": "temperature_c"}
_LEVELS = {"high alarm": "high_alarm", "high warning": "high_warn", "low warning": "low_warn",
           "low alarm": "low_alarm"}


def _value(reading: str, text: str) -> float | None:
    if reading == "temperature_c":
        return optics_value(text) if "degrees C" in text else None
    m = _DBM.search(text)
    return float(m.group(1)) if m else None


def read(body: str, pc: PortCounters) -> bool:
    """One port's ``ethtool -m`` answer into ``pc``; False when it holds no optics reading or threshold."""
    lanes: dict[str, list[tuple[int, float | None]]] = {}
    th: dict[str, dict[str, float | None]] = {r: {} for r in _THRESHOLDS.values()}
    for line in body.replace("\r", "").split("\n"):
        m = _LINE.match(line)
        if not m:
            continue
        label, text = m.group(1), m.group(2)
        if label.endswith(" threshold"):
            head = label[: -len(" threshold")]
            for prefix, reading in _THRESHOLDS.items():
                level = _LEVELS.get(head[len(prefix):].strip()) if head.startswith(prefix + " ") else None
                if level:
                    th[reading][level] = _value(reading, text)
            continue
        ch = _CHANNEL.match(label)
        name, lane = (ch.group(1), int(ch.group(2))) if ch else (label, 1)
        reading = _READINGS.get(name)
        if reading:
            lanes.setdefault(reading, []).append((lane, _value(reading, text)))
    for reading in _THRESHOLDS.values():
        ls = lanes.get(reading, [])
        if ls:
            pc.set_worst_lane(reading, [(lane, v, th[reading]) for lane, v in ls])
        elif th[reading]:
            pc.set_optics(reading, None, th[reading])
    return bool(pc.optics)


def _power(dbm: float) -> str:
    return f"{10 ** (dbm / 10):.4f} mW / {dbm:.2f} dBm"


def answer(port: str, pc: PortCounters) -> str:
    """The lab's answer: an SFP module's diagnostics lines as ethtool prints them (none without optics)."""
    o = pc.optics or {}
    lines = []
    for label, reading in (("Laser output power", "tx_power_dbm"),
                           ("Receiver signal average optical power", "rx_power_dbm"),
                           ("Module temperature", "temperature_c")):
        if reading in o:
            lines.append((label, o[reading], reading))
    for prefix, reading in (("Laser output power", "tx_power_dbm"), ("Module temperature", "temperature_c"),
                            ("Laser rx power", "rx_power_dbm")):
        for words, level in _LEVELS.items():
            v = o.get(f"{reading}:{level}")
            if v is not None:
                lines.append((f"{prefix} {words} threshold", v, reading))
    out = []
    for label, v, reading in lines:
        text = f"{v:.2f} degrees C / {v * 9 / 5 + 32:.2f} degrees F" if reading == "temperature_c" else _power(v)
        out.append(f"\t{label:<42}: {text}\n")
    return "".join(out)


__all__ = ["MODULE", "SOURCE", "answer", "read"]
