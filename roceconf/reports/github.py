"""GitHub Actions workflow commands: one ``::error file=F,line=L,col=C,title=RC123::message`` per finding.

GitHub shows them as annotations on the pull request's changed lines and in the run summary. Escaping
follows the runner (actions/toolkit ``command.ts``): ``%``, CR and LF in the message; also ``:`` and ``,``
in property values.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from roceconf.diagnostics import Diagnostic
from roceconf.reports import relative_path

#: roceconf severity -> workflow command
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def annotation(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
    if line and line >= 1:
        props.append(f"line={line}")
        if col and col >= 1:
            props.append(f"col={col}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{level}" + (" " + ",".join(props) if props else "")
    return f"{head}::{escape_data(message)}"


def diagnostic_annotation(d: Diagnostic, base: str | Path | None = None) -> str:
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return annotation(
        COMMANDS.get(d.severity, "warning"),
        message,
        file=relative_path(d.file, base),
        line=d.line,
        col=d.col,
        title=d.code,
    )


def to_github(
    diagnostics: Iterable[Diagnostic], summary: Iterable[str] = (), base: str | Path | None = None
) -> str:
    """Annotations for every finding, then the plain summary lines (shown in the log as they are)."""
    lines = [diagnostic_annotation(d, base) for d in diagnostics]
    lines += list(summary)
    return "\n".join(lines) + "\n" if lines else ""
