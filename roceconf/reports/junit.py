"""JUnit XML for findings (``validate``, ``check``) and for plans, in the shape CI test reporters read
(GitLab ``artifacts:reports:junit``, Jenkins, the GitHub test-report actions).

Findings: one test case per rule that ran, failed by the findings that fail the command (``validate``: errors,
with ``--strict`` warnings too; ``check``: errors and warnings), the others in the case's ``system-out``; a device that could not be read is an ``error`` case. Plans: one case "NEW validates"
(failed when the plan is unsafe) and one passed case per change with its disruption and risk.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any
from xml.etree import ElementTree as ET

from roceconf.diagnostics import Diagnostic

FAILING = ("error", "warning")


def _finish(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def findings_junit(
    name: str,
    diagnostics: Iterable[Diagnostic],
    rules: Iterable[Any],
    unreadable: Mapping[str, str] | None = None,
    seconds: float = 0.0,
    failing: tuple[str, ...] = FAILING,
) -> str:
    """``rules`` are the rules that ran (each a test case); findings of other rules get a case too.
    Findings of the ``failing`` severities fail their case (as they fail the command), the others are
    listed in its ``system-out``."""
    by_rule: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diagnostics:
        by_rule[d.code].append(d)
    titles = {r.id: r.title for r in rules}
    for code in by_rule:
        titles.setdefault(code, code)
    suites = ET.Element("testsuites", name=name)
    suite = ET.SubElement(suites, "testsuite", name=name)
    tests = failures = errors = 0
    for code in sorted(titles):
        tests += 1
        case = ET.SubElement(
            suite, "testcase", classname=name.replace(" ", "."), name=f"{code} {titles[code]}", time="0"
        )
        found = by_rule.get(code, [])
        bad = [d for d in found if d.severity in failing]
        if bad:
            failures += 1
            worst = "error" if any(d.severity == "error" for d in bad) else "warning"
            f = ET.SubElement(case, "failure", message=f"{len(bad)} finding(s)", type=worst)
            f.text = "\n".join(d.format() for d in bad)
        rest = [d for d in found if d.severity not in failing]
        if rest:
            ET.SubElement(case, "system-out").text = "\n".join(d.format() for d in rest)
    for device, reason in sorted((unreadable or {}).items()):
        tests += 1
        errors += 1
        case = ET.SubElement(suite, "testcase", classname=name.replace(" ", "."), name=f"read {device}")
        ET.SubElement(case, "error", message=f"{device} could not be read: {reason}", type="unreadable")
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("time", f"{seconds:.3f}")
    return _finish(suites)


def plan_junit(plan: Any) -> str:
    """A :class:`roceconf.plan.Plan` as JUnit."""
    suites = ET.Element("testsuites", name="roceconf plan")
    suite = ET.SubElement(suites, "testsuite", name=f"roceconf plan {plan.old.source} -> {plan.new.source}")
    case = ET.SubElement(suite, "testcase", classname="roceconf.plan", name="NEW validates")
    failures = 0
    findings = "\n".join(
        f"{d.file}:{d.line}:{d.col}: {d.severity}[{d.code}]: {d.message}" for d in plan.diagnostics
    )
    if not plan.safe:
        failures = 1
        f = ET.SubElement(
            case, "failure", message=f"NEW has {plan.new_errors} validation error(s)", type="unsafe"
        )
        f.text = findings
    elif findings:
        ET.SubElement(case, "system-out").text = findings
    for c in plan.changes:
        ch = ET.SubElement(suite, "testcase", classname=f"roceconf.plan.{c.action}", name=c.summary, time="0")
        ET.SubElement(ch, "system-out").text = (
            f"disruption: {c.disruption}; risk: {c.risk} ({c.reason})\n"
            f"devices ({c.device_count}): {', '.join(c.devices)}\ninterfaces: {c.interface_count}"
        )
    suite.set("tests", str(1 + len(plan.changes)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    return _finish(suites)
