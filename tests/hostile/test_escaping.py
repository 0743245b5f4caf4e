"""Text from devices, files and inventories in every output (issue 24, item 4).

One hostile text - Rich markup (``[/x]``), terminal escape sequences, a forged line, raw HTML (``<img src>``,
``<!--``), the end of the report page's script (``<!--<script>``, ``</script>``) - reaches each command that
prints such text (drift, check, health, headroom, plan, acceptance verdict / record, bom) through a path, a
config, an inventory variable, an ``asic:`` value or a result file, in every format the command writes. Each
run: no traceback, the same exit code as with a plain name, and per format: text without control characters
or forged lines, Markdown without raw HTML, the HTML page's JSON unable to end or comment out its script,
JSON without NaN or Infinity.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from roceconf.compile import load_valid, render_fabric, write_outputs
from tests.hostile.harness import LAB, ROOT, Outcome, check, run

FORGED = "FORGEDq line"
#: three path parts: together they read "h[/x]...<!--<script>...</script>..." (a name holds no '/')
PARTS = ("h[", "x][bold]<img src=x onerror=alert(1)><!--<script>alert(1)<", "script>\x1b[31m\x1b]0;T\x07\u2028\u202e\n" + FORGED)
HOSTILE = "/".join(PARTS)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _no_nan(text: str) -> object:
    def refuse(name: str) -> None:
        raise AssertionError(f"JSON holds {name}")

    return json.loads(text, parse_constant=refuse)


def assert_safe(o: Outcome, fmt: str, rc: int | None) -> None:
    """The promises of one output format for hostile text."""
    check(o, bad_input=False, rc=rc)
    for stream in (o.stdout, o.stderr):
        # JSON and YAML carry a line separator or a direction mark as quoted data; raw controls never
        control = RAW_CONTROL if stream is o.stdout and fmt in ("json", "yaml", "sarif") else CONTROL
        assert not control.search(stream), f"a control character reached the output: {stream[:3000]!r}"
        assert not any(ln.startswith(FORGED) for ln in stream.splitlines()), "a forged line"
    out = o.stdout
    if fmt in ("json", "sarif"):
        _no_nan(out)
    elif fmt == "markdown":
        low = out.lower()
        assert "<img" not in low and "<!--" not in low and "<script" not in low, out
    elif fmt == "html":
        m = re.search(r'<script type="application/json" id="data">(.*?)</script>', out, re.S)
        assert m, "no data element"
        data = m.group(1)
        for bad in ("<!--", "<script", "</script", "</"):
            assert bad not in data.lower(), f"{bad} inside the page's script"
        _no_nan(data)
        assert len(re.findall(r"<script\b", out, re.I)) == 2  # the data and the page's own script, no more
        assert "<img" not in out
    elif fmt == "github":
        assert all(ln.startswith("::") or not ln.startswith(("::", FORGED)) for ln in out.splitlines())


def _dir(root: Path, hostile: bool) -> Path:
    d = root.joinpath(*PARTS) if hostile else root / "plain"
    d.mkdir(parents=True)
    return d


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return render_fabric(load_valid(str(LAB)))


def _configs(root: Path, files: dict[str, str], hostile: bool) -> Path:
    d = _dir(root, hostile)
    write_outputs(files, d)
    cfg = d / "leaf1.cfg"  # one drifted value, so the report has items with their place
    cfg.write_text(cfg.read_text().replace("bandwidth percent 50", "bandwidth percent 40", 1))
    return d


def _pair(make, cmd, fmt: str, tmp_path: Path) -> None:  # noqa: ANN001 - builders of this module
    """Run ``cmd`` with the plain and the hostile input; the hostile run keeps the plain run's exit code."""
    plain = run(*cmd(make(tmp_path / "p", False)), "--format", fmt, cwd=tmp_path)
    check(plain, bad_input=False)
    hostile = run(*cmd(make(tmp_path / "h", True)), "--format", fmt, cwd=tmp_path)
    assert_safe(hostile, fmt, plain.rc)
    if fmt == "json":
        assert "[/x]" in hostile.stdout  # the text is there, as data


@pytest.mark.parametrize("fmt", ["text", "json", "yaml", "markdown", "html"])
def test_drift_saved_configs(tmp_path: Path, files: dict[str, str], fmt: str) -> None:
    _pair(lambda r, h: _configs(r, files, h), lambda d: ("drift", str(LAB), "--configs", str(d)), fmt, tmp_path)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "sarif", "github", "html"])
def test_check_saved_configs(tmp_path: Path, files: dict[str, str], fmt: str) -> None:
    _pair(lambda r, h: _configs(r, files, h), lambda d: ("check", str(LAB), "--configs", str(d)), fmt, tmp_path)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_health_counters_directory(tmp_path: Path, fmt: str) -> None:
    _pair(_dir, lambda d: ("health", str(LAB), "--counters", str(d)), fmt, tmp_path)


def _intent_with(root: Path, hostile: bool, old: str, new: str) -> Path:
    d = _dir(root, hostile)
    p = d / "intent.yml"
    text = LAB.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    return p


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_headroom_intent_path(tmp_path: Path, fmt: str) -> None:
    _pair(lambda r, h: _intent_with(r, h, "asic: tomahawk4", "asic: tomahawk4"), lambda p: ("headroom", str(p)), fmt,
          tmp_path)


def test_headroom_asic_value_is_refused_on_one_safe_line(tmp_path: Path) -> None:
    """An ``asic:`` value with markup, HTML or control characters is bad input: exit 2, printed inert."""
    bad = json.dumps("[/x][bold]<img src=x><!--<script>\x1b[31m\nFORGEDq")
    p = _intent_with(tmp_path, True, "asic: tomahawk4", f"asic: {bad}")
    o = run("headroom", str(p), cwd=tmp_path)
    check(o, names=("asic",))
    assert_safe(o, "text", 2)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github", "html"])
