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

import threading
from collections.abc import Iterator
from copy import deepcopy
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    WrapValidator,
    field_serializer,
)

from roceconf.jsontext import published_schema

Trust = Literal["dscp", "pcp", "none"]
SchedMode = Literal["strict", "dwrr"]
WatchdogAction = Literal["drop", "forward", "alert"]
DlbMode = Literal["dynamic", "adaptive-routing", "flowlet", "per-packet", "assigned-flow"]

#: Canonical ECMP/LAG hash field names shared by every platform module.
HASH_FIELDS = ("src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "ingress_port", "flow_label")
HashField = Literal["src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "ingress_port", "flow_label"]

META_FIELDS = frozenset({"warnings", "sources", "defaults", "hints", "extra_config"})


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
    dynamic: DlbMode | None = Field(
        None,
        description="Dynamic load balancing / adaptive routing in the platform's terms: `dynamic` (EOS "
        "'ip hardware fib load-balance distribution dynamic'), `adaptive-routing` (NVUE), `flowlet`, "
        "`per-packet`, `assigned-flow` (Junos 'enhanced-hash-key ecmp-dlb'); None: not stated",
    )
    flowlet_gap_us: int | None = Field(
        None, description="Flowlet inactivity interval, microseconds (Junos ecmp-dlb flowlet)"
    )


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


#: (suffix, profile lines, text): one inherited entry of a LazySources group (lines get the attach line)
Inherited = tuple[str, tuple[int, ...], str]
#: (suffix, lines, text): one entry of a group that is stated on the port itself (lines taken as they are)
Own = tuple[str, tuple[int, ...], str]
_MISS = object()
#: Settling rewrites the storage (clear + refill, to keep the eager key order); readers of a half-settled
#: mapping (another thread: the parse of one shape is shared between the devices of an audit) wait on it.
_SETTLE = threading.RLock()


class LazySources(dict[str, Source]):
    """``DeviceState.sources`` whose per-port inherited entries are built only when looked at.

    A parser that gives many ports the settings of one shared block (an EOS ``qos profile`` attached with
    ``service-profile``) would otherwise build one :class:`Source` per inherited field per port (lines:
    the profile line and the port's attach line). Instead it registers one *group* per port with
    :meth:`inherit`: the port's base path (``interfaces.Ethernet5``), the attach line, a table shared by
    every port of the profile (``(suffix, profile lines, text)``) and the port's own entries (``.mtu``,
    the port path itself, ...). Direct entries are ordinary dict entries.

    The mapping behaves exactly as the plain dict the eager parser filled: ``get``/``[]``/``in`` build the
    one Source asked for (kept, so it is the same object the next time and a change to it sticks);
    everything that sees the whole mapping (iteration, ``len``, ``==``, ``repr``, copies, pickling, the
    pydantic serialiser of DeviceState) first *settles* it: builds every entry, in the eager key order
    (per port: inherited suffixes, then the own entries, at the place the group was registered among the
    direct entries). Sources of ports with the same table and attach line (the ports of one range) are
    shared, as the eager parser shared them. Other platforms keep plain dicts."""

    __slots__ = ("_groups", "_made")

    def __new__(cls, *args: Any, **kwargs: Any) -> LazySources:
        self = dict.__new__(cls)
        #: base path -> (number of direct entries before it, attach line, inherited table, own entries)
        self._groups: dict[str, tuple[int, int, tuple[Inherited, ...], tuple[Own, ...]]] = {}
        #: entries of groups already built or replaced (looked up, or assigned to before settling)
        self._made: dict[str, Source] = {}
        return self

    # --------------------------------------------------------------- building (parsers)
    def inherit(self, base: str, attach: int, table: tuple[Inherited, ...], own: tuple[Own, ...] = ()) -> None:
        """Register the entries ``base + suffix`` of one port; no entry under ``base`` may exist yet (a parser
        registers a port once, before writing anything under it)."""
        if base in self._groups or dict.__contains__(self, base):
            raise ValueError(f"sources of {base!r} are already recorded")
        self._groups[base] = (dict.__len__(self), attach, table, own)

    # --------------------------------------------------------------- materialising
    def _entry(self, key: Any) -> tuple[str, int, Inherited | None, Own | None] | None:
        """The group entry behind ``key``: (base, attach, inherited, own)."""
        groups = self._groups
        if not groups or not isinstance(key, str):
            return None
        i = 0
        while True:
            i = key.find(".", i + 1)
            base = key if i < 0 else key[:i]
            g = groups.get(base)
            if g is not None:
                suffix = key[len(base) :]
                for e in g[2]:
                    if e[0] == suffix:
                        return base, g[1], e, None
                for o in g[3]:
                    if o[0] == suffix:
                        return base, g[1], None, o
            if i < 0:
                return None

    @staticmethod
    def _inherited(attach: int, lines: tuple[int, ...], text: str) -> Source:
        if len(lines) == 1 and (line := lines[0]) != attach:
            return Source.of([line, attach] if line < attach else [attach, line], text)
        return Source.of(sorted({*lines, attach}), text)

    def _lookup(self, key: Any) -> Any:
        """The value of ``key`` (a direct or a group entry), or _MISS."""
        with _SETTLE:
            v = dict.get(self, key, _MISS)  # settled meanwhile by another thread
            if v is not _MISS:
                return v
            found = self._entry(key)
            if found is None:
                return _MISS
            v = self._made.get(key)
            if v is None:
                _, attach, inh, own = found
                if inh is not None:
                    v = self._inherited(attach, inh[1], inh[2])
                else:
                    assert own is not None
                    v = Source.of(list(own[1]), own[2])
                self._made[key] = v
            return v

    def settle(self) -> None:
        """Build every group entry into the dict storage, in the order the eager parser wrote them."""
        if not self._groups:
            return
        with _SETTLE:
            groups, made = self._groups, self._made
            if not groups:
                return
            items = list(dict.items(self))
            new: dict[str, Any] = {}
            shared: dict[tuple, Any] = {}  # (table, attach) / own entry -> Source: as the eager parser shared
            pos = 0
            inherited = self._inherited
            for base, (at, attach, table, own) in groups.items():
                if at > pos:
                    new.update(items[pos:at])
                    pos = at
                key = (id(table), attach)
                srcs = shared.get(key)
                if srcs is None:
                    srcs = shared[key] = [inherited(attach, lines, text) for _, lines, text in table]
                for (suffix, _, _), src in zip(table, srcs, strict=True):
                    path = base + suffix
                    new[path] = made.get(path, src)
                for o in own:
                    path = base + o[0]
                    src = made.get(path)
                    if src is None:
                        src = shared.get(o)
                        if src is None:
                            src = shared[o] = Source.of(list(o[1]), o[2])
                    new[path] = src
            new.update(items[pos:])
            dict.clear(self)
            dict.update(self, new)
            self._made = {}
            self._groups = {}

    # --------------------------------------------------------------- single entries
    def __missing__(self, key: Any) -> Any:
        v = self._lookup(key)
        if v is _MISS:
            raise KeyError(key)
        return v

    def get(self, key: Any, default: Any = None) -> Any:
        v = dict.get(self, key, _MISS)
        if v is _MISS:
            if not self._groups:
                v = dict.get(self, key, _MISS)  # settled meanwhile
                return default if v is _MISS else v
            v = self._lookup(key)
            if v is _MISS:
                return default
        return v

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self.get(key, _MISS) is not _MISS

    def __setitem__(self, key: str, value: Source) -> None:
        if self._groups and not dict.__contains__(self, key):
            with _SETTLE:
                if self._groups and self._entry(key) is not None:
                    self._made[key] = value  # keeps the place of the entry it replaces
                    return
        dict.__setitem__(self, key, value)

    def __len__(self) -> int:
        with _SETTLE:
            return dict.__len__(self) + sum(len(g[2]) + len(g[3]) for g in self._groups.values())

    # --------------------------------------------------------------- the whole mapping: settle first
    def __iter__(self) -> Iterator[str]:
        self.settle()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[str]:
        self.settle()
        return dict.__reversed__(self)

    def keys(self) -> Any:
        self.settle()
        return dict.keys(self)

    def values(self) -> Any:
        self.settle()
        return dict.values(self)

    def items(self) -> Any:
        self.settle()
        return dict.items(self)

    def __delitem__(self, key: str) -> None:
        self.settle()
        dict.__delitem__(self, key)

    def pop(self, *args: Any) -> Any:
        self.settle()
        return dict.pop(self, *args)

    def popitem(self) -> tuple[str, Source]:
        self.settle()
        return dict.popitem(self)

    def clear(self) -> None:
        with _SETTLE:
            self._groups, self._made = {}, {}
            dict.clear(self)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.settle()
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.settle()
        dict.update(self, *args, **kwargs)

    def __ior__(self, other: Any) -> LazySources:
        self.settle()
        dict.update(self, other)
        return self

    def __or__(self, other: Any) -> Any:
        self.settle()
        return dict.__or__(self, other)

    def __ror__(self, other: Any) -> Any:
        self.settle()
        return dict.__ror__(self, other)

    def __eq__(self, other: object) -> bool:
        self.settle()
        if isinstance(other, LazySources):
            other.settle()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self.settle()
        if isinstance(other, LazySources):
            other.settle()
        return dict.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self.settle()
        return dict.__repr__(self)

    # --------------------------------------------------------------- copies stay lazy
    def _state(self) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        with _SETTLE:
            # dict(dict.items(self)): dict.copy / dict(self) would go through keys() and settle
            return dict(dict.items(self)), dict(self._groups), dict(self._made)

    @classmethod
    def _rebuild(cls, direct: dict[str, Any], groups: dict[str, Any], made: dict[str, Any]) -> LazySources:
        new = cls()
        dict.update(new, direct)
        new._groups, new._made = groups, made
        return new

    def copy(self) -> LazySources:
        """A shallow copy (the Source objects are shared, as ``dict.copy`` shares them), still lazy."""
        return self._rebuild(*self._state())

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, Any]) -> LazySources:
        direct, groups, made = self._state()
        new = self._rebuild({}, groups, {})  # the group tables are immutable: shared
        memo[id(self)] = new
        dict.update(new, deepcopy(direct, memo))
        new._made = deepcopy(made, memo)
        return new

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (LazySources._rebuild, self._state())

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__reduce_ex__(2)


