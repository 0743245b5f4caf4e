"""Linux DCB (iproute2): the template filters (conversions the templates call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roceconf.names import natural_key
from roceconf.state import DeviceState, Interface, Pfc


# --------------------------------------------------------------------------- template filters
def effective_dscp(itf: Interface, state: DeviceState) -> list[tuple[int, int]]:
    """The port's DSCP APP entries as [(dscp, prio)] (empty unless the port trusts DSCP)."""
    if itf.trust != "dscp":
        return []
    m = itf.dscp_to_tc if itf.dscp_to_tc is not None else state.dscp_to_tc
    return sorted((int(d), p) for d, p in m.items())


def pfc_args(pfc: Pfc) -> str:
    """'all:off 3:on 4:on' (empty string when the no-drop set is unknown)."""
    if pfc.no_drop is None:
        return "all:off" if pfc.enabled is False else ""
    return " ".join(["all:off", *(f"{p}:on" for p in sorted(pfc.no_drop))])


def identity_prio_tc(itf: Interface) -> dict[int, int]:
    """roceconf key (priority) -> hardware TC with priority N on TC N (what roceconf rendered before TCs had
    to be contiguous; kept for reading old scripts' intent in tests)."""
    return {int(k): int(k) for k in itf.scheduling}


def contiguous_prio_tc(itf: Interface) -> dict[int, int]:
    """roceconf key (priority) -> hardware TC, contiguous from TC 0 (Intel ice rejects gaps:
    ice_dcb_tc_contig() in drivers/net/ethernet/intel/ice/ice_dcb_lib.c). Keys in priority order take
    TC 0, 1, 2, ...; without a key 0, TC 0 keeps the priorities that have no class (prio-tc all:0) and the
    keys start at TC 1. {0, 3, 6} -> {0: 0, 3: 1, 6: 2} (the layout bnxt uses too)."""
    keys = sorted(int(k) for k in itf.scheduling)
    first = 0 if 0 in keys else 1
    return {k: first + i for i, k in enumerate(keys)}


def needs_prune(state: DeviceState) -> bool:
    """Does some DSCP-trusting port carry fewer than 64 DSCP entries (no default class in the intent)?"""
    return any(0 < len(effective_dscp(itf, state)) < 64 for _, itf in sorted_ports(state))


def ets_args(itf: Interface, key_tc: dict[int, int], pad_all: bool = True) -> str:
    """'tc-tsa all:strict 0:ets ... tc-bw all:0 0:50 ... prio-tc all:0 3:3 ...' for a key->TC map.

    ``pad_all=False`` names only the TCs in use (no ``all:`` for TSA/bandwidth), for NICs that run fewer
    than 8 TCs and reject settings for the others (Broadcom's bnxt_setupcc.sh does the same).
    """
    tsa = ["all:strict"] if pad_all else []
    bw = ["all:0"] if pad_all else []
    for key in sorted(key_tc, key=lambda k: key_tc[k]):
        s = itf.scheduling.get(str(key))
        if s is None or s.mode is None:
            continue
        tc = key_tc[key]
        if s.mode == "dwrr":
            tsa.append(f"{tc}:ets")
            bw.append(f"{tc}:{s.bandwidth_percent or 0}")
        else:
            tsa.append(f"{tc}:strict")
    prio = ["all:0", *(f"{k}:{key_tc[k]}" for k in sorted(key_tc) if key_tc[k] != 0)]
    out = f"tc-tsa {' '.join(tsa)}" if tsa else ""
    out += f" tc-bw {' '.join(bw)}" if bw else ""
    return f"{out} prio-tc {' '.join(prio)}".strip()


def dscp_args(entries: list[tuple[int, int]]) -> str:
    return " ".join(f"{d}:{p}" for d, p in entries)


def tos_comment(tos: int) -> str:
    ecn = tos & 3
    return f"DSCP {tos >> 2} << 2" + (f" | ECN {ecn}" if ecn else "")


def sorted_ports(state: DeviceState) -> list[tuple[str, Interface]]:
    return [(n, state.interfaces[n]) for n in sorted(state.interfaces, key=natural_key)]


def tools_needed(state: DeviceState) -> list[str]:
    need: list[str] = []
    for _, itf in sorted_ports(state):
        if itf.mtu is not None:
            need.append("ip")
        if itf.link_pause is not None:
            need.append("ethtool")
        if pfc_args(itf.pfc) or itf.scheduling or itf.trust in ("dscp", "pcp"):
            need.append("dcb")
    return list(dict.fromkeys(need))


def dcb_ports(state: DeviceState) -> list[str]:
    """The ports the script writes DCB settings on (dcb pfc / ets / app): on Intel ice the firmware LLDP agent
    must be off before the first of those writes (see the template's fw_lldp_off)."""
    return [
        name
        for name, itf in sorted_ports(state)
        if pfc_args(itf.pfc) or itf.scheduling or itf.trust in ("dscp", "pcp") or effective_dscp(itf, state)
    ]


FILTERS: dict[str, Callable[..., Any]] = {
    "effective_dscp": effective_dscp,
    "pfc_args": pfc_args,
    "ets_args": ets_args,
    "identity_prio_tc": identity_prio_tc,
    "contiguous_prio_tc": contiguous_prio_tc,
    "dscp_args": dscp_args,
    "tos_comment": tos_comment,
}
GLOBALS_HELPERS = {"sorted_ports": sorted_ports, "tools_needed": tools_needed, "needs_prune": needs_prune}
#: linux-dcb only (the bnxt template shares the helpers above)
DCB_HELPERS = {"dcb_ports": dcb_ports}
