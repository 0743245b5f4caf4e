"""Hostile output places: ``--output FILE`` that is a FIFO, a character device, a directory or a planted link,
and output directories (render, schema, docs, demo) with links planted in them; ``plan REV:../PATH``. Nothing
is written outside the named output, a FIFO or device is written into (never replaced by a regular file),
``-`` is standard output."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from tests.hostile.harness import LAB, check, run, tree_snapshot

# every command with --output FILE, with arguments that make it succeed offline
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REPORTS: dict[str, list[str]] = {
    "validate": ["validate", str(LAB)],
    "expand": ["expand", str(LAB)],
    "parse": ["parse", "--platform", "eos", str(GOLDEN / "leaf1.cfg")],
    "check": ["check", str(LAB)],
    "plan": ["plan", str(LAB), str(LAB)],
    "acceptance-plan": ["acceptance", "plan", str(LAB)],
}


def _read_fifo(path: Path, got: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_output_into_a_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    want = run(*REPORTS[command], env={"ROCECONF_CACHE_DIR": ""})
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    o = run(*REPORTS[command], "--output", str(fifo))
    check(o, bad_input=False, rc=want.rc)
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert got and got[0].decode() == want.stdout
    assert sorted(os.listdir(tmp_path)) == ["report.fifo"]  # no temp file left beside it


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_output_into_a_fifo_nobody_reads_is_an_error_not_a_hang(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    o = run(*REPORTS[command], "--output", str(fifo))
    check(o, bad_input=False)
    assert o.rc not in (0, None) and "FIFO" in o.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("command", sorted(REPORTS))
def test_output_to_dev_null_and_stdout_and_dash(tmp_path: Path, command: str) -> None:
    want = run(*REPORTS[command])
    null = _null(tmp_path)
    before = os.lstat(null)
    o = run(*REPORTS[command], "--output", str(null))
    check(o, bad_input=False, rc=want.rc)
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    o = run(*REPORTS[command], "--output", "-")
    check(o, bad_input=False, rc=want.rc)
    assert o.stdout == want.stdout
    o = run(*REPORTS[command], "--output", "/dev/stdout")
    check(o, bad_input=False, rc=want.rc)
    assert o.stdout == want.stdout


def _null(tmp: Path) -> Path:
    """A character device like /dev/null to write into. As root (as this suite usually runs) one made in
    ``tmp`` with mknod: the code path is the same, and code that replaced it would replace a test file, not
    the system's /dev/null. Otherwise /dev/null itself (a user cannot replace it)."""
    if os.geteuid() == 0:
        null = tmp / "null"
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        return null
    return Path("/dev/null")


def test_a_character_device_is_never_replaced(tmp_path: Path) -> None:
    """The case of the issue: as root, --output /dev/null replaced the system's /dev/null."""
    null = _null(tmp_path)
    before = os.lstat(null)
    o = run("expand", str(LAB), "--output", str(null))
    check(o, bad_input=False, rc=0)
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    if null.parent == tmp_path:
        assert os.listdir(tmp_path) == ["null"]  # no temp file left beside it


@pytest.mark.parametrize("what", ["directory", "socket", "link-out"])
def test_output_onto_a_directory_socket_or_outward_link_is_refused(tmp_path: Path, what: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("original\n")
    work = tmp_path / "work"
    work.mkdir()
    target = work / "report.txt"
    if what == "directory":
        target.mkdir()
    elif what == "socket":
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.bind(str(target))
    else:
        target.symlink_to(victim)
    before = tree_snapshot(tmp_path)
    o = run("expand", str(LAB), "--output", str(target))
    check(o, bad_input=False)
    assert o.rc not in (0, None) and "report.txt" in o.output
    assert victim.read_text() == "original\n"
    assert tree_snapshot(tmp_path) == before


# ------------------------------------------------------------------------- output directories with planted links
DIRS = {
    "schema": (["schema", "-o", "{d}"], "intent.schema.json"),
    "docs": (["docs", "-o", "{d}"], "rules.md"),
    "render": (["render", str(LAB), "-o", "{d}"], "leaf1.cfg"),
}


@pytest.mark.parametrize("command", sorted(DIRS))
def test_a_link_planted_in_an_output_directory_is_not_followed(tmp_path: Path, command: str) -> None:
    args, name = DIRS[command]
    victim = tmp_path / "victim.txt"
    victim.write_text("original\n")
    d = tmp_path / "out"
    d.mkdir()
    (d / name).symlink_to(victim)
    o = run(*[a.format(d=d) for a in args])
    check(o, bad_input=False)
    assert o.rc not in (0, None), o.output[-2000:]
    assert victim.read_text() == "original\n", "the planted link was followed"
    assert name in o.output


@pytest.mark.parametrize("command", sorted(DIRS))
def test_an_output_directory_is_written_with_nothing_outside_it(tmp_path: Path, command: str) -> None:
    args, name = DIRS[command]
    d = tmp_path / "out"
    before = tree_snapshot(tmp_path)
    o = run(*[a.format(d=d) for a in args])
    check(o, bad_input=False, rc=0)
    after = tree_snapshot(tmp_path)
    assert {k for k in after if k not in before and not k.startswith("out")} == set()
    assert (d / name).is_file() and not (d / name).is_symlink()


def test_demo_does_not_follow_links_planted_in_its_directory(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("original\n")
    d = tmp_path / "demo"
    d.mkdir()
    (d / "configs").symlink_to(victim)  # the render directory of the demo
    o = run("demo", "-o", str(d), timeout=20)
    check(o, bad_input=False)
    assert o.rc not in (0, None)
    assert sorted(os.listdir(victim)) == ["keep.txt"] and (victim / "keep.txt").read_text() == "original\n"


# ------------------------------------------------------------------------- plan REV:../PATH
def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    (repo / "sub").mkdir(parents=True)
    shutil.copy(LAB, repo / "intent.yml")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=repo, check=True)
    return repo


def test_plan_of_a_revision_path_with_dotdot_writes_nothing_outside_its_temp_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {"TMPDIR": str(tmpdir)}
    before = tree_snapshot(tmp_path)
    # from a subdirectory, ../intent.yml is inside the repository: planned, and written only in the temp tree
    o = run("plan", "HEAD:../intent.yml", "../intent.yml", cwd=repo / "sub", env=env)
    check(o, bad_input=False, rc=0)
    assert "No changes" in o.output
    # from the root it leaves the repository: an error
    o = run("plan", "HEAD:../intent.yml", "intent.yml", cwd=repo, env=env)
    check(o, bad_input=False)
    assert o.rc in (1, 2) and "leaves the repository" in o.output
    o = run("plan", "HEAD:sub/../../../x/intent.yml", "intent.yml", cwd=repo, env=env)
    check(o, bad_input=False)
    assert o.rc in (1, 2)
    assert tree_snapshot(tmp_path) == before  # nothing left anywhere, the temp directory included
