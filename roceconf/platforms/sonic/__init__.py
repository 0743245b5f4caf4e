"""Community SONiC: CONFIG_DB (``config_db.json`` / ``show runningconfiguration all``) <-> DeviceState.

What is read (all CONFIG_DB values are strings):

* ``DSCP_TO_TC_MAP`` bound in ``PORT_QOS_MAP|<port>`` or ``PORT_QOS_MAP|global`` -> ``dscp_to_tc`` and
  trust ``dscp``. SONiC classifies by DSCP when a ``dscp_to_tc_map`` is bound; with only a
  ``dot1p_to_tc_map`` bound the port trusts ``pcp``. Where ports bind different DSCP maps, the device map
  is the ``global`` one (else the most common one) and the other ports carry ``Interface.dscp_to_tc``.
* ``PORT_QOS_MAP|<port>`` ``pfc_enable`` ("3,4"; "" = PFC off) -> ``pfc``; ``pfcwd_sw_enable`` and a
  ``PFC_WD|<port>`` entry -> ``pfc_watchdog`` (``pfcwd_sw_enable`` lists the queues the software
  watchdog watches, sonic-utilities ``scripts/db_migrator.py`` version_3_0_4; ``""`` = none = off).
* ``QUEUE|<port>|<queue or range>`` -> ``SCHEDULER`` (STRICT -> strict, DWRR weight -> dwrr with
  ``bandwidth_percent`` = weight) and ``WRED_PROFILE`` (ECN only when ``ecn`` marks green and
  ``wred_green_enable`` is true; ``ecn_none`` or no ``ecn`` field is WRED *drop*, not ECN). Queue N is
  TC N (roceconf convention); a bound ``TC_TO_QUEUE_MAP`` / ``MAP_PFC_PRIORITY_TO_QUEUE`` that is not the
  identity produces a warning.
* ``PORT|<port>`` ``mtu``; ``PFC_WD|GLOBAL`` ``POLL_INTERVAL``; ``PFC_WD|<port>`` action/detection/
  restoration; ``DEVICE_METADATA|localhost`` ``hostname`` and ``default_pfcwd_status``;
  ``SWITCH_HASH|GLOBAL`` ``ecmp_hash``. The ECMP hash seed is not in CONFIG_DB (APPL_DB
  ``SWITCH_TABLE:switch``, generated from ``switch.json.j2``), so it is never read here.

Accepted layouts: plain ``config_db.json`` (``{"TABLE": {"key": {...}}}``), redis-key dumps
(``{"TABLE|key": {...}}`` or ``{"TABLE|key": {"value": {...}}}``, list fields ``name@``), wrapper or
multi-ASIC namespaces (``{"localhost": {...}, "asic0": {...}}``), old bracket references
(``"[DSCP_TO_TC_MAP|AZURE]"``), comma-joined port keys and queue ranges. The reader is tolerant
(comments, trailing or missing commas, several top-level objects, CLI prompt around the JSON), reports
such problems as ``SYNTAX`` warnings (a repeated key: ``DUPLICATE``, the later one wins as in
``json.load``) and never raises. Other warning codes: ``UNUSED`` (map / WRED profile / scheduler not
attached), ``UNDEFINED`` (reference to a missing object), ``VOQ`` (queue keys of other linecards),
``PARSE`` (anything RoCE-related that is not understood or not modelled).

Interfaces in the state are the ports with a RoCE-relevant statement (PORT mtu/pfc_asym, PORT_QOS_MAP,
QUEUE, PFC_WD); ports listed in PORT with nothing relevant are left out.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from roceconf.names import group_interfaces, natural_key
from roceconf.platforms.base import Capabilities, Fact, Platform
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched
from roceconf.units import compress_ints, expand_ints

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


def _int(value: Any) -> int | None:
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


# --------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.src_lines = self.text.split("\n")
        self.st = DeviceState(platform="sonic")
        self.db: _DB = {}
        self.used: set[tuple[str, str]] = set()
        self._warned: set[Any] = set()
        self.hostname: str | None = None
        self.asic_name: str | None = None

    # ---- helpers
    def at(self, path: str, *lines: int | None) -> None:
        ls = sorted({n for n in lines if n})
        if ls:
            n = next(x for x in lines if x)  # the text shown is the first line given (the binding)
            text = self.src_lines[n - 1].strip() if 0 < n <= len(self.src_lines) else ""
            self.st.at(path, ls, text)

    def warn(self, msg: str, line: int | None, code: str = "PARSE", once: Any = None) -> None:
        if once is not None:
            if once in self._warned:
                return
            self._warned.add(once)
        self.st.warn(msg, line, code)

    def table(self, name: str) -> dict[str, _Entry]:
        return self.db.get(name, {})

    def resolve(self, table: str, value: Any, line: int | None) -> tuple[str | None, _Entry | None]:
        """Look a reference up; mark it used; warn when it points nowhere."""
        name, bracket_table = _ref(value)
        if name is None:
            return None, None
        if bracket_table is not None and bracket_table != table:
            self.warn(
                f"reference {value!r} names table {bracket_table}, expected {table}",
                line,
                once=("reftable", value),
            )
        self.used.add((table, name))
        ent = self.table(table).get(name)
        if ent is None:
            self.warn(
                f"{table}|{name} is referenced but not defined", line, "UNDEFINED", ("undef", table, name)
            )
        return name, ent

    def int_map(self, table: str, name: str, ent: _Entry, lo: int, hi: int) -> dict[int, int]:
        out: dict[int, int] = {}
        for k, v in ent.fields.items():
            a, b = _int(k), _int(v)
            if a is None or b is None or not lo <= a <= hi or not 0 <= b <= 15:
                self.warn(
                    f"{table}|{name}: entry {k!r}: {v!r} not understood",
                    ent.flines.get(k),
                    once=(table, name, k),
                )
                continue
            out[a] = b
        return out

    # ---- entry point
    def run(self) -> DeviceState:
        reader = _Reader(self.text)
        docs = reader.documents()
        syntax = 0
        for line, msg, code in reader.issues:
            if code == "SYNTAX":
                syntax += 1
                if syntax > 10:
                    continue
            self.st.warn(msg, line, code)
        if not docs:
            if self.text.strip():
                self.warn(
                    "no JSON object found (expected config_db.json / show runningconfiguration all)", None
                )
            return self.st
        if len(docs) > 1:
            self.warn(
                f"{len(docs)} top-level JSON objects; read as one configuration", docs[1].line, "SYNTAX"
            )
        for d in docs:
            _collect(d, self.db)
        self.metadata()
        queues = self.queues()
        self.interfaces(queues)
        self.watchdog()
        self.ecmp()
        self.other_references()
        self.unused_and_unknown()
        return self.st

    # ---- DEVICE_METADATA
    def metadata(self) -> None:
        md = self.table("DEVICE_METADATA").get("localhost")
        if md is None:
            return
        host = md.fields.get("hostname")
        if isinstance(host, str) and host:
            self.hostname = host
            self.st.hostname = host
            self.at("hostname", md.flines.get("hostname"))
        asic = md.fields.get("asic_name")
        if isinstance(asic, str) and asic:
            self.asic_name = asic
        status = md.fields.get("default_pfcwd_status")
        if status is not None:
            if status in ("enable", "disable"):
                self.st.pfc_watchdog.enabled = status == "enable"
                self.at("pfc_watchdog.enabled", md.flines.get("default_pfcwd_status"))
            else:
                self.warn(
                    f"default_pfcwd_status {status!r} not understood", md.flines.get("default_pfcwd_status")
                )

    # ---- QUEUE -> {port: {queue: (entry, scheduler name, scheduler entry, wred name, wred entry)}}
    def queues(self) -> dict[str, dict[int, tuple]]:
        out: dict[str, dict[int, tuple]] = {}
        remote = 0
        first_remote: int | None = None
        for key, ent in self.table("QUEUE").items():
            sname, sch = self.resolve("SCHEDULER", ent.fields.get("scheduler"), ent.flines.get("scheduler"))
            wname, wred = self.resolve(
                "WRED_PROFILE", ent.fields.get("wred_profile"), ent.flines.get("wred_profile")
            )
            for f in ent.fields:
                if f not in ("scheduler", "wred_profile"):
                    self.warn(f"QUEUE|{key}: field {f!r} not interpreted", ent.flines.get(f), once=("qf", f))
            parts = [p.strip() for p in key.split("|")]
            if len(parts) == 4:  # VOQ chassis: host|asic|port|queue
                host, asic, port, qtext = parts
                local = (
                    self.hostname is not None
                    and host == self.hostname
                    and (self.asic_name is None or asic.lower() == self.asic_name.lower())
                )
                if not local:
                    remote += 1
                    first_remote = first_remote or ent.line
                    continue
                ports = [port]
            elif len(parts) == 2:
                ports = [p.strip() for p in parts[0].split(",") if p.strip()]
                qtext = parts[1]
            else:
                self.warn(f"QUEUE key {key!r} not understood", ent.line)
                continue
            try:
                qs = expand_ints(qtext)
            except ValueError:
                qs = []
            if not qs or any(q < 0 or q > 1023 for q in qs):
                self.warn(f"QUEUE key {key!r}: queue index {qtext!r} not understood", ent.line)
                continue
            for p in ports:
                for q in qs:
                    out.setdefault(p, {})[q] = (ent, sname, sch, wname, wred)
        if remote:
            why = "hostname unknown" if self.hostname is None else f"not {self.hostname}"
            self.warn(
                f"{remote} VOQ QUEUE entries (host|asic|port|queue) of other or unknown linecards ignored ({why})",
                first_remote,
                "VOQ",
            )
        return out

    # ---- PORT / PORT_QOS_MAP / QUEUE -> interfaces
    def interfaces(self, queues: dict[str, dict[int, tuple]]) -> None:
        pqm = self.table("PORT_QOS_MAP")
        glob: _Entry | None = None
        per_port: dict[str, _Entry] = {}
        for key, ent in pqm.items():
            if key.strip().lower() == "global":
                glob = ent
                continue
            for p in (x.strip() for x in key.split(",")):
                if not p:
                    continue
                old = per_port.get(p)
                if old is None:
                    per_port[p] = _Entry(dict(ent.fields), ent.line, dict(ent.flines))
                else:
                    old.fields.update(ent.fields)
                    old.flines.update(ent.flines)
        ports = self.table("PORT")
        wd = {
            p.strip(): e
            for k, e in self.table("PFC_WD").items()
            if k.strip().upper() != "GLOBAL"
            for p in k.split(",")
            if p.strip()
        }
        names = set(per_port) | set(queues) | set(wd)
        names |= {p for p, e in ports.items() if "mtu" in e.fields or "pfc_asym" in e.fields}

        if glob is not None:
            for f in glob.fields:
                if f in MAP_FIELDS and f not in ("dscp_to_tc_map", "dot1p_to_tc_map"):
                    self.resolve(MAP_FIELDS[f], glob.fields[f], glob.flines.get(f))
                elif f not in MAP_FIELDS:
                    self.warn(
                        f"PORT_QOS_MAP|global: field {f!r} not interpreted",
                        glob.flines.get(f),
                        once=("gf", f),
                    )
        gdscp = self._bound_map(glob, "dscp_to_tc_map", 0, 63)
        gdot1p = self._bound_map(glob, "dot1p_to_tc_map", 0, 7)

        applied: dict[str, tuple[str, dict[int, int], _Entry, int | None]] = {}
        for p in sorted(names, key=natural_key):
            itf = Interface()
            self.st.interfaces[p] = itf
            pe, qe = ports.get(p), per_port.get(p)
            self.at(f"interfaces.{p}", pe.line if pe else None, qe.line if qe else None)
            if pe is not None:
                self._port(p, itf, pe)
            dscp = (
                self._bound_map(qe, "dscp_to_tc_map", 0, 63)
                if qe and "dscp_to_tc_map" in qe.fields
                else gdscp
            )
            dot1p = (
                self._bound_map(qe, "dot1p_to_tc_map", 0, 7)
                if qe and "dot1p_to_tc_map" in qe.fields
                else gdot1p
            )
            if dscp is not None:
                itf.trust = "dscp"
                applied[p] = dscp
                self.at(f"interfaces.{p}.trust", dscp[3])
            elif dot1p is not None:
                itf.trust = "pcp"
                self.at(f"interfaces.{p}.trust", dot1p[3])
            if qe is not None:
                self._port_qos(p, itf, qe)
            if p in wd:
                self._port_watchdog(p, itf, wd[p], qe)
            for q, (ent, sname, sch, wname, wred) in sorted(queues.get(p, {}).items()):
                self._queue(p, itf, q, ent, sname, sch, wname, wred)
        self._device_dscp_map(applied, gdscp)

    def _bound_map(
        self, ent: _Entry | None, fld: str, lo: int, hi: int
    ) -> tuple[str, dict[int, int], _Entry, int | None] | None:
        if ent is None or fld not in ent.fields:
            return None
        table = MAP_FIELDS[fld]
        line = ent.flines.get(fld)
        name, mp = self.resolve(table, ent.fields[fld], line)
        if name is None or mp is None:
            return None
        return name, self.int_map(table, name, mp, lo, hi), mp, line

    def _port(self, p: str, itf: Interface, pe: _Entry) -> None:
        if "mtu" in pe.fields:
            mtu = _int(pe.fields["mtu"])
            if mtu is None or mtu <= 0:
                self.warn(f"PORT|{p}: mtu {pe.fields['mtu']!r} not understood", pe.flines.get("mtu"))
            else:
                itf.mtu = mtu
                self.at(f"interfaces.{p}.mtu", pe.flines.get("mtu"))
        asym = pe.fields.get("pfc_asym")
        if asym == "on":
            self.warn(f"PORT|{p}: asymmetric PFC (pfc_asym on) is not modelled", pe.flines.get("pfc_asym"))

    def _port_qos(self, p: str, itf: Interface, qe: _Entry) -> None:
        for f, v in qe.fields.items():
            line = qe.flines.get(f)
            if f not in PQM_FIELDS:
                self.warn(f"PORT_QOS_MAP|{p}: field {f!r} not interpreted", line, once=("pqmf", f))
            elif f in ("tc_to_queue_map", "pfc_to_queue_map"):
                name, ent = self.resolve(MAP_FIELDS[f], v, line)
                if name and ent:
                    mp = self.int_map(MAP_FIELDS[f], name, ent, 0, 15)
                    if any(a != b for a, b in mp.items()):
                        self.warn(
                            f"{MAP_FIELDS[f]}|{name} is not the identity; ECN/scheduling are read per queue "
                            "and queue N is taken as TC N",
                            line,
                            once=("ident", f, name),
                        )
            elif f in MAP_FIELDS and f not in ("dscp_to_tc_map", "dot1p_to_tc_map"):
                self.resolve(MAP_FIELDS[f], v, line)
            elif f == "scheduler":
                name, _ = self.resolve("SCHEDULER", v, line)
                self.warn(
                    f"PORT_QOS_MAP|{p}: port scheduler {name!r} (shaper) not modelled", line, once=("psch", p)
                )
        if "pfc_enable" in qe.fields:
            line = qe.flines.get("pfc_enable")
            prios = self._prios(qe.fields["pfc_enable"], line, f"PORT_QOS_MAP|{p} pfc_enable")
            if prios is not None:
                itf.pfc = Pfc(enabled=bool(prios), no_drop=prios)
                self.at(f"interfaces.{p}.pfc", line)
        if qe.fields.get("pfcwd_sw_enable") == "":
            itf.pfc_watchdog = False
            self.at(f"interfaces.{p}.pfc_watchdog", qe.flines.get("pfcwd_sw_enable"))
        elif "pfcwd_sw_enable" in qe.fields:
            self._prios(
                qe.fields["pfcwd_sw_enable"],
                qe.flines.get("pfcwd_sw_enable"),
                f"PORT_QOS_MAP|{p} pfcwd_sw_enable",
            )

    def _prios(self, value: Any, line: int | None, what: str) -> list[int] | None:
        if not isinstance(value, str):
            self.warn(f"{what}: {value!r} not understood", line)
            return None
        try:
            prios = sorted(set(expand_ints(value)))
        except ValueError:
            prios = [-1]
        if any(not 0 <= x <= 7 for x in prios):
            self.warn(f"{what}: {value!r} not understood", line)
            return None
        return prios

    def _port_watchdog(self, p: str, itf: Interface, we: _Entry, qe: _Entry | None) -> None:
        if qe is not None and qe.fields.get("pfcwd_sw_enable") == "":
            return  # no priority watched: stays off
        itf.pfc_watchdog = True
        self.at(f"interfaces.{p}.pfc_watchdog", we.line)

    def _queue(
        self,
        p: str,
        itf: Interface,
        q: int,
        ent: _Entry,
        sname: str | None,
        sch: _Entry | None,
        wname: str | None,
        wred: _Entry | None,
    ) -> None:
        if sname is not None and sch is not None:
            sched = self._scheduler(sname, sch, f"interfaces.{p}.scheduling.{q}")
            if sched is not None:
                itf.scheduling[str(q)] = sched
                self.at(
                    f"interfaces.{p}.scheduling.{q}",
                    ent.line,
                    ent.flines.get("scheduler"),
                    sch.line,
                    sch.flines.get("type"),
                    sch.flines.get("weight"),
                )
        if wname is not None and wred is not None:
            ecn = self._ecn(wname, wred)
            if ecn is not None:
                itf.ecn[str(q)] = ecn
                self.at(
                    f"interfaces.{p}.ecn.{q}",
                    ent.line,
                    ent.flines.get("wred_profile"),
                    wred.flines.get("ecn"),
                    wred.flines.get("green_min_threshold"),
                    wred.flines.get("green_max_threshold"),
                    wred.flines.get("green_drop_probability"),
                )

    def _scheduler(self, name: str, ent: _Entry, path: str) -> Sched | None:
        f = ent.fields
        if any(k in f for k in _SHAPER_FIELDS):
            self.warn(f"SCHEDULER|{name}: shaper (cir/pir) not modelled", ent.line, once=("shaper", name))
        kind = f.get("type")
        if kind is None:
            kind = "WRR"  # sonic-scheduler.yang default
            self.st.defaults.append(path)
        kind = str(kind).upper()
        if kind == "STRICT":
            return Sched(mode="strict")
        if kind in ("DWRR", "WRR"):
            if kind == "WRR":
                self.warn(
                    f"SCHEDULER|{name} is WRR; read as dwrr",
                    ent.flines.get("type", ent.line),
                    once=("wrr", name),
                )
            weight = _int(f.get("weight")) if "weight" in f else 1  # sonic-scheduler.yang default weight 1
            if "weight" not in f and path not in self.st.defaults:
                self.st.defaults.append(path)
            if weight is None or not 1 <= weight <= 100:
                self.warn(
                    f"SCHEDULER|{name}: weight {f.get('weight')!r} not understood",
                    ent.flines.get("weight"),
                    once=("w", name),
                )
                return Sched(mode="dwrr")
            return Sched(mode="dwrr", bandwidth_percent=weight)
        self.warn(
            f"SCHEDULER|{name}: type {kind!r} not understood", ent.flines.get("type"), once=("stype", name)
        )
        return None

    def _ecn(self, name: str, ent: _Entry) -> Ecn | None:
        f = ent.fields
        mode = f.get("ecn")
        line = ent.flines.get("ecn", ent.line)
        if mode is None or mode == "ecn_none":
            self.warn(
                f"WRED_PROFILE|{name}: ecn {mode or 'not set'} = WRED drop, not ECN",
                line,
                once=("drop", name),
            )
            return None
        if not isinstance(mode, str) or mode not in ECN_VALUES:
            self.warn(f"WRED_PROFILE|{name}: ecn {mode!r} not understood", line, once=("emode", name))
            return None
        if mode not in ECN_MARKS_GREEN:
            self.warn(
                f"WRED_PROFILE|{name}: {mode} does not mark green traffic; not read as ECN",
                line,
                once=("ecol", name),
            )
            return None
        if f.get("wred_green_enable") != "true":
            self.warn(
                f"WRED_PROFILE|{name}: wred_green_enable is not 'true', green curve off; not read as ECN",
                ent.flines.get("wred_green_enable", line),
                once=("gen", name),
            )
            return None
        vals: dict[str, int | None] = {}
        for k, fld in (
            ("min_bytes", "green_min_threshold"),
            ("max_bytes", "green_max_threshold"),
            ("probability", "green_drop_probability"),
        ):
            v = _int(f.get(fld)) if fld in f else None
            if fld in f and (v is None or v < 0):
                self.warn(
                    f"WRED_PROFILE|{name}: {fld} {f.get(fld)!r} not understood",
                    ent.flines.get(fld),
                    once=(fld, name),
                )
                v = None
            vals[k] = v
        return Ecn(**vals)

    def _device_dscp_map(
        self, applied: dict[str, tuple[str, dict[int, int], _Entry, int | None]], glob: tuple | None
    ) -> None:
        if not applied and glob is None:
            return
        if glob is not None:
            name, mp, ent = glob[0], glob[1], glob[2]
        else:
            counts = Counter(frozenset(v[1].items()) for v in applied.values())
            best = max(counts.values())
            first = next(
                p
                for p in sorted(applied, key=natural_key)
                if counts[frozenset(applied[p][1].items())] == best
            )
            name, mp, ent = applied[first][0], applied[first][1], applied[first][2]
        self.st.dscp_to_tc = {str(d): tc for d, tc in sorted(mp.items())}
        for d in mp:
            self.at(f"dscp_to_tc.{d}", ent.flines.get(str(d)))
        differ = [p for p, v in applied.items() if v[1] != mp]
        for p in differ:
            self.st.interfaces[p].dscp_to_tc = {str(d): tc for d, tc in sorted(applied[p][1].items())}
        if differ:
            self.warn(
                f"ports bind different DSCP_TO_TC maps; device map is {name!r}, "
                f"port-specific maps on {', '.join(sorted(differ, key=natural_key))}",
                ent.line,
            )

    # ---- PFC_WD
    def watchdog(self) -> None:
        wd = self.table("PFC_WD")
        wst = self.st.pfc_watchdog
        for key, ent in wd.items():
            if key.strip().upper() == "GLOBAL":
                for f, v in ent.fields.items():
                    line = ent.flines.get(f)
                    if f == "POLL_INTERVAL":
                        ms = _int(v)
                        if ms is None or ms <= 0:
                            self.warn(f"PFC_WD|GLOBAL: POLL_INTERVAL {v!r} not understood", line)
                        else:
                            wst.polling_ms = ms
                            self.at("pfc_watchdog.polling_ms", line)
                    elif f == "BIG_RED_SWITCH":
                        if v == "enable":
                            self.warn(
                                "PFC_WD|GLOBAL: BIG_RED_SWITCH enabled (all lossless queues dropped)", line
                            )
                    else:
                        self.warn(f"PFC_WD|GLOBAL: field {f!r} not interpreted", line)
        seen: dict[str, list[tuple[str, Any, int | None]]] = {}
        for key in sorted((k for k in wd if k.strip().upper() != "GLOBAL"), key=natural_key):
            ent = wd[key]
            for f, v in ent.fields.items():
                if f in ("action", "detection_time", "restoration_time"):
                    seen.setdefault(f, []).append((key, v, ent.flines.get(f)))
                elif f not in ("pfc_stat_history",):
                    self.warn(
                        f"PFC_WD|{key}: field {f!r} not interpreted", ent.flines.get(f), once=("wdf", f)
                    )
        for f, vals in seen.items():
            key, v, line = vals[0]
            if len({repr(x[1]) for x in vals}) > 1:
                self.warn(f"PFC_WD {f} differs between ports; {key}'s {v!r} is reported", line)
            if f == "action":
                if v in WD_ACTIONS:
                    wst.action = v
                    self.at("pfc_watchdog.action", line)
                else:
                    self.warn(f"PFC_WD|{key}: action {v!r} not understood", line)
            else:
                ms = _int(v)
                target = "detection_ms" if f == "detection_time" else "restoration_ms"
                if ms is None or ms <= 0:
                    self.warn(f"PFC_WD|{key}: {f} {v!r} not understood", line)
                else:
                    setattr(wst, target, ms)
                    self.at(f"pfc_watchdog.{target}", line)

    # ---- SWITCH_HASH
    def ecmp(self) -> None:
        ent = self.table("SWITCH_HASH").get("GLOBAL")
        if ent is None:
            return
        for f, v in ent.fields.items():
            line = ent.flines.get(f)
            if f == "ecmp_hash":
                items = (
                    v if isinstance(v, list) else [x.strip() for x in str(v or "").split(",") if x.strip()]
                )
                fields = sorted({SONIC_TO_HASH[x] for x in items if x in SONIC_TO_HASH})
                other = [x for x in items if x not in SONIC_TO_HASH]
                if other:
                    self.warn(f"SWITCH_HASH|GLOBAL ecmp_hash fields not modelled: {', '.join(other)}", line)
                self.st.ecmp.fields = fields  # type: ignore[assignment]
                self.at("ecmp.fields", line)
            elif f.startswith("ecmp_hash_") and f != "ecmp_hash_algorithm":
                self.warn(f"SWITCH_HASH|GLOBAL {f} (per packet type ECMP hash) not modelled", line)

    # ---- references from tables not interpreted (e.g. TUNNEL decap maps) count as uses
    def other_references(self) -> None:
        for tname, tbl in self.db.items():
            if tname in ("PORT_QOS_MAP", "QUEUE"):
                continue
            for ent in tbl.values():
                for f, v in ent.fields.items():
                    for mf, mtable in MAP_FIELDS.items():
                        if f.endswith(mf):
                            name, _ = _ref(v)
                            if name:
                                self.used.add((mtable, name))

    def unused_and_unknown(self) -> None:
        for tname in sorted(MAP_TABLES | {"WRED_PROFILE", "SCHEDULER"}):
            for name, ent in self.table(tname).items():
                if (tname, name) not in self.used:
                    self.warn(
                        f"{tname}|{name} is defined but not attached to any port or queue", ent.line, "UNUSED"
                    )
        for tname, tbl in self.db.items():
            if tname in TABLES or tname.startswith(_IGNORED_PREFIXES) or not _ROCEISH_TABLE.search(tname):
                continue
            first = min((e.line for e in tbl.values()), default=None)
            self.warn(f"table {tname} is not interpreted by roceconf", first)


def parse(text: str) -> DeviceState:
    """CONFIG_DB JSON (any of the accepted layouts) -> DeviceState. Never raises."""
    p = _Parser(text if isinstance(text, str) else "")
    try:
        return p.run()
    except Exception as exc:  # noqa: BLE001 - a parser must never raise
        p.st.warn(f"internal parser error ({type(exc).__name__}: {exc}); state may be incomplete", None)
        return p.st


# --------------------------------------------------------------------------- template filters
# Each filter returns the entries of one CONFIG_DB table ({} = table not rendered).

Tables = dict[str, dict[str, Any]]


def _sched_name(s: Sched) -> str | None:
    if s.mode == "strict":
        return "ROCE_STRICT"
    if s.mode == "dwrr":
        return f"ROCE_DWRR_{s.bandwidth_percent}" if s.bandwidth_percent is not None else "ROCE_DWRR"
    return None


def _sched_fields(s: Sched) -> dict[str, str]:
    if s.mode == "strict":
        return {"type": "STRICT"}
    out = {"type": "DWRR"}
    if s.bandwidth_percent is not None:
        out["weight"] = str(s.bandwidth_percent)
    return out


def _ecn_stated(e: Ecn) -> bool:
    return any(v is not None for v in (e.min_bytes, e.max_bytes, e.probability))


def _wred_name(e: Ecn) -> str:
    return "ROCE_ECN_" + "_".join(
        "x" if v is None else str(v) for v in (e.min_bytes, e.max_bytes, e.probability)
    )


def _wred_fields(e: Ecn) -> dict[str, str]:
    out = {"ecn": "ecn_all"}
    for color in ("green", "yellow", "red"):
        out[f"wred_{color}_enable"] = "true"
        if e.min_bytes is not None:
            out[f"{color}_min_threshold"] = str(e.min_bytes)
        if e.max_bytes is not None:
            out[f"{color}_max_threshold"] = str(e.max_bytes)
        if e.probability is not None:
            out[f"{color}_drop_probability"] = str(e.probability)
    return out


def _binds_qos(itf: Interface) -> bool:
    """Ports whose PORT_QOS_MAP entry carries the identity TC/queue/PG bindings."""
    return (
        itf.pfc.enabled is not None
        or itf.pfc.no_drop is not None
        or bool(itf.ecn)
        or bool(itf.scheduling)
        or itf.trust is not None
    )


def f_device_metadata(s: DeviceState) -> Tables:
    md: dict[str, str] = {}
    if s.hostname is not None:
        md["hostname"] = s.hostname
    if s.pfc_watchdog.enabled is not None:
        md["default_pfcwd_status"] = "enable" if s.pfc_watchdog.enabled else "disable"
    return {"localhost": md} if md else {}


def f_port(s: DeviceState) -> Tables:
    return {n: {"mtu": str(i.mtu)} for n, i in s.interfaces.items() if i.mtu is not None}


def f_dscp_to_tc_map(s: DeviceState) -> Tables:
    out: Tables = {}
    if s.dscp_to_tc:
        out[DEVICE_MAP] = {str(d): str(tc) for d, tc in s.dscp_to_tc.items()}
    for n, i in s.interfaces.items():
        if i.dscp_to_tc:
            out[f"{DEVICE_MAP}_{n}"] = {str(d): str(tc) for d, tc in i.dscp_to_tc.items()}
    return out


def _identity(s: DeviceState, pred: Any = _binds_qos) -> Tables:
    if any(pred(i) for i in s.interfaces.values()):
        return {DEVICE_MAP: {str(x): str(x) for x in range(8)}}
    return {}


def _lossless(s: DeviceState) -> list[int]:
    return sorted(
        {p for i in s.interfaces.values() if i.pfc.enabled and i.pfc.no_drop for p in i.pfc.no_drop}
    )


def f_tc_to_pg_map(s: DeviceState) -> Tables:
    """TC_TO_PRIORITY_GROUP_MAP: a lossless TC N -> PG N, every lossy TC (CNP too) -> PG0, the one ingress PG
    that has a (lossy) buffer profile - as community files/build_templates/qos_config.j2 (AZURE: 3->3, 4->4,
    others 0; 7->7 is left out: roceconf does not reserve a control PG)."""
    if not any(_binds_qos(i) for i in s.interfaces.values()):
        return {}
    lossless = set(_lossless(s))
    return {DEVICE_MAP: {str(tc): str(tc if tc in lossless else 0) for tc in range(8)}}


def f_buffer_pg(s: DeviceState) -> Tables:
    """BUFFER_PG|<port>|<lossless PGs>: profile "NULL", as files/build_templates/buffers_config.j2 writes the
    lossless PGs in the dynamic buffer model ("<port>|3-4": {"profile": "NULL"}): buffermgrd computes the
    headroom from the port's speed, cable length and MTU (sonic-net/SONiC doc/qos/
    dynamically-headroom-calculation.md). PG0 (ingress_lossy_profile) is left to the device's buffer
    template. sonic-buffer-pg.yang: key port + pg_num "[0-7]((-)[0-7])?", profile leafref or "NULL"."""
    out: Tables = {}
    for n, i in s.interfaces.items():
        if i.pfc.enabled and i.pfc.no_drop:
            # one key per run of consecutive PGs: pg_num is "N" or "N-M", never a list
            runs: list[list[int]] = []
            for p in sorted(set(i.pfc.no_drop)):
                if runs and runs[-1][-1] == p - 1:
                    runs[-1].append(p)
                else:
                    runs.append([p])
            for r in runs:
                out[f"{n}|{r[0]}" if len(r) == 1 else f"{n}|{r[0]}-{r[-1]}"] = {"profile": "NULL"}
    return out


def f_dot1p_to_tc_map(s: DeviceState) -> Tables:
    return _identity(s, lambda i: i.trust == "pcp")


def f_identity_map(s: DeviceState) -> Tables:
    """TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP and MAP_PFC_PRIORITY_TO_QUEUE: priority N = TC N = queue N."""
    return _identity(s)


def f_port_qos_map(s: DeviceState) -> Tables:
    out: Tables = {}
    if s.dscp_to_tc:
        out["global"] = {"dscp_to_tc_map": DEVICE_MAP}
    for n, i in s.interfaces.items():
        e: dict[str, str] = {}
        if i.trust == "dscp":
            e["dscp_to_tc_map"] = f"{DEVICE_MAP}_{n}" if i.dscp_to_tc else DEVICE_MAP
        elif i.trust == "pcp":
            e["dot1p_to_tc_map"] = DEVICE_MAP
        if _binds_qos(i):
            e.update(tc_to_queue_map=DEVICE_MAP, tc_to_pg_map=DEVICE_MAP, pfc_to_queue_map=DEVICE_MAP)
        if i.pfc.enabled is False:
            e["pfc_enable"] = ""
        elif i.pfc.no_drop:
            e["pfc_enable"] = ",".join(str(x) for x in sorted(i.pfc.no_drop))
        if i.pfc_watchdog is False:
            e["pfcwd_sw_enable"] = ""
        elif i.pfc_watchdog and i.pfc.no_drop and i.pfc.enabled is not False:
            e["pfcwd_sw_enable"] = ",".join(str(x) for x in sorted(i.pfc.no_drop))
        if e:
            out[n] = e
    return out


def f_queue(s: DeviceState) -> Tables:
    """QUEUE|<port>|<q or q-range>; consecutive queues with the same binding share one range key."""
    out: Tables = {}
    for names, itf in group_interfaces(s, ("ecn", "scheduling")):
        per_q: dict[int, dict[str, str]] = {}
        for tc, sch in itf.scheduling.items():
            name = _sched_name(sch)
            if name:
                per_q.setdefault(int(tc), {})["scheduler"] = name
        for tc, ecn in itf.ecn.items():
            if _ecn_stated(ecn):
                per_q.setdefault(int(tc), {})["wred_profile"] = _wred_name(ecn)
        runs: list[tuple[list[int], dict[str, str]]] = []
        for q in sorted(per_q):
            if runs and runs[-1][0][-1] == q - 1 and runs[-1][1] == per_q[q]:
                runs[-1][0].append(q)
            else:
                runs.append(([q], per_q[q]))
        for n in names:
            for qs, fields in runs:
                out[f"{n}|{compress_ints(qs)}"] = dict(fields)
    return out


def f_scheduler(s: DeviceState) -> Tables:
    out: Tables = {}
    for i in s.interfaces.values():
        for sch in i.scheduling.values():
            name = _sched_name(sch)
            if name:
                out[name] = _sched_fields(sch)
    return out


def f_wred_profile(s: DeviceState) -> Tables:
    out: Tables = {}
    for i in s.interfaces.values():
        for ecn in i.ecn.values():
            if _ecn_stated(ecn):
                out[_wred_name(ecn)] = _wred_fields(ecn)
    return out


def f_pfc_wd(s: DeviceState) -> Tables:
    wd = s.pfc_watchdog
    out: Tables = {}
    if wd.polling_ms is not None:
        out["GLOBAL"] = {"POLL_INTERVAL": str(wd.polling_ms)}
    port: dict[str, str] = {}
    if wd.action is not None:
        port["action"] = wd.action
    if wd.detection_ms is not None:
        port["detection_time"] = str(wd.detection_ms)
    if wd.restoration_ms is not None:
        port["restoration_time"] = str(wd.restoration_ms)
    for n, i in s.interfaces.items():
        if i.pfc_watchdog:
            out[n] = dict(port)
    return out


def f_switch_hash(s: DeviceState) -> Tables:
    if s.ecmp.fields is None:
        return {}
    order = list(HASH_TO_SONIC)  # stable, documented order
    fields = sorted(s.ecmp.fields, key=order.index)
    return {"GLOBAL": {"ecmp_hash": [HASH_TO_SONIC[f] for f in fields]}}


def f_config_db_json(tables: dict[str, Tables]) -> str:
    """Drop empty tables; pretty-print with sorted keys (what ``config load`` reads)."""
    return json.dumps({t: e for t, e in tables.items() if e}, indent=4, sort_keys=True)


FILTERS = {
    "sonic_device_metadata": f_device_metadata,
    "sonic_port": f_port,
    "sonic_dscp_to_tc_map": f_dscp_to_tc_map,
    "sonic_dot1p_to_tc_map": f_dot1p_to_tc_map,
    "sonic_identity_map": f_identity_map,
    "sonic_tc_to_pg_map": f_tc_to_pg_map,
    "sonic_buffer_pg": f_buffer_pg,
    "sonic_port_qos_map": f_port_qos_map,
    "sonic_queue": f_queue,
    "sonic_scheduler": f_scheduler,
    "sonic_wred_profile": f_wred_profile,
    "sonic_pfc_wd": f_pfc_wd,
    "sonic_switch_hash": f_switch_hash,
    "sonic_config_db_json": f_config_db_json,
}

# --------------------------------------------------------------------------- platform

_YANG = "sonic-net/sonic-buildimage src/sonic-yang-models/yang-models/"

CAPABILITIES = Capabilities(
    min_mtu=Fact(68, _YANG + "sonic-port.yang (PORT mtu: uint16 range 68..9216)"),
    max_mtu=Fact(9216, _YANG + "sonic-port.yang (PORT mtu: uint16 range 68..9216)"),
    max_lossless_priorities=Fact(
        2,
        "sonic-net/SONiC doc/qos/SONiC_ROCEv2_support.md ('Support 2 lossless priorities'); "
        "sonic-net/sonic-buildimage files/build_templates/qos_config.j2 (pfc_enable '3,4')",
    ),
    # Per port in CONFIG_DB: PORT|<port> mtu, PORT_QOS_MAP|<port> pfc_enable / pfcwd_sw_enable,
    # QUEUE|<port>|<q> scheduler / wred_profile. Trust follows the bound maps (kept uniform here);
    # link-level pause has no CONFIG_DB field.
    per_port=frozenset({"mtu", "pfc", "pfc_watchdog", "ecn", "scheduling"}),
    hash_fields=tuple(HASH_TO_SONIC),  # sonic-hash.yang hash-field enum
    hash_seed=False,  # APPL_DB SWITCH_TABLE:switch ecmp_hash_seed, dockers/docker-orchagent/switch.json.j2
    hash_symmetric=False,
    watchdog_fields=frozenset({"enabled", "detection_ms", "restoration_ms", "polling_ms"}),
    watchdog_actions=WD_ACTIONS,  # sonic-pfcwd.yang / sonic-utilities pfcwd/main.py
    ecn_quantum_bytes=1,  # WRED_PROFILE thresholds are bytes (sonic-wred-profile.yang)
    every_dscp_mapped=True,
    # sonic-pfcwd.yang: POLL_INTERVAL 100..1000, detection_time 100..5000, restoration_time 100..60000 ms
    watchdog_ranges=(("polling_ms", 100, 1000), ("detection_ms", 100, 5000), ("restoration_ms", 100, 60000)),
    watchdog_ranges_source=_YANG + "sonic-pfcwd.yang (PFC_WD_LIST)",
    notes=(
        "DWRR bandwidth_percent is rendered as SCHEDULER weight (1-100); SONiC weights are relative, "
        "so they equal percent only when the DWRR weights of a port sum to 100.",
        "pfc_watchdog.enabled maps to DEVICE_METADATA|localhost default_pfcwd_status (pfcwd start_default).",
        "ECMP hash seed lives in APPL_DB, not CONFIG_DB; symmetric hashing is not configurable.",
        "Queue N = TC N = priority N: identity TC_TO_QUEUE_MAP / MAP_PFC_PRIORITY_TO_QUEUE named ROCE are "
        "rendered and bound; TC_TO_PRIORITY_GROUP_MAP sends lossless TC N to PG N and every lossy TC to PG0 "
        "(qos_config.j2), and BUFFER_PG states the lossless PGs with profile NULL (buffers_config.j2, dynamic "
        "buffer model).",
        "Every DSCP 0-63 is in DSCP_TO_TC_MAP (unnamed ones in the default class). Queues the intent does not "
        "schedule keep the device's qos_config.j2 scheduler (DWRR scheduler.0), never strict.",
    ),
)

PLATFORM = Platform(
    # Interface syntax: SONiC PORT keys "Ethernet<n>" (sonic-port.yang, platform port_config.ini) and
    # PORTCHANNEL keys "PortChannel<n>" (sonic-portchannel.yang).
    interface_pattern=r"Ethernet\d+|PortChannel\d+",
    interface_example="Ethernet0, Ethernet8, PortChannel1",
    apply_method="sonic-config-load",
    name="sonic",
    kind="switch",
    title="SONiC (community, CONFIG_DB)",
    extension="json",
    capabilities=CAPABILITIES,
    parse=parse,
    filters=FILTERS,
    napalm_driver=None,
    netmiko_device_type="linux",  # community SONiC logs in to a bash shell; netmiko has no community-SONiC type
    # dellemc.enterprise_sonic collection (cliconf/httpapi plugins named dellemc.enterprise_sonic.sonic);
    # "sonic" and other collections' <ns>.<name>.sonic for community SONiC
    ansible_network_os=("dellemc.enterprise_sonic.sonic", "sonic", "*.sonic"),
    collect_commands=("show runningconfiguration all",),
)
