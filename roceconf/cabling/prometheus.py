"""Prometheus exposition of a cabling report (``roceconf cabling --format prometheus``): a node-exporter
textfile-collector file, as ``health --format prometheus`` writes one.

* ``roceconf_cabling_link_status{a,b,status}``: 1 for the link's verdict (``ok``, ``fail``, ``unknown``), 0 for
  the others;
* ``roceconf_cabling_finding{device,port,rule,severity}`` = 1 per finding;
* with link counters: ``roceconf_cabling_link_check{device,port,check,status}`` (1 for each end's check status
  ``ok``, ``finding`` or ``unknown``, 0 for the others; a check not observable on the platform, n/a, has no
  sample at all), ``roceconf_cabling_ecmp_max_over_mean{device}`` and ``roceconf_cabling_ecmp_cv{device}`` (judged
  groups only: an unknown group has no sample, never 0), ``roceconf_cabling_ecmp_status{device,status}`` (no
  sample for an n/a group), ``roceconf_cabling_not_observable{platform,check}`` = 1 per check not observable on
  a platform (RC519);
* ``roceconf_cabling_device_read{device,platform}``: 1 when the device's LLDP neighbours were read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from roceconf.cabling.verdict import CablingReport

STATES = ("ok", "fail", "unknown")


class CablingCollector(Collector):
    def __init__(self, report: CablingReport) -> None:
        self.report = report

    def collect(self) -> Iterator[Any]:
        r = self.report
        read = GaugeMetricFamily("roceconf_cabling_device_read", "1 when the device's LLDP neighbours were read",
                                 labels=["device", "platform"])
        for d in r.devices:
            read.add_metric([d.device, d.platform], 1.0 if d.status == "read" else 0.0)
        links = GaugeMetricFamily("roceconf_cabling_link_status", "1 for the link's verdict",
                                  labels=["a", "b", "status"])
        for li in r.links:
            for s in STATES:
                links.add_metric([li.a, li.b, s], 1.0 if li.status == s else 0.0)
        finding = GaugeMetricFamily("roceconf_cabling_finding", "1 per cabling or link finding",
                                    labels=["device", "port", "rule", "severity"])
        for f in r.findings:
            finding.add_metric([f.device, f.port or "", f.rule, f.severity], 1.0)
        yield read
        yield links
        yield finding
        if r.link is None:
            return
        checks = GaugeMetricFamily("roceconf_cabling_link_check", "1 for the status of each check of a link end",
                                   labels=["device", "port", "check", "status"])
        for (dev, port), e in r.link.ends.items():
            for name, c in e.checks.items():
                if c.status == "n/a":
                    continue  # not observable on the platform: no sample (roceconf_cabling_not_observable says so)
                for s in ("ok", "finding", "unknown"):
                    checks.add_metric([dev, port, name, s], 1.0 if c.status == s else 0.0)
        yield checks
        mm = GaugeMetricFamily("roceconf_cabling_ecmp_max_over_mean",
                               "Bytes sent by the hottest ECMP member over the members' mean", labels=["device"])
        cv = GaugeMetricFamily("roceconf_cabling_ecmp_cv",
                               "Coefficient of variation of the ECMP members' bytes sent", labels=["device"])
        st = GaugeMetricFamily("roceconf_cabling_ecmp_status", "1 for the ECMP group's status",
                               labels=["device", "status"])
        for g in r.link.groups:
            if g.max_over_mean is not None and g.cv is not None:
                mm.add_metric([g.device], g.max_over_mean)
                cv.add_metric([g.device], g.cv)
            if g.status == "n/a":
                continue
            for s in ("ok", "finding", "unknown"):
                st.add_metric([g.device, s], 1.0 if g.status == s else 0.0)
        yield mm
        yield cv
        yield st
        na = GaugeMetricFamily("roceconf_cabling_not_observable",
                               "1 per link check not observable on a platform: no sourced counter (RC519)",
                               labels=["platform", "check"])
        for n in r.link.not_observable:
            na.add_metric([n.platform, n.check], 1.0)
        yield na


def exposition(report: CablingReport) -> str:
    reg = CollectorRegistry()
    reg.register(CablingCollector(report))
    return generate_latest(reg).decode()


__all__ = ["CablingCollector", "exposition"]
