"""Every benchmark's correctness check runs in CI, so a benchmark cannot rot.

Each bench/bench_*.py has a `--quick` mode: its own correctness check (the one `make bench` judges) on a small
input, without its time targets. This runs every one of them as `make bench` does, a fresh process each, and
asserts that it exits 0 and reached its correctness line. Benchmarks are not timed here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHES = sorted((ROOT / "bench").glob("bench_*.py"))

# the quick benchmarks start loopback labs, ansible-playbook and a browser: one after the other, on one worker
pytestmark = pytest.mark.xdist_group("bench-quick")


def test_every_benchmark_is_here() -> None:
    assert len(BENCHES) >= 11, [b.name for b in BENCHES]
    for bench in BENCHES:
        assert '"--quick"' in bench.read_text(encoding="utf-8"), f"{bench.name} has no --quick mode"


@pytest.mark.parametrize("bench", BENCHES, ids=lambda p: p.stem)
def test_the_quick_benchmark_is_correct(bench: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, str(bench), "--quick"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a hung benchmark is ended with the lab or browser it started
    )
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{bench.name} --quick did not finish in 600 s:\n{out[-2000:]}\n{err[-2000:]}")
    assert proc.returncode == 0, f"{bench.name} --quick exited {proc.returncode}:\n{out[-3000:]}\n{err[-3000:]}"
    assert "correct: yes" in out.splitlines()[-1], out[-2000:]
