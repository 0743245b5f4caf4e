"""Intent -> desired DeviceState per device (the only input of every template).

``desired_states`` builds one state per *shape* (the devices expanded from one intent entry share their
settings and ports) and gives the other devices of the shape a shallow copy with their own hostname: they
share the interface table and its per-port objects, so treat them as read-only values and
``model_copy(deep=True)`` one before changing it (within one device no two ports share an object, so a deep
copy can be changed port by port). At 32,768 GPUs this is the difference between ~377,000 per-port pydantic
copies and a few hundred.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import Any

from roceconf import platforms
from roceconf.intent.fabric import DeviceSpec, Fabric
from roceconf.intent.model import DynamicLb, TrafficClass
from roceconf.names import natural_key
from roceconf.platforms.base import Capabilities, version_key
from roceconf.render import render_state
from roceconf.resources import MissingResource
from roceconf.state import META_FIELDS, DeviceState, Ecmp, Ecn, Interface, NicRdma, Pfc, PfcWatchdog, Sched
from roceconf.units import threshold_bytes


def _round(value: int, quantum: int) -> int:
    return max(quantum, int(round(value / quantum)) * quantum) if quantum > 1 else value


def default_class(classes: list[TrafficClass]) -> TrafficClass | None:
    """The class every DSCP the intent does not name goes to ("every DSCP has a home").

    The lossy class of role ``other`` that holds DSCP 0 (RFC 4594 "Default Forwarding" / best effort), else
    the lossy ``other`` class with the lowest priority. None when the intent has no such class: the
    unnamed DSCPs then keep the platform's own default (rule RC140 says so)."""
    lossy = [c for c in classes if c.role == "other" and not c.lossless]
    with_zero = [c for c in lossy if 0 in c.dscp]
    if with_zero:
        return with_zero[0]
    return min(lossy, key=lambda c: c.priority, default=None)


def dscp_homes(classes: list[TrafficClass]) -> dict[str, int]:
    """DSCP (0-63, string) -> priority: the intent's DSCPs, every other DSCP to the default class."""
    named = {d: c.priority for c in sorted(classes, key=lambda c: c.priority) for d in c.dscp}
    home = default_class(classes)
    if home is None:
        return {str(d): p for d, p in named.items()}
    return {str(d): named.get(d, home.priority) for d in range(64)}


def _port_ecn(e: Ecn | tuple, speed_gbps: int) -> Ecn:
    """The ECN of one port: a percent Ecn as it is; (min, max, probability, quantum) in bytes at the port's
    speed (a queue delay becomes bytes = delay x speed / 8, :func:`roceconf.units.threshold_bytes`)."""
    if isinstance(e, Ecn):
        return e.model_copy()
    lo, hi, prob, q = e
    return Ecn(
        min_bytes=_round(threshold_bytes(lo, speed_gbps), q),
        max_bytes=_round(threshold_bytes(hi, speed_gbps), q),
        probability=prob,
    )


def _dynamic(dyn: DynamicLb | None, cap: Capabilities, capped: bool) -> dict[str, object]:
    """``ecmp.dynamic`` / ``ecmp.flowlet_gap_us`` of a device: the platform's term for the intent's mode
    (``Capabilities.dlb_modes``); a mode or gap it cannot state is None here and refused by RC160."""
    if dyn is None:
        return {}
    mode = dict(cap.dlb_modes).get(dyn.mode)  # a mode the platform has no term for: None, refused by RC160
    gap = dyn.flowlet_gap if mode == "flowlet" and (cap.dlb_flowlet_gap or not capped) else None
    return {"dynamic": mode, "flowlet_gap_us": gap}


def desired_state(dev: DeviceSpec, ports: Collection[str] | None = None) -> DeviceState:
    """What is rendered for a device: the intent restricted to the platform's capabilities (fields the
    platform cannot state are None, ECN thresholds rounded to the platform's quantum). ``ports``: only
    these ports in the interface table (one of each :func:`port_groups` group: the device's values
    otherwise as they are, see there)."""
    return _state(dev, capped=True, only=ports)


