"""`unexpressed.differences` walks the intended and read-back dicts together; it lists what the leaf-by-leaf
lookup (every leaf of the intended state looked up by its dotted path from the root) lists, in the same
order, also for keys with dots in them, empty keys, None values, lists and mismatched shapes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from roceconf.intent.unexpressed import _compare, _get, _leaves
from tests.strategies import examples

KEYS = st.sampled_from(["a", "b", "platform", "mtu", "a.b", "", "0", "Ethernet1/1", "x.y.z"])
LEAF = st.one_of(st.none(), st.integers(-2, 2), st.booleans(), st.lists(st.integers(0, 2), max_size=2))
TREE = st.recursive(LEAF, lambda c: st.dictionaries(KEYS, c, max_size=4), max_leaves=20)


def by_path(want: dict, got: Any) -> list[tuple[str, Any, Any]]:
    out = []
    for path, value in _leaves(want):
        if value is None or path == "platform":
            continue
        have = _get(got, path)
        if have != value:
            out.append((path, value, have))
    return out


@settings(max_examples=examples(600), deadline=None)
@given(want=st.dictionaries(KEYS, TREE, max_size=5), got=TREE, same=st.booleans())
def test_walk_alongside_equals_lookup_by_path(want: dict, got: Any, same: bool) -> None:
    if same:  # mostly equal trees, as a render read back is: differences only where got was drawn
        got = {**want, **got} if isinstance(got, dict) else want
    out: list[tuple[str, Any, Any]] = []
    _compare(want, got, got, "", out)
    assert out == by_path(want, got)


@given(
    mode=st.sampled_from([None, "dwrr", "strict"]),
    bw=st.one_of(st.none(), st.integers(1, 100)),
    stated=st.booleans(),
)
def test_sched_copy_is_model_copy(mode: Any, bw: Any, stated: bool) -> None:
    """desired._sched_copy (each port's own Sched) is what pydantic's model_copy gives: equal, the same
    fields set (what model_dump(exclude_unset) shows), a separate object."""
    from roceconf.intent.desired import _sched_copy
    from roceconf.state import Sched

    m = Sched(mode=mode, bandwidth_percent=bw) if stated else Sched(mode=mode)
    a, b = _sched_copy(m), m.model_copy()
    assert a == b and a is not m
    assert a.model_fields_set == b.model_fields_set
    assert a.model_dump(exclude_unset=True) == b.model_dump(exclude_unset=True)
    assert a.model_dump_json() == b.model_dump_json()
    a.mode = "strict"
    assert m.mode == mode
