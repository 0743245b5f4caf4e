"""Real napalm drivers against the lab: eos over eAPI (HTTPS, certificate verified) and nxos_ssh."""

from __future__ import annotations

from napalm import get_network_driver

from roceconf.lab import Lab
from tests.lab.conftest import eapi_args, eapi_context


def test_nxos_ssh_merge_compare_commit_rollback(lab: Lab, creds: tuple[str, str]) -> None:
    driver = get_network_driver("nxos_ssh")
    dev = driver("127.0.0.1", *creds, timeout=20, optional_args={"port": lab.port("leaf1")})
    dev.open()
    try:
        running = dev.get_config(retrieve="running")["running"]
        assert "interface Ethernet1/1\n  mtu 9216" in running
        assert "!Command" not in running
        facts = dev.get_facts()
        assert facts["hostname"] == "leaf1"
        assert facts["interface_list"] == ["Ethernet1/1"]

        dev.load_merge_candidate(
            config="interface Ethernet1/1\n  mtu 9000\ninterface Ethernet1/2\n  mtu 9216\n"
        )
        diff = dev.compare_config()
        assert "mtu 9000" in diff and "interface Ethernet1/2" in diff
        dev.commit_config()
        after = lab.get_config("leaf1")
        assert "interface Ethernet1/1\n  mtu 9000\n" in after  # single-valued line replaced
        assert "interface Ethernet1/2\n  mtu 9216\n" in after
        assert "  priority-flow-control mode on" in after

        dev.rollback()
        assert "interface Ethernet1/2" not in lab.get_config("leaf1")
        assert "interface Ethernet1/1\n  mtu 9216\n" in lab.get_config("leaf1")

        dev.load_merge_candidate(config="hostname other\n")
        dev.discard_config()
        assert dev.compare_config() == ""
    finally:
        dev.close()
    stats = lab.stats("leaf1")
    assert stats["logins"] == 1 and stats["commands"] > 10


def test_eos_eapi_merge_compare_commit_rollback(lab: Lab, creds: tuple[str, str]) -> None:
    driver = get_network_driver("eos")
    dev = driver("127.0.0.1", *creds, timeout=20, optional_args=eapi_args(lab, "leaf2"))
    dev.open()
    try:
        running = dev.get_config(retrieve="running")["running"]
        assert "interface Ethernet1\n   mtu 9214\n" in running
        facts = dev.get_facts()
        assert facts["hostname"] == "leaf2" and facts["vendor"] == "Arista"
        assert facts["interface_list"] == ["Ethernet1"]

        dev.load_merge_candidate(
            config=(
                "interface Ethernet1\n"
                "   tx-queue 3\n"
                "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n"
                "   mtu 9000\n"
                "qos map dscp 24 to traffic-class 3\n"
            )
        )
        diff = dev.compare_config()
        assert "+   tx-queue 3" in diff
        assert "-   mtu 9214" in diff and "+   mtu 9000" in diff
        assert "+qos map dscp 24 to traffic-class 3" in diff
        assert "tx-queue" not in lab.get_config("leaf2")  # candidate only
        dev.commit_config()
        after = lab.get_config("leaf2")
        assert "   tx-queue 3\n      random-detect ecn" in after
        assert "qos map dscp 24 to traffic-class 3" in after

        dev.rollback()
        assert lab.get_config("leaf2").startswith("hostname leaf2\nqos map dscp 26 to traffic-class 3\n")
        assert "tx-queue" not in lab.get_config("leaf2")

        dev.load_merge_candidate(config="hostname zz\n")
        assert "+hostname zz" in dev.compare_config()
        dev.discard_config()
        assert dev.compare_config() == ""
        assert "hostname leaf2" in lab.get_config("leaf2")
    finally:
        dev.close()


def test_eos_eapi_invalid_command_is_a_command_error(lab: Lab, creds: tuple[str, str]) -> None:
    import pyeapi
    import pytest

    node = pyeapi.connect(
        transport="https",
        context=eapi_context(lab),
        host="127.0.0.1",
        port=lab.port("leaf2"),
        username=creds[0],
        password=creds[1],
    )
    with pytest.raises(pyeapi.eapilib.CommandError) as err:
        node.execute(["show version", "frobnicate now"])
    assert "frobnicate" in str(err.value)
    text = node.execute(["show running-config"], encoding="text")["result"][0]["output"]
    assert text.startswith("hostname leaf2")


def test_eos_eapi_text_pipes(lab: Lab, creds: tuple[str, str]) -> None:
    import pyeapi

    node = pyeapi.connect(
        transport="https",
        context=eapi_context(lab),
        host="127.0.0.1",
        port=lab.port("leaf2"),
        username=creds[0],
        password=creds[1],
    )
    out = node.execute(["show running-config | section interface"], encoding="text")["result"][0]["output"]
    assert out.startswith("interface Ethernet1\n   mtu 9214") and "qos map" not in out
    out = node.execute(["show running-config | include mtu"], encoding="text")["result"][0]["output"]
    assert out.strip() == "mtu 9214"
