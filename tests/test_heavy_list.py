"""tests/heavy-tests.txt, the tests only ``make test-full`` runs: every line names a test that exists, and a lighter
test that exists and runs in ``make test`` (not itself heavy), so no assertion leaves CI without a sibling."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import _is_heavy, heavy_tests

ROOT = Path(__file__).parent.parent


def _defined(nodeid: str) -> bool:
    """A module path, or ``path::test_name[param]`` whose function is defined at the module's top level (a
    parameter that no longer exists is caught by ``make test-full``: tests/conftest.py fails a line that matches no
    collected test)."""
    path, _, name = nodeid.partition("::")
    f = ROOT / path
    if not f.is_file():
        return False
    if not name:
        return True
    func = name.partition("[")[0]
    tree = ast.parse(f.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == func for n in tree.body)


def test_every_heavy_test_exists_and_has_a_lighter_sibling_in_make_test() -> None:
    heavy = heavy_tests()
    assert len(heavy) >= 10
    for nodeid, sibling in heavy.items():
        assert _defined(nodeid), f"heavy-tests.txt names {nodeid}, which does not exist"
        assert _defined(sibling), f"heavy-tests.txt: {nodeid}'s lighter test {sibling} does not exist"
        assert not _is_heavy(sibling, heavy), f"heavy-tests.txt: {nodeid}'s lighter test {sibling} is heavy too"


def test_is_heavy_matches_a_test_its_parametrisations_and_a_module() -> None:
    heavy = {"tests/a.py::test_x": "s", "tests/b.py": "s", "tests/c.py::test_y[p1]": "s"}
    assert _is_heavy("tests/a.py::test_x", heavy) and _is_heavy("tests/a.py::test_x[1-2]", heavy)
    assert _is_heavy("tests/b.py::test_anything[q]", heavy)
    assert _is_heavy("tests/c.py::test_y[p1]", heavy) and not _is_heavy("tests/c.py::test_y[p2]", heavy)
    assert not _is_heavy("tests/a.py::test_xy", heavy) and not _is_heavy("tests/bb.py::test_z", heavy)
