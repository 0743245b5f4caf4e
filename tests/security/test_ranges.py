"""Ranges: malformed ones are errors naming the position; a step syntax for port numbering (item 10)."""

from __future__ import annotations

import pytest

from roceconf.intent import load_text
from roceconf.names import RangeError, expand_interfaces, expand_names

BASE = """version: 1
fabric: t
devices:
  - name: "{dev}"
    platform: sonic
    role: leaf
    interfaces:
      - {{name: "{itf}", speed: 400G}}
"""


def _diags(dev: str = "leaf1", itf: str = "Ethernet0") -> list[str]:
    fab = load_text(BASE.format(dev=dev, itf=itf), "r.yml")
    return [f"{d.line}:{d.col} {d.code} {d.message}" for d in fab.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(
    ("dev", "expect"),
    [
        ("leaf[1-2x]", "4:11 RC006 malformed range item '1-2x' at character 6 of 'leaf[1-2x]'"),
        ("leaf[1-2", "4:11 RC006 '[' at character 5 of 'leaf[1-2' is not closed"),
        ("leaf1-2]", "4:11 RC006 ']' without '[' at character 8 of 'leaf1-2]'"),
        ("leaf[1,,2]", "4:11 RC006 empty item at character 8 of 'leaf[1,,2]'"),
        ("leaf[3-1]", "4:11 RC006 range '3-1' runs backwards at character 6 of 'leaf[3-1]'"),
        ("leaf[0-8/0]", "4:11 RC006 range '0-8/0' has step 0 at character 6 of 'leaf[0-8/0]'"),
    ],
)
def test_malformed_device_range_names_the_position(dev: str, expect: str) -> None:
    assert _diags(dev=dev)[0].startswith(expect)


def test_malformed_interface_range_is_an_error_not_a_literal() -> None:
    d = _diags(itf="Ethernet[0-504/8x]")
    assert d[0].startswith("8:16 RC006 malformed range item '0-504/8x' at character 10")


def test_step_syntax_for_sonic_port_numbering() -> None:
    assert expand_interfaces("Ethernet[0-504/8]") == [f"Ethernet{i}" for i in range(0, 505, 8)]
    assert expand_names("Ethernet[0-20/8]") == ["Ethernet0", "Ethernet8", "Ethernet16"]
    fab = load_text(BASE.format(dev="leaf[01-02]", itf="Ethernet[0-504/8]"), "r.yml")
    assert fab.diagnostics == []
    assert sorted(fab.devices) == ["leaf01", "leaf02"]
    assert len(fab.devices["leaf01"].ports) == 64 and "Ethernet504" in fab.devices["leaf01"].ports


def test_huge_ranges_are_refused_before_they_are_built() -> None:
    with pytest.raises(RangeError, match="more than"):
        expand_names("gpu[0-99999][0-99999]")
    assert _diags(dev="gpu[0-999999][0-999999]")[0].startswith("4:11 RC022 range '0-999999' has more than")
    assert _diags(itf="Ethernet1-999999")[0].startswith(
        "8:16 RC022 interface range 'Ethernet1-999999' has more than 4096"
    )
