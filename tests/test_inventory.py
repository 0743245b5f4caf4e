"""Users' inventories as they are: platform from ansible_network_os, transport and port from
ansible_connection / ansible_httpapi_*, credentials from ansible_user / vault / key files / agent / ProxyJump,
variables templated by ansible-core's Templar (lookups included). Hosts that cannot be mapped carry the
reason. Live: eAPI over TLS with verification (and a wrong CA), key-only and agent SSH logins to the lab."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roceconf.compile import load_valid, render_fabric
from roceconf.drift.audit import audit, audit_device
from roceconf.inventory import (
    NO_PLATFORM,
    load_inventory,
    platform_for_network_os,
    ssh_proxy,
    target_from_vars,
)
from roceconf.lab import Lab
from roceconf.lab.tls import make_ca
from roceconf.transport import proxy_command

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
INTENT = ROOT / "inventories" / "lab" / "intent.yml"


@pytest.mark.parametrize(
    ("network_os", "platform"),
    [
        ("arista.eos.eos", "eos"),
        ("eos", "eos"),
        ("cisco.nxos.nxos", "nxos"),
        ("junipernetworks.junos.junos", "junos"),
        ("nvidia.nvue.httpapi", "nvue"),
        ("dellemc.enterprise_sonic.sonic", "sonic"),
        ("sonic", "sonic"),
        ("cisco.ios.ios", None),
    ],
)
def test_network_os_maps_to_the_platform(network_os: str, platform: str | None) -> None:
    assert platform_for_network_os(network_os) == platform


def test_connection_variables_as_ansible_reads_them() -> None:
    env: dict[str, str] = {}
    eos = target_from_vars(
        "leaf1",
        {
            "ansible_network_os": "arista.eos.eos",
            "ansible_connection": "ansible.netcommon.httpapi",
            "ansible_httpapi_use_ssl": True,
            "ansible_httpapi_port": 8443,
            "ansible_port": 22,
            "ansible_host": "192.0.2.1",
            "ansible_user": "ops",
            "ansible_password": "pw",
            "ansible_httpapi_ca_path": "/etc/ssl/corp-ca.pem",
        },
        env=env,
    )
    assert (eos.platform, eos.transport, eos.port, eos.host, eos.verify, eos.ca_file) == (
        "eos",
        "https",
        8443,
        "192.0.2.1",
        True,
        "/etc/ssl/corp-ca.pem",
    )
    plain = target_from_vars(
        "leaf1", {"ansible_network_os": "arista.eos.eos", "ansible_connection": "httpapi"}, env=env
    )
    assert plain.transport == "http" and plain.port is None  # use_ssl defaults to false, as in httpapi
    off = target_from_vars(
        "leaf1",
        {
            "ansible_network_os": "eos",
            "ansible_httpapi_use_ssl": "yes",
            "ansible_httpapi_validate_certs": "no",
        },
        env=env,
    )
    assert off.transport == "https" and off.verify is False  # the explicit opt-out
    nxos = target_from_vars(
        "spine1",
        {
            "ansible_network_os": "cisco.nxos.nxos",
            "ansible_connection": "ansible.netcommon.network_cli",
            "ansible_port": 2022,
            "ansible_ssh_common_args": "-o ProxyJump=jump@bastion.example:2200 -o StrictHostKeyChecking=no",
        },
        env=env,
    )
    assert (nxos.platform, nxos.transport, nxos.port, nxos.proxy_jump) == (
        "nxos",
        "ssh",
        2022,
        "jump@bastion.example:2200",
    )
    assert proxy_command(nxos) == "ssh -o BatchMode=yes -p 2200 -W spine1:2022 jump@bastion.example"
    junos = target_from_vars(
        "spine2",
        {
            "ansible_network_os": "junipernetworks.junos.junos",
            "ansible_connection": "netconf",
            "ansible_port": 830,
        },
        env=env,
    )
    assert (junos.transport, junos.port) == ("netconf", 830)
    nvue = target_from_vars(
        "leaf2",
        {
            "ansible_network_os": "nvidia.nvue.httpapi",
            "ansible_connection": "ansible.netcommon.httpapi",
            "ansible_httpapi_port": 8765,
            "ansible_ssh_port": 2201,
        },
        env=env,
    )
    assert (nvue.platform, nvue.transport, nvue.port) == ("nvue", "ssh", 2201)  # read over SSH, not NVUE REST
    gpu = target_from_vars(
        "gpu1",
        {
            "roceconf_platform": "connectx",
            "ansible_user": "root",
            "ansible_ssh_private_key_file": "~/.ssh/id_gpu",
        },
        env=env,
    )
    assert gpu.platform == "connectx" and gpu.key_file == os.path.expanduser("~/.ssh/id_gpu")
    assert gpu.password is None and gpu.has_credentials()


def test_unmappable_hosts_carry_the_reason() -> None:
    assert target_from_vars("leaf7", {"ansible_host": "10.0.0.7"}, env={}).problem == NO_PLATFORM
    t = target_from_vars("leaf8", {"ansible_network_os": "cisco.ios.ios"}, env={})
    assert t.problem and "cisco.ios.ios is not a roceconf platform" in t.problem
    t = target_from_vars("gpu9", {"roceconf_platform": "mellanox"}, env={})
    assert t.problem and "roceconf_platform 'mellanox' is not a platform" in t.problem


@pytest.mark.parametrize(
    ("args", "jump", "command"),
    [
        ("-J bastion", "bastion", None),
        ("-oProxyJump=ops@b1,b2", "ops@b1,b2", None),
        ('-o "ProxyJump bastion:2222"', "bastion:2222", None),
        ("-o ProxyCommand='ssh -W %h:%p gw'", None, "ssh -W %h:%p gw"),
        ("-o StrictHostKeyChecking=no", None, None),
    ],
)
def test_ssh_args_proxy(args: str, jump: str | None, command: str | None) -> None:
    assert ssh_proxy(args) == (jump, command)


def test_cli_templates_host_variables_like_ansible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """{{ }} in host variables and lookup() resolve with ansible-core's Templar in the CLI too."""
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "all.yml").write_text(
        "mgmt_net: 198.51.100\nansible_user: \"{{ lookup('ansible.builtin.env', 'FABRIC_USER') }}\"\n"
        "ansible_password: \"{{ lookup('ansible.builtin.file', 'secret.txt') }}\"\n"
    )
    (tmp_path / "secret.txt").write_text("from-a-file\n")
    inv = tmp_path / "hosts.yml"
    inv.write_text(
        'all:\n  children:\n    eos:\n      hosts:\n        leaf1:\n          ansible_host: "{{ mgmt_net }}.11"\n'
        "      vars:\n        ansible_network_os: arista.eos.eos\n        ansible_connection: ansible.netcommon.httpapi\n"
        "        ansible_httpapi_use_ssl: true\n    other:\n      hosts:\n        leaf7:\n"
        '          ansible_host: "{{ mgmt_net }}.17"\n        leaf9:\n          ansible_host: "{{ nowhere }}"\n'
        "          ansible_network_os: cisco.nxos.nxos\n"
    )
    # a relative file lookup resolves against the inventory's folder, wherever the CLI runs
    monkeypatch.setenv("FABRIC_USER", "netops")
    monkeypatch.delenv("ROCECONF_USERNAME", raising=False)
    monkeypatch.delenv("ROCECONF_PASSWORD", raising=False)
    targets = load_inventory(inv)
    leaf1 = targets["leaf1"]
    assert (leaf1.host, leaf1.platform, leaf1.transport, leaf1.username, leaf1.password) == (
        "198.51.100.11",
        "eos",
        "https",
        "netops",
        "from-a-file",
    )
    assert targets["leaf7"].problem == NO_PLATFORM
    assert targets["leaf9"].problem and targets["leaf9"].problem.startswith("cannot resolve ansible_host")


