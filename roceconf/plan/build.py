"""The plan itself: both intents' desired states flattened, diffed, grouped and phrased as changes."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf.compile import output_name
from roceconf.diagnostics import Diagnostic
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_state, port_groups, shape
from roceconf.intent.fabric import DeviceSpec
from roceconf.names import natural_key
from roceconf.plan.load import read_intent
from roceconf.plan.model import (
    DISRUPTION_RANK,
    RISK_RANK,
    Action,
    DeviceDiff,
    Plan,
    PlanChange,
    PlanCounts,
    PlanDiagnostic,
    PlanError,
    PlanSide,
)
from roceconf.plan.rules import DisruptionRule, classify
from roceconf.render import PLACEHOLDER, PLAIN_NAME, ShapeRenderer, render_state
from roceconf.resources import MissingResource
from roceconf.state import DeviceState

# ------------------------------------------------------------------------------------------- states
Flat = tuple[dict[tuple, Any], dict[str, dict[tuple, Any]]]


def _v(x: Any) -> Any:
    """A hashable value: lists become tuples, mappings sorted tuples of pairs."""
    if isinstance(x, list | tuple):
        return tuple(_v(i) for i in x)
    if isinstance(x, dict):
        return tuple(sorted((str(k), _v(v)) for k, v in x.items()))
    return x


def _walk(prefix: tuple, value: Any, out: dict[tuple, Any]) -> None:
    """Flatten fields the plan has no special phrasing for (e.g. added to the state later)."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _walk((*prefix, str(k)), v, out)
    else:
        out[prefix] = _v(value)


_DEVICE_KEYS = {"platform", "hostname", "dscp_to_tc", "pfc_watchdog", "ecmp", "interfaces"}
_PORT_KEYS = {"mtu", "trust", "pfc_watchdog", "link_pause", "pfc", "ecn", "scheduling", "dscp_to_tc", "rdma"}


def _flatten(sem: dict[str, Any]) -> Flat:
    dev: dict[tuple, Any] = {("platform",): sem.get("platform")}
    for d, tc in (sem.get("dscp_to_tc") or {}).items():
        dev[("dscp_to_tc", d)] = tc
    for f, v in (sem.get("pfc_watchdog") or {}).items():
        dev[("pfc_watchdog", f)] = _v(v)
    for f, v in (sem.get("ecmp") or {}).items():
        dev[("ecmp", f)] = _v(v)
    for k, v in sem.items():
        if k not in _DEVICE_KEYS:
            _walk((k,), v, dev)
    ports: dict[str, dict[tuple, Any]] = {}
    for name, itf in (sem.get("interfaces") or {}).items():
        lv: dict[tuple, Any] = {}
        for f in ("mtu", "trust", "pfc_watchdog", "link_pause"):
            lv[(f,)] = _v(itf.get(f))
        pfc = itf.get("pfc") or {}
        lv[("pfc",)] = (pfc.get("enabled"), _v(pfc.get("no_drop")))
        for tc, e in (itf.get("ecn") or {}).items():
            for f, v in e.items():
                lv[("ecn", tc, f)] = _v(v)
        for tc, s in (itf.get("scheduling") or {}).items():
            for f, v in s.items():
                lv[("scheduling", tc, f)] = _v(v)
        for d, tc in (itf.get("dscp_to_tc") or {}).items():
            lv[("port_dscp", d)] = tc
        for f, v in (itf.get("rdma") or {}).items():
            lv[("rdma", f)] = _v(v)
        for k, v in itf.items():
            if k not in _PORT_KEYS:
                _walk((k,), v, lv)
        ports[name] = lv
    return dev, ports


@dataclass
class _Shape:
    """Desired state shared by every device expanded from one intent entry (same settings and ports).

    ``flat`` is built from the state with one port of each port group (``desired.port_groups``), each port
    of a group given its first port's (read-only) values; the full state is built when the shape is
    rendered (``state``), and kept only when several devices share it."""

    dev: DeviceSpec
    flat: Flat
    devices: int = 0
    _state: DeviceState | None = None

    @property
    def state(self) -> DeviceState:
        if self._state is not None:
            return self._state
        state = desired_state(self.dev)
        if self.devices > 1:
            self._state = state
        return state


