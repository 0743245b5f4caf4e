"""`roceconf health` end to end over real SSH / HTTP (napalm eAPI, netmiko) against the loopback lab.

One lab serves the module; each test sets the lab's counter scenarios. Intervals are short (0.2 s): the lab's
counters move with time, the rates are computed from the measured timestamps of each read.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from prometheus_client.parser import text_string_to_metric_families

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.health.collect import health_live, health_offline
from roceconf.health.report import FORMATS
from roceconf.intent import Fabric
from roceconf.lab.server import Lab

#: the tests that share the module's `lab` run on one xdist worker (one lab for them all)
SHARED_LAB = pytest.mark.xdist_group("health-lab")

ROOT = Path(__file__).parent.parent
LAB_INTENT = ROOT / "inventories" / "lab" / "intent.yml"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


@pytest.fixture(scope="module")
def creds() -> tuple[str, str]:
    return f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16)


@pytest.fixture(scope="module")
def lab(fab: Fabric, creds: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, Path]]:
    files = render_fabric(fab)
    with Lab(*creds) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        yield lab, lab.write_inventory(tmp_path_factory.mktemp("inv") / "inventory.yml")


def run(fab: Fabric, inv: Path, creds: tuple[str, str], **kw):
    kw.setdefault("samples", 2)
    kw.setdefault("interval", 0.2)
    return health_live(fab, inv, workers=10, timeout=10, credentials=creds, **kw)


def keyed(report) -> list[tuple]:
    return sorted((f.rule, f.severity, f.device, f.port, f.priority) for f in report.findings)


#: every scenario on its own device / port, spread over all platforms; (rule, severity, device, port, prio)
SCENARIOS = {
    "pfc-storm@leaf2:swp1": ("RC303", "critical", "leaf2", "swp1", 3),  # NVUE: pause duration share
    "pfc-storm@spine1:Ethernet1/3": ("RC303", "critical", "spine1", "Ethernet1/3", 3),  # NX-OS: frame rate
    "watchdog@leaf3:Ethernet248": ("RC301", "critical", "leaf3", "Ethernet248", 3),
    "watchdog@leaf1:Ethernet2": ("RC301", "critical", "leaf1", "Ethernet2", 3),
    "lossless-drops@leaf4:Ethernet50": ("RC300", "critical", "leaf4", "Ethernet50", 3),
    "lossless-drops@gpu3:eth1": ("RC300", "critical", "gpu3", "eth1", 3),
    "ecn-no-cnp@gpu1:eth0": ("RC306", "critical", "gpu1", "eth0", None),
    "ecn-no-cnp@gpu4:eth1": ("RC306", "critical", "gpu4", "eth1", None),
    "misclassified-pause@spine2:et-0/0/2": ("RC304", "warning", "spine2", "et-0/0/2", 0),
    "counter-reset@gpu2:eth1": ("RC309", "warning", "gpu2", "eth1", None),
}


@SHARED_LAB
def test_healthy_lab_gives_no_finding(fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str]) -> None:
    lab_, inv = lab
    lab_.set_scenarios(["healthy"])
    before = {n: lab_.stats(n)["commands"] for n in fab.devices}
    report = run(fab, inv, creds, samples=3)
    assert [(d.device, d.status, d.reason) for d in report.devices if d.status != "healthy"] == []
    assert report.findings == [] and report.exit_code == 0
    for d in report.devices:
        assert len(d.samples) == 3 and d.ports, d.device
        assert set(d.ports) == set(fab.devices[d.device].ports)
        # the counters moved: healthy load has pauses both ways on the lossless priority
        some = next(iter(d.ports.values()))
        assert some.mean("pfc_tx", 3) and some.mean("pfc_rx", 3), d.device
        assert lab_.stats(d.device)["commands"] > before[d.device]


@SHARED_LAB
def test_each_scenario_is_found_on_its_device_port_and_priority(
    fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path
) -> None:
    lab_, inv = lab
    lab_.set_scenarios(list(SCENARIOS))
    saved = tmp_path / "saved"
    report = run(fab, inv, creds, save_dir=saved)
    assert keyed(report) == sorted(SCENARIOS.values())
    assert report.exit_code == 1
    assert {d.device for d in report.devices if d.status == "findings"} == {v[2] for v in SCENARIOS.values()}
    assert all(d.status == "healthy" for d in report.devices if d.device not in {v[2] for v in SCENARIOS.values()})
    storm = next(f for f in report.findings if f.device == "leaf2")
    assert storm.counters == ["pfc_rx_us"] and storm.value and storm.value > 0.9
    reset = next(f for f in report.findings if f.rule == "RC309")
    assert "pfc_rx" in reset.counters

    # offline: the saved raw outputs give the same findings, to the value
    offline = health_offline(fab, saved)
    assert [f.to_dict() for f in offline.findings] == [f.to_dict() for f in report.findings]
    assert offline.exit_code == 1
    assert sorted(p.name for p in saved.iterdir()) == sorted(f"{n}.counters.json" for n in fab.devices)


@SHARED_LAB
def test_scenario_on_a_whole_device_and_bad_scenarios(lab: tuple[Lab, Path]) -> None:
    lab_, _ = lab
    for bad, why in (
        ("pfc-strom", "unknown scenario"),
        ("ecn-no-cnp@leaf1", "host"),
        ("watchdog@gpu1:eth0", "switch"),
        ("pfc-storm@leaf9", "no device"),
        ("pfc-storm@leaf1:Ethernet7", "no port"),
    ):
        with pytest.raises(ValueError, match=why):
            lab_.set_scenarios([bad])


@SHARED_LAB
def test_unreadable_device_is_unknown_and_exit_3(fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str]) -> None:
    lab_, inv = lab
    lab_.set_scenarios([])
    lab_.set_fault("spine2", "refuse")
    try:
        report = health_live(fab, inv, samples=2, interval=0.2, timeout=2, retries=0, credentials=creds, workers=10)
    finally:
        lab_.set_fault("spine2", None)
    by = {d.device: d for d in report.devices}
    assert by["spine2"].status == "unknown" and "refused" in (by["spine2"].reason or "")
    assert all(d.status == "healthy" for n, d in by.items() if n != "spine2")
    assert report.findings == [] and report.exit_code == 3


def _cli(args: list[str], creds: tuple[str, str], **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    return subprocess.run([str(BIN / "roceconf"), "health", str(LAB_INTENT), *args], env=env, capture_output=True, text=True, timeout=180, **kw)


@SHARED_LAB
def test_cli_formats_prometheus_and_serve(fab: Fabric, lab: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path) -> None:
    lab_, inv = lab
    lab_.set_scenarios(["lossless-drops@leaf1:Ethernet1"])
    saved = tmp_path / "saved"
    r = _cli(["--inventory", str(inv), "--interval", "0.2", "--format", "json", "--output", str(tmp_path / "h.json"), "--save-counters", str(saved)], creds)
    assert r.returncode == 1, r.stderr
    data = json.loads((tmp_path / "h.json").read_text())
    jsonschema.validate(data, json.loads((ROOT / "schemas" / "health-report.schema.json").read_text()))
    assert data["exit_code"] == 1 and data["summary"]["critical"] == 1
    (f,) = [f for d in data["devices"] for p in d["ports"] for f in p["findings"]]
    assert (f["rule"], f["device"], f["port"], f["priority"]) == ("RC300", "leaf1", "Ethernet1", 3)
    assert "Traceback" not in r.stderr

    # every format from the saved counters names the finding (the JSON one validates against its schema)
    offline = health_offline(fab, saved)
    for fmt, fn in FORMATS.items():
        assert "RC300" in fn(offline), fmt

    # Prometheus textfile, read back with prometheus_client's own parser
    prom = tmp_path / "roceconf.prom"
    out = _cli(["--counters", str(saved), "--format", "prometheus", "--output", str(prom)], creds)
    assert out.returncode == 1, out.stderr
    fams = {m.name: m for m in text_string_to_metric_families(prom.read_text())}
    pause = fams["roceconf_pfc_pause_frames"]
    assert pause.type == "counter"
    rx3 = [s for s in pause.samples if s.name == "roceconf_pfc_pause_frames_total" and s.labels == {"device": "leaf1", "port": "Ethernet1", "priority": "3", "direction": "rx"}]
    assert len(rx3) == 1 and rx3[0].value > 0
    finding = [s for s in fams["roceconf_health_finding"].samples if s.value == 1]
    assert [(s.labels["device"], s.labels["port"], s.labels["priority"], s.labels["rule"], s.labels["severity"]) for s in finding] == [
        ("leaf1", "Ethernet1", "3", "RC300", "critical")
    ]
    drops = [s for s in fams["roceconf_dropped_packets_per_second"].samples if s.labels["device"] == "leaf1" and s.labels["port"] == "Ethernet1" and s.labels["priority"] == "3" and s.labels["stage"] == "egress_queue"]
    assert drops and drops[0].value > 10
    up = {s.labels["device"]: s.value for s in fams["roceconf_health_device_up"].samples}
    assert up == {n: 1.0 for n in fab.devices}

    # --serve answers a real HTTP scrape, then stops by itself with the report's exit code
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [str(BIN / "roceconf"), "health", str(LAB_INTENT), "--counters", str(saved), "--serve", "0", "--serve-for", "4"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
        assert m, line
        body = urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/metrics", timeout=10).read().decode()
        scraped = {f.name for f in text_string_to_metric_families(body)}
        assert {"roceconf_pfc_pause_frames", "roceconf_health_finding", "roceconf_health_device_up"} <= scraped
        assert proc.wait(timeout=60) == 1  # stopped by itself after --serve-for
        assert time.monotonic() - t0 >= 4
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    # bad input: a clear message and exit 2, no traceback
    bad = _cli(["--inventory", str(inv), "--counters", str(saved)], creds)
    assert bad.returncode == 2 and "exactly one of" in bad.stderr and "Traceback" not in bad.stderr


def test_lab_process_scenarios_as_a_user_runs_them(fab: Fabric, creds: tuple[str, str], tmp_path: Path) -> None:
    """`roceconf lab --scenario ...` then `roceconf health`: the documented user flow, two processes."""
    from roceconf.compile import write_outputs

    cfg = tmp_path / "render"
    write_outputs(render_fabric(fab), cfg)
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    base = [str(BIN / "roceconf"), "lab", "--configs", str(cfg), "--inventory-out", str(tmp_path / "lab.yml")]
    bad = subprocess.run([*base, "--scenario", "pfc-storm@leaf1:Ethernet9"], env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "leaf1 has no port 'Ethernet9'" in bad.stderr, bad.stderr
    inv = tmp_path / "lab.yml"
    proc = subprocess.Popen(
        [*base, "--ttl", "120", "--scenario", "misclassified-pause@leaf4", "--scenario", "ecn-no-cnp@gpu2:eth1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not inv.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "inventory not written"
            time.sleep(0.1)
        r = _cli(["--inventory", str(inv), "--interval", "0.2", "--format", "json"], creds)
        assert r.returncode == 1, r.stderr
        got = sorted(
            (f["rule"], f["device"], f["port"], f["priority"])
            for d in json.loads(r.stdout)["devices"] for p in d["ports"] for f in p["findings"]
        )
        # a scenario on a whole device acts on every port of it
        assert got == [("RC304", "leaf4", p, 0) for p in ("Ethernet1", "Ethernet2", "Ethernet49", "Ethernet50")] + [
            ("RC306", "gpu2", "eth1", None)
        ]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert not inv.exists()  # the lab removed the inventory it wrote
