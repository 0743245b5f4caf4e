"""Read counters: live (twice or more, ``interval`` apart, with drift's inventory, credentials, worker pool,
timeouts and ``unknown`` semantics) or from a directory saved by ``--save-counters``.

A saved file ``DIR/<device>.counters.json`` holds the raw command outputs of every sample and when it was
taken, so an offline run parses exactly what the live run parsed and finds the same.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from roceconf import forkmap, jsontext, limits, platforms
from roceconf.counters.model import Snapshot
from roceconf.drift.audit import run_pool
from roceconf.drift.collect import CollectError, Target, load_inventory, read_commands, read_with_retries
from roceconf.gcpolicy import batch
from roceconf.health.evaluate import DeviceHealth, HealthReport, device_result, evaluate, evaluate_each
from roceconf.inputfile import InputFileError, read_text
from roceconf.intent import DeviceSpec, Fabric
from roceconf.names import natural_key

SAVED_SUFFIX = ".counters.json"


def port_map(dev: DeviceSpec) -> dict[str, str | None]:
    """The intent's ports of a device -> RDMA device (host NIC ports) or None."""
    return {n: p.rdma_device for n, p in dev.ports.items()}


def snapshot(
    dev: DeviceSpec, taken_at: float, outputs: dict[str, str], times: dict[str, float] | None = None
) -> Snapshot:
    """Parse one sample. ``times`` (command -> when it was answered) gives each port the mean time of the
    commands that name it (per-port commands: NVUE, hosts), so a long read does not skew its rates."""
    ports, warnings = platforms.counters(dev.platform).parse(outputs)
    snap = Snapshot(dev.name, dev.platform, taken_at, ports, list(warnings))
    # word of a command -> the times of the commands that have it, in the order of ``times``
    by_word: dict[str, list[float]] = {}
    for cmd, t in (times or {}).items():
        for word in dict.fromkeys(cmd.split()):
            by_word.setdefault(word, []).append(t)
    for name in ports:
        ts = by_word.get(name)
        if ts:
            snap.port_times[name] = sum(ts) / len(ts)
    return snap


class _Sampled:
    """Result of one device's sampling (the pool needs a ``device`` attribute)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.samples: list[dict[str, Any]] = []
        self.error: str | None = None
        self.attempts = 0
        self.seconds = 0.0
        self.source = ""
        self.status = "read"
        self.reason: str | None = None


def sample_device(
    dev: DeviceSpec,
    target: Target | None,
    *,
    samples: int,
    interval: float,
    timeout: float,
    retries: int,
    sleep: Callable[[float], None] = time.sleep,
    commands: list[str] | None = None,
) -> _Sampled:
    """Read one device's counters ``samples`` times, ``interval`` seconds apart (``commands``: other commands
    than the platform's health commands, e.g. its link counter commands). Never raises for device problems:
    the result's ``error`` says why it could not be read."""
    out = _Sampled(dev.name)
    t0 = time.monotonic()
    try:
        if target is None:
            raise CollectError("not in the inventory", retry=False)
        if target.platform != dev.platform:
            raise CollectError(
                f"inventory says platform {target.platform}, intent says {dev.platform}", retry=False
            )
        out.source = f"{target.host}:{target.port}" if target.port else target.host
        spec = platforms.counters(dev.platform)
        cmds = spec.commands(port_map(dev)) if commands is None else commands
        due = time.monotonic()
        for i in range(samples):
            if i:
                sleep(max(0.0, due - time.monotonic()))
            timing: dict[str, float] = {}
            outputs, attempts = read_with_retries(
                target,
                None,
                timeout,
                retries,
                reader=lambda: read_commands(target, cmds, timeout, spec.transport, timing),  # noqa: B023
            )
            out.attempts += attempts
            # the counters were read between start and end of the commands (after login)
            taken = (timing.get("start", time.time()) + timing.get("end", time.time())) / 2
            times = {c: round(t, 6) for c, t in timing.items() if c in outputs}
            out.samples.append({"taken_at": round(taken, 6), "command_times": times, "outputs": outputs})
            due = time.monotonic() + interval
    except CollectError as e:
        out.error = str(e)
    except Exception as e:  # noqa: BLE001 - one broken device never stops the run
        msg = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        out.error = target.scrub(msg) if target else msg
    out.seconds = time.monotonic() - t0
    if out.error:
        out.status, out.reason = "unknown", out.error
    return out


