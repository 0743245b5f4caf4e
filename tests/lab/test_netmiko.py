"""Real netmiko sessions: nxos, junos, sonic and nvue shells keep a mutable running config."""

from __future__ import annotations

import base64
import json

from netmiko import ConnectHandler

from roceconf.lab import Lab
from tests.lab.conftest import netmiko_args


def test_nxos_show_and_config(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "leaf1", creds, "cisco_nxos")) as conn:
        assert conn.find_prompt() == "leaf1#"
        out = conn.send_command("show running-config")
        assert "interface Ethernet1/1\n  mtu 9216" in out
        assert "feature lldp" in conn.send_command("show running-config | include feature")
        assert "Invalid command" in conn.send_command("frobnicate")
        version = json.loads(conn.send_command("show version | json"))
        assert version["host_name"] == "leaf1"
        out = conn.send_config_set(
            [
                "interface Ethernet1/1",
                "no priority-flow-control mode on",
                "policy-map type qos QOS_IN",
                "class ROCE",
                "set qos-group 4",
            ]
        )
        assert "leaf1(config-if)#" in out and "leaf1(config-pmap-c)#" in out
        conn.save_config()
    cfg = lab.get_config("leaf1")
    assert "priority-flow-control mode on" not in cfg
    assert "  class ROCE\n    set qos-group 4\n" in cfg
    assert lab.device("leaf1").startup == cfg


def test_junos_display_set_configure_commit_rollback(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        assert conn.find_prompt() == f"{creds[0]}@spine1>"
        out = conn.send_command("show configuration | display set")
        assert out.splitlines()[:2] == ["set system host-name spine1", "set interfaces et-0/0/1 mtu 9216"]
        conn.send_config_set(
            ["set interfaces et-0/0/2 mtu 9216", "delete interfaces et-0/0/1"], exit_config_mode=False
        )
        diff = conn.send_command("show | compare")
        assert "+ set interfaces et-0/0/2 mtu 9216" in diff and "- set interfaces et-0/0/1 mtu 9216" in diff
        assert "et-0/0/2" not in lab.get_config("spine1")  # not committed yet
        assert "commit complete" in conn.commit()
        assert "set interfaces et-0/0/2 mtu 9216" in lab.get_config("spine1")
        conn.send_command("rollback 1", expect_string=r"#")
        conn.commit()
        conn.exit_config_mode()
        assert "set interfaces et-0/0/1 mtu 9216" in conn.send_command("show configuration | display set")
    assert "et-0/0/2" not in lab.get_config("spine1")


def test_junos_load_set_terminal(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        conn.config_mode()
        conn.write_channel("load set terminal\nset interfaces et-0/0/9 mtu 9000\n\x04")
        out = conn.read_until_pattern(r"load complete")
        assert "load complete" in out
        conn.commit(and_quit=True)
    assert "set interfaces et-0/0/9 mtu 9000" in lab.get_config("spine1")


def test_sonic_upload_and_config_load_merges(lab: Lab, creds: tuple[str, str]) -> None:
    patch = {"PORT": {"Ethernet0": {"mtu": "9216"}, "Ethernet4": {"mtu": "9216"}}}
    with ConnectHandler(**netmiko_args(lab, "sonic1", creds, "linux")) as conn:
        running = json.loads(conn.send_command("show runningconfiguration all"))
        assert running["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3,4"
        conn.send_command(f"cat > /tmp/roce.json <<'EOF'\n{json.dumps(patch)}\nEOF", cmd_verify=False)
        assert json.loads(conn.send_command("cat /tmp/roce.json")) == patch
        out = conn.send_command("sudo config load /tmp/roce.json -y")
        assert "sonic-cfggen" in out
        conn.send_command("sudo config qos reload")
        blob = base64.b64encode(json.dumps({"PORT": {"Ethernet8": {"mtu": "1500"}}}).encode()).decode()
        conn.send_command(f"echo {blob} | base64 -d > /tmp/b.json")
        conn.send_command("sudo config load /tmp/b.json -y")
        assert "command not found" in conn.send_command("frobnicate")
    data = json.loads(lab.get_config("sonic1"))
    assert data["PORT"]["Ethernet0"] == {"mtu": "9216", "admin_status": "up"}  # field-level merge
    assert data["PORT"]["Ethernet4"] == {"mtu": "9216"}
    assert data["PORT"]["Ethernet8"] == {"mtu": "1500"}


def test_nvue_patch_diff_apply_detach(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "nv1", creds, "linux")) as conn:
        applied = json.loads(conn.send_command("nv config show -o json"))
        assert applied["interface"]["swp1"]["link"]["mtu"] == 9216
        patch = (
            "- set:\n    interface:\n      swp2:\n        link:\n          mtu: 9000\n- unset:\n    qos: {}\n"
        )
        conn.send_command(f"cat > /tmp/p.yaml <<'EOF'\n{patch}EOF", cmd_verify=False)
        assert conn.send_command("nv config patch /tmp/p.yaml") == ""
        diff = conn.send_command("nv config diff")
        assert "swp2" in diff and "unset" in diff
        assert "swp2" not in lab.get_config("nv1")  # pending only
        assert "applied" in conn.send_command("nv config apply -y")
        conn.send_command("nv set interface swp1 link mtu 1500")
        conn.send_command("nv config detach")
        assert conn.send_command("nv config diff") == ""
    applied = json.loads(json.dumps(__import__("yaml").safe_load(lab.get_config("nv1"))))
    assert applied["interface"]["swp2"]["link"]["mtu"] == 9000
    assert applied["interface"]["swp1"]["link"]["mtu"] == 9216
    assert "qos" not in applied


def test_out_of_band_edit_is_seen_by_clients(lab: Lab, creds: tuple[str, str]) -> None:
    lab.edit("leaf1", lambda text: text.replace("mtu 9216", "mtu 1500"))
    lab.set_config("spine1", "set system host-name spine1\n")
    with ConnectHandler(**netmiko_args(lab, "leaf1", creds, "cisco_nxos")) as conn:
        assert "mtu 1500" in conn.send_command("show running-config")
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        assert conn.send_command("show configuration | display set") == "set system host-name spine1"
    assert lab.stats("spine1")["logins"] == 1


def test_linux_config_mode_is_a_root_shell(lab: Lab, creds: tuple[str, str]) -> None:
    with ConnectHandler(**netmiko_args(lab, "sonic1", creds, "linux")) as conn:
        out = conn.send_config_set(["config load /etc/sonic/config_db.json -y", "hostname; echo a; echo b"])
        assert "root@sonic1" in out and "sonic1\na\nb" in out
        assert conn.find_prompt() == f"{creds[0]}@sonic1:~$"


def test_junos_exit_with_uncommitted_changes_asks_and_keeps_running_config(
    lab: Lab, creds: tuple[str, str]
) -> None:
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        out = conn.send_config_set(["set interfaces et-0/0/3 mtu 9216"])  # exits config mode itself
        assert "Exit with uncommitted changes?" in out
        assert conn.find_prompt() == f"{creds[0]}@spine1>"
        assert "et-0/0/3" not in conn.send_command("show configuration | display set")
    assert "et-0/0/3" not in lab.get_config("spine1")
