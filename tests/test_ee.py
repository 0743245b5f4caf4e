"""The Execution Environment: the collection declares its Python and system needs (meta/execution-environment.yml,
requirements.txt, bindep.txt), `ansible-builder introspect` lists them, and `ansible-builder create` on the
docs' execution-environment.yml (version 3) writes a build context whose steps install roceconf: the wheel is in
the context where pip looks for it, every requirement the collection declares resolves to it, and the wheel's
own requirements are the ones this environment satisfies. No container runtime is needed (`create`, not `build`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from tests.test_collection import BIN, SOURCE, clean_env
from tests.wheel import WHEEL_GROUP

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "execution-environment.yml"



@pytest.mark.xdist_group("collection")
def test_collection_declares_its_dependencies_and_the_true_ansible_floor() -> None:
    ee = yaml.safe_load((SOURCE / "meta" / "execution-environment.yml").read_text())
    assert ee["dependencies"] == {"python": "requirements.txt", "system": "bindep.txt"}
    runtime = yaml.safe_load((SOURCE / "meta" / "runtime.yml").read_text())
    floor = re.fullmatch(r">=(\d+\.\d+)\.0", runtime["requires_ansible"])
    assert floor, runtime
    pyproject = (ROOT / "pyproject.toml").read_text()
    cores = re.findall(r'"ansible-core>=([\d.]+),', pyproject)
    assert cores and set(cores) == {floor.group(1)}  # the package and the collection state the same floor
    assert "pylibssh" not in pyproject  # no hard dependency the code never imports
    for where in (ROOT / "LICENSE", SOURCE / "LICENSE"):
        assert where.read_text().lstrip().startswith("Apache License")


@pytest.mark.xdist_group("collection")
def test_introspect_lists_the_dependencies(tmp_path: Path) -> None:
    res = subprocess.run([str(BIN / "ansible-builder"), "introspect", "--sanitize", str(SOURCE.parents[2])],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    listed = yaml.safe_load(res.stdout)
    assert listed["python"] == ["roceconf>=0.1.0  # from collection roceconf.fabric"], res.stdout
    assert "openssh-clients [platform:rpm]  # from collection roceconf.fabric" in listed["system"], res.stdout


@pytest.mark.xdist_group(WHEEL_GROUP)  # the wheel of tests/wheel.py, built once for the packaging tests
def test_builder_create_writes_a_context_that_installs_roceconf(tmp_path: Path, wheel: Path) -> None:
    env = clean_env(tmp_path)
    (tmp_path / "home").mkdir()
    dist = tmp_path / "dist"
    dist.mkdir()
    shutil.copy(wheel, dist)
    with zipfile.ZipFile(wheel) as zf:  # the licence travels with the wheel and the sdist
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in zf.namelist()), zf.namelist()
    (sdist,) = wheel.parent.glob("roceconf-*.tar.gz")
    with tarfile.open(sdist) as tf:
        assert any(n.endswith("/LICENSE") for n in tf.getnames())
    res = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", str(SOURCE), "--output-path", str(dist)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    shutil.copy(EXAMPLE, tmp_path / "execution-environment.yml")
    res = subprocess.run([str(BIN / "ansible-builder"), "create", "-f", "execution-environment.yml", "--context",
                          "context"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    build = tmp_path / "context" / "_build"
    steps = (tmp_path / "context" / "Containerfile").read_text() if (tmp_path / "context" / "Containerfile").exists() \
        else (tmp_path / "context" / "Dockerfile").read_text()
    builder = steps.split("AS builder", 1)[1].split("AS final", 1)[0]
    assert "COPY _build/dist/ /build/dist/" in builder and "ENV PIP_FIND_LINKS=/build/dist" in builder
    assert "introspect" in builder and "assemble" in builder
    assert 'ansible-core>=2.19,<2.20' in steps
    assert {p.name for p in (build / "dist").iterdir()} == {wheel.name, "roceconf-fabric-0.1.0.tar.gz"}
    reqs = yaml.safe_load((build / "requirements.yml").read_text())
    assert reqs["collections"] == [{"name": "dist/roceconf-fabric-0.1.0.tar.gz", "type": "file"}]

    # what the galaxy and builder stages run: install the collection from the context, introspect it
    res = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "--offline", "-r", "requirements.yml",
                          "-p", str(tmp_path / "ee-collections")], cwd=build, env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    res = subprocess.run([sys.executable, str(build / "scripts" / "introspect.py"), "introspect",
                          "--write-pip", str(tmp_path / "pip.txt"), "--write-bindep", str(tmp_path / "bindep.txt"),
                          str(tmp_path / "ee-collections")], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    wanted = [Requirement(line.split("#")[0]) for line in (tmp_path / "pip.txt").read_text().splitlines()
              if line.split("#")[0].strip()]
    assert [r.name for r in wanted] == ["roceconf"]
    # pip, pointed at the context's dist/ (PIP_FIND_LINKS) and nothing else, resolves it to the wheel
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps",
                          "--ignore-installed", "--find-links", str(build / "dist"), "--report", "-",
                          "--quiet", str(wanted[0])], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert wheel.name in res.stdout
    # and the wheel's own requirements (for this Python) are all satisfied here: the EE gets the same set
    with zipfile.ZipFile(build / "dist" / wheel.name) as zf:
        meta = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    deps = [Requirement(line.split(":", 1)[1].strip()) for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    runtime = [r for r in deps if r.marker is None or r.marker.evaluate({"extra": ""})]
    assert {r.name for r in runtime} >= {"ansible-core", "napalm", "netmiko", "pydantic"}
    assert all(r.specifier.contains(version(r.name), prereleases=True) for r in runtime), runtime