def saved_data(dev: DeviceSpec, sampled: _Sampled) -> dict[str, Any]:
    return {"format_version": 1, "device": dev.name, "platform": dev.platform, "samples": sampled.samples}


def health_live(
    fab: Fabric,
    inventory: str | Path | None,
    *,
    targets: dict[str, Target] | None = None,
    samples: int = 2,
    interval: float = 10.0,
    device: str | list[str] | None = None,
    workers: int = 8,
    timeout: float = 10.0,
    retries: int = 2,
    credentials: tuple[str, str] | None = None,
    save_dir: str | Path | None = None,
    progress: Callable[[Any, int, int], None] | None = None,
) -> HealthReport:
    """Read the devices (``inventory``: an Ansible inventory, or ``targets`` already built, e.g. by the
    Ansible module from hostvars) ``samples`` times ``interval`` apart and evaluate them."""
    names = _names(fab, device)
    if targets is None:
        if inventory is None:
            raise CollectError("give an inventory or targets", retry=False)
        targets = load_inventory(inventory)
    if credentials is not None:
        for t in targets.values():
            t.username, t.password = credentials
    source = f"inventory {inventory}" if inventory is not None else "ansible inventory"

    def one(name: str) -> _Sampled:
        return sample_device(
            fab.devices[name],
            targets.get(name),
            samples=samples,
            interval=interval,
            timeout=timeout,
            retries=retries,
        )

    per_read = timeout * (retries + 1) * 3 + 5 * (retries + 1)
    deadline = per_read * samples + interval * (samples - 1)

    def hung(n: str) -> _Sampled:
        r = _Sampled(n)
        r.error = r.reason = f"no result within {deadline:g} s (device hung)"
        r.status = "unknown"
        return r

    got = run_pool(
        names, one, workers=workers, deadline=deadline, hung=hung, progress=progress, prefix="roceconf-health"
    )
    snaps: dict[str, list[Snapshot]] = {}
    errors: dict[str, str] = {}
    meta: dict[str, dict[str, Any]] = {}
    for n in names:
        r = got[n]
        meta[n] = {"attempts": r.attempts, "seconds": r.seconds, "source": r.source or source}
        if r.error:
            errors[n] = r.error
            continue
        dev = fab.devices[n]
        if save_dir is not None:
            from roceconf.compile import write_outputs

            write_outputs(
                {n + SAVED_SUFFIX: json.dumps(saved_data(dev, r), indent=1) + "\n"}, save_dir, private=True
            )
        snaps[n] = [snapshot(dev, s["taken_at"], s["outputs"], s["command_times"]) for s in r.samples]
    return evaluate(fab, snaps, errors, source=source, meta=meta)


def saved_json(path: Path, what: str) -> Any:
    """The JSON of a saved file (``what``: "counters", "LLDP file", for the message); CollectError (the device is
    unknown) when it is absent, not a regular file, too large or not JSON."""
    if not os.path.lexists(path):
        raise CollectError(f"no saved {what} {path.name} in {path.parent}", retry=False)
    try:
        return jsontext.loads(read_text(path, limits.MAX_JSON_BYTES, encoding="utf-8"))
    except InputFileError as e:
        raise CollectError(str(e), retry=False) from None
    except ValueError as e:
        raise CollectError(f"{path}: not JSON ({e})", retry=False) from None


