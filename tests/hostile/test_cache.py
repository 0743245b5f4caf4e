"""Hostile compiled-template caches (roceconf/tplcache.py): a planted, poisoned, forged, corrupt or truncated
cache entry never runs code and never changes a rendered byte, for every command that renders; a cache
directory a repository can plant (a relative XDG_CACHE_HOME, HOME set to the checkout) or that others can
write is not read."""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from jinja2.bccache import bc_magic

from tests.hostile.harness import LAB, ROOT, check, run, tree_snapshot

GOLDEN = ROOT / "tests" / "golden"


class _Payload:
    """Unpickling this creates the marker file: proof that planted code ran."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (open, (self.marker, "w"))


def _entries() -> Iterator[tuple[str, str, str, str]]:
    """(entry file name, template name, template source, Jinja2 checksum) of every template a render of
    any platform compiles, as the cache names them."""
    from roceconf import platforms, render

    saved = os.environ.get("ROCECONF_CACHE_DIR")
    scratch = Path(tempfile.mkdtemp(prefix="roceconf-cache-names-"))
    os.environ["ROCECONF_CACHE_DIR"] = str(scratch)
    render.environment.cache_clear()
    try:
        for plat in platforms.NAMES:
            env = render.environment(plat)
            cache = env.bytecode_cache
            assert cache is not None
            for name in env.list_templates():
                source, filename, _ = env.loader.get_source(env, name)
                key = cache.get_cache_key(name, filename)
                yield f"{key}.jinja", name, source, cache.get_source_checksum(source)
    finally:
        render.environment.cache_clear()
        if saved is None:
            os.environ.pop("ROCECONF_CACHE_DIR", None)
        else:
            os.environ["ROCECONF_CACHE_DIR"] = saved
        shutil.rmtree(scratch, ignore_errors=True)


def _poison_code(checksum: str, name: str) -> bytes:
    """A Jinja2 bytecode entry for a template's real source (the checksum matches) whose code renders
    attacker text instead."""
    env = jinja2.Environment()
    code = env.compile("POISONED {{ 6 * 7 }}\n", name, name)
    return bc_magic + pickle.dumps(checksum, 2) + marshal.dumps(code)


def _payload(marker: Path) -> bytes:
    return bc_magic + pickle.dumps(_Payload(str(marker)), 2) + marshal.dumps(compile("0", "x", "eval"))


def _forged(key: bytes, name: str, payload: bytes) -> bytes:
    """An entry signed the way roceconf signs, with the raw bytes of a key file the attacker planted."""
    tag = hmac.new(key, name.encode() + b"\0" + payload, hashlib.sha256).digest()
    return b"roceconf-tpl/1\n" + tag + payload


def plant(templates: Path, marker: Path, kind: str) -> None:
    """Fill ``templates`` (a cache's templates/ directory) with hostile entries under every name a render
    reads: ``pickle`` (unpickling runs code), ``poison`` (renders attacker text), ``forged`` (both, signed
    with a planted key file)."""
    templates.mkdir(parents=True, exist_ok=True)
    key = b"k" * 32
    if kind == "forged":
        (templates / "key").write_bytes(key)
        (templates / "key").chmod(0o600)
    for entry, name, _source, checksum in _entries():
        body = _payload(marker) if kind == "pickle" else _poison_code(checksum, name)
        if kind == "forged":
            body = _forged(key, entry, _payload(marker) if name.endswith("device.j2") else body)
        (templates / entry).write_bytes(body)
    templates.chmod(0o700)


def _render_dir(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def uncached(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("nocache") / "out"
    o = run("render", str(LAB), "-o", str(out), env={"ROCECONF_CACHE_DIR": ""})
    check(o, bad_input=False, rc=0)
    files = _render_dir(out)
    assert {n: b for n, b in files.items() if not n.startswith(".")} == _render_dir(GOLDEN)
    return files


# ---------------------------------------------------------------------------------- every command
_SAVED = str(GOLDEN)
COMMANDS = {
    "validate": (["validate", str(LAB)], 0),
    "render": (["render", str(LAB), "-o", "{out}"], 0),
    "expand": (["expand", str(LAB)], 0),
    "check": (["check", str(LAB), "--configs", _SAVED], None),
    "plan": (["plan", str(LAB), str(LAB)], 0),
    "drift": (["drift", str(LAB), "--configs", _SAVED], None),
    "headroom": (["headroom", str(LAB)], None),
    "acceptance-plan": (["acceptance", "plan", str(LAB)], 0),
}


_BASELINE: dict[str, tuple[int | None, str, Path]] = {}


@pytest.mark.parametrize("kind", ["pickle", "poison", "forged"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_planted_cache_runs_no_code_and_changes_no_output(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, command: str, kind: str
) -> None:
    args, want = COMMANDS[command]
    marker = tmp_path / "PWNED"
    cache = tmp_path / "cache"
    plant(cache / "templates", marker, kind)

    def go(cache_dir: str, out: Path) -> tuple[int | None, str]:
        o = run(*[a.format(out=out) for a in args], env={"ROCECONF_CACHE_DIR": cache_dir})
        check(o, bad_input=False)
        return o.rc, o.stdout

    if command not in _BASELINE:  # the same command without a cache, once
        base = tmp_path_factory.mktemp("base")
        _BASELINE[command] = (*go("", base / "out"), base / "out")
    rc0, out0, out_dir0 = _BASELINE[command]
    rc1, out1 = go(str(cache), tmp_path / "out1")
    assert not marker.exists(), f"{command}: a planted cache entry ran code"
    assert "POISONED" not in out1
    assert rc1 == rc0 and (want is None or rc1 == want)
    if command == "render":
        assert _render_dir(tmp_path / "out1") == _render_dir(out_dir0)
    else:
        assert out1 == out0


# ---------------------------------------------------------------------------------- damaged entries
def _warm(cache: Path, out: Path) -> None:
    o = run("render", str(LAB), "-o", str(out), env={"ROCECONF_CACHE_DIR": str(cache)})
    check(o, bad_input=False, rc=0)


def _damage(cache: Path, how: str) -> None:
    for p in (cache / "templates").glob("*.jinja"):
        data = p.read_bytes()
        if how == "truncated":
            p.write_bytes(data[: len(data) // 2])
        elif how == "empty":
            p.write_bytes(b"")
        elif how == "flipped":  # one byte of the compiled code changed
            i = len(data) - 40
            p.write_bytes(data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1 :])
        elif how == "swapped":  # every entry holds another template's (valid, signed) entry
            others = sorted(q for q in (cache / "templates").glob("*.jinja") if q != p)
            p.write_bytes(others[0].read_bytes())
        elif how == "link":
            p.unlink()
            p.symlink_to("/dev/zero")
        elif how == "fifo":
            p.unlink()
            os.mkfifo(p)


@pytest.mark.parametrize("how", ["truncated", "empty", "flipped", "swapped", "link", "fifo", "key-copied"])
def test_a_damaged_cache_renders_the_same_bytes(tmp_path: Path, uncached: dict[str, bytes], how: str) -> None:
    cache = tmp_path / "cache"
    _warm(cache, tmp_path / "warm")
    if how == "key-copied":
        # the whole cache copied elsewhere (as a repository or a backup would plant it): new inodes, so the
        # key no longer verifies and every entry is compiled again, never trusted
        shutil.copytree(cache, tmp_path / "copy", copy_function=shutil.copy2)
        (tmp_path / "copy" / "templates" / "key").chmod(0o600)
        cache = tmp_path / "copy"
    else:
        _damage(cache, how)
    out = tmp_path / "out"
    o = run("render", str(LAB), "-o", str(out), env={"ROCECONF_CACHE_DIR": str(cache)})
    check(o, bad_input=False, rc=0)
    assert _render_dir(out) == uncached


def test_the_warm_cache_is_used_and_renders_the_same_bytes(tmp_path: Path, uncached: dict[str, bytes]) -> None:
    cache = tmp_path / "cache"
    _warm(cache, tmp_path / "a")
    entries = {p.name: p.stat().st_mtime_ns for p in (cache / "templates").glob("*.jinja")}
    assert len(entries) >= 8
    _warm(cache, tmp_path / "b")
    assert _render_dir(tmp_path / "b") == uncached
    # read, not written again: every entry verified
    assert {p.name: p.stat().st_mtime_ns for p in (cache / "templates").glob("*.jinja")} == entries


# ---------------------------------------------------------------------------------- plantable places
def test_a_relative_xdg_cache_home_is_ignored(
    tmp_path: Path, uncached: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROCECONF_CACHE_DIR", raising=False)  # so the XDG lookup is what is tested
    checkout, home = tmp_path / "checkout", tmp_path / "home"
    home.mkdir()
    marker = tmp_path / "PWNED"
    plant(checkout / ".cache" / "roceconf" / "templates", marker, "pickle")
    before = tree_snapshot(checkout)
    o = run(
        "render", str(LAB), "-o", str(tmp_path / "out"),
        cwd=checkout, env={"XDG_CACHE_HOME": ".cache", "HOME": str(home)},
    )
    check(o, bad_input=False, rc=0)
    assert not marker.exists()
    assert _render_dir(tmp_path / "out") == uncached
    assert tree_snapshot(checkout) == before  # nothing read from or written into the checkout's .cache
    assert (home / ".cache" / "roceconf" / "templates" / "key").is_file()  # the default place instead


@pytest.mark.parametrize("kind", ["pickle", "forged"])
def test_home_set_to_a_checkout_plants_nothing(
    tmp_path: Path, uncached: dict[str, bytes], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROCECONF_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    checkout = tmp_path / "checkout"
    marker = tmp_path / "PWNED"
    plant(checkout / ".cache" / "roceconf" / "templates", marker, kind)
    o = run("render", str(LAB), "-o", str(tmp_path / "out"), cwd=checkout, env={"HOME": str(checkout)})
    check(o, bad_input=False, rc=0)
    assert not marker.exists()
    assert _render_dir(tmp_path / "out") == uncached


def test_a_cache_directory_others_can_write_is_not_read(tmp_path: Path, uncached: dict[str, bytes]) -> None:
    marker = tmp_path / "PWNED"
    for mode_dir, mode in (("templates", 0o770), ("parent", 0o777)):
        cache = tmp_path / mode_dir
        plant(cache / "templates", marker, "pickle")
        (cache / "templates" if mode_dir == "templates" else cache).chmod(mode)
        o = run("render", str(LAB), "-o", str(tmp_path / f"out-{mode_dir}"), env={"ROCECONF_CACHE_DIR": str(cache)})
        check(o, bad_input=False, rc=0)
        assert not marker.exists(), mode_dir
        assert _render_dir(tmp_path / f"out-{mode_dir}") == uncached
    if os.geteuid() == 0:  # a directory of another user (only root can make one here)
        cache = tmp_path / "other"
        plant(cache / "templates", marker, "pickle")
        os.chown(cache / "templates", 65534, 65534)
        o = run("render", str(LAB), "-o", str(tmp_path / "out-other"), env={"ROCECONF_CACHE_DIR": str(cache)})
        check(o, bad_input=False, rc=0)
        assert not marker.exists()
        assert _render_dir(tmp_path / "out-other") == uncached
