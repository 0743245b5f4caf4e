"""Bill of materials: parsers on recorded outputs, live reads of every lab device over real SSH/HTTP, and the
nightly `drift --baseline` that reports exactly what changed since the accepted acceptance test."""

from __future__ import annotations

import importlib
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from roceconf.acceptance import bom
from roceconf.acceptance.plan import build_plan
from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.lab.server import Lab
from roceconf.platforms.hostbom import parse as host_parse
from roceconf.state import DeviceState, Interface, NicRdma
from tests.acceptance.test_verdict import _write_all

ROOT = Path(__file__).resolve().parents[2]
LAB_INTENT = ROOT / "inventories" / "lab" / "intent.yml"
EXE = [sys.executable, "-m", "roceconf.cli"]


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos"])
def test_recorded_show_version_outputs(platform: str) -> None:
    mod = importlib.import_module(f"roceconf.platforms.{platform}.bom")
    cases = sorted((ROOT / "tests" / "fixtures" / platform / "bom").glob("*.txt"))
    assert len(cases) >= 2
    for raw in cases:
        expected = yaml.safe_load(raw.with_name(raw.stem + ".expected.yaml").read_text())
        assert mod.parse({"show version": raw.read_text()}) == expected, raw.name


def test_host_parse_prefers_running_firmware_and_marks_missing_tools() -> None:
    state = DeviceState(platform="connectx", interfaces={"eth0": Interface(rdma=NicRdma(device="mlx5_0"))})
    outputs = {
        "uname -r": "5.15.0-125-generic",
        "cat /etc/os-release": 'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.5 LTS"\n',
        "ofed_info -s": "bash: ofed_info: command not found",
        "ethtool -i eth0": "driver: mlx5_core\nversion: 24.10-1.1.4\nfirmware-version: 28.39.1002 (MT_0000000838)\n"
        "bus-info: 0000:08:00.0\n",
        "devlink -j dev info": json.dumps(
            {"info": {"pci/0000:08:00.0": {"driver": "mlx5_core", "serial_number": "MT2244X00001",
                                            "versions": {"fixed": {"fw.psid": "MT_0000000838"},
                                                         "running": {"fw.version": "28.41.1000"}}}}}
        ),
        "cat /sys/class/infiniband/mlx5_0/fw_ver": "28.39.1002",
        "cat /usr/local/cuda/version.json": "cat: /usr/local/cuda/version.json: No such file or directory",
    }
    b = host_parse(outputs, state)
    assert b["kernel"] == "5.15.0-125-generic" and b["os"] == "Ubuntu 22.04.5 LTS"
    assert b["ofed"] is None and b["cuda"] is None and b["nccl"] is None
    nic = b["nics"]["eth0"]
    assert nic == {"rdma_device": "mlx5_0", "driver": "mlx5_core", "driver_version": "24.10-1.1.4",
                   "bus": "0000:08:00.0", "board": "MT_0000000838", "serial": "MT2244X00001",
                   "firmware": "28.41.1000"}


def test_stale_lists_every_change() -> None:
    base = {"bom": {"devices": {
        "a": {"config_sha256": "1", "status": "read", "facts": {"kind": "switch", "version": "1"}},
        "b": {"config_sha256": "2", "status": "read", "facts": {"kind": "switch", "version": "1"}},
    }}}
    now = {"devices": {
        "a": {"config_sha256": "1", "status": "read", "facts": {"kind": "switch", "version": "2"}},
        "b": {"config_sha256": "3", "status": "unknown", "reason": "connection refused", "facts": None},
        "c": {"config_sha256": "4", "status": "read", "facts": {}},
    }}
    got = [(f.rule, f.device, f.component, f.baseline, f.now) for f in bom.stale(base, now)]
    assert got == [
        ("RC400", "a", "version", "1", "2"),
        ("RC400", "b", "config", "2", "3"),
        ("RC413", "b", "bom", "read", None),
        ("RC400", "c", "device", None, "added"),
    ]
    with pytest.raises(bom.BaselineError):
        bom.stale({"bom": {}}, now)


