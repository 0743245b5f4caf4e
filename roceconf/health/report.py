"""Health report formats: text, JSON (schemas/health-report.schema.json), JUnit XML, Markdown; Prometheus
exposition in health/prometheus.py."""

from __future__ import annotations

import io
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.table import Table

from roceconf.health.evaluate import HealthReport
from roceconf.health.rules import ALL
from roceconf.reports import escape, junit
from roceconf.reports.scaffold import count, device_section, md_cell, overview


class _R(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FindingModel(_R):
    rule: str
    severity: Literal["critical", "warning", "info"]
    title: str
    device: str
    port: str | None
    priority: int | None
    counters: list[str]
    value: float | None
    threshold: float | None
    message: str
    impact: str
    hint: str


class IntervalModel(_R):
    start: float
    seconds: float
    prio: dict[str, dict[str, float]]
    port: dict[str, float]
    reset: list[str]


class PortModel(_R):
    port: str
    partner: str | None
    intervals: list[IntervalModel]
    watchdog_shut: list[int] | None
    gauges: dict[str, dict[str, int]]
    findings: list[FindingModel]


class ItemRefModel(_R):
    port: str
    finding: int


class CauseModel(_R):
    """One finding per cause: a rule firing on a device at one priority with the same counters and threshold,
    on one or more ports (as ranges); ``items`` points at each per-port finding (port, position in the port's
    ``findings``)."""

    rule: str
    severity: Literal["critical", "warning", "info"]
    title: str
    priority: int | None
    counters: list[str]
    thresholds: list[float]
    interfaces: list[str]
    ports: int
    value_min: float | None
    value_max: float | None
    message: str
    impact: str
    hint: str
    items: list[ItemRefModel]


class DeviceModel(_R):
    device: str
    platform: str
    status: Literal["healthy", "findings", "unknown"]
    source: str
    reason: str | None
    worst_severity: Literal["critical", "warning", "info"] | None
    attempts: int
    seconds: float
    samples: list[float]
    warnings: list[str]
    ports: list[PortModel]
    findings: list[CauseModel]


class SummaryModel(_R):
    """Devices by status; ``causes`` (one finding per cause) with the ``ports`` they cover and the per-port
    ``items``; the severities count causes."""

    devices: int
    healthy: int
    findings: int
    unknown: int
    causes: int
    ports: int
    items: int
    critical: int
    warning: int
    info: int


class ReportModel(_R):
    """roceconf health report (`roceconf health --format json`)."""

    format_version: Literal[1]
    intent: str
    source: str
    generated_at: str
    summary: SummaryModel
    exit_code: Literal[0, 1, 3]
    devices: list[DeviceModel]


def report_json_schema() -> dict[str, Any]:
    s = ReportModel.model_json_schema()
    s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    s["$id"] = "https://roceconf.dev/schemas/health-report.schema.json"
    s["title"] = "roceconf health report"
    return s


def to_json(report: HealthReport) -> str:
    data = report.to_dict()
    ReportModel.model_validate(data)  # the output always matches its published schema
    return escape.dumps(data, indent=2) + "\n"


_STYLE = {
    "critical": "bold red",
    "warning": "yellow",
    "info": "dim",
    "healthy": "green",
    "findings": "red",
    "unknown": "magenta",
}


def _prio(p: int | None) -> str:
    return "-" if p is None else str(p)


def to_text(report: HealthReport, color: bool = False, width: int = 140) -> str:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=color, no_color=not color, width=width, soft_wrap=False)
    c = report.counts
    con.print(f"[bold]roceconf health[/bold]  intent {esc(report.intent)}  ({esc(report.source)})")
    for d in report.devices:
        con.print()
        span = (
            f"{len(d.samples)} samples over {d.samples[-1] - d.samples[0]:.1f} s"
            if len(d.samples) > 1
            else ""
        )
        con.print(
            f"[{_STYLE[d.status]}]{d.status.upper()}[/]  [bold]{esc(d.device)}[/bold] ({d.platform})  {esc(d.source)}  {span}"
        )
        if d.status == "unknown":
            con.print(f"  could not read: {escape.plain(d.reason)}", markup=False)
            continue
        if not d.findings:
            continue
        t = Table(show_header=True, header_style="bold", box=None, pad_edge=False, expand=False)
        for col in ("severity", "rule", "ports", "prio", "finding", "impact", "fix"):
            t.add_column(col, overflow="fold", max_width=40 if col in ("impact", "finding", "fix") else None)
        for x in d.causes:
            t.add_row(
                f"[{_STYLE[x.severity]}]{x.severity}[/]",
                esc(x.rule),
                esc(x.where or "-"),
                _prio(x.priority),
                esc(f"{x.title}: {x.message}"),
                esc(x.impact),
                esc(x.hint),
            )
        con.print(t)
    con.print()
    con.print(
        f"{c['devices']} device(s): {c['healthy']} healthy, {c['findings']} with findings, {c['unknown']} unknown; "
        + summary_line(c)
        + ("; nothing judged: no device of the intent was selected" if not c["devices"] else "")
    )
    return buf.getvalue()


