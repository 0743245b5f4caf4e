"""No input, however broken, makes a parser raise: random, truncated and shuffled configs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf import platforms
from roceconf.state import DeviceState

FIXTURES = Path(__file__).parent / "fixtures"


def _corpus(plat: str) -> list[str]:
    d = FIXTURES / plat
    texts = (
        [
            p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(d.glob("*"))
            if p.is_file() and not p.name.endswith((".yaml", ".md"))
        ]
        if d.is_dir()
        else []
    )
    return texts or [""]


@pytest.mark.parametrize("plat", platforms.NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_parser_never_raises(plat: str, data: st.DataObject) -> None:
    corpus = _corpus(plat)
    base = data.draw(st.sampled_from(corpus))
    lines = base.splitlines(keepends=True)
    how = data.draw(st.sampled_from(["random", "truncate", "shuffle", "crlf", "splice", "delete"]))
    if how == "random":
        text = data.draw(st.text(max_size=2000))
    elif how == "truncate":
        text = base[: data.draw(st.integers(min_value=0, max_value=max(0, len(base))))]
    elif how == "shuffle":
        text = "".join(data.draw(st.permutations(lines))) if len(lines) < 400 else "".join(reversed(lines))
    elif how == "crlf":
        text = base.replace("\n", "\r\n")
    elif how == "delete":
        keep = data.draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        text = "".join(line for line, k in zip(lines, keep, strict=True) if k)
    else:
        junk = data.draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
        pos = data.draw(st.integers(min_value=0, max_value=len(lines)))
        text = "".join(lines[:pos]) + junk + "\n" + "".join(lines[pos:])
    state = platforms.get(plat).parse(text)
    assert isinstance(state, DeviceState)
    assert state.platform == plat
