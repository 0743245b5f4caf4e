"""Output directories: file names that cannot leave their directory, and render sets written as one
transaction (see docs/architecture.md, "Render directories").

A render set is committed like a database transaction:

1. lock: ``flock`` on the directory itself (exclusive for a writer, shared for a reader), so renders
   into one directory serialise and a reader never runs while a set is half applied;
2. stage: every file whose content changes is written into ``DIR/.roceconf-staging/`` (unchanged files
   are not touched), then one ``syncfs`` makes them durable (one call, not one fsync per file);
3. commit: a journal naming the files to replace and remove and the new manifest is written and renamed
   into place in the staging directory - the commit point;
4. apply: each staged file is renamed over its target, stale files are removed, the manifest
   ``DIR/.roceconf-manifest.json`` (file name -> sha256) replaces the old one, the directory is fsynced and
   the staging directory removed.

A run killed before the commit point leaves the previous set untouched (the staging directory is removed
by the next writer or reader); a run killed after it is rolled forward by the next writer or reader
before it looks at the files. A full disk fails during staging: the previous set stays, the error says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from roceconf import jsontext

STAGING = ".roceconf-staging"
MANIFEST = ".roceconf-manifest.json"
_JOURNAL = "journal.json"
_FORMAT = "roceconf-render/1"
#: temp files of the per-file writer of roceconf <= 0.1 (".leaf04.cfg.abcd1234.tmp"): leftovers of a killed
#: run, removed by the next writer.
_OLD_TMP = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")
#: Seconds a writer or reader waits for another render into the same directory.
LOCK_TIMEOUT = float(os.environ.get("ROCECONF_LOCK_TIMEOUT", "300"))


class OutputError(OSError):
    """A render set could not be written; ``strerror`` is a one-line message for the user."""

    def __init__(self, directory: str | Path, message: str, err: int = errno.EIO):
        super().__init__(err, message, str(directory))


def _bad_name(name: str) -> bool:
    """A name that is not one plain entry of its directory (empty, hidden, '.', '..', a separator, NUL)."""
    return not name or name[0] == "." or "/" in name or "\\" in name or "\0" in name


def _name_only(directory: Path, name: str) -> Path:
    """DIR/name for a rename or unlink *of the entry itself*: rename(2) replaces a symbolic link at the
    target rather than following it, so only the name needs checking (names from a journal on disk)."""
    if _bad_name(name):
        raise OutputError(
            directory, f"refusing to write {name[:60]!r}: the file would leave the directory", errno.EPERM
        )
    return directory / name


def contained(directory: str | Path, name: str, root: Path | None = None) -> Path:
    """DIR/name, refusing a name that could leave DIR: checked by characters and on the resolved path
    (``root``: DIR already resolved)."""
    d = Path(directory)
    if _bad_name(name):
        bad = True
    else:
        # `name` has no separator and `root` is resolved, so DIR/name resolves elsewhere only when it is a
        # symbolic link: one lstat per name (not a realpath walk over every component of DIR)
        root = root or d.resolve()
        target = os.path.join(root, name)
        try:
            link = stat.S_ISLNK(os.lstat(target).st_mode)
        except OSError:
            link = False
        bad = link and os.path.dirname(os.path.realpath(target)) != str(root)
    if bad:
        raise OutputError(d, f"refusing to write {name[:60]!r}: the file would leave the directory", errno.EPERM)
    return d / name


# --------------------------------------------------------------------------- locking
@contextlib.contextmanager
def _locked(d: Path, exclusive: bool) -> Iterator[int]:
    fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OutputError(
                        d, f"another roceconf render is writing this directory (waited {LOCK_TIMEOUT:.0f} s)"
                    ) from None
                time.sleep(0.02)
        yield fd
    finally:
        os.close(fd)  # closing releases the lock


@contextlib.contextmanager
def reading(directory: str | Path) -> Iterator[None]:
    """Hold a shared lock on a render directory while reading it (no render is applied meanwhile); an
    interrupted, committed render is finished first. A missing directory is read as it is."""
    d = Path(directory)
    if not d.is_dir():
        yield
        return
    if (d / STAGING).exists() and os.access(d, os.W_OK):
        with _locked(d, exclusive=True):
            recover(d)
    with _locked(d, exclusive=False):
        yield


# --------------------------------------------------------------------------- manifest and journal
def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_manifest(directory: str | Path) -> dict[str, str]:
    """File name -> sha256 of the last render set written into DIR ({} when there is none)."""
    try:
        data = jsontext.loads((Path(directory) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def _manifest_text(files: dict[str, str]) -> str:
    return json.dumps({"format": _FORMAT, "files": dict(sorted(files.items()))}, indent=1) + "\n"


def recover(d: Path) -> None:
    """Finish a committed render (roll forward) or discard an uncommitted one. Caller holds the lock."""
    staging = d / STAGING
    if staging.is_dir():
        try:
            journal = jsontext.loads((staging / _JOURNAL).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            journal = None
        if isinstance(journal, dict):
            _apply(d, journal)
        shutil.rmtree(staging, ignore_errors=True)
    for p in d.iterdir() if d.is_dir() else ():
        if _OLD_TMP.match(p.name) and p.is_file():
            p.unlink(missing_ok=True)


def _apply(d: Path, journal: dict) -> None:
    staging = d / STAGING
    for name in journal.get("replace", []):
        src = staging / name
        target = _name_only(d, name)
        try:
            os.replace(src, target)
        except FileNotFoundError:  # already moved when a previous apply was interrupted
            if src.exists():
                raise
    for name in journal.get("remove", []):
        _name_only(d, name).unlink(missing_ok=True)
    src = staging / MANIFEST
    if src.exists():
        os.replace(src, d / MANIFEST)
    _fsync_dir(d)


# --------------------------------------------------------------------------- durability
_syncfs = None


def _sync_filesystem(fd: int) -> None:
    """Flush every written file of the file system holding ``fd``: one syncfs(2) call on Linux."""
    global _syncfs
    if _syncfs is None:
        try:
            _syncfs = ctypes.CDLL(None, use_errno=True).syncfs
        except (OSError, AttributeError):
            _syncfs = False
    if _syncfs and _syncfs(fd) == 0:
        return
    os.sync()


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- writing a set
@dataclass
class WriteResult:
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def write_set(
    files: dict[str, str],
    directory: str | Path,
    *,
    complete: bool = True,
    extra_stale: tuple[str, ...] = (),
) -> WriteResult:
    """Write a render set into DIR as one transaction (module docstring). Files whose content is already
    on disk are not rewritten. With ``complete`` (every device rendered) the files of the previous set
    that are not in this one are removed, and so are ``extra_stale`` names. Raises OutputError."""
    d = Path(directory)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(d, f"cannot create the directory: {e.strerror}", e.errno or errno.EIO) from None
    root = d.resolve()
    for n in files:
        if _bad_name(n):
            contained(d, n, root)  # raises
    with _locked(d, exclusive=True):
        recover(d)
        old = read_manifest(d)
        res = WriteResult()
        data = {n: t.encode("utf-8") for n, t in files.items()}
        present = set(os.listdir(d))  # one listing: a name not in it is neither a link nor to be read
        for n in files:
            same = False
            if n in present:
                p = contained(d, n, root)  # an existing entry may be a link out of DIR
                try:
                    same = p.read_bytes() == data[n]
                except OSError:
                    same = False
            if not same:
                res.changed.append(n)
        manifest = {} if complete else dict(old)
        manifest.update({n: _sha(b) for n, b in data.items()})
        if complete:
            gone = [n for n in old if n not in files] + [n for n in extra_stale if n not in files]
            res.removed = sorted({n for n in gone if (d / n).is_file()})
            for n in res.removed:
                contained(d, n, root)
        if not res.changed and not res.removed and manifest == old:
            return res
        _transaction(d, {n: data[n] for n in res.changed}, res.removed, manifest, len(old) or len(files))
        return res


def _transaction(d: Path, changed: dict[str, bytes], removed: list[str], manifest: dict, n_old: int) -> None:
    staging = d / STAGING
    try:
        staging.mkdir()
        sdir = str(staging)
        for n, b in changed.items():
            with open(os.path.join(sdir, n), "xb") as fh:
                fh.write(b)
        (staging / MANIFEST).write_text(_manifest_text(manifest), encoding="utf-8")
        journal = {"replace": sorted(changed), "remove": removed}
        tmp = staging / (_JOURNAL + ".tmp")
        tmp.write_text(json.dumps(journal), encoding="utf-8")
        fd = os.open(staging, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            _sync_filesystem(fd)
            os.replace(tmp, staging / _JOURNAL)  # the commit point
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        shutil.rmtree(staging, ignore_errors=True)
        kept = "the previous files are unchanged" if n_old else "nothing was written"
        raise OutputError(d, f"{e.strerror or e}; {kept}", e.errno or errno.EIO) from None
    try:
        _apply(d, journal)
    except OSError as e:
        raise OutputError(
            d, f"render committed but not finished ({e.strerror}); run it again to finish", e.errno or errno.EIO
        ) from None
    shutil.rmtree(staging, ignore_errors=True)


def _umask() -> int:
    """The process umask, read without changing it (Linux ``/proc``), else set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: the caller's own open streams, named through a link: the only links written through
