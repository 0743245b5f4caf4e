"""The semantic checks ``roceconf validate`` runs over an expanded intent (each reports the rules of
:mod:`roceconf.intent.rules`); ``run_rules`` runs them all."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from roceconf.intent.fabric import DeviceSpec, Fabric, Settings, _dotted
from roceconf.intent.rules import (
    CHECKS,
    L2_OVERHEAD,
    R_ASIC_UNKNOWN,
    R_BNXT_DSCP,
    R_CABLE_NOT_RENDERED,
    R_CLASS_NAME,
    R_CNP_LOSSLESS,
    R_CNP_NOT_STRICT,
    R_CNP_ON_ROCE,
    R_DLB,
    R_DSCP_TWICE,
    R_ECMP_SPORT,
    R_ECN_ORDER,
    R_ECN_PROB,
    R_ECN_UNITS,
    R_ECN_XOFF,
    R_EXTRA,
    R_EXTRA_CHARS,
    R_EXTRA_GRAMMAR,
    R_EXTRA_PLATFORM,
    R_INJECT,
    R_LINK_LOSSLESS,
    R_LINK_PAUSE,
    R_LINK_TWICE,
    R_LINK_UNDEF,
    R_LOSSLESS_MAX,
    R_LOSSY_ECN,
    R_NIC_MTU,
    R_PLATFORM_MTU,
    R_PRIO_DISAGREE,
    R_PRIO_QOS_PORT,
    R_QP_DEFAULT,
    R_QP_HASH,
    R_ROCE_LOSSY,
    R_ROCE_MISSING,
    R_SEED_TIERS,
    R_SWITCH_MTU,
    R_WD_OFF,
    R_WD_POLL,
    R_WD_RANGE,
    R_WD_RESTORE,
    ROCE_OVERHEAD,
    RULES,
    Rule,
    asic_table,
    check,
    rule,
)
from roceconf.names import excerpt, unsafe_char
from roceconf.units import threshold_bytes
from roceconf.yamlsrc import Path_


def _platform(name: str):
    from roceconf import platforms

    try:
        return platforms.get(name)
    except (ImportError, AttributeError, KeyError):
        return None


def _emit(
    fab: Fabric, r: Rule, path: Path_, message: str, key: bool = False, dev: DeviceSpec | None = None
) -> None:
    """Report at `path`; if the intent does not spell that setting out (a default), report at the device entry."""
    if dev is not None and path[:1] in (("mtu",), ("ecmp",), ("nic",)) and path not in fab.positions.values:
        path = dev.path
    fab.diag(path, r.severity, r.id, message, r.hint, key=key)


def _class_path(fab: Fabric, dev: DeviceSpec | None, name: str, field: str) -> Path_:
    if dev is not None:
        o = dev.settings.origin.get(f"classes.{name}.{field}")
        if o:
            return o
    for i, c in enumerate(fab.intent.qos.classes):
        if c.name == name:
            return ("qos", "classes", i, field)
    return ("qos", "classes")


def _distinct_settings(fab: Fabric) -> Iterable[tuple[DeviceSpec | None, Settings]]:
    """The fabric-wide policy, then one representative device per distinct effective policy
    (checks run once per policy, not once per device)."""
    seen: set[int] = {id(fab.base_settings)}
    yield None, fab.base_settings
    for dev in fab.devices.values():
        if id(dev.settings) not in seen:
            seen.add(id(dev.settings))
            yield dev, dev.settings


# ------------------------------------------------------------------ class rules (per effective policy)


def _b(v: int | str) -> str:
    """An ECN threshold as the intent states it: '150000 B', or a queue delay ('5us')."""
    return v if isinstance(v, str) else f"{v} B"


def _speeds(fab: Fabric, dev: DeviceSpec | None) -> list[int]:
    """Port speeds (Gb/s) of the RoCE ports of `dev` (None: of every switch), [0] when there is none."""
    devs = [dev] if dev is not None else [d for d in fab.devices.values() if not d.is_host]
    return sorted({p.speed_gbps for d in devs for p in d.ports.values() if p.qos}) or [0]


@check
def _classes(fab: Fabric) -> None:
    names: dict[str, int] = {}
    for i, c in enumerate(fab.intent.qos.classes):
        if c.name in names:
            _emit(fab, R_CLASS_NAME, ("qos", "classes", i, "name"), f"class name '{c.name}' is used twice")
        names[c.name] = i
    roles = [c for c in fab.intent.qos.classes if c.role == "roce"]
    if len(roles) != 1:
        _emit(
            fab,
            R_ROCE_MISSING,
            ("qos", "classes"),
            f"{len(roles)} classes have role roce; exactly one is needed",
        )
    dscp_seen: dict[int, str] = {}
    for i, c in enumerate(fab.intent.qos.classes):
        for j, d in enumerate(c.dscp):
            if d in dscp_seen and dscp_seen[d] != c.name:
                _emit(
                    fab,
                    R_DSCP_TWICE,
                    ("qos", "classes", i, "dscp", j),
                    f"DSCP {d} is in class '{dscp_seen[d]}' and '{c.name}'",
                )
            dscp_seen.setdefault(d, c.name)
    if fab.intent.qos.link_pause:
        _emit(fab, R_LINK_PAUSE, ("qos", "link_pause"), "qos.link_pause is true while PFC is in use")
    for dev, s in _distinct_settings(fab):
        where = "" if dev is None else f" (policy of {dev.name})"
        roce, cnp = s.roce, s.cnp
        if roce is not None and not roce.lossless:
            _emit(
                fab,
                R_ROCE_LOSSY,
                _class_path(fab, dev, roce.name, "lossless"),
                f"RoCE class '{roce.name}' (priority {roce.priority}) is lossy{where}",
            )
        if cnp is not None:
            if cnp.lossless:
                _emit(
                    fab,
                    R_CNP_LOSSLESS,
                    _class_path(fab, dev, cnp.name, "lossless"),
                    f"CNP class '{cnp.name}' is lossless{where}",
                )
            if roce is not None and cnp.priority == roce.priority:
                _emit(
                    fab,
                    R_CNP_ON_ROCE,
                    _class_path(fab, dev, cnp.name, "priority"),
                    f"CNP class '{cnp.name}' uses the RoCE priority {roce.priority}",
                )
            if cnp.scheduling is None or cnp.scheduling.mode != "strict":
                _emit(
                    fab,
                    R_CNP_NOT_STRICT,
                    _class_path(fab, dev, cnp.name, "scheduling"),
                    f"CNP class '{cnp.name}' is not scheduled strict priority{where}",
                )
        by_prio: dict[int, list] = defaultdict(list)
        for c in s.classes:
            by_prio[c.priority].append(c)
        for prio, cs in by_prio.items():
            if len({c.lossless for c in cs}) > 1 and {c.role for c in cs} != {"roce", "cnp"}:  # that is RC103
                _emit(
                    fab,
                    R_PRIO_DISAGREE,
                    _class_path(fab, dev, cs[-1].name, "lossless"),
                    f"priority {prio}: classes {', '.join(c.name for c in cs)} disagree on lossless",
                )
        for c in s.classes:
            if c.ecn is None:
                continue
            # a queue delay is compared in bytes at each port speed of the device (bytes = delay x speed / 8)
            speeds = _speeds(fab, dev)
            for sp in speeds if isinstance(c.ecn.min, str) or isinstance(c.ecn.max, str) else [0]:
                lo, hi = threshold_bytes(c.ecn.min, sp), threshold_bytes(c.ecn.max, sp)
                if lo >= hi:
                    at = f" at {sp}G ({lo} B >= {hi} B)" if sp else ""
                    _emit(
                        fab,
                        R_ECN_ORDER,
                        _class_path(fab, dev, c.name, "ecn") + ("min",),
                        f"class '{c.name}': ECN min {_b(c.ecn.min)} >= max {_b(c.ecn.max)}{at}{where}",
                    )
                    break
            if not 1 <= c.ecn.probability <= 100:
                _emit(
                    fab,
                    R_ECN_PROB,
                    _class_path(fab, dev, c.name, "ecn") + ("probability",),
                    f"class '{c.name}': ECN probability {c.ecn.probability} is outside 1-100",
                )
            if not c.lossless and c.role == "other":
                _emit(
                    fab,
                    R_LOSSY_ECN,
                    _class_path(fab, dev, c.name, "ecn"),
                    f"class '{c.name}' is lossy and has ECN",
                )


@check
def _bnxt(fab: Fabric) -> None:
    done: set[int] = set()
    for dev in fab.devices.values():
        if dev.platform != "bnxt" or id(dev.settings) in done:
            continue
        done.add(id(dev.settings))
        roce = dev.settings.roce
        if roce is not None and len(roce.dscp) > 1:
            _emit(
                fab,
                R_BNXT_DSCP,
                _class_path(fab, dev, roce.name, "dscp"),
                f"RoCE class '{roce.name}' has {len(roce.dscp)} DSCP values; {dev.name} is a Broadcom NIC",
            )


# ------------------------------------------------------------------ MTU, watchdog, hashing (per policy)
@check
def _policy(fab: Fabric) -> None:
    for _dev, s in _distinct_settings(fab):
        o = s.origin
        if s.mtu.host_nic < s.mtu.roce_path + ROCE_OVERHEAD:
            _emit(
                fab,
                R_NIC_MTU,
                o.get("mtu.host_nic", ("mtu",)),
                f"host NIC MTU {s.mtu.host_nic} < RoCE path MTU {s.mtu.roce_path} + {ROCE_OVERHEAD} = {s.mtu.roce_path + ROCE_OVERHEAD}",
            )
        if s.mtu.switch_port < s.mtu.host_nic + L2_OVERHEAD:
            _emit(
                fab,
                R_SWITCH_MTU,
                o.get("mtu.switch_port", ("mtu",)),
                f"switch MTU {s.mtu.switch_port} < NIC MTU {s.mtu.host_nic} + {L2_OVERHEAD}",
            )
        wd = s.pfc_watchdog
        if s.lossless_priorities and not wd.enabled:
            _emit(
                fab,
                R_WD_OFF,
                o.get("pfc_watchdog.enabled", ("qos", "pfc_watchdog")),
                "PFC watchdog is disabled",
            )
        if wd.enabled and wd.polling >= wd.detection:
            _emit(
                fab,
                R_WD_POLL,
                o.get("pfc_watchdog.polling", ("qos", "pfc_watchdog")),
                f"watchdog polling {wd.polling} ms >= detection {wd.detection} ms",
            )
        if wd.enabled and wd.restoration < wd.detection:
            _emit(
                fab,
                R_WD_RESTORE,
                o.get("pfc_watchdog.restoration", ("qos", "pfc_watchdog")),
                f"watchdog restoration {wd.restoration} ms < detection {wd.detection} ms",
            )
        if "src_port" not in s.ecmp.fields:
            _emit(
                fab,
                R_ECMP_SPORT,
                o.get("ecmp.fields", ("ecmp",)),
                f"ECMP hash fields {s.ecmp.fields} lack src_port",
            )


@check
def _cables(fab: Fabric) -> None:
    """RC151: the links' cable lengths feed `check`'s headroom analysis (RC211) but no render: said once per
    intent, at the first link that states a switch-side cable, instead of being dropped silently."""
    for link in fab.links:
        ends = (fab.devices.get(link.a.device), fab.devices.get(link.b.device))
        if any(d is not None and not d.is_host for d in ends):
            n = len(fab.links)
            _emit(
                fab,
                R_CABLE_NOT_RENDERED,
                link.path,
                f"the cable lengths of {n} link(s) (this one: {link.cable_m:g} m) are used by `check` (headroom, "
                "RC211) but by no rendered configuration",
            )
            return


@check
def _seeds(fab: Fabric) -> None:
    by_seed: dict[tuple, dict[str, DeviceSpec]] = defaultdict(dict)
    for dev in fab.devices.values():
        if dev.is_host:
            continue
        e = dev.settings.ecmp
        plat = _platform(dev.platform)
        if e.dynamic is not None and plat is not None and e.dynamic.mode in dict(plat.capabilities.dlb_modes):
            continue  # dynamic load balancing picks next hops by load: the same hash does not polarise it
        by_seed[(e.seed, tuple(sorted(e.fields)), e.symmetric)].setdefault(dev.role, dev)
    for (seed, _f, _s), roles in by_seed.items():
        if len(roles) > 1:
            devs = list(roles.values())
            _emit(
                fab,
                R_SEED_TIERS,
                devs[-1].settings.origin.get("ecmp.seed", ("ecmp", "seed")),
                f"tiers {', '.join(sorted(roles))} hash with the same fields and seed {seed}",
            )


# ------------------------------------------------------------------ platform capabilities (per device kind)
@check
def _capabilities(fab: Fabric) -> None:
    done: set[tuple] = set()
    table = asic_table()
    for dev in fab.devices.values():
        key = (
            dev.platform,
            id(dev.settings),
            tuple(sorted({p.mtu for p in dev.ports.values() if p.mtu})),
            dev.asic,
        )
        if key in done:
            continue
        done.add(key)
        plat = _platform(dev.platform)
        s = dev.settings
        if dev.asic is not None and dev.asic not in table:
            _emit(
                fab,
                R_ASIC_UNKNOWN,
                dev.path + ("asic",),
                f"{dev.name}: ASIC '{dev.asic}' is not in the buffer table",
            )
        if plat is None:
            continue
        cap = plat.capabilities
        mtu_field = "mtu.host_nic" if dev.is_host else "mtu.switch_port"
        mtus = {(s.mtu.host_nic if dev.is_host else s.mtu.switch_port): s.origin.get(mtu_field, ("mtu",))}
        for p in dev.ports.values():
            if p.mtu:
                mtus[p.mtu] = p.path + ("mtu",)
        for mtu, path in mtus.items():
            if not cap.min_mtu.value <= mtu <= cap.max_mtu.value:
                _emit(
                    fab,
                    R_PLATFORM_MTU,
                    path,
                    f"{dev.name} ({dev.platform}): MTU {mtu} outside {cap.min_mtu.value}-{cap.max_mtu.value} "
                    f"(source: {cap.max_mtu.source})",
                    dev=dev,
                )
        n = len(s.lossless_priorities)
        if n > cap.max_lossless_priorities.value:
            _emit(
                fab,
                R_LOSSLESS_MAX,
                ("qos", "classes"),
                f"{dev.name} ({dev.platform}): {n} lossless priorities, platform supports "
                f"{cap.max_lossless_priorities.value} (source: {cap.max_lossless_priorities.source})",
            )
        if dev.asic in table and not dev.is_host:
            buf = table[dev.asic].get("buffer_bytes")
            qports = sum(1 for p in dev.ports.values() if p.qos)
            if buf and qports and n:
                share = buf // (qports * n)
                for c in s.classes:
                    top = max((p.speed_gbps for p in dev.ports.values() if p.qos), default=0)
                    mx = threshold_bytes(c.ecn.max, top) if c.ecn is not None else 0
                    if c.ecn is not None and c.lossless and mx > share:
                        _emit(
                            fab,
                            R_ECN_XOFF,
                            _class_path(fab, dev, c.name, "ecn") + ("max",),
                            f"{dev.name}: ECN max {mx} B of class '{c.name}' exceeds the estimated XOFF point "
                            f"{share} B ({dev.asic} buffer {buf} B / {qports} ports / {n} lossless priorities)",
                        )


# ------------------------------------------------------------------ nothing dropped silently (RC150, RC126)
@check
def _not_configured(fab: Fabric) -> None:
    """Every intent value a device's rendered config does not carry (one generic check for every platform;
    see roceconf/intent/unexpressed.py)."""
    from roceconf.intent.unexpressed import fabric_losses, messages

    def where(device: str, loss) -> Path_:
        # a value the intent does not spell out (a default) is reported at the device entry
        return loss.origin if loss.origin in fab.positions.values else fab.devices[device].path

    for rid, path, message, losses in messages(fabric_losses(fab), where):
        r = RULES[rid]
        if not any(x.origin in fab.positions.values for x in losses):
            # only roceconf defaults the intent does not state: the device keeps its own (RC025, info)
            r = RULES["RC025"]
            message = f"roceconf default(s) not configured: {message}; the device keeps its own default"
        fab.diag(path, r.severity, r.id, message, r.hint)


# ------------------------------------------------------------------ links
@check
def _links(fab: Fabric) -> None:
    used: dict[tuple[str, str], int] = {}
    devices = fab.devices
    clean: set[tuple] = set()
    for idx, link in enumerate(fab.links):
        a, b = link.a, link.b
        da, db = devices.get(a.device), devices.get(b.device)
        pa = da.ports.get(a.port) if da is not None else None
        pb = db.ports.get(b.port) if db is not None else None
        ka, kb = (a.device, a.port), (b.device, b.port)
        if pa is not None and pb is not None and ka not in used and kb not in used and ka != kb:
            used[ka] = used[kb] = idx  # the common case: both ends defined and free (nothing to report)
        else:  # report each end's problem, in order
            ends = _link_end_problems(fab, link, idx, used)
            if ends is None:
                continue
            (da, pa), (db, pb) = ends
        assert da is not None and db is not None and pa is not None and pb is not None
        # the checks below read only these objects (ports and settings are shared by the devices of one
        # intent entry): a combination already found clean is not checked again; a finding never is memoised
        key = (id(pa), id(pb), id(da.settings), id(db.settings), da.is_host, db.is_host)
        if key in clean:
            continue
        n = len(fab.diagnostics)
        _link_ends(fab, link, da, pa, db, pb)
        if len(fab.diagnostics) == n:
            clean.add(key)


def _link_end_problems(fab: Fabric, link, idx: int, used: dict[tuple[str, str], int]) -> list | None:
    """Undefined devices or interfaces and interfaces in two links, per end; the two ends, or None when an
    end is undefined."""
    devices = fab.devices
    ends = []
    ok = True
    for end in (link.a, link.b):
        dev = devices.get(end.device)
        if dev is None:
            fab.link_diag(
                link,
                R_LINK_UNDEF.severity,
                R_LINK_UNDEF.id,
                f"link to undefined device {excerpt(end.device, 40)}",
                R_LINK_UNDEF.hint,
            )
            ok = False
            continue
        port = dev.ports.get(end.port)
        if port is None:
            fab.link_diag(
                link,
                R_LINK_UNDEF.severity,
                R_LINK_UNDEF.id,
                f"link to undefined interface {excerpt(end.device + ':' + end.port, 60)}",
                R_LINK_UNDEF.hint,
            )
            ok = False
            continue
        k = (end.device, end.port)
        if k in used:
            fab.link_diag(
                link,
                R_LINK_TWICE.severity,
                R_LINK_TWICE.id,
                f"interface {end.device}:{end.port} is in two links",
                R_LINK_TWICE.hint,
            )
        used[k] = idx
        ends.append((dev, port))
    if not ok or len(ends) != 2:
        return None
    return ends


def _link_ends(fab: Fabric, link, da: DeviceSpec, pa, db: DeviceSpec, pb) -> None:
    """QoS, lossless priorities and MTU of the two ends of one link (see _links)."""
    if pa.qos != pb.qos:
        fab.link_diag(
            link,
            R_PRIO_QOS_PORT.severity,
            R_PRIO_QOS_PORT.id,
            f"{da.name}:{pa.name} qos={pa.qos} but {db.name}:{pb.name} qos={pb.qos}",
            R_PRIO_QOS_PORT.hint,
        )
    if not pa.qos:
        return
    sa, sb = da.settings, db.settings
    if sa is not sb:  # devices of one shape share their settings (and so their priorities)
        la, lb = sa.lossless_priorities, sb.lossless_priorities
        if la != lb:
            fab.link_diag(
                link,
                R_LINK_LOSSLESS.severity,
                R_LINK_LOSSLESS.id,
                f"lossless priorities differ: {da.name}:{pa.name} {la} vs {db.name}:{pb.name} {lb}",
                R_LINK_LOSSLESS.hint,
            )
    ma, mb = port_mtu(da, pa), port_mtu(db, pb)
    if da.is_host == db.is_host:
        if ma != mb:
            fab.link_diag(
                link,
                R_LINK_LOSSLESS.severity,
                R_LINK_LOSSLESS.id,
                f"MTU differs: {da.name}:{pa.name} {ma} vs {db.name}:{pb.name} {mb}",
                R_LINK_LOSSLESS.hint,
            )
    else:
        host, hp, hm, sw, sp, sm = (da, pa, ma, db, pb, mb) if da.is_host else (db, pb, mb, da, pa, ma)
        if sm < hm + L2_OVERHEAD:
            fab.link_diag(
                link,
                R_SWITCH_MTU.severity,
                R_SWITCH_MTU.id,
                f"{sw.name}:{sp.name} MTU {sm} < {host.name}:{hp.name} MTU {hm} + {L2_OVERHEAD}",
                R_SWITCH_MTU.hint,
            )


def port_mtu(dev: DeviceSpec, port) -> int:
    if port.mtu:
        return port.mtu
    return dev.settings.mtu.host_nic if dev.is_host else dev.settings.mtu.switch_port


# ------------------------------------------------------------------ injection
@check
def _injection(fab: Fabric) -> None:
    i = fab.intent

    def chk(path: Path_, value: str | None) -> None:
        bad = unsafe_char(value)
        if bad is not None:
            _emit(
                fab,
                R_INJECT,
                path,
                f"{_dotted(path)}: character {bad!r} is not allowed in {excerpt(value)}",
            )

    chk(("fabric",), i.fabric)
    for ci, c in enumerate(i.qos.classes):
        chk(("qos", "classes", ci, "name"), c.name)
    for di, d in enumerate(i.devices):
        for f in ("name", "role", "asic", "model", "os_version"):
            chk(("devices", di, f), getattr(d, f))
        for ii, itf in enumerate(d.interfaces):
            chk(("devices", di, "interfaces", ii, "name"), itf.name)
            chk(("devices", di, "interfaces", ii, "rdma_device"), itf.rdma_device)
    for li, link in enumerate(i.links):
        chk(("links", li, "a"), link.a)
        chk(("links", li, "b"), link.b)


# ------------------------------------------------------------------ AI-fabric knobs and the passthrough
@check
def _ai_knobs(fab: Fabric) -> None:
    """Dynamic load balancing and QP hashing per platform (RC160-RC162); extra_config (RC163-RC165)."""
    done: set[tuple] = set()
    for dev in fab.devices.values():
        plat = _platform(dev.platform)
        key = (dev.platform, dev.model, id(dev.settings), dev.extra_config)
        if plat is None or key in done:
            continue
        done.add(key)
        cap, e = plat.capabilities, dev.settings.ecmp
        where = dev.settings.origin.get("ecmp.dynamic", ("ecmp", "dynamic"))
        modes = dict(cap.dlb_modes)
        if e.dynamic is not None and (dev.is_host or e.dynamic.mode not in modes):
            _emit(
                fab,
                R_DLB,
                where + ("mode",),
                f"{dev.name} ({dev.platform}): dynamic load balancing mode '{e.dynamic.mode}' cannot be "
                f"configured (modes the platform states: {', '.join(modes) or 'none'})",
                dev=dev,
            )
        elif (
            e.dynamic is not None
            and e.dynamic.flowlet_gap is not None
            and not (cap.dlb_flowlet_gap and modes[e.dynamic.mode] == "flowlet")
        ):
            _emit(
                fab,
                R_DLB,
                where + ("flowlet_gap",),
                f"{dev.name} ({dev.platform}): a flowlet gap cannot be configured with mode "
                f"'{e.dynamic.mode}' on this platform",
                dev=dev,
            )
        if e.hash_dest_qp and not dev.is_host:
            qp = dev.settings.origin.get("ecmp.hash_dest_qp", ("ecmp", "hash_dest_qp"))
            from roceconf.lab.refuse import junos_flavour

            # Juniper documents QP hashing for Junos OS Evolved only (the AI-ML EVO guide): a Junos OS (QFX)
            # model, or no model, is refused like a platform without it
            evo = dev.platform != "junos" or junos_flavour(dev.model) == "evo"
            if cap.hash_dest_qp == "default" and evo:
                _emit(fab, R_QP_DEFAULT, qp, f"{dev.name} ({dev.platform}): {R_QP_DEFAULT.title}", dev=dev)
            elif cap.hash_dest_qp != "config":
                _emit(fab, R_QP_HASH, qp, f"{dev.name} ({dev.platform}): {R_QP_HASH.title}", dev=dev)
        _extra_lines(fab, dev, cap.extra_config)


def _extra_lines(fab: Fabric, dev: DeviceSpec, supported: bool) -> None:
    for line, path in dev.extra_config:
        # C0, DEL, C1 and the Unicode line/paragraph separators (a line break to some readers)
        bad = [c for c in line if ord(c) < 32 or ord(c) == 127 or 0x80 <= ord(c) < 0xA0 or c in "\u2028\u2029"]
        if bad:
            _emit(
                fab,
                R_EXTRA_CHARS,
                path,
                f"{dev.name}: extra_config line has control character {hex(ord(bad[0]))}: refused",
            )
    if not dev.extra_config:
        return
    path = dev.extra_config[0][1]
    if not supported:
        _emit(fab, R_EXTRA_PLATFORM, path, f"{dev.name} ({dev.platform}): {R_EXTRA_PLATFORM.title}")
        return
    checked = _junos_grammar(fab, dev) if dev.platform == "junos" else "no vendor grammar checks them"
    n = len(dev.extra_config)
    _emit(fab, R_EXTRA, path, f"{dev.name}: {n} extra_config line(s) rendered verbatim, not audited ({checked})")


def _junos_grammar(fab: Fabric, dev: DeviceSpec) -> str:
    """Each Junos extra_config line resolved in Juniper's YANG of the device's flavour (the conformance
    oracle, roceconf/platforms/junos/schema.py); what it refuses is RC166. Without the vendor models the
    lines stay unchecked (said in RC163's message, never taken as valid)."""
    from roceconf.lab.refuse import junos_flavour
    from roceconf.platforms.junos import schema

    if schema.unavailable_reason() is not None:
        return "not checked: Juniper's YANG is not at hand"
    tree = schema.load(junos_flavour(dev.model))
    for line, path in dev.extra_config:
        if not line.startswith(("set ", "delete ")):
            _emit(fab, R_EXTRA_GRAMMAR, path, f"{dev.name}: a Junos line starts with 'set ' or 'delete '")
            continue
        v = schema.check_line(tree, line)
        if not v.ok:
            _emit(fab, R_EXTRA_GRAMMAR, path, f"{dev.name}: Juniper's YANG refuses the line: {v.message}")
    return f"set lines checked against Juniper's {junos_flavour(dev.model)} YANG where it models them"


# ------------------------------------------------------------------ platform units and ranges (per device kind)
@check
def _platform_units(fab: Fabric) -> None:
    done: set[tuple] = set()
    for dev in fab.devices.values():
        if dev.is_host or (dev.platform, id(dev.settings)) in done:
            continue
        done.add((dev.platform, id(dev.settings)))
        plat = _platform(dev.platform)
        if plat is None:
            continue
        cap, s = plat.capabilities, dev.settings
        if cap.ecn and cap.ecn_units == "percent":
            own = dev.platform.replace("-", "_")
            for c in s.classes:
                where = _class_path(fab, dev, c.name, "ecn")
                # a roceconf default class the intent does not spell out is not refused: the device keeps its
                # own ECN (an RC025 note says so); ECN bytes the intent states are
                if c.ecn is not None and getattr(c.ecn, own, None) is None and where in fab.positions.values:
                    _emit(
                        fab,
                        R_ECN_UNITS,
                        where,
                        f"class '{c.name}': ECN {_b(c.ecn.min)}/{_b(c.ecn.max)} cannot be expressed on {dev.platform} "
                        f"{dev.name}: it states a fill-level percent of the queue's buffer share; set "
                        f"ecn.{own}: {{min_percent, max_percent}}",
                    )
        wd = s.pfc_watchdog
        if not (wd.enabled and s.lossless_priorities and cap.watchdog_ranges):
            continue
        values = {
            "polling_ms": wd.polling,
            "detection_ms": wd.detection,
            "restoration_ms": wd.restoration,
            "detection_polls": wd.detection / wd.polling if wd.polling and wd.detection else None,
            "restoration_polls": wd.restoration / wd.polling if wd.polling and wd.restoration else None,
        }
        keys = {
            "polling_ms": "polling",
            "detection_ms": "detection",
            "restoration_ms": "restoration",
            "detection_polls": "detection",
            "restoration_polls": "restoration",
        }
        for fld, lo, hi in cap.watchdog_ranges:
            v = values.get(fld)
            if v is None:
                continue
            key = keys[fld]
            path = s.origin.get(f"pfc_watchdog.{key}", ("qos", "pfc_watchdog"))
            polls = fld.endswith("_polls")
            what = f"{key} {getattr(wd, key)} ms = {v:g} polls of {wd.polling} ms" if polls else f"{key} {v} ms"
            if polls and not float(v).is_integer():
                _emit(
                    fab,
                    R_WD_RANGE,
                    path,
                    f"PFC watchdog {what} cannot be expressed on {dev.platform} {dev.name}: "
                    f"{key} is a whole number of polls",
                )
            elif not lo <= v <= hi:
                _emit(
                    fab,
                    R_WD_RANGE,
                    path,
                    f"PFC watchdog {what} cannot be expressed on {dev.platform} {dev.name}: "
                    f"range {lo}..{hi} ({cap.watchdog_ranges_source})",
                )


def run_rules(fab: Fabric) -> None:
    for fn in CHECKS:
        fn(fab)


# ------------------------------------------------------------------ platform conformance (RC140-RC149)
R_NO_DEFAULT_CLASS = rule(
    "RC140",
    "warning",
    "No default class for the DSCPs the intent does not name",
    "add a lossy class of role other (e.g. `default`, DSCP 0, priority 0) to take every other DSCP",
    "DSCPs the intent does not name keep the platform's default class (EOS: DSCP / 8, queues served "
    "strict priority), and vendors disagree on that default",
)


@check
def _conformance(fab: Fabric) -> None:
    """Every DSCP has a home: a platform that maps all 64 DSCPs needs a class to put the unnamed ones in."""
    from roceconf.intent.desired import default_class

    seen: set[tuple[int, str]] = set()
    for dev in fab.devices.values():
        key = (id(dev.settings), dev.platform)
        if key in seen:
            continue
        seen.add(key)
        plat = _platform(dev.platform)
        if plat is None or not plat.capabilities.every_dscp_mapped or default_class(dev.settings.classes):
            continue
        _emit(
            fab,
            R_NO_DEFAULT_CLASS,
            ("qos", "classes"),
            f"{dev.name} ({dev.platform}): no lossy class of role other takes the DSCPs the intent does not "
            f"name; they keep the {dev.platform} default mapping",
        )


# settings a device's OS release does not have yet (RC167): registered by importing the module
import roceconf.intent.releases  # noqa: E402, F401
