"""End-to-end drift audit over real SSH / HTTP with real napalm and netmiko against the loopback lab."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.demo import FAULTS
from roceconf.drift.audit import audit
from roceconf.intent import Fabric
from roceconf.lab.server import Lab

ROOT = Path(__file__).parent.parent
LAB_INTENT = ROOT / "inventories" / "lab" / "intent.yml"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


@pytest.fixture(scope="module")
def creds() -> tuple[str, str]:
    return f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16)


@pytest.fixture()
def lab(fab: Fabric, creds: tuple[str, str], tmp_path: Path) -> Iterator[tuple[Lab, Path]]:
    files = render_fabric(fab)
    with Lab(*creds) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        yield lab, lab.write_inventory(tmp_path / "inventory.yml")


def _key(item) -> tuple:
    return (item.device, item.interface, item.field, item.expected, item.actual, item.severity, item.line)


def _line_of(text: str, pattern: str) -> int:
    for n, line in enumerate(text.splitlines(), start=1):
        if re.search(pattern, line):
            return n
    raise AssertionError(f"{pattern!r} not in config")


def test_untouched_lab_is_in_sync(fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str]) -> None:
    lab_, inv = lab
    assert len(lab_.devices) >= 8 and len({d.platform for d in lab_.devices.values()}) >= 4
    report = audit(fab, inventory=inv, workers=8, timeout=10, credentials=creds)
    bad = [
        (d.device, d.status, d.reason, [(i.field, i.expected, i.actual) for i in d.items])
        for d in report.devices
        if d.status != "in_sync"
    ]
    assert not bad
    assert report.exit_code == 0
    # every device was really read: each one saw a login and commands
    for name in fab.devices:
        assert lab_.stats(name)["logins"] >= 1 and lab_.stats(name)["commands"] >= 1, name


def test_injected_faults_are_found_exactly(
    fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path
) -> None:
    lab_, inv = lab
    for _device, _what, inject in FAULTS:
        inject(lab_)
    saved = tmp_path / "saved"
    report = audit(fab, inventory=inv, workers=8, timeout=10, credentials=creds, save_dir=saved)
    assert report.exit_code == 1
    by = {d.device: d for d in report.devices}
    assert {n for n, d in by.items() if d.status == "drift"} == {"leaf1", "gpu1", "spine2"}
    assert all(d.status == "in_sync" for n, d in by.items() if n not in ("leaf1", "gpu1", "spine2"))

    leaf1 = by["leaf1"].items
    assert [(i.interface, i.field, i.expected, i.actual, i.severity) for i in leaf1] == [
        ("Ethernet2", "interfaces.Ethernet2.pfc.no_drop", [3], [], "critical")
    ]
    assert leaf1[0].line == _line_of(lab_.get_config("leaf1"), r"^\s+priority-flow-control priority 3 drop$")
    assert "no-drop missing for priority 3" in leaf1[0].explanation
    assert any(r.disruptive and "no-drop" in r.commands for r in by["leaf1"].remediation)

    spine2 = by["spine2"].items
    assert [(i.interface, i.field, i.expected, i.actual, i.severity) for i in spine2] == [
        ("et-0/0/1", "interfaces.et-0/0/1.mtu", 9214, 1500, "critical")
    ]
    assert spine2[0].line == _line_of(lab_.get_config("spine2"), r"^set interfaces et-0/0/1 mtu 1500$")
    assert any(
        r.disruptive and "set interfaces et-0/0/1 mtu 9214" in r.commands for r in by["spine2"].remediation
    )

    gpu1 = by["gpu1"].items
    assert [(i.interface, i.field, i.expected, i.actual, i.severity) for i in gpu1] == [
        ("eth0", "interfaces.eth0.rdma.cnp_dscp", 48, 46, "critical")
    ]
    bundle = (saved / "gpu1.sh").read_text()
    assert gpu1[0].line is not None and "46" in bundle.splitlines()[gpu1[0].line - 1]

    # the same audit from the saved backups yields the same drift items
    offline = audit(fab, configs=saved)
    assert sorted(_key(i) for d in offline.devices for i in d.items) == sorted(
        _key(i) for d in report.devices for i in d.items
    )
    assert offline.exit_code == 1


def test_remediation_commands_fix_the_injected_faults(
    fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str]
) -> None:
    """Applied as printed (EOS merge over eAPI, Junos load set + commit, the ConnectX script over SSH), the
    drift report's remediation brings every faulted device back in sync."""
    from roceconf.apply import apply_config

    lab_, inv = lab
    for _device, _what, inject in FAULTS:
        inject(lab_)
    report = audit(fab, inventory=inv, workers=8, timeout=10, credentials=creds)
    drifted = {d.device: d for d in report.devices if d.status == "drift"}
    assert sorted(drifted) == ["gpu1", "leaf1", "spine2"]
    # the EOS fault is an interface-level override: the fix removes it before re-stating the port
    (leaf1_fix,) = drifted["leaf1"].remediation
    assert leaf1_fix.commands.startswith("interface Ethernet2\n   no priority-flow-control priority 3 drop\n")
    for name, res in drifted.items():
        platform = fab.devices[name].platform
        tg = lab_.target(name)
        for fix in res.remediation:
            assert not fix.manual and fix.commands.strip()
            out = apply_config(tg, platform, fix.commands, check=False, timeout=10, confirm_seconds=None)
            assert out.changed, (name, out.messages)
    after = audit(fab, inventory=inv, workers=8, timeout=10, credentials=creds)
    assert [(d.device, d.status) for d in after.devices if d.status != "in_sync"] == []


