"""The lab refuses every negative fixture the conformance oracles refuse (docs/conformance.md, "refused").

Each list comes from the oracle's own test module (not a copy): Junos ``tests/conformance/fixtures/
junos-negative.set`` (Juniper YANG), SONiC ``tests/conformance/sonic_negatives.py`` (SONiC YANG, yanglint),
EOS ``tests/conformance/eos_negatives.py`` (Arista AVD schema), ConnectX ``test_mlnx_qos.NEGATIVES``
(NVIDIA's mlnx_qos), iproute2 ``test_iproute2.NEGATIVES`` (iproute2 / Debian's dcb and ip). Every negative
goes over the transport a live test uses (netmiko SSH, napalm eAPI over HTTPS) to a simulated device, which
must answer with the device's error and keep its configuration; what roceconf renders is still accepted.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from collections.abc import Callable
from typing import Any

import pytest
from napalm import get_network_driver
from napalm.base.exceptions import MergeConfigException
from netmiko import ConnectHandler

from roceconf.lab import Lab
from roceconf.lab.refuse import (
    eos_refusal,
    host_command_refusal,
    host_script_refusal,
    junos_refusal,
    sonic_load_refusal,
)
from roceconf.lab.shells import JunosShell
from roceconf.platforms.junos import schema
from roceconf.platforms.sonic import yang
from roceconf.render import render_state
from tests.conformance import eos_negatives
from tests.conformance.corpus import CORPUS_GROUP, negative_lines, states
from tests.conformance.sonic_negatives import MUTATIONS, broken, lab_fragment
from tests.conformance.test_iproute2 import NEGATIVES as IPROUTE2_NEGATIVES
from tests.conformance.test_mlnx_qos import NEGATIVES as MLNX_NEGATIVES
from tests.lab.conftest import eapi_args, netmiko_args

pytestmark = pytest.mark.xdist_group(CORPUS_GROUP)  # one worker validates the corpus once

JUNOS_NEGATIVE = [line for _, line in negative_lines("junos-negative.set")]


def _report(platform: str, refused: int, total: int, how: str) -> None:
    print(f"\nlab refuses {refused} of {total} {platform} negatives ({how})")


def _needs(reason: str | None, what: str) -> None:
    if reason:
        pytest.skip(f"{what} refusals not checked: {reason}")


# ------------------------------------------------------------------------------------------ Junos
def test_junos_refuses_every_negative_line_over_ssh(lab: Lab, creds: tuple[str, str]) -> None:
    _needs(schema.unavailable_reason(), "Junos")
    assert len(JUNOS_NEGATIVE) >= 10 and any("recovery-time" in ln for ln in JUNOS_NEGATIVE)
    before = lab.get_config("spine1")
    refused = 0
    with ConnectHandler(**netmiko_args(lab, "spine1", creds, "juniper_junos")) as conn:
        conn.config_mode()
        for line in JUNOS_NEGATIVE:
            out = conn.send_command(line, expect_string=r"#")
            assert re.search(r"^\s*\^$", out, re.M), (line, out)
            assert "syntax error." in out or "error:" in out or "missing argument" in out, (line, out)
            refused += 1
        assert conn.send_command("show | compare", expect_string=r"#").strip() == ""
        # the corrected line of the first defect loads
        good = JUNOS_NEGATIVE[0].replace("recovery-time", "recovery")
        assert conn.send_command(good, expect_string=r"#").strip() == ""
        assert good.split(" ", 1)[1] in conn.send_command("show | compare", expect_string=r"#")
        conn.send_command("rollback 0", expect_string=r"#")
        conn.exit_config_mode()
    assert lab.get_config("spine1") == before
    assert refused == len(JUNOS_NEGATIVE)
    _report("Junos", refused, len(JUNOS_NEGATIVE), "set lines over netmiko juniper_junos")


def test_junos_load_set_terminal_reports_each_refused_line(lab: Lab, creds: tuple[str, str]) -> None:
    _needs(schema.unavailable_reason(), "Junos")
    dev = lab.device("spine1")
    before = list(dev.junos_candidate)
    sh = JunosShell(dev, creds[0])
    sh.handle("configure")
    assert sh.handle("load set terminal").startswith("[Type ^D")
    good = "set class-of-service congestion-notification-profile P pfc-watchdog recovery 400"
    for line in [*JUNOS_NEGATIVE, good]:
        sh.handle(line)
    out = sh.control("\x04") or ""
    assert out.endswith(f"load complete ({len(JUNOS_NEGATIVE)} errors)"), out
    assert out.count("\nterminal:") + out.startswith("terminal:") == len(JUNOS_NEGATIVE)
    assert dev.junos_candidate == before + [good]  # only the good line reached the candidate


# ------------------------------------------------------------------------------------------ SONiC
def _shell(conn: Any) -> Callable[..., str]:
    """``conn.send_command`` waiting for the shell's prompt, found once: netmiko would look for it again before
    every command (a RETURN and its answer, with sleeps of its own); the prompt of these shells never changes, so
    each command waits for the very pattern netmiko would have found."""
    prompt = re.escape(conn.find_prompt())
    return lambda command, **kw: conn.send_command(command, expect_string=prompt, **kw)


def _upload(send: Callable[..., str], path: str, text: str) -> None:
    data = base64.b64encode(text.encode()).decode()
    for n, i in enumerate(range(0, len(data), 1000)):
        send(f"echo {data[i : i + 1000]} | base64 -d {'>' if n == 0 else '>>'} {path}")


def test_sonic_config_load_refuses_every_broken_fragment(lab: Lab, creds: tuple[str, str]) -> None:
    _needs(yang.unavailable_reason(), "SONiC")
    assert len(MUTATIONS) >= 10
    refused = 0
    with ConnectHandler(**netmiko_args(lab, "sonic1", creds, "linux")) as conn:
        send = _shell(conn)
        before = send("show runningconfiguration all")
        for name, _why, fn in MUTATIONS:
            _upload(send, "/tmp/bad.json", json.dumps(broken(fn)))
            out = send("sudo config load /tmp/bad.json -y; echo rc=$?", read_timeout=60)
            assert out.startswith("Failed to validate config_input. Error: Data Loading Failed"), (name, out)
            assert out.endswith("rc=1"), (name, out)
            assert send("show runningconfiguration all") == before, name
            refused += 1
        # the unbroken fragment loads through the same command
        _upload(send, "/tmp/good.json", json.dumps(lab_fragment()))
        out = send("sudo config load /tmp/good.json -y; echo rc=$?", read_timeout=60)
        assert "sonic-cfggen" in out and out.endswith("rc=0"), out
        assert json.loads(send("show runningconfiguration all"))["PORT_QOS_MAP"]
    assert refused == len(MUTATIONS)
    _report("SONiC", refused, len(MUTATIONS), "config load over SSH, SONiC YANG via yanglint")


# ------------------------------------------------------------------------------------------ EOS
def test_eos_refuses_every_negative_over_eapi(lab: Lab, creds: tuple[str, str]) -> None:
    negatives = eos_negatives.NEGATIVES
    assert len(negatives) >= 6
    before = lab.get_config("leaf2")
    driver = get_network_driver("eos")
    dev = driver("127.0.0.1", *creds, timeout=20, optional_args=eapi_args(lab, "leaf2"))
    dev.open()
    refused = 0
    try:
        for _why, mode, line, _path, _value in negatives:
            config = (f"{mode}\n   {line}\n" if mode else f"{line}\n") + "end\n"
            with pytest.raises(MergeConfigException) as exc:
                dev.load_merge_candidate(config=config)
            word = line.split()[-1] if not line.endswith("no-drop") else line.split()[-2]
            assert f"Invalid input (at token {line.split().index(word)}: '{word}')" in str(exc.value), (
                line,
                str(exc.value),
            )
            dev.discard_config()
            refused += 1
        dev.load_merge_candidate(config="interface Ethernet1\n   mtu 9000\nend\n")  # a good line loads
        assert "mtu 9000" in dev.compare_config()
        dev.discard_config()
    finally:
        dev.close()
    assert lab.get_config("leaf2") == before
    assert refused == len(negatives)
    _report("EOS", refused, len(negatives), "napalm eos over eAPI")


# ------------------------------------------------------------------------------------------ hosts
def _host_state(platform: str):
    label, st = next((lb, s) for lb, s in states(platform) if lb.startswith("inventories/lab/"))
    return st


def _expected(argv: list[str]) -> tuple[str, int]:
    """The tool's own message and exit status, from the oracle's restatement (the conformance tests prove
    it gives the real tool's verdict and first line)."""
    from roceconf.platforms.connectx import grammar as mlnx
    from roceconf.platforms.linux_dcb import grammar as iproute2

    try:
        if argv[0] == "mlnx_qos":
            mlnx.check(argv)
        else:
            iproute2.check_argv(argv)
    except mlnx.Refused as e:
        return str(e), e.code
    except iproute2.Refused as e:
        return str(e), 1 if argv[0] == "dcb" else 255
    raise AssertionError(f"the oracle accepts {argv}")


@pytest.mark.parametrize(
    ("platform", "negatives"),
    [("connectx", MLNX_NEGATIVES), ("bnxt", IPROUTE2_NEGATIVES), ("linux-dcb", IPROUTE2_NEGATIVES)],
)
def test_host_refuses_every_negative_command_and_script(
    platform: str, negatives: list[str], creds: tuple[str, str]
) -> None:
    assert len(negatives) >= 10
    state = _host_state(platform)
    port = next(iter(state.interfaces))
    changed = state.model_copy(deep=True)
    changed.interfaces[port].mtu = 4200
    script = render_state(changed)
    head, sep, tail = script.partition("set -euo pipefail\n")
    assert sep, "the rendered script stops on the first failing command"
    refused = 0
    with Lab(*creds) as lab:
        lab.add("gpu", platform, state)
        before = lab.get_config("gpu")
        with ConnectHandler(**netmiko_args(lab, "gpu", creds, "linux")) as conn:
            send = _shell(conn)
            for line in negatives:
                message, code = _expected(shlex.split(line))
                # typed at the prompt: the tool's message and status
                out = send(f"sudo {line}; echo rc=$?")
                assert out.endswith(f"rc={code}") and code != 0, (line, out)
                assert out[: -len(f"rc={code}")].strip() == message.strip(), (line, out)
                # inside the rendered script: `set -e` stops there, nothing after it is applied
                _upload(send, "/tmp/neg.sh", head + sep + line + "\n" + tail)
                out = send("sudo bash /tmp/neg.sh; echo rc=$?")
                assert out.endswith(f"rc={code}"), (line, out)
                assert lab.get_config("gpu") == before, line
                refused += 1
            # the rendered script without the negative runs and changes the host
            _upload(send, "/tmp/ok.sh", script)
            assert send("sudo bash /tmp/ok.sh; echo rc=$?") == "rc=0"
        assert lab.host_state("gpu").interfaces[port].mtu == 4200
    assert refused == len(negatives)
    _report(platform, refused, len(negatives), "typed and inside the rendered set -e script, over SSH")


# ------------------------------------------------------------------------------------------ renders
def test_the_lab_takes_everything_roceconf_renders() -> None:
    """Every intent's render passes the same refusal checks (the live tests push these)."""
    n = 0
    for label, st in states("junos"):
        if schema.unavailable_reason() is None:
            for line in render_state(st).splitlines():
                assert junos_refusal(line, "qfx5220-32cd") is None, (label, line)
                assert junos_refusal(line, "qfx5120-48y") is None, (label, line)
                n += 1
    for label, st in states("eos"):
        for line in render_state(st).splitlines():
            assert eos_refusal(line) is None, (label, line)
            n += 1
    for platform in ("connectx", "bnxt", "linux-dcb"):
        for label, st in states(platform):
            assert host_script_refusal(render_state(st)) is None, label
            n += 1
    if yang.unavailable_reason() is None:
        for label, st in states("sonic")[:3]:
            frag = json.loads(render_state(st))
            assert sonic_load_refusal({}, frag) is None, label
            n += 1
    assert n > 100
    assert host_command_refusal(["mlnx_qos", "-i", "eth0"]) is None  # the read-back is not refused
