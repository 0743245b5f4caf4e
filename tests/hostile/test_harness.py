"""The harness itself: a case that crashes, hangs or bloats is caught (so a green hostile suite means something)."""

from __future__ import annotations

import pytest

from tests.hostile import harness


def test_a_valid_run_passes_and_a_missing_file_is_one_line() -> None:
    ok = harness.run("validate", str(harness.LAB))
    harness.check(ok, bad_input=False, rc=0)
    bad = harness.run("validate", "/nonexistent/intent.yml")
    harness.check(bad, names=("/nonexistent/intent.yml",))


def test_the_harness_sees_timeouts_and_memory() -> None:
    o = harness.run("validate", str(harness.LAB), timeout=0.001)
    assert o.timed_out and o.rc is None
    with pytest.raises(AssertionError, match="still running"):
        harness.check(o)
    o = harness.run("validate", str(harness.LAB))
    assert 10 < o.peak_mib < harness.MEM_LIMIT_MIB
    o.stderr += "Traceback (most recent call last):\n"
    with pytest.raises(AssertionError, match="traceback"):
        harness.check(o, bad_input=False)
