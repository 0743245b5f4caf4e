"""Device states for the fabric checks: desired (from the intent), or actual (saved configs or live devices)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from roceconf import outdir, platforms
from roceconf.intent.desired import expressible_states
from roceconf.intent.fabric import Fabric
from roceconf.names import natural_key
from roceconf.state import DeviceState, has_content


@dataclass
class StateSet:
    """States of the devices of a fabric, where each came from, and the devices that could not be read."""

    kind: str  # "desired" or "actual"
    source: str
    states: dict[str, DeviceState] = field(default_factory=dict)
    #: device -> label of what was read (file path or "<device>:running-config"), for messages
    labels: dict[str, str] = field(default_factory=dict)
    #: device -> why it could not be read
    unreadable: dict[str, str] = field(default_factory=dict)

    @property
    def actual(self) -> bool:
        return self.kind == "actual"


def desired(fab: Fabric) -> StateSet:
    """What the rendered configs make each device do: the desired state restricted to what the platform's
    config carries (``desired.expressible``; e.g. no hash seed where the platform has no seed syntax, so
    RC213 compares the seeds the switches really use). One render per group of identical devices."""
    out = StateSet("desired", f"intent {fab.file}")
    out.states = expressible_states(fab)
    return out


def from_configs(fab: Fabric, directory: str | Path) -> StateSet:
    """Parse DIR/<device>.<ext> for every device of the intent (the names `roceconf render` writes)."""
    out = StateSet("actual", f"configs {directory}")
    with outdir.reading(directory):
        _read_configs(fab, directory, out)
    return out


def _read_configs(fab: Fabric, directory: str | Path, out: StateSet) -> None:
    from roceconf.drift.collect import CollectError, read_backup

    for name in sorted(fab.devices, key=natural_key):
        dev = fab.devices[name]
        try:
            text, path = read_backup(directory, name, dev.platform)
        except CollectError as e:
            out.unreadable[name] = str(e)
            continue
        try:
            state = platforms.get(dev.platform).parse(text)
        except Exception as e:  # noqa: BLE001 - a parser bug on one device never stops the check
            out.unreadable[name] = f"cannot parse {path.name}: {type(e).__name__}"
            continue
        if not has_content(state):
            out.unreadable[name] = f"{path.name}: no RoCE configuration found"
            continue
        out.states[name] = state
        out.labels[name] = str(path)


def from_inventory(fab: Fabric, inventory: str | Path, **audit_kwargs: object) -> StateSet:
    """Read every device live through the drift audit's collector (same inventory, retries and timeouts)."""
    from roceconf.drift.audit import audit

    report = audit(fab, inventory=inventory, **audit_kwargs)  # type: ignore[arg-type]
    out = StateSet("actual", f"inventory {inventory}")
    for r in report.devices:
        if r.actual is not None and has_content(r.actual) and r.status != "unknown":
            out.states[r.device] = r.actual
            out.labels[r.device] = f"{r.device}:running-config"
        else:
            out.unreadable[r.device] = r.reason or "not read"
    return out
