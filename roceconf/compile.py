"""Library functions behind `roceconf render` and `roceconf expand` (the CLI and Ansible modules call these)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf import platforms
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


def _known_extensions() -> set[str]:
    return {"." + p.extension for p in platforms.all_platforms()}


def check_outputs(files: dict[str, str], out_dir: str | Path, all_devices: bool = True) -> CheckResult:
    d = Path(out_dir)
    res = CheckResult()
    for name, text in files.items():
        p = d / name
        if not p.exists():
            res.missing.append(name)
        elif p.read_text(encoding="utf-8") != text:
            res.stale.append(name)
        else:
            res.current.append(name)
    if all_devices and d.is_dir():
        exts = _known_extensions()
        for p in sorted(d.iterdir()):
            if p.is_file() and p.suffix in exts and p.name not in files:
                res.unexpected.append(p.name)
    return res


def write_outputs(files: dict[str, str], out_dir: str | Path) -> list[str]:
    """Write atomically (temp file + rename per file). Returns the names whose content changed."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in files.items():
        p = d / name
        if p.exists() and p.read_text(encoding="utf-8") == text:
            continue
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=d)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, p)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
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
]
