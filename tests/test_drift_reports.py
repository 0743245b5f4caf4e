"""The fast drift audit (per-shape desired states, memoised expressibility, per-interface compare, forked
workers) reports exactly what the slow one did: one desired state, one render + re-parse and one DeepDiff of
the whole state per device, one device after the other.

The reference is that slow path: ``audit_device`` without the per-shape desired state (so
``expressible(desired_state(dev))`` per device) and with ``compare.compare_reference`` (one DeepDiff). The lab
is compared device by device in full; the pod (328 devices of 4 shapes) and the three-tier generator's
2,048-GPU fabric (416 devices, every device shape of the 32,768-GPU one) are audited in full by the fast path
and compared with the reference on a sample (every faulted device, one device of every shape, 24 more at
random; the whole pod under ``make test-full``). The 32,768-GPU fabric itself (5,696 devices) is
bench/bench_scale.py's `drift --configs` phase, which checks its verdicts against the ones the code before the
change printed (``bench.drift_faults.EXPECTED_32K``).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bench.drift_faults import EXPECTED_32K, drifted_items, faulted_configs, write_configs
from bench.fabricgen import three_tier
from roceconf.drift import audit as audit_mod
from roceconf.drift.compare import compare_reference
from roceconf.intent import Fabric, load, load_text
from roceconf.intent import desired as desired_mod
from roceconf.names import natural_key
from tests.strategies import full

ROOT = Path(__file__).parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
POD = ROOT / "inventories" / "pod" / "intent.yml"

def _reference(fab: Fabric, configs: Path, names: list[str], monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    with monkeypatch.context() as m:
        m.setattr(
            audit_mod,
            "compare",
            lambda d, a, p, n, f, want=None, shared=False: compare_reference(d, a, p, n, f),
        )
        return [_plain(audit_mod.audit_device(fab, n, configs=configs).to_dict()) for n in names]


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    d = dict(d)
    d.pop("seconds")
    return d


def _fast(fab: Fabric, configs: Path, workers: int = 2) -> tuple[list[dict], dict[str, Any]]:
    report = audit_mod.audit(fab, configs=configs, workers=workers)
    return [_plain(r.to_dict()) for r in report.devices], report.counts


def _faulted(fab: Fabric, tmp: Path, count: int = 5) -> dict[str, str]:
    files, faults = faulted_configs(fab, count)
    write_configs(files, tmp)
    return faults


def test_lab_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fab = load(LAB)
    faults = _faulted(fab, tmp_path, count=8)  # every switch platform, then the three NIC families
    assert {fab.devices[n].platform for n in faults} >= {"nxos", "junos", "nvue", "sonic", "eos", "connectx"}
    names = sorted(fab.devices, key=natural_key)
    ref = _reference(fab, tmp_path, names, monkeypatch)
    fast, counts = _fast(fab, tmp_path, workers=1)
    assert fast == ref
    monkeypatch.setattr(audit_mod, "_MIN_CHUNK", 1)  # 14 devices: on forked workers all the same
    fast, counts = _fast(fab, tmp_path)
    assert fast == ref
    assert {d["device"] for d in fast if d["status"] == "drift"} == set(faults)
    assert counts["unknown"] == 0


def _sample(fab: Fabric, faults: dict[str, str], more: int) -> list[str]:
    """Every faulted device, the first device of every shape (per-shape desired state), ``more`` at random."""
    shapes: dict[tuple, str] = {}
    for n in sorted(fab.devices, key=natural_key):
        shapes.setdefault(desired_mod.shape(fab.devices[n]), n)
    return sorted(set(faults) | set(shapes.values()) | set(random.Random(16).sample(sorted(fab.devices), more)))


def test_pod_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pod (328 devices of 4 shapes) audited in full by the fast path; compared with the reference on
    every faulted device, one device of every shape and 24 more (``make test-full``: on every device)."""
    fab = load(POD)
    faults = _faulted(fab, tmp_path)
    fast, counts = _fast(fab, tmp_path)  # on forked workers
    by_name = {d["device"]: d for d in fast}
    assert sorted(by_name, key=natural_key) == sorted(fab.devices, key=natural_key)
    assert {d["device"] for d in fast if d["status"] == "drift"} == set(faults)
    assert counts["in_sync"] == len(fab.devices) - len(faults) and counts["unknown"] == 0
    # one finding per injected fault (the SONiC port that lost no-drop drifts in two fields: one cause)
    assert counts["findings"] == len(faults) == 5 and counts["items"] == 6
    assert all(len(d["findings"]) == 1 for d in fast if d["status"] == "drift")
    names = sorted(fab.devices, key=natural_key) if full() else _sample(fab, faults, 24)
    assert _reference(fab, tmp_path, names, monkeypatch) == [by_name[n] for n in names]


