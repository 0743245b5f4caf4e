"""Nothing is dropped silently: intent values a platform's rendered config does not carry.

One generic mechanism for every platform. For a device, the *intended* state (everything the intent asks,
``desired.intended_state``) is compared field by field with what its rendered config says when it is read
back, ``parse(render(desired_state))``. A field that differs is either not configured at all (read back as
None) or configured with another value (e.g. rounded to a platform unit, a hash field set the platform
cannot state); each becomes a :class:`Loss`, which ``roceconf validate`` / ``render`` report as warning
RC150 (RC126 for ECMP hash fields) naming the device, the field and the platform.

Nothing here names a platform: what a platform can state is whatever its template renders and its parser
reads back. A platform removes a loss by rendering the value, or by a parser that fills a documented
platform default (``DeviceState.defaults``) where the config cannot state it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from roceconf import platforms
from roceconf.intent.desired import desired_state, intended_state, port_groups, shape
from roceconf.intent.fabric import DeviceSpec, Fabric
from roceconf.names import compress_interfaces, natural_key
from roceconf.render import render_state
from roceconf.resources import MissingResource
from roceconf.state import META_FIELDS, DeviceState
from roceconf.yamlsrc import Path_


@dataclass(frozen=True)
class Loss:
    """One intended value that the rendered config does not carry as the intent states it."""

    device: str
    platform: str
    #: Dotted DeviceState path; a port's field is ``interfaces.*.<field>`` (the ports are in ``ports``).
    field: str
    wanted: Any
    #: What the rendered config reads back as; None = not configured at all.
    got: Any
    ports: tuple[str, ...] = ()
    #: Intent data path the value comes from (for the diagnostic's position).
    origin: Path_ = ()

    @property
    def rule(self) -> str:
        return "RC126" if self.field == "ecmp.fields" else "RC150"

    def describe(self) -> str:
        """'ecmp.seed 10' / 'interfaces.*.ecn.3.min_bytes 150001 (ports swp1, swp2)'."""
        text = f"{self.field} {_show(self.wanted)}"
        if self.ports:
            text += f" (port{'s' if len(self.ports) > 1 else ''} {', '.join(compress_interfaces(list(self.ports)))})"
        return text

    def outcome(self) -> str:
        return "not configured" if self.got is None else f"configured as {_show(self.got)}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _leaves(data: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Flatten a semantic dict: dicts are walked, lists and scalars are leaves."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield prefix, data


def _get(data: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def differences(intended: DeviceState, back: DeviceState) -> list[tuple[str, Any, Any]]:
    """[(dotted path, intended value, read-back value)] for every stated intended leaf that differs.

    Only values the intent states count (None and empty dicts are "not stated"); what the read-back adds
    (documented defaults, platform extras) is not a loss."""
    want = intended.model_dump(mode="json", exclude=set(META_FIELDS))
    got = back.model_dump(mode="json", exclude=set(META_FIELDS))
    out: list[tuple[str, Any, Any]] = []
    _compare(want, got, got, "", out)
    return out


def _compare(want: dict, got: Any, root: Any, prefix: str, out: list[tuple[str, Any, Any]]) -> None:
    """`differences` for one dict of the intended state: its leaves in :func:`_leaves` order, each against
    the value at its dotted path in the read-back, found by walking ``got`` alongside instead of from the
    root per leaf. A key with a dot in it, or an empty one, is looked up by its dotted path (:func:`_get`
    splits it) as before."""
    for k, v in want.items():
        key = str(k)
        path = f"{prefix}.{key}" if prefix else key
        if not key or "." in key:
            for leaf, value in _leaves(v, path):
                if value is None or leaf == "platform":
                    continue
                have = _get(root, leaf)
                if have != value:
                    out.append((leaf, value, have))
            continue
        if isinstance(v, dict):
            _compare(v, got.get(key) if isinstance(got, dict) else None, root, path, out)
            continue
        if v is None or path == "platform":
            continue
        have = got.get(key) if isinstance(got, dict) else None
        if have != v:
            out.append((path, v, have))


def _origin(dev: DeviceSpec, path: str) -> Path_:
    """Intent data path behind a state path (where the user states the value)."""
    s = dev.settings
    o = s.origin
    parts = path.split(".")
    by_prio = {c.priority: c for c in s.classes}

    def cls(prio: str, field: str) -> Path_:
        c = by_prio.get(int(prio)) if prio.isdigit() else None
        return o.get(f"classes.{c.name}.{field}", ("qos", "classes")) if c else ("qos", "classes")

    head = parts[0]
    if head == "hostname":
        return dev.path + ("name",)
    if head == "dscp_to_tc":
        c = next((c for c in s.classes if str(parts[1]) in map(str, c.dscp)), None)
        return o.get(f"classes.{c.name}.dscp", ("qos", "classes")) if c else ("qos", "classes")
    if head == "pfc_watchdog":
        return o.get(f"pfc_watchdog.{parts[1].removesuffix('_ms')}", ("qos", "pfc_watchdog"))
    if head == "ecmp":
        return o.get(f"ecmp.{parts[1]}", ("ecmp",))
    if head != "interfaces" or len(parts) < 3:
        return dev.path
    port = dev.ports.get(parts[1])
    field = parts[2]
    if field == "mtu":
        if port is not None and port.mtu:
            return port.path + ("mtu",)
        key = "mtu.host_nic" if dev.is_host else "mtu.switch_port"
        return o.get(key, ("mtu",))
    if field == "trust":
        return ("qos", "trust")
    if field == "link_pause":
        return ("qos", "link_pause")
    if field == "pfc_watchdog":
        return o.get("pfc_watchdog.enabled", ("qos", "pfc_watchdog"))
    if field == "pfc":
        lossless = next((c for c in s.classes if c.lossless), None)
        return (
            o.get(f"classes.{lossless.name}.lossless", ("qos", "classes")) if lossless else ("qos", "classes")
        )
    if field in ("ecn", "scheduling") and len(parts) > 3:
        return cls(parts[3], field)
    if field == "rdma" and len(parts) > 3:
        sub = parts[3]
        if sub == "device":
            return (port.path + ("rdma_device",)) if port is not None else dev.path
        if sub == "roce_tos" and s.roce:
            return o.get(f"classes.{s.roce.name}.dscp", ("qos", "classes"))
        if sub in ("cnp_dscp", "cnp_priority") and s.cnp:
            return o.get(f"classes.{s.cnp.name}.{sub.removeprefix('cnp_')}", ("qos", "classes"))
        if sub.startswith("dcqcn"):
            return o.get("nic.dcqcn", ("nic",))
    return port.path if port is not None else dev.path


def device_losses(dev: DeviceSpec) -> list[Loss]:
    """Every intended value of one device that its rendered config does not carry (see module doc)."""
    return [loss for loss, _ in _losses(dev)]


def _losses(dev: DeviceSpec, keep: dict[tuple, tuple[str, Any]] | None = None, key: tuple = ()) -> list[tuple[Loss, str]]:
    """``device_losses`` with the state path each loss's origin was found from. ``keep``: where the read-back
    goes under ``key`` for `desired.expressible_states` (``Fabric.readbacks``)."""
    plat = platforms.get(dev.platform)
    groups = port_groups(dev)
    reps = None if groups is None else list(groups)
    desired = desired_state(dev, reps)
    try:
        back = plat.parse(render_state(desired))
    except MissingResource:  # no template at all: an installation error (exit 2), not a loss
        raise
    except Exception as e:  # noqa: BLE001 - a broken template must not hide the loss of every value
        return [(Loss(dev.name, dev.platform, "(render)", "config", f"failed: {e}", (), dev.path), "")]
    if keep is not None and not desired.extra_config:  # expressible() reads no meta data: not kept
        keep[key] = (dev.name, back.renamed(warnings=[], sources={}, defaults=[]))
    found = differences(intended_state(dev, reps), back)
    if groups is not None:
        found = _every_port(dev, found, groups)
    merged: dict[tuple[str, str, str], tuple[Loss, str]] = {}
    for path, want, got in found:
        parts = path.split(".")
        port = None
        if parts[0] == "interfaces" and len(parts) > 2:
            port, parts[1] = parts[1], "*"
        generic = ".".join(parts)
        key = (generic, repr(want), repr(got))
        old, first = merged.get(key, (None, path))
        ports = (old.ports if old else ()) + ((port,) if port else ())
        merged[key] = (
            Loss(
                dev.name, dev.platform, generic, want, got, ports, old.origin if old else _origin(dev, path)
            ),
            first,
        )
    return list(merged.values())


def _every_port(
    dev: DeviceSpec, found: list[tuple[str, Any, Any]], groups: dict[str, list[str]]
) -> list[tuple[str, Any, Any]]:
    """`differences` of a device rendered with one port of each group (``desired.port_groups``) as those of
    the device with all its ports: each port's differences are its group's first port's, in the order the
    whole device gives (the interface table's leaves are one run, port by port in natural order)."""
    head: list[tuple[str, Any, Any]] = []
    tail: list[tuple[str, Any, Any]] = []
    per: dict[str, list[tuple[str, Any, Any]]] = {}
    for item in found:
        path = item[0]
        if path.startswith("interfaces.") and path.count(".") >= 2:
            port, rest = path[11:].split(".", 1)
            per.setdefault(port, []).append((rest, item[1], item[2]))
        else:
            (tail if per else head).append(item)
    if not per:
        return found
    rep_of = {n: rep for rep, names in groups.items() for n in names}
    mid = [
        (f"interfaces.{n}.{rest}", want, got)
        for n in sorted(dev.ports, key=natural_key)
        if n in rep_of
        for rest, want, got in per.get(rep_of[n], ())
    ]
    return head + mid + tail


def _group_key(dev: DeviceSpec, ports: dict[int, tuple] | None = None) -> tuple:
    # Devices with one settings object and equal ports (one intent entry, or devices listed one by one as
    # `roceconf expand` writes them) lose the same values: render one of them (desired.shape).
    return shape(dev, ports)


def fabric_losses(fab: Fabric) -> dict[str, list[Loss]]:
    """device name -> its losses (only devices that have any; only those of ``fab.scope`` when set). One
    render per group of identical devices."""
    cache: dict[tuple, tuple[DeviceSpec, list[tuple[Loss, str]]]] = {}
    out: dict[str, list[Loss]] = {}
    ports: dict[int, tuple] = {}  # the fabric keeps the ports dictionaries alive for the loop
    for name, dev in fab.devices.items():
        if fab.scope is not None and name not in fab.scope:
            continue
        try:
            platforms.get(dev.platform)
        except (KeyError, ImportError):
            continue
        key = _group_key(dev, ports)
        if key not in cache:
            cache[key] = (dev, _losses(dev, fab.readbacks, key))
        first, found = cache[key]
        # the origin is this device's own when it is another intent entry than the one rendered
        same = first.path == dev.path
        losses = [
            Loss(
                name,
                x.platform,
                x.field,
                x.wanted,
                x.got,
                x.ports,
                x.origin if same or not p else _origin(dev, p),
            )
            for x, p in found
        ]
        if losses:
            out[name] = losses
    return out


def _devices(names: list[str]) -> str:
    return (
        ", ".join(names)
        if len(names) <= 6
        else f"{', '.join(names[:3])} ... {names[-1]} ({len(names)} devices)"
    )


def messages(
    losses: dict[str, list[Loss]], where: Callable[[str, Loss], Path_]
) -> list[tuple[str, Path_, str, list[Loss]]]:
    """One message per rule, intent position and lost value (``where(device, loss)`` is the position):
    [(rule id, intent path, message, losses)], e.g.
    'ecmp.seed 10 cannot be expressed on junos spine2: not configured' (devices of one platform that lose
    the same value the same way share the message)."""
    groups: dict[tuple[str, Path_, str, str, str], list[str]] = {}
    members: dict[tuple[str, Path_, str, str, str], list[Loss]] = {}
    for name, items in losses.items():
        for x in items:
            k = (x.rule, where(name, x), x.describe(), x.platform, x.outcome())
            groups.setdefault(k, []).append(name)
            members.setdefault(k, []).append(x)
    return [
        (
            rid,
            path,
            f"{what} cannot be expressed on {plat} {_devices(devs)}: {how}",
            members[(rid, path, what, plat, how)],
        )
        for (rid, path, what, plat, how), devs in groups.items()
    ]
