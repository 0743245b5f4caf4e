"""Test-suite settings shared by every test module."""

from __future__ import annotations

import os

from hypothesis import settings

# In CI the property tests are derandomized: the same examples every run, so a red build always means a
# changed behaviour, never an unlucky draw. Locally they keep exploring new examples each run
# (`--hypothesis-seed` reproduces one).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
