"""Cisco NX-OS: config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from roceconf.names import RangeError, natural_key
from roceconf.platforms.nxos.syntax import (
    _ROCE_WORDS,
    _UNITS,
    WD_INTERVAL_DEFAULT_MS,
    WD_TIMERS,
    _attach,
    _ClassMap,
    _dscp_values,
    _int,
    _is_port,
    _Itf,
    _Node,
    _NqClass,
    _Policy,
    _QosClass,
    _QueueClass,
    _system_class_group,
    _tree,
    expand_interface_spec,
)
from roceconf.state import DeviceState, Ecn, Interface, Sched
from roceconf.units import expand_ints


# --------------------------------------------------------------------------- parser
class _Parser:
    def __init__(self, state: DeviceState) -> None:
        self.s = state
        self.cmaps: dict[str, _ClassMap] = {}
        self.cmap_kind: dict[str, str] = {}
        self.policies: dict[tuple[str, str], _Policy] = {}
        self.system: dict[str, tuple[str, int, str]] = {}
        self.itfs: dict[str, _Itf] = {}
        self.global_wd: tuple[bool, int, str] | None = None
        #: watchdog timer lines (WD_TIMERS): state field -> (value as written, line, text)
        self.wd_timers: dict[str, tuple[int, int, str]] = {}
        #: smallest class MTU of the attached network-qos policy (value, lines, text)
        self.nq_mtu: tuple[int, list[int], str] | None = None
        self.used_cmaps: set[tuple[str, str]] = set()
        self.used_policies: set[tuple[str, str]] = set()
        self.undefined_seen: set[tuple[str, str]] = set()

    # ------------------------------------------------------------ helpers
    def unknown(self, node: _Node, where: str = "") -> None:
        if _ROCE_WORDS.search(node.text):
            ctx = f" in {where}" if where else ""
            self.s.warn(f"unrecognised RoCE-relevant line{ctx}: {node.text!r}", node.line)

    def undefined(self, kind: str, name: str, node: _Node) -> None:
        if (kind, name) in self.undefined_seen:
            return
        self.undefined_seen.add((kind, name))
        self.s.warn(f"{kind} {name!r} is referenced but not defined", node.line, code="UNDEFINED")

    # ------------------------------------------------------------ pass 1: collect
    def collect(self, nodes: list[_Node]) -> None:
        for node in nodes:
            try:
                self.top(node)
            except Exception as exc:  # noqa: BLE001 - never raise: one bad block is one warning
                self.s.warn(f"could not read {node.text!r}: {exc}", node.line)

    def top(self, node: _Node) -> None:
        w, lw = node.words, node.low
        if lw[0] in ("hostname", "switchname") and len(w) == 2:
            self.s.hostname = w[1]
            self.s.at("hostname", node.line, node.text)
        elif lw[:2] == ["class-map", "type"] and len(w) >= 4:
            self.class_map(node)
        elif lw[:2] == ["policy-map", "type"] and len(w) == 4:
            self.policy_map(node)
        elif lw == ["system", "qos"]:
            self.system_qos(node)
        elif lw[0] == "interface" and len(w) >= 2:
            self.interface(node)
        elif (
            lw[:2] == ["priority-flow-control", "watch-dog-interval"]
            and len(lw) == 3
            and lw[2] in ("on", "off")
        ):
            self.global_wd = (lw[2] == "on", node.line, node.text)
        elif len(lw) == 4 and lw[0] == "priority-flow-control" and (lw[1], lw[2]) in WD_TIMERS:
            self.wd_timer(node, lw)
        elif lw[:2] == ["priority-flow-control", "watch-dog-interval"] or lw[:2] in (
            ["priority-flow-control", "watch-dog"],
            ["priority-flow-control", "auto-restore"],
            ["priority-flow-control", "fixed-restore"],
        ):
            self.s.warn(
                f"PFC watchdog timer/multiplier not modelled by roceconf for nxos: {node.text!r}",
                node.line,
                code="UNSUPPORTED",
            )
        elif lw[:2] == ["ip", "load-sharing"]:
            self.load_sharing(node)
        elif lw[0] in ("feature", "version", "vlan", "vrf", "router", "line", "boot", "snmp-server", "ntp"):
            return
        else:
            self.unknown(node)

    def class_map(self, node: _Node) -> None:
        w, lw = node.words, node.low
        kind = lw[2]
        rest = w[3:]
        match_all = False
        if rest and rest[0].lower() in ("match-any", "match-all"):
            match_all = rest[0].lower() == "match-all"
            rest = rest[1:]
        if len(rest) != 1 or kind not in ("qos", "network-qos", "queuing"):
            if kind in ("qos", "network-qos", "queuing"):
                self.unknown(node)
            return
        cm = _ClassMap(rest[0], node.line, match_all)
        for ch in node.children:
            cl = ch.low
            if cl[:2] == ["match", "dscp"] and len(cl) >= 3:
                cm.dscp.append((_dscp_values(ch.low[2:]), ch.line, ch.text))
                cm.n_matches += 1
            elif cl[:2] == ["match", "cos"] and len(cl) >= 3:
                cm.cos.append((expand_ints(" ".join(ch.words[2:])), ch.line, ch.text))
                cm.n_matches += 1
            elif cl[:2] == ["match", "qos-group"] and len(cl) == 3 and cl[2].isdigit():
                cm.group = int(cl[2])
                cm.n_matches += 1
            elif cl and cl[0] == "match":
                cm.n_matches += 1
                self.s.warn(f"class-map {cm.name}: match criterion not modelled: {ch.text!r}", ch.line)
            else:
                self.unknown(ch, f"class-map {cm.name}")
        self.cmaps[f"{kind}:{cm.name}"] = cm
        self.cmap_kind[cm.name] = kind

    def policy_map(self, node: _Node) -> None:
        w, lw = node.words, node.low
        kind, name = lw[2], w[3]
        if kind not in ("qos", "network-qos", "queuing"):
            self.unknown(node)
            return
        pol = _Policy(kind, name, node.line)
        for ch in node.children:
            cl = ch.low
            if not cl or cl[0] != "class":
                self.unknown(ch, f"policy-map {name}")
                continue
            cname = ch.words[-1]
            if kind == "qos":
                self.used_cmaps.add(("qos", cname))
                cls: Any = _QosClass(cname, ch.line)
                read, where = self.qos_line, f"class {cname}"
            elif kind == "network-qos":
                cls, read, where = _NqClass(cname, ch.line), self.nq_line, f"network-qos class {cname}"
            else:
                cls, read, where = _QueueClass(cname, ch.line), self.queue_line, f"queuing class {cname}"
            for line in ch.children:
                if not read(cls, line, line.low):
                    self.unknown(line, where)
            pol.classes.append(cls)
        self.policies[(kind, name)] = pol

    # each line of a policy-map class: True when it is read (a line nobody reads is reported when RoCE-relevant)
    def qos_line(self, qc: _QosClass, ch: _Node, cl: list[str]) -> bool:
        if cl[:2] == ["set", "qos-group"] and len(cl) == 3 and cl[2].isdigit():
            qc.group, qc.group_line, qc.group_text = int(cl[2]), ch.line, ch.text
            return True
        return False

    def nq_line(self, nc: _NqClass, ch: _Node, cl: list[str]) -> bool:
        if cl and cl[0] == "pause" and "pfc-cos" in cl:
            vals = cl[cl.index("pfc-cos") + 1 :]
            nc.pfc_cos.extend(expand_ints(" ".join(vals)))
        elif cl[:2] == ["pause", "no-drop"]:
            nc.no_drop_class = True  # the class's own priority (older NX-OS form)
        elif cl and cl[0] == "mtu" and len(cl) == 2 and cl[1].isdigit():
            nc.mtu = (int(cl[1]), ch.line, ch.text)
            return True
        else:
            return bool(cl) and cl[0] in ("congestion-control", "set")  # marking: no roceconf field
        nc.lines.append(ch.line)
        nc.text = ch.text
        return True

    def queue_line(self, qc: _QueueClass, ch: _Node, cl: list[str]) -> bool:
        if cl and cl[0] == "priority":
            qc.sched = Sched(mode="strict")
            qc.sched_lines.append(ch.line)
            qc.sched_text = ch.text
        elif cl and cl[0] == "bandwidth" and len(cl) >= 3 and cl[-2] == "percent" and cl[-1].isdigit():
            if qc.sched is None or qc.sched.mode != "strict":
                # 'bandwidth remaining percent 0' is a queue the intent does not use: round robin with no
                # weight of its own (intent weights are 1-100), never strict priority
                pct = int(cl[-1])
                qc.sched = Sched(mode="dwrr", bandwidth_percent=pct or None)
                qc.sched_text = ch.text
            qc.sched_lines.append(ch.line)
        elif cl and cl[0] == "random-detect":
            self.random_detect(qc, ch)
        else:
            return False
        return True

    def random_detect(self, qc: _QueueClass, node: _Node) -> None:
        cl = node.low
        if "ecn" not in cl:
            self.s.warn(
                f"queuing class {qc.cls}: WRED drop without the 'ecn' keyword is not ECN marking: "
                f"{node.text!r}",
                node.line,
                code="WRED",
            )
            return

        def size(keyword: str) -> int | None:
            if keyword not in cl:
                return None
            i = cl.index(keyword)
            value = _int(cl[i + 1]) if i + 1 < len(cl) else None
            unit = cl[i + 2] if i + 2 < len(cl) else ""
            if value is None:
                return None
            if unit not in _UNITS:
                self.s.warn(f"queuing class {qc.cls}: threshold unit {unit!r} is not bytes", node.line)
                return None
            return value * _UNITS[unit]

        prob = None
        if "drop-probability" in cl:
            i = cl.index("drop-probability")
            prob = _int(cl[i + 1]) if i + 1 < len(cl) else None
        ecn = Ecn(min_bytes=size("minimum-threshold"), max_bytes=size("maximum-threshold"), probability=prob)
        if ecn.min_bytes is None and "minimum-threshold" not in cl:
            self.s.warn(
                f"queuing class {qc.cls}: ECN without explicit thresholds (platform-chosen): {node.text!r}",
                node.line,
                code="UNSUPPORTED",
            )
        qc.ecn, qc.ecn_lines, qc.ecn_text = ecn, [node.line], node.text

    def system_qos(self, node: _Node) -> None:
        for ch in node.children:
            cl, w = ch.low, ch.words
            if cl[:3] == ["service-policy", "type", "network-qos"] and len(w) == 4:
                self.system["network-qos"] = (w[3], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "output"):
                self.system["queuing"] = (w[4], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "qos"] and _attach(cl, "input"):
                self.system["qos"] = (w[4], ch.line, ch.text)
            elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "input"):
                self.used_policies.add(("queuing", w[4]))  # ingress queuing: no roceconf field
            else:
                self.unknown(ch, "system qos")

    def interface(self, node: _Node) -> None:
        spec = node.text.split(None, 1)[1]
        try:
            names = expand_interface_spec(spec)
        except (RangeError, ValueError) as exc:
            self.s.warn(f"cannot expand interface list {spec!r}: {exc}", node.line)
            return
        for name in names:
            itf = self.itfs.setdefault(name, _Itf(name))
            itf.lines.append(node.line)
            for ch in node.children:
                self.interface_line(itf, ch)

    def interface_line(self, itf: _Itf, node: _Node) -> None:
        cl, w = node.low, node.words
        if cl[0] == "description":
            return  # free text
        if cl[0] == "mtu" and len(cl) == 2 and cl[1].isdigit():
            itf.set("mtu", int(cl[1]), node)
        elif cl[:2] == ["priority-flow-control", "mode"] and len(cl) >= 3:
            mode = cl[2]
            if mode in ("on", "off"):
                itf.set("pfc", mode == "on", node)
            elif mode == "auto":
                itf.set("pfc", None, node)
                self.s.warn(
                    f"{itf.name}: 'priority-flow-control mode auto' depends on DCBX negotiation; "
                    "PFC state is unknown",
                    node.line,
                )
            else:
                self.unknown(node, f"interface {itf.name}")
        elif (
            cl[:2] == ["priority-flow-control", "watch-dog-interval"]
            and len(cl) == 3
            and cl[2] in ("on", "off")
        ):
            itf.set("wd", cl[2] == "on", node)
        elif cl[:3] == ["service-policy", "type", "qos"] and _attach(cl, "input"):
            itf.set("qos", w[4], node)
        elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "output"):
            itf.set("queuing", w[4], node)
        elif cl[:3] == ["service-policy", "type", "queuing"] and _attach(cl, "input"):
            self.used_policies.add(("queuing", w[4]))  # ingress queuing: no roceconf field
        elif (
            cl[0] == "flowcontrol"
            and len(cl) == 3
            and cl[1] in ("receive", "send")
            and cl[2] in ("on", "off")
        ):
            itf.set(f"fc_{cl[1]}", cl[2] == "on", node)
        elif cl[0] == "channel-group" and len(cl) >= 2 and cl[1].isdigit():
            itf.set("channel_group", int(cl[1]), node)
        elif cl[0] == "shutdown" or cl[:2] == ["no", "shutdown"]:
            return
        else:
            self.unknown(node, f"interface {itf.name}")

    def wd_timer(self, node: Any, lw: list[str]) -> None:
        """``priority-flow-control watch-dog interval|shutdown-multiplier <n>`` / ``auto-restore multiplier
        <n>`` (WD_TIMERS, with the ranges the switch takes)."""
        field, lo, hi = WD_TIMERS[(lw[1], lw[2])]
        if not lw[3].isdigit() or not lo <= int(lw[3]) <= hi:
            self.s.warn(f"PFC watchdog {lw[1]} {lw[2]}: {lw[3]!r} is not in {lo}-{hi}", node.line)
            return
        self.wd_timers[field] = (int(lw[3]), node.line, node.text)

    def load_sharing(self, node: _Node) -> None:
        lw = node.low[2:]
        ip_fields = {
            "source": ["src_ip"],
            "destination": ["dst_ip"],
            "source-destination": ["src_ip", "dst_ip"],
        }
        port_fields = {
            "source": ["src_port"],
            "destination": ["dst_port"],
            "source-destination": ["src_port", "dst_port"],
        }
        fields: list[str] = []
        seed = None
        symmetric = False
        i = 0
        ok = bool(lw) and lw[0] == "address"
        while ok and i < len(lw):
            tok = lw[i]
            nxt = lw[i + 1] if i + 1 < len(lw) else ""
            if tok == "address" and nxt in ip_fields:
                fields += ip_fields[nxt]
                i += 2
            elif tok == "port" and nxt in port_fields:
                fields += port_fields[nxt]
                i += 2
            elif tok == "universal-id" and nxt.isdigit():
                seed = int(nxt)
                i += 2
            elif tok == "rotate" and nxt.isdigit():
                i += 2  # hash bit rotation: no roceconf field
            elif tok == "symmetric":
                symmetric = True
                i += 1
            elif tok in ("concatenation", "gre-outer"):
                i += 1
            else:
                self.s.warn(f"ip load-sharing option not modelled: {tok!r} in {node.text!r}", node.line)
                i += 1
        if not ok:
            self.unknown(node)
            return
        self.s.ecmp.fields = sorted(set(fields))  # type: ignore[assignment]
        self.s.ecmp.seed = seed
        self.s.ecmp.symmetric = symmetric
        for path in ("ecmp.fields", "ecmp.seed", "ecmp.symmetric"):
            self.s.at(path, node.line, node.text)

    # ------------------------------------------------------------ pass 2: resolve
    def policy(self, kind: str, name: str, node_line: int) -> _Policy | None:
        pol = self.policies.get((kind, name))
        self.used_policies.add((kind, name))
        if pol is None:
            self.undefined(f"policy-map type {kind}", name, _Node(name, node_line, 0))
        return pol

    def qos_map(self, pol: _Policy) -> tuple[dict[str, tuple[int, list[int], str]], str | None]:
        """policy-map type qos -> ({dscp: (tc, lines, text)}, trust)."""
        out: dict[str, tuple[int, list[int], str]] = {}
        has_dscp = has_cos = False
        for qc in pol.classes:
            if qc.cmap.lower() == "class-default":
                continue
            cm = self.cmaps.get(f"qos:{qc.cmap}")
            self.used_cmaps.add(("qos", qc.cmap))
            if cm is None:
                self.undefined("class-map type qos", qc.cmap, _Node(qc.cmap, qc.line, 0))
                continue
            has_dscp = has_dscp or bool(cm.dscp)
            has_cos = has_cos or bool(cm.cos)
            if cm.match_all and cm.n_matches > 1:
                self.s.warn(
                    f"class-map {cm.name} is match-all with {cm.n_matches} match lines; not modelled",
                    cm.line,
                )
                continue
            if qc.group is None:
                continue
            for values, line, text in cm.dscp:
                for d in values:
                    if 0 <= d <= 63 and str(d) not in out:
                        out[str(d)] = (qc.group, [line, qc.group_line or qc.line], text)
        trust = "dscp" if has_dscp else ("pcp" if has_cos else "none")
        return out, trust

    def resolve(self) -> None:
        s = self.s
        # network-qos: no-drop priorities (global)
        no_drop: list[int] | None = None
        nd_lines: list[int] = []
        nd_text = ""
        if "network-qos" in self.system:
            name, line, text = self.system["network-qos"]
            pol = self.policy("network-qos", name, line)
            if pol is not None:
                vals: set[int] = set()
                nd_lines = [line]
                for nc in pol.classes:
                    group = self.class_group("network-qos", nc.cls, nc.line)
                    if nc.no_drop_class and not nc.pfc_cos and group is not None:
                        vals.add(group)
                    for cos in nc.pfc_cos:
                        if group is not None and cos != group:
                            s.warn(
                                f"network-qos class {nc.cls} (qos-group {group}) pauses CoS {cos}: "
                                "priority and traffic class differ",
                                nc.line,
                            )
                        vals.add(cos)
                    nd_lines += nc.lines
                    nd_text = nd_text or nc.text
                no_drop = sorted(v for v in vals if 0 <= v <= 7)
                # class MTUs: a port carries every class, so the smallest class MTU bounds its frames
                # (Cisco N9K QoS guide, "Configuring Network QoS Policies": mtu per network-qos class)
                mtus = [nc.mtu for nc in pol.classes if nc.mtu is not None]
                if mtus:
                    low = min(m[0] for m in mtus)
                    lows = [m for m in mtus if m[0] == low]
                    self.nq_mtu = (low, [m[1] for m in lows], lows[0][2])

        # per-port resolution
        port_maps: dict[str, tuple[str, dict[str, tuple[int, list[int], str]]]] = {}
        for name in sorted(self.itfs, key=natural_key):
            itf = self.itfs[name]
            if not _is_port(name):
                # attachments on other interfaces (SVIs ...) still count as use
                for key, kind in (("qos", "qos"), ("queuing", "queuing")):
                    if key in itf.settings:
                        self.used_policies.add((kind, itf.settings[key][0]))
                continue
            self.port(itf, no_drop, nd_lines, nd_text, port_maps)

        # system-level attachments count as use even when the config lists no port
        for kind in ("qos", "queuing"):
            if kind in self.system:
                sys_pol = self.policy(kind, self.system[kind][0], self.system[kind][1])
                if kind == "qos" and sys_pol is not None and not port_maps:
                    sys_map = self.qos_map(sys_pol)[0]
                    if sys_map:
                        port_maps["system qos"] = (sys_pol.name, sys_map)

        # device DSCP map: the classification policy attached to most ports
        if port_maps:
            counts = Counter(pname for pname, _ in port_maps.values())
            best = max(counts, key=lambda p: counts[p])  # ties: the first attached in port order
            if len(counts) > 1:
                s.warn(
                    "interfaces attach different type qos policies ("
                    + ", ".join(f"{p}: {counts[p]} ports" for p in sorted(counts))
                    + f"); the device DSCP map is taken from {best!r}",
                    None,
                )
            best_map = next(m for pn, m in port_maps.values() if pn == best)
            for d in sorted(best_map, key=int):
                tc, lines, text = best_map[d]
                s.dscp_to_tc[d] = tc
                s.at(f"dscp_to_tc.{d}", lines, text)
            device = {d: v[0] for d, v in best_map.items()}
            for pname_port, (_pname, m) in port_maps.items():
                own = {d: v[0] for d, v in m.items()}
                if own != device and pname_port in s.interfaces:
                    s.interfaces[pname_port].dscp_to_tc = dict(sorted(own.items(), key=lambda kv: int(kv[0])))

        # network-qos class MTU: its own fact (an interface's 'mtu' is the port's), the smallest class MTU
        if self.nq_mtu is not None:
            s.class_mtu = self.nq_mtu[0]
            s.at("class_mtu", self.nq_mtu[1], self.nq_mtu[2])
        # watchdog timers (global): polling = interval, detection / restoration = multiplier x interval
        interval = self.wd_timers.get("polling_ms", (WD_INTERVAL_DEFAULT_MS,))[0]
        for field, (value, line, text) in self.wd_timers.items():
            setattr(s.pfc_watchdog, field, value if field == "polling_ms" else value * interval)
            lines = [line] + (
                [self.wd_timers["polling_ms"][1]]
                if field != "polling_ms" and "polling_ms" in self.wd_timers
                else []
            )
            s.at(f"pfc_watchdog.{field}", lines, text)
        # watchdog (global)
        if self.global_wd is not None:
            s.pfc_watchdog.enabled = self.global_wd[0]
            s.at("pfc_watchdog.enabled", self.global_wd[1], self.global_wd[2])
            if self.global_wd[0]:
                # Cisco N9K QoS guide, "About Priority Flow Control Watchdog": when the interval is
                # exceeded "all outgoing packets are dropped" on the stuck no-drop queue
                s.pfc_watchdog.action = "drop"
                s.defaults.append("pfc_watchdog.action")

        # unused objects
        for (kind, name), pol in self.policies.items():
            if (kind, name) not in self.used_policies:
                s.warn(
                    f"policy-map type {kind} {name!r} is defined but not attached", pol.line, code="UNUSED"
                )
        for key, cm in self.cmaps.items():
            kind = key.split(":", 1)[0]
            if kind == "qos" and ("qos", cm.name) not in self.used_cmaps:
                s.warn(f"class-map type qos {cm.name!r} is defined but not used", cm.line, code="UNUSED")

        # per-port resolution repeats global findings: keep each warning once
        seen: set[tuple[int | None, str, str]] = set()
        unique = []
        for w in s.warnings:
            key = (w.line, w.message, w.code)
            if key not in seen:
                seen.add(key)
                unique.append(w)
        s.warnings = unique

    def class_group(self, kind: str, cls: str, line: int) -> int | None:
        group = _system_class_group(cls)
        if group is not None:
            return group
        cm = self.cmaps.get(f"{kind}:{cls}")
        if cm is None:
            self.undefined(f"class-map type {kind}", cls, _Node(cls, line, 0))
            return None
        if cm.group is None:
            self.s.warn(f"class-map type {kind} {cls!r} does not match a qos-group", cm.line)
        return cm.group

    def port(
        self,
        itf: _Itf,
        no_drop: list[int] | None,
        nd_lines: list[int],
        nd_text: str,
        port_maps: dict[str, tuple[str, dict[str, tuple[int, list[int], str]]]],
    ) -> None:
        s, st, name = self.s, itf.settings, itf.name
        out = Interface()
        path = f"interfaces.{name}"
        parent: _Itf | None = None
        if "channel_group" in st:
            parent = self.itfs.get(f"port-channel{st['channel_group'][0]}")

        def inherited(key: str) -> tuple[Any, int, str] | None:
            if key in st:
                return st[key]
            if parent is not None and key in parent.settings:
                return parent.settings[key]
            return None

        if "mtu" in st:
            out.mtu = st["mtu"][0]
            s.at(f"{path}.mtu", st["mtu"][1], st["mtu"][2])
        pfc_lines: list[int] = []
        if "pfc" in st:
            out.pfc.enabled = st["pfc"][0]
            pfc_lines.append(st["pfc"][1])
        if no_drop is not None:
            out.pfc.no_drop = list(no_drop)
            pfc_lines += nd_lines
        if pfc_lines:
            s.at(f"{path}.pfc", pfc_lines, st["pfc"][2] if "pfc" in st else nd_text)
        if "wd" in st:
            out.pfc_watchdog = st["wd"][0]
            s.at(f"{path}.pfc_watchdog", st["wd"][1], st["wd"][2])
        elif self.global_wd is not None:
            out.pfc_watchdog = self.global_wd[0]
            s.at(f"{path}.pfc_watchdog", self.global_wd[1], self.global_wd[2])
        rx, tx = st.get("fc_receive"), st.get("fc_send")
        if (rx and rx[0]) or (tx and tx[0]):
            out.link_pause = True
        elif rx and tx:
            out.link_pause = False
        if rx or tx:
            s.at(f"{path}.link_pause", [x[1] for x in (rx, tx) if x], (rx or tx)[2])  # type: ignore[index]

        # classification
        qos = inherited("qos") or self.system.get("qos")
        if qos is not None:
            pol = self.policy("qos", qos[0], qos[1])
            if pol is not None:
                m, trust = self.qos_map(pol)
                out.trust = trust  # type: ignore[assignment]
                s.at(f"{path}.trust", qos[1], qos[2])
                if m:
                    port_maps[name] = (pol.name, m)

        # egress queuing
        queuing = inherited("queuing") or self.system.get("queuing")
        if queuing is not None:
            pol = self.policy("queuing", queuing[0], queuing[1])
            if pol is not None:
                for qc in pol.classes:
                    tc = self.class_group("queuing", qc.cls, qc.line)
                    if tc is None:
                        continue
                    if qc.ecn is not None:
                        out.ecn[str(tc)] = qc.ecn.model_copy()
                        s.at(f"{path}.ecn.{tc}", qc.ecn_lines, qc.ecn_text)
                    if qc.sched is not None:
                        out.scheduling[str(tc)] = qc.sched.model_copy()
                        s.at(f"{path}.scheduling.{tc}", qc.sched_lines, qc.sched_text)
                out.ecn = dict(sorted(out.ecn.items()))
                out.scheduling = dict(sorted(out.scheduling.items()))

        if out != Interface():
            s.interfaces[name] = out
            s.at(path, itf.lines, f"interface {name}")


def parse(text: str) -> DeviceState:
    """Parse an NX-OS running-config (``show running-config``) into a DeviceState. Never raises."""
    state = DeviceState(platform="nxos")
    try:
        if not isinstance(text, str):
            text = str(text)
        parser = _Parser(state)
        parser.collect(_tree(text))
        parser.resolve()
    except Exception as exc:  # noqa: BLE001 - a parser never raises
        state.warn(f"internal parser error: {exc!r}", code="INTERNAL")
    return state
