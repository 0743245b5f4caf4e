"""One harness for the hostile-input suite: run the real ``roceconf`` executable on one hostile case, bounded.

Every case runs in its own process under a wall-clock timeout and an address-space limit, its peak RSS read
from ``wait4`` (the child's own, not the test process's). :func:`check` then holds the suite's promises for
that case: no traceback, within time and memory, exit 2 with one clear error line for bad input, nothing
written outside the places the case allows, no marker of code execution, no secret in any output.

Set ``ROCECONF_HOSTILE_LOG=FILE`` to append one JSON line per case (command, exit, seconds, peak MiB); the
closing figures of a run (case count, slowest case, largest RSS) are summed from that file.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "intent.yml"

TIMEOUT_S = 20.0
MEM_LIMIT_MIB = 1024
# the address-space cap only stops a runaway before it takes the machine; the verdict is the peak RSS
_AS_CAP = 4 * 1024 * 1024 * 1024


@dataclass
class Outcome:
    args: tuple[str, ...]
    rc: int | None
    stdout: str
    stderr: str
    seconds: float
    peak_mib: float
    timed_out: bool
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _limit(fsize: int | None = None) -> None:  # runs in the child before exec
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (_AS_CAP, _AS_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if fsize is not None:  # storage that is full for this process: a write past FSIZE bytes fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))


def run(
    *args: str,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float = TIMEOUT_S,
    fsize: int | None = None,
) -> Outcome:
    """Run ``python -m roceconf.cli ARGS`` as a user would, bounded in time and memory (``fsize``: the
    largest file the run may write, bytes, to act out full storage)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    full_env.pop("ROCECONF_HOSTILE_LOG", None)
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "roceconf.cli", *args],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit if fsize is None else (lambda: _limit(fsize)),  # noqa: PLW1509 - set in the child
    )
    chunks: dict[str, bytes] = {}

    def drain(name: str, pipe) -> None:  # noqa: ANN001 - a pipe of Popen
        chunks[name] = pipe.read()

    readers = [threading.Thread(target=drain, args=(n, p)) for n, p in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    if stdin is not None:
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except BrokenPipeError:
            pass
    timed_out = False
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join()
    seconds = time.monotonic() - start
    out, err = chunks.get("out", b""), chunks.get("err", b"")
    outcome = Outcome(
        args=tuple(args),
        rc=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        seconds=seconds,
        peak_mib=usage.ru_maxrss / 1024.0,  # this child's own peak (Linux: KiB)
        timed_out=timed_out,
    )
    log = os.environ.get("ROCECONF_HOSTILE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(
                json.dumps(
                    {"args": list(args)[:3], "rc": outcome.rc, "seconds": round(seconds, 3),
                     "peak_mib": round(outcome.peak_mib, 1), "timed_out": timed_out}
                )
                + "\n"
            )
    return outcome


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ROOT with (mode, size): what a case may not change outside its allowed places."""
    snap: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            try:
                st = p.lstat()
            except FileNotFoundError:
                continue
            snap[str(p.relative_to(root))] = (st.st_mode, st.st_size)
    return snap


def check(
    o: Outcome,
    *,
    bad_input: bool = True,
    names: tuple[str, ...] = (),
    secrets: tuple[str, ...] = (),
    rc: int | None = None,
) -> None:
    """The suite's promises for one case.

    ``bad_input``: the case is invalid input, so exit 2 and one clear error line (naming each of ``names``).
    ``rc``: the exact exit wanted instead (for cases that are valid but hostile).
    ``secrets``: strings that must appear in no output.
    """
    what = "roceconf " + " ".join(o.args)
    assert not o.timed_out, f"{what}: still running after {TIMEOUT_S:.0f} s"
    assert "Traceback (most recent call last)" not in o.output, f"{what}: traceback\n{o.output[-2000:]}"
    assert o.peak_mib < MEM_LIMIT_MIB, f"{what}: peak RSS {o.peak_mib:.0f} MiB"
    for s in secrets:
        assert s not in o.output, f"{what}: a secret reached the output"
    if rc is not None:
        assert o.rc == rc, f"{what}: exit {o.rc}, want {rc}\n{o.output[-2000:]}"
    elif bad_input:
        assert o.rc == 2, f"{what}: exit {o.rc}, want 2\n{o.output[-2000:]}"
    if bad_input and rc in (None, 2):
        # a linter-style command (validate, check) prints its diagnostics on stdout, the others on stderr
        lines = [ln for ln in o.output.splitlines() if ln.strip()]
        assert lines, f"{what}: exit 2 without a word"
        assert len(lines) <= 5, f"{what}: a bad input takes one clear line, got {len(lines)}:\n{o.output}"
        for n in names:
            assert n in o.output, f"{what}: the error does not name {n!r}:\n{o.output}"
