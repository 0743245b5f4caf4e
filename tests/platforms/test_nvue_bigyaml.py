"""The large-document path of the NVUE reader (roceconf/platforms/nvue/bigyaml.py: libyaml's events, values
resolved by ruamel's own YAML 1.2 rules) builds the very tree the ruamel round-trip path builds - every key,
value and value type, line and source text - and a large document is read in linear time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from ruamel.yaml import YAML

from roceconf.platforms.nvue import syntax
from roceconf.render import render_state
from roceconf.state import DeviceState
from tests.hostile import harness
from tests.platforms.test_nvue import nvue_states
from tests.strategies import examples

ROOT = Path(__file__).resolve().parents[2]
FAST, SLOW = 0, 1 << 62


def _shape(x: Any) -> Any:
    """A tree as plain data that tells apart what == would not (True and 1, 1 and 1.0, the lines)."""
    if isinstance(x, syntax.Node):
        return ("node", x.line, x.text, [(k, _shape(v)) for k, v in x.items()])
    v = x.value
    return ("leaf", x.line, x.text, type(v).__mro__[-2 if type(v) is not object else -1].__name__, repr(v))


def _both(text: str) -> tuple[Any, Any, list[str], list[str]]:
    fast_st, slow_st = DeviceState(platform="nvue"), DeviceState(platform="nvue")
    fast = syntax._load_structured(text, fast_st, fast_bytes=FAST)
    slow = syntax._load_structured(text, slow_st, fast_bytes=SLOW)
    return _shape(fast), _shape(slow), [w.message for w in fast_st.warnings], [w.message for w in slow_st.warnings]


def _texts() -> list[tuple[str, str]]:
    out = []
    for p in sorted((ROOT / "tests" / "fixtures" / "nvue").glob("*")):
        if p.suffix in (".yaml", ".json", ".yml") and ".expected." not in p.name:  # configs, not expectations
            out.append((p.name, p.read_text(encoding="utf-8")))
    for p in sorted((ROOT / "tests" / "golden").glob("*.yaml")):
        out.append((p.name, p.read_text(encoding="utf-8")))
    return out


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[n for n, _ in _texts()])
def test_both_paths_build_the_same_tree_from_every_fixture(name: str, text: str) -> None:
    fast, slow, fw, sw = _both(text)
    assert fast == slow
    assert fw == sw == []


SCALARS = """\
- header: {model: x}
- set:
    system:
      hostname: leaf1
    a:
      yes: no
      on: off
      'quoted': "double"
      3: three
      '4': {}
      t: true
      T: True
      f: FALSE
      n1: ~
      n2: null
      n3:
      oct: 0o17
      zero: 010
      hex: 0x1F
      under: 1_000
      fl: 1.5
      exp: 1e3
      inf: .inf
      nan: .nan
      neg: -7
      date: 2002-12-14
      ver: 5.15.0
      size: 150KB
      block: |
        two
        lines
      folded: >
        one
        line
      flow: [1, two, {three: 3}]
      empty-map: {}
      empty-list: []
    # a comment
    interface:
      swp1-4:
        link: {mtu: 9216}
"""


def test_both_paths_resolve_every_scalar_form_alike() -> None:
    fast, slow, fw, sw = _both(SCALARS)
    assert fast == slow
    assert fw == sw
    fast, slow, _, _ = _both(SCALARS.replace("\n", "\r\n"))
    assert fast == slow


@settings(max_examples=examples(40), deadline=None)
@given(nvue_states())
def test_both_paths_build_the_same_tree_from_generated_renders(state: DeviceState) -> None:
    text = render_state(state)
    fast, slow, fw, sw = _both(text)
    assert fast == slow and fw == sw
    doc = YAML(typ="safe").load(text)
    as_json = json.dumps([{"header": {"model": "test"}}, *doc], indent=2)
    fast, slow, fw, sw = _both(as_json)
    assert fast == slow and fw == sw


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("- set: &a {x: 1}\n- set: *a\n", "anchors and aliases"),
        ("set: !!str 3\n", "explicit tag"),
        ("set: {a: 1, a: 2}\n", "duplicate key"),
        ("set:\n  <<: {a: 1}\n", "merge key"),
        ("set: {}\n---\nset: {}\n", "more than one YAML document"),
    ],
)
def test_what_the_fast_path_does_not_take_is_a_warning_never_a_guess(text: str, why: str) -> None:
    st = DeviceState(platform="nvue")
    tree = syntax._load_structured(text, st, fast_bytes=FAST)
    assert tree == syntax.Node()
    assert any(why in w.message and w.message.startswith("not evaluated") for w in st.warnings), st.warnings


def test_a_large_nvue_document_is_read_in_linear_time(tmp_path: Path) -> None:
    """About 27 MB of NVUE YAML (keys the parser does not model): the ruamel path took ~13 s per MB; read
    through the CLI it stays inside the hostile suite's 20 s and 1 GiB."""
    pad = "x" * 420  # long values: the tree stays under syntax.MAX_NODES (a larger tree is a warning, not read)
    body = "".join(f"      k{i}:\n        note: '{pad} {i}'\n        n: {i}\n" for i in range(60_000))
    p = tmp_path / "big.yaml"
    p.write_text("- set:\n    system:\n      hostname: big\n    extra:\n" + body, encoding="utf-8")
    assert p.stat().st_size > 25_000_000
    o = harness.run("parse", "--platform", "nvue", str(p), "--format", "json")
    harness.check(o, bad_input=False, rc=0)
    got = json.loads(o.stdout)
    assert got["hostname"] == "big" and not got["warnings"], got["warnings"]
