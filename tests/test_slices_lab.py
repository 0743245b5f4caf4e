"""Sliced runs against the loopback lab, the way AWX / Automation Platform runs them: the nightly audit as a job
template sliced in 3 (AWX's rule: the inventory's hosts sorted by name, every 3rd from the K-th; each slice's
inventory holds its hosts only; `awx_job_id` and `awx_workflow_job_id` as extra vars) run by the real
ansible-runner in parallel, then merged - equal to the unsliced run (devices, items, counts, exit code); the same
for the health check and the bill of materials. Once more, each of the three, through ansible-runner's
`transmit | worker | process` streaming, the way AWX hands a job to an execution node. The CLI's `--slice K/N`
for health and bom, merged, equals the unsliced CLI run.

The inventory has a host the intent lacks (fw1: skipped, never contacted) and lacks a device of the intent (gpu4:
unknown); leaf3 drifted out of band (its host alone fails in PLAY RECAP).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ansible_runner
import pytest
import yaml

from roceconf.cabling.collect import no_link_reader
from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.lab import Lab
from roceconf.slices import REPORT_FILE, awx_slice, slice_devices
from tests.test_ansible import COLLECTIONS, recap

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
INTENT = ROOT / "inventories" / "lab" / "intent.yml"
WORKFLOW = 77  # awx_workflow_job_id shared by the slices; the slices are jobs 101..103

pytestmark = pytest.mark.xdist_group("slices-lab")


@dataclass
class Setup:
    lab: Lab
    tmp: Path
    password: str
    inventory: dict[str, Any]  # fw1 added, gpu4 left out

    @property
    def envvars(self) -> dict[str, str]:
        return {
            "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS),
            "ANSIBLE_HOME": str(self.tmp / "ansible-home"),
            "ANSIBLE_LOCAL_TEMP": str(self.tmp / "ansible-tmp"),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_RETRY_FILES_ENABLED": "0",
            "ROCECONF_USERNAME": "labuser",
            "ROCECONF_PASSWORD": self.password,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT),
        }

    def hosts(self) -> list[str]:
        return list(self.inventory["all"]["hosts"])

    def sliced(self, hosts: list[str]) -> dict[str, Any]:
        """The inventory AWX gives a slice: its hosts only (and their groups)."""
        inv = json.loads(json.dumps(self.inventory))
        inv["all"]["hosts"] = {h: v for h, v in inv["all"]["hosts"].items() if h in hosts}
        for g in inv["all"]["children"].values():
            g["hosts"] = {h: None for h in g["hosts"] if h in hosts}
        return inv

    def data_dir(self, name: str, playbook: str, inventory: dict[str, Any], extravars: dict[str, Any]) -> Path:
        """An ansible-runner private data directory (project, inventory, env)."""
        d = self.tmp / "runner" / name
        for sub in ("project", "inventory", "env"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        (d / "project" / "main.yml").write_text(f"---\n- name: Run {playbook}\n  ansible.builtin.import_playbook: {playbook}\n")
        (d / "inventory" / "hosts.yml").write_text(yaml.safe_dump(inventory, sort_keys=False))
        (d / "env" / "extravars").write_text(json.dumps(extravars))
        (d / "env" / "envvars").write_text(json.dumps(self.envvars))
        return d


def _drop_pfc(text: str) -> str:
    data = json.loads(text)
    del data["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    return json.dumps(data, indent=4)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    tmp = tmp_path_factory.mktemp("slices-lab")
    fab = load_valid(INTENT)
    files = render_fabric(fab)
    password = secrets.token_urlsafe(16)
    with Lab("labuser", password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        lab.edit("leaf3", _drop_pfc)
        inv = lab.inventory()
        del inv["all"]["hosts"]["gpu4"]
        for g in inv["all"]["children"].values():
            g["hosts"].pop("gpu4", None)
        # a firewall in the same inventory: not a device of the intent (its port answers nothing)
        inv["all"]["hosts"]["fw1"] = {"ansible_host": "127.0.0.1", "ansible_port": 9, "ansible_network_os": "fortinet"}
        # 1 s between samples: a sample's time is the middle of its read, so a read that takes a good part of the
        # interval (a loaded machine) skews its rates; 0.2 s once made the partner of a port read by another
        # slice count 12 PFC frames/s against the 28/s the port sent (a false RC310 in the merge only)
        inv["all"]["vars"] = {"roceconf_intent": str(INTENT), "roceconf_timeout": 5, "roceconf_retries": 0,
                              "roceconf_health_interval": 1.0}
        yield Setup(lab, tmp, password, inv)


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A drift report without what differs between two runs of one audit: time, durations, the source line, the
    wording of why a device was in no run (the unsliced run: not in the inventory; the merge: in no slice)."""
    out = {k: v for k, v in report.items() if k not in ("generated_at", "source")}
    out["devices"] = [
        {k: v for k, v in d.items() if k not in ("seconds", "attempts") and not (k == "reason" and d["source"] == "")}
        for d in report["devices"]
    ]
    return out


