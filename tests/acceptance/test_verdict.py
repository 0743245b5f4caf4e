"""Result parsers on recorded outputs, and the verdict against a plan derived from the lab intent."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf.acceptance.plan import AcceptancePlan, build_plan
from roceconf.acceptance.report import FORMATS, verdict_json_schema
from roceconf.acceptance.results import parse_file, parse_text
from roceconf.acceptance.verdict import judge
from roceconf.compile import load_valid

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "acceptance"
LAB = ROOT / "inventories" / "lab" / "intent.yml"


# --------------------------------------------------------------------------------------------- parsers
def test_nccl_text_current_table() -> None:
    r = parse_file(FIX / "nccl-tests" / "issue-252-all-reduce-ring.txt")
    assert (r.tool, r.fmt, r.unit, r.error) == ("nccl-tests", "text", "GB/s", None)
    assert [row.size for row in r.rows] == [536870912, 1073741824, 2147483648, 4294967296, 8589934592]
    assert [row.value for row in r.rows] == [93.46, 93.58, 94.26, 97.37, 95.10]
    assert [row.other for row in r.rows] == [97.09, 97.54, 95.49, 94.32, 94.80]
    assert all(row.wrong == 0 for row in r.rows)
    assert r.out_of_bounds == 0 and r.avg_busbw == pytest.approx(95.3009)
    assert r.traffic_class is None  # no NCCL INFO lines in this output


def test_nccl_text_old_error_column_is_not_a_wrong_count() -> None:
    r = parse_file(FIX / "nccl-tests" / "issue-176-all-reduce-error-column.txt")
    assert [row.size for row in r.rows][:2] == [4096, 8192]
    assert r.rows[-1].value == 2.15 and r.rows[-1].other == 2.22
    assert all(row.wrong is None for row in r.rows)
    assert not judge([FIX / "nccl-tests" / "issue-176-all-reduce-error-column.txt"]).findings


def test_nccl_text_alltoall_and_socket_fallback() -> None:
    a = parse_file(FIX / "nccl-tests" / "issue-287-alltoall-single-gpu.txt")
    assert a.hosts == ["GENOA-01"] and a.rows[0].size == 33554432 and a.rows[0].value == 0.0
    s = parse_file(FIX / "nccl-tests" / "issue-131-nccl-info-socket.txt")
    assert s.network == "Socket" and s.hosts == ["Meowth"]
    v = judge([FIX / "nccl-tests" / "issue-131-nccl-info-socket.txt"])
    assert {f.rule for f in v.findings} == {"RC409", "RC411"} and v.exit_code == 1


def test_perftest_text_and_json() -> None:
    r = parse_file(FIX / "perftest" / "issue-273-write-bw-post-list-roce.txt")
    assert (r.tool, r.kind, r.device, r.gid_index, r.unit) == ("perftest", "ib_write_bw", "ib0", 2, "Gb/sec")
    assert [(row.size, row.value, row.other) for row in r.rows] == [(8, 0.48, 0.0)]
    ib = parse_file(FIX / "perftest" / "issue-132-write-bw-ib-sweep.txt")
    assert [row.size for row in ib.rows] == [2, 4, 8] and ib.rows[0].value == 0.042185
    srv = parse_file(FIX / "perftest" / "issue-22077-write-bw-rdma-cm-server.txt")
    assert srv.tool == "perftest" and srv.gid_index == 1 and srv.error
    j = parse_file(FIX / "perftest" / "constructed-out-json-write-bw.json")
    assert (j.fmt, j.device, j.traffic_class, j.rows[0].size, j.rows[0].value) == ("json", "mlx5_0", 106, 1048576, 388.52)
    lat = parse_file(FIX / "perftest" / "constructed-out-json-send-lat.json")
    assert (lat.kind, lat.unit, lat.rows[0].value) == ("ib_send_lat", "us", 2.61)


def test_nccl_json() -> None:
    r = parse_file(FIX / "nccl-tests" / "constructed-j3-all-reduce-tc106.json")
    assert (r.kind, r.traffic_class, r.gid_index) == ("all_reduce", 106, 3)
    assert r.hcas == ["mlx5_0", "mlx5_1"] and r.hosts == ["gpu1", "gpu2"]
    assert [row.size for row in r.rows] == [268435456, 1073741824, 8589934592]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_fuzzed_text_never_raises(text: str) -> None:
    r = parse_text(text, "x.txt")
    assert r.tool in ("nccl-tests", "perftest", "unknown")


_SAMPLES = [p.read_text() for p in sorted(FIX.rglob("*")) if p.suffix in (".txt", ".json")]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_SAMPLES), st.integers(0, 4000), st.integers(0, 200), st.text(max_size=30))
def test_mutated_outputs_never_raise(sample: str, at: int, cut: int, junk: str) -> None:
    mutated = sample[:at] + junk + sample[at + cut :]
    parse_text(mutated, "m.json" if sample.lstrip().startswith("{") else "m.txt")
    judge_text = parse_text(mutated[: len(mutated) // 2], "half.txt")
    assert judge_text.error is None or isinstance(judge_text.error, str)


# --------------------------------------------------------------------------------------------- verdict
@pytest.fixture(scope="module")
def plan2() -> AcceptancePlan:
    """The lab intent's two ConnectX hosts: same leaves, same HCA names."""
    return build_plan(load_valid(LAB), hosts="gpu[12]")


