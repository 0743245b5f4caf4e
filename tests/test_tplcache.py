"""The compiled-template cache (roceconf/tplcache.py) is an optimisation only: the same bytes with or
without it, a changed template is compiled again, and an unusable cache directory is no error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from roceconf.resources import template_root

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
GOLDEN = ROOT / "tests" / "golden"


def _render(out: Path, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ, **env)
    return subprocess.run(
        [sys.executable, "-m", "roceconf.cli", "render", str(LAB), "-o", str(out)],
        env=e,
        capture_output=True,
        text=True,
        check=False,
    )


def _same_as_golden(out: Path) -> None:
    names = sorted(p.name for p in GOLDEN.iterdir() if not p.name.startswith("."))
    assert names == sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    for n in names:
        assert (out / n).read_bytes() == (GOLDEN / n).read_bytes(), n


def test_cached_render_is_the_golden_render(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for i in range(2):  # the first run fills the cache, the second reads it
        r = _render(tmp_path / f"out{i}", ROCECONF_CACHE_DIR=str(cache))
        assert r.returncode == 0, r.stderr
        _same_as_golden(tmp_path / f"out{i}")
        entries = list((cache / "templates").glob("*.jinja"))
        assert len(entries) >= 8  # one per platform template
    mode = (cache / "templates").stat().st_mode & 0o777
    assert mode & 0o022 == 0


def test_a_changed_template_is_compiled_again(tmp_path: Path) -> None:
    cache, tree = tmp_path / "cache", tmp_path / "templates"
    shutil.copytree(template_root(), tree)
    r = _render(tmp_path / "a", ROCECONF_CACHE_DIR=str(cache), ROCECONF_TEMPLATES=str(tree))
    assert r.returncode == 0, r.stderr
    nxos = tree / "nxos" / "device.j2"
    text = nxos.read_text(encoding="utf-8")
    assert text.count("hostname {{ s.hostname }}\n") == 1
    nxos.write_text(
        text.replace("hostname {{ s.hostname }}\n", "hostname {{ s.hostname }}\n! edited\n"), encoding="utf-8"
    )
    r = _render(tmp_path / "b", ROCECONF_CACHE_DIR=str(cache), ROCECONF_TEMPLATES=str(tree))
    assert r.returncode == 0, r.stderr
    a, b = tmp_path / "a", tmp_path / "b"
    for p in a.iterdir():
        if p.name.startswith("."):
            continue
        want = p.read_text(encoding="utf-8")
        if p.name == "spine1.cfg":  # the lab's NX-OS switch
            want = want.replace("hostname spine1\n", "hostname spine1\n! edited\n", 1)
            assert "! edited" in want
        assert (b / p.name).read_text(encoding="utf-8") == want, p.name


def test_unusable_cache_directory_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be\n")
    r = _render(tmp_path / "out", ROCECONF_CACHE_DIR=str(blocked))
    assert r.returncode == 0, r.stderr
    _same_as_golden(tmp_path / "out")
    shared = tmp_path / "shared"
    (shared / "templates").mkdir(parents=True)
    (shared / "templates").chmod(0o777)  # writable by others: not used
    r = _render(tmp_path / "out2", ROCECONF_CACHE_DIR=str(shared))
    assert r.returncode == 0, r.stderr
    _same_as_golden(tmp_path / "out2")
    assert not list((shared / "templates").iterdir())
