"""The broken EOS values of tests/conformance/eos_negatives.py are refused by Arista's own AVD schema, and
the lines AVD renders for the unbroken values carry them (so the pairing of line and key is AVD's own)."""

from __future__ import annotations

import pyavd
import pytest

from tests.conformance.eos_negatives import NEGATIVES, base, mutated


def _violations(sc: dict) -> list[str]:
    vr = pyavd.validate_structured_config(sc).validation_result
    return [f"{'.'.join(str(p) for p in v.path)}: {v.message}" for v in vr.violations]


def test_the_base_is_valid_and_renders_the_lines_that_are_broken() -> None:
    sc = base()
    assert _violations(sc) == []
    text = pyavd.get_device_config(sc)
    for line in (
        "mtu 9214",
        "flowcontrol receive off",
        "qos trust dscp",
        "priority-flow-control priority 3 no-drop",
    ):
        assert f"   {line}\n" in text, (line, text)
    assert "priority-flow-control pause watchdog action drop" in text
    assert "priority-flow-control pause watchdog default timeout 0.2" in text


def test_there_are_enough_negatives() -> None:
    assert len(NEGATIVES) >= 6


@pytest.mark.parametrize(("why", "mode", "line", "path", "value"), NEGATIVES, ids=[n[2] for n in NEGATIVES])
def test_avd_refuses_the_broken_value(why: str, mode: str, line: str, path: tuple, value: object) -> None:
    errors = _violations(mutated(path, value))
    key = ".".join(str(p) for p in path)
    assert any(e.startswith(key + ":") for e in errors), (why, errors)
