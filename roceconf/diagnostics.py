"""Compiler-style diagnostics: ``FILE:LINE:COL: error[RC###]: message`` plus a one-line hint."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]

#: longest message or hint of one diagnostic, and diagnostics of one rule shown in text (see roceconf.limits)
MAX_MESSAGE_CHARS = 400
MAX_SAME_RULE = 20

#: rule ID -> hint, filled by roceconf.intent.rules; used when a diagnostic is raised without its own hint
DEFAULT_HINTS: dict[str, str] = {}


@dataclass(frozen=True, order=True)
class Diagnostic:
    file: str
    line: int
    col: int
    severity: Severity = field(compare=False)
    code: str = field(compare=False)
    message: str = field(compare=False)
    hint: str = field(default="", compare=False)
    path: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.hint and self.code in DEFAULT_HINTS:
            object.__setattr__(self, "hint", DEFAULT_HINTS[self.code])
        for name in ("message", "hint"):  # a huge value never floods a log (values are truncated first)
            text = getattr(self, name)
            if len(text) > MAX_MESSAGE_CHARS:
                cut = f"{text[:MAX_MESSAGE_CHARS]}... ({len(text) - MAX_MESSAGE_CHARS} more characters)"
                object.__setattr__(self, name, cut)

    def format(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_dict(self) -> dict:
        return asdict(self)


def capped(diags: list[Diagnostic], per_rule: int = MAX_SAME_RULE) -> list[Diagnostic]:
    """For text output: at most ``per_rule`` diagnostics of one rule, then one RC023 line saying how many
    more there are (JSON output keeps every diagnostic)."""
    count: dict[str, int] = {}
    out: list[Diagnostic] = []
    for d in diags:
        count[d.code] = count.get(d.code, 0) + 1
        if count[d.code] <= per_rule:
            out.append(d)
    for code, n in count.items():
        if n > per_rule:
            first = next(d for d in diags if d.code == code)
            out.append(
                Diagnostic(
                    first.file,
                    first.line,
                    first.col,
                    "info",
                    "RC023",
                    f"{n - per_rule} more {code} diagnostic(s) not shown ({n} in all)",
                )
            )
    return out


class BadInput(ValueError):
    """A file or argument that cannot be used: the message is one line naming the file (line and field where
    there are ones). The command line prints it as ``error: MESSAGE`` and exits 2 (roceconf.clierrors.guarded)."""


class DiagnosticError(Exception):
    """Raised with every diagnostic found, so the CLI prints them all at once."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))
