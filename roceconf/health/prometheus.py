"""Prometheus exposition of a health evaluation (prometheus-client): a node-exporter textfile-collector file
(``--format prometheus --output F``) or an HTTP endpoint (``--serve PORT``, 127.0.0.1 by default).

Names follow the Prometheus conventions (base units, ``_total`` for counters): the raw counter totals of the
last sample (``roceconf_pfc_pause_frames_total{device,port,priority,direction}``, ...), the mean rates over
the samples as gauges (``roceconf_pfc_pause_frames_per_second``), and the findings
(``roceconf_health_finding{device,port,priority,rule,severity}`` = 1).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from roceconf.health.evaluate import HealthReport

# neutral counter -> (metric base name, help, extra label name, label value, scale)
_PRIO = {
    "pfc_rx": ("roceconf_pfc_pause_frames", "PFC pause frames per priority", "direction", "rx", 1.0),
    "pfc_tx": ("roceconf_pfc_pause_frames", "PFC pause frames per priority", "direction", "tx", 1.0),
    "pfc_rx_us": ("roceconf_pfc_pause_seconds", "Time paused by PFC per priority", "direction", "rx", 1e-6),
    "pfc_tx_us": ("roceconf_pfc_pause_seconds", "Time paused by PFC per priority", "direction", "tx", 1e-6),
    "queue_drops": ("roceconf_dropped_packets", "Packets dropped per priority", "stage", "egress_queue", 1.0),
    "pg_drops": ("roceconf_dropped_packets", "Packets dropped per priority", "stage", "ingress", 1.0),
    "ecn_marked": ("roceconf_ecn_marked_packets", "Packets ECN-marked per egress queue", None, None, 1.0),
    "wd_detected": (
        "roceconf_pfc_watchdog_events",
        "PFC watchdog storm events per priority",
        "event",
        "detected",
        1.0,
    ),
    "wd_restored": (
        "roceconf_pfc_watchdog_events",
        "PFC watchdog storm events per priority",
        "event",
        "restored",
        1.0,
    ),
}
_PORT = {
    "cnp_sent": ("roceconf_cnp_packets", "RoCE congestion notification packets", "event", "sent"),
    "cnp_received": ("roceconf_cnp_packets", "RoCE congestion notification packets", "event", "received"),
    "cnp_handled": ("roceconf_cnp_packets", "RoCE congestion notification packets", "event", "handled"),
    "cnp_ignored": ("roceconf_cnp_packets", "RoCE congestion notification packets", "event", "ignored"),
    "ecn_roce_rx": (
        "roceconf_roce_ecn_marked_received_packets",
        "ECN-marked RoCE packets received",
        None,
        None,
    ),
    "out_of_sequence": ("roceconf_roce_errors", "RoCE transport errors", "error", "out_of_sequence"),
    "packet_seq_err": ("roceconf_roce_errors", "RoCE transport errors", "error", "packet_seq_err"),
    "local_ack_timeout_err": (
        "roceconf_roce_errors",
        "RoCE transport errors",
        "error",
        "local_ack_timeout_err",
    ),
    "implied_nak_seq_err": ("roceconf_roce_errors", "RoCE transport errors", "error", "implied_nak_seq_err"),
    "rx_discards_phy": (
        "roceconf_physical_discarded_packets",
        "Packets discarded by the physical port",
        None,
        None,
    ),
}


class ReportCollector(Collector):
    """Metrics of one HealthReport (replace ``report`` to expose a newer evaluation)."""

    def __init__(self, report: HealthReport) -> None:
        self.report = report

    def collect(self) -> Iterator[Any]:
        r = self.report
        fams: dict[str, Any] = {}

        def fam(kind: type, name: str, doc: str, labels: list[str]) -> Any:
            if name not in fams:
                fams[name] = kind(name, doc, labels=labels)
            return fams[name]

        up = GaugeMetricFamily(
            "roceconf_health_device_up",
            "1 when the device's counters were read and evaluated",
            labels=["device", "platform"],
        )
        status = GaugeMetricFamily(
            "roceconf_health_device_status", "1 for the device's health status", labels=["device", "status"]
        )
        finding = GaugeMetricFamily(
            "roceconf_health_finding",
            "1 per health finding",
            labels=["device", "port", "priority", "rule", "severity"],
        )
        for d in r.devices:
            up.add_metric([d.device, d.platform], 0.0 if d.status == "unknown" else 1.0)
            for s in ("healthy", "findings", "unknown"):
                status.add_metric([d.device, s], 1.0 if d.status == s else 0.0)
            for f in d.findings:
                finding.add_metric(
                    [
                        d.device,
                        f.port or "",
                        "" if f.priority is None else str(f.priority),
                        f.rule,
                        f.severity,
                    ],
                    1.0,
                )
            for ph in d.ports.values():
                last = ph.last
                if last is None:
                    continue
                for c, vals in last.prio.items():
                    if c not in _PRIO:
                        continue
                    base, doc, lname, lval, scale = _PRIO[c]
                    labels = ["device", "port", "priority"] + ([lname] if lname else [])
                    tot = fam(CounterMetricFamily, base, doc, labels)
                    rate = fam(
                        GaugeMetricFamily, base + "_per_second", doc + ", mean rate over the samples", labels
                    )
                    for p, v in sorted(vals.items()):
                        lv = [d.device, ph.port, str(p)] + ([lval] if lval else [])
                        tot.add_metric(lv, v * scale)
                        m = ph.mean(c, p)
                        if m is not None:
                            rate.add_metric(lv, m * scale)
                for c, v in last.port.items():
                    if c not in _PORT:
                        continue
                    base, doc, lname, lval = _PORT[c]
                    labels = ["device", "port"] + ([lname] if lname else [])
                    lv = [d.device, ph.port] + ([lval] if lval else [])
                    fam(CounterMetricFamily, base, doc, labels).add_metric(lv, float(v))
                    m = ph.mean(c)
                    if m is not None:
                        fam(
                            GaugeMetricFamily,
                            base + "_per_second",
                            doc + ", mean rate over the samples",
                            labels,
                        ).add_metric(lv, m)
                for g, vals in last.gauges.items():
                    wm = fam(
                        GaugeMetricFamily,
                        "roceconf_buffer_watermark_bytes",
                        "Buffer high watermark per priority",
                        ["device", "port", "priority", "buffer"],
                    )
                    for p, v in sorted(vals.items()):
                        wm.add_metric(
                            [d.device, ph.port, str(p), g.replace("_watermark_bytes", "")], float(v)
                        )
                if last.wd_read:
                    shut = fam(
                        GaugeMetricFamily,
                        "roceconf_pfc_watchdog_queue_shut",
                        "1 when the PFC watchdog holds the priority's queue shut",
                        ["device", "port", "priority"],
                    )
                    for p in last.wd_read:  # a queue whose state was not read has no sample, never 0
                        shut.add_metric([d.device, ph.port, str(p)], 1.0 if p in (last.wd_shut or []) else 0.0)
        yield up
        yield status
        yield finding
        yield from fams.values()
        ts = GaugeMetricFamily(
            "roceconf_health_last_evaluation_timestamp_seconds", "When the evaluation was made (Unix time)"
        )
        ts.add_metric(
            [],
            time.time()
            if not r.devices
            else max((d.samples[-1] for d in r.devices if d.samples), default=time.time()),
        )
        yield ts


def registry(report: HealthReport) -> tuple[CollectorRegistry, ReportCollector]:
    reg = CollectorRegistry()
    col = ReportCollector(report)
    reg.register(col)
    return reg, col


def exposition(report: HealthReport) -> str:
    reg, _ = registry(report)
    return generate_latest(reg).decode()


def serve(
    report: HealthReport,
    port: int,
    address: str = "127.0.0.1",
    seconds: float = 60.0,
    announce: Callable[[int], None] | None = None,
) -> int:
    """Serve the evaluation's metrics on http://address:port/metrics for ``seconds``, then stop by itself.
    ``announce(port)`` is called once listening (port 0 picks a free one). Returns the port bound."""
    from prometheus_client import start_http_server

    reg, _ = registry(report)
    server, thread = start_http_server(port, addr=address, registry=reg)
    try:
        bound = int(server.server_address[1])
        if announce is not None:
            announce(bound)
        time.sleep(max(0.0, seconds))
        return bound
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
