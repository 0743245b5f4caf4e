"""Name and interface ranges: 'gpu[0001-0004]', 'Ethernet1/1-32', 'swp1-4,swp9'."""

from __future__ import annotations

import re

_BRACKET = re.compile(r"\[([^\]]+)\]")
_TAIL_RANGE = re.compile(r"^(.*?)(\d+)-(\d+)$")
MAX_EXPANSION = 1_000_000


class RangeError(ValueError):
    pass


def expand_names(pattern: str) -> list[str]:
    """Expand bracket ranges: 'gpu[0001-0003]' -> gpu0001..gpu0003, 'leaf[1-2]-[a,b]' -> cartesian."""
    m = _BRACKET.search(pattern)
    if not m:
        return [pattern]
    head, tail = pattern[: m.start()], pattern[m.end() :]
    items: list[str] = []
    for part in m.group(1).split(","):
        part = part.strip()
        if re.fullmatch(r"\d+-\d+", part):
            a, b = part.split("-")
            lo, hi = int(a), int(b)
            if hi < lo:
                raise RangeError(f"range {part!r} runs backwards in {pattern!r}")
            if hi - lo >= MAX_EXPANSION:
                raise RangeError(f"range {part!r} is too large in {pattern!r}")
            width = len(a) if a.startswith("0") and len(a) > 1 else 0
            items.extend(str(i).zfill(width) for i in range(lo, hi + 1))
        elif part:
            items.append(part)
        else:
            raise RangeError(f"empty item in {pattern!r}")
    rest = expand_names(tail)
    return [head + i + r for i in items for r in rest]


def expand_interfaces(spec: str) -> list[str]:
    """'Ethernet1/1-4' -> Ethernet1/1..Ethernet1/4; 'swp1-2,swp9' -> swp1, swp2, swp9; brackets allowed too."""
    out: list[str] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            raise RangeError(f"empty item in interface list {spec!r}")
        if "[" in part:
            out.extend(expand_names(part))
            continue
        m = _TAIL_RANGE.match(part)
        if m:
            prefix, a, b = m.group(1), int(m.group(2)), int(m.group(3))
            if b < a:
                raise RangeError(f"interface range {part!r} runs backwards")
            if b - a >= MAX_EXPANSION:
                raise RangeError(f"interface range {part!r} is too large")
            out.extend(f"{prefix}{i}" for i in range(a, b + 1))
        else:
            out.append(part)
    return out


_NATURAL = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in _NATURAL.split(name))


def compress_interfaces(names: list[str]) -> list[str]:
    """Inverse of expand_interfaces for sorted names sharing a prefix: swp1,swp2,swp3 -> ['swp1-3']."""
    groups: list[tuple[str, int, int]] = []
    singles: list[str] = []
    for n in sorted(names, key=natural_key):
        m = re.match(r"^(.*?)(\d+)$", n)
        if not m or (m.group(2).startswith("0") and len(m.group(2)) > 1):
            singles.append(n)
            continue
        prefix, num = m.group(1), int(m.group(2))
        if groups and groups[-1][0] == prefix and groups[-1][2] == num - 1:
            groups[-1] = (prefix, groups[-1][1], num)
        else:
            groups.append((prefix, num, num))
    out = [p + (str(a) if a == b else f"{a}-{b}") for p, a, b in groups]
    return out + singles
