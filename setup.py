"""Build hook: copy the repository's templates/, schemas/ and the lab intent into the built package.

The top-level files stay the only hand-maintained copies; a wheel (or a wheel built from the sdist)
carries them as roceconf/_data/ (see roceconf/resources.py). An editable install uses the checkout's own
files, so nothing is copied there.
"""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from roceconf.resources import SOURCES  # noqa: E402  (the one list of shipped resources)

sys.path.pop(0)


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / "roceconf" / "_data"
        for name, src in SOURCES.items():
            source = ROOT / src
            if not source.exists():
                raise SystemExit(f"setup.py: {src} is missing; cannot build a complete roceconf")
            target = dest / name
            if source.is_dir():
                shutil.copytree(
                    source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


setup(cmdclass={"build_py": BuildWithData})
