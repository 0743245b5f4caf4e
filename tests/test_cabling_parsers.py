"""The LLDP readers of every platform on real outputs recorded by others (tests/fixtures/<p>/lldp/real/, see each
PROVENANCE.md), on their own lab simulation (parse(simulate(rows)) == rows) and on garbage (never raise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roceconf import platforms
from roceconf.neighbors import LLDPCTL, NAPALM, Neighbor, parse_lldpctl

FIX = Path(__file__).parent / "fixtures"


def rows(platform: str, command: str, path: str) -> list[Neighbor]:
    got, warnings = platforms.lldp(platform).parse({command: (FIX / platform / "lldp" / "real" / path).read_text()})
    assert warnings == []
    return got


def test_eos_eapi_json_recorded_by_napalm() -> None:
    got = rows("eos", "show lldp neighbors detail", "show_lldp_neighbors_detail.json")
    assert len(got) == 41
    first = next(n for n in got if n.local_port == "Ethernet8")
    assert (first.system_name, first.port_id, first.port_descr, first.chassis_id) == (
        "78m3", "000f.532e.ced1", "eth3", "2c60.0cad.30de")
    assert first.port_name() == "eth3"  # a host: MAC as port ID, the name in the description
    quoted = next(n for n in got if n.local_port == "Ethernet47")
    assert (quoted.system_name, quoted.port_id) == ("ms01.bru01", "597")  # EOS quotes some IDs: '"597"'


def test_eos_eapi_and_napalm_agree_on_every_neighbour() -> None:
    eapi = rows("eos", "show lldp neighbors detail", "show_lldp_neighbors_detail.json")
    napalm = rows("eos", NAPALM, "napalm_get_lldp_neighbors_detail.json")
    key = sorted((n.local_port, n.system_name, n.port_id, n.port_descr) for n in eapi)
    assert key == sorted((n.local_port, n.system_name, n.port_id, n.port_descr) for n in napalm)


def test_nxos_cli_recorded_by_napalm() -> None:
    got = rows("nxos", "show lldp neighbors detail", "show_lldp_neighbors_detail.txt")
    assert [(n.local_port, n.system_name, n.port_id) for n in got] == [
        ("Ethernet2/1", "nxos2.madeupdomain.com", "Eth2/1"),
        ("Ethernet2/2", "nxos2.madeupdomain.com", "Eth2/2"),
        ("Ethernet2/3", "nxos2.madeupdomain.com", "Eth2/3"),
        ("Ethernet2/4", "nxos2.madeupdomain.com", "Eth2/4"),
        ("Ethernet1/6", "bigip.example.com", "1/2.1"),
        ("Ethernet1/1", "leaf01", "Ethernet1/1"),
        ("Ethernet1/2", "leaf02", "Ethernet1/1"),
    ]
    # the same output as napalm reads it: every neighbour napalm lists is read here too
    napalm = rows("nxos", NAPALM, "napalm_get_lldp_neighbors_detail.json")
    assert {(n.local_port, n.port_id) for n in napalm} <= {(n.local_port, n.port_id) for n in got}
    assert platforms.lldp("nxos").canonical("Eth2/1") == "Ethernet2/1"


def test_junos_rpc_reply_and_napalm_recorded_by_napalm() -> None:
    xml = rows("junos", "show lldp neighbors | display xml", "get-lldp-neighbors-information.xml")
    assert xml == [Neighbor("ge-2/0/0", "EX9208", "", "ge-3/3/1", "2c:21:31:a5:17:c0")]
    napalm = rows("junos", NAPALM, "napalm_get_lldp_neighbors_detail.json")
    assert [(n.local_port, n.system_name, n.port_id, n.port_name()) for n in napalm] == [
        ("ge-2/0/0", "EX9208", "549", "ge-3/3/1")]  # SNMP index as port ID: the name is the description


def test_sonic_show_lldp_table_recorded_by_sonic_utilities() -> None:
    got = rows("sonic", "show lldp table", "show_lldp_table.txt")
    assert [(n.local_port, n.system_name, n.port_id, n.port_descr) for n in got] == [
        ("Ethernet0", "dummy", "00:00:00:00:00:01", "First MAC"),
        ("Ethernet0", "dummy", "00:00:00:00:00:02", "Second MAC"),
    ]
    assert got[0].port_name() == ""  # a MAC and a description with spaces name no port


@pytest.mark.parametrize("platform", ["nvue", "connectx", "bnxt", "linux-dcb", "sonic"])
def test_lldpctl_json_recorded_by_lldpd(platform: str) -> None:
    text = (FIX / "linux-dcb" / "lldp" / "real" / "lldpctl_neighbors.json").read_text()
    got, warnings = platforms.lldp(platform).parse({LLDPCTL: text})
    assert warnings == []
    assert got == [Neighbor("eth0", "ns-2.example.com", "00:00:00:00:00:02", "eth1", "00:00:00:00:00:02")]
    assert got[0].port_name() == "eth1"


def test_lldpctl_json_lists_several_interfaces_as_one_key_objects() -> None:
    one = [Neighbor("eth0", "leaf1", "Ethernet1", "", "02:00:00:00:00:01")]
    two = one + [Neighbor("eth1", "leaf2", "swp1", "", "02:00:00:00:00:02")]
    from roceconf.neighbors import simulate_lldpctl

    assert '"interface": [' in simulate_lldpctl(two) and '"interface": [' not in simulate_lldpctl(one)
    assert parse_lldpctl(simulate_lldpctl(two)) == (two, [])


SAMPLE = [
    Neighbor("Ethernet1", "gpu1", "02:aa:bb:cc:dd:01", "eth0", "02:aa:bb:cc:dd:00"),
    Neighbor("Ethernet2", "spine1", "Eth1/1", "Ethernet1/1", "02:aa:bb:cc:dd:02"),
    Neighbor("Ethernet2", "spine2", "501", "et-0/0/1", "02:aa:bb:cc:dd:03"),
]


@pytest.mark.parametrize("platform", platforms.NAMES)
def test_parse_of_the_lab_simulation_gives_the_rows_back(platform: str) -> None:
    spec = platforms.lldp(platform)
    for cmd in spec.commands:
        text = spec.simulate(cmd, SAMPLE, "dev1")
        assert text is not None
        got, warnings = spec.parse({cmd: text})
        assert warnings == []
        want = SAMPLE
        if platform == "sonic":  # the table has no chassis column
            want = [Neighbor(n.local_port, n.system_name, n.port_id, n.port_descr) for n in SAMPLE]
        assert got == want, platform
        assert spec.simulate(cmd + " extra", SAMPLE, "dev1") is None


@pytest.mark.parametrize("platform", platforms.NAMES)
@pytest.mark.parametrize("junk", ["", "garbage \x1b[31m", "{", "[1, 2]", '{"lldp": 3}', '{"lldpNeighbors": []}',
                                  "<a><lldp-neighbor-information/></a>", '<!DOCTYPE x [<!ENTITY a "b">]><x/>'])
def test_garbage_never_raises_and_is_never_read_as_no_neighbour(platform: str, junk: str) -> None:
    """What a reader cannot understand gives a warning (the device is then unknown), never an empty table."""
    spec = platforms.lldp(platform)
    for cmd in (*spec.commands, NAPALM, LLDPCTL):
        if cmd == NAPALM and junk == '{"lldpNeighbors": []}':
            continue  # napalm's shape: a port "lldpNeighbors" with no neighbour, a well-formed answer
        got, warnings = spec.parse({cmd: junk})
        assert got == [] and warnings, (platform, cmd, junk)


def test_a_host_bundle_end_mark_is_dropped_and_a_cut_answer_is_not_read() -> None:
    from roceconf.counters.hostnic import with_end

    text = (FIX / "linux-dcb" / "lldp" / "real" / "lldpctl_neighbors.json").read_text()
    spec = platforms.lldp("connectx")
    assert spec.parse({LLDPCTL: with_end(text)})[0][0].system_name == "ns-2.example.com"
    got, warnings = spec.parse({LLDPCTL: text[: len(text) // 2]})  # cut short, no end mark
    assert got == [] and warnings and "not JSON" in warnings[0]


# ------------------------------------------------------------------------------------ lldptool (open-lldp)
@pytest.mark.parametrize("platform", ["connectx", "bnxt", "linux-dcb"])
def test_lldptool_recorded_by_redhat_cip_hardware(platform: str) -> None:
    """open-lldp's ``lldptool -t -n -i PORT`` on two real hosts: the neighbour's name, port and chassis, the same
    Neighbor rows lldpctl gives (a continued system description and DCBX / PoE TLVs are skipped)."""
    from roceconf.counters.hostnic import with_end

    spec = platforms.lldp(platform)
    tin, tin2 = ((FIX / "linux-dcb" / "lldp" / "real" / f).read_text() for f in ("lldptool_tin.txt", "lldptool_tin2.txt"))
    got, warnings = spec.parse({"lldptool -t -n -i eth0": with_end(tin), "lldptool -t -n -i eth1": with_end(tin2),
                                "lldptool -t -n -i eth2": with_end("")})  # no neighbour on eth2: no row
    assert warnings == []
    assert got == [Neighbor("eth0", "Switch POD", "gi1/1", "gigabitethernet1/1", "f8:b1:56:15:e6:c6"),
                   Neighbor("eth1", "AC3K-51D4-05.local.odcnoord.nl", "Ethernet1/14", "SRV-51D4-14",
                            "58:f3:9c:81:ad:95")]
    assert got[1].port_name() == "Ethernet1/14"
    # the lab's answer reads back to the same rows; a cut answer (no end mark) is not read
    assert spec.parse({"lldptool -t -n -i eth0": with_end(spec.simulate("lldptool -t -n -i eth0", got, "h"))}) == (
        got[:1], [])
    cut, why = spec.parse({"lldptool -t -n -i eth0": tin[:60]})
    assert cut == [] and why == ["lldptool -t -n -i eth0: no end mark (a cut answer); not read"]
    assert spec.port_commands(["eth0", "eth1"]) == ("lldptool -t -n -i eth0", "lldptool -t -n -i eth1")
    assert spec.parse({"lldptool -t -n -i eth0": with_end("Agent instance not found\n")}) == (
        [], ["lldptool -t -n -i eth0: no TLV found"])


def test_lldptool_is_a_host_reader_only() -> None:
    assert platforms.lldp("nvue").port_commands is None and platforms.lldp("sonic").port_commands is None
    assert platforms.lldp("nvue").parse({"lldptool -t -n -i swp1": "Chassis ID TLV\n\tMAC: 00:00:00:00:00:01\n"})[0] == []