def intended_state(dev: DeviceSpec, ports: Collection[str] | None = None) -> DeviceState:
    """Everything the intent asks of a device, before any platform capability is applied.

    ``roceconf.intent.unexpressed`` compares it with parse(render(desired_state)): a field that differs is not
    configured as the intent says, and is reported (RC150) instead of being dropped silently. ``ports`` as
    in :func:`desired_state`."""
    return _state(dev, capped=False, only=ports)


_DIGITS = re.compile(r"\d+")


def port_groups(dev: DeviceSpec) -> dict[str, list[str]] | None:
    """The ports of a device whose interface state is one value, first port (natural order) -> all of
    them in natural order; None when a port name has a dot or is empty (a state path could not name it).

    A port's desired and intended interface state is a function of the device's settings and of the
    port's speed, MTU, QoS flag and RDMA device only (see ``_state``); ports alike in those, and in the
    form of their name (digits aside: the syntax a config names them in), render and read back alike.
    So one port of each group is rendered and read back for the device (`unexpressed`, `expressible`):
    the device's own values otherwise, its hostname, seed and release, are all in that render. The
    device-wide values derived from ports (the class MTU, whether any port binds QoS) are kept, every
    distinct port value being present."""
    out: dict[tuple, list[str]] = {}
    for name in sorted(dev.ports, key=natural_key):
        p = dev.ports[name]
        if not p.qos:
            continue
        if not name or "." in name:
            return None
        out.setdefault((p.speed_gbps, p.mtu, p.rdma_device, _DIGITS.sub("0", name)), []).append(name)
    return {names[0]: names for names in out.values()}