_STREAM = re.compile(r"^/(?:dev/(?:stdout|stderr|fd/\d+)|proc/self/fd/\d+)$")


def _special(p: Path) -> os.stat_result | None:
    """What ``p`` is when it exists and is neither a regular file nor a symbolic link, else None. A link is
    not followed (a link planted in an output directory never leads the write elsewhere), except the
    caller's own streams (``/dev/stdout``, ``/dev/fd/N``: ``--output >(cmd)``)."""
    try:
        st = os.stat(p) if _STREAM.match(str(p)) else os.lstat(p)
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode) else st


def writes_through(directory: str | Path, name: str) -> bool:
    """DIR/name is a FIFO or a character device (itself, not through a link; the caller's own streams
    excepted), which :func:`write_file` writes into."""
    if _bad_name(name):
        return False
    st = _special(Path(directory) / name)
    return st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode))


def _write_through(p: Path, text: str, st: os.stat_result) -> None:
    """Write into a FIFO or a character device (``/dev/stdout``, ``/dev/null``, ``>(cmd)``) without
    replacing it: opened for writing only, never created, truncated or renamed over."""
    fifo = stat.S_ISFIFO(st.st_mode)
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        # a FIFO nobody reads would block the open forever: non-blocking, it fails with ENXIO instead
        fd = os.open(p, flags | (os.O_NONBLOCK if fifo else 0))
    except OSError as e:
        why = "no process reads the FIFO" if e.errno == errno.ENXIO else (e.strerror or str(e))
        raise OutputError(p, f"cannot write: {why}", e.errno or errno.EIO) from None
    try:
        now = os.fstat(fd)
        if not (stat.S_ISFIFO(now.st_mode) or stat.S_ISCHR(now.st_mode)):
            raise OutputError(p, "cannot write: the file changed while it was opened", errno.EPERM)
        if fifo:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        data = text.encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as e:
        if isinstance(e, OutputError):
            raise
        raise OutputError(p, f"cannot write: {e.strerror or e}", e.errno or errno.EIO) from None
    finally:
        os.close(fd)


