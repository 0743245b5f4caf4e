"""The one JUnit writer (roceconf/reports/junit.py): every command's JUnit output (validate, check, plan, drift,
health, acceptance) is valid against Jenkins' junit-10.xsd (tests/fixtures/junit, see PROVENANCE.md), and no text
read from a device or a file can make the document invalid."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from bench.drift_faults import faulted_configs, write_configs
from roceconf.acceptance.report import FORMATS as ACCEPTANCE
from roceconf.acceptance.verdict import judge
from roceconf.cli import main
from roceconf.compile import load_valid
from roceconf.diagnostics import Diagnostic
from roceconf.drift.audit import audit
from roceconf.drift.report import to_junit as drift_junit
from roceconf.health.evaluate import evaluate
from roceconf.health.report import to_junit as health_junit
from roceconf.reports import junit
from tests.test_health_rules import snaps

ROOT = Path(__file__).parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
XSD = ROOT / "tests" / "fixtures" / "junit" / "junit-10.xsd"
#: every C0 control character, the two non-characters XML excludes, and lone surrogates
BAD = "".join(chr(c) for c in range(0x20)) + "\ufffe\uffff" + "\ud800\udfff" + "\udc80"


@pytest.fixture(scope="module")
def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(XSD)))


def assert_valid(schema: etree.XMLSchema, text: str) -> etree._Element:
    doc = etree.fromstring(text.encode("utf-8"))
    assert schema.validate(doc), schema.error_log
    return doc


@pytest.fixture(scope="module")
def lab_configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab's configs with five faults injected and one device's config missing (unknown)."""
    d = tmp_path_factory.mktemp("lab")
    files, _faults = faulted_configs(load_valid(LAB))
    write_configs(files, d)
    (d / "gpu1.sh").unlink()
    return d


def _cli(*args: str) -> str:
    return CliRunner().invoke(main, list(args), catch_exceptions=False).output


def test_validate_check_and_plan_write_valid_junit(schema: etree.XMLSchema, lab_configs: Path) -> None:
    broken = ROOT / "tests" / "intents" / "broken"
    plan = ROOT / "tests" / "intents" / "plan"
    outputs = {
        "validate warning": _cli("validate", str(broken / "rc109_ecn_above_xoff.yml"), "--format", "junit"),
        "validate error": _cli("validate", str(broken / "rc101_roce_lossy.yml"), "--format", "junit"),
        "check": _cli("check", str(LAB), "--configs", str(lab_configs), "--format", "junit"),
        "plan": _cli("plan", str(plan / "base.yml"), str(plan / "ecn.yml"), "--format", "junit"),
        "plan unsafe": _cli("plan", str(plan / "base.yml"), str(plan / "broken_new.yml"), "--format", "junit"),
    }
    for name, text in outputs.items():
        doc = assert_valid(schema, text)
        assert doc.iter("testcase"), name
    assert any(assert_valid(schema, t).find(".//failure") is not None for t in outputs.values())
    assert assert_valid(schema, outputs["check"]).find(".//error") is not None  # gpu1 unreadable


def test_drift_writes_valid_junit_with_drift_unknown_and_a_baseline(schema: etree.XMLSchema, lab_configs: Path) -> None:
    report = audit(load_valid(LAB), configs=lab_configs)
    assert {d.status for d in report.devices} >= {"drift", "unknown"}
    doc = assert_valid(schema, drift_junit(report))
    assert doc.find(".//failure") is not None and doc.find(".//error") is not None
    stale = {"findings": [{"device": "leaf1", "rule": "RC400", "message": "recorded \x07 values differ"}]}
    doc = assert_valid(schema, drift_junit(dataclasses.replace(report, baseline=stale)))
    base = doc.find("testsuite[@name='acceptance-baseline']")
    assert base is not None and base.get("errors") == "0" and base.get("failures") == "1"


