"""NVIDIA ConnectX: the read-back commands of a host and their outputs simulated from a state (the loopback lab)."""

from __future__ import annotations

import json
import re
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.connectx.render import dscp_pairs, ets_lists
from roceconf.platforms.connectx.syntax import _CONFIGFS_TOS, _SYSFS_CNP, _SYSFS_ENABLE, PRIOS
from roceconf.state import DeviceState, Interface


# --------------------------------------------------------------------------- read-back and lab
def readback_commands(desired: DeviceState) -> list[str]:
    """Commands the live collector runs for the ports and RDMA devices in the desired state."""
    cmds = ["hostname -s"]
    for name in sorted(desired.interfaces, key=natural_key):
        itf = desired.interfaces[name]
        cmds += [f"mlnx_qos -i {name}", f"ip -j link show dev {name}", f"ethtool -a {name}"]
        r = itf.rdma
        if r is None:
            continue
        if r.device:
            cmds.append(f"ls /sys/class/net/{name}/device/infiniband")
        if r.dcqcn_np is not None:
            cmds += [f"cat /sys/class/net/{name}/ecn/roce_np/enable/{p}" for p in PRIOS]
        if r.dcqcn_rp is not None:
            cmds += [f"cat /sys/class/net/{name}/ecn/roce_rp/enable/{p}" for p in PRIOS]
        if r.cnp_dscp is not None:
            cmds.append(f"cat /sys/class/net/{name}/ecn/roce_np/cnp_dscp")
        if r.cnp_priority is not None:
            cmds.append(f"cat /sys/class/net/{name}/ecn/roce_np/cnp_802p_prio")
        if r.device and r.roce_tos is not None:
            cmds.append(f"cat /sys/kernel/config/rdma_cm/{r.device}/ports/1/default_roce_tos")
    return cmds


def _mlnx_qos_text(state: DeviceState, itf: Interface) -> str:
    out = ["DCBX mode: OS controlled"]
    if itf.trust in ("dscp", "pcp"):
        out.append(f"Priority trust state: {itf.trust}")
    else:
        out = ["Priority trust state is not supported on your system", *out, "Priority trust state: none"]
    if itf.trust == "dscp":
        out.append("dscp2prio mapping:")
        by: dict[int, list[int]] = {}
        for d, p in dscp_pairs(itf, state):
            by.setdefault(p, []).append(d)
        for p in PRIOS:
            s = "".join(f"{d:02d}," for d in sorted(by.get(p, []), reverse=True))
            while s:
                out.append(f"\tprio:{p} dscp:{s[:24]}")
                s = s[24:]
    out.append("default priority:")
    out.append("Cable len: 7")
    if itf.pfc.no_drop is not None or itf.pfc.enabled is False:
        nd = itf.pfc.no_drop or []
        out.append("PFC configuration:")
        out.append("\tpriority    0   1   2   3   4   5   6   7")
        out.append("\tenabled     " + "".join(f"{1 if p in nd else 0}   " for p in PRIOS))
    lists = ets_lists(itf.scheduling)
    if lists is not None:
        mapping = [int(x) for x in lists[0].split(",")]
        for tc in sorted(set(mapping)):
            sch = itf.scheduling[str(tc)]
            tsa = "strict" if sch.mode == "strict" else f"ets, bw: {sch.bandwidth_percent}%"
            out.append(f"tc: {tc} ratelimit: unlimited, tsa: {tsa}")
            out += [f"\t priority:  {p}" for p in PRIOS if mapping[p] == tc]
    return "\n".join(out) + "\n"


def simulate(state: DeviceState, command: str) -> str | None:
    """What the real tool prints for ``command`` on a host configured as ``state``."""
    cmd = command.strip()
    if re.fullmatch(r"hostname(\s+-s)?", cmd):
        return f"{state.hostname}\n" if state.hostname else "\n"
    m = re.fullmatch(r"mlnx_qos -i (\S+)", cmd)
    if m:
        itf = state.interfaces.get(m.group(1))
        return None if itf is None else _mlnx_qos_text(state, itf)
    m = re.fullmatch(r"ip -j link show dev (\S+)", cmd)
    if m:
        itf = state.interfaces.get(m.group(1))
        if itf is None:
            return f'Device "{m.group(1)}" does not exist.\n'
        obj: dict[str, Any] = {"ifindex": 2, "ifname": m.group(1), "flags": ["BROADCAST", "MULTICAST", "UP"]}
        if itf.mtu is not None:
            obj["mtu"] = itf.mtu
        obj.update({"qdisc": "mq", "operstate": "UP", "link_type": "ether"})
        return json.dumps([obj]) + "\n"
    m = re.fullmatch(r"ethtool -a (\S+)", cmd)
    if m:
        itf = state.interfaces.get(m.group(1))
        if itf is None:
            return None
        if itf.link_pause is None:
            return "Cannot get device pause settings: Operation not supported\n"
        v = "on" if itf.link_pause else "off"
        return f"Pause parameters for {m.group(1)}:\nAutonegotiate:\toff\nRX:\t\t{v}\nTX:\t\t{v}\n"
    m = re.fullmatch(r"ls /sys/class/net/(\S+)/device/infiniband", cmd)
    if m:
        itf = state.interfaces.get(m.group(1))
        if itf is None or itf.rdma is None or not itf.rdma.device:
            return f"ls: cannot access '/sys/class/net/{m.group(1)}/device/infiniband': No such file or directory\n"
        return itf.rdma.device + "\n"
    m = re.fullmatch(r"cat (\S+)", cmd)
    if m:
        return _simulate_cat(state, m.group(1))
    return None


def _simulate_cat(state: DeviceState, path: str) -> str | None:
    missing = f"cat: {path}: No such file or directory\n"
    m = _SYSFS_ENABLE.search(path)
    if m:
        itf = state.interfaces.get(m.group(1))
        r = itf.rdma if itf else None
        vals = (r.dcqcn_np if m.group(2) == "np" else r.dcqcn_rp) if r else None
        if vals is None:
            return missing
        return ("1" if int(m.group(3)) in vals else "0") + "\n"
    m = _SYSFS_CNP.search(path)
    if m:
        itf = state.interfaces.get(m.group(1))
        r = itf.rdma if itf else None
        v = (r.cnp_dscp if m.group(2) == "cnp_dscp" else r.cnp_priority) if r else None
        return missing if v is None else f"{v}\n"
    m = _CONFIGFS_TOS.search(path)
    if m:
        for itf in state.interfaces.values():
            if itf.rdma and itf.rdma.device == m.group(1) and itf.rdma.roce_tos is not None:
                return f"{itf.rdma.roce_tos}\n"
        return missing
    return None
