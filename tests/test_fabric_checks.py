"""Fabric-wide checks (RC2xx): each cross-hop rule is caught on a minimal fabric that breaks exactly that rule,
and not on the correct one. Rules that a valid intent cannot break are tested on device states (desired states
of the correct fabric with one field drifted, as a parser would return them) and through real configs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.compile import render_fabric, write_outputs
from roceconf.fabric import build, desired, from_configs, run_checks
from roceconf.fabric.checks import CheckResult
from roceconf.fabric.states import StateSet
from roceconf.intent import load
from roceconf.intent.rules import RULES
from roceconf.state import DeviceState

HERE = Path(__file__).parent
FIX = HERE / "intents" / "fabric"
OK = FIX / "ok.yml"
LAB = HERE.parent / "inventories" / "lab" / "intent.yml"
BROKEN = sorted(p for p in FIX.glob("rc*.yml"))


def _finding_codes(res: CheckResult) -> set[str]:
    return {d.code for d in res.findings}


def _marker_line(path: Path) -> int:
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if "# <- finding" in line:
            return n
    raise AssertionError(f"{path.name}: no '# <- finding' marker")


# ------------------------------------------------------------------------------------------ intent fixtures
def test_rules_registered_in_rc2xx_range() -> None:
    ids = [i for i in RULES if i.startswith("RC2")]
    assert len(ids) >= 17
    for i in ids:
        assert 200 <= int(i[2:]) <= 299
        r = RULES[i]
        assert r.title and r.hint and r.why and r.severity in ("error", "warning", "info")


def test_correct_fabric_is_clean() -> None:
    fab = load(OK)
    # RC150 (a value the platform cannot carry) is about the platform, not the fabric: see test_unexpressed.py
    assert not [d for d in fab.diagnostics if d.severity != "info" and d.code != "RC150"]
    res = run_checks(fab, desired(fab))
    assert res.diagnostics == []
    assert res.exit_code == 0
    assert res.hops == 2


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_fixture_caught_at_its_position(path: Path) -> None:
    code = path.read_text().splitlines()[0].split()[-1]
    fab = load(path)
    assert not [d for d in fab.diagnostics if d.severity == "error"], "fixture must be a valid intent"
    res = run_checks(fab, desired(fab))
    assert _finding_codes(res) == {code}
    assert res.exit_code == 1
    hits = [d for d in res.diagnostics if d.code == code]
    assert {(d.file, d.line) for d in hits} == {(str(path), _marker_line(path))}
    assert all(d.col >= 1 and d.hint == RULES[code].hint for d in hits)


@pytest.mark.parametrize(
    "path", [*BROKEN, OK, LAB, HERE.parent / "inventories" / "pod" / "intent.yml"], ids=lambda p: p.stem
)
def test_memoised_hops_give_the_same_findings(path: Path) -> None:
    """Hops of identical desired states are checked once: the findings are those of checking every hop."""
    fab = load(path)
    ss = desired(fab)
    fast, full = run_checks(fab, ss), run_checks(fab, ss, memo=False)
    assert fast.diagnostics == full.diagnostics
    assert [d.message for d in fast.diagnostics] == [d.message for d in full.diagnostics]


def test_there_is_a_fixture_for_each_intent_breakable_rule() -> None:
    codes = {p.read_text().splitlines()[0].split()[-1] for p in BROKEN}
    assert codes >= {"RC205", "RC206", "RC208", "RC209", "RC211", "RC213"}


# ------------------------------------------------------------------------------------------ drifted states
def _drifted(mutate: Callable[[dict[str, DeviceState]], None]) -> CheckResult:
    fab = load(OK)
    ss = desired(fab)
    ss = StateSet("actual", "test", {k: v.model_copy(deep=True) for k, v in ss.states.items()})
    ss.labels = {k: f"{k}.cfg" for k in ss.states}
    mutate(ss.states)
    return run_checks(fab, ss)


def _link_line(text: str) -> int:
    lines = OK.read_text().splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def _trust(st: dict[str, DeviceState]) -> None:
    st["leaf1"].interfaces["swp1"].trust = "pcp"


def _dscp_lossy(st: dict[str, DeviceState]) -> None:
    st["leaf1"].dscp_to_tc["26"] = 1


def _lossless_ends(st: dict[str, DeviceState]) -> None:
    st["spine1"].interfaces["swp1"].pfc.no_drop = [3, 4]


def _cnp_map(st: dict[str, DeviceState]) -> None:
    rd = st["gpu1"].interfaces["eth0"].rdma
    assert rd is not None
    rd.cnp_dscp = 46


def _cnp_sched(st: dict[str, DeviceState]) -> None:
    st["spine1"].interfaces["swp1"].scheduling["6"].mode = "dwrr"


def _nic_mtu(st: dict[str, DeviceState]) -> None:
    st["gpu1"].interfaces["eth0"].mtu = 4000


def _switch_mtu(st: dict[str, DeviceState]) -> None:
    st["leaf1"].interfaces["swp1"].mtu = 9010


def _link_mtu(st: dict[str, DeviceState]) -> None:
    st["spine1"].interfaces["swp1"].mtu = 9100


def _watchdog(st: dict[str, DeviceState]) -> None:
    st["leaf1"].interfaces["swp31"].pfc_watchdog = False


def _link_pause(st: dict[str, DeviceState]) -> None:
    st["gpu1"].interfaces["eth0"].link_pause = True


def _sport(st: dict[str, DeviceState]) -> None:
    st["spine1"].ecmp.fields = ["dst_ip", "dst_port", "src_ip"]


def _polarize(st: dict[str, DeviceState]) -> None:
    st["spine1"].ecmp.seed = st["leaf1"].ecmp.seed


def _port_missing(st: dict[str, DeviceState]) -> None:
    del st["leaf1"].interfaces["swp31"]


def _ecn_xoff(st: dict[str, DeviceState]) -> None:
    ecn = st["leaf1"].interfaces["swp1"].ecn["3"]
    ecn.max_bytes = 50_000_000


STATE_CASES = [
    ("RC200", _trust, 'a: "gpu1:eth0"'),
    ("RC201", _dscp_lossy, None),
    ("RC202", _lossless_ends, 'a: "leaf1:swp31"'),
    ("RC203", _cnp_map, 'a: "gpu1:eth0"'),
    ("RC204", _cnp_sched, "{name: swp1, speed: 400G, role: fabric}"),
    ("RC205", _nic_mtu, 'a: "gpu1:eth0"'),
    ("RC206", _switch_mtu, 'a: "gpu1:eth0"'),
    ("RC207", _link_mtu, 'a: "leaf1:swp31"'),
    ("RC208", _ecn_xoff, "{name: swp1, speed: 400G, role: host}"),
    ("RC209", _watchdog, "{name: swp31, speed: 400G, role: fabric}"),
    ("RC210", _link_pause, 'a: "gpu1:eth0"'),
    ("RC213", _polarize, "- name: spine1"),
    ("RC214", _sport, "- name: spine1"),
    ("RC216", _port_missing, 'a: "leaf1:swp31"'),
]


@pytest.mark.parametrize(("code", "mutate", "where"), STATE_CASES, ids=[c[0] for c in STATE_CASES])
def test_drifted_state_breaks_exactly_one_rule(
    code: str, mutate: Callable[[dict[str, DeviceState]], None], where: str | None
) -> None:
    res = _drifted(mutate)
    assert _finding_codes(res) == {code}, [d.format() for d in res.diagnostics]
    assert res.exit_code == 1
    hits = [d for d in res.diagnostics if d.code == code]
    if where is not None:
        assert {d.line for d in hits} == {_link_line(where)}
    # actual states: the message names the device file the value came from
    assert all(".cfg" in d.message for d in hits if d.code not in ("RC213",)) or code == "RC213"


def test_dscp_lossy_is_reported_on_every_hop_of_the_leaf() -> None:
    res = _drifted(_dscp_lossy)
    msgs = [d.message for d in res.diagnostics if d.code == "RC201"]
    assert any("leaf1:swp1" in m for m in msgs) and any("leaf1:swp31" in m for m in msgs)
    assert all("priority 1" in m for m in msgs)
    lines = {d.line for d in res.diagnostics if d.code == "RC201"}
    assert lines == {_link_line('a: "gpu1:eth0"'), _link_line('a: "leaf1:swp31"')}


def test_nic_marking_another_dscp_is_followed_up_the_path() -> None:
    def mutate(st: dict[str, DeviceState]) -> None:
        rd = st["gpu1"].interfaces["eth0"].rdma
        assert rd is not None
        rd.roce_tos = 24 << 2
        st["leaf1"].dscp_to_tc["24"] = 3  # the leaf happens to map it lossless; the spine does not

    res = _drifted(mutate)
    assert _finding_codes(res) == {"RC201"}
    (d,) = [d for d in res.diagnostics if d.code == "RC201"]
    # every DSCP has a home: the spine puts DSCP 24 in the intent's default class (lossy priority 0)
    assert "DSCP 24" in d.message and "spine1:swp1" in d.message and "gives it priority 0" in d.message


def test_pfc_disabled_counts_as_no_no_drop() -> None:
    def mutate(st: dict[str, DeviceState]) -> None:
        st["leaf1"].interfaces["swp1"].pfc.enabled = False

    res = _drifted(mutate)
    assert {"RC201", "RC202"} <= _finding_codes(res)


def _without_lab_seed_warning(findings: list) -> list:
    """The lab intent's seeds: Junos configures its spine seed (25, enhanced-hash-key hash-seed), EOS cannot
    configure the leaf seed (RC150), so the tiers hash with different seeds and RC213 has nothing to say (it
    must not believe unconfigured seeds differ, nor that a configured and a default seed are equal).
    Asserts there is no RC213 finding, returns the findings."""
    assert [d for d in findings if d.code == "RC213"] == []
    return findings


def test_unconfigured_seeds_are_not_assumed_to_differ() -> None:
    fab = load(LAB)  # EOS leaf and Junos spine both without a renderable seed
    res = run_checks(fab, desired(fab))
    assert _without_lab_seed_warning(res.findings) == []


# ------------------------------------------------------------------------------------------ real configs
@pytest.fixture
def lab_configs(tmp_path: Path) -> Path:
    fab = load(LAB)
    write_outputs(render_fabric(fab), tmp_path)
    return tmp_path


def _lose_no_drop_on_leaf1_ethernet1(d: Path) -> None:
    p = d / "leaf1.cfg"
    t = p.read_text()
    prof = t[t.index("qos profile ") :].split("\n", 1)[0].split()[-1]
    start, end = t.index(f"qos profile {prof}"), t.index("interface Ethernet1-2")
    lost = (
        t[start:end].replace(prof, "ROCE-LOST").replace("   priority-flow-control priority 3 no-drop\n", "")
    )
    t = t[:end] + lost + t[end:]
    t = t.replace(
        f"interface Ethernet1-2\n   mtu 9214\n   service-profile {prof}\n",
        f"interface Ethernet1\n   mtu 9214\n   service-profile ROCE-LOST\n!\n"
        f"interface Ethernet2\n   mtu 9214\n   service-profile {prof}\n",
    )
    p.write_text(t)


def test_rendered_lab_configs_are_clean(lab_configs: Path) -> None:
    fab = load(LAB)
    ss = from_configs(fab, lab_configs)
    assert not ss.unreadable and len(ss.states) == len(fab.devices)
    res = run_checks(fab, ss)
    assert _without_lab_seed_warning(res.findings) == [] and res.exit_code == 0


def test_leaf_port_lost_no_drop_is_caught_across_the_link(lab_configs: Path) -> None:
    _lose_no_drop_on_leaf1_ethernet1(lab_configs)
    fab = load(LAB)
    ss = from_configs(fab, lab_configs)
    # each device alone parses fine ...
    assert all(not s.warnings for s in ss.states.values())
    res = run_checks(fab, ss)
    # ... but the link gpu1:eth0 <-> leaf1:Ethernet1 is no longer lossless
    lossless = _without_lab_seed_warning(res.findings)
    assert {d.code for d in lossless} == {"RC201", "RC202"}
    link_line = next(
        n for n, line in enumerate(LAB.read_text().splitlines(), start=1) if '"gpu1:eth0"' in line
    )
    for d in lossless:
        assert (d.file, d.line) == (str(LAB), link_line)
    (d202,) = [d for d in res.findings if d.code == "RC202"]
    assert "gpu1:eth0 [3]" in d202.message and "leaf1:Ethernet1 []" in d202.message
    assert "leaf1.cfg:" in d202.message and "gpu1.sh:" in d202.message


def test_cli_check_configs_exit_codes(lab_configs: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["check", str(LAB), "--configs", str(lab_configs)])
    # the rendered lab is clean (see _without_lab_seed_warning): exit 0
    assert r.exit_code == 0 and "0 error(s), 0 warning(s)" in r.output and "RC213" not in r.output, r.output
    _lose_no_drop_on_leaf1_ethernet1(lab_configs)
    r = runner.invoke(main, ["check", str(LAB), "--configs", str(lab_configs), "--format", "json"])
    assert r.exit_code == 1
    data = json.loads(r.output)
    assert data["exit_code"] == 1 and data["states"] == "actual"
    assert {d["code"] for d in data["diagnostics"] if d["severity"] == "error"} == {"RC201", "RC202"}


def test_unreadable_device_is_reported_not_skipped(lab_configs: Path) -> None:
    (lab_configs / "spine2.set").unlink()
    (lab_configs / "gpu4.sh").write_text("garbage\n")
    fab = load(LAB)
    ss = from_configs(fab, lab_configs)
    assert set(ss.unreadable) == {"spine2", "gpu4"}
    res = run_checks(fab, ss)
    unread = [d for d in res.diagnostics if d.code == "RC215"]
    assert {d.message.split()[0] for d in unread} == {"spine2", "gpu4"}
    assert all("lossless-path port(s) unchecked" in d.message for d in unread)
    assert res.exit_code == 3
    r = CliRunner().invoke(main, ["check", str(LAB), "--configs", str(lab_configs)])
    assert r.exit_code == 3
    assert "error[RC215]: spine2 could not be read" in r.output


def test_findings_win_over_unreadable(lab_configs: Path) -> None:
    _lose_no_drop_on_leaf1_ethernet1(lab_configs)
    (lab_configs / "spine2.set").unlink()
    r = CliRunner().invoke(main, ["check", str(LAB), "--configs", str(lab_configs)])
    assert r.exit_code == 1


# ------------------------------------------------------------------------------------------ CLI
def test_cli_check_desired_clean_and_findings() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["check", str(OK)]).exit_code == 0
    r = runner.invoke(main, ["check", str(FIX / "rc205_nic_mtu.yml")])
    assert r.exit_code == 1
    assert f"{FIX / 'rc205_nic_mtu.yml'}:{_marker_line(FIX / 'rc205_nic_mtu.yml')}:" in r.output
    assert "error[RC205]" in r.output


def test_cli_check_invalid_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        OK.read_text().replace(
            "ecmp: {fields: [src_ip, dst_ip, src_port, dst_port]}", "ecmp: {fields: [src_ip]}"
        )
    )
    runner = CliRunner()
    r = runner.invoke(main, ["check", str(bad)])
    assert r.exit_code == 2 and "RC116" in r.output
    assert runner.invoke(main, ["check", str(tmp_path / "missing.yml")]).exit_code == 2
    r = runner.invoke(main, ["check", str(OK), "--configs", str(tmp_path / "nodir")])
    assert r.exit_code == 2
    r = runner.invoke(main, ["check", str(OK), "--configs", str(tmp_path), "--inventory", str(bad)])
    assert r.exit_code == 2


def test_cli_check_inventory_unreachable_devices(tmp_path: Path) -> None:
    inv = tmp_path / "hosts.yml"
    inv.write_text(
        "all:\n  hosts:\n    spine1: {ansible_host: 127.0.0.1, ansible_port: 9, roceconf_platform: nvue}\n"
    )
    r = CliRunner().invoke(
        main, ["check", str(OK), "--inventory", str(inv), "--timeout", "0.5", "--retries", "0"]
    )
    # nothing could be read: every device is reported, exit 3
    assert r.exit_code == 3, r.output
    for name in ("spine1", "leaf1", "gpu1"):
        assert f"error[RC215]: {name} could not be read" in r.output


def test_path_graph_tiers_and_paths() -> None:
    fab = load(LAB)
    g = build(fab)
    assert g.tier["gpu1"] == 0 and g.tier["leaf1"] == 1 and g.tier["spine1"] == 2
    paths = list(g.paths_from("gpu1", "eth0"))
    assert [[e.label for e in p] for p in paths] == [
        ["gpu1:eth0", "leaf1:Ethernet1", "leaf1:Ethernet49", "spine1:Ethernet1/1"],
        ["gpu1:eth0", "leaf1:Ethernet1", "leaf1:Ethernet50", "spine2:et-0/0/0"],
    ]
    assert all(h.kind in ("host-switch", "switch-switch") for h in g.hops)


def test_pod_is_clean_and_every_link_is_on_the_path() -> None:
    fab = load(HERE.parent / "inventories" / "pod" / "intent.yml")
    res = run_checks(fab, desired(fab))
    assert res.hops == len(fab.links) == 2560
    assert res.findings == []
    assert {d.code for d in res.diagnostics} == {"RC212"}  # tomahawk4/spectrum4 parameters are unknown


def test_rules_show_up_in_generated_rules_doc() -> None:
    import roceconf.fabric  # noqa: F401 - registers the RC2xx rules
    from roceconf.docgen import rules_markdown

    text = rules_markdown()
    for rid in ("RC200", "RC201", "RC211", "RC216"):
        assert f"| {rid} |" in text


def test_fixture_dir_has_no_stray_files() -> None:
    assert {p.suffix for p in FIX.iterdir()} == {".yml"}


# ------------------------------------------------------------------------------------------ live devices
def test_live_lab_with_demo_faults_is_checked_over_the_inventory(tmp_path: Path) -> None:
    """The drift demo's three faults, read live over SSH/HTTP from the loopback lab: each device parses
    fine, the fabric checks find the broken hops."""
    import secrets

    from roceconf.compile import output_name
    from roceconf.demo import FAULTS
    from roceconf.fabric import from_inventory
    from roceconf.lab.server import Lab

    fab = load(LAB)
    files = render_fabric(fab)
    creds = (f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16))
    with Lab(*creds) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        clean = run_checks(fab, from_inventory(fab, inv, workers=8, timeout=10, credentials=creds))
        for _device, _what, inject in FAULTS:
            inject(lab)
        ss = from_inventory(fab, inv, workers=8, timeout=10, credentials=creds)
    assert _without_lab_seed_warning(clean.findings) == [] and clean.exit_code == 0
    assert not ss.unreadable
    res = run_checks(fab, ss)
    by_code: dict[str, list[str]] = {}
    for d in res.findings:
        by_code.setdefault(d.code, []).append(d.message)
    # leaf1 Ethernet2 lost no-drop 3 while gpu2:eth0 still pauses priority 3
    assert any("gpu2:eth0 [3]" in m and "leaf1:Ethernet2 []" in m for m in by_code["RC202"])
    assert any("leaf1:Ethernet2" in m for m in by_code["RC201"])
    # gpu1 sends CNPs with DSCP 46, which the leaves do not classify into the CNP priority
    assert any("gpu1:eth0 sends CNPs with DSCP 46" in m for m in by_code["RC203"])
    # spine2 et-0/0/1 at MTU 1500 against leaf2:swp32 at 9214
    assert any("spine2:et-0/0/1 1500" in m for m in by_code["RC207"])
    assert any("spine2:et-0/0/1 MTU 1500" in m for m in by_code["RC206"])
    assert all("running-config" in m for ms in by_code.values() for m in ms)
    assert res.exit_code == 1


def test_text_output_folds_many_findings_on_one_mesh_entry() -> None:
    from roceconf.fabric.report import PER_POSITION, check_text

    fab = load(HERE.parent / "inventories" / "pod" / "intent.yml")
    ss = desired(fab)
    for i in range(1, 9):
        for itf in ss.states[f"spine{i}"].interfaces.values():
            itf.mtu = 9100
    res = run_checks(fab, ss)
    assert _finding_codes(res) == {"RC207"}
    hits = [d for d in res.diagnostics if d.code == "RC207"]
    assert len(hits) == 512 and len({d.line for d in hits}) == 2  # one per mesh entry, every link listed
    text = check_text(res)
    assert text.count("error[RC207]: MTU differs") == 2 * PER_POSITION
    assert text.count("... and 251 more like this") == 2
    assert json.loads(json.dumps(res.to_dict()))["summary"]["error"] == 512
