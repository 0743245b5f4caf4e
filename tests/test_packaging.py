"""The wheel, installed outside the checkout, works exactly like the checkout.

Installs the wheel (tests/wheel.py: built from the sdist, so the sdist is complete too; built once per session
and shared with tests/test_ci_recipes.py) into a fresh virtualenv (dependencies come from this environment's
site-packages through a .pth file; the wheel itself is installed with --no-deps) and runs every command from a directory outside
the checkout: validate, render (byte-identical to tests/golden/), check, plan, drift --configs, demo.
A missing template is a one-line error with exit 2, never an empty render or an empty plan.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.wheel import WHEEL_GROUP

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"

pytestmark = pytest.mark.xdist_group(WHEEL_GROUP)  # the wheel is built once for both modules


@dataclass
class Installed:
    venv: Path
    work: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "roceconf"), *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def python(self, code: str) -> str:
        res = subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", code],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return res.stdout.strip()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Installed:
    tmp = tmp_path_factory.mktemp("packaging")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # the dependencies of this environment, but not its (editable) roceconf: a .pth path line adds the
    # directory without running the .pth files in it, so the editable finder never loads
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    work = tmp / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCECONF_", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    inst = Installed(venv, work, env)
    where = inst.python("import roceconf, pathlib; print(pathlib.Path(roceconf.__file__).resolve())")
    assert Path(where).is_relative_to(venv), where  # the wheel's code, not the checkout's
    shutil.copy(ROOT / "inventories" / "lab" / "intent.yml", work / "intent.yml")
    return inst


def test_version_names_the_libraries_and_platforms(installed: Installed) -> None:
    res = installed.run("--version")
    assert res.returncode == 0, res.stderr
    for word in (
        "roceconf 0.",
        "napalm ",
        "netmiko ",
        "ansible-core ",
        "eos",
        "junos",
        "connectx",
        "linux-dcb",
    ):
        assert word in res.stdout, res.stdout


def test_validate_render_check_from_the_wheel(installed: Installed) -> None:
    res = installed.run("validate", "intent.yml")
    assert res.returncode == 0 and "intent.yml: valid" in res.stdout, res.stdout + res.stderr
    res = installed.run("render", "intent.yml", "-o", "render")
    assert res.returncode == 0, res.stderr
    rendered = sorted(p.name for p in (installed.work / "render").iterdir() if not p.name.startswith("."))
    assert rendered == sorted(p.name for p in GOLDEN.iterdir() if not p.name.startswith("."))
    for name in rendered:
        assert (installed.work / "render" / name).read_bytes() == (GOLDEN / name).read_bytes(), name
    res = installed.run("render", "intent.yml", "-o", "render", "--check")
    assert res.returncode == 0, res.stdout + res.stderr
    res = installed.run("check", "intent.yml", "--format", "json")
    # the lab intent is clean from the wheel as from the checkout (no error or warning; info notes only)
    assert res.returncode == 0, res.stdout + res.stderr
    assert [d["code"] for d in json.loads(res.stdout)["diagnostics"] if d["severity"] != "info"] == []


def test_plan_shows_the_change_from_the_wheel(installed: Installed) -> None:
    new = installed.work / "intent-new.yml"
    text = (installed.work / "intent.yml").read_text()
    new.write_text(text.replace("switch_port: 9214", "switch_port: 9100"))
    res = installed.run("plan", "intent.yml", str(new), "--format", "json", "--detailed-exitcode")
    assert res.returncode == 2, res.stdout + res.stderr
    plan = json.loads(res.stdout)
    diff = json.dumps(plan)
    assert "9100" in diff and "9214" in diff


def test_drift_configs_from_the_wheel(installed: Installed) -> None:
    installed.run("render", "intent.yml", "-o", "saved")
    res = installed.run("drift", "intent.yml", "--configs", "saved", "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout)["summary"]["in_sync"] == len([p for p in GOLDEN.iterdir() if not p.name.startswith(".")])
    cfg = installed.work / "saved" / "spine2.set"
    cfg.write_text(cfg.read_text().replace("mtu 9214", "mtu 1500", 1))
    res = installed.run("drift", "intent.yml", "--configs", "saved", "--format", "json")
    assert res.returncode == 1, res.stdout + res.stderr
    spine2 = next(d for d in json.loads(res.stdout)["devices"] if d["device"] == "spine2")
    assert spine2["status"] == "drift" and any("mtu" in i["field"] for i in spine2["items"])


def test_demo_from_the_wheel(installed: Installed) -> None:
    res = installed.run("demo", "-o", "demo")  # the shipped lab intent, no checkout around
    assert res.returncode == 0, res.stdout + res.stderr
    assert "demo OK" in res.stderr
    assert json.loads((installed.work / "demo" / "report.json").read_text())["summary"]["drift"] == 3


def test_missing_templates_are_an_error_not_an_empty_result(installed: Installed, tmp_path: Path) -> None:
    installed.env["ROCECONF_TEMPLATES"] = str(tmp_path)  # an empty template tree
    try:
        res = installed.run("render", "intent.yml", "-o", "broken")
        assert res.returncode == 2, res.stdout + res.stderr
        assert "template" in res.stderr and "not found" in res.stderr and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1 and not (installed.work / "broken").exists()
        new = installed.work / "intent-new.yml"
        res = installed.run("plan", "intent.yml", str(new))
        assert res.returncode == 2 and "not found" in res.stderr, res.stdout + res.stderr
        res = installed.run("drift", "intent.yml", "--configs", "saved")
        assert res.returncode == 2 and "not found" in res.stderr, res.stdout + res.stderr
    finally:
        del installed.env["ROCECONF_TEMPLATES"]
    # the installed package itself missing a template: the same error
    pkg = Path(installed.python("import roceconf, pathlib; print(pathlib.Path(roceconf.__file__).parent)"))
    eos = pkg / "_data" / "templates" / "eos"
    shutil.move(eos, tmp_path / "eos")
    try:
        res = installed.run("render", "intent.yml", "-o", "broken")
        assert res.returncode == 2 and "eos/device.j2" in res.stderr, res.stdout + res.stderr
    finally:
        shutil.move(tmp_path / "eos", eos)