def test_baseline_block_from_entries_read_elsewhere() -> None:
    """What the Ansible report module builds: a missing entry is unreadable (RC413, with the given reason);
    devices outside `only` are neither compared nor reported as gone."""
    entry = {"platform": "connectx", "config_sha256": "a", "status": "read", "reason": None,
             "facts": {"kind": "host", "kernel": "6.1"}}
    base = {"recorded_at": "t", "bom": {"devices": {"gpu1": entry, "gpu2": entry, "gpu3": entry}}}
    block = bom.baseline_block(base, "b.json", {"gpu1": {**entry, "facts": {"kind": "host", "kernel": "6.8"}},
                                                "gpu2": None}, only=["gpu1", "gpu2"], missing="no BOM read here")
    assert block["file"] == "b.json" and block["recorded_at"] == "t"
    assert [(f["rule"], f["device"], f["component"]) for f in block["findings"]] == [
        ("RC400", "gpu1", "kernel"), ("RC413", "gpu2", "bom")]
    assert "no BOM read here" in block["findings"][1]["message"]


# --------------------------------------------------------------------------------------------- live
pytestmark = pytest.mark.xdist_group("acceptance-lab")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, Path, dict[str, str]]]:
    fab = load_valid(LAB_INTENT)
    files = render_fabric(fab)
    user, pw = f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16)
    tmp = tmp_path_factory.mktemp("bom")
    with Lab(user, pw) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        inv = lab.write_inventory(tmp / "inventory.yml")
        env = {**os.environ, "ROCECONF_USERNAME": user, "ROCECONF_PASSWORD": pw}
        yield lab, inv, env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(EXE + args, capture_output=True, text=True, env=env, timeout=180)


def test_bom_reads_every_lab_device(live, tmp_path: Path) -> None:
    lab, inv, env = live
    out = tmp_path / "bom.json"
    res = _run(["bom", str(LAB_INTENT), "--inventory", str(inv), "--format", "json", "--output", str(out)], env)
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    fab = load_valid(LAB_INTENT)
    assert set(data["devices"]) == set(fab.devices)
    for name, d in data["devices"].items():
        assert d["status"] == "read", (name, d["reason"])
        assert d["config_sha256"] == bom.config_hash(fab, name)
        facts, lab_facts = d["facts"], lab.device(name).facts
        if facts["kind"] == "host":
            assert facts["kernel"] == lab_facts["kernel"] and facts["nccl"] == lab_facts["nccl"]
            for netdev, nic in facts["nics"].items():
                assert nic["firmware"] == lab_facts["nics"][netdev]["firmware"], (name, netdev)
                assert nic["rdma_device"] == fab.devices[name].ports[netdev].rdma_device
        else:
            assert facts["model"].startswith(lab_facts["model"]) and lab_facts["version"] in facts["version"]
        assert lab.stats(name)["logins"] >= 1


def test_nightly_audit_reports_exactly_the_changed_firmware(live, tmp_path: Path) -> None:
    lab, inv, env = live
    # an accepted acceptance test: a passing verdict and the BOM it was measured on
    plan = build_plan(load_valid(LAB_INTENT), hosts="gpu[12]")
    results = tmp_path / "results"
    results.mkdir()
    _write_all(plan, results)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan.to_dict()))
    assert _run(["acceptance", "verdict", str(results), "--plan", str(plan_file), "--format", "json",
                 "--output", str(tmp_path / "verdict.json")], env).returncode == 0
    assert _run(["bom", str(LAB_INTENT), "--inventory", str(inv), "--output", str(tmp_path / "bom.json")],
                env).returncode == 0
    res = _run(["acceptance", "record", str(tmp_path / "verdict.json"), "--bom", str(tmp_path / "bom.json"),
                "-o", str(tmp_path / "baseline.json")], env)
    assert res.returncode == 0, res.stderr
    audit = ["drift", str(LAB_INTENT), "--inventory", str(inv), "--baseline", str(tmp_path / "baseline.json"),
             "--format", "json"]
    res = _run(audit, env)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr
    assert json.loads(res.stdout)["baseline"]["findings"] == []

    nic = lab.device("gpu1").facts["nics"]["eth1"]
    old = nic["firmware"]
    nic["firmware"] = "28.41.1000"
    try:
        res = _run(audit, env)
        report = json.loads(res.stdout)
        assert res.returncode == 1
        assert all(d["status"] == "in_sync" for d in report["devices"])
        assert [(f["rule"], f["device"], f["component"], f["baseline"], f["now"])
                for f in report["baseline"]["findings"]] == [("RC400", "gpu1", "mlx5_1 firmware", old, "28.41.1000")]
        text = _run(audit[:-2], env)
        assert (f"acceptance baseline is stale: gpu1 mlx5_1 firmware {old} -> 28.41.1000; re-run the acceptance test"
                in text.stdout)
    finally:
        nic["firmware"] = old


