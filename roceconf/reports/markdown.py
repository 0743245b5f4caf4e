"""Markdown for findings (``validate``, ``check``): a summary line and one table row per finding, for a
pull-request comment or a CI job summary (``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

from collections.abc import Iterable

from roceconf.diagnostics import Diagnostic
from roceconf.reports import escape, relative_path

ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


_md = escape.md


def findings_markdown(title: str, diagnostics: Iterable[Diagnostic], summary: Iterable[str] = ()) -> str:
    ds = list(diagnostics)
    out = [f"## {title}", ""]
    out += [f"**{_md(s)}**" for s in summary]
    out.append("")
    if not ds:
        out += ["No findings.", ""]
        return "\n".join(out)
    out += ["| | rule | where | finding | hint |", "|---|---|---|---|---|"]
    for d in ds:
        out.append(
            f"| {ICON.get(d.severity, '')} {d.severity} | `{d.code}` | "
            f"`{_md(relative_path(d.file))}:{d.line}:{d.col}` | {_md(d.message)} | {_md(d.hint)} |"
        )
    out.append("")
    return "\n".join(out)