def summary_line(c: dict[str, int]) -> str:
    """``2 finding(s) on 40 port(s): 1 critical, 1 warning (41 per-port finding(s))``: causes, not ports."""
    return (f"{c['causes']} finding(s) on {c['ports']} port(s): {c['critical']} critical, {c['warning']} warning "
            f"({c['items']} per-port finding(s))")


def to_junit(report: HealthReport) -> str:
    """One test case per device and rule; failures for findings, errors for unknown devices."""
    root = junit.suites("roceconf health")
    for d in report.devices:
        suite = junit.suite(root, d.device, hostname=d.platform)
        tests = failures = errors = 0
        for r in ALL:
            tests += 1
            case = junit.case(suite, f"roceconf.health.{d.device}", f"{r.id} {r.title}", time=f"{d.seconds:.3f}")
            if d.status == "unknown":
                errors += 1
                junit.error(case, f"not read: {d.reason}", "unknown")
                continue
            bad = [x for x in d.causes if x.rule == r.id]
            if bad:
                failures += 1
                junit.failure(
                    case,
                    f"{len(bad)} finding(s) on {sum(len(x.ports) for x in bad)} port(s)",
                    r.severity,
                    "\n".join(
                        f"[{x.severity}] {x.where or '-'} priority {_prio(x.priority)}: {x.message} - {x.impact}; "
                        f"fix: {x.hint}"
                        for x in bad
                    ),
                )
        junit.totals(suite, tests, failures, errors)
    return junit.finish(root)


esc = escape.markup
_md = md_cell


def to_markdown(report: HealthReport) -> str:
    c = report.counts
    icon = {"healthy": "✅", "findings": "❌", "unknown": "❓"}
    out = overview(
        "roceconf health report",
        report,
        f"**{c['devices']} devices**: {c['healthy']} healthy, {c['findings']} with findings, {c['unknown']} unknown — "
        f"{summary_line(c)}.",
        (
            (d.device, d.platform, f"{icon[d.status]} {d.status}", count(d.causes, "critical"),
             count(d.causes, "warning"), d.reason or "")
            for d in report.devices
        ),
    )
    for d in report.devices:
        if not d.findings:
            continue
        out += device_section(d.device, d.platform, "severity", "rule", "ports", "priority", "finding", "impact",
                              "fix")
        for x in d.causes:
            out.append(
                f"| {x.severity} | {_md(x.rule)} | {_md(x.where or '-')} | {_prio(x.priority)} | "
                f"{_md(x.title)}: {_md(x.message)} | {_md(x.impact)} | {_md(x.hint)} |"
            )
    return "\n".join(out) + "\n"


def to_prometheus(report: HealthReport) -> str:
    from roceconf.health.prometheus import exposition

    return exposition(report)


def to_yaml(report: HealthReport) -> str:
    from roceconf.reports import to_yaml as yaml_of

    return yaml_of(json.loads(to_json(report)))


FORMATS = {
    "text": to_text,
    "json": to_json,
    "yaml": to_yaml,
    "junit": to_junit,
    "markdown": to_markdown,
    "prometheus": to_prometheus,
}


def format_report(report: HealthReport, fmt: str, color: bool = False) -> str:
    """The report as ``fmt`` (text, json, yaml, junit, markdown, prometheus); ``color`` for text only."""
    if fmt == "text":
        return to_text(report, color=color)
    return FORMATS[fmt](report)
