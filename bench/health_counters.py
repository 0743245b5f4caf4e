"""Saved counters of a whole fabric (for the health benchmarks): what `roceconf health --save-counters DIR`
writes, two samples 10 s apart of every port of every device, with a few injected faults.

Every device's outputs are its platform's own ``counters.simulate`` (the answers the loopback lab serves) over
the lab's moving counters (roceconf/lab/counters.py: a healthy load - pauses both ways on the lossless
priorities, ECN marks and CNPs, drops on a lossy queue only), from the intent's ports and its lossless and ECN
priorities. Each device has counted for its own time before the first sample, so no two devices carry the
same values. The faults: on one device of each platform (the middle one), 50 packets/s dropped on the first
lossless priority of its first port (the lab's ``lossless-drops`` scenario): RC300 on exactly those ports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roceconf import platforms
from roceconf.counters.hostnic import with_end
from roceconf.health.collect import SAVED_SUFFIX, port_map
from roceconf.intent import DeviceSpec, Fabric
from roceconf.lab.counters import SCENARIOS, LabCounters, PortProfile, Scenario, needs
from roceconf.names import natural_key

#: when the first sample of every device was taken (seconds since the epoch); the second is 10 s later
TAKEN = 1_780_000_000.0
INTERVAL = 10.0
#: how long the first device had counted before the first sample; device i counted ``i * 37`` s more
COUNTED = 86_400.0


def fault_devices(fab: Fabric) -> dict[str, str]:
    """device -> the port whose lossless queue drops: the middle device of each platform, its first port."""
    by_plat: dict[str, list[str]] = {}
    for name in sorted(fab.devices, key=natural_key):
        if fab.devices[name].ports and fab.devices[name].settings.lossless_priorities:
            by_plat.setdefault(fab.devices[name].platform, []).append(name)
    return {names[len(names) // 2]: next(iter(fab.devices[names[len(names) // 2]].ports)) for names in by_plat.values()}


def expected_findings(fab: Fabric) -> set[tuple[str, str, str, int]]:
    """(device, port, rule, priority) of every finding the faults must give, and nothing else."""
    return {
        (d, p, "RC300", min(fab.devices[d].settings.lossless_priorities)) for d, p in fault_devices(fab).items()
    }


def device_file(dev: DeviceSpec, index: int, fault_port: str | None, scenario: str | None = None) -> str:
    """The saved counters file of one device (``--save-counters`` layout); ``scenario``: a lab scenario
    (roceconf/lab/counters.py) on every port of the device besides the fault."""
    is_host = dev.role == "host"
    s = dev.settings
    prof = PortProfile(sorted(s.lossless_priorities), sorted({c.priority for c in s.classes if c.ecn is not None}))
    profiles = dict.fromkeys(dev.ports, prof)
    engine = LabCounters(is_host, t0=TAKEN - COUNTED - 37.0 * index)
    acts = [Scenario(scenario)] if scenario is not None and needs(scenario, is_host) is None else []
    if fault_port is not None:
        acts.append(Scenario("lossless-drops", fault_port))
    engine.set_scenarios(acts)
    spec = platforms.counters(dev.platform)
    rdma = port_map(dev)
    cmds = spec.commands(rdma)
    samples = []
    for k in range(2):
        taken = TAKEN + INTERVAL * k
        # one read of every port per sample (every command of a sample answers from the same counters)
        ports = engine.read("sample", profiles, now=taken)
        outputs = {c: spec.simulate(ports, c, rdma) for c in cmds}
        if spec.transport == "shell":  # the host bundle prints its end mark after each output (kept when saved)
            outputs = {c: with_end(t) for c, t in outputs.items()}
        times = {c: round(taken - 0.2 + 0.4 * i / max(1, len(cmds)), 6) for i, c in enumerate(cmds)}
        samples.append({"taken_at": taken, "command_times": times, "outputs": outputs})
    data = {"format_version": 1, "device": dev.name, "platform": dev.platform, "samples": samples}
    return json.dumps(data, indent=1) + "\n"


def write_saved_counters(fab: Fabric, directory: Path, *, every_scenario: bool = False) -> int:
    """Write ``directory/<device>.counters.json`` for every device; the number of bytes written.
    ``every_scenario``: device i also acts out lab scenario i (modulo their number; for comparisons of two
    evaluations: every rule has work, the findings are not only the faults)."""
    directory.mkdir(parents=True, exist_ok=True)
    faults = fault_devices(fab)
    total = 0
    for i, name in enumerate(sorted(fab.devices, key=natural_key)):
        scenario = SCENARIOS[i % len(SCENARIOS)] if every_scenario else None
        text = device_file(fab.devices[name], i, faults.get(name), scenario)
        (directory / (name + SAVED_SUFFIX)).write_text(text, encoding="utf-8")
        total += len(text)
    return total




# ------------------------------------------------------------------------------------------- reference
def reference_report(fab: Fabric, directory: Path, names: list[str]) -> Any:
    """The health report of ``names`` by the reference path: every device's snapshots read first (all in
    memory at once), each device evaluated with its rates in plain dicts (never packed), in this process."""
    from roceconf.drift.collect import CollectError
    from roceconf.health.collect import load_saved
    from roceconf.health.evaluate import DeviceHealth, evaluate_device, evaluate_each

    snaps: dict[str, Any] = {}
    for n in names:
        try:
            snaps[n] = load_saved(directory / (n + SAVED_SUFFIX), fab.devices[n])
        except CollectError as e:
            snaps[n] = str(e)
    results = [
        (n, DeviceHealth(n, fab.devices[n].platform, "unknown", reason=s) if isinstance(s, str)
         else evaluate_device(fab.devices[n], s))
        for n, s in snaps.items()
    ]
    meta = {n: {"source": str(directory / (n + SAVED_SUFFIX)), "attempts": 1} for n in names}
    return evaluate_each(fab, results, source=f"counters {directory}", meta=meta)


def sample_devices(fab: Fabric, size: int) -> list[str]:
    """About ``size`` devices: the faulted ones, their link partners and every k-th device."""
    names = sorted(fab.devices, key=natural_key)
    pick = set(fault_devices(fab))
    for ln in fab.links:
        if ln.a.device in pick or ln.b.device in pick:
            pick.update((ln.a.device, ln.b.device))
    step = max(1, len(names) // max(1, size - len(pick)))
    pick.update(names[::step])
    return [n for n in names if n in pick]


def compare_with_reference(fab: Fabric, directory: Path, names: list[str], workers: int = 2) -> list[str]:
    """Differences between ``roceconf health --counters`` (one device at a time, packed, on ``workers``
    forked processes) and :func:`reference_report` on ``names``: the JSON and text reports must be equal
    byte for byte (but for the time they were made). Empty: equal."""
    from roceconf.health.collect import health_offline
    from roceconf.health.report import to_json, to_text

    new = health_offline(fab, directory, device=names, workers=workers)
    ref = reference_report(fab, directory, names)
    new.generated_at = ref.generated_at
    problems = []
    if to_json(new) != to_json(ref):
        problems.append("the JSON reports differ")
    if to_text(new) != to_text(ref):
        problems.append("the text reports differ")
    return problems


__all__ = [
    "compare_with_reference",
    "expected_findings",
    "fault_devices",
    "reference_report",
    "sample_devices",
    "write_saved_counters",
]
