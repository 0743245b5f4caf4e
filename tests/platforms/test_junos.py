"""Juniper Junos platform: round trip, rendered knobs, parser semantics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from roceconf.platforms import get
from roceconf.platforms.junos import PLATFORM
from roceconf.platforms.junos.syntax import WD_RANGES
from roceconf.render import render_state
from roceconf.state import DeviceState, Ecmp, Ecn, Interface, Pfc, PfcWatchdog
from tests.strategies import device_state, lab_port

# ----------------------------------------------------------------------------- strategies

JUNOS_PORT = st.one_of(
    st.builds(lambda p, f: f"{p}-0/0/{f}", st.sampled_from(["et", "xe"]), st.integers(0, 63)),
    st.builds(lambda f, c: f"et-0/0/{f}:{c}", st.integers(0, 63), st.integers(0, 3)),
    st.builds(lambda fpc, f: f"et-{fpc}/0/{f}", st.integers(1, 3), st.integers(0, 35)),
)
JUNOS_NAMES = st.lists(JUNOS_PORT, min_size=1, max_size=5, unique=True)


def _fit_platform(state: DeviceState) -> DeviceState:
    """Constraints of Junos syntax the generic strategy does not know.

    * ECN is a fill level in integer percent 0-100 of the queue's buffer share (no bytes);
    * watchdog values inside the 23.4R1 YANG ranges (poll 100..1000 ms, detection 2..10 polls,
      recovery 200..1000 ms);
    * a DSCP map only exists through a classifier bound to a port, so one port must trust DSCP.
    """
    for itf in state.interfaces.values():
        for ecn in itf.ecn.values():
            lo = (ecn.min_bytes or 0) % 100
            hi = lo + 1 + (ecn.max_bytes or 0) % (100 - lo)
            ecn.min_bytes = ecn.max_bytes = None
            ecn.min_percent, ecn.max_percent = lo, hi
    wd = state.pfc_watchdog
    rng = {f: (lo, hi) for f, lo, hi in WD_RANGES}
    if wd.polling_ms is not None:
        wd.polling_ms = rng["polling_ms"][0] + wd.polling_ms * 37 % (
            rng["polling_ms"][1] - rng["polling_ms"][0]
        )
    if wd.detection_ms is not None and wd.polling_ms is not None:
        lo, hi = rng["detection_polls"]
        wd.detection_ms = wd.polling_ms * (lo + wd.detection_ms % (hi - lo + 1))
    if wd.restoration_ms is not None:
        lo, hi = rng["restoration_ms"]
        wd.restoration_ms = lo + wd.restoration_ms % (hi - lo + 1)
    if state.dscp_to_tc and all(i.trust != "dscp" for i in state.interfaces.values()):
        first = sorted(state.interfaces)[0]
        state.interfaces[first].trust = "dscp"
    return state


@settings(max_examples=200, deadline=None)
@given(device_state(PLATFORM, JUNOS_NAMES).map(_fit_platform))
def test_round_trip(state: DeviceState) -> None:
    text = render_state(state)
    back = PLATFORM.parse(text)
    assert back.warnings == []
    assert back.semantic() == state.semantic()


# ----------------------------------------------------------------------------- rendered knobs


def lab_state() -> DeviceState:
    port = lab_port(mtu=9216)
    port.ecn = {"3": Ecn(min_percent=55, max_percent=90, probability=100)}
    return DeviceState(
        platform="junos",
        hostname="leaf1",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={n: port.model_copy(deep=True) for n in ("et-0/0/0", "et-0/0/1")},
        pfc_watchdog=PfcWatchdog(
            enabled=True, detection_ms=200, restoration_ms=200, polling_ms=100, action="drop"
        ),
        ecmp=Ecmp(fields=["dst_ip", "dst_port", "ip_proto", "src_ip", "src_port"], seed=25),
    )


def _lines() -> set[str]:
    return set(render_state(lab_state()).splitlines())


def test_dscp_map_lines() -> None:
    lines = _lines()
    assert (
        "set class-of-service classifiers dscp RC-DSCP forwarding-class RC-TC3 loss-priority low code-points 011010"
        in lines
    )
    assert (
        "set class-of-service classifiers dscp RC-DSCP forwarding-class RC-TC6 loss-priority low code-points 110000"
        in lines
    )
    assert "set class-of-service forwarding-classes class RC-TC6 queue-num 6" in lines
    # the classifier roceconf owns is replaced whole: delete first, then every entry
    text = render_state(lab_state()).splitlines()
    first_entry = next(
        i for i, ln in enumerate(text) if ln.startswith("set class-of-service classifiers dscp")
    )
    assert text[first_entry - 1] == "delete class-of-service classifiers dscp RC-DSCP"


def test_delete_line_removes_what_earlier_lines_set() -> None:
    """A load-set file applies in order: a drifted code point set before 'delete' is gone after it."""
    stale = "set class-of-service classifiers dscp RC-DSCP forwarding-class RC-TC0 loss-priority low code-points 011010\n"
    text = render_state(lab_state())
    state = PLATFORM.parse(stale + text)
    assert state.dscp_to_tc == {"26": 3, "48": 6}
    # without the delete, the stale entry and the intended one collide on code point 011010: DSCP 26 and the
    # PFC that depends on it are unknown, with a warning naming both lines
    kept = PLATFORM.parse(stale + text.replace("delete class-of-service classifiers dscp RC-DSCP\n", ""))
    assert kept.dscp_to_tc == {"48": 6}
    assert kept.interfaces["et-0/0/0"].pfc.no_drop is None
    (w,) = [w for w in kept.warnings if w.code == "AMBIGUOUS"]
    assert "RC-TC0 (line 1) and RC-TC3" in w.message
    # a delete of something never set, or of a whole hierarchy, never raises
    assert PLATFORM.parse("delete class-of-service\n" + text).dscp_to_tc == {"26": 3, "48": 6}
    assert PLATFORM.parse(text + "delete class-of-service\n").dscp_to_tc == {}


def test_trust_binding_lines() -> None:
    lines = _lines()
    for port in ("et-0/0/0", "et-0/0/1"):
        assert f"set class-of-service interfaces {port} unit * classifiers dscp RC-DSCP" in lines


def test_pfc_lines() -> None:
    lines = _lines()
    cnp = "RC-PFC-DSCP-P3-WD"
    assert "set class-of-service forwarding-classes class RC-TC3 queue-num 3 no-loss pfc-priority 3" in lines
    assert (
        f"set class-of-service congestion-notification-profile {cnp} input dscp code-point 011010 pfc"
        in lines
    )
    assert (
        f"set class-of-service congestion-notification-profile {cnp} output ieee-802.1 code-point 011 flow-control-queue 3"
        in lines
    )
    assert f"set class-of-service interfaces et-0/0/0 congestion-notification-profile {cnp}" in lines
    # CNP DSCP 48 (TC6) is not lossless
    assert not any("code-point 110000 pfc" in line for line in lines)


def test_ecn_lines() -> None:
    lines = _lines()
    dp = "RC-ECN-55-90-100"
    assert f"set class-of-service drop-profiles {dp} interpolate fill-level 55" in lines
    assert f"set class-of-service drop-profiles {dp} interpolate fill-level 90" in lines
    assert f"set class-of-service drop-profiles {dp} interpolate drop-probability 0" in lines
    assert f"set class-of-service drop-profiles {dp} interpolate drop-probability 100" in lines
    sched = "RC-TC3-BW50-E55-90-100"
    assert f"set class-of-service schedulers {sched} explicit-congestion-notification" in lines
    assert (
        f"set class-of-service schedulers {sched} drop-profile-map loss-priority any protocol any drop-profile {dp}"
        in lines
    )


def test_scheduling_lines() -> None:
    lines = _lines()
    assert "set class-of-service schedulers RC-TC6-SP priority strict-high" in lines
    assert "set class-of-service schedulers RC-TC3-BW50-E55-90-100 transmit-rate percent 50" in lines
    assert "set class-of-service schedulers RC-TC0-BW50 transmit-rate percent 50" in lines
    maps = [line for line in lines if line.startswith("set class-of-service scheduler-maps ")]
    assert len(maps) == 3 and len({m.split()[3] for m in maps}) == 1
    # each owned object is replaced whole: its delete comes right before its first set line
    text = render_state(lab_state()).splitlines()
    for kind in ("drop-profiles", "schedulers", "scheduler-maps", "congestion-notification-profile"):
        firsts = {}
        for i, ln in enumerate(text):
            if ln.startswith(f"set class-of-service {kind} "):
                firsts.setdefault(ln.split()[3], i)
        assert firsts, kind
        for name, i in firsts.items():
            assert text[i - 1] == f"delete class-of-service {kind} {name}", (kind, name)
    sm = maps[0].split()[3]
    assert f"set class-of-service interfaces et-0/0/1 scheduler-map {sm}" in lines


def test_mtu_pause_hostname_lines() -> None:
    lines = _lines()
    assert "set interfaces et-0/0/0 mtu 9216" in lines
    assert "set interfaces et-0/0/1 ether-options no-flow-control" in lines
    assert "set system host-name leaf1" in lines


def test_watchdog_lines() -> None:
    lines = _lines()
    cnp = "RC-PFC-DSCP-P3-WD"
    assert f"set class-of-service congestion-notification-profile {cnp} pfc-watchdog" in lines
    assert (
        f"set class-of-service congestion-notification-profile {cnp} pfc-watchdog poll-interval 100" in lines
    )
    assert f"set class-of-service congestion-notification-profile {cnp} pfc-watchdog detection 2" in lines
    # Juniper 23.4R1 QFX and EVO class-of-service YANG: the leaf is 'recovery' (200..1000 ms)
    assert f"set class-of-service congestion-notification-profile {cnp} pfc-watchdog recovery 200" in lines
    assert not any("recovery-time" in line for line in lines)
    assert (
        f"set class-of-service congestion-notification-profile {cnp} pfc-watchdog watchdog-action drop"
        in lines
    )


def test_recovery_time_is_not_a_junos_statement() -> None:
    """The old render's 'recovery-time' is refused by the device: the parser does not take it as the timer."""
    text = BASE + (
        "set class-of-service congestion-notification-profile P1 pfc-watchdog recovery-time 400\n"
        "set class-of-service interfaces et-0/0/1 congestion-notification-profile P1\n"
    )
    state = PLATFORM.parse(text)
    assert state.pfc_watchdog.restoration_ms == 200  # the documented default, not 400
    assert "pfc_watchdog.restoration_ms" in state.defaults
    assert any(w.line == 5 and "recovery-time" in w.message for w in state.warnings)


