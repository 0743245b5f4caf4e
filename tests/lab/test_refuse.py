"""The lab refuses what the device refuses (NX-OS, NVUE): docs/conformance.md "refused" lists.

Negative fixtures go through real netmiko sessions to the simulated switches; each is refused with the
device's own error and leaves the configuration unchanged. What roceconf renders for the lab is accepted."""

from __future__ import annotations

import pytest
import yaml
from netmiko import ConnectHandler

from roceconf.compile import load_valid, render_fabric
from roceconf.lab import Lab
from roceconf.lab.refuse import nvue_patch_refusal, nxos_refusal
from tests.lab.conftest import netmiko_args

NXOS_BAD = [
    ("interface Ethernet1/1", "mtu 99999"),
    ("interface Ethernet1/1", "mtu 100"),
    ("priority-flow-control watch-dog-interval 200",),  # a value, not on|off (third-party examples)
    ("policy-map type network-qos NQ", "class type network-qos c-8q-nq3", "pause pfc-cos 9"),
    ("policy-map type qos QOS_IN", "class ROCE", "set qos-group 8"),
]
NVUE_BAD_515 = [
    "nv set system forwarding ecmp-hash source-port on",  # 5.14 and older form
    "nv set system forwarding ecmp-hash ip-protocol off",
    "nv set interface swp1 link mtu 9300",
    "nv set qos pfc-watchdog polling-interval 50",
    "nv set qos pfc-watchdog robustness 0",
]


def test_nxos_refuses_the_negative_lines(lab: Lab, creds: tuple[str, str]) -> None:
    before = lab.get_config("leaf1")
    with ConnectHandler(**netmiko_args(lab, "leaf1", creds, "cisco_nxos")) as conn:
        for lines in NXOS_BAD:
            out = conn.send_config_set(list(lines))
            assert "% Invalid command at '^' marker." in out, (lines, out)
    after = lab.get_config("leaf1")
    for lines in NXOS_BAD:
        assert lines[-1] not in after.splitlines() and f"  {lines[-1]}" not in after, lines
    assert "interface Ethernet1/1\n  mtu 9216" in after and "mtu 9216" in before


def test_nvue_515_refuses_on_off_and_out_of_range(lab: Lab, creds: tuple[str, str]) -> None:
    before = lab.get_config("nv1")
    with ConnectHandler(**netmiko_args(lab, "nv1", creds, "linux")) as conn:
        for cmd in NVUE_BAD_515:
            out = conn.send_command(cmd)
            assert out.startswith("Error: Invalid config"), (cmd, out)
        patch = "- set:\n    system:\n      forwarding:\n        ecmp-hash:\n          source-port: 'on'\n"
        conn.send_command(f"cat > /tmp/old.yaml <<'EOF'\n{patch}EOF", cmd_verify=False)
        out = conn.send_command("nv config patch /tmp/old.yaml")
        assert out.startswith("Error: Invalid config") and "ecmp-hash/source-port" in out, out
        assert conn.send_command("nv config diff") == ""  # nothing reached the pending revision
        assert conn.send_command("nv set system forwarding ecmp-hash source-port enabled") == ""
    assert lab.get_config("nv1") == before


def test_nvue_514_takes_on_off_and_refuses_enabled(lab: Lab, creds: tuple[str, str]) -> None:
    lab.device("nv1").os_version = "5.14"
    with ConnectHandler(**netmiko_args(lab, "nv1", creds, "linux")) as conn:
        assert conn.send_command("nv set system forwarding ecmp-hash source-port on") == ""
        out = conn.send_command("nv set system forwarding ecmp-hash source-port enabled")
        assert out.startswith("Error: Invalid config") and "['on', 'off']" in out, out


@pytest.mark.parametrize("release", [None, "5.14"])
def test_what_roceconf_renders_for_the_release_is_accepted(release: str | None) -> None:
    from pathlib import Path

    from roceconf.intent.desired import desired_state
    from roceconf.platforms.nvue import PLATFORM
    from roceconf.render import render_state

    fab = load_valid(Path(__file__).resolve().parents[2] / "inventories" / "lab" / "intent.yml")
    dev = fab.devices["leaf2"]
    dev.os_version = release
    text = render_state(desired_state(dev))
    assert nvue_patch_refusal(yaml.safe_load(text), release or PLATFORM.releases[-1]) is None
    # and the other release refuses it
    other = "5.14" if release is None else "5.15"
    assert nvue_patch_refusal(yaml.safe_load(text), other) is not None
    for name, cfg in render_fabric(fab).items():
        if name.startswith("spine1"):
            assert [ln for ln in cfg.splitlines() if nxos_refusal(ln)] == []
