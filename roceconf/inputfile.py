"""Reading an input file, the one way every command does it: only a regular file, and only up to a size cap
checked before a byte is read. A FIFO would block, ``/dev/zero`` or ``/dev/urandom`` would never end, a
directory or a socket is no file: each is refused with one line naming the file, never read.

The caps (roceconf/limits.py) are far above what a real fabric needs; ``ROCECONF_MAX_INPUT_MIB`` sets the
cap of every input file at once (in MiB) for the rare file that is larger.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: Environment variable that sets the size cap of every input file, in MiB.
CAP_ENV = "ROCECONF_MAX_INPUT_MIB"
_MIB = 1 << 20


class InputFileError(ValueError):
    """An input file that was not read; ``reason`` is one line without the path, ``code`` a rule ID
    (RC019 for a file over its cap, RC000 otherwise)."""

    def __init__(self, path: str | Path, reason: str, code: str = "RC000", line: int = 1):
        self.path = str(path)
        self.line = line
        self.reason = reason
        self.code = code
        super().__init__(f"{path}: {reason}")


def cap_bytes(default: int, path: str | Path = "") -> int:
    """The cap in bytes: ``ROCECONF_MAX_INPUT_MIB`` if set, else ``default``."""
    env = os.environ.get(CAP_ENV, "").strip()
    if not env:
        return default
    try:
        mib = float(env)
    except ValueError:
        mib = -1.0
    if not mib > 0 or mib != mib or mib == float("inf"):
        raise InputFileError(path, f"{CAP_ENV}={env[:40]!r} is not a positive number of MiB")
    return int(mib * _MIB)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path: str | Path, mode: int) -> InputFileError:
    if stat.S_ISDIR(mode):
        return InputFileError(path, "is a directory, not a file")
    return InputFileError(path, f"is {_kind(mode)}, not a regular file (only regular files are read)")


def _too_big(path: str | Path, size: int | str, limit: int) -> InputFileError:
    return InputFileError(
        path,
        f"the file is {size} bytes, over the limit of {limit} bytes ({limit / _MIB:g} MiB); "
        f"set {CAP_ENV} to raise it",
        "RC019",
    )


def check_file(path: str | Path, max_bytes: int) -> None:
    """Raise InputFileError unless ``path`` is a regular file within the cap (for a file another library
    reads, e.g. an Ansible inventory); nothing is opened."""
    limit = cap_bytes(max_bytes, path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except (OSError, ValueError) as e:
        raise InputFileError(path, f"cannot read file: {getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)
    if st.st_size > limit:
        raise _too_big(path, st.st_size, limit)


def read_bytes(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (or ``ROCECONF_MAX_INPUT_MIB``); InputFileError
    otherwise. Never blocks on a FIFO and never reads past the cap (a file growing meanwhile included)."""
    check_file(path, max_bytes)  # refuse a device before opening it: opening some has effects
    limit = cap_bytes(max_bytes, path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except OSError as e:
        raise InputFileError(path, f"cannot read file: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced between the stat and the open
            raise _refuse(path, st.st_mode)
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise _too_big(path, f"more than {limit}", limit)
        return b"".join(chunks)
    except OSError as e:
        raise InputFileError(path, f"cannot read file: {e.strerror or e}") from None
    finally:
        os.close(fd)


def read_text(path: str | Path, max_bytes: int, errors: str = "strict", encoding: str = "utf-8-sig") -> str:
    """A UTF-8 text file (a BOM is accepted unless ``encoding`` is "utf-8") read with :func:`read_bytes`. With ``errors="strict"`` a file
    that is not UTF-8 is an InputFileError naming the line; ``"replace"`` reads it anyway."""
    data = read_bytes(path, max_bytes)
    try:
        return data.decode(encoding, errors)
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputFileError(
            path, f"not UTF-8 text (byte {e.start + 1} cannot be decoded; a binary file?)", line=line
        ) from None


__all__ = ["CAP_ENV", "InputFileError", "cap_bytes", "check_file", "read_bytes", "read_text"]
