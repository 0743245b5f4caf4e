"""NVIDIA Cumulus Linux (NVUE): round trip, rendered knobs and parser semantics."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from roceconf.platforms.nvue import PLATFORM
from roceconf.platforms.nvue.parser import parse
from roceconf.render import render_state
from roceconf.state import DeviceState, Ecmp, Ecn, Interface, Pfc, PfcWatchdog, Sched
from tests.strategies import device_state, examples, lab_port

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nvue"


# ----------------------------------------------------------------------------- strategies
@st.composite
def swp_names(draw) -> list[str]:
    """Canonical NVUE port names: swpN, with some breakout ports swpNsM."""
    ports = draw(st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=12, unique=True))
    names = []
    for p in ports:
        if draw(st.integers(min_value=0, max_value=4)) == 0:
            names.extend(f"swp{p}s{i}" for i in range(draw(st.integers(min_value=1, max_value=4))))
        else:
            names.append(f"swp{p}")
    return names


@st.composite
def nvue_states(draw) -> DeviceState:
    s = draw(device_state(PLATFORM, swp_names()))
    # NVUE constraints: polling-interval 100-5000 ms; detection = robustness x polling-interval.
    wd = s.pfc_watchdog
    assert wd.polling_ms is not None and wd.detection_ms is not None
    wd.polling_ms = wd.polling_ms * 10
    wd.detection_ms = wd.polling_ms * max(1, round(wd.detection_ms / wd.polling_ms))
    # a stormed queue drops and is restored after one polling interval (CL QoS guide, PFC Watchdog)
    wd.restoration_ms = wd.polling_ms
    return s


@settings(max_examples=examples(200), deadline=None)
@given(nvue_states())
def test_round_trip(state: DeviceState) -> None:
    text = render_state(state)
    got = parse(text)
    assert [w.message for w in got.warnings] == []
    assert got.semantic() == state.semantic()


@settings(max_examples=examples(50), deadline=None)
@given(nvue_states())
def test_round_trip_through_crlf_and_json(state: DeviceState) -> None:
    """The same tree read as CRLF text and as `nv config show -o json` (list of header/set)."""
    text = render_state(state)
    assert parse(text.replace("\n", "\r\n")).semantic() == state.semantic()
    doc = YAML(typ="safe").load(text)
    as_json = json.dumps([{"header": {"model": "test"}}, *doc], indent=2)
    got = parse(as_json)
    assert [w.message for w in got.warnings] == []
    assert got.semantic() == state.semantic()


# ----------------------------------------------------------------------------- rendering
def lab_state() -> DeviceState:
    itf = lab_port(mtu=9216, link_pause=None)
    return DeviceState(
        platform="nvue",
        hostname="leaf01",
        dscp_to_tc={"26": 3, "48": 6},
        interfaces={f"swp{i}": itf.model_copy(deep=True) for i in range(1, 33)},
        pfc_watchdog=PfcWatchdog(polling_ms=100, detection_ms=300, restoration_ms=100, action="drop"),
        ecmp=Ecmp(fields=["dst_ip", "dst_port", "ip_proto", "src_ip", "src_port"], seed=42),
    )


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _block(text: str, header: str) -> list[str]:
    """The lines of the YAML block that starts with `header` (exact line), up to its dedent."""
    lines = _lines(text)
    i = lines.index(header)
    indent = len(header) - len(header.lstrip())
    out = [header]
    for line in lines[i + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        out.append(line)
    return out


def test_render_lab_knobs_as_nvidias_roce_profile() -> None:
    """The lab policy is NVIDIA's lossless RoCE profile: 'qos roce mode lossless' plus the lossless
    traffic pool, and only what differs from the profile (the DSCP map; no ECN on TC0)."""
    text = render_state(lab_state())
    assert _lines(text)[0].startswith("# ")
    assert "- set:" in _lines(text)
    # RoCE is disabled by default (NVUE schema): the patch switches it on, in the release's words
    assert _block(text, "      roce:") == ["      roce:", "        mode: lossless", "        state: enabled"]
    old = lab_state()
    old.hints["os_version"] = "5.14"
    assert _block(render_state(old), "      roce:") == ["      roce:", "        enable: 'on'", "        mode: lossless"]
    assert parse(render_state(old)).interfaces == parse(text).interfaces
    assert _block(text, "      traffic-pool:") == [
        "      traffic-pool:",
        "        roce-lossless:",
        "          switch-priority:",
        "            '3': {}",
    ]
    mapping = _block(text, "        default-global:")  # first default-global is qos mapping
    assert mapping == [
        "        default-global:",
        "          dscp:",
        "            '26':",
        "              switch-priority: 3",
        "            '48':",
        "              switch-priority: 6",
    ]
    # the profile's SP->TC, PFC and ETS are the intent's: not restated
    for absent in ("      egress-queue-mapping:", "      pfc:", "      egress-scheduler:"):
        assert absent not in _lines(text)
    assert _block(text, "      congestion-control:") == [
        "      congestion-control:",
        "        default-global:",
        "          traffic-class:",
        "            '0':",
        "              ecn: disable",
    ]
    assert _block(text, "      pfc-watchdog:") == [
        "      pfc-watchdog:",
        "        polling-interval: 100",
        "        robustness: 3",
    ]
    # all 32 ports in one range key: MTU and watchdog
    assert _block(text, "      'swp1-32':") == [
        "      'swp1-32':",
        "        type: swp",
        "        link:",
        "          mtu: 9216",
        "        qos:",
        "          pfc-watchdog:",
        "            state: enable",
    ]
    ecmp = _block(text, "        ecmp-hash:")
    assert "          source-port: enabled" in ecmp
    assert "          ingress-interface: disabled" in ecmp
    assert "          ipv6-label: disabled" in ecmp
    assert "        hash-seed: 42" in _lines(text)
    assert "      hostname: 'leaf01'" in _lines(text)
    assert parse(text).semantic() == lab_state().semantic()


def test_ecmp_hash_words_follow_the_release() -> None:
    """CL 5.15 changed ecmp-hash values from on/off to enabled/disabled; the default is the newest release."""
    for release, word in (
        ("5.14", "'on'"),
        ("5.9", "'on'"),
        ("5.15", "enabled"),
        ("5.16", "enabled"),
        (None, "enabled"),
    ):
        s = lab_state()
        if release:
            s.hints["os_version"] = release
        text = render_state(s)
        assert f"          source-port: {word}" in _lines(text), release
        assert parse(text).semantic() == s.semantic()


def test_roce_profile_overrides_only_what_differs() -> None:
    s = lab_state()
    for itf in s.interfaces.values():
        itf.ecn["3"] = Ecn(min_bytes=200000, max_bytes=1500000, probability=50)
        itf.scheduling["0"].bandwidth_percent = 30
        itf.scheduling["3"].bandwidth_percent = 70
        itf.pfc = Pfc(enabled=True, no_drop=[3, 4])
        itf.scheduling["4"] = Sched(mode="dwrr", bandwidth_percent=0)
    s.dscp_to_tc["34"] = 4
    text = render_state(s)
    assert "        mode: lossless" in _lines(text)
    assert _block(text, "      traffic-pool:")[:5] == [
        "      traffic-pool:",
        "        roce-lossless:",
        "          switch-priority:",
        "            '3': {}",
        "            '4': {}",
    ]
    assert "        default-lossy:" in _lines(text)
    assert _block(text, "      egress-queue-mapping:")[3:] == [
        "            '4':",
        "              traffic-class: 4",
    ]
    cc = _block(text, "      congestion-control:")
    assert "              ecn: disable" in cc and "              min-threshold: 200000" in cc
    ets = _block(text, "      egress-scheduler:")
    assert "              bw-percent: 30" in ets and "              mode: strict" not in ets
    assert parse(text).semantic() == s.semantic()


def test_policy_the_profile_cannot_carry_is_built_by_hand() -> None:
    """RoCE on priority 5 with CNP on 2: the profile's TC3/TC6 classes do not exist in the intent."""
    itf = Interface(
        mtu=9216,
        trust="dscp",
        pfc=Pfc(enabled=True, no_drop=[5]),
        pfc_watchdog=True,
        scheduling={
            "0": Sched(mode="dwrr", bandwidth_percent=50),
            "5": Sched(mode="dwrr", bandwidth_percent=50),
            "2": Sched(mode="strict"),
        },
    )
    s = DeviceState(
        platform="nvue",
        dscp_to_tc={"26": 5, "48": 2},
        interfaces={"swp1": itf},
        pfc_watchdog=PfcWatchdog(polling_ms=100, detection_ms=200, restoration_ms=100, action="drop"),
    )
    text = render_state(s)
    assert "      roce:" not in _lines(text)
    assert _block(text, "      pfc:")[:4] == [
        "      pfc:",
        "        default-global:",
        "          switch-priority:",
        "            '5': {}",
    ]
    assert parse(text).semantic() == s.semantic()