def test_ecn_bytes_are_never_converted_to_fill_level() -> None:
    """A state with byte thresholds only (no Junos fill level) renders no drop profile: no made-up factor."""
    state = lab_state()
    for itf in state.interfaces.values():
        itf.ecn = {"3": Ecn(min_bytes=150000, max_bytes=1500000, probability=100)}
    text = render_state(state)
    assert "drop-profiles" not in text and "fill-level" not in text
    assert PLATFORM.parse(text).interfaces["et-0/0/0"].ecn == {}


def test_hash_seed_line_and_parse() -> None:
    lines = _lines()
    assert "set forwarding-options enhanced-hash-key hash-seed seed-value 25" in lines
    back = PLATFORM.parse("\n".join(sorted(lines)))
    assert back.ecmp.seed == 25


def test_hash_lines() -> None:
    state = lab_state()
    state.ecmp.fields = ["dst_ip", "src_ip", "src_port"]
    lines = set(render_state(state).splitlines())
    assert "set forwarding-options enhanced-hash-key hash-mode layer2-payload" in lines
    assert "set forwarding-options enhanced-hash-key inet no-l4-destination-port" in lines
    assert "set forwarding-options enhanced-hash-key inet no-protocol" in lines
    assert "set forwarding-options enhanced-hash-key inet6 no-next-header" in lines
    assert not any("no-l4-source-port" in line for line in lines)


