"""The EOS parser's lazy per-port sources (``LazySources`` groups for ports that attach a qos profile) are
observably the eager parser's sources: same keys in the same order, same Source values, same dumps, the same
``lines_of``/``line_of`` for every path, and they survive pickling and copies.

The reference is the eager parser as it was before the lazy form: ``from_profile`` writing one Source per
inherited field per port, the general ``top_line`` for every line and pydantic's ``model_copy`` for ports of
equal settings (kept here, the only copy of that path)."""

from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.bench_drift_peer import _changed, _forms
from bench.drift_faults import faulted_configs
from roceconf.compile import load_valid, render_fabric
from roceconf.platforms.eos import parser as eos_mod
from roceconf.platforms.eos.parser import _at, _Block, _Parser, parse, parse_shared
from roceconf.state import DeviceState, LazySources, Source

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "eos"
PROFILE = """qos profile P
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   uc-tx-queue 3
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
   uc-tx-queue 6
      priority strict
!
"""


def _eager_from_profile(
    self: _Parser, name: str, blk: _Block, prof: _Block, attach_line: int
) -> dict[str, Any] | None:
    """``_Parser.from_profile`` before the lazy sources (verbatim but for this docstring)."""
    view = self.views.get(id(prof))
    if view is None:
        scratch = _Parser("")
        fields = scratch.merge("", _Block(0, ""), prof)
        suffixes = [(path[len("interfaces.") :], v.lines, v.text) for path, v in scratch.sources.items()]
        view = self.views[id(prof)] = (fields, suffixes)
    fields, suffixes = view
    sources = self.sources
    base = f"interfaces.{name}"
    key = (id(prof), attach_line)
    shared = self.shared.get(key)
    if shared is None:
        of = Source.of
        shared = self.shared[key] = [
            (
                suffix,
                of(
                    ([line, attach_line] if line < attach_line else [attach_line, line])
                    if len(lines) == 1 and (line := lines[0])
                    else sorted({*lines, attach_line}),
                    text,
                ),
            )
            for suffix, lines, text in suffixes
        ]
    for suffix, src in shared:
        sources[base + suffix] = src
    mtu = pause = None
    if blk.mtu is not None:
        mtu = blk.mtu[0]
        sources[base + ".mtu"] = self.source((blk.mtu[1],), blk.mtu[2])
    if blk.fc:
        pause = any(v[0] for v in blk.fc.values())
        _at(sources, f"{base}.link_pause", [v[1] for v in blk.fc.values()], next(iter(blk.fc.values()))[2])
    self.port_keys[name] = (id(view), mtu, pause)
    if fields is None:
        if mtu is None and pause is None:
            return None
        return {"mtu": mtu, "link_pause": pause}
    out = dict(fields)
    out["pfc"] = dict(fields["pfc"])
    out["mtu"] = mtu
    out["link_pause"] = pause
    return out


@contextmanager
def _eager() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_Parser, "from_profile", _eager_from_profile)
        m.setattr(_Parser, "top_line", _Parser.top_line_general)
        m.setattr(eos_mod, "_copy_port", lambda model: model.model_copy())
        yield


