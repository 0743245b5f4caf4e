"""``validate`` and ``check`` results in every format of the vocabulary (text, json, yaml, junit, markdown,
sarif, github): the one place that turns positioned findings into a report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf.diagnostics import Diagnostic


@dataclass
class ValidateResult:
    """One intent file checked by ``roceconf validate``."""

    file: str
    valid: bool
    loaded: bool
    devices: int = 0
    links: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def summary(self) -> str:
        ne = sum(1 for d in self.diagnostics if d.severity == "error")
        nw = sum(1 for d in self.diagnostics if d.severity == "warning")
        extra = f", {self.devices} devices, {self.links} links" if self.loaded else ""
        status = "valid" if self.valid else "invalid"
        return f"{self.file}: {status} ({ne} error(s), {nw} warning(s){extra})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "valid": self.valid,
            "devices": self.devices,
            "links": self.links,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def validate_files(paths: Iterable[str], strict: bool = False) -> list[ValidateResult]:
    """Validate each intent file (schema + rules); warnings fail too with ``strict``."""
    from roceconf.intent import validate

    out = []
    for path in paths:
        fab, diags = validate(path)
        bad = [d for d in diags if d.severity == "error" or (strict and d.severity == "warning")]
        out.append(
            ValidateResult(
                file=path,
                valid=not bad and fab is not None,
                loaded=fab is not None,
                devices=len(fab.devices) if fab else 0,
                links=len(fab.links) if fab else 0,
                diagnostics=list(diags),
            )
        )
    return out


def catalogue() -> list[Any]:
    """Every rule, sorted by ID (importing the fabric checks, health and acceptance registers the RC2xx / RC3xx /
    RC4xx rules)."""
    import roceconf.acceptance  # noqa: F401
    import roceconf.fabric  # noqa: F401
    import roceconf.health  # noqa: F401
    from roceconf.intent.rules import RULES

    return sorted(RULES.values(), key=lambda r: r.id)


def check_rules() -> list[Any]:
    """The rules `roceconf check` runs (the RC2xx rules defined with the fabric checks)."""
    from roceconf.fabric import checks
    from roceconf.intent.rules import Rule

    return sorted(
        {v.id: v for v in vars(checks).values() if isinstance(v, Rule)}.values(), key=lambda r: r.id
    )


def validate_rules() -> list[Any]:
    """The rules `roceconf validate` runs: the catalogue without the fabric checks."""
    skip = {r.id for r in check_rules()}
    return [r for r in catalogue() if r.id not in skip]


def format_validate(results: list[ValidateResult], fmt: str, strict: bool = False) -> str:
    from roceconf import reports

    diags = [d for r in results for d in r.diagnostics]
    summary = [r.summary() for r in results]
    if fmt == "text":
        from roceconf.diagnostics import capped
        from roceconf.reports import escape

        lines = []
        for r in results:
            lines += [escape.diagnostic(d) for d in capped(r.diagnostics)]
            lines.append(r.summary())
        return "\n".join(lines) + "\n"
    if fmt in ("json", "yaml"):
        data = {"valid": all(r.valid for r in results), "files": [r.to_dict() for r in results]}
        return reports.to_data(data, fmt)
    failing = ("error", "warning") if strict else ("error",)
    return _findings(fmt, "roceconf validate", diags, summary, validate_rules(), {}, failing=failing)


def format_check(result: Any, fmt: str) -> str:
    """A :class:`roceconf.fabric.CheckResult` as ``fmt``."""
    from roceconf import reports

    if fmt == "text":
        from roceconf.fabric.report import check_text

        return check_text(result)
    if fmt in ("json", "yaml"):
        return reports.to_data(result.to_dict(), fmt)
    summary = [check_text_summary(result)]
    return _findings(fmt, "roceconf check", result.diagnostics, summary, check_rules(), result.unreadable)


def check_text_summary(result: Any) -> str:
    from roceconf.fabric.report import check_text

    return check_text(result).rstrip("\n").splitlines()[-1]


def _findings(
    fmt: str,
    title: str,
    diags: list[Diagnostic],
    summary: list[str],
    rules: list[Any],
    unreadable: dict[str, str],
    base: str | Path | None = None,
    failing: tuple[str, ...] = ("error", "warning"),
) -> str:
    from roceconf.reports.causes import same_cause

    diags = same_cause(diags)  # one result per cause: the links of a mesh that fail alike are one
    if fmt == "sarif":
        from roceconf.reports.sarif import to_sarif

        return to_sarif(diags, base=base, successful=not unreadable, catalog=catalogue())
    if fmt == "github":
        from roceconf.reports.github import to_github

        return to_github(diags, summary, base)  # an unreadable device is a finding (RC215) of its own
    if fmt == "junit":
        from roceconf.reports.junit import findings_junit

        return findings_junit(title, diags, rules, unreadable, failing=failing)
    if fmt == "markdown":
        from roceconf.reports.markdown import findings_markdown

        return findings_markdown(title, diags, summary)
    raise ValueError(f"unknown format {fmt!r}")


def format_plan(plan: Any, fmt: str, color: bool = False) -> str:
    """A :class:`roceconf.plan.Plan` as ``fmt`` (text, markdown and json are the plan module's own)."""
    from roceconf import plan as plan_mod
    from roceconf import reports
    from roceconf.plan.output import _headline

    if fmt == "yaml":
        return reports.to_yaml(plan.model_dump(mode="json"))
    if fmt == "junit":
        from roceconf.reports.junit import plan_junit

        return plan_junit(plan)
    if fmt == "github":
        from roceconf.reports.github import annotation

        lines = [
            annotation(
                "error" if d.severity == "error" else "warning" if d.severity == "warning" else "notice",
                d.message,
                file=reports.relative_path(d.file) if d.file else None,
                line=d.line,
                col=d.col,
                title=d.code,
            )
            for d in plan.diagnostics
        ]
        lines.append(annotation("notice", _headline(plan), title="roceconf plan"))
        return "\n".join(lines) + "\n" + plan_mod.to_text(plan, color=False)
    return plan_mod.format_plan(plan, fmt, color=color)
