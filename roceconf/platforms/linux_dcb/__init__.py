"""Generic Linux host NIC configured with iproute2 ``dcb``, ``ip``, ``ethtool`` and RDMA-CM configfs.

The rendered file is an idempotent bash script; ``parse`` reads that script *and* a read-back bundle
(``#>>> <command>`` before each command's output) of ``dcb [-j] {pfc,ets,app} show``, ``ip [-j] link show``,
``ethtool -a``, ``rdma [-j] link show`` and ``cat .../rdma_cm/<dev>/ports/1/default_roce_tos``.

This module also holds the dcb/ethtool/ip parsing engine (:class:`HostParser`) and the shared template
filters and simulator that the ``bnxt`` platform reuses.

State mapping (both inputs):

* ``dscp_to_tc`` (host-wide) is the DSCP map shared by most DSCP-trusting ports (ties: first port in
  natural order); a port whose map differs gets ``Interface.dscp_to_tc``.
* ``trust`` is ``dscp`` iff the port has DSCP APP entries (``pcp`` when the APP table has none).
* ``pfc.no_drop`` = priorities with PFC on; ``pfc.enabled`` = any on.
* ``scheduling`` is keyed by roceconf priority/TC: for every hardware TC that has priorities mapped to it
  (``prio-tc``), the key is the lowest priority mapped there (identity maps give key == TC).
* ``rdma.device`` comes from ``rdma link show`` (bundle) or ``check_rdma_dev <netdev> <dev>`` (script),
  ``rdma.roce_tos`` from RDMA-CM configfs ``default_roce_tos``.
"""

from __future__ import annotations

from roceconf.platforms.base import Fact, host_nic
from roceconf.platforms.linux_dcb import parser, readback
from roceconf.platforms.linux_dcb.parser import parse, parse_shared
from roceconf.platforms.linux_dcb.readback import readback_commands, simulate
from roceconf.platforms.linux_dcb.render import DCB_HELPERS, FILTERS, GLOBALS_HELPERS
from roceconf.platforms.linux_dcb.syntax import NAME

# --------------------------------------------------------------------------- platform
PLATFORM = host_nic(
    NAME,
    "Generic Linux host NIC (iproute2 dcb)",
    parser,
    readback,
    {**FILTERS, **GLOBALS_HELPERS, **DCB_HELPERS},
    min_mtu=Fact(68, "Linux ETH_MIN_MTU (include/uapi/linux/if_ether.h)"),
    max_mtu=Fact(9000, "common jumbo MTU; the real limit is per driver (ip -d link show: max_mtu)"),
    max_lossless_priorities=Fact(8, "IEEE 802.1Qaz PFC: up to 8 priorities (dcb pfc show: pfc-cap)"),
    notes=(
        "Trust is DSCP iff the port has DSCP APP entries (dcb app); there is no separate trust knob.",
        "Every DSCP 0-63 gets an APP entry (the intent's default class takes the DSCPs it does not name); "
        "a DSCP without an entry would use the port's default priority (dcb app default-prio, else 0).",
        "Traffic classes are contiguous (Intel ice_dcb_tc_contig): classes take TC 0, 1, 2, ... in "
        "priority order; each TC reads back as the lowest priority mapped to it.",
        "The host-wide DSCP map is the map most DSCP-trusting ports share.",
        "ECN marking is switch-side; DCQCN knobs are vendor specific (not expressed by this platform).",
    ),
)

__all__ = ["PLATFORM", "parse", "parse_shared", "readback_commands", "simulate"]
