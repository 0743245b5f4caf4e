"""Broadcom Thor / Thor2 host NIC (bnxt_en + bnxt_re): iproute2 ``dcb`` plus bnxt_re configfs.

QoS is programmed with iproute2 ``dcb`` (the dcb engine lives in :mod:`roceconf.platforms.linux_dcb`);
congestion control with the bnxt_re configfs ``/sys/kernel/config/bnxt_re/<dev>/ports/1/cc/``.

bnxt_re requires a fixed traffic-class layout (bnxt_re README "DCB Settings"): TC0 L2, **TC1 RoCE**,
**TC2 CNP** (+L2), TC3..7 L2. roceconf keys scheduling by priority (priority N == "TC N"), so the
template renders ``prio-tc`` with the RoCE priority on TC1 and the CNP priority on TC2, and the parser
maps every hardware TC back to the lowest priority mapped to it (TC1 -> the RoCE priority, ...).

configfs values print as C ``%#x`` (``0x1a``; zero prints ``0``) and several stores parse ``%x``, so the
script always writes hex with a ``0x`` prefix (``printf '0x%x'``). Nothing takes effect until ``apply``:
values written after the last ``apply`` are reported as not applied and stay unknown.

State mapping: ``rdma.cnp_dscp`` / ``rdma.cnp_priority`` = cc ``cnp_dscp`` / ``cnp_prio``;
``rdma.dcqcn_rp`` = ``rdma.dcqcn_np`` = ``[roce_prio]`` when ``ecn_enable`` is 1 (``[]`` when 0; bnxt has a
single switch for both); ``rdma.roce_tos`` from RDMA-CM configfs (cc ``roce_dscp`` is checked against it).
"""

from __future__ import annotations

from roceconf.platforms.base import Fact, host_nic
from roceconf.platforms.bnxt import parser, readback
from roceconf.platforms.bnxt.parser import parse, parse_shared
from roceconf.platforms.bnxt.readback import readback_commands, simulate
from roceconf.platforms.bnxt.render import app_entries, bnxt_prio_tc, cc_values, has_cc
from roceconf.platforms.bnxt.syntax import NAME, cc_dir
from roceconf.platforms.linux_dcb.render import FILTERS, GLOBALS_HELPERS

PLATFORM = host_nic(
    NAME,
    "Broadcom Thor/Thor2 (bnxt_en + bnxt_re)",
    parser,
    readback,
    {
        **FILTERS,
        **GLOBALS_HELPERS,
        "bnxt_prio_tc": bnxt_prio_tc,
        "bnxt_app": app_entries,
        "cc_values": cc_values,
        "bnxt_has_cc": has_cc,
        "cc_dir": cc_dir,
    },
    min_mtu=Fact(68, "Linux ETH_MIN_MTU; bnxt_en may allow less"),
    max_mtu=Fact(9500, "bnxt_en BNXT_MAX_MTU (ip -d link show: max_mtu)"),
    max_lossless_priorities=Fact(1, "bnxt_re README: RoCE supports only one priority (TC1)"),
    notes=(
        "bnxt_re TC layout: TC0 L2, TC1 RoCE, TC2 CNP (+L2), TC3-7 L2; roceconf renders prio-tc accordingly.",
        "One DCQCN switch (ecn_enable) for reaction and notification point: dcqcn_rp == dcqcn_np.",
        "The CNP DSCP APP entry is programmed last (bnxt_re README).",
        "configfs cc values are hex; nothing takes effect until 'apply'.",
    ),
)

__all__ = ["PLATFORM", "parse", "parse_shared", "readback_commands", "simulate"]
