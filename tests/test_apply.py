"""roceconf.apply against the loopback lab: check mode changes nothing, apply converges, a second apply is a
no-op, failures are reported without secrets."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from roceconf import platforms
from roceconf.apply import ApplyError, apply_config, apply_method
from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.drift.audit import audit_device
from roceconf.drift.collect import Target
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_state
from roceconf.lab import Lab

ROOT = Path(__file__).resolve().parents[1]
INTENT = ROOT / "inventories" / "lab" / "intent.yml"
USER = "labuser"
PASSWORD = secrets.token_urlsafe(16)

pytestmark = pytest.mark.xdist_group("lab-apply")


def old_intent_text() -> str:
    """The lab intent with a different switch MTU and PFC watchdog detection time: every switch platform
    renders something else for it, without renaming any QoS object."""
    text = INTENT.read_text()
    new = text.replace("switch_port: 9214", "switch_port: 9100").replace(
        "detection: 200ms", "detection: 300ms"
    )
    assert new != text and new.count("9100") == 1
    return new


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_valid(INTENT)


@pytest.fixture(scope="module")
def rendered(fabric: Fabric) -> dict[str, str]:
    return render_fabric(fabric)


@pytest.fixture(scope="module")
def old_rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    path = tmp_path_factory.mktemp("old") / "old-intent.yml"
    path.write_text(old_intent_text())
    return render_fabric(load_valid(path))


@pytest.fixture
def lab(fabric: Fabric, old_rendered: dict[str, str]) -> Iterator[Lab]:
    """Switches running the old intent's configs; hosts already as the intent says."""
    with Lab(USER, PASSWORD) as lab:
        for name, dev in fabric.devices.items():
            if platforms.get(dev.platform).kind == "nic":
                lab.add(name, dev.platform, desired_state(dev))
            else:
                lab.add(name, dev.platform, old_rendered[output_name(name, dev.platform)])
        yield lab


def target(lab: Lab, name: str, password: str = PASSWORD) -> Target:
    tg = lab.target(name)  # eAPI over HTTPS verified against the lab's CA; SSH with the password
    tg.password = password
    return tg


SWITCHES = ["leaf1", "leaf2", "leaf3", "spine1", "spine2"]  # eos, nvue, sonic, nxos, junos


@pytest.mark.parametrize("name", SWITCHES)
def test_check_apply_apply_again(lab: Lab, fabric: Fabric, rendered: dict[str, str], name: str) -> None:
    dev = fabric.devices[name]
    text = rendered[output_name(name, dev.platform)]
    tg = target(lab, name)
    before = lab.get_config(name)
    assert audit_device(fabric, name, target=tg).status == "drift"

    res = apply_config(tg, dev.platform, text, check=True, timeout=10, confirm_seconds=60)
    assert res.changed and not res.committed and res.diff.strip()
    assert "9214" in res.diff  # the MTU the intent wants
    assert lab.get_config(name) == before  # check mode changed nothing
    device = lab.device(name)
    assert not device.sessions  # no EOS config session left open
    assert device.junos_candidate == device.junos  # Junos candidate rolled back
    assert device.platform != "nvue" or device.pending == device.data  # NVUE pending revision detached
    assert not [f for f in device.files if "roceconf" in f]  # nothing left uploaded

    res = apply_config(tg, dev.platform, text, check=False, timeout=10, confirm_seconds=60)
    assert res.changed and res.committed, res.messages
    assert lab.get_config(name) != before
    assert not lab.device(name).timers  # commit-confirm windows were confirmed
    assert audit_device(fabric, name, target=tg).status == "in_sync"

    again = apply_config(tg, dev.platform, text, check=False, timeout=10, confirm_seconds=60)
    assert not again.changed and not again.committed and again.diff == ""
    for r in (res, again):
        assert PASSWORD not in json.dumps(r.to_dict())


