"""What the drift, health and acceptance reports share: the data of a drift or health report (counts by
status and severity, exit code, the head of the JSON and of each device's JSON, the schema's common models),
and its text, Markdown and JUnit frames (cell escaping, the heading with the summary and the per-device
table, a device's section with its table header, severity counts, one test suite per device)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from roceconf.reports.escape import dumps, markup, md

if TYPE_CHECKING:  # rich and XML are imported by the reports only (the audits use this module's data part)
    from xml.etree.ElementTree import Element

    from rich.console import Console
    from rich.table import Table

# ----------------------------------------------------------------------------------------- the data
#: the severities of drift items and health findings, most severe first
SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}


def worst(items: Sequence[Any]) -> str | None:
    """The most severe of ``items``' severities; None when there are none."""
    return min((i.severity for i in items), key=SEVERITY_RANK.__getitem__) if items else None


def device_head(d: Any) -> dict[str, Any]:
    """The keys a device's JSON opens with in the drift and health reports (its own follow)."""
    return {
        "device": d.device,
        "platform": d.platform,
        "status": d.status,
        "source": d.source,
        "reason": d.reason,
        "worst_severity": d.worst,
        "attempts": d.attempts,
        "seconds": round(d.seconds, 3),
    }


class AuditReport:
    """What a drift and a health report share: the devices counted by status and what was found by severity,
    the exit code, the head of the JSON, the tally. A device is ``unknown`` or one of the first two
    statuses of :attr:`STATUS_WORDS` (nothing found, something found)."""

    intent: str
    source: str
    generated_at: str
    devices: list[Any]
    #: each status and how the tally says it: nothing found, something found, unknown
    STATUS_WORDS: ClassVar[tuple[tuple[str, str], ...]]

    def found(self, device: Any) -> Sequence[Any]:
        """What was found on ``device`` (each with a ``severity``)."""
        raise NotImplementedError

    def stale(self) -> bool:
        """Whether something besides the devices fails the report (drift: a stale acceptance baseline)."""
        return False

    @property
    def counts(self) -> dict[str, int]:
        c = {"devices": len(self.devices)}
        c.update((s, 0) for s, _word in self.STATUS_WORDS)
        c.update(critical=0, warning=0, info=0)
        for d in self.devices:
            c[d.status] += 1
            for i in self.found(d):
                c[i.severity] += 1
        return c

    @property
    def exit_code(self) -> int:
        """0 nothing found, 1 something found (or `stale`), 3 some device could not be read and nothing was
        found elsewhere, or no device was judged at all (nothing judged is never a pass)."""
        if not self.devices:
            return 3
        found = self.STATUS_WORDS[1][0]
        if any(d.status == found for d in self.devices) or self.stale():
            return 1
        if any(d.status == "unknown" for d in self.devices):
            return 3
        return 0

    def head(self) -> dict[str, Any]:
        """The JSON up to its devices (which come next)."""
        return {
            "format_version": 1,
            "intent": self.intent,
            "source": self.source,
            "generated_at": self.generated_at,
            "summary": self.counts,
            "exit_code": self.exit_code,
        }

    def tally(self, counts: dict[str, int]) -> str:
        """``3 in sync, 1 drifted, 0 unknown``: the devices by status."""
        return ", ".join(f"{counts[s]} {word}" for s, word in self.STATUS_WORDS)

    def findings_line(self, counts: dict[str, int]) -> str:
        """``2 critical, 1 warning``: what was found."""
        return f"{counts['critical']} critical, {counts['warning']} warning"


class Strict(BaseModel):
    """A model of a report's JSON: no key it does not name."""

    model_config = ConfigDict(extra="forbid")


class ReportHeadModel(Strict):
    """The head of a drift or health report (`AuditReport.head`); the summary and devices are each report's."""

    format_version: Literal[1]
    intent: str
    source: str
    generated_at: str
    summary: Any
    exit_code: Literal[0, 1, 3]


class DeviceHeadModel(Strict):
    """The head of a device in a drift or health report (`device_head`); the status is each report's."""

    device: str
    platform: str
    status: str
    source: str
    reason: str | None
    worst_severity: Literal["critical", "warning", "info"] | None
    attempts: int
    seconds: float


def shown(v: Any) -> str:
    """A drift value as the reports show it: ``unset`` for None, a mapping as ``key=value, ...``."""
    if v is None:
        return "unset"
    if isinstance(v, dict):
        return ", ".join(f"{k}={shown(x)}" for k, x in v.items())
    return str(v)


def checked_json(model: type[BaseModel], data: dict[str, Any]) -> str:
    """``data`` as JSON text, after checking it against ``model``: the output always matches its published
    schema."""
    model.model_validate(data)
    return dumps(data, indent=2) + "\n"


