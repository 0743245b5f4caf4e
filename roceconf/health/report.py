"""Health report formats: text, JSON (schemas/health-report.schema.json), JUnit XML, Markdown; Prometheus
exposition in health/prometheus.py."""

from __future__ import annotations

import json
from typing import Any, Literal

from roceconf.gcpolicy import batch
from roceconf.health.evaluate import DeviceHealth, HealthReport
from roceconf.health.rules import ALL
from roceconf.intent.rules import Rule
from roceconf.jsontext import published_schema
from roceconf.reports import escape, junit, scaffold


class FindingModel(scaffold.Strict):
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


class IntervalModel(scaffold.Strict):
    start: float
    seconds: float
    prio: dict[str, dict[str, float]]
    port: dict[str, float]
    reset: list[str]


class PortModel(scaffold.Strict):
    port: str
    partner: str | None
    intervals: list[IntervalModel]
    watchdog_shut: list[int] | None
    gauges: dict[str, dict[str, int]]
    findings: list[FindingModel]


class ItemRefModel(scaffold.Strict):
    port: str
    finding: int


class CauseModel(scaffold.Strict):
    """One finding per cause: a rule firing on a device at one priority with the same counters, on one or more
    ports (as ranges); ``items`` points at each per-port finding (port, position in the port's ``findings``)."""

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


class DeviceModel(scaffold.DeviceHeadModel):
    status: Literal["healthy", "findings", "unknown"]
    samples: list[float]
    warnings: list[str]
    ports: list[PortModel]
    findings: list[CauseModel]


class SummaryModel(scaffold.Strict):
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


class ReportModel(scaffold.ReportHeadModel):
    """roceconf health report (`roceconf health --format json`)."""

    summary: SummaryModel
    devices: list[DeviceModel]


def report_json_schema() -> dict[str, Any]:
    return published_schema(ReportModel, "health-report.schema.json", "roceconf health report")


def to_json(report: HealthReport) -> str:
    return scaffold.checked_json(ReportModel, report.to_dict())


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
    with batch():  # a fabric's results are many objects: not walked again for each table (roceconf.gcpolicy)
        return _text(report, color, width)


def _text(report: HealthReport, color: bool, width: int) -> str:
    buf, con = scaffold.text_console(color, width)
    con.print(scaffold.text_title("health", report))
    # without colour the lines of the devices that have no table are printed together, a fabric's worth in
    # a few calls (each line wrapped on its own as when printed alone; highlighting adds no style here)
    pending: list[str] = []

    def line(text: str) -> None:
        if color:
            con.print(text)
        else:
            pending.append(text)

    def flush() -> None:
        if pending:
            con.print("\n".join(pending), highlight=False)
            pending.clear()

    for d in report.devices:
        line("")
        span = (
            f"{len(d.samples)} samples over {d.samples[-1] - d.samples[0]:.1f} s"
            if len(d.samples) > 1
            else ""
        )
        line(f"{scaffold.text_device(d, _STYLE)}  {span}")
        if d.status == "unknown":
            flush()
            con.print(f"  could not read: {escape.plain(d.reason)}", markup=False)
            continue
        if not d.findings:
            continue
        flush()
        t = scaffold.text_table(("severity", "rule", "ports", "prio", "finding", "impact", "fix"),
                                ("impact", "finding", "fix"))
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
    flush()
    con.print()
    con.print(scaffold.text_totals(report, "nothing judged: no device of the intent was selected"))
    return buf.getvalue()


def to_junit(report: HealthReport) -> str:
    """One test case per device and rule; failures for findings, errors for unknown devices."""
    root = junit.suites("roceconf health")
    scaffold.junit_devices(root, report, "roceconf.health.", lambda _d: _RULE_CASES, _rule_failure, "not read")
    return junit.finish(root)


_RULE_CASES = [(f"{r.id} {r.title}", r) for r in ALL]


def _rule_failure(d: DeviceHealth, r: Rule) -> tuple[str, str, str] | None:
    bad = [x for x in d.causes if x.rule == r.id]
    if not bad:
        return None
    return (
        f"{len(bad)} finding(s) on {sum(len(x.ports) for x in bad)} port(s)",
        r.severity,
        "\n".join(
            f"[{x.severity}] {x.where or '-'} priority {_prio(x.priority)}: {x.message} - {x.impact}; fix: {x.hint}"
            for x in bad
        ),
    )


esc = escape.markup
_md = scaffold.md_cell


def to_markdown(report: HealthReport) -> str:
    out = scaffold.overview("roceconf health report", report, {"healthy": "✅", "findings": "❌", "unknown": "❓"})
    for d in report.devices:
        if not d.findings:
            continue
        out += scaffold.device_section(d.device, d.platform, "severity", "rule", "ports", "priority", "finding",
                                       "impact", "fix")
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