def test_cli_names_unmappable_hosts_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inv = tmp_path / "hosts.yml"
    inv.write_text("all:\n  hosts:\n    leaf1:\n      ansible_host: 127.0.0.1\n      ansible_port: 9\n")
    monkeypatch.setenv("ROCECONF_USERNAME", "u")
    monkeypatch.setenv("ROCECONF_PASSWORD", "p")
    res = subprocess.run(
        [
            str(BIN / "roceconf"),
            "drift",
            str(INTENT),
            "--inventory",
            str(inv),
            "--device",
            "leaf1",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 3, res.stdout + res.stderr
    (leaf1,) = json.loads(res.stdout)["devices"]
    assert leaf1["status"] == "unknown" and leaf1["reason"] == NO_PLATFORM
    assert "leaf1: unknown (no platform: set ansible_network_os or roceconf_platform)" in res.stderr


# ------------------------------------------------------------------------------------------------ live
@pytest.fixture(scope="module")
def lab() -> Lab:
    fab = load_valid(INTENT)
    files = render_fabric(fab)
    with Lab("labuser", "lab-pass-1") as lab:
        for name in ("leaf1", "gpu1", "spine1"):
            dev = fab.devices[name]
            lab.add(name, dev.platform, files[f"{name}.{'cfg' if dev.platform != 'connectx' else 'sh'}"])
        yield lab


@pytest.mark.xdist_group("inventory-lab")
def test_eapi_over_tls_verified_and_a_wrong_ca(lab: Lab, tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    good = lab.target("leaf1")
    assert good.transport == "https" and good.verify and good.ca_file
    res = audit_device(fab, "leaf1", target=good, timeout=5, retries=0)
    assert res.status == "in_sync", res.reason
    other_ca, _, _ = make_ca(tmp_path, "some other CA")
    wrong = lab.target("leaf1")
    wrong.ca_file = str(other_ca)
    res = audit_device(fab, "leaf1", target=wrong, timeout=5, retries=0)
    assert res.status == "unknown" and res.reason
    assert res.reason.startswith(f"TLS certificate of 127.0.0.1:{lab.port('leaf1')} not trusted")
    assert "ansible_httpapi_ca_path" in res.reason and "\n" not in res.reason
    assert res.attempts == 0 or "after 1 attempt" in res.reason  # a certificate problem is not retried
    system = lab.target("leaf1")
    system.ca_file = None  # the system CAs do not know the lab's CA either
    assert "not trusted" in (audit_device(fab, "leaf1", target=system, timeout=5, retries=0).reason or "")
    insecure = lab.target("leaf1")
    insecure.ca_file, insecure.verify = str(other_ca), False  # explicit opt-out
    assert audit_device(fab, "leaf1", target=insecure, timeout=5, retries=0).status == "in_sync"


@pytest.mark.xdist_group("inventory-lab")
def test_key_only_ssh_logins(lab: Lab) -> None:
    fab = load_valid(INTENT)
    for name in ("gpu1", "spine1"):
        tg = lab.target(name, key=True)
        assert tg.password is None and tg.key_file
        before = lab.stats(name)["logins"]
        res = audit_device(fab, name, target=tg, timeout=5, retries=0)
        assert res.status == "in_sync", (name, res.reason)
        assert lab.stats(name)["logins"] > before
    wrong = lab.target("gpu1", key=True)
    wrong.username = "someone-else"
    res = audit_device(fab, "gpu1", target=wrong, timeout=5, retries=0)
    assert res.status == "unknown" and "authentication failed" in (res.reason or "")


@pytest.mark.xdist_group("inventory-lab")
@pytest.mark.skipif(shutil.which("ssh-agent") is None, reason="ssh-agent (openssh-client) is not installed")
def test_ssh_agent_login(lab: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            subprocess.run(["sleep", "0.05"], check=True)
        env = {**os.environ, "SSH_AUTH_SOCK": str(sock)}
        subprocess.run(["ssh-add", str(lab.client_key_file)], env=env, check=True, capture_output=True)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
        tg = lab.target("gpu1", key=True)
        tg.key_file, tg.allow_agent = None, None  # nothing but the agent (used because SSH_AUTH_SOCK is set)
        assert tg.has_credentials()
        res = audit_device(load_valid(INTENT), "gpu1", target=tg, timeout=5, retries=0)
        assert res.status == "in_sync", res.reason
    finally:
        agent.terminate()
        agent.wait(timeout=10)


@pytest.mark.xdist_group("inventory-lab")
def test_lab_inventory_verifies_tls(lab: Lab, tmp_path: Path) -> None:
    inv = lab.write_inventory(tmp_path / "lab.yml")
    fab = load_valid(INTENT)
    report = audit(
        fab, inventory=inv, device="leaf1", timeout=5, retries=0, credentials=("labuser", "lab-pass-1")
    )
    (leaf1,) = report.devices
    assert leaf1.status == "in_sync" and leaf1.source == f"127.0.0.1:{lab.port('leaf1')}", leaf1.reason
    bad = tmp_path / "bad-ca.pem"
    make_ca(tmp_path)
    (tmp_path / "ca.pem").rename(bad)
    env = {**os.environ, "ROCECONF_USERNAME": "labuser", "ROCECONF_PASSWORD": "lab-pass-1"}
    cmd = [str(BIN / "roceconf"), "drift", str(INTENT), "--inventory", str(inv), "--device", "leaf1"]
    res = subprocess.run(
        [*cmd, "--ca-file", str(bad), "--format", "json", "--retries", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 3, res.stdout + res.stderr
    (leaf1,) = json.loads(res.stdout)["devices"]
    reason = leaf1["reason"]
    assert (
        reason.startswith(f"TLS certificate of 127.0.0.1:{lab.port('leaf1')} not trusted")
        and "\n" not in reason
    )
    assert f"by the CA file {bad}" in reason and "Traceback" not in res.stderr
    res = subprocess.run(
        [*cmd, "--ca-file", str(bad), "--no-verify-tls"], env=env, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stdout + res.stderr  # the explicit opt-out


def test_the_lldp_agent_of_a_host_is_lldpd_or_lldptool() -> None:
    """``roceconf_lldp_agent`` (roceconf cabling): lldptool makes a host answer per-port lldptool commands; any
    other word is a bad connection variable (the host is unknown with the reason, never read another way)."""
    host = {"roceconf_platform": "connectx", "ansible_host": "10.0.0.5"}
    assert target_from_vars("gpu1", host).extra.get("lldp_agent") is None
    assert target_from_vars("gpu1", {**host, "roceconf_lldp_agent": "lldptool"}).extra["lldp_agent"] == "lldptool"
    bad = target_from_vars("gpu1", {**host, "roceconf_lldp_agent": "cdp"})
    assert bad.problem == "bad connection variable: roceconf_lldp_agent 'cdp': lldpd or lldptool"