def test_record_refuses_a_failed_verdict_and_bad_files(live, tmp_path: Path) -> None:
    _, inv, env = live
    (tmp_path / "verdict.json").write_text(json.dumps({"passed": False, "tests": []}))
    (tmp_path / "bom.json").write_text(json.dumps({"devices": {}}))
    res = _run(["acceptance", "record", str(tmp_path / "verdict.json"), "--bom", str(tmp_path / "bom.json"),
                "-o", str(tmp_path / "baseline.json")], env)
    assert res.returncode == 2 and "did not pass" in res.stderr and not (tmp_path / "baseline.json").exists()
    assert res.stderr.strip().splitlines()[-1].startswith(f"error: {tmp_path / 'verdict.json'}: passed: false;")
    (tmp_path / "verdict.json").write_text(json.dumps({"passed": True, "tests": []}))
    (tmp_path / "bom.json").write_text(json.dumps({"devices": {"leaf1": {"status": "unreachable"}}}))
    res = _run(["acceptance", "record", str(tmp_path / "verdict.json"), "--bom", str(tmp_path / "bom.json"),
                "-o", str(tmp_path / "baseline.json")], env)
    assert res.returncode == 2 and not (tmp_path / "baseline.json").exists()
    assert res.stderr.strip().splitlines()[-1].startswith(f"error: {tmp_path / 'bom.json'}: devices: the BOM has unread")
    (tmp_path / "broken.json").write_text("[1, 2")
    res = _run(["drift", str(LAB_INTENT), "--inventory", str(inv), "--baseline", str(tmp_path / "broken.json")], env)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("error:") and "broken.json" in res.stderr


def test_unreadable_device_is_unknown(live, tmp_path: Path) -> None:
    lab, inv, env = live
    lab.set_fault("gpu2", "refuse")
    try:
        res = _run(["bom", str(LAB_INTENT), "--inventory", str(inv), "--format", "json", "--timeout", "2"], env)
    finally:
        lab.set_fault("gpu2", None)
    assert res.returncode == 3
    data = json.loads(res.stdout)
    assert data["devices"]["gpu2"]["status"] == "unknown" and "refused" in data["devices"]["gpu2"]["reason"]
    assert all(d["status"] == "read" for n, d in data["devices"].items() if n != "gpu2")


@pytest.mark.parametrize(
    ("fixture", "driver", "version", "firmware", "bus"),
    [
        ("netdev-cx6dx-ethtool-i.txt", "mlx5_core", "5.0-0", "22.28.1002", "0000:07:00.1"),
        ("netdev-cx4-ethtool-i.txt", "mlx5_core", "6.14.0-63.fc42.x86_64", "14.32.1900", "0000:c1:00.0"),
    ],
)
def test_recorded_ethtool_i(fixture: str, driver: str, version: str, firmware: str, bus: str) -> None:
    """Without devlink and sysfs answers, the firmware is ethtool's version word (not its PSID suffix)."""
    raw = (ROOT / "tests" / "fixtures" / "connectx" / "bom" / fixture).read_text()
    state = DeviceState(platform="connectx", interfaces={"eth0": Interface(rdma=NicRdma(device="mlx5_0"))})
    nic = host_parse({"ethtool -i eth0": raw}, state)["nics"]["eth0"]
    assert (nic["driver"], nic["driver_version"], nic["firmware"], nic["bus"]) == (driver, version, firmware, bus)
