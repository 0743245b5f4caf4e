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
    """Each switch platform has >= 3 real-world configs not produced by roceconf."""
    for plat in platforms.SWITCHES:
        n = sum(1 for c in CASES if c[0] == plat and not c[1].name.startswith("rendered"))
        assert n >= 3, f"{plat}: {n} real-world fixtures, need 3"


#: Where a host read-back bundle comes from (the ``provenance`` key of its expected file):
#: device = tool output captured on a real device (published, or recorded for this project);
#: tool = output of the real tool whose kernel answers were supplied by a recorder (see the fixture README);
#: documentation = an example printed in a manual or man page; constructed = assembled for this project.
PROVENANCE = {"device", "tool", "documentation", "constructed"}
RECORDED = {"device", "tool"}

#: Recorded outputs required per host read-back format. bnxt_re configfs has none: no capture of it is
#: published anywhere we could find, and no Broadcom NIC was at hand; its only bundle is constructed from
#: the driver's print formats (tests/fixtures/bnxt/README.md).
NIC_FORMAT_MINIMUM = {"mlnx_qos": 2, "dcb-text": 2, "dcb-json": 2, "ip-json-link": 2, "bnxt-configfs": 0}


def _blocks(text: str) -> list[tuple[str, str]]:
    """A read-back bundle as [(command, output)]."""
    out: list[tuple[str, str]] = []
    for chunk in text.split("#>>> ")[1:]:
        cmd, _, body = chunk.partition("\n")
        out.append((cmd.strip(), body.strip()))
    return out


def nic_formats(text: str) -> set[str]:
    """The read-back formats a bundle holds with real content (error answers do not count)."""
    found: set[str] = set()
    for cmd, body in _blocks(text):
        argv = cmd.split()
        if not argv or not body or "not supported" in body or "No such" in body:
            continue
        if argv[0] == "mlnx_qos" and "PFC" in body:
            found.add("mlnx_qos")
        elif argv[0] == "dcb":
            found.add("dcb-json" if "-j" in argv and body.startswith("{") else "dcb-text")
        elif argv[0] == "ip" and "-j" in argv and "link" in argv and body.startswith("["):
            found.add("ip-json-link")
        elif argv[0] == "cat" and "/sys/kernel/config/bnxt_re/" in cmd:
            found.add("bnxt-configfs")
    return found


def test_nic_fixtures_state_their_provenance() -> None:
    for plat, _src, exp in CASES:
        if plat in platforms.SWITCHES:
            continue
        want = YAML(typ="safe").load(exp.read_text())
        assert want.get("provenance") in PROVENANCE, f"{exp}: provenance must be one of {sorted(PROVENANCE)}"


def test_nic_format_counts_meet_the_bar() -> None:
    """Per host read-back format, count bundles recorded from a device or the real tool."""
    counts = dict.fromkeys(NIC_FORMAT_MINIMUM, 0)
    for plat, src, exp in CASES:
        if plat in platforms.SWITCHES:
            continue
        if YAML(typ="safe").load(exp.read_text()).get("provenance") not in RECORDED:
            continue
        for fmt in nic_formats(src.read_text(encoding="utf-8", errors="replace")):
            counts[fmt] += 1
    print("recorded host read-backs per format:", counts)
    for fmt, need in NIC_FORMAT_MINIMUM.items():
        assert counts[fmt] >= need, f"{fmt}: {counts[fmt]} recorded outputs, need {need}"


def test_nic_format_detection() -> None:
    bundle = (
        "#>>> dcb -j pfc show dev v0\nAttribute read: Operation not supported\n"
        "#>>> dcb -j app show dev e0\n{\"dscp_prio\":[[26,3]]}\n"
        "#>>> dcb pfc show dev e0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n"
        "#>>> ip -j link show dev e0\n[{\"ifname\":\"e0\",\"mtu\":9000}]\n"
    )
    assert nic_formats(bundle) == {"dcb-json", "dcb-text", "ip-json-link"}
    assert nic_formats("#>>> dcb -j pfc show dev v0\nAttribute read: Operation not supported\n") == set()
