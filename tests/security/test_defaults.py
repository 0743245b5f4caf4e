"""The documented minimal intent validates with no warning on every switch platform (issue item 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roceconf.docgen import MINIMAL_INTENT, MINIMAL_INTERFACES, minimal_intent
from roceconf.intent import load_text
from roceconf.platforms import SWITCHES

ROOT = Path(__file__).resolve().parents[2]


def test_the_minimal_intent_is_in_the_docs() -> None:
    assert MINIMAL_INTENT in (ROOT / "docs" / "intent.md").read_text()
    assert set(MINIMAL_INTERFACES) == set(SWITCHES)


@pytest.mark.parametrize("platform", SWITCHES)
def test_minimal_intent_validates_without_warning(platform: str) -> None:
    fab = load_text(minimal_intent(platform), f"minimal-{platform}.yml")
    # no error, no warning (a roceconf default the platform cannot state is an RC025 note, not a warning)
    assert [d.format() for d in fab.diagnostics if d.severity != "info"] == []
    assert {d.code for d in fab.diagnostics} <= {"RC025"}
    dev = fab.devices["leaf1"]
    assert dev.platform == platform and len(dev.ports) == 2


@pytest.mark.parametrize("platform", SWITCHES)
def test_default_mtu_and_hash_fields_fit_every_platform(platform: str) -> None:
    from roceconf import platforms

    fab = load_text(minimal_intent(platform), "m.yml")
    s = fab.devices["leaf1"].settings
    cap = platforms.get(platform).capabilities
    assert cap.min_mtu.value <= s.mtu.switch_port <= cap.max_mtu.value
    assert set(s.ecmp.fields) <= set(cap.hash_fields)
    assert "src_port" in s.ecmp.fields
