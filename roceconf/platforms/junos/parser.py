"""Juniper Junos: config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.base import parse_shared_by_line
from roceconf.platforms.junos.syntax import (
    _NOT_PORT,
    _PORT_RE,
    DEFAULT_FCS,
    HASH_EXCLUDE_V4,
    HASH_EXCLUDE_V6,
    JUNOS_HASH_FIELDS,
    WD_DEFAULT_DETECTION,
    WD_DEFAULT_POLL_MS,
    WD_DEFAULT_RECOVERY_MS,
    Stmt,
    _Binding,
    _Classifier,
    _Cnp,
    _DropProfile,
    _Fc,
    _IfCos,
    _int,
    _num,
    _Obj,
    _Scheduler,
    flatten,
    parse_dscp,
    parse_pcp,
)
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched


class _Parser:
    def __init__(self, text: str) -> None:
        self.state = DeviceState(platform="junos")
        self.text = text
        self.classifiers: dict[tuple[str, str], _Classifier] = {}
        self.fcs: dict[str, _Fc] = {}
        self.cnps: dict[str, _Cnp] = {}
        self.drop_profiles: dict[str, _DropProfile] = {}
        self.schedulers: dict[str, _Scheduler] = {}
        self.smaps: dict[str, _Obj] = {}
        self.smap_entries: dict[str, dict[str, tuple[str, int, str]]] = {}
        self.ifds: dict[str, int] = {}  # port name -> first line
        self.mtu: dict[str, tuple[int, int, str]] = {}
        self.link_pause: dict[str, tuple[bool, int, str]] = {}
        self.ranges: dict[str, list[str]] = {}
        self.range_mtu: dict[str, tuple[int, int, str]] = {}
        self.cos_if: dict[str, _IfCos] = {}
        self.hash_v4: set[str] | None = None
        self.hash_v6: set[str] | None = None
        self.hash_lines: list[int] = []
        self.hash_mode: tuple[str, int] | None = None
        self.hash_seed: tuple[int, int, str] | None = None
        self._warned: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ helpers
    def warn(self, msg: str, line: int | None, code: str = "PARSE") -> None:
        if any(w.message == msg and w.line == line and w.code == code for w in self.state.warnings):
            return
        self.state.warn(msg, line, code)

    # ------------------------------------------------------------------ pass 1
    def collect(self, stmts: list[Stmt]) -> None:
        for st in stmts:
            w = st.words
            try:
                if len(w) >= 3 and w[0] == "system" and w[1] == "host-name":
                    self.state.hostname = w[2]
                    self.state.at("hostname", st.line, st.text)
                elif w and w[0] == "interfaces" and len(w) >= 2:
                    self._interfaces(st)
                elif w and w[0] == "class-of-service" and len(w) >= 2:
                    self._cos(st)
                elif len(w) >= 3 and w[0] == "forwarding-options" and w[1] == "enhanced-hash-key":
                    self._hash(st)
            except (IndexError, ValueError) as exc:  # malformed statement
                self.warn(f"cannot read statement ({exc}): {st.text}", st.line)

    def _interfaces(self, st: Stmt) -> None:
        w = st.words
        name = w[1].lower()
        if name == "interface-range" and len(w) >= 4:
            rng = w[2]
            rest = w[3:]
            if rest[0] == "member" and len(rest) >= 2:
                self.ranges.setdefault(rng, []).append(rest[1].lower())
            elif rest[0] == "member-range" and len(rest) >= 4 and rest[2] == "to":
                self.ranges.setdefault(rng, []).extend(_member_range(rest[1].lower(), rest[3].lower()))
            elif rest[0] == "mtu" and len(rest) >= 2 and _int(rest[1]) is not None:
                self.range_mtu[rng] = (int(rest[1]), st.line, st.text)
            return
        if not _is_port(name):
            return
        self.ifds.setdefault(name, st.line)
        rest = w[2:]
        if rest[:1] == ("mtu",) and len(rest) >= 2:
            v = _int(rest[1])
            if v is None:
                self.warn(f"interface {name}: mtu {rest[1]!r} is not a number", st.line)
            else:
                self.mtu[name] = (v, st.line, st.text)
        elif (
            len(rest) >= 2
            and rest[0] in ("ether-options", "gigether-options")
            and rest[1]
            in (
                "flow-control",
                "no-flow-control",
            )
        ):
            self.link_pause[name] = (rest[1] == "flow-control", st.line, st.text)

    def _cos(self, st: Stmt) -> None:
        w = st.words
        sec = w[1]
        if sec == "classifiers" and len(w) >= 4:
            self._classifier(st)
        elif sec == "forwarding-classes":
            self._fc(st)
        elif sec == "congestion-notification-profile" and len(w) >= 3:
            self._cnp(st)
        elif sec == "drop-profiles" and len(w) >= 3:
            self._drop_profile(st)
        elif sec == "schedulers" and len(w) >= 3:
            self._scheduler(st)
        elif sec == "scheduler-maps" and len(w) >= 3:
            sm = w[2]
            self.smaps.setdefault(sm, _Obj(st.line, st.text))
            if len(w) >= 7 and w[3] == "forwarding-class" and w[5] == "scheduler":
                self.smap_entries.setdefault(sm, {})[w[4]] = (w[6], st.line, st.text)
            elif len(w) > 3:
                self.warn(f"scheduler-map {sm}: statement not understood: {st.text}", st.line)
        elif sec == "interfaces" and len(w) >= 4:
            self._cos_interface(st)
        elif sec in ("forwarding-class-sets", "traffic-control-profiles"):
            self.warn(
                f"class-of-service {sec} (ETS priority-group scheduling) is not modelled; "
                "only direct scheduler-map port scheduling is read",
                st.line,
            )
        elif sec in ("pfc-watchdog", "explicit-congestion-notification"):
            self.warn(f"unrecognised class-of-service statement: {st.text}", st.line)

    def _classifier(self, st: Stmt) -> None:
        w = st.words
        kind, name = w[2], w[3]
        if kind not in ("dscp", "ieee-802.1", "dscp-ipv6"):
            return
        cl = self.classifiers.setdefault((kind, name), _Classifier(st.line, st.text, kind=kind))
        rest = w[4:]
        if not rest:
            return
        if rest[0] == "import":
            self.warn(f"classifier {name}: 'import' of another classifier is not expanded", st.line)
            return
        if (
            len(rest) >= 6
            and rest[0] == "forwarding-class"
            and rest[2] == "loss-priority"
            and rest[4] == "code-points"
        ):
            fc = rest[1]
            value = parse_dscp(rest[5]) if kind != "ieee-802.1" else parse_pcp(rest[5])
            if value is None:
                self.warn(f"classifier {name}: unknown code point {rest[5]!r}", st.line)
                return
            prev = cl.entries.get(value)
            if prev is not None and prev[0] != fc:
                cl.conflicts.add(value)
                self.warn(
                    f"classifier {name}: code point {rest[5]} is assigned to forwarding classes {prev[0]} "
                    f"(line {prev[1]}) and {fc}; its class is unknown",
                    st.line,
                    "AMBIGUOUS",
                )
            cl.entries[value] = (fc, st.line, st.text)
        else:
            self.warn(f"classifier {name}: statement not understood: {st.text}", st.line)

    def _fc(self, st: Stmt) -> None:
        w = st.words
        if len(w) >= 4 and w[2] == "class":
            name = w[3]
            fc = self.fcs.setdefault(name, _Fc(st.line, st.text))
            rest = list(w[4:])
            i = 0
            while i < len(rest):
                tok = rest[i]
                if tok == "queue-num" and i + 1 < len(rest):
                    fc.queue = _int(rest[i + 1])
                    i += 2
                elif tok == "pfc-priority" and i + 1 < len(rest):
                    fc.pfc_priority = _int(rest[i + 1])
                    i += 2
                elif tok == "no-loss":
                    fc.no_loss = True
                    i += 1
                elif tok in ("priority", "policing-priority") and i + 1 < len(rest):
                    i += 2
                else:
                    i += 1
        elif len(w) >= 5 and w[2] == "queue":  # legacy form: forwarding-classes queue <q> <name>
            fc = self.fcs.setdefault(w[4], _Fc(st.line, st.text))
            fc.queue = _int(w[3])

    def _cnp(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        cnp = self.cnps.setdefault(name, _Cnp(st.line, st.text))
        rest = w[3:]
        if not rest:
            return
        if rest[0] == "pfc-watchdog":
            cnp.watchdog = True
            cnp.wd_line = cnp.wd_line or st.line
            cnp.wd_lines.append(st.line)
            opt = rest[1:]
            if len(opt) >= 2 and opt[0] == "watchdog-action":
                cnp.action = opt[1]
                return
            if len(opt) >= 2 and opt[0] in ("detection", "poll-interval", "recovery"):
                v = _int(opt[1])
                if v is None:
                    self.warn(f"CNP {name}: pfc-watchdog {opt[0]} {opt[1]!r} is not a number", st.line)
                elif opt[0] == "detection":
                    cnp.detection = v
                elif opt[0] == "poll-interval":
                    cnp.poll = v
                else:
                    cnp.recovery = v
            elif opt:
                self.warn(f"CNP {name}: pfc-watchdog option not understood: {' '.join(opt)}", st.line)
            return
        if rest[0] == "input" and len(rest) >= 2:
            if rest[1] == "cable-length":
                return
            if len(rest) >= 5 and rest[1] in ("dscp", "ieee-802.1") and rest[2] == "code-point":
                parse = parse_dscp if rest[1] == "dscp" else parse_pcp
                value = parse(rest[3])
                if value is None:
                    self.warn(f"CNP {name}: unknown code point {rest[3]!r}", st.line)
                    return
                if rest[4] == "pfc":
                    (cnp.in_dscp if rest[1] == "dscp" else cnp.in_pcp)[value] = (st.line, st.text)
                    return
        if rest[0] == "output" and len(rest) >= 6 and rest[1] == "ieee-802.1" and rest[2] == "code-point":
            value = parse_pcp(rest[3])
            if rest[4] == "flow-control-queue" and value is not None:
                q = _int(rest[5])
                if q is not None:
                    cnp.out.setdefault(value, []).append(q)
                    return
        self.warn(f"CNP {name}: statement not understood: {st.text}", st.line)

    def _drop_profile(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        dp = self.drop_profiles.setdefault(name, _DropProfile(st.line, st.text))
        dp.lines.append(st.line)
        rest = list(w[3:])
        if rest[:1] == ["interpolate"]:
            rest = rest[1:]
        i = 0
        while i + 1 < len(rest):
            key, val = rest[i], _num(rest[i + 1])
            if key == "fill-level" and val is not None:
                dp.fill.append(val)
            elif key == "drop-probability" and val is not None:
                dp.prob.append(val)
            else:
                self.warn(f"drop profile {name}: statement not understood: {st.text}", st.line)
                return
            i += 2

    def _scheduler(self, st: Stmt) -> None:
        w = st.words
        name = w[2]
        s = self.schedulers.setdefault(name, _Scheduler(st.line, st.text))
        s.lines.append(st.line)
        rest = w[3:]
        if not rest:
            return
        key = rest[0]
        if key == "priority" and len(rest) >= 2:
            s.priority = rest[1]
        elif key == "transmit-rate" and len(rest) >= 2:
            if rest[1] == "percent" and len(rest) >= 3 and _int(rest[2]) is not None:
                s.rate_percent = int(rest[2])
            elif rest[1] not in ("exact", "rate-limit"):
                s.rate_other = rest[1]
        elif key == "explicit-congestion-notification":
            s.ecn = True
        elif key == "drop-profile-map" and len(rest) >= 7:
            # drop-profile-map loss-priority <lp> protocol <proto> drop-profile <dp>
            kv = dict(zip(rest[1::2], rest[2::2], strict=False))
            if "loss-priority" in kv and "drop-profile" in kv:
                s.maps[kv["loss-priority"]] = kv["drop-profile"]
            else:
                self.warn(f"scheduler {name}: drop-profile-map not understood: {st.text}", st.line)
        elif key in ("ecn-enhanced",):
            self.warn(f"scheduler {name}: {' '.join(rest)} is not modelled (head marking)", st.line)

    def _cos_interface(self, st: Stmt) -> None:
        w = st.words
        target = w[2].lower()
        rest = list(w[3:])
        wildcard = "*" in target or target == "all"
        if rest and rest[0] == "unit" and len(rest) >= 2:
            rest = rest[2:]
        ifc = self.cos_if.setdefault(target, _IfCos())
        if len(rest) >= 2 and rest[0] == "congestion-notification-profile":
            ifc.cnp = _Binding(rest[1], st.line, st.text, wildcard)
        elif len(rest) >= 2 and rest[0] == "scheduler-map":
            ifc.sm = _Binding(rest[1], st.line, st.text, wildcard)
        elif len(rest) >= 3 and rest[0] == "classifiers":
            if rest[1] == "dscp":
                ifc.dscp = _Binding(rest[2], st.line, st.text, wildcard)
            elif rest[1] == "ieee-802.1":
                ifc.pcp = _Binding(rest[2], st.line, st.text, wildcard)
        elif rest and rest[0] in ("forwarding-class-set", "output-traffic-control-profile"):
            self.warn(f"{target}: {rest[0]} (ETS hierarchy) is not modelled", st.line)

    def _hash(self, st: Stmt) -> None:
        w = list(st.words[2:])
        if w[:1] == ["family"]:
            w = w[1:]
        if not w:
            return
        if w[0] == "hash-mode" and len(w) >= 2:
            self.hash_mode = (w[1], st.line)
            self.hash_lines.append(st.line)
        elif w[0] in ("inet", "inet6"):
            table = HASH_EXCLUDE_V4 if w[0] == "inet" else HASH_EXCLUDE_V6
            cur = self.hash_v4 if w[0] == "inet" else self.hash_v6
            cur = set() if cur is None else cur
            if len(w) >= 2:
                if w[1] in table:
                    cur.add(table[w[1]])
                elif w[1] != "vlan-id":
                    self.warn(f"enhanced-hash-key {w[0]} {w[1]} is not modelled", st.line)
            if w[0] == "inet":
                self.hash_v4 = cur
            else:
                self.hash_v6 = cur
            self.hash_lines.append(st.line)
        elif w[0] == "hash-seed":
            if len(w) >= 3 and w[1] == "seed-value" and _int(w[2]) is not None:
                self.hash_seed = (int(w[2]), st.line, st.text)
            elif len(w) > 1:
                self.warn(f"enhanced-hash-key {' '.join(w)} is not understood", st.line)
        elif w[0] in ("symmetric-hash", "symmetric", "hash-parameters"):
            self.warn(f"enhanced-hash-key {' '.join(w)} is not modelled", st.line)

    # ------------------------------------------------------------------ pass 2
    def resolve(self) -> None:
        s = self.state
        ports = set(self.ifds)
        explicit = {k for k in self.cos_if if not ("*" in k or k == "all")}
        for name in explicit:
            if _is_port(name):
                ports.add(name)
        # interface ranges -> mtu
        for rng, (mtu, line, text) in self.range_mtu.items():
            for m in self.ranges.get(rng, []):
                ports.add(m)
                self.mtu.setdefault(m, (mtu, line, text))
        effective: dict[str, _IfCos] = {p: _IfCos() for p in ports}
        # wildcards first, most general first, then explicit entries override per attribute
        wild = sorted((k for k in self.cos_if if k not in explicit), key=lambda k: (k != "all", k))
        for pattern in wild:
            matched = [p for p in ports if pattern == "all" or fnmatch.fnmatchcase(p, pattern)]
            if not matched:
                b = self.cos_if[pattern]
                line = next((x.line for x in (b.cnp, b.sm, b.dscp, b.pcp) if x), None)
                self.warn(
                    f"class-of-service interfaces {pattern} matches no configured interface", line, "UNUSED"
                )
            for p in matched:
                _merge(effective[p], self.cos_if[pattern])
        for name in explicit:
            if name in effective:
                _merge(effective[name], self.cos_if[name])

        dscp_maps: dict[str, dict[str, int]] = {}
        for name in sorted(effective, key=natural_key):
            eff = effective[name]
            itf = Interface()
            touched = False
            if name in self.mtu:
                mtu, line, text = self.mtu[name]
                itf.mtu = mtu
                s.at(f"interfaces.{name}.mtu", line, text)
                s.at(f"interfaces.{name}", line, text)
                touched = True
            if name in self.link_pause:
                val, line, text = self.link_pause[name]
                itf.link_pause = val
                s.at(f"interfaces.{name}.link_pause", line, text)
                touched = True
            port_map: dict[str, int] | None = None
            if eff.dscp is not None:
                port_map = self._dscp_map(eff.dscp, name)
                if port_map is not None:
                    itf.trust = "dscp"
                    dscp_maps[name] = port_map
                    s.at(f"interfaces.{name}.trust", eff.dscp.line, eff.dscp.text)
                    touched = True
            if eff.pcp is not None and itf.trust is None:
                cl = self.classifiers.get(("ieee-802.1", eff.pcp.value))
                if cl is None:
                    self.warn(
                        f"{name}: ieee-802.1 classifier {eff.pcp.value} is not defined",
                        eff.pcp.line,
                        "UNDEFINED",
                    )
                else:
                    cl.used = True
                    itf.trust = "pcp"
                    s.at(f"interfaces.{name}.trust", eff.pcp.line, eff.pcp.text)
                    touched = True
            if eff.cnp is not None:
                touched |= self._apply_cnp(name, itf, eff, port_map)
            if eff.sm is not None:
                touched |= self._apply_sm(name, itf, eff.sm)
            if touched:
                s.interfaces[name] = itf
                for b in (eff.cnp, eff.sm, eff.dscp, eff.pcp):
                    if b is not None:
                        s.at(f"interfaces.{name}", b.line, b.text)
        self._device_dscp(dscp_maps)
        self._watchdog(effective)
        self._ecmp()
        self._unused()

    def _dscp_map(self, b: _Binding, port: str) -> dict[str, int] | None:
        cl = self.classifiers.get(("dscp", b.value))
        if cl is None:
            self.warn(f"{port}: dscp classifier {b.value} is not defined", b.line, "UNDEFINED")
            return None
        cl.used = True
        out: dict[str, int] = {}
        for d, (fc, line, text) in sorted(cl.entries.items()):
            if d in cl.conflicts:
                continue
            tc = self._fc_queue(fc, line)
            if tc is not None:
                out[str(d)] = tc
                self.state.at(f"dscp_to_tc.{d}", line, text)
        return out

    def _fc_queue(self, fc: str, line: int | None) -> int | None:
        obj = self.fcs.get(fc)
        if obj is not None:
            obj.used = True
            if obj.queue is None:
                self.warn(f"forwarding class {fc} has no queue-num", obj.line)
            return obj.queue
        if fc in DEFAULT_FCS:
            return DEFAULT_FCS[fc]
        key = ("UNDEFINED", fc)
        if key not in self._warned:
            self._warned.add(key)
            self.warn(f"forwarding class {fc} is not defined", line, "UNDEFINED")
        return None

    def _apply_cnp(self, name: str, itf: Interface, eff: _IfCos, port_map: dict[str, int] | None) -> bool:
        s = self.state
        b = eff.cnp
        assert b is not None
        cnp = self.cnps.get(b.value)
        if cnp is None:
            self.warn(
                f"{name}: congestion-notification-profile {b.value} is not defined", b.line, "UNDEFINED"
            )
            return False
        cnp.used = True
        prios: set[int] = set()
        lines: list[int] = [b.line]
        for p, (line, _text) in cnp.in_pcp.items():
            prios.add(p)
            lines.append(line)
        cl = self.classifiers.get(("dscp", eff.dscp.value)) if eff.dscp else None
        for d, (line, _text) in sorted(cnp.in_dscp.items()):
            if cl is not None and d in cl.conflicts:
                continue  # the code point's class is unknown (warned where the classifier is read)
            entry = cl.entries.get(d) if cl else None
            if entry is None:
                self.warn(
                    f"{name}: CNP {b.value} enables PFC on DSCP {d} but the port's classifier does not map it",
                    line,
                )
                continue
            fc = self.fcs.get(entry[0])
            if fc is not None and fc.pfc_priority is not None:
                prio = fc.pfc_priority
                if fc.queue is not None and fc.queue != fc.pfc_priority:
                    key = ("PRIO", entry[0])
                    if key not in self._warned:
                        self._warned.add(key)
                        self.warn(
                            f"forwarding class {entry[0]}: pfc-priority {fc.pfc_priority} differs from queue-num "
                            f"{fc.queue}; roceconf assumes priority = traffic class = queue",
                            fc.line,
                        )
            else:
                prio = self._fc_queue(entry[0], entry[1])
                if prio is None:
                    continue
            prios.add(prio)
            lines.append(line)
        if cnp.watchdog:
            itf.pfc_watchdog = True
            s.at(f"interfaces.{name}.pfc_watchdog", [b.line, cnp.wd_line or b.line], b.text)
        if not prios:
            if not cnp.in_pcp and not cnp.in_dscp:
                self.warn(
                    f"{name}: CNP {b.value} enables no input PFC code point (it only sets how received "
                    "PFC pauses queues); PFC generation is not configured",
                    b.line,
                )
            return cnp.watchdog
        itf.pfc = Pfc(enabled=True, no_drop=sorted(prios))
        s.at(f"interfaces.{name}.pfc", sorted(set(lines)), b.text)
        for p in sorted(prios):
            fc_ok = any(
                f.no_loss and (f.pfc_priority == p or (f.pfc_priority is None and f.queue == p))
                for f in self.fcs.values()
            ) or p in (3, 4)  # default lossless classes fcoe (3) and no-loss (4)
            if not fc_ok:
                key = ("NOLOSS", str(p))
                if key not in self._warned:
                    self._warned.add(key)
                    self.warn(
                        f"PFC priority {p} has no no-loss forwarding class: traffic is not lossless", b.line
                    )
        return True

    def _apply_sm(self, name: str, itf: Interface, b: _Binding) -> bool:
        s = self.state
        if b.value not in self.smaps:
            self.warn(f"{name}: scheduler-map {b.value} is not defined", b.line, "UNDEFINED")
            return False
        self.smaps[b.value].used = True
        touched = False
        for fc, (sched_name, line, text) in self.smap_entries.get(b.value, {}).items():
            tc = self._fc_queue(fc, line)
            sch = self.schedulers.get(sched_name)
            if sch is None:
                self.warn(
                    f"scheduler-map {b.value}: scheduler {sched_name} is not defined", line, "UNDEFINED"
                )
                continue
            sch.used = True
            if tc is None:
                continue
            key = str(tc)
            mode: Any = None
            bw = None
            if sch.priority == "strict-high":
                mode = "strict"
            elif sch.priority in (None, "low"):
                if sch.rate_percent is not None:
                    mode, bw = "dwrr", sch.rate_percent
                elif sch.priority == "low":
                    mode = "dwrr"
                elif sch.rate_other is not None:
                    self.warn(
                        f"scheduler {sched_name}: transmit-rate {sch.rate_other} is not a percent", sch.line
                    )
            else:
                self.warn(f"scheduler {sched_name}: priority {sch.priority} is not modelled", sch.line)
            if mode is not None:
                itf.scheduling[key] = Sched(mode=mode, bandwidth_percent=bw)
                s.at(f"interfaces.{name}.scheduling.{key}", [line, *sch.lines], text)
                touched = True
            dp_name = sch.maps.get("any") or sch.maps.get("low")
            if dp_name is None and sch.maps:
                dp_name = next(iter(sch.maps.values()))
            if dp_name is None:
                if sch.ecn:
                    self.warn(f"scheduler {sched_name}: ECN enabled without a drop profile", sch.line)
                continue
            dp = self.drop_profiles.get(dp_name)
            if dp is None:
                self.warn(
                    f"scheduler {sched_name}: drop profile {dp_name} is not defined", sch.line, "UNDEFINED"
                )
                continue
            dp.used = True
            if not sch.ecn:
                self.warn(
                    f"scheduler {sched_name}: drop profile {dp_name} without explicit-congestion-notification "
                    "is WRED drop, not ECN marking",
                    sch.line,
                    "WRED",
                )
                continue
            ecn = _ecn_from_profile(dp)
            if ecn is None:
                self.warn(
                    f"drop profile {dp_name}: only a two-point curve starting at probability 0 is modelled",
                    dp.line,
                )
                continue
            itf.ecn[key] = ecn
            s.at(f"interfaces.{name}.ecn.{key}", sorted({line, *sch.lines, *dp.lines}), dp.text)
            touched = True
        return touched

    def _device_dscp(self, dscp_maps: dict[str, dict[str, int]]) -> None:
        if not dscp_maps:
            return
        counts = Counter(tuple(sorted(m.items())) for m in dscp_maps.values())
        best = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        self.state.dscp_to_tc = dict(best)
        for name, m in dscp_maps.items():
            if tuple(sorted(m.items())) != best:
                self.state.interfaces[name].dscp_to_tc = m

    def _watchdog(self, effective: dict[str, _IfCos]) -> None:
        s = self.state
        used = sorted(
            {
                e.cnp.value
                for e in effective.values()
                if e.cnp and e.cnp.value in self.cnps and self.cnps[e.cnp.value].watchdog
            }
        )
        if not used:
            return
        vals = []
        for name in used:
            c = self.cnps[name]
            vals.append((c.poll, c.detection, c.recovery))
        if len(set(vals)) > 1:
            self.warn(
                f"PFC watchdog timers differ between CNPs {', '.join(used)}; reporting those of {used[0]}",
                self.cnps[used[0]].wd_line,
            )
        c = self.cnps[used[0]]
        wd = s.pfc_watchdog
        wd.enabled = True
        s.at("pfc_watchdog.enabled", c.wd_line, c.text)
        poll = c.poll
        if poll is None:
            poll = WD_DEFAULT_POLL_MS
            s.defaults.append("pfc_watchdog.polling_ms")
        detection = c.detection
        if detection is None:
            detection = WD_DEFAULT_DETECTION
            s.defaults.append("pfc_watchdog.detection_ms")
        recovery = c.recovery
        if recovery is None:
            recovery = WD_DEFAULT_RECOVERY_MS
            s.defaults.append("pfc_watchdog.restoration_ms")
        wd.polling_ms = poll
        wd.detection_ms = detection * poll
        wd.restoration_ms = recovery
        wd.action = "drop"
        if c.action is None:
            s.defaults.append("pfc_watchdog.action")
        elif c.action != "drop":
            wd.action = None
            self.warn(f"CNP {used[0]}: pfc-watchdog watchdog-action {c.action} is not modelled", c.wd_line)
        for f in ("polling_ms", "detection_ms", "restoration_ms"):
            s.at(f"pfc_watchdog.{f}", c.wd_lines, c.text)

    def _ecmp(self) -> None:
        s = self.state
        if self.hash_seed is not None:
            s.ecmp.seed = self.hash_seed[0]
            s.at("ecmp.seed", self.hash_seed[1], self.hash_seed[2])
        if self.hash_mode is None and self.hash_v4 is None and self.hash_v6 is None:
            return
        line = self.hash_lines[0] if self.hash_lines else None
        if self.hash_mode is not None and self.hash_mode[0] == "layer2-header":
            self.warn(
                "enhanced-hash-key hash-mode layer2-header: IP/L4 fields are not hashed", self.hash_mode[1]
            )
            s.ecmp.fields = []
            s.at("ecmp.fields", self.hash_lines, "")
            return
        v4 = self.hash_v4 or set()
        v6 = self.hash_v6 if self.hash_v6 is not None else v4
        if v6 != v4:
            self.warn("enhanced-hash-key: IPv4 and IPv6 field exclusions differ; reporting IPv4", line)
        s.ecmp.fields = sorted(f for f in JUNOS_HASH_FIELDS if f not in v4)
        s.defaults.append("ecmp.fields")
        s.at("ecmp.fields", self.hash_lines, "")

    def _unused(self) -> None:
        for (kind, name), cl in self.classifiers.items():
            if not cl.used and kind != "dscp-ipv6":
                self.warn(
                    f"{kind} classifier {name} is defined but not applied to any interface", cl.line, "UNUSED"
                )
        unused = (
            (self.cnps, "congestion-notification-profile {} is defined but not applied"),
            (self.smaps, "scheduler-map {} is defined but not applied"),
            (self.schedulers, "scheduler {} is defined but not used by an applied scheduler-map"),
            (self.drop_profiles, "drop profile {} is defined but not used by an applied scheduler"),
        )
        for objects, message in unused:
            for name, o in objects.items():
                if not o.used:
                    self.warn(message.format(name), o.line, "UNUSED")


def _ecn_from_profile(dp: _DropProfile) -> Ecn | None:
    if len(dp.fill) != 2 or len(dp.prob) != 2 or dp.prob[0] != 0:
        return None
    lo, hi = dp.fill
    return Ecn(min_percent=int(round(lo)), max_percent=int(round(hi)), probability=int(round(dp.prob[1])))


def _merge(dst: _IfCos, src: _IfCos) -> None:
    for f in ("cnp", "sm", "dscp", "pcp"):
        v = getattr(src, f)
        if v is not None:
            setattr(dst, f, v)


def _is_port(name: str) -> bool:
    n = name.lower()
    if n.startswith(_NOT_PORT):
        return False
    return bool(_PORT_RE.match(n)) or bool(re.fullmatch(r"ae\d+", n))


def _member_range(a: str, b: str) -> list[str]:
    ma, mb = re.match(r"^(.*?)(\d+)$", a), re.match(r"^(.*?)(\d+)$", b)
    if not ma or not mb or ma.group(1) != mb.group(1):
        return [a, b]
    lo, hi = int(ma.group(2)), int(mb.group(2))
    if hi < lo or hi - lo > 4096:
        return [a, b]
    return [f"{ma.group(1)}{i}" for i in range(lo, hi + 1)]


#: the ``set`` line that names the device, with a name the statement splitter reads as it stands
_HOST_NAME_LINE = re.compile(r"set system host-name ([A-Za-z0-9._-]+)")


def _host_name_of(line: str) -> str | None:
    m = _HOST_NAME_LINE.fullmatch(line.strip())
    return m.group(1) if m else None


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse`` sharing one parse between ``set`` configs that differ only by their ``set system host-name``
    line (``base.parse_shared_by_line``)."""
    return parse_shared_by_line(parse, text, memo, lambda lines, i: _host_name_of(lines[i]))


def parse(text: str) -> DeviceState:
    """Parse Junos configuration (display set or hierarchical) into a DeviceState. Never raises."""
    try:
        p = _Parser(text)
        stmts, deactivated = flatten(text)
        if deactivated:
            keep = []
            for st in stmts:
                if any(st.words[: len(path)] == path for path, _ in deactivated):
                    continue
                keep.append(st)
            stmts = keep
        p.collect(stmts)
        p.resolve()
        return p.state
    except Exception as exc:  # noqa: BLE001 - a parser must never raise
        state = DeviceState(platform="junos")
        state.warn(f"internal parser error: {type(exc).__name__}: {exc}", None, "INTERNAL")
        return state