def test_render_per_port_differences_use_profiles() -> None:
    s = lab_state()
    s.interfaces["swp5"].ecn = {"3": Ecn(min_bytes=100000, max_bytes=400000, probability=20)}
    s.interfaces["swp6"].trust = "pcp"
    text = render_state(s)
    assert "        roce-ecn-1:" in _lines(text)
    assert "              min-threshold: 100000" in _lines(text)
    assert _block(text, "      'swp5':")[-2:] == [
        "          congestion-control:",
        "            profile: roce-ecn-1",
    ]
    assert _block(text, "      'swp6':")[-2:] == ["          mapping:", "            profile: roce-map-1"]
    assert "          trust: l2" in _lines(text)
    assert parse(text).semantic() == s.semantic()


def test_render_partial_state_is_minimal() -> None:
    """A remediation state with one port's MTU touches nothing else."""
    s = DeviceState(platform="nvue", interfaces={"swp7": Interface(mtu=9000)})
    text = render_state(s)
    body = [line for line in _lines(text) if not line.startswith("#")]
    assert body == [
        "- set:",
        "    interface:",
        "      'swp7':",
        "        type: swp",
        "        link:",
        "          mtu: 9000",
    ]
    assert parse(text).semantic() == s.semantic()


def test_render_partial_ecn_never_uses_default_global() -> None:
    """When only some ports are in the state, settings go to named profiles, not default-global."""
    s = DeviceState(
        platform="nvue",
        interfaces={
            "swp1": Interface(ecn={"3": Ecn(min_bytes=1000, max_bytes=2000, probability=5)}),
            "swp2": Interface(),
        },
    )
    text = render_state(s)
    assert "default-global" not in text.split("congestion-control:")[1].split("interface:")[0]
    assert parse(text).semantic() == s.semantic()


