"""Small tolerant readers shared by the platforms' counter parsers (JSON, tables, ethtool -S, grep -H)."""

from __future__ import annotations

import functools
import itertools
import json
import logging
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from roceconf.counters.model import PortCounters, to_int

#: ``read(cmd, text, ports, warnings, unknown)``: reads one command's output into ``ports`` (name -> counters),
#: adding a line to ``warnings`` for an answer it cannot read and to ``unknown`` each name it does not know.
OutputReader = Callable[[str, str, dict[str, PortCounters], list[str], set[str]], None]


def read_outputs(
    outputs: dict[str, str], read: OutputReader, log: logging.Logger
) -> tuple[dict[str, PortCounters], list[str]]:
    """The frame of a counter parser: ``read`` takes each command's output in turn. A parser never raises: an
    exception ends the reading with one warning (what was read before it is kept). The names not understood
    are listed to ``log`` at debug level. Kept: the ports with a count, whose watchdog state was read, or with a
    link counter or an optics reading."""
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    unknown: set[str] = set()
    try:
        for cmd, text in outputs.items():
            read(cmd, text, ports, warnings, unknown)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    if unknown:
        log.debug("counter names not understood: %s", ", ".join(sorted(unknown)))
    return {n: p for n, p in ports.items() if p.has_health() or p.link or p.optics}, warnings


def jload(text: str) -> Any:
    """JSON of a command output, or None. Accepts a leading echo of the command or a trailing prompt."""
    s = text.strip()
    if not s:
        return None
    # the whole answer first; only when it is not JSON, from each line that opens an object or array
    for start in itertools.chain((0,), (m.start() for m in _JSON_START.finditer(s))):
        try:
            return json.loads(s[start:] if start else s)
        except (ValueError, RecursionError):
            continue
    return None


_JSON_START = re.compile(r"^[\[{]", re.M)


def base_command(cmd: str, filters: tuple[str, ...] = ("json",)) -> str | None:
    """A saved answer's command without its output filter (``show x | json`` -> ``show x``), spaces made
    single; None if it carries a filter other than ``filters`` (its answer is another form: not read)."""
    base, bar, rest = cmd.partition("|")
    if bar and " ".join(rest.split()) not in filters:
        return None
    return " ".join(base.split())


def answer_form(text: str) -> str:
    """The form a command was answered in, told from the answer itself (never from how the command was
    spelled): ``"empty"``, ``"json"`` (a line opens an object or array: a whole answer, or a cut one that
    :func:`json_object` then refuses) or ``"text"`` (the CLI's printed form, or an error line)."""
    s = text.strip()
    if not s:
        return "empty"
    return "json" if re.search(r"^\s*[\[{]", s, re.M) else "text"


def json_only(cmd: str, text: str, warnings: list[str], read: str) -> bool:
    """True if ``text`` is to be read as JSON. A text answer is not read: one warning names the command and
    the form that is read (``read``), so the device is ``unknown`` with the reason, never healthy."""
    form = answer_form(text)
    if form == "text":
        warnings.append(f"{cmd}: a text answer; not read (only {read} is read)")
    return form == "json"


def json_object(cmd: str, text: str, warnings: list[str], problem: str) -> dict[str, Any] | None:
    """The JSON object a command answered, or None: an answer that is not empty and not one is a warning
    (``<cmd>: <problem>``)."""
    data = jload(text)
    if isinstance(data, dict):
        return data
    if text.strip():
        warnings.append(f"{cmd}: {problem}")
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


_DASHES = re.compile(r"\s*-+(\s+-+)+\s*")


def table(text: str) -> list[dict[str, str]]:
    """A text table with a header line, a dashed line under it and rows aligned to the dashes
    (the ``tabulate`` layout SONiC's show commands print). Several tables in one output are read in turn,
    with or without blank lines or title lines between them. Rows that do not line up with their header
    are left out (see :func:`tables`)."""
    return tables(text)[0]


