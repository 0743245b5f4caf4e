"""NVUE link counters (``roceconf cabling``) against NVIDIA's own NVUE schema (PyPI ``nvueschema``, the models of
Cumulus Linux 5.0-5.18): the built fixture (tests/fixtures/nvue/counters/layout/link.schema.txt, see its
PROVENANCE.md) and the lab's answer are link objects the schema takes, key for key, where the schema has the key;
what the schema does not have (the operational ``stats``) is said, not assumed."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import get_args

import pytest

from roceconf.counters.model import PortCounters
from roceconf.platforms.base import split_outputs
from roceconf.platforms.nvue import counters as nv
from tests.conformance.nvue_schema import VERSIONS, model

FIXTURE = Path(__file__).parent / "fixtures" / "nvue" / "counters" / "layout" / "link.schema.txt"
#: the operational keys of the link answer that the configuration schema does not model (command reference names)
OPERATIONAL = {"stats", "oper-status", "admin-status"}


def link_model(release: str):
    model(release)  # strict: extra keys refused at any depth
    return importlib.import_module("nvueschema.models.v" + release.replace(".", "_")).NvueConfigInterfaceEntryLink


def answers() -> list[dict]:
    return [json.loads(out) for cmd, _line, out in split_outputs(FIXTURE.read_text()) if cmd.endswith("-o json")]


@pytest.mark.parametrize("release", ["5.15", "5.18"])  # the lab's release and the newest
def test_the_built_link_answers_are_the_schemas_link_object(release: str) -> None:
    m = link_model(release)
    fields = {f.alias or n for n, f in m.model_fields.items()}
    assert not OPERATIONAL & fields, "the schema now models the operational keys: read their names from it"
    for a in answers():
        m.model_validate({k: v for k, v in a.items() if k not in OPERATIONAL})  # raises on a key or value it refuses
        assert set(a) - OPERATIONAL <= fields


def test_every_schema_speed_is_read_and_auto_is_no_speed() -> None:
    for release in VERSIONS:
        m = importlib.import_module("nvueschema.models.v" + release.replace(".", "_")).NvueConfigInterfaceEntryLink
        speeds = {x for t in get_args(m.model_fields["speed"].annotation) for x in _literals(t)}
        assert {"1G", "100G", "400G"} <= speeds, release
        for s in speeds - {"auto"}:
            n, unit = int(s[:-1]), s[-1]
            assert nv.nv_speed_bps(s) == n * (10**9 if unit == "G" else 10**6), s
    assert nv.nv_speed_bps("auto") is None and nv.nv_speed_bps("1 Gb/s") is None and nv.nv_speed_bps(400) is None


def _literals(t) -> set[str]:
    args = get_args(t)
    if not args:
        return {t} if isinstance(t, str) else set()
    return {x for a in args for x in _literals(a)}


def test_the_lab_answer_is_the_schemas_link_object_and_reads_back() -> None:
    pc = PortCounters(link={"fcs_errors": 5, "carrier_transitions": 3, "rx_octets": 11, "tx_octets": 22,
                            "speed_bps": 400 * 10**9})
    outs = {c: nv.simulate({"swp9": pc}, c, {}) for c in nv.link_commands({"swp9": None})}
    link = json.loads(outs["nv show interface swp9 link -o json"])
    link_model("5.18").model_validate({k: v for k, v in link.items() if k not in OPERATIONAL})
    ports, warnings = nv.parse(outs)
    assert warnings == [] and ports["swp9"].link == pc.link


def test_a_port_that_is_down_has_no_speed_and_in_errors_is_not_fcs() -> None:
    outs = {c: o for c, _l, o in split_outputs(FIXTURE.read_text())}
    ports, _ = nv.parse(outs)
    assert "speed_bps" not in ports["swp2"].link  # down: no operational speed
    assert ports["swp1"].link["fcs_errors"] == 13  # the FCS Errors row, not in-errors (17) nor Total Errors


def test_answers_that_are_not_the_layout_read_nothing_and_say_so() -> None:
    ports, warnings = nv.parse({"nv show interface swp1 link -o json": "Error: not found",
                                "nv show interface swp1 counters errors": "Counter Receive\n"})
    assert ports == {} and warnings == ["nv show interface swp1 link -o json: not a JSON object",
                                        "nv show interface swp1 counters errors: no FCS Errors row"]
