"""bnxt (Broadcom Thor/Thor2) host platform: round trips, bnxt_re TC layout, configfs congestion control."""

from __future__ import annotations

import json
import shutil
import subprocess

from hypothesis import HealthCheck, given, settings

from roceconf.platforms import get
from roceconf.platforms.base import join_outputs
from roceconf.render import render_state
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched
from tests.platforms.test_linux_dcb import _diff, bundle_of, host_state, lines_of

PLAT = get("bnxt")
CC = "/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("bnxt"))
def test_script_round_trip(state: DeviceState) -> None:
    got = PLAT.parse(render_state(state))
    assert got.same_as(state), _diff(state, got)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("bnxt"))
def test_bundle_round_trip(state: DeviceState) -> None:
    got = PLAT.parse(bundle_of(state))
    assert got.same_as(state), _diff(state, got)


def thor2() -> DeviceState:
    """The Thor2 defaults the Juniper AMD JVD documents: RoCE DSCP 26 / prio 3, CNP DSCP 48 / prio 7."""
    return DeviceState(
        platform="bnxt",
        hostname="mi300x-01",
        dscp_to_tc={"0": 0, "26": 3, "48": 7},
        interfaces={
            "gpu0_eth": Interface(
                mtu=9000,
                trust="dscp",
                link_pause=False,
                pfc=Pfc(enabled=True, no_drop=[3]),
                scheduling={
                    "0": Sched(mode="dwrr", bandwidth_percent=50),
                    "3": Sched(mode="dwrr", bandwidth_percent=50),
                    "7": Sched(mode="strict"),
                },
                rdma=NicRdma(
                    device="bnxt_re0", roce_tos=104, cnp_dscp=48, cnp_priority=7, dcqcn_rp=[3], dcqcn_np=[3]
                ),
            )
        },
    )


def test_ets_puts_roce_on_tc1_and_cnp_on_tc2() -> None:
    ls = lines_of(render_state(thor2()))
    # all 8 TCs are stated, as linux-dcb does: an unnamed TC defaults to ETS 0 %, which bnxt_ets_validate
    # before upstream b74c2a2e rejects ("starving a TC"); strict + 0 % passes it and the TC-count check
    assert (
        "dcb ets set dev gpu0_eth tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:50 1:50 prio-tc all:0 3:1 7:2"
        in ls
    )
    ets = json.loads(PLAT.simulate(thor2(), "dcb -j ets show dev gpu0_eth"))
    assert ets["prio_tc"] == [0, 0, 0, 1, 0, 0, 0, 2]
    assert ets["tc_tsa"][:3] == ["ets", "ets", "strict"]
    # ... and the parser maps TC1 back to priority 3, TC2 to priority 7
    assert (
        PLAT.parse(render_state(thor2())).interfaces["gpu0_eth"].scheduling
        == thor2().interfaces["gpu0_eth"].scheduling
    )


def test_app_entries_roce_v2_first_cnp_last() -> None:
    ls = lines_of(render_state(thor2()))
    i = ls.index("dcb app replace dev gpu0_eth dgram-port-prio 4791:3")
    assert ls[i + 1 : i + 4] == [
        "dcb app replace dev gpu0_eth dscp-prio 0:0 26:3",
        "dcb app replace dev gpu0_eth dscp-prio 48:7",
        "dscp_prune gpu0_eth 0 26 48",  # this state names 3 DSCPs only: the rest are deleted afterwards
    ]
    # iproute2's 'dcb app flush' knows no dgram-port-prio (dcb_app.c dcb_cmd_app_flush)
    assert not any("flush" in ln and "dgram-port-prio" in ln for ln in ls)
    assert "dcb pfc set dev gpu0_eth prio-pfc all:off 3:on" in ls
    assert "ethtool -A gpu0_eth rx off tx off || pause_is gpu0_eth off" in ls
    assert "ip link set dev gpu0_eth mtu 9000" in ls


