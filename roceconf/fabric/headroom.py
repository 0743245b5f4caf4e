"""PFC headroom per port and lossless priority, and the per-switch buffer budget.

The model is SONiC's dynamic headroom calculation for NVIDIA Spectrum ("Formula A" in docs/fabric-checks.md;
sonic-net/SONiC doc/qos/dynamically-headroom-calculation.md and sonic-net/sonic-swss
cfgmgr/buffer_headroom_mellanox.lua)::

    cable  = 2 * L_m * speed_bps / 198e6 / 8                     # bytes in flight on the cable, round trip
    peer   = pause_quanta(speed) * 512 / 8                       # IEEE 802.3 Annex 31B bound, else ASIC fallback
    prop   = port_mtu + cable + 2 * gearbox + mac_phy_delay + peer
    xoff   = ceil_1K(lossless_mtu + prop * cell_occupancy)
    xon    = ceil_1K(pipeline_latency)
    size   = ceil_1K(xoff + xon)                                 # no shared headroom pool
    cell_occupancy = (100 - p + p * wcf) / 100,  p = small-packet share of bytes (percent),
    wcf = ceil(cell / 64) if cell > 128 else ceil(2 * cell / (1 + cell))

Every ASIC parameter comes from ``roceconf/data/asics.yaml``; a parameter that is unknown there (``null``)
makes the result unknown: nothing is guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from roceconf.fabric.paths import PathGraph
    from roceconf.fabric.states import StateSet
    from roceconf.intent.fabric import Fabric

#: IEEE 802.3 Annex 31B peer response bounds in pause quanta (512 bit times), keyed by Gb/s, as SONiC uses them.
#: 800G reuses the 400G value (sonic-swss buffer_headroom_mellanox.lua pause_quanta_per_speed[800000] = 905).
PAUSE_QUANTA: dict[int, int] = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
#: Signal speed in the medium, m/s (SONiC: speed_of_light = 198000000)
MEDIA_SPEED_M_S = 198_000_000
MIN_PACKET = 64
#: SONiC LOSSLESS_TRAFFIC_PATTERN default small_packet_percentage (Configuration.md)
DEFAULT_SMALL_PACKET_PERCENT = 100

#: asics.yaml keys the headroom model needs
HEADROOM_PARAMS = ("cell_bytes", "pipeline_latency_bytes", "mac_phy_delay_bytes")


def ceil_1k(value: float) -> int:
    """Round up to a multiple of 1024 bytes (SONiC: math.ceil(x / 1024) * 1024)."""
    return math.ceil(value / 1024) * 1024


def worst_case_factor(cell_bytes: int) -> int:
    """Cells a minimum-size packet may waste, as a factor (SONiC design doc)."""
    if cell_bytes > 2 * MIN_PACKET:
        return math.ceil(cell_bytes / MIN_PACKET)
    return math.ceil(2 * cell_bytes / (1 + cell_bytes))


def cell_occupancy(cell_bytes: int, small_packet_percent: float = DEFAULT_SMALL_PACKET_PERCENT) -> float:
    """Buffer bytes used per byte received: 1 for large packets, up to ``wcf`` for minimum-size ones."""
    p = small_packet_percent
    return (100 - p + p * worst_case_factor(cell_bytes)) / 100


def cable_bytes(speed_gbps: float, cable_m: float) -> float:
    """Bytes in flight on the cable during one round trip."""
    return 2 * cable_m * speed_gbps * 1e9 / MEDIA_SPEED_M_S / 8


def peer_response_bytes(speed_gbps: int, fallback: float | None = None) -> float | None:
    """Bytes the peer may still send after receiving the pause frame; the ASIC fallback for unlisted speeds."""
    q = PAUSE_QUANTA.get(int(speed_gbps))
    if q is not None:
        return q * 512 / 8
    return fallback


@dataclass(frozen=True)
class Headroom:
    """One port/priority result, bytes. ``xoff`` is the headroom above the pause trigger, ``size`` the
    reservation (xoff + xon)."""

    speed_gbps: int
    cable_m: float
    port_mtu: int
    lossless_mtu: int
    cable_bytes: float
    peer_bytes: float
    occupancy: float
    xoff: int
    xon: int
    size: int


def headroom(
    speed_gbps: int,
    cable_m: float,
    port_mtu: int,
    lossless_mtu: int,
    *,
    pipeline_latency_bytes: float,
    mac_phy_delay_bytes: float,
    cell_bytes: int | None = None,
    occupancy: float | None = None,
    small_packet_percent: float = DEFAULT_SMALL_PACKET_PERCENT,
    peer_response_fallback: float | None = None,
    gearbox_bytes: float = 0.0,
) -> Headroom:
    """Formula A. Give either ``occupancy`` or ``cell_bytes`` (+ ``small_packet_percent``)."""
    if occupancy is None:
        if cell_bytes is None:
            raise ValueError("need cell_bytes or occupancy")
        occupancy = cell_occupancy(cell_bytes, small_packet_percent)
    peer = peer_response_bytes(speed_gbps, peer_response_fallback)
    if peer is None:
        raise ValueError(f"no pause-quanta bound for {speed_gbps}G and no peer_response_bytes for the ASIC")
    cable = cable_bytes(speed_gbps, cable_m)
    prop = port_mtu + cable + 2 * gearbox_bytes + mac_phy_delay_bytes + peer
    xoff = ceil_1k(lossless_mtu + prop * occupancy)
    xon = ceil_1k(pipeline_latency_bytes)
    size = ceil_1k(xoff + xon)
    return Headroom(speed_gbps, cable_m, port_mtu, lossless_mtu, cable, peer, occupancy, xoff, xon, size)


# --------------------------------------------------------------------------------------------- ASIC table
@dataclass(frozen=True)
class AsicParams:
    name: str
    buffer_bytes: int | None
    cell_bytes: int | None
    pipeline_latency_bytes: float | None
    mac_phy_delay_bytes: float | None
    peer_response_bytes: float | None
    max_lossless_priorities: int | None
    sources: dict[str, str] = field(default_factory=dict)

    @cached_property  # read per port; the parameters never change
    def unknown(self) -> list[str]:
        """Parameters the headroom model needs that the table does not know."""
        return [k for k in HEADROOM_PARAMS if getattr(self, k) is None]


def asic_params(name: str, table: dict[str, Any] | None = None) -> AsicParams | None:
    """Parameters of an ASIC from the buffer table (``None`` if the ASIC is not in it)."""
    if table is None:
        from roceconf.intent.rules import asic_table

        table = asic_table()
    row = table.get(name)
    if not isinstance(row, dict):
        return None
    return AsicParams(
        name=name,
        buffer_bytes=row.get("buffer_bytes"),
        cell_bytes=row.get("cell_bytes"),
        pipeline_latency_bytes=row.get("pipeline_latency_bytes"),
        mac_phy_delay_bytes=row.get("mac_phy_delay_bytes"),
        peer_response_bytes=row.get("peer_response_bytes"),
        max_lossless_priorities=row.get("max_lossless_priorities"),
        sources=dict(row.get("sources") or {}),
    )


def port_headroom(
    asic: AsicParams,
    speed_gbps: int,
    cable_m: float,
    port_mtu: int,
    lossless_mtu: int,
    small_packet_percent: float = DEFAULT_SMALL_PACKET_PERCENT,
) -> Headroom | None:
    """Formula A with the ASIC's parameters; ``None`` when a parameter is unknown."""
    if asic.unknown:
        return None
    if peer_response_bytes(speed_gbps, asic.peer_response_bytes) is None:
        return None
    return headroom(
        speed_gbps,
        cable_m,
        port_mtu,
        lossless_mtu,
        cell_bytes=asic.cell_bytes,
        small_packet_percent=small_packet_percent,
        pipeline_latency_bytes=asic.pipeline_latency_bytes,  # type: ignore[arg-type]
        mac_phy_delay_bytes=asic.mac_phy_delay_bytes,  # type: ignore[arg-type]
        peer_response_fallback=asic.peer_response_bytes,
    )