def _shape_flat(dev: DeviceSpec) -> Flat:
    """``_flatten`` of the device's desired state without its hostname."""
    groups = port_groups(dev)
    if groups is None:
        sem = desired_state(dev).semantic()
        sem.pop("hostname", None)
        return _flatten(sem)
    sem = desired_state(dev, list(groups)).semantic()
    sem.pop("hostname", None)
    flat_dev, flat_ports = _flatten(sem)
    rep_of = {n: rep for rep, names in groups.items() for n in names}
    ports = {
        n: flat_ports[rep_of[n]]
        for n in sorted(dev.ports, key=natural_key)
        if n in rep_of and rep_of[n] in flat_ports
    }
    return flat_dev, ports


@dataclass
class _Side:
    label: str
    fab: Fabric
    shapes: dict[str, _Shape] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)
    _renderer: ShapeRenderer = field(default_factory=ShapeRenderer)

    def render(self, name: str) -> str:
        if name in self._texts:
            return self._texts[name]
        shape = self.shapes[name]
        try:
            if shape.devices == 1:  # a device of its own: its text, once (nothing to share)
                return render_state(shape.state)
            state = shape.state.model_copy(update={"hostname": name})
            self._texts[name] = self._renderer.render(id(shape), state)
        except MissingResource:  # a broken installation is an error, never an empty diff
            raise
        except Exception as e:  # noqa: BLE001 - a plan still shows the rest
            self._texts[name] = f"# cannot render {name}: {e}\n"
        return self._texts[name]

    def file(self, name: str) -> str:
        return output_name(name, self.fab.devices[name].platform)

    def placeholder_text(self, name: str) -> str:
        """`render(name)` with the hostname placeholder (shared by the devices of the shape)."""
        shape = self.shapes[name]
        return self._renderer.placeholder_text(id(shape), shape.state)


def _side(label: str, fab: Fabric) -> _Side:
    side = _Side(label, fab)
    cache: dict[tuple, _Shape] = {}
    ports: dict[int, tuple] = {}
    for name in sorted(fab.devices, key=natural_key):
        dev = fab.devices[name]
        key = shape(dev, ports)  # ports by content: devices listed one by one share a shape too
        if key not in cache:
            cache[key] = _Shape(dev, _shape_flat(dev))
        found = side.shapes[name] = cache[key]
        found.devices += 1
    return side


Raw = tuple[tuple, str | None, Any, Any]


def _raw_diff(a: Flat, b: Flat) -> list[Raw]:
    (adev, aports), (bdev, bports) = a, b
    out: list[Raw] = []
    # the keys whose values differ, in repr order (sorting only those gives the same order)
    for k in sorted([k for k in set(adev) | set(bdev) if adev.get(k) != bdev.get(k)], key=repr):
        out.append((k, None, adev.get(k), bdev.get(k)))
    for p in sorted(set(aports) | set(bports), key=natural_key):
        if p not in bports:
            out.append((("port_removed",), p, aports[p].get(("pfc",), (None, None))[1], None))
        elif p not in aports:
            out.append((("port_added",), p, None, bports[p].get(("pfc",), (None, None))[1]))
        else:
            ap, bp = aports[p], bports[p]
            for k in sorted([k for k in set(ap) | set(bp) if ap.get(k) != bp.get(k)], key=repr):
                out.append((k, p, ap.get(k), bp.get(k)))
    return out


def _kind(key: tuple, port: str | None) -> str:
    head = key[0]
    if head in ("dscp_to_tc", "port_dscp"):
        return "dscp_map"
    return str(head)


def _lossless_ports(flat: Flat) -> int:
    return sum(1 for lv in flat[1].values() if (lv.get(("pfc",)) or (None, None))[1])


# ------------------------------------------------------------------------------------------- grouping
@dataclass
class _Group:
    key: tuple
    kind: str
    rule: DisruptionRule
    old: Any
    new: Any
    devices: dict[str, list[str]] = field(default_factory=dict)
    device_level: bool = False
    port_counts: dict[str, int] = field(default_factory=dict)


def _plural(word: str, n: int) -> str:
    if n == 1:
        return word
    if word.endswith("af"):
        return word[:-1] + "ves"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _devices_noun(n: int, roles: set[str], hosts: bool, switches: bool) -> str:
    if len(roles) == 1:
        word = next(iter(roles))
    elif hosts and not switches:
        word = "host"
    elif switches and not hosts:
        word = "switch"
    else:
        word = "device"
    return f"{n} {_plural(word, n)}"


