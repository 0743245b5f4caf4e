"""SONiC: config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.sonic.syntax import (
    _DB,
    _IGNORED_PREFIXES,
    _ROCEISH_TABLE,
    _SHAPER_FIELDS,
    ECN_MARKS_GREEN,
    ECN_VALUES,
    MAP_FIELDS,
    MAP_TABLES,
    PQM_FIELDS,
    SONIC_TO_HASH,
    TABLES,
    WD_ACTIONS,
    _collect,
    _Entry,
    _int,
    _ref,
    read_documents,
)
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched
from roceconf.units import expand_ints

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
        #: each named map read once per config (every port references the same few): a fresh copy per use
        self._maps: dict[tuple[str, str, int, int], dict[int, int]] = {}

    # ---- helpers
    def at(self, path: str, *lines: int | None) -> None:
        if len(lines) == 1:  # the common call: what the general case below gives for one line
            n = lines[0]
            if n:
                self.st.at(path, [n], self.src_lines[n - 1].strip() if 0 < n <= len(self.src_lines) else "")
            return
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
        key = (table, name, lo, hi)
        if key not in self._maps:
            self._maps[key] = self._int_map(table, name, ent, lo, hi)
        return dict(self._maps[key])

    def _int_map(self, table: str, name: str, ent: _Entry, lo: int, hi: int) -> dict[int, int]:
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
        docs, issues = read_documents(self.text)
        syntax = 0
        for line, msg, code in issues:
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
                    if not f.endswith(_MAP_FIELD_NAMES):
                        continue
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


_MAP_FIELD_NAMES = tuple(MAP_FIELDS)


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