def test_render_empty_state() -> None:
    text = render_state(DeviceState(platform="nvue"))
    assert [line for line in _lines(text) if not line.startswith("#")] == ["- set: {}"]
    assert parse(text).semantic() == DeviceState(platform="nvue").semantic()


# ----------------------------------------------------------------------------- parser behaviour
def _codes(st: DeviceState) -> list[tuple[str, int | None]]:
    return [(w.code, w.line) for w in st.warnings]


def test_unattached_profile_is_unused_and_has_no_effect() -> None:
    text = "\n".join(
        [
            "nv set qos pfc default-global switch-priority 3",
            "nv set qos congestion-control LOSSY traffic-class 3 min-threshold 40000",
            "nv set qos congestion-control LOSSY traffic-class 3 max-threshold 200000",
            "nv set interface swp1 link mtu 9216",
        ]
    )
    st = parse(text)
    assert ("UNUSED", 2) in _codes(st)
    assert st.interfaces["swp1"].ecn == {}
    assert st.interfaces["swp1"].pfc.no_drop == [3]


def test_undefined_reference_warns_and_contributes_nothing() -> None:
    text = "\n".join(
        [
            "nv set qos pfc default-global switch-priority 3",
            "nv set interface swp1-2 qos pfc profile NOPE",
            "nv set interface swp3 link mtu 9000",
        ]
    )
    st = parse(text)
    assert [c for c in _codes(st) if c[0] == "UNDEFINED"] == [("UNDEFINED", 2), ("UNDEFINED", 2)]
    assert st.interfaces["swp1"].pfc == Pfc()
    assert st.interfaces["swp3"].pfc.no_drop == [3]  # default-global still applies to swp3


def test_crlf_and_prompt_prefix() -> None:
    text = "cumulus@switch:~$ nv set interface swp1 link mtu 9216\r\ncumulus@switch:~$ nv set qos pfc-watchdog polling-interval 200\r\n"
    st = parse(text)
    assert st.interfaces["swp1"].mtu == 9216
    assert st.pfc_watchdog.polling_ms == 200
    assert st.warnings == []