def _size(v: Any) -> str:
    if not isinstance(v, int) or isinstance(v, bool):
        return _plain(v)
    if v and v % 1_000_000 == 0:
        return f"{v // 1_000_000} MB"
    if v and v % 1000 == 0:
        return f"{v // 1000} KB"
    if v and v % 1024 == 0:
        return f"{v // 1024} KiB"
    return f"{v} B"


def _plain(v: Any) -> str:
    if v is None:
        return "unset"
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, tuple | list):
        return ",".join(map(str, v)) if v else "none"
    return str(v)


def _ms(v: Any) -> str:
    return f"{v} ms" if isinstance(v, int) and not isinstance(v, bool) else _plain(v)


def _class_names(fab: Fabric) -> dict[int, str]:
    names: dict[int, list[str]] = {}
    for c in fab.base_settings.classes:
        names.setdefault(c.priority, []).append(c.name)
    return {p: "/".join(n) for p, n in names.items()}


_ECN_FIELD = {"min_bytes": "min", "max_bytes": "max", "probability": "probability"}
_RDMA_FIELD = {
    "device": "RDMA device",
    "roce_tos": "RoCE TOS (RDMA-CM)",
    "cnp_dscp": "CNP DSCP",
    "cnp_priority": "CNP priority",
    "dcqcn_rp": "DCQCN reaction-point priorities",
    "dcqcn_np": "DCQCN notification-point priorities",
}
_KIND_ORDER = [
    "device_removed",
    "device_added",
    "platform",
    "port_removed",
    "port_added",
    "pfc",
    "dscp_map",
    "trust",
    "mtu",
    "class_mtu",
    "ecn",
    "scheduling",
    "pfc_watchdog",
    "link_pause",
    "ecmp",
    "rdma",
]


class _Phraser:
    def __init__(self, old: Fabric, new: Fabric):
        self.old_cls = _class_names(old)
        self.new_cls = _class_names(new)

    def cls(self, prio: Any, new: bool = True) -> str | None:
        try:
            p = int(prio)
        except (TypeError, ValueError):
            return None
        return (self.new_cls if new else self.old_cls).get(p) or (self.old_cls if new else self.new_cls).get(
            p
        )

    def cls_obj(self, prio: Any) -> str:
        name = self.cls(prio)
        return f"class {name}" if name else f"priority {prio}"

    def phrase(self, g: _Group, roles: list[str]) -> tuple[str, str]:
        """(object, change text without scope)."""
        k, old, new = g.key, g.old, g.new
        kind = g.kind
        if kind == "pfc":
            o = set((old or (None, None))[1] or ())
            n = set((new or (None, None))[1] or ())
            parts = []
            for p in sorted(n - o):
                c = self.cls(p, new=True)
                parts.append(f"priority {p}{f' (class {c})' if c else ''} becomes lossless")
            for p in sorted(o - n):
                c = self.cls(p, new=False)
                parts.append(f"priority {p}{f' (class {c})' if c else ''} is no longer lossless")
            if not parts:
                parts.append(f"PFC {_plain((old or (None,))[0])} -> {_plain((new or (None,))[0])}")
            prios = sorted(n ^ o)
            obj = self.cls_obj(prios[0]) if len(prios) == 1 else "PFC"
            return obj, "; ".join(parts)
        if kind == "dscp_map":
            d = k[1]
            if old is not None and new is not None:
                a, b = self.cls(old, new=False), self.cls(new, new=True)
                if a and b and a != b:
                    return f"DSCP {d}", f"DSCP {d} moves from class {a} to class {b}"
                a = f"class {a} (priority {old})" if a else f"priority {old}"
                b = f"class {b} (priority {new})" if b else f"priority {new}"
                return f"DSCP {d}", f"DSCP {d} moves from {a} to {b}"
            if old is None:
                c = self.cls(new)
                return (
                    f"DSCP {d}",
                    f"DSCP {d} is now classified into {f'class {c}' if c else f'priority {new}'}",
                )
            c = self.cls(old, new=False)
            return (
                f"DSCP {d}",
                f"DSCP {d} is no longer classified (was {f'class {c}' if c else f'priority {old}'})",
            )
        if kind == "mtu":
            obj = f"role {roles[0]}" if len(roles) == 1 else f"roles {', '.join(roles)}"
            return obj, f"MTU of {obj} {_plain(old)} -> {_plain(new)}"
        if kind == "class_mtu":  # NX-OS: the network-qos class MTU, its own fact beside the ports' MTU
            return "network-qos class MTU", f"network-qos class MTU {_plain(old)} -> {_plain(new)}"
        if kind == "ecn":
            obj = self.cls_obj(k[1])
            f = _ECN_FIELD.get(k[2], k[2])
            fmt = (lambda v: f"{v}%" if v is not None else "unset") if f == "probability" else _size
            return obj, f"ECN {f} of {obj} {fmt(old)} -> {fmt(new)}"
        if kind == "scheduling":
            obj = self.cls_obj(k[1])
            if k[2] == "bandwidth_percent":
                return obj, (
                    f"scheduling weight of {obj} "
                    f"{f'{old}%' if old is not None else 'unset'} -> {f'{new}%' if new is not None else 'unset'}"
                )
            return obj, f"scheduling mode of {obj} {_plain(old)} -> {_plain(new)}"
        if kind == "trust":
            return "QoS trust", f"QoS trust {_plain(old)} -> {_plain(new)}"
        if kind == "pfc_watchdog":
            if len(k) == 1:
                return "PFC watchdog", f"PFC watchdog on lossless ports {_plain(old)} -> {_plain(new)}"
            fmt = _ms if k[1].endswith("_ms") else _plain
            f = k[1].removesuffix("_ms")
            return "PFC watchdog", f"PFC watchdog {f} {fmt(old)} -> {fmt(new)}"
        if kind == "link_pause":
            return "link pause", f"802.3x link pause {_plain(old)} -> {_plain(new)}"
        if kind == "ecmp":
            label = {
                "seed": "hash seed",
                "fields": "hash fields",
                "symmetric": "symmetric hashing",
                "dynamic": "dynamic load balancing",
                "flowlet_gap_us": "flowlet gap (us)",
            }.get(
                k[1], k[1]
            )
            return "ECMP hash", f"ECMP {label} {_plain(old)} -> {_plain(new)}"
        if kind == "rdma":
            return "host NICs", f"{_RDMA_FIELD.get(k[1], k[1])} {_plain(old)} -> {_plain(new)}"
        if kind == "platform":
            return "platform", f"platform {_plain(old)} -> {_plain(new)}"
        if kind in ("port_added", "port_removed"):
            prios = new if kind == "port_added" else old
            ll = f" (lossless {_plural('priority', len(prios))} {_plain(prios)})" if prios else ""
            verb = "added to" if kind == "port_added" else "removed from"
            return "interfaces", f"RoCE policy{ll} {verb}"
        return kind, f"{'.'.join(map(str, k))} {_plain(old)} -> {_plain(new)}"


