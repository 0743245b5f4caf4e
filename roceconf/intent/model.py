"""The intent file model (pydantic v2). ``docs/intent.md`` and ``schemas/intent.schema.json`` are generated from it.

Units are explicit: sizes accept ``150KB`` / ``1.5MB`` / ``64KiB`` or a plain number of bytes; durations accept
``200ms`` / ``0.2s`` or a plain number of milliseconds; speeds ``400G``; cable lengths ``5m``.
KB and MB are decimal (1 KB = 1000 bytes), as in NVIDIA's published RoCE defaults.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema

from roceconf.units import (
    parse_ecn_threshold,
    parse_length_m,
    parse_micros,
    parse_size,
    parse_speed_gbps,
    parse_time_ms,
)


def _unit_schema(number: str, minimum: int, pattern: str, description: str) -> WithJsonSchema:
    """JSON Schema of a value given as a plain number or as a string with a unit."""
    return WithJsonSchema(
        {
            "anyOf": [{"type": number, "minimum": minimum}, {"type": "string", "pattern": pattern}],
            "description": description,
        }
    )


Bytes = Annotated[
    int,
    BeforeValidator(parse_size),
    _unit_schema(
        "integer",
        0,
        r"^\s*[0-9]+(\.[0-9]+)?\s*([kKmM]i?[bB]?|[bB]|bytes)?\s*$",
        "bytes, or a size with a unit: 150KB, 1.5MB, 64KiB",
    ),
]
EcnThreshold = Annotated[
    int | str,
    BeforeValidator(parse_ecn_threshold),
    _unit_schema(
        "integer",
        0,
        r"^\s*[0-9]+(\.[0-9]+)?\s*([kKmM]i?[bB]?|[bB]|bytes|ns|us|µs|ms)?\s*$",
        "bytes or queue delay, as a size (150KB, 1.5MB, 64KiB) or a delay (5us, 750ns) converted per port "
        "speed: bytes = delay x speed / 8",
    ),
]
Millis = Annotated[
    int,
    BeforeValidator(parse_time_ms),
    _unit_schema(
        "integer",
        0,
        r"^\s*[0-9]+(\.[0-9]+)?\s*(ms|s|us)?\s*$",
        "milliseconds, or a duration with a unit: 200ms, 0.2s",
    ),
]
Gbps = Annotated[
    int,
    BeforeValidator(parse_speed_gbps),
    _unit_schema(
        "integer", 1, r"^\s*[0-9]+\s*([gG]|[gG]b/s|[gG]bps)?\s*$", "Gb/s, or a speed with a unit: 400G"
    ),
]
Metres = Annotated[
    float,
    BeforeValidator(parse_length_m),
    PlainSerializer(lambda v: int(v) if float(v).is_integer() else v),
    _unit_schema("number", 0, r"^\s*[0-9]+(\.[0-9]+)?\s*(m|km)?\s*$", "metres, or a length with a unit: 5m"),
]
Micros = Annotated[
    int,
    BeforeValidator(parse_micros),
    _unit_schema("integer", 1, r"^\s*[0-9]+(\.[0-9]+)?\s*(us|µs|ms)?\s*$", "microseconds, or 64us / 1ms"),
    Field(ge=1, le=1_000_000),
]
Priority = Annotated[
    int, Field(ge=0, le=7, description="802.1p priority = switch traffic class = queue (0-7)")
]
Dscp = Annotated[int, Field(ge=0, le=63)]
Name = Annotated[str, Field(min_length=1, max_length=128)]

SWITCH_PLATFORMS = ("eos", "nxos", "nvue", "sonic", "junos")
NIC_PLATFORMS = ("connectx", "bnxt", "linux-dcb")
PlatformName = Literal["eos", "nxos", "nvue", "sonic", "junos", "connectx", "bnxt", "linux-dcb"]
HashFieldName = Literal["src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "ingress_port", "flow_label"]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FillLevelEcn(_M):
    """ECN thresholds in the platform's own unit: fill level of the queue's buffer share, percent."""

    min_percent: int = Field(
        ge=0, le=100, description="Fill level where marking starts, percent", examples=[55]
    )
    max_percent: int = Field(
        ge=1, le=100, description="Fill level where marking reaches `probability`, percent", examples=[90]
    )


class Ecn(_M):
    """ECN marking on a class's egress queue: absolute queue-depth thresholds, each a size or a queue delay.

    A delay (`5us`) is the time the port needs to drain the queue: on each port it becomes
    bytes = delay x port speed / 8 (5us at 400G = 250,000 B; at 100G = 62,500 B), then the platform's unit
    (rounded to its quantum). `roceconf expand` shows the bytes per port speed, `plan` and drift compare them."""

    min: EcnThreshold = Field(
        description="Queue depth (or delay) where marking starts", examples=["150KB", "5us"]
    )
    max: EcnThreshold = Field(
        description="Queue depth (or delay) where marking reaches `probability`", examples=["1500KB", "20us"]
    )
    probability: int = Field(100, description="Marking probability at `max`, percent (1-100)", examples=[100])
    junos: FillLevelEcn | None = Field(
        None,
        description="Junos devices: the drop-profile `fill-level` points (percent of the queue's dynamic buffer "
        "share) used instead of `min`/`max`. A byte threshold has no fixed percent equivalent on Junos, so "
        "without this a Junos device carrying this class's ECN is refused (RC130). Juniper's AI data-centre "
        "JVD uses 55/90.",
        examples=[{"min_percent": 55, "max_percent": 90}],
    )


class Scheduling(_M):
    mode: Literal["strict", "dwrr"] = Field(description="strict priority or weighted (DWRR / ETS)")
    weight_percent: int | None = Field(None, ge=1, le=100, description="Bandwidth share for dwrr, percent")


class TrafficClass(_M):
    name: Name = Field(description="Class name, used in messages and plans", examples=["roce"])
    role: Literal["roce", "cnp", "other"] = Field(
        "other", description="`roce`: the RDMA data class; `cnp`: congestion notification packets"
    )
    dscp: list[Dscp] = Field(description="DSCP values classified into this class", examples=[[26]])
    priority: Priority = Field(examples=[3])
    lossless: bool = Field(False, description="PFC no-drop on this priority")
    ecn: Ecn | None = Field(None, description="ECN marking thresholds; none = no ECN on this class")
    scheduling: Scheduling | None = Field(
        None,
        description="Egress scheduling of this class; a `cnp` class without one is strict priority "
        "(`{mode: strict}`), the others keep the device's default",
    )


class PfcWatchdog(_M):
    enabled: bool = Field(True, description="Detect and break PFC storms on lossless queues")
    detection: Millis = Field(200, description="Time a queue may stay paused before the watchdog acts")
    restoration: Millis = Field(200, description="Time without pause frames before the queue is restored")
    polling: Millis = Field(100, description="Watchdog polling interval (must be below `detection`)")
    action: Literal["drop", "forward", "alert"] = Field(
        "drop", description="What the watchdog does to a stormed queue"
    )


DEFAULT_CLASSES = [
    {
        "name": "roce",
        "role": "roce",
        "dscp": [26],
        "priority": 3,
        "lossless": True,
        "ecn": {"min": "150KB", "max": "1500KB", "probability": 100},
        "scheduling": {"mode": "dwrr", "weight_percent": 50},
    },
    {
        "name": "cnp",
        "role": "cnp",
        "dscp": [48],
        "priority": 6,
        "lossless": False,
        "scheduling": {"mode": "strict"},
    },
    {
        "name": "default",
        "role": "other",
        "dscp": [0],
        "priority": 0,
        "lossless": False,
        "scheduling": {"mode": "dwrr", "weight_percent": 50},
    },
]


class Qos(_M):
    trust: Literal["dscp", "pcp"] = Field(
        "dscp", description="Classify on DSCP (routed RoCEv2) or 802.1p PCP"
    )
    classes: list[TrafficClass] = Field(
        default_factory=lambda: [TrafficClass.model_validate(c) for c in DEFAULT_CLASSES],
        description="Traffic classes; exactly one has role roce and one role cnp. Default: NVIDIA lossless RoCE "
        "profile (RoCE DSCP 26 -> priority 3 lossless, ECN 150KB/1500KB/100%; CNP DSCP 48 -> priority 6 strict)",
    )
    pfc_watchdog: PfcWatchdog = Field(default_factory=PfcWatchdog)
    link_pause: bool = Field(False, description="802.3x link-level pause; must stay off with PFC")


class Mtu(_M):
    switch_port: int = Field(
        9214,
        ge=576,
        le=16384,
        description="Switch port MTU, bytes. Default 9214: the largest MTU all five switch platforms accept "
        "(EOS tops out at 9214; NX-OS, NVUE, SONiC and Junos at 9216)",
    )
    host_nic: int = Field(9000, ge=576, le=16384, description="Host NIC netdev MTU, bytes")
    roce_path: Literal[256, 512, 1024, 2048, 4096] = Field(4096, description="RoCE path MTU (IB MTU), bytes")


class DynamicLb(_M):
    """Dynamic load balancing / flowlet switching / adaptive routing of ECMP next hops (AI fabrics)."""

    mode: Literal["platform", "flowlet", "per-packet", "assigned-flow"] = Field(
        "platform",
        description="`platform`: the platform's own dynamic mode (EOS DLB, NVUE adaptive routing, Junos flowlet "
        "DLB); `flowlet` / `per-packet` / `assigned-flow`: Junos `enhanced-hash-key ecmp-dlb` modes. A mode the "
        "platform cannot state is refused (RC160)",
    )
    flowlet_gap: Micros | None = Field(
        None,
        description="Flowlet inactivity interval (Junos `ecmp-dlb flowlet inactivity-interval`, microseconds); "
        "refused (RC160) where it cannot be stated",
        examples=["64us"],
    )


class Ecmp(_M):
    fields: list[HashFieldName] = Field(
        default_factory=lambda: ["src_ip", "dst_ip", "src_port", "dst_port"],
        description="ECMP/LAG hash fields; RoCEv2 entropy is only in `src_port` (UDP source port). Default: "
        "the fields every switch platform can hash on (RoCEv2 is always UDP, so `ip_proto` adds nothing)",
    )
    symmetric: bool = Field(False, description="Symmetric hashing (same path both directions)")
    seed: int | None = Field(None, ge=0, le=4294967295, description="Hash seed of this device (set per role)")
    dynamic: DynamicLb | None = Field(
        None, description="Dynamic load balancing instead of a static hash; none = static ECMP hashing"
    )
    hash_dest_qp: bool = Field(
        False,
        description="Hash on the RoCE BTH destination queue pair (more entropy than the UDP source port). "
        "Junos EVO does it by default where the ASIC supports it (warning RC162: not configured or audited); "
        "refused (RC161) on platforms without a documented way",
    )


class Nic(_M):
    dcqcn: bool = Field(True, description="DCQCN (RP and NP) on the RoCE priority of every host NIC")


ExtraLine = Annotated[str, Field(max_length=512)]


class Override(_M):
    """What a profile, a role or a device may change. Unset fields inherit."""

    extra_config: list[ExtraLine] | None = Field(
        None,
        description="Lines rendered verbatim at the end of the device's config, after roceconf's own (like "
        "AVD's `eos_cli`), for what roceconf does not model. Added after the platform's and the lower "
        "layers' lines; not audited (RC163); EOS, NX-OS and Junos only (RC164); one line each, no control "
        "characters (RC165)",
    )

    mtu: MtuOverride | None = None
    ecmp: EcmpOverride | None = None
    pfc_watchdog: PfcWatchdogOverride | None = None
    classes: dict[str, ClassOverride] | None = Field(None, description="Per class name")
    nic: Nic | None = None


class MtuOverride(_M):
    switch_port: int | None = Field(None, ge=576, le=16384)
    host_nic: int | None = Field(None, ge=576, le=16384)


class EcmpOverride(_M):
    fields: list[HashFieldName] | None = None
    symmetric: bool | None = None
    seed: int | None = Field(None, ge=0, le=4294967295)
    dynamic: DynamicLb | None = None
    hash_dest_qp: bool | None = None


class PfcWatchdogOverride(_M):
    enabled: bool | None = None
    detection: Millis | None = None
    restoration: Millis | None = None
    polling: Millis | None = None
    action: Literal["drop", "forward", "alert"] | None = None


class ClassOverride(_M):
    lossless: bool | None = None
    ecn: Ecn | None = None
    scheduling: Scheduling | None = None


class Interface(_M):
    name: Name = Field(
        description="Interface or range: `Ethernet1/1-32`, `swp[1-32]`, `eth[0-7]`, `Ethernet[0-504/8]`; at "
        "most 128 characters as written, each expanded name in the platform's syntax "
        "([Names and ranges](#names-and-ranges))"
    )
    speed: Gbps = Field(description="Port speed", examples=["400G"])
    role: Literal["fabric", "host"] = Field(
        "fabric", description="fabric-facing (switch-switch) or host-facing"
    )
    mtu: int | None = Field(None, ge=576, le=16384, description="Port MTU override, bytes")
    qos: bool = Field(True, description="Carries RoCE (lossless policy applied); false = left alone")
    rdma_device: str | None = Field(
        None, description="Host NICs: RDMA device(s), paired with the expanded names (`mlx5_[0-7]`)"
    )


class Device(_M):
    name: Name = Field(description="Device name or range (`gpu[0001-0256]`)")
    platform: PlatformName
    role: Name = Field(description="Role / tier, e.g. spine, leaf, host")
    asic: str | None = Field(
        None, description="Switch ASIC, for buffer and capability checks (see [Switch ASICs](#switch-asics))"
    )
    model: str | None = None
    os_version: str | None = Field(
        None,
        pattern=r"^[0-9]+(\.[0-9]+)*([A-Za-z][0-9A-Za-z.\-]*)?$",
        description="OS release of the device (e.g. `5.15` for Cumulus Linux / NVUE); syntax that changed "
        "between releases follows it. Default: the platform's newest documented release (or one derived "
        "from `model` where the platform documents that)",
        examples=["5.15"],
    )
    buffer_model: Literal["dynamic", "traditional"] | None = Field(
        None,
        description="SONiC: the switch's buffer model (DEVICE_METADATA buffer_model, sonic-device_metadata.yang): "
        "`dynamic` (buffermgrd computes the lossless headroom; the lossless BUFFER_PG is rendered with profile "
        '`"NULL"`) or `traditional` (buffermgrd writes the lossless BUFFER_PG itself from pfc_enable, speed '
        "and CABLE_LENGTH; none is rendered). Default: `dynamic` on NVIDIA Spectrum (`asic: spectrum*`), "
        '`traditional` otherwise (the YANG: "This model is used by Mellanox so far"; traditional "is the '
        'default model used by all other vendors")',
    )
    profiles: list[Name] = Field(default_factory=list, description="Profiles applied in order")
    interfaces: list[Interface] = Field(default_factory=list)
    overrides: Override | None = Field(None, description="Device-level overrides (highest precedence)")


class Link(_M):
    a: str = Field(description="`device:interface`")
    b: str = Field(description="`device:interface`")
    cable: Metres = Field(5, description="Cable length")


class RailPattern(_M):
    """Rail-optimised cabling: NIC k of host i goes to leaf k, port i."""

    hosts: str = Field(description="Host name range, e.g. `gpu[001-032]`")
    nics: str = Field(description="NIC interface range, NIC k in order, e.g. `eth[0-7]`")
    leaves: str = Field(description="Leaf name range, leaf k in order")
    leaf_ports: str = Field(description="Leaf port range, port i for host i")
    cable: Metres = Field(5)


class MeshPattern(_M):
    """Full mesh between two tiers: port j of lower device i goes to upper device j, port i."""

    lower: str = Field(description="Lower tier device range (e.g. leaves)")
    lower_ports: str = Field(description="Uplink ports of each lower device, port j -> upper device j")
    upper: str = Field(description="Upper tier device range (e.g. spines)")
    upper_ports: str = Field(description="Downlink ports of each upper device, port i <- lower device i")
    cable: Metres = Field(100)


class LinkSpec(_M):
    a: str | None = Field(None, description="`device:interface` (single link)")
    b: str | None = None
    cable: Metres | None = None
    rail: RailPattern | None = None
    mesh: MeshPattern | None = None
    csv: str | None = Field(
        None,
        description="Cabling table (path relative to the intent): a_device,a_port,b_device,b_port,cable_m",
    )


class Intent(_M):
    """A lossless RoCEv2 fabric, stated once. Precedence (low -> high): fabric settings, role overrides,
    device profiles (in listed order), device overrides."""

    version: Literal[1] = Field(description="Schema version of this file")
    fabric: Name = Field(description="Fabric name")
    qos: Qos = Field(default_factory=Qos)
    mtu: Mtu = Field(default_factory=Mtu)
    ecmp: Ecmp = Field(default_factory=Ecmp)
    nic: Nic = Field(default_factory=Nic)
    profiles: dict[str, Override] = Field(default_factory=dict, description="Reusable named overrides")
    roles: dict[str, Override] = Field(default_factory=dict, description="Overrides per role / tier")
    devices: list[Device]
    links: list[LinkSpec] = Field(default_factory=list)
    extra_config: dict[PlatformName, list[ExtraLine]] = Field(
        default_factory=dict,
        description="Per platform: lines rendered verbatim at the end of the config of every device of the "
        "platform, before role, profile and device `extra_config` (see Override.extra_config)",
    )


Override.model_rebuild()
