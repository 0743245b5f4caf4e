"""Logging for the command line: ``-v``/``--debug`` on stderr and ``--session-log DIR``, secrets scrubbed.

The library logs through ``logging.getLogger("roceconf...")``: per device, what was connected to, every
command sent and how long it took, each attempt and its outcome (:func:`timed`). ``-v`` shows that on stderr,
``-vv`` adds roceconf's debug messages, ``--debug`` also the client libraries' (netmiko, napalm, paramiko).
``--session-log DIR`` writes all of it for one run into ``DIR/roceconf-<UTC time>-<command>-<pid>.log`` with
the command line, the version and the exit code.

Every handler installed here scrubs secrets: each password registered with :func:`add_secret` (collection
registers every credential it uses, and ``ROCECONF_PASSWORD`` is registered at start) and anything that looks
like ``password=...`` / ``"password": "..."``, and the device secrets of every platform's config grammar
(`roceconf.redact`). The log file is 0600 in a 0700 directory.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from roceconf.redact import redact

log = logging.getLogger("roceconf")

#: client libraries whose own logs --debug adds
LIBRARIES = ("netmiko", "napalm", "paramiko", "pyeapi", "ncclient", "asyncssh", "urllib3")
MASK = "********"
_SECRET_KEYS = re.compile(
    r"""(?ix)
    (?P<key>["']?(?:password|passwd|secret|token|ansible_password|ansible_ssh_pass|api[_-]?key)["']?
       \s*[:=]\s*)
    (?P<q>["']?)(?P<value>[^"'\s,;}]+)(?P=q)
    """
)
_SECRET_OPTIONS = re.compile(r"(?i)^--?(password|passwd|secret|token)(=.*)?$")

_lock = threading.Lock()
_secrets: set[str] = set()


def add_secret(value: object) -> None:
    """Never let ``value`` reach a log line (passwords, tokens). Short values (< 4 chars) too."""
    if value is None:
        return
    s = str(value)
    if s:
        with _lock:
            _secrets.add(s)


def scrub(text: str) -> str:
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for s in secrets:
        text = text.replace(s, MASK)
    text = _SECRET_KEYS.sub(lambda m: f"{m.group('key')}{m.group('q')}{MASK}{m.group('q')}", text)
    return redact(text)  # device secrets in configs and API replies (every platform's grammar)


class ScrubFilter(logging.Filter):
    """Formats the record once, scrubs it, and hands the scrubbed text on (args dropped)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001 - a library's malformed log call must not break the run
            msg = str(record.msg)
        record.msg = scrub(msg)
        record.args = None
        if record.exc_info:
            import traceback

            record.exc_text = scrub("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def scrub_argv(argv: Sequence[str]) -> list[str]:
    """The command line with the values of password-like options masked."""
    out: list[str] = []
    hide = False
    for a in argv:
        if hide:
            out.append(MASK)
            hide = False
            continue
        m = _SECRET_OPTIONS.match(a)
        if m:
            if m.group(2):
                out.append(a.split("=", 1)[0] + "=" + MASK)
            else:
                out.append(a)
                hide = True
            continue
        out.append(scrub(a))
    return out


_FORMAT = "%(asctime)s.%(msecs)03d %(levelname)-7s %(threadName)s %(name)s: %(message)s"


def _handler(h: logging.Handler, level: int) -> logging.Handler:
    h.setLevel(level)
    h.addFilter(ScrubFilter())
    fmt = logging.Formatter(_FORMAT, "%Y-%m-%dT%H:%M:%S")
    fmt.converter = time.gmtime
    h.setFormatter(fmt)
    return h


class _LogFile(logging.FileHandler):
    """The session log file: a write that fails (full or read-only storage) is remembered, in one line, and
    the file is left alone from then on; never a traceback on stderr."""

    failed: str | None = None

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        e = sys.exc_info()[1]
        if isinstance(e, OSError) and self.failed is None:
            self.failed = f"{self.baseFilename}: {e.strerror or e}"
            return
        if not isinstance(e, OSError):
            super().handleError(record)

    def emit(self, record: logging.LogRecord) -> None:
        if self.failed is None:
            super().emit(record)

    def close(self) -> None:
        try:
            super().close()
        except OSError as e:
            self.failed = self.failed or f"{self.baseFilename}: {e.strerror or e}"
            self.stream = None  # type: ignore[assignment]


class Session:
    """The logging of one command-line run (see the module docstring)."""

    def __init__(self) -> None:
        self.handlers: list[logging.Handler] = []
        self.levels: dict[str, int] = {}  # logger levels to restore at the end
        self.path: Path | None = None
        self.t0 = time.monotonic()

    def start(
        self, verbose: int = 0, debug: bool = False, log_dir: str | Path | None = None, command: str = "run"
    ) -> Session:
        add_secret(os.environ.get("ROCECONF_PASSWORD"))
        level = logging.DEBUG if (debug or verbose >= 2) else logging.INFO if verbose else None
        if level is not None:
            self.handlers.append(_handler(logging.StreamHandler(sys.stderr), level))
        if log_dir is not None:
            d = Path(log_dir)
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = d.stat()
            if st.st_uid == os.getuid() and st.st_mode & 0o077:
                d.chmod(0o700)
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            self.path = d / f"roceconf-{stamp}-{command}-{os.getpid()}.log"
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            self.handlers.append(_handler(_LogFile(self.path, encoding="utf-8"), logging.DEBUG))
        if not self.handlers:
            return self
        for name in ("roceconf", *(LIBRARIES if debug else ())):
            lg = logging.getLogger(name)
            self.levels[name] = lg.level
            lg.setLevel(logging.DEBUG)
            for h in self.handlers:
                lg.addHandler(h)
        return self

    def header(self, argv: Sequence[str], version: str) -> None:
        if not log.isEnabledFor(logging.INFO):  # what log.info does first; the scrub would import netutils
            return
        log.info("roceconf %s: %s", version, " ".join(scrub_argv(argv)))
        log.debug("python %s, cwd %s", sys.version.split()[0], os.getcwd())

    def finish(self, exit_code: int | str | None) -> str | None:
        """Close the log; the reason it could not be written in full (``FILE: reason``), else None."""
        if not self.handlers:
            return None
        log.info("exit %s after %.3f s", exit_code, time.monotonic() - self.t0)
        for name, level in self.levels.items():
            lg = logging.getLogger(name)
            lg.setLevel(level)
            for h in self.handlers:
                lg.removeHandler(h)
        failed = None
        for h in self.handlers:
            h.close()
            failed = failed or getattr(h, "failed", None)
        self.handlers = []
        self.levels = {}
        return failed


@contextmanager
def timed(device: str, what: str, logger: logging.Logger | None = None) -> Iterator[None]:
    """Log ``device: what`` with its duration, or that it failed (and how) after how long."""
    lg = logger or log
    t0 = time.monotonic()
    try:
        yield
    except BaseException as e:
        lg.info("%s: %s failed after %.3f s: %s", device, what, time.monotonic() - t0, type(e).__name__)
        raise
    lg.info("%s: %s (%.3f s)", device, what, time.monotonic() - t0)


__all__ = ["LIBRARIES", "Session", "ScrubFilter", "add_secret", "scrub", "scrub_argv", "timed"]
