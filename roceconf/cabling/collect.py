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
from roceconf.counters.model import Snapshot
from roceconf.drift.audit import run_pool
from roceconf.drift.collect import CollectError, Target, load_inventory, read_commands, read_with_retries
from roceconf.health.collect import SAVED_SUFFIX as COUNTERS_SUFFIX
from roceconf.health.collect import _names, port_map, sample_device, saved_data, saved_json, snapshot
from roceconf.health.collect import load_saved as load_saved_counters
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
        commands = list(spec.commands)
        if target.extra.get("lldp_agent") == "lldptool":
            if spec.port_commands is None:
                raise CollectError(f"roceconf_lldp_agent lldptool: {dev.platform} has no lldptool reader", retry=False)
            commands = list(spec.port_commands(list(dev.ports)))
        outputs, _n = read_with_retries(
            target, None, timeout, retries,
            reader=lambda: read_commands(target, commands, timeout, spec.transport),
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


# ------------------------------------------------------------------------------------------- link counters
def no_link_reader(dev: DeviceSpec) -> bool:
    """The device's platform reads no link counter at all (``CounterSpec.link_reads`` empty): it is not asked,
    has no samples and every link check of it is n/a (RC519), not unknown."""
    return not platforms.counters(dev.platform).link_reads


def link_counters_live(
    fab: Fabric,
    targets: dict[str, Target],
    names: list[str],
    *,
    samples: int = 2,
    interval: float = 10.0,
    workers: int = 8,
    timeout: float = 10.0,
    retries: int = 2,
    save_dir: str | Path | None = None,
) -> tuple[dict[str, list[Snapshot]], dict[str, str]]:
    """Sample the link counter commands of ``names`` ``samples`` times ``interval`` apart (health's sampling):
    (device -> snapshots, device -> why not read). ``save_dir`` gets ``<device>.counters.json`` as health's
    ``--save-counters`` writes it, for ``--counters``. A device whose platform reads no link counter has no
    snapshots (an empty list)."""
    unread: dict[str, str] = {}
    snaps: dict[str, list[Snapshot]] = {}
    todo = []
    for n in names:
        if no_link_reader(fab.devices[n]):
            snaps[n] = []
        else:
            todo.append(n)

    def one(name: str) -> Any:
        dev = fab.devices[name]
        cmds = platforms.counters(dev.platform).link_commands(port_map(dev))
        return sample_device(dev, targets.get(name), samples=samples, interval=interval, timeout=timeout,
                             retries=retries, commands=cmds)

    def hung(name: str) -> Any:
        from roceconf.health.collect import _Sampled

        r = _Sampled(name)
        r.error = r.reason = "no result in time (device hung)"
        r.status = "unknown"
        return r

    per_read = timeout * (retries + 1) * 3 + 5 * (retries + 1)
    got = run_pool(todo, one, workers=workers, deadline=per_read * samples + interval * (samples - 1), hung=hung,
                   prefix="roceconf-cabling-counters")
    for n in todo:
        r, dev = got[n], fab.devices[n]
        if r.error:
            unread[n] = r.error
            continue
        if save_dir is not None:
            from roceconf.outdir import write_outputs

            write_outputs({n + COUNTERS_SUFFIX: json.dumps(saved_data(dev, r), indent=1) + "\n"}, save_dir,
                          private=True)
        snaps[n] = [snapshot(dev, s["taken_at"], s["outputs"], s["command_times"]) for s in r.samples]
    return snaps, unread


def link_counters_offline(
    fab: Fabric, directory: str | Path, names: list[str]
) -> tuple[dict[str, list[Snapshot]], dict[str, str]]:
    """The saved ``DIR/<device>.counters.json`` of ``names`` (written by ``health --save-counters`` or
    ``cabling --save-counters``): (device -> snapshots, device -> why not read). A device whose platform reads
    no link counter needs no file (no snapshots)."""
    d = Path(directory)
    if not d.is_dir():
        raise CollectError(f"{directory}: not a directory", retry=False)
    snaps: dict[str, list[Snapshot]] = {}
    unread: dict[str, str] = {}
    for n in names:
        dev = fab.devices[n]
        if no_link_reader(dev):
            snaps[n] = []
            continue
        try:
            snaps[n] = load_saved_counters(d / (n + COUNTERS_SUFFIX), dev)
        except CollectError as e:
            unread[n] = str(e)
    return snaps, unread


def static_polarization(fab: Fabric) -> Callable[[str], str | None]:
    """device -> ``roceconf check``'s hash polarization finding (RC213, from the intent's desired states) that
    names the device's role among its tiers, or None. Run once, when first asked."""
    memo: list[list[tuple[list[str], str]]] = []

    def of(device: str) -> str | None:
        if not memo:
            from roceconf.fabric import desired, run_checks

            found = []
            for d in run_checks(fab, desired(fab)).diagnostics:
                if d.code == "RC213" and d.message.startswith("tiers "):
                    found.append((d.message[6:].split(" (", 1)[0].split(", "), f"RC213 {d.message}"))
            memo.append(found)
        role = fab.devices[device].role
        return next((msg for roles, msg in memo[0] if role in roles), None)

    return of


def with_links(
    report: CablingReport,
    fab: Fabric,
    snaps: dict[str, list[Snapshot]],
    unread: dict[str, str],
    *,
    health: str | Path | None = None,
    drift: str | Path | None = None,
) -> CablingReport:
    """The LLDP report with the link counters judged (RC510-RC517, RC520) and joined, with the health and drift
    reports where given, into one verdict per link."""
    from roceconf.cabling.joint import attach
    from roceconf.cabling.linkhealth import judge
    from roceconf.gcpolicy import batch

    # bounded work on one intent that makes a check per link end and no reference cycle: the cyclic collector
    # would only walk that growing heap again and again (roceconf.gcpolicy)
    with batch():
        return attach(report, fab, judge(fab, snaps, unread, polarization=static_polarization(fab)), health, drift)


__all__ = [
    "SAVED_SUFFIX",
    "static_polarization",
    "with_links",
    "cabling_live",
    "cabling_offline",
    "link_counters_live",
    "link_counters_offline",
    "load_saved",
    "read_device",
]
