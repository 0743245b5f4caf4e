#!/usr/bin/env bash
# roceconf - RoCEv2 host NIC settings for gpu3 (platform bnxt: Broadcom Thor/Thor2,
# bnxt_en + bnxt_re). Generated file: re-render from the intent instead of editing. Safe to run again.
#
# Sources:
#   bnxt_re README.TXT "DCB Settings" / "Congestion Control" and bnxt_setupcc.sh (-u 4 = iproute2 dcb),
#   Broadcom out-of-tree driver package (copy: github.com/lykeioner/driver, bnxt_re/);
#   bnxt_re configfs.c (cc attributes, '%#x' show, '%x' store, cc_mode 1 = DCQCN-P on Thor);
#   iproute2 man pages dcb-pfc(8), dcb-ets(8), dcb-app(8); ethtool(8); ip-link(8); iproute2 dcb/dcb_app.c:
#   dcb_cmd_app_flush accepts only ethtype-prio, default-prio, dscp-prio (and pcp-prio), so APP entries
#   are written with 'dcb app replace' (dcb_cmd_app_replace adds the new entries, then removes the ones
#   they replace): a failing command never leaves the port without its DSCP map.
# Traffic classes: bnxt_re requires TC0 = L2, TC1 = RoCE, TC2 = CNP (+L2), TC3..7 = L2. roceconf keys
#   classes by priority, so prio-tc below puts the RoCE priority on TC1 and the CNP priority on TC2;
#   read-back maps each TC back to the lowest priority on it (TC1 -> RoCE priority, TC2 -> CNP priority).
# DSCP APP entries: RoCE v2 (UDP 4791) APP entry first, the CNP DSCP entry last (README requirement).
# Congestion control: configfs values are written in hex with a 0x prefix (printf '0x%x'); several
#   stores parse '%x', so a bare '26' would mean 0x26. Nothing takes effect until 'apply'.
# ETS states all 8 TCs, as linux-dcb does (tc-tsa all:strict, tc-bw all:0, then the TCs in use): before
#   upstream commit b74c2a2e ("bnxt_en: Fix DCB ETS validation", July 2025) bnxt_ets_validate looped over
#   all 8 TCs, and an unnamed TC defaulted to ETS with 0 % made it reject the whole setting ("rejecting ETS
#   config starving a TC"); a strict TC with 0 % passes both the starving check and the check of TCs
#   beyond the NIC's count (tsa and bw both 0).
# DCQCN: the bnxt_re congestion-control configfs exists only with Broadcom's out-of-tree driver
#   (configfs.c); the upstream bnxt_re has none. bnxt_cc_ready detects it: without it the script skips
#   DCQCN (DCB above is already applied), says whether Broadcom's niccli is installed to set it instead,
#   finishes every port and exits 3 naming the devices whose DCQCN is not set.
# Safest documented forms (not confirmed on every firmware): cnp_prio is rejected when the firmware
#   "service profile type" is supported (the CNP priority then follows the CNP DSCP APP entry), so a
#   rejected write only warns. roce_dscp / cnp_dscp are rejected the same way (bnxt_re configfs.c
#   cnp_dscp_store returns -EINVAL in service-profile mode): a rejected write warns and names the DSCP
#   APP entry that then decides the value, and the script goes on.
# Every DSCP 0-63 has an APP entry (unnamed DSCPs go to the intent's default class); where the intent
#   has no default class, dscp_prune deletes the entries of DSCPs it does not name. bnxt_en keeps a
#   DSCP-to-priority table (bnxt_dcb.c bnxt_hwrm_set_dscp2pri); a DSCP without an entry uses priority 0.
set -euo pipefail

