"""EOS against Arista's own renderer: desired states -> AVD structured config -> ``pyavd.get_device_config``
-> roceconf's EOS parser -> the same semantic state.

This proves the parser reads Arista-authored syntax and that roceconf's state means what AVD means. The
states: the lab intent's EOS leaves, every EOS device of the pod intent, and >= 100 generated EOS states
(the platform's round-trip strategy). Fields AVD's schema cannot express are left out of the comparison
(``roceconf.platforms.eos.avd.NOT_EXPRESSED``: ECMP hash fields, seed, symmetric hashing; link pause is
compared on the receive side AVD renders). pyavd is a test dependency (pyproject ``test`` extra).
"""

from __future__ import annotations

from pathlib import Path

import pyavd
import pytest
from deepdiff import DeepDiff
from hypothesis import HealthCheck, given, settings

from roceconf.compile import load_valid
from roceconf.intent.desired import desired_states
from roceconf.platforms.eos import PLATFORM
from roceconf.platforms.eos.avd import NOT_EXPRESSED, comparable, structured_config
from roceconf.platforms.eos.parser import parse
from roceconf.state import DeviceState
from tests.conformance.sources import intent_states
from tests.platforms.test_eos import EOS_NAMES
from tests.strategies import device_state

ROOT = Path(__file__).resolve().parents[2]


def _through_avd(state: DeviceState) -> DeviceState:
    sc = structured_config(state)
    res = pyavd.validate_structured_config(sc)
    vr = res.validation_result
    errors = [f"{'.'.join(v.path)}: {v.message}" for v in vr.violations]
    assert not errors, f"AVD's schema refuses the structured config: {errors[:3]}"
    assert not vr.ignored_eos_config_keys, vr.ignored_eos_config_keys
    text = pyavd.get_device_config(sc)
    got = parse(text)
    assert [w.message for w in got.warnings if w.code != "UNUSED"] == [], text
    return got


def _check(state: DeviceState, label: str) -> None:
    got = _through_avd(state)
    diff = DeepDiff(comparable(state), comparable(got))
    assert not diff, f"{label}: pyavd's text parses to another state: {diff}"


def _eos_desired(intent: Path) -> dict[str, DeviceState]:
    return {n: s for n, s in desired_states(load_valid(intent)).items() if s.platform == "eos"}


@pytest.mark.parametrize("intent", ["lab", "pod"])
def test_intent_eos_devices_render_the_same_through_pyavd(intent: str, capsys) -> None:
    states = _eos_desired(ROOT / "inventories" / intent / "intent.yml")
    assert states, f"no EOS device in the {intent} intent"
    for name, st in states.items():
        _check(st, f"{intent}:{name}")
    with capsys.disabled():
        print(f"\npyavd cross-check: {len(states)} EOS states of the {intent} intent")


def test_test_intents_eos_devices_render_the_same_through_pyavd(capsys) -> None:
    labels = [label for label, _ in intent_states("eos") if not label.startswith("inventories/")]
    for label, st in intent_states("eos"):
        if not label.startswith("inventories/"):
            _check(st, label)
    assert labels
    with capsys.disabled():
        print(f"\npyavd cross-check: {len(labels)} EOS states of the test intents")


def test_generated_eos_states_render_the_same_through_pyavd(capsys) -> None:
    """>= 100 generated EOS states (the platform's round-trip strategy). Hypothesis only draws them; pyavd
    runs after the draw, outside hypothesis's engine (a module imported by pyavd while hypothesis scans
    sys.modules can fail the draw under xdist)."""
    states: list[DeviceState] = []

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(state=device_state(PLATFORM, EOS_NAMES))
    def draw(state: DeviceState) -> None:
        states.append(state)

    draw()
    distinct = {s.model_dump_json(exclude={"warnings", "sources"}): s for s in states}
    assert len(distinct) >= 100
    for st in distinct.values():
        _check(st, "generated")
    with capsys.disabled():
        print(
            f"\npyavd cross-check: {len(distinct)} generated EOS states rendered by pyavd, parsed back equal"
        )


def test_every_dscp_has_a_home_and_no_unused_queue_is_strict_on_the_lab_leaves() -> None:
    """The lab's EOS leaves map all 64 DSCPs (the intent names 0/26/48; the rest go to the default class)
    and leave no queue at EOS's strict-priority default; pyavd's text says the same."""
    for name, st in _eos_desired(ROOT / "inventories" / "lab" / "intent.yml").items():
        got = _through_avd(st)
        assert sorted(map(int, got.dscp_to_tc)) == list(range(64)), name
        assert got.dscp_to_tc["26"] == 3 and got.dscp_to_tc["48"] == 6 and got.dscp_to_tc["40"] == 0
        for itf in got.interfaces.values():
            modes = {int(tc): s.mode for tc, s in itf.scheduling.items()}
            # queue 7 (above the strict CNP queue 6) is not stated: 'no priority' there would take queue 6
            # out of strict priority on EOS; it keeps its default and no DSCP maps to it
            assert sorted(modes) == list(range(7)), name
            assert [tc for tc, m in modes.items() if m == "strict"] == [6], name  # only the CNP class
            assert 7 not in got.dscp_to_tc.values(), name


def test_fields_avd_cannot_express_are_listed() -> None:
    assert set(NOT_EXPRESSED) >= {"ecmp.fields", "ecmp.seed", "ecmp.symmetric"}
    # and they are the only fields the comparison leaves out
    st = DeviceState(platform="eos")
    assert set(st.semantic()) - set(comparable(st)) == set()
    # dynamic load balancing is compared: AVD's schema has ip_hardware.fib.load_balance_distribution.dynamic
    assert comparable(st)["ecmp"] == {
        "fields": None,
        "seed": None,
        "symmetric": None,
        "dynamic": None,
        "flowlet_gap_us": None,
    }
    dlb = DeviceState(platform="eos", ecmp={"dynamic": "dynamic"})
    assert comparable(dlb)["ecmp"]["dynamic"] == "dynamic"
