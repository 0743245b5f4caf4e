"""Sliced runs without devices: AWX's slicing rule, `drift --configs --slice K/N --results-dir`, `report merge`
(equal to the unsliced run; a missing slice is unknown, never green), report file modes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.slices import SliceError, awx_slice, parse_slice, slice_devices
from tests.hostile.harness import check, run

ROOT = Path(__file__).resolve().parents[1]
INTENT = ROOT / "inventories" / "lab" / "intent.yml"


def test_awx_rule_sorted_by_name_every_nth_from_the_kth() -> None:
    hosts = ["leaf2", "leaf10", "gpu1", "spine1", "leaf1"]
    # AWX: order_by('name') then [slice_number - 1::slice_count] (plain string order: leaf10 < leaf2)
    assert awx_slice(hosts, 1, 2) == ["gpu1", "leaf10", "spine1"]
    assert awx_slice(hosts, 2, 2) == ["leaf1", "leaf2"]
    assert awx_slice(hosts, 1, 1) == sorted(hosts)
    for n in (1, 2, 3, 4, 7):
        parts = [awx_slice(hosts, k, n) for k in range(1, n + 1)]
        assert sorted(h for p in parts for h in p) == sorted(hosts)  # every host in exactly one slice
    # the inventory's hosts are sliced (as AWX does), then the intent's devices among them are audited
    assert slice_devices(["gpu1", "leaf1", "leaf2"], ["fw1", "gpu1", "leaf1", "leaf2"], 1, 2) == ["leaf1"]
    assert parse_slice("2/3") == (2, 3) and parse_slice("slice2of3") == (2, 3)
    for bad in ("0/3", "4/3", "3", "a/b", ""):
        with pytest.raises(SliceError):
            parse_slice(bad)


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab intent's rendered configs, leaf1's MTU changed (drift on one device of one slice)."""
    d = tmp_path_factory.mktemp("cfg")
    fab = load_valid(INTENT)
    for name, text in render_fabric(fab).items():
        (d / name).write_text(text)
    leaf1 = d / output_name("leaf1", fab.devices["leaf1"].platform)
    text = leaf1.read_text()
    assert "   mtu 9214\n" in text
    leaf1.write_text(text.replace("   mtu 9214\n", "   mtu 9100\n", 1))
    return d


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "roceconf.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def _comparable(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("generated_at")
    for d in data["devices"]:
        d.pop("seconds")
    return data


def test_three_slices_merge_into_the_unsliced_report(configs: Path, tmp_path: Path) -> None:
    full = _cli("drift", str(INTENT), "--configs", str(configs), "--format", "json", "--output", str(tmp_path / "full.json"))
    assert full.returncode == 1, full.stderr
    res = tmp_path / "res"
    seen: list[str] = []
    for k in (1, 2, 3):
        r = _cli("drift", str(INTENT), "--configs", str(configs), "--slice", f"{k}/3", "--results-dir", str(res),
                 "--format", "json")
        part = json.loads(r.stdout)
        names = [d["device"] for d in part["devices"]]
        assert names == slice_devices(list(load_valid(INTENT).devices), None, k, 3)
        # a slice reports its devices only: the others are neither findings nor unknowns of this slice
        assert part["summary"]["unknown"] == 0
        assert r.returncode == (1 if "leaf1" in names else 0)
        seen += names
        meta = json.loads((res / f"slice{k}of3" / "slice.json").read_text())
        assert meta["kind"] == "drift" and meta["slice"] == {"number": k, "count": 3} and meta["devices"] == names
    assert sorted(seen) == sorted(load_valid(INTENT).devices)

    merged = _cli("report", "merge", str(res), "--format", "json", "--output", str(tmp_path / "merged.json"))
    assert merged.returncode == 1, merged.stderr
    assert _comparable(tmp_path / "merged.json") == _comparable(tmp_path / "full.json")
    text = _cli("report", "merge", *(str(p) for p in sorted(res.iterdir())))  # slice directories named one by one
    assert text.returncode == 1 and "leaf1" in text.stdout and "mtu" in text.stdout.lower()

    # a missing slice: its devices are unknown and the merge is never green
    (res / "slice1of3" / "slice.json").unlink()
    (res / "slice1of3" / "drift.json").unlink()
    part = _cli("report", "merge", str(res), "--format", "json")
    data = json.loads(part.stdout)
    missing = [d["device"] for d in data["devices"] if d["status"] == "unknown"]
    assert missing == slice_devices(list(load_valid(INTENT).devices), None, 1, 3)
    assert part.returncode in (1, 3) and "slice(s) 1 of 3 missing" in part.stderr
    assert data["exit_code"] == part.returncode


