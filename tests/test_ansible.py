"""The Ansible playbooks, run with the real ansible-playbook against the loopback lab on 127.0.0.1.

One lab serves the whole sequence: generate -> apply --check --diff -> apply -> apply again (changed=0)
-> drift_audit (clean, reports) -> out-of-band fault -> drift_audit fails naming the device and item ->
a device that cannot be reached stops apply at the first batch.
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
from xml.etree import ElementTree as ET

import pytest

from roceconf import platforms
from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.drift.collect import load_inventory
from roceconf.intent.desired import desired_state
from roceconf.lab import Lab
from tests.test_apply import old_intent_text

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PLAYBOOKS = ROOT / "playbooks"
LAB_INVENTORY = ROOT / "inventories" / "lab" / "lab.roceconf_lab.yml"
INTENT = ROOT / "inventories" / "lab" / "intent.yml"
COLLECTIONS = PLAYBOOKS / "collections"
MODULES = (
    "roceconf.fabric.render",
    "roceconf.fabric.drift",
    "roceconf.fabric.apply",
    "roceconf.fabric.report",
    "roceconf.fabric.state_info",
)
#: The demo vault password of inventories/example-pod (documented in docs/ansible.md).
DEMO_VAULT_PASSWORD = "roceconf-demo-vault"

def ansible_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "ROCECONF_"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_HOME=str(tmp / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-tmp"),
        ANSIBLE_RETRY_FILES_ENABLED="0",
        ANSIBLE_LINT_SKIP_SCHEMA_UPDATE="1",
        ANSIBLE_LINT_NODEPS="1",
        ROCECONF_LAB_INVENTORY=str(tmp / "no-lab-running.yml"),
        ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS),
    )
    env.update(extra)
    return env


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP lines -> {host: {ok, changed, unreachable, failed, skipped, ...}}."""
    out: dict[str, dict[str, int]] = {}
    for m in re.finditer(r"^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$", output, re.M):
        out[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return out


@dataclass
class LabRun:
    lab: Lab
    tmp: Path
    env: dict[str, str]
    password: str

    def playbook(self, name: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        extra = {
            "roceconf_render_dir": str(self.tmp / "render"),
            "roceconf_report_dir": str(self.tmp / "reports"),
        }
        res = subprocess.run(
            [
                str(BIN / "ansible-playbook"),
                "-i",
                str(LAB_INVENTORY),
                str(PLAYBOOKS / name),
                "--forks",
                "10",
                "-e",
                json.dumps(extra),
                *args,
            ],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert self.password not in res.stdout + res.stderr  # secrets never reach the output
        return res


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabRun]:
    """Switches run the configs of a modified intent (other MTU, other watchdog time); hosts already match."""
    tmp = tmp_path_factory.mktemp("ansible")
    old = tmp / "old-intent.yml"
    old.write_text(old_intent_text())
    old_files = render_fabric(load_valid(old))
    fab = load_valid(INTENT)
    password = secrets.token_urlsafe(16)
    with Lab("labuser", password) as lab:
        for name, dev in fab.devices.items():
            if platforms.get(dev.platform).kind == "nic":
                lab.add(name, dev.platform, desired_state(dev))
            else:
                lab.add(name, dev.platform, old_files[output_name(name, dev.platform)])
        inventory = lab.write_inventory(tmp / "lab-hosts.yml")
        env = ansible_env(
            tmp,
            ROCECONF_USERNAME="labuser",
            ROCECONF_PASSWORD=password,
            ROCECONF_LAB_INVENTORY=str(inventory),
        )
        yield LabRun(lab, tmp, env, password)


def _fail(res: subprocess.CompletedProcess[str]) -> str:
    return f"rc={res.returncode}\n{res.stdout[-6000:]}\n{res.stderr[-3000:]}"


#: the tests that share `lab_run` run on one xdist worker (one lab, one set-up); the others spread freely
SHARED_LAB = pytest.mark.xdist_group("ansible-lab")


@SHARED_LAB
def test_generate_apply_audit_fault(lab_run: LabRun) -> None:
    lab, tmp = lab_run.lab, lab_run.tmp
    switches = sorted(n for n, d in lab.devices.items() if not d.is_host)
    hosts = sorted(n for n, d in lab.devices.items() if d.is_host)

    # generate in check mode: shows every file's diff, writes nothing
    res = lab_run.playbook("generate.yml", "--check", "--diff")
    assert res.returncode == 0, _fail(res)
    assert "+hostname spine1" in res.stdout and recap(res.stdout)["localhost"]["changed"] == 1
    assert not (tmp / "render").exists()

    # generate: validate and render
    res = lab_run.playbook("generate.yml")
    assert res.returncode == 0, _fail(res)
    rendered = sorted(p.name for p in (tmp / "render").iterdir() if not p.name.startswith("."))
    assert rendered == sorted(render_fabric(load_valid(INTENT)))
    assert recap(res.stdout)["localhost"]["changed"] == 1
    res = lab_run.playbook("generate.yml")
    assert res.returncode == 0 and recap(res.stdout)["localhost"]["changed"] == 0, _fail(res)

    # apply in check mode: shows the diff, changes nothing on any device
    before = {n: lab.get_config(n) for n in lab.devices}
    res = lab_run.playbook("apply.yml", "--check", "--diff")
    assert res.returncode == 0, _fail(res)
    assert "mtu 9214" in res.stdout  # EOS / NX-OS candidate diff
    assert "+ set interfaces et-0/0/0 mtu 9214" in res.stdout  # Junos show | compare
    assert '+            "mtu": "9214"' in res.stdout  # SONiC CONFIG_DB diff
    assert {n: lab.get_config(n) for n in lab.devices} == before
    rc = recap(res.stdout)
    assert all(rc[n]["changed"] == 1 for n in switches), rc
    assert all(rc[n]["changed"] == 0 for n in hosts), rc

    # apply: changes the switches, the audit after each batch is clean
    res = lab_run.playbook("apply.yml", "--diff")
    assert res.returncode == 0, _fail(res)
    rc = recap(res.stdout)
    assert all(rc[n]["changed"] == 1 and rc[n]["failed"] == 0 for n in switches), rc
    after = {n: lab.get_config(n) for n in lab.devices}
    assert all(after[n] != before[n] for n in switches)
    assert all(after[n] == before[n] for n in hosts)
    assert json.loads(after["leaf3"])["PORT"]["Ethernet0"]["mtu"] == "9214"
    assert "set interfaces et-0/0/3 mtu 9214" in after["spine2"]

    # apply again: nothing to do
    res = lab_run.playbook("apply.yml")
    assert res.returncode == 0, _fail(res)
    rc = recap(res.stdout)
    assert set(rc) >= set(lab.devices)
    assert all(v["changed"] == 0 and v["failed"] == 0 for v in rc.values()), rc
    assert {n: lab.get_config(n) for n in lab.devices} == after

    # nightly audit: clean, reports in reports/<YYYY-MM-DD>/
    res = lab_run.playbook("drift_audit.yml")
    assert res.returncode == 0, _fail(res)
    folders = list((tmp / "reports").iterdir())
    assert len(folders) == 1 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", folders[0].name)
    report = json.loads((folders[0] / "drift.json").read_text())
    assert report["summary"]["devices"] == len(lab.devices)
    assert report["summary"]["in_sync"] == len(lab.devices), report["summary"]
    suites = ET.parse(folders[0] / "drift-junit.xml").getroot()
    assert sorted(s.get("name") for s in suites) == sorted(lab.devices)
    assert all(s.get("failures") == "0" and s.get("errors") == "0" for s in suites)
    assert (
        f"**{len(lab.devices)} devices**: {len(lab.devices)} in sync" in (folders[0] / "drift.md").read_text()
    )

    # a fault out of band: PFC no-drop removed from one SONiC leaf port
    def drop_pfc(text: str) -> str:
        data = json.loads(text)
        del data["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
        return json.dumps(data, indent=4)

    lab.edit("leaf3", drop_pfc)
    res = lab_run.playbook("drift_audit.yml")
    assert res.returncode != 0, _fail(res)
    finding = re.search(
        r"leaf3: \[critical\] (interfaces\.Ethernet0\.pfc\.no_drop) \(Ethernet0\) expected \[3\]", res.stdout
    )
    assert finding, _fail(res)
    report = json.loads((folders[0] / "drift.json").read_text())
    leaf3 = next(d for d in report["devices"] if d["device"] == "leaf3")
    assert leaf3["status"] == "drift" and leaf3["worst_severity"] == "critical"
    assert finding.group(1) in [i["field"] for i in leaf3["items"]]
    assert report["summary"]["drift"] == 1 and report["summary"]["in_sync"] == len(lab.devices) - 1
    assert "leaf3" in (folders[0] / "drift.md").read_text().split("### ")[1]

    # a device that cannot be reached fails the first batch; no later batch is touched
    lab.set_config("leaf3", before["leaf3"])
    first = recap(res.stdout)
    order = [h for h in first if h in lab.devices]  # inventory order = batch order
    lab.set_fault(order[0], "refuse")
    others = {n: lab.stats(n)["connections"] for n in order[1:]}
    res = lab_run.playbook("apply.yml")
    assert res.returncode != 0, _fail(res)
    assert "connection refused" in res.stdout
    assert {n: lab.stats(n)["connections"] for n in order[1:]} == others
    assert lab.get_config("leaf3") == before["leaf3"]  # the drifted leaf was not touched either
    lab.set_fault(order[0], None)


@SHARED_LAB
def test_drift_audit_checks_the_acceptance_baseline(lab_run: LabRun) -> None:
    """The nightly role with roceconf_baseline: clean right after the accepted test; a NIC firmware changed out of
    band fails the audit naming exactly that component (as `roceconf drift --baseline` does); a --limit run
    neither compares nor reports the hosts outside it."""
    from roceconf.acceptance.plan import build_plan
    from tests.acceptance.test_verdict import _write_all

    lab, tmp, env = lab_run.lab, lab_run.tmp / "baseline", lab_run.env
    tmp.mkdir()
    cli = [str(BIN / "roceconf")]
    inventory = env["ROCECONF_LAB_INVENTORY"]
    plan = build_plan(load_valid(INTENT), hosts="gpu[12]")
    (tmp / "results").mkdir()
    _write_all(plan, tmp / "results")
    (tmp / "plan.json").write_text(json.dumps(plan.to_dict()))
    for args in (
        ["acceptance", "verdict", str(tmp / "results"), "--plan", str(tmp / "plan.json"), "--format", "json",
         "--output", str(tmp / "verdict.json")],
        ["bom", str(INTENT), "--inventory", inventory, "--output", str(tmp / "bom.json")],
        ["acceptance", "record", str(tmp / "verdict.json"), "--bom", str(tmp / "bom.json"),
         "-o", str(tmp / "baseline.json")],
    ):
        res = subprocess.run(cli + args, capture_output=True, text=True, env=env, timeout=300)
        assert res.returncode == 0, (args[0], res.stderr)

    def audit(*more: str) -> tuple[subprocess.CompletedProcess[str], dict]:
        extra = {"roceconf_baseline": str(tmp / "baseline.json"), "roceconf_audit_fail_on": "never",
                 "roceconf_report_dir": str(tmp / "reports")}
        res = lab_run.playbook("drift_audit.yml", "-e", json.dumps(extra), *more)
        folder = next((tmp / "reports").iterdir())
        return res, json.loads((folder / "drift.json").read_text())

    res, report = audit()
    assert res.returncode == 0, _fail(res)
    assert report["baseline"]["file"] == str(tmp / "baseline.json") and report["baseline"]["findings"] == []

    nic = lab.device("gpu1").facts["nics"]["eth1"]
    old = nic["firmware"]
    nic["firmware"] = "28.41.1000"
    try:
        res, report = audit()
        assert res.returncode != 0, _fail(res)
        assert [(f["rule"], f["device"], f["component"], f["baseline"], f["now"])
                for f in report["baseline"]["findings"]] == [("RC400", "gpu1", "mlx5_1 firmware", old, "28.41.1000")]
        assert (f"acceptance baseline is stale: gpu1 mlx5_1 firmware {old} -> 28.41.1000; re-run the acceptance "
                "test") in res.stdout, _fail(res)
        res, report = audit("--limit", "gpu2,leaf1")
        assert res.returncode == 0, _fail(res)
        assert sorted(d["device"] for d in report["devices"]) == ["gpu2", "leaf1"]
        assert report["baseline"]["findings"] == []
    finally:
        nic["firmware"] = old


def test_generate_fails_with_file_line_col_on_an_invalid_intent(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(INTENT.read_text().replace("priority: 3\n", "priority: 9\n", 1))
    res = subprocess.run(
        [
            str(BIN / "ansible-playbook"),
            "-i",
            str(LAB_INVENTORY),  # no lab is running: the inventory is empty, generate still works
            str(PLAYBOOKS / "generate.yml"),
            "-e",
            json.dumps({"roceconf_intent": str(bad), "roceconf_render_dir": str(tmp_path / "out")}),
        ],
        cwd=ROOT,
        env=ansible_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode != 0
    assert re.search(re.escape(str(bad)) + r":\d+:\d+: error\[RC\d+\]", res.stdout), res.stdout
    assert not (tmp_path / "out").exists()


def test_ansible_doc_shows_each_module(tmp_path: Path) -> None:
    """ansible-doc documents every module (one ansible-doc for all of them: it documents each name given)."""
    res = subprocess.run(
        [str(BIN / "ansible-doc"), "--json", *MODULES],
        env=ansible_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    docs = json.loads(res.stdout)
    assert sorted(docs) == sorted(MODULES)
    for module in MODULES:
        doc = docs[module]
        assert doc["doc"]["short_description"] and doc["doc"]["options"], module
        assert doc["examples"].strip() and doc["return"], module
        assert "check_mode" in json.dumps(doc["doc"]["attributes"]) and "diff_mode" in doc["doc"]["attributes"], module
    text = subprocess.run(
        [str(BIN / "ansible-doc"), *MODULES],
        env=ansible_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert text.returncode == 0, text.stderr
    assert all(module in text.stdout for module in MODULES), text.stdout[:500]
    assert text.stdout.count("EXAMPLES") == len(MODULES), text.stdout[:500]


def test_ansible_lint_passes(tmp_path: Path) -> None:
    res = subprocess.run(
        [str(BIN / "ansible-lint"), "--nocolor"],
        cwd=PLAYBOOKS,
        env=ansible_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Passed" in res.stdout + res.stderr


def test_example_pod_inventory_matches_the_pod_intent_and_decrypts(tmp_path: Path) -> None:
    pass_file = tmp_path / "vault-pass"
    pass_file.write_text(DEMO_VAULT_PASSWORD + "\n")
    pod = ROOT / "inventories" / "example-pod"
    fab = load_valid(ROOT / "inventories" / "pod" / "intent.yml")
    os.environ["ROCECONF_VAULT_PASSWORD_FILE"] = str(pass_file)
    try:
        targets = load_inventory(pod)
    finally:
        del os.environ["ROCECONF_VAULT_PASSWORD_FILE"]
    assert set(targets) == set(fab.devices)
    assert all(t.platform == fab.devices[n].platform for n, t in targets.items())
    leaf = targets["leaf01"]
    assert leaf.host == "192.0.2.11" and leaf.port == 443 and leaf.transport == "https"
    assert targets["leaf40"].transport == "ssh" and targets["gpu256"].platform == "connectx"
    secret = leaf.password
    assert secret and "$ANSIBLE_VAULT" not in secret and targets["spine1"].password == secret
    # ansible itself decrypts it too, and the plain text is nowhere in the inventory files
    res = subprocess.run(
        [
            str(BIN / "ansible"),
            "-i",
            str(pod),
            "leaf01",
            "--vault-password-file",
            str(pass_file),
            "-m",
            "ansible.builtin.debug",
            "-a",
            "msg={{ ansible_password | length }}",
            "-e",
            "ansible_connection=local",  # the host's own (httpapi) connection is not installed here
        ],
        env=ansible_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0 and f'"msg": {len(secret)}' in res.stdout, res.stdout + res.stderr
    for p in pod.rglob("*"):
        if p.is_file():
            assert secret not in p.read_text()  # only the vaulted form is stored


def test_drift_module_fail_on_and_unknown(tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    data = json.loads(render_fabric(fab, "leaf3")["leaf3.json"])
    del data["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    password = secrets.token_urlsafe(16)
    env = ansible_env(tmp_path, ROCECONF_USERNAME="labuser", ROCECONF_PASSWORD=password)
    with Lab("labuser", password) as lab:
        lab.add("leaf3", "sonic", json.dumps(data))

        def run(**args: object) -> tuple[int, dict]:
            params = {
                "intent": str(INTENT),
                "device": "leaf3",
                "host": "127.0.0.1",
                "port": lab.port("leaf3"),
                "platform": "sonic",
                "timeout": 5,
                "retries": 0,
                **args,
            }
            res = subprocess.run(
                [
                    str(BIN / "ansible"),
                    "localhost",
                    "-m",
                    "roceconf.fabric.drift",
                    "-a",
                    json.dumps(params),
                    "-e",
                    json.dumps({"ansible_python_interpreter": sys.executable}),
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert password not in res.stdout + res.stderr
            body = res.stdout[res.stdout.index("=> {") + 3 :]
            return res.returncode, json.loads(body)

        rc, out = run(fail_on="never")
        assert rc == 0 and not out["changed"] and out["status"] == "drift"  # a read is never a change
        fields = {i["field"]: i["severity"] for i in out["drift"]["items"]}
        assert fields["interfaces.Ethernet0.pfc.no_drop"] == "critical"
        assert out["drift"]["remediation"]  # the commands that fix it

        rc, out = run(fail_on="critical")
        assert rc != 0 and "interfaces.Ethernet0.pfc.no_drop" in out["msg"] and "leaf3" in out["msg"]

        lab.set_fault("leaf3", "refuse")
        rc, out = run()
        assert rc != 0 and out["status"] == "unknown" and "connection refused" in out["msg"]
        rc, out = run(fail_on_unknown=False)
        assert rc == 0 and not out["changed"] and out["drift"]["reason"]