def test_health_writes_valid_junit_with_findings_and_unknown(schema: etree.XMLSchema) -> None:
    fab = load_valid(LAB)
    report = evaluate(
        fab,
        {"leaf1": snaps(fab, "leaf1", {"Ethernet2": {("queue_drops", 3): 1.0}}), "gpu3": snaps(fab, "gpu3", n=1)},
    )
    assert {d.status for d in report.devices} == {"findings", "unknown"}
    doc = assert_valid(schema, health_junit(report))
    assert doc.find(".//failure") is not None and doc.find(".//error") is not None


def test_acceptance_writes_valid_junit(schema: etree.XMLSchema) -> None:
    fix = ROOT / "tests" / "fixtures" / "acceptance"
    verdict = judge(sorted(fix.glob("*/*.json")) + sorted(fix.glob("*/*.txt")))
    assert {t.status for t in verdict.tests} & {"fail", "missing"}
    doc = assert_valid(schema, ACCEPTANCE["junit"](verdict))
    assert doc.get("errors") == "0" and doc.find(".//failure") is not None


def test_an_unjudged_acceptance_verdict_writes_valid_junit_that_fails(schema: etree.XMLSchema) -> None:
    """Without a plan nothing is judged: each test is a skipped case and one more case fails (never a pass)."""
    results = ROOT / "tests" / "fixtures" / "acceptance" / "nccl-tests"
    verdict = judge([results / "constructed-j3-all-reduce-tc0.json", results / "issue-252-all-reduce-ring.txt"])
    assert verdict.tests and not verdict.judged
    doc = assert_valid(schema, ACCEPTANCE["junit"](verdict))
    assert len(doc.findall(".//skipped")) == len(verdict.tests)
    assert doc.find("testcase[@name='judged']/failure") is not None
    assert doc.get("tests") == str(len(verdict.tests) + 1) and doc.get("failures") == "1"


@pytest.mark.parametrize("bad", [*BAD, BAD])
def test_device_text_never_makes_the_file_invalid(schema: etree.XMLSchema, bad: str) -> None:
    """Control characters, non-characters and lone surrogates in names and messages are written as visible
    escapes; the rest of the text stays as it was."""
    name = f"leaf{bad}1"
    diag = Diagnostic("intent.yml", 3, 1, "error", "RC201", f"{name}:Ethernet1: no-drop {bad} [] <&>")
    text = junit.findings_junit(f"roceconf {bad} check", [diag], [], {name: f"read {bad} failed"})
    doc = assert_valid(schema, text)
    assert "no-drop" in doc.find(".//failure").text and "<&>" in doc.find(".//failure").text
    assert doc.find(".//error").get("message").startswith("leaf")
    if bad not in "\t\n\r":
        assert bad not in text and ("\\x" in text or "\\u" in text)

    root = junit.suites(name)
    suite = junit.suite(root, name, hostname=bad)
    case = junit.case(suite, name, name, time="0.100")
    junit.failure(case, f"drift {bad}", bad, f"expected {bad}, actual x")
    junit.output(junit.case(suite, "c", bad), bad)
    junit.error(junit.case(suite, "c", "unknown"), bad, "unknown")
    junit.totals(suite, 3, 1, 1, 0.1)
    assert_valid(schema, junit.finish(root))


def test_escapes_are_visible_and_ordinary_text_unchanged() -> None:
    assert junit.xml_safe("a\x00b\x1bc\ud800d") == "a\\x00b\\x1bc\\ud800d"
    ordinary = "leaf1:Ethernet1/1 \t tab\nnew line\r ü € 𝄞 <&> \"'"
    assert junit.xml_safe(ordinary) == ordinary


def test_the_schema_fixture_is_the_jenkins_one() -> None:
    """The fixture keeps its licence header and requires what Jenkins requires of a testsuite."""
    text = XSD.read_text(encoding="utf-8")
    assert "The MIT License" in text
    for attr in ("name", "tests", "failures", "errors"):
        assert f'<xs:attribute name="{attr}" type="xs:string" use="required"/>' in text
