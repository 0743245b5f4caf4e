"""The fabric map: devices laid out by tier from the intent's links, coloured by their worst finding.

One vendor-neutral model (:class:`FabricMap`) is filled from each report (drift, check, plan, health, cabling) and drawn
as a self-contained HTML page (:mod:`roceconf.reports.html`) or a small Mermaid diagram for pull requests.

Tiers come from the cabling: hosts are tier 0, a switch's tier is its distance in links from the nearest host
(leaf 1, spine 2, super-spine 3); switches no host reaches sit above the rest. Hosts are ordered by the leaf
they hang off so that rails stay together. Past :data:`MAX_HOSTS` hosts, hosts that share the same set of leaves
are drawn as one aggregate node (its colour is its worst member's), which keeps a 32k-GPU fabric readable.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from roceconf.intent import Fabric
from roceconf.names import natural_key

#: colour classes, worst first; "ok" = nothing found, "unknown" = could not be read
COLORS = ("critical", "warning", "info", "unknown", "ok")
RANK = {c: i for i, c in enumerate(COLORS)}
#: above this many hosts, hosts sharing the same leaves are drawn as one node
MAX_HOSTS = 300
#: above this many switches in a tier, the switches sharing the same neighbours below (a pod) are one node
MAX_TIER = 256
#: at most this many nodes on one row of the map
ROW_NODES = 64
TIER_NAMES = {0: "hosts", 1: "leaves", 2: "spines", 3: "super-spines"}


def worst(colors: list[str] | set[str]) -> str:
    return min(colors, key=RANK.__getitem__) if colors else "ok"


@dataclass
class Item:
    """One finding shown for a device: severity, where (port / source line), what, impact, remediation."""

    severity: str
    title: str
    where: str = ""
    detail: str = ""
    impact: str = ""
    fix: str = ""
    #: what found it: the drift feature, the health rule, the check code, the plan's kind of change
    rule: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"s": self.severity, "t": self.title, "w": self.where, "d": self.detail, "i": self.impact, "f": self.fix,
                "r": self.rule}


@dataclass
class DeviceMark:
    color: str = "ok"
    status: str = ""
    items: list[Item] = field(default_factory=list)
    #: ports with a finding -> colour (links are coloured by their ends' ports)
    ports: dict[str, str] = field(default_factory=dict)


@dataclass
class EcmpMark:
    """One device's ECMP group on the map (cabling, RC520): its verdict's colour (``ok``, ``warning`` for a
    finding, ``unknown``; ``na`` where the platform reads no bytes, RC519: it colours nothing), the spread and
    each member link (port, peer device, bytes sent per second or None where not read)."""

    device: str
    status: str
    color: str
    reason: str | None
    max_over_mean: float | None
    cv: float | None
    members: list[tuple[str, str, float | None]]

    def to_dict(self) -> dict[str, Any]:
        return {"s": self.status, "c": self.color, "r": self.reason or "", "mom": self.max_over_mean, "cv": self.cv,
                "m": [[p, peer, rate] for p, peer, rate in self.members]}


@dataclass
class Node:
    id: str
    label: str
    tier: int
    platform: str
    role: str
    color: str
    members: list[str]
    x: float = 0.0
    y: float = 0.0


@dataclass
class FabricMap:
    title: str
    kind: str  # drift | health | check | plan | cabling
    nodes: list[Node]
    #: (node a, node b, colour, count of links drawn as this one)
    links: list[tuple[str, str, str, int]]
    marks: dict[str, DeviceMark]
    counts: dict[str, int]
    summary: str
    width: float = 0.0
    height: float = 0.0
    tiers: dict[int, str] = field(default_factory=dict)
    aggregated: bool = False
    charts: list[str] = field(default_factory=list)
    #: device -> platform (the members of a grouped node have their own)
    platform_of: dict[str, str] = field(default_factory=dict)
    #: the ECMP groups (cabling with link counters), one per device that has one
    ecmp: list[EcmpMark] = field(default_factory=list)


def _tiers(fab: Fabric) -> dict[str, int]:
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fab.links:
        adj[link.a.device].add(link.b.device)
        adj[link.b.device].add(link.a.device)
    tier = {n: 0 for n, d in fab.devices.items() if d.is_host}
    q = deque(tier)
    while q:
        n = q.popleft()
        for m in adj[n]:
            if m not in tier and m in fab.devices:
                tier[m] = tier[n] + 1
                q.append(m)
    top = max(tier.values(), default=0) + 1
    for n in fab.devices:
        tier.setdefault(n, top)
    return tier


def labels_fit(nodes: list[Node], step: float) -> bool:
    """Whether the names of a tier's nodes fit across the page under them (else they are written down the
    page, shown when zoomed in)."""
    return len(nodes) <= 60 and max((len(n.label) for n in nodes), default=0) * 6.2 <= step


def build(fab: Fabric, marks: dict[str, DeviceMark], title: str, kind: str, summary: str) -> FabricMap:
    """Lay the intent's fabric out and colour it with ``marks`` (device -> worst finding and items)."""
    tier = _tiers(fab)
    hosts = [n for n in fab.devices if tier[n] == 0]
    leaves_of: dict[str, tuple[str, ...]] = defaultdict(tuple)
    for link in fab.links:
        for a, b in ((link.a.device, link.b.device), (link.b.device, link.a.device)):
            if tier.get(a) == 0 and b in fab.devices:
                leaves_of[a] = tuple(sorted({*leaves_of[a], b}, key=natural_key))
    aggregated = len(hosts) > MAX_HOSTS
    node_of: dict[str, str] = {}
    nodes: dict[str, Node] = {}
    below: dict[str, set[str]] = defaultdict(set)
    for link in fab.links:
        for a, b in ((link.a.device, link.b.device), (link.b.device, link.a.device)):
            if a in tier and b in tier and tier[b] < tier[a]:
                below[a].add(b)
    per_tier: dict[int, list[str]] = defaultdict(list)
    for name in fab.devices:
        per_tier[tier[name]].append(name)
    grouped: set[int] = set()
    for t in sorted(per_tier):  # bottom-up: a tier is grouped by the nodes (or groups) of the tier below it
        names = per_tier[t]
        if t == 0:
            if aggregated:
                grouped.add(0)
                keys = {h: leaves_of[h] for h in names}
            else:
                keys = {}
        elif len(names) > MAX_TIER:
            grouped.add(t)
            keys = {n: tuple(sorted({node_of.get(x, x) for x in below[n]}, key=natural_key)) for n in names}
        else:
            keys = {}
        if not keys:
            for name in names:
                d = fab.devices[name]
                m = marks.get(name, DeviceMark())
                nodes[name] = Node(name, name, t, d.platform, d.role, m.color, [name])
                node_of[name] = name
            continue
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for n in names:
            groups[keys[n]].append(n)
        for members in groups.values():
            members.sort(key=natural_key)
            gid = f"group:{members[0]}"
            label = f"{members[0]}..{members[-1]} ({len(members)})" if len(members) > 1 else members[0]
            color = worst({marks.get(h, DeviceMark()).color for h in members})
            plats = sorted({fab.devices[h].platform for h in members})
            nodes[gid] = Node(gid, label, t, "/".join(plats), "hosts" if t == 0 else "pod", color, members)
            for h in members:
                node_of[h] = gid
    # links: one per node pair, coloured by the worst port mark of its ends
    pair: dict[tuple[str, str], tuple[str, int]] = {}
    for link in fab.links:
        a, b = node_of.get(link.a.device), node_of.get(link.b.device)
        if a is None or b is None or a == b:
            continue
        ca = marks.get(link.a.device, DeviceMark()).ports.get(link.a.port, "ok")
        cb = marks.get(link.b.device, DeviceMark()).ports.get(link.b.port, "ok")
        key = (a, b) if natural_key(a) <= natural_key(b) else (b, a)
        old = pair.get(key, ("ok", 0))
        pair[key] = (worst({old[0], ca, cb}), old[1] + 1)
    # positions: tiers bottom-up (hosts at the bottom), ordered so rails stay together
    by_tier: dict[int, list[Node]] = defaultdict(list)
    for n in nodes.values():
        by_tier[n.tier].append(n)
    leaf_rank = {n.id: i for i, n in enumerate(sorted(by_tier.get(1, []), key=lambda n: natural_key(n.id)))}

    def host_key(n: Node) -> tuple:
        first = leaves_of[n.members[0]]
        return (min((leaf_rank.get(node_of.get(x, x), 1 << 30) for x in first), default=1 << 30),
                natural_key(n.members[0]))

    # a tier wider than ROW_NODES wraps onto more rows: the map keeps a screen's proportions when fitted
    spacing, gap, sub = 22.0, 120.0, 40.0
    widest = min(ROW_NODES, max((len(v) for v in by_tier.values()), default=1))
    width = max(900.0, widest * spacing + 80)
    y = 64.0
    for t in sorted(by_tier, reverse=True):
        ns = by_tier[t]
        ns.sort(key=host_key if t == 0 else (lambda n: natural_key(n.id)))
        rows = -(-len(ns) // ROW_NODES)
        per_row = -(-len(ns) // rows)
        step = (width - 80) / max(1, per_row)
        # the rows of a tier leave room for its names, written down the page under each node when zoomed in
        down = max(sub, max(len(n.label) for n in ns) * 4.6 + 24) if not labels_fit(ns, step) else sub
        for i, n in enumerate(ns):
            r, c = divmod(i, per_row)
            n.x = round(40 + step * (c + 0.5), 1)
            n.y = round(y + down * r, 1)
        y += down * (rows - 1) + gap + (down - sub if not labels_fit(ns, step) else 0)
    height = y - gap + 60
    top = max(by_tier, default=0)
    counts = {c: 0 for c in COLORS}
    for name in fab.devices:
        counts[marks.get(name, DeviceMark()).color] += 1
    ordered = [n for t in sorted(by_tier, reverse=True) for n in by_tier[t]]
    return FabricMap(
        title=title,
        kind=kind,
        nodes=ordered,
        links=[(a, b, c, k) for (a, b), (c, k) in sorted(pair.items())],
        marks=marks,
        counts=counts,
        summary=summary,
        width=width,
        height=height,
        tiers={t: TIER_NAMES.get(t, f"tier {t}") if t < top or top <= 3 else "top" for t in by_tier},
        aggregated=bool(grouped),
        platform_of={n: d.platform for n, d in fab.devices.items()},
    )


def mermaid(fmap: FabricMap, cap: int = 30) -> str:
    """A Mermaid flowchart of the devices with findings and their neighbours (at most ``cap`` nodes), for
    pull-request comments; GitHub and GitLab render ```mermaid blocks."""
    hit = [n for n in fmap.nodes if n.color != "ok"]
    if not hit:
        return ""
    core = {n.id for n in hit[:cap]}
    keep = set(core)
    for a, b, _c, _k in fmap.links:  # one hop out from the devices with findings, within the cap
        if len(keep) >= cap:
            break
        if a in core or b in core:
            keep |= {a, b}
    ids = {nid: f"n{i}" for i, nid in enumerate(sorted(keep, key=natural_key))}
    by_id = {n.id: n for n in fmap.nodes}
    lines = ["```mermaid", "graph TD"]
    for nid, mid in ids.items():
        n = by_id[nid]
        label = n.label.replace('"', "'")
        lines.append(f'  {mid}["{label}<br/>{n.platform}"]:::{n.color}')
    for a, b, _c, _k in fmap.links:
        if a in ids and b in ids:
            lines.append(f"  {ids[a]} --- {ids[b]}")
    lines += [
        "  classDef critical fill:#f8d7da,stroke:#c0392b,color:#000",
        "  classDef warning fill:#fff3cd,stroke:#b7791f,color:#000",
        "  classDef info fill:#d6e9f8,stroke:#2b6cb0,color:#000",
        "  classDef unknown fill:#e2e2e2,stroke:#666,color:#000",
        "  classDef ok fill:#d4edda,stroke:#2f855a,color:#000",
        "```",
    ]
    more = len(hit) - len([n for n in hit if n.id in ids])
    if more > 0:
        lines.append(f"_{more} more device(s) with findings not drawn._")
    return "\n".join(lines) + "\n"


def to_data(fmap: FabricMap) -> dict[str, Any]:
    """What the page's script needs: per device with findings its colour, status, items and node (only those
    devices carry items, so a 32k-GPU page stays small); the members of each grouped node; the links as
    (node, node, colour) by node position (to draw a selected device's links)."""
    index = {n.id: i for i, n in enumerate(fmap.nodes)}
    devices = {}
    groups = {}
    for i, n in enumerate(fmap.nodes):
        if len(n.members) > 1 or n.members != [n.id]:
            groups[str(i)] = n.members
        for m in n.members:
            mark = fmap.marks.get(m)
            if mark is not None and (mark.items or mark.color != "ok"):
                devices[m] = {"c": mark.color, "st": mark.status, "n": i, "it": [x.to_dict() for x in mark.items]}
    links = [[index[a], index[b], RANK[c]] for a, b, c, _k in fmap.links]
    out = {"devices": devices, "kind": fmap.kind, "groups": groups, "links": links, "colors": list(COLORS)}
    if fmap.ecmp:
        out["ecmp"] = {g.device: g.to_dict() for g in fmap.ecmp}
    return out


__all__ = ["COLORS", "DeviceMark", "EcmpMark", "FabricMap", "Item", "Node", "build", "labels_fit", "mermaid", "to_data", "worst"]
