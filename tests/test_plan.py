"""`roceconf plan`: intent-level change summary, disruption classes, exit codes, formats, git revisions.

The fixtures in tests/intents/plan/ are the lab intent plus a lossy 'bulk' class (base.yml), and one file per
kind of change against it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.intent import load
from roceconf.plan import (
    Plan,
    PlanChange,
    build_plan,
    classify,
    plan_json_schema,
    plan_specs,
    read_intent,
)

HERE = Path(__file__).parent
PLAN = HERE / "intents" / "plan"
BASE = PLAN / "base.yml"


def _plan(name: str) -> Plan:
    return plan_specs(str(BASE), str(PLAN / f"{name}.yml"))


def _one(plan: Plan, text: str) -> PlanChange:
    found = [c for c in plan.changes if text in c.summary]
    assert len(found) == 1, [c.summary for c in plan.changes]
    return found[0]


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["plan", *args])
    return res.exit_code, res.stdout


# ----------------------------------------------------------------------------------------- scenarios
def test_class_becomes_lossless() -> None:
    p = _plan("lossless")
    assert p.changed and p.safe
    assert {c.kind for c in p.changes} == {"pfc"}
    sw = _one(p, "priority 4 (class bulk) becomes lossless on 24 ports of 6 switches")
    assert (sw.device_count, sw.interface_count) == (6, 24)
    assert sw.disruption == "brief traffic hit" and sw.risk == "high"
    assert sw.object == "class bulk"
    assert sw.old == [True, [3]] and sw.new == [True, [3, 4]]
    cx = _one(p, "priority 4 (class bulk) becomes lossless on 6 ports of 3 hosts")
    assert cx.platforms == ["connectx"] and cx.disruption == "link flap"
    assert cx.devices == ["gpu1", "gpu2", "gpu3"]
    assert cx.interfaces == {"gpu1": ["eth0", "eth1"], "gpu2": ["eth0", "eth1"], "gpu3": ["eth0", "eth1"]}
    dcb = _one(p, "priority 4 (class bulk) becomes lossless on 2 ports of 1 host")
    assert dcb.platforms == ["linux-dcb"] and dcb.disruption == "brief traffic hit"
    assert (p.counts.devices, p.counts.interfaces, p.counts.change) == (10, 32, 3)
    assert p.disruption == "link flap" and p.risk == "high"


def test_dscp_moves_to_another_class() -> None:
    p = _plan("dscp_move")
    c = _one(p, "DSCP 24 moves from class bulk to class default on 10 devices")
    assert c.kind == "dscp_map" and c.object == "DSCP 24"
    assert (c.old, c.new) == (4, 0)
    assert (c.device_count, c.interface_count) == (10, 32)
    assert c.disruption == "hitless" and c.risk == "medium"
    # every platform maps every DSCP: DSCP 22 was in the default class already on every device
    moved = _one(p, "DSCP 22 moves from class default to class bulk on 10 devices")
    assert (moved.old, moved.new) == (0, 4)
    assert not [c for c in p.changes if "is now classified" in c.summary]
    assert len(p.changes) == 2 and p.disruption == "hitless"


def test_ecn_thresholds_change() -> None:
    p = _plan("ecn")
    assert len(p.changes) == 1
    # spine2 (Junos) states ECN as a fill-level percent (ecn.junos), which this change leaves alone
    c = _one(p, "ECN max of class roce 1500 KB -> 1200 KB on 20 ports of 5 switches")
    assert c.kind == "ecn" and c.object == "class roce" and c.field == "interfaces.*.ecn.3.max_bytes"
    assert (c.old, c.new) == (1_500_000, 1_200_000)
    assert (c.device_count, c.interface_count) == (5, 20)
    assert c.disruption == "hitless" and c.risk == "medium"
    assert c.devices == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1"]
    # hosts carry no ECN: nothing to render for them
    assert [d.device for d in p.devices] == c.devices
    leaf2 = next(d for d in p.devices if d.device == "leaf2")
    # NVUE renders NVIDIA's RoCE profile: the old thresholds were the profile's, the new max is an override
    assert "-              max-threshold: 1500000\n" not in leaf2.diff
    assert "+              max-threshold: 1200000\n" in leaf2.diff
    assert leaf2.diff.startswith("--- a/leaf2.yaml\n+++ b/leaf2.yaml\n")


def test_mtu_of_one_role_changes() -> None:
    p = _plan("mtu_role")
    c = _one(p, "MTU of role host 9000 -> 8200 on 8 ports of 4 hosts")
    assert c.kind == "mtu" and c.object == "role host" and c.roles == ["host"]
    assert (c.device_count, c.interface_count) == (4, 8)
    assert c.disruption == "link flap" and c.risk == "medium"
    assert len(p.changes) == 1


def test_device_added_and_removed() -> None:
    p = _plan("devices")
    add = _one(p, "device leaf5 added (eos, 34 ports)")
    rem = _one(p, "device leaf3 removed (sonic, 4 ports, 4 lossless)")
    assert (add.action, rem.action) == ("add", "remove")
    assert (add.device_count, add.interface_count) == (1, 34)
    assert (rem.device_count, rem.interface_count) == (1, 4)
    assert add.disruption == rem.disruption == "hitless"
    assert (add.risk, rem.risk) == ("low", "high")  # lossless ports disappear
    assert (p.counts.add, p.counts.change, p.counts.remove) == (1, 0, 1)
    assert (p.counts.devices, p.counts.interfaces) == (2, 38)
    by = {d.device: d for d in p.devices}
    assert by["leaf5"].action == "add" and by["leaf5"].removed_lines == 0 and by["leaf5"].added_lines > 10
    assert by["leaf5"].diff.startswith("--- a/leaf5.cfg\n+++ b/leaf5.cfg\n")
    assert by["leaf3"].action == "remove" and by["leaf3"].added_lines == 0
    # the added device's diff is exactly what `roceconf render` writes for it
    from roceconf.compile import render_fabric

    body = [x[1:] for x in by["leaf5"].diff.splitlines(keepends=True)[3:]]
    assert "".join(body) == render_fabric(load(PLAN / "devices.yml"), "leaf5")["leaf5.cfg"]
    text = _cli(str(BASE), str(PLAN / "devices.yml"))[1]
    assert "  + device leaf5 added (eos, 34 ports)" in text
    assert "  - device leaf3 removed (sonic, 4 ports, 4 lossless)" in text


def test_pure_reformatting_reports_no_changes() -> None:
    base, ref = BASE.read_text(), (PLAN / "reformatted.yml").read_text()
    assert base != ref and "switch_port: 9214," in ref  # really reformatted (flow style, other key order)
    p = _plan("reformatted")
    assert not p.changed and p.changes == [] and p.devices == [] and p.diagnostics == []
    assert p.disruption is None and p.risk is None and p.exit_code(True) == 0
    code, out = _cli(str(BASE), str(PLAN / "reformatted.yml"), "--detailed-exitcode")
    assert code == 0 and "No changes." in out


def test_hash_seed_change_restarts_switchd_on_nvue_only() -> None:
    fab_old = load(BASE)
    from roceconf.intent import load_text

    fab_new = load_text(BASE.read_text().replace("ecmp: {seed: 10}", "ecmp: {seed: 11}"), "seed.yml")
    p = build_plan(fab_old, fab_new)
    # only NVUE and NX-OS have a hash-seed command; the only NVUE leaf is leaf2
    c = _one(p, "ECMP hash seed 10 -> 11 on 1 leaf")
    assert c.devices == ["leaf2"] and c.disruption == "brief traffic hit" and c.risk == "high"
    assert c.interface_count == 4  # device-wide: every RoCE port of the device


def test_ports_added_and_platform_replaced() -> None:
    from roceconf.intent import load_text

    text = BASE.read_text()
    more_ports = text.replace(
        "- {name: Ethernet1-2, speed: 400G, role: host}", "- {name: Ethernet1-4, speed: 400G, role: host}", 1
    )
    p = build_plan(load(BASE), load_text(more_ports, "ports.yml"))
    c = _one(p, "RoCE policy (lossless priority 3) added to 2 ports of 1 leaf")
    assert c.action == "add" and c.interfaces == {"leaf1": ["Ethernet3", "Ethernet4"]}
    assert (c.disruption, c.risk) == ("brief traffic hit", "medium")
    assert len(p.changes) == 1
    # a new platform under the same name: one change, not every field that follows from it
    sonic = text.replace("  - name: leaf4\n    platform: eos", "  - name: leaf4\n    platform: sonic")
    p = build_plan(load(BASE), load_text(sonic, "sonic.yml"))
    assert [c.summary for c in p.changes] == ["platform eos -> sonic on 1 leaf"]
    assert p.changes[0].disruption == "needs reboot"
    assert [(d.old_file, d.new_file) for d in p.devices] == [("leaf4.cfg", "leaf4.json")]
    assert p.devices[0].diff.startswith("--- a/leaf4.cfg\n+++ b/leaf4.json\n")


def test_fields_without_special_phrasing_are_still_planned() -> None:
    from roceconf.plan.build import _flatten, _raw_diff

    old = {"platform": "eos", "lldp": {"enabled": True}, "interfaces": {"e1": {"mtu": 9214, "fec": "rs"}}}
    new = {"platform": "eos", "lldp": {"enabled": False}, "interfaces": {"e1": {"mtu": 9214, "fec": "none"}}}
    diff = _raw_diff(_flatten(old), _flatten(new))
    assert (("lldp", "enabled"), None, True, False) in diff
    assert (("fec",), "e1", "rs", "none") in diff


# ----------------------------------------------------------------------------------------- rules
@pytest.mark.parametrize(
    ("kind", "platform", "is_host", "lossless", "disruption", "risk"),
    [
        ("pfc", "eos", False, False, "brief traffic hit", "high"),
        ("pfc", "connectx", True, False, "link flap", "high"),
        ("pfc", "bnxt", True, False, "brief traffic hit", "high"),
        ("mtu", "sonic", False, False, "link flap", "medium"),
        ("mtu", "connectx", True, False, "link flap", "medium"),
        ("dscp_map", "junos", False, False, "hitless", "medium"),
        ("ecn", "nxos", False, False, "hitless", "medium"),
        ("scheduling", "nvue", False, False, "hitless", "low"),
        ("pfc_watchdog", "eos", False, False, "hitless", "low"),
        ("ecmp", "nvue", False, False, "brief traffic hit", "high"),
        ("ecmp", "nxos", False, False, "brief traffic hit", "medium"),
        ("device_added", "eos", False, True, "hitless", "low"),
        ("device_removed", "eos", False, True, "hitless", "high"),
        ("device_removed", "eos", False, False, "hitless", "low"),
        ("platform", "eos", False, False, "needs reboot", "high"),
    ],
)
def test_disruption_rules(
    kind: str, platform: str, is_host: bool, lossless: bool, disruption: str, risk: str
) -> None:
    r = classify(kind, platform, is_host, lossless)
    assert (r.disruption, r.risk) == (disruption, risk)
    assert r.reason


# ----------------------------------------------------------------------------------------- unsafe NEW
def test_new_with_errors_is_unsafe_but_still_planned() -> None:
    p = _plan("broken_new")
    assert not p.safe and p.new_errors == 1
    assert [(d.code, d.severity) for d in p.diagnostics] == [("RC107", "error")]
    _one(p, "ECN min of class roce 150 KB -> 1600 KB on 20 ports of 5 switches")
    code, out = _cli(str(BASE), str(PLAN / "broken_new.yml"), "--detailed-exitcode")
    assert code == 1
    assert "UNSAFE" in out and "error[RC107]" in out and "ECN min of class roce" in out
    assert _cli(str(BASE), str(PLAN / "broken_new.yml"))[0] == 1


def test_diagnostics_are_matched_without_positions(tmp_path: Path) -> None:
    broken = (PLAN / "broken_new.yml").read_text()
    moved = tmp_path / "moved.yml"
    moved.write_text("# a comment\n# moves every line down\n" + broken)
    p = plan_specs(str(PLAN / "broken_new.yml"), str(moved))
    assert p.diagnostics == [] and not p.changed
    assert not p.safe  # NEW still has the error: unsafe, though it is not new


# ----------------------------------------------------------------------------------------- exit codes
def test_detailed_exitcode() -> None:
    assert _cli(str(BASE), str(PLAN / "reformatted.yml"), "--detailed-exitcode")[0] == 0
    assert _cli(str(BASE), str(PLAN / "ecn.yml"), "--detailed-exitcode")[0] == 2
    assert _cli(str(BASE), str(PLAN / "broken_new.yml"), "--detailed-exitcode")[0] == 1
    assert _cli(str(BASE), str(PLAN / "no-such-file.yml"), "--detailed-exitcode")[0] == 1
    # without the flag: 0 unless error
    assert _cli(str(BASE), str(PLAN / "ecn.yml"))[0] == 0
    assert _cli(str(BASE), str(PLAN / "reformatted.yml"))[0] == 0


def test_unloadable_side_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("version: 1\nfabric: x\ndevices: []\nqos: {trust: maybe}\n")
    res = CliRunner().invoke(main, ["plan", str(BASE), str(bad), "--detailed-exitcode"])
    assert res.exit_code == 1
    assert "error[RC004]" in res.stderr and "cannot be loaded" in res.stderr


# ----------------------------------------------------------------------------------------- formats
def test_json_validates_against_schema(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    code, _ = _cli(str(BASE), str(PLAN / "devices.yml"), "--format", "json", "--output", str(out))
    assert code == 0
    data = json.loads(out.read_text())
    assert data["format_version"] == 1
    plan = Plan.model_validate(data)
    assert plan.counts.add == 1 and plan.changes[0].kind == "device_removed"
    schema = plan_json_schema()
    assert schema["title"] == "roceconf plan"
    assert schema["properties"]["format_version"]["const"] == 1
    assert set(schema["required"]) >= {"old", "new", "changes", "devices", "diagnostics", "counts"}
    assert set(data) == set(schema["properties"])
    import jsonschema  # installed with the test extras (ansible-lint)

    jsonschema.Draft202012Validator(schema).validate(data)
    from roceconf.docgen import schemas

    assert "plan.schema.json" in schemas()


def test_markdown_has_collapsed_diffs() -> None:
    code, md = _cli(str(BASE), str(PLAN / "ecn.yml"), "--format", "markdown")
    assert code == 0
    assert md.startswith("### roceconf plan:")
    assert (
        "| `~` | ECN max of class roce 1500 KB -> 1200 KB on 20 ports of 5 switches | hitless | medium | 5 | 20 |"
        in md
    )
    assert md.count("<details>") == md.count("</details>") >= 2
    assert "```diff\n--- a/leaf2.yaml\n+++ b/leaf2.yaml\n" in md
    # leaf1 and leaf4 (both EOS, same ports) have the same diff once the name is substituted: shown once
    assert "<code>leaf1.cfg</code>" in md and "same on leaf4" in md and "<code>leaf4.cfg</code>" not in md


def test_text_marks_changes_like_terraform() -> None:
    code, text = _cli(str(BASE), str(PLAN / "lossless.yml"))
    assert code == 0
    assert "  ~ priority 4 (class bulk) becomes lossless on 6 ports of 3 hosts" in text
    assert "disruption: link flap  risk: high" in text
    assert "--- a/gpu1.sh\n+++ b/gpu1.sh\n" in text
    assert "Plan: 0 to add, 3 to change, 0 to remove; 10 device(s), 32 interface(s) affected." in text


# ----------------------------------------------------------------------------------------- git
def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_git_revision_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / "fabric").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    intent = repo / "fabric" / "intent.yml"
    intent.write_text(BASE.read_text())
    _git(repo, "add", "fabric/intent.yml")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "branch", "base")
    intent.write_text((PLAN / "ecn.yml").read_text())
    _git(repo, "commit", "-q", "-am", "lower ECN max")
    monkeypatch.chdir(repo)
    code, out = _cli("base:fabric/intent.yml", "main:fabric/intent.yml", "--detailed-exitcode")
    assert code == 2, out
    assert "ECN max of class roce 1500 KB -> 1200 KB on 20 ports of 5 switches" in out
    assert "base:fabric/intent.yml -> main:fabric/intent.yml" in out
    # a revision against the working tree file
    intent.write_text(BASE.read_text())
    assert _cli("base:fabric/intent.yml", "fabric/intent.yml", "--detailed-exitcode")[0] == 0
    # missing revision or path: a clear error, exit 1
    res = CliRunner().invoke(main, ["plan", "nope:fabric/intent.yml", "fabric/intent.yml"])
    assert res.exit_code == 1 and "nope:fabric/intent.yml" in res.stderr and "nope" in res.stderr
    res = CliRunner().invoke(main, ["plan", "main:fabric/missing.yml", "fabric/intent.yml"])
    assert res.exit_code == 1 and "missing.yml" in res.stderr and "does not exist" in res.stderr


def test_git_revision_reads_cabling_tables_of_that_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ruamel.yaml import YAML

    head, _, links = BASE.read_text().partition("\nlinks:\n")
    rows = ["a_device,a_port,b_device,b_port,cable_m"]
    for lk in YAML(typ="safe").load("links:\n" + links)["links"]:
        (ad, ap), (bd, bp) = lk["a"].split(":", 1), lk["b"].split(":", 1)
        rows.append(f"{ad},{ap},{bd},{bp},{lk['cable'].rstrip('m')}")
    repo = tmp_path / "repo"
    (repo / "fabric").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "fabric" / "intent.yml").write_text(head + "\nlinks:\n  - csv: cabling/links.csv\n")
    (repo / "fabric" / "cabling").mkdir()
    (repo / "fabric" / "cabling" / "links.csv").write_text("\n".join(rows) + "\n")
    _git(repo, "add", "fabric")
    _git(repo, "commit", "-q", "-m", "base")
    # the working tree loses the table: the committed revision must still plan cleanly from its own copy
    (repo / "fabric" / "cabling" / "links.csv").unlink()
    monkeypatch.chdir(repo)
    fab = read_intent("HEAD:fabric/intent.yml")
    assert len(fab.links) == 16 and fab.file == "HEAD:fabric/intent.yml"
    p = plan_specs("HEAD:fabric/intent.yml", "HEAD:fabric/intent.yml")
    assert p.safe and not p.changed and p.diagnostics == []
    res = CliRunner().invoke(main, ["plan", "HEAD:fabric/intent.yml", "fabric/intent.yml"])
    assert res.exit_code == 1  # the working-tree side cannot read its cabling table: unsafe
    assert "error[RC012]" in res.stdout and "UNSAFE" in res.stdout