def tables(text: str, align: str = "right") -> tuple[list[dict[str, str]], list[str]]:
    """``(rows, problems)``: the rows of every table in ``text`` and one line per row that was left out
    because it does not line up with its header's dashes (a cut or garbled line: reading it by position
    would give a wrong value). ``align``: how the table aligns its numbers - ``right`` (tabulate, SONiC: a
    short last cell is a cut one) or ``left`` (NVUE: rows padded to the full width, so the output's final
    line is read only when it still reaches the last column's end)."""
    blocks, problems = table_blocks(text, align)
    return [dict(zip(head, cells, strict=True)) for head, rows in blocks for cells in rows], problems


def table_blocks(
    text: str, align: str = "right", strip: bool = True
) -> tuple[list[tuple[list[str], list[Sequence[str]]]], list[str]]:
    """:func:`tables` by table: ``([(header cells, [row cells, ...]), ...], problems)``, the cells of each row
    in the order of its header's (a row as a dict is ``dict(zip(header, cells))``). ``strip=False``: each row's
    cells as cut, blanks around them kept (``cell.strip()`` is the cell; for a reader of a few columns)."""
    out: list[tuple[list[str], list[Sequence[str]]]] = []
    problems: list[str] = []
    lines = text.replace("\r", "").split("\n")
    n = len(lines)
    # two more entries: the look-ahead below (the next line, the one after) never runs past the end
    is_dashes = [("-" in x and _DASHES.fullmatch(x) is not None) for x in lines] + [False, False]
    # the last line with text: a row after it is the output's final line
    last_text = next((k for k in range(n - 1, -1, -1) if lines[k].strip()), -1)
    made: dict[str, _Columns] = {}

    i = 0
    while i < n - 1:
        if not (is_dashes[i + 1] and lines[i].strip()):
            i += 1
            continue
        # the tables of one output often share their columns (SONiC prints one table per port)
        cols = made.get(lines[i + 1])
        if cols is None:
            cols = made[lines[i + 1]] = _Columns([(m.start(), m.end()) for m in _DASH_RUN.finditer(lines[i + 1])])
        rows: list[Sequence[str]] = []
        out.append((cols.cells(lines[i]), rows))
        row = cols.row if strip else cols.raw
        i += 2
        # a table ends at a blank line, at the header of the next table or at a title line above it (a
        # line two above the next dashes is this table's last row only if it lines up with this header)
        while i < n and not is_dashes[i + 1]:
            line = lines[i]
            if not line.strip():
                break
            cells = row(line, align, last_text <= i)
            if cells is not None:
                rows.append(cells)
            elif is_dashes[i + 2]:
                break
            else:
                problems.append(
                    f"line {i + 1} does not line up with its table's header: {line.strip()[:60]!r}"
                )
            i += 1
    return out, problems


_DASH_RUN = re.compile(r"-+")


class _Columns:
    """The columns of one table, from the spans of its dashed line: where each cell is read and what must
    be blank between them (computed once per table, used on each of its rows)."""

    __slots__ = ("end", "first_start", "last_start", "pieces", "slices")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.last_start, self.end = spans[-1]
        self.first_start = spans[0][0]
        # a cell's text: the first from its own dashes, the others from the previous column's end; the last
        # to the end of the line
        self.slices = [
            (spans[0][0] if k == 0 else spans[k - 1][1], None if k == len(spans) - 1 else spans[k][1])
            for k in range(len(spans))
        ]
        # a row in pieces, each column's dashes then the blank before the next column's (the last column's
        # to the end of the line), cut in one call
        cuts = []
        for k, (a, b) in enumerate(spans):
            if k + 1 < len(spans):
                cuts += [slice(a, b), slice(b, spans[k + 1][0])]
            else:
                cuts.append(slice(a, None))
        get = operator.itemgetter(*cuts)
        self.pieces: Callable[[str], tuple[str, ...]] = get if len(cuts) > 1 else lambda s: (get(s),)

    def cells(self, line: str) -> list[str]:
        return [line[a:b].strip() for a, b in self.slices]

    def aligned(self, line: str, align: str = "right", final: bool = False) -> bool:
        """Every cell within its column: the gaps between the header's dashes are blank, no cell is empty, no
        line runs past the last column, and the last cell is whole (see :func:`tables` for ``align``)."""
        return self.row(line, align, final) is not None

    def row(self, line: str, align: str = "right", final: bool = False) -> list[str] | None:
        """The cells of a row (:meth:`cells`) when it is :meth:`aligned`, else None."""
        raw = self.raw(line, align, final)
        return None if raw is None else [c.strip() for c in raw]

    def raw(self, line: str, align: str = "right", final: bool = False) -> tuple[str, ...] | None:
        """:meth:`row` with each cell as cut from the line (``cell.strip()`` is the cell)."""
        body = line.rstrip()
        size = len(body)
        if size > self.end:
            return None
        # a right-aligned number ends where its dashes end: a shorter line is a cut one ("1,2" of "1,234");
        # a left-aligned table's final line could be cut anywhere unless its padding still reaches the end
        if align == "right" and size < self.end:
            last = body[self.last_start :].strip() if size > self.last_start else ""
            if last[-1:].isdigit():
                return None
        if align == "left" and final and len(line) < self.end:
            return None
        pieces = self.pieces(line)
        # the gaps between the columns blank (past the line's end a gap is empty: blank too)
        if "".join(pieces[1::2]).strip():
            return None
        # with the gaps blank a cell is its column's dashes' text; each column holds text (the first one
        # anywhere from the line's start to its dashes' end)
        cells = pieces[::2]
        if not all(map(str.strip, cells)) and not (
            all(map(str.strip, cells[1:])) and self.first_start and body[: self.first_start].strip()
        ):
            return None
        return cells