# ----------------------------------------------------------------------------------------- text
def text_console(color: bool, width: int) -> tuple[io.StringIO, Console]:
    """A console writing into a buffer: colour only when asked for, lines never wrapped by rich."""
    from rich.console import Console

    buf = io.StringIO()
    return buf, Console(file=buf, force_terminal=color, no_color=not color, width=width, soft_wrap=False)


def text_title(command: str, report: Any) -> str:
    """The first line: the command, the intent and where the devices were read."""
    return f"[bold]roceconf {command}[/bold]  intent {markup(report.intent)}  ({markup(report.source)})"


def text_device(d: Any, style: dict[str, str]) -> str:
    """A device's line: its status in its style, name, platform and source."""
    return f"[{style[d.status]}]{d.status.upper()}[/]  [bold]{markup(d.device)}[/bold] ({d.platform})  {markup(d.source)}"


def text_table(columns: Iterable[str], wide: Iterable[str]) -> Table:
    """A borderless table with bold headers; the ``wide`` columns fold at 60 characters."""
    from rich.table import Table

    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False, expand=False)
    for col in columns:
        t.add_column(col, overflow="fold", max_width=60 if col in wide else None)
    return t


def text_totals(report: AuditReport, nothing: str) -> str:
    """The last line: devices by status, what was found, and ``nothing`` when no device was judged."""
    c = report.counts
    return f"{c['devices']} device(s): {report.tally(c)}; {report.findings_line(c)}" + (
        f"; {nothing}" if not c["devices"] else ""
    )


# ----------------------------------------------------------------------------------------- JUnit
def junit_devices(
    root: Element,
    report: AuditReport,
    classname: str,
    cases: Callable[[Any], Iterable[tuple[str, Any]]],
    judge: Callable[[Any, Any], tuple[str, str, str] | None],
    unread: str,
) -> None:
    """One suite per device, one case per (name, key) of ``cases``: an error when the device is unknown
    (``unread``: why), a failure (message, type, text) where ``judge`` gives one."""
    from roceconf.reports import junit

    for d in report.devices:
        suite = junit.suite(root, d.device, hostname=d.platform)
        tests = failures = errors = 0
        for name, key in cases(d):
            tests += 1
            case = junit.case(suite, classname + d.device, name, time=f"{d.seconds:.3f}")
            if d.status == "unknown":
                errors += 1
                junit.error(case, f"{unread}: {d.reason}", "unknown")
                continue
            failed = judge(d, key)
            if failed is not None:
                failures += 1
                junit.failure(case, *failed)
        junit.totals(suite, tests, failures, errors)


# ----------------------------------------------------------------------------------------- Markdown
def md_cell(value: Any) -> str:
    """A table cell: ``|`` escaped, newlines joined, no raw HTML, no control characters (device text can never
    break the table nor become markup: `roceconf.reports.escape.md`)."""
    return md(value)


def table_head(*columns: str) -> list[str]:
    """A Markdown table's header and separator lines."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def count(items: Iterable[Any], severity: str) -> int:
    """How many of ``items`` (each with a ``severity``) are of ``severity``."""
    return sum(1 for i in items if i.severity == severity)


def overview(title: str, report: AuditReport, icons: dict[str, str]) -> list[str]:
    """The heading, the source line, the one-line summary and the per-device table (status with its icon,
    critical and warning counts of what was found (`AuditReport.found`), the reason of an unknown device)."""
    c = report.counts
    rows = []
    for d in report.devices:
        found = report.found(d)
        rows.append((d.device, d.platform, f"{icons[d.status]} {d.status}", count(found, "critical"),
                     count(found, "warning"), d.reason or ""))
    return overview_rows(title, report, f"**{c['devices']} devices**: {report.tally(c)} — {report.findings_line(c)}.",
                         rows)


def overview_rows(
    title: str, report: Any, summary: str, rows: Iterable[tuple[str, str, str, int, int, str]]
) -> list[str]:
    """The heading, the source line (``report.intent``, ``.source``, ``.generated_at``), the one-line
    ``summary`` and the per-device table; ``rows``: (device, platform, status with its icon, critical count,
    warning count, note)."""
    out = [
        f"## {title}",
        "",
        f"Intent `{md(report.intent)}`, source {md(report.source)}, generated {report.generated_at}.",
        "",
        summary,
        "",
        *table_head("device", "platform", "status", "critical", "warning", "note"),
    ]
    for device, platform, status, nc, nw, note in rows:
        out.append(f"| {md(device)} | {platform} | {status} | {nc} | {nw} | {md_cell(note)} |")
    return out


def device_section(device: str, platform: str, *columns: str) -> list[str]:
    """A device's heading and the header of its table."""
    return ["", f"### {md(device)} ({platform})", "", *table_head(*columns)]