def _field_path(key: tuple, port: bool) -> str:
    if key[0] in ("port_added", "port_removed"):
        return "interfaces.*"
    head = "interfaces.*." if port else ""
    if key[0] == "port_dscp":
        return head + "dscp_to_tc." + ".".join(map(str, key[1:]))
    if key[0] == "pfc":
        return head + "pfc"
    return head + ".".join(map(str, key))


def _json(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_json(x) for x in v]
    return v


def build_plan(old: Fabric, new: Fabric, old_label: str | None = None, new_label: str | None = None) -> Plan:
    """Compare two loaded intents and return the plan."""
    a = _side(old_label or old.file, old)
    b = _side(new_label or new.file, new)
    phr = _Phraser(old, new)
    groups: dict[tuple, _Group] = {}
    changes: list[PlanChange] = []
    diff_cache: dict[tuple[int, int], list[Raw]] = {}
    changed_devices: list[str] = []
    all_names = sorted(set(old.devices) | set(new.devices), key=natural_key)
    for name in all_names:
        if name not in new.devices:
            changed_devices.append(name)
            changes.append(_device_change("remove", name, a))
            continue
        if name not in old.devices:
            changed_devices.append(name)
            changes.append(_device_change("add", name, b))
            continue
        sa, sb = a.shapes[name], b.shapes[name]
        ck = (id(sa), id(sb))
        if ck not in diff_cache:
            raw = [] if sa.flat == sb.flat else _raw_diff(sa.flat, sb.flat)
            # a new platform replaces the whole config: the other differences follow from it
            diff_cache[ck] = [r for r in raw if r[0] == ("platform",)] or raw
        raws = diff_cache[ck]
        if not raws:
            continue
        changed_devices.append(name)
        dev = new.devices[name]
        nports = len(sb.flat[1]) or len(sa.flat[1])
        for key, port, ov, nv in raws:
            kind = _kind(key, port)
            lossless = bool(nv if kind == "port_added" else ov if kind == "port_removed" else False)
            rule = classify(kind, dev.platform, dev.is_host, lossless)
            gk = (key, port is None, ov, nv, rule)
            g = groups.get(gk)
            if g is None:
                g = groups[gk] = _Group(key, kind, rule, ov, nv, device_level=port is None)
            ports = g.devices.setdefault(name, [])
            if port is not None:
                ports.append(port)
            else:
                g.port_counts[name] = nports
    for g in groups.values():
        names = list(g.devices)
        specs = [new.devices[n] for n in names]
        roles = sorted({d.role for d in specs})
        plats = sorted({d.platform for d in specs})
        obj, text = phr.phrase(g, roles)
        nitf = sum(g.port_counts.values()) if g.device_level else sum(len(p) for p in g.devices.values())
        noun = _devices_noun(
            len(names), set(roles), any(d.is_host for d in specs), any(not d.is_host for d in specs)
        )
        scope = noun if g.device_level else f"{nitf} {_plural('port', nitf)} of {noun}"
        joint = " " if g.kind in ("port_added", "port_removed") else " on "
        action: Action = (
            "add" if g.kind == "port_added" else "remove" if g.kind == "port_removed" else "change"
        )
        changes.append(
            PlanChange(
                action=action,
                kind=g.kind,
                object=obj,
                summary=f"{text}{joint}{scope}",
                field=_field_path(g.key, not g.device_level),
                old=_json(g.old),
                new=_json(g.new),
                disruption=g.rule.disruption,
                risk=g.rule.risk,
                reason=g.rule.reason,
                rule_source=g.rule.source,
                device_count=len(names),
                interface_count=nitf,
                devices=names,
                interfaces={} if g.device_level else {n: p for n, p in g.devices.items()},
                platforms=plats,
                roles=roles,
            )
        )
    changes.sort(
        key=lambda c: (
            _KIND_ORDER.index(c.kind) if c.kind in _KIND_ORDER else len(_KIND_ORDER),
            -RISK_RANK[c.risk],
            c.summary,
        )
    )
    diags = _introduced(old.diagnostics, new.diagnostics)
    new_errors = sum(1 for d in new.diagnostics if d.severity == "error")
    memo: dict[tuple[int, int], tuple[str | None, int, int, int]] = {}
    devices = [_device_diff(n, a, b, memo) for n in changed_devices]
    affected_devs: set[str] = set()
    affected_itfs: set[tuple[str, str]] = set()
    for c in changes:
        affected_devs.update(c.devices)
        if c.interfaces:
            affected_itfs.update((d, p) for d, ps in c.interfaces.items() for p in ps)
        else:
            for d in c.devices:
                side = b if d in b.shapes else a
                affected_itfs.update((d, p) for p in side.shapes[d].flat[1])
    return Plan(
        old=PlanSide(source=a.label, fabric=old.intent.fabric, devices=len(old.devices)),
        new=PlanSide(source=b.label, fabric=new.intent.fabric, devices=len(new.devices)),
        changed=bool(changes),
        safe=new_errors == 0,
        new_errors=new_errors,
        disruption=max((c.disruption for c in changes), key=DISRUPTION_RANK.__getitem__, default=None),
        risk=max((c.risk for c in changes), key=RISK_RANK.__getitem__, default=None),
        counts=PlanCounts(
            add=sum(c.action == "add" for c in changes),
            change=sum(c.action == "change" for c in changes),
            remove=sum(c.action == "remove" for c in changes),
            devices=len(affected_devs),
            interfaces=len(affected_itfs),
        ),
        changes=changes,
        diagnostics=diags,
        devices=devices,
    )


