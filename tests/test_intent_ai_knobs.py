"""Issue 27's AI-fabric knobs: ECN thresholds as a queue delay, dynamic load balancing / QP hashing per
platform, and the extra_config passthrough (positives, refusals with rule IDs, hostile lines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from roceconf import platforms
from roceconf.compile import load_valid
from roceconf.intent import load_text
from roceconf.intent.desired import desired_states, expressible_states
from roceconf.render import render_state
from roceconf.units import parse_ecn_threshold, threshold_bytes

ROOT = Path(__file__).resolve().parent.parent
KNOBS = ROOT / "tests" / "intents" / "ai" / "knobs.yml"

CLASSES = """qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true, ECN
       scheduling: {mode: dwrr, weight_percent: 50}}
    - {name: cnp, role: cnp, dscp: [48], priority: 6}
    - {name: default, dscp: [0], priority: 0, scheduling: {mode: dwrr, weight_percent: 50}}
"""


def _intent(ecn: str = "", platform: str = "eos", itf: str = "Ethernet1", extra: str = "", role: str = "") -> str:
    return (
        "version: 1\nfabric: t\n"
        + CLASSES.replace("ECN", f"ecn: {ecn}," if ecn else "")
        + (f"roles:\n  leaf:\n{role}" if role else "")
        + f"devices:\n  - name: d1\n    platform: {platform}\n    role: leaf\n"
        + f"    interfaces:\n      - {{name: {itf}, speed: 400G}}\n      - {{name: {itf}0, speed: 100G}}\n"
        + extra
    )


def _codes(fab) -> list[str]:
    return [d.code for d in fab.diagnostics]


# ----------------------------------------------------------------------------------------- ECN as delay
def test_delay_threshold_units() -> None:
    assert parse_ecn_threshold("5us") == "5us"
    assert parse_ecn_threshold("750ns") == "750ns"
    assert parse_ecn_threshold("1.5us") == "1500ns"
    assert parse_ecn_threshold("150KB") == 150000
    assert threshold_bytes("5us", 400) == 250000  # 5000 ns x 400 Gb/s / 8
    assert threshold_bytes("20us", 100) == 250000
    assert threshold_bytes(150000, 400) == 150000
    with pytest.raises(ValueError):
        parse_ecn_threshold("5xs")
    with pytest.raises(ValueError):
        parse_ecn_threshold("2s")  # a delay unit outside 1ns-1ms is not a size either


def test_delay_becomes_bytes_per_port_speed_in_the_desired_state() -> None:
    fab = load_text(_intent("{min: 5us, max: 20us}"))
    st = desired_states(fab)["d1"]
    assert st.interfaces["Ethernet1"].ecn["3"].min_bytes == 250000
    assert st.interfaces["Ethernet1"].ecn["3"].max_bytes == 1000000
    assert st.interfaces["Ethernet10"].ecn["3"].min_bytes == 62500
    assert st.interfaces["Ethernet10"].ecn["3"].max_bytes == 250000
    # drift compares the converted value: the expressible (audited) state carries the bytes
    exp = expressible_states(fab)["d1"]
    assert exp.interfaces["Ethernet10"].ecn["3"].min_bytes == 62500
    text = render_state(st)
    assert "minimum-threshold 250000 bytes maximum-threshold 1000000 bytes" in text
    assert "minimum-threshold 62500 bytes maximum-threshold 250000 bytes" in text
    assert platforms.get("eos").parse(text).same_as(st)


def test_nxos_rounds_the_converted_bytes_to_its_quantum() -> None:
    st = desired_states(load_text(_intent("{min: 5us, max: 20us}", "nxos", "Ethernet1/1")))["d1"]
    q = platforms.get("nxos").capabilities.ecn_quantum_bytes
    assert st.interfaces["Ethernet1/10"].ecn["3"].min_bytes % q == 0


@pytest.mark.parametrize("bad", ["5xs", "fast", "-5us", "2s"])
def test_bad_delay_unit_is_refused_with_position(bad: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.yml"
    f.write_text(_intent(f"{{min: {bad}, max: 20us}}"))
    r = subprocess.run(
        [sys.executable, "-m", "roceconf.cli", "validate", str(f)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert ":5:" in r.stdout + r.stderr and "ecn.min" in r.stdout + r.stderr


def test_min_above_max_at_one_speed_is_reported() -> None:
    # 1000 B is below 20us at 100G (250,000 B) but a 2us minimum at 400G is 100,000 B < max only there
    fab = load_text(_intent("{min: 300000, max: 20us}"))
    assert "RC104" in _codes(fab) or any("ECN min" in d.message for d in fab.diagnostics)


def test_expand_shows_bytes_per_port_speed_and_plan_shows_the_change(tmp_path: Path) -> None:
    new = tmp_path / "new.yml"
    old = tmp_path / "old.yml"
    new.write_text(_intent("{min: 5us, max: 20us}"))
    old.write_text(_intent("{min: 150KB, max: 1500KB}"))
    r = subprocess.run(
        [sys.executable, "-m", "roceconf.cli", "expand", str(new)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    assert "ecn_bytes_by_port_speed" in r.stdout and "min_bytes: 62500" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "roceconf.cli", "plan", str(old), str(new)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    assert "ECN min of class roce 150 KB -> 62500 B" in r.stdout


# ----------------------------------------------------------------------------------------- DLB / QP hash
def test_knobs_intent_renders_and_parses_back() -> None:
    states = desired_states(load_valid(KNOBS))
    assert states["leaf1"].ecmp.dynamic == "dynamic"
    assert states["spine1"].ecmp.dynamic == "flowlet" and states["spine1"].ecmp.flowlet_gap_us == 64
    assert states["spine2"].ecmp.dynamic == "per-packet"
    for name, st in states.items():
        text = render_state(st)
        back = platforms.get(st.platform).parse(text)
        assert back.ecmp == st.ecmp, name
    assert "ip hardware fib load-balance distribution dynamic" in render_state(states["leaf1"])
    spine = render_state(states["spine1"])
    assert "set forwarding-options enhanced-hash-key ecmp-dlb flowlet inactivity-interval 64" in spine
    assert "set forwarding-options enhanced-hash-key ecmp-dlb per-packet" in render_state(states["spine2"])


@pytest.mark.parametrize(
    ("platform", "itf", "role", "code"),
    [
        ("nxos", "Ethernet1/1", "    ecmp: {dynamic: {mode: platform}}\n", "RC160"),
        ("sonic", "Ethernet0", "    ecmp: {dynamic: {mode: platform}}\n", "RC160"),
        ("eos", "Ethernet1", "    ecmp: {dynamic: {mode: per-packet}}\n", "RC160"),
        ("eos", "Ethernet1", "    ecmp: {dynamic: {mode: platform, flowlet_gap: 64us}}\n", "RC160"),
        ("eos", "Ethernet1", "    ecmp: {hash_dest_qp: true}\n", "RC161"),
        ("sonic", "Ethernet0", "    ecmp: {hash_dest_qp: true}\n", "RC161"),
        ("junos", "et-0/0/1", "    ecmp: {hash_dest_qp: true}\n", "RC161"),  # no model: Junos OS (QFX)
    ],
)
def test_lb_knob_refused_or_warned_with_rule(platform: str, itf: str, role: str, code: str) -> None:
    fab = load_text(_intent(platform=platform, itf=itf, role=role))
    d = [x for x in fab.diagnostics if x.code == code]
    assert d, _codes(fab)
    assert d[0].line > 0 and d[0].col > 0
    assert (d[0].severity == "warning") == (code == "RC162")


def test_qp_hashing_on_junos_evo_is_the_documented_default() -> None:
    text = _intent(platform="junos", itf="et-0/0/1", role="    ecmp: {hash_dest_qp: true}\n")
    evo = load_text(text.replace("    role: leaf\n", "    role: leaf\n    model: qfx5220-32cd\n"))
    assert "RC162" in _codes(evo) and "RC161" not in _codes(evo)
    qfx = load_text(text.replace("    role: leaf\n", "    role: leaf\n    model: qfx5120-48y\n"))
    assert "RC161" in _codes(qfx) and "RC162" not in _codes(qfx)


def test_dlb_devices_are_left_out_of_the_seed_polarization_rule() -> None:
    text = (
        "version: 1\nfabric: t\nroles:\n  leaf:\n    ecmp: {dynamic: {mode: platform}}\ndevices:\n"
        "  - {name: l1, platform: eos, role: leaf, interfaces: [{name: Ethernet1, speed: 400G}]}\n"
        "  - {name: s1, platform: eos, role: spine, interfaces: [{name: Ethernet1, speed: 400G}]}\n"
    )
    assert "RC117" not in _codes(load_text(text))
    assert "RC117" in _codes(load_text(text.replace("ecmp: {dynamic: {mode: platform}}", "mtu: {}")))


# ----------------------------------------------------------------------------------------- extra_config
def test_extra_config_is_rendered_verbatim_last_and_not_audited() -> None:
    fab = load_valid(KNOBS)
    st = desired_states(fab)["leaf1"]
    text = render_state(st)
    assert text.rstrip().endswith("qos random-detect ecn allow non-ect\n!\nend")
    assert "RC163" in _codes(fab)
    assert expressible_states(fab)["leaf1"].extra_config == []
    assert st.semantic() == st.renamed(extra_config=[]).semantic()
    assert render_state(desired_states(fab)["spine1"]).rstrip().endswith("set system ntp server 192.0.2.1")


def test_extra_config_that_changes_a_modelled_field_is_not_audited() -> None:
    extra = '    overrides:\n      extra_config: ["qos map dscp 26 to traffic-class 1"]\n'
    fab = load_text(_intent(extra=extra))
    assert expressible_states(fab)["d1"].dscp_to_tc["26"] == 3


HOSTILE = ["$(reboot)", "`reboot`", "a\\nreboot", "a\\x00b", "a\\rb", "x\\x1b[2J", "a\\u2028reboot"]


@pytest.mark.parametrize("line", HOSTILE)
@pytest.mark.parametrize("platform", ["eos", "connectx", "bnxt", "linux-dcb"])
def test_hostile_extra_config_never_reaches_a_host_script(line: str, platform: str) -> None:
    itf = "Ethernet1" if platform == "eos" else "eth"
    extra = f'    overrides:\n      extra_config: ["{line}"]\n'
    fab = load_text(_intent(platform=platform, itf=itf, extra=extra))
    codes = _codes(fab)
    if platform != "eos":
        assert "RC164" in codes  # host scripts: refused, whatever the line
        assert all(not s.extra_config for s in desired_states(fab).values())
    if "\\" in line:
        assert "RC165" in codes
        d = next(x for x in fab.diagnostics if x.code == "RC165")
        assert (d.line, d.col) == (17, 22)  # the list item itself


@pytest.mark.parametrize("platform", ["nvue", "sonic"])
def test_extra_config_refused_on_structured_documents(platform: str) -> None:
    itf = "swp1" if platform == "nvue" else "Ethernet0"
    fab = load_text(_intent(platform=platform, itf=itf, extra='    overrides:\n      extra_config: ["x"]\n'))
    assert "RC164" in _codes(fab)
    assert all(not s.extra_config for s in desired_states(fab).values())


def test_nvue_adaptive_routing_per_release_and_the_lab_takes_it() -> None:
    from ruamel.yaml import YAML

    from roceconf.lab.refuse import nvue_patch_refusal

    states = desired_states(load_valid(KNOBS))
    for name, release, word in (("nv1", "5.15", "state: enabled"), ("nv-old", "5.14", "enable: 'on'")):
        st = states[name]
        assert st.ecmp.dynamic == "adaptive-routing"
        text = render_state(st)
        assert f"    router:\n      adaptive-routing:\n        {word}\n" in text
        assert f"        router:\n          adaptive-routing:\n            {word}\n" in text  # per port
        assert platforms.get("nvue").parse(text).ecmp.dynamic == "adaptive-routing"
        patch = YAML(typ="safe").load(text)
        assert nvue_patch_refusal(patch, release) is None, name
        other = "5.14" if release == "5.15" else "5.15"
        assert nvue_patch_refusal(patch, other) is not None  # the other release's spelling is refused


def test_nvue_adaptive_routing_left_off_a_port_is_unknown_not_in_sync() -> None:
    st = desired_states(load_valid(KNOBS))["nv1"]
    text = render_state(st)
    cut = text.replace("        router:\n          adaptive-routing:\n            state: enabled\n", "", 1)
    assert cut != text
    back = platforms.get("nvue").parse(cut)
    assert back.ecmp.dynamic is None
    assert any("adaptive-routing is enabled but not on ports" in w.message for w in back.warnings)
    assert platforms.get("nvue").parse(text.replace("state: enabled\n", "state: disabled\n")).ecmp.dynamic is None


# ----------------------------------------------------------------------------------------- audit / check / plan
def test_drift_audits_dlb_and_the_converted_ecn_but_not_extra_config() -> None:
    from roceconf.drift.audit import policy_for
    from roceconf.drift.compare import compare

    fab = load_valid(KNOBS)
    want = expressible_states(fab)
    for name in ("leaf1", "spine1", "nv1"):
        st = desired_states(fab)[name]
        plat = platforms.get(st.platform)
        text = render_state(st)
        pol = policy_for(fab.devices[name])
        assert compare(want[name], plat.parse(text), pol, name) == [], name  # the own render is in sync
        if st.platform == "eos":
            cut = text.replace("ip hardware fib load-balance distribution dynamic\n", "")
            cut = cut.replace("qos random-detect ecn allow non-ect\n", "")  # extra_config: not audited
            cut = cut.replace("minimum-threshold 62500 bytes", "minimum-threshold 150000 bytes")
        elif st.platform == "junos":
            cut = text.replace(" inactivity-interval 64", " inactivity-interval 256")
        else:
            cut = text.replace("    router:\n      adaptive-routing:\n        state: enabled\n", "")
        items = compare(want[name], plat.parse(cut), pol, name)
        fields = {i.field for i in items}
        assert any("ecmp" in f for f in fields), (name, fields)
        if st.platform == "eos":
            assert any(f.endswith("min_bytes") for f in fields), fields
            assert not any("extra" in f for f in fields)


def test_check_leaves_dlb_devices_out_of_the_polarization_analysis() -> None:
    from roceconf.fabric import desired, run_checks
    from roceconf.fabric.states import StateSet

    fix = ROOT / "tests" / "intents" / "fabric" / "ok.yml"
    fab = load_valid(fix)
    base = desired(fab)

    def run(dlb: bool) -> set[str]:
        ss = StateSet("actual", "test", {k: v.model_copy(deep=True) for k, v in base.states.items()})
        ss.states["spine1"].ecmp.seed = ss.states["leaf1"].ecmp.seed
        if dlb:
            ss.states["spine1"].ecmp.dynamic = "adaptive-routing"
        return {d.code for d in run_checks(fab, ss).findings}

    assert "RC213" in run(dlb=False)
    assert "RC213" not in run(dlb=True)


def test_plan_shows_dynamic_load_balancing(tmp_path: Path) -> None:
    old, new = tmp_path / "old.yml", tmp_path / "new.yml"
    old.write_text(_intent())
    new.write_text(_intent(role="    ecmp: {dynamic: {mode: platform}}\n"))
    r = subprocess.run(
        [sys.executable, "-m", "roceconf.cli", "plan", str(old), str(new)], capture_output=True, text=True, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    assert "ECMP dynamic load balancing unset -> dynamic" in r.stdout
    assert "ip hardware fib load-balance distribution dynamic" in r.stdout  # the rendered diff


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        ("set forwarding-options enhanced-hash-key ecmp-dlb per-packet", False),
        ("set system ntp server 192.0.2.1", False),  # outside the modules the oracle holds: unchecked
        ("set forwarding-options enhanced-hash-key ecmp-dlb bogus", True),
        ("set class-of-service schedulers S1 transmit-rate percent 200", True),
        ("show version", True),
    ],
)
def test_junos_extra_config_goes_through_junipers_yang(line: str, refused: bool) -> None:
    from tests.conformance.vendor import require

    require("junos-yang")
    from roceconf.platforms.junos import schema

    if schema.unavailable_reason():
        pytest.skip(schema.unavailable_reason() or "")
    extra = f'    overrides:\n      extra_config: ["{line}"]\n'
    fab = load_text(_intent(platform="junos", itf="et-0/0/1", extra=extra))
    hits = [d for d in fab.diagnostics if d.code == "RC166"]
    assert bool(hits) == refused, [d.format() for d in fab.diagnostics]
    if refused:
        assert (hits[0].line, hits[0].col) == (17, 22)


def test_nxos_extra_config_is_the_last_lines_and_the_state_is_unchanged() -> None:
    extra = '    overrides:\n      extra_config: ["feature lldp", "hardware access-list tcam region ing-racl 256"]\n'
    fab = load_text(_intent(platform="nxos", itf="Ethernet1/1", extra=extra))
    assert "RC163" in _codes(fab) and "RC164" not in _codes(fab)
    st = desired_states(fab)["d1"]
    text = render_state(st)
    assert text.rstrip().splitlines()[-2:] == ["feature lldp", "hardware access-list tcam region ing-racl 256"]
    plain = render_state(st.renamed(extra_config=[]))
    assert "feature lldp" not in plain
    assert platforms.get("nxos").parse(text).same_as(platforms.get("nxos").parse(plain))