def load_saved(path: Path, dev: DeviceSpec) -> list[Snapshot]:
    """Snapshots of a saved counters file; CollectError (the device is unknown) when it cannot be used."""
    data = saved_json(path, "counters")
    if not isinstance(data, dict) or not isinstance(data.get("samples"), list):
        raise CollectError(f"{path}: no 'samples' list (not a file written by --save-counters)", retry=False)
    if data.get("platform") not in (None, dev.platform):
        raise CollectError(
            f"{path}: saved from platform {data.get('platform')}, intent says {dev.platform}", retry=False
        )
    out = []
    for i, s in enumerate(data["samples"]):
        outputs = s.get("outputs") if isinstance(s, dict) else None
        taken = s.get("taken_at") if isinstance(s, dict) else None
        if not isinstance(outputs, dict) or not isinstance(taken, int | float):
            raise CollectError(f"{path}: sample {i + 1} has no taken_at / outputs", retry=False)
        times = s.get("command_times") or {}
        if not isinstance(times, dict) or not all(isinstance(t, int | float) for t in times.values()):
            raise CollectError(f"{path}: sample {i + 1} has a bad command_times", retry=False)
        out.append(snapshot(dev, float(taken), {str(k): str(v) for k, v in outputs.items()}, times))
    return out


def health_offline(
    fab: Fabric, directory: str | Path, *, device: str | list[str] | None = None, workers: int = 1
) -> HealthReport:
    """Evaluate the counters saved in ``directory``, one device at a time (read, parse, evaluate, keep the
    result); with ``workers`` > 1 on that many forked processes (at most one per CPU) once there are enough
    devices. The report is the same either way."""
    d = Path(directory)
    if not d.is_dir():
        raise CollectError(f"{directory}: not a directory", retry=False)
    names = _names(fab, device)
    meta: dict[str, dict[str, Any]] = {n: {"source": str(d / (n + SAVED_SUFFIX)), "attempts": 1} for n in names}

    def one(n: str) -> DeviceHealth:
        try:
            got: list[Snapshot] | str = load_saved(d / (n + SAVED_SUFFIX), fab.devices[n])
        except CollectError as e:
            got = str(e)
        return device_result(fab.devices[n], got)

    procs = min(workers, os.cpu_count() or 1, len(names) // _MIN_CHUNK)
    # the cyclic collector paused (the forked workers inherit it): reading and evaluating make no cycles, and a
    # fabric's results are many objects the collector would walk again and again (roceconf.gcpolicy)
    with batch():
        if procs > 1 and forkmap.available():
            results: Iterable[DeviceHealth] = forkmap.forked_map(one, names, procs, _MIN_CHUNK, _MAX_CHUNK)
        else:
            results = map(one, names)
        return evaluate_each(fab, ((r.device, r) for r in results), source=f"counters {directory}", meta=meta)


#: devices per task of the process pool (a chunk's results travel back together); at most 64 (a third of a
#: second of work): the last tasks end close together, no core waits long for the other's
_MIN_CHUNK, _MAX_CHUNK = 16, 64


def _names(fab: Fabric, device: str | list[str] | None) -> list[str]:
    """The devices to read: all, one (``device``) or a list; a name the intent lacks is invalid input."""
    wanted = [device] if isinstance(device, str) else device
    for n in wanted or []:
        if n not in fab.devices:
            raise CollectError(f"no device named '{n}' in the intent", retry=False)
    return [n for n in sorted(fab.devices, key=natural_key) if wanted is None or n in wanted]


def plain_progress(stream: Any = sys.stderr) -> Callable[[Any, int, int], None]:
    def cb(r: Any, i: int, n: int) -> None:
        extra = f" ({r.reason})" if r.reason else ""
        from roceconf.reports.escape import plain

        print(plain(f"[{i}/{n}] {r.device}: {r.status}{extra}"), file=stream, flush=True)

    return cb


__all__ = ["health_live", "health_offline", "load_saved", "plain_progress", "sample_device", "snapshot"]
