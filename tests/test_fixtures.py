"""Recorded configs parse to their hand-written expected states.

Layout (like ntc-templates): tests/fixtures/<platform>/<case>.<ext> beside <case>.expected.yaml:

    state:            # the expected semantic state; omitted fields take the model defaults (null / empty)
      platform: eos
      ...
    warnings:         # optional; each entry must match one parser warning
      - {line: 12, contains: "not attached"}
    sources:          # optional; dotted path -> a line that must be among that value's source lines
      interfaces.Ethernet1.pfc: 20
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from roceconf import platforms
from roceconf.state import DeviceState

FIXTURES = Path(__file__).parent / "fixtures"


def _cases() -> list[tuple[str, Path, Path]]:
    out = []
    for plat in platforms.NAMES:
        d = FIXTURES / plat
        if not d.is_dir():
            continue
        for exp in sorted(d.glob("*.expected.yaml")):
            case = exp.name[: -len(".expected.yaml")]
            inputs = [p for p in d.iterdir() if p.name.startswith(case + ".") and p != exp]
            assert len(inputs) == 1, (
                f"{exp}: expected exactly one input file named {case}.<ext>, found {inputs}"
            )
            out.append((plat, inputs[0], exp))
    return out


CASES = _cases()


@pytest.mark.parametrize(("plat", "src", "expected"), CASES, ids=[f"{c[0]}/{c[1].name}" for c in CASES])
def test_fixture_parses_to_expected_state(plat: str, src: Path, expected: Path) -> None:
    want = YAML(typ="safe").load(expected.read_text())
    got = platforms.get(plat).parse(src.read_text(encoding="utf-8", errors="replace"))
    assert got.semantic() == DeviceState.model_validate(want["state"]).semantic()
    for w in want.get("warnings") or []:
        assert any(
            (w.get("line") is None or g.line == w["line"]) and w["contains"] in g.message
            for g in got.warnings
        ), f"no warning like {w} in {[(g.line, g.message) for g in got.warnings]}"
    for path, line in (want.get("sources") or {}).items():
        assert path in got.sources, f"no source recorded for {path}"
        assert line in got.sources[path].lines, f"{path}: {line} not in {got.sources[path].lines}"


def test_fixture_counts_meet_the_bar() -> None:
    """Each switch platform has >= 3 recorded real-world configs, each NIC format >= 2."""
    for plat in platforms.NAMES:
        n = sum(1 for c in CASES if c[0] == plat and not c[1].name.startswith("rendered"))
        need = 3 if plat in platforms.SWITCHES else 2
        assert n >= need, f"{plat}: {n} real-world fixtures, need {need}"
