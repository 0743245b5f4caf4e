"""The cabling report as text, JSON, Markdown and JUnit (the shared writers of ``roceconf.reports``).

Device text (system names, port IDs) is escaped by the writer of each format: it can never become markup,
a terminal sequence or invalid XML.
"""

from __future__ import annotations

import json

from roceconf.cabling.rules import ALL, R_UNREAD
from roceconf.cabling.verdict import CablingReport
from roceconf.reports import junit
from roceconf.reports.escape import plain
from roceconf.reports.scaffold import count, device_section, md_cell, overview_rows


def to_json(report: CablingReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def _summary(report: CablingReport) -> str:
    c = report.counts
    return (f"{c['links']} links: {c['ok']} ok, {c['fail']} with findings, {c['unknown']} unknown; "
            f"{c['devices']} devices, {c['unknown_devices']} not read; {c['error']} errors, {c['warning']} warnings")


def to_text(report: CablingReport) -> str:
    out = [plain(f"roceconf cabling: {report.intent} ({report.source})")]
    for f in report.findings:
        out.append(plain(f"{f.device}:{f.port or '-'}: {f.severity}[{f.rule}]: {f.message}"))
    out.append(_summary(report))
    return "\n".join(out) + "\n"


def to_markdown(report: CablingReport) -> str:
    icon = {"read": "✅", "unknown": "❓"}
    out = overview_rows(
        "roceconf cabling report",
        report,
        _summary(report) + ".",
        (
            (d.device, d.platform, f"{icon[d.status]} {d.status}",
             count([f for f in report.findings if f.device == d.device], "error"),
             count([f for f in report.findings if f.device == d.device], "warning"), d.reason or "")
            for d in report.devices
        ),
    )
    for d in report.devices:
        mine = [f for f in report.findings if f.device == d.device and f.rule != R_UNREAD.id]
        if not mine:
            continue
        out += device_section(d.device, d.platform, "severity", "rule", "port", "finding", "expected", "observed")
        for f in mine:
            out.append(f"| {f.severity} | {f.rule} | {md_cell(f.port or '-')} | {md_cell(f.message)} | "
                       f"{md_cell(f.expected or '-')} | {md_cell(f.observed or '-')} |")
    return "\n".join(out) + "\n"


def to_junit(report: CablingReport) -> str:
    """One suite per device, one case per rule; failures for findings, an error case for an unread device."""
    root = junit.suites("roceconf cabling")
    for d in report.devices:
        suite = junit.suite(root, d.device, hostname=d.platform)
        tests = failures = errors = 0
        for r in ALL:
            if r.id == R_UNREAD.id:
                continue
            tests += 1
            case = junit.case(suite, f"roceconf.cabling.{d.device}", f"{r.id} {r.title}")
            if d.status == "unknown":
                errors += 1
                junit.error(case, f"not read: {d.reason}", "unknown")
                continue
            bad = [f for f in report.findings if f.device == d.device and f.rule == r.id]
            if bad:
                failures += 1
                junit.failure(case, f"{len(bad)} finding(s)", r.severity,
                              "\n".join(f"{f.port or '-'}: {f.message}" for f in bad))
        junit.totals(suite, tests, failures, errors)
    return junit.finish(root)


FORMATS = {"text": to_text, "json": to_json, "junit": to_junit, "markdown": to_markdown}


def format_report(report: CablingReport, fmt: str) -> str:
    return FORMATS[fmt](report)


__all__ = ["FORMATS", "format_report", "to_json", "to_junit", "to_markdown", "to_text"]