def test_partial_state_renders_only_stated_parts() -> None:
    state = DeviceState(platform="junos", interfaces={"et-0/0/5": Interface(mtu=9000)})
    assert render_state(state) == "set interfaces et-0/0/5 mtu 9000\n"


def test_render_is_deterministic_and_registered() -> None:
    assert get("junos") is PLATFORM
    assert render_state(lab_state()) == render_state(lab_state())


def test_lab_round_trip() -> None:
    back = PLATFORM.parse(render_state(lab_state()))
    assert back.warnings == []
    assert back.semantic() == lab_state().semantic()


# ----------------------------------------------------------------------------- parser behaviour

BASE = """\
set interfaces et-0/0/1 mtu 9216
set class-of-service forwarding-classes class NL queue-num 3 no-loss pfc-priority 3
set class-of-service classifiers dscp C1 forwarding-class NL loss-priority low code-points af31
set class-of-service interfaces et-0/0/1 unit 0 classifiers dscp C1
"""


def test_unattached_profile_is_unused_and_has_no_effect() -> None:
    text = BASE + (
        "set class-of-service congestion-notification-profile SPARE input ieee-802.1 code-point 011 pfc\n"
        "set class-of-service drop-profiles DP interpolate fill-level 10\n"
    )
    state = PLATFORM.parse(text)
    assert state.interfaces["et-0/0/1"].pfc == Pfc()
    unused = [w for w in state.warnings if w.code == "UNUSED"]
    assert {w.line for w in unused} == {5, 6}
    assert any("SPARE" in w.message for w in unused)


