"""The fast drift audit (per-shape desired states, memoised expressibility, per-interface compare, forked
workers) reports exactly what the slow one did: one desired state, one render + re-parse and one DeepDiff of
the whole state per device, one device after the other.

The reference is that slow path: ``audit_device`` without the per-shape desired state (so
``expressible(desired_state(dev))`` per device) and with ``compare.compare_reference`` (one DeepDiff). The lab and the pod are compared device by device
in full; the 32,768-GPU fabric (5,696 devices) is audited in full by the fast path, compared with the
reference on a sample (every faulted device, one device of every shape, 24 more at random), and its verdicts
are checked against the ones the code before the change printed (``EXPECTED_32K``).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bench.drift_faults import faulted_configs, write_configs
from bench.fabricgen import three_tier
from roceconf.drift import audit as audit_mod
from roceconf.drift.compare import compare_reference
from roceconf.intent import Fabric, load, load_text
from roceconf.intent import desired as desired_mod
from roceconf.names import natural_key

ROOT = Path(__file__).parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
POD = ROOT / "inventories" / "pod" / "intent.yml"

#: drift found by `roceconf drift --configs` before the change (one DeepDiff per device, threads), on
#: `bench/fabricgen.py --gpus 32768` with `bench/drift_faults.py`'s five faults: device -> (field, severity)
EXPECTED_32K: dict[str, list[tuple[str, str]]] = {
    "leaf0257": [("interfaces.Ethernet2.mtu", "critical")],
    "leaf0769": [
        ("interfaces.Ethernet1.pfc.enabled", "critical"),
        ("interfaces.Ethernet1.pfc.no_drop", "critical"),
    ],
    "spine09-01": [("interfaces.swp2.ecn.3.max_bytes", "warning")],
    "spine25-01": [("dscp_to_tc.48", "critical")],
    # the network-qos class MTU: one line of the config, stated for every port
    "superspine33": sorted((f"interfaces.Ethernet1/{p}.mtu", "warning") for p in range(1, 33)),
}


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


def test_pod_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fab = load(POD)
    faults = _faulted(fab, tmp_path)
    names = sorted(fab.devices, key=natural_key)
    ref = _reference(fab, tmp_path, names, monkeypatch)
    fast, _ = _fast(fab, tmp_path)  # on forked workers
    assert fast == ref
    assert {d["device"] for d in ref if d["status"] == "drift"} == set(faults)


@pytest.mark.xdist_group("scale-32k")
def test_32k_reports_match_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fab = load_text(three_tier(hosts=4096), str(tmp_path / "gpu32768.yml"))
    assert (len(fab.devices), len(fab.links)) == (5696, 51200)
    faults = _faulted(fab, tmp_path)
    fast, counts = _fast(fab, tmp_path)
    by_name = {d["device"]: d for d in fast}
    drifted = {
        d["device"]: [(i["field"], i["severity"]) for i in d["items"]]
        for d in fast
        if d["status"] != "in_sync"
    }
    assert drifted == EXPECTED_32K
    assert set(drifted) == set(faults)
    assert counts["devices"] == 5696 and counts["in_sync"] == 5696 - len(faults)
    shapes: dict[tuple, str] = {}
    for n in sorted(fab.devices, key=natural_key):
        shapes.setdefault(desired_mod.shape(fab.devices[n]), n)
    sample = sorted(
        set(faults) | set(shapes.values()) | set(random.Random(16).sample(sorted(fab.devices), 24))
    )
    assert _reference(fab, tmp_path, sample, monkeypatch) == [by_name[n] for n in sample]
