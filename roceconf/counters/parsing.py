"""Small tolerant readers shared by the platforms' counter parsers (JSON, tables, ethtool -S, grep -H)."""

from __future__ import annotations

import json
import re
from typing import Any

from roceconf.counters.model import to_int


def jload(text: str) -> Any:
    """JSON of a command output, or None. Accepts a leading echo of the command or a trailing prompt."""
    s = text.strip()
    if not s:
        return None
    for start in (0, *(m.start() for m in re.finditer(r"^[\[{]", s, re.M))):
        try:
            return json.loads(s[start:])
        except (ValueError, RecursionError):
            continue
    return None


def dig(data: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(k)
    return data


def rows(data: Any) -> list[dict[str, Any]]:
    """NX-OS style TABLE_x/ROW_x: a ROW is a dict or a list of dicts."""
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return [r for r in data if isinstance(r, dict)]
    return []


def table(text: str) -> list[dict[str, str]]:
    """A text table with a header line, a dashed line under it and rows aligned to the dashes
    (the ``tabulate`` layout SONiC's show commands print). Several tables in one output are read in turn."""
    out: list[dict[str, str]] = []
    lines = text.replace("\r", "").split("\n")
    i = 0
    while i < len(lines) - 1:
        dash = lines[i + 1]
        if re.fullmatch(r"\s*-+(\s+-+)+\s*", dash) and lines[i].strip():
            spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dash)]
            head = [_cell(lines[i], spans, k) for k in range(len(spans))]
            i += 2
            while i < len(lines) and lines[i].strip():
                cells = [_cell(lines[i], spans, k) for k in range(len(spans))]
                out.append(dict(zip(head, cells, strict=True)))
                i += 1
        else:
            i += 1
    return out


def _cell(line: str, spans: list[tuple[int, int]], k: int) -> str:
    start = spans[k][0] if k == 0 else spans[k - 1][1]
    end = spans[k][1] if k == len(spans) - 1 else spans[k][1]
    if k == len(spans) - 1:
        end = len(line)
    return line[start:end].strip()


def key_values(text: str, sep: str = ":") -> dict[str, int]:
    """``name: value`` lines (``ethtool -S``) -> {name: int}; lines that are not counters are skipped."""
    out: dict[str, int] = {}
    for line in text.replace("\r", "").split("\n"):
        if sep not in line:
            continue
        k, _, v = line.rpartition(sep)
        k = k.strip()
        n = to_int(v)
        if k and n is not None and re.fullmatch(r"[\w.\-\[\]]+", k):
            out[k] = n
    return out


def grep_files(text: str) -> dict[str, int]:
    """``grep -H . DIR/*`` output (``DIR/name:value`` lines) -> {name: int}."""
    out: dict[str, int] = {}
    for line in text.replace("\r", "").split("\n"):
        path, sep, v = line.rpartition(":")
        n = to_int(v)
        if sep and n is not None and "/" in path:
            out[path.rsplit("/", 1)[1].strip()] = n
    return out


def priority_of(name: str) -> int | None:
    """The priority in a queue / priority / PG label: 3, "3", "PFC3", "UC3", "PG3", "queue-3", "TC3"."""
    m = re.fullmatch(r"\s*(?:pfc|uc|pg|tc|q|queue|prio|priority|cos)?[-_ ]?(\d)\s*", str(name), re.I)
    return int(m.group(1)) if m else None
