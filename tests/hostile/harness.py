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
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests import zygote

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


# The runs go through one fork server per test process (tests/zygote.py): the same ``python -m roceconf.cli``
# in its own process, without paying the interpreter's start-up and roceconf's imports on each of the
# suite's hundreds of runs. ROCECONF_TEST_EXEC=1 starts a fresh interpreter for every run instead;
# tests/hostile/test_harness.py holds the two ways to the same outcomes.
_FORK_SERVER: _Server | None | bool = None if os.environ.get("ROCECONF_TEST_EXEC") != "1" else False


class _Server:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
        self.env.pop("ROCECONF_HOSTILE_LOG", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.zygote", str(theirs.fileno())],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # a pipe's buffering for the child's stdout, as a captured run has
            pass_fds=[theirs.fileno()],
        )
        theirs.close()
        self.sock = ours
        if self.sock.recv(1) != b"R":
            raise RuntimeError("the fork server did not start")

    def call(self, req: dict, fds: list[int]) -> dict:
        body = json.dumps(req).encode()
        socket.send_fds(self.sock, [struct.pack("!I", len(body))], fds)
        self.sock.sendall(body)
        head = self._read(4)
        (size,) = struct.unpack("!I", head)
        return json.loads(self._read(size))

    def _read(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise RuntimeError("the fork server went away")
            buf += chunk
        return buf


def _server() -> _Server:
    global _FORK_SERVER
    if not isinstance(_FORK_SERVER, _Server) or _FORK_SERVER.proc.poll() is not None:
        _FORK_SERVER = _Server()
    return _FORK_SERVER


def _server_env() -> dict[str, str]:
    return _server().env


def _collect(outs: dict[str, int]) -> tuple[dict[str, bytes], list[threading.Thread]]:
    chunks: dict[str, bytes] = {}

    def drain(name: str, fd: int) -> None:
        with os.fdopen(fd, "rb") as fh:
            chunks[name] = fh.read()

    readers = [threading.Thread(target=drain, args=(n, fd)) for n, fd in outs.items()]
    for t in readers:
        t.start()
    return chunks, readers


def _feed(fd: int | None, data: bytes | None) -> None:
    if fd is None:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data or b"")
    except BrokenPipeError:
        pass


def _run_forked(args, cwd, env, stdin, timeout, fsize):  # noqa: ANN001,ANN202 - run()'s own arguments
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    if stdin is not None:
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), None
    chunks, readers = _collect({"out": out_r, "err": err_r})
    feeder = threading.Thread(target=_feed, args=(in_w, stdin))
    feeder.start()
    req = {"args": list(args), "cwd": str(cwd) if cwd is not None else None, "env": env, "timeout": timeout,
           "fsize": fsize, "as_cap": _AS_CAP}
    try:
        reply = _server().call(req, [in_r, out_w, err_w])
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    feeder.join()
    for t in readers:
        t.join()
    rc = None if reply["timed_out"] else reply["rc"]
    return rc, chunks.get("out", b""), chunks.get("err", b""), reply["maxrss_kib"], reply["timed_out"]


def _run_exec(args, cwd, env, stdin, timeout, fsize):  # noqa: ANN001,ANN202 - run()'s own arguments
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "roceconf.cli", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit if fsize is None else (lambda: _limit(fsize)),  # noqa: PLW1509 - set in the child
    )
    chunks, readers = _collect({"out": os.dup(proc.stdout.fileno()), "err": os.dup(proc.stderr.fileno())})
    proc.stdout.close()
    proc.stderr.close()
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
    rc = None if timed_out else proc.returncode
    return rc, chunks.get("out", b""), chunks.get("err", b""), usage.ru_maxrss, timed_out


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
    if _FORK_SERVER is not False and not zygote.needs_exec(full_env, _server_env()):
        rc, out, err, maxrss_kib, timed_out = _run_forked(args, cwd, full_env, stdin, timeout, fsize)
    else:
        rc, out, err, maxrss_kib, timed_out = _run_exec(args, cwd, full_env, stdin, timeout, fsize)
    seconds = time.monotonic() - start
    outcome = Outcome(
        args=tuple(args),
        rc=None if timed_out else rc,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        seconds=seconds,
        peak_mib=maxrss_kib / 1024.0,  # this child's own peak (Linux: KiB)
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
