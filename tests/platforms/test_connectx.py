"""NVIDIA ConnectX (mlx5) host platform: script and read-back round trips, per-knob rendering, parser behaviour."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf import platforms
from roceconf.names import natural_key
from roceconf.platforms.base import join_outputs, split_outputs
from roceconf.render import render_state
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched
from tests.strategies import PRIO

PLAT = platforms.get("connectx")
NAMES = ["eth0", "eth1", "eth4", "ens1f0np0", "ens1f1np1", "enp65s0f0np0", "mce0", "ib0"]


def _maybe(draw, strategy, partial: bool):
    """A value, or None (unknown) when drawing partial states."""
    if partial and draw(st.booleans()):
        return None
    return draw(strategy)


@st.composite
def _sched(draw, tcs: list[int]) -> dict[str, Sched]:
    out = {}
    for tc in tcs:
        if draw(st.booleans()):
            out[str(tc)] = Sched(mode="strict")
        else:
            out[str(tc)] = Sched(mode="dwrr", bandwidth_percent=draw(st.integers(min_value=0, max_value=100)))
    return out


@st.composite
def host_state(draw, partial: bool = False) -> DeviceState:
    """A ConnectX host state in the form the parser reports (canonical host map, sorted lists)."""
    names = sorted(
        draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True)), key=natural_key
    )
    lossless = sorted(draw(st.lists(PRIO, min_size=0, max_size=2, unique=True)))
    cnp = draw(PRIO)
    tcs = sorted({0, cnp, *lossless})
    dscp_map = st.dictionaries(
        st.integers(min_value=0, max_value=63).map(str), st.sampled_from(tcs), min_size=1, max_size=6
    )
    host_map = draw(dscp_map)
    trusts = ["dscp", "pcp", None] if partial else ["dscp", "pcp"]
    itfs: dict[str, Interface] = {}
    used_maps = [host_map]
    first_map_port_done = False
    for i, name in enumerate(names):
        trust = draw(st.sampled_from(trusts))
        override = None
        if trust != "pcp":
            if first_map_port_done and draw(st.booleans()):
                candidate = draw(dscp_map)
                if candidate not in used_maps:
                    override = candidate
                    used_maps.append(candidate)
            first_map_port_done = True
        nd = sorted(draw(st.lists(PRIO, max_size=3, unique=True)))
        pfc = Pfc(enabled=bool(nd), no_drop=nd) if not (partial and draw(st.booleans())) else Pfc()
        rdma = None
        if draw(st.booleans()) or not partial:
            device = f"mlx5_{i}" if not (partial and draw(st.booleans())) else None
            dscp = draw(st.integers(min_value=0, max_value=63))
            rdma = NicRdma(
                device=device,
                roce_tos=(dscp << 2 | draw(st.sampled_from([0, 2]))) if device else None,
                cnp_dscp=_maybe(draw, st.integers(min_value=0, max_value=63), partial),
                cnp_priority=_maybe(draw, PRIO, partial),
                dcqcn_rp=_maybe(draw, st.lists(PRIO, max_size=2, unique=True).map(sorted), partial),
                dcqcn_np=_maybe(draw, st.lists(PRIO, max_size=2, unique=True).map(sorted), partial),
            )
            if rdma == NicRdma():
                rdma = None
        itfs[name] = Interface(
            mtu=_maybe(draw, st.integers(min_value=68, max_value=9978), partial),
            trust=trust,
            pfc=pfc,
            link_pause=_maybe(draw, st.booleans(), partial),
            scheduling=draw(_sched(tcs)) if not (partial and draw(st.booleans())) else {},
            dscp_to_tc=override,
            rdma=rdma,
        )
    if not first_map_port_done:
        host_map = {}
    return DeviceState(
        platform="connectx",
        hostname=_maybe(draw, st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True), partial),
        dscp_to_tc=host_map,
        interfaces=itfs,
    )


# ----------------------------------------------------------------------------------- round trips
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state(partial=True))
def test_script_round_trip(state: DeviceState) -> None:
    text = render_state(state)
    got = PLAT.parse(text)
    assert got.semantic() == state.semantic(), text
    assert not [w for w in got.warnings if w.code != "PRIO_TC"], got.warnings


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state(partial=False))
def test_bundle_round_trip(state: DeviceState) -> None:
    outputs = {c: PLAT.simulate(state, c) for c in PLAT.commands_for(state)}
    assert all(isinstance(o, str) for o in outputs.values()), outputs
    got = PLAT.parse(join_outputs(outputs))
    assert got.semantic() == state.semantic()


# ----------------------------------------------------------------------------------- per-knob rendering
def _state(**itf_fields) -> DeviceState:
    return DeviceState(
        platform="connectx",
        hostname="gpu01",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={"ens1f0np0": Interface(**itf_fields)},
    )


def _lines(state: DeviceState) -> list[str]:
    return render_state(state).splitlines()


def test_script_header_is_strict_bash_and_checks_tools() -> None:
    lines = _lines(_state(trust="dscp", mtu=9000, link_pause=False))
    assert lines[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in lines
    assert any(ln.startswith("need() { command -v") for ln in lines)
    for tool in ("mlnx_qos", "ip", "ethtool"):
        assert f"need {tool}" in lines
    assert "need cma_roce_tos" not in lines  # no TOS stated, tool not required


def test_roce_tos_is_dscp_shifted_left_two() -> None:
    lines = _lines(_state(rdma=NicRdma(device="mlx5_0", roce_tos=26 << 2)))
    assert "cma_roce_tos -d mlx5_0 -t 104" in lines
    assert "mkdir -p /sys/kernel/config/rdma_cm/mlx5_0" in lines
    lines = _lines(_state(rdma=NicRdma(device="mlx5_3", roce_tos=26 << 2 | 2)))
    assert "cma_roce_tos -d mlx5_3 -t 106" in lines


def test_trust_dscp_map_flush_then_set() -> None:
    lines = _lines(_state(trust="dscp"))
    trust = lines.index("mlnx_qos -i ens1f0np0 --trust dscp")
    dscp = lines.index("mlnx_qos -i ens1f0np0 --dscp2prio flush --dscp2prio set,26,3 --dscp2prio set,48,6")
    assert trust < dscp  # --trust dscp installs defaults first, the flush then removes them


def _commands(state: DeviceState) -> str:
    """The script without comment lines."""
    return "\n".join(ln for ln in _lines(state) if not ln.lstrip().startswith("#"))


def test_pcp_trust_port_gets_no_dscp_mappings() -> None:
    text = _commands(_state(trust="pcp"))
    assert "mlnx_qos -i ens1f0np0 --trust pcp" in text
    assert "--dscp2prio" not in text


def test_port_specific_dscp_map() -> None:
    st_ = _state(trust="dscp", dscp_to_tc={"46": 5})
    assert "mlnx_qos -i ens1f0np0 --dscp2prio flush --dscp2prio set,46,5" in _lines(st_)


def test_pfc_list_has_one_bit_per_priority() -> None:
    assert "mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,1,0" in _lines(
        _state(pfc=Pfc(enabled=True, no_drop=[3, 6]))
    )
    assert "mlnx_qos -i ens1f0np0 --pfc 0,0,0,0,0,0,0,0" in _lines(_state(pfc=Pfc(enabled=False, no_drop=[])))


def test_ets_prio_tc_tsa_and_bandwidth() -> None:
    sched = {
        "0": Sched(mode="dwrr", bandwidth_percent=40),
        "3": Sched(mode="dwrr", bandwidth_percent=60),
        "6": Sched(mode="strict"),
    }
    assert (
        "mlnx_qos -i ens1f0np0 --prio_tc 0,0,0,3,0,0,6,0 "
        "--tsa ets,strict,strict,ets,strict,strict,strict,strict --tcbw 40,0,0,60,0,0,0,0"
    ) in _lines(_state(scheduling=sched))


def test_ets_unstated_priorities_go_to_lowest_stated_tc() -> None:
    sched = {"3": Sched(mode="dwrr", bandwidth_percent=100), "6": Sched(mode="strict")}
    assert any("--prio_tc 3,3,3,3,3,3,6,3 " in ln for ln in _lines(_state(scheduling=sched)))


def test_incomplete_scheduling_renders_no_ets_command() -> None:
    state = _state(scheduling={"3": Sched(mode="dwrr")})
    assert "--prio_tc" not in _commands(state)
    assert "ETS left unchanged" in render_state(state)


def test_dcqcn_and_cnp_sysfs() -> None:
    lines = _lines(_state(rdma=NicRdma(dcqcn_rp=[3], dcqcn_np=[3, 4], cnp_dscp=48, cnp_priority=6)))
    base = "/sys/class/net/ens1f0np0/ecn"
    assert f"echo 1 > {base}/roce_rp/enable/3" in lines
    assert f"echo 0 > {base}/roce_rp/enable/4" in lines
    assert f"echo 1 > {base}/roce_np/enable/4" in lines
    assert sum(1 for ln in lines if "/roce_np/enable/" in ln) == 8
    assert f"echo 48 > {base}/roce_np/cnp_dscp" in lines
    assert f"echo 6 > {base}/roce_np/cnp_802p_prio" in lines


def test_link_pause_off_only_when_on() -> None:
    lines = _lines(_state(link_pause=False))
    assert (
        "if grep -Eq '^(RX|TX):[[:space:]]+on' <<<\"$pause\"; then ethtool -A ens1f0np0 rx off tx off; fi"
        in lines
    )


def test_mtu_and_hostname_guard() -> None:
    lines = _lines(_state(mtu=9000))
    assert "ip link set dev ens1f0np0 mtu 9000" in lines
    assert "expected_host=gpu01" in lines


def test_unknown_fields_render_nothing() -> None:
    text = _commands(DeviceState(platform="connectx", interfaces={"eth0": Interface()}))
    for word in ("mlnx_qos -i", "ethtool -A", "ip link set", "cma_roce_tos -d", "echo 1 >", "expected_host"):
        assert word not in text


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_rendered_script_is_valid_bash() -> None:
    state = _state(
        trust="dscp",
        mtu=9000,
        link_pause=False,
        pfc=Pfc(enabled=True, no_drop=[3]),
        scheduling={
            "0": Sched(mode="dwrr", bandwidth_percent=50),
            "3": Sched(mode="dwrr", bandwidth_percent=50),
        },
        rdma=NicRdma(device="mlx5_0", roce_tos=104, cnp_dscp=48, cnp_priority=6, dcqcn_rp=[3], dcqcn_np=[3]),
    )
    res = subprocess.run(
        ["bash", "-n"], input=render_state(state), text=True, capture_output=True, check=False
    )
    assert res.returncode == 0, res.stderr


# ----------------------------------------------------------------------------------- read-back commands
def test_readback_commands_follow_the_desired_state() -> None:
    state = _state(rdma=NicRdma(device="mlx5_0", roce_tos=104, dcqcn_np=[3], cnp_dscp=48))
    cmds = PLAT.commands_for(state)
    assert cmds[0] == "hostname -s"
    assert "mlnx_qos -i ens1f0np0" in cmds
    assert "ip -j link show dev ens1f0np0" in cmds
    assert "ethtool -a ens1f0np0" in cmds
    assert "ls /sys/class/net/ens1f0np0/device/infiniband" in cmds
    assert "cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos" in cmds
    assert "cat /sys/class/net/ens1f0np0/ecn/roce_np/enable/7" in cmds
    assert not any("roce_rp" in c for c in cmds)  # dcqcn_rp not stated
    assert not any("cnp_802p_prio" in c for c in cmds)


def test_simulate_unknown_command_is_none() -> None:
    assert PLAT.simulate(_state(), "uname -a") is None
    assert PLAT.simulate(_state(), "mlnx_qos -i nosuch0") is None


def test_simulate_mlnx_qos_wraps_dscp_lists_like_the_tool() -> None:
    state = DeviceState(
        platform="connectx",
        dscp_to_tc={str(d): 3 for d in range(24, 34)},
        interfaces={"eth0": Interface(trust="dscp")},
    )
    out = PLAT.simulate(state, "mlnx_qos -i eth0") or ""
    assert "\tprio:3 dscp:33,32,31,30,29,28,27,26,\n\tprio:3 dscp:25,24,\n" in out


# ----------------------------------------------------------------------------------- parser behaviour
def test_unsupported_outputs_are_warnings_and_unknown() -> None:
    bundle = join_outputs(
        {
            "mlnx_qos -i eth0": "bash: mlnx_qos: command not found",
            "ethtool -a eth0": "Cannot get device pause settings: Operation not supported",
            "ip -j link show dev eth0": '[{"ifname":"eth0","mtu":4200}]',
            "cat /sys/class/net/eth0/ecn/roce_np/cnp_dscp": (
                "cat: /sys/class/net/eth0/ecn/roce_np/cnp_dscp: No such file or directory"
            ),
        }
    )
    got = PLAT.parse(bundle)
    itf = got.interfaces["eth0"]
    assert itf.mtu == 4200
    assert itf.trust is None and itf.pfc == Pfc() and itf.scheduling == {}
    assert itf.link_pause is None
    assert itf.rdma is None
    codes = [w for w in got.warnings if w.code == "UNSUPPORTED"]
    assert len(codes) == 3
    assert {w.line for w in codes} == {1, 3, 7}


def test_mlnx_qos_trust_and_ets_not_supported() -> None:
    out = (
        "DCBX mode: OS controlled\n"
        "Priority trust state is not supported on your system\n"
        "Priority trust state: none\n"
        "ETS features are not supported on your system\n"
    )
    got = PLAT.parse(join_outputs({"mlnx_qos -i eth0": out}))
    assert got.interfaces["eth0"].trust is None
    assert sum(1 for w in got.warnings if w.code == "UNSUPPORTED") >= 2


def test_partial_dcqcn_readback_stays_unknown() -> None:
    got = PLAT.parse(join_outputs({"cat /sys/class/net/eth0/ecn/roce_np/enable/3": "1"}))
    assert got.interfaces["eth0"].rdma is None
    assert any("known for priorities [3] only" in w.message for w in got.warnings)


def test_link_pause_from_ethtool_a() -> None:
    out = "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\toff\nRX negotiated:\ton\n"
    got = PLAT.parse(join_outputs({"ethtool -a eth0": out}))
    assert got.interfaces["eth0"].link_pause is True
    assert got.sources["interfaces.eth0.link_pause"].lines == [4, 5]


def test_script_crlf_and_line_numbers() -> None:
    state = _state(trust="dscp", mtu=9000, pfc=Pfc(enabled=True, no_drop=[3]))
    text = render_state(state)
    got = PLAT.parse(text.replace("\n", "\r\n"))
    assert got.semantic() == state.semantic()
    lines = text.splitlines()
    assert got.sources["interfaces.ens1f0np0.mtu"].lines == [
        lines.index("ip link set dev ens1f0np0 mtu 9000") + 1
    ]
    want = lines.index("mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,0,0") + 1
    assert got.sources["interfaces.ens1f0np0.pfc"].lines == [want]
    assert got.sources["hostname"].lines == [lines.index("expected_host=gpu01") + 1]


def test_bundle_line_numbers_point_into_outputs() -> None:
    state = _state(trust="dscp", pfc=Pfc(enabled=True, no_drop=[3]))
    bundle = join_outputs({c: PLAT.simulate(state, c) or "" for c in PLAT.commands_for(state)})
    got = PLAT.parse(bundle)
    line = got.sources["interfaces.ens1f0np0.pfc"].lines[0]
    assert bundle.splitlines()[line - 1].strip().startswith("enabled")
    start = {cmd: s for cmd, s, _ in split_outputs(bundle)}["mlnx_qos -i ens1f0np0"]
    assert line > start


def test_unknown_relevant_script_line_warns() -> None:
    got = PLAT.parse("#!/usr/bin/env bash\nmlnx_qos --pfc 0,0,0,1,0,0,0,0\ndcbtool sc eth0 pfc e:1\n")
    assert any(w.line == 2 and "without -i" in w.message for w in got.warnings)
    assert any(w.line == 3 and "unrecognised" in w.message for w in got.warnings)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01garbage",
        "#>>> mlnx_qos -i\n",
        "#>>> cat\n",
        "mlnx_qos -i eth0 --pfc '1,2",
        "#>>> ",
        "\r\r\n",
    ],
)
def test_garbage_never_raises(text: str) -> None:
    got = PLAT.parse(text)
    assert isinstance(got, DeviceState)
    assert got.platform == "connectx"


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    assert PLAT.parse("#>>> mlnx_qos -i eth0\n" + text).platform == "connectx"
    assert PLAT.parse(text).platform == "connectx"


def test_platform_registration() -> None:
    assert PLAT.kind == "nic"
    assert PLAT.extension == "sh"
    assert PLAT.simulate is not None and PLAT.readback_commands is not None


def test_unmodelled_mlnx_qos_settings_warn() -> None:
    got = PLAT.parse("mlnx_qos -i eth0 --cable_len=30\nmlnx_qos -i eth0 -r 0,0,0,10,0,0,0,0\n")
    assert [w.line for w in got.warnings if w.code == "UNMODELLED"] == [1, 2]
    out = "Priority trust state: pcp\ntc: 3 ratelimit: 10.0 Gbps, tsa: strict\n\t priority:  3\n"
    got = PLAT.parse(join_outputs({"mlnx_qos -i eth0": out}))
    assert got.interfaces["eth0"].scheduling == {"3": Sched(mode="strict")}
    assert any(w.code == "UNMODELLED" and "10.0 Gbps" in w.message for w in got.warnings)


@pytest.mark.parametrize(
    ("cmd", "out"),
    [
        ("ibdev2netdev", "mlx5_0 port 1 ==> ens1f0np0 (Up)\nmlx5_1 port 1 ==> ens1f1np1 (Down)"),
        ("rdma link show", "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0"),
        ("rdma -j link show", '[{"ifindex":0,"ifname":"mlx5_0","port":1,"netdev":"ens1f0np0"}]'),
        ("ls /sys/class/net/ens1f0np0/device/infiniband", "mlx5_0"),
    ],
)
def test_rdma_device_link_assigns_tos_to_the_port(cmd: str, out: str) -> None:
    bundle = join_outputs({cmd: out, "cma_roce_tos -d mlx5_0": "106"})
    got = PLAT.parse(bundle)
    assert got.interfaces["ens1f0np0"].rdma == NicRdma(device="mlx5_0", roce_tos=106)
    assert got.sources["interfaces.ens1f0np0.rdma.roce_tos"].lines == [len(bundle.splitlines())]


def _pod_host_scripts() -> list[str]:
    from roceconf.intent import load
    from roceconf.intent.desired import desired_states

    fab = load("inventories/pod/intent.yml")
    states = desired_states(fab)
    hosts = [n for n in sorted(states, key=natural_key) if fab.devices[n].platform == "connectx"][:3]
    return [render_state(states[n]) for n in hosts]


def test_parse_shared_equals_parse_whatever_the_memo_holds() -> None:
    """``parse_shared`` (hosts whose scripts differ only by their name share one parse) returns what
    ``parse`` returns for every script, whatever the memo holds: scripts that differ elsewhere, name the
    host outside a comment or the expected_host line, state it twice or not at all, or are bundles."""
    cx = platforms.get("connectx")
    assert cx.parse_shared is not None
    a, b, c = _pod_host_scripts()
    name_a = next(line.split("=", 1)[1] for line in a.splitlines() if line.startswith("expected_host="))
    texts = [
        a,
        b,
        c,
        a.replace(f"expected_host={name_a}", "expected_host=other"),  # the same script, another host
        a.replace(f"expected_host={name_a}", "expected_host='two words'"),
        a.replace(f"expected_host={name_a}", 'expected_host="unbalanced'),  # the parse warns about it
        a.replace(f"expected_host={name_a}", "expected_host="),  # no name
        a.replace(f"expected_host={name_a}", f"expected_host={name_a}\nexpected_host=x"),  # two
        a.replace(f"expected_host={name_a}\n", ""),  # none
        a.replace(f"expected_host={name_a}", f"  expected_host={name_a}  "),
        a.replace("\n", "\n# a comment\n", 3),  # comments: other line numbers, not the same key
        a.replace("# ", "#   ", 5),  # other comment text, same lines
        a.replace(" mtu 9000", " mtu 4200", 1),
        a.replace("\n", "\r\n"),
        join_outputs({"hostname -s": f"{name_a}\n"}),
        "expected_host=lonely\n",
    ]
    memo: dict = {}
    for round_ in range(2):  # the second round hits the memo for every script it keeps
        for text in texts:
            shared = cx.parse_shared(text, memo)
            assert shared == cx.parse(text), (round_, text[:300])
    assert memo, "scripts equal but for their host's name share a parse"
    one = cx.parse_shared(texts[3], memo)
    assert one.hostname == "other" and one.interfaces == cx.parse(a).interfaces
    assert one.sources["hostname"].text == "expected_host=other"
