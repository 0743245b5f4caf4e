"""Compiler-style diagnostics: ``FILE:LINE:COL: error[RC###]: message`` plus a one-line hint."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]

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

    def format(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_dict(self) -> dict:
        return asdict(self)


class DiagnosticError(Exception):
    """Raised with every diagnostic found, so the CLI prints them all at once."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))
