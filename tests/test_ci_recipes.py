"""The CI recipes in docs/ci/ work as written: their steps run, in order, in a user's repository, with
roceconf installed from a wheel (not editable; tests/wheel.py, shared with tests/test_packaging.py) into a
fresh virtualenv.

GitHub Actions (docs/ci/github-actions.yml): every `run:` step is executed with bash as the runner does
(`bash -e -o pipefail`), with the workflow's `env`, `${{ ... }}` expressions, `if:` conditions,
`continue-on-error`, `$GITHUB_OUTPUT` and GITHUB_ACTIONS=true. `uses:` steps are stood in for: the checkout is
the prepared repository, setup-python is the fresh virtualenv on PATH, upload-sarif validates the file it would
upload against the SARIF 2.1.0 schema. `gh` is a stand-in that records the comment it would post.
GitLab CI (docs/ci/gitlab-ci.yml): `before_script` + `script` lines run as one shell script that stops at the
first failing line, with the job's variables; the image's `apt-get` line is left out (no system packages are
installed by tests).

The wheel's dependencies come from this environment (a directory of links to its site-packages without
roceconf itself, on the new virtualenv's path), so `pip install <wheel>` works offline (PIP_NO_INDEX=1).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from ruamel.yaml import YAML

from tests.wheel import WHEEL_GROUP

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "docs" / "ci"
LAB = ROOT / "inventories" / "lab" / "intent.yml"
SARIF_SCHEMA = ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"

pytestmark = pytest.mark.xdist_group(WHEEL_GROUP)  # the wheel (tests/wheel.py) is built once for both modules


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


@dataclass
class Env:
    """A fresh virtualenv that can pip-install the roceconf wheel offline, and the wheel."""

    venv: Path
    wheel: Path
    bin: Path
    base: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Env:
    tmp = tmp_path_factory.mktemp("recipes")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # this environment's packages (pip included), but not its editable roceconf: links in a directory of
    # their own, so pip sees every dependency satisfied and roceconf not installed
    deps = tmp / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        n = entry.name
        if n.startswith(("roceconf", "__editable__", "_roceconf")) or n.endswith((".pth", ".egg-link")):
            continue
        (deps / n).symlink_to(entry)
    (site / "deps.pth").write_text(f"{deps}\n")
    bin_ = tmp / "bin"  # the `gh` stand-in
    bin_.mkdir()
    gh = bin_ / "gh"
    gh.write_text(
        "#!/bin/sh\n"
        'echo "$@" >> "$GH_LOG"\n'
        'while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "$GH_LOG.body"; shift; done\n'
        "exit 0\n"
    )
    gh.chmod(0o755)
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ROCECONF_", "PYTHON", "GITHUB_", "CI_", "VIRTUAL_ENV", "PIP_"))
    }
    base.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{bin_}{os.pathsep}{os.environ.get('PATH', '')}",
        PIP_NO_INDEX="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        HOME=str(tmp),
    )
    return Env(venv, wheel, bin_, base)


def _repo(tmp: Path, change: str) -> tuple[Path, str]:
    """A user's inventory repository: main has the intent and its rendered configs; the checked-out
    pull-request branch changes the intent ('ecn': re-rendered, valid; 'broken': RoCE made lossy)."""
    from roceconf.compile import load_valid, render_fabric, write_outputs

    upstream = tmp / "upstream"
    pod = upstream / "inventories" / "pod"
    pod.mkdir(parents=True)
    _git(upstream, "init", "-q", "-b", "main")
    intent = pod / "intent.yml"
    intent.write_text(LAB.read_text())
    write_outputs(render_fabric(load_valid(intent)), pod / "rendered")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-qm", "pod")
    base_sha = _git(upstream, "rev-parse", "HEAD").strip()
    work = tmp / "work"
    _git(tmp, "clone", "-q", str(upstream), str(work))
    _git(work, "checkout", "-q", "-b", "pr")
    wi = work / "inventories" / "pod" / "intent.yml"
    text = wi.read_text()
    if change == "ecn":
        assert "max: 1500KB" in text
        wi.write_text(text.replace("max: 1500KB", "max: 1200KB", 1))
        write_outputs(render_fabric(load_valid(wi)), wi.parent / "rendered")
    else:
        assert "      lossless: true\n" in text
        wi.write_text(text.replace("      lossless: true\n", "      lossless: false\n", 1))
    _git(work, "commit", "-qam", f"pr: {change}")
    return work, base_sha


# ------------------------------------------------------------------------------------------ GitHub Actions
@dataclass
class Job:
    ok: bool
    outcomes: dict[str, str]
    log: str
    ran: list[str]
    uploaded: list[Path]


def _expr(expr: str, outcomes: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    e = expr.strip()
    fixed = {"github.token": "test-token", "github.event.pull_request.number": "7"}
    if e in fixed:
        return fixed[e]
    m = re.fullmatch(r"steps\.(\w+)\.outcome", e)
    if m:
        return outcomes.get(m.group(1), "")
    m = re.fullmatch(r"steps\.(\w+)\.outputs\.(\w+)", e)
    if m:
        return outputs.get(m.group(1), {}).get(m.group(2), "")
    raise AssertionError(f"recipe uses an expression this test does not know: {e}")


def _subst(text: str, outcomes: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _expr(m.group(1), outcomes, outputs), text)


def _condition(cond: str, outcomes: dict[str, str], failed: bool, cwd: Path) -> bool:
    """The `if:` expressions the recipe uses: always(), hashFiles(...) != '', steps.X.outcome == '...',
    combined with && and ||; without always() a step runs only while the job has not failed."""
    py = cond
    py = re.sub(r"hashFiles\('([^']+)'\)", lambda m: repr("h" if (cwd / m.group(1)).exists() else ""), py)
    py = re.sub(r"steps\.(\w+)\.outcome", lambda m: repr(outcomes.get(m.group(1), "")), py)
    py = py.replace("always()", "True").replace("&&", " and ").replace("||", " or ")
    if not re.fullmatch(r"[\s\w'=!()]*", py.replace("and", "").replace("or", "")):
        raise AssertionError(f"recipe uses a condition this test does not know: {cond}")
    value = bool(eval(py, {"__builtins__": {}}, {"True": True}))  # noqa: S307 - our own recipe text
    return value if "always()" in cond else value and not failed


def _run_github(recipe: Path, repo: Path, env: Env, extra: dict[str, str]) -> Job:
    wf = YAML(typ="safe").load(recipe.read_text())
    (job,) = wf["jobs"].values()
    base = {**env.base, **{k: str(v) for k, v in wf.get("env", {}).items()}, **extra}
    base.update(GITHUB_ACTIONS="true", GITHUB_BASE_REF="main", GITHUB_WORKSPACE=str(repo))
    outcomes: dict[str, str] = {}
    outputs: dict[str, dict[str, str]] = {}
    failed = False
    log: list[str] = []
    ran: list[str] = []
    uploaded: list[Path] = []
    for i, step in enumerate(job["steps"]):
        sid = step.get("id", f"step{i}")
        if "if" in step and not _condition(step["if"], outcomes, failed, repo) or "if" not in step and failed:
            outcomes[sid] = "skipped"
            continue
        name = step.get("name") or step.get("uses")
        ran.append(name)
        if "uses" in step:
            action = step["uses"].split("@")[0]
            if action == "actions/checkout":
                assert step["with"]["fetch-depth"] == 0  # the plan needs the base branch
            elif action == "actions/setup-python":
                pass  # the fresh virtualenv is first on PATH
            elif action == "github/codeql-action/upload-sarif":
                f = repo / step["with"]["sarif_file"]
                jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(
                    json.loads(f.read_text())
                )
                uploaded.append(f)
            else:
                raise AssertionError(f"recipe uses an action this test does not stand in for: {action}")
            outcomes[sid] = "success"
            continue
        out_file = repo.parent / f"github_output_{i}"
        out_file.write_text("")
        step_env = {**base, **{k: _subst(str(v), outcomes, outputs) for k, v in step.get("env", {}).items()}}
        step_env["GITHUB_OUTPUT"] = str(out_file)
        script = _subst(step["run"], outcomes, outputs)
        res = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script],
            cwd=repo,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        log.append(f"## {name} (exit {res.returncode})\n{res.stdout}{res.stderr}")
        outputs[sid] = dict(ln.split("=", 1) for ln in out_file.read_text().splitlines() if "=" in ln)
        outcomes[sid] = "success" if res.returncode == 0 else "failure"
        if res.returncode != 0 and not step.get("continue-on-error"):
            failed = True
    return Job(not failed, outcomes, "\n".join(log), ran, uploaded)


def _is_wheel_install(job: Job, env: Env) -> None:
    assert "## Install roceconf (exit 0)" in job.log, job.log
    where = subprocess.run(
        [
            str(env.venv / "bin" / "python"),
            "-c",
            "import roceconf, pathlib; print(pathlib.Path(roceconf.__file__).resolve())",
        ],
        cwd=env.venv,
        env=env.base,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(env.venv), where  # the wheel, not the checkout (not editable)


def test_github_recipe_on_a_good_change(tmp_path: Path, env: Env) -> None:
    repo, _ = _repo(tmp_path, "ecn")
    gh_log = tmp_path / "gh.log"
    job = _run_github(
        RECIPES / "github-actions.yml", repo, env, {"ROCECONF_PACKAGE": str(env.wheel), "GH_LOG": str(gh_log)}
    )
    assert job.ok, job.log
    _is_wheel_install(job, env)
    assert job.outcomes["validate"] == job.outcomes["render"] == job.outcomes["check"] == "success", job.log
    assert job.outcomes["plan"] == "success"
    assert "Fail on findings" not in job.ran
    # the plan found the change and was posted as the comment
    body = Path(f"{gh_log}.body").read_text()
    assert body.startswith("### roceconf plan:") and "ECN" in body
    assert gh_log.read_text().split("\n")[0] == "pr comment 7 --body-file plan.md --edit-last"
    # SARIF went to code scanning; the JUnit report of the checks is there
    assert job.uploaded == [repo / "roceconf.sarif"]
    suite = ET.parse(repo / "roceconf-check.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"


def test_github_recipe_on_a_broken_change(tmp_path: Path, env: Env) -> None:
    repo, _ = _repo(tmp_path, "broken")
    gh_log = tmp_path / "gh.log"
    job = _run_github(
        RECIPES / "github-actions.yml", repo, env, {"ROCECONF_PACKAGE": str(env.wheel), "GH_LOG": str(gh_log)}
    )
    assert not job.ok
    assert job.outcomes["validate"] == job.outcomes["render"] == job.outcomes["plan"] == "failure", job.log
    # GITHUB_ACTIONS=true: the findings are annotations on the intent's lines
    assert re.search(
        r"^::error file=inventories/pod/intent\.yml,line=\d+,col=\d+,title=RC101::", job.log, re.M
    )
    assert job.ran[-1] == "Fail on findings"
    sarif = json.loads((repo / "roceconf.sarif").read_text())
    assert "RC101" in {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert "UNSAFE" in Path(f"{gh_log}.body").read_text()  # the comment warns before merging


# ------------------------------------------------------------------------------------------ GitLab CI
def _run_gitlab(
    recipe: Path, repo: Path, env: Env, extra: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    data = YAML(typ="safe").load(recipe.read_text())
    job = data["roceconf-plan"]
    lines = [ln for ln in job["before_script"] if not ln.startswith("apt-get ")] + job["script"]
    assert len(lines) == len(job["before_script"]) + len(job["script"]) - 1  # only the apt-get line left out
    variables = {k: str(v) for k, v in job["variables"].items()}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", "\n".join(lines)],
        cwd=repo,
        env={**env.base, **variables, **extra},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_gitlab_recipe_good_and_broken(tmp_path: Path, env: Env) -> None:
    (tmp_path / "good").mkdir()
    repo, base = _repo(tmp_path / "good", "ecn")
    extra = {"ROCECONF_PACKAGE": str(env.wheel), "CI_MERGE_REQUEST_DIFF_BASE_SHA": base}
    res = _run_gitlab(RECIPES / "gitlab-ci.yml", repo, env, extra)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (repo / "plan.md").read_text().startswith("### roceconf plan:")
    for report in ("roceconf-validate.xml", "roceconf-check.xml"):  # artifacts:reports:junit
        suite = ET.parse(repo / report).getroot().find("testsuite")
        assert suite is not None and suite.get("failures") == "0", report
    (tmp_path / "bad").mkdir()
    repo, base = _repo(tmp_path / "bad", "broken")
    res = _run_gitlab(RECIPES / "gitlab-ci.yml", repo, env, {**extra, "CI_MERGE_REQUEST_DIFF_BASE_SHA": base})
    assert res.returncode == 1, res.stdout + res.stderr
    assert "error[RC101]" in res.stdout
    suite = ET.parse(repo / "roceconf-validate.xml").getroot().find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 1
