"""Fabric-wide checks on device states: the lossless path end to end, the headroom budget, hashing.

Every check works on ``DeviceState`` objects, so the same rules run on the desired states of an intent and on
the actual states read from devices (where each device alone may look plausible but the fabric is not).
Findings are ``Diagnostic`` objects positioned like validation: at the link's entry in the intent (or its
cabling-table line), or at the device / interface entry; for actual states the message names the device
file and line the value came from.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from roceconf.diagnostics import Diagnostic
from roceconf.fabric.headroom import DeviceHeadroom, fabric_headroom
from roceconf.fabric.paths import End, Hop, PathGraph, build
from roceconf.fabric.states import StateSet
from roceconf.intent.fabric import DeviceSpec, Fabric, Link
from roceconf.intent.rules import L2_OVERHEAD, ROCE_OVERHEAD, Rule, rule
from roceconf.names import natural_key
from roceconf.state import DeviceState, Interface
from roceconf.yamlsrc import Path_

R_TRUST = rule(
    "RC200",
    "error",
    "Link ends classify on different fields (trust)",
    "use the same trust mode (dscp for routed RoCEv2) on both ends",
    "a PCP-trusting port ignores DSCP (and vice versa): RoCE lands in the default, lossy class",
)
R_DSCP_LOSSY = rule(
    "RC201",
    "error",
    "RoCE DSCP does not land on a no-drop priority on a device of the path",
    "map the RoCE DSCP to the lossless priority and enable PFC no-drop for it on every hop",
    "one lossy hop is enough: drops trigger go-back-N retransmissions and timeouts",
)
R_LOSSLESS_ENDS = rule(
    "RC202",
    "error",
    "Link ends have different no-drop priority sets",
    "enable PFC on the same priorities on both ends of the link",
    "one-sided PFC is no flow control at all: the sender never honours the pause",
)
R_CNP_MAP = rule(
    "RC203",
    "error",
    "CNP DSCP/priority of the NIC and the switch disagree",
    "classify the NIC's CNP DSCP into the CNP priority on the switch (and set the same on every NIC)",
    "CNPs land in a congested or lossy queue; DCQCN reacts late and queues reach XOFF",
)
R_CNP_SCHED = rule(
    "RC204",
    "error",
    "CNP queue is not strict priority on a switch port of the path",
    "schedule the CNP traffic class strict priority",
    "delayed CNPs let queues grow to XOFF and PFC storms follow",
)
R_NIC_MTU = rule(
    "RC205",
    "error",
    "NIC MTU below RoCE path MTU + 96",
    "set the netdev MTU to at least the RoCE path MTU + 96 (4192 for 4096)",
    "the NIC negotiates a smaller RoCE MTU than the fabric expects (iboe_get_mtu subtracts 96 B)",
)
R_SWITCH_MTU = rule(
    "RC206",
    "error",
    "Switch port MTU below the NIC MTU + 22 on the path",
    "raise the switch port MTU to the largest NIC MTU + 22 on every hop",
    "full-size RoCE frames are dropped silently; QPs hit retry-exceeded",
)
R_LINK_MTU = rule(
    "RC207",
    "error",
    "Switch-to-switch link ends have different MTUs",
    "set the same MTU on both ends",
    "frames the larger side sends are dropped by the smaller side",
)
R_ECN_XOFF = rule(
    "RC208",
    "warning",
    "ECN max above the estimated PFC XOFF point",
    "lower the ECN max threshold of the lossless queue",
    "if PFC pauses before ECN marks, congestion spreads by pauses (head-of-line blocking, victim flows). "
    "Estimate: (buffer - headroom reserve) / (ports x lossless priorities); a heuristic",
)
R_WATCHDOG = rule(
    "RC209",
    "warning",
    "PFC watchdog not armed on a lossless switch port",
    "enable the PFC watchdog on every port with a no-drop priority",
    "a stuck receiver can pause the fabric forever (PFC storm / deadlock)",
)
R_LINK_PAUSE = rule(
    "RC210",
    "error",
    "802.3x link-level pause on a lossless port",
    "disable link-level pause (flowcontrol) where PFC is used",
    "802.3x and PFC are mutually exclusive; 802.3x pauses every class",
)
R_HEADROOM = rule(
    "RC211",
    "error",
    "PFC headroom of a switch does not fit its buffer",
    "shorten cables, lower MTU, use fewer lossless priorities or ports, or a shared headroom pool",
    "a lossless priority without its headroom drops frames in flight after XOFF",
)
R_HEADROOM_UNKNOWN = rule(
    "RC212",
    "info",
    "Headroom budget cannot be computed",
    "add the ASIC's buffer parameters (with sources) to roceconf/data/asics.yaml or --asic-table",
    "the buffer budget is unchecked for these switches",
)
R_POLARIZE = rule(
    "RC213",
    "warning",
    "Two tiers hash with the same fields and seed",
    "give each tier its own hash seed",
    "identical hashing at leaf and spine sends correlated flows down the same links (polarization)",
)
R_SPORT = rule(
    "RC214",
    "error",
    "ECMP hash without the UDP source port",
    "add the UDP source port (src_port) to the ECMP hash fields",
    "RoCEv2 uses destination port 4791 for every flow; entropy is only in the UDP source port",
)
R_UNREADABLE = rule(
    "RC215",
    "error",
    "Device could not be read",
    "check reachability, credentials or the saved config",
    "its links and its share of the lossless path are unchecked",
)
R_PORT_MISSING = rule(
    "RC216",
    "error",
    "Lossless path port has no RoCE configuration",
    "configure the port (roceconf render / remediation) or fix the cabling",
    "the port runs the platform default: lossy, no PFC",
)

FINDING_SEVERITIES = ("error", "warning")


@dataclass
class CheckResult:
    fabric: str
    source: str
    kind: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)
    devices: int = 0
    hops: int = 0
    headroom: list[DeviceHeadroom] = field(default_factory=list)

    @property
    def findings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity in FINDING_SEVERITIES and d.code != R_UNREADABLE.id]

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings, 3 some device could not be read (and nothing else was found)."""
        if self.findings:
            return 1
        return 3 if self.unreadable else 0

    def codes(self) -> list[str]:
        return sorted({d.code for d in self.diagnostics})

    def to_dict(self) -> dict[str, Any]:
        sev: dict[str, int] = defaultdict(int)
        for d in self.diagnostics:
            sev[d.severity] += 1
        return {
            "format_version": 1,
            "intent": self.fabric,
            "source": self.source,
            "states": self.kind,
            "summary": {
                "devices": self.devices,
                "links": self.hops,
                "unreadable": len(self.unreadable),
                "error": sev["error"],
                "warning": sev["warning"],
                "info": sev["info"],
            },
            "exit_code": self.exit_code,
            "unreadable": [{"device": k, "reason": v} for k, v in self.unreadable.items()],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


class _Ctx:
    def __init__(self, fab: Fabric, ss: StateSet, graph: PathGraph) -> None:
        self.fab = fab
        self.ss = ss
        self.graph = graph
        self.out: list[Diagnostic] = []
        self._pos: dict[Path_, tuple[int, int]] = {}
        #: set when a check looked beyond its hop (the upward paths of a host): its verdict is not memoised
        self.looked_beyond = False

    # ------------------------------------------------------------------ positions
    def _at(self, path: Path_) -> tuple[int, int]:
        p = self._pos.get(path)
        if p is None:
            p = self._pos[path] = self.fab.positions.of(path)
        return p

    def emit(self, r: Rule, where: Link | Path_, message: str) -> None:
        if isinstance(where, Link):
            if where.origin:
                f, ln = where.origin
                self.out.append(Diagnostic(f, ln, 1, r.severity, r.id, message, r.hint))  # type: ignore[arg-type]
                return
            path = where.path
        else:
            path = where
        line, col = self._at(path)
        self.out.append(
            Diagnostic(self.fab.file, line, col, r.severity, r.id, message, r.hint, ".".join(map(str, path)))  # type: ignore[arg-type]
        )

    def src(self, device: str, path: str) -> str:
        """' (FILE:LINE)' for a value of an actual state; '' for desired states."""
        if not self.ss.actual:
            return ""
        label = self.ss.labels.get(device, device)
        st = self.ss.states.get(device)
        line = st.line_of(path, last=True) if st is not None else None
        return f" ({label}:{line})" if line else f" ({label})"

    # ------------------------------------------------------------------ state access
    def itf(self, e: End) -> Interface | None:
        st = self.ss.states.get(e.device.name)
        return None if st is None else st.interfaces.get(e.port.name)

    def state(self, e: End) -> DeviceState:
        return self.ss.states[e.device.name]


def no_drop(itf: Interface) -> list[int]:
    """Effective no-drop priorities of a port (PFC explicitly disabled = none)."""
    if itf.pfc.enabled is False:
        return []
    return sorted(itf.pfc.no_drop or [])


def priority_of(state: DeviceState, itf: Interface, dscp: int) -> int | None:
    m = itf.dscp_to_tc if itf.dscp_to_tc is not None else state.dscp_to_tc
    return m.get(str(dscp))


def _roce_dscps(dev: DeviceSpec) -> list[int]:
    roce = dev.settings.roce
    return list(roce.dscp) if roce else []


def _landing(ctx: _Ctx, e: End, itf: Interface, dscp: int) -> tuple[int | None, str]:
    """Priority a RoCE packet with `dscp` gets on this port, and how it was decided."""
    if itf.trust == "pcp":
        roce = e.device.settings.roce
        return (roce.priority if roce else None), "PCP trust"
    return priority_of(ctx.state(e), itf, dscp), f"DSCP {dscp}"


# ---------------------------------------------------------------------------------------------- per hop
def _hop(ctx: _Ctx, hop: Hop, nic_mtu_max: int | None) -> None:
    a, b = hop.lower, hop.upper
    ia, ib = ctx.itf(a), ctx.itf(b)
    for e, i in ((a, ia), (b, ib)):
        if i is None:
            ctx.emit(
                R_PORT_MISSING,
                hop.link,
                f"{e.label} is cabled to {(b if e is a else a).label} on the lossless path but has no RoCE "
                f"configuration{ctx.src(e.device.name, 'interfaces')}",
            )
    if ia is None or ib is None:
        return
    link = hop.link
    # trust
    if ia.trust is not None and ib.trust is not None and ia.trust != ib.trust:
        ctx.emit(
            R_TRUST,
            link,
            f"{a.label} trusts {ia.trust}{ctx.src(a.device.name, f'interfaces.{a.port.name}.trust')} but "
            f"{b.label} trusts {ib.trust}{ctx.src(b.device.name, f'interfaces.{b.port.name}.trust')}",
        )
    # no-drop sets
    na, nb = no_drop(ia), no_drop(ib)
    if na != nb:
        ctx.emit(
            R_LOSSLESS_ENDS,
            link,
            f"no-drop priorities differ: {a.label} {na}{ctx.src(a.device.name, f'interfaces.{a.port.name}.pfc')} "
            f"vs {b.label} {nb}{ctx.src(b.device.name, f'interfaces.{b.port.name}.pfc')}",
        )
    # RoCE DSCP on a no-drop priority, both ends
    for e, i, nd in ((a, ia, na), (b, ib, nb)):
        for d in _roce_dscps(e.device):
            prio, how = _landing(ctx, e, i, d)
            if prio is None or prio not in nd:
                where = "is not classified (default class)" if prio is None else f"-> priority {prio}"
                ctx.emit(
                    R_DSCP_LOSSY,
                    link,
                    f"{e.label}: RoCE {how} {where}, no-drop {nd}"
                    f"{ctx.src(e.device.name, f'dscp_to_tc.{d}' if prio is None else f'interfaces.{e.port.name}.pfc')}",
                )
    # link-level pause
    for e, i in ((a, ia), (b, ib)):
        if i.link_pause:
            ctx.emit(
                R_LINK_PAUSE,
                link,
                f"{e.label} has 802.3x link-level pause on{ctx.src(e.device.name, f'interfaces.{e.port.name}.link_pause')}",
            )
    # MTU chain
    if hop.kind == "host-switch":
        host, hi, sw, si = (a, ia, b, ib) if a.device.is_host else (b, ib, a, ia)
        _nic(ctx, hop, host, hi, sw, si)
    elif hop.kind == "switch-switch":
        if ia.mtu is not None and ib.mtu is not None and ia.mtu != ib.mtu:
            ctx.emit(
                R_LINK_MTU,
                link,
                f"MTU differs: {a.label} {ia.mtu}{ctx.src(a.device.name, f'interfaces.{a.port.name}.mtu')} vs "
                f"{b.label} {ib.mtu}{ctx.src(b.device.name, f'interfaces.{b.port.name}.mtu')}",
            )
        if nic_mtu_max is not None:
            for e, i in ((a, ia), (b, ib)):
                if i.mtu is not None and i.mtu < nic_mtu_max + L2_OVERHEAD:
                    ctx.emit(
                        R_SWITCH_MTU,
                        link,
                        f"{e.label} MTU {i.mtu}{ctx.src(e.device.name, f'interfaces.{e.port.name}.mtu')} < largest "
                        f"NIC MTU on the path {nic_mtu_max} + {L2_OVERHEAD}",
                    )


def _lossy_on_path(ctx: _Ctx, host: End, dscp: int) -> tuple[End, str, list[int]] | None:
    """First port on the host NIC's upward paths where `dscp` is not no-drop (None: lossless everywhere)."""
    seen: set[tuple[str, str]] = set()
    for path in ctx.graph.paths_from(host.device.name, host.port.name):
        for e in path[1:]:
            k = (e.device.name, e.port.name)
            if k in seen or e.device.name not in ctx.ss.states:
                continue
            seen.add(k)
            i = ctx.itf(e)
            if i is None:
                continue
            prio, _how = _landing(ctx, e, i, dscp)
            nd = no_drop(i)
            if prio is None or prio not in nd:
                return e, "no class (default class)" if prio is None else f"priority {prio}", nd
    return None


def _nic(ctx: _Ctx, hop: Hop, host: End, hi: Interface, sw: End, si: Interface) -> None:
    link = hop.link
    s = host.device.settings
    need = s.mtu.roce_path + ROCE_OVERHEAD
    if hi.mtu is not None and hi.mtu < need:
        ctx.emit(
            R_NIC_MTU,
            link,
            f"{host.label} MTU {hi.mtu}{ctx.src(host.device.name, f'interfaces.{host.port.name}.mtu')} < RoCE "
            f"path MTU {s.mtu.roce_path} + {ROCE_OVERHEAD} = {need}",
        )
    if hi.mtu is not None and si.mtu is not None and si.mtu < hi.mtu + L2_OVERHEAD:
        ctx.emit(
            R_SWITCH_MTU,
            link,
            f"{sw.label} MTU {si.mtu}{ctx.src(sw.device.name, f'interfaces.{sw.port.name}.mtu')} < "
            f"{host.label} MTU {hi.mtu} + {L2_OVERHEAD}",
        )
    rd = hi.rdma
    if rd is None:
        return
    # the DSCP the NIC really marks RoCE with must be lossless on the switch too
    if rd.roce_tos is not None:
        d = rd.roce_tos >> 2
        if d not in _roce_dscps(host.device):
            ctx.looked_beyond = True
            lossy = _lossy_on_path(ctx, host, d)
            if lossy is not None:
                e, fate, nd = lossy
                ctx.emit(
                    R_DSCP_LOSSY,
                    link,
                    f"{host.label} marks RoCE with DSCP {d} (TOS {rd.roce_tos})"
                    f"{ctx.src(host.device.name, f'interfaces.{host.port.name}.rdma')}, not the RoCE DSCP "
                    f"{_roce_dscps(host.device)}; {e.label} gives it {fate}, no-drop {nd}",
                )
    # CNP: the NIC's CNP DSCP must be classified into the NIC's CNP priority by the switch
    cnp = s.cnp
    if rd.cnp_dscp is not None and si.trust != "pcp":
        q = priority_of(ctx.state(sw), si, rd.cnp_dscp)
        want = rd.cnp_priority if rd.cnp_priority is not None else (cnp.priority if cnp else None)
        if q is None or (want is not None and q != want):
            got = "does not classify it (default class)" if q is None else f"maps it to priority {q}"
            ctx.emit(
                R_CNP_MAP,
                link,
                f"{host.label} sends CNPs with DSCP {rd.cnp_dscp} priority {rd.cnp_priority}"
                f"{ctx.src(host.device.name, f'interfaces.{host.port.name}.rdma')}; {sw.label} {got}"
                f"{ctx.src(sw.device.name, f'dscp_to_tc.{rd.cnp_dscp}')}",
            )
    if cnp is not None and cnp.dscp and rd.cnp_dscp is not None and rd.cnp_dscp not in cnp.dscp:
        ctx.emit(
            R_CNP_MAP,
            link,
            f"{host.label} sends CNPs with DSCP {rd.cnp_dscp}"
            f"{ctx.src(host.device.name, f'interfaces.{host.port.name}.rdma')}, the fabric's CNP DSCP is {cnp.dscp}",
        )


# ---------------------------------------------------------------------------------------------- per switch port
def _switch_ports(ctx: _Ctx) -> None:
    """Per switch port of the path: CNP strict, watchdog armed. Aggregated per device and rule."""
    for name in sorted(ctx.graph.by_device, key=natural_key):
        dev = ctx.fab.devices[name]
        st = ctx.ss.states.get(name)
        if dev.is_host or st is None:
            continue
        cnp = dev.settings.cnp
        bad_sched: list[tuple[End, str]] = []
        bad_wd: list[End] = []
        seen: set[str] = set()
        for e in ctx.graph.ports(name):
            if e.port.name in seen:
                continue
            seen.add(e.port.name)
            i = st.interfaces.get(e.port.name)
            if i is None:
                continue
            if cnp is not None and cnp.dscp and i.scheduling:
                q = cnp.priority if i.trust == "pcp" else priority_of(st, i, cnp.dscp[0])
                sch = i.scheduling.get(str(q)) if q is not None else None
                if sch is None or sch.mode != "strict":
                    why = (
                        f"CNP DSCP {cnp.dscp[0]} is not classified"
                        if q is None
                        else f"CNP priority {q} is {sch.mode if sch and sch.mode else 'not scheduled'}"
                    )
                    bad_sched.append((e, why))
            if no_drop(i):
                armed = i.pfc_watchdog
                if armed is False or (armed is None and st.pfc_watchdog.enabled is not True):
                    bad_wd.append(e)
        if bad_sched:
            e, why = bad_sched[0]
            more = f" (and {len(bad_sched) - 1} more port(s) of {name})" if len(bad_sched) > 1 else ""
            ctx.emit(
                R_CNP_SCHED,
                e.port.path,
                f"{e.label}: {why}, not strict{ctx.src(name, f'interfaces.{e.port.name}.scheduling')}{more}",
            )
        if bad_wd:
            e = bad_wd[0]
            more = f" (and {len(bad_wd) - 1} more port(s) of {name})" if len(bad_wd) > 1 else ""
            ctx.emit(
                R_WATCHDOG,
                e.port.path,
                f"{e.label}: no-drop {no_drop(st.interfaces[e.port.name])} without an armed PFC watchdog"
                f"{ctx.src(name, f'interfaces.{e.port.name}.pfc_watchdog')}{more}",
            )


# ---------------------------------------------------------------------------------------------- headroom
def _fmt_bytes(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if abs(n) >= 1e6 else f"{n / 1e3:.1f} KB"


def _headroom(ctx: _Ctx, reports: list[DeviceHeadroom]) -> None:
    unknown: dict[str, list[DeviceHeadroom]] = defaultdict(list)
    for rep in reports:
        dev = ctx.fab.devices[rep.device]
        if rep.unknown:
            unknown[rep.asic or "(no asic)"].append(rep)
            continue
        if rep.margin is not None and rep.margin < 0:
            bad = [r.port for r in rep.rows if r.fits is False]
            ctx.emit(
                R_HEADROOM,
                dev.path + ("asic",) if dev.asic else dev.path,
                f"{rep.device} ({rep.asic}): headroom {_fmt_bytes(rep.total)} for {len(rep.rows)} port(s) exceeds "
                f"the buffer {_fmt_bytes(rep.budget or 0)} by {_fmt_bytes(-rep.margin)}; "
                f"{len(bad)} port(s) do not fit: {', '.join(bad[:6])}{' ...' if len(bad) > 6 else ''}",
            )
        # ECN max vs the estimated XOFF point (meaningless once the headroom alone does not fit)
        if rep.xoff_point is not None and (rep.margin is None or rep.margin >= 0):
            st = ctx.ss.states[rep.device]
            bad_ecn: list[tuple[str, int, int]] = []
            for row in rep.rows:
                i = st.interfaces.get(row.port)
                if i is None:
                    continue
                for p in no_drop(i):
                    ecn = i.ecn.get(str(p))
                    if ecn is not None and ecn.max_bytes is not None and ecn.max_bytes > rep.xoff_point:
                        bad_ecn.append((row.port, p, ecn.max_bytes))
            if bad_ecn:
                port, p, mx = bad_ecn[0]
                more = f" (and {len(bad_ecn) - 1} more port/priority pair(s))" if len(bad_ecn) > 1 else ""
                ctx.emit(
                    R_ECN_XOFF,
                    dev.ports[port].path,
                    f"{rep.device}:{port} priority {p}: ECN max {mx} B{ctx.src(rep.device, f'interfaces.{port}.ecn.{p}')}"
                    f" > estimated XOFF point {rep.xoff_point} B ({rep.xoff_basis}){more}",
                )
    for reps in unknown.values():
        dev = ctx.fab.devices[reps[0].device]
        names = [r.device for r in reps]
        ctx.emit(
            R_HEADROOM_UNKNOWN,
            dev.path + ("asic",) if dev.asic else dev.path,
            f"headroom budget unchecked for {len(names)} switch(es) ({', '.join(names[:4])}"
            f"{' ...' if len(names) > 4 else ''}): {reps[0].unknown}",
        )


# ---------------------------------------------------------------------------------------------- hashing
def _hashing(ctx: _Ctx) -> None:
    tiers: dict[tuple, dict[str, str]] = defaultdict(dict)
    for name in sorted(ctx.ss.states, key=natural_key):
        dev = ctx.fab.devices.get(name)
        if dev is None or dev.is_host:
            continue
        e = ctx.ss.states[name].ecmp
        if e.dynamic is not None:
            # dynamic load balancing / adaptive routing (the device's state says so) picks next hops by
            # queue and link load, not by the hash alone: it is left out of the polarization comparison
            continue
        if e.fields is not None and "src_port" not in e.fields:
            ctx.emit(
                R_SPORT,
                dev.path,
                f"{name}: ECMP hash fields {e.fields} lack the UDP source port{ctx.src(name, 'ecmp.fields')}",
            )
        if e.fields is None and e.seed is None:
            continue  # nothing known about this device's hashing
        # An unstated seed is not configured: the switch uses its default seed, whatever the intent says
        # (RC141), so two tiers without a configured seed are never assumed to differ (the defaults of
        # different platforms and ASICs are not documented as different).
        seed: Any = e.seed if e.seed is not None else ("default",)
        key = (tuple(sorted(e.fields or [])), seed, bool(e.symmetric))
        tiers[key].setdefault(dev.role, name)
    for (fields, seed, _sym), roles in tiers.items():
        if len(roles) < 2:
            continue
        devs = [roles[r] for r in sorted(roles)]
        last = ctx.fab.devices[devs[-1]]
        seed_txt = "their default seeds (no seed configured)" if isinstance(seed, tuple) else f"seed {seed}"
        ctx.emit(
            R_POLARIZE,
            last.path,
            f"tiers {', '.join(sorted(roles))} ({', '.join(devs)}) hash on {list(fields)} with {seed_txt}"
            f"{ctx.src(devs[-1], 'ecmp.seed')}",
        )


# ---------------------------------------------------------------------------------------------- entry point
def run_checks(
    fab: Fabric,
    ss: StateSet,
    *,
    table: dict[str, Any] | None = None,
    graph: PathGraph | None = None,
    memo: bool = True,
) -> CheckResult:
    """Run every fabric check on the given states; returns the findings (sorted by position). ``memo=False``
    checks every hop even where an identical one was clean (the same result, slower; for tests)."""
    g = graph or build(fab)
    ctx = _Ctx(fab, ss, g)
    for name, reason in ss.unreadable.items():
        dev = fab.devices.get(name)
        n = len(g.ports(name))
        ctx.emit(
            R_UNREADABLE,
            dev.path if dev else ("devices",),
            f"{name} could not be read: {reason}; {n} lossless-path port(s) unchecked",
        )
    nic_mtus = [
        i.mtu
        for h in g.hops
        for e in h.ends
        if e.device.is_host and (i := ctx.itf(e)) is not None and i.mtu is not None
    ]
    nic_max = max(nic_mtus) if nic_mtus else None
    # Desired states of one shape share their interface objects and DSCP map, so most hops of a large
    # fabric are the same check on the same objects: a hop whose inputs (below) were already checked without
    # a finding is not checked again. Only hops without findings are memoised (a finding names its devices),
    # never for actual states (their messages cite file and line), never for a hop that looked beyond itself.
    clean: set[tuple] | None = None if ss.actual or not memo else set()
    states = ss.states
    for hop in g.hops:
        lo, up = hop.lower, hop.upper
        if lo.device.name in ss.unreadable or up.device.name in ss.unreadable:
            continue
        sl, su = states.get(lo.device.name), states.get(up.device.name)
        if sl is None or su is None:
            continue
        if clean is None:
            _hop(ctx, hop, nic_max)
            continue
        key = (
            id(sl.interfaces.get(lo.port.name)),
            id(su.interfaces.get(up.port.name)),
            id(sl.dscp_to_tc),
            id(su.dscp_to_tc),
            id(lo.device.settings),
            id(up.device.settings),
            lo.device.is_host,
            up.device.is_host,
        )
        if key in clean:
            continue
        n, ctx.looked_beyond = len(ctx.out), False
        _hop(ctx, hop, nic_max)
        if len(ctx.out) == n and not ctx.looked_beyond:
            clean.add(key)
    _switch_ports(ctx)
    reports = fabric_headroom(fab, ss, graph=g, table=table)
    _headroom(ctx, reports)
    _hashing(ctx)
    seen: set[tuple] = set()
    diags = []
    for d in sorted(ctx.out, key=lambda d: (d.file, d.line, d.col, d.code, d.message)):
        k = (d.file, d.line, d.col, d.code, d.message)
        if k not in seen:
            seen.add(k)
            diags.append(d)
    return CheckResult(
        fabric=fab.file,
        source=ss.source,
        kind=ss.kind,
        diagnostics=diags,
        unreadable=dict(ss.unreadable),
        devices=len(fab.devices),
        hops=len(g.hops),
        headroom=reports,
    )
