"""Read LLDP neighbours: live (drift's inventory, credentials, worker pool, retries, timeouts and ``unknown``
semantics, the commands of each platform's ``lldp.py``) or from a directory of saved outputs.

A saved file ``DIR/<device>.lldp.json`` (written by ``--save-lldp``) holds the raw command outputs::

    {"format_version": 1, "device": "leaf1", "platform": "eos", "outputs": {"show lldp neighbors detail": "..."}}

so an offline run parses exactly what the live run parsed. A napalm ``get_lldp_neighbors_detail`` result
can be saved under the key ``napalm get_lldp_neighbors_detail`` (EOS, NX-OS, Junos).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roceconf import platforms
from roceconf.cabling.verdict import CablingReport, DeviceLldp, evaluate
from roceconf.drift.audit import run_pool
from roceconf.drift.collect import CollectError, Target, load_inventory, read_commands, read_with_retries
from roceconf.health.collect import _names, saved_json
from roceconf.intent import DeviceSpec, Fabric

SAVED_SUFFIX = ".lldp.json"


def parsed(dev: DeviceSpec, outputs: dict[str, str], source: str) -> DeviceLldp:
    neighbours, warnings = platforms.lldp(dev.platform).parse(outputs)
    out = DeviceLldp(dev.name, dev.platform, neighbours=neighbours, warnings=list(warnings), source=source)
    if not neighbours and warnings:
        # nothing understood: the device's cabling is unknown, never "no neighbour anywhere"
        out.status, out.reason = "unknown", "; ".join(warnings)[:300]
    return out


def read_device(dev: DeviceSpec, target: Target | None, *, timeout: float, retries: int) -> tuple[DeviceLldp, dict]:
    """One live device: (its neighbours or why it is unknown, the raw outputs). Never raises."""
    outputs: dict[str, str] = {}
    try:
        if target is None:
            raise CollectError("not in the inventory", retry=False)
        if target.platform != dev.platform:
            raise CollectError(f"inventory says platform {target.platform}, intent says {dev.platform}", retry=False)
        spec = platforms.lldp(dev.platform)
        if not spec.commands:
            raise CollectError(f"no live LLDP reader for {dev.platform}: save its LLDP output for --lldp", retry=False)
        outputs, _n = read_with_retries(
            target, None, timeout, retries,
            reader=lambda: read_commands(target, list(spec.commands), timeout, spec.transport),
        )
        source = f"{target.host}:{target.port}" if target.port else target.host
        return parsed(dev, outputs, source), outputs
    except CollectError as e:
        reason = str(e)
    except Exception as e:  # noqa: BLE001 - one broken device never stops the run
        msg = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        reason = target.scrub(msg) if target else msg
    return DeviceLldp(dev.name, dev.platform, status="unknown", reason=reason), outputs


def cabling_live(
    fab: Fabric,
    inventory: str | Path | None,
    *,
    targets: dict[str, Target] | None = None,
    device: str | list[str] | None = None,
    workers: int = 8,
    timeout: float = 10.0,
    retries: int = 2,
    save_dir: str | Path | None = None,
    progress: Callable[[Any, int, int], None] | None = None,
) -> CablingReport:
    names = _names(fab, device)
    if targets is None:
        if inventory is None:
            raise CollectError("give an inventory or targets", retry=False)
        targets = load_inventory(inventory)
    raw: dict[str, dict[str, str]] = {}

    def one(name: str) -> DeviceLldp:
        got, outputs = read_device(fab.devices[name], targets.get(name), timeout=timeout, retries=retries)
        raw[name] = outputs
        return got

    def hung(name: str) -> DeviceLldp:
        return DeviceLldp(name, fab.devices[name].platform, status="unknown", reason="no result in time (device hung)")

    deadline = timeout * (retries + 1) * 3 + 5 * (retries + 1)
    got = run_pool(names, one, workers=workers, deadline=deadline, hung=hung, progress=progress,
                   prefix="roceconf-cabling")
    if save_dir is not None:
        from roceconf.outdir import write_outputs

        files = {
            n + SAVED_SUFFIX: json.dumps({"format_version": 1, "device": n, "platform": fab.devices[n].platform,
                                          "outputs": raw[n]}, indent=1) + "\n"
            for n in names if got[n].status == "read" and raw.get(n)
        }
        if files:
            write_outputs(files, save_dir, private=True)
    return evaluate(fab, got, f"inventory {inventory}" if inventory is not None else "ansible inventory")


def load_saved(path: Path, dev: DeviceSpec) -> DeviceLldp:
    """A saved LLDP file; CollectError (the device is unknown) when it cannot be used."""
    data = saved_json(path, "LLDP file")
    outputs = data.get("outputs") if isinstance(data, dict) else None
    if not isinstance(outputs, dict) or not all(isinstance(v, str) for v in outputs.values()):
        raise CollectError(f"{path}: field 'outputs' must map each command to its output text", retry=False)
    if data.get("platform") not in (None, dev.platform):
        raise CollectError(f"{path}: field 'platform' is {data.get('platform')!r}, intent says {dev.platform}",
                           retry=False)
    return parsed(dev, {str(k): v for k, v in outputs.items()}, str(path))


def cabling_offline(fab: Fabric, directory: str | Path, *, device: str | list[str] | None = None) -> CablingReport:
    d = Path(directory)
    if not d.is_dir():
        raise CollectError(f"{directory}: not a directory", retry=False)
    read: dict[str, DeviceLldp] = {}
    for n in _names(fab, device):
        try:
            read[n] = load_saved(d / (n + SAVED_SUFFIX), fab.devices[n])
        except CollectError as e:
            read[n] = DeviceLldp(n, fab.devices[n].platform, status="unknown", reason=str(e))
    return evaluate(fab, read, f"lldp {directory}")


__all__ = ["SAVED_SUFFIX", "cabling_live", "cabling_offline", "load_saved", "read_device"]
