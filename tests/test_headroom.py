"""PFC headroom: SONiC's dynamic-headroom model (Formula A) reproduced to the byte, and the per-switch budget.

Hand-worked values (Spectrum-2/3 parameters: pipeline_latency 18 KB = 18,432 B, mac_phy_delay 0.8 KB = 819.2 B;
port_mtu 9,100, lossless_mtu 4,200, no gearbox, no shared headroom pool; ceil_1K(x) = ceil(x / 1024) * 1024):

(1) 100G, 5 m, occupancy 1
    cable = 2 * 5 * 100e9 / 198e6 / 8          =    631.31 B
    peer  = 394 quanta * 512 bit / 8            = 25,216 B
    prop  = 9,100 + 631.31 + 819.2 + 25,216     = 35,766.51 B
    xoff  = ceil_1K(4,200 + 35,766.51 = 39,966.51) = 40 * 1024 = 40,960 B
    xon   = ceil_1K(18,432)                     = 18,432 B
    size  = ceil_1K(40,960 + 18,432)            = 59,392 B
(2) 100G, 5 m, occupancy 3 (144-byte cells, 100 % small packets: wcf = ceil(144 / 64) = 3)
    xoff  = ceil_1K(4,200 + 3 * 35,766.51 = 111,499.53) -> 108.89 -> 109 * 1024 = 111,616 B
    size  = 111,616 + 18,432                    = 130,048 B
(3) 400G, 100 m, occupancy 1
    cable = 2 * 100 * 400e9 / 198e6 / 8         = 50,505.05 B
    peer  = 905 * 64                            = 57,920 B
    prop  = 9,100 + 50,505.05 + 819.2 + 57,920  = 118,344.25 B
    xoff  = ceil_1K(122,544.25) -> 119.67 -> 120 * 1024 = 122,880 B;  size = 141,312 B
(4) 800G, 300 m, occupancy 3 (800G reuses the 400G bound of 905 quanta, as SONiC does)
    cable = 2 * 300 * 800e9 / 198e6 / 8         = 303,030.30 B
    prop  = 9,100 + 303,030.30 + 819.2 + 57,920 = 370,869.50 B
    xoff  = ceil_1K(4,200 + 1,112,608.51 = 1,116,808.51) -> 1,090.63 -> 1,091 * 1024 = 1,117,184 B
    size  = 1,117,184 + 18,432                  = 1,135,616 B
(5) 200G, 300 m, occupancy 1
    cable = 75,757.58 B; peer = 453 * 64 = 28,992 B; prop = 9,100 + 75,757.58 + 819.2 + 28,992 = 114,668.78 B
    xoff  = ceil_1K(118,868.78) -> 116.08 -> 117 * 1024 = 119,808 B;  size = 138,240 B
(6) the fabric fixture's leaf host port: 400G, 3 m, port MTU 9,214, lossless MTU min(NIC 9,000, 4096+96+22) = 4,214,
    Spectrum-3 occupancy 3: cable = 1,515.15 B; prop = 9,214 + 1,515.15 + 819.2 + 57,920 = 69,468.35 B;
    xoff = ceil_1K(4,214 + 208,405.06 = 212,619.06) -> 207.64 -> 208 * 1024 = 212,992 B; size = 231,424 B
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.fabric import desired, fabric_headroom
from roceconf.fabric.headroom import (
    PAUSE_QUANTA,
    asic_params,
    cable_bytes,
    ceil_1k,
    cell_occupancy,
    headroom,
    peer_response_bytes,
    port_headroom,
    worst_case_factor,
)
from roceconf.intent import load
from roceconf.intent.rules import asic_table

HERE = Path(__file__).parent
FIX = HERE / "intents" / "fabric"
SPECTRUM = {"pipeline_latency_bytes": 18 * 1024, "mac_phy_delay_bytes": 0.8 * 1024}

# The worked Formula A table (Spectrum-2/3 parameters, see docs/fabric-checks.md): speed, cable, cable B (RTT), peer B, xoff/size occ=1, xoff/size occ=3
TABLE = [
    (100, 5, 631, 25_216, 40_960, 59_392, 111_616, 130_048),
    (100, 100, 12_626, 25_216, 52_224, 70_656, 148_480, 166_912),
    (100, 300, 37_879, 25_216, 77_824, 96_256, 224_256, 242_688),
    (200, 5, 1_263, 28_992, 45_056, 63_488, 124_928, 143_360),
    (200, 100, 25_253, 28_992, 68_608, 87_040, 197_632, 216_064),
    (200, 300, 75_758, 28_992, 119_808, 138_240, 349_184, 367_616),
    (400, 5, 2_525, 57_920, 74_752, 93_184, 216_064, 234_496),
    (400, 100, 50_505, 57_920, 122_880, 141_312, 359_424, 377_856),
    (400, 300, 151_515, 57_920, 224_256, 242_688, 662_528, 680_960),
    (800, 5, 5_051, 57_920, 77_824, 96_256, 223_232, 241_664),
    (800, 100, 101_010, 57_920, 173_056, 191_488, 510_976, 529_408),
    (800, 300, 303_030, 57_920, 375_808, 394_240, 1_117_184, 1_135_616),
]


@pytest.mark.parametrize(("speed", "cable", "cab", "peer", "x1", "s1", "x3", "s3"), TABLE)
def test_reproduces_the_worked_table(
    speed: int, cable: int, cab: int, peer: int, x1: int, s1: int, x3: int, s3: int
) -> None:
    one = headroom(speed, cable, 9100, 4200, occupancy=1, **SPECTRUM)
    three = headroom(speed, cable, 9100, 4200, occupancy=3, **SPECTRUM)
    assert round(one.cable_bytes) == cab
    assert one.peer_bytes == peer
    assert (one.xoff, one.size) == (x1, s1)
    assert (three.xoff, three.size) == (x3, s3)
    assert one.xon == three.xon == 18_432
    # the occ=3 column is what 144-byte cells with 100 % small packets give (Spectrum-2/3 defaults)
    assert headroom(speed, cable, 9100, 4200, cell_bytes=144, **SPECTRUM) == three


def test_hand_worked_values() -> None:
    h = headroom(100, 5, 9100, 4200, occupancy=1, **SPECTRUM)
    assert h.cable_bytes == pytest.approx(631.31, abs=0.01)
    assert (h.xoff, h.xon, h.size) == (40_960, 18_432, 59_392)  # (1)
    assert headroom(100, 5, 9100, 4200, occupancy=3, **SPECTRUM).xoff == 111_616  # (2)
    h = headroom(400, 100, 9100, 4200, occupancy=1, **SPECTRUM)
    assert h.cable_bytes == pytest.approx(50_505.05, abs=0.01)
    assert (h.xoff, h.size) == (122_880, 141_312)  # (3)
    h = headroom(800, 300, 9100, 4200, occupancy=3, **SPECTRUM)
    assert h.cable_bytes == pytest.approx(303_030.30, abs=0.01)
    assert (h.xoff, h.size) == (1_117_184, 1_135_616)  # (4)
    assert headroom(200, 300, 9100, 4200, occupancy=1, **SPECTRUM).xoff == 119_808  # (5)
    assert headroom(400, 3, 9214, 4214, cell_bytes=144, **SPECTRUM).size == 231_424  # (6)


def test_building_blocks() -> None:
    assert ceil_1k(1024) == 1024 and ceil_1k(1025) == 2048 and ceil_1k(0.5) == 1024
    assert worst_case_factor(144) == 3 and worst_case_factor(192) == 3 and worst_case_factor(254) == 4
    assert worst_case_factor(96) == 2  # 96 <= 128: ceil(2 * 96 / 97)
    assert cell_occupancy(144, 0) == 1 and cell_occupancy(144, 100) == 3 and cell_occupancy(144, 50) == 2
    assert cable_bytes(100, 100) == pytest.approx(12_626.26, abs=0.01)  # 126.3 B per metre at 100G
    assert {s: q * 64 for s, q in PAUSE_QUANTA.items()}[25] == 5_120
    assert peer_response_bytes(800) == peer_response_bytes(400) == 57_920
    assert peer_response_bytes(1600) is None and peer_response_bytes(1600, 3891.2) == 3891.2
    with pytest.raises(ValueError):
        headroom(1600, 5, 9100, 4200, occupancy=1, **SPECTRUM)
    with pytest.raises(ValueError):
        headroom(100, 5, 9100, 4200, **SPECTRUM)


def test_asic_table_facts_have_sources_and_unknowns_are_null() -> None:
    table = asic_table()
    for name, row in table.items():
        for key in (
            "buffer_bytes",
            "cell_bytes",
            "max_lossless_priorities",
            "pipeline_latency_bytes",
            "mac_phy_delay_bytes",
            "peer_response_bytes",
        ):
            assert key in row, (name, key)
            if row[key] is not None:
                assert key in row["sources"], (name, key)
    sp3 = asic_params("spectrum3")
    assert sp3 is not None and sp3.unknown == []
    th4 = asic_params("tomahawk4")
    assert th4 is not None and th4.unknown == ["pipeline_latency_bytes", "mac_phy_delay_bytes"]
    assert port_headroom(th4, 400, 5, 9214, 4214) is None  # no guessing
    assert asic_params("no-such-asic") is None
    # a speed without a pause-quanta bound uses the ASIC's peer_response fallback
    h = port_headroom(sp3, 1600, 5, 9214, 4214)
    assert h is not None and h.peer_bytes == pytest.approx(3891.2)


def test_fabric_headroom_of_the_fixture() -> None:
    fab = load(FIX / "ok.yml")
    reps = {r.device: r for r in fabric_headroom(fab)}
    leaf = reps["leaf1"]
    assert leaf.unknown == "" and leaf.budget == 64_000_000
    host, up = leaf.rows
    assert (host.port, host.peer, host.speed_gbps, host.cable_m) == ("swp1", "gpu1:eth0", 400, 3)
    assert (host.port_mtu, host.lossless_mtu, host.priorities) == (9214, 4214, [3])
    assert host.per_priority is not None and host.per_priority.size == 231_424  # (6)
    assert host.required == 231_424 and host.share == 32_000_000 and host.margin == 32_000_000 - 231_424
    assert leaf.total == host.required + (up.required or 0)
    assert leaf.margin == 64_000_000 - leaf.total
    assert leaf.xoff_point == (64_000_000 - leaf.total) // 2
    spine = reps["spine1"]
    assert spine.budget == 42_000_000 and spine.margin is not None and spine.margin > 0
    assert "gpu1" not in reps  # hosts have no switch buffer


def test_headroom_does_not_fit() -> None:
    fab = load(FIX / "rc211_headroom.yml")
    rep = {r.device: r for r in fabric_headroom(fab)}["leaf1"]
    assert rep.margin is not None and rep.margin < 0
    assert [r.fits for r in rep.rows] == [False, False]
    assert rep.rows[0].margin is not None and rep.rows[0].margin < 0


def test_unknown_parameters_are_reported_not_guessed() -> None:
    fab = load(HERE.parent / "inventories" / "lab" / "intent.yml")
    reps = {r.device: r for r in fabric_headroom(fab, desired(fab))}
    assert reps["spine1"].unknown == "no `asic:` on the device" and reps["spine1"].budget is None
    assert "pipeline_latency_bytes" in reps["leaf1"].unknown
    assert all(r.required is None for r in reps["leaf1"].rows)
    assert reps["leaf1"].margin is None
    assert reps["leaf2"].unknown == "" and reps["leaf2"].margin is not None


def test_small_packet_percent_changes_occupancy() -> None:
    fab = load(FIX / "ok.yml")
    worst = {r.device: r for r in fabric_headroom(fab)}["leaf1"].rows[0].per_priority
    best = {r.device: r for r in fabric_headroom(fab, small_packet_percent=0)}["leaf1"].rows[0].per_priority
    assert worst is not None and best is not None
    assert worst.occupancy == 3 and best.occupancy == 1 and best.size < worst.size


def test_cli_headroom_text_and_json() -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["headroom", str(FIX / "ok.yml")])
    assert r.exit_code == 0, r.output
    for word in (
        "device",
        "port",
        "speed",
        "cable",
        "required",
        "budget",
        "margin",
        "leaf1",
        "swp1",
        "231.4 KB",
    ):
        assert word in r.output
    r = runner.invoke(main, ["headroom", str(FIX / "ok.yml"), "--format", "json"])
    data = json.loads(r.output)
    leaf = next(d for d in data["devices"] if d["device"] == "leaf1")
    assert leaf["fits"] is True and leaf["ports"][0]["size_per_priority"] == 231_424
    assert leaf["parameters"]["sources"]["cell_bytes"].startswith("sonic-net/sonic-buildimage")
    r = runner.invoke(main, ["headroom", str(FIX / "rc211_headroom.yml"), "--format", "json"])
    assert r.exit_code == 1
    assert next(d for d in json.loads(r.output)["devices"] if d["device"] == "leaf1")["fits"] is False
    r = runner.invoke(main, ["headroom", str(FIX / "rc211_headroom.yml")])
    assert r.exit_code == 1 and "DOES NOT FIT" in r.output


def test_cli_asic_table_override(tmp_path: Path) -> None:
    tab = tmp_path / "asics.yml"
    tab.write_text(
        "tomahawk4:\n  buffer_bytes: 113000000\n  cell_bytes: 254\n  pipeline_latency_bytes: 20480\n"
        "  mac_phy_delay_bytes: 1024\n  peer_response_bytes: null\n  max_lossless_priorities: null\n"
        "  sources: {pipeline_latency_bytes: 'own lab measurement'}\n"
    )
    lab = HERE.parent / "inventories" / "lab" / "intent.yml"
    r = CliRunner().invoke(main, ["headroom", str(lab), "--asic-table", str(tab), "--format", "json"])
    assert r.exit_code == 0, r.output
    leaf1 = next(d for d in json.loads(r.output)["devices"] if d["device"] == "leaf1")
    assert leaf1["unknown"] is None and leaf1["ports"][0]["xon"] == 20_480
    bad = tmp_path / "bad.yml"
    bad.write_text("- just a list\n")
    assert CliRunner().invoke(main, ["headroom", str(lab), "--asic-table", str(bad)]).exit_code == 2
    assert CliRunner().invoke(main, ["headroom", str(tmp_path / "none.yml")]).exit_code == 2
