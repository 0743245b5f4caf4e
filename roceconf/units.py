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


#: Queue-delay units of an ECN threshold stated as time (``ecn: {min: 5us}``), in nanoseconds.
_DELAY_NS = {"ns": 1, "us": 1000, "µs": 1000, "usec": 1000, "ms": 1_000_000}
#: The longest queue delay an ECN threshold may state (1 ms: far beyond any switch buffer at 10G).
MAX_DELAY_NS = 1_000_000


def delay_ns(value: object) -> int | None:
    """Nanoseconds of a queue delay ('5us' -> 5000, '500ns' -> 500), None for anything else (a byte size)."""
    if not isinstance(value, str):
        return None
    m = _NUM.match(value)
    if not m or m.group(2).lower() not in _DELAY_NS:
        return None
    return int(round(float(m.group(1)) * _DELAY_NS[m.group(2).lower()]))


def parse_ecn_threshold(value: str | int | float) -> int | str:
    """An ECN threshold: a size (-> bytes, as :func:`parse_size`) or a queue delay (-> canonical text,
    '5us' / '750ns', converted per port speed by :func:`threshold_bytes`)."""
    if isinstance(value, str):
        m = _NUM.match(value)
        if m and m.group(2).lower() in _DELAY_NS:
            ns = delay_ns(value)
            assert ns is not None
            if not 0 < ns <= MAX_DELAY_NS:
                raise ValueError(f"queue delay {value!r} is outside 1ns-1ms")
            return f"{ns // 1000}us" if ns % 1000 == 0 else f"{ns}ns"
    try:
        return parse_size(value)
    except ValueError:
        raise ValueError(
            f"not an ECN threshold: {value!r} (a size: 150KB, 1.5MB, 153600; or a queue delay: 5us, 750ns)"
        ) from None


def threshold_bytes(value: int | str, speed_gbps: int) -> int:
    """Bytes of an ECN threshold on a port of ``speed_gbps``: a size as it is; a queue delay as the bytes the
    port drains in that time, bytes = delay x speed / 8 (5us at 400G: 5000 ns x 400 Gb/s / 8 = 250,000 B)."""
    ns = delay_ns(value)
    if ns is None:
        return int(value)
    return int(round(ns * speed_gbps / 8))


def parse_micros(value: str | int | float) -> int:
    """'64us' -> 64, '1ms' -> 1000, 64 -> 64 (microseconds)."""
    if isinstance(value, bool):
        raise ValueError("a duration, not a boolean")
    if isinstance(value, int | float):
        return int(round(value))
    ns = delay_ns(value)
    if ns is None:
        raise ValueError(f"not a duration in microseconds: {value!r} (use e.g. 64us)")
    return int(round(ns / 1000))