def _state(dev: DeviceSpec, capped: bool, only: Collection[str] | None = None) -> DeviceState:
    s = dev.settings
    plat = platforms.get(dev.platform)
    cap = plat.capabilities
    lossless = s.lossless_priorities
    hints = plat.render_hints(dev.asic, dev.model) if plat.render_hints else {}
    release = plat.release(dev.os_version, dev.model)
    if release:
        hints = {**hints, "os_version": release}
    # settings the device's release does not have yet (``Capabilities.introduced``): not rendered; an intent
    # that counts on them is refused at validation (RC167, roceconf.intent.releases)
    lacks = (
        {f for f, first, _ in cap.introduced if version_key(release) < version_key(first)}
        if capped and release and cap.introduced
        else set()
    )
    if dev.buffer_model and "buffer_model" in hints:  # stated in the intent: wins over the platform default
        hints = {**hints, "buffer_model": dev.buffer_model}
    if cap.every_dscp_mapped:
        dscp_to_tc = dscp_homes(s.classes)
    else:
        dscp_to_tc = {str(d): c.priority for c in sorted(s.classes, key=lambda c: c.priority) for d in c.dscp}
    ecn: dict[str, Ecn | tuple] = {}
    sched = {}
    for c in s.classes:
        if c.ecn is not None and not dev.is_host and (cap.ecn or not capped):
            q = cap.ecn_quantum_bytes if capped else 1
            own = getattr(c.ecn, dev.platform.replace("-", "_"), None)
            if cap.ecn_units == "percent" and own is not None:
                # the platform's own unit, as the intent states it (never converted from bytes)
                ecn[str(c.priority)] = Ecn(
                    min_percent=own.min_percent, max_percent=own.max_percent, probability=c.ecn.probability
                )
            else:  # a percent platform without its own value cannot carry these bytes: refused by RC130
                # bytes as stated, or a queue delay: converted per port speed below (bytes = delay x speed / 8)
                ecn[str(c.priority)] = (c.ecn.min, c.ecn.max, c.ecn.probability, q)
        if c.scheduling is not None and (cap.scheduling or not capped):
            sched[str(c.priority)] = Sched(
                mode=c.scheduling.mode,
                bandwidth_percent=c.scheduling.weight_percent if c.scheduling.mode == "dwrr" else None,
            )
    if cap.scheduling and cap.unused_queues_round_robin and not dev.is_host:
        # no queue the intent does not use is left at a strict-priority default (served ahead of RoCE)
        used = {c.priority for c in s.classes}
        strict = [c.priority for c in s.classes if c.scheduling is not None and c.scheduling.mode == "strict"]
        top = max(strict) if strict and cap.round_robin_demotes_lower else 7
        for tc in cap.unused_queues_round_robin(hints):
            if tc not in used and tc <= top:
                sched[str(tc)] = Sched(mode="dwrr")
        sched = dict(sorted(sched.items(), key=lambda kv: int(kv[0])))
    roce, cnp = s.roce, s.cnp
    itfs: dict[str, Interface] = {}
    for name in sorted(dev.ports, key=natural_key) if only is None else sorted(only, key=natural_key):
        port = dev.ports[name]
        if not port.qos:
            continue
        mtu = port.mtu or (s.mtu.host_nic if dev.is_host else s.mtu.switch_port)
        rdma = None
        if dev.is_host:
            rdma = NicRdma(
                device=port.rdma_device,
                roce_tos=(roce.dscp[0] << 2) if roce and roce.dscp else None,
                cnp_dscp=cnp.dscp[0] if cnp and cnp.dscp else None,
                cnp_priority=cnp.priority if cnp else None,
                dcqcn_rp=[roce.priority] if roce and s.nic.dcqcn else [],
                dcqcn_np=[roce.priority] if roce and s.nic.dcqcn else [],
            )
        itfs[name] = Interface(
            mtu=mtu,
            trust=s.trust,
            pfc=Pfc(enabled=bool(lossless), no_drop=list(lossless)),
            pfc_watchdog=(
                (s.pfc_watchdog.enabled and bool(lossless))
                if not dev.is_host and "pfc_watchdog" not in lacks
                else None
            ),
            link_pause=s.link_pause if dev.is_host else None,
            ecn={k: _port_ecn(v, port.speed_gbps) for k, v in ecn.items()},
            scheduling={k: _sched_copy(v) for k, v in sched.items()},
            rdma=rdma,
        )
    wd = PfcWatchdog()
    ecmp = Ecmp()
    if not dev.is_host and "pfc_watchdog" not in lacks:
        w = s.pfc_watchdog
        f = cap.watchdog_fields if capped else frozenset(PfcWatchdog.model_fields)
        # timers in the platform's resolution (EOS: 10 ms); RC150 reports a value that had to be rounded
        wq = cap.watchdog_quantum_ms if capped else 1
        wd = PfcWatchdog(
            enabled=w.enabled if "enabled" in f else None,
            detection_ms=_round(w.detection, wq) if "detection_ms" in f else None,
            restoration_ms=_round(w.restoration, wq) if "restoration_ms" in f else None,
            polling_ms=_round(w.polling, wq) if "polling_ms" in f else None,
            action=w.action if w.action in cap.watchdog_actions or not capped else None,
        )
    if not dev.is_host:
        fields = sorted(x for x in s.ecmp.fields if not capped or not cap.hash_fields or x in cap.hash_fields)
        ecmp = Ecmp(
            fields=fields,
            seed=s.ecmp.seed if cap.hash_seed or not capped else None,
            # symmetric hashing is an opt-in feature: `false` asks for nothing a config must state
            symmetric=s.ecmp.symmetric if cap.hash_symmetric or (not capped and s.ecmp.symmetric) else None,
            **_dynamic(s.ecmp.dynamic, cap, capped),
        )
    # the traffic-class MTU (NX-OS network-qos 'mtu'): every lossless class carries the largest port MTU
    mtus = [i.mtu for i in itfs.values() if i.mtu is not None]
    class_mtu = max(mtus) if cap.class_mtu and lossless and mtus and not dev.is_host else None
    return DeviceState(
        extra_config=[line for line, _ in dev.extra_config] if cap.extra_config or not capped else [],
        hints=hints,
        platform=dev.platform,
        hostname=dev.name,
        dscp_to_tc=dscp_to_tc,
        interfaces=itfs,
        pfc_watchdog=wd,
        ecmp=ecmp,
        class_mtu=class_mtu,
    )


