"""Where the vendors' own definitions are: ``../shared/vendor-models`` beside the repository root, or
``$ROCECONF_VENDOR_MODELS``. Conformance tests that need them skip with one line saying why when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = "ROCECONF_VENDOR_MODELS"


def vendor_models() -> Path | None:
    env = os.environ.get(ENV)
    cand = Path(env) if env else ROOT.parent / "shared" / "vendor-models"
    return cand if cand.is_dir() else None


def require(sub: str) -> Path:
    """The vendor-models sub-folder ``sub``, or skip the test with one line saying why."""
    base = vendor_models()
    if base is None:
        pytest.skip(f"vendor models not found (../shared/vendor-models beside the repository, or ${ENV})")
    path = base / sub
    if not path.exists():
        pytest.skip(f"{sub} not found in {base.name}/ (${ENV})")
    return path
