"""Library functions behind `roceconf render` and `roceconf expand` (the CLI and Ansible modules call these)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf import outdir, platforms
from roceconf.desired import desired_states, shape
from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent import Fabric, load
from roceconf.names import natural_key
from roceconf.render import ShapeRenderer


def output_name(device: str, platform: str) -> str:
    return f"{device}.{platforms.get(platform).extension}"


def load_valid(intent: str | Path, strict: bool = False) -> Fabric:
    """Load an intent and raise DiagnosticError if it has errors (or warnings when strict)."""
    fab = load(intent)
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
    for name, state in desired_states(fab, only=device).items():
        dev = fab.devices[name]
        out[output_name(name, dev.platform)] = shapes.render(shape(dev), state)
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


def write_outputs(files: dict[str, str], out_dir: str | Path) -> list[str]:
    """Write single files atomically (temp file + rename each), e.g. a report or a saved running config.
    Returns the names whose content changed."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in files.items():
        p = outdir.contained(d, name)
        try:
            if p.read_text(encoding="utf-8") == text:
                continue
        except (OSError, UnicodeDecodeError):
            pass
        outdir.write_file(p, text)
        changed.append(name)
    return changed


def expanded(fab: Fabric) -> dict[str, Any]:
    """The fully resolved intent: every default shown, every range expanded, every link listed."""
    intent = fab.intent.model_dump(mode="json")
    devices = {}
    for name in sorted(fab.devices, key=natural_key):
        dev = fab.devices[name]
        s = dev.settings
        devices[name] = {
            "platform": dev.platform,
            "role": dev.role,
            "asic": dev.asic,
            "model": dev.model,
            "os_version": dev.os_version,
            "profiles": dev.profiles,
            "interfaces": {
                p.name: {
                    "speed_gbps": p.speed_gbps,
                    "role": p.role,
                    "mtu": p.mtu,
                    "qos": p.qos,
                    "rdma_device": p.rdma_device,
                }
                for p in sorted(dev.ports.values(), key=lambda p: natural_key(p.name))
            },
            "effective": {
                "trust": s.trust,
                "link_pause": s.link_pause,
                "classes": [c.model_dump(mode="json") for c in s.classes],
                "pfc_watchdog": s.pfc_watchdog.model_dump(mode="json"),
                "mtu": s.mtu.model_dump(mode="json"),
                "ecmp": s.ecmp.model_dump(mode="json"),
                "nic": s.nic.model_dump(mode="json"),
            },
        }
    links = [
        {
            "a": f"{lk.a.device}:{lk.a.port}",
            "b": f"{lk.b.device}:{lk.b.port}",
            "cable_m": int(lk.cable_m) if float(lk.cable_m).is_integer() else lk.cable_m,
        }
        for lk in fab.links
    ]
    intent["devices"] = devices
    intent["links"] = links
    return intent


__all__ = [
    "CheckResult",
    "check_outputs",
    "expanded",
    "load_valid",
    "output_name",
    "render_fabric",
    "write_outputs",
    "write_render",
]
