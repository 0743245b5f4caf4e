"""Nothing judged is never a pass (issue 24, items 9, 10 and 14), through the real command line.

* counter samples whose timestamps are equal, reversed or not numbers give no rate: a PFC storm in them is
  ``unknown`` with the reason (exit 3), never HEALTHY (exit 0);
* ``acceptance verdict`` without a plan (or with a plan of no tests) judged nothing: NOT JUDGED, exit 1;
* a minimal intent (one lossless RoCE class, one CNP class without ``scheduling``, a leaf, a host, a link)
  validates and renders: the CNP class takes its documented default, strict priority.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from roceconf.compile import load_valid, render_fabric
from roceconf.health.collect import SAVED_SUFFIX, port_map
from roceconf.lab.counters import LabCounters, Scenario, profiles
from roceconf.platforms import counters as counter_spec
from tests.hostile import harness

ROOT = harness.ROOT
RESULTS = ROOT / "tests" / "fixtures" / "acceptance" / "nccl-tests"

STORM_INTENT = """version: 1
fabric: storm
qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true, ecn: {min: 150KB, max: 1500KB, probability: 100}, scheduling: {mode: dwrr, weight_percent: 50}}
    - {name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {mode: strict}}
    - {name: default, dscp: [0], priority: 0, scheduling: {mode: dwrr, weight_percent: 50}}
devices:
  - {name: leaf1, platform: eos, role: leaf, asic: tomahawk4, interfaces: [{name: Ethernet1-2, speed: 400G}]}