def test_congestion_control_configfs_in_hex_then_apply() -> None:
    ls = lines_of(render_state(thor2()))
    # the cc writes run only where Broadcom's out-of-tree bnxt_re has its configfs; otherwise the script
    # goes on (DCB is already applied) and exits 3 at the end naming the device (cc_summary)
    assert any(ln.strip() == 'mkdir -p "/sys/kernel/config/bnxt_re/$1"' for ln in ls)
    i = ls.index("if bnxt_cc_ready bnxt_re0; then")
    assert ls[i + 1] == f"CC={CC}"
    assert ls[ls.index('echo -n 0x1 > "$CC/apply"', i) + 1] == "fi"
    assert [ln for ln in ls if ln and not ln.startswith("#")][-1] == "cc_summary"
    assert "command -v niccli >/dev/null" in " ".join(ls)
    want = [
        "printf '0x%x' 1 > \"$CC/ecn_enable\"",
        "printf '0x%x' 1 > \"$CC/ecn_marking\"",
        "printf '0x%x' 1 > \"$CC/cc_mode\"",
        "printf '0x%x' 3 > \"$CC/roce_prio\"",
        "printf '0x%x' 1 > \"$CC/disable_prio_vlan_tx\"",
    ]
    for w in want:
        assert w in ls, w
    # roce_dscp / cnp_dscp may be refused in firmware service-profile mode (bnxt_re cnp_dscp_store
    # returns -EINVAL): the write warns instead of stopping the script under set -e
    for attr, v in (("roce_dscp", 26), ("cnp_dscp", 48)):
        w = f"printf '0x%x' {v} > \"$CC/{attr}\" || echo"
        assert any(ln.startswith(w) and "rejected" in ln for ln in ls), attr
        want.append(next(ln for ln in ls if ln.startswith(w)))
    assert any(ln.startswith("printf '0x%x' 7 > \"$CC/cnp_prio\"") for ln in ls)
    apply = ls.index('echo -n 0x1 > "$CC/apply"')
    assert all(ls.index(w) < apply for w in want)
    assert "set_roce_tos bnxt_re0 104" in ls  # TOS = DSCP 26 << 2


def test_rendered_script_is_valid_bash_and_printf_writes_hex() -> None:
    bash = shutil.which("bash")
    assert bash is not None
    res = subprocess.run(
        [bash, "-n"], input=render_state(thor2()), text=True, capture_output=True, check=False
    )
    assert res.returncode == 0, res.stderr
    out = subprocess.run([bash, "-c", "printf '0x%x' 26"], text=True, capture_output=True, check=True).stdout
    assert out == "0x1a"


def test_simulated_configfs_reads_like_percent_hash_x() -> None:
    s = thor2()
    assert PLAT.simulate(s, f"cat {CC}/roce_dscp") == "0x1a"
    assert PLAT.simulate(s, f"cat {CC}/cnp_dscp") == "0x30"
    s.interfaces["gpu0_eth"].rdma.dcqcn_rp = []
    s.interfaces["gpu0_eth"].rdma.dcqcn_np = []
    assert PLAT.simulate(s, f"cat {CC}/ecn_enable") == "0"  # C '%#x' prints zero without 0x
    assert PLAT.parse(bundle_of(s)).interfaces["gpu0_eth"].rdma.dcqcn_rp == []


def test_readback_reads_configfs() -> None:
    cmds = PLAT.commands_for(thor2())
    for attr in ("ecn_enable", "roce_prio", "cnp_prio", "roce_dscp", "cnp_dscp"):
        assert f"cat {CC}/{attr}" in cmds
    assert "dcb -j ets show dev gpu0_eth" in cmds and "rdma -j link show" in cmds


def _bundle(extra: dict[str, str]) -> str:
    return join_outputs(
        {
            "rdma -j link show": '[{"ifname":"bnxt_re0","port":1,"netdev":"gpu0_eth"}]',
            "ip -j link show dev gpu0_eth": '[{"ifname":"gpu0_eth","mtu":9000}]',
            **extra,
        }
    )


def test_apply_dump_is_parsed() -> None:
    dump = (
        "ecn status (ecn_enable)\t\t\t\t\t: Enabled\n"
        "ecn marking (ecn_marking)\t\t\t\t: ECT(1)\n"
        "congestion control mode (cc_mode)\t\t\t: DCQCN-P\n"
        "send priority vlan (VLAN 0)\t\t\t\t: Disabled\n"
        "running avg. weight(g)\t\t\t\t\t: 8\n"
        "roce prio (roce_prio)\t\t\t\t\t: 3\n"
        "roce dscp (roce_dscp)\t\t\t\t\t: 26\n"
        "cnp prio (cnp_prio)\t\t\t\t\t: 7\n"
        "cnp dscp (cnp_dscp)\t\t\t\t\t: 48\n"
    )
    st_ = PLAT.parse(_bundle({f"cat {CC}/apply": dump}))
    rd = st_.interfaces["gpu0_eth"].rdma
    assert rd == NicRdma(device="bnxt_re0", cnp_dscp=48, cnp_priority=7, dcqcn_rp=[3], dcqcn_np=[3])
    assert 13 in st_.sources["interfaces.gpu0_eth.rdma"].lines  # the 'cnp prio' line of the dump


