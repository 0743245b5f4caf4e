"""SONiC (CONFIG_DB JSON): template round trip, rendered knobs, parser semantics."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf.platforms.sonic import PLATFORM
from roceconf.render import render_state
from roceconf.state import DeviceState, Ecmp, Ecn, Interface, Pfc, PfcWatchdog, Sched
from tests.strategies import device_state, examples, lab_port

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sonic"

#: Canonical SONiC front-panel names (Ethernet<lane index>).
SONIC_PORTS = st.lists(
    st.integers(min_value=0, max_value=511).map(lambda n: f"Ethernet{n}"), min_size=1, max_size=6, unique=True
)


def lab_state() -> DeviceState:
    def itf() -> Interface:
        return lab_port(mtu=9216, link_pause=None)

    return DeviceState(
        platform="sonic",
        hostname="leaf1",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={n: itf() for n in ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")},
        pfc_watchdog=PfcWatchdog(
            enabled=True, detection_ms=200, restoration_ms=200, polling_ms=100, action="drop"
        ),
        ecmp=Ecmp(fields=["dst_ip", "dst_port", "ip_proto", "src_ip", "src_port"], seed=42),
    )


def parse(text: str) -> DeviceState:
    return PLATFORM.parse(textwrap.dedent(text))


def codes(state: DeviceState) -> list[str]:
    return [w.code for w in state.warnings]


# --------------------------------------------------------------------------- round trip


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=device_state(PLATFORM, SONIC_PORTS))
def test_round_trip(state: DeviceState) -> None:
    text = render_state(state)
    json.loads(text)  # what `config load` reads: strict JSON
    back = PLATFORM.parse(text)
    assert [(w.line, w.message) for w in back.warnings] == []
    assert back.semantic() == state.semantic()


def test_rendered_lab_fixture_is_current() -> None:
    assert render_state(lab_state()) == (FIXTURES / "rendered-lab.json").read_text()


def test_render_is_deterministic_and_sorted() -> None:
    text = render_state(lab_state())
    assert text == render_state(lab_state())
    assert text == json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n"


# --------------------------------------------------------------------------- rendered knobs


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_knob_dscp_map_and_trust() -> None:
    text = render_state(lab_state())
    db = json.loads(text)
    assert db["DSCP_TO_TC_MAP"] == {"ROCE": {"26": "3", "48": "6"}}
    assert db["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
    assert db["PORT_QOS_MAP"]["Ethernet4"]["dscp_to_tc_map"] == "ROCE"
    assert '"26": "3",' in _lines(text) and '"48": "6"' in _lines(text)


def test_knob_identity_maps_bound() -> None:
    db = json.loads(render_state(lab_state()))
    identity = {str(i): str(i) for i in range(8)}
    for table in ("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"):
        assert db[table] == {"ROCE": identity}
    port = db["PORT_QOS_MAP"]["Ethernet0"]
    assert (port["tc_to_queue_map"], port["tc_to_pg_map"], port["pfc_to_queue_map"]) == ("ROCE",) * 3


def test_lossy_tcs_share_pg0_and_lossless_pg_has_a_buffer() -> None:
    """community qos_config.j2 (AZURE TC_TO_PRIORITY_GROUP_MAP): lossless TCs keep their PG, every lossy TC
    (CNP's TC6 too) lands on PG0, the PG with the lossy buffer profile; the old identity map put TC6 on PG6,
    a PG with no buffer profile. BUFFER_PG states the lossless PG as buffers_config.j2 does (profile NULL)."""
    db = json.loads(render_state(lab_state()))
    pg = db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]
    assert pg == {"0": "0", "1": "0", "2": "0", "3": "3", "4": "0", "5": "0", "6": "0", "7": "0"}
    assert db["BUFFER_PG"] == {
        f"{n}|3": {"profile": "NULL"} for n in ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")
    }
    two = lab_state()
    for itf in two.interfaces.values():
        itf.pfc = Pfc(enabled=True, no_drop=[3, 4])
    db = json.loads(render_state(two))
    assert db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["4"] == "4"
    assert db["BUFFER_PG"]["Ethernet0|3-4"] == {"profile": "NULL"}
    apart = lab_state()
    for itf in apart.interfaces.values():
        itf.pfc = Pfc(enabled=True, no_drop=[2, 5])
    db = json.loads(render_state(apart))  # sonic-buffer-pg.yang pg_num "[0-7]((-)[0-7])?": no lists
    assert {k for k in db["BUFFER_PG"] if k.startswith("Ethernet0|")} == {"Ethernet0|2", "Ethernet0|5"}
    port = db["PORT_QOS_MAP"]["Ethernet0"]
    assert (port["tc_to_queue_map"], port["tc_to_pg_map"], port["pfc_to_queue_map"]) == ("ROCE",) * 3


def test_knob_pfc_and_watchdog() -> None:
    text = render_state(lab_state())
    db = json.loads(text)
    assert db["PORT_QOS_MAP"]["Ethernet8"]["pfc_enable"] == "3"
    assert db["PORT_QOS_MAP"]["Ethernet8"]["pfcwd_sw_enable"] == "3"
    assert db["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "100"}
    assert db["PFC_WD"]["Ethernet12"] == {
        "action": "drop",
        "detection_time": "200",
        "restoration_time": "200",
    }
    assert db["DEVICE_METADATA"]["localhost"]["default_pfcwd_status"] == "enable"
    assert '"pfc_enable": "3",' in _lines(text)


def test_knob_ecn_wred_profile() -> None:
    text = render_state(lab_state())
    db = json.loads(text)
    wred = db["WRED_PROFILE"]["ROCE_ECN_150000_1500000_100"]
    assert wred["ecn"] == "ecn_all"
    assert wred["wred_green_enable"] == "true"
    assert (wred["green_min_threshold"], wred["green_max_threshold"], wred["green_drop_probability"]) == (
        "150000",
        "1500000",
        "100",
    )
    assert db["QUEUE"]["Ethernet0|3"]["wred_profile"] == "ROCE_ECN_150000_1500000_100"
    assert '"green_min_threshold": "150000",' in _lines(text)


def test_knob_scheduling() -> None:
    db = json.loads(render_state(lab_state()))
    assert db["SCHEDULER"] == {
        "ROCE_DWRR_50": {"type": "DWRR", "weight": "50"},
        "ROCE_STRICT": {"type": "STRICT"},
    }
    assert db["QUEUE"]["Ethernet4|0"] == {"scheduler": "ROCE_DWRR_50"}
    assert db["QUEUE"]["Ethernet4|6"] == {"scheduler": "ROCE_STRICT"}
    assert db["QUEUE"]["Ethernet4|3"]["scheduler"] == "ROCE_DWRR_50"


def test_knob_mtu_hash_hostname_no_seed() -> None:
    text = render_state(lab_state())
    db = json.loads(text)
    assert db["PORT"]["Ethernet12"] == {"mtu": "9216"}
    assert db["SWITCH_HASH"]["GLOBAL"]["ecmp_hash"] == [
        "SRC_IP",
        "DST_IP",
        "IP_PROTOCOL",
        "L4_SRC_PORT",
        "L4_DST_PORT",
    ]
    assert db["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf1"
    assert "seed" not in text.lower()  # APPL_DB only: not expressible in CONFIG_DB


def test_queue_ranges_compact_consecutive_queues() -> None:
    s = DeviceState(
        platform="sonic",
        interfaces={
            "Ethernet0": Interface(scheduling={"3": Sched(mode="strict"), "4": Sched(mode="strict")})
        },
    )
    db = json.loads(render_state(s))
    assert db["QUEUE"] == {"Ethernet0|3-4": {"scheduler": "ROCE_STRICT"}}
    assert (
        PLATFORM.parse(render_state(s)).interfaces["Ethernet0"].scheduling
        == s.interfaces["Ethernet0"].scheduling
    )


def test_partial_state_renders_only_stated_parts() -> None:
    s = DeviceState(platform="sonic", interfaces={"Ethernet8": Interface(mtu=9100)})
    assert json.loads(render_state(s)) == {"PORT": {"Ethernet8": {"mtu": "9100"}}}
    s = DeviceState(platform="sonic", pfc_watchdog=PfcWatchdog(polling_ms=200))
    assert json.loads(render_state(s)) == {"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}}}
    assert json.loads(render_state(DeviceState(platform="sonic"))) == {}


def test_pfc_and_watchdog_off_round_trip() -> None:
    s = DeviceState(
        platform="sonic",
        interfaces={"Ethernet0": Interface(pfc=Pfc(enabled=False, no_drop=[]), pfc_watchdog=False)},
    )
    text = render_state(s)
    assert json.loads(text)["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == ""
    back = PLATFORM.parse(text)
    assert back.interfaces["Ethernet0"].pfc == Pfc(enabled=False, no_drop=[])
    assert back.interfaces["Ethernet0"].pfc_watchdog is False


# --------------------------------------------------------------------------- parser behaviour

BASE = """\
{
    "DEVICE_METADATA": {"localhost": {"hostname": "sw1"}},
    "DSCP_TO_TC_MAP": {
        "RDMA": {"26": "3", "48": "6"},
        "SPARE": {"10": "1"}
    },
    "WRED_PROFILE": {
        "ECN3": {"ecn": "ecn_all", "wred_green_enable": "true",
                 "green_min_threshold": "150000", "green_max_threshold": "1500000",
                 "green_drop_probability": "100"},
        "DROPONLY": {"ecn": "ecn_none", "wred_green_enable": "true",
                     "green_min_threshold": "1000", "green_max_threshold": "2000",
                     "green_drop_probability": "10"}
    },
    "SCHEDULER": {"SP": {"type": "STRICT"}, "W60": {"type": "DWRR", "weight": "60"}},
    "PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000"}},
    "PORT_QOS_MAP": {
        "Ethernet0": {"dscp_to_tc_map": "RDMA", "pfc_enable": "3"}
    },
    "QUEUE": {
        "Ethernet0|3": {"scheduler": "W60", "wred_profile": "ECN3"},
        "Ethernet0|6": {"scheduler": "SP"}
    }
}
"""


def test_base_config_reads_as_expected() -> None:
    s = parse(BASE)
    itf = s.interfaces["Ethernet0"]
    assert s.hostname == "sw1"
    assert s.dscp_to_tc == {"26": 3, "48": 6}
    assert itf.mtu == 9100 and itf.trust == "dscp"
    assert itf.pfc == Pfc(enabled=True, no_drop=[3])
    assert itf.ecn == {"3": Ecn(min_bytes=150000, max_bytes=1500000, probability=100)}
    assert itf.scheduling == {"3": Sched(mode="dwrr", bandwidth_percent=60), "6": Sched(mode="strict")}
    assert itf.pfc_watchdog is None and s.pfc_watchdog.detection_ms is None  # not stated: unknown


def test_unattached_profile_is_unused_and_has_no_effect() -> None:
    s = parse(BASE)
    unused = {w.message.split(" ")[0]: w.line for w in s.warnings if w.code == "UNUSED"}
    assert unused == {"DSCP_TO_TC_MAP|SPARE": 5, "WRED_PROFILE|DROPONLY": 11}
    assert "10" not in s.dscp_to_tc


def test_undefined_reference_warns_and_contributes_nothing() -> None:
    text = BASE.replace('"Ethernet0|6": {"scheduler": "SP"}', '"Ethernet0|6": {"scheduler": "NOPE"}')
    text = text.replace('"dscp_to_tc_map": "RDMA"', '"dscp_to_tc_map": "[DSCP_TO_TC_MAP|MISSING]"')
    s = parse(text)
    undefined = {w.message: w.line for w in s.warnings if w.code == "UNDEFINED"}
    assert undefined == {
        "SCHEDULER|NOPE is referenced but not defined": 22,
        "DSCP_TO_TC_MAP|MISSING is referenced but not defined": 18,
    }
    itf = s.interfaces["Ethernet0"]
    assert "6" not in itf.scheduling and itf.trust is None and s.dscp_to_tc == {}
    assert "UNUSED" in codes(s)  # RDMA and SP are now unattached


def test_crlf_gives_the_same_state_and_lines() -> None:
    lf, crlf = parse(BASE), parse(BASE.replace("\n", "\r\n"))
    assert crlf.semantic() == lf.semantic()
    assert crlf.sources == lf.sources and [w.line for w in crlf.warnings] == [w.line for w in lf.warnings]


def test_wred_drop_is_not_ecn() -> None:
    for ecn_field in ('"ecn": "ecn_none", ', ""):
        text = BASE.replace('"ecn": "ecn_all", ', ecn_field)
        s = parse(text)
        assert s.interfaces["Ethernet0"].ecn == {}
        assert any("WRED drop, not ECN" in w.message and w.line == 8 for w in s.warnings)


def test_ecn_needs_green_marking_and_green_curve() -> None:
    s = parse(BASE.replace('"ecn": "ecn_all"', '"ecn": "ecn_yellow_red"'))
    assert s.interfaces["Ethernet0"].ecn == {}
    assert any("does not mark green" in w.message for w in s.warnings)
    s = parse(BASE.replace('"ecn": "ecn_all", "wred_green_enable": "true"', '"ecn": "ecn_all"'))
    assert s.interfaces["Ethernet0"].ecn == {}
    assert any("wred_green_enable" in w.message for w in s.warnings)


def test_unknown_roce_field_warns_with_line_number() -> None:
    text = BASE.replace('"pfc_enable": "3"}', '"pfc_enable": "3",\n         "pfc_mode": "strict"}')
    s = parse(text)
    hits = [w for w in s.warnings if "pfc_mode" in w.message]
    assert len(hits) == 1 and hits[0].line == 19
    table = parse(BASE.replace('"PORT": {', '"ECN_FOO": {"x": {"a": "1"}},\n    "PORT": {'))
    assert any("ECN_FOO" in w.message and w.line == 16 for w in table.warnings)


def test_source_lines_recorded() -> None:
    s = parse(BASE)
    assert s.sources["hostname"].lines == [2]
    assert s.sources["dscp_to_tc.26"].lines == [4]
    assert s.sources["interfaces.Ethernet0.mtu"].lines == [16]
    assert s.sources["interfaces.Ethernet0.pfc"].lines == [18]
    assert (
        s.sources["interfaces.Ethernet0.pfc"].text
        == '"Ethernet0": {"dscp_to_tc_map": "RDMA", "pfc_enable": "3"}'
    )
    assert (
        21 in s.sources["interfaces.Ethernet0.ecn.3"].lines
        and 8 in s.sources["interfaces.Ethernet0.ecn.3"].lines
    )
    assert s.sources["interfaces.Ethernet0.scheduling.6"].lines == [15, 22]  # SCHEDULER SP, QUEUE key


def test_comma_joined_keys_ranges_and_bracket_refs() -> None:
    s = parse(
        """\
        {"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
         "SCHEDULER": {"S": {"type": "STRICT"}},
         "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]", "pfc_enable": "3,4"}},
         "QUEUE": {"Ethernet0,Ethernet4|3-4": {"scheduler": "[SCHEDULER|S]"}}}
        """
    )
    assert set(s.interfaces) == {"Ethernet0", "Ethernet4"}
    for itf in s.interfaces.values():
        assert itf.trust == "dscp" and itf.pfc.no_drop == [3, 4]
        assert itf.scheduling == {"3": Sched(mode="strict"), "4": Sched(mode="strict")}
    assert s.warnings == []


def test_redis_key_layout_with_list_fields_and_watchdog() -> None:
    s = parse(
        """\
        {"PFC_WD|GLOBAL": {"POLL_INTERVAL": "200"},
         "PFC_WD|Ethernet8": {"action": "alert", "detection_time": "400", "restoration_time": "800"},
         "PORT_QOS_MAP|Ethernet8": {"pfc_enable": "3", "pfcwd_sw_enable": "3"},
         "SWITCH_HASH|GLOBAL": {"ecmp_hash@": "SRC_IP,DST_IP,L4_SRC_PORT,IN_PORT"}}
        """
    )
    assert s.interfaces["Ethernet8"].pfc_watchdog is True
    assert s.pfc_watchdog == PfcWatchdog(detection_ms=400, restoration_ms=800, polling_ms=200, action="alert")
    assert s.ecmp.fields == ["dst_ip", "ingress_port", "src_ip", "src_port"]


def test_multi_asic_namespaces_are_merged() -> None:
    s = parse(
        """\
        {"localhost": {"DEVICE_METADATA": {"localhost": {"hostname": "chassis1"}}},
         "asic0": {"PORT": {"Ethernet0": {"mtu": "9100"}}},
         "asic1": {"PORT": {"Ethernet64": {"mtu": "4096"}}}}
        """
    )
    assert s.hostname == "chassis1"
    assert {n: i.mtu for n, i in s.interfaces.items()} == {"Ethernet0": 9100, "Ethernet64": 4096}


def test_voq_queue_keys_apply_to_the_local_linecard_only() -> None:
    text = """\
        {"DEVICE_METADATA": {"localhost": {"hostname": "lc1", "asic_name": "asic0"}},
         "SCHEDULER": {"S": {"type": "STRICT"}},
         "QUEUE": {"lc1|asic0|Ethernet0|6": {"scheduler": "S"},
                   "lc2|asic0|Ethernet0|3": {"scheduler": "S"}}}
        """
    s = parse(text)
    assert s.interfaces["Ethernet0"].scheduling == {"6": Sched(mode="strict")}
    assert [w.code for w in s.warnings] == ["VOQ"]


def test_wrr_and_non_identity_queue_map_warn() -> None:
    s = parse(
        """\
        {"TC_TO_QUEUE_MAP": {"ODD": {"3": "4"}},
         "SCHEDULER": {"W": {"type": "WRR", "weight": "30"}},
         "PORT_QOS_MAP": {"Ethernet0": {"tc_to_queue_map": "ODD"}},
         "QUEUE": {"Ethernet0|4": {"scheduler": "W"}}}
        """
    )
    assert s.interfaces["Ethernet0"].scheduling == {"4": Sched(mode="dwrr", bandwidth_percent=30)}
    messages = " | ".join(w.message for w in s.warnings)
    assert "is WRR; read as dwrr" in messages and "TC_TO_QUEUE_MAP|ODD is not the identity" in messages


def test_scheduler_yang_defaults_are_recorded() -> None:
    s = parse('{"SCHEDULER": {"D": {}}, "QUEUE": {"Ethernet0|1": {"scheduler": "D"}}}')
    assert s.interfaces["Ethernet0"].scheduling == {"1": Sched(mode="dwrr", bandwidth_percent=1)}
    assert s.defaults == ["interfaces.Ethernet0.scheduling.1"]


def test_cli_output_around_json_and_garbage_never_raise() -> None:
    wrapped = "admin@sonic:~$ show runningconfiguration all\n" + BASE + "admin@sonic:~$ \n"
    assert parse(wrapped).semantic() == parse(BASE).semantic()
    for junk in (
        "",
        "not json at all",
        "{" * 5000,
        "[" * 5000 + "]",
        '{"PORT": {"Ethernet0": {"mtu": ',
        "\x00\ud800",
    ):
        s = PLATFORM.parse(junk)
        assert isinstance(s, DeviceState) and s.platform == "sonic"
    assert any(w.code == "SYNTAX" for w in PLATFORM.parse('{"PORT": {"Ethernet0": {"mtu": "9100"}').warnings)


def test_every_dscp_has_a_home_in_the_lab_render() -> None:
    """DSCP_TO_TC_MAP names all 64 DSCPs: those the intent does not name go to TC0 (the default class), as
    community SONiC's own AZURE map names every DSCP; only the CNP queue is strict."""
    from roceconf.intent import load
    from roceconf.intent.desired import desired_state

    lab = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "intent.yml"
    state = desired_state(load(lab).devices["leaf3"])
    db = json.loads(render_state(state))
    m = db["DSCP_TO_TC_MAP"]["ROCE"]
    assert set(m) == {str(d) for d in range(64)}
    assert {d for d, tc in m.items() if tc != "0"} == {"26", "48"}
    strict = {n for n, s in db["SCHEDULER"].items() if s["type"] == "STRICT"}
    assert {k.split("|")[1] for k, q in db["QUEUE"].items() if q.get("scheduler") in strict} == {"6"}
    assert PLATFORM.parse(render_state(state)).semantic() == state.semantic()


