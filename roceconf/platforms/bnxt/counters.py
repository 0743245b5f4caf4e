"""Broadcom NetXtreme (bnxt_en / bnxt_re) counters over SSH: ``ethtool -S <port>`` and ``hw_counters``.

Sources (``COUNTERS.sources``): Linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (port statistics names
``rx_pfc_ena_frames_pri{p}`` / ``tx_pfc_ena_frames_pri{p}``: PFC frames received / sent per priority;
extended receive statistics ``rx_discard_packets_cos{p}``), and drivers/infiniband/hw/bnxt_re/hw_counters.c
(``tx_cnp_pkts``, ``rx_cnp_pkts``, ``rx_ecn_marked_pkts``, ``seq_err_naks_rcvd``, ``res_oos_drop_count``,
``to_retransmits``), read from ``/sys/class/net/<port>/device/infiniband/<dev>/ports/1/hw_counters/``.
bnxt reports no PFC pause duration and no "CNP handled" counter: those rules cannot fire on bnxt hosts.
Broadcom's ``cos`` queues are roceconf priorities (roceconf's bnxt script maps priority N to CoS queue N).
"""

from __future__ import annotations

from roceconf.counters.hostnic import ethtool_and_hw_counters

ETHTOOL_PRIO = {
    "rx_pfc_ena_frames_pri{p}": "pfc_rx",
    "tx_pfc_ena_frames_pri{p}": "pfc_tx",
    "rx_discard_packets_cos{p}": "pg_drops",
}
ETHTOOL_PORT: dict[str, str] = {}
HW_PORT = {
    "tx_cnp_pkts": "cnp_sent",
    "rx_cnp_pkts": "cnp_received",
    "rx_ecn_marked_pkts": "ecn_roce_rx",
    "seq_err_naks_rcvd": "packet_seq_err",
    "res_oos_drop_count": "out_of_sequence",
    "to_retransmits": "local_ack_timeout_err",
}
COUNTERS = ethtool_and_hw_counters(
    ETHTOOL_PRIO,
    ETHTOOL_PORT,
    HW_PORT,
    ethtool_source="Linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c: rx/tx_pfc_ena_frames_pri{p}, rx_discard_packets_cos{p}",
    hw_source="Linux drivers/infiniband/hw/bnxt_re/hw_counters.c: tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts, seq_err_naks_rcvd, res_oos_drop_count, to_retransmits",
    lab_rdma_device="bnxt_re0",
)
