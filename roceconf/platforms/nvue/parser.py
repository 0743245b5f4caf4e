"""NVIDIA Cumulus Linux (NVUE): config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.base import parse_shared_by_line
from roceconf.platforms.nvue.roce import ROCE_ECN, ROCE_NO_DROP, ROCE_SCHED, ROCE_SP_TC, ROCE_TRUST
from roceconf.platforms.nvue.syntax import (
    _ROCEISH,
    _SWP,
    CC_UNMODELLED,
    DEFAULT_POLLING_MS,
    DEFAULT_PROFILE,
    HASH_MAP,
    IFACE_QOS_UNMODELLED,
    KINDS,
    MAPPING_UNMODELLED,
    PFC_UNMODELLED,
    QOS_KNOWN_UNMODELLED,
    TRUST_IN,
    Leaf,
    Node,
    _bool,
    _bytes,
    _expand_names,
    _ids,
    _int,
    _lines_of,
    _merge,
    _node,
    _text_of,
    load_tree,
)
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched
from roceconf.units import parse_time_ms


# ----------------------------------------------------------------------------- profile readers
@dataclass
class _Profile:
    name: str
    node: Node
    line: int | None
    used: bool = False


@dataclass
class _Mapping:
    trust: str | None = None
    trust_src: list[int] = field(default_factory=list)
    dscp: dict[int, int] = field(default_factory=dict)  # dscp -> switch priority
    dscp_src: dict[int, Leaf] = field(default_factory=dict)


def _read_mapping(p: _Profile, st: DeviceState) -> _Mapping:
    m = _Mapping()
    for key, val in p.node.items():
        if key == "trust":
            t = str(val.value).strip().lower() if isinstance(val, Leaf) else ""
            if t in TRUST_IN:
                m.trust = TRUST_IN[t]
                m.trust_src = _lines_of(val)
            else:
                st.warn(f"qos mapping {p.name}: unknown trust {getattr(val, 'value', val)!r}", _line(val, p))
        elif key == "dscp":
            for d, sub in _ids(val, st, f"qos mapping {p.name} dscp", 63).items():
                sp = _int(_node(sub).get("switch-priority"), st, f"dscp {d} switch-priority", 0, 7)
                if sp is not None:
                    m.dscp[d] = sp
                    m.dscp_src[d] = _node(sub).get("switch-priority")
        elif key not in MAPPING_UNMODELLED:
            st.warn(f"qos mapping {p.name}: unrecognised setting {key!r}", _line(val, p))
    return m


@dataclass
class _PfcProf:
    no_drop: list[int] | None = None
    tx: bool | None = None
    rx: bool | None = None
    src: list[int] = field(default_factory=list)
    text: str = ""


def _read_pfc(p: _Profile, st: DeviceState) -> _PfcProf:
    out = _PfcProf(text=p.node.text)
    for key, val in p.node.items():
        if key == "switch-priority":
            out.no_drop = sorted(_ids(val, st, f"qos pfc {p.name} switch-priority", 7))
            out.src += _lines_of(val, *(val.values() if isinstance(val, Node) else []))
        elif key in ("tx", "rx"):
            setattr(out, key, _bool(val, st, f"qos pfc {p.name} {key}"))
            out.src += _lines_of(val)
        elif key not in PFC_UNMODELLED:
            st.warn(f"qos pfc {p.name}: unrecognised setting {key!r}", _line(val, p))
    return out


def _read_cc(p: _Profile, st: DeviceState) -> dict[int, tuple[Ecn | None, list[int], bool]]:
    """tc -> (Ecn or None when the entry is not ECN marking, source lines, ecn-by-default)."""
    out: dict[int, tuple[Ecn | None, list[int], bool]] = {}
    for key, val in p.node.items():
        if key != "traffic-class":
            if key not in CC_UNMODELLED:
                st.warn(f"qos congestion-control {p.name}: unrecognised setting {key!r}", _line(val, p))
            continue
        for tc, sub in _ids(val, st, f"qos congestion-control {p.name} traffic-class", 7).items():
            sub = _node(sub)
            e = Ecn()
            ecn_on: bool | None = None
            for k, v in sub.items():
                if k == "ecn":
                    ecn_on = _bool(v, st, f"traffic-class {tc} ecn")
                elif k in ("min-threshold", "min-threshold-bytes"):
                    e.min_bytes = _bytes(v, st, f"traffic-class {tc} {k}")
                elif k in ("max-threshold", "max-threshold-bytes"):
                    e.max_bytes = _bytes(v, st, f"traffic-class {tc} {k}")
                elif k == "probability":
                    e.probability = _int(v, st, f"traffic-class {tc} probability", 0, 100)
                elif k not in CC_UNMODELLED:
                    st.warn(f"traffic-class {tc}: unrecognised setting {k!r}", _line(v, p))
            lines = _lines_of(sub, *sub.values())
            if ecn_on is False:
                out[tc] = (None, lines, False)  # RED/WRED drop only: not ECN marking
            else:
                out[tc] = (e, lines, ecn_on is None)
    return out


def _read_sched(p: _Profile, st: DeviceState) -> dict[int, tuple[Sched, list[int]]]:
    out: dict[int, tuple[Sched, list[int]]] = {}
    for key, val in p.node.items():
        if key != "traffic-class":
            st.warn(f"qos egress-scheduler {p.name}: unrecognised setting {key!r}", _line(val, p))
            continue
        for tc, sub in _ids(val, st, f"qos egress-scheduler {p.name} traffic-class", 7).items():
            sub = _node(sub)
            s = Sched()
            for k, v in sub.items():
                if k == "mode":
                    mode = str(getattr(v, "value", "")).strip().lower()
                    if mode in ("strict", "dwrr"):
                        s.mode = mode  # type: ignore[assignment]
                    else:
                        st.warn(f"traffic-class {tc}: unknown scheduler mode {mode!r}", _line(v, p))
                elif k == "bw-percent":
                    s.bandwidth_percent = _int(v, st, f"traffic-class {tc} bw-percent", 0, 100)
                else:
                    st.warn(f"traffic-class {tc}: unrecognised setting {k!r}", _line(v, p))
            out[tc] = (s, _lines_of(sub, *sub.values()))
    return out


def _read_pause(p: _Profile, st: DeviceState) -> tuple[bool | None, list[int]]:
    tx = _bool(p.node.get("tx"), st, f"qos link-pause {p.name} tx") if "tx" in p.node else None
    rx = _bool(p.node.get("rx"), st, f"qos link-pause {p.name} rx") if "rx" in p.node else None
    lines = _lines_of(p.node, p.node.get("tx"), p.node.get("rx"))
    if tx is None and rx is None:
        return True, lines  # a link-pause profile with defaults (tx/rx enabled) is link pause on
    return bool(tx) or bool(rx), lines


def _line(val: Any, p: _Profile | None = None) -> int | None:
    line = getattr(val, "line", None)
    if line is None and p is not None:
        return p.line
    return line


# ----------------------------------------------------------------------------- interpretation
def _interpret(tree: Node, st: DeviceState) -> None:
    system = _node(tree.get("system"))
    host = system.get("hostname")
    if isinstance(host, Leaf) and str(host.value).strip():
        st.hostname = str(host.value).strip()
        st.at("hostname", host.line, host.text)

    if tree.get("qos") is not None and not isinstance(tree.get("qos"), Node):
        st.warn("qos: expected a mapping of QoS settings", _line(tree.get("qos")))
    qos = _node(tree.get("qos"))
    roce = _check_macro(qos, st)

    # switch priority -> traffic class (identity unless stated, the RoCE profile's map with qos roce;
    # NVUE only supports default-global)
    sp_tc: dict[int, int] = dict(ROCE_SP_TC) if roce is not None else {}
    for prof, pnode in _node(qos.get("egress-queue-mapping")).items():
        if prof != DEFAULT_PROFILE:
            st.warn(f"egress-queue-mapping profile {prof!r}: NVUE only supports default-global", _line(pnode))
            continue
        for sp, sub in _ids(_node(pnode).get("switch-priority"), st, "egress-queue-mapping", 7).items():
            tc = _int(_node(sub).get("traffic-class"), st, f"switch-priority {sp} traffic-class", 0, 7)
            if tc is not None:
                sp_tc[sp] = tc
                if tc != sp:
                    st.warn(
                        f"switch-priority {sp} -> traffic-class {tc}: roceconf assumes priority == TC; "
                        "DSCP map composed through it",
                        _line(_node(sub).get("traffic-class")),
                        code="SEMANTIC",
                    )

    profiles: dict[str, dict[str, _Profile]] = {}
    for kind in KINDS:
        kn = qos.get(kind)
        profiles[kind] = {}
        if isinstance(kn, Node):
            for name, pnode in kn.items():
                if isinstance(pnode, Node):
                    profiles[kind][name] = _Profile(name, pnode, pnode.line)
                else:
                    st.warn(f"qos {kind} {name}: expected a profile", _line(pnode))
        elif kn is not None:
            st.warn(f"qos {kind}: expected profiles", _line(kn))
    for key, val in qos.items():
        if (
            key not in KINDS
            and key not in QOS_KNOWN_UNMODELLED
            and key
            not in (
                "egress-queue-mapping",
                "pfc-watchdog",
                "roce",
            )
        ):
            st.warn(f"qos {key}: unrecognised QoS setting", _line(val))

    # device DSCP map (default-global)
    mappings = {n: _read_mapping(p, st) for n, p in profiles["mapping"].items()}
    pfcs = {n: _read_pfc(p, st) for n, p in profiles["pfc"].items()}
    ccs = {n: _read_cc(p, st) for n, p in profiles["congestion-control"].items()}
    scheds = {n: _read_sched(p, st) for n, p in profiles["egress-scheduler"].items()}
    pauses = {n: _read_pause(p, st) for n, p in profiles["link-pause"].items()}
    if roce is not None:
        _apply_roce(roce, profiles, mappings, pfcs, ccs, scheds)

    def tc_of(sp: int) -> int:
        return sp_tc.get(sp, sp)

    device_map: dict[int, int] = {}
    glob = mappings.get(DEFAULT_PROFILE)
    if glob is not None:
        for d in sorted(glob.dscp):
            device_map[d] = tc_of(glob.dscp[d])
            src = glob.dscp_src[d]
            st.dscp_to_tc[str(d)] = device_map[d]
            st.at(f"dscp_to_tc.{d}", src.line, src.text)

    _read_watchdog(_node(qos.get("pfc-watchdog")), st)
    _read_ecmp(_node(system.get("forwarding")), st)

    # ports
    port_ar: dict[str, Any] = {}
    for name, inode, iline in _ports(tree, st):
        port_ar[name] = _node(inode.get("router")).get("adaptive-routing")
        itf = Interface()
        path = f"interfaces.{name}"
        st.at(path, iline, inode.text)
        link = _node(inode.get("link"))
        if "mtu" in link:
            itf.mtu = _int(link["mtu"], st, f"interface {name} link mtu", 552, 9216)
            if itf.mtu is not None:
                st.at(f"{path}.mtu", link["mtu"].line, link["mtu"].text)
        if inode.get("qos") is not None and not isinstance(inode.get("qos"), Node):
            st.warn(f"interface {name} qos: unrecognised setting", _line(inode.get("qos")))
        iqos = _node(inode.get("qos"))
        attach: dict[str, tuple[str, Leaf | None]] = {}
        for key, val in iqos.items():
            if key in KINDS:
                pname = _node(val).get("profile")
                if isinstance(pname, Leaf):
                    attach[key] = (str(pname.value), pname)
                else:
                    st.warn(f"interface {name} qos {key}: expected 'profile <name>'", _line(val))
            elif key == "pfc-watchdog":
                wd = _node(val)
                if isinstance(val, Leaf):
                    itf.pfc_watchdog = _bool(val, st, f"interface {name} pfc-watchdog")
                elif "state" in wd:
                    itf.pfc_watchdog = _bool(wd["state"], st, f"interface {name} pfc-watchdog state")
                elif "enable" in wd:
                    itf.pfc_watchdog = _bool(wd["enable"], st, f"interface {name} pfc-watchdog enable")
                else:
                    itf.pfc_watchdog = True  # ``nv set interface swpN qos pfc-watchdog``
                st.at(
                    f"{path}.pfc_watchdog", _lines_of(val, wd.get("state"), wd.get("enable")), _text_of(val)
                )
            elif key not in IFACE_QOS_UNMODELLED:
                st.warn(f"interface {name} qos {key}: unrecognised QoS setting", _line(val))

        def effective(kind: str, _attach: dict = attach, _name: str = name) -> tuple[str | None, list[int]]:
            if kind in _attach:
                pname, leaf = _attach[kind]
                if pname in profiles[kind]:
                    profiles[kind][pname].used = True
                    return pname, _lines_of(leaf)
                st.warn(
                    f"interface {_name} qos {kind} profile {pname!r} is not defined",
                    _line(leaf),
                    code="UNDEFINED",
                )
                return None, []
            if DEFAULT_PROFILE in profiles[kind]:
                profiles[kind][DEFAULT_PROFILE].used = True
                return DEFAULT_PROFILE, []
            return None, []

        # trust + port DSCP map
        pname, alines = effective("mapping")
        if pname is not None:
            m = mappings[pname]
            if m.trust is not None:
                itf.trust = m.trust  # type: ignore[assignment]
                st.at(f"{path}.trust", m.trust_src + alines, _text_of(attach.get("mapping", (0, None))[1]))
            if pname != DEFAULT_PROFILE and m.dscp:
                port_map = {str(d): tc_of(sp) for d, sp in sorted(m.dscp.items())}
                if port_map != {str(d): t for d, t in device_map.items()}:
                    itf.dscp_to_tc = port_map
                    st.at(f"{path}.dscp_to_tc", [x.line for x in m.dscp_src.values() if x.line] + alines)
        # PFC
        pname, alines = effective("pfc")
        if pname is not None:
            p = pfcs[pname]
            itf.pfc = Pfc(no_drop=p.no_drop)
            if p.tx is not None or p.rx is not None or p.no_drop:
                tx = True if p.tx is None else p.tx
                rx = True if p.rx is None else p.rx
                if p.tx is None or p.rx is None:
                    st.defaults.append(f"{path}.pfc.enabled")
                if tx != rx:
                    st.warn(
                        f"interface {name}: PFC {'tx' if tx else 'rx'} only (asymmetric); reported as enabled",
                        p.src[0] if p.src else None,
                        code="SEMANTIC",
                    )
                itf.pfc.enabled = tx or rx
            st.at(f"{path}.pfc", p.src + alines, p.text)
        # ECN
        pname, alines = effective("congestion-control")
        if pname is not None:
            for tc, (e, lines, by_default) in sorted(ccs[pname].items()):
                if e is None:
                    continue
                itf.ecn[str(tc)] = e.model_copy()
                st.at(f"{path}.ecn.{tc}", lines + alines)
                if by_default:
                    st.defaults.append(f"{path}.ecn.{tc}")
        # scheduling
        pname, alines = effective("egress-scheduler")
        if pname is not None:
            for tc, (s, lines) in sorted(scheds[pname].items()):
                itf.scheduling[str(tc)] = s.model_copy()
                st.at(f"{path}.scheduling.{tc}", lines + alines)
        # link pause
        pname, alines = effective("link-pause")
        if pname is not None:
            itf.link_pause, lines = pauses[pname]
            st.at(f"{path}.link_pause", lines + alines)
        st.interfaces[name] = itf

    _read_adaptive_routing(_node(tree.get("router")).get("adaptive-routing"), port_ar, st)
    _watchdog_behaviour(st)
    for kind in KINDS:
        for pname, p in profiles[kind].items():
            if not p.used and pname != DEFAULT_PROFILE:
                st.warn(
                    f"qos {kind} profile {pname!r} is defined but attached to no interface", p.line, "UNUSED"
                )
    st.defaults = sorted(set(st.defaults))


def _check_macro(qos: Node, st: DeviceState) -> tuple[int | None, str] | None:
    """``qos roce``: (line, text) when NVIDIA's lossless RoCE profile applies (its values are filled in,
    see ``roce.py``); other modes (lossy, single ingress pool, multi-TC) give a ``MACRO`` warning.

    RoCE is on only when the configuration says so: ``state: enabled`` (CL 5.15 and later) or ``enable: on``
    (before; "New and Changed NVUE Commands" 5.15: ``qos roce enable on|off`` -> ``qos roce state
    enabled|disabled``). NVIDIA's NVUE schema: "This feature is disabled by default" - so a ``mode``
    without the state is RoCE off (its profile values are not in effect), and drift reports what is
    missing. The ``nv set qos roce [mode ...]`` commands enable it (see ``syntax._load_commands``)."""
    roce = qos.get("roce")
    if roce is None:
        return None
    on: bool | None = None
    rn = _node(roce)
    for key in ("enable", "state"):
        if key in rn:
            on = _bool(rn[key], st, f"qos roce {key}")
    if isinstance(roce, Leaf):
        on = _bool(roce, st, "qos roce")
    mode = rn.get("mode")
    line = _line(mode) or _line(roce) or _line(rn.get("enable")) or _line(rn.get("state"))
    if not on:
        if on is None:
            st.warn(
                "qos roce without 'state: enabled' ('enable: on' before CL 5.15): RoCE is disabled by default "
                "(NVUE schema), so its profile (PFC, lossless pool, ECN) is not in effect",
                line,
                code="MACRO",
            )
        return None
    mode_name = str(mode.value).strip().lower() if isinstance(mode, Leaf) else "lossless"
    if mode_name == "lossless":
        return line, (mode.text if isinstance(mode, Leaf) and mode.text else "qos roce mode lossless")
    st.warn(
        f"qos roce mode {mode_name} is enabled: its values are only visible in 'nv show qos roce' and are "
        "not part of this parse",
        line,
        code="MACRO",
    )
    return None


def _apply_roce(
    roce: tuple[int | None, str],
    profiles: dict[str, dict[str, _Profile]],
    mappings: dict[str, _Mapping],
    pfcs: dict[str, _PfcProf],
    ccs: dict[str, dict[int, tuple[Ecn | None, list[int], bool]]],
    scheds: dict[str, dict[int, tuple[Sched, list[int]]]],
) -> None:
    """NVIDIA's lossless RoCE profile as the base of ``default-global``; explicit entries override it
    (per traffic class; ``ecn disable`` removes the profile's ECN on that class). Source: ``ROCE_DOC``."""
    line, text = roce
    lines = [line] if line else []
    for kind in ("mapping", "pfc", "congestion-control", "egress-scheduler"):
        profiles[kind].setdefault(DEFAULT_PROFILE, _Profile(DEFAULT_PROFILE, Node(), line))
    m = mappings.setdefault(DEFAULT_PROFILE, _Mapping())
    if m.trust is None:
        m.trust, m.trust_src = ROCE_TRUST, list(lines)
    if DEFAULT_PROFILE not in pfcs or pfcs[DEFAULT_PROFILE].no_drop is None:
        base = pfcs.get(DEFAULT_PROFILE) or _PfcProf()
        pfcs[DEFAULT_PROFILE] = _PfcProf(
            no_drop=list(ROCE_NO_DROP),
            tx=True if base.tx is None else base.tx,
            rx=True if base.rx is None else base.rx,
            src=lines + base.src,
            text=text,
        )
    cc: dict[int, tuple[Ecn | None, list[int], bool]] = {
        t: (e.model_copy(), list(lines), False) for t, e in ROCE_ECN.items()
    }
    for t, (e, elines, by_default) in ccs.get(DEFAULT_PROFILE, {}).items():
        if e is None:
            cc.pop(t, None)  # 'ecn disable' on a class the profile marks
            continue
        prior = cc.get(t, (None, [], False))[0]
        if prior is not None:
            e = Ecn(
                min_bytes=prior.min_bytes if e.min_bytes is None else e.min_bytes,
                max_bytes=prior.max_bytes if e.max_bytes is None else e.max_bytes,
                probability=prior.probability if e.probability is None else e.probability,
            )
        cc[t] = (e, elines, by_default)
    ccs[DEFAULT_PROFILE] = cc
    sc = {t: (x.model_copy(), list(lines)) for t, x in ROCE_SCHED.items()}
    sc.update(scheds.get(DEFAULT_PROFILE, {}))
    scheds[DEFAULT_PROFILE] = sc


def _watchdog_behaviour(st: DeviceState) -> None:
    """What NVUE's PFC watchdog does, where the config cannot state it (CL QoS guide, "PFC Watchdog"): a
    stormed queue drops new packets ('discards new incoming packets to this egress queue') and is
    restored after one polling interval without pause frames. Filled whenever the watchdog is
    configured or armed on a port, and listed in ``state.defaults``."""
    wd = st.pfc_watchdog
    armed = any(i.pfc_watchdog for i in st.interfaces.values())
    if not (armed or wd.polling_ms is not None or wd.detection_ms is not None):
        return
    wd.action = "drop"
    wd.restoration_ms = wd.polling_ms if wd.polling_ms is not None else DEFAULT_POLLING_MS
    st.defaults += ["pfc_watchdog.action", "pfc_watchdog.restoration_ms"]
    if "pfc_watchdog.polling_ms" in st.sources:
        st.sources["pfc_watchdog.restoration_ms"] = st.sources["pfc_watchdog.polling_ms"]


def _read_watchdog(wd: Node, st: DeviceState) -> None:
    polling = None
    if "polling-interval" in wd:
        leaf = wd["polling-interval"]
        try:
            polling = parse_time_ms(leaf.value if isinstance(leaf.value, int) else str(leaf.value))
        except (TypeError, ValueError, AttributeError):
            st.warn(
                f"pfc-watchdog polling-interval: not a duration: {getattr(leaf, 'value', leaf)!r}",
                _line(leaf),
            )
        if polling is not None:
            st.pfc_watchdog.polling_ms = polling
            st.at("pfc_watchdog.polling_ms", leaf.line, leaf.text)
    if "robustness" in wd:
        leaf = wd["robustness"]
        rob = _int(leaf, st, "pfc-watchdog robustness", 1, 1000)
        if rob is not None:
            st.pfc_watchdog.detection_ms = rob * (polling or DEFAULT_POLLING_MS)
            st.at("pfc_watchdog.detection_ms", _lines_of(leaf, wd.get("polling-interval")), leaf.text)
            if polling is None:
                st.defaults.append("pfc_watchdog.detection_ms")
    for key, val in wd.items():
        if key not in ("polling-interval", "robustness"):
            st.warn(f"qos pfc-watchdog {key}: unrecognised setting", _line(val))


def _read_ecmp(fwd: Node, st: DeviceState) -> None:
    hashes = fwd.get("ecmp-hash")
    if isinstance(hashes, Node):
        on: list[str] = []
        stated: set[str] = set()
        lines: list[int] = []
        for key, val in hashes.items():
            b = _bool(val, st, f"ecmp-hash {key}")
            lines += _lines_of(val)
            if key in HASH_MAP:
                if b is not None:
                    stated.add(key)
                    if b:
                        on.append(HASH_MAP[key])
            elif b:
                st.warn(f"ecmp-hash {key} on: no vendor-neutral field for it", _line(val))
        if stated:
            st.ecmp.fields = sorted(set(on))  # type: ignore[assignment]
            st.at("ecmp.fields", lines, _text_of(*hashes.values()))
            missing = sorted(set(HASH_MAP) - stated)
            if missing:
                st.warn(
                    "ecmp-hash states only some fields; unstated ones keep the release default: "
                    + ", ".join(missing),
                    hashes.line,
                    code="PARTIAL",
                )
    if "hash-seed" in fwd:
        seed = _int(fwd["hash-seed"], st, "hash-seed", 0, 4294967295)
        if seed is not None:
            st.ecmp.seed = seed
            st.at("ecmp.seed", fwd["hash-seed"].line, fwd["hash-seed"].text)


def _ar_on(node: Any, st: DeviceState, what: str) -> bool | None:
    """``adaptive-routing: {state: enabled|disabled}`` (CL 5.15 on) or ``{enable: on|off}`` (up to 5.14)."""
    n = _node(node)
    key = "state" if "state" in n else "enable" if "enable" in n else None
    return None if key is None else _bool(n[key], st, what)


def _read_adaptive_routing(glob: Any, ports: dict[str, Any], st: DeviceState) -> None:
    """NVUE reference "Adaptive Routing": ``router adaptive-routing`` switches it on globally, ``interface <p>
    router adaptive-routing`` per port (both default disabled). ``ecmp.dynamic`` is ``adaptive-routing`` only
    when it is on globally and on every RoCE port; on globally with ports left out it is unknown (a warning),
    never reported as in effect."""
    on = _ar_on(glob, st, "router adaptive-routing")
    if not on:
        for name, node in ports.items():
            if _ar_on(node, st, f"interface {name} router adaptive-routing"):
                st.warn(f"interface {name}: adaptive routing on the port but not globally: not in effect", _line(node))
        return
    off = [n for n, node in ports.items() if not _ar_on(node, st, f"interface {n} router adaptive-routing")]
    if off:
        st.warn(
            "router adaptive-routing is enabled but not on ports " + ", ".join(off[:8]) + ": reported as unknown",
            _line(glob),
            code="PARTIAL",
        )
        return
    st.ecmp.dynamic = "adaptive-routing"
    st.at("ecmp.dynamic", _lines_of(glob, *_node(glob).values()), _text_of(glob))


def _ports(tree: Node, st: DeviceState) -> Iterator[tuple[str, Node, int | None]]:
    """Switch ports (swp*) and any other interface carrying QoS settings, expanded and merged."""
    merged: dict[str, Node] = {}
    first_line: dict[str, int | None] = {}
    interfaces = tree.get("interface")
    if interfaces is not None and not isinstance(interfaces, Node):
        st.warn("interface: expected a mapping", _line(interfaces))
        return
    for key, inode in _node(interfaces).items():
        names = _expand_names(key)
        if names is None:
            st.warn(f"interface {key!r}: bad interface range", _line(inode))
            continue
        if not isinstance(inode, Node):
            if isinstance(inode, Leaf) and _ROCEISH.search(str(inode.text)):
                st.warn(f"interface {key}: unrecognised setting {inode.value!r}", inode.line)
            continue
        for name in names:
            name = name.strip()
            if name not in merged:
                merged[name] = Node(inode.line, inode.text)
                first_line[name] = inode.line
            _merge(merged[name], inode)
    for name in sorted(merged, key=natural_key):
        node = merged[name]
        if _SWP.match(name) or isinstance(node.get("qos"), Node):
            yield name, node, first_line[name]


#: a YAML ``hostname:`` line whose value YAML reads as this very string (single-quoted without escapes,
#: or a plain scalar that cannot be a number, boolean or null)
_HOSTNAME_LINE = re.compile(r"\s+hostname: (?:'([A-Za-z0-9._-]+)'|([A-Za-z][A-Za-z0-9_-]*))\s*")
_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def _hostname_of(line: str) -> str | None:
    m = _HOSTNAME_LINE.fullmatch(line)
    if m is None or (m.group(2) is not None and m.group(2).lower() in _YAML_WORDS):
        return None
    return m.group(1) or m.group(2)


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse`` sharing one parse between NVUE YAML files that differ only by their ``system: hostname:``
    line and the header comment (``base.parse_shared_by_line``)."""
    return parse_shared_by_line(
        parse, text, memo, lambda lines, i: _hostname_of(lines[i]), lambda lines, i: i == 0 and lines[0][:1] == "#"
    )


def parse(text: str) -> DeviceState:
    """NVUE YAML / JSON / ``nv set`` commands -> DeviceState. Never raises."""
    st = DeviceState(platform="nvue")
    try:
        tree = load_tree(text if isinstance(text, str) else str(text), st)
        _interpret(tree, st)
    except Exception as exc:  # noqa: BLE001 - a parser must never raise
        st.warn(f"internal parser error: {type(exc).__name__}: {exc}"[:200])
    return st