EXPECTED_HOST=gpu3
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
  # check_rdma_dev NETDEV RDMA_DEV: the bnxt_re device exists (and belongs to the netdev)
  [ -e "/sys/class/infiniband/$2" ] || { echo "roceconf: RDMA device $2 (for $1) is missing" >&2; exit 1; }
  [ -e "/sys/class/infiniband/$2/device/net/$1" ] || echo "roceconf: warning: $2 is not on $1" >&2
}
configfs_ready() {
  grep -qs ' /sys/kernel/config configfs ' /proc/mounts || mount -t configfs none /sys/kernel/config
}
CC_SKIPPED=""
bnxt_cc_ready() {
  # bnxt_cc_ready RDMA_DEV: the congestion-control configfs of Broadcom's out-of-tree bnxt_re is there
  configfs_ready
  if [ -d /sys/kernel/config/bnxt_re ]; then
    mkdir -p "/sys/kernel/config/bnxt_re/$1"
    return 0
  fi
  if command -v niccli >/dev/null; then
    echo "roceconf: warning: $1: no bnxt_re congestion-control configfs (upstream bnxt_re driver): DCQCN not set here; set it with Broadcom's niccli" >&2
  else
    echo "roceconf: warning: $1: no bnxt_re congestion-control configfs (upstream bnxt_re driver) and no niccli: DCQCN not set" >&2
  fi
  CC_SKIPPED="$CC_SKIPPED $1"
  return 1
}
cc_summary() {
  # after every port: exit 3 naming the devices whose DCQCN bnxt_cc_ready skipped
  [ -z "$CC_SKIPPED" ] || { echo "roceconf: DCQCN not set on:$CC_SKIPPED (every other setting is applied)" >&2; exit 3; }
}
set_roce_tos() {
  # set_roce_tos RDMA_DEV TOS: RDMA-CM default TOS byte via configfs (bnxt_setupcc.sh writes DSCP << 2)
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
dcb ets set dev eth0 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:50 1:50 prio-tc all:0 3:1 6:2
dcb pfc set dev eth0 prio-pfc all:off 3:on
dcb app replace dev eth0 dgram-port-prio 4791:3  # RoCE v2 APP entry
dcb app replace dev eth0 dscp-prio 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
dcb app replace dev eth0 dscp-prio 48:6  # CNP DSCP APP entry last
check_rdma_dev eth0 bnxt_re0
set_roce_tos bnxt_re0 104  # DSCP 26 << 2
# bnxt_re congestion control for bnxt_re0 (hex values; nothing takes effect until apply)
if bnxt_cc_ready bnxt_re0; then
CC=/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc
printf '0x%x' 1 > "$CC/ecn_enable"  # DCQCN on
printf '0x%x' 1 > "$CC/ecn_marking"  # NIC marks RoCE packets ECT
printf '0x%x' 1 > "$CC/cc_mode"  # DCQCN-P on Thor (configfs.c mode_name_p5)
printf '0x%x' 3 > "$CC/roce_prio"  # RoCE priority
printf '0x%x' 6 > "$CC/cnp_prio" || echo "roceconf: warning: bnxt_re0 rejected cnp_prio (firmware service profile)" >&2
printf '0x%x' 26 > "$CC/roce_dscp" || echo "roceconf: warning: bnxt_re0 rejected roce_dscp 26 (firmware service profile: the DSCP APP entry decides it)" >&2
printf '0x%x' 48 > "$CC/cnp_dscp" || echo "roceconf: warning: bnxt_re0 rejected cnp_dscp 48 (firmware service profile: the DSCP APP entry decides it)" >&2
printf '0x%x' 1 > "$CC/disable_prio_vlan_tx"  # no VLAN 0 priority tag (DSCP-based PFC)
echo -n 0x1 > "$CC/apply"
fi

# ---- eth1
ip link set dev eth1 mtu 9000
ethtool -A eth1 rx off tx off || pause_is eth1 off
dcb ets set dev eth1 tc-tsa all:strict 0:ets 1:ets 2:strict tc-bw all:0 0:50 1:50 prio-tc all:0 3:1 6:2
dcb pfc set dev eth1 prio-pfc all:off 3:on
dcb app replace dev eth1 dgram-port-prio 4791:3  # RoCE v2 APP entry
dcb app replace dev eth1 dscp-prio 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
dcb app replace dev eth1 dscp-prio 48:6  # CNP DSCP APP entry last
check_rdma_dev eth1 bnxt_re1
set_roce_tos bnxt_re1 104  # DSCP 26 << 2
# bnxt_re congestion control for bnxt_re1 (hex values; nothing takes effect until apply)
if bnxt_cc_ready bnxt_re1; then
CC=/sys/kernel/config/bnxt_re/bnxt_re1/ports/1/cc
printf '0x%x' 1 > "$CC/ecn_enable"  # DCQCN on
printf '0x%x' 1 > "$CC/ecn_marking"  # NIC marks RoCE packets ECT
printf '0x%x' 1 > "$CC/cc_mode"  # DCQCN-P on Thor (configfs.c mode_name_p5)
printf '0x%x' 3 > "$CC/roce_prio"  # RoCE priority
printf '0x%x' 6 > "$CC/cnp_prio" || echo "roceconf: warning: bnxt_re1 rejected cnp_prio (firmware service profile)" >&2
printf '0x%x' 26 > "$CC/roce_dscp" || echo "roceconf: warning: bnxt_re1 rejected roce_dscp 26 (firmware service profile: the DSCP APP entry decides it)" >&2
printf '0x%x' 48 > "$CC/cnp_dscp" || echo "roceconf: warning: bnxt_re1 rejected cnp_dscp 48 (firmware service profile: the DSCP APP entry decides it)" >&2
printf '0x%x' 1 > "$CC/disable_prio_vlan_tx"  # no VLAN 0 priority tag (DSCP-based PFC)
echo -n 0x1 > "$CC/apply"
fi
cc_summary
