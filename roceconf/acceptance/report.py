"""Verdict formats: text, JSON (schemas/acceptance-verdict.schema.json), JUnit XML, Markdown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from roceconf.acceptance.verdict import Verdict
from roceconf.jsontext import published_schema
from roceconf.reports import escape, junit, scaffold

_p = escape.plain
_md = escape.md


class FigureModel(scaffold.Strict):
    size: int
    value: float
    unit: str
    bound: float | None
    ok: bool | None
    repeats: int


class TestModel(scaffold.Strict):
    id: str
    tool: str
    kind: str
    status: Literal["pass", "fail", "missing", "unjudged"]
    files: list[str]
    figures: list[FigureModel]


class FindingModel(scaffold.Strict):
    rule: str
    severity: Literal["fail", "warning"]
    test: str
    message: str
    file: str | None
    size: int | None


class CauseModel(scaffold.Strict):
    """One finding per cause: findings of one test and rule that differ only in their numbers (``items``:
    their positions in ``findings``; ``sizes``: the message sizes they were found at)."""

    rule: str
    severity: Literal["fail", "warning"]
    test: str
    message: str
    sizes: list[int]
    items: list[int]


class VerdictModel(scaffold.Strict):
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
    causes: list[CauseModel]


def verdict_json_schema() -> dict[str, Any]:
    return published_schema(VerdictModel, "acceptance-verdict.schema.json", "roceconf acceptance verdict")


def to_json(v: Verdict) -> str:
    return scaffold.checked_json(VerdictModel, v.to_dict())


def to_text(v: Verdict) -> str:
    c = v.counts
    lines = [
        f"acceptance verdict{f' for fabric {_p(v.plan)}' if v.plan else ''}: {v.headline} "
        f"({c['pass']} passed, {c['fail']} failed, {c['missing']} missing, {c['unjudged']} not judged; "
        f"{c['causes_warning']} warning(s); {c['causes_fail'] + c['causes_warning']} finding(s) for "
        f"{c['findings_fail'] + c['findings_warning']} per-size finding(s))"
    ]
    for t in v.tests:
        figs = ", ".join(
            f"{f.size}B {f.value:g}{_p(f.unit)}" + ("" if f.ok is None else (" ok" if f.ok else f" < {f.bound:g}"))
            for f in t.figures[-3:]
        )
        lines.append(f"  {t.status.upper():8} {_p(t.id)}{': ' + figs if figs else ''}")
    if v.findings:
        lines.append("")
    for x in v.causes:
        lines.append(f"{x.first.severity}[{_p(x.first.rule)}]: {_p(x.first.test)}: {_p(x.message)}")
    return "\n".join(lines) + "\n"


def to_markdown(v: Verdict) -> str:
    lines = [
        f"## Acceptance verdict{f' — `{_md(v.plan)}`' if v.plan else ''}: **{v.headline}**",
        "",
        "| test | status | figures |",
        "|---|---|---|",
    ]
    for t in v.tests:
        figs = "; ".join(f"{f.size} B: {f.value:g} {_md(f.unit)}" for f in t.figures[-3:])
        lines.append(f"| `{_md(t.id)}` | {t.status} | {figs} |")
    if v.findings:
        lines += ["", "| rule | severity | test | finding |", "|---|---|---|---|"]
        for x in v.causes:
            f = x.first
            lines.append(f"| {_md(f.rule)} | {f.severity} | `{_md(f.test)}` | {_md(x.message.replace('|', '/'))} |")
    return "\n".join(lines) + "\n"


def to_junit(v: Verdict) -> str:
    suite = junit.suite(None, "roceconf-acceptance")
    failed = sum(1 for t in v.tests if t.status in ("fail", "missing"))
    # a verdict that judged nothing gets one more case, failed: "judged"
    junit.totals(suite, len(v.tests) + (not v.judged), failed + (not v.judged), 0)
    by_test: dict[str, list[str]] = {}
    for x in v.causes:
        by_test.setdefault(x.first.test, []).append(f"{x.first.severity}[{x.first.rule}]: {x.message}")
    for t in v.tests:
        case = junit.case(suite, t.tool or "result", t.id)
        msgs = by_test.get(t.id, [])
        if t.status in ("fail", "missing"):
            junit.failure(case, msgs[0] if msgs else t.status, text="\n".join(msgs))
        else:
            if t.status == "unjudged":
                junit.skipped(case, "not judged: no plan gives this test a pass mark")
            if msgs:
                junit.output(case, "\n".join(msgs))
    if not v.judged:  # nothing judged is never a pass: a CI reading only the JUnit sees a failure too
        case = junit.case(suite, "verdict", "judged")
        junit.failure(
            case, "no test was judged: give the plan (--plan PLAN.json) the results were run from", text="NOT JUDGED"
        )
    return junit.finish(suite)


FORMATS: dict[str, Callable[[Verdict], str]] = {
    "text": to_text,
    "json": to_json,
    "junit": to_junit,
    "markdown": to_markdown,
}

__all__ = ["FORMATS", "VerdictModel", "verdict_json_schema"]
