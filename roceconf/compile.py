"""Library functions behind `roceconf render` and `roceconf expand` (the CLI and Ansible modules call these)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf import outdir, platforms
from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent import Fabric, load
from roceconf.intent.desired import desired_state, shape
from roceconf.intent.fabric import Settings
from roceconf.names import compress_interfaces, natural_key
from roceconf.outdir import write_outputs
from roceconf.render import ShapeRenderer, render_state
from roceconf.state import DeviceState
from roceconf.units import threshold_bytes


def output_name(device: str, platform: str) -> str:
    return f"{device}.{platforms.get(platform).extension}"


def load_valid(intent: str | Path, strict: bool = False, scope: frozenset[str] | None = None) -> Fabric:
    """Load an intent and raise DiagnosticError if it has errors (or warnings when strict); ``scope``: see
    :func:`roceconf.intent.load`."""
    fab = load(intent, scope)
    bad = [d for d in fab.diagnostics if d.severity == "error" or (strict and d.severity == "warning")]
    if bad:
        raise DiagnosticError(bad)
    return fab


def render_fabric(fab: Fabric, device: str | None = None) -> dict[str, str]:
    """{file name: text} for every device (or one). Rendered fully in memory before anything is written."""
    if device is not None and device not in fab.devices:
        raise DiagnosticError(
            [
                Diagnostic(
                    fab.file,
                    1,
                    1,
                    "error",
                    "RC013",
                    f"no device named '{device}' in the intent",
                    "see `roceconf expand` for the device names",
                )
            ]
        )
    out: dict[str, str] = {}
    shapes = ShapeRenderer()  # the devices of one intent entry differ only by hostname
    ports: dict[int, tuple] = {}  # the fabric keeps the ports dictionaries alive for the loop
    names = [n for n in sorted(fab.devices, key=natural_key) if device is None or n == device]
    keys = {n: shape(fab.devices[n], ports) for n in names}
    sizes = Counter(keys.values())
    states: dict[tuple, DeviceState] = {}  # the desired state of each shape of several devices
    for name in names:
        dev, key = fab.devices[name], keys[name]
        if sizes[key] == 1:  # a device of its own: rendered once, its state not kept
            out[output_name(name, dev.platform)] = render_state(desired_state(dev))
            continue
        first = states.get(key)
        if first is None:
            state = states[key] = desired_state(dev)
        else:
            state = first.renamed(hostname=name, warnings=[], sources={}, defaults=[])
        out[output_name(name, dev.platform)] = shapes.render(key, state)
    return out


@dataclass
class CheckResult:
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.stale or self.unexpected)

    def advice(self, intent: str, out_dir: str) -> str:
        """The one command that brings DIR up to date."""
        prune = " --prune" if self.unexpected else ""
        what = "stale files of devices no longer in the intent are removed with --prune; " if prune else ""
        return (
            f"rendered configs are out of date: {what}run "
            f"`roceconf render {intent} -o {out_dir}{prune}` and commit the result"
        )


def _known_extensions() -> set[str]:
    return {"." + p.extension for p in platforms.all_platforms()}


def _unexpected(d: Path, files: dict[str, str]) -> list[str]:
    exts = _known_extensions()
    return [
        p.name
        for p in sorted(d.iterdir())
        if p.suffix in exts and p.name not in files and not p.name.startswith(".") and p.is_file()
    ]


def check_outputs(files: dict[str, str], out_dir: str | Path, all_devices: bool = True) -> CheckResult:
    """Compare DIR with a render set (under the directory's read lock: never a half-applied set)."""
    d = Path(out_dir)
    res = CheckResult()
    with outdir.reading(d):
        root = d.resolve()
        for name, text in files.items():
            p = outdir.contained(d, name, root)
            try:
                on_disk = p.read_bytes()
            except FileNotFoundError:
                res.missing.append(name)
                continue
            except OSError as e:
                raise outdir.OutputError(p, f"cannot read: {e.strerror}") from None
            (res.current if on_disk == text.encode("utf-8") else res.stale).append(name)
        if all_devices and d.is_dir():
            res.unexpected = _unexpected(d, files)
    return res


def write_render(
    files: dict[str, str], out_dir: str | Path, complete: bool = True, prune: bool = False
) -> outdir.WriteResult:
    """Write a render set atomically per directory (roceconf.outdir): unchanged files are not rewritten;
    with ``complete`` the files of the previous render that are no longer rendered are removed, with
    ``prune`` also any other config file (known extension) that no device of the intent renders."""
    d = Path(out_dir)
    extra = tuple(_unexpected(d, files)) if prune and complete and d.is_dir() else ()
    return outdir.write_set(files, d, complete=complete, extra_stale=extra)


def _overrides_profiles(fab: Fabric) -> dict[int, str]:
    """Device entry index -> the name of a profile holding that entry's ``overrides``.

    The devices of one entry share one set of overrides; listed one by one with a copy each, every copy
    would be its own source position (messages that name all devices of an entry at once would split).
    As a profile applied last they keep one position, and the same precedence (overrides come after
    every profile)."""
    taken = set(fab.intent.profiles)
    out: dict[int, str] = {}
    for di, dev in enumerate(fab.intent.devices):
        if dev.overrides is None:
            continue
        name, n = f"devices-{di}-overrides", 1
        while name in taken:
            n += 1
            name = f"devices-{di}-overrides-{n}"
        taken.add(name)
        out[di] = name
    return out


def expanded(fab: Fabric) -> dict[str, Any]:
    """The expanded intent, itself a valid intent: every device range and interface range expanded, every
    link listed (rail, mesh and CSV cabling too). Values the source leaves to roceconf's defaults stay
    unstated (stating them would change what validate reports: a default a platform cannot carry is an
    RC025 note, a stated value an RC150 warning); ``expanded_text`` shows them as comments. Loading it
    gives the same devices, links, desired states and diagnostics as the source (positions aside)."""
    intent = fab.intent.model_dump(mode="json", exclude_unset=True)
    moved = _overrides_profiles(fab)
    profiles = {k: v.model_dump(mode="json", exclude_unset=True) for k, v in fab.intent.profiles.items()}
    for di, name in moved.items():
        ov = fab.intent.devices[di].overrides
        assert ov is not None
        profiles[name] = ov.model_dump(mode="json", exclude_unset=True)
    if profiles:
        intent["profiles"] = profiles
    devices = []
    for name, dev in fab.devices.items():  # the source's order (messages list devices in that order)
        di = int(dev.path[1])
        entry: dict[str, Any] = {"name": name, "platform": dev.platform, "role": dev.role}
        for key in ("asic", "model", "os_version"):
            if getattr(dev, key) is not None:
                entry[key] = getattr(dev, key)
        entry["profiles"] = dev.profiles + ([moved[di]] if di in moved else [])
        entry["interfaces"] = [
            {
                "name": p.name,
                "speed": p.speed_gbps,
                "role": p.role,
                **({"mtu": p.mtu} if p.mtu is not None else {}),
                "qos": p.qos,
                **({"rdma_device": p.rdma_device} if p.rdma_device else {}),
            }
            for p in sorted(dev.ports.values(), key=lambda p: natural_key(p.name))
        ]
        devices.append(entry)
    intent["devices"] = devices
    intent["links"] = [
        {
            "a": f"{lk.a.device}:{lk.a.port}",
            "b": f"{lk.b.device}:{lk.b.port}",
            "cable": int(lk.cable_m) if float(lk.cable_m).is_integer() else lk.cable_m,
        }
        for lk in fab.links
    ]
    return intent


def _group_speeds(fab: Fabric, names: list[str]) -> list[int]:
    """Speeds (Gb/s) of the RoCE ports of the switches `names`."""
    devs = [fab.devices[n] for n in names if not fab.devices[n].is_host]
    return sorted({p.speed_gbps for d in devs for p in d.ports.values() if p.qos})


def _ecn_bytes(s: Settings, speeds: list[int]) -> dict[str, Any]:
    """ECN thresholds stated as a queue delay, in bytes per port speed (bytes = delay x speed / 8), by class;
    the platform then rounds them to its quantum (the rendered value is what `plan` and drift show)."""
    out: dict[str, Any] = {}
    for c in s.classes:
        e = c.ecn
        if e is None or not (isinstance(e.min, str) or isinstance(e.max, str)):
            continue
        out[c.name] = {
            f"{sp}G": {"min_bytes": threshold_bytes(e.min, sp), "max_bytes": threshold_bytes(e.max, sp)}
            for sp in speeds
        }
    return out


def _effective(s: Settings, speeds: list[int] | None = None) -> dict[str, Any]:
    ecn = _ecn_bytes(s, speeds or [])
    return {
        **({"ecn_bytes_by_port_speed": ecn} if ecn else {}),
        "trust": s.trust,
        "link_pause": s.link_pause,
        "classes": [c.model_dump(mode="json") for c in s.classes],
        "pfc_watchdog": s.pfc_watchdog.model_dump(mode="json"),
        "mtu": s.mtu.model_dump(mode="json"),
        "ecmp": s.ecmp.model_dump(mode="json"),
        "nic": s.nic.model_dump(mode="json"),
    }


def _flow(item: dict[str, Any]) -> str:
    """One interface or link as a one-line flow mapping (values as JSON scalars, which YAML reads as is)."""
    return "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in item.items()) + "}"


