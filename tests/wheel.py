"""The roceconf wheel the packaging tests install, built once per test process.

tests/test_packaging.py and tests/test_ci_recipes.py both install a wheel into a fresh virtualenv; building
it (sdist from a copy of the checkout, then the wheel from the unpacked sdist, so the sdist is complete too)
is the expensive part, so the ``wheel`` fixture of tests/conftest.py builds it once per session and both
modules share one xdist group (``WHEEL_GROUP``), so one worker builds it once.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the xdist group of every module that installs the wheel
WHEEL_GROUP = "wheel"


def build_wheel(tmp: Path) -> Path:
    """sdist from (a copy of) the checkout, then the wheel from the unpacked sdist (offline: no build
    isolation). The copy keeps other tests' builds in the checkout from racing with this one (setuptools
    writes build/ and *.egg-info into the source tree)."""
    dist = tmp / "dist"
    checkout = tmp / "checkout"
    anywhere = shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis")

    def ignore(directory: str, names: list[str]) -> set[str]:
        top = {"build", "dist", "out", "reports"} if Path(directory) == ROOT else set()
        return set(anywhere(directory, names)) | (top & set(names))

    def build(kind: str, src: Path) -> None:
        subprocess.run(
            [sys.executable, "-m", "build", kind, "--no-isolation", "--outdir", str(dist), str(src)],
            check=True,
            capture_output=True,
            timeout=300,
        )

    shutil.copytree(ROOT, checkout, ignore=ignore)
    build("--sdist", checkout)
    (sdist,) = dist.glob("roceconf-*.tar.gz")
    with tarfile.open(sdist) as tf:
        tf.extractall(tmp / "sdist", filter="data")
    (src,) = (tmp / "sdist").iterdir()
    build("--wheel", src)
    (wheel,) = dist.glob("roceconf-*.whl")
    return wheel
