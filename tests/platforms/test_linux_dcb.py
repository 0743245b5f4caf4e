"""linux-dcb host platform: script and bundle round trips, rendered commands, parser behaviour.

``host_state`` (a small host-oriented strategy) is shared with the bnxt tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf.platforms import get
from roceconf.platforms.base import join_outputs, split_outputs
from roceconf.render import render_state
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched
from tests.strategies import PRIO

NETDEVS = ("eth0", "eth1", "ens1f0np0", "ens1f1np1", "enp37s0f0np0", "gpu0_eth", "gpu1_eth")


@st.composite
def bandwidth_split(draw, k: int) -> list[int]:
    """k positive percentages summing to 100."""
    if k == 0:
        return []
    cuts = sorted(draw(st.lists(st.integers(1, 99), min_size=k - 1, max_size=k - 1, unique=True)))
    edges = [0, *cuts, 100]
    return [b - a for a, b in zip(edges, edges[1:], strict=False)]


@st.composite
def host_scheduling(draw, tcs: list[int]) -> dict[str, Sched]:
    modes = {tc: draw(st.sampled_from(["strict", "dwrr"])) for tc in tcs}
    ets = [tc for tc in tcs if modes[tc] == "dwrr"]
    bws = dict(zip(ets, draw(bandwidth_split(len(ets))), strict=True))
    return {
        str(tc): Sched(mode="dwrr", bandwidth_percent=bws[tc]) if tc in bws else Sched(mode="strict")
        for tc in tcs
    }


@st.composite
def dscp_map(draw, tcs: list[int], must: dict[int, int] | None = None) -> dict[str, int]:
    dscps = draw(st.lists(st.integers(0, 63), min_size=2, max_size=6, unique=True))
    out = {str(d): draw(st.sampled_from(tcs)) for d in dscps}
    for d, p in (must or {}).items():
        out[str(d)] = p
    return out


@st.composite
def host_state(draw, platform: str) -> DeviceState:
    """A host state the platform can express (see the module docstrings for the mapping rules)."""
    bnxt = platform == "bnxt"
    cap = get(platform).capabilities
    if bnxt:
        roce = draw(st.integers(1, 7))
        cnp = draw(st.integers(1, 7).filter(lambda p: p != roce))
        lossless = [roce]
    else:
        n = draw(st.integers(1, 2))
        lossless = sorted(draw(st.lists(PRIO, min_size=n, max_size=n, unique=True)))
        cnp = draw(PRIO.filter(lambda p: p not in lossless))
        roce = lossless[0]
    tcs = sorted({0, cnp, *lossless})
    roce_dscp = draw(st.integers(0, 63))
    cnp_dscp = draw(st.integers(0, 63).filter(lambda d: d != roce_dscp))
    must = {roce_dscp: roce, cnp_dscp: cnp} if bnxt else {}
    host_map = draw(dscp_map(tcs, must))
    names = draw(st.lists(st.sampled_from(NETDEVS), min_size=1, max_size=3, unique=True))
    roles = ["host"] + [draw(st.sampled_from(["host", "override", "pcp", "unknown"])) for _ in names[1:]]
    while roles.count("override") >= roles.count("host"):
        roles[roles.index("override")] = "host"
    itfs: dict[str, Interface] = {}
    for i, (name, role) in enumerate(zip(names, roles, strict=True)):
        itf = Interface(
            mtu=draw(st.integers(cap.min_mtu.value, cap.max_mtu.value)),
            link_pause=draw(st.sampled_from([False, True, None])),
            pfc=draw(
                st.sampled_from([Pfc(enabled=True, no_drop=lossless), Pfc(enabled=False, no_drop=[]), Pfc()])
            ),
            scheduling=draw(host_scheduling(tcs)) if draw(st.booleans()) else {},
        )
        if role in ("host", "override"):
            itf.trust = "dscp"
        elif role == "pcp":
            itf.trust = "pcp"
        if role == "override":
            itf.dscp_to_tc = draw(dscp_map(tcs, must).filter(lambda m: m != host_map))
        if draw(st.integers(0, 3)):
            rd = NicRdma(device=f"{'bnxt_re' if bnxt else 'mlx5_'}{i}")
            if draw(st.booleans()):
                rd.roce_tos = (roce_dscp << 2) | draw(st.integers(0, 3))
            if bnxt:
                rd.cnp_priority = draw(st.sampled_from([cnp, None]))
                rd.cnp_dscp = draw(st.sampled_from([cnp_dscp, None]))
                on = draw(st.sampled_from([[roce], [], None]))
                rd.dcqcn_rp, rd.dcqcn_np = on, (list(on) if on is not None else None)
            itf.rdma = rd
        itfs[name] = itf
    return DeviceState(
        platform=platform,
        hostname=draw(st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True)),
        dscp_to_tc=host_map,
        interfaces=itfs,
    )


def bundle_of(state: DeviceState) -> str:
    plat = get(state.platform)
    assert plat.simulate is not None
    return join_outputs({c: plat.simulate(state, c) or "" for c in plat.commands_for(state)})


def _diff(a: DeviceState, b: DeviceState) -> str:
    return json.dumps(
        {"want": a.semantic(), "got": b.semantic(), "warnings": [w.message for w in b.warnings]}, indent=1
    )


PLAT = get("linux-dcb")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("linux-dcb"))
def test_script_round_trip(state: DeviceState) -> None:
    got = PLAT.parse(render_state(state))
    assert got.same_as(state), _diff(state, got)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("linux-dcb"))
def test_bundle_round_trip(state: DeviceState) -> None:
    got = PLAT.parse(bundle_of(state))
    assert got.same_as(state), _diff(state, got)


# --------------------------------------------------------------------------- rendered commands
def example() -> DeviceState:
    return DeviceState(
        platform="linux-dcb",
        hostname="gpu01",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={
            "ens1f0np0": Interface(
                mtu=9000,
                trust="dscp",
                pfc=Pfc(enabled=True, no_drop=[3, 4]),
                link_pause=False,
                scheduling={
                    "0": Sched(mode="dwrr", bandwidth_percent=40),
                    "3": Sched(mode="dwrr", bandwidth_percent=60),
                    "6": Sched(mode="strict"),
                },
                rdma=NicRdma(device="mlx5_0", roce_tos=106),
            ),
            "ens1f1np1": Interface(mtu=4200, trust="dscp", dscp_to_tc={"24": 3}, link_pause=True),
            "eth9": Interface(trust="pcp"),
        },
    )


def lines_of(text: str) -> list[str]:
    return [ln.split("  #")[0].rstrip() for ln in text.splitlines()]


def test_script_header_and_tool_checks() -> None:
    text = render_state(example())
    assert text.startswith("#!/usr/bin/env bash\n")
    ls = lines_of(text)
    assert "set -euo pipefail" in ls
    assert "EXPECTED_HOST=gpu01" in ls
    assert {"need ip", "need ethtool", "need dcb"} <= set(ls)
    # tools are checked before the first configuration command
    assert ls.index("need dcb") < ls.index("ip link set dev ens1f0np0 mtu 9000")


def test_per_knob_commands() -> None:
    ls = lines_of(render_state(example()))
    assert "ip link set dev ens1f0np0 mtu 9000" in ls
    assert "ip link set dev ens1f1np1 mtu 4200" in ls
    assert "ethtool -A ens1f0np0 rx off tx off || pause_is ens1f0np0 off" in ls
    assert "ethtool -A ens1f1np1 rx on tx on || pause_is ens1f1np1 on" in ls
    assert "dcb pfc set dev ens1f0np0 prio-pfc all:off 3:on 4:on" in ls
    # contiguous TCs (Intel ice_dcb_tc_contig): priorities 0, 3, 6 on TC 0, 1, 2 (was 'prio-tc all:0 3:3 6:6')
    assert (
        "dcb ets set dev ens1f0np0 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:40 1:60 "
        "prio-tc all:0 3:1 6:2"
    ) in ls
    assert not any("3:3 6:6" in ln for ln in ls)
    # the map is replaced, never flushed first (a flush followed by a failing add leaves no map); this
    # state names only some DSCPs (no default class), so the others are pruned afterwards
    i = ls.index("dcb app replace dev ens1f0np0 dscp-prio 26:3 48:6")
    assert ls[i + 1] == "dscp_prune ens1f0np0 26 48"
    assert "dcb app replace dev ens1f1np1 dscp-prio 24:3" in ls  # the port's own map
    assert "dcb app flush dev eth9 dscp-prio" in ls  # trust pcp = no DSCP entries
    assert not any(ln.startswith("dcb app flush dev ens1f0np0") for ln in ls)
    assert not any(ln.startswith(("dcb app add dev eth9", "dcb app replace dev eth9")) for ln in ls)
    assert "check_rdma_dev ens1f0np0 mlx5_0" in ls
    assert "set_roce_tos mlx5_0 106" in ls


def test_roce_tos_is_dscp_shifted() -> None:
    st_ = DeviceState(
        platform="linux-dcb", interfaces={"eth0": Interface(rdma=NicRdma(device="mlx5_0", roce_tos=26 << 2))}
    )
    text = render_state(st_)
    assert "set_roce_tos mlx5_0 104  # DSCP 26 << 2" in text
    assert 'echo "$2" > "/sys/kernel/config/rdma_cm/$1/ports/1/default_roce_tos"' in text
    assert 'mkdir "/sys/kernel/config/rdma_cm/$1"' in text


def test_none_renders_nothing() -> None:
    st_ = DeviceState(platform="linux-dcb", interfaces={"eth0": Interface(mtu=9000)})
    ls = lines_of(render_state(st_))
    assert "ip link set dev eth0 mtu 9000" in ls
    assert not any(
        ln.startswith(("dcb ", "ethtool ", "set_roce_tos ", "need dcb", "EXPECTED_HOST")) for ln in ls
    )


def test_rendered_script_is_valid_bash() -> None:
    bash = shutil.which("bash")
    assert bash is not None
    res = subprocess.run(
        [bash, "-n"], input=render_state(example()), text=True, capture_output=True, check=False
    )
    assert res.returncode == 0, res.stderr


def test_rendering_is_deterministic_and_parses_back() -> None:
    a, b = render_state(example()), render_state(example())
    assert a == b
    assert PLAT.parse(a).same_as(example())


# --------------------------------------------------------------------------- read-back
def test_readback_commands_follow_the_desired_state() -> None:
    cmds = PLAT.commands_for(example())
    assert cmds[0] == "hostname"
    for c in (
        "ip -j link show dev ens1f0np0",
        "ethtool -a ens1f0np0",
        "dcb -j pfc show dev ens1f0np0",
        "dcb -j ets show dev ens1f0np0",
        "dcb -j app show dev ens1f0np0",
        "rdma -j link show",
        "cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos",
        "dcb -j app show dev eth9",
    ):
        assert c in cmds
    # nothing is read for what the desired state leaves unknown
    assert "dcb -j pfc show dev eth9" not in cmds
    assert "ethtool -a eth9" not in cmds


def test_simulate_formats_like_the_tools() -> None:
    s = example()
    assert json.loads(PLAT.simulate(s, "dcb -j pfc show dev ens1f0np0"))["prio_pfc"] == [
        False,
        False,
        False,
        True,
        True,
        False,
        False,
        False,
    ]
    ets = json.loads(PLAT.simulate(s, "dcb -j ets show dev ens1f0np0"))
    assert ets["prio_tc"] == [0, 0, 0, 1, 0, 0, 2, 0]
    assert ets["tc_tsa"][1] == "ets" and ets["tc_bw"][1] == 60 and ets["tc_tsa"][2] == "strict"
    assert json.loads(PLAT.simulate(s, "dcb -j app show dev ens1f0np0")) == {
        "dscp_prio": [[26, 3, " "], [48, 6, " "]]
    }
    assert "RX:\t\toff" in PLAT.simulate(s, "ethtool -a ens1f0np0")
    assert PLAT.simulate(s, "cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos") == "106"
    assert PLAT.simulate(s, "mlnx_qos -i ens1f0np0") is None
    assert "does not exist" in PLAT.simulate(s, "ip -j link show dev nope0")


# --------------------------------------------------------------------------- parser behaviour
VETH = join_outputs(
    {
        "hostname": "lab-host",
        "ip -j link show dev veth0": '[{"ifindex":5,"ifname":"veth0","mtu":9000,"operstate":"UP"}]',
        "ethtool -a veth0": "Pause parameters for veth0:\nCannot get device pause settings: Operation not supported",
        "dcb -j pfc show dev veth0": "Attribute read: Operation not supported",
        "dcb -j ets show dev veth0": "Attribute read: Operation not supported",
        "dcb -j app show dev veth0": "Attribute read: Operation not supported",
        "rdma -j link show": "bash: line 1: rdma: command not found",
    }
)


def test_unsupported_outputs_are_warnings_and_unknown() -> None:
    st_ = PLAT.parse(VETH)
    itf = st_.interfaces["veth0"]
    assert itf.mtu == 9000
    assert itf.link_pause is None and itf.trust is None
    assert itf.pfc.enabled is None and itf.pfc.no_drop is None and itf.scheduling == {}
    assert itf.rdma is None
    unsupported = [w for w in st_.warnings if w.code == "UNSUPPORTED"]
    assert len(unsupported) == 5
    # warnings point at the output line of the failing command
    starts = {cmd: start for cmd, start, _ in split_outputs(VETH)}
    assert {w.line for w in unsupported} == {
        starts[c] for c in starts if c not in ("hostname", "ip -j link show dev veth0")
    }
    # an unreadable device never matches a desired "PFC on" state by accident
    want = DeviceState(
        platform="linux-dcb", interfaces={"veth0": Interface(mtu=9000, pfc=Pfc(enabled=True, no_drop=[3]))}
    )
    assert not st_.same_as(want)


def test_crlf_and_garbage() -> None:
    text = render_state(example())
    assert PLAT.parse(text.replace("\n", "\r\n")).same_as(example())
    for junk in (
        "",
        "\x00\xff",
        "#>>> \n",
        "#>>> dcb -j pfc show dev\n{",
        "dcb ets set dev",
        "{" * 5000,
        '#>>> dcb -j app show dev eth0\n{"dscp_prio": [["x", 99], 5, null]}',
    ):
        st_ = PLAT.parse(junk)
        assert isinstance(st_, DeviceState) and st_.platform == "linux-dcb"


def test_line_numbers_recorded() -> None:
    text = render_state(example())
    st_ = PLAT.parse(text)
    ls = text.splitlines()

    def line(prefix: str) -> int:
        return next(i for i, ln in enumerate(ls, start=1) if ln.startswith(prefix))

    assert st_.sources["interfaces.ens1f0np0.mtu"].lines == [line("ip link set dev ens1f0np0 mtu")]
    assert line("dcb pfc set dev ens1f0np0") in st_.sources["interfaces.ens1f0np0.pfc"].lines
    assert line("dcb ets set dev ens1f0np0") in st_.sources["interfaces.ens1f0np0.scheduling"].lines
    assert line("dcb app replace dev ens1f0np0") in st_.sources["dscp_to_tc.26"].lines
    assert line("dcb app replace dev ens1f1np1") in st_.sources["interfaces.ens1f1np1.dscp_to_tc"].lines
    assert st_.sources["hostname"].lines == [line("EXPECTED_HOST=")]
    assert st_.line_of("interfaces.ens1f0np0.pfc.no_drop") == line("dcb pfc set dev ens1f0np0")


def test_bundle_line_numbers() -> None:
    text = bundle_of(example())
    st_ = PLAT.parse(text)
    ls = text.splitlines()
    n = ls.index("#>>> dcb -j pfc show dev ens1f0np0") + 2
    assert st_.sources["interfaces.ens1f0np0.pfc"].lines == [n]


def test_ambiguous_dscp_entries_warn() -> None:
    text = join_outputs({"dcb -j app show dev eth0": '{"dscp_prio":[[24,2],[24,3],[48,6]]}'})
    st_ = PLAT.parse(text)
    assert st_.interfaces["eth0"].trust == "dscp"
    assert st_.dscp_to_tc == {"48": 6}  # DSCP 24 is ambiguous: unknown
    assert any(w.code == "AMBIGUOUS" and "24" in w.message and w.line == 2 for w in st_.warnings)


def test_plain_text_outputs_with_dscp_names() -> None:
    text = join_outputs(
        {
            "dcb app show dev eth0": "dscp-prio AF31:3 CS6:6",
            "dcb pfc show dev eth0": "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off "
            "5:off 6:off 7:off",
            "dcb ets show dev eth0": "willing off ets-cap 8 cbs off\ntc-bw 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0\n"
            "tc-tsa 0:strict 1:strict 2:strict 3:strict 4:strict 5:strict 6:strict 7:strict\n"
            "prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0\nreco-prio-tc 0:7 1:7 2:7 3:7 4:7 5:7 6:7 7:7",
            "ip link show dev eth0": "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4200 qdisc mq state UP mode DEFAULT",
        }
    )
    st_ = PLAT.parse(text)
    itf = st_.interfaces["eth0"]
    assert st_.dscp_to_tc == {"26": 3, "48": 6}
    assert itf.pfc == Pfc(enabled=True, no_drop=[3])
    assert set(itf.scheduling) == {"0", "3", "6"}
    assert itf.mtu == 4200
    assert not st_.warnings


def test_contiguous_prio_tc_reads_back_without_warning() -> None:
    text = join_outputs(
        {
            "dcb -j ets show dev eth0": json.dumps(
                {
                    "tc_tsa": ["ets", "strict"] + ["strict"] * 6,
                    "tc_bw": [100] + [0] * 7,
                    "prio_tc": [0, 0, 0, 1, 0, 0, 0, 0],
                }
            )
        }
    )
    st_ = PLAT.parse(text)
    assert st_.interfaces["eth0"].scheduling == {
        "0": Sched(mode="dwrr", bandwidth_percent=100),
        "3": Sched(mode="strict"),
    }
    # TC 1 carrying priority 3 is what roceconf renders itself (contiguous TCs): no warning
    assert not any(w.code == "PRIO_TC" for w in st_.warnings)


def test_script_from_elsewhere() -> None:
    text = "\n".join(
        [
            "#!/bin/sh",
            "dcb pfc set dev eth0 prio-pfc 3:on",
            "dcb app replace dev eth0 dscp-prio 26:3 48:6",
            "mlnx_qos -i eth0 --trust dscp",
            "cma_roce_tos -d mlx5_0 -t 106",
            "echo hello",
        ]
    )
    st_ = PLAT.parse(text)
    itf = st_.interfaces["eth0"]
    assert itf.pfc.enabled is True and itf.pfc.no_drop is None  # other priorities not stated
    assert any(w.code == "PARTIAL" and w.line == 2 for w in st_.warnings)
    assert any(w.code == "UNRECOGNISED" and w.line == 4 for w in st_.warnings)
    assert any(w.code == "UNDEFINED" and w.line == 5 for w in st_.warnings)  # no netdev for mlx5_0
    assert st_.dscp_to_tc == {"26": 3, "48": 6} and itf.trust == "dscp"
    assert not any(w.line == 6 for w in st_.warnings)


@pytest.mark.parametrize("old_style", [True, False])
def test_app_entry_forms(old_style: bool) -> None:
    entries = "[[26,3],[48,6]]" if old_style else '[[26,3," "],[48,6," "]]'
    text = join_outputs({"dcb -j app show dev eth0": '{"dscp_prio":' + entries + ',"default_prio":[0]}'})
    assert PLAT.parse(text).dscp_to_tc == {"26": 3, "48": 6}


def test_empty_answers_are_not_in_sync() -> None:
    text = join_outputs(
        {
            "ip -j link show dev eth0": "",
            "dcb -j pfc show dev eth0": "",
            "ethtool -a eth0": "",
            "dcb app show dev eth0": "",  # plain text: an empty APP table prints nothing (dcb-app(8))
        }
    )
    st_ = PLAT.parse(text)
    itf = st_.interfaces["eth0"]
    assert itf.mtu is None and itf.pfc.enabled is None and itf.link_pause is None
    assert itf.trust == "pcp"
    assert sorted(w.line for w in st_.warnings if w.code == "UNSUPPORTED") == [2, 4, 6]


def _stub_tools(tmp_path, tools: list[str]) -> tuple[str, str]:
    """A PATH of stub executables that log their argv; returns (PATH, log file)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "calls.log"
    for tool in tools:
        f = bindir / tool
        body = "echo gpu01" if tool == "hostname" else f'echo "{tool} $*" >> "{log}"'
        f.write_text(f"#!/bin/sh\n{body}\n")
        f.chmod(0o755)
    return str(bindir), str(log)