def test_missing_slice_alone_exits_3_not_0(tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    for name, text in render_fabric(fab).items():
        (cfg / name).write_text(text)
    res = tmp_path / "res"
    for k in (1, 2):  # slice 3 of 3 never ran
        assert _cli("drift", str(INTENT), "--configs", str(cfg), "--slice", f"{k}/3", "--results-dir", str(res)).returncode == 0
    r = _cli("report", "merge", str(res))
    assert r.returncode == 3, r.stdout + r.stderr
    assert "UNKNOWN" in r.stdout and "in no slice's results" in r.stdout


def test_merge_refuses_overlapping_and_mixed_slices(tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    for name, text in render_fabric(fab).items():
        (cfg / name).write_text(text)
    a, b = tmp_path / "a", tmp_path / "b"
    _cli("drift", str(INTENT), "--configs", str(cfg), "--slice", "1/2", "--results-dir", str(a))
    _cli("drift", str(INTENT), "--configs", str(cfg), "--slice", "1/3", "--results-dir", str(b))
    o = run("report", "merge", str(a), str(b))
    check(o, names=("slice counts",))
    c = tmp_path / "c"
    _cli("drift", str(INTENT), "--configs", str(cfg), "--slice", "1/2", "--results-dir", str(c))
    meta = json.loads((c / "slice1of2" / "slice.json").read_text())
    meta["slice"]["number"] = 2
    (c / "slice1of2" / "slice.json").write_text(json.dumps(meta))
    o = run("report", "merge", str(a), str(c))
    check(o, names=("is in two slices",))
    o = run("report", "merge", str(tmp_path / "cfg"))
    check(o, names=("no slice.json",))
    o = run("drift", str(INTENT), "--configs", str(cfg), "--slice", "2/3")
    check(o, names=("--results-dir",))
    o = run("drift", str(INTENT), "--configs", str(cfg), "--slice", "5/3", "--results-dir", str(c))
    check(o, names=("5/3",))


def test_reports_honour_the_umask_device_configs_stay_private(configs: Path, tmp_path: Path) -> None:
    shared = Path(tempfile.mkdtemp(prefix="roceconf-modes-", dir="/tmp"))  # traversable by other users
    try:
        shared.chmod(0o755)
        old = os.umask(0o022)
        try:
            r = subprocess.run(
                [sys.executable, "-m", "roceconf.cli", "--session-log", str(tmp_path / "log"), "drift", str(INTENT),
                 "--configs", str(configs), "--format", "json", "--output", str(shared / "drift.json"),
                 "--slice", "1/1", "--results-dir", str(tmp_path / "res")],
                capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
            )
        finally:
            os.umask(old)
        assert r.returncode == 1, r.stderr

        def mode(p: Path) -> int:
            return stat.S_IMODE(p.stat().st_mode)

        assert mode(shared / "drift.json") == 0o644
        assert mode(tmp_path / "res" / "slice1of1" / "drift.json") == 0o644
        logs = list((tmp_path / "log").iterdir())
        assert logs and all(mode(p) == 0o600 for p in logs)
        if os.geteuid() == 0:  # another user (the Prometheus textfile collector's) reads the report
            got = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "cat",
                                  str(shared / "drift.json")], capture_output=True, text=True)
            assert got.returncode == 0 and '"leaf1"' in got.stdout
    finally:
        shutil.rmtree(shared)
