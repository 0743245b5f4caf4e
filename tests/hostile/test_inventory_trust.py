"""An inventory runs code by design (issue 24, item 15): the docs say so plainly where inventories are
introduced, so nobody feeds an untrusted inventory (a pull request's, in CI) to roceconf."""

from __future__ import annotations

import re

from tests.hostile import harness

DOCS = harness.ROOT / "docs"


def _flat(name: str) -> str:
    return re.sub(r"\s+", " ", (DOCS / name).read_text())


def test_ansible_and_cli_docs_say_an_inventory_runs_code() -> None:
    for name in ("ansible.md", "cli.md"):
        text = _flat(name)
        assert re.search(r"inventory runs code|--inventory FILE` runs code", text), name
        # both ways code runs: an executable inventory (script or plugin) and lookups in variables
        assert "executable inventory" in text and "lookup" in text, name
        assert re.search(r"never (be )?give", text, re.I), name