# --------------------------------------------------------------------------------------------- per switch
@dataclass
class PortHeadroom:
    port: str
    peer: str
    speed_gbps: int
    cable_m: float
    port_mtu: int | None
    lossless_mtu: int | None
    priorities: list[int]
    #: Formula A for one lossless priority of this port (None: a parameter is unknown)
    per_priority: Headroom | None
    #: per_priority.size x number of lossless priorities
    required: int | None
    #: equal share of the switch buffer per lossless-path port
    share: int | None = None
    margin: int | None = None
    #: False when the cumulative reservation (ports in order) no longer fits the buffer
    fits: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        h = self.per_priority
        return {
            "port": self.port,
            "peer": self.peer,
            "speed_gbps": self.speed_gbps,
            "cable_m": self.cable_m,
            "port_mtu": self.port_mtu,
            "lossless_mtu": self.lossless_mtu,
            "priorities": self.priorities,
            "xoff": h.xoff if h else None,
            "xon": h.xon if h else None,
            "size_per_priority": h.size if h else None,
            "required": self.required,
            "share": self.share,
            "margin": self.margin,
            "fits": self.fits,
        }


@dataclass
class DeviceHeadroom:
    device: str
    asic: str | None
    params: AsicParams | None
    rows: list[PortHeadroom] = field(default_factory=list)
    #: why the budget cannot be checked ("" when it can)
    unknown: str = ""
    total: int = 0
    budget: int | None = None
    margin: int | None = None
    #: estimated XOFF point per lossless queue, bytes, and how it was estimated
    xoff_point: int | None = None
    xoff_basis: str = ""

    def to_dict(self) -> dict[str, Any]:
        p = self.params
        return {
            "device": self.device,
            "asic": self.asic,
            "unknown": self.unknown or None,
            "total": self.total if not any(r.required is None for r in self.rows) else None,
            "budget": self.budget,
            "margin": self.margin,
            "fits": None if self.margin is None else self.margin >= 0,
            "xoff_point": self.xoff_point,
            "parameters": None
            if p is None
            else {
                "buffer_bytes": p.buffer_bytes,
                "cell_bytes": p.cell_bytes,
                "pipeline_latency_bytes": p.pipeline_latency_bytes,
                "mac_phy_delay_bytes": p.mac_phy_delay_bytes,
                "peer_response_bytes": p.peer_response_bytes,
                "sources": p.sources,
            },
            "ports": [r.to_dict() for r in self.rows],
        }


