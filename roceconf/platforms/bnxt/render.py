"""Broadcom bnxt: the template filters (conversions the templates call)."""

from __future__ import annotations

from roceconf.platforms.bnxt.syntax import ROCE_V2_PORT
from roceconf.platforms.linux_dcb.render import effective_dscp
from roceconf.state import DeviceState, Interface


# --------------------------------------------------------------------------- what the state asks for
def roce_prio(itf: Interface) -> int | None:
    if itf.rdma is not None and itf.rdma.dcqcn_rp:
        return itf.rdma.dcqcn_rp[0]
    if itf.pfc.no_drop and len(itf.pfc.no_drop) == 1:
        return itf.pfc.no_drop[0]
    return None


def bnxt_prio_tc(itf: Interface) -> dict[int, int]:
    """roceconf key (priority) -> bnxt TC: RoCE priority on TC1, CNP priority on TC2, 0 on TC0, rest TC3.."""
    keys = sorted(int(k) for k in itf.scheduling)
    roce = roce_prio(itf)
    cnp = itf.rdma.cnp_priority if itf.rdma is not None else None
    out: dict[int, int] = {}
    nxt = 3
    for k in keys:
        if k == roce:
            out[k] = 1
        elif k == cnp:
            out[k] = 2
        elif k == 0:
            out[k] = 0
        else:
            out[k] = min(nxt, 7)
            nxt += 1
    return out


def app_entries(itf: Interface, state: DeviceState) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(DSCP entries with the CNP DSCP last, dgram-port entries)."""
    dscp = effective_dscp(itf, state)
    cnp = None
    if itf.rdma is not None and itf.rdma.cnp_dscp is not None:
        cnp = next((e for e in dscp if e[0] == itf.rdma.cnp_dscp), None)
    if cnp is not None:
        dscp = [e for e in dscp if e != cnp] + [cnp]
    r = roce_prio(itf)
    dgram = [(ROCE_V2_PORT, r)] if r is not None and itf.trust is not None else []
    return dscp, dgram


def cc_values(itf: Interface) -> list[tuple[str, int, str]]:
    """[(attr, value, comment)] for the cc configfs, from the state (None -> not written)."""
    rd = itf.rdma
    if rd is None or not rd.device:
        return []
    out: list[tuple[str, int, str]] = []
    if rd.dcqcn_rp is not None:
        on = 1 if rd.dcqcn_rp else 0
        out.append(("ecn_enable", on, "DCQCN on" if on else "DCQCN off"))
        out.append(("ecn_marking", on, "NIC marks RoCE packets ECT" if on else "no ECT marking"))
        if on:
            out.append(("cc_mode", 1, "DCQCN-P on Thor (configfs.c mode_name_p5)"))
    r = roce_prio(itf)
    if r is not None and (rd.dcqcn_rp is not None or rd.roce_tos is not None):
        out.append(("roce_prio", r, "RoCE priority"))
    if rd.cnp_priority is not None:
        out.append(("cnp_prio", rd.cnp_priority, "CNP priority"))
    if rd.roce_tos is not None:
        out.append(("roce_dscp", rd.roce_tos >> 2, "RoCE DSCP"))
    if rd.cnp_dscp is not None:
        out.append(("cnp_dscp", rd.cnp_dscp, "CNP DSCP"))
    if itf.trust in ("dscp", "pcp"):
        v = 1 if itf.trust == "dscp" else 0
        out.append(
            (
                "disable_prio_vlan_tx",
                v,
                "no VLAN 0 priority tag (DSCP-based PFC)" if v else "VLAN 0 priority tag (PCP-based PFC)",
            )
        )
    return out


def has_cc(state: DeviceState) -> bool:
    """Does any port of the state write bnxt_re congestion-control settings (the script then needs the
    configfs check and its summary)?"""
    return any(itf.rdma is not None and itf.rdma.device and cc_values(itf) for itf in state.interfaces.values())