def _run_script(text: str, path: str, tmp_path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "host.sh"
    script.write_text(text)
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, str(script)], env={"PATH": path}, text=True, capture_output=True, check=False
    )


def test_script_stops_before_acting_when_a_tool_is_missing(tmp_path) -> None:
    state = example()
    for itf in state.interfaces.values():
        itf.rdma = None
    path, log = _stub_tools(tmp_path, ["ip", "ethtool", "hostname"])  # no dcb
    res = _run_script(render_state(state), path, tmp_path)
    assert res.returncode == 1
    assert "required tool 'dcb' is missing" in res.stderr
    assert not (tmp_path / "calls.log").exists()  # nothing was configured


def test_script_runs_the_rendered_commands_and_is_repeatable(tmp_path) -> None:
    state = example()
    for itf in state.interfaces.values():
        itf.rdma = None
    path, log = _stub_tools(tmp_path, ["ip", "ethtool", "dcb", "hostname"])
    text = render_state(state)
    first = _run_script(text, path, tmp_path)
    assert first.returncode == 0, first.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    # the firmware LLDP check of every port comes first (the stand-in ethtool prints no private flags)
    assert calls[:3] == [f"ethtool --show-priv-flags {p}" for p in ("ens1f0np0", "ens1f1np1", "eth9")]
    calls_after = calls[3:]
    assert calls_after[:6] == [
        "ip link set dev ens1f0np0 mtu 9000",
        "ethtool -A ens1f0np0 rx off tx off",
        "dcb pfc set dev ens1f0np0 prio-pfc all:off 3:on 4:on",
        "dcb ets set dev ens1f0np0 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:40 1:60 "
        "prio-tc all:0 3:1 6:2",
        "dcb app replace dev ens1f0np0 dscp-prio 26:3 48:6",
        "dcb -N app show dev ens1f0np0 dscp-prio",  # dscp_prune reads the table back
    ]
    assert calls[-1] == "dcb app flush dev eth9 dscp-prio"
    second = _run_script(text, path, tmp_path)
    assert second.returncode == 0
    assert (tmp_path / "calls.log").read_text().splitlines() == calls + calls