def _perftest_json(dev: str, tos: int, size: int, value: float, latency: bool) -> dict:
    base = json.loads((FIX / "perftest" / ("constructed-out-json-send-lat.json" if latency else
                                           "constructed-out-json-write-bw.json")).read_text())
    base["test_info"]["Device"] = dev
    base["test_info"]["TOS"] = tos
    key = "t_typical" if latency else "BW_average"
    base["results"]["MsgSize"] = size
    base["results"][key] = value
    return base


def _write_all(plan: AcceptancePlan, d: Path, bw: dict[str, float] | None = None, repeats: int = 2) -> None:
    """Result files for every test of the plan, named the way the plan's script names them."""
    bw = bw or {}
    src = json.loads((FIX / "nccl-tests" / "constructed-j3-all-reduce-tc106.json").read_text())
    for c in plan.perftest:
        for size in c.sizes:
            for r in range(1, repeats + 1):
                lat = c.tool == "ib_send_lat"
                value = bw.get(c.id, c.expected_gbps + 20 if not lat else c.latency_bound_us - 1.5)
                data = _perftest_json(c.client.rdma_device, plan.traffic_class, size, value, lat)
                (d / f"{c.id}.s{size}.r{r}.json").write_text(json.dumps(data))
    for n in plan.nccl:
        data = copy.deepcopy(src)
        data["args"][0] = f"/opt/nccl-tests/build/{n.collective}_perf"
        (d / f"{n.id}.r1.json").write_text(json.dumps(data))


def test_a_complete_passing_run_passes(plan2: AcceptancePlan, tmp_path: Path) -> None:
    _write_all(plan2, tmp_path)
    v = judge(sorted(tmp_path.iterdir()), plan2)
    assert v.passed and v.exit_code == 0, [f.message for f in v.findings]
    assert {t.status for t in v.tests} == {"pass"} and len(v.tests) == len(plan2.perftest) + len(plan2.nccl)
    jsonschema.validate(json.loads(FORMATS["json"](v)), verdict_json_schema())


def test_missing_results_fail(plan2: AcceptancePlan, tmp_path: Path) -> None:
    _write_all(plan2, tmp_path)
    gone = plan2.perftest[0]
    for f in tmp_path.glob(f"{gone.id}.*"):
        f.unlink()
    v = judge(sorted(tmp_path.iterdir()), plan2)
    assert not v.passed
    assert [(f.rule, f.test) for f in v.findings if f.severity == "fail"] == [("RC412", gone.id)]