def test_undefined_reference_warns() -> None:
    text = BASE + "set class-of-service interfaces et-0/0/1 congestion-notification-profile NOPE\n"
    state = PLATFORM.parse(text)
    assert [(w.code, w.line) for w in state.warnings if "NOPE" in w.message] == [("UNDEFINED", 5)]
    assert state.interfaces["et-0/0/1"].pfc.no_drop is None


def test_undefined_forwarding_class_warns() -> None:
    text = BASE.replace("forwarding-class NL loss", "forwarding-class GHOST loss")
    state = PLATFORM.parse(text)
    assert any(w.code == "UNDEFINED" and "GHOST" in w.message and w.line == 3 for w in state.warnings)
    assert state.dscp_to_tc == {}


def test_crlf_and_code_point_alias() -> None:
    state = PLATFORM.parse(BASE.replace("\n", "\r\n"))
    assert state.dscp_to_tc == {"26": 3}
    assert state.interfaces["et-0/0/1"].mtu == 9216
    assert state.interfaces["et-0/0/1"].trust == "dscp"


def test_wred_drop_is_not_ecn() -> None:
    text = BASE + (
        "set class-of-service drop-profiles DP interpolate fill-level 10\n"
        "set class-of-service drop-profiles DP interpolate fill-level 50\n"
        "set class-of-service drop-profiles DP interpolate drop-probability 0\n"
        "set class-of-service drop-profiles DP interpolate drop-probability 20\n"
        "set class-of-service schedulers S drop-profile-map loss-priority any protocol any drop-profile DP\n"
        "set class-of-service scheduler-maps M forwarding-class NL scheduler S\n"
        "set class-of-service interfaces et-0/0/1 scheduler-map M\n"
    )
    state = PLATFORM.parse(text)
    assert state.interfaces["et-0/0/1"].ecn == {}
    assert any(w.code == "WRED" and w.line == 9 for w in state.warnings)
    ecn_text = text + "set class-of-service schedulers S explicit-congestion-notification\n"
    ecn = PLATFORM.parse(ecn_text).interfaces["et-0/0/1"].ecn
    assert ecn == {"3": Ecn(min_percent=10, max_percent=50, probability=20)}


def test_unknown_roce_line_warns_with_line_number() -> None:
    text = BASE + "set class-of-service congestion-notification-profile P1 pfc-watchdog bogus-knob 7\n"
    state = PLATFORM.parse(text)
    assert any(w.line == 5 and "bogus-knob" in w.message for w in state.warnings)


def test_source_lines_recorded() -> None:
    text = BASE + (
        "set class-of-service congestion-notification-profile P1 input ieee-802.1 code-point 011 pfc\n"
        "set class-of-service interfaces et-0/0/1 congestion-notification-profile P1\n"
    )
    state = PLATFORM.parse(text)
    assert state.interfaces["et-0/0/1"].pfc == Pfc(enabled=True, no_drop=[3])
    assert state.sources["interfaces.et-0/0/1.mtu"].lines == [1]
    assert state.sources["dscp_to_tc.26"].lines == [3]
    assert set(state.sources["interfaces.et-0/0/1.pfc"].lines) == {5, 6}


def test_wildcard_expands_onto_configured_interfaces_and_explicit_wins() -> None:
    text = (
        "set interfaces et-0/0/1 mtu 9216\n"
        "set interfaces et-0/0/2 mtu 9216\n"
        "set interfaces xe-0/0/9 unit 0 family inet\n"
        "set class-of-service forwarding-classes class A queue-num 3\n"
        "set class-of-service forwarding-classes class B queue-num 5\n"
        "set class-of-service classifiers dscp CA forwarding-class A loss-priority low code-points 011010\n"
        "set class-of-service classifiers dscp CB forwarding-class B loss-priority low code-points 011010\n"
        "set class-of-service interfaces et-* unit * classifiers dscp CA\n"
        "set class-of-service interfaces et-0/0/2 unit 0 classifiers dscp CB\n"
    )
    state = PLATFORM.parse(text)
    assert set(state.interfaces) == {"et-0/0/1", "et-0/0/2"}
    assert state.interfaces["et-0/0/1"].trust == "dscp"
    # tie between the two maps -> a device map plus a port-specific one
    maps = {
        str(state.dscp_to_tc),
        str(state.interfaces["et-0/0/2"].dscp_to_tc or state.interfaces["et-0/0/1"].dscp_to_tc),
    }
    assert maps == {str({"26": 3}), str({"26": 5})}