def test_lab_dcb_answers_match_the_real_tool() -> None:
    """The lab's simulated `dcb -j` answers are what iproute2's dcb prints for the same DCB state.

    The fixture holds real iproute2 6.1.0 output (tests/fixtures/linux-dcb/README.md); the lab answers
    the same commands from the state parsed out of it.
    """
    from pathlib import Path

    from roceconf.platforms import linux_dcb

    path = Path(__file__).parents[1] / "fixtures" / "linux-dcb" / "iproute2-61-roce-host.txt"
    text = path.read_text()
    recorded = {cmd: out.strip() for cmd, _, out in split_outputs(text)}
    state = linux_dcb.parse(text)
    for obj in ("pfc", "ets"):
        cmd = f"dcb -j {obj} show dev ens1f0np0"
        assert linux_dcb.simulate(state, cmd) == recorded[cmd]
    cmd = "dcb -j app show dev ens1f0np0"
    lab = json.loads(linux_dcb.simulate(state, cmd) or "{}")
    real = json.loads(recorded[cmd])
    # newer iproute2 adds a " " third element to each APP entry (see mlxsw-swp1-app-json); 6.1.0 does not
    assert [e[:2] for e in lab["dscp_prio"]] == [e[:2] for e in real["dscp_prio"]]


# ------------------------------------------------------------------------- Intel ice: firmware LLDP agent
def _fw_lldp_off(tmp_path, flags: str | None, set_ok: bool = True) -> tuple[int, str, list[str]]:
    """Run the rendered script's fw_lldp_off in bash against a stand-in ``ethtool`` on PATH (the only
    program it calls). ``flags``: what ``ethtool --show-priv-flags`` prints (None: the NIC has no private
    flags, ethtool fails). Returns (exit status, stderr, the ethtool calls)."""
    text = render_state(example())
    start = text.index("fw_lldp_off() {")
    func = text[start : text.index("\n}\n", start) + 3]
    log = tmp_path / "calls"
    out = tmp_path / "flags"
    if flags is not None:
        out.write_text(flags)
    stub = tmp_path / "bin" / "ethtool"
    stub.parent.mkdir()
    stub.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        f'if [ "$1" = --show-priv-flags ]; then [ -f {out} ] || exit 1; cat {out}; exit 0; fi\n'
        f"exit {0 if set_ok else 1}\n"
    )
    stub.chmod(0o755)
    res = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{func}\nfw_lldp_off eth0\necho reached"],
        env={"PATH": f"{stub.parent}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return res.returncode, res.stderr + res.stdout, calls


#: ``ethtool --show-priv-flags`` as ethtool prints it (ethtool.c do_gprivflags: "Private flags for %s:" then
#: "%-*s: %s" per flag) with flag names of the ice driver (kernel ice.rst: fw-lldp-agent).
ICE_FLAGS = "Private flags for eth0:\nlink-down-on-close     : off\nfw-lldp-agent          : {}\n"


def test_ice_firmware_lldp_agent_is_turned_off_before_any_dcb_write(tmp_path) -> None:
    ls = lines_of(render_state(example()))
    first_write = min(i for i, ln in enumerate(ls) if ln.startswith(("dcb ", "ip link set", "ethtool -A")))
    checks = [i for i, ln in enumerate(ls) if ln.startswith("fw_lldp_off ")]
    assert [ls[i] for i in checks] == ["fw_lldp_off ens1f0np0", "fw_lldp_off ens1f1np1", "fw_lldp_off eth9"]
    assert max(checks) < first_write
    rc, err, calls = _fw_lldp_off(tmp_path, ICE_FLAGS.format("on"))
    assert rc == 0 and "reached" in err
    assert calls == ["--show-priv-flags eth0", "--set-priv-flags eth0 fw-lldp-agent off"]


def test_ice_agent_already_off_or_no_private_flags_changes_nothing(tmp_path) -> None:
    rc, err, calls = _fw_lldp_off(tmp_path, ICE_FLAGS.format("off"))
    assert (rc, calls) == (0, ["--show-priv-flags eth0"]) and "reached" in err


def test_nic_without_private_flags_is_left_alone(tmp_path) -> None:
    rc, err, calls = _fw_lldp_off(tmp_path, None)
    assert (rc, calls) == (0, ["--show-priv-flags eth0"]) and "reached" in err


def test_ice_agent_that_cannot_be_turned_off_stops_the_script_with_a_reason(tmp_path) -> None:
    rc, err, _calls = _fw_lldp_off(tmp_path, ICE_FLAGS.format("on"), set_ok=False)
    assert rc == 1 and "reached" not in err
    assert "eth0: the firmware LLDP agent is on and could not be turned off" in err
    assert "nothing was written" in err


def test_no_dcb_write_no_lldp_check() -> None:
    ls = lines_of(render_state(DeviceState(platform="linux-dcb", interfaces={"eth0": Interface(mtu=9000)})))
    assert not any(ln.startswith(("fw_lldp_off", "need ethtool")) for ln in ls)
