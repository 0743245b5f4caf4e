"""The one JUnit XML writer of roceconf, in the shape CI test reporters read (GitLab
``artifacts:reports:junit``, Jenkins, the GitHub test-report actions) and valid against Jenkins' ``junit-10.xsd``.

Every command's JUnit output is built with the helpers here (:func:`suites`, :func:`suite`, :func:`case`,
:func:`failure`, :func:`error`, :func:`output`, :func:`totals`) and written by :func:`finish`, which makes any
text safe for XML: a character XML 1.0 cannot carry (a control character read from a device, a lone surrogate)
is written as a visible escape, so device text can never make the file invalid. The reports of the domain
modules (drift, health, acceptance) say what their cases are; this module says how JUnit is written.

Findings: one test case per rule that ran, failed by the findings that fail the command (``validate``: errors,
with ``--strict`` warnings too; ``check``: errors and warnings), the others in the case's ``system-out``; a device that could not be read is an ``error`` case. Plans: one case "NEW validates"
(failed when the plan is unsafe) and one passed case per change with its disruption and risk.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any
from xml.etree import ElementTree as ET

from roceconf.diagnostics import Diagnostic

FAILING = ("error", "warning")

#: What XML 1.0 cannot carry: C0 controls but tab, newline and carriage return; surrogates; U+FFFE, U+FFFF.
_NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` with each character XML 1.0 cannot carry written as a visible escape (``\\x1b``, ``\\udc80``)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def suites(name: str) -> ET.Element:
    """The root ``testsuites`` element of a report."""
    return ET.Element("testsuites", name=name)


def suite(parent: ET.Element | None, name: str, **attrs: str) -> ET.Element:
    """A ``testsuite`` (the root when ``parent`` is None); :func:`totals` gives it its required counts."""
    if parent is None:
        return ET.Element("testsuite", name=name, **attrs)
    return ET.SubElement(parent, "testsuite", name=name, **attrs)


def case(parent: ET.Element, classname: str, name: str, time: str | None = None) -> ET.Element:
    """A ``testcase``; it passes unless :func:`failure` or :func:`error` marks it."""
    attrs = {"classname": classname, "name": name}
    if time is not None:
        attrs["time"] = time
    return ET.SubElement(parent, "testcase", attrs)


def failure(parent: ET.Element, message: str, type: str | None = None, text: str | None = None) -> ET.Element:  # noqa: A002
    """The case failed (a finding)."""
    attrs = {"message": message} if type is None else {"message": message, "type": type}
    el = ET.SubElement(parent, "failure", attrs)
    if text is not None:
        el.text = text
    return el


def error(parent: ET.Element, message: str, type: str) -> ET.Element:  # noqa: A002
    """The case could not be judged (a device not read): never a pass."""
    return ET.SubElement(parent, "error", message=message, type=type)


def output(parent: ET.Element, text: str) -> None:
    """What the case printed (findings that do not fail it)."""
    ET.SubElement(parent, "system-out").text = text


def totals(parent: ET.Element, tests: int, failures: int, errors: int, seconds: float | None = None) -> None:
    """The counts ``junit-10.xsd`` requires of every ``testsuite``."""
    parent.set("tests", str(tests))
    parent.set("failures", str(failures))
    parent.set("errors", str(errors))
    if seconds is not None:
        parent.set("time", f"{seconds:.3f}")


def finish(root: ET.Element) -> str:
    """The document: every text and attribute made XML-safe, indented, with its XML declaration."""
    for el in root.iter():
        if el.text:
            el.text = xml_safe(el.text)
        if el.tail:
            el.tail = xml_safe(el.tail)
        for k, v in el.attrib.items():
            el.set(k, xml_safe(v))
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
    root = suites(name)
    top = suite(root, name)
    tests = failures = errors = 0
    for code in sorted(titles):
        tests += 1
        tc = case(top, name.replace(" ", "."), f"{code} {titles[code]}", time="0")
        found = by_rule.get(code, [])
        bad = [d for d in found if d.severity in failing]
        if bad:
            failures += 1
            worst = "error" if any(d.severity == "error" for d in bad) else "warning"
            failure(tc, f"{len(bad)} finding(s)", worst, "\n".join(d.format() for d in bad))
        rest = [d for d in found if d.severity not in failing]
        if rest:
            output(tc, "\n".join(d.format() for d in rest))
    for device, reason in sorted((unreadable or {}).items()):
        tests += 1
        errors += 1
        tc = case(top, name.replace(" ", "."), f"read {device}")
        error(tc, f"{device} could not be read: {reason}", "unreadable")
    totals(top, tests, failures, errors, seconds)
    return finish(root)


def plan_junit(plan: Any) -> str:
    """A :class:`roceconf.plan.Plan` as JUnit."""
    root = suites("roceconf plan")
    top = suite(root, f"roceconf plan {plan.old.source} -> {plan.new.source}")
    tc = case(top, "roceconf.plan", "NEW validates")
    failures = 0
    findings = "\n".join(
        f"{d.file}:{d.line}:{d.col}: {d.severity}[{d.code}]: {d.message}" for d in plan.diagnostics
    )
    if not plan.safe:
        failures = 1
        failure(tc, f"NEW has {plan.new_errors} validation error(s)", "unsafe", findings)
    elif findings:
        output(tc, findings)
    for c in plan.changes:
        ch = case(top, f"roceconf.plan.{c.action}", c.summary, time="0")
        output(
            ch,
            f"disruption: {c.disruption}; risk: {c.risk} ({c.reason})\n"
            f"devices ({c.device_count}): {', '.join(c.devices)}\ninterfaces: {c.interface_count}",
        )
    totals(top, 1 + len(plan.changes), failures, 0)
    return finish(root)