def test_hierarchical_form_and_inactive_statements() -> None:
    text = """\
interfaces {
    et-0/0/4 {
        mtu 9216;
    }
}
class-of-service {
    forwarding-classes {
        class NO-LOSS queue-num 4 no-loss pfc-priority 4;
    }
    congestion-notification-profile {
        cnp {
            input {
                ieee-802.1 {
                    code-point 100 {
                        pfc;
                    }
                    inactive: code-point 011 {
                        pfc;
                    }
                }
            }
        }
    }
    interfaces {
        et-0/0/4 {
            congestion-notification-profile cnp;
        }
    }
}
"""
    state = PLATFORM.parse(text)
    assert state.interfaces["et-0/0/4"].mtu == 9216
    assert state.interfaces["et-0/0/4"].pfc == Pfc(enabled=True, no_drop=[4])


def test_deactivate_line_removes_statement() -> None:
    text = BASE + "deactivate interfaces et-0/0/1 mtu\n"
    assert PLATFORM.parse(text).interfaces["et-0/0/1"].mtu is None


def test_watchdog_defaults_recorded() -> None:
    text = BASE + (
        "set class-of-service congestion-notification-profile P1 pfc-watchdog\n"
        "set class-of-service interfaces et-0/0/1 congestion-notification-profile P1\n"
    )
    state = PLATFORM.parse(text)
    wd = state.pfc_watchdog
    assert (wd.enabled, wd.polling_ms, wd.detection_ms, wd.restoration_ms, wd.action) == (
        True,
        100,
        200,
        200,
        "drop",
    )
    assert "pfc_watchdog.detection_ms" in state.defaults
    assert state.interfaces["et-0/0/1"].pfc_watchdog is True


def test_hash_exclusions_parse() -> None:
    text = "set forwarding-options enhanced-hash-key inet no-l4-source-port\n"
    state = PLATFORM.parse(text)
    assert state.ecmp.fields == ["dst_ip", "dst_port", "ip_proto", "src_ip"]
    assert "ecmp.fields" in state.defaults


def test_garbage_never_raises() -> None:
    for text in (
        "",
        "}}}{{",
        "set",
        "set class-of-service interfaces",
        "class-of-service { [ ; ] }",
        "\x00\r\n",
    ):
        assert isinstance(PLATFORM.parse(text), DeviceState)


# ----------------------------------------------------------------------------- from the intent


def _lab_spine2() -> DeviceState:
    from pathlib import Path

    from roceconf.intent import load
    from roceconf.intent.desired import desired_state

    lab = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "intent.yml"
    return desired_state(load(lab).devices["spine2"])


def test_every_dscp_has_a_home_and_no_unused_queue_is_strict() -> None:
    """The RC-DSCP classifier names all 64 code points: DSCPs the intent does not name go to the default class
    (the class of DSCP 0), so no DSCP keeps a Junos default forwarding class; strict-high only on TC6 (CNP)."""
    state = _lab_spine2()
    text = render_state(state)
    entries = [
        ln for ln in text.splitlines() if ln.startswith("set class-of-service classifiers dscp RC-DSCP ")
    ]
    assert len(entries) == 64
    assert {ln.split()[-1] for ln in entries} == {format(d, "06b") for d in range(64)}
    assert sum("forwarding-class RC-TC0 " in ln for ln in entries) == 62
    strict = [ln for ln in text.splitlines() if ln.endswith("priority strict-high")]
    assert strict == ["set class-of-service schedulers RC-TC6-SP priority strict-high"]
    assert PLATFORM.parse(text).semantic() == state.semantic()


def test_lab_spine2_ecn_seed_and_watchdog_as_the_intent_states() -> None:
    state = _lab_spine2()
    assert state.interfaces["et-0/0/0"].ecn == {"3": Ecn(min_percent=55, max_percent=90, probability=100)}
    assert state.ecmp.seed == 25
    lines = set(render_state(state).splitlines())
    assert "set forwarding-options enhanced-hash-key hash-seed seed-value 25" in lines
    assert "set class-of-service drop-profiles RC-ECN-55-90-100 interpolate fill-level 55" in lines
    cnp = "set class-of-service congestion-notification-profile RC-PFC-DSCP-P3-WD pfc-watchdog"
    assert f"{cnp} recovery 400" in lines and f"{cnp} recovery-time 400" not in lines
