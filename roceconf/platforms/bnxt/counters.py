"""Broadcom NetXtreme (bnxt_en / bnxt_re) counters over SSH: ``ethtool -S <port>`` and ``hw_counters``.

Sources (``SOURCES``): Linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c (port statistics names
``rx_pfc_ena_frames_pri{p}`` / ``tx_pfc_ena_frames_pri{p}``: PFC frames received / sent per priority;
extended receive statistics ``rx_discard_packets_cos{p}``), and drivers/infiniband/hw/bnxt_re/hw_counters.c
(``tx_cnp_pkts``, ``rx_cnp_pkts``, ``rx_ecn_marked_pkts``, ``seq_err_naks_rcvd``, ``res_oos_drop_count``,
``to_retransmits``), read from ``/sys/class/net/<port>/device/infiniband/<dev>/ports/1/hw_counters/``.
bnxt reports no PFC pause duration and no "CNP handled" counter: those rules cannot fire on bnxt hosts.
Broadcom's ``cos`` queues are roceconf priorities (roceconf's bnxt script maps priority N to CoS queue N).
"""

from __future__ import annotations

from roceconf.counters.hostnic import (
    ETHTOOL,
    HW_COUNTERS,
    command_port,
    format_ethtool,
    format_grep,
    grep_files,
    key_values,
    named,
    parse_bundle,
)
from roceconf.counters.model import CounterSpec, PortCounters

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
SOURCES = {
    ETHTOOL: "Linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c: rx/tx_pfc_ena_frames_pri{p}, rx_discard_packets_cos{p}",
    HW_COUNTERS: "Linux drivers/infiniband/hw/bnxt_re/hw_counters.c: tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts, seq_err_naks_rcvd, res_oos_drop_count, to_retransmits",
}
_READERS = {ETHTOOL: key_values, HW_COUNTERS: grep_files}
_TABLES = {ETHTOOL: (ETHTOOL_PRIO, ETHTOOL_PORT), HW_COUNTERS: ({}, HW_PORT)}


def commands(ports: dict[str, str | None]) -> list[str]:
    return [t.format(port=p) for p in ports for t in (ETHTOOL, HW_COUNTERS)]


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    return parse_bundle(outputs, _READERS, _TABLES)


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    hit = command_port(command, [ETHTOOL, HW_COUNTERS])
    if hit is None:
        return None
    template, port = hit
    pc = ports.get(port)
    if pc is None:
        return f"netlink error: no device matches name ({port})" if template == ETHTOOL else ""
    if template == ETHTOOL:
        return format_ethtool(named(pc, ETHTOOL_PRIO, ETHTOOL_PORT))
    dev = rdma.get(port) or "bnxt_re0"
    return format_grep(
        f"/sys/class/net/{port}/device/infiniband/{dev}/ports/1/hw_counters", named(pc, {}, HW_PORT)
    )


COUNTERS = CounterSpec(commands=commands, parse=parse, simulate=simulate, sources=SOURCES, transport="shell")
