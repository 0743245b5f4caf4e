"""The shipped pre-commit hooks (.pre-commit-hooks.yaml), run by the real `pre-commit` from a user's repository.

pre-commit clones this repository at a commit (``repo: <path>``, ``rev: <HEAD>``), builds its own virtualenv
with pip (roceconf and its dependencies from the package index) and runs the hooks: they pass on a good
intent with current rendered configs, fail on a broken intent and on a stale render, and pass on this
repository itself. The hooks are taken from the committed HEAD, so commit before running this test locally.
The virtualenv is built once per module (about a minute, mostly downloads).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "inventories" / "lab" / "intent.yml"

pytestmark = pytest.mark.xdist_group("pre-commit")


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True, timeout=120
    ).stdout


@pytest.fixture(scope="module")
def rev() -> str:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: pre-commit installs hooks from a git repository")
    head = _git(ROOT, "rev-parse", "HEAD").strip()
    if "roceconf-validate" not in _git(ROOT, "show", f"{head}:.pre-commit-hooks.yaml"):
        pytest.fail("HEAD has no roceconf hooks in .pre-commit-hooks.yaml")
    return head


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _config(repo: Path, rev: str, intent: str, rendered: str, files: str | None = None) -> None:
    validate = "      - id: roceconf-validate\n" + (f"        files: {files}\n" if files else "")
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {ROOT}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        f"{validate}"
        "      - id: roceconf-render-check\n"
        f"        args: [{intent}, -o, {rendered}]\n"
    )
    _git(repo, "add", ".pre-commit-config.yaml")


def _run(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ROCECONF_", "PRE_COMMIT", "VIRTUAL_ENV"))
    }
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _status(out: str, name: str) -> str:
    line = next(ln for ln in out.splitlines() if ln.startswith(name + "."))
    return line.rsplit(".", 1)[-1].strip()


@pytest.fixture
def user_repo(tmp_path: Path, rev: str) -> Path:
    """A repository the way a network team keeps one: an intent and its rendered configs, committed."""
    from roceconf.compile import load_valid, render_fabric, write_outputs

    repo = tmp_path / "pod"
    (repo / "rendered").mkdir(parents=True)
    _git(repo, "init", "-q")
    shutil.copy(LAB, repo / "intent.yml")
    write_outputs(render_fabric(load_valid(repo / "intent.yml")), repo / "rendered")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "pod")
    _config(repo, rev, "intent.yml", "rendered")
    return repo


def test_hooks_pass_on_a_good_intent_and_fail_on_a_broken_one(user_repo: Path, home: Path) -> None:
    ok = _run(user_repo, home)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert _status(ok.stdout, "roceconf validate") == "Passed"
    assert _status(ok.stdout, "roceconf render --check") == "Passed"

    intent = user_repo / "intent.yml"
    good = intent.read_text()
    assert "      lossless: true\n" in good
    intent.write_text(good.replace("      lossless: true\n", "      lossless: false\n", 1))
    bad = _run(user_repo, home)
    assert bad.returncode == 1
    assert _status(bad.stdout, "roceconf validate") == "Failed"
    assert "intent.yml:" in bad.stdout and "error[RC101]" in bad.stdout
    assert _status(bad.stdout, "roceconf render --check") == "Failed"  # the intent no longer renders

    intent.write_text(good)
    leaf = user_repo / "rendered" / "leaf1.cfg"
    leaf.write_text(leaf.read_text().replace("mtu 9214", "mtu 9000", 1))
    stale = _run(user_repo, home)
    assert stale.returncode == 1
    assert _status(stale.stdout, "roceconf validate") == "Passed"
    assert _status(stale.stdout, "roceconf render --check") == "Failed"
    assert "stale: rendered/leaf1.cfg" in stale.stdout


def test_hooks_pass_on_this_repository(tmp_path: Path, rev: str, home: Path) -> None:
    clone = tmp_path / "roceconf"
    _git(tmp_path, "clone", "-q", "--no-hardlinks", str(ROOT), str(clone))
    _git(clone, "checkout", "-q", rev)
    _config(clone, rev, "inventories/lab/intent.yml", "tests/golden", files="^inventories/.*intent\\.ya?ml$")
    res = _run(clone, home)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _status(res.stdout, "roceconf validate") == "Passed"
    assert _status(res.stdout, "roceconf render --check") == "Passed"
