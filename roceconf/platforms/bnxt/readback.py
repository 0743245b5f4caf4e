"""Broadcom bnxt: the read-back commands of a host and their outputs simulated from a state (the loopback lab)."""

from __future__ import annotations

from roceconf.platforms.bnxt.render import app_entries, bnxt_prio_tc, cc_values, roce_prio
from roceconf.platforms.bnxt.syntax import _CC_PATH, CC_ATTRS, c_hex, cc_dir
from roceconf.platforms.linux_dcb.readback import base_readback, simulate_with
from roceconf.platforms.linux_dcb.render import sorted_ports
from roceconf.state import DeviceState


# --------------------------------------------------------------------------- read-back / simulation
def readback_commands(desired: DeviceState) -> list[str]:
    cmds = base_readback(desired)
    for _name, itf in sorted_ports(desired):
        rd = itf.rdma
        if rd is None or not rd.device:
            continue
        attrs: list[str] = []
        if rd.dcqcn_rp is not None:
            attrs += ["ecn_enable", "ecn_marking", "roce_prio"]
        if rd.cnp_priority is not None:
            attrs.append("cnp_prio")
        if rd.roce_tos is not None:
            attrs.append("roce_dscp")
        if rd.cnp_dscp is not None:
            attrs.append("cnp_dscp")
        if itf.trust is not None:
            attrs.append("disable_prio_vlan_tx")
        cmds += [f"cat {cc_dir(rd.device)}/{a}" for a in dict.fromkeys(attrs)]
    return cmds


def simulate(state: DeviceState, command: str) -> str | None:
    argv = command.split()
    m = _CC_PATH.fullmatch(argv[1]) if len(argv) == 2 and argv[0] == "cat" else None
    if m:
        dev, attr = m.group(1), m.group(3)
        for _, itf in sorted_ports(state):
            if itf.rdma is not None and itf.rdma.device == dev:
                vals = {a: v for a, v, _ in cc_values(itf)}
                if attr in vals:
                    return c_hex(vals[attr])
                if attr == "roce_prio":
                    return c_hex(roce_prio(itf) or 0)
                return c_hex(0) if attr in CC_ATTRS else f"cat: {argv[1]}: No such file or directory"
        return f"cat: {argv[1]}: No such file or directory"
    return simulate_with(state, command, bnxt_prio_tc, app_entries)
