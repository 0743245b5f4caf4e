"""Shared helpers of the security / bad-input tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from roceconf.cli import main

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab" / "intent.yml"


def lab_text() -> str:
    return LAB.read_text(encoding="utf-8")


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run the CLI in process; an exception other than SystemExit fails the test (no traceback path)."""
    res = CliRunner().invoke(main, list(args), env=env, catch_exceptions=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"roceconf {' '.join(args)} raised {type(res.exception).__name__}: {res.exception}"
    )
    return res


def run(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60, **kw
) -> subprocess.CompletedProcess:
    """Run the real roceconf executable (a separate process, as a user runs it)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "roceconf.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        **kw,
    )


def errors(text: str) -> list[str]:
    """The diagnostic lines of an output (hint lines and the summary line left out)."""
    return [ln for ln in text.splitlines() if ": error[" in ln]


def files_under(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}