def _day(root: Path) -> Path:
    (day,) = [p for p in root.iterdir() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", p.name)]
    return day


def _run(d: Path) -> Any:
    return ansible_runner.run(private_data_dir=str(d), playbook="main.yml", quiet=True, cmdline="--forks 10")


PLAYBOOK = {"drift": "roceconf.fabric.drift_audit", "health": "roceconf.fabric.health_check", "bom": "roceconf.fabric.bom"}
FULL_DIR = {"drift": "reports-full", "health": "health-full", "bom": "bom-full"}  # the unsliced runs' reports


def _unsliced(setup: Setup, kind: str) -> dict[str, Any]:
    """The unsliced playbook run's report (run here unless a test of this module already ran it)."""
    root = setup.tmp / FULL_DIR[kind]
    if not root.exists():
        _run(setup.data_dir(f"{kind}-unsliced", PLAYBOOK[kind], setup.inventory, {"roceconf_report_dir": str(root)}))
    return json.loads((_day(root) / REPORT_FILE[kind]).read_text())


def _bom_comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A BOM without its time and the wording of why a device was in no run (not in the inventory / no slice)."""
    out = json.loads(json.dumps(report))
    out.pop("generated_at")
    for d in out["devices"].values():
        if d["status"] != "read":
            d.pop("reason")
    return out


def _assert_same(kind: str, merged: dict[str, Any], merged_rc: int, unsliced: dict[str, Any]) -> None:
    """The merge equals the unsliced run: devices, verdicts, items, counts and exit code (timestamps aside)."""
    if kind == "drift":
        assert merged_rc == unsliced["exit_code"] and _comparable(merged) == _comparable(unsliced)
    elif kind == "health":
        assert merged_rc == unsliced["exit_code"] == merged["exit_code"]
        assert merged["summary"] == unsliced["summary"]
        assert ({d["device"]: d["status"] for d in merged["devices"]}
                == {d["device"]: d["status"] for d in unsliced["devices"]})
        assert _finding_keys(merged) == _finding_keys(unsliced)
    else:
        assert merged_rc == (3 if any(d["status"] != "read" for d in unsliced["devices"].values()) else 0)
        assert _bom_comparable(merged) == _bom_comparable(unsliced)


def test_sliced_nightly_audit_through_ansible_runner_equals_the_unsliced_run(setup: Setup) -> None:
    full_dir = setup.tmp / "reports-full"
    full = _run(setup.data_dir("full", "roceconf.fabric.drift_audit", setup.inventory,
                               {"roceconf_report_dir": str(full_dir)}))
    out = full.stdout.read()
    assert setup.password not in out
    assert full.rc != 0 and full.status == "failed", out[-4000:]
    rc = recap(out)
    # leaf3's finding fails leaf3's host, nobody else's; fw1 is skipped with a note; one summary on localhost
    assert rc["leaf3"]["failed"] == 1, rc
    assert all(v["failed"] == 0 for h, v in rc.items() if h not in ("leaf3", "localhost")), rc
    assert rc["fw1"]["failed"] == 0 and "not devices of the intent, skipped: fw1" in out
    assert rc["localhost"]["failed"] == 1 and "exit code 1: 3 finding(s) block the audit" in out, out[-3000:]
    assert "gpu4: could not audit: not in the inventory" in out
    unsliced = json.loads((_day(full_dir) / "drift.json").read_text())
    statuses = {d["device"]: d["status"] for d in unsliced["devices"]}
    assert statuses["leaf3"] == "drift" and statuses["gpu4"] == "unknown" and "fw1" not in statuses
    gpu4 = next(d for d in unsliced["devices"] if d["device"] == "gpu4")
    assert gpu4["reason"] == "not in the inventory"
    assert unsliced["exit_code"] == 1 and unsliced["summary"]["in_sync"] == len(statuses) - 2

    # 3 slices in parallel, each with the inventory AWX would give it
    sliced_dir = setup.tmp / "reports-sliced"
    runs = []
    for k in (1, 2, 3):
        hosts = awx_slice(setup.hosts(), k, 3)
        d = setup.data_dir(f"slice{k}", "roceconf.fabric.drift_audit", setup.sliced(hosts),
                           {"roceconf_report_dir": str(sliced_dir), "awx_job_id": 100 + k,
                            "awx_workflow_job_id": WORKFLOW})
        runs.append((hosts, *ansible_runner.run_async(private_data_dir=str(d), playbook="main.yml", quiet=True)))
    for hosts, thread, runner in runs:
        thread.join(timeout=600)
        text = runner.stdout.read()
        assert setup.password not in text
        rc = recap(text)
        assert {h for h in rc if h != "localhost"} == set(hosts), rc
        assert runner.rc == (0 if "leaf3" not in hosts else 2), text[-3000:]
        # a slice reports its own devices: the others are neither its findings nor its unknowns
        folder = _day(sliced_dir) / "slices" / f"awx-{WORKFLOW}" / f"job-{100 + [r[0] for r in runs].index(hosts) + 1}"
        part = json.loads((folder / "drift.json").read_text())
        assert sorted(d["device"] for d in part["devices"]) == sorted(set(hosts) - {"fw1"})
    # the merge step (the workflow's last node), through ansible-runner too
    merge = _run(setup.data_dir("merge", "roceconf.fabric.merge_slices", {"all": {"hosts": {}}},
                                {"roceconf_report_dir": str(sliced_dir)}))
    text = merge.stdout.read()
    assert merge.rc != 0 and "merged drift report: exit code 1" in text, text[-3000:]
    merged = json.loads((_day(sliced_dir) / "drift.json").read_text())
    assert _comparable(merged) == _comparable(unsliced)
    for day in (_day(sliced_dir), _day(full_dir)):  # the HTML fabric map beside the reports
        assert "leaf3" in (day / "drift.html").read_text()
    assert next(d for d in merged["devices"] if d["device"] == "gpu4")["reason"].startswith("in no slice's results")

    # the CLI merge gives the same, with the exit code of the unsliced CLI audit
    cli_inv = setup.tmp / "cli-inventory.yml"
    cli_inv.write_text(yaml.safe_dump(setup.inventory))
    env = {**os.environ, **setup.envvars}
    drift = subprocess.run([str(BIN / "roceconf"), "drift", str(INTENT), "--inventory", str(cli_inv), "--format", "json"],
                           capture_output=True, text=True, env=env, timeout=300)
    res = subprocess.run([str(BIN / "roceconf"), "report", "merge", str(_day(sliced_dir) / "slices" / f"awx-{WORKFLOW}"), "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == drift.returncode == 1, res.stderr + drift.stderr
    assert _comparable(json.loads(res.stdout))["summary"] == json.loads(drift.stdout)["summary"]

    # a slice that never ran: its devices are unknown, the merge is not green
    gone = _day(sliced_dir) / "slices" / f"awx-{WORKFLOW}" / "job-102"
    (gone / "slice.json").unlink()
    (gone / "drift.json").rename(gone / "drift.json.moved")
    res = subprocess.run([str(BIN / "roceconf"), "report", "merge", str(_day(sliced_dir) / "slices" / f"awx-{WORKFLOW}"), "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=300)
    lost = {d["device"] for d in json.loads(res.stdout)["devices"] if d["status"] == "unknown"}
    assert lost == (set(awx_slice(setup.hosts(), 2, 3)) - {"fw1"}) | {"gpu4"}
    assert res.returncode == 1  # leaf3's drift still dominates; without it the unknowns give 3, never 0


def _cli(setup: Setup, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "roceconf"), *args], capture_output=True, text=True,
                          env={**os.environ, **setup.envvars}, timeout=300)


def test_cli_health_and_bom_slices_merge_into_the_unsliced_run(setup: Setup) -> None:
    inv = setup.tmp / "cli-inventory.yml"
    inv.write_text(yaml.safe_dump(setup.inventory))
    tmp = setup.tmp / "cli"
    saved = tmp / "counters"
    full = _cli(setup, "health", str(INTENT), "--inventory", str(inv), "--interval", "0.2", "--format", "json",
                "--save-counters", str(saved))
    unsliced = json.loads(full.stdout)
    assert full.returncode == unsliced["exit_code"] != 0, full.stderr  # gpu4 is not in the inventory
    assert next(d for d in unsliced["devices"] if d["device"] == "gpu4")["status"] == "unknown"
    # the same samples, evaluated by slice (saved counters: the intent's names are sliced) and merged
    for k in (1, 2, 3):
        part = _cli(setup, "health", str(INTENT), "--counters", str(saved), "--slice", f"{k}/3", "--results-dir",
                    str(tmp / "health"), "--format", "json")
        names = [d["device"] for d in json.loads(part.stdout)["devices"]]
        assert names == slice_devices(list(load_valid(INTENT).devices), None, k, 3), part.stderr
        assert part.returncode == json.loads(part.stdout)["exit_code"]
    merged = _cli(setup, "report", "merge", str(tmp / "health"), "--format", "json")
    assert merged.returncode == full.returncode, merged.stderr
    got = json.loads(merged.stdout)
    for report in (got, unsliced):
        report.pop("generated_at")
        report.pop("source")
        for d in report["devices"]:
            d.pop("seconds", None)
            d.pop("source", None)
            d.pop("attempts", None)
            if d["status"] == "unknown":
                d.pop("reason")
    assert got == unsliced
    # every port's link partner is named in the merge as in the unsliced run (re-evaluated across the slices)
    assert any(p.get("partner") for d in got["devices"] for p in d.get("ports", []))

    full = _cli(setup, "bom", str(INTENT), "--inventory", str(inv), "--format", "json")
    assert full.returncode == 3, full.stderr
    for k in (1, 2, 3):
        part = _cli(setup, "bom", str(INTENT), "--inventory", str(inv), "--slice", f"{k}/3", "--results-dir",
                    str(tmp / "bom"), "--format", "json")
        assert part.returncode == 0, part.stderr
    merged = _cli(setup, "report", "merge", str(tmp / "bom"), "--format", "json")
    assert merged.returncode == 3
    a, b = json.loads(merged.stdout), json.loads(full.stdout)
    a.pop("generated_at"), b.pop("generated_at")
    a["devices"]["gpu4"].pop("reason"), b["devices"]["gpu4"].pop("reason")
    assert a == b


def test_openssh_client_config_is_honoured(setup: Setup) -> None:
    """`ansible_ssh_common_args: -F FILE`: the address, port and user come from the OpenSSH config (through netmiko's
    ssh_config_file), as Ansible's ssh connection reads them; without it the same host cannot be reached."""
    port = setup.inventory["all"]["hosts"]["spine1"]["ansible_port"]
    cfg = setup.tmp / "ssh_config"
    cfg.write_text(f"Host spine1.oob.invalid\n  HostName 127.0.0.1\n  Port {port}\n  User labuser\n")
    inv = setup.tmp / "ssh-inventory.yml"

    def audit(args: str | None) -> subprocess.CompletedProcess[str]:
        host: dict[str, Any] = {"ansible_host": "spine1.oob.invalid", "roceconf_platform": "nxos"}
        if args:
            host["ansible_ssh_common_args"] = args
        inv.write_text(yaml.safe_dump({"all": {"hosts": {"spine1": host}}}))
        env = {k: v for k, v in {**os.environ, **setup.envvars}.items() if k != "ROCECONF_USERNAME"}
        return subprocess.run([str(BIN / "roceconf"), "drift", str(INTENT), "--inventory", str(inv), "--device",
                               "spine1", "--format", "json", "--retries", "0", "--timeout", "5"],
                              capture_output=True, text=True, env=env, timeout=300)

    res = audit(f"-F {cfg}")
    (spine1,) = json.loads(res.stdout)["devices"]
    assert res.returncode == 0 and spine1["status"] == "in_sync", res.stdout + res.stderr
    res = audit(None)
    (spine1,) = json.loads(res.stdout)["devices"]
    assert res.returncode == 3 and spine1["status"] == "unknown", res.stdout


def _finding_keys(report: dict[str, Any]) -> list[tuple]:
    return sorted((f["rule"], f["severity"], d["device"], p["port"], f["priority"])
                  for d in report["devices"] for p in d.get("ports", []) for f in p.get("findings", []))


def test_sliced_health_check_through_ansible_runner_equals_the_unsliced_run(setup: Setup) -> None:
    """The health check as AWX slices, merged (every slice's counters evaluated together, link partners read by
    different slices included): the same findings, statuses, counts and exit code as the unsliced run."""
    full_dir = setup.tmp / "health-full"
    full = _run(setup.data_dir("health-full", "roceconf.fabric.health_check", setup.inventory,
                               {"roceconf_report_dir": str(full_dir)}))
    out = full.stdout.read()
    assert setup.password not in out
    unsliced = json.loads((_day(full_dir) / "health.json").read_text())
    assert "gpu4" in (_day(full_dir) / "health.html").read_text()
    assert next(d for d in unsliced["devices"] if d["device"] == "gpu4")["status"] == "unknown"
    assert recap(out)["localhost"]["failed"] == 1  # the summary follows the exit code (gpu4 unknown at least)
    # leaf3 lost PFC on Ethernet0: its link partner sends pauses leaf3 does not count (RC310 on the partner). Slice
    # so that the two are read by different jobs: no slice alone can see it, the merge must
    fab = load_valid(INTENT)
    (partner,) = [ln.b.device if ln.a.device == "leaf3" else ln.a.device for ln in fab.links
                  if ("leaf3", "Ethernet0") in ((ln.a.device, ln.a.port), (ln.b.device, ln.b.port))]
    n = next(n for n in (3, 2, 4) if not any({"leaf3", partner} <= set(awx_slice(setup.hosts(), k, n))
                                             for k in range(1, n + 1)))
    sliced_dir = setup.tmp / "health-sliced"
    runs = []
    for k in range(1, n + 1):
        hosts = awx_slice(setup.hosts(), k, n)
        d = setup.data_dir(f"health{k}", "roceconf.fabric.health_check", setup.sliced(hosts),
                           {"roceconf_report_dir": str(sliced_dir), "awx_job_id": 300 + k,
                            "awx_workflow_job_id": 99})
        runs.append(ansible_runner.run_async(private_data_dir=str(d), playbook="main.yml", quiet=True))
    for thread, runner in runs:
        thread.join(timeout=600)
        assert setup.password not in runner.stdout.read()
    res = subprocess.run([str(BIN / "roceconf"), "report", "merge", str(_day(sliced_dir) / "slices" / "awx-99"),
                          "--format", "json"], capture_output=True, text=True,
                         env={**os.environ, **setup.envvars}, timeout=300)
    merged = json.loads(res.stdout)
    assert res.returncode == unsliced["exit_code"] == merged["exit_code"], res.stderr
    assert merged["summary"] == unsliced["summary"]
    assert {d["device"]: d["status"] for d in merged["devices"]} == {d["device"]: d["status"] for d in unsliced["devices"]}
    assert _finding_keys(merged) == _finding_keys(unsliced)
    assert [k[2] for k in _finding_keys(merged) if k[0] == "RC310"] == [partner], _finding_keys(merged)
    for job in (_day(sliced_dir) / "slices" / "awx-99").iterdir():
        assert not [k for k in _finding_keys(json.loads((job / "health.json").read_text())) if k[0] == "RC310"]


def test_sliced_bom_through_ansible_runner_equals_the_unsliced_run(setup: Setup) -> None:
    """The nightly bill of materials as 3 AWX slices in parallel, merged by the merge_slices playbook: the same
    devices, facts, config hashes, verdicts and exit code as the unsliced run."""
    full_dir = setup.tmp / FULL_DIR["bom"]
    full = _run(setup.data_dir("bom-full", PLAYBOOK["bom"], setup.inventory, {"roceconf_report_dir": str(full_dir)}))
    out = full.stdout.read()
    assert setup.password not in out
    rc = recap(out)
    # gpu4 is not in the inventory: unknown, the one summary fails (exit 3); fw1 is skipped, never read
    assert full.status == "failed" and rc["localhost"]["failed"] == 1 and "exit code 3: 1 device(s)" in out, out[-3000:]
    assert all(v["failed"] == 0 for h, v in rc.items() if h != "localhost") and "skipped: fw1" in out
    unsliced = json.loads((_day(full_dir) / "bom.json").read_text())
    assert {n for n, d in unsliced["devices"].items() if d["status"] != "read"} == {"gpu4"}
    assert "fw1" not in unsliced["devices"] and unsliced["devices"]["leaf3"]["facts"]

    sliced_dir = setup.tmp / "bom-sliced"
    runs = []
    for k in (1, 2, 3):
        hosts = awx_slice(setup.hosts(), k, 3)
        d = setup.data_dir(f"bom{k}", PLAYBOOK["bom"], setup.sliced(hosts),
                           {"roceconf_report_dir": str(sliced_dir), "awx_job_id": 400 + k, "awx_workflow_job_id": 66})
        runs.append((k, hosts, *ansible_runner.run_async(private_data_dir=str(d), playbook="main.yml", quiet=True)))
    for k, hosts, thread, runner in runs:
        thread.join(timeout=600)
        text = runner.stdout.read()
        assert setup.password not in text
        assert runner.rc == 0 and {h for h in recap(text) if h != "localhost"} == set(hosts), text[-3000:]
        part = json.loads((_day(sliced_dir) / "slices" / "awx-66" / f"job-{400 + k}" / "bom.json").read_text())
        assert sorted(part["devices"]) == sorted(set(hosts) - {"fw1"})  # its own devices only
    merge = _run(setup.data_dir("bom-merge", "roceconf.fabric.merge_slices", {"all": {"hosts": {}}},
                                {"roceconf_report_dir": str(sliced_dir)}))
    text = merge.stdout.read()
    assert merge.rc != 0 and "merged bom report: exit code 3" in text, text[-3000:]
    merged = json.loads((_day(sliced_dir) / "bom.json").read_text())
    _assert_same("bom", merged, 3, unsliced)
    assert merged["devices"]["gpu4"]["reason"].startswith("in no slice's results")


@pytest.mark.parametrize("kind", ["drift", "health", "bom"])
def test_slices_through_transmit_worker_process(setup: Setup, kind: str) -> None:
    """AWX's remote execution: each slice's job is streamed to a worker (`transmit | worker | process`)."""
    reports = setup.tmp / f"{kind}-streamed"
    workflow = {"drift": 88, "health": 89, "bom": 90}[kind]
    procs = []
    for k in (1, 2, 3):
        hosts = awx_slice(setup.hosts(), k, 3)
        d = setup.data_dir(f"{kind}-stream{k}", PLAYBOOK[kind], setup.sliced(hosts),
                           {"roceconf_report_dir": str(reports), "awx_job_id": 200 + k, "awx_workflow_job_id": workflow})
        worker = setup.tmp / "runner" / f"{kind}-worker{k}"
        worker.mkdir()
        pipeline = (f"'{BIN}/ansible-runner' transmit '{d}' -p main.yml | "
                    f"'{BIN}/ansible-runner' worker --private-data-dir '{worker}' | "
                    f"'{BIN}/ansible-runner' process '{d}'")
        procs.append((hosts, d, subprocess.Popen(["bash", "-o", "pipefail", "-c", pipeline], stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True,
                                                 env={**os.environ, **setup.envvars})))
    for hosts, d, p in procs:
        out, err = p.communicate(timeout=600)
        assert setup.password not in out + err
        rc = recap(out)  # `process` replays the worker's events: the slice's own PLAY RECAP
        assert {h for h in rc if h != "localhost"} == set(hosts), out[-3000:] + err
        if kind == "drift":
            assert rc["localhost"]["failed"] == (1 if "leaf3" in hosts else 0), out[-3000:] + err
        if kind == "bom":  # every device of a slice's inventory is read (gpu4 is in no slice's inventory)
            assert all(v["failed"] == 0 for v in rc.values()), out[-3000:] + err
        assert any((d / "artifacts" / "job_events").iterdir())
        # the slice's result was written by the worker, in its own folder
        job = json.loads((_day(reports) / "slices" / f"awx-{workflow}" / f"job-{200 + procs.index((hosts, d, p)) + 1}"
                          / "slice.json").read_text())
        assert job["kind"] == kind and sorted(job["devices"]) == sorted(set(hosts) - {"fw1"})
    res = _cli(setup, "report", "merge", str(_day(reports) / "slices" / f"awx-{workflow}"), "--format", "json")
    _assert_same(kind, json.loads(res.stdout), res.returncode, _unsliced(setup, kind))


def test_sliced_cabling_check_through_ansible_runner_equals_the_unsliced_run(setup: Setup) -> None:
    """The cabling check with link counters as AWX slices it in 3, merged by the merge_slices playbook: the same
    links, verdicts, findings, counts and exit code as the unsliced run. spine2's cable to leaf3 is swapped with
    its neighbour's (leaf4): spine2 and leaf3 are in slice 1, leaf4 in slice 2, so no slice alone sees the whole
    miswire; gpu4 (not in the inventory) is unknown in both runs."""
    fab = load_valid(INTENT)
    setup.lab.set_links([(x.a.device, x.a.port, x.b.device, x.b.port) for x in fab.links])
    setup.lab.set_scenarios(["miswire@spine2:et-0/0/2"])
    try:
        extra = {"roceconf_cabling_interval": 0.2}
        full_dir = setup.tmp / "cabling-full"
        full = _run(setup.data_dir("cabling-full", "roceconf.fabric.cabling_check", setup.inventory,
                                   {"roceconf_report_dir": str(full_dir), **extra}))
        out = full.stdout.read()
        assert setup.password not in out and full.status == "failed", out[-3000:]
        unsliced = json.loads((_day(full_dir) / "cabling.json").read_text())
        sliced_dir = setup.tmp / "cabling-sliced"
        runs = []
        for k in (1, 2, 3):
            hosts = awx_slice(setup.hosts(), k, 3)
            d = setup.data_dir(f"cabling{k}", "roceconf.fabric.cabling_check", setup.sliced(hosts),
                               {"roceconf_report_dir": str(sliced_dir), "awx_job_id": 500 + k,
                                "awx_workflow_job_id": 55, **extra})
            runs.append((k, hosts, *ansible_runner.run_async(private_data_dir=str(d), playbook="main.yml", quiet=True)))
        for k, hosts, thread, runner in runs:
            thread.join(timeout=600)
            text = runner.stdout.read()
            assert setup.password not in text
            assert {h for h in recap(text) if h != "localhost"} == set(hosts), text[-3000:]
            job = _day(sliced_dir) / "slices" / "awx-55" / f"job-{500 + k}"
            meta = json.loads((job / "slice.json").read_text())
            assert meta["kind"] == "cabling" and sorted(meta["devices"]) == sorted(set(hosts) - {"fw1"})
            # the raw link counters of its devices (a platform that reads none has no samples, no file)
            assert sorted(p.name.split(".")[0] for p in (job / "counters").iterdir()) == sorted(
                n for n in meta["devices"] if not no_link_reader(fab.devices[n]))
        merge = _run(setup.data_dir("cabling-merge", "roceconf.fabric.merge_slices", {"all": {"hosts": {}}},
                                    {"roceconf_report_dir": str(sliced_dir)}))
        text = merge.stdout.read()
        assert merge.rc != 0 and "merged cabling report: exit code 1" in text, text[-3000:]
        merged = json.loads((_day(sliced_dir) / "cabling.json").read_text())
    finally:
        setup.lab.set_scenarios([])

    def keys(report: dict[str, Any]) -> list[tuple]:
        return sorted((f["rule"], f["device"], f["port"], f.get("observed")) for f in report["findings"])

    assert merged["exit_code"] == unsliced["exit_code"] == 1
    def verdicts(x: Any) -> Any:
        """Without why a device was unread (unsliced: not in the inventory; merged: in no slice) and the live
        values (two runs' samples)."""
        if isinstance(x, dict):
            return {k: verdicts(v) for k, v in x.items() if k not in ("reason", "value")}
        return [verdicts(v) for v in x] if isinstance(x, list) else x

    assert merged["summary"] == unsliced["summary"] and verdicts(merged["links"]) == verdicts(unsliced["links"])
    assert keys(merged) == keys(unsliced)
    # ECMP groups and link health from live samples: the same verdicts (the rates of two runs differ slightly)
    assert [(g["device"], g["status"]) for g in merged["ecmp"]] == [(g["device"], g["status"]) for g in unsliced["ecmp"]]
    assert sorted((e["device"], e["port"], e["status"]) for e in merged["link_health"]) == sorted(
        (e["device"], e["port"], e["status"]) for e in unsliced["link_health"])
    miswired = {(f["device"], f["port"]) for f in merged["findings"] if f["rule"] == "RC501"}
    assert {("spine2", "et-0/0/2"), ("leaf4", "Ethernet50")} <= miswired, miswired
    assert {d["device"]: d["status"] for d in merged["devices"]} == {d["device"]: d["status"]
                                                                     for d in unsliced["devices"]}
    assert next(d for d in merged["devices"] if d["device"] == "gpu4")["reason"].startswith("in no slice's results")
