#!/usr/bin/env bash
# roceconf - RoCEv2 host NIC settings for gpu4 (platform linux-dcb).
# Generated file: re-render from the intent instead of editing. Safe to run again (idempotent).
#
# Syntax sources (confirmed against the primary source):
#   dcb pfc set dev IF prio-pfc all:off N:on       iproute2 man/man8/dcb-pfc.8
#   dcb ets set dev IF tc-tsa .. tc-bw .. prio-tc  iproute2 man/man8/dcb-ets.8 ("all:" keys, tc-bw 0 for non-ETS TCs)
#   dcb app replace|flush|del dev IF dscp-prio D:P iproute2 man/man8/dcb-app.8; dcb/dcb_app.c
#                                                  dcb_cmd_app_replace (adds the new entries first, then
#                                                  removes the replaced ones), dcb_cmd_app_flush
#   dcb -N app show dev IF dscp-prio               numeric DSCPs (dcb/dcb.c option -N, --Numeric)
#   ip link set dev IF mtu N                       iproute2 man/man8/ip-link.8
#   ethtool -A IF rx off tx off                    ethtool(8); 802.3x pause must be off where PFC is used
#   .../rdma_cm/DEV/ports/1/default_roce_tos       RDMA-CM configfs, full TOS byte (DSCP << 2), as
#                                                  mlnx-tools sbin/cma_roce_tos writes it
# DSCP table: every DSCP 0-63 has an entry (the DSCPs the intent does not name go to its default
# class), written with 'dcb app replace', which never empties the table: a failing command cannot
# leave the port without a DSCP map (a flush followed by a failing add would). Where the intent has no
# default class, dscp_prune then deletes the entries for DSCPs it does not name. Without an APP entry
# a DSCP falls back to the port's default priority (dcb app default-prio, 0 unless set).
# Traffic classes are contiguous (Intel ice checks it: ice_dcb_tc_contig in ice_dcb_lib.c): the
# classes' priorities, lowest first, use TC 0, 1, 2, ... (with no class on priority 0, TC 0 keeps the
# priorities without a class and the classes start at TC 1); read-back maps each TC back to the
# lowest priority on it. The rdma_cm configfs directory is left in place so the value can be read
# back with cat. Trust is DSCP iff the port has DSCP APP entries.
# Intel ice: with the firmware LLDP agent on (the default) the NIC runs firmware DCBX and the driver
#   refuses host DCB settings; software DCB "requires the FW-based LLDP Agent to be disabled", with
#   `ethtool --set-priv-flags <ethX> fw-lldp-agent off`, checked with `ethtool --show-priv-flags <ethX>`
#   (Linux kernel Documentation/networking/device_drivers/ethernet/intel/ice.rst, "DCB" and "FW-LLDP").
#   fw_lldp_off runs for every port before anything is written: on a NIC without that private flag it
#   does nothing; where the agent cannot be turned off (UEFI HII "LLDP Agent") the script stops there.
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
fw_lldp_off() {
  # fw_lldp_off NETDEV: turn Intel ice's firmware LLDP agent off (software DCB needs it off), or stop
  local flags
  flags=$(ethtool --show-priv-flags "$1" 2>/dev/null) || return 0  # no private flags: not such a NIC
  printf '%s\n' "$flags" | grep -Eq '^fw-lldp-agent[[:space:]]*:[[:space:]]*on$' || return 0
  ethtool --set-priv-flags "$1" fw-lldp-agent off && return 0
  echo "roceconf: $1: the firmware LLDP agent is on and could not be turned off (ethtool --set-priv-flags $1 fw-lldp-agent off; the UEFI HII 'LLDP Agent' setting decides): the NIC would refuse the DCB settings, nothing was written" >&2
  exit 1
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
fw_lldp_off eth0
fw_lldp_off eth1

# ---- eth0
ip link set dev eth0 mtu 9000
ethtool -A eth0 rx off tx off || pause_is eth0 off
dcb pfc set dev eth0 prio-pfc all:off 3:on
dcb ets set dev eth0 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:50 1:50 prio-tc all:0 3:1 6:2
dcb app replace dev eth0 dscp-prio 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
check_rdma_dev eth0 rocep1s0
set_roce_tos rocep1s0 104  # DSCP 26 << 2

# ---- eth1
ip link set dev eth1 mtu 9000
ethtool -A eth1 rx off tx off || pause_is eth1 off
dcb pfc set dev eth1 prio-pfc all:off 3:on
dcb ets set dev eth1 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:50 1:50 prio-tc all:0 3:1 6:2
dcb app replace dev eth1 dscp-prio 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
check_rdma_dev eth1 rocep2s0
set_roce_tos rocep2s0 104  # DSCP 26 << 2
