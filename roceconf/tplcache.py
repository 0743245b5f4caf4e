"""A per-user cache of compiled templates (Jinja2 bytecode), so a command does not compile every platform's
template again on each start (~20 ms per template, ~0.15 s for a mixed fabric: a sixth of `validate`).

Where: ``ROCECONF_CACHE_DIR`` if set (empty: no cache), else ``$XDG_CACHE_HOME/roceconf`` or
``~/.cache/roceconf``, in ``templates/``. The cache is only an optimisation: a directory that cannot be
created, is not the user's own, or is writable by others, or a write that fails (read-only home, full disk)
means templates are compiled as before, never an error.

An entry is used only for the same template source (Jinja2 checks a SHA-1 of the source), the same Jinja2
and Python bytecode version, and the same environment options (``salt``, part of the key: the compiled code
depends on them).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, FileSystemBytecodeCache


def cache_dir() -> Path | None:
    env = os.environ.get("ROCECONF_CACHE_DIR")
    if env is not None:
        return Path(env) / "templates" if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # no home directory to expand
        return None
    return Path(base) / "roceconf" / "templates"


class _Cache(FileSystemBytecodeCache):
    def __init__(self, directory: str, salt: str):
        super().__init__(directory, "%s.jinja")
        self.salt = salt

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha1(f"{self.salt}|{name}|{filename}".encode()).hexdigest()

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged entry: compile again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:  # read-only or full: the cache is an optimisation only
            pass


def _private_dir(path: Path) -> bool:
    """`path` exists or was created, is a directory of this user, and nobody else can write to it."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def bytecode_cache(options: str) -> jinja2.BytecodeCache | None:
    """The cache for an environment with these options (a string naming every option that changes the
    compiled code), or None when there is no usable cache directory."""
    d = cache_dir()
    if d is None or not _private_dir(d):
        return None
    return _Cache(str(d), f"{jinja2.__version__}|{options}")