def test_configfs_unsupported_stays_unknown() -> None:
    st_ = PLAT.parse(
        _bundle(
            {
                f"cat {CC}/ecn_enable": f"cat: {CC}/ecn_enable: No such file or directory",
                f"cat {CC}/cnp_dscp": "0x30",
            }
        )
    )
    rd = st_.interfaces["gpu0_eth"].rdma
    assert rd.dcqcn_rp is None and rd.cnp_dscp == 48
    assert any(w.code == "UNSUPPORTED" and w.line == 6 for w in st_.warnings)


def test_script_writes_without_0x_are_hex_and_need_apply() -> None:
    text = "\n".join(
        [
            "cd /sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/",
            "echo -n 0x1 > ecn_enable",
            "echo -n 0x3 > roce_prio",
            "echo 30 > cnp_dscp",  # no 0x: the driver reads 0x30 = 48
            "echo -n 0x01 > apply",
            "echo -n 0x7 > cnp_prio",  # after the last apply: not in effect
        ]
    )
    st_ = PLAT.parse(text)
    assert not st_.interfaces  # no netdev named: the values belong to no port
    assert any(w.code == "HEX" and w.line == 4 for w in st_.warnings)
    assert any(w.code == "UNDEFINED" for w in st_.warnings)
    # tie the device to a port and check the values
    st2 = PLAT.parse("check_rdma_dev gpu0_eth bnxt_re0\n" + text)
    rd = st2.interfaces["gpu0_eth"].rdma
    assert rd.cnp_dscp == 48 and rd.dcqcn_rp == [3] and rd.cnp_priority is None
    assert any(w.code == "NOT_APPLIED" and w.line == 7 for w in st2.warnings)


def test_tc_layout_violations_warn() -> None:
    text = _bundle(
        {
            "dcb -j ets show dev gpu0_eth": json.dumps(
                {
                    "tc_tsa": ["ets", "ets", "strict"] + ["strict"] * 5,
                    "tc_bw": [50, 50] + [0] * 6,
                    "prio_tc": [0, 0, 0, 3, 0, 0, 0, 1],
                }
            ),
            "dcb -j app show dev gpu0_eth": '{"dscp_prio":[[26,3," "]],"dgram_port_prio":[[4791,3," "]]}',
            f"cat {CC}/cnp_prio": "0x7",
        }
    )
    st_ = PLAT.parse(text)
    codes = [w.message for w in st_.warnings if w.code == "BNXT_TC"]
    assert any("RoCE priority 3 is on TC3" in m for m in codes)
    assert any("CNP priority 7 is on TC1" in m for m in codes)


def test_missing_roce_v2_app_entry_warns() -> None:
    st_ = PLAT.parse(_bundle({"dcb -j app show dev gpu0_eth": '{"dscp_prio":[[26,3," "]]}'}))
    assert st_.interfaces["gpu0_eth"].trust == "dscp"
    assert any(w.code == "MISSING" and "4791" in w.message for w in st_.warnings)


def test_crlf_and_garbage() -> None:
    text = render_state(thor2())
    assert PLAT.parse(text.replace("\n", "\r\n")).same_as(thor2())
    for junk in (
        "",
        "#>>> cat /sys/kernel/config/bnxt_re/x/ports/1/cc/apply\n\x00",
        "printf '0x%x' > $CC/x",
        "CC=/sys/kernel/config/bnxt_re/\nprintf '0x%x' zz > \"$CC/roce_dscp\"",
    ):
        st_ = PLAT.parse(junk)
        assert isinstance(st_, DeviceState) and st_.platform == "bnxt"


def test_cc_consistency_checks() -> None:
    """roce_dscp must match the RDMA-CM TOS; DSCP trust wants no VLAN 0 priority tag."""
    text = render_state(thor2())
    text = text.replace("printf '0x%x' 26 > \"$CC/roce_dscp\"", "printf '0x%x' 27 > \"$CC/roce_dscp\"")
    text = text.replace(
        "printf '0x%x' 1 > \"$CC/disable_prio_vlan_tx\"", "printf '0x%x' 0 > \"$CC/disable_prio_vlan_tx\""
    )
    st_ = PLAT.parse(text)
    assert st_.same_as(thor2())  # neither knob is a state field of its own ...
    codes = {w.code for w in st_.warnings}
    assert {"MISMATCH", "VLAN_TAG"} <= codes  # ... but both are reported
    assert not PLAT.parse(render_state(thor2())).warnings
