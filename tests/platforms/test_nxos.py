"""Cisco NX-OS platform: round trip, per-knob rendering and parser semantics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from roceconf.platforms.nxos import PLATFORM
from roceconf.platforms.nxos.parser import parse
from roceconf.platforms.nxos.syntax import canonical_name
from roceconf.render import render_state
from roceconf.state import DeviceState, Ecmp, Ecn, Interface, Pfc, PfcWatchdog, Sched
from tests.strategies import device_state, examples, lab_port

# --------------------------------------------------------------------------- strategies
NAMES = st.lists(
    st.builds(
        lambda slot, port: f"Ethernet{slot}/{port}",
        st.integers(min_value=1, max_value=2),
        st.integers(min_value=1, max_value=64),
    ),
    min_size=1,
    max_size=6,
    unique=True,
)


@st.composite
def nxos_states(draw: st.DrawFn) -> DeviceState:
    s = draw(device_state(PLATFORM, NAMES))
    # NX-OS 'ip load-sharing' always names the address part ('address ... [port ...]').
    fields = s.ecmp.fields or []
    if fields and not {"src_ip", "dst_ip"} & set(fields):
        s.ecmp.fields = sorted({*fields, draw(st.sampled_from(["src_ip", "dst_ip"]))})  # type: ignore[assignment]
    # watchdog timers: an interval of 100-1000 ms, detection and restoration whole multiples of it (1-10, 1-100)
    wd = s.pfc_watchdog
    if wd.polling_ms is not None:
        wd.polling_ms = 100 + wd.polling_ms * 37 % 901
        if wd.detection_ms is not None:
            wd.detection_ms = wd.polling_ms * (1 + wd.detection_ms % 10)
        if wd.restoration_ms is not None:
            wd.restoration_ms = wd.polling_ms * (1 + wd.restoration_ms % 100)
    return s


@settings(max_examples=examples(200), deadline=None)
@given(nxos_states())
def test_round_trip(state: DeviceState) -> None:
    text = render_state(state)
    back = parse(text)
    assert back.warnings == [], text
    assert back.semantic() == state.semantic(), text


# --------------------------------------------------------------------------- per-knob rendering
def lab_state() -> DeviceState:
    def port() -> Interface:
        return lab_port(mtu=9216)

    return DeviceState(
        platform="nxos",
        hostname="leaf1",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={f"Ethernet1/{i}": port() for i in range(1, 5)},
        pfc_watchdog=PfcWatchdog(enabled=True, action="drop"),
        ecmp=Ecmp(fields=["dst_ip", "dst_port", "src_ip", "src_port"], seed=42, symmetric=False),
        class_mtu=9216,  # the network-qos classes' MTU: its own fact, rendered under each class
    )


def _block(text: str, header: str) -> list[str]:
    """Child lines of the block that starts with exactly `header`."""
    lines = text.splitlines()
    i = lines.index(header)
    out = []
    for line in lines[i + 1 :]:
        if not line.startswith(" "):
            break
        out.append(line)
    return out


def test_render_dscp_map_and_classification() -> None:
    text = render_state(lab_state())
    assert _block(text, "class-map type qos match-any ROCECONF_TC3") == ["  match dscp 26"]
    assert _block(text, "class-map type qos match-any ROCECONF_TC6") == ["  match dscp 48"]
    assert _block(text, "policy-map type qos ROCECONF_QOS") == [
        "  class ROCECONF_TC3",
        "    set qos-group 3",
        "  class ROCECONF_TC6",
        "    set qos-group 6",
    ]


def test_render_pfc_no_drop_and_mtu() -> None:
    text = render_state(lab_state())
    assert _block(text, "policy-map type network-qos ROCECONF_NQ") == [
        "  class type network-qos c-8q-nq3",
        "    mtu 9216",
        "    pause pfc-cos 3",
        "  class type network-qos c-8q-nq-default",
        "    mtu 9216",
    ]
    assert _block(text, "system qos") == [
        "  service-policy type network-qos ROCECONF_NQ",
        "  service-policy type queuing output ROCECONF_QUEUING",
    ]


def test_render_ecn_and_scheduling() -> None:
    text = render_state(lab_state())
    assert _block(text, "policy-map type queuing ROCECONF_QUEUING") == [
        "  class type queuing c-out-8q-q-default",
        "    bandwidth remaining percent 50",
        "  class type queuing c-out-8q-q3",
        "    bandwidth remaining percent 50",
        "    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
        "drop-probability 100 weight 0 ecn",
        "  class type queuing c-out-8q-q6",
        "    priority level 1",
    ]
    # a state renders the queues it states, nothing else (a fix touches only the queues it fixes)
    assert "bandwidth remaining percent 0" not in text


def test_unused_queues_are_round_robin_and_read_back() -> None:
    """A queue the intent does not use is round robin without a weight in the state (the desired state of
    every intent, see roceconf.intent.desired): 'bandwidth remaining percent 0', read back as such, so a queue
    changed to strict priority on the switch is drift."""
    state = lab_state()
    for itf in state.interfaces.values():
        for q in (1, 2, 4, 5, 7):
            itf.scheduling[str(q)] = Sched(mode="dwrr")
    text = render_state(state)
    block = _block(text, "policy-map type queuing ROCECONF_QUEUING")
    for q in (1, 2, 4, 5, 7):
        i = block.index(f"  class type queuing c-out-8q-q{q}")
        assert block[i + 1] == "    bandwidth remaining percent 0"
    assert parse(text).semantic() == state.semantic()
    strict = text.replace(
        "  class type queuing c-out-8q-q4\n    bandwidth remaining percent 0",
        "  class type queuing c-out-8q-q4\n    priority level 2",
    )
    assert strict != text
    assert parse(strict).interfaces["Ethernet1/1"].scheduling["4"] == Sched(mode="strict")


def test_render_interfaces_as_one_range() -> None:
    text = render_state(lab_state())
    assert _block(text, "interface Ethernet1/1-4") == [
        "  mtu 9216",
        "  flowcontrol receive off",
        "  flowcontrol send off",
        "  priority-flow-control mode on",
        "  priority-flow-control watch-dog-interval on",
        "  service-policy type qos input ROCECONF_QOS",
    ]
    assert text.count("\ninterface ") == 1


def test_render_watchdog_ecmp_hostname() -> None:
    lines = render_state(lab_state()).splitlines()
    assert lines[0] == "hostname leaf1"
    assert "priority-flow-control watch-dog-interval on" in lines
    assert "ip load-sharing address source-destination port source-destination universal-id 42" in lines
    s = lab_state()
    s.ecmp = Ecmp(fields=["src_ip", "src_port"], seed=7, symmetric=True)
    assert (
        "ip load-sharing address source port source symmetric universal-id 7" in render_state(s).splitlines()
    )


def test_partial_state_renders_only_stated_parts() -> None:
    s = DeviceState(platform="nxos", interfaces={"Ethernet1/7": Interface(mtu=9216)})
    assert render_state(s) == "interface Ethernet1/7\n  mtu 9216\n"
    assert render_state(DeviceState(platform="nxos")) == "\n"


def test_render_is_deterministic_and_matches_fixture() -> None:
    from pathlib import Path

    text = render_state(lab_state())
    assert text == render_state(lab_state())
    fixture = Path(__file__).parent.parent / "fixtures" / "nxos" / "rendered-lab.cfg"
    assert fixture.read_text() == text


# --------------------------------------------------------------------------- parser semantics
BASE = """\
hostname t1
class-map type qos match-any ROCE
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos CLASSIFY
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
policy-map type queuing EGRESS
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q6
    priority level 1