def test_sonic_fragment_is_merged_not_replaced(lab: Lab, fabric: Fabric, rendered: dict[str, str]) -> None:
    lab.edit("leaf3", lambda t: json.dumps({**json.loads(t), "NTP": {"global": {"src_intf": "eth0"}}}))
    apply_config(target(lab, "leaf3"), "sonic", rendered["leaf3.json"], check=False, timeout=10)
    data = json.loads(lab.get_config("leaf3"))
    assert data["NTP"] == {"global": {"src_intf": "eth0"}}  # unrelated tables stay
    assert data["PORT"]["Ethernet0"]["mtu"] == "9214"
    assert "config qos reload" not in " ".join(lab.device("leaf3").history)
    assert "config save -y" in " ".join(lab.device("leaf3").history)


def test_junos_commit_confirmed_then_confirmed(lab: Lab, rendered: dict[str, str]) -> None:
    apply_config(target(lab, "spine2"), "junos", rendered["spine2.set"], check=False, timeout=10)
    history = list(lab.device("spine2").history)
    confirmed = history.index("commit confirmed 2")  # 120 s rounds up to 2 minutes
    assert "commit" in history[confirmed + 1 :]
    assert "set interfaces et-0/0/0 mtu 9214" in lab.get_config("spine2")


def test_junos_moved_dscp_converges(lab: Lab, fabric: Fabric, rendered: dict[str, str]) -> None:
    """A code point moved to another forwarding class out of band: apply replaces the owned classifier."""
    moved = "forwarding-class RC-TC0 loss-priority low code-points 011010"
    lab.edit("spine2", lambda t: t.replace("forwarding-class RC-TC3 loss-priority low code-points 011010", moved))
    assert moved in lab.get_config("spine2")
    tg = target(lab, "spine2")
    res = apply_config(tg, "junos", rendered["spine2.set"], check=False, timeout=10, confirm_seconds=60)
    assert res.committed and f"- set class-of-service classifiers dscp RC-DSCP {moved}" in res.diff
    assert moved not in lab.get_config("spine2")
    assert audit_device(fabric, "spine2", target=tg).status == "in_sync"
    again = apply_config(tg, "junos", rendered["spine2.set"], check=False, timeout=10, confirm_seconds=60)
    assert not again.changed and again.diff == ""


@pytest.mark.parametrize(
    ("name", "override"),
    [
        ("leaf1", ("interface Ethernet2\n", "interface Ethernet2\n   priority-flow-control priority 3 drop\n")),
        ("spine1", ("  priority-flow-control mode on\n", "  priority-flow-control mode off\n")),
    ],
)
def test_apply_removes_a_stale_interface_override(
    fabric: Fabric, rendered: dict[str, str], name: str, override: tuple[str, str]
) -> None:
    """A merge alone keeps an interface-level override the intent does not have; apply negates it first."""
    dev = fabric.devices[name]
    text = rendered[output_name(name, dev.platform)]
    with Lab(USER, PASSWORD) as lab:
        lab.add(name, dev.platform, text)
        old, new = override
        lab.edit(name, lambda t: t.replace(old, new, 1) if old in t else t + "\n" + new)
        assert new.strip().splitlines()[-1] in lab.get_config(name)
        tg = target(lab, name)
        assert audit_device(fabric, name, target=tg).status == "drift"
        res = apply_config(tg, dev.platform, text, check=False, timeout=10, confirm_seconds=None)
        # the diff shows the override going away (EOS: a session diff; NX-OS: the merge lines)
        assert res.committed and new.strip().splitlines()[-1].strip() in res.diff, res.diff
        assert audit_device(fabric, name, target=tg).status == "in_sync"
        again = apply_config(tg, dev.platform, text, check=False, timeout=10, confirm_seconds=None)
        assert not again.changed, again.diff


def test_wrong_password_is_an_error_without_the_secret(lab: Lab, rendered: dict[str, str]) -> None:
    wrong = "Wr0ng-" + secrets.token_urlsafe(8)
    for name in ("leaf1", "spine1", "leaf2"):
        dev = lab.device(name)
        with pytest.raises(ApplyError) as err:
            apply_config(
                target(lab, name, wrong),
                dev.platform,
                rendered[output_name(name, dev.platform)],
                check=True,
                timeout=5,
            )
        assert wrong not in str(err.value) and PASSWORD not in str(err.value)
        assert name in str(err.value)


