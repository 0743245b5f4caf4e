#!/usr/bin/env bash
# roceconf: NVIDIA ConnectX-6/7 (mlx5) RoCE host settings for gpu1
#
# Idempotent: running it again applies the same values; nothing changes when a value is already right.
# Run as root. mlx5 toggles the port link when the PFC mask really changes.
#
# Syntax sources:
#   mlnx_qos --trust/--dscp2prio/--pfc/--prio_tc/--tsa/--tcbw   Mellanox/mlnx-tools python/mlnx_qos (confirmed
#       from source: 8-item lists, --trust and --dscp2prio need separate calls, bw 0 for non-ETS TCs)
#   cma_roce_tos -d <dev> -t <tos>   Mellanox/mlnx-tools sbin/cma_roce_tos (confirmed; value = full TOS byte,
#       DSCP << 2). The rdma_cm configfs directory is kept so the value can be read back with cat.
#   /sys/class/net/<if>/ecn/roce_{np,rp}/enable/<prio>, roce_np/cnp_dscp, roce_np/cnp_802p_prio
#       MLNX_OFED mlx5 en_sysfs.c (confirmed from MLNX_OFED source; not present with the upstream-only driver,
#       the script stops with a message there).
#   ethtool -A <if> rx off tx off, ip link set dev <if> mtu <n>   ethtool(8), ip-link(8).
# Safest documented form, not confirmed on hardware: flushing the DSCP table before setting the intent's
# mappings (current drivers switch trust to pcp for a moment when the last DSCP entry is removed; older
# MLNX_OFED with qos/trust sysfs ignores flush and keeps its 64-entry table).
# Every DSCP 0-63 is mapped (the DSCPs the intent does not name go to its default class): with DSCP trust
# mlx5 looks every packet up in its 64-entry dscp2prio table (QPDPM register); a DSCP whose APP entry is
# deleted falls back to priority 0 (mlx5 en_dcbnl.c mlx5e_dcbnl_ieee_delapp), --trust dscp installs
# prio = DSCP >> 3 for all 64 (mlnx_qos setDefaultAppEntry).
# Priorities without a traffic class of their own are mapped to the lowest stated TC (priority N uses TC N).
set -euo pipefail

need() { command -v "$1" >/dev/null 2>&1 || { echo "roceconf: required tool '$1' is missing" >&2; exit 1; }; }
need cma_roce_tos
need ethtool
need grep
need hostname
need ip
need mlnx_qos

expected_host=gpu1
if [ "$(hostname -s)" != "${expected_host%%.*}" ]; then  # the short names: hostname -s stops at the first dot
  echo "roceconf: this script is for host $expected_host, not $(hostname -s)" >&2; exit 1
fi

# ---- eth0 (RDMA device mlx5_0)
[ -d /sys/class/net/eth0 ] || { echo "roceconf: no interface eth0" >&2; exit 1; }
[ -e /sys/class/net/eth0/device/infiniband/mlx5_0 ] || { echo "roceconf: eth0 is not RDMA device mlx5_0" >&2; exit 1; }
ip link set dev eth0 mtu 9000
# 802.3x link pause off; written only when it differs (ethtool's ioctl path exits 78 on an unchanged setting)
pause=$(ethtool -a eth0)
if grep -Eq '^(RX|TX):[[:space:]]+on' <<<"$pause"; then ethtool -A eth0 rx off tx off; fi
mlnx_qos -i eth0 --trust dscp
# DSCP -> priority for all 64 DSCPs (no flush: mlx5 replaces a DSCP's entry in place, so the port never
# goes without a DSCP map nor falls back to pcp trust)
mlnx_qos -i eth0 --dscp2prio set,0,0 --dscp2prio set,1,0 --dscp2prio set,2,0 --dscp2prio set,3,0 --dscp2prio set,4,0 --dscp2prio set,5,0 --dscp2prio set,6,0 --dscp2prio set,7,0 --dscp2prio set,8,0 --dscp2prio set,9,0 --dscp2prio set,10,0 --dscp2prio set,11,0 --dscp2prio set,12,0 --dscp2prio set,13,0 --dscp2prio set,14,0 --dscp2prio set,15,0 --dscp2prio set,16,0 --dscp2prio set,17,0 --dscp2prio set,18,0 --dscp2prio set,19,0 --dscp2prio set,20,0 --dscp2prio set,21,0 --dscp2prio set,22,0 --dscp2prio set,23,0 --dscp2prio set,24,0 --dscp2prio set,25,0 --dscp2prio set,26,3 --dscp2prio set,27,0 --dscp2prio set,28,0 --dscp2prio set,29,0 --dscp2prio set,30,0 --dscp2prio set,31,0 --dscp2prio set,32,0 --dscp2prio set,33,0 --dscp2prio set,34,0 --dscp2prio set,35,0 --dscp2prio set,36,0 --dscp2prio set,37,0 --dscp2prio set,38,0 --dscp2prio set,39,0 --dscp2prio set,40,0 --dscp2prio set,41,0 --dscp2prio set,42,0 --dscp2prio set,43,0 --dscp2prio set,44,0 --dscp2prio set,45,0 --dscp2prio set,46,0 --dscp2prio set,47,0 --dscp2prio set,48,6 --dscp2prio set,49,0 --dscp2prio set,50,0 --dscp2prio set,51,0 --dscp2prio set,52,0 --dscp2prio set,53,0 --dscp2prio set,54,0 --dscp2prio set,55,0 --dscp2prio set,56,0 --dscp2prio set,57,0 --dscp2prio set,58,0 --dscp2prio set,59,0 --dscp2prio set,60,0 --dscp2prio set,61,0 --dscp2prio set,62,0 --dscp2prio set,63,0
mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i eth0 --prio_tc 0,0,0,3,0,0,6,0 --tsa ets,strict,strict,ets,strict,strict,strict,strict --tcbw 50,0,0,50,0,0,0,0
[ -d /sys/class/net/eth0/ecn ] || { echo "roceconf: /sys/class/net/eth0/ecn missing (MLNX_OFED mlx5 driver needed)" >&2; exit 1; }
# DCQCN reaction point (rate limiter) on priorities 3
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/0
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/1
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/2
echo 1 > /sys/class/net/eth0/ecn/roce_rp/enable/3
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/4
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/5
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/6
echo 0 > /sys/class/net/eth0/ecn/roce_rp/enable/7
# DCQCN notification point (CNP generation) on priorities 3
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/0
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/1
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/2
echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/4
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/5
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/6
echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/7
echo 48 > /sys/class/net/eth0/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio
# RDMA-CM default TOS 104 = DSCP 26 << 2
cma_roce_tos -d mlx5_0 -t 104
mkdir -p /sys/kernel/config/rdma_cm/mlx5_0

