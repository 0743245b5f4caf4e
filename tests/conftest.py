"""Test-suite settings shared by every test module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# In CI the property tests are derandomized: the same examples every run, so a red build always means a
# changed behaviour, never an unlucky draw. Locally they keep exploring new examples each run
# (`--hypothesis-seed` reproduces one).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def full_run() -> bool:
    """``make test-full`` (ROCECONF_TEST_FULL=1): every test, with the heavy tests of tests/heavy-tests.txt."""
    return bool(os.environ.get("ROCECONF_TEST_FULL"))


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


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The roceconf wheel (built from its sdist), once per test process (tests/wheel.py)."""
    from tests.wheel import build_wheel

    return build_wheel(tmp_path_factory.mktemp("wheel"))


SLOW_TESTS = Path(__file__).with_name("slow-tests.txt")
HEAVY_TESTS = Path(__file__).with_name("heavy-tests.txt")


def heavy_tests() -> dict[str, str]:
    """{node id (or a module's path): the test of ``make test`` that makes the same kind of assertion} of the
    tests only ``make test-full`` runs (tests/heavy-tests.txt: ``NODE ID  |  LIGHTER SIBLING  |  WHY``)."""
    out: dict[str, str] = {}
    for line in HEAVY_TESTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            nodeid, sibling, _why = (x.strip() for x in line.split("|", 2))
            out[nodeid] = sibling
    return out


def _is_heavy(nodeid: str, heavy: dict[str, str]) -> bool:
    """``nodeid`` (without its ``@group``) is listed, or a parametrisation of a listed test, or in a listed module."""
    base = nodeid.split("[", 1)[0]
    return nodeid in heavy or base in heavy or nodeid.split("::", 1)[0] in heavy


def _measured_seconds() -> dict[str, float]:
    """{node id: seconds} of the slowest tests (tests/slow-tests.txt; '#' lines are comments)."""
    out: dict[str, float] = {}
    for line in SLOW_TESTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            seconds, nodeid = line.split(maxsplit=1)
            out[nodeid] = float(seconds)
    return out


@pytest.hookimpl(trylast=True)  # after xdist's own hook, whose group naming this repeats where it failed
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Name each test's ``xdist_group`` in its node id, then order the tests.

    The group: pytest-xdist's ``--dist loadgroup`` sends the tests whose node ids end in ``@<group>`` to one
    worker. Its worker names them by assigning ``item._nodeid``, which pytest 9.2 no longer reads (the node id
    is ``str(item._id)``): the groups were silently ignored, every module fixture (the wheel, the pre-commit
    virtualenv, the Ansible lab, the browser) was built once per worker, and tests meant to share a lab did
    not. The id is set here the way pytest 9.2 keeps it; with a pytest or an xdist where xdist's own naming
    works, the id already ends in the group and is left alone.

    The order: the most expensive work first: an xdist work unit (the tests of one ``xdist_group``, or one test) runs
    on one worker, and with ``--no-loadscope-reorder`` (the Makefile's) units are handed out in this order, so
    starting the longest ones first lets both workers finish together instead of one of them starting a
    two-minute test at the end. Only the order changes; every collected test still runs."""
    heavy = heavy_tests()
    if full_run() and not config.option.keyword and not config.option.markexpr and len(items) > 1000:
        # the whole suite collected: a line of heavy-tests.txt that matches no test has rotted
        unmatched = [n for n in heavy if not any(_is_heavy(i.nodeid.split("@", 1)[0], {n: ""}) for i in items)]
        if unmatched:
            raise pytest.UsageError(f"tests/heavy-tests.txt names tests that do not exist: {', '.join(unmatched)}")
    if not full_run():

        def plain(item: pytest.Item) -> str:
            return item.nodeid.split("@", 1)[0]

        dropped = [item for item in items if _is_heavy(plain(item), heavy)]
        if dropped:  # deselected, not skipped: they are not run here at all, and make test-full runs them
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if not _is_heavy(plain(item), heavy)]
    seconds = _measured_seconds()

    def unit(item: pytest.Item) -> str:  # as xdist's loadgroup names it (its own hook may run before this one)
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")})
        return "@" + "_".join(names) if names else item.nodeid

    def measured(item: pytest.Item) -> float:
        suffix = unit(item) if unit(item).startswith("@") else ""
        nodeid = item.nodeid.removesuffix(suffix) if suffix else item.nodeid
        return seconds.get(nodeid, 0.0)

    cost: dict[str, float] = {}
    for item in items:
        cost[unit(item)] = cost.get(unit(item), 0.0) + measured(item)
    # stable: tests without a measurement keep the collection order, after the measured ones
    items.sort(key=lambda item: -cost[unit(item)])
    if getattr(config.option, "loadgroup", False):  # an xdist worker of a --dist loadgroup run
        from _pytest.nodeid import NodeId

        for item in items:
            group = unit(item)
            if group.startswith("@") and not item.nodeid.endswith(group):
                item._id = NodeId.parse(item.nodeid + group)  # type: ignore[attr-defined]

