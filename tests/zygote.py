"""A fork server for the tests that run the ``roceconf`` CLI as its own process: ``python -m roceconf.cli``, minus
the interpreter's start-up and roceconf's imports, which are paid once per test worker instead of once per run.

The server (``python -m tests.zygote FD``) imports roceconf's modules, then waits on a Unix socket. For each
request it forks a child that becomes what ``python -m roceconf.cli ARGS`` would be: its own session, the
case's address-space / file-size limits, the case's pipes as fds 0-1-2 and no other descriptor, the case's
working directory first on ``sys.path`` and its environment, and ``roceconf.cli`` run as ``__main__`` by
``runpy`` (as ``-m`` does). On exit it runs what the interpreter runs at exit (non-daemon threads joined,
``atexit`` handlers), flushes, and leaves with the code the interpreter would give (``SystemExit`` as Python
reads it; an uncaught exception prints its traceback and gives 1). The server waits for the child with
``wait4`` (its own peak RSS), kills its process group at the deadline, and answers the exit status.

What a forked child cannot be, :func:`needs_exec` names, and the caller then starts a real interpreter: a case
that changes how the interpreter starts (``PYTHON*``, the locale) or a value roceconf reads while importing.
"""

from __future__ import annotations

import array
import atexit
import importlib
import json
import os
import pkgutil
import resource
import signal
import socket
import struct
import sys
import threading
import time
import traceback

# read by the interpreter at start-up, or by roceconf at import time (roceconf.outdir.LOCK_TIMEOUT): a run
# that changes one of these is not a fork of this server's interpreter
IMPORT_TIME_ENV = ("PYTHON", "LC_", "LANG", "ROCECONF_LOCK_TIMEOUT")


def needs_exec(env: dict[str, str], base: dict[str, str]) -> bool:
    """Whether ENV differs from the server's BASE in a variable read before roceconf runs."""
    keys = set(env) | set(base)
    return any(k.startswith(IMPORT_TIME_ENV) and env.get(k) != base.get(k) for k in keys)


def _preload() -> None:
    import roceconf

    for mod in pkgutil.walk_packages(roceconf.__path__, "roceconf."):
        if mod.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(mod.name)
        except Exception:  # noqa: BLE001 - an optional dependency missing: the child imports it (and fails) itself
            sys.modules.pop(mod.name, None)


def _recv(sock: socket.socket) -> tuple[dict, list[int]] | None:
    head = b""
    fds: list[int] = []
    while len(head) < 4:
        msg, anc, _flags, _addr = sock.recvmsg(4 - len(head), socket.CMSG_SPACE(8 * array.array("i").itemsize))
        if not msg:
            return None
        head += msg
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                a = array.array("i")
                a.frombytes(data[: len(data) - (len(data) % a.itemsize)])
                fds.extend(a)
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None
        body += chunk
    return json.loads(body), fds


def _child(req: dict, fds: list[int]) -> None:  # never returns
    code = 1
    try:
        os.setsid()
        cap = req["as_cap"]
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if req.get("fsize") is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (req["fsize"], req["fsize"]))
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        os.closerange(3, 1 << 16)
        if req.get("cwd"):
            os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.path[0] = os.getcwd()  # `python -m` puts the working directory first
        sys.argv = ["roceconf", *req["args"]]
        import runpy

        sys.modules.pop("roceconf.cli", None)  # as `-m` finds it: run as __main__, not imported before
        runpy.run_module("roceconf.cli", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints an uncaught exception
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined] - what the interpreter does at exit
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001,S110 - a closed pipe: the interpreter ignores it too
            pass
    os._exit(code & 0xFF)


def _serve(sock: socket.socket) -> None:
    while True:
        got = _recv(sock)
        if got is None:
            return
        req, fds = got
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(req, fds)
        for fd in fds:
            os.close(fd)
        deadline = time.monotonic() + req["timeout"]
        timed_out = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                done, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.005)
        reply = {"rc": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss, "timed_out": timed_out}
        data = json.dumps(reply).encode()
        sock.sendall(struct.pack("!I", len(data)) + data)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    sock.sendall(b"R")  # ready
    _serve(sock)


if __name__ == "__main__":
    main()
