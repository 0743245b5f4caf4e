"""bnxt and linux-dcb: every ``dcb`` / ``ip`` command of the rendered scripts against iproute2's grammar.

``roceconf.platforms.linux_dcb.grammar`` states iproute2's grammar as its source defines it (file and
function cited there: dcb/dcb_app.c dcb_cmd_app / dcb_cmd_app_parse_add_del / dcb_cmd_app_flush,
dcb/dcb_ets.c dcb_cmd_ets_set, dcb/dcb_pfc.c dcb_cmd_pfc_set, dcb/dcb.c dcb_cmd_parse_dev /
dcb_parse_mapping, lib/utils.c parse_mapping_gen / matches, ip/iplink.c iplink_parse). Where Debian's real
tools can judge a command without a DCB NIC they are asked too, in a network namespace this test creates
and deletes, on a veth pair:

* ``dcb app add|del`` parse every argument before the first netlink request (dcb_cmd_app_add/del), so a
  command iproute2 accepts ends in "Attribute write: Operation not supported" on a veth, while a refused
  one prints its parse error; ``dcb app replace`` uses the same parser (dcb_cmd_app_parse_add_del) but
  reads the device first, so its arguments are checked as ``dcb app add``;
* ``ip link set dev D mtu N`` really runs on the veth.

``dcb ets set``, ``dcb pfc set``, ``dcb app flush`` and ``show`` read the device before they parse
(dcb_ets_get, dcb_pfc_get, dcb_app_get), so only the grammar checks them.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings

from roceconf.platforms.linux_dcb import grammar
from roceconf.render import render_state
from roceconf.state import DeviceState
from tests.conformance.sources import ROOT, intent_states
from tests.platforms.test_linux_dcb import host_state

pytestmark = pytest.mark.xdist_group("conformance-iproute2")
COUNT = {"grammar": 0, "real": 0, "negatives": 0}
SEEN_REAL: dict[str, tuple[bool, str]] = {}

#: Broken commands: iproute2 refuses each (so the lab must too).
NEGATIVES = [
    "dcb app flush dev eth0 dscp-prio dgram-port-prio",  # the old bnxt line: flush knows no dgram-port-prio
    "dcb app add dev eth0 dscp-prio 64:3",
    "dcb app add dev eth0 dscp-prio 26:8",
    "dcb app add dev eth0 dgram-port-prio 0:3",
    "dcb app add eth0 dscp-prio 26:3",
    "dcb app replace dev eth0 dscp 26:3 foo",
    "dcb app add dev eth0 ethtype-prio 0x100:3",
    "dcb ets set dev eth0 tc-tsa 0:fair",
    "dcb ets set dev eth0 prio-tc 8:1",
    "dcb ets set dev eth0 tc-bw 0:101",
    "dcb pfc set dev eth0 prio-pfc 3:yes",
    "dcb pfc set dev eth0 delay 70000",
    "ip link set dev eth0 mtu 9k",
]


class Netns:
    """A network namespace with a veth pair, deleted again on exit."""

    def __init__(self) -> None:
        self.name = f"roceconf-{secrets.token_hex(4)}"

    def __enter__(self) -> Netns:
        for cmd in (
            ["ip", "netns", "add", self.name],
            ["ip", "-n", self.name, "link", "add", "rc0", "type", "veth", "peer", "name", "rc1"],
        ):
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if r.returncode != 0:
                self.__exit__()
                raise OSError(f"{' '.join(cmd)}: {r.stderr.strip()}")
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv[:1] + ["-n", self.name] + argv[1:], capture_output=True, text=True, check=False
        )


@pytest.fixture(scope="module")
def netns():
    why = None
    if os.geteuid() != 0:
        why = "not root"
    elif not (shutil.which("dcb") and shutil.which("ip")):
        why = "iproute2 (dcb, ip) not installed"
    if why is None:
        try:
            with Netns() as ns:
                yield ns
            return
        except OSError as exc:
            why = f"network namespaces not permitted here ({exc})"
    pytest.skip(f"real iproute2 check skipped: {why}")


def _on_veth(argv: list[str]) -> list[str] | None:
    """The command as the real tool can judge it on the veth (None: it reads the device first)."""
    out = ["rc0" if i and argv[i - 1] == "dev" else w for i, w in enumerate(argv)]
    if out[0] == "dcb":
        words = [w for w in out[1:] if not w.startswith("-")]
        if words[:1] == ["app"] and len(words) > 1 and words[1] in ("add", "del", "replace"):
            return ["dcb", *[("add" if w == "replace" else w) for w in out[1:]]]
        return None
    if out[:3] == ["ip", "link", "set"]:
        return out
    return None


def _real_verdict(ns: Netns, argv: list[str]) -> tuple[bool, str]:
    r = ns.run(argv)
    text = (r.stderr + r.stdout).strip()
    if argv[0] == "ip":
        return r.returncode == 0, text
    # parsed completely: the netlink write is what fails on a veth
    return "Attribute write: Operation not supported" in text, text


def _check_script(text: str, label: str, ns: Netns | None) -> None:
    for n, argv in grammar.commands_in_script(text):
        try:
            grammar.check_argv(argv)
        except grammar.Refused as exc:
            raise AssertionError(f"{label} line {n}: iproute2 refuses {' '.join(argv)!r}: {exc}") from None
        COUNT["grammar"] += 1
        veth = _on_veth(argv) if ns is not None else None
        if veth is None:
            continue
        key = " ".join(veth)
        if key not in SEEN_REAL:
            SEEN_REAL[key] = _real_verdict(ns, veth)
            COUNT["real"] += 1
        ok, msg = SEEN_REAL[key]
        assert ok, f"{label} line {n}: Debian's {argv[0]} refuses {key!r}: {msg}"


@pytest.mark.parametrize("platform", ["bnxt", "linux-dcb"])
def test_intent_scripts_follow_the_iproute2_grammar(platform: str, netns: Netns, capsys) -> None:
    states = list(intent_states(platform))
    assert states
    g, r = COUNT["grammar"], COUNT["real"]
    for label, st in states:
        _check_script(render_state(st), label, netns)
    with capsys.disabled():
        print(
            f"\niproute2 ({platform}): {COUNT['grammar'] - g} dcb/ip commands of {len(states)} rendered scripts "
            f"checked against iproute2's grammar, {COUNT['real'] - r} distinct ones also by Debian's dcb/ip"
        )


@pytest.mark.parametrize("platform", ["bnxt", "linux-dcb"])
def test_intent_scripts_follow_the_iproute2_grammar_without_real_tools(platform: str) -> None:
    """The grammar part alone (runs where namespaces are not permitted)."""
    for label, st in intent_states(platform):
        _check_script(render_state(st), label, None)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("bnxt"))
def test_generated_bnxt_scripts_follow_the_grammar(state: DeviceState) -> None:
    _check_script(render_state(state), "generated bnxt", None)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("linux-dcb"))
def test_generated_linux_dcb_scripts_follow_the_grammar(state: DeviceState) -> None:
    _check_script(render_state(state), "generated linux-dcb", None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("bnxt") | host_state("linux-dcb"))
def test_generated_scripts_are_accepted_by_the_real_tools(state: DeviceState, netns: Netns) -> None:
    _check_script(render_state(state), f"generated {state.platform}", netns)


@pytest.mark.parametrize("line", NEGATIVES)
def test_broken_commands_are_refused(line: str) -> None:
    with pytest.raises(grammar.Refused):
        grammar.check_argv(line.split())
    COUNT["negatives"] += 1


@pytest.mark.parametrize("line", [n for n in NEGATIVES if _on_veth(n.split()) is not None])
def test_broken_commands_are_refused_by_the_real_tools_with_the_same_message(line: str, netns: Netns) -> None:
    argv = _on_veth(line.split())
    assert argv is not None
    ok, msg = _real_verdict(netns, argv)
    assert not ok, f"Debian's {argv[0]} accepts {line!r}"
    with pytest.raises(grammar.Refused) as exc:
        grammar.check_argv(line.split())
    ours = str(exc.value).splitlines()[0]
    assert ours in msg, (ours, msg)


def _app_commands(text: str) -> list[list[str]]:
    return [
        a for _, a in grammar.commands_in_script(text) if a[:2] == ["dcb", "app"] and "$" not in " ".join(a)
    ]


def test_a_failing_command_never_leaves_the_nic_without_a_dscp_map() -> None:
    """Run each rendered bnxt / linux-dcb script's 'dcb app' commands in order on an APP table that holds
    the intended entries (the script runs again): the DSCP entries never all disappear, and nothing is
    refused. The old bnxt line did both: flush deleted the DSCP entries, then failed on dgram-port-prio."""
    for platform in ("bnxt", "linux-dcb"):
        for label, st in intent_states(platform):
            text = render_state(st)
            for name, itf in st.interfaces.items():
                m = itf.dscp_to_tc if itf.dscp_to_tc is not None else st.dscp_to_tc
                if itf.trust != "dscp" or not m:
                    continue
                table = [("dscp-prio", int(d), p) for d, p in m.items()]
                for argv in _app_commands(text):
                    if argv[argv.index("dev") + 1] != name:
                        continue
                    grammar.run_app(table, argv)  # raises if refused
                    assert any(e[0] == "dscp-prio" for e in table), f"{label} {name}: {' '.join(argv)}"
                assert sorted((d, p) for s, d, p in table if s == "dscp-prio") == sorted(
                    (int(d), p) for d, p in m.items()
                ), label
    # the old golden bnxt line, on the same table: the map is gone and the command fails
    table = [("dscp-prio", 26, 3), ("dscp-prio", 48, 6), ("dgram-port-prio", 4791, 3)]
    with pytest.raises(grammar.Refused, match="dgram-port-prio"):
        grammar.run_app(table, "dcb app flush dev eth0 dscp-prio dgram-port-prio".split())
    assert not any(e[0] == "dscp-prio" for e in table)


def test_golden_scripts_have_no_refused_line() -> None:
    for name in ("gpu3.sh", "gpu4.sh"):
        text = (ROOT / "tests" / "golden" / name).read_text()
        assert grammar.check_script(text) == [], name
        assert not re.search(r"prio-tc all:0 3:3 6:6", text)  # contiguous TCs on linux-dcb