def test_unreachable_device_is_an_error(lab: Lab, rendered: dict[str, str]) -> None:
    lab.set_fault("spine2", "refuse")
    with pytest.raises(ApplyError, match="spine2"):
        apply_config(target(lab, "spine2"), "junos", rendered["spine2.set"], check=True, timeout=3)


def test_host_script_compares_the_read_back_then_runs(lab: Lab, rendered: dict[str, str]) -> None:
    tg = target(lab, "gpu1")
    res = apply_config(tg, "connectx", rendered["gpu1.sh"], check=True, timeout=10)
    assert not res.changed  # the host already reads back what the script sets
    state = lab.host_state("gpu1")
    state.interfaces["eth0"].mtu = 1500
    lab.set_host_state("gpu1", state)
    res = apply_config(tg, "connectx", rendered["gpu1.sh"], check=True, timeout=10)
    assert res.changed and "mtu" in res.diff and not res.committed
    assert lab.host_state("gpu1").interfaces["eth0"].mtu == 1500
    # The lab's hosts do not execute scripts; `bash FILE` merges what the platform's parser reads from it
    # (docs/lab.md), which is what a successful run leaves behind.
    res = apply_config(tg, "connectx", rendered["gpu1.sh"], check=False, timeout=10)
    assert res.changed and res.committed
    assert lab.host_state("gpu1").interfaces["eth0"].mtu == 9000
    assert not apply_config(tg, "connectx", rendered["gpu1.sh"], check=False, timeout=10).changed


def test_apply_method_fallbacks() -> None:
    expected = {
        "eos": "napalm",
        "nxos": "napalm",
        "junos": "junos-cli",
        "nvue": "nvue-patch",
        "sonic": "sonic-config-load",
        "connectx": "script",
        "bnxt": "script",
        "linux-dcb": "script",
    }
    for name, method in expected.items():
        plat = platforms.get(name)
        assert apply_method(plat) == (plat.apply_method or method)


def test_platform_mismatch_and_empty_config_are_refused(lab: Lab) -> None:
    with pytest.raises(ApplyError, match="inventory says platform"):
        apply_config(target(lab, "leaf1"), "nxos", "hostname x\n", check=True)
    with pytest.raises(ApplyError, match="empty"):
        apply_config(target(lab, "leaf1"), "eos", "  \n", check=True)


def _cut_off_after_first_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The change cuts the management connection: every SSH session after the first one fails."""
    import roceconf.apply as apply_mod

    real = apply_mod.netmiko_connect
    calls = {"n": 0}

    def connect(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] > 1:
            raise TimeoutError("no answer")
        return real(*args, **kwargs)

    monkeypatch.setattr(apply_mod, "netmiko_connect", connect)


def test_nvue_unconfirmed_apply_rolls_back_by_itself(
    lab: Lab, rendered: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = lab.get_config("leaf2")
    _cut_off_after_first_session(monkeypatch)
    with pytest.raises(ApplyError, match="not confirmed"):
        apply_config(target(lab, "leaf2"), "nvue", rendered["leaf2.yaml"], check=False, confirm_seconds=1)
    assert lab.get_config("leaf2") != before  # applied, waiting for the confirmation
    deadline = time.monotonic() + 10
    while lab.get_config("leaf2") != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lab.get_config("leaf2") == before  # NVUE rolled it back


def test_junos_unconfirmed_commit_is_left_to_roll_back(
    lab: Lab, rendered: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _cut_off_after_first_session(monkeypatch)
    with pytest.raises(ApplyError, match="rolls the change back within 1 minute"):
        apply_config(target(lab, "spine2"), "junos", rendered["spine2.set"], check=False, confirm_seconds=60)
    history = list(lab.device("spine2").history)
    assert history[-1] != "commit" and "commit confirmed 1" in history
    assert lab.device("spine2").timers  # the commit-confirmed rollback is pending
