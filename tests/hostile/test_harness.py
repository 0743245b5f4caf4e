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


def _both(*args: str, reset=None, **kw) -> tuple[harness.Outcome, harness.Outcome]:  # noqa: ANN001,ANN003
    forked = harness.run(*args, **kw)
    if reset is not None:  # what the first run wrote, gone before the second
        reset()
    saved = harness._FORK_SERVER
    harness._FORK_SERVER = False  # a fresh interpreter for this run
    try:
        fresh = harness.run(*args, **kw)
    finally:
        harness._FORK_SERVER = saved
    return forked, fresh


@pytest.mark.parametrize(
    "case",
    ["valid", "missing", "stdin", "cwd-relative", "env", "full-storage", "bad-option"],
)
def test_a_forked_run_is_the_same_as_a_fresh_interpreter(case: str, tmp_path) -> None:  # noqa: ANN001
    """The fork server (tests/zygote.py) is only a faster start: exit code, stdout and stderr are the same as
    ``python -m roceconf.cli`` started afresh, for every way a case can be run (stdin, working directory,
    environment, a file-size limit)."""
    lab = str(harness.LAB)
    (tmp_path / "intent.yml").write_bytes(harness.LAB.read_bytes())
    kw: dict = {}
    if case == "valid":
        args: tuple[str, ...] = ("validate", lab)
    elif case == "missing":
        args = ("validate", str(tmp_path / "absent.yml"))
    elif case == "stdin":
        args, kw = ("validate", "-"), {"stdin": harness.LAB.read_bytes()}
    elif case == "cwd-relative":
        args, kw = ("render", "intent.yml", "-o", "out"), {"cwd": tmp_path}
    elif case == "env":
        args, kw = ("validate", lab), {"env": {"ROCECONF_MAX_INPUT_MIB": "0.001"}}
    elif case == "full-storage":
        args, kw = ("render", lab, "-o", str(tmp_path / "full")), {"fsize": 2000}
    else:
        args = ("validate", lab, "--no-such-option")
    import shutil

    forked, fresh = _both(*args, reset=lambda: shutil.rmtree(tmp_path / "out", ignore_errors=True), **kw)
    assert (forked.rc, forked.stdout, forked.stderr) == (fresh.rc, fresh.stdout, fresh.stderr), case
    assert not forked.timed_out and 10 < forked.peak_mib < harness.MEM_LIMIT_MIB
    if case == "cwd-relative":
        assert forked.rc == 0 and (tmp_path / "out").is_dir()


def test_a_forked_run_times_out_and_leaves_no_process() -> None:
    o = harness.run("validate", str(harness.LAB), timeout=0.001)
    assert o.timed_out and o.rc is None
    again = harness.run("validate", str(harness.LAB))  # the server is still there and answers the next case
    assert again.rc == 0


def test_a_run_that_changes_the_interpreter_start_is_not_forked() -> None:
    from tests import zygote

    base = {"PATH": "/bin"}
    assert zygote.needs_exec({"PATH": "/bin", "PYTHONHASHSEED": "1"}, base)
    assert zygote.needs_exec({"PATH": "/bin", "ROCECONF_LOCK_TIMEOUT": "1"}, base)
    assert not zygote.needs_exec({"PATH": "/bin", "ROCECONF_MAX_INPUT_MIB": "1"}, base)
