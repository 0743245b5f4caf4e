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


def _retry_local_constants() -> None:
    """Hypothesis scans ``sys.modules`` for the constants of local modules with ``list(sys.modules.items())``
    (hypothesis/internal/conjecture/providers.py). That copy itself raises "dictionary changed size during
    iteration" when a module is imported while it runs: a garbage collection during the copy can run a
    finaliser that imports (a ResourceWarning's formatting imports ``tracemalloc`` / ``linecache``), see
    python/cpython#84507 and HypothesisWorks/hypothesis#4363. The scan changes no state before it finishes,
    so trying it again is exact; only a test run could hit it, never roceconf."""
    from hypothesis.internal.conjecture import providers

    scan = getattr(providers, "_get_local_constants", None)
    if scan is None or getattr(scan, "_roceconf_retry", False):
        return

    def retried():  # noqa: ANN202 - hypothesis' own return type
        for _ in range(10):
            try:
                return scan()
            except RuntimeError as e:
                if "changed size during iteration" not in str(e):
                    raise
        return scan()

    retried._roceconf_retry = True  # type: ignore[attr-defined]
    providers._get_local_constants = retried


_retry_local_constants()