def test_wrong_traffic_class_wrong_results_and_wrong_hca(plan2: AcceptancePlan, tmp_path: Path) -> None:
    _write_all(plan2, tmp_path)
    shutil.copy(FIX / "nccl-tests" / "constructed-j3-all-reduce-tc0.json", tmp_path / "nccl.all_reduce.r1.json")
    shutil.copy(FIX / "nccl-tests" / "constructed-j3-all-reduce-wrong.json", tmp_path / "nccl.all_gather.r1.json")
    c = next(c for c in plan2.perftest if c.tool == "ib_write_bw")
    data = _perftest_json("mlx5_9", plan2.traffic_class, 1048576, c.expected_gbps + 10, False)
    (tmp_path / f"{c.id}.s1048576.r1.json").write_text(json.dumps(data))
    v = judge(sorted(tmp_path.iterdir()), plan2)
    fails = {(f.rule, f.test) for f in v.findings if f.severity == "fail"}
    assert ("RC404", "nccl.all_reduce") in fails
    assert ("RC403", "nccl.all_gather") in fails
    assert ("RC405", c.id) in fails
    tc0 = next(f for f in v.findings if f.rule == "RC404")
    assert "traffic class 0" in tc0.message and f"{plan2.traffic_class}" in tc0.message
    assert {t.id for t in v.tests if t.status == "fail"} == {"nccl.all_reduce", "nccl.all_gather", c.id}


def test_slow_pair_is_below_the_mark_an_outlier_and_asymmetric(plan2: AcceptancePlan, tmp_path: Path) -> None:
    writes = [c for c in plan2.perftest if c.tool == "ib_write_bw"]
    slow = writes[0]
    _write_all(plan2, tmp_path, bw={slow.id: 250.0})
    v = judge(sorted(tmp_path.iterdir()), plan2)
    rules = {(f.rule, f.severity) for f in v.findings if slow.id in f.test or f.rule == "RC407"}
    assert ("RC401", "fail") in rules and ("RC406", "warning") in rules and ("RC407", "warning") in rules
    assert next(t for t in v.tests if t.id == slow.id).status == "fail"
    assert v.exit_code == 1


def test_repeats_that_vary_are_a_warning(plan2: AcceptancePlan, tmp_path: Path) -> None:
    _write_all(plan2, tmp_path)
    c = next(c for c in plan2.perftest if c.tool == "ib_read_bw")
    data = _perftest_json(c.client.rdma_device, plan2.traffic_class, 8 << 20, c.expected_gbps + 80, False)
    (tmp_path / f"{c.id}.s{8 << 20}.r2.json").write_text(json.dumps(data))
    v = judge(sorted(tmp_path.iterdir()), plan2)
    assert any(f.rule == "RC408" and f.test == c.id for f in v.findings)
    assert v.passed  # variation alone does not fail the test


def test_real_nccl_output_judged_against_the_lab_plan(plan2: AcceptancePlan, tmp_path: Path) -> None:
    """issue-252's 93-97 GB/s busbw passes the lab's 40 GB/s mark; its missing NCCL INFO is a warning."""
    _write_all(plan2, tmp_path)
    (tmp_path / "nccl.all_reduce.r1.json").unlink()
    shutil.copy(FIX / "nccl-tests" / "issue-252-all-reduce-ring.txt", tmp_path / "nccl.all_reduce.r1.txt")
    v = judge(sorted(tmp_path.iterdir()), plan2)
    t = next(t for t in v.tests if t.id == "nccl.all_reduce")
    assert t.status == "pass" and all(f.ok for f in t.figures)
    assert [f.rule for f in v.findings if f.test == "nccl.all_reduce"] == ["RC410"]
    # the same output against a plan whose pass mark is above it fails
    strict = build_plan(load_valid(LAB), hosts="gpu[12]")
    for n in strict.nccl:
        n.threshold_busbw_gbs = 96.0
    v2 = judge(sorted(tmp_path.iterdir()), strict)
    assert any(f.rule == "RC401" and f.test == "nccl.all_reduce" for f in v2.findings)


