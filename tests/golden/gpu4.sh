#!/usr/bin/env bash
# roceconf - RoCEv2 host NIC settings for gpu4 (platform linux-dcb).
# Generated file: re-render from the intent instead of editing. Safe to run again (idempotent).
#
# Syntax sources (confirmed against the primary source):
#   dcb pfc set dev IF prio-pfc all:off N:on       iproute2 man/man8/dcb-pfc.8
#   dcb ets set dev IF tc-tsa .. tc-bw .. prio-tc  iproute2 man/man8/dcb-ets.8 ("all:" keys, tc-bw 0 for non-ETS TCs)
#   dcb app flush|add dev IF dscp-prio D:P         iproute2 man/man8/dcb-app.8
#   ip link set dev IF mtu N                       iproute2 man/man8/ip-link.8
#   ethtool -A IF rx off tx off                    ethtool(8); 802.3x pause must be off where PFC is used
#   .../rdma_cm/DEV/ports/1/default_roce_tos       RDMA-CM configfs, full TOS byte (DSCP << 2), as
#                                                  mlnx-tools sbin/cma_roce_tos writes it
# Safest documented form (not confirmed on every driver): the DSCP table is flushed and re-added
# (flush + add) so no stale entry survives; on some drivers removing the last DSCP entry briefly
# switches the port back to PCP trust. The rdma_cm configfs directory is left in place so the value
# can be read back with cat.
# roceconf model: priority N == traffic class N (prio-tc identity for the priorities used; all other
# priorities go to TC 0). Trust is DSCP iff the port has DSCP APP entries.
set -euo pipefail

EXPECTED_HOST=gpu4
if [ "$(hostname)" != "$EXPECTED_HOST" ]; then
  echo "roceconf: warning: rendered for $EXPECTED_HOST, running on $(hostname)" >&2
fi

need() {
  command -v "$1" >/dev/null || { echo "roceconf: required tool '$1' is missing" >&2; exit 1; }
}
pause_is() {
  # ethtool -A fails when nothing changes; accept that if the port already has the wanted state
  ethtool -a "$1" | grep -Eq "^RX:[[:space:]]+$2\$" && ethtool -a "$1" | grep -Eq "^TX:[[:space:]]+$2\$"
}
check_rdma_dev() {
  # check_rdma_dev NETDEV RDMA_DEV: the RDMA device exists (and belongs to the netdev)
  [ -e "/sys/class/infiniband/$2" ] || { echo "roceconf: RDMA device $2 (for $1) is missing" >&2; exit 1; }
  [ -e "/sys/class/infiniband/$2/device/net/$1" ] || echo "roceconf: warning: $2 is not on $1" >&2
}
configfs_ready() {
  grep -qs ' /sys/kernel/config configfs ' /proc/mounts || mount -t configfs none /sys/kernel/config
}
set_roce_tos() {
  # set_roce_tos RDMA_DEV TOS: RDMA-CM default TOS byte via configfs (like cma_roce_tos)
  configfs_ready
  [ -d /sys/kernel/config/rdma_cm ] || modprobe rdma_cm
  [ -d "/sys/kernel/config/rdma_cm/$1" ] || mkdir "/sys/kernel/config/rdma_cm/$1"
  echo "$2" > "/sys/kernel/config/rdma_cm/$1/ports/1/default_roce_tos"
}

need ip
need ethtool
need dcb

# ---- eth0
ip link set dev eth0 mtu 9000
ethtool -A eth0 rx off tx off || pause_is eth0 off
dcb pfc set dev eth0 prio-pfc all:off 3:on
dcb ets set dev eth0 tc-tsa all:strict 0:ets 3:ets 6:strict tc-bw all:0 0:50 3:50 prio-tc all:0 3:3 6:6
dcb app flush dev eth0 dscp-prio
dcb app add dev eth0 dscp-prio 0:0 26:3 48:6
check_rdma_dev eth0 rocep1s0
set_roce_tos rocep1s0 104  # DSCP 26 << 2

# ---- eth1
ip link set dev eth1 mtu 9000
ethtool -A eth1 rx off tx off || pause_is eth1 off
dcb pfc set dev eth1 prio-pfc all:off 3:on
dcb ets set dev eth1 tc-tsa all:strict 0:ets 3:ets 6:strict tc-bw all:0 0:50 3:50 prio-tc all:0 3:3 6:6
dcb app flush dev eth1 dscp-prio
dcb app add dev eth1 dscp-prio 0:0 26:3 48:6
check_rdma_dev eth1 rocep2s0
set_roce_tos rocep2s0 104  # DSCP 26 << 2
