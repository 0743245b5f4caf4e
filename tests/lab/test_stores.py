"""Initial-config forms the lab accepts and the platform sniffing of the process mode."""

from __future__ import annotations

import json
from pathlib import Path

import pyeapi
import yaml

from roceconf.lab import Device, Lab
from roceconf.lab.__main__ import sniff_platform
from tests.lab.conftest import eapi_context


def test_junos_curly_config_becomes_display_set_lines() -> None:
    text = """/* header */
system {
    host-name sp1;
}
interfaces {
    et-0/0/1 {
        inactive: description "to gpu";
        mtu 9216;
    }
}
class-of-service {
    drop-profiles {
        dp1 {
            interpolate {
                fill-level [ 55 90 ];
            }
        }
    }
}
"""
    dev = Device("sp1", "junos", text)
    assert dev.get_config().splitlines() == [
        "set system host-name sp1",
        'set interfaces et-0/0/1 description "to gpu"',
        "set interfaces et-0/0/1 mtu 9216",
        "set class-of-service drop-profiles dp1 interpolate fill-level 55",
        "set class-of-service drop-profiles dp1 interpolate fill-level 90",
    ]


def test_nvue_patch_file_and_nv_set_lines_become_the_applied_tree() -> None:
    patch = "- set:\n    system:\n      hostname: nv1\n- unset:\n    system: {hostname: {}}\n- set:\n    qos: {roce: {mode: lossless}}\n"
    assert yaml.safe_load(Device("a", "nvue", patch).get_config()) == {
        "system": {},
        "qos": {"roce": {"mode": "lossless"}},
    }
    lines = "cumulus@sw:~$ nv set interface swp1 link mtu 9216\nnv set interface swp1 qos pfc-watchdog\nnv config apply\n"
    assert yaml.safe_load(Device("b", "nvue", lines).get_config()) == {
        "interface": {"swp1": {"link": {"mtu": 9216}, "qos": {"pfc-watchdog": {}}}}
    }


def test_eos_session_commit_and_abort_inside_the_session(creds: tuple[str, str]) -> None:
    # the form arista.eos httpapi sends: configure session S, lines..., commit
    with Lab(*creds) as lab:
        lab.add("leaf2", "eos", "hostname leaf2\n")
        node = pyeapi.connect(
            transport="https",
            context=eapi_context(lab),
            host="127.0.0.1",
            port=lab.port("leaf2"),
            username=creds[0],
            password=creds[1],
        )
        node.execute(["configure session s1", "interface Ethernet1", "mtu 9214", "commit"])
        assert lab.get_config("leaf2") == "hostname leaf2\ninterface Ethernet1\n   mtu 9214\n!\n"
        node.execute(["configure session s2", "hostname other"])
        sessions = node.execute(["show configuration sessions"])["result"][0]["sessions"]
        assert list(sessions) == ["s2"] and sessions["s2"]["state"] == "pending"
        diff = node.execute(["configure session s2", "show session-config diffs"], encoding="text")["result"][
            1
        ]
        assert "-hostname leaf2" in diff["output"] and "+hostname other" in diff["output"]
        node.execute(["configure session s2", "abort"])
        assert lab.get_config("leaf2").startswith("hostname leaf2\n")
        assert node.execute(["show configuration sessions"])["result"][0]["sessions"] == {}


def test_sniff_platform() -> None:
    assert sniff_platform(Path("a.cfg"), "interface Ethernet1\n   mtu 9214\n") == "eos"
    assert sniff_platform(Path("a.cfg"), "interface Ethernet1/1\n  mtu 9216\n") == "nxos"
    assert sniff_platform(Path("a.cfg"), "feature lldp\n") == "nxos"
    assert sniff_platform(Path("a.set"), "") == "junos"
    assert sniff_platform(Path("a.yaml"), "") == "nvue"
    assert sniff_platform(Path("a.json"), json.dumps({"PORT": {}})) == "sonic"
    assert sniff_platform(Path("a.json"), json.dumps({"platform": "bnxt"})) == "bnxt"
    assert (
        sniff_platform(Path("a.sh"), "#!/usr/bin/env bash\n# roceconf (platform linux-dcb)\n") == "linux-dcb"
    )
    assert sniff_platform(Path("a.sh"), "#!/usr/bin/env bash\n# NVIDIA ConnectX-7\n") == "connectx"
    assert sniff_platform(Path("a.txt"), "hello") is None