def test_cli_verdict_formats_and_exit_codes(plan2: AcceptancePlan, tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "roceconf.cli"]
    plan_file = tmp_path / "plan.json"
    res = subprocess.run(exe + ["acceptance", "plan", str(LAB), "--hosts", "gpu[12]", "--format", "json",
                                "--output", str(plan_file)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    results = tmp_path / "results"
    results.mkdir()
    _write_all(plan2, results)
    res = subprocess.run(exe + ["acceptance", "verdict", str(results), "--plan", str(plan_file), "--format", "json"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout)["passed"] is True
    shutil.copy(FIX / "nccl-tests" / "constructed-j3-all-reduce-tc0.json", results / "nccl.all_reduce.r1.json")
    for fmt in ("text", "junit", "markdown", "yaml"):
        res = subprocess.run(exe + ["acceptance", "verdict", str(results), "--plan", str(plan_file), "--format", fmt],
                             capture_output=True, text=True)
        assert res.returncode == 1, res.stderr
        assert "RC404" in res.stdout
    ET.fromstring(subprocess.run(exe + ["acceptance", "verdict", str(results), "--plan", str(plan_file), "--format",
                                        "junit"], capture_output=True, text=True).stdout)
    (tmp_path / "bad.json").write_text("{not json")
    for args in (["acceptance", "verdict", str(tmp_path / "missing")],
                 ["acceptance", "verdict", str(results), "--plan", str(tmp_path / "bad.json")],
                 ["acceptance", "verdict", str(results), "--plan", str(LAB)]):
        res = subprocess.run(exe + args, capture_output=True, text=True)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_an_unreadable_result_names_its_file_once(tmp_path: Path) -> None:
    """Without a plan the test is named after its file: the RC409 message does not repeat the name."""
    bad = tmp_path / "garbage.txt"
    bad.write_text("garbage\n")
    v = judge([bad])
    [f] = [f for f in v.findings if f.rule == "RC409"]
    assert f.test == "garbage.txt" and f.message == "not an nccl-tests or perftest output"


def test_one_finding_per_cause_across_message_sizes(plan2: AcceptancePlan, tmp_path: Path) -> None:
    """A slow pair is below the pass mark, an outlier and asymmetric at every judged size: one finding per rule
    in text, Markdown and JUnit, the sizes listed; JSON keeps each per-size finding and lists the causes."""
    from roceconf.acceptance.report import FORMATS

    slow = next(c for c in plan2.perftest if c.tool == "ib_write_bw")
    _write_all(plan2, tmp_path, bw={slow.id: 250.0})
    v = judge(sorted(tmp_path.iterdir()), plan2)
    assert len(v.findings) == 8
    got = [(x.first.rule, [f.size for f in x.findings]) for x in v.causes]
    assert got == [("RC401", [1048576, 8388608]), ("RC406", [65536, 1048576, 8388608]),
                   ("RC407", [65536, 1048576, 8388608])]
    assert v.causes[0].message.endswith("below the pass mark 360 Gb/s; also at 8388608 B")
    text = FORMATS["text"](v)
    assert text.count("[RC401]") == 1 and text.count("[RC406]") == 1 and "3 finding(s) for 8 per-size" in text
    assert FORMATS["markdown"](v).count("| RC406 |") == 1 and FORMATS["junit"](v).count("RC406") == 1
    data = json.loads(FORMATS["json"](v))
    assert len(data["findings"]) == 8 and [c["items"] for c in data["causes"]] == [[0, 1], [2, 3, 4], [5, 6, 7]]
    assert v.exit_code == 1  # unchanged
    # a different value is not a different cause; a different rule or test is
    other = next(c for c in plan2.perftest if c.tool == "ib_read_bw")
    _write_all(plan2, tmp_path, bw={slow.id: 250.0, other.id: 200.0})
    v = judge(sorted(tmp_path.iterdir()), plan2)
    assert [x.first.rule for x in v.causes if x.first.test == other.id] == ["RC401", "RC406"]
