"""SONiC: the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------- vocabulary

#: canonical roceconf hash field -> SONiC SWITCH_HASH field (sonic-hash.yang)
HASH_TO_SONIC = {
    "src_ip": "SRC_IP",
    "dst_ip": "DST_IP",
    "ip_proto": "IP_PROTOCOL",
    "src_port": "L4_SRC_PORT",
    "dst_port": "L4_DST_PORT",
    "ingress_port": "IN_PORT",
    "flow_label": "IPV6_FLOW_LABEL",
}
SONIC_TO_HASH = {v: k for k, v in HASH_TO_SONIC.items()}

#: PORT_QOS_MAP field -> map table it references
MAP_FIELDS = {
    "dscp_to_tc_map": "DSCP_TO_TC_MAP",
    "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
    "tc_to_queue_map": "TC_TO_QUEUE_MAP",
    "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
    "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
    "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "tc_to_dscp_map": "TC_TO_DSCP_MAP",
    "tc_to_dot1p_map": "TC_TO_DOT1P_MAP",
}
MAP_TABLES = frozenset(MAP_FIELDS.values())
PQM_FIELDS = frozenset(MAP_FIELDS) | {"pfc_enable", "pfcwd_sw_enable", "scheduler"}

#: Tables this module interprets (also used to recognise wrapper / namespace objects).
TABLES = MAP_TABLES | {
    "DEVICE_METADATA",
    "PORT",
    "PORT_QOS_MAP",
    "QUEUE",
    "SCHEDULER",
    "WRED_PROFILE",
    "PFC_WD",
    "SWITCH_HASH",
}
#: Table names that look RoCE-related but are not interpreted -> one warning per table.
_ROCEISH_TABLE = re.compile(r"PFC|ECN|WRED|QOS|DSCP|DOT1P|TC_TO|SCHEDULER|HASH|QUEUE")
_IGNORED_PREFIXES = ("BUFFER_",)

ECN_MARKS_GREEN = frozenset({"ecn_all", "ecn_green", "ecn_green_yellow", "ecn_green_red"})
ECN_VALUES = ECN_MARKS_GREEN | {"ecn_none", "ecn_yellow", "ecn_red", "ecn_yellow_red"}
WD_ACTIONS = ("drop", "forward", "alert")
_SHAPER_FIELDS = ("cir", "pir", "cbs", "pbs")
_BRACKET_REF = re.compile(r"^\[\s*([A-Za-z0-9_]+)\s*\|\s*(.*?)\s*\]$")

DEVICE_MAP = "ROCE"  # name of the maps / bindings the template writes

# --------------------------------------------------------------------------- tolerant JSON reader


@dataclass
class _Obj:
    """A JSON object with the line of each key (1-based)."""

    items: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    line: int = 0


_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))"
    r'|(?P<str>"(?:[^"\\\n]|\\.)*"?)'
    r"|(?P<punct>[{}\[\]:,])"
    r'|(?P<word>[^\s{}\[\]:,"/]+|/)',
    re.S,
)


class _Reader:
    """Reads JSON the way a forgiving human would, keeping line numbers and listing the problems."""

    MAX_DEPTH = 48

    def __init__(self, text: str) -> None:
        self._nl = [m.start() for m in re.finditer("\n", text)]
        self.toks: list[tuple[str, str, int]] = []
        self.issues: list[tuple[int, str, str]] = []  # (line, message, code)
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup or "word"
            if kind == "ws":
                continue
            if kind == "comment":
                self._issue(m.start(), "comment in JSON (config load would reject it)")
                continue
            self.toks.append((kind, m.group(), m.start()))
        self.i = 0

    def line(self, pos: int) -> int:
        return bisect_left(self._nl, pos) + 1

    def _issue(self, pos: int, msg: str, code: str = "SYNTAX") -> None:
        self.issues.append((self.line(pos), msg, code))

    def _decode(self, tok: str, pos: int) -> str:
        if len(tok) >= 2 and tok.endswith('"'):
            if "\\" not in tok:  # no escape: what json.loads gives, or the fallback below, is the inside
                return tok[1:-1]
            try:
                return str(json.loads(tok))
            except ValueError:
                return tok[1:-1]
        self._issue(pos, "unterminated string")
        return tok[1:]

    def documents(self) -> list[_Obj]:
        docs: list[_Obj] = []
        loose: _Obj | None = None  # "KEY": {...} pairs without the enclosing braces (document excerpts)
        while self.i < len(self.toks):
            kind, val, pos = self.toks[self.i]
            nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
            if kind == "punct" and val == "{":
                docs.append(self._object(1))
            elif kind == "str" and nxt is not None and nxt[:2] == ("punct", ":"):
                if loose is None:
                    loose = _Obj(line=self.line(pos))
                    docs.append(loose)
                    self._issue(pos, "key/value pairs outside a JSON object (excerpt without braces)")
                key = self._decode(val, pos)
                self.i += 2
                if self.i < len(self.toks):
                    if key in loose.items:
                        self._issue(pos, f"duplicate key {key!r}: the later one wins", "DUPLICATE")
                    loose.items[key] = self._value(1)
                    loose.lines[key] = self.line(pos)
            else:
                self.i += 1
        return docs

    def _skip_group(self) -> None:
        depth = 0
        while self.i < len(self.toks):
            kind, val, _ = self.toks[self.i]
            self.i += 1
            if kind == "punct" and val in "{[":
                depth += 1
            elif kind == "punct" and val in "}]":
                depth -= 1
                if depth <= 0:
                    return

    def _value(self, depth: int) -> Any:
        kind, val, pos = self.toks[self.i]
        if kind == "punct" and val in "{[":
            if depth > self.MAX_DEPTH:
                self._issue(pos, "nesting too deep; skipped")
                self._skip_group()
                return None
            return self._object(depth + 1) if val == "{" else self._array(depth + 1)
        if kind == "punct" and val in "}]":
            self._issue(pos, f"missing value before {val!r}")
            return None
        self.i += 1
        if kind == "str":
            return self._decode(val, pos)
        if kind == "word":
            return val
        self._issue(pos, f"unexpected {val!r}")
        return None

    def _object(self, depth: int) -> _Obj:
        _, _, start = self.toks[self.i]
        self.i += 1
        obj = _Obj(line=self.line(start))
        want_comma = False
        while self.i < len(self.toks):
            kind, val, pos = self.toks[self.i]
            if kind == "punct" and val == "}":
                self.i += 1
                return obj
            if kind == "punct" and val == ",":
                nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
                if nxt is not None and nxt[1] == "}" and nxt[0] == "punct":
                    self._issue(pos, "trailing comma")
                elif not want_comma:
                    self._issue(pos, "extra comma")
                self.i += 1
                want_comma = False
                continue
            if kind in ("str", "word"):
                if want_comma:
                    self._issue(pos, "missing comma")
                key = self._decode(val, pos) if kind == "str" else val
                self.i += 1
                if self.i < len(self.toks) and self.toks[self.i][:2] == ("punct", ":"):
                    self.i += 1
                else:
                    self._issue(pos, f"missing ':' after {key!r}")
                if self.i >= len(self.toks):
                    break
                value = self._value(depth)
                if key in obj.items:
                    self._issue(pos, f"duplicate key {key!r}: the later one wins", "DUPLICATE")
                obj.items[key] = value
                obj.lines[key] = self.line(pos)
                want_comma = True
                continue
            self._issue(pos, f"unexpected {val!r} in object")
            if kind == "punct" and val in "{[":
                self._skip_group()
            else:
                self.i += 1
        self._issue(start, "object not closed")
        return obj

    def _array(self, depth: int) -> list[Any]:
        _, _, start = self.toks[self.i]
        self.i += 1
        out: list[Any] = []
        while self.i < len(self.toks):
            kind, val, pos = self.toks[self.i]
            if kind == "punct" and val in "]}":
                if val == "}":
                    self._issue(pos, "array closed by '}'")
                self.i += 1
                return out
            if kind == "punct" and val in ",:":
                self.i += 1
                continue
            out.append(self._value(depth))
        self._issue(start, "array not closed")
        return out


def read_documents(text: str) -> tuple[list[_Obj], list[tuple[int, str, str]]]:
    """The documents and problems (line, message, code) :class:`_Reader` finds in ``text``. Strict JSON of one
    object without duplicate keys (what ``config_db.json`` and the render are) is read by ``json`` and its
    lines found by one scan; anything else by the reader."""
    docs = _strict_documents(text)
    if docs is not None:
        return docs, []
    reader = _Reader(text)
    return reader.documents(), reader.issues


class _NotStrict(Exception):
    pass


#: a string (group 1: followed by ':', a key) or an object's opening brace (group 2), outside strings
_SCAN = re.compile(r'"(?:[^"\\]|\\.)*"(?:[ \t\n\r]*(:))?|(\{)')
_WORDS = {True: "true", False: "false", None: "null"}


def _pairs(pairs: list[tuple[str, Any]]) -> _Obj:
    items = dict(pairs)
    if len(items) != len(pairs):  # a duplicate key: the reader says so
        raise _NotStrict
    return _Obj(items)


def _strict_documents(text: str) -> list[_Obj] | None:
    """:meth:`_Reader.documents` of strict JSON (one object, no duplicate keys, not nested near the reader's
    limit), or None. Numbers and words keep their text, as the reader keeps them."""
    try:
        root = json.loads(text, object_pairs_hook=_pairs, parse_int=str, parse_float=str, parse_constant=str)
    except (ValueError, RecursionError, _NotStrict):
        return None
    if not isinstance(root, _Obj):
        return None
    marks: list[tuple[bool, int]] = []  # (a key, line) of each key and opening brace, in document order
    line, last = 1, 0
    for m in _SCAN.finditer(text):
        if m.lastindex is None:  # a string value
            continue
        pos = m.start()
        line += text.count("\n", last, pos)
        last = pos
        marks.append((m.lastindex == 1, line))
    it = iter(marks)
    try:
        _place(root, it, 1)
    except (_NotStrict, StopIteration):
        return None
    if next(it, None) is not None:
        return None
    return [root]


def _place(obj: _Obj, it: Any, depth: int) -> None:
    if depth > _Reader.MAX_DEPTH - 8:
        raise _NotStrict
    is_key, obj.line = next(it)
    if is_key:
        raise _NotStrict
    items, lines = obj.items, obj.lines
    for k, v in items.items():
        is_key, lines[k] = next(it)
        if not is_key:
            raise _NotStrict
        if type(v) is str:
            continue
        if isinstance(v, _Obj):
            _place(v, it, depth + 1)
        elif isinstance(v, list):
            items[k] = _place_list(v, it, depth + 1)
        else:
            items[k] = _WORDS[v]


def _place_list(values: list[Any], it: Any, depth: int) -> list[Any]:
    if depth > _Reader.MAX_DEPTH - 8:
        raise _NotStrict
    out: list[Any] = []
    for v in values:
        if type(v) is str:
            out.append(v)
        elif isinstance(v, _Obj):
            _place(v, it, depth + 1)
            out.append(v)
        elif isinstance(v, list):
            out.append(_place_list(v, it, depth + 1))
        else:
            out.append(_WORDS[v])
    return out


# --------------------------------------------------------------------------- CONFIG_DB view


@dataclass
class _Entry:
    fields: dict[str, Any]
    line: int
    flines: dict[str, int]


_DB = dict[str, dict[str, _Entry]]


def _field_value(v: Any) -> Any:
    if isinstance(v, list):
        return [x for x in v if isinstance(x, str)]
    return v if isinstance(v, str) else None


def _add(db: _DB, table: str, key: str, obj: _Obj, line: int) -> None:
    fields: dict[str, Any] = {}
    flines: dict[str, int] = {}
    for f, v in obj.items.items():
        if f == "NULL":  # redis placeholder of an empty hash
            continue
        val = _field_value(v)
        if f.endswith("@") and isinstance(val, str):  # redis list field: "ecmp_hash@": "A,B"
            f, val = f[:-1], [x for x in val.split(",") if x]
        fields[f] = val
        flines[f] = obj.lines.get(f, line)
    tbl = db.setdefault(table.strip(), {})
    old = tbl.get(key)
    if old is None:
        tbl[key] = _Entry(fields, line, flines)
    else:  # the same key from another document / namespace: fields merge, later wins
        old.fields.update(fields)
        old.flines.update(flines)


def _collect(obj: _Obj, db: _DB, depth: int = 0) -> None:
    for name, value in obj.items.items():
        if not isinstance(value, _Obj):
            continue
        line = obj.lines.get(name, obj.line)
        if "|" in name:  # redis-key dump: "TABLE|key"
            table, _, key = name.partition("|")
            inner = value.items.get("value")
            _add(db, table, key, inner if isinstance(inner, _Obj) else value, line)
        elif name not in TABLES and depth < 2 and any(t in TABLES for t in value.items):
            _collect(value, db, depth + 1)  # wrapper or namespace (localhost, asic0, ...)
        else:
            for key, ent in value.items.items():
                if isinstance(ent, _Obj):
                    _add(db, name, key, ent, value.lines.get(key, line))


def _ref(value: Any) -> tuple[str | None, str | None]:
    """'[TABLE|name]' -> ('name', 'TABLE'); 'name' -> ('name', None)."""
    if not isinstance(value, str) or not value.strip():
        return None, None
    m = _BRACKET_REF.match(value.strip())
    if m:
        return m.group(2), m.group(1)
    return value.strip(), None


_INT = re.compile(r"\s*-?\d+\s*")


def _int(value: Any) -> int | None:
    if isinstance(value, str) and _INT.fullmatch(value):
        return int(value)
    return None
