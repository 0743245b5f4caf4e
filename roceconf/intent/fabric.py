"""Load an intent file and expand it into a fabric: concrete devices, interfaces and links.

Precedence of settings, lowest to highest (documented in docs/intent.md):
fabric-wide settings < ``roles.<role>`` < each of the device's ``profiles`` in listed order < device ``overrides``.
"""

from __future__ import annotations

import csv
import difflib
import types
import typing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

from pydantic import BaseModel, ValidationError

import roceconf.intent.guards as guards
from roceconf import limits, names, platforms
from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent.model import (
    NIC_PLATFORMS,
    Ecmp,
    Intent,
    Mtu,
    Nic,
    Override,
    PfcWatchdog,
    TrafficClass,
)
from roceconf.names import RangeError, excerpt, expand_interfaces, expand_names
from roceconf.yamlsrc import Path_, Positions, load_yaml_file, load_yaml_text


@dataclass
class Settings:
    """Effective policy of one device after profiles and overrides."""

    trust: str
    link_pause: bool
    classes: list[TrafficClass]
    pfc_watchdog: PfcWatchdog
    mtu: Mtu
    ecmp: Ecmp
    nic: Nic
    #: data path of the intent entry that set each dotted setting (for positions), e.g. "mtu.switch_port"
    origin: dict[str, Path_] = field(default_factory=dict)

    # Computed once: a settings object is shared by every device of a shape and read per port and link
    # (hundreds of thousands of times at 32k GPUs); nothing changes it after expansion.
    @cached_property
    def roce(self) -> TrafficClass | None:
        return next((c for c in self.classes if c.role == "roce"), None)

    @cached_property
    def cnp(self) -> TrafficClass | None:
        return next((c for c in self.classes if c.role == "cnp"), None)

    @cached_property
    def lossless_priorities(self) -> list[int]:
        return sorted({c.priority for c in self.classes if c.lossless})


@dataclass(slots=True)
class Port:
    name: str
    speed_gbps: int
    role: str
    mtu: int | None
    qos: bool
    rdma_device: str | None
    path: Path_


@dataclass
class DeviceSpec:
    name: str
    platform: str
    role: str
    asic: str | None
    model: str | None
    profiles: list[str]
    ports: dict[str, Port]
    settings: Settings
    path: Path_
    #: OS release stated in the intent (`os_version:`), None = the platform's default release
    os_version: str | None = None
    #: SONiC buffer model stated in the intent (`buffer_model:`), None = the platform's default
    buffer_model: str | None = None
    #: `extra_config:` lines (platform, role, profiles, device overrides, in that order) with their data path
    extra_config: tuple[tuple[str, Path_], ...] = ()
    #: a host NIC platform (set from `platform`; read per port and link, so not recomputed each time)
    is_host: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.is_host = self.platform in NIC_PLATFORMS


@dataclass(slots=True)
class LinkEnd:
    device: str
    port: str


@dataclass(slots=True)
class Link:
    a: LinkEnd
    b: LinkEnd
    cable_m: float
    path: Path_
    #: where the link came from when it is not in the intent itself (CSV file and line)
    origin: tuple[str, int] | None = None