def _sched_copy(m: Sched, _new: Any = object.__new__, _set: Any = object.__setattr__) -> Sched:
    """``m.model_copy()`` (its own Sched per port) without pydantic's generic copy: what
    ``BaseModel.__copy__`` sets for a model without extra fields or private attributes (Sched has
    neither: extra="forbid"), at a third of the cost (a distinct fabric copies one per class per port)."""
    out = _new(Sched)
    _set(out, "__dict__", m.__dict__.copy())
    _set(out, "__pydantic_extra__", None)
    _set(out, "__pydantic_fields_set__", m.__pydantic_fields_set__.copy())
    _set(out, "__pydantic_private__", None)
    return out


def ports_key(dev: DeviceSpec) -> tuple:
    """The ports of a device by content (what a desired state takes from them, positions aside)."""
    return tuple((p.name, p.speed_gbps, p.role, p.mtu, p.qos, p.rdma_device) for p in dev.ports.values())


def shape(dev: DeviceSpec, ports: dict[int, tuple] | None = None) -> tuple:
    """Devices with the same settings object (one intent entry, or entries with the same role and profiles)
    and the same ports have one desired state but for the hostname. Ports compare by content, so devices
    listed one by one (e.g. the output of `roceconf expand`) share it too. ``ports``: the ports keys of a
    loop over one fabric, by the id of the ports dictionary (the devices of one intent entry share it, and
    the fabric keeps it alive)."""
    if ports is None:
        return (
            dev.platform,
            dev.asic,
            dev.model,
            dev.os_version,
            dev.buffer_model,
            id(dev.settings),
            ports_key(dev),
        )
    pk = ports.get(id(dev.ports))
    if pk is None:
        pk = ports[id(dev.ports)] = ports_key(dev)
    return (dev.platform, dev.asic, dev.model, dev.os_version, dev.buffer_model, id(dev.settings), pk)


def _renamed(state: DeviceState, hostname: str | None) -> DeviceState:
    """`state` for another device of the same shape (shares the read-only values, fresh meta data)."""
    return state.renamed(hostname=hostname, warnings=[], sources={}, defaults=[])


def desired_states(fab: Fabric, only: str | None = None) -> dict[str, DeviceState]:
    """Desired state per device, natural order. Devices of one intent entry share their values."""
    return {name: state for name, (state, _) in _desired_shapes(fab, only).items()}


def _shaped(fab: Fabric, only: str | None) -> Iterator[tuple[str, DeviceSpec, tuple]]:
    """(name, device, its `shape` key) of every device (of ``only``), natural order."""
    ports: dict[int, tuple] = {}
    for name in sorted(fab.devices, key=natural_key):
        if only is None or name == only:
            dev = fab.devices[name]
            yield name, dev, shape(dev, ports)


def _desired_shapes(fab: Fabric, only: str | None) -> dict[str, tuple[DeviceState, tuple]]:
    """`desired_states` with each device's `shape` key."""
    out: dict[str, tuple[DeviceState, tuple]] = {}
    shapes: dict[tuple, DeviceState] = {}  # the fabric holds the keyed objects for the whole loop
    for name, dev, key in _shaped(fab, only):
        if key in shapes:
            out[name] = (_renamed(shapes[key], name), key)
        else:
            out[name] = (shapes.setdefault(key, desired_state(dev)), key)
    return out