def test_buffer_pg_follows_the_buffer_model(tmp_path) -> None:
    """Profile "NULL" only in the dynamic buffer model; in the traditional one buffermgrd writes the lossless
    PGs itself (pg_lossless_<speed>_<cable>_profile), so nothing is rendered. The model: the intent's
    buffer_model, else dynamic on Spectrum and traditional elsewhere (sonic-device_metadata.yang)."""
    import json as _json

    from roceconf.compile import load_valid
    from roceconf.intent.desired import desired_states

    st = lab_state()
    st.hints["buffer_model"] = "dynamic"
    assert all(v == {"profile": "NULL"} for v in _json.loads(render_state(st))["BUFFER_PG"].values())
    st.hints["buffer_model"] = "traditional"
    frag = _json.loads(render_state(st))
    assert "BUFFER_PG" not in frag and frag["PORT_QOS_MAP"]  # pfc_enable still tells buffermgrd the PGs
    intent = tmp_path / "i.yml"
    base = (
        "version: 1\nfabric: t\nqos:\n  trust: dscp\n  classes:\n    - {name: roce, role: roce, dscp: [26], "
        "priority: 3, lossless: true}\n    - {name: default, dscp: [0], priority: 0}\ndevices:\n"
    )
    devs = (
        "  - {name: s1, platform: sonic, role: leaf, asic: tomahawk4, interfaces: [{name: Ethernet0, speed: 400G}]}\n"
        "  - {name: s2, platform: sonic, role: leaf, asic: spectrum4, interfaces: [{name: Ethernet0, speed: 400G}]}\n"
        "  - {name: s3, platform: sonic, role: leaf, asic: tomahawk4, buffer_model: dynamic,"
        " interfaces: [{name: Ethernet0, speed: 400G}]}\n"
    )
    intent.write_text(base + devs)
    states = desired_states(load_valid(intent))
    assert {n: s.hints["buffer_model"] for n, s in states.items()} == {
        "s1": "traditional",
        "s2": "dynamic",
        "s3": "dynamic",
    }
    assert "BUFFER_PG" not in _json.loads(render_state(states["s1"]))
    assert "BUFFER_PG" in _json.loads(render_state(states["s3"]))
