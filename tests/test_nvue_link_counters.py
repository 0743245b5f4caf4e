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

FIXTURE = Path(__file__).parent / "fixtures" / "nvue" / "counters" / "layout" / "link.schema.txt"
#: the operational keys of the link answer that the configuration schema does not model (command reference names)
OPERATIONAL = {"stats", "oper-status", "admin-status"}


def link_model(release: str):
    """The release's model of ``/interface/{interface-id}/link`` (its values are validated; the keys are held to
    its fields by :func:`schema_keys`, without rebuilding the whole release strict: seconds per release)."""
    return importlib.import_module("nvueschema.models.v" + release.replace(".", "_")).NvueConfigInterfaceEntryLink


def schema_keys(m, obj: dict) -> None:
    """Every key of ``obj`` is a field of ``m``, at every depth the model describes (the generated models ignore
    unknown keys: a misspelt key would pass ``model_validate``)."""
    fields = {f.alias or n: f for n, f in m.model_fields.items()}
    assert set(obj) <= set(fields), sorted(set(obj) - set(fields))
    for k, v in obj.items():
        sub = next((t for t in get_args(fields[k].annotation) if isinstance(t, type) and hasattr(t, "model_fields")),
                   None)
        if sub is not None and isinstance(v, dict):
            schema_keys(sub, v)


def answers() -> list[dict]:
    return [json.loads(out) for cmd, _line, out in split_outputs(FIXTURE.read_text()) if cmd.endswith("-o json")]


@pytest.mark.parametrize("release", ["5.15", "5.18"])  # the lab's release and the newest
def test_the_built_link_answers_are_the_schemas_link_object(release: str) -> None:
    m = link_model(release)
    fields = {f.alias or n for n, f in m.model_fields.items()}
    assert not OPERATIONAL & fields, "the schema now models the operational keys: read their names from it"
    for a in answers():
        rest = {k: v for k, v in a.items() if k not in OPERATIONAL}
        m.model_validate(rest)  # raises on a value the schema refuses (the speed's enum, the state's shape)
        schema_keys(m, rest)


def test_every_schema_speed_is_read_and_auto_is_no_speed() -> None:
    for release in ("5.15", "5.18"):  # the lab's release and the newest (every release's models: 30 s to import)
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
    rest = {k: v for k, v in link.items() if k not in OPERATIONAL}
    link_model("5.18").model_validate(rest)
    schema_keys(link_model("5.18"), rest)
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


# ------------------------------------------------------------------------------------ NVUE's own LLDP view
LLDP_FIX = Path(__file__).parent / "fixtures" / "nvue" / "lldp" / "built" / "nv-show-interface-swp51-lldp.json"


def test_the_schema_models_no_lldp_neighbour() -> None:
    for release in ("5.15", "5.18"):
        m = importlib.import_module("nvueschema.models.v" + release.replace(".", "_")).NvueConfigInterfaceEntryLldp
        assert "neighbor" not in {f.alias or n for n, f in m.model_fields.items()}, release


def test_nvue_lldp_view_is_read_and_the_lab_answer_reads_back() -> None:
    from roceconf import platforms
    from roceconf.neighbors import Neighbor
    from roceconf.platforms.nvue import lldp

    got, warnings = platforms.lldp("nvue").parse({"nv show interface swp51 lldp -o json": LLDP_FIX.read_text()})
    assert warnings == [] and got == [Neighbor("swp51", "spine01", "swp1", "swp1", "44:38:39:22:01:82")]
    rows = [Neighbor("swp1", "gpu1", "aa:bb:cc:00:00:01", "eth1", "aa:bb:cc:00:00:00"),
            Neighbor("swp31", "spine1", "Ethernet1/2", "", "02:00:00:00:00:02")]
    outs = {f"nv show interface {p} lldp -o json": lldp.simulate(f"nv show interface {p} lldp -o json", rows, "leaf2")
            for p in ("swp1", "swp31", "swp2")}
    back, warnings = platforms.lldp("nvue").parse(outs)
    assert warnings == [] and sorted(back, key=lambda n: n.local_port) == rows  # swp2: no neighbour, read as such


@pytest.mark.parametrize("junk", ["", "{", "[1]", '{"lldp": 3}', '{"neighbor": []}', '{"neighbor": {"x": 1}}'])
def test_an_nvue_lldp_answer_not_understood_makes_the_device_unknown(junk: str) -> None:
    """One port's answer not understood: no neighbour at all (the device is then unknown, RC505), never that
    port's 'no neighbour'."""
    from roceconf import platforms

    got, warnings = platforms.lldp("nvue").parse({"nv show interface swp51 lldp -o json": LLDP_FIX.read_text(),
                                                  "nv show interface swp52 lldp -o json": junk})
    assert got == [] and warnings and "swp52" in warnings[0]


def test_cabling_offline_reads_nvue_own_lldp_view_like_lldpctl(tmp_path: Path) -> None:
    """The lab intent's cables saved with leaf2 (NVUE) answering `nv show interface <p> lldp -o json` per port
    instead of lldpctl: the same verdicts, and a miswire on leaf2 gives the same findings."""
    from roceconf.cabling.collect import SAVED_SUFFIX, cabling_offline
    from roceconf.compile import load_valid
    from roceconf.neighbors import LLDPCTL
    from roceconf.platforms.nvue import lldp
    from tests.test_cabling import LAB_INTENT, save

    fab = load_valid(LAB_INTENT)
    for change in (None, lambda w: w.swap("leaf2", "swp31", "miswire")):
        d = save(fab, tmp_path / f"lldp{change is None}", change)
        want = cabling_offline(fab, d)
        f = d / ("leaf2" + SAVED_SUFFIX)
        saved = json.loads(f.read_text())
        rows, _ = lldp.parse({LLDPCTL: saved["outputs"][LLDPCTL]})
        saved["outputs"] = {f"nv show interface {p} lldp -o json": lldp.simulate_nv(p, rows)
                            for p in fab.devices["leaf2"].ports}
        f.write_text(json.dumps(saved))
        got = cabling_offline(fab, d)
        assert [x.to_dict() for x in got.findings] == [x.to_dict() for x in want.findings]
        assert [(li.a, li.b, li.status) for li in got.links] == [(li.a, li.b, li.status) for li in want.links]
        assert bool(got.findings) == (change is not None)