def _keep_lazy(value: Any, handler: Any) -> Any:
    """Validation passes a LazySources through as it is (it holds Source objects built by a parser)."""
    if type(value) is LazySources:
        return value
    return handler(value)


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
    class_mtu: int | None = Field(
        None,
        description="MTU of the device's traffic classes, where the platform states one apart from the port MTU "
        "(NX-OS network-qos class 'mtu'; the smallest class MTU read back): a fact of its own, compared on its "
        "own, never folded into the interfaces' MTU",
    )
    warnings: list[Warning_] = Field(default_factory=list)
    sources: Annotated[dict[str, Source], WrapValidator(_keep_lazy)] = Field(
        default_factory=dict, description="Dotted field path -> source lines and original text"
    )
    defaults: list[str] = Field(
        default_factory=list,
        description="Dotted field paths whose value is the platform's documented default",
    )
    extra_config: list[str] = Field(
        default_factory=list,
        description="Intent `extra_config:` lines, rendered verbatim at the end of the config (EOS, NX-OS, "
        "Junos); never parsed back nor audited (rule RC163)",
    )
    hints: dict[str, str] = Field(
        default_factory=dict,
        description="Rendering hints the platform derives from the intent's ASIC/model (e.g. the EOS queue "
        "keyword of the switch family); not part of the compared state",
    )

    @field_serializer("sources", mode="wrap")
    def _dump_sources(self, value: dict[str, Source], handler: SerializerFunctionWrapHandler) -> Any:
        if type(value) is LazySources:
            value.settle()  # the serialiser reads the dict storage
        return handler(value)

    # ----------------------------------------------------------------- helpers
    def semantic(self) -> dict[str, Any]:
        """The comparable part: no meta data, stable ordering."""
        return self.model_dump(mode="json", exclude=set(META_FIELDS))

    def renamed(self, **update: Any) -> DeviceState:
        """``self.model_copy(update=update)`` (a new state sharing the other values, `update` not
        validated) without pydantic's generic ``__copy__``, which copies each attribute dictionary: a
        DeviceState has no extra and no private attributes. For the thousands of devices of one shape."""
        new = object.__new__(DeviceState)
        values = self.__dict__.copy()
        values.update(update)
        _set = object.__setattr__
        _set(new, "__dict__", values)
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_fields_set__", self.__pydantic_fields_set__ | update.keys())
        _set(new, "__pydantic_private__", None)
        return new

    def named(self, hostname: str, line: int, text: str) -> DeviceState:
        """This parsed state for another device whose config differs only by what names it
        (``Platform.parse_shared``): its own hostname and hostname source (`line`, `text`), its own meta
        lists; the values shared (read-only)."""
        sources = self.sources.copy()  # a LazySources stays lazy
        sources["hostname"] = Source.of([line], text)
        return self.renamed(
            hostname=hostname,
            sources=sources,
            warnings=list(self.warnings),
            defaults=list(self.defaults),
            hints=dict(self.hints),
        )

    def same_as(self, other: DeviceState) -> bool:
        """Semantic equality: the same RoCE behaviour, whatever the meta data."""
        return self.semantic() == other.semantic()

    def warn(self, message: str, line: int | None = None, code: str = "PARSE") -> None:
        self.warnings.append(Warning_(line=line, message=message, code=code))

    def at(self, path: str, lines: int | list[int] | None, text: str = "") -> None:
        """Record the source line(s) of a parsed value."""
        if lines is None:
            return
        old = self.sources.get(path)
        if isinstance(lines, int):
            if (
                old is not None
                and len(old.lines) == 1
                and old.lines[0] == lines
                and (old.text or not text)
                and dict.__contains__(self.sources, path)
            ):
                return  # the same line again (a classifier read per port): the Source it has is the answer
            lines = [lines]
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


def has_content(state: DeviceState) -> bool:
    """Anything RoCE-relevant was read: a DSCP map, or a port with at least one stated value (junk output
    names ports but states nothing, and is unknown, never 'in sync' or 'drift')."""
    return bool(state.dscp_to_tc) or any(_stated(itf.model_dump()) for itf in state.interfaces.values())


def _stated(value: object) -> bool:
    """A settings value with at least one leaf (names such as an RDMA device name do not count)."""
    if isinstance(value, dict):
        return any(_stated(v) for k, v in value.items() if k != "device")
    return value not in (None, [])


def state_json_schema() -> dict[str, Any]:
    return published_schema(DeviceState, "device-state.schema.json", "roceconf device state")