def fabric_headroom(
    fab: Fabric,
    ss: StateSet | None = None,
    *,
    graph: PathGraph | None = None,
    table: dict[str, Any] | None = None,
    small_packet_percent: float = DEFAULT_SMALL_PACKET_PERCENT,
) -> list[DeviceHeadroom]:
    """Headroom of every switch port on the lossless path and the budget per switch.

    ``ss`` is a :class:`roceconf.fabric.states.StateSet` (desired states of the intent when omitted): MTUs and
    no-drop priorities come from the states, speeds from the intent ports and cable lengths from the links.
    The lossless MTU is the largest RoCE frame the peer can send: min(peer MTU, RoCE path MTU + 96 + 22).
    """
    from roceconf.fabric.paths import build
    from roceconf.fabric.states import desired
    from roceconf.intent.rules import L2_OVERHEAD, ROCE_OVERHEAD, asic_table
    from roceconf.names import natural_key

    if ss is None:
        ss = desired(fab)
    g = graph or build(fab)
    base = asic_table()
    tab = {**base, **(table or {})}
    out: list[DeviceHeadroom] = []
    by_asic: dict[str, AsicParams | None] = {}  # one lookup per ASIC, not per switch
    for name in sorted(g.by_device, key=natural_key):
        dev = fab.devices[name]
        st = ss.states.get(name)
        if dev.is_host or st is None:
            continue
        if dev.asic and dev.asic not in by_asic:
            by_asic[dev.asic] = asic_params(dev.asic, tab)
        params = by_asic[dev.asic] if dev.asic else None
        rep = DeviceHeadroom(name, dev.asic, params)
        if dev.asic is None:
            rep.unknown = "no `asic:` on the device"
        elif params is None:
            rep.unknown = f"ASIC '{dev.asic}' is not in the buffer table"
        elif params.unknown:
            rep.unknown = f"{dev.asic}: {', '.join(params.unknown)} unknown"
        roce_frame = dev.settings.mtu.roce_path + ROCE_OVERHEAD + L2_OVERHEAD
        seen: set[str] = set()
        for hop in g.by_device[name]:
            me, peer = (hop.lower, hop.upper) if hop.lower.device.name == name else (hop.upper, hop.lower)
            if me.port.name in seen:
                continue
            seen.add(me.port.name)
            itf = st.interfaces.get(me.port.name)
            pst = ss.states.get(peer.device.name)
            pitf = pst.interfaces.get(peer.port.name) if pst is not None else None
            if itf is None:
                continue
            prios = [] if itf.pfc.enabled is False else sorted(itf.pfc.no_drop or [])
            mtu = itf.mtu
            pmtu = pitf.mtu if pitf is not None and pitf.mtu is not None else None
            lossless_mtu = min(pmtu, roce_frame) if pmtu is not None else roce_frame
            h = None
            if params is not None and mtu is not None:
                h = port_headroom(
                    params, me.port.speed_gbps, hop.link.cable_m, mtu, lossless_mtu, small_packet_percent
                )
                if h is None and not rep.unknown:
                    rep.unknown = f"{dev.asic}: no peer response bound for {me.port.speed_gbps}G"
            required = h.size * len(prios) if h is not None else (0 if not prios else None)
            rep.rows.append(
                PortHeadroom(
                    me.port.name,
                    peer.label,
                    me.port.speed_gbps,
                    hop.link.cable_m,
                    mtu,
                    lossless_mtu,
                    prios,
                    h,
                    required,
                )
            )
        rep.rows.sort(key=lambda r: natural_key(r.port))
        known = all(r.required is not None for r in rep.rows)
        rep.total = sum(r.required or 0 for r in rep.rows)
        buf = params.buffer_bytes if params is not None else None
        nprio = max((len(r.priorities) for r in rep.rows), default=0)
        if buf is not None and rep.rows:
            rep.budget = int(buf)
            share = rep.budget // len(rep.rows)
            used = 0
            for r in rep.rows:
                r.share = share
                if r.required is not None:
                    r.margin = share - r.required
                    used += r.required
                    r.fits = used <= rep.budget
            if known:
                rep.margin = rep.budget - rep.total
            if nprio:
                if known:
                    rep.xoff_point = max(0, (rep.budget - rep.total) // (len(rep.rows) * nprio))
                    rep.xoff_basis = (
                        f"buffer {rep.budget} B - headroom {rep.total} B over {len(rep.rows)} ports x "
                        f"{nprio} lossless priorities"
                    )
                else:
                    rep.xoff_point = rep.budget // (len(rep.rows) * nprio)
                    rep.xoff_basis = (
                        f"buffer {rep.budget} B over {len(rep.rows)} ports x {nprio} lossless priorities; "
                        "headroom unknown"
                    )
        elif params is not None and not rep.unknown:
            rep.unknown = f"{dev.asic}: buffer_bytes unknown"
        out.append(rep)
    return out