# ---- eth1 (RDMA device mlx5_1)
[ -d /sys/class/net/eth1 ] || { echo "roceconf: no interface eth1" >&2; exit 1; }
[ -e /sys/class/net/eth1/device/infiniband/mlx5_1 ] || { echo "roceconf: eth1 is not RDMA device mlx5_1" >&2; exit 1; }
ip link set dev eth1 mtu 9000
# 802.3x link pause off; written only when it differs (ethtool's ioctl path exits 78 on an unchanged setting)
pause=$(ethtool -a eth1)
if grep -Eq '^(RX|TX):[[:space:]]+on' <<<"$pause"; then ethtool -A eth1 rx off tx off; fi
mlnx_qos -i eth1 --trust dscp
# DSCP -> priority for all 64 DSCPs (no flush: mlx5 replaces a DSCP's entry in place, so the port never
# goes without a DSCP map nor falls back to pcp trust)
mlnx_qos -i eth1 --dscp2prio set,0,0 --dscp2prio set,1,0 --dscp2prio set,2,0 --dscp2prio set,3,0 --dscp2prio set,4,0 --dscp2prio set,5,0 --dscp2prio set,6,0 --dscp2prio set,7,0 --dscp2prio set,8,0 --dscp2prio set,9,0 --dscp2prio set,10,0 --dscp2prio set,11,0 --dscp2prio set,12,0 --dscp2prio set,13,0 --dscp2prio set,14,0 --dscp2prio set,15,0 --dscp2prio set,16,0 --dscp2prio set,17,0 --dscp2prio set,18,0 --dscp2prio set,19,0 --dscp2prio set,20,0 --dscp2prio set,21,0 --dscp2prio set,22,0 --dscp2prio set,23,0 --dscp2prio set,24,0 --dscp2prio set,25,0 --dscp2prio set,26,3 --dscp2prio set,27,0 --dscp2prio set,28,0 --dscp2prio set,29,0 --dscp2prio set,30,0 --dscp2prio set,31,0 --dscp2prio set,32,0 --dscp2prio set,33,0 --dscp2prio set,34,0 --dscp2prio set,35,0 --dscp2prio set,36,0 --dscp2prio set,37,0 --dscp2prio set,38,0 --dscp2prio set,39,0 --dscp2prio set,40,0 --dscp2prio set,41,0 --dscp2prio set,42,0 --dscp2prio set,43,0 --dscp2prio set,44,0 --dscp2prio set,45,0 --dscp2prio set,46,0 --dscp2prio set,47,0 --dscp2prio set,48,6 --dscp2prio set,49,0 --dscp2prio set,50,0 --dscp2prio set,51,0 --dscp2prio set,52,0 --dscp2prio set,53,0 --dscp2prio set,54,0 --dscp2prio set,55,0 --dscp2prio set,56,0 --dscp2prio set,57,0 --dscp2prio set,58,0 --dscp2prio set,59,0 --dscp2prio set,60,0 --dscp2prio set,61,0 --dscp2prio set,62,0 --dscp2prio set,63,0
mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i eth1 --prio_tc 0,0,0,3,0,0,6,0 --tsa ets,strict,strict,ets,strict,strict,strict,strict --tcbw 50,0,0,50,0,0,0,0
[ -d /sys/class/net/eth1/ecn ] || { echo "roceconf: /sys/class/net/eth1/ecn missing (MLNX_OFED mlx5 driver needed)" >&2; exit 1; }
# DCQCN reaction point (rate limiter) on priorities 3
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/0
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/1
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/2
echo 1 > /sys/class/net/eth1/ecn/roce_rp/enable/3
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/4
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/5
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/6
echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/7
# DCQCN notification point (CNP generation) on priorities 3
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/0
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/1
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/2
echo 1 > /sys/class/net/eth1/ecn/roce_np/enable/3
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/4
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/5
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/6
echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/7
echo 48 > /sys/class/net/eth1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/eth1/ecn/roce_np/cnp_802p_prio
# RDMA-CM default TOS 104 = DSCP 26 << 2
cma_roce_tos -d mlx5_1 -t 104
mkdir -p /sys/kernel/config/rdma_cm/mlx5_1