def test_wred_drop_is_not_ecn() -> None:
    text = "\n".join(
        [
            "nv set qos congestion-control default-global traffic-class 1 red enable",
            "nv set qos congestion-control default-global traffic-class 1 ecn disable",
            "nv set qos congestion-control default-global traffic-class 1 min-threshold 40000",
            "nv set qos congestion-control default-global traffic-class 3 ecn enable",
            "nv set qos congestion-control default-global traffic-class 3 min-threshold 150000",
            "nv set interface swp1 link mtu 9216",
        ]
    )
    st = parse(text)
    assert st.interfaces["swp1"].ecn == {"3": Ecn(min_bytes=150000)}


def test_unknown_roce_line_warns_with_line_number() -> None:
    text = (
        "nv set interface swp1 link mtu 9216\nnv set qos pfc default-global frobnicate 7\nqos dscp 26 junk\n"
    )
    st = parse(text)
    assert any(w.line == 2 and "frobnicate" in w.message for w in st.warnings)
    assert any(w.line == 3 for w in st.warnings)


def test_source_lines_and_units() -> None:
    text = "\n".join(
        [
            "nv set system hostname leaf9",
            "nv set qos mapping default-global trust both",
            "nv set qos mapping default-global dscp 24,26 switch-priority 3",
            "nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 3",
            "nv set qos congestion-control default-global traffic-class 3 min-threshold 150KB",
            "nv set qos pfc-watchdog polling-interval 200",
            "nv set qos pfc-watchdog robustness 5",
            "nv set interface swp1-swp2,swp4 qos pfc-watchdog",
        ]
    )
    st = parse(text)
    assert st.hostname == "leaf9"
    assert st.dscp_to_tc == {"24": 3, "26": 3}
    assert sorted(st.interfaces) == ["swp1", "swp2", "swp4"]
    assert st.interfaces["swp4"].trust == "dscp"
    assert st.interfaces["swp2"].ecn["3"].min_bytes == 150000
    assert st.interfaces["swp1"].pfc_watchdog is True
    assert st.pfc_watchdog.detection_ms == 1000
    assert st.sources["dscp_to_tc.26"].lines == [3]
    assert st.sources["hostname"].lines == [1]
    assert st.sources["interfaces.swp2.pfc_watchdog"].lines == [8]
    assert 7 in st.sources["pfc_watchdog.detection_ms"].lines
    assert "interfaces.swp1.ecn.3" in st.defaults  # ecn not stated: marking is the default


def test_switch_priority_to_tc_is_composed() -> None:
    text = "\n".join(
        [
            "nv set qos mapping default-global dscp 26 switch-priority 4",
            "nv set qos egress-queue-mapping default-global switch-priority 4 traffic-class 3",
        ]
    )
    st = parse(text)
    assert st.dscp_to_tc == {"26": 3}
    assert any(w.code == "SEMANTIC" and w.line == 2 for w in st.warnings)


def test_roce_macro_is_read_as_nvidias_documented_profile() -> None:
    st = parse("nv set qos roce\nnv set interface swp1 link mtu 9216\n")
    assert [w.message for w in st.warnings] == []
    swp1 = st.interfaces["swp1"]
    assert swp1.trust == "dscp"
    assert swp1.pfc == Pfc(enabled=True, no_drop=[3])
    assert swp1.ecn == {
        "0": Ecn(min_bytes=150000, max_bytes=1500000, probability=100),
        "3": Ecn(min_bytes=150000, max_bytes=1500000, probability=100),
    }
    assert swp1.scheduling == {
        "0": Sched(mode="dwrr", bandwidth_percent=50),
        "3": Sched(mode="dwrr", bandwidth_percent=50),
        "6": Sched(mode="strict"),
    }
    assert st.sources["interfaces.swp1.pfc"].lines == [1]
    # an explicit override wins per traffic class; 'ecn disable' removes the profile's marking
    st = parse(
        "nv set qos roce mode lossless\n"
        "nv set qos congestion-control default-global traffic-class 0 ecn disable\n"
        "nv set qos congestion-control default-global traffic-class 3 min-threshold 200000\n"
        "nv set interface swp1 link mtu 9216\n"
    )
    assert st.interfaces["swp1"].ecn == {"3": Ecn(min_bytes=200000, max_bytes=1500000, probability=100)}
    # a stored configuration (YAML) with a mode but no state: RoCE is off ("disabled by default",
    # NVUE schema), its profile values are not read in, and the parse says why
    st = parse("qos:\n  roce:\n    mode: lossless\ninterface:\n  swp1:\n    link:\n      mtu: 9216\n")
    assert st.interfaces["swp1"].pfc == Pfc() and st.interfaces["swp1"].ecn == {}
    assert [(w.code, w.line) for w in st.warnings] == [("MACRO", 3)]
    for on in ("state: enabled", "enable: on"):
        st = parse(f"qos:\n  roce:\n    {on}\n    mode: lossless\ninterface:\n  swp1:\n    link:\n      mtu: 9216\n")
        assert st.interfaces["swp1"].pfc == Pfc(enabled=True, no_drop=[3]) and not st.warnings
    st = parse("qos:\n  roce:\n    state: disabled\n    mode: lossless\ninterface:\n  swp1:\n    link:\n      mtu: 9216\n")
    assert st.interfaces["swp1"].pfc == Pfc() and not st.warnings
    # other RoCE modes stay a warning: their values are not documented per field
    st = parse("nv set qos roce mode lossy-multi-tc\nnv set interface swp1 link mtu 9216\n")
    assert any(w.code == "MACRO" and w.line == 1 for w in st.warnings)
    assert st.interfaces["swp1"].pfc == Pfc()


