"""The intent loader's libyaml path gives what the ruamel path gives: the same data (values and their types),
the same positions of every key and value, the same diagnostics; what it does not answer falls back.

Differential: `load_yaml_text` (libyaml first) against `_ruamel_load` (the reference) over every shipped
intent, the distinct bench fabric, generated intents written in several YAML styles, and those texts with
YAML oddities inserted anywhere (tags, anchors, merge keys, directives, tabs, quotes, odd characters).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from roceconf import yamlsrc
from roceconf.diagnostics import DiagnosticError
from tests.strategies import examples, valid_intent
from tests.strategies import intent as any_intent

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(
    p
    for p in [*ROOT.glob("tests/intents/**/*.yml"), *ROOT.glob("inventories/**/*.yml")]
    if "intent" in str(p.relative_to(ROOT))
)


def _typed(x: Any) -> Any:
    """The value with the type of every node and key spelled out (1 == 1.0 == True must not pass)."""
    if isinstance(x, dict):
        return ("dict", [(type(k).__name__, repr(k), _typed(v)) for k, v in x.items()])
    if isinstance(x, list):
        return ("list", [_typed(v) for v in x])
    return (type(x).__name__, repr(x))


def outcome(load: Any, text: str) -> tuple:
    try:
        data, pos = load(text, "intent.yml")
    except DiagnosticError as e:
        return ("error", [(d.line, d.col, d.code, d.message, d.hint) for d in e.diagnostics])
    return ("ok", _typed(data), sorted(map(repr, pos.values.items())), sorted(map(repr, pos.keys.items())))


def reference(text: str, file: str) -> tuple[Any, yamlsrc.Positions]:
    """The ruamel path alone (after the same size and flow-depth checks)."""
    return yamlsrc.load_yaml_text(text, file, fast=False)


def same(text: str) -> None:
    assert outcome(yamlsrc.load_yaml_text, text) == outcome(reference, text)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_intents_same_data_and_positions(path: Path) -> None:
    same(path.read_text(encoding="utf-8"))


def test_shipped_intents_take_the_fast_path() -> None:
    """Not vacuous: the valid intents are read by libyaml (no fallback), the broken YAML ones by ruamel."""
    for name in ("inventories/pod/intent.yml", "inventories/lab/intent.yml", "tests/intents/plan/base.yml"):
        yamlsrc._fast_load((ROOT / name).read_text(encoding="utf-8"), name)
    for name in ("yaml_tag", "duplicate_key", "duplicate_nested_key", "yaml_syntax"):
        with pytest.raises(yamlsrc._Fallback):
            yamlsrc._fast_load((ROOT / f"tests/intents/broken/{name}.yml").read_text(encoding="utf-8"), name)


def test_distinct_bench_fabric_same_data_and_positions() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import fabricgen

    text = fabricgen.scaled("1k", distinct_devices=True)
    yamlsrc._fast_load(text, "intent.yml")
    same(text)


#: edits either path may take (the fast path answers most texts with them)
PLAIN_EDITS = [
    "'", '"', ",", "#", "\n", " ", "  ", "é", "~", "0x1F", "0o17", "1_000", "2026-01-01", "yes", "1e3", ".inf",
    "=", ": ", "- ", "null", "true", "07", "+1", "1:20", "\r\n", "key: [a, b]\n", "x: 'it''s'\n",
    'x: "\\x41\\u00e9\\/"\n', "x: |\n  a\n", "x: >-\n  a\n", "{a: 1}", "[1, 2]", "- a\n", "k: v\n",
]
#: edits the fast path leaves to ruamel (or libyaml refuses)
ODD_EDITS = [
    "&a ", "*a", "!!str ", "!x ", "<<: ", "<<: *a\n", "\t", "{", "}", "[", "]", "? ", "|\n", ">-\n",
    "%YAML 1.1\n---\n", "%TAG ! tag:x,2000:\n---\n", "---\n", "...\n", "\\", "\x85", "\u2028", "\x00",
    "\x7f", "\ufeff", "\r", "dup: 1\ndup: 2\n", "1: x\n", "? [a]\n: b\n", "x:\n",
]


def _dumps(data: dict, style: int, width: int, indent: int) -> str:
    if style == 0:
        return json.dumps(data, indent=indent if width > 60 else None)
    return yaml.safe_dump(
        data, sort_keys=False, default_flow_style={1: False, 2: None, 3: True}[style], width=width, indent=indent
    )


@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.one_of(any_intent(), valid_intent()),
    style=st.integers(0, 3),
    width=st.integers(20, 200),
    indent=st.integers(2, 6),
)
def test_generated_intents_same(data: dict, style: int, width: int, indent: int) -> None:
    text = _dumps(data, style, width, indent)
    yamlsrc._fast_load(text, "intent.yml")  # plain generated YAML: the fast path answers
    same(text)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=valid_intent(),
    style=st.integers(1, 3),
    edits=st.lists(
        st.tuples(
            st.floats(0, 1),
            st.one_of(st.sampled_from(PLAIN_EDITS), st.sampled_from(ODD_EDITS)),
            st.integers(0, 2),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_odd_yaml_same_answer(data: dict, style: int, edits: list[tuple[float, str, int]]) -> None:
    """Oddities inserted, replacing or deleting text anywhere: either path's answer (data, positions, or
    the diagnostic with its line and column) is the same."""
    text = _dumps(data, style, 80, 2)
    for where, snippet, how in edits:
        i = int(where * len(text))
        if how == 0:
            text = text[:i] + snippet + text[i:]
        elif how == 1:
            text = text[:i] + snippet + text[i + len(snippet) :]
        else:
            text = text[:i] + text[i + 1 :]
    try:
        yamlsrc._fast_load(text, "intent.yml")
        event("libyaml answers")
    except yamlsrc._Fallback:
        event("ruamel answers")
    same(text)


@pytest.mark.parametrize(
    "text",
    [
        "version: 1\nversion: 2\n",
        "a:\n  b: 1\n  b: 2\n",
        "a: &x {b: 1}\nc: *x\n",
        "a: &x [1]\nb: &y [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\nc: [*y, *y, *y, *y, *y, *y, *y, *y, *y, *y]\n",
        "base: &b {mtu: 9000}\nleaf:\n  <<: *b\n  x: 1\n",
        "a: !!str 1\n",
        "a: !custom x\n",
        "!!map {a: 1}\n",
        "1: a\n",
        "null: a\n",
        "true: a\n",
        "2026-01-01: a\n",
        "? [a, b]\n: c\n",
        "%YAML 1.1\n---\na: yes\nb: 010\n",
        "a: 1\n---\nb: 2\n",
        "just a scalar\n",
        "",
        "# only a comment\n",
        "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 70)) + "  " * 70 + "v: 1\n",
        "a: b\x85c: d\n",
        "a: 'x\u2028y'\n",
        "a: x\x01\n",
        "a: [1, 2\n",
        "a:\tb\n",
        "a: |\n  line\n   more\n\n",
        "a: >\n  folded\n  text\n",
        'a: "esc \\t \\x41 \\u00e9 \\/ \\N \\_"\n',
        "a: 0x1F\nb: 0o17\nc: 1_000\nd: 1e3\ne: .inf\nf: ~\ng: 2026-01-01 10:00:00\nh: +1\ni: 07\n",
        "\ufeffa: 1\n",
        "é: ü\nü: [é, 'ö']\n",
        "a: 1\r\nb:\r\n  - 2\r\n",
        "a:\n- 1\n- b: 2\n  c:\n",
    ],
)
def test_yaml_oddities_same_answer(text: str) -> None:
    same(text)
