"""The vendor-neutral device state: the pivot of roceconf.

intent -> desired DeviceState -> template -> text
running config -> parser -> actual DeviceState

Every template takes a DeviceState and nothing else; every parser returns one.
Units are normalised: bytes, milliseconds, per-priority numbers 0-7.

``None`` always means *unknown / not stated*; it never means "off".
Meta fields (``warnings``, ``sources``, ``defaults``) describe where values came
from and are excluded from semantic comparison (see :meth:`DeviceState.semantic`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Trust = Literal["dscp", "pcp", "none"]
SchedMode = Literal["strict", "dwrr"]
WatchdogAction = Literal["drop", "forward", "alert"]

#: Canonical ECMP/LAG hash field names shared by every platform module.
HASH_FIELDS = ("src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "ingress_port", "flow_label")
HashField = Literal["src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "ingress_port", "flow_label"]

META_FIELDS = frozenset({"warnings", "sources", "defaults", "hints"})


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class Ecn(_Model):
    """ECN marking on one egress queue / traffic class (bytes of queue depth)."""

    min_bytes: int | None = Field(None, description="Queue depth where marking starts, bytes")
    max_bytes: int | None = Field(None, description="Queue depth where marking reaches `probability`, bytes")
    probability: int | None = Field(None, description="Marking probability at max threshold, percent 1-100")
    min_percent: int | None = Field(
        None,
        description="Queue fill level where marking starts, percent of the queue's buffer share (platforms that "
        "state ECN only as a fill level, e.g. Junos drop profiles; bytes are then unknown)",
    )
    max_percent: int | None = Field(
        None, description="Queue fill level where marking reaches `probability`, percent (see min_percent)"
    )


class Pfc(_Model):
    """Priority flow control on a port."""

    enabled: bool | None = Field(None, description="PFC enabled on the port")
    no_drop: list[int] | None = Field(None, description="Priorities (0-7) that are no-drop (paused), sorted")


class Sched(_Model):
    """Egress scheduling of one traffic class."""

    mode: SchedMode | None = None
    bandwidth_percent: int | None = Field(None, description="Weighted share for dwrr, percent")


class NicRdma(_Model):
    """Host NIC RoCE/DCQCN settings of one NIC port (host platforms only)."""

    device: str | None = Field(None, description="RDMA device name, e.g. mlx5_0 or bnxt_re0")
    roce_tos: int | None = Field(None, description="RDMA-CM default TOS byte (DSCP << 2)")
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    dcqcn_rp: list[int] | None = Field(
        None, description="Priorities with DCQCN reaction point enabled, sorted"
    )
    dcqcn_np: list[int] | None = Field(
        None, description="Priorities with DCQCN notification point enabled, sorted"
    )


class Interface(_Model):
    """Effective RoCE-relevant settings of one port (global settings already applied)."""

    mtu: int | None = Field(None, description="Port (L2 frame payload) MTU in bytes")
    trust: Trust | None = Field(None, description="What classification trusts: dscp, pcp or none")
    pfc: Pfc = Field(default_factory=Pfc)
    pfc_watchdog: bool | None = Field(None, description="PFC watchdog armed on this port")
    link_pause: bool | None = Field(None, description="802.3x link-level pause (must be off with PFC)")
    ecn: dict[str, Ecn] = Field(default_factory=dict, description="ECN per traffic class (key: TC as string)")
    scheduling: dict[str, Sched] = Field(default_factory=dict, description="Scheduler per traffic class")
    dscp_to_tc: dict[str, int] | None = Field(
        None,
        description="Port-specific DSCP map, only where it differs from the device map (NIC ports, or switch ports bound to their own map)",
    )
    rdma: NicRdma | None = Field(None, description="RDMA/DCQCN settings of a host NIC port")


class PfcWatchdog(_Model):
    enabled: bool | None = None
    detection_ms: int | None = None
    restoration_ms: int | None = None
    polling_ms: int | None = None
    action: WatchdogAction | None = None


class Ecmp(_Model):
    fields: list[HashField] | None = Field(None, description="Hash fields, canonical names, sorted")
    seed: int | None = None
    symmetric: bool | None = None


class Warning_(_Model):
    line: int | None = None
    message: str
    code: str = "PARSE"


_SOURCE_FIELDS = frozenset({"lines", "text"})


class Source(_Model):
    lines: list[int]
    text: str = ""

    @classmethod
    def of(cls, lines: list[int], text: str) -> Source:
        """A Source from values a parser has already checked (line numbers, the line's text): what
        ``model_construct`` builds, at a fraction of its cost (parsers record thousands)."""
        src = object.__new__(cls)
        _set = object.__setattr__
        _set(src, "__dict__", {"lines": lines, "text": text})
        _set(src, "__pydantic_fields_set__", _SOURCE_FIELDS)
        _set(src, "__pydantic_extra__", None)
        _set(src, "__pydantic_private__", None)
        return src


class DeviceState(_Model):
    """What one device does (or must do) for RoCE, in vendor-neutral terms."""

    platform: str
    hostname: str | None = None
    dscp_to_tc: dict[str, int] = Field(
        default_factory=dict, description="DSCP (string) -> traffic class / priority; only stated mappings"
    )
    interfaces: dict[str, Interface] = Field(default_factory=dict)
    pfc_watchdog: PfcWatchdog = Field(default_factory=PfcWatchdog)
    ecmp: Ecmp = Field(default_factory=Ecmp)
    warnings: list[Warning_] = Field(default_factory=list)
    sources: dict[str, Source] = Field(
        default_factory=dict, description="Dotted field path -> source lines and original text"
    )
    defaults: list[str] = Field(
        default_factory=list,
        description="Dotted field paths whose value is the platform's documented default",
    )
    hints: dict[str, str] = Field(
        default_factory=dict,
        description="Rendering hints the platform derives from the intent's ASIC/model (e.g. the EOS queue "
        "keyword of the switch family); not part of the compared state",
    )

    # ----------------------------------------------------------------- helpers
    def semantic(self) -> dict[str, Any]:
        """The comparable part: no meta data, stable ordering."""
        return self.model_dump(mode="json", exclude=set(META_FIELDS))

    def same_as(self, other: DeviceState) -> bool:
        """Semantic equality: the same RoCE behaviour, whatever the meta data."""
        return self.semantic() == other.semantic()

    def warn(self, message: str, line: int | None = None, code: str = "PARSE") -> None:
        self.warnings.append(Warning_(line=line, message=message, code=code))

    def at(self, path: str, lines: int | list[int] | None, text: str = "") -> None:
        """Record the source line(s) of a parsed value."""
        if lines is None:
            return
        if isinstance(lines, int):
            lines = [lines]
        old = self.sources.get(path)
        # Source.of (no validation): parsers call this for every value they read; line numbers are ints, text a str
        if old is not None:
            merged = sorted(set(old.lines).union(lines))
            self.sources[path] = Source.of(merged, old.text or text)
        else:
            self.sources[path] = Source.of(sorted(set(lines)), text)

    def lines_of(self, path: str) -> list[int]:
        """Source lines of a path, walking up to the nearest parent path that has any."""
        p = path
        while p:
            src = self.sources.get(p)
            if src and src.lines:
                return list(src.lines)
            p = p.rpartition(".")[0]
        return []

    def line_of(self, path: str, last: bool = False) -> int | None:
        """Best source line for a path (the first, or with ``last`` the most specific: the last one,
        e.g. an interface-level override after the profile it overrides)."""
        lines = self.lines_of(path)
        if not lines:
            return None
        return lines[-1] if last else lines[0]


def state_json_schema() -> dict[str, Any]:
    schema = DeviceState.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://roceconf.dev/schemas/device-state.schema.json"
    schema["title"] = "roceconf device state"
    return schema