def test_one_finding_per_cause() -> None:
    """64 ports drifting in the same field the same way are one finding with the ports as a range; the
    fields of one feature on the same ports are one finding; a different value is another."""
    from roceconf.drift.compare import DriftItem
    from roceconf.reports.causes import causes, compress

    def item(port: str, field: str, expected: object, actual: object, feature: str = "mtu") -> DriftItem:
        return DriftItem("leaf1", port, f"interfaces.{port}.{field}", expected, actual, "critical", feature,
                         f"{field} on leaf1 {port} is {actual}", "leaf1.cfg", 10)

    items = [item(f"Ethernet1/{p}", "mtu", 9214, 1500) for p in range(1, 65)]
    items += [item("Ethernet2/1", "mtu", 9214, 9000)]
    items += [item("Ethernet2/2", "pfc.enabled", True, None, "pfc"), item("Ethernet2/2", "pfc.no_drop", [3], None, "pfc")]
    found = causes("leaf1", items)
    assert [c.title(str) for c in found] == [
        "Ethernet1/1-64: mtu 1500, expected 9214",
        "Ethernet2/1: mtu 9000, expected 9214",
        "Ethernet2/2: pfc.enabled None, expected True; pfc.no_drop None, expected [3]",
    ]
    assert found[0].items == list(range(64)) and found[0].explanations == ["mtu on leaf1 Ethernet1/1-64 is 1500"]
    assert found[0].locations == ["leaf1.cfg:10"]
    assert compress(["swp1", "swp2", "swp3", "swp9"]) == ["swp1-3", "swp9"]
    assert compress(["Ethernet0", "Ethernet4"]) == ["Ethernet0", "Ethernet4"]  # not consecutive: not a range


def test_three_tier_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 32k generator's fabric at 2,048 GPUs: every shape of the 32k fabric's devices (a leaf of 32 hosts
    and 16 spines, a spine of 32 leaves and 4 super-spines, EOS/NVUE and SONiC/Junos pods, ConnectX and bnxt
    hosts), audited in full by the fast path and compared with the reference on a sample. The same audit at
    32,768 GPUs is bench/bench_scale.py's `drift --configs` phase, whose correctness line checks its verdicts
    against the ones the reference printed (bench.drift_faults.EXPECTED_32K)."""
    fab = load_text(three_tier(hosts=256), str(tmp_path / "gpu2048.yml"))
    assert (len(fab.devices), len(fab.links)) == (416, 3200)
    faults = _faulted(fab, tmp_path)
    assert {fab.devices[n].platform for n in faults} == {"nxos", "junos", "nvue", "sonic", "eos"}
    fast, counts = _fast(fab, tmp_path)
    by_name = {d["device"]: d for d in fast}
    drifted = drifted_items({"devices": fast})
    assert set(drifted) == set(faults)
    assert counts["devices"] == 416 and counts["in_sync"] == 416 - len(faults) and counts["unknown"] == 0
    # the same faults the 32k fabric carries, on the devices of the same place in the fabric
    assert drifted["superspine33"] == sorted((f"interfaces.Ethernet1/{p}.mtu", "warning") for p in range(1, 3))
    assert sorted(v for k, v in drifted.items() if k != "superspine33") == sorted(
        v for k, v in EXPECTED_32K.items() if k != "superspine33"
    )
    sample = _sample(fab, faults, 24)
    assert _reference(fab, tmp_path, sample, monkeypatch) == [by_name[n] for n in sample]


def test_distinct_fabric_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The distinct-fabric bench's generator at 1,024 GPUs (bench/bench_scale.py --distinct): every switch with
    its own hash seed, partial rail groups, one switch in 8 on another release. What is shared there (the
    hosts, whose entries are alike) must not change a verdict: the fast audit equals the reference (one
    device at a time, no sharing) on a sample of every platform, and the losses found once per shape equal
    each device's own."""
    from bench.fabricgen import scaled
    from roceconf.intent.unexpressed import device_losses, fabric_losses

    fab = load_text(scaled("1k", distinct_devices=True), str(tmp_path / "gpu1024-distinct.yml"))
    seeds = {fab.devices[n].settings.ecmp.seed for n in fab.devices if not fab.devices[n].is_host}
    assert len(seeds) == sum(not d.is_host for d in fab.devices.values())  # no two switches alike
    faults = _faulted(fab, tmp_path)
    fast, counts = _fast(fab, tmp_path)
    by_name = {d["device"]: d for d in fast}
    assert set(drifted_items({"devices": fast})) == set(faults) and counts["unknown"] == 0
    per_plat: dict[str, list[str]] = {}
    for n in sorted(fab.devices, key=natural_key):
        per_plat.setdefault(fab.devices[n].platform, []).append(n)
    sample = sorted(set(faults) | {n for names in per_plat.values() for n in names[:: max(1, len(names) // 3)]})
    assert _reference(fab, tmp_path, sample, monkeypatch) == [by_name[n] for n in sample]
    shared = fabric_losses(fab)
    for n in sample:
        assert shared.get(n, []) == device_losses(fab.devices[n]), n