def _compact_yaml(data: dict[str, Any]) -> str:
    """Block YAML, but one line per interface and per link: a fabric of thousands of devices stays a file
    people can read and the loader parses quickly."""
    from roceconf.reports import to_yaml

    parts = [to_yaml({k: v for k, v in data.items() if k not in ("devices", "links")})]
    parts.append("devices:\n" if data["devices"] else "devices: []\n")
    for dev in data["devices"]:
        parts.append(to_yaml([{k: v for k, v in dev.items() if k != "interfaces"}]))
        itfs = dev["interfaces"]
        parts.append("  interfaces:" + ("".join(f"\n  - {_flow(i)}" for i in itfs) if itfs else " []") + "\n")
    links = data["links"]
    parts.append("links:" + ("".join(f"\n- {_flow(lk)}" for lk in links) if links else " []") + "\n")
    return "".join(parts)


def expanded_text(fab: Fabric, fmt: str) -> str:
    """``roceconf expand``: the expanded intent (``expanded``) as YAML or JSON. YAML adds, as comments, the
    effective settings of each group of devices (fabric-wide < roles < profiles < overrides, every default
    included), so nothing the comments say changes what the file states."""
    from roceconf.reports import to_data, to_yaml

    data = expanded(fab)
    if fmt != "yaml":
        return to_data(data, fmt)
    text = _compact_yaml(data)
    groups: dict[int, tuple[list[str], Settings]] = {}
    for name, dev in fab.devices.items():
        groups.setdefault(id(dev.settings), ([], dev.settings))[0].append(name)
    notes = {
        ", ".join(compress_interfaces(names)): _effective(s, _group_speeds(fab, names))
        for names, s in groups.values()
    }
    header = (
        f"# roceconf expand {Path(fab.file).name}: a valid intent (`roceconf validate` reports the same\n"
        "# devices, links and findings). Effective settings of each group of devices, every default\n"
        "# included, are at the end (comments: they state nothing).\n"
    )
    body = "".join(f"# {ln}\n" if ln else "#\n" for ln in to_yaml(notes).splitlines())
    return header + text + "\n# ---- effective settings (fabric-wide < roles < profiles < overrides)\n" + body


__all__ = [
    "CheckResult",
    "check_outputs",
    "expanded",
    "expanded_text",
    "load_valid",
    "output_name",
    "render_fabric",
    "write_outputs",
    "write_render",
]
