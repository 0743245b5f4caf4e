"""Faults: auth, refuse, hang, garbage - at start and at runtime, over SSH and eAPI."""

from __future__ import annotations

import socket
import time

import pyeapi
import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

from roceconf.lab import Lab
from tests.lab.conftest import NXOS_CFG, eapi_context, netmiko_args


def test_wrong_password_is_rejected(lab: Lab, creds: tuple[str, str]) -> None:
    args = netmiko_args(lab, "leaf1", creds, "cisco_nxos")
    args["password"] = creds[1] + "x"
    with pytest.raises(NetmikoAuthenticationException):
        ConnectHandler(**args)
    assert lab.stats("leaf1")["logins"] == 0
    assert lab.stats("leaf1")["auth_failures"] >= 1
    node = pyeapi.connect(
        transport="https",
        context=eapi_context(lab),
        host="127.0.0.1",
        port=lab.port("leaf2"),
        username=creds[0],
        password="no",
    )
    with pytest.raises(pyeapi.eapilib.ConnectionError):
        node.execute(["show version"])


def test_auth_fault_rejects_the_right_credentials(lab: Lab, creds: tuple[str, str]) -> None:
    lab.set_fault("spine1", "auth")
    with pytest.raises(NetmikoAuthenticationException):
        ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos"))
    lab.set_fault("leaf2", "auth")
    node = pyeapi.connect(
        transport="https",
        context=eapi_context(lab),
        host="127.0.0.1",
        port=lab.port("leaf2"),
        username=creds[0],
        password=creds[1],
    )
    with pytest.raises(pyeapi.eapilib.ConnectionError):
        node.execute(["show version"])
    lab.set_fault("spine1", None)
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        assert "spine1" in conn.find_prompt()


def test_refuse_closes_the_port_and_heals(lab: Lab, creds: tuple[str, str]) -> None:
    port = lab.port("sonic1")
    lab.set_fault("sonic1", "refuse")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
    with pytest.raises(NetmikoTimeoutException):
        ConnectHandler(**netmiko_args(lab, "sonic1", creds, "linux"))
    lab.set_fault("sonic1", None)
    assert lab.port("sonic1") == port
    with ConnectHandler(**netmiko_args(lab, "sonic1", creds, "linux")) as conn:
        assert "sonic1" in conn.find_prompt()


def test_refuse_and_hang_at_start(creds: tuple[str, str]) -> None:
    with Lab(*creds) as lab:
        lab.add("down", "nxos", NXOS_CFG, fault="refuse")
        lab.add("stuck", "eos", "hostname stuck\n", fault="hang")
        assert lab.port("down") > 0
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", lab.port("down")), timeout=2)
        node = pyeapi.connect(
            transport="https",
            context=eapi_context(lab),
            host="127.0.0.1",
            port=lab.port("stuck"),
            username=creds[0],
            password=creds[1],
            timeout=1,
        )
        start = time.monotonic()
        with pytest.raises(pyeapi.eapilib.ConnectionError):
            node.execute(["show version"])
        assert time.monotonic() - start < 5


def test_hang_accepts_tcp_then_never_answers(lab: Lab, creds: tuple[str, str]) -> None:
    lab.set_fault("leaf1", "hang")
    sock = socket.create_connection(("127.0.0.1", lab.port("leaf1")), timeout=2)
    sock.settimeout(0.5)
    with pytest.raises(TimeoutError):
        sock.recv(100)  # no SSH banner
    sock.close()
    start = time.monotonic()
    with pytest.raises(NetmikoTimeoutException):
        ConnectHandler(
            **netmiko_args(lab, "leaf1", creds, "cisco_nxos"),
            conn_timeout=1,
            banner_timeout=1,
            auth_timeout=1,
        )
    assert time.monotonic() - start < 10
    lab.set_fault("leaf1", None)
    with ConnectHandler(**netmiko_args(lab, "leaf1", creds, "cisco_nxos")) as conn:
        assert "interface Ethernet1/1" in conn.send_command("show running-config")


def test_garbage_answers_show_commands_with_junk(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "leaf1", creds, "cisco_nxos")) as conn:
        good = conn.send_command("show running-config")
        lab.set_fault("leaf1", "garbage")
        bad = conn.send_command("show running-config")
        assert bad != good and "interface" not in bad and bad.strip()
        lab.set_fault("leaf1", None)
        healed = conn.send_command("show running-config")
        assert [ln for ln in healed.splitlines() if not ln.startswith("!Time")] == [
            ln for ln in good.splitlines() if not ln.startswith("!Time")
        ]
    lab.set_fault("nv1", "garbage")
    with ConnectHandler(**netmiko_args(lab, "nv1", creds, "linux")) as conn:
        out = conn.send_command("nv config show -o json")
        assert "swp1" not in out and out.strip()
    lab.set_fault("leaf2", "garbage")
    node = pyeapi.connect(
        transport="https",
        context=eapi_context(lab),
        host="127.0.0.1",
        port=lab.port("leaf2"),
        username=creds[0],
        password=creds[1],
    )
    text = node.execute(["show running-config"], encoding="text")["result"][0]["output"]
    assert "hostname leaf2" not in text and text.strip()


def test_unknown_fault_is_an_error(lab: Lab) -> None:
    with pytest.raises(ValueError):
        lab.set_fault("leaf1", "explode")