def test_unreachable_and_broken_devices_are_unknown(
    fab: Fabric, creds: tuple[str, str], tmp_path: Path
) -> None:
    files = render_fabric(fab)
    faults = {"spine1": "refuse", "leaf2": "auth", "leaf3": "hang", "spine2": "garbage", "leaf1": "garbage"}
    with Lab(*creds) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)], fault=faults.get(name))
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        report = audit(fab, inventory=inv, workers=10, timeout=5, retries=1, credentials=creds)
    by = {d.device: d for d in report.devices}
    for name in faults:
        assert by[name].status == "unknown", (name, by[name].status, by[name].items)
        assert by[name].reason
    assert "refused" in by["spine1"].reason
    assert "authentication" in by["leaf2"].reason.lower()
    assert "timed out" in by["leaf3"].reason.lower() or "no answer" in by["leaf3"].reason.lower()
    assert "no RoCE configuration" in by["spine2"].reason or "Error" in by["spine2"].reason
    healthy = [d for n, d in by.items() if n not in faults]
    assert healthy and all(d.status == "in_sync" for d in healthy)
    assert report.exit_code == 3


def test_no_credentials_in_any_output(fab: Fabric, creds: tuple[str, str], tmp_path: Path) -> None:
    """Run the real CLI with known credentials (one device rejecting them) and scan every output."""
    files = render_fabric(fab)
    user, password = creds
    with Lab(user, password) as lab:
        for name, dev in fab.devices.items():
            lab.add(
                name,
                dev.platform,
                files[output_name(name, dev.platform)],
                fault="auth" if name == "leaf4" else None,
            )
        FAULTS[0][2](lab)
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        env = {"ROCECONF_USERNAME": user, "ROCECONF_PASSWORD": password, "PATH": "/usr/bin:/bin"}
        outputs = []
        for fmt in ("text", "json", "junit", "markdown"):
            out = tmp_path / f"report.{fmt}"
            r = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "roceconf.cli",
                    "drift",
                    str(LAB_INTENT),
                    "--inventory",
                    str(inv),
                    "--format",
                    fmt,
                    "--output",
                    str(out),
                    "--timeout",
                    "5",
                    "--retries",
                    "0",
                    "--save-configs",
                    str(tmp_path / "saved"),
                ],
                capture_output=True,
                text=True,
                env=env,
                cwd=ROOT,
            )
            assert r.returncode == 1, r.stderr
            outputs += [r.stdout, r.stderr, out.read_text()]
        data = json.loads((tmp_path / "report.json").read_text())
        assert any(d["device"] == "leaf4" and d["status"] == "unknown" for d in data["devices"])
        outputs += [p.read_text(errors="replace") for p in (tmp_path / "saved").iterdir()]
        outputs.append(inv.read_text())
    blob = "\n".join(outputs)
    assert password not in blob
    assert user not in blob
