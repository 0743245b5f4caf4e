"""``LazySources``: a dict whose per-port inherited entries are built when looked at, indistinguishable from
the dict the entries would have been written into one by one (``eager`` below)."""

from __future__ import annotations

import copy
import json
import pickle
import threading

import pytest

from roceconf.state import DeviceState, LazySources, Source

TABLE = ((".trust", (3,), "qos trust dscp"), (".pfc", (4, 5), "priority-flow-control on"))


def lazy() -> LazySources:
    s = LazySources({"hostname": Source.of([1], "hostname h")})
    for n, port in enumerate(("E1", "E2", "E3")):
        s.inherit(f"interfaces.{port}", 20 + 3 * n, TABLE, ((".mtu", (21 + 3 * n,), "mtu 9214"), ("", (19 + 3 * n,), f"interface {port}")))
        dict.__setitem__(s, f"interfaces.{port}.link_pause", Source.of([22 + 3 * n], "flowcontrol send off"))
    dict.__setitem__(s, "ecmp.fields", Source.of([90], "ip load-sharing"))
    return s


def eager() -> dict[str, Source]:
    s = {"hostname": Source.of([1], "hostname h")}
    for n, port in enumerate(("E1", "E2", "E3")):
        attach = 20 + 3 * n
        s[f"interfaces.{port}.trust"] = Source.of([3, attach], "qos trust dscp")
        s[f"interfaces.{port}.pfc"] = Source.of(sorted({4, 5, attach}), "priority-flow-control on")
        s[f"interfaces.{port}.mtu"] = Source.of([21 + 3 * n], "mtu 9214")
        s[f"interfaces.{port}"] = Source.of([19 + 3 * n], f"interface {port}")
        s[f"interfaces.{port}.link_pause"] = Source.of([22 + 3 * n], "flowcontrol send off")
    s["ecmp.fields"] = Source.of([90], "ip load-sharing")
    return s


def test_it_is_lazy_until_the_whole_mapping_is_seen() -> None:
    s = lazy()
    assert dict.__len__(s) == 5 and len(s) == len(eager()) == 17
    assert s["interfaces.E2.pfc"] == eager()["interfaces.E2.pfc"] and dict.__len__(s) == 5
    assert list(s.items()) == list(eager().items()) and dict.__len__(s) == 17


def test_assigning_an_inherited_entry_keeps_its_place() -> None:
    s, e = lazy(), eager()
    s["interfaces.E1.pfc"] = e["interfaces.E1.pfc"] = Source.of([4, 5, 20, 99], "x")
    s["new"] = e["new"] = Source.of([100], "y")
    assert len(s) == len(e) and list(s.items()) == list(e.items())


def test_a_looked_up_source_is_the_one_kept() -> None:
    s = lazy()
    src = s["interfaces.E3.trust"]
    src.lines.append(77)  # a caller changing the object it was given
    assert s.get("interfaces.E3.trust") is src and dict(s)["interfaces.E3.trust"].lines == [3, 26, 77]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.pop("interfaces.E2.trust"),
        lambda d: d.pop("nope", None),
        lambda d: d.__delitem__("interfaces.E1"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("interfaces.E1.mtu", Source.of([1], "z")),
        lambda d: d.setdefault("other", Source.of([1], "z")),
        lambda d: d.update({"interfaces.E3.pfc": Source.of([1], "z"), "w": Source.of([2], "w")}),
        lambda d: d.update(k=Source.of([3], "k")),
        lambda d: d.__ior__({"interfaces.E1.trust": Source.of([1], "z")}),
        lambda d: d.clear(),
    ],
)
def test_changes_act_as_on_the_eager_dict(change) -> None:
    s, e = lazy(), eager()
    assert change(s) == change(e)
    assert list(s.items()) == list(e.items()) and len(s) == len(e)


def test_copies_pickles_and_comparisons() -> None:
    e = eager()
    for other in (
        lazy().copy(),
        copy.copy(lazy()),
        copy.deepcopy(lazy()),
        pickle.loads(pickle.dumps(lazy())),
        pickle.loads(pickle.dumps(lazy(), protocol=0)),
    ):
        assert type(other) is LazySources and dict.__len__(other) == 5  # still lazy
        assert list(other.items()) == list(e.items())
    deep, orig = copy.deepcopy(lazy()), lazy()
    deep["interfaces.E1.trust"].lines.append(1)
    assert orig["interfaces.E1.trust"].lines == [3, 20]
    assert lazy() == e and e == lazy() and lazy() == lazy() and not (lazy() != e)
    assert lazy() != {**e, "x": Source.of([1], "")} and (lazy() == {}) is False
    assert repr(lazy()) == repr(e) and list(reversed(lazy())) == list(reversed(e))
    assert list(lazy() | {}) == list(e) and list({} | lazy()) == list(e)
    assert json.dumps({k: v.lines for k, v in lazy().items()}) == json.dumps({k: v.lines for k, v in e.items()})


def test_pydantic_keeps_it_and_dumps_every_entry() -> None:
    s = lazy()
    st = DeviceState.model_validate({"platform": "eos", "sources": s})
    assert st.sources is s and dict.__len__(s) == 5
    ref = DeviceState(platform="eos", sources=eager())
    assert type(ref.sources) is dict
    assert st.model_dump_json() == ref.model_dump_json()
    st2 = DeviceState.model_validate({"platform": "eos", "sources": lazy()})
    assert st2 == ref and ref == st2
    assert DeviceState.model_validate({"platform": "eos", "sources": lazy()}).model_dump(mode="json") == ref.model_dump(
        mode="json"
    )
    assert {"sources": "x"} != st2.semantic() and "sources" not in st2.semantic()
    with pytest.raises(ValueError):
        DeviceState.model_validate({"platform": "eos", "sources": {"a": {"lines": "x"}}})


def test_readers_in_other_threads_never_see_a_half_settled_mapping() -> None:
    for _ in range(20):
        s = lazy()
        keys = list(eager())
        bad: list[str] = []

        def read(s=s, keys=keys, bad=bad) -> None:
            for _ in range(200):
                for k in keys:
                    if s.get(k) is None or k not in s:
                        bad.append(k)

        threads = [threading.Thread(target=read) for _ in range(3)]
        for t in threads:
            t.start()
        s.settle()
        for t in threads:
            t.join()
        assert not bad


def test_a_port_is_registered_once() -> None:
    s = lazy()
    with pytest.raises(ValueError, match="already recorded"):
        s.inherit("interfaces.E1", 50, TABLE)
    dict.__setitem__(s, "interfaces.E9", Source.of([60], "interface E9"))
    with pytest.raises(ValueError, match="already recorded"):
        s.inherit("interfaces.E9", 61, TABLE)
    assert list(s.items()) == [*eager().items(), ("interfaces.E9", Source.of([60], "interface E9"))]