def _configs() -> dict[str, str]:
    out = {p.name: p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.cfg"))}
    for inv in ("lab", "pod"):
        fab = load_valid(ROOT / "inventories" / inv / "intent.yml")
        eos = {n for n, d in fab.devices.items() if d.platform == "eos"}
        shapes: set[str] = set()  # one config per shape (the leaves of one entry differ by hostname only)
        for f, t in render_fabric(fab).items():
            shape = re.sub(r"^hostname .*$", "", t, flags=re.M)
            if f.rsplit(".", 1)[0] in eos and shape not in shapes:
                shapes.add(shape)
                out[f"{inv}/{f}"] = t
        files, faults = faulted_configs(fab, 8)
        out.update((f"{inv}/faulted/{f}", t) for f, t in files.items() if f.rsplit(".", 1)[0] in faults)
    for label, text in _forms().items():
        out[f"bench {label}"] = text
        out[f"bench {label} changed"] = _changed(text)
    ports = "".join(f"interface Ethernet{n}\n   mtu 9214\n   service-profile P\n!\n" for n in range(1, 9))
    out["all off"] = PROFILE + ports + "priority-flow-control all off\n"
    out["all off first"] = "priority-flow-control all off\n" + PROFILE + ports
    out["mixed"] = (
        "hostname h\nqos map dscp 26 to traffic-class 3\n"
        + PROFILE
        + "qos profile EMPTY\n!\nqos profile Q\n   qos trust cos\n!\n"
        + "interface Ethernet1-4\n   service-profile P\n   flowcontrol send off\n   flowcontrol receive on\n!\n"
        + "interface Ethernet5\n   service-profile P\n   qos trust cos\n!\n"  # override: the general merge
        + "interface Ethernet6\n   service-profile EMPTY\n!\ninterface Ethernet7\n   service-profile EMPTY\n   mtu 9000\n!\n"
        + "interface Ethernet8\n   service-profile MISSING\n   mtu 1500\n!\n"
        + "interface Port-Channel10\n   service-profile Q\n!\ninterface Ethernet9/1\n   service-profile P\n!\n"
        + "interface Ethernet10\n   service-profile P\n!\ninterface Ethernet10\n   mtu 9100\n!\n"  # two stanzas
        + "ip load-sharing trident fields ip source-ip destination-ip\n"
    )
    return out


CONFIGS = _configs()


def _paths(st: DeviceState) -> list[str]:
    """Every source path, its parents and children, and paths nothing states."""
    out = {"", "interfaces", "interfaces.Nope", "interfaces.Nope.pfc", "hostname.x", "x.y.z"}
    for p in dict(st.sources):
        out.add(p)
        out.update((f"{p}.child", f"{p}.pfc.no_drop", f"{p}.ecn.3.max_bytes", p + "x"))
        parts = p.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    for name in st.interfaces:
        out.update(f"interfaces.{name}.{f}" for f in ("mtu", "trust", "pfc", "pfc.enabled", "link_pause", "rdma"))
    return sorted(out)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_lazy_sources_are_the_eager_ones(name: str) -> None:
    text = CONFIGS[name]
    with _eager():
        eager = parse(text)
    assert type(eager.sources) is dict
    paths = _paths(eager)
    lazy = parse(text)
    grouped = type(lazy.sources) is LazySources
    if name.startswith(("bench profile-form", "all off", "mixed")):
        assert grouped and dict.__len__(lazy.sources) < len(eager.sources), "profile ports are not lazy"
    # single lookups first, on an unsettled mapping: what line_of / lines_of / get / [] / in see
    for p in paths:
        assert lazy.lines_of(p) == eager.lines_of(p), p
        assert lazy.line_of(p) == eager.line_of(p) and lazy.line_of(p, last=True) == eager.line_of(p, last=True)
        assert (p in lazy.sources) is (p in eager.sources), p
        assert lazy.sources.get(p) == eager.sources.get(p), p
        if p in eager.sources:
            assert lazy.sources[p] == eager.sources[p] and lazy.sources[p] is lazy.sources[p]
        else:
            with pytest.raises(KeyError):
                lazy.sources[p]
    assert len(lazy.sources) == len(eager.sources) and bool(lazy.sources) is bool(eager.sources)
    # copies and pickles of an unsettled state
    fresh = parse(text)
    for other in (
        pickle.loads(pickle.dumps(fresh)),
        pickle.loads(pickle.dumps(fresh, protocol=0)),
        fresh.model_copy(deep=True),
        fresh.model_copy(),
        copy.deepcopy(fresh),
        DeviceState.model_validate(fresh.model_dump()),
        DeviceState.model_validate_json(parse(text).model_dump_json()),
    ):
        assert list(other.sources.items()) == list(eager.sources.items())
        assert other == eager and eager == other
    assert list(fresh.sources.copy().items()) == list(eager.sources.items())
    assert list(copy.copy(parse(text).sources).items()) == list(eager.sources.items())
    # the whole mapping, each way on a fresh parse
    views = {
        "dict": lambda s: list(dict(s).items()),
        "**": lambda s: list({**s}.items()),
        "items": lambda s: list(s.items()),
        "keys/values": lambda s: list(zip(s.keys(), s.values(), strict=True)),
        "iter": lambda s: [(k, s[k]) for k in s],
        "|": lambda s: list((s | {}).items()),
        "ror": lambda s: list(({} | s).items()),
        "reversed": lambda s: [(k, s[k]) for k in reversed(s)][::-1],
    }
    for label, view in views.items():
        assert view(parse(text).sources) == list(eager.sources.items()), label
    assert repr(parse(text).sources) == repr(eager.sources)
    assert parse(text).sources == eager.sources and eager.sources == parse(text).sources
    assert not (parse(text).sources != eager.sources)
    assert parse(text) == eager and eager == parse(text)
    for kw in ({}, {"mode": "json"}, {"exclude": {"interfaces"}}):
        assert parse(text).model_dump(**kw) == eager.model_dump(**kw), kw
    assert parse(text).model_dump_json() == eager.model_dump_json()
    assert parse(text).semantic() == eager.semantic()
    # and once settled, still the same
    assert list(lazy.sources.items()) == list(eager.sources.items()) and lazy == eager
    assert [lazy.lines_of(p) for p in paths] == [eager.lines_of(p) for p in paths]
    # ports are distinct objects (callers mutate parsed states), as model_copy made them
    assert len({id(i) for i in lazy.interfaces.values()}) == len(lazy.interfaces)
    assert [i.model_fields_set for i in lazy.interfaces.values()] == [
        i.model_fields_set for i in eager.interfaces.values()
    ]
    # the hostname memo copies the lazy sources lazily, and gets its own hostname entry
    memo: dict = {}
    first, second = parse_shared(text, memo), parse_shared(text.replace("hostname ", "hostname x", 1), memo)
    assert first == eager
    if "hostname x" in text.replace("hostname ", "hostname x", 1) and "hostname" in eager.sources:
        with _eager():
            want = parse(text.replace("hostname ", "hostname x", 1))
        if grouped:
            assert dict.__len__(second.sources) < len(second.sources), "the memo copy settled the sources"
        assert list(second.sources.items()) == list(want.sources.items()) and second == want


def test_interface_override_of_a_profile_entry_keeps_its_place() -> None:
    """``all off`` rewrites every port's inherited ``.pfc`` entry: merged lines, the eager position."""
    text = CONFIGS["all off"]
    st = parse(text)
    with _eager():
        eager = parse(text)
    assert st.lines_of("interfaces.Ethernet1.pfc") == eager.lines_of("interfaces.Ethernet1.pfc")
    assert len(st.lines_of("interfaces.Ethernet1.pfc")) == 4  # on, priority, the attach line, all off
    assert list(st.sources) == list(eager.sources)