def write_file(path: str | Path, text: str, private: bool = False) -> None:
    """Write one file atomically (temp file + fsync + rename), e.g. a report. A FIFO or a character device
    (``/dev/null``, ``/dev/stdout``) is written into, never replaced; a directory, socket or block device
    is refused, and so is a link that leads out of the file's directory (:func:`contained`). A report honours
    the umask (0644 under umask 022, so a metrics collector running as another user can read it); ``private``
    files (device configs and raw device outputs) stay 0600."""
    p = Path(path)
    d = p.parent if str(p.parent) else Path(".")
    st = _special(p)
    if st is not None:
        if stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode):
            _write_through(p, text, st)
            return
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise OutputError(p, f"refusing to replace it: it is {what}", errno.EPERM)
    if _STREAM.match(str(p)):  # a stream redirected to a file: never rename over /dev/stdout
        raise OutputError(p, "refusing to replace a stream link; write to standard output with '-'", errno.EPERM)
    target = contained(d, p.name)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".roceconf-tmp", dir=d)
        if not private:
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise OutputError(p, f"cannot write: {e.strerror or e}", e.errno or errno.EIO) from None
    finally:
        if tmp:
            Path(tmp).unlink(missing_ok=True)


def write_outputs(files: dict[str, str], out_dir: str | Path, private: bool = False) -> list[str]:
    """Write single files atomically (temp file + rename each), e.g. a report or a saved running config;
    a FIFO or character device is written into (:func:`write_file`).
    ``private``: device data (saved configs, counters): files 0600 in a 0700 directory (made so if the user's).
    Returns the names whose content changed."""
    d = Path(out_dir)
    d.mkdir(mode=0o700 if private else 0o777, parents=True, exist_ok=True)
    if private:
        st = d.stat()
        if st.st_uid == os.getuid() and st.st_mode & 0o077:
            d.chmod(0o700)
    changed = []
    for name, text in files.items():
        if writes_through(d, name):  # e.g. --output /dev/stdout: nothing to compare or replace
            write_file(d / name, text)
            changed.append(name)
            continue
        p = contained(d, name)
        data = text.encode("utf-8")
        try:
            # only a regular file of the same size is read back to compare (never a FIFO or /dev/zero)
            st = os.stat(p)
            if stat.S_ISREG(st.st_mode) and st.st_size == len(data) and p.read_bytes() == data:
                continue
        except OSError:
            pass
        write_file(p, text, private=private)
        changed.append(name)
    return changed
