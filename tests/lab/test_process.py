"""Subprocess mode: writes an Ansible-style inventory, serves it, stops by itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml
from netmiko import ConnectHandler

from tests.lab.conftest import EOS_CFG, JUNOS_CFG, NVUE_CFG, NXOS_CFG, SONIC_CFG


def _configs(tmp_path: Path) -> Path:
    cfg = tmp_path / "configs"
    (cfg / "nxos").mkdir(parents=True)
    (cfg / "nxos" / "leaf1.cfg").write_text(NXOS_CFG)
    (cfg / "leaf2.cfg").write_text(EOS_CFG)
    (cfg / "spine1.set").write_text(JUNOS_CFG)
    (cfg / "sonic1.json").write_text(SONIC_CFG)
    (cfg / "nv1.yaml").write_text(NVUE_CFG)
    return cfg


def _start(tmp_path: Path, creds: tuple[str, str], ttl: float) -> tuple[subprocess.Popen[str], Path]:
    inv = tmp_path / "inventory.yml"
    env = dict(os.environ, ROCECONF_USERNAME=creds[0], ROCECONF_PASSWORD=creds[1])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "roceconf.lab",
            "--configs",
            str(_configs(tmp_path)),
            "--inventory-out",
            str(inv),
            "--ttl",
            str(ttl),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not inv.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "inventory not written"
        time.sleep(0.05)
    return proc, inv


def test_subprocess_writes_inventory_serves_and_exits_after_ttl(
    tmp_path: Path, creds: tuple[str, str]
) -> None:
    proc, inv = _start(tmp_path, creds, ttl=4)
    started = time.monotonic()
    hosts = yaml.safe_load(inv.read_text())["all"]["hosts"]
    assert {h: v["roceconf_platform"] for h, v in hosts.items()} == {
        "leaf1": "nxos",
        "leaf2": "eos",
        "spine1": "junos",
        "sonic1": "sonic",
        "nv1": "nvue",
    }
    assert all(v["ansible_host"] == "127.0.0.1" and v["ansible_port"] > 0 for v in hosts.values())
    with ConnectHandler(
        device_type="juniper_junos",
        host="127.0.0.1",
        port=hosts["spine1"]["ansible_port"],
        username=creds[0],
        password=creds[1],
    ) as conn:
        assert "set system host-name spine1" in conn.send_command("show configuration | display set")
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert time.monotonic() - started < 15
    assert "lab: stopped" in out
    assert creds[1] not in out + err  # never logs the password
    assert not inv.exists()  # it created the inventory, so it removes it
    assert (tmp_path / "configs" / "spine1.set").read_text() == JUNOS_CFG  # nothing else touched


def test_subprocess_stops_on_sigterm(tmp_path: Path, creds: tuple[str, str]) -> None:
    proc, inv = _start(tmp_path, creds, ttl=300)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "lab: stopped" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configs"]


def test_subprocess_needs_credentials(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROCECONF_")}
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "roceconf.lab",
            "--configs",
            str(tmp_path),
            "--inventory-out",
            str(tmp_path / "i.yml"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert res.returncode == 2 and "ROCECONF_USERNAME" in res.stderr


def test_subprocess_rejects_a_missing_inventory_directory(tmp_path: Path, creds: tuple[str, str]) -> None:
    env = dict(os.environ, ROCECONF_USERNAME=creds[0], ROCECONF_PASSWORD=creds[1])
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "roceconf.lab",
            "--configs",
            str(_configs(tmp_path)),
            "--inventory-out",
            str(tmp_path / "nope" / "i.yml"),
            "--ttl",
            "1",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert res.returncode == 2 and "no such directory" in res.stderr and "Traceback" not in res.stderr


def test_roceconf_lab_command_runs_the_same_lab(tmp_path) -> None:  # noqa: ANN001
    import os
    import subprocess
    import sys
    from pathlib import Path

    golden = Path(__file__).resolve().parent.parent / "golden" / "spine1.cfg"
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "spine1.cfg").write_text(golden.read_text())
    inv = tmp_path / "inv.yml"
    env = {**os.environ, "ROCECONF_USERNAME": "u", "ROCECONF_PASSWORD": "p"}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "roceconf.cli",
            "lab",
            "--configs",
            str(cfg),
            "--inventory-out",
            str(inv),
            "--ttl",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "lab: 1 devices on 127.0.0.1" in r.stdout and "lab: stopped" in r.stdout
    assert not inv.exists(), "the inventory the lab created is removed when it stops"
