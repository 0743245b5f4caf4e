"""What the drift, health and acceptance reports share in Markdown: cell escaping, the heading with the
summary and the per-device table, a device's section with its table header, severity counts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def md_cell(value: Any) -> str:
    """A table cell: ``|`` escaped, newlines joined (device text can never break the table)."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_head(*columns: str) -> list[str]:
    """A Markdown table's header and separator lines."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def count(items: Iterable[Any], severity: str) -> int:
    """How many of ``items`` (each with a ``severity``) are of ``severity``."""
    return sum(1 for i in items if i.severity == severity)


def overview(title: str, report: Any, summary: str, rows: Iterable[tuple[str, str, str, int, int, str]]) -> list[str]:
    """The heading, the source line, the one-line ``summary`` and the per-device table; ``rows``: (device,
    platform, status with its icon, critical count, warning count, note)."""
    out = [
        f"## {title}",
        "",
        f"Intent `{report.intent}`, source {report.source}, generated {report.generated_at}.",
        "",
        summary,
        "",
        *table_head("device", "platform", "status", "critical", "warning", "note"),
    ]
    for device, platform, status, nc, nw, note in rows:
        out.append(f"| {device} | {platform} | {status} | {nc} | {nw} | {md_cell(note)} |")
    return out


def device_section(device: str, platform: str, *columns: str) -> list[str]:
    """A device's heading and the header of its table."""
    return ["", f"### {device} ({platform})", "", *table_head(*columns)]
