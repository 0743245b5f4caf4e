"""A per-user cache of compiled templates (Jinja2 bytecode), so a command does not compile every platform's
template again on each start (~20 ms per template, ~0.15 s for a mixed fabric: a sixth of `validate`).

Where: ``ROCECONF_CACHE_DIR`` if set (empty: no cache), else ``$XDG_CACHE_HOME/roceconf`` (an absolute
``XDG_CACHE_HOME`` only: a relative one is ignored, as the XDG base directory specification says) or
``~/.cache/roceconf``, in ``templates/``. The cache is only an optimisation: a directory that cannot be
created, is not the user's own, or is writable by others, or a write that fails (read-only home, full disk)
means templates are compiled as before, never an error.

Compiled code is code: an entry planted in the cache (a repository checked out as ``HOME``, a copied home)
must never run. Every entry is therefore authenticated: HMAC-SHA256 over the entry's name and bytes, keyed by
a random per-user key (``templates/key``, 0600, created by roceconf). The key that signs is derived from that
file's bytes *and* its identity on this machine (device, inode, change time, owner), so a key file planted
together with entries signed by it does not verify either: whoever planted it cannot know the identity the
file gets here. An entry that does not verify, is not a regular file of this user, or is damaged is ignored
and compiled again: the cache never changes a rendered byte.

An entry is used only for the same template source (Jinja2 checks a SHA-1 of the source), the same Jinja2
and Python bytecode version, and the same environment options (``salt``, part of the key: the compiled code
depends on them).
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket

_ENTRY = "%s.jinja"
_KEY = "key"
_KEY_BYTES = 32
_MAGIC = b"roceconf-tpl/1\n"
#: an entry larger than this is damaged (the largest compiled template is ~100 KiB)
_MAX_ENTRY = 8 << 20
_RDFLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def cache_dir() -> Path | None:
    env = os.environ.get("ROCECONF_CACHE_DIR")
    if env is not None:
        return Path(env) / "templates" if env else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = xdg
    else:  # unset, empty or relative (ignored): the default
        home = os.path.expanduser("~")
        if not os.path.isabs(home):  # no home directory, or a relative HOME
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "roceconf" / "templates"


def _own(st: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _private_dir(path: Path) -> bool:
    """`path` exists or was created, is a directory of this user that nobody else can write to, in a
    directory of this user that nobody else can write to (so nobody else can swap it)."""
    for d in (path.parent, path):  # the parent first: nothing is created in a directory others can write
        try:
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.lstat(d)
        except OSError:
            return False
        if not stat.S_ISDIR(st.st_mode) or not _own(st) or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


def _read_own(path: Path, limit: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes of a regular file of this user that is no link (None otherwise), at most ``limit``."""
    try:
        fd = os.open(path, _RDFLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _own(st) or st.st_size > limit:
            return None
        data = os.read(fd, limit + 1)
        return (data, st) if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _signing_key(directory: Path) -> bytes | None:
    """The key entries are signed with: the key file's bytes bound to its identity here (module
    docstring). The key file is created when missing; None when no key can be had."""
    path = directory / _KEY
    for _ in range(2):
        got = _read_own(path, _KEY_BYTES)
        if got is not None:
            data, st = got
            if len(data) != _KEY_BYTES or st.st_mode & 0o077 or st.st_nlink != 1:
                return None
            ident = f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}:{st.st_uid}".encode()
            return hmac.new(data, ident, hashlib.sha256).digest()
        if os.path.lexists(path) or not _create_key(directory, path):
            return None
    return None


def _create_key(directory: Path, path: Path) -> bool:
    """Write a new random key: complete before it appears under its name (link), never over another."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".key.", dir=directory)  # 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(_KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, path)
        return True
    except OSError as e:
        return e.errno == errno.EEXIST  # another process made it meanwhile: read theirs
    finally:
        _discard(tmp)


def _discard(tmp: str | None) -> None:
    """Remove a temporary file that was not put in place (if any; if it is still there)."""
    if tmp:
        try:
            os.unlink(tmp)
        except OSError:
            pass


class _Cache(jinja2.BytecodeCache):
    def __init__(self, directory: Path, salt: str, key: bytes):
        self.directory = directory
        self.salt = salt
        self._key = key

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha1(f"{self.salt}|{name}|{filename}".encode()).hexdigest()

    def _tag(self, name: str, payload: bytes) -> bytes:
        return hmac.new(self._key, name.encode() + b"\0" + payload, hashlib.sha256).digest()

    def load_bytecode(self, bucket: Bucket) -> None:
        name = _ENTRY % bucket.key
        got = _read_own(self.directory / name, _MAX_ENTRY)
        if got is None:
            return
        data = got[0]
        head = len(_MAGIC) + 32
        if len(data) <= head or not data.startswith(_MAGIC):
            return
        tag, payload = data[len(_MAGIC) : head], data[head:]
        if not hmac.compare_digest(tag, self._tag(name, payload)):
            return  # not written by roceconf with this user's key here: never loaded
        try:
            bucket.bytecode_from_string(payload)
        except Exception:  # noqa: BLE001 - a damaged entry (written by roceconf, then truncated): compile again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        name = _ENTRY % bucket.key
        tmp = None
        try:
            payload = bucket.bytecode_to_string()
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=self.directory)  # 0600
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC + self._tag(name, payload) + payload)
            os.replace(tmp, self.directory / name)
            tmp = None
        except OSError:  # read-only or full: the cache is an optimisation only
            pass
        finally:
            _discard(tmp)


def bytecode_cache(options: str) -> jinja2.BytecodeCache | None:
    """The cache for an environment with these options (a string naming every option that changes the
    compiled code), or None when there is no usable cache directory."""
    d = cache_dir()
    if d is None or not _private_dir(d):
        return None
    key = _signing_key(d)
    if key is None:
        return None
    return _Cache(d, f"{jinja2.__version__}|{options}", key)
