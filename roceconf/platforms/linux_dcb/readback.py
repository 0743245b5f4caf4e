"""Linux DCB (iproute2): the read-back commands of a host and their outputs simulated from a state (the loopback lab)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.linux_dcb.parser import _dev_of
from roceconf.platforms.linux_dcb.render import contiguous_prio_tc, effective_dscp, sorted_ports
from roceconf.platforms.linux_dcb.syntax import _TOS_PATH, tos_path
from roceconf.state import DeviceState, Interface


# --------------------------------------------------------------------------- read-back and simulation
def base_readback(desired: DeviceState, dcb_app: bool = True) -> list[str]:
    cmds = ["hostname"]
    tos_devs: list[str] = []
    any_rdma = False
    for name, itf in sorted_ports(desired):
        cmds.append(f"ip -j link show dev {name}")
        if itf.link_pause is not None:
            cmds.append(f"ethtool -a {name}")
        if itf.pfc.enabled is not None or itf.pfc.no_drop is not None:
            cmds.append(f"dcb -j pfc show dev {name}")
        if itf.scheduling:
            cmds.append(f"dcb -j ets show dev {name}")
        if dcb_app and itf.trust is not None:
            cmds.append(f"dcb -j app show dev {name}")
        if itf.rdma is not None and itf.rdma.device:
            any_rdma = True
            if itf.rdma.roce_tos is not None:
                tos_devs.append(itf.rdma.device)
    if any_rdma:
        cmds.append("rdma -j link show")
    cmds.extend(f"cat {tos_path(d)}" for d in dict.fromkeys(tos_devs))
    return cmds


def readback_commands(desired: DeviceState) -> list[str]:
    return base_readback(desired)


def _no_dev(cmd: str, dev: str) -> str:
    if cmd.startswith("ip "):
        return f'Device "{dev}" does not exist.'
    if cmd.startswith("ethtool"):
        return (
            f"netlink error: no device matches name ({dev})\nCannot get device pause settings: No such device"
        )
    return f'Cannot find device "{dev}"'


def simulate_with(
    state: DeviceState,
    command: str,
    key_tc: Callable[[Interface], dict[int, int]],
    app_entries: Callable[[Interface, DeviceState], tuple[list[tuple[int, int]], list[tuple[int, int]]]],
) -> str | None:
    argv = command.split()
    if not argv:
        return None
    if argv == ["hostname"]:
        return state.hostname or ""
    dev = _dev_of(argv)
    if argv[0] == "ethtool" and len(argv) == 3 and argv[1] == "-a":
        dev = argv[2]
    itf = state.interfaces.get(dev) if dev else None
    if argv[:4] == ["ip", "-j", "link", "show"] and dev:
        if itf is None:
            return _no_dev(command, dev)
        obj: dict[str, Any] = {
            "ifindex": 2 + sorted(state.interfaces, key=natural_key).index(dev),
            "ifname": dev,
            "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
        }
        if itf.mtu is not None:
            obj["mtu"] = itf.mtu
        obj.update(
            {
                "qdisc": "mq",
                "operstate": "UP",
                "linkmode": "DEFAULT",
                "group": "default",
                "link_type": "ether",
            }
        )
        return json.dumps([obj], separators=(",", ":"))
    if argv[0] == "ethtool" and dev:
        if itf is None:
            return _no_dev(command, dev)
        if itf.link_pause is None:
            return "Cannot get device pause settings: Operation not supported"
        v = "on" if itf.link_pause else "off"
        return f"Pause parameters for {dev}:\nAutonegotiate:\toff\nRX:\t\t{v}\nTX:\t\t{v}\n"
    if argv[:2] == ["dcb", "-j"] and len(argv) >= 6 and argv[3] == "show" and dev:
        if itf is None:
            return _no_dev(command, dev)
        if argv[2] == "pfc":
            on = set(itf.pfc.no_drop or [])
            return json.dumps(
                {"pfc_cap": 8, "macsec_bypass": False, "delay": 0, "prio_pfc": [p in on for p in range(8)]},
                separators=(",", ":"),
            )
        if argv[2] == "ets":
            kt = key_tc(itf)
            tsa = ["strict"] * 8
            bw = [0] * 8
            for key, tc in kt.items():
                s = itf.scheduling.get(str(key))
                if s is not None and s.mode == "dwrr":
                    tsa[tc] = "ets"
                    bw[tc] = s.bandwidth_percent or 0
            prio_tc = [kt.get(p, 0) for p in range(8)]
            return json.dumps(
                {
                    "willing": False,
                    "ets_cap": 8,
                    "cbs": False,
                    "tc_bw": bw,
                    "pg_bw": [0] * 8,
                    "tc_tsa": tsa,
                    "prio_tc": prio_tc,
                    "reco_tc_bw": [0] * 8,
                    "reco_tc_tsa": ["strict"] * 8,
                    "reco_prio_tc": [0] * 8,
                },
                separators=(",", ":"),
            )
        if argv[2] == "app":
            dscp, dgram = app_entries(itf, state)
            obj = {}
            if dscp:
                obj["dscp_prio"] = [[d, p, " "] for d, p in dscp]
            if dgram:
                obj["dgram_port_prio"] = [[d, p, " "] for d, p in dgram]
            return json.dumps(obj, separators=(",", ":"))
        return None
    if argv[:4] == ["rdma", "-j", "link", "show"]:
        links = []
        for i, (name, it) in enumerate(sorted_ports(state)):
            if it.rdma is not None and it.rdma.device:
                links.append(
                    {
                        "ifindex": i,
                        "ifname": it.rdma.device,
                        "port": 1,
                        "state": "ACTIVE",
                        "physical_state": "LINK_UP",
                        "netdev": name,
                        "netdev_index": 2 + i,
                    }
                )
        return json.dumps(links, separators=(",", ":"))
    m = _TOS_PATH.fullmatch(argv[1]) if argv[0] == "cat" and len(argv) == 2 else None
    if m:
        for _, it in sorted_ports(state):
            if it.rdma is not None and it.rdma.device == m.group(1) and it.rdma.roce_tos is not None:
                return str(it.rdma.roce_tos)
        return f"cat: {argv[1]}: No such file or directory"
    return None


def _plain_app(itf: Interface, state: DeviceState) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    return effective_dscp(itf, state), []


def simulate(state: DeviceState, command: str) -> str | None:
    return simulate_with(state, command, contiguous_prio_tc, _plain_app)