_COUNTER_NAME = re.compile(r"[\w.\-\[\]]+")


#: a ``name: value`` line read at once: one colon, a counter name, a whole count (ASCII digits)
_KV_LINE = re.compile(r"^ *([A-Za-z0-9_.\-\[\]]+): *([0-9]{1,20}) *$", re.M)
#: a line with one colon and nothing after it (``NIC statistics:``): no counter
_KV_BLANK = re.compile(r"^[^:\n]*:[ \t]*$", re.M)
#: a ``grep -H`` line read at once: a path, one colon, a whole count
_GREP_LINE = re.compile(r"^[^:\n]*/([A-Za-z0-9_.\-]+):([0-9]{1,20})$", re.M)


def key_values(text: str, sep: str = ":") -> dict[str, int]:
    """``name: value`` lines (``ethtool -S``) -> {name: int}; lines that are not counters are skipped."""
    text = text.replace("\r", "")
    if sep == ":":
        # every colon on a line of the two plain kinds: the lines read at once (what the loop below reads)
        pairs = _KV_LINE.findall(text)
        if len(pairs) + len(_KV_BLANK.findall(text)) == text.count(":"):
            return {k: int(v) for k, v in pairs}
    out: dict[str, int] = {}
    name_ok = _COUNTER_NAME.fullmatch
    for line in text.split("\n"):
        if sep not in line:
            continue
        k, _, v = line.rpartition(sep)
        k = k.strip()
        # to_int(v): the common " 1234" without the general path
        digits = v.strip()
        n = int(digits) if len(digits) <= 20 and digits.isdigit() else to_int(v)
        if k and n is not None and name_ok(k):
            out[k] = n
    return out


def grep_files(text: str) -> dict[str, int]:
    """``grep -H . DIR/*`` output (``DIR/name:value`` lines) -> {name: int}."""
    text = text.replace("\r", "")
    # every colon on a plain line (a path, the colon, a count): the lines read at once (as the loop reads them)
    pairs = _GREP_LINE.findall(text)
    if len(pairs) == text.count(":"):
        return {k: int(v) for k, v in pairs}
    out: dict[str, int] = {}
    for line in text.split("\n"):
        path, sep, v = line.rpartition(":")
        n = to_int(v)
        if sep and n is not None and "/" in path:
            out[path.rsplit("/", 1)[1].strip()] = n
    return out


_PRIORITY = re.compile(r"\s*(?:pfc|uc|pg|tc|q|queue|prio|priority|cos)?[-_ ]?(\d)\s*", re.I)


def priority_of(name: str) -> int | None:
    """The priority in a queue / priority / PG label: 3, "3", "PFC3", "UC3", "PG3", "queue-3", "TC3"."""
    return _label_priority(str(name))


@functools.lru_cache(maxsize=4096)
def _label_priority(label: str) -> int | None:
    # a device repeats a handful of labels on every port: each is matched once
    m = _PRIORITY.fullmatch(label)
    return int(m.group(1)) if m else None
