"""Every rendered Junos `set` / `delete` line resolves in Juniper's own 23.4R1 YANG (QFX and EVO).

Oracle: github.com/Juniper/yang 23.4R1 `junos-qfx-conf-*` (Junos OS, QFX) and `junos-conf-*` (Junos OS
Evolved), compiled by Debian's yanglint and walked by roceconf/platforms/junos/schema.py. Corpus: the lab
intent, every test intent that renders a Junos device, the golden and fixture renders, and 200 generated
states (hypothesis, the platform's round-trip strategy).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from roceconf.platforms.junos import PLATFORM, schema
from roceconf.render import render_state
from tests.conformance.corpus import CORPUS_GROUP, ROOT, negative_lines, states

REASON = schema.unavailable_reason()
if REASON:
    pytest.skip(f"Junos YANG conformance skipped: {REASON}", allow_module_level=True)

pytestmark = pytest.mark.xdist_group(CORPUS_GROUP)  # one worker validates the corpus once

from tests.platforms.test_junos import JUNOS_NAMES, _fit_platform  # noqa: E402
from tests.strategies import device_state  # noqa: E402

FLAVOURS = ("qfx", "evo")


def _check_text(text: str, label: str) -> tuple[int, int]:
    """(lines checked against the schema, lines outside the model set); fails on the first refused line."""
    checked = unchecked = 0
    for fl in FLAVOURS:
        tree = schema.load(fl)
        for line in text.splitlines():
            if not line.startswith(("set ", "delete ")):
                continue
            v = schema.check_line(tree, line)
            assert v.ok, f"{label} ({fl}): {v.message}: {line}"
            if v.checked:
                checked += 1
            else:
                unchecked += 1
    return checked, unchecked


def test_intent_renders_resolve_in_the_schema() -> None:
    corpus = states("junos")
    assert any(label.startswith("inventories/lab/") for label, _ in corpus)
    # a PCP-trust render (tests/intents/conformance/pcp.yml) is among them: classifiers ieee-802.1
    assert any("set class-of-service classifiers ieee-802.1 " in render_state(st) for _, st in corpus)
    checked = unchecked = 0
    for label, st in corpus:
        c, u = _check_text(render_state(st), label)
        checked, unchecked = checked + c, unchecked + u
    # the rendered files kept in the repository (the other Junos fixtures are recorded device configs)
    for f in (
        ROOT / "tests" / "golden" / "spine2.set",
        ROOT / "tests" / "fixtures" / "junos" / "rendered-lab.set",
    ):
        c, u = _check_text(f.read_text(), str(f.relative_to(ROOT)))
        checked, unchecked = checked + c, unchecked + u
    print(
        f"junos: {len(corpus)} intent renders, {checked} line checks (QFX+EVO), {unchecked} outside the models"
    )
    assert checked > 100


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(device_state(PLATFORM, JUNOS_NAMES).map(_fit_platform))
def test_generated_states_render_lines_the_schema_accepts(state) -> None:
    _check_text(render_state(state), "generated state")


NEGATIVE = negative_lines("junos-negative.set")


def test_there_are_enough_negative_lines() -> None:
    assert len(NEGATIVE) >= 10
    assert any("recovery-time" in line for _, line in NEGATIVE)


@pytest.mark.parametrize(
    ("why", "line"), NEGATIVE, ids=[ln.split()[-2] + "-" + ln.split()[-1] for _, ln in NEGATIVE]
)
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_broken_line_is_rejected(flavour: str, why: str, line: str) -> None:
    v = schema.check_line(schema.load(flavour), line)
    assert not v.ok, f"{flavour} accepts a line it should refuse ({why}): {line}"
    assert v.checked and v.message


def test_checker_is_not_vacuous() -> None:
    """The same checker accepts the corrected forms of the negative lines' defects."""
    tree = schema.load("qfx")
    cnp = "set class-of-service congestion-notification-profile RC-PFC-DSCP-P3-WD pfc-watchdog"
    for ok in (
        f"{cnp} recovery 400",
        f"{cnp} poll-interval 100",
        f"{cnp} detection 2",
        f"{cnp} watchdog-action drop",
        "set class-of-service interfaces et-0/0/1 unit * classifiers dscp RC-DSCP",
        "set forwarding-options enhanced-hash-key hash-seed seed-value 25",
        "set forwarding-options enhanced-hash-key inet no-l4-source-port",
    ):
        assert schema.check_line(tree, ok).ok, ok
