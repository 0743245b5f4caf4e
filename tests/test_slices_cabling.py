"""Sliced cabling without devices: `cabling --lldp DIR --counters DIR --slice K/N --results-dir DIR` and
`report merge` (equal to the unsliced run: every link, unexpected neighbour and ECMP group judged again on the
merged neighbours and counters; a missing slice is unknown, never green). The saved LLDP outputs and counter
samples are each platform's own (tests/test_cabling.py ``save``, tests/test_cabling_links.py ``save_counters``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.intent import Fabric
from roceconf.lab.counters import Scenario
from roceconf.slices import slice_devices
from tests.hostile.harness import check, run
from tests.test_cabling import LAB_INTENT, save
from tests.test_cabling_links import save_counters
from tests.test_slices import _cli

INTENT = str(LAB_INTENT)


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


@pytest.fixture(scope="module")
def saved(fab: Fabric, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """LLDP with spine1's two cables to leaf1 and leaf2 swapped (leaf1 in slice 2 of 3, leaf2 and spine1 in slice
    3), CRC errors on spine2 et-0/0/1 (slice 1; its partner leaf2 is in slice 3) and an imbalanced ECMP group on
    leaf1; beside them (DIR/drift.json) the drift report of the rendered configs, with gpu3's config missing
    (unknown), joined into the link verdicts."""
    d = tmp_path_factory.mktemp("cab")
    lldp = save(fab, d / "lldp", lambda w: w.swap("spine1", "Ethernet1/1", "miswire"))
    counters = save_counters(fab, d / "counters", {"spine2": [Scenario("crc", "et-0/0/1")],
                                                    "leaf1": [Scenario("ecmp-imbalance", "Ethernet50")]})
    (d / "cfg").mkdir()
    for name, text in render_fabric(fab).items():
        if name != output_name("gpu3", fab.devices["gpu3"].platform):
            (d / "cfg" / name).write_text(text)
    r = _cli("drift", INTENT, "--configs", str(d / "cfg"), "--format", "json", "--output", str(d / "drift.json"))
    assert r.returncode == 3, r.stderr
    return lldp, counters


def _comparable(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("generated_at")
    return data


@pytest.fixture(scope="module")
def sliced(saved: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """The three slices of 3 (result directory, each slice's JSON report on standard output)."""
    lldp, counters = saved
    res = tmp_path_factory.mktemp("res")
    parts = []
    for k in (1, 2, 3):
        r = _cli("cabling", INTENT, "--lldp", str(lldp), "--counters", str(counters), "--slice", f"{k}/3",
                 "--results-dir", str(res), "--format", "json", "--drift", str(lldp.parent / "drift.json"))
        assert r.returncode in (0, 1, 3), r.stderr
        parts.append(json.loads(r.stdout))
    return res, parts


def test_three_cabling_slices_merge_into_the_unsliced_report(fab: Fabric, saved: tuple[Path, Path],
                                                             sliced: tuple[Path, list[dict]], tmp_path: Path) -> None:
    lldp, counters = saved
    full = _cli("cabling", INTENT, "--lldp", str(lldp), "--counters", str(counters), "--format", "json",
                "--output", str(tmp_path / "full.json"), "--drift", str(lldp.parent / "drift.json"))
    assert full.returncode == 1, full.stderr
    whole = _comparable(tmp_path / "full.json")
    rules = {f["rule"] for f in whole["findings"]}
    # the drift report is joined again by the merge (gpu3 unknown there: its links' drift part unknown)
    assert whole["joined"] == {"drift": str(lldp.parent / "drift.json")}
    assert {li["parts"]["drift"]["status"] for li in whole["links"] if li["a"].startswith("gpu3:")} == {"unknown"}
    assert {"RC501", "RC510", "RC520"} <= rules, rules
    res, parts = sliced
    for k, part in enumerate(parts, 1):
        names = slice_devices(list(fab.devices), None, k, 3)
        assert [d["device"] for d in part["devices"]] == names
        meta = json.loads((res / f"slice{k}of3" / "slice.json").read_text())
        assert meta["kind"] == "cabling" and meta["devices"] == names
        # the slice keeps the raw counters of its devices (the merge judges them again)
        kept = sorted(p.name.split(".")[0] for p in (res / f"slice{k}of3" / "counters").iterdir())
        assert kept == sorted(names)

    merged = _cli("report", "merge", str(res), "--format", "json", "--output", str(tmp_path / "merged.json"))
    assert merged.returncode == 1, merged.stderr
    assert _comparable(tmp_path / "merged.json") == whole
    # the miswire is seen from two slices (leaf1 in 2, spine1 and leaf2 in 3): the merge has all four ends
    miswired = sorted((f["device"], f["port"]) for f in whole["findings"] if f["rule"] == "RC501")
    assert miswired == [("leaf1", "Ethernet49"), ("leaf2", "swp31"), ("spine1", "Ethernet1/1"),
                        ("spine1", "Ethernet1/2")]
    assert sorted(p["device"] for p in parts[1]["findings"] if p["rule"] == "RC501") == ["leaf1"]
    text = _cli("report", "merge", *(str(p) for p in sorted(res.iterdir())))  # slice directories one by one
    assert text.returncode == 1 and "RC510" in text.stdout and "spine2" in text.stdout


def test_a_link_split_across_slices_is_judged_from_both_ends(sliced: tuple[Path, list[dict]]) -> None:
    """leaf2:swp32 - spine2:et-0/0/1: leaf2 in slice 3, spine2 (CRC errors) in slice 1. Each slice judges its
    own end; the merge judges the link from both ends. The ECMP groups (one per device, from its own uplinks'
    counters) come through the merge with the verdicts the unsliced run gives."""
    res, parts = sliced
    want = ("leaf2:swp32", "spine2:et-0/0/1")
    one = next(li for li in parts[0]["links"] if (li["a"], li["b"]) == want)
    three = next(li for li in parts[2]["links"] if (li["a"], li["b"]) == want)
    assert one["status"] == "fail" and three["status"] != "fail"  # leaf2's end alone shows no CRC error
    assert not [f for f in parts[2]["findings"] if f["device"] == "spine2"]
    merged = json.loads(_cli("report", "merge", str(res), "--format", "json").stdout)
    link = next(li for li in merged["links"] if (li["a"], li["b"]) == want)
    assert link["status"] == "fail" and link["parts"]["cabling"] == "ok"
    assert ("RC510", "spine2", "et-0/0/1") in {(f["rule"], f["device"], f["port"]) for f in merged["findings"]}
    ends = {(e["device"], e["port"]) for e in merged["link_health"]}
    assert {("leaf2", "swp32"), ("spine2", "et-0/0/1")} <= ends
    groups = {g["device"]: g["status"] for g in merged["ecmp"]}
    assert groups == {"leaf1": "finding", "leaf2": "ok", "leaf3": "n/a", "leaf4": "ok"}  # leaf2 NVUE, leaf3 SONiC


def test_a_missing_cabling_slice_is_unknown_exit_3(fab: Fabric, tmp_path: Path) -> None:
    lldp = save(fab, tmp_path / "lldp")  # the intent's cables, no fault: the whole run would exit 0
    assert _cli("cabling", INTENT, "--lldp", str(lldp)).returncode == 0
    res = tmp_path / "res"
    for k in (1, 3):  # slice 2 of 3 never ran
        r = _cli("cabling", INTENT, "--lldp", str(lldp), "--slice", f"{k}/3", "--results-dir", str(res))
        assert r.returncode == 0, r.stdout + r.stderr
    r = _cli("report", "merge", str(res), "--format", "json")
    assert r.returncode == 3, r.stderr
    data = json.loads(r.stdout)
    missing = slice_devices(list(fab.devices), None, 2, 3)
    assert sorted(d["device"] for d in data["devices"] if d["status"] == "unknown") == sorted(missing)
    assert "slice(s) 2 of 3 missing" in r.stderr
    assert data["summary"]["ok"] < data["summary"]["links"] and data["exit_code"] == 3
    # a link whose both ends are in the missing slice stays unknown; one with an end read is confirmed by it
    by = {(li["a"].split(":")[0], li["b"].split(":")[0]): li["status"] for li in data["links"]}
    assert by[("gpu2", "leaf1")] == "unknown" and by[("leaf1", "spine1")] == "ok"
    text = _cli("report", "merge", str(res))
    assert text.returncode == 3 and "in no slice's results" in text.stdout


def test_cabling_slices_refused_when_mixed_or_bad(saved: tuple[Path, Path], sliced: tuple[Path, list[dict]],
                                                  tmp_path: Path) -> None:
    lldp, _counters = saved
    res, _parts = sliced
    b = tmp_path / "b"
    _cli("cabling", INTENT, "--lldp", str(lldp), "--slice", "2/3", "--results-dir", str(b))  # no link counters
    check(run("report", "merge", str(res / "slice1of3"), str(b)), names=("link counters",))
    check(run("report", "merge", str(res), str(b)), names=("is in two slices",))
    c = tmp_path / "c"
    _cli("drift", INTENT, "--configs", str(tmp_path), "--slice", "2/3", "--results-dir", str(c))
    check(run("report", "merge", str(res / "slice1of3"), str(c)), names=("different commands",))
    bad = tmp_path / "bad"
    shutil.copytree(res / "slice1of3", bad)
    (bad / "cabling.json").write_text('{"devices": [{"device": "leaf3"}]}')
    check(run("report", "merge", str(bad)), names=("not a cabling result",))
    (bad / "cabling.json").write_text('{"devices": [{"device": "leaf3", "platform": "sonic", "status": "read", '
                                      '"neighbours": [{"local_port": 1, "system_name": "x", "port_id": "y"}]}]}')
    check(run("report", "merge", str(bad)), names=("leaf3", "neighbours"))
    check(run("cabling", INTENT, "--lldp", str(lldp), "--slice", "1/2"), names=("--results-dir",))
    check(run("cabling", INTENT, "--inventory", str(tmp_path / "none.yml"), "--interval", "1", "--save-counters",
              str(tmp_path / "s"), "--slice", "1/2", "--results-dir", str(b)), names=("--save-counters",))
