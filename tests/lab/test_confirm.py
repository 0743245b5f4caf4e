"""Commit-confirm timers (Junos ``commit confirmed``, NVUE ``--confirm``, EOS ``commit timer``)
and the interpreter-exit cleanup."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from napalm import get_network_driver
from netmiko import ConnectHandler

from roceconf.lab import Lab
from tests.lab.conftest import eapi_args, netmiko_args


def _wait_for(pred, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def test_junos_commit_confirmed_rolls_back_unless_confirmed(lab: Lab, creds: tuple[str, str]) -> None:
    lab.device("spine1").time_scale = 0.005  # 1 minute -> 0.3 s
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        conn.send_config_set(["set interfaces et-0/0/5 mtu 9216"], exit_config_mode=False)
        assert "rolled back in 1 minutes" in conn.commit(confirm=True, confirm_delay=1)
        assert "et-0/0/5" in lab.get_config("spine1")
        assert _wait_for(lambda: "et-0/0/5" not in lab.get_config("spine1"))
        # confirmed by a plain commit: stays
        conn.send_config_set(["set interfaces et-0/0/6 mtu 9216"], exit_config_mode=False)
        conn.commit(confirm=True, confirm_delay=1)
        conn.commit()
        time.sleep(0.6)
        assert "et-0/0/6" in lab.get_config("spine1")


def test_nvue_apply_confirm_reverts(lab: Lab, creds: tuple[str, str]) -> None:
    lab.device("nv1").time_scale = 0.1
    with ConnectHandler(**netmiko_args(lab, "nv1", creds, "cumulus_linux")) as conn:
        conn.send_command("nv set interface swp7 link mtu 9000")
        assert "applied" in conn.send_command("nv config apply -y --confirm 2s")
        assert "swp7" in lab.get_config("nv1")
        assert _wait_for(lambda: "swp7" not in lab.get_config("nv1"))


def test_napalm_eos_commit_with_revert_in(lab: Lab, creds: tuple[str, str]) -> None:
    lab.device("leaf2").time_scale = 0.04  # 1 minute -> 2.4 s: room for a loaded machine to confirm in time
    dev = get_network_driver("eos")("127.0.0.1", *creds, timeout=20, optional_args=eapi_args(lab, "leaf2"))
    dev.open()
    try:
        dev.load_merge_candidate(config="interface Ethernet7\n   mtu 9214\n")
        dev.commit_config(revert_in=60)
        assert dev.has_pending_commit()
        assert "interface Ethernet7" in lab.get_config("leaf2")
        dev.confirm_commit()
        assert not dev.has_pending_commit()
        time.sleep(3.0)  # past the revert time: a confirmed commit stays
        assert "interface Ethernet7" in lab.get_config("leaf2")

        dev.load_merge_candidate(config="interface Ethernet8\n   mtu 9214\n")
        dev.commit_config(revert_in=60)
        assert "interface Ethernet8" in lab.get_config("leaf2")
        assert _wait_for(lambda: "interface Ethernet8" not in lab.get_config("leaf2"), timeout=15.0)
        assert "interface Ethernet7" in lab.get_config("leaf2")
    finally:
        dev.close()


def test_interpreter_exit_stops_a_lab_that_was_not_stopped(creds: tuple[str, str]) -> None:
    code = textwrap.dedent(
        f"""
        from roceconf.lab import Lab
        lab = Lab({creds[0]!r}, {creds[1]!r})
        lab.add("a", "nxos", "hostname a\\n")
        lab.start()
        print(lab.port("a"), flush=True)
        """
    )
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert time.monotonic() - start < 15
    assert res.stderr == ""
