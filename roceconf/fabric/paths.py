"""The lossless path graph: which ports RoCE crosses, from host NIC up through the switch tiers.

Tiers come from the cabling, not from role names: host NICs are tier 0, a switch cabled to a host is tier 1,
a switch cabled to tier 1 (and not to a host) tier 2, and so on. Each link is oriented lower -> upper.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from roceconf.intent.fabric import DeviceSpec, Fabric, Link, Port


@dataclass(frozen=True, slots=True)
class End:
    device: DeviceSpec
    port: Port

    @property
    def label(self) -> str:
        return f"{self.device.name}:{self.port.name}"


@dataclass(frozen=True, slots=True)
class Hop:
    """One cabled link of the lossless path, oriented from the lower tier to the upper one."""

    lower: End
    upper: End
    link: Link
    #: host-switch, switch-switch or host-host (derived from the ends)
    kind: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        hl, hu = self.lower.device.is_host, self.upper.device.is_host
        kind = "host-host" if hl and hu else "host-switch" if hl or hu else "switch-switch"
        object.__setattr__(self, "kind", kind)

    @property
    def ends(self) -> tuple[End, End]:
        return self.lower, self.upper


@dataclass
class PathGraph:
    hops: list[Hop] = field(default_factory=list)
    tier: dict[str, int] = field(default_factory=dict)
    #: device -> hops that touch it
    by_device: dict[str, list[Hop]] = field(default_factory=lambda: defaultdict(list))
    #: links skipped because an end is undefined or not a RoCE (qos) port; validation reports those
    skipped: int = 0

    def ports(self, device: str) -> list[End]:
        """Lossless-path ports of one device."""
        out = []
        for h in self.by_device.get(device, []):
            out.extend(e for e in h.ends if e.device.name == device)
        return out

    def uplinks(self, device: str) -> list[Hop]:
        return [h for h in self.by_device.get(device, []) if h.lower.device.name == device]

    def paths_from(self, device: str, port: str | None = None) -> Iterator[list[End]]:
        """Every upward path from a host NIC (or any device) to the top tier: [nic, leaf port, leaf uplink,
        spine port, ...]."""
        starts = [h for h in self.uplinks(device) if port is None or h.lower.port.name == port]

        def walk(h: Hop, seen: frozenset[str]) -> Iterator[list[End]]:
            up = [u for u in self.uplinks(h.upper.device.name) if u.upper.device.name not in seen]
            if not up:
                yield [h.lower, h.upper]
                return
            for u in up:
                for rest in walk(u, seen | {u.upper.device.name}):
                    yield [h.lower, h.upper, *rest]

        for h in starts:
            yield from walk(h, frozenset({device, h.upper.device.name}))


def build(fab: Fabric) -> PathGraph:
    """The path graph of the RoCE ports of a fabric (links between two qos ports of defined devices)."""
    g = PathGraph()
    pairs: list[tuple[End, End, Link]] = []
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fab.links:
        da, db = fab.devices.get(link.a.device), fab.devices.get(link.b.device)
        pa = da.ports.get(link.a.port) if da else None
        pb = db.ports.get(link.b.port) if db else None
        if da is None or db is None or pa is None or pb is None or not (pa.qos and pb.qos):
            g.skipped += 1
            continue
        pairs.append((End(da, pa), End(db, pb), link))
        adj[da.name].add(db.name)
        adj[db.name].add(da.name)
    # breadth-first tiers from the hosts
    frontier = [n for n in adj if fab.devices[n].is_host]
    for n in frontier:
        g.tier[n] = 0
    while frontier:
        nxt = []
        for n in frontier:
            for m in adj[n]:
                if m not in g.tier:
                    g.tier[m] = g.tier[n] + 1
                    nxt.append(m)
        frontier = nxt
    top = max(g.tier.values(), default=0) + 1
    for n in adj:  # switches not reachable from any host (a spine-only island): above everything
        g.tier.setdefault(n, top)
    for a, b, link in pairs:
        lower, upper = (a, b) if g.tier[a.device.name] <= g.tier[b.device.name] else (b, a)
        hop = Hop(lower, upper, link)
        g.hops.append(hop)
        g.by_device[a.device.name].append(hop)
        if b.device.name != a.device.name:
            g.by_device[b.device.name].append(hop)
    return g
