"""Render directories: never a mixed set (concurrent renders, kill -9, full disk), stale files removed
(issue reproducers 4 and 5)."""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from roceconf.compile import check_outputs, load_valid, render_fabric, write_render
from roceconf.intent import load_text
from roceconf.outdir import MANIFEST, STAGING, read_manifest
from tests.security.helpers import LAB, cli, lab_text

CTX = multiprocessing.get_context("fork")


def _lab_files(mtu: int) -> dict[str, str]:
    fab = load_text(lab_text().replace("switch_port: 9214", f"switch_port: {mtu}"), str(LAB))
    return render_fabric(fab)


def _switch_mtus(d: Path) -> set[int]:
    mtus: set[int] = set()
    for p in d.iterdir():
        if p.suffix in (".cfg", ".set"):
            mtus |= {int(m) for m in re.findall(r"\bmtu (9\d\d\d)\b", p.read_text())}
    return mtus


def _render_in_child(files: dict[str, str], d: Path) -> None:
    write_render(files, d)


def test_two_renders_at_once_never_leave_a_mixed_set(tmp_path: Path) -> None:
    a, b = _lab_files(9214), _lab_files(9100)
    for run in range(10):
        d = tmp_path / f"run{run}"
        procs = [CTX.Process(target=_render_in_child, args=(f, d)) for f in (a, b)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        on_disk = {p.name: p.read_text() for p in d.iterdir() if not p.name.startswith(".")}
        assert on_disk in (a, b), f"run {run}: mixed set, MTUs {_switch_mtus(d)}"
        assert _switch_mtus(d) in ({9214}, {9100})
        assert set(read_manifest(d)) == set(a)
        assert not (d / STAGING).exists()


def _synthetic(tag: str, n: int = 400) -> dict[str, str]:
    return {f"dev{i:04d}.cfg": f"hostname dev{i:04d}\n! {tag}\n" + (f"{tag} line\n" * 100) for i in range(n)}


def test_kill_9_at_random_points_leaves_the_old_or_the_new_set(tmp_path: Path) -> None:
    old, new = _synthetic("old"), _synthetic("new")
    rng = random.Random(13)
    t0 = time.monotonic()
    write_render(new, tmp_path / "timing")
    duration = time.monotonic() - t0
    outcomes = []
    for run in range(12):
        d = tmp_path / f"run{run}"
        write_render(old, d)
        p = CTX.Process(target=_render_in_child, args=(new, d))
        p.start()
        time.sleep(rng.uniform(0, duration * 1.2))
        os.kill(p.pid, signal.SIGKILL)
        p.join(30)
        # what any roceconf reader sees (it finishes a committed render, discards an uncommitted one)
        res_old, res_new = check_outputs(old, d), check_outputs(new, d)
        assert res_old.ok or res_new.ok, f"run {run}: neither complete set after kill -9"
        outcomes.append("old" if res_old.ok else "new")
        assert not (d / STAGING).exists()
        assert set(read_manifest(d)) == set(new)
        leftovers = [x.name for x in d.iterdir() if x.name.startswith(".") and x.name != MANIFEST]
        assert leftovers == []
    print("kill -9 outcomes:", outcomes)


def test_full_disk_keeps_the_previous_set(tmp_path: Path) -> None:
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.decode().strip()}")
    try:
        out = mnt / "out"
        res = cli("render", str(LAB), "-o", str(out))
        assert res.exit_code == 0, res.output
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        # leave too little room for the next set
        free = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize
        (mnt / "filler").write_bytes(b"x" * max(0, free - 8192))
        big = tmp_path / "big.yml"
        big.write_text(lab_text().replace("switch_port: 9214", "switch_port: 9100"))
        res = cli("render", str(big), "-o", str(out))
        assert res.exit_code == 2, res.output
        errs = [ln for ln in res.output.splitlines() if ln.startswith("error")]
        assert errs == [f"error: {out}: No space left on device; the previous files are unchanged"]
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
        assert check_outputs(render_fabric(load_valid(LAB)), out).ok
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_removed_device_files_are_removed_and_check_names_prune(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli("render", str(LAB), "-o", str(out)).exit_code == 0
    smaller = tmp_path / "smaller.yml"
    text = lab_text()
    text = text.replace(
        "  - name: gpu4\n    platform: linux-dcb\n", "  - name: gpu9\n    platform: linux-dcb\n"
    )
    text = re.sub(r'  - \{a: "gpu4:.*\n', "", text)
    smaller.write_text(text)
    (out / "stray.cfg").write_text("from an old render without a manifest\n")
    res = cli("render", str(smaller), "-o", str(out), "--check")
    assert res.exit_code == 1
    assert f"unexpected: {out / 'gpu4.sh'}" in res.output and f"missing: {out / 'gpu9.sh'}" in res.output
    assert f"run `roceconf render {smaller} -o {out} --prune`" in res.output
    res = cli("render", str(smaller), "-o", str(out))
    assert "removed: gpu4.sh" in res.output and not (out / "gpu4.sh").exists()
    assert (out / "stray.cfg").exists()  # not ours by the manifest: only --prune removes it
    res = cli("render", str(smaller), "-o", str(out), "--prune")
    assert "removed: stray.cfg" in res.output
    assert cli("render", str(smaller), "-o", str(out), "--check").exit_code == 0


def test_unchanged_render_rewrites_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli("render", str(LAB), "-o", str(out)).exit_code == 0
    stat = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()}
    res = cli("render", str(LAB), "-o", str(out))
    assert "0 changed" in res.output
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()} == stat


def test_old_temp_files_of_a_killed_run_are_cleaned(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".leaf04.cfg.a1b2c3d4.tmp").write_text("half")
    (out / STAGING).mkdir()
    (out / STAGING / "leaf1.cfg").write_text("uncommitted")
    assert cli("render", str(LAB), "-o", str(out), "--check").exit_code == 1
    assert not (out / ".leaf04.cfg.a1b2c3d4.tmp").exists() and not (out / STAGING).exists()