"""


def _storm_counters(intent: Path, out: Path, times: list[float]) -> None:
    """Saved counters (the `health --save-counters` form) of a PFC storm on every port of leaf1, one sample
    at each of ``times`` as the device stamped them; the counters move as the real storm does (1 s apart)."""
    fab = load_valid(intent)
    dev = fab.devices["leaf1"]
    config = render_fabric(fab)[next(n for n in render_fabric(fab) if n.startswith("leaf1"))]
    ports = profiles(dev.platform, config, False)
    spec = counter_spec(dev.platform)
    engine = LabCounters(is_host=False, t0=0.0, scenarios=[Scenario("pfc-storm")])
    samples = []
    for i, t in enumerate(times):
        outputs = {cmd: spec.simulate(engine.read(cmd, ports, now=100.0 + i), cmd, {}) for cmd in spec.commands(port_map(dev))}
        samples.append({"taken_at": t, "command_times": {}, "outputs": outputs})
    out.mkdir(parents=True, exist_ok=True)
    (out / f"leaf1{SAVED_SUFFIX}").write_text(
        json.dumps({"format_version": 1, "device": "leaf1", "platform": dev.platform, "samples": samples})
    )


@pytest.fixture()
def storm_intent(tmp_path: Path) -> Path:
    p = tmp_path / "storm.yml"
    p.write_text(STORM_INTENT)
    return p


def test_the_storm_is_seen_when_the_timestamps_are_sound(storm_intent: Path, tmp_path: Path) -> None:
    """The control: the same counters 1 s apart are a storm (exit 1, RC303), so the cases below mean something."""
    _storm_counters(storm_intent, tmp_path / "c", [1000.0, 1001.0])
    o = harness.run("health", str(storm_intent), "--counters", str(tmp_path / "c"), "--format", "json")
    harness.check(o, bad_input=False, rc=1)
    assert any(f["rule"] == "RC303" for d in json.loads(o.stdout)["devices"] for p in d["ports"] for f in p["findings"]), o.stdout[:2000]


@pytest.mark.parametrize(
    "times, why",
    [
        ([1000.0, 1000.0], "same time"),
        ([1001.0, 1000.0], "backwards"),
        ([float("nan"), 1000.0], "not a number"),
        ([1000.0, float("nan")], "not a number"),
        ([float("inf"), 1000.0], "not a number"),
        ([1000.0, 1000.0, 999.0], "same time"),
    ],
)
def test_a_storm_without_a_valid_rate_is_unknown_not_healthy(
    storm_intent: Path, tmp_path: Path, times: list[float], why: str
) -> None:
    _storm_counters(storm_intent, tmp_path / "c", times)
    for fmt in ("text", "json"):
        o = harness.run("health", str(storm_intent), "--counters", str(tmp_path / "c"), "--format", fmt)
        harness.check(o, bad_input=False, rc=3)
        if fmt == "text":
            assert "no valid rate" in o.stdout and "1 unknown" in o.stdout and "1 healthy" not in o.stdout, o.stdout
        else:
            dev = json.loads(o.stdout)["devices"][0]
            assert dev["status"] == "unknown" and "no valid rate" in dev["reason"] and why in dev["reason"], dev


def test_a_verdict_without_a_plan_is_never_a_pass(tmp_path: Path) -> None:
    good = [p for p in sorted(RESULTS.iterdir()) if p.name in ("constructed-j3-all-reduce-tc0.json", "issue-252-all-reduce-ring.txt")]
    assert len(good) == 2
    o = harness.run("acceptance", "verdict", *map(str, good))
    harness.check(o, bad_input=False, rc=1)
    assert "NOT JUDGED" in o.stdout and "PASS" not in o.stdout, o.stdout
    o = harness.run("acceptance", "verdict", *map(str, good), "--format", "json")
    harness.check(o, bad_input=False, rc=1)
    data = json.loads(o.stdout)
    assert data["passed"] is False and data["exit_code"] == 1
    o = harness.run("acceptance", "verdict", *map(str, good), "--format", "junit")
    harness.check(o, bad_input=False, rc=1)
    suite = ET.fromstring(o.stdout)
    assert int(suite.get("failures")) >= 1 and suite.find(".//failure") is not None
    o = harness.run("acceptance", "verdict", *map(str, good), "--format", "markdown")
    harness.check(o, bad_input=False, rc=1)
    assert "**NOT JUDGED**" in o.stdout


def test_a_verdict_on_a_plan_of_no_tests_is_never_a_pass(tmp_path: Path) -> None:
    """A real plan with its tests taken out (as a hand-edited or truncated plan would be): nothing to judge."""
    o = harness.run("acceptance", "plan", str(harness.LAB), "--format", "json")
    harness.check(o, bad_input=False, rc=0)
    plan = json.loads(o.stdout)
    assert plan["perftest"] or plan["nccl"]
    plan["perftest"], plan["nccl"] = [], []
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    o = harness.run("acceptance", "verdict", str(RESULTS), "--plan", str(tmp_path / "plan.json"))
    harness.check(o, bad_input=False, rc=1)
    assert "NOT JUDGED" in o.stdout or "FAIL" in o.stdout
    assert "PASS" not in o.stdout


MINIMAL = """version: 1
fabric: minimal
qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true}
    - {name: cnp, role: cnp, dscp: [48], priority: 6}
devices:
  - {name: leaf1, platform: eos, role: leaf, interfaces: [{name: Ethernet1, speed: 400G}]}
  - {name: gpu1, platform: connectx, role: host, interfaces: [{name: eth0, speed: 400G, rdma_device: mlx5_0}]}
links:
  - {a: 'gpu1:eth0', b: 'leaf1:Ethernet1'}