def _device_change(action: Action, name: str, side: _Side) -> PlanChange:
    dev = side.fab.devices[name]
    shape = side.shapes[name]
    nports = len(shape.flat[1])
    lossless = _lossless_ports(shape.flat)
    kind = "device_added" if action == "add" else "device_removed"
    rule = classify(kind, dev.platform, dev.is_host, lossless=bool(lossless))
    extra = f", {lossless} lossless" if lossless and action == "remove" else ""
    text = (
        f"device {name} {'added' if action == 'add' else 'removed'} ({dev.platform}, {nports} ports{extra})"
    )
    return PlanChange(
        action=action,
        kind=kind,
        object=f"device {name}",
        summary=text,
        field=None,
        old=None,
        new=None,
        disruption=rule.disruption,
        risk=rule.risk,
        reason=rule.reason,
        rule_source=rule.source,
        device_count=1,
        interface_count=nports,
        devices=[name],
        interfaces={name: sorted(shape.flat[1], key=natural_key)},
        platforms=[dev.platform],
        roles=[dev.role],
    )


def _unified(ta: str, tb: str, fa: str | None, fb: str | None) -> tuple[str, int, int]:
    lines = list(
        difflib.unified_diff(
            ta.splitlines(keepends=True),
            tb.splitlines(keepends=True),
            f"a/{fa or fb}",
            f"b/{fb or fa}",
        )
    )
    text = "".join(x if x.endswith("\n") else x + "\n" for x in lines)
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return text, added, removed