system qos
  service-policy type network-qos NQ
  service-policy type queuing output EGRESS
interface Ethernet1/1-2, Eth1/5
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
"""


def test_parse_semantics_of_a_small_config() -> None:
    s = parse(BASE)
    assert s.warnings == []
    assert s.hostname == "t1"
    assert s.dscp_to_tc == {"26": 3, "48": 6}
    assert sorted(s.interfaces) == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/5"]
    itf = s.interfaces["Ethernet1/5"]
    assert itf.mtu == 9216 and itf.trust == "dscp"
    assert itf.pfc == Pfc(enabled=True, no_drop=[3])
    assert itf.ecn == {"3": Ecn(min_bytes=150000, max_bytes=1500000, probability=100)}
    assert itf.scheduling == {"3": Sched(mode="dwrr", bandwidth_percent=50), "6": Sched(mode="strict")}


def test_source_lines_recorded() -> None:
    s = parse(BASE)
    lines = BASE.splitlines()
    assert s.sources["hostname"].lines == [1]
    assert s.sources["dscp_to_tc.26"].lines == [3, 8]
    ecn_line = s.sources["interfaces.Ethernet1/2.ecn.3"].lines[0]
    assert lines[ecn_line - 1].strip().startswith("random-detect")
    assert 13 in s.sources["interfaces.Ethernet1/1.pfc"].lines  # pause pfc-cos 3
    assert s.sources["interfaces.Ethernet1/1.mtu"].lines == [25]
    assert s.sources["interfaces.Ethernet1/1.mtu"].text == "mtu 9216"
    assert s.line_of("interfaces.Ethernet1/5.scheduling.6") == 20  # priority level 1


def test_unattached_policy_is_unused_and_has_no_effect() -> None:
    text = BASE.replace("  service-policy type queuing output EGRESS\n", "")
    s = parse(text)
    unused = [w for w in s.warnings if w.code == "UNUSED"]
    assert len(unused) == 1 and "EGRESS" in unused[0].message and unused[0].line == 15
    assert all(itf.ecn == {} and itf.scheduling == {} for itf in s.interfaces.values())
    # the same for a classification policy nobody attaches
    s2 = parse(BASE.replace("  service-policy type qos input CLASSIFY\n", ""))
    assert s2.dscp_to_tc == {}
    assert any(w.code == "UNUSED" and "CLASSIFY" in w.message for w in s2.warnings)


def test_undefined_reference_warns() -> None:
    s = parse(BASE.replace("service-policy type network-qos NQ", "service-policy type network-qos NQ2"))
    undefined = [w for w in s.warnings if w.code == "UNDEFINED"]
    assert len(undefined) == 1 and "NQ2" in undefined[0].message and undefined[0].line == 22
    assert s.interfaces["Ethernet1/1"].pfc.no_drop is None
    s2 = parse(BASE.replace("  class CNP\n", "  class CNP_MISSING\n"))
    assert any(w.code == "UNDEFINED" and "CNP_MISSING" in w.message for w in s2.warnings)
    assert s2.dscp_to_tc == {"26": 3}


def test_crlf_is_accepted() -> None:
    assert parse(BASE.replace("\n", "\r\n")).semantic() == parse(BASE).semantic()
    assert parse(BASE.replace("\n", "\r\n")).warnings == []


def test_wred_drop_is_not_ecn() -> None:
    text = BASE.replace("weight 0 ecn", "weight 0")
    s = parse(text)
    assert all("3" not in itf.ecn for itf in s.interfaces.values())
    wred = [w for w in s.warnings if w.code == "WRED"]
    assert wred and wred[0].line == 18


def test_unknown_roce_line_warns_with_line_number() -> None:
    text = BASE.replace(
        "  mtu 9216\n  priority", "  mtu 9216\n  priority-flow-control frobnicate 3\n  priority"
    )
    s = parse(text)
    hits = [w for w in s.warnings if "frobnicate" in w.message]
    assert len(hits) == 3  # once per port of the range
    assert {w.line for w in hits} == {26}
    # non-RoCE lines stay silent
    assert parse(BASE + "interface Ethernet1/9\n  description uplink\n  switchport\n").warnings == []


def test_watchdog_timers_are_an_interval_and_its_multipliers() -> None:
    """N9K QoS guide, PFC watchdog: polling = watch-dog interval, detection = shutdown-multiplier x interval,
    restoration = auto-restore multiplier x interval; without an interval the multipliers count 100 ms."""
    s = parse(
        "priority-flow-control watch-dog shutdown-multiplier 3\n"
        "priority-flow-control watch-dog interval 200\n"
        "priority-flow-control auto-restore multiplier 5\n"
        "priority-flow-control watch-dog-interval on\n"
    )
    assert s.warnings == []
    assert (s.pfc_watchdog.enabled, s.pfc_watchdog.polling_ms) == (True, 200)
    assert (s.pfc_watchdog.detection_ms, s.pfc_watchdog.restoration_ms) == (600, 1000)
    assert s.sources["pfc_watchdog.detection_ms"].lines == [1, 2]
    s = parse("priority-flow-control watch-dog shutdown-multiplier 2\n")
    assert (s.pfc_watchdog.polling_ms, s.pfc_watchdog.detection_ms) == (None, 200)
    # outside the switch's ranges, or a form roceconf does not model: a warning, no value
    s = parse("priority-flow-control watch-dog interval 50\npriority-flow-control fixed-restore multiplier 2\n")
    assert s.pfc_watchdog.polling_ms is None
    assert [w.line for w in s.warnings] == [1, 2]
    assert s.warnings[1].code == "UNSUPPORTED"
    # rendered from the state
    st = lab_state()
    st.pfc_watchdog = PfcWatchdog(enabled=True, action="drop", detection_ms=200, restoration_ms=400, polling_ms=100)
    lines = render_state(st).splitlines()
    i = lines.index("priority-flow-control watch-dog-interval on")
    assert lines[i + 1 : i + 4] == [
        "priority-flow-control watch-dog interval 100",
        "priority-flow-control watch-dog shutdown-multiplier 2",
        "priority-flow-control auto-restore multiplier 4",
    ]
    assert parse(render_state(st)).pfc_watchdog == st.pfc_watchdog


def test_global_watchdog_applies_to_ports_unless_overridden() -> None:
    text = (
        BASE
        + "priority-flow-control watch-dog-interval on\ninterface Ethernet1/2\n  priority-flow-control watch-dog-interval off\n"
    )
    s = parse(text)
    assert s.pfc_watchdog.enabled is True
    assert s.interfaces["Ethernet1/1"].pfc_watchdog is True
    assert s.interfaces["Ethernet1/2"].pfc_watchdog is False


def test_pfc_mode_auto_is_unknown_and_warned() -> None:
    s = parse(BASE.replace("priority-flow-control mode on", "priority-flow-control mode auto"))
    assert s.interfaces["Ethernet1/1"].pfc.enabled is None
    assert any("auto" in w.message for w in s.warnings)


def test_interface_queuing_policy_overrides_system() -> None:
    text = BASE + (
        "policy-map type queuing EGRESS2\n"
        "  class type queuing c-out-8q-q3\n"
        "    bandwidth percent 30\n"
        "interface Ethernet1/5\n"
        "  service-policy type queuing output EGRESS2\n"
    )
    s = parse(text)
    assert s.interfaces["Ethernet1/5"].scheduling == {"3": Sched(mode="dwrr", bandwidth_percent=30)}
    assert s.interfaces["Ethernet1/5"].ecn == {}
    assert s.interfaces["Ethernet1/1"].scheduling["3"].bandwidth_percent == 50


def test_different_classification_policies_warn_and_keep_port_map() -> None:
    text = BASE + (
        "class-map type qos match-any OTHER\n"
        "  match dscp 24-25\n"
        "policy-map type qos CLASSIFY2\n"
        "  class OTHER\n"
        "    set qos-group 4\n"
        "interface Ethernet1/5\n"
        "  service-policy type qos input CLASSIFY2\n"
    )
    s = parse(text)
    assert s.dscp_to_tc == {"26": 3, "48": 6}
    assert s.interfaces["Ethernet1/5"].dscp_to_tc == {"24": 4, "25": 4}
    assert any("different type qos policies" in w.message for w in s.warnings)


def test_ecmp_parse() -> None:
    s = parse("ip load-sharing address source-destination port source-destination rotate 32 universal-id 7\n")
    assert s.ecmp == Ecmp(fields=["dst_ip", "dst_port", "src_ip", "src_port"], seed=7, symmetric=False)
    s = parse("ip load-sharing address source-destination symmetric\n")
    assert s.ecmp == Ecmp(fields=["dst_ip", "src_ip"], seed=None, symmetric=True)


def test_thresholds_normalised_to_bytes() -> None:
    s = parse(
        BASE.replace("150 kbytes maximum-threshold 1500 kbytes", "150000 bytes maximum-threshold 2 mbytes")
    )
    assert s.interfaces["Ethernet1/1"].ecn["3"] == Ecn(min_bytes=150000, max_bytes=2000000, probability=100)


def test_canonical_names() -> None:
    assert canonical_name("Eth1/1") == "Ethernet1/1"
    assert canonical_name("ethernet 1/1") == "Ethernet1/1"
    assert canonical_name("Po10") == "port-channel10"
    assert canonical_name("port-channel10") == "port-channel10"


def test_parser_never_raises_on_garbage() -> None:
    for junk in [
        "",
        "\x00\xff",
        "interface Ethernet1/9-1\n  mtu x",
        "class-map type qos\npolicy-map type\n  class",
    ]:
        assert isinstance(parse(junk), DeviceState)


def test_dscp_names_and_lists() -> None:
    text = BASE.replace("  match dscp 26\n", "  match dscp af31,cs3 24-25\n")
    s = parse(text)
    assert s.warnings == []
    assert s.dscp_to_tc == {"24": 3, "25": 3, "26": 3, "48": 6}


def test_free_text_and_huge_ranges() -> None:
    s = parse("interface Ethernet1/2\n  description qos priority ports\n  mtu 1500\n")
    assert s.warnings == [] and s.interfaces["Ethernet1/2"].mtu == 1500
    s = parse("interface Ethernet1/1-999999\n  mtu 9000\n")
    assert s.interfaces == {} and s.warnings[0].line == 1


def test_system_level_classification_applies_without_ports() -> None:
    text = BASE.replace("  service-policy type qos input CLASSIFY\n", "")
    text = text.replace("system qos\n", "system qos\n  service-policy type qos input CLASSIFY\n")
    s = parse(text)
    assert s.warnings == []
    assert s.dscp_to_tc == {"26": 3, "48": 6}
    assert s.interfaces["Ethernet1/1"].trust == "dscp"
    no_ports = text.split("interface ")[0]
    s = parse(no_ports)
    assert s.warnings == [] and s.dscp_to_tc == {"26": 3, "48": 6} and s.interfaces == {}


def test_global_findings_are_reported_once() -> None:
    # the classification policy is resolved once per port (3 ports), its finding is reported once
    text = BASE.replace(
        "class-map type qos match-any ROCE\n  match dscp 26\n",
        "class-map type qos match-all ROCE\n  match dscp 26\n  match cos 3\n",
    )
    s = parse(text)
    hits = [w for w in s.warnings if "match-all" in w.message]
    assert len(hits) == 1 and hits[0].line == 2
    assert s.dscp_to_tc == {"48": 6}


def test_flat_indentation_is_read_by_config_mode() -> None:
    from pathlib import Path

    fixture = Path(__file__).parent.parent / "fixtures" / "nxos" / "windows-server-cnic-nexus3132.cfg"
    text = fixture.read_text() + "    interface Ethernet1/1\n    priority-flow-control mode on\n"
    s = parse(text)
    assert not [w for w in s.warnings if w.code in ("UNUSED", "UNDEFINED")]
    assert s.interfaces["Ethernet1/1"] == Interface(
        trust="pcp",
        pfc=Pfc(enabled=True, no_drop=[3]),  # 'pause no-drop' in the class of qos-group 3
        scheduling={
            "0": Sched(mode="dwrr", bandwidth_percent=50),
            "3": Sched(mode="dwrr", bandwidth_percent=50),
        },
    )
    # the same config indented normally reads the same
    indented = (
        "class-map type queuing RDMA\n  match qos-group 3\n"
        "policy-map type queuing Q\n  class type queuing RDMA\n    bandwidth percent 50\n"
        "system qos\n  service-policy type queuing output Q\n"
        "interface Ethernet1/1\n  priority-flow-control mode on\n"
    )
    assert parse(indented).interfaces["Ethernet1/1"].scheduling == {
        "3": Sched(mode="dwrr", bandwidth_percent=50)
    }


def test_pcp_trust_and_per_port_fields_round_trip() -> None:
    s = lab_state()
    s.interfaces["Ethernet1/2"].trust = "pcp"
    s.interfaces["Ethernet1/3"].mtu = 1500
    s.interfaces["Ethernet1/4"].link_pause = True
    s.interfaces["Ethernet1/4"].pfc_watchdog = False
    text = render_state(s)
    assert "interface Ethernet1/1" in text.splitlines()  # groups split where ports differ
    assert _block(text, "class-map type qos match-any ROCECONF_COS3") == ["  match cos 3"]
    back = parse(text)
    assert back.warnings == []
    assert back.semantic() == s.semantic()


def test_class_mtu_is_its_own_fact_not_the_ports() -> None:
    """Interface 'mtu 9100' with an RDMA network-qos class 'mtu 2240': the port reads 9100 and the class MTU
    2240, each from its own line (the class MTU used to be folded into the port's)."""
    text = (
        "policy-map type network-qos ROCECONF_NQ\n"
        "  class type network-qos c-8q-nq3\n"
        "    mtu 2240\n"
        "    pause pfc-cos 3\n"
        "system qos\n"
        "  service-policy type network-qos ROCECONF_NQ\n"
        "interface Ethernet1/1\n"
        "  mtu 9100\n"
    )
    s = parse(text)
    assert s.warnings == []
    assert s.interfaces["Ethernet1/1"].mtu == 9100 and s.sources["interfaces.Ethernet1/1.mtu"].lines == [8]
    assert s.class_mtu == 2240 and s.sources["class_mtu"].lines == [3]
    st = lab_state()
    st.class_mtu = 2240
    assert parse(render_state(st)).semantic() == st.semantic()