def test_watchdog_drops_and_restores_after_one_polling_interval() -> None:
    """NVUE cannot state a restoration time or an action: the documented behaviour is filled."""
    st = parse("nv set qos pfc-watchdog polling-interval 200\nnv set interface swp1 qos pfc-watchdog\n")
    assert st.pfc_watchdog.action == "drop"
    assert st.pfc_watchdog.restoration_ms == 200
    assert {"pfc_watchdog.action", "pfc_watchdog.restoration_ms"} <= set(st.defaults)
    assert parse("nv set interface swp1 link mtu 9216\n").pfc_watchdog.action is None


def test_yaml_line_numbers_and_booleans() -> None:
    text = "\n".join(
        [
            "- set:",
            "    system:",
            "      forwarding:",
            "        ecmp-hash:",
            "          source-port: enabled",
            "          destination-port: disabled",
            "    interface:",
            "      swp1:",
            "        qos:",
            "          pfc-watchdog:",
            "            state: disabled",
        ]
    )
    st = parse(text)
    assert st.ecmp.fields == ["src_port"]
    assert st.interfaces["swp1"].pfc_watchdog is False
    assert st.sources["interfaces.swp1.pfc_watchdog"].lines == [10, 11]
    assert any(w.code == "PARTIAL" for w in st.warnings)


def test_never_raises_on_garbage() -> None:
    for text in [
        "",
        "- set: [",
        "{",
        "nv set",
        "nv set interface",
        "- set:\n    qos: 3\n",
        "\x00\xff",
        "[1, 2]",
    ]:
        st = parse(text)
        assert isinstance(st, DeviceState) and st.platform == "nvue"


def test_capabilities_and_drivers() -> None:
    cap = PLATFORM.capabilities
    assert (cap.min_mtu.value, cap.max_mtu.value) == (552, 9216)
    assert "src_port" in cap.hash_fields and cap.hash_seed and not cap.hash_symmetric
    assert PLATFORM.netmiko_device_type == "cumulus_linux"
    assert PLATFORM.collect_commands == ("nv config show -o json",)
    assert PLATFORM.extension == "yaml"


def test_rendered_lab_fixture_is_current() -> None:
    """tests/fixtures/nvue/rendered-lab.yaml is what the template renders for the lab state."""
    assert (FIXTURES / "rendered-lab.yaml").read_text() == render_state(lab_state())


def test_link_pause_and_port_dscp_map_round_trip() -> None:
    s = lab_state()
    s.interfaces["swp9"].link_pause = True
    s.interfaces["swp9"].pfc = Pfc()  # NVUE: no link pause and PFC on the same port
    s.interfaces["swp10"].dscp_to_tc = {"24": 3, "48": 6}
    text = render_state(s)
    assert _block(text, "      link-pause:") == [
        "      link-pause:",
        "        roce-pause-1:",
        "          tx: enable",
        "          rx: enable",
    ]
    got = parse(text)
    assert got.warnings == []
    assert got.semantic() == s.semantic()
    assert got.interfaces["swp10"].dscp_to_tc == {"24": 3, "48": 6}
    assert got.interfaces["swp11"].dscp_to_tc is None


def test_alias_bomb_is_a_warning() -> None:
    rows = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, cur in zip("abcdef", "bcdefg", strict=True):
        rows.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    st = parse("\n".join(rows))
    assert any("too large" in w.message for w in st.warnings)