def _device_diff(
    name: str, a: _Side, b: _Side, memo: dict[tuple[int, int], tuple[str | None, int, int, int]] | None = None
) -> DeviceDiff:
    """The rendered diff of one device. Devices with the same old and new shape have the same diff but for
    their hostname: with `memo`, one diff per shape pair with a placeholder hostname, substituted per device
    once it reproduced the real diff of the first two devices (else every device is diffed for real)."""
    in_a, in_b = name in a.fab.devices, name in b.fab.devices
    fa = a.file(name) if in_a else None
    fb = b.file(name) if in_b else None
    action: Action = "remove" if not in_b else "add" if not in_a else "change"
    plat = (b.fab.devices[name] if in_b else a.fab.devices[name]).platform
    key = (id(a.shapes[name]), id(b.shapes[name])) if memo is not None and in_a and in_b else None
    if key is not None and (not PLAIN_NAME.fullmatch(name) or 1 in (a.shapes[name].devices, b.shapes[name].devices)):
        key = None  # a shape pair of one device: its own diff, no placeholder diff beside it
    hit = memo.get(key) if key is not None and memo is not None else None
    if hit is not None and hit[0] is not None and hit[3] >= 2:
        text, added, removed = hit[0].replace(PLACEHOLDER, name), hit[1], hit[2]
    else:
        ta = a.render(name) if in_a else ""
        tb = b.render(name) if in_b else ""
        text, added, removed = _unified(ta, tb, fa, fb)
        if key is not None and memo is not None and (hit is None or hit[0] is not None):
            tmpl = hit[0] if hit is not None else None
            if tmpl is None:
                tmpl, _, _ = _unified(
                    a.placeholder_text(name),
                    b.placeholder_text(name),
                    a.file(name).replace(name, PLACEHOLDER),
                    b.file(name).replace(name, PLACEHOLDER),
                )
            ok = PLACEHOLDER not in ta + tb and tmpl.replace(PLACEHOLDER, name) == text
            memo[key] = (tmpl if ok else None, added, removed, (hit[3] if hit else 0) + 1)
    return DeviceDiff(
        device=name,
        action=action,
        platform=plat,
        old_file=fa,
        new_file=fb,
        added_lines=added,
        removed_lines=removed,
        diff=text,
    )


def _introduced(old: list[Diagnostic], new: list[Diagnostic]) -> list[PlanDiagnostic]:
    seen = {(d.code, d.message) for d in old}
    out = []
    done: set[tuple[str, str]] = set()
    for d in new:
        k = (d.code, d.message)
        if k in seen or k in done:
            continue
        done.add(k)
        out.append(
            PlanDiagnostic(
                severity=d.severity,
                code=d.code,
                message=d.message,
                file=d.file,
                line=d.line,
                col=d.col,
                hint=d.hint,
            )
        )
    return out


def plan_specs(old: str, new: str, cwd: str | Path | None = None) -> Plan:
    """Plan between two sides given as file paths or ``REV:PATH`` (raises :class:`PlanError`)."""
    fa = read_intent(old, cwd)
    # an OLD that could not be expanded in full (RC0xx: names, ranges, links, tables) lacks devices, ports or
    # links, which the plan would show as added: nothing true can be planned from it. Its semantic findings
    # (RC1xx) are compared with NEW's as usual.
    errors = [d for d in fa.diagnostics if d.severity == "error" and d.code.startswith("RC0")]
    if errors:
        msgs = [d.format() for d in errors[:2]]
        raise PlanError(
            [*msgs, f"error: {old}: OLD cannot be expanded in full ({len(errors)} error(s)); a plan needs a valid OLD"]
        )
    fb = read_intent(new, cwd)
    return build_plan(fa, fb, old, new)
