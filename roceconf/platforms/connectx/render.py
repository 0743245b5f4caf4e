"""NVIDIA ConnectX: the template filters (conversions the templates call)."""

from __future__ import annotations

import shlex
from typing import Any

from roceconf.platforms.connectx.syntax import PRIOS
from roceconf.state import DeviceState, Interface, Pfc, Sched


# --------------------------------------------------------------------------- shared helpers
def _sorted_tcs(scheduling: dict[str, Sched]) -> list[int]:
    out = []
    for k in scheduling:
        try:
            tc = int(k)
        except ValueError:
            continue
        if 0 <= tc <= 7:
            out.append(tc)
    return sorted(set(out))


def prio_tc(scheduling: dict[str, Sched]) -> list[int] | None:
    """Priority -> TC list the script programs: identity for stated TCs, the lowest stated TC otherwise."""
    tcs = _sorted_tcs(scheduling)
    if not tcs:
        return None
    return [p if p in tcs else tcs[0] for p in PRIOS]


def ets_lists(scheduling: dict[str, Sched]) -> tuple[str, str, str] | None:
    """(prio_tc, tsa, tcbw) option values, or None when the scheduling cannot be expressed."""
    mapping = prio_tc(scheduling)
    if mapping is None:
        return None
    tsa, bw = [], []
    for tc in PRIOS:
        sch = scheduling.get(str(tc))
        if sch is None:
            tsa.append("strict")
            bw.append(0)
        elif sch.mode == "strict":
            tsa.append("strict")
            bw.append(0)
        elif sch.mode == "dwrr" and sch.bandwidth_percent is not None:
            tsa.append("ets")
            bw.append(sch.bandwidth_percent)
        else:
            return None
    return ",".join(map(str, mapping)), ",".join(tsa), ",".join(map(str, bw))


def pfc_list(pfc: Pfc) -> str | None:
    if pfc.enabled is False:
        return ",".join("0" for _ in PRIOS)
    if pfc.no_drop is None:
        return None
    return ",".join("1" if p in pfc.no_drop else "0" for p in PRIOS)


def effective_map(itf: Interface, state: DeviceState) -> dict[str, int]:
    return itf.dscp_to_tc if itf.dscp_to_tc is not None else state.dscp_to_tc


def dscp_pairs(itf: Interface, state: DeviceState) -> list[tuple[int, int]]:
    """(dscp, prio) pairs the script sets on a port; none on a pcp-trust port (they would flip trust)."""
    if itf.trust == "pcp":
        return []
    pairs = []
    for d, p in effective_map(itf, state).items():
        try:
            pairs.append((int(d), int(p)))
        except (TypeError, ValueError):
            continue
    return sorted(pairs)


def _shq(value: Any) -> str:
    return shlex.quote(str(value))


def _tools(state: DeviceState) -> list[str]:
    tools: set[str] = set()
    for itf in state.interfaces.values():
        if itf.mtu is not None:
            tools.add("ip")
        if itf.link_pause is not None:
            tools.update({"ethtool", "grep"})
        if (
            itf.trust is not None
            or dscp_pairs(itf, state)
            or pfc_list(itf.pfc) is not None
            or ets_lists(itf.scheduling) is not None
        ):
            tools.add("mlnx_qos")
        if itf.rdma is not None and itf.rdma.roce_tos is not None and itf.rdma.device:
            tools.add("cma_roce_tos")
    if state.hostname:
        tools.add("hostname")
    return sorted(tools)


FILTERS = {
    "cx_ets": ets_lists,
    "cx_pfc": pfc_list,
    "cx_dscp_pairs": dscp_pairs,
    "cx_tools": _tools,
    "shq": _shq,
}