def _as_rendered(want: object, got: object) -> object:
    """`want` as the rendered config carries it, at every depth: where the read-back agrees, `want`; where
    it lost a stated value (None), None; where it carries another value (the platform states it in its own
    terms, e.g. NVUE restores after one polling interval), the read-back value.

    What the read-back lacks entirely is not carried, whatever its depth: an entry of a keyed table (the
    ECN of a class, a DSCP, a port) that the read-back does not have is left out, a nested block it reads
    as None (a NIC port's RDMA settings) is None. Neither is audited; validation reports both (RC150, or
    RC025 for a roceconf default the intent does not state)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = {}
        for k, v in want.items():
            if k not in got:
                continue  # a table entry the config does not carry (a model always dumps every field)
            g = got[k]
            if v is None or g is None:
                out[k] = None
            elif isinstance(v, dict):
                out[k] = _as_rendered(v, g) if isinstance(g, dict) else v
            else:
                out[k] = g
        return out
    return want


def expressible(
    desired: DeviceState,
    groups: dict[str, list[str]] | None = None,
    order: list[str] | None = None,
    back: DeviceState | None = None,
) -> DeviceState:
    """The desired state restricted to what the platform's config syntax can carry.

    A field that does not survive render -> parse (e.g. DCQCN on a generic `dcb` host, a hash seed on a
    platform without seed syntax) cannot be configured, and so is not audited on that platform; a field the
    config carries with another value is audited against that value (what the rendered config makes the
    device do). Both are reported at validation (RC150).

    ``groups``: the device's :func:`port_groups`; only the first port of each group is rendered and read
    back (``desired`` may hold those ports only), and what it reads back as stands for its group; ``order``:
    every port of the groups in the device's interface order (default: ``desired``'s). ``back``: that
    read-back when it is known already (the expressibility check's, ``Fabric.readbacks``).
    """
    plat = platforms.get(desired.platform)
    probe = desired.renamed(extra_config=[]) if desired.extra_config else desired
    if groups is not None:
        probe = probe.renamed(interfaces={p: desired.interfaces[p] for p in groups if p in desired.interfaces})
    if back is None:
        try:  # extra_config lines are not audited (RC163): what they would change is not read back
            back = plat.parse(render_state(probe))
        except MissingResource:  # no templates: an error, not "audit everything"
            raise
        except Exception:  # noqa: BLE001 - a broken template is caught by the platform tests; audit everything
            return desired if groups is None else _full(desired, groups, order)
    want = desired if groups is None else desired.renamed(interfaces=probe.interfaces)
    data = _as_rendered(want.model_dump(exclude=set(META_FIELDS)), back.model_dump(exclude=set(META_FIELDS)))
    if groups is not None and isinstance(data.get("interfaces"), dict):
        # every port of a group has its first port's value (port_groups): and so what it is rendered as
        done = data["interfaces"]
        rep_of = {n: rep for rep, names in groups.items() for n in names}
        names = list(desired.interfaces) if order is None else order
        data["interfaces"] = {n: done[rep_of[n]] for n in names if rep_of.get(n) in done}
    return DeviceState.model_validate({**data, "hints": dict(desired.hints)})


def _full(desired: DeviceState, groups: dict[str, list[str]], order: list[str] | None) -> DeviceState:
    """``desired`` with every port of its groups (each its own copy of its group's first port's value)."""
    if order is None:
        return desired
    rep_of = {n: rep for rep, names in groups.items() for n in names}
    itfs = {n: desired.interfaces[rep_of[n]].model_copy(deep=True) for n in order if rep_of[n] in desired.interfaces}
    return desired.renamed(interfaces=itfs)


def expressible_states(fab: Fabric, only: str | None = None) -> dict[str, DeviceState]:
    """`expressible(desired_state(dev))` for every device, natural order (what drift and `check` compare).

    What a platform can carry depends on the values, not on the device's name: one render and re-parse per
    shape (a fabric of a thousand identical leaves renders one), the other devices of the shape get a copy
    with their own hostname that shares the values (read-only, as in `desired_states`). A device is rendered
    with one port of each of its port groups (:func:`port_groups`), and not at all when the expressibility
    check has read it back already (``Fabric.readbacks``)."""
    out: dict[str, DeviceState] = {}
    shapes: dict[tuple, DeviceState] = {}  # the fabric holds the keyed objects for the whole loop
    for name, dev, key in _shaped(fab, only):
        if key not in shapes:
            groups = port_groups(dev)
            if groups is None:
                shapes[key] = expressible(desired_state(dev))
            else:
                rep_of = {n: rep for rep, names in groups.items() for n in names}
                order = [n for n in sorted(dev.ports, key=natural_key) if n in rep_of]
                known = fab.readbacks.get(key)
                back = known[1] if known is not None and known[0] == name else None
                shapes[key] = expressible(desired_state(dev, list(groups)), groups, order, back)
        exp = shapes[key]  # a hostname the platform cannot carry stays unset for every device of the shape
        out[name] = exp if exp.hostname in (None, name) else _renamed(exp, name)
    return out