def test_plan_file_names(tmp_path: Path, fmt: str) -> None:
    def make(root: Path, hostile: bool) -> tuple[Path, Path]:
        new = _intent_with(root, hostile, "switch_port: 9214", "switch_port: 9100")
        old = new.parent / "old.yml"
        shutil.copy(LAB, old)
        return old, new

    _pair(make, lambda p: ("plan", str(p[0]), str(p[1])), fmt, tmp_path)


RESULTS = ROOT / "tests" / "fixtures" / "acceptance"


@pytest.mark.parametrize("fmt", ["text", "json", "yaml", "markdown"])
def test_acceptance_verdict_result_files(tmp_path: Path, fmt: str) -> None:
    def make(root: Path, hostile: bool) -> Path:
        d = _dir(root, hostile)
        for src in sorted(RESULTS.glob("*/*.json")) + sorted(RESULTS.glob("*/*.txt")):
            shutil.copy(src, d / (("r[x]<img src=x>\x1b[2J" if hostile else "r") + src.name))
        # a perftest result whose figures are not numbers
        nan = json.loads((RESULTS / "perftest" / "constructed-out-json-write-bw.json").read_text())
        (d / ("nan[x].json" if hostile else "nan.json")).write_text(
            json.dumps(nan).replace(": 0", ": NaN", 1).replace(": 1", ": Infinity", 1)
        )
        return d

    _pair(make, lambda d: ("acceptance", "verdict", str(d)), fmt, tmp_path)


def test_acceptance_record_and_bom_text(tmp_path: Path) -> None:
    """A verdict and a BOM carrying hostile text and NaN: the baseline is strict JSON."""
    verdict = {
        "format_version": 1, "generated_at": "x", "plan": HOSTILE, "traffic_class": 106, "passed": True,
        "exit_code": 0, "summary": {"pass": 1}, "findings": [],
        "tests": [{"id": HOSTILE, "tool": "ib_write_bw", "kind": "perftest", "status": "pass", "files": [HOSTILE],
                   "figures": [{"size": 1, "value": float("nan"), "unit": "Gb/s", "bound": None, "ok": True,
                                "repeats": 1}]}],
    }
    (tmp_path / "verdict.json").write_text(json.dumps(verdict))
    inv = tmp_path / "inv.yml"
    inv.write_text(
        "all:\n  hosts:\n" + "".join(
            f"    {n}:\n      ansible_host: 127.0.0.1\n      ansible_port: 9\n      ansible_network_os: {json.dumps(HOSTILE)}\n"
            for n in load_valid(str(LAB)).devices
        )
    )
    bom = run("bom", str(LAB), "--inventory", str(inv), "--format", "text", "--timeout", "1", cwd=tmp_path)
    assert_safe(bom, "text", None)
    bom_json = run("bom", str(LAB), "--inventory", str(inv), "--format", "json", "--timeout", "1", cwd=tmp_path)
    assert_safe(bom_json, "json", bom.rc)
    (tmp_path / "bom.json").write_text(bom_json.stdout)
    rec = run("acceptance", "record", "verdict.json", "--bom", "bom.json", "-o", "-", "--force", cwd=tmp_path)
    assert "Traceback" not in rec.output
    out = tmp_path / "base.json"
    rec = run("acceptance", "record", "verdict.json", "--bom", "bom.json", "-o", str(out), "--force", cwd=tmp_path)
    check(rec, bad_input=False)
    if rec.rc == 0:
        _no_nan(out.read_text())
    assert not CONTROL.search(rec.output)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_drift_inventory_variable(tmp_path: Path, fmt: str) -> None:
    """An inventory variable (the platform) with hostile text: every device is unknown, saying why."""
    def make(root: Path, hostile: bool) -> Path:
        root.mkdir(parents=True)
        inv = root / "inv.yml"
        os_ = json.dumps(HOSTILE if hostile else "nosuchos")
        inv.write_text("all:\n  hosts:\n" + "".join(
            f"    {n}:\n      ansible_host: 127.0.0.1\n      ansible_port: 9\n      ansible_network_os: {os_}\n"
            for n in load_valid(str(LAB)).devices
        ))
        return inv

    _pair(make, lambda inv: ("drift", str(LAB), "--inventory", str(inv), "--timeout", "1", "--retries", "0"), fmt,
          tmp_path)


def test_json_never_holds_nan_or_infinity(tmp_path: Path) -> None:
    """Figures a device or a file gave as NaN / Infinity (Python's json reads them) are written as null."""
    verdict = {
        "format_version": 1, "generated_at": "x", "plan": "p", "traffic_class": 106, "passed": True,
        "exit_code": 0, "summary": {"pass": 1}, "findings": [], "tests": [],
    }
    (tmp_path / "verdict.json").write_text(json.dumps(verdict))
    bom = {"format_version": 1, "devices": {"leaf1": {"status": "read", "facts": {"temp": float("nan"),
                                                                                    "rate": float("inf")}}}}
    (tmp_path / "bom.json").write_text(json.dumps(bom))  # NaN and Infinity, as json.dumps writes them
    o = run("acceptance", "record", "verdict.json", "--bom", "bom.json", "-o", "base.json", "--force", cwd=tmp_path)
    check(o, bad_input=False, rc=0)
    base = _no_nan((tmp_path / "base.json").read_text())
    assert base["bom"]["devices"]["leaf1"]["facts"] == {"temp": None, "rate": None}
