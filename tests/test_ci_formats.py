"""CI report formats: SARIF 2.1.0 (read back by sarif-pydantic, validated against the OASIS schema), GitHub
workflow annotations, JUnit, Markdown, YAML; one --format vocabulary and --output across the commands."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import click
import jsonschema
import pytest
from click.testing import CliRunner
from sarif_pydantic import Sarif

from roceconf.cli import main
from roceconf.compile import load_valid, render_fabric, write_outputs
from roceconf.intent.rules import RULES
from roceconf.reports import COMMAND_FORMATS, FORMATS
from roceconf.reports.github import annotation

ROOT = Path(__file__).parent.parent
BROKEN = ROOT / "tests" / "intents" / "broken"
FABRIC = ROOT / "tests" / "intents" / "fabric"
LAB = ROOT / "inventories" / "lab" / "intent.yml"
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text())
LEVEL = {"error": "error", "critical": "error", "warning": "warning", "info": "note"}  # critical: health rules

#: intents whose first line says what they break: "# expect: RC109 6:96"
CASES = ["rc101_roce_lossy.yml", "rc109_ecn_above_xoff.yml", "duplicate_key.yml", "rc105_dscp_twice.yml"]


def _expect(name: str) -> tuple[str, int, int]:
    m = re.match(r"# expect: (RC\d+) (\d+):(\d+)", (BROKEN / name).read_text().splitlines()[0])
    assert m, name
    return m.group(1), int(m.group(2)), int(m.group(3))


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return ROOT


def _run(*args: str, env: dict[str, str] | None = None) -> click.testing.Result:
    return CliRunner().invoke(main, list(args), env=env)


def _lv(level: object) -> str:
    """A level as read back (sarif-pydantic gives an enum for results, a string for rule defaults)."""
    return str(getattr(level, "value", level))


def _sarif_valid(text: str) -> Sarif:
    data = json.loads(text)
    jsonschema.Draft4Validator(SCHEMA).validate(data)  # the OASIS schema is draft-04
    return Sarif.model_validate(data)


# ------------------------------------------------------------------------------------------------- SARIF
def test_validate_sarif_reads_back_with_rule_ids_files_lines_levels(in_root: Path) -> None:
    files = [f"tests/intents/broken/{n}" for n in CASES] + ["inventories/lab/intent.yml"]
    r = _run("validate", *files, "--format", "sarif")
    assert r.exit_code == 2, r.output
    log = _sarif_valid(r.stdout)
    assert log.version == "2.1.0" and len(log.runs) == 1
    run = log.runs[0]
    rules = run.tool.driver.rules
    assert rules is not None
    # the whole catalogue, with its levels, titles and hints
    import roceconf.fabric  # noqa: F401 - the RC2xx rules are part of the catalogue

    assert [x.id for x in rules] == sorted(RULES)
    for x in rules:
        rule = RULES[x.id]
        assert x.short_description.text == rule.title
        assert _lv(x.default_configuration.level) == LEVEL[rule.severity]
        assert rule.hint in x.help.text
    got = set()
    for res in run.results:
        loc = res.locations[0].physical_location
        assert not loc.artifact_location.uri.startswith(("/", "file:")), "URI relative to the cwd"
        assert rules[res.rule_index].id == res.rule_id
        got.add(
            (
                res.rule_id,
                loc.artifact_location.uri,
                loc.region.start_line,
                loc.region.start_column,
                _lv(res.level),
            )
        )
    want = set()
    for n in CASES:
        code, line, col = _expect(n)
        want.add((code, f"tests/intents/broken/{n}", line, col, LEVEL[RULES[code].severity]))
    assert want <= got
    assert ("RC109", "tests/intents/broken/rc109_ecn_above_xoff.yml", 6, 96, "warning") in got
    # exactly the findings validation has, no more, no fewer
    from roceconf.intent import validate

    every = {(d.code, f, d.line, d.col, LEVEL[d.severity]) for f in files for d in validate(f)[1]}
    assert got == every


def test_check_sarif_has_fabric_findings(in_root: Path) -> None:
    f = "tests/intents/fabric/rc205_nic_mtu.yml"
    r = _run("check", f, "--format", "sarif")
    assert r.exit_code == 1, r.output
    run = _sarif_valid(r.stdout).runs[0]
    marker = next(n for n, t in enumerate((ROOT / f).read_text().splitlines(), 1) if "# <- finding" in t)
    hits = [x for x in run.results if x.rule_id == "RC205"]
    assert hits and all(_lv(x.level) == "error" for x in hits)
    assert {x.locations[0].physical_location.artifact_location.uri for x in hits} == {f}
    assert {x.locations[0].physical_location.region.start_line for x in hits} == {marker}


def test_sarif_of_a_valid_intent_has_no_error_results(in_root: Path) -> None:
    r = _run("validate", "tests/intents/fabric/ok.yml", "--format", "sarif")
    assert r.exit_code == 0
    run = _sarif_valid(r.stdout).runs[0]
    assert all(_lv(x.level) != "error" for x in run.results)
    # the schema check can fail: a level SARIF does not define is rejected
    bad = json.loads(
        _run("validate", "tests/intents/broken/rc101_roce_lossy.yml", "--format", "sarif").stdout
    )
    jsonschema.Draft4Validator(SCHEMA).validate(bad)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(bad)


def test_sarif_uri_relative_to_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pod").mkdir()
    shutil.copy(BROKEN / "rc101_roce_lossy.yml", tmp_path / "pod" / "my intent.yml")
    monkeypatch.chdir(tmp_path)
    r = _run("validate", str(tmp_path / "pod" / "my intent.yml"), "--format", "sarif")
    res = _sarif_valid(r.stdout).runs[0].results[0]
    assert res.locations[0].physical_location.artifact_location.uri == "pod/my%20intent.yml"


# ------------------------------------------------------------------------------------------------- GitHub
def test_github_annotations_explicit_and_automatic(in_root: Path) -> None:
    f = "tests/intents/broken/rc101_roce_lossy.yml"
    code, line, col = _expect("rc101_roce_lossy.yml")
    explicit = _run("validate", f, "--format", "github")
    auto = _run("validate", f, env={"GITHUB_ACTIONS": "true"})
    assert explicit.exit_code == auto.exit_code == 2
    assert explicit.stdout == auto.stdout
    first = explicit.stdout.splitlines()[0]
    assert first.startswith(f"::error file={f},line={line},col={col},title={code}::")
    assert "%0Ahint: " in first  # the hint on a second line of the annotation
    # an explicit format wins over the environment; outside Actions the default stays text
    assert not _run("validate", f, "--format", "text", env={"GITHUB_ACTIONS": "true"}).stdout.startswith("::")
    assert _run("validate", f).stdout.startswith(f"{f}:{line}:{col}: error[{code}]")


def test_github_annotations_for_check_warnings_and_notices(in_root: Path) -> None:
    r = _run("check", "tests/intents/fabric/rc208_ecn_xoff.yml", env={"GITHUB_ACTIONS": "true"})
    kinds = {ln.split(" ", 1)[0] for ln in r.stdout.splitlines() if ln.startswith("::")}
    assert kinds and kinds <= {"::error", "::warning", "::notice"}
    assert re.search(
        r"^::\w+ file=tests/intents/fabric/rc208_ecn_xoff\.yml,line=\d+,col=\d+,title=RC208::", r.stdout, re.M
    )


def test_github_annotation_escaping() -> None:
    a = annotation("error", "50% lost\nnext: a,b", file="dir,x/a:b.yml", line=3, col=2, title="RC1")
    assert a == "::error file=dir%2Cx/a%3Ab.yml,line=3,col=2,title=RC1::50%25 lost%0Anext: a,b"


# ------------------------------------------------------------------------------------------------- JUnit, Markdown
@pytest.fixture
def lab_configs(tmp_path: Path) -> Path:
    write_outputs(render_fabric(load_valid(LAB)), tmp_path)
    return tmp_path


def test_check_junit_and_markdown(in_root: Path, lab_configs: Path) -> None:
    (lab_configs / "spine2.set").unlink()
    f = "tests/intents/fabric/rc205_nic_mtu.yml"
    r = _run("check", f, "--format", "junit")
    assert r.exit_code == 1
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None
    cases = {c.get("name", "").split()[0]: c for c in suite.iter("testcase")}
    assert "RC201" in cases and cases["RC201"].find("failure") is None  # rules that ran and passed
    fail = cases["RC205"].find("failure")
    assert fail is not None and "error[RC205]" in (fail.text or "")
    assert int(suite.get("failures", "0")) == sum(1 for c in cases.values() if c.find("failure") is not None)
    # an unreadable device is a JUnit error, not a pass
    r = _run("check", "inventories/lab/intent.yml", "--configs", str(lab_configs), "--format", "junit")
    assert r.exit_code == 3
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None and suite.get("errors") == "1"
    err = [c for c in suite.iter("testcase") if c.find("error") is not None]
    assert [c.get("name") for c in err] == ["read spine2"]
    r = _run("check", "inventories/lab/intent.yml", "--configs", str(lab_configs), "--format", "github")
    assert r.exit_code == 3
    (unread,) = [ln for ln in r.stdout.splitlines() if "title=RC215::" in ln]
    assert (
        unread.startswith("::error file=inventories/lab/intent.yml,line=")
        and "spine2 could not be read" in unread
    )
    md = _run("check", f, "--format", "markdown").stdout
    assert md.startswith("## roceconf check") and f"`{f}:" in md and "`RC205`" in md


def test_plan_junit_and_markdown_and_yaml(in_root: Path) -> None:
    base, broken, ecn = (f"tests/intents/plan/{n}.yml" for n in ("base", "broken_new", "ecn"))
    r = _run("plan", base, ecn, "--format", "junit")
    assert r.exit_code == 0, r.output
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names[0] == "NEW validates" and len(names) >= 2 and suite.get("failures") == "0"
    r = _run("plan", base, broken, "--format", "junit")
    assert r.exit_code == 1
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    first = next(suite.iter("testcase"))
    assert first.find("failure") is not None and "error[RC" in (first.find("failure").text or "")
    md = _run("plan", base, ecn, "--format", "markdown").stdout
    assert md.startswith("### roceconf plan:")
    js = json.loads(_run("plan", base, ecn, "--format", "json").stdout)
    from ruamel.yaml import YAML

    assert YAML(typ="safe").load(_run("plan", base, ecn, "--format", "yaml").stdout) == js


# ------------------------------------------------------------------------------------------------- vocabulary
def test_one_format_vocabulary_and_output_everywhere() -> None:
    assert set(COMMAND_FORMATS["validate"]) == set(COMMAND_FORMATS["check"]) - {"html"} == set(FORMATS) - {"prometheus", "shell", "html"}
    assert {"junit", "markdown"} <= set(COMMAND_FORMATS["plan"])
    for name, formats in COMMAND_FORMATS.items():
        cmd = main
        for word in name.split():  # "acceptance plan": a subcommand of a group
            cmd = cmd.commands[word]
        opts = {o.name: o for o in cmd.params if isinstance(o, click.Option)}
        assert list(opts["fmt"].type.choices) == list(formats), name
        assert set(formats) <= set(FORMATS)
        if name != "demo":  # demo writes its reports into its output directory
            assert "output" in opts, name


def test_output_file_instead_of_stdout(in_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "validate.sarif"
    r = _run(
        "validate", "tests/intents/broken/rc101_roce_lossy.yml", "--format", "sarif", "--output", str(out)
    )
    assert r.exit_code == 2 and r.stdout == ""
    assert _sarif_valid(out.read_text()).runs[0].results[0].rule_id == "RC101"
    out = tmp_path / "expanded.json"
    assert (
        _run("expand", "inventories/lab/intent.yml", "--format", "json", "--output", str(out)).exit_code == 0
    )
    assert "spine1" in [d["name"] for d in json.loads(out.read_text())["devices"]]


def test_validate_junit_fails_as_the_command_does(in_root: Path) -> None:
    warn = "tests/intents/broken/rc109_ecn_above_xoff.yml"
    r = _run("validate", warn, "--format", "junit")
    assert r.exit_code == 0
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    case = next(c for c in suite.iter("testcase") if c.get("name", "").startswith("RC109 "))
    assert "warning[RC109]" in (case.findtext("system-out") or "")
    r = _run("validate", warn, "--format", "junit", "--strict")
    assert r.exit_code == 2
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 1
    case = next(c for c in suite.iter("testcase") if c.get("name", "").startswith("RC109 "))
    assert "warning[RC109]" in (case.findtext("failure") or "")
    r = _run("validate", "tests/intents/broken/rc101_roce_lossy.yml", "--format", "junit")
    case = next(c for c in ET.fromstring(r.stdout).iter("testcase") if c.get("name", "").startswith("RC101 "))
    assert case.find("failure") is not None


def test_one_result_per_cause_in_sarif_and_github(in_root: Path) -> None:
    """A check of every link of a mesh finds one switch's MTU once per link, all at the mesh's intent line:
    SARIF, GitHub annotations, JUnit and Markdown give it once, with the ports listed as ranges; another value,
    rule or line stays its own result."""
    from roceconf.diagnostics import Diagnostic
    from roceconf.findings import _findings, check_rules
    from roceconf.reports.causes import same_cause

    f = "inventories/pod/intent.yml"

    def d(port: int, spine: int, mtu: int = 9000, line: int = 59, code: str = "RC207") -> Diagnostic:
        return Diagnostic(f, line, 5, "error", code, f"MTU differs: leaf01:Ethernet{port} {mtu} (cfg/leaf01.cfg:55) vs "
                          f"spine{spine}:swp1 9214 (cfg/spine{spine}.yaml:{200 + spine})")

    diags = [d(32 + s, s) for s in range(1, 9)] + [d(41, 9, mtu=1500), d(33, 1, line=61), d(33, 1, code="RC206")]
    one = same_cause(diags)
    assert len(one) == 4
    assert one[0].message == (
        "MTU differs: leaf01:Ethernet33 9000 (cfg/leaf01.cfg:55) vs spine1:swp1 9214 (cfg/spine1.yaml:201) (the same "
        "8 times: leaf01:Ethernet33-40 with spine1:swp1, spine2:swp1, spine3:swp1, spine4:swp1, spine5:swp1, "
        "spine6:swp1 (+2 more))"
    )
    # another MTU, line or rule: not the same cause
    assert [(x.code, x.line, x.message) for x in one[1:]] == [(x.code, x.line, x.message) for x in diags[8:]]
    rules = check_rules()
    sarif = _sarif_valid(_findings("sarif", "t", diags, [], rules, {}))
    assert [x.rule_id for x in sarif.runs[0].results] == ["RC207", "RC207", "RC207", "RC206"]
    gh = _findings("github", "t", diags, [], rules, {}).splitlines()
    assert len(gh) == 4 and "leaf01:Ethernet33-40" in gh[0]
    assert _findings("markdown", "t", diags, [], rules, {}).count("leaf01:Ethernet") == 4 + 1


def test_sarif_fingerprint_is_one_per_cause_however_many_ports(in_root: Path) -> None:
    """Code scanning keeps one alert per cause: the fingerprint of a grouped result does not change when the
    fault spreads to more ports or is fixed on some; another value or rule is another alert."""
    from roceconf.diagnostics import Diagnostic
    from roceconf.findings import _findings, check_rules

    f = "inventories/pod/intent.yml"

    def d(port: int, spine: int, mtu: int = 9000, code: str = "RC207") -> Diagnostic:
        return Diagnostic(f, 59, 5, "error", code, f"MTU differs: leaf01:Ethernet{port} {mtu} (cfg/leaf01.cfg:55) vs "
                          f"spine{spine}:swp1 9214 (cfg/spine{spine}.yaml:{200 + spine})")

    def prints(diags: list[Diagnostic]) -> list[str]:
        sarif = json.loads(_findings("sarif", "t", diags, [], check_rules(), {}))
        return [r["partialFingerprints"]["roceconfFinding/v1"] for r in sarif["runs"][0]["results"]]

    one, three, eight = (prints([d(32 + s, s) for s in range(1, n + 1)]) for n in (1, 3, 8))
    assert len(one) == len(three) == len(eight) == 1 and one == three == eight
    other = prints([d(33, 1, mtu=1500), d(33, 1, code="RC206")])
    assert len(set(other + one)) == 3
