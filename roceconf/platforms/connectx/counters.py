"""NVIDIA ConnectX (mlx5) counters over SSH: ``ethtool -S <port>`` and the RDMA device's ``hw_counters``.

Sources (``COUNTERS.sources``): Linux kernel documentation, Documentation/networking/device_drivers/ethernet/
mellanox/mlx5/counters.rst ("Physical port counters": ``rx_prio[p]_pause``, ``rx_prio[p]_pause_duration``,
``tx_prio[p]_pause``, ``tx_prio[p]_pause_duration`` in microseconds, ``rx_prio[p]_discards``,
``rx_discards_phy``) and NVIDIA's "Understanding mlx5 Linux Counters and Status Parameters"
(``/sys/class/infiniband/<dev>/ports/<port>/hw_counters/``: ``np_cnp_sent``, ``np_ecn_marked_roce_packets``,
``rp_cnp_handled``, ``rp_cnp_ignored``, ``out_of_sequence``, ``packet_seq_err``, ``local_ack_timeout_err``,
``implied_nak_seq_err``). The RDMA device of a netdev is found through
``/sys/class/net/<port>/device/infiniband/`` (the same path roceconf's read-back uses).
"""

from __future__ import annotations

from roceconf.counters.hostnic import ethtool_and_hw_counters

ETHTOOL_PRIO = {
    "rx_prio{p}_pause": "pfc_rx",
    "tx_prio{p}_pause": "pfc_tx",
    "rx_prio{p}_pause_duration": "pfc_rx_us",
    "tx_prio{p}_pause_duration": "pfc_tx_us",
    "rx_prio{p}_discards": "pg_drops",
}
ETHTOOL_PORT = {"rx_discards_phy": "rx_discards_phy"}
HW_PORT = {
    "np_cnp_sent": "cnp_sent",
    "np_ecn_marked_roce_packets": "ecn_roce_rx",
    "rp_cnp_handled": "cnp_handled",
    "rp_cnp_ignored": "cnp_ignored",
    "out_of_sequence": "out_of_sequence",
    "packet_seq_err": "packet_seq_err",
    "local_ack_timeout_err": "local_ack_timeout_err",
    "implied_nak_seq_err": "implied_nak_seq_err",
}
COUNTERS = ethtool_and_hw_counters(
    ETHTOOL_PRIO,
    ETHTOOL_PORT,
    HW_PORT,
    ethtool_source="Linux Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst: rx/tx_prio[p]_pause, rx/tx_prio[p]_pause_duration (us), rx_prio[p]_discards, rx_discards_phy",
    hw_source="NVIDIA, Understanding mlx5 Linux Counters: hw_counters np_cnp_sent, np_ecn_marked_roce_packets, rp_cnp_handled, rp_cnp_ignored, out_of_sequence, packet_seq_err, local_ack_timeout_err, implied_nak_seq_err",
    lab_rdma_device="mlx5_0",
)
