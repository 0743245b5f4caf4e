"""NVIDIA ConnectX-6/7 host NICs (mlx5 driver, mlnx-tools / MLNX_OFED).

Rendered output: an idempotent bash script (``templates/connectx/device.j2``).
Read-back: a bundle of real tool outputs (``#>>> <command>`` before each output):

* ``hostname -s``
* ``mlnx_qos -i <if>``                      trust, DSCP -> priority map, PFC, ETS (prio_tc, tsa, bw)
* ``ip -j link show dev <if>``               MTU (plain ``ip link show`` is read too)
* ``ethtool -a <if>``                       802.3x link pause
* ``ls /sys/class/net/<if>/device/infiniband``      which RDMA device belongs to the port
  (``ibdev2netdev``, ``rdma link show`` and ``show_gids`` are read too)
* ``cat /sys/class/net/<if>/ecn/roce_{np,rp}/enable/<p>``   DCQCN per priority (MLNX_OFED sysfs)
* ``cat /sys/class/net/<if>/ecn/roce_np/{cnp_dscp,cnp_802p_prio}``
* ``cat /sys/kernel/config/rdma_cm/<dev>/ports/1/default_roce_tos`` (``cma_roce_tos -d`` is read too)

Modelling rules:

* A traffic class is *in use* when a priority maps to it (``mlnx_qos`` lists only those TCs);
  only TCs in use are reported in ``scheduling``. The script maps every priority that has no TC of
  its own to the lowest stated TC (priority N uses TC N for the stated TCs).
* ``dscp_to_tc`` holds exactly the mappings stated (script) or observed (read-back). ``--trust dscp``
  installs 64 firmware-default entries; the script then flushes them and sets only the intent's
  mappings, so on current drivers the read-back shows exactly those. Where the driver keeps a full
  64-entry table (older MLNX_OFED with ``qos/trust`` sysfs) every observed entry is reported.
* The host-wide map is the one most interfaces use (ties: first interface in natural order);
  an interface with a different map gets ``Interface.dscp_to_tc``.
* Failed reads ("Operation not supported", "command not found", missing sysfs files) become
  warnings with code ``UNSUPPORTED`` and leave the values unknown.
"""

from __future__ import annotations

from roceconf.platforms.base import Fact, host_nic
from roceconf.platforms.connectx import parser, readback
from roceconf.platforms.connectx.parser import parse, parse_shared
from roceconf.platforms.connectx.readback import readback_commands, simulate
from roceconf.platforms.connectx.render import FILTERS
from roceconf.platforms.connectx.syntax import NAME

PLATFORM = host_nic(
    NAME,
    "NVIDIA ConnectX-6/7 (mlx5, mlnx_qos)",
    parser,
    readback,
    FILTERS,
    min_mtu=Fact(68, "mlx5 netdev minmtu as reported by `ip -d link show` on ConnectX ports"),
    max_mtu=Fact(9978, "mlx5 netdev maxmtu as reported by `ip -d link show` on ConnectX-5/6/7 ports"),
    max_lossless_priorities=Fact(
        8, "mlnx_qos --pfc takes one enable bit for each of the 8 priorities (Mellanox/mlnx-tools)"
    ),
    per_port=frozenset({"mtu", "trust", "pfc", "link_pause", "scheduling"}),
    notes=(
        "ECN marking is a switch function; the NIC side is DCQCN (rdma.dcqcn_rp / dcqcn_np).",
        "DCQCN per-priority enables and CNP settings use MLNX_OFED sysfs (ecn/roce_np, ecn/roce_rp).",
        "Changing the PFC mask makes mlx5 toggle the port link.",
    ),
)

__all__ = ["PLATFORM", "parse", "parse_shared", "readback_commands", "simulate"]
