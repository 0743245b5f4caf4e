"""Counter parsers of every platform: recorded / documented fixtures, round trips through the lab's
formatter, and fuzzed outputs that never raise."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from roceconf import platforms
from roceconf.counters.hostnic import with_end
from roceconf.counters.model import PORT_COUNTERS, PRIO_COUNTERS, PortCounters
from roceconf.platforms.base import split_outputs

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(
    (p.relative_to(FIXTURES).parts[0], p)
    for p in FIXTURES.glob("*/counters/**/*.txt")
    if p.with_suffix(".expected.yaml").exists()
)


def _outputs(path: Path) -> dict[str, str]:
    return {cmd: out for cmd, _line, out in split_outputs(path.read_text())}


def test_every_platform_has_counter_fixtures_with_a_readme() -> None:
    assert {plat for plat, _ in CASES} == set(platforms.NAMES)
    for plat in platforms.NAMES:
        readme = FIXTURES / plat / "counters" / "README.md"
        text = readme.read_text()
        assert "licence" in text.lower() and "source" in text.lower(), readme
        # a fixture that is not a recording says so
        if any((FIXTURES / plat / "counters").glob("documented-fields*.txt")):
            assert "built from documented field names" in text, readme
        if any((FIXTURES / plat / "counters").glob("schema-names*.txt")):
            assert "built from the schema's names, not a recording" in text, readme


@pytest.mark.parametrize(("plat", "path"), CASES, ids=[f"{p}/{f.name}" for p, f in CASES])
def test_fixture_parses_to_expected_counters(plat: str, path: Path) -> None:
    ports, warnings = platforms.counters(plat).parse(_outputs(path))
    expected = yaml.safe_load(path.with_suffix(".expected.yaml").read_text())
    if "warnings" in expected:  # a recording that needs a note (multi-ASIC backplane ports)
        assert warnings == expected["warnings"]
        expected = expected["ports"]
    else:
        assert warnings == []
    assert {n: p.to_dict() for n, p in ports.items()} == expected


def test_sonic_recorded_values() -> None:
    """Spot values read off the recorded sonic-utilities outputs by hand."""
    ports, _ = platforms.counters("sonic").parse(_outputs(FIXTURES / "sonic/counters/sonic-utilities.txt"))
    e0, e4, e8 = ports["Ethernet0"], ports["Ethernet4"], ports["Ethernet8"]
    assert e0.prio["pfc_rx"][0] == 1200 and e0.prio["pfc_tx"][3] == 213 and e8.prio["pfc_tx"][0] == 1810
    assert e0.prio["queue_drops"] == {0: 0, 1: 39, 2: 39, 3: 19, 4: 12, 5: 35, 6: 2, 7: 94}  # UC8+/MC ignored
    assert e4.prio["pg_drops"][3] == 403
    assert (e0.prio["wd_detected"], e0.prio["wd_restored"], e0.wd_shut) == ({3: 1}, {3: 0}, [3])
    assert e4.wd_shut == [] and e8.wd_shut == [4] and e8.prio["wd_detected"] == {4: 3}
    wred, _ = platforms.counters("sonic").parse(_outputs(FIXTURES / "sonic/counters/sonic-mgmt-wred.txt"))
    assert wred["Ethernet0"].prio["ecn_marked"] == {0: 0, 1: 1032731, 2: 32098257, 3: 3454820, 4: 32110021}


# ----------------------------------------------------------------------------------- round trips
PORTS = {
    "eos": ["Ethernet1", "Ethernet2"],
    "nxos": ["Ethernet1/1"],
    "nvue": ["swp1", "swp2"],
    "sonic": ["Ethernet0", "Ethernet8"],
    "junos": ["et-0/0/1"],
    "connectx": ["eth0", "eth1"],
    "bnxt": ["eth0"],
    "linux-dcb": ["eth0", "eth1"],
}
values = st.integers(min_value=0, max_value=2**48)


@st.composite
def port_counters(draw: st.DrawFn) -> PortCounters:
    pc = PortCounters()
    for c in PRIO_COUNTERS:
        for p in range(8):
            pc.set_prio(c, p, draw(values))
    for c in PORT_COUNTERS:
        pc.set_port(c, draw(values))
    pc.set_gauge("queue_watermark_bytes", 3, draw(values))
    pc.wd_shut = sorted(draw(st.sets(st.integers(0, 7))))
    return pc


def _expressed(plat: str, pc: PortCounters) -> dict:
    """What the platform's commands carry of a PortCounters: the same fields its own formatter writes."""
    spec = platforms.counters(plat)
    names = PORTS[plat][:1]
    rdma = {n: f"dev{i}" for i, n in enumerate(names)}
    outs = {c: spec.simulate({names[0]: pc}, c, rdma) for c in spec.commands(rdma)}
    if spec.transport == "shell":  # the host bundle prints its end mark after every output
        outs = {c: with_end(o or "") for c, o in outs.items()}
    got, warnings = spec.parse(outs)
    assert warnings == []
    return got[names[0]].to_dict()


@pytest.mark.parametrize("plat", platforms.NAMES)
@settings(max_examples=40, deadline=None)
@given(pc=port_counters())
def test_parse_reads_what_the_device_format_carries(plat: str, pc: PortCounters) -> None:
    got = _expressed(plat, pc)
    for c, per in got["prio"].items():
        for p, v in per.items():
            src = pc.prio[c][int(p)]
            if c == "queue_drops" and plat in ("junos", "nvue"):
                continue  # these platforms add two vendor counters into one (the lab writes 0 into the second)
            assert v == src, (plat, c, p)
    for c, v in got["port"].items():
        assert v == pc.port[c], (plat, c)
    assert got["prio"], plat  # every platform reads PFC frames at least
    assert "pfc_rx" in got["prio"] and "pfc_tx" in got["prio"]


# ----------------------------------------------------------------------------------- fuzzing
junk = st.text(alphabet=string.printable + "éü\x00\t", max_size=400)
jsonish = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=12), kids, max_size=5),
    max_leaves=30,
)


@pytest.mark.parametrize("plat", platforms.NAMES)
@settings(max_examples=60, deadline=None)
@given(texts=st.lists(junk | jsonish.map(json.dumps), min_size=1, max_size=6))
def test_fuzzed_counter_outputs_never_raise(plat: str, texts: list[str]) -> None:
    spec = platforms.counters(plat)
    cmds = spec.commands({p: "dev0" for p in PORTS[plat]})
    outputs = {cmds[i % len(cmds)]: t for i, t in enumerate(texts)}
    ports, warnings = spec.parse(outputs)
    assert isinstance(ports, dict) and isinstance(warnings, list)
    for pc in ports.values():
        for per in pc.prio.values():
            assert all(0 <= p <= 7 and v >= 0 for p, v in per.items())


@pytest.mark.parametrize(("plat", "path"), CASES, ids=[f"{p}/{f.name}" for p, f in CASES])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_truncated_and_mangled_fixtures_never_raise(plat: str, path: Path, data: st.DataObject) -> None:
    outs = _outputs(path)
    mangled = {}
    for cmd, text in outs.items():
        cut = data.draw(st.integers(0, len(text)))
        mangled[cmd] = text[:cut] + data.draw(st.sampled_from(["", "}", "N/A", "\r\n", "-----", "99999999999999999999999"]))
    ports, warnings = platforms.counters(plat).parse(mangled)
    assert isinstance(ports, dict) and isinstance(warnings, list)
