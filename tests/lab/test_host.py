"""Linux host: read-back commands answered from a DeviceState by the platform's simulate()."""

from __future__ import annotations

from netmiko import ConnectHandler

import roceconf.platforms
from roceconf.lab import Lab
from roceconf.platforms.base import Capabilities, Fact, Platform
from roceconf.state import DeviceState, Interface
from tests.lab.conftest import netmiko_args


def _simulate(state: DeviceState, command: str) -> str | None:
    # a stand-in for a NIC platform module: answers one command from the state
    if command.startswith("ip -o link show"):
        return "\n".join(f"2: {n}: <UP> mtu {i.mtu} qdisc mq" for n, i in sorted(state.interfaces.items()))
    return None


FAKE = Platform(
    name="connectx",
    kind="nic",
    title="stand-in",
    extension="sh",
    capabilities=Capabilities(
        min_mtu=Fact(68, "t"), max_mtu=Fact(9978, "t"), max_lossless_priorities=Fact(8, "t")
    ),
    parse=lambda text: DeviceState(platform="connectx"),
    simulate=_simulate,
)


def test_host_answers_from_state_and_follows_out_of_band_changes(monkeypatch, creds: tuple[str, str]) -> None:
    monkeypatch.setattr(roceconf.platforms, "get", lambda name: FAKE)
    state = DeviceState(platform="connectx", hostname="gpu1", interfaces={"eth0": Interface(mtu=9000)})
    with Lab(*creds) as lab:
        lab.add("gpu1", "connectx", state)
        with ConnectHandler(**netmiko_args(lab, "gpu1", creds, "linux")) as conn:
            assert conn.send_command("ip -o link show") == "2: eth0: <UP> mtu 9000 qdisc mq"
            assert "command not found" in conn.send_command("mlnx_qos -i eth0")
            new = lab.host_state("gpu1")
            new.interfaces["eth0"].mtu = 4200
            lab.set_host_state("gpu1", new)
            assert conn.send_command("sudo ip -o link show") == "2: eth0: <UP> mtu 4200 qdisc mq"
        assert lab.host_state("gpu1").interfaces["eth0"].mtu == 4200
        assert '"mtu": 4200' in lab.get_config("gpu1")
        assert lab.stats("gpu1")["commands"] >= 3


def test_bash_script_merges_what_the_script_states(monkeypatch, creds: tuple[str, str]) -> None:
    # The lab does not execute scripts: `bash FILE` parses FILE with the platform's parser and merges
    # the settings it states into the host state.
    def parse(text: str) -> DeviceState:
        mtu = int(text.split("mtu ")[1].split()[0])
        return DeviceState(platform="connectx", interfaces={"eth1": Interface(mtu=mtu)})

    fake = Platform(**{**FAKE.__dict__, "parse": parse})
    monkeypatch.setattr(roceconf.platforms, "get", lambda name: fake)
    state = DeviceState(platform="connectx", interfaces={"eth0": Interface(mtu=9000)})
    with Lab(*creds) as lab:
        lab.add("gpu1", "connectx", state)
        with ConnectHandler(**netmiko_args(lab, "gpu1", creds, "linux")) as conn:
            conn.send_command("echo 'ip link set dev eth1 mtu 4200' > /tmp/s.sh")
            assert conn.send_command("sudo bash /tmp/s.sh; echo rc=$?") == "rc=0"
            assert conn.send_command("bash /tmp/missing.sh; echo rc=$?").endswith("rc=127")
            assert conn.send_command("ip -o link show").splitlines() == [
                "2: eth0: <UP> mtu 9000 qdisc mq",
                "2: eth1: <UP> mtu 4200 qdisc mq",
            ]