"""


def test_a_minimal_intent_validates_and_its_cnp_class_is_strict(tmp_path: Path) -> None:
    p = tmp_path / "minimal.yml"
    p.write_text(MINIMAL)
    o = harness.run("validate", str(p))
    harness.check(o, bad_input=False, rc=0)
    assert "RC104" not in o.output
    o = harness.run("render", str(p), "-o", str(tmp_path / "out"))
    harness.check(o, bad_input=False, rc=0)
    o = harness.run("expand", str(p), "--format", "json")
    harness.check(o, bad_input=False, rc=0)
    # the leaf's parsed config schedules priority 6 (the CNP class) strict, as docs/intent.md says
    leaf = next((tmp_path / "out").glob("leaf1.*"))
    o = harness.run("parse", "--platform", "eos", str(leaf), "--format", "json")
    harness.check(o, bad_input=False, rc=0)
    sched = json.loads(o.stdout)["interfaces"]["Ethernet1"]["scheduling"]
    assert sched["6"]["mode"] == "strict", sched
    # a CNP class stated weighted is still refused (RC104): the default only fills what is not stated
    (tmp_path / "dwrr.yml").write_text(
        MINIMAL.replace("priority: 6}", "priority: 6, scheduling: {mode: dwrr, weight_percent: 10}}")
    )
    o = harness.run("validate", str(tmp_path / "dwrr.yml"))
    harness.check(o, bad_input=False, rc=2)  # a linter's report (several findings), not one line
    assert "error[RC104]" in o.stdout


def test_the_documented_defaults_are_applied_as_written(tmp_path: Path) -> None:
    """docs/intent.md: "RoCE DSCP 26 -> priority 3 lossless with ECN 150 KB / 1500 KB / 100 %; CNP DSCP 48 ->
    priority 6 strict; PFC watchdog on", switch MTU 9214, host NIC MTU 9000, RoCE path MTU 4096, hashing on
    source/destination IP and L4 ports - for an intent that states none of them."""
    from roceconf.intent import load

    text = (harness.ROOT / "docs" / "intent.md").read_text()
    assert "RoCE DSCP 26 -> priority 3 lossless with ECN 150 KB / 1500 KB / 100 %" in text
    assert "CNP DSCP 48 -> priority 6 strict; PFC watchdog on" in text
    p = tmp_path / "bare.yml"
    p.write_text(
        "version: 1\nfabric: bare\ndevices:\n"
        "  - {name: leaf1, platform: eos, role: leaf, interfaces: [{name: Ethernet1-2, speed: 400G}]}\n"
    )
    s = load(p).devices["leaf1"].settings
    assert s.roce is not None and s.cnp is not None
    assert (s.roce.dscp, s.roce.priority, s.roce.lossless) == ([26], 3, True)
    assert s.roce.ecn is not None and (s.roce.ecn.min, s.roce.ecn.max, s.roce.ecn.probability) == (150_000, 1_500_000, 100)
    assert (s.cnp.dscp, s.cnp.priority, s.cnp.lossless) == ([48], 6, False)
    assert s.cnp.scheduling is not None and s.cnp.scheduling.mode == "strict"
    assert s.pfc_watchdog.enabled
    assert (s.mtu.switch_port, s.mtu.host_nic, s.mtu.roce_path) == (9214, 9000, 4096)
    assert set(s.ecmp.fields) == {"src_ip", "dst_ip", "src_port", "dst_port"}
    # the CNP default holds on every device of an intent that states its classes but not the CNP's scheduling
    p.write_text(MINIMAL)
    for name, dev in load(p).devices.items():
        assert dev.settings.cnp is not None and dev.settings.cnp.scheduling is not None, name
        assert dev.settings.cnp.scheduling.mode == "strict", name


@pytest.mark.parametrize("command", ["drift", "health"])
def test_an_audit_of_no_device_is_not_a_pass(tmp_path: Path, command: str) -> None:
    """An intent that names no device (or a slice of it with none) audits nothing: unknown, exit 3, never
    "0 in sync" / "0 healthy" with exit 0."""
    intent = tmp_path / "empty.yml"
    intent.write_text("version: 1\nfabric: empty\ndevices: []\n", encoding="utf-8")
    (tmp_path / "saved").mkdir()
    source = "--configs" if command == "drift" else "--counters"
    o = harness.run(command, str(intent), source, str(tmp_path / "saved"))
    harness.check(o, bad_input=False, rc=3)
    assert "nothing " in o.stdout, o.stdout
    o = harness.run(command, str(intent), source, str(tmp_path / "saved"), "--format", "json")
    harness.check(o, bad_input=False, rc=3)
    assert json.loads(o.stdout)["exit_code"] == 3
