"""Verdict formats: text, JSON (schemas/acceptance-verdict.schema.json), JUnit XML, Markdown."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from roceconf.acceptance.verdict import Verdict
from roceconf.reports import junit


class _R(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FigureModel(_R):
    size: int
    value: float
    unit: str
    bound: float | None
    ok: bool | None
    repeats: int


class TestModel(_R):
    id: str
    tool: str
    kind: str
    status: Literal["pass", "fail", "missing", "unjudged"]
    files: list[str]
    figures: list[FigureModel]


class FindingModel(_R):
    rule: str
    severity: Literal["fail", "warning"]
    test: str
    message: str
    file: str | None
    size: int | None


class VerdictModel(_R):
    """`roceconf acceptance verdict --format json`."""

    format_version: Literal[1]
    generated_at: str
    plan: str | None
    traffic_class: int | None
    passed: bool
    exit_code: int
    summary: dict[str, int]
    tests: list[TestModel]
    findings: list[FindingModel]


def verdict_json_schema() -> dict[str, Any]:
    s = VerdictModel.model_json_schema()
    s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    s["$id"] = "https://roceconf.dev/schemas/acceptance-verdict.schema.json"
    s["title"] = "roceconf acceptance verdict"
    return s


def to_json(v: Verdict) -> str:
    data = v.to_dict()
    VerdictModel.model_validate(data)  # the output always matches its published schema
    return json.dumps(data, indent=2) + "\n"


def to_text(v: Verdict) -> str:
    c = v.counts
    lines = [
        f"acceptance verdict{f' for fabric {v.plan}' if v.plan else ''}: {'PASS' if v.passed else 'FAIL'} "
        f"({c['pass']} passed, {c['fail']} failed, {c['missing']} missing, {c['unjudged']} not judged; "
        f"{c['findings_warning']} warning(s))"
    ]
    for t in v.tests:
        figs = ", ".join(
            f"{f.size}B {f.value:g}{f.unit}" + ("" if f.ok is None else (" ok" if f.ok else f" < {f.bound:g}"))
            for f in t.figures[-3:]
        )
        lines.append(f"  {t.status.upper():8} {t.id}{': ' + figs if figs else ''}")
    if v.findings:
        lines.append("")
    for f in v.findings:
        lines.append(f"{f.severity}[{f.rule}]: {f.test}: {f.message}")
    return "\n".join(lines) + "\n"


def to_markdown(v: Verdict) -> str:
    lines = [
        f"## Acceptance verdict{f' — `{v.plan}`' if v.plan else ''}: **{'PASS' if v.passed else 'FAIL'}**",
        "",
        "| test | status | figures |",
        "|---|---|---|",
    ]
    for t in v.tests:
        figs = "; ".join(f"{f.size} B: {f.value:g} {f.unit}" for f in t.figures[-3:])
        lines.append(f"| `{t.id}` | {t.status} | {figs} |")
    if v.findings:
        lines += ["", "| rule | severity | test | finding |", "|---|---|---|---|"]
        for f in v.findings:
            lines.append(f"| {f.rule} | {f.severity} | `{f.test}` | {f.message.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def to_junit(v: Verdict) -> str:
    suite = junit.suite(None, "roceconf-acceptance")
    junit.totals(suite, len(v.tests), sum(1 for t in v.tests if t.status in ("fail", "missing")), 0)
    by_test: dict[str, list[str]] = {}
    for f in v.findings:
        by_test.setdefault(f.test, []).append(f"{f.severity}[{f.rule}]: {f.message}")
    for t in v.tests:
        case = junit.case(suite, t.tool or "result", t.id)
        msgs = by_test.get(t.id, [])
        if t.status in ("fail", "missing"):
            junit.failure(case, msgs[0] if msgs else t.status, text="\n".join(msgs))
        elif msgs:
            junit.output(case, "\n".join(msgs))
    return junit.finish(suite)


FORMATS: dict[str, Callable[[Verdict], str]] = {
    "text": to_text,
    "json": to_json,
    "junit": to_junit,
    "markdown": to_markdown,
}

__all__ = ["FORMATS", "VerdictModel", "verdict_json_schema"]