@dataclass
class Fabric:
    file: str
    intent: Intent
    positions: Positions
    devices: dict[str, DeviceSpec]
    links: list[Link]
    base_settings: Settings
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the devices whose rendered config is checked for lost values (RC150); None: every device
    scope: frozenset[str] | None = None
    #: the expressibility check's read-backs, desired.shape key -> (device, parse(render(its desired state
    #: with one port of each port group))), for the devices without extra_config lines: `expressible_states`
    #: takes them instead of rendering and reading back those devices again
    readbacks: dict[tuple, tuple[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    def diag(
        self, path: Path_, severity: str, code: str, message: str, hint: str = "", key: bool = False
    ) -> None:
        line, col = self.positions.of(path, key=key)
        self.diagnostics.append(
            Diagnostic(self.file, line, col, severity, code, message, hint, ".".join(map(str, path)))  # type: ignore[arg-type]
        )

    def link_diag(self, link: Link, severity: str, code: str, message: str, hint: str = "") -> None:
        if link.origin:
            f, ln = link.origin
            self.diagnostics.append(Diagnostic(f, ln, 1, severity, code, message, hint))  # type: ignore[arg-type]
        else:
            self.diag(link.path, severity, code, message, hint)


# --------------------------------------------------------------------------- schema errors
def _unwrap(tp: Any) -> list[Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return [x for a in typing.get_args(tp) for x in _unwrap(a)]
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(tp)[0])
    if origin in (list, dict):
        return _unwrap(typing.get_args(tp)[-1])
    return [tp]


def _model_at(loc: tuple) -> type[BaseModel] | None:
    model: type[BaseModel] | None = Intent
    for part in loc:
        if model is None:
            return None
        if isinstance(part, int):
            continue
        if part in model.model_fields:
            cands = [
                t
                for t in _unwrap(model.model_fields[part].annotation)
                if isinstance(t, type) and issubclass(t, BaseModel)
            ]
            model = cands[0] if cands else None
        # a dict key (profile name, class name): stay on the value model
    return model


def _schema_diagnostics(e: ValidationError, pos: Positions) -> list[Diagnostic]:
    out = []
    for err in e.errors(include_url=False):
        loc = tuple(err["loc"])
        typ = err["type"]
        if typ == "extra_forbidden":
            parent = _model_at(loc[:-1])
            key = str(loc[-1])
            line, col = pos.of(loc, key=True)
            hint = ""
            if parent is not None:
                close = difflib.get_close_matches(key, list(parent.model_fields), n=1, cutoff=0.6)
                hint = (
                    f"did you mean '{close[0]}'?"
                    if close
                    else f"allowed keys: {', '.join(parent.model_fields)}"
                )
            out.append(
                Diagnostic(
                    pos.file,
                    line,
                    col,
                    "error",
                    "RC003",
                    f"unknown key '{key}' in {_dotted(loc[:-1])}",
                    hint,
                    _dotted(loc),
                )
            )
        elif typ == "missing":
            line, col = pos.of(loc[:-1])
            out.append(
                Diagnostic(
                    pos.file,
                    line,
                    col,
                    "error",
                    "RC005",
                    f"missing required field '{_dotted(loc)}'",
                    "add the field; see docs/intent.md",
                    _dotted(loc),
                )
            )
        else:
            line, col = pos.of(loc)
            msg = err["msg"]
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, ") :]
            got = err.get("input")
            shown = (
                f" (got {excerpt(got) if isinstance(got, str) else repr(got)})"
                if isinstance(got, str | int | float | bool)
                else ""
            )
            out.append(
                Diagnostic(
                    pos.file,
                    line,
                    col,
                    "error",
                    "RC004",
                    f"{_dotted(loc)}: {msg}{shown}",
                    "see docs/intent.md for the field's type, unit and allowed values",
                    _dotted(loc),
                )
            )
    return out


def _dotted(loc: tuple) -> str:
    s = ""
    for p in loc:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else str(p))
    return s or "(top level)"


# --------------------------------------------------------------------------- settings
def _deep_merge(base: dict, over: dict, prefix: str, origin: dict[str, Path_], over_path: Path_) -> dict:
    out = dict(base)
    for k, v in over.items():
        if v is None:
            continue
        dotted = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k not in ("ecn", "scheduling", "dynamic"):
            out[k] = _deep_merge(out[k], v, dotted, origin, over_path + (k,))
        else:
            out[k] = v
            origin[dotted] = over_path + (k,)
    return out


#: the scheduling a class takes when the intent states none (docs/intent.md, TrafficClass.scheduling)
DEFAULT_SCHEDULING = {"cnp": {"mode": "strict", "weight_percent": None}}


def _class_defaults(c: dict) -> dict:
    """A class as the intent states it, with the documented defaults it leaves out (a CNP class is strict)."""
    if c.get("scheduling") is None and c.get("role") in DEFAULT_SCHEDULING:
        c["scheduling"] = dict(DEFAULT_SCHEDULING[c["role"]])
    return c


def _base_settings(intent: Intent) -> tuple[dict, dict[str, Path_]]:
    base = {
        "mtu": intent.mtu.model_dump(),
        "ecmp": intent.ecmp.model_dump(),
        "pfc_watchdog": intent.qos.pfc_watchdog.model_dump(),
        "nic": intent.nic.model_dump(),
        "classes": {c.name: _class_defaults(c.model_dump()) for c in intent.qos.classes},
    }
    origin: dict[str, Path_] = {
        "mtu.switch_port": ("mtu", "switch_port"),
        "mtu.host_nic": ("mtu", "host_nic"),
        "mtu.roce_path": ("mtu", "roce_path"),
        "ecmp.fields": ("ecmp", "fields"),
        "ecmp.seed": ("ecmp", "seed"),
        "ecmp.symmetric": ("ecmp", "symmetric"),
        "ecmp.dynamic": ("ecmp", "dynamic"),
        "ecmp.hash_dest_qp": ("ecmp", "hash_dest_qp"),
        "nic.dcqcn": ("nic", "dcqcn"),
    }
    for k in ("enabled", "detection", "restoration", "polling", "action"):
        origin[f"pfc_watchdog.{k}"] = ("qos", "pfc_watchdog", k)
    for i, c in enumerate(intent.qos.classes):
        for k in ("lossless", "ecn", "scheduling", "dscp", "priority"):
            origin[f"classes.{c.name}.{k}"] = ("qos", "classes", i, k)
    return base, origin


def _settings(intent: Intent, layers: list[tuple[Override, Path_]]) -> Settings:
    base, origin = _base_settings(intent)
    origin = dict(origin)
    for ov, path in layers:
        data = ov.model_dump(exclude_none=True, by_alias=False)
        base = _deep_merge(base, data, "", origin, path)
    classes = [TrafficClass.model_validate(c) for c in base["classes"].values()]
    return Settings(
        trust=intent.qos.trust,
        link_pause=intent.qos.link_pause,
        classes=classes,
        pfc_watchdog=PfcWatchdog.model_validate(base["pfc_watchdog"]),
        mtu=Mtu.model_validate(base["mtu"]),
        ecmp=Ecmp.model_validate(base["ecmp"]),
        nic=Nic.model_validate(base["nic"]),
        origin=origin,
    )


# --------------------------------------------------------------------------- expansion
def _split_end(text: str) -> tuple[str, str] | None:
    dev, sep, port = text.partition(":")
    if not sep or not dev.strip() or not port.strip():
        return None
    return dev.strip(), port.strip()


def expand(intent: Intent, pos: Positions, file: str) -> Fabric:
    base = _settings(intent, [])
    fab = Fabric(file=file, intent=intent, positions=pos, devices={}, links=[], base_settings=base)
    cache: dict[tuple, Settings] = {("", (), None): base}
    try:
        max_itf, max_links = limits.fabric_limit("interfaces"), limits.fabric_limit("links")
    except ValueError as e:
        fab.diag(("devices",), "error", "RC026", str(e), "unset it or give the limit as a number")
        _stop(fab)
    interfaces = 0
    for di, dev in enumerate(intent.devices):
        dpath: Path_ = ("devices", di)
        try:
            dnames = expand_names(dev.name, limits.MAX_DEVICES)
        except RangeError as e:
            fab.diag(dpath + ("name",), "error", _range_code(e), str(e), "ranges look like gpu[0001-0256]")
            continue
        if len(fab.devices) + len(dnames) > limits.MAX_DEVICES:
            fab.diag(
                dpath + ("name",),
                "error",
                "RC022",
                f"more than {limits.MAX_DEVICES} devices in the intent",
                "split the fabric into several intents",
            )
            break
        if not _names_ok(fab, dpath + ("name",), dev.name, dnames, names.DEVICE, "RC014"):
            continue
        _names_ok(fab, dpath + ("role",), dev.role, [dev.role], names.IDENTIFIER, "RC017", "role")
        layers: list[tuple[Override, Path_]] = []
        if dev.role in intent.roles:
            layers.append((intent.roles[dev.role], ("roles", dev.role)))
        for pi, prof in enumerate(dev.profiles):
            if prof not in intent.profiles:
                close = difflib.get_close_matches(prof, list(intent.profiles), n=1)
                fab.diag(
                    dpath + ("profiles", pi),
                    "error",
                    "RC007",
                    f"unknown profile '{prof}'",
                    f"did you mean '{close[0]}'?" if close else "define it under `profiles:`",
                )
                continue
            layers.append((intent.profiles[prof], ("profiles", prof)))
        if dev.overrides is not None:
            layers.append((dev.overrides, dpath + ("overrides",)))
        key = ("" if not layers else dev.role, tuple(dev.profiles), di if dev.overrides is not None else None)
        if key not in cache:
            cache[key] = _settings(intent, layers)
        settings = cache[key]
        extra = tuple(
            (line, path)
            for lines, base in [
                (intent.extra_config.get(dev.platform) or [], ("extra_config", dev.platform)),
                *[(ov.extra_config or [], p + ("extra_config",)) for ov, p in layers],
            ]
            for path, line in ((base + (i,), ln) for i, ln in enumerate(lines))
        )
        # interfaces (same for every device of a range)
        ports: dict[str, Port] = {}
        for ii, itf in enumerate(dev.interfaces):
            ipath = dpath + ("interfaces", ii)
            try:
                pnames = expand_interfaces(itf.name, limits.MAX_PORTS)
            except RangeError as e:
                fab.diag(
                    ipath + ("name",),
                    "error",
                    _range_code(e),
                    str(e),
                    "ranges look like Ethernet1/1-32, eth[0-7] or Ethernet[0-504/8]",
                )
                continue
            if not _names_ok(
                fab, ipath + ("name",), itf.name, pnames, platforms.interface_kind(dev.platform), "RC015"
            ):
                continue
            rdmas: list[str | None] = [None] * len(pnames)
            if itf.rdma_device:
                try:
                    rd = expand_interfaces(itf.rdma_device, limits.MAX_PORTS)
                except RangeError as e:
                    fab.diag(ipath + ("rdma_device",), "error", _range_code(e), str(e), "")
                    rd = []
                if not _names_ok(
                    fab, ipath + ("rdma_device",), itf.rdma_device, rd, names.RDMA_DEVICE, "RC016"
                ):
                    continue
                if len(rd) != len(pnames):
                    fab.diag(
                        ipath + ("rdma_device",),
                        "error",
                        "RC008",
                        f"{len(rd)} RDMA devices for {len(pnames)} interfaces",
                        "give one RDMA device per interface, e.g. eth[0-7] with mlx5_[0-7]",
                    )
                else:
                    rdmas = list(rd)
            for pn, rdma in zip(pnames, rdmas, strict=True):
                if pn in ports:
                    fab.diag(
                        ipath + ("name",),
                        "error",
                        "RC009",
                        f"interface {pn} is listed twice on {dev.name}",
                        "each interface appears once per device",
                    )
                ports[pn] = Port(pn, itf.speed, itf.role, itf.mtu, itf.qos, rdma, ipath)
        if len(ports) > limits.MAX_PORTS:
            fab.diag(
                dpath + ("interfaces",),
                "error",
                "RC022",
                f"{excerpt(dev.name)} has more than {limits.MAX_PORTS} interfaces",
                "",
            )
            continue
        # the product is bounded before any device of the entry is made (each limit alone is not enough)
        interfaces += len(dnames) * len(ports)
        if interfaces > max_itf:
            fab.diag(
                dpath + ("name",),
                "error",
                "RC026",
                f"{excerpt(dev.name)} makes {len(dnames)} device(s) x {len(ports)} interface(s): "
                f"{interfaces} interfaces in the intent so far, over the limit of {max_itf}",
                f"split the fabric into several intents, or raise the limit with "
                f"{limits.SIZE_ENV['interfaces']}=N",
            )
            _stop(fab)
        for name in dnames:
            if name in fab.devices:
                fab.diag(
                    dpath + ("name",),
                    "error",
                    "RC010",
                    f"device {name} is defined twice",
                    f"first defined at line {pos.of(fab.devices[name].path + ('name',))[0]}",
                )
                continue
            fab.devices[name] = DeviceSpec(
                name,
                dev.platform,
                dev.role,
                dev.asic,
                dev.model,
                list(dev.profiles),
                ports,
                settings,
                dpath,
                os_version=dev.os_version,
                buffer_model=dev.buffer_model,
                extra_config=extra,
            )
    _check_identifiers(fab)
    for li, spec in enumerate(intent.links):
        _expand_link(fab, spec, ("links", li), max_links)
        if len(fab.links) > max_links:
            _too_many_links(fab, ("links", li), len(fab.links), max_links)
    return fab


def _stop(fab: Fabric) -> NoReturn:
    """A fabric over its size limit (RC026) is not checked further: what was expanded of it would only give
    follow-on errors (links to devices never made), and a plan of it would remove every device."""
    raise DiagnosticError([d for d in fab.diagnostics if d.severity == "error"])


def _too_many_links(fab: Fabric, path: Path_, n: int, limit: int) -> NoReturn:
    fab.diag(
        path,
        "error",
        "RC026",
        f"{n} links in the intent with this entry, over the limit of {limit}",
        f"split the fabric into several intents, or raise the limit with {limits.SIZE_ENV['links']}=N",
    )
    _stop(fab)


def _range_code(e: RangeError) -> str:
    """RC022 for a range that is too large, RC006 for a malformed one."""
    return "RC022" if "more than" in str(e) else "RC006"


def _names_ok(
    fab: Fabric,
    path: Path_,
    raw: str,
    expanded: list[str],
    kind: names.NameKind,
    code: str,
    what: str = "",
) -> bool:
    """Check expanded names against their grammar; one diagnostic for the first bad name. Values with
    characters RC121 refuses are left to RC121 (one message per problem)."""
    if names.unsafe_char(raw) is not None:
        return False
    for n in expanded:
        problem = kind.problem(n, f"{what} name" if what else None)
        if problem:
            fab.diag(path, "error", code, problem)
            return False
    return True


def _check_identifiers(fab: Fabric) -> None:
    """Profile, role and class names: identifiers (RC017)."""
    i = fab.intent
    for ci, c in enumerate(i.qos.classes):
        _names_ok(fab, ("qos", "classes", ci, "name"), c.name, [c.name], names.IDENTIFIER, "RC017", "class")
    for section in ("profiles", "roles"):
        for key in getattr(i, section):
            _names_ok(fab, (section, key), key, [key], names.IDENTIFIER, "RC017", section[:-1])
    _names_ok(fab, ("fabric",), i.fabric, [i.fabric], names.DEVICE, "RC017", "fabric")


def _expand_link(fab: Fabric, spec: Any, path: Path_, max_links: int = limits.MAX_LINKS) -> None:
    """Expand one link entry into ``fab.links``; DiagnosticError (RC026) when the links would exceed
    ``max_links``, checked before a pattern is expanded."""
    given = [k for k in ("a", "rail", "mesh", "csv") if getattr(spec, k) is not None]
    if len(given) != 1 or (spec.a is None) != (spec.b is None):
        fab.diag(
            path,
            "error",
            "RC011",
            "a link entry needs exactly one of: a+b, rail, mesh, csv",
            "split the entry into several list items",
        )
        return
    try:
        if spec.a is not None:
            ea, eb = _split_end(spec.a), _split_end(spec.b)
            if ea is None or eb is None:
                fab.diag(
                    path + ("a" if ea is None else "b",),
                    "error",
                    "RC011",
                    "link end must be 'device:interface'",
                    "",
                )
                return
            fab.links.append(
                Link(LinkEnd(*ea), LinkEnd(*eb), spec.cable if spec.cable is not None else 5.0, path)
            )
        elif spec.rail is not None:
            r = spec.rail
            hosts, nics, leaves, lports = (
                expand_names(r.hosts),
                expand_interfaces(r.nics),
                expand_names(r.leaves),
                expand_interfaces(r.leaf_ports),
            )
            if len(hosts) * len(nics) + len(fab.links) > max_links:
                _too_many_links(fab, path + ("rail",), len(hosts) * len(nics) + len(fab.links), max_links)
            if len(leaves) != len(nics):
                fab.diag(
                    path + ("rail",),
                    "error",
                    "RC011",
                    f"{len(nics)} NICs per host but {len(leaves)} leaves",
                    "rail-optimised: NIC k goes to leaf k, so the counts must match",
                )
                return
            if len(lports) < len(hosts):
                fab.diag(
                    path + ("rail", "leaf_ports"),
                    "error",
                    "RC011",
                    f"{len(hosts)} hosts but only {len(lports)} leaf ports",
                    "",
                )
                return
            for i, h in enumerate(hosts):
                for k, nic in enumerate(nics):
                    fab.links.append(Link(LinkEnd(h, nic), LinkEnd(leaves[k], lports[i]), r.cable, path))
        elif spec.mesh is not None:
            m = spec.mesh
            lower, lp, upper, up = (
                expand_names(m.lower),
                expand_interfaces(m.lower_ports),
                expand_names(m.upper),
                expand_interfaces(m.upper_ports),
            )
            if len(lower) * len(upper) + len(fab.links) > max_links:
                _too_many_links(fab, path + ("mesh",), len(lower) * len(upper) + len(fab.links), max_links)
            if len(lp) < len(upper) or len(up) < len(lower):
                fab.diag(
                    path + ("mesh",),
                    "error",
                    "RC011",
                    f"mesh of {len(lower)}x{len(upper)} needs {len(upper)} lower ports and {len(lower)} upper ports",
                    "add ports or shrink the ranges",
                )
                return
            for i, lo in enumerate(lower):
                for j, u in enumerate(upper):
                    fab.links.append(Link(LinkEnd(lo, lp[j]), LinkEnd(u, up[i]), m.cable, path))
        else:
            _load_csv(fab, spec.csv, path, max_links)
    except RangeError as e:
        fab.diag(path, "error", _range_code(e), str(e), "")


def _load_csv(fab: Fabric, rel: str, path: Path_, max_links: int = limits.MAX_LINKS) -> None:
    p, why = guards.confine(fab.file, rel)
    if p is None:
        fab.diag(path + ("csv",), "error", "RC018", f"cabling table refused: {why}")
        return
    try:
        text = guards.read_side_file(p)
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        fab.diag(
            path + ("csv",),
            "error",
            "RC012",
            f"cannot read cabling table {excerpt(rel)}: {reason}",
            "the path is relative to the intent file",
        )
        return
    shown = str(Path(fab.file).parent / rel)
    rows = csv.reader(text.splitlines())
    for n, row in enumerate(rows, start=1):
        if len(fab.links) > max_links:
            _too_many_links(fab, path + ("csv",), len(fab.links), max_links)
        if (
            not row
            or row[0].startswith("#")
            or (n == 1 and row[0].strip().lower() in ("a_device", "device_a"))
        ):
            continue
        if len(row) not in (4, 5):
            fab.diagnostics.append(
                Diagnostic(
                    shown,
                    n,
                    1,
                    "error",
                    "RC012",
                    f"expected 4 or 5 columns (a_device,a_port,b_device,b_port[,cable_m]), got {len(row)}",
                    "",
                )
            )
            continue
        try:
            cable = float(row[4]) if len(row) == 5 and row[4].strip() else 5.0
        except ValueError:
            fab.diagnostics.append(
                Diagnostic(
                    shown, n, 5, "error", "RC012", f"cable_m is not a number: {excerpt(row[4], 16)}", ""
                )
            )
            continue
        fab.links.append(
            Link(
                LinkEnd(row[0].strip(), row[1].strip()),
                LinkEnd(row[2].strip(), row[3].strip()),
                cable,
                path,
                origin=(shown, n),
            )
        )


# --------------------------------------------------------------------------- entry points
def load_fabric_text(text: str, file: str) -> Fabric:
    data, pos = load_yaml_text(text, file)
    return _validate(data, pos, file)


def load_fabric(path: str | Path) -> Fabric:
    data, pos = load_yaml_file(path)
    return _validate(data, pos, str(path))


def _validate(data: Any, pos: Positions, file: str) -> Fabric:
    if not isinstance(data, dict):
        raise DiagnosticError(
            [
                Diagnostic(
                    file,
                    1,
                    1,
                    "error",
                    "RC004",
                    "the intent must be a YAML mapping",
                    "start with `version: 1`",
                )
            ]
        )
    try:
        intent = Intent.model_validate(data)
    except ValidationError as e:
        raise DiagnosticError(_schema_diagnostics(e, pos)) from None
    return expand(intent, pos, file)
