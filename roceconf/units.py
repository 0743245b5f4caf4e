"""Unit parsing and formatting shared by intent loading, parsers and templates."""

from __future__ import annotations

import re

_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 1000,
    "kbyte": 1000,
    "kbytes": 1000,
    "k": 1000,
    "kib": 1024,
    "mb": 1000**2,
    "mbyte": 1000**2,
    "mbytes": 1000**2,
    "m": 1000**2,
    "mib": 1024**2,
}
_TIME_UNITS = {"ms": 1.0, "msec": 1.0, "s": 1000.0, "sec": 1000.0, "us": 0.001, "µs": 0.001, "usec": 0.001}
_NUM = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Zµ]*)\s*$")


def parse_size(value: str | int | float, default_unit: str = "b") -> int:
    """'150KB' -> 150000, '1.5 MB' -> 1500000, '64KiB' -> 65536. KB/MB are decimal (as NVIDIA uses them)."""
    if isinstance(value, bool):
        raise ValueError("a size, not a boolean")
    if isinstance(value, int | float):
        return int(round(value * _SIZE_UNITS[default_unit.lower()]))
    m = _NUM.match(str(value))
    if not m:
        raise ValueError(f"not a size: {value!r} (use e.g. 150KB, 1.5MB, 153600)")
    unit = (m.group(2) or default_unit).lower()
    if unit not in _SIZE_UNITS:
        raise ValueError(f"unknown size unit {m.group(2)!r} in {value!r} (B, KB, MB, KiB, MiB)")
    return int(round(float(m.group(1)) * _SIZE_UNITS[unit]))


def parse_time_ms(value: str | int | float, default_unit: str = "ms") -> int:
    """'200ms' -> 200, '0.05s' -> 50, 100 -> 100 (ms)."""
    if isinstance(value, bool):
        raise ValueError("a duration, not a boolean")
    if isinstance(value, int | float):
        return int(round(value * _TIME_UNITS[default_unit]))
    m = _NUM.match(str(value))
    if not m:
        raise ValueError(f"not a duration: {value!r} (use e.g. 200ms, 0.2s)")
    unit = (m.group(2) or default_unit).lower()
    if unit not in _TIME_UNITS:
        raise ValueError(f"unknown time unit {m.group(2)!r} in {value!r} (ms, s, us)")
    return int(round(float(m.group(1)) * _TIME_UNITS[unit]))


def parse_speed_gbps(value: str | int) -> int:
    """'400G' / '400Gb/s' / 400 -> 400."""
    if isinstance(value, bool):
        raise ValueError("a speed, not a boolean")
    if isinstance(value, int):
        return value
    m = re.match(r"^\s*([0-9]+)\s*(g|gb/s|gbps|gbe|)\s*$", str(value), re.I)
    if not m:
        raise ValueError(f"not a speed: {value!r} (use e.g. 400G)")
    return int(m.group(1))


def parse_length_m(value: str | int | float) -> float:
    """'5m' / '100 m' / 5 -> metres."""
    if isinstance(value, bool):
        raise ValueError("a length, not a boolean")
    if isinstance(value, int | float):
        return float(value)
    m = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(m|km|)\s*$", str(value), re.I)
    if not m:
        raise ValueError(f"not a cable length: {value!r} (use e.g. 5m)")
    f = float(m.group(1))
    return f * 1000 if m.group(2).lower() == "km" else f


def compress_ints(values: list[int] | tuple[int, ...], sep: str = ",", dash: str = "-") -> str:
    """[3, 4, 5, 7] -> '3-5,7'."""
    vals = sorted(set(values))
    out: list[str] = []
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(str(vals[i]) if i == j else f"{vals[i]}{dash}{vals[j]}")
        i = j + 1
    return sep.join(out)


def expand_ints(text: str) -> list[int]:
    """'3-5,7' or '3 4 5' -> [3, 4, 5, 7]. Raises ValueError on junk."""
    out: list[int] = []
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        if "-" in part:
            a, _, b = part.partition("-")
            lo, hi = int(a), int(b)
            if hi < lo or hi - lo > 100000:
                raise ValueError(f"bad range {part!r}")
            out.extend(range(lo, hi + 1))
        else:
            out.append(int(part))
    return out
