"""Optics (DOM) in `roceconf cabling`'s link health (RC514-RC516): each end's received power, transmitted power
and module temperature against the module's own alarm / warning thresholds, from the real Junos replies napalm
recorded (tests/fixtures/junos/counters/real/napalm-optics-*.txt) and from readings around the thresholds: past
a warning threshold a warning, past an alarm threshold an error, a threshold missing unknown (never ok), a
platform that reads no optics n/a (RC519)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roceconf import platforms
from roceconf.cabling.linkhealth import judge
from roceconf.cabling.report import format_report
from roceconf.compile import load_valid
from roceconf.counters.model import NO_DOM, OPTICS_KEYS, PortCounters, Snapshot, optics_value
from roceconf.intent import Fabric
from roceconf.lab.counters import OPTICS_THRESHOLDS, Scenario
from roceconf.platforms.base import split_outputs
from tests.test_cabling import LAB_INTENT
from tests.test_cabling_links import run

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "junos" / "counters" / "real"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


def _real(name: str, platform: str = "junos") -> dict[str, PortCounters]:
    folder = FIXTURES / platform / "counters" / "real"
    outs = {cmd: out for cmd, _line, out in split_outputs((folder / name).read_text())}
    ports, warnings = platforms.counters(platform).parse(outs)
    assert warnings == []
    return ports


def _judged(fab: Fabric, device: str, port: str, pc: PortCounters):
    """(the end's checks, the findings) of DEVICE:PORT of the lab intent judged on two samples holding ``pc``."""
    lh = judge(fab, {device: [Snapshot(device, "x", t, {port: pc}) for t in (0.0, 10.0)]}, {})
    return lh.ends[(device, port)].checks, [(f.rule.id, f.severity, f.message) for f in lh.findings]


def _end(fab: Fabric, pc: PortCounters, port: str = "et-0/0/1") -> dict[str, tuple[str, float | None, str | None]]:
    """The optics checks of spine2:PORT (Junos) judged on two samples holding ``pc``."""
    lh = judge(fab, {"spine2": [Snapshot("spine2", "junos", t, {port: pc}) for t in (0.0, 10.0)]}, {})
    checks = lh.ends[("spine2", port)].checks
    return {k: (checks[k].status, checks[k].value, checks[k].reason) for k in ("rx_power", "tx_power", "temperature")}


def test_the_real_replies_read_readings_and_the_modules_own_thresholds(fab: Fabric) -> None:
    """napalm's recorded SFP+ reply: every reading inside its module's thresholds is ok; the second reply's
    received power (-31.55 dBm, its low alarm flag on) is below the -20.00 dBm low alarm threshold: an error,
    and its transmitted power printed ``- Inf`` is not read: unknown, never ok."""
    pc = _real("napalm-optics-normal.txt")["xe-0/0/0"]
    assert _end(fab, pc) == {"rx_power": ("ok", -3.42, None), "tx_power": ("ok", -1.35, None),
                             "temperature": ("ok", 45.0, None)}
    low = _real("napalm-optics-low-rx.txt")["xe-2/2/2"]
    got = _end(fab, low)
    assert got["rx_power"] == ("finding", -31.55, "received power -31.55 dBm is below the module's low alarm "
                                                  "threshold (-20 dBm)")
    assert got["tx_power"][0] == "unknown" and "tx_power_dbm missing" in (got["tx_power"][2] or "")
    assert got["temperature"][:2] == ("ok", 33.0)
    lh = judge(fab, {"spine2": [Snapshot("spine2", "junos", t, {"et-0/0/1": low}) for t in (0.0, 10.0)]}, {})
    assert [(f.rule.id, f.device, f.port, f.severity) for f in lh.findings] == [
        ("RC514", "spine2", "et-0/0/1", "error")]
    assert lh.findings[0].message == ("et-0/0/1 (from leaf2:swp32): received power -31.55 dBm is below the module's "
                                      "low alarm threshold (-20 dBm)")


def _module(**readings: float) -> PortCounters:
    pc = PortCounters()
    base = {"rx_power_dbm": -2.5, "tx_power_dbm": -1.5, "temperature_c": 41.0}
    for k, v in {**base, **readings}.items():
        pc.set_optics(k, v, dict(OPTICS_THRESHOLDS[k]))
    return pc


@pytest.mark.parametrize(("readings", "check", "status", "severity", "why"), [
    ({"rx_power_dbm": -19.0}, "rx_power", "finding", "warning", "below the module's low warning threshold (-18.01"),
    ({"rx_power_dbm": -20.5}, "rx_power", "finding", "error", "below the module's low alarm threshold (-20 dBm)"),
    ({"rx_power_dbm": 2.2}, "rx_power", "finding", "warning", "above the module's high warning threshold (2 dBm)"),
    ({"tx_power_dbm": -9.0}, "tx_power", "finding", "error", "transmitted power -9 dBm is below the module's low "
                                                             "alarm threshold (-8.01 dBm)"),
    ({"temperature_c": 75.0}, "temperature", "finding", "warning", "module temperature 75 C is above the module's "
                                                                   "high warning threshold (73 C)"),
    ({"temperature_c": 80.0}, "temperature", "finding", "error", "high alarm threshold (78 C)"),
    ({"rx_power_dbm": -18.01}, "rx_power", "ok", None, None),  # on the threshold is not past it
])
def test_warning_and_alarm_thresholds_give_warning_and_error(fab: Fabric, readings: dict[str, float], check: str,
                                                              status: str, severity: str | None,
                                                              why: str | None) -> None:
    pc = _module(**readings)
    lh = judge(fab, {"spine2": [Snapshot("spine2", "junos", t, {"et-0/0/1": pc}) for t in (0.0, 10.0)]}, {})
    c = lh.ends[("spine2", "et-0/0/1")].checks[check]
    assert c.status == status
    assert [f.severity for f in lh.findings] == ([severity] if severity else [])
    if why:
        assert why in (c.reason or "") and why in lh.findings[0].message


def test_a_missing_threshold_is_unknown_unless_a_present_one_is_crossed(fab: Fabric) -> None:
    pc = PortCounters()
    pc.set_optics("rx_power_dbm", -3.0, {"low_alarm": -20.0, "high_alarm": 2.5})  # no warning thresholds
    pc.set_optics("tx_power_dbm", -9.0, {"low_alarm": -8.01})  # below the one it has: judged
    pc.set_optics("temperature_c", 40.0)  # a reading and no threshold at all
    got = _end(fab, pc)
    assert got["rx_power"][0] == "unknown" and "high_warn, low_warn threshold(s) not" in (got["rx_power"][2] or "")
    assert got["tx_power"][0] == "finding"
    assert got["temperature"][0] == "unknown"
    # no optics in the answers for the port at all (no transceiver, or not read): unknown, never ok
    none = _end(fab, PortCounters(link={"fcs_errors": 1}))
    assert {s for s, _v, _w in none.values()} == {"unknown"}


def test_the_last_sample_holding_a_reading_is_judged(fab: Fabric) -> None:
    first, last = _module(temperature_c=80.0), _module()
    lh = judge(fab, {"spine2": [Snapshot("spine2", "junos", 0.0, {"et-0/0/1": first}),
                                Snapshot("spine2", "junos", 10.0, {"et-0/0/1": last})]}, {})
    assert lh.ends[("spine2", "et-0/0/1")].checks["temperature"].status == "ok"


def test_optics_values_are_signed_decimals_and_never_a_non_number() -> None:
    assert optics_value("-3.42") == -3.42 and optics_value("45 degrees C / 113 degrees F") == 45.0
    assert optics_value("-13 degrees C / 9 degrees F\n   ") == -13.0 and optics_value("-30.45 dBm") == -30.45
    for junk in ("- Inf", "N/A", "off", "", None, True, float("nan"), "1.2.3"):
        assert optics_value(junk) is None, junk
    pc = PortCounters()
    pc.set_optics("rx_power_dbm", float("inf"), {"low_alarm": float("-inf"), "high_alarm": 2.0})
    assert pc.optics == {"rx_power_dbm:high_alarm": 2.0}
    with pytest.raises(KeyError):
        pc.set_optics("rx_power", 1.0)
    assert PortCounters.from_dict(json.loads(json.dumps(_module().to_dict()))).optics == _module().optics
    assert "optics" not in PortCounters(link={"fcs_errors": 0}).to_dict()  # no optics read: as before


def test_an_optics_finding_shows_in_every_format_with_its_own_severity(fab: Fabric, tmp_path: Path) -> None:
    """The lab's optics scenario on spine2:et-0/0/1 (Junos) through saved samples: RC514 an error in text,
    Markdown, JSON, JUnit and Prometheus; where optics are not read (EOS here), RC519 says so once."""
    from lxml import etree
    from prometheus_client.parser import text_string_to_metric_families

    report = run(fab, tmp_path, {"spine2": [Scenario("optics", "et-0/0/1")]})
    msg = ("et-0/0/1 (from leaf2:swp32): received power -24.5 dBm is below the module's low alarm threshold "
           "(-20 dBm)")
    assert [(f.rule, f.device, f.port, f.severity, f.message) for f in report.findings] == [
        ("RC514", "spine2", "et-0/0/1", "error", msg)]
    text = format_report(report, "text")
    assert f"spine2:et-0/0/1: error[RC514]: {msg}" in text
    assert "eos: info[RC519]: rx_power is not observable on eos: no sourced counter (rx_power_dbm is not read)" in text
    assert "RC514" in format_report(report, "markdown") and "| eos | rx_power | rx_power_dbm |" in format_report(
        report, "markdown")
    data = json.loads(format_report(report, "json"))
    chk = next(e for e in data["link_health"] if (e["device"], e["port"]) == ("spine2", "et-0/0/1"))["checks"]
    assert chk["rx_power"]["status"] == "finding" and chk["rx_power"]["value"] == -24.5
    assert chk["temperature"] == {"status": "ok", "value": 41.0, "reason": None}
    root = etree.fromstring(format_report(report, "junit").encode())
    assert root.xpath("//testsuite[@name='spine2']/testcase[starts-with(@name,'RC514')]/failure")
    skipped = root.xpath("//testsuite[@name='leaf1']/testcase[starts-with(@name,'RC516')]/skipped")
    assert skipped and skipped[0].get("message").startswith("RC519 n/a: not observable on eos")
    fams = {f.name: f for f in text_string_to_metric_families(format_report(report, "prometheus"))}
    checks = {(s.labels["device"], s.labels["port"], s.labels["check"]): s.labels["status"]
              for s in fams["roceconf_cabling_link_check"].samples if s.value == 1.0}
    assert checks[("spine2", "et-0/0/1", "rx_power")] == "finding"
    assert checks[("spine2", "et-0/0/0", "temperature")] == "ok" and ("leaf1", "Ethernet49", "rx_power") not in checks
    sev = {(s.labels["rule"], s.labels["severity"]) for s in fams["roceconf_cabling_finding"].samples}
    assert sev == {("RC514", "error")}
    from roceconf.reports import html

    page = html.render(html.cabling_map(report, fab))
    assert "RC514" in page and "-24.5 dBm" in page


def test_the_real_nxos_answer_agrees_with_the_modules_own_alarm_flags(fab: Fabric) -> None:
    """NX-OS (ntc-templates' recording): Ethernet3/1 prints ``--`` (low alarm) beside its transmitted and
    received power: both are errors here; its temperature is within its thresholds. Ethernet3/3's transmitted
    power is N/A: unknown. The multi-lane Ethernet4/1 is judged on its worst lane, all within."""
    ports = _real("ntc-transceiver-details.txt", "nxos")
    checks, found = _judged(fab, "spine1", "Ethernet1/1", ports["Ethernet3/1"])
    assert {k: checks[k].status for k in ("rx_power", "tx_power", "temperature")} == {
        "rx_power": "finding", "tx_power": "finding", "temperature": "ok"}
    assert found == [
        ("RC514", "error", "Ethernet1/1 (from leaf1:Ethernet49): received power -30.45 dBm is below the module's low "
                           "alarm threshold (-13.9 dBm)"),
        ("RC515", "error", "Ethernet1/1 (to leaf1:Ethernet49): transmitted power -14.05 dBm is below the module's "
                           "low alarm threshold (-11.3 dBm)")]
    checks, _found = _judged(fab, "spine1", "Ethernet1/1", ports["Ethernet3/3"])
    assert checks["tx_power"].status == "unknown"
    checks, found = _judged(fab, "spine1", "Ethernet1/1", ports["Ethernet4/1"])
    assert {k: checks[k].status for k in ("rx_power", "tx_power", "temperature")} == dict.fromkeys(
        ("rx_power", "tx_power", "temperature"), "ok") and found == []


def test_sonic_multi_lane_modules_are_judged_on_their_worst_lane(fab: Fabric) -> None:
    """SONiC (sfpshow's recorded outputs): the QSFP-DD module has lane 2 above the high alarm and lane 3 far
    below the low alarm: the worse, lane 3, is the error, never hidden by the seven others; the OSFP module
    prints no thresholds: every reading is unknown, never ok; the QSFP28 active cable has no transmitted power."""
    dd = _real("sfpshow-qsfp-dd-dom.txt", "sonic")["Ethernet8"]
    checks, found = _judged(fab, "leaf3", "Ethernet0", dd)
    assert found == [("RC514", "error", "Ethernet0 (from gpu3:eth0): received power (lane 3) -22.9243 dBm is below "
                                        "the module's low alarm threshold (-11.9044 dBm)")]
    assert checks["tx_power"].status == "ok" and checks["temperature"].status == "ok"
    osfp = _real("sfpshow-osfp-dom.txt", "sonic")["Ethernet72"]
    checks, found = _judged(fab, "leaf3", "Ethernet0", osfp)
    assert found == [] and {checks[k].status for k in ("rx_power", "tx_power", "temperature")} == {"unknown"}
    assert "threshold(s) not" in (checks["temperature"].reason or "")
    q28 = _real("sfpshow-qsfp28-dom.txt", "sonic")["Ethernet0"]
    checks, found = _judged(fab, "leaf3", "Ethernet0", q28)
    assert found == [] and checks["rx_power"].status == "ok" and checks["tx_power"].status == "unknown"


def test_the_worst_lane_is_the_one_furthest_past_or_nearest_to_a_threshold() -> None:
    th = {"high_alarm": 7.0, "high_warn": 5.0, "low_warn": -9.0, "low_alarm": -12.0}
    pc = PortCounters()
    pc.set_worst_lane("rx_power_dbm", [(1, -1.0, th), (2, -9.5, th), (3, -3.0, th)])  # lane 2 past a warning
    assert (pc.optics or {})["rx_power_dbm"] == -9.5 and (pc.optics or {})["rx_power_dbm:lane"] == 2.0
    pc.set_worst_lane("tx_power_dbm", [(1, 7.5, th), (2, -20.0, th)])  # both past an alarm: the further
    assert (pc.optics or {})["tx_power_dbm"] == -20.0
    pc.set_worst_lane("temperature_c", [(1, 1.0, th), (2, 4.0, th)])  # both within: the nearer to a threshold
    assert (pc.optics or {})["temperature_c"] == 4.0
    none = PortCounters()
    none.set_worst_lane("rx_power_dbm", [(1, None, th), (2, None, th)])
    assert none.optics is not None and "rx_power_dbm" not in none.optics  # thresholds only: reads as not read


def test_the_real_ethtool_answer_of_a_host_agrees_with_its_alarm_flags(fab: Fabric) -> None:
    """ethtool -m (jc's recording): received power -40 dBm with the module's low alarm flag on: an error on a
    host NIC end, read alike by the three host platforms; transmitted power and temperature within."""
    pc = _real("jc-ethtool-module-info.txt", "linux-dcb")["eth0"]
    for platform in ("connectx", "bnxt"):
        outs = {cmd: out for cmd, _line, out in split_outputs(
            (FIXTURES / "linux-dcb" / "counters" / "real" / "jc-ethtool-module-info.txt").read_text())}
        assert platforms.counters(platform).parse(outs)[0]["eth0"].optics == pc.optics
    checks, found = _judged(fab, "gpu1", "eth0", pc)
    assert found == [("RC514", "error", "eth0 (from leaf1:Ethernet1): received power -40 dBm is below the module's "
                                        "low alarm threshold (-16.31 dBm)")]
    assert checks["tx_power"].status == "ok" and checks["temperature"].status == "ok"


def test_ethtool_per_channel_lines_are_read_per_lane() -> None:
    """A QSFP module's lines as ethtool's qsfp.c labels them (built here from those labels, not a recording):
    ``(Channel n)`` with or without a blank before it, ``-inf dBm`` (no light) not a number."""
    from roceconf.counters import modulediag

    body = "\n".join([
        "\tModule temperature                        : 33.76 degrees C / 92.77 degrees F",
        "\tTransmit avg optical power (Channel 1)    : 1.0778 mW / 0.33 dBm",
        "\tTransmit avg optical power (Channel 2)    : 0.0000 mW / -inf dBm",
        "\tRcvr signal avg optical power(Channel 1)  : 0.9969 mW / -0.01 dBm",
        "\tRcvr signal avg optical power (Channel 2) : 0.0100 mW / -20.00 dBm",
        "\tLaser rx power low alarm   (Channel 2)   : On",
        "\tLaser output power high alarm threshold   : 3.5481 mW / 5.50 dBm",
        "\tLaser rx power low alarm threshold        : 0.0251 mW / -16.00 dBm",
    ])
    pc = PortCounters()
    assert modulediag.read(body, pc)
    o = pc.optics or {}
    assert (o["rx_power_dbm"], o["rx_power_dbm:lane"], o["rx_power_dbm:low_alarm"]) == (-20.0, 2.0, -16.0)
    assert o["tx_power_dbm"] == 0.33 and "tx_power_dbm:lane" in o  # lane 2's -inf is no reading
    assert o["temperature_c"] == 33.76 and not any(k.startswith("temperature_c:") for k in o)
    assert not modulediag.read("Cannot get module EEPROM information: Operation not supported\n", PortCounters())


def test_a_warning_threshold_crossed_is_a_warning_in_the_report_and_its_link_fails(fab: Fabric,
                                                                                     tmp_path: Path) -> None:
    """The finding's own severity (warning) reaches the report's finding, its text line and Prometheus; the link
    still fails (a finding), the exit code is 1."""
    from roceconf.cabling.collect import cabling_offline, with_links
    from tests.test_cabling import save

    report = cabling_offline(fab, save(fab, tmp_path / "lldp"))
    hot = _module(temperature_c=75.0)
    report = with_links(report, fab, {"spine2": [Snapshot("spine2", "junos", t, {"et-0/0/1": hot})
                                                 for t in (0.0, 10.0)]}, {})
    got = [(f.rule, f.severity, f.device, f.port) for f in report.findings]
    assert got == [("RC516", "warning", "spine2", "et-0/0/1")]
    assert "spine2:et-0/0/1: warning[RC516]: et-0/0/1 (to leaf2:swp32): module temperature 75 C is above the " \
           "module's high warning threshold (73 C)" in format_report(report, "text")
    assert 'rule="RC516",severity="warning"' in format_report(report, "prometheus")
    li = next(x for x in report.links if "spine2:et-0/0/1" in (x.a, x.b))
    assert li.status == "fail" and report.exit_code == 1


def test_a_module_that_states_it_has_no_dom_is_na_never_ok(fab: Fabric) -> None:
    """NX-OS (napalm's recorded Nexus 3548 answer): the copper cables print "DOM is not supported" in place of
    the diagnostics table: their optics are n/a with that reason - never ok, and no RC519 note of the platform
    (NX-OS reads optics) - so the end is judged on its other checks. A port whose answer has no reading and
    says nothing (``transceiver is not present``; a module whose powers print ``N/A``) stays unknown, and so
    does an answer cut before the statement."""
    ports = _real("napalm-n3548-transceiver-details.txt", "nxos")
    assert ports["Ethernet1/1"].optics == {NO_DOM: 1.0} and "Ethernet1/18" not in ports
    speed = fab.devices["spine1"].ports["Ethernet1/1"].speed_gbps * 10**9
    dac = PortCounters(link={"fcs_errors": 0, "speed_bps": speed})
    dac.add_optics_of(ports["Ethernet1/1"])
    lh = judge(fab, {"spine1": [Snapshot("spine1", "nxos", t, {"Ethernet1/1": dac}) for t in (0.0, 10.0)]}, {})
    end = lh.ends[("spine1", "Ethernet1/1")]
    for k in ("rx_power", "tx_power", "temperature"):
        assert end.checks[k].status == "n/a"
        assert end.checks[k].reason == ('not applicable (RC519): the module states it has no DOM to read ("DOM is '
                                        'not supported": a copper cable / DAC, or a module without diagnostics)')
    assert end.status == "ok" and lh.findings == []
    assert not [n for n in lh.not_observable if n.check in ("rx_power", "tx_power", "temperature")]
    bare = PortCounters(link={"fcs_errors": 0, "speed_bps": speed})  # not present: no optics at all
    checks, _found = _judged(fab, "spine1", "Ethernet1/1", bare)
    assert {checks[k].status for k in ("rx_power", "tx_power", "temperature")} == {"unknown"}
    checks, _found = _judged(fab, "spine1", "Ethernet1/1", ports["Ethernet1/39"])  # powers N/A, temperature read
    assert (checks["rx_power"].status, checks["tx_power"].status, checks["temperature"].status) == (
        "unknown", "unknown", "ok")
    text = (FIXTURES / "nxos/counters/real/napalm-n3548-transceiver-details.txt").read_text()
    cut = text[:text.index("DOM is not supported")]  # Ethernet1/1's block without its statement
    got, _w = platforms.counters("nxos").parse({cmd: out for cmd, _line, out in split_outputs(cut)})
    assert "Ethernet1/1" not in got


def test_thresholds_left_unset_are_not_a_window_to_be_ok_in(fab: Fabric) -> None:
    """napalm's recorded Nexus 3548 answer, Ethernet1/22 (external calibration): temperature 0.00 C with all four
    thresholds 0.00 C - the module left them unset. Judged against them the reading would be ok (0 is within
    [0, 0]); it is unknown, and so is a reading above such thresholds (not an alarm past 0). A real window still
    judges: the same port with thresholds spread is ok, and past one of them a finding."""
    ports = _real("napalm-n3548-transceiver-details.txt", "nxos")
    unset = ports["Ethernet1/22"]
    assert unset.optics is not None and unset.optics.get("temperature_c") == 0.0
    checks, found = _judged(fab, "spine1", "Ethernet1/1", unset)
    assert checks["temperature"].status == "unknown"
    assert "thresholds are not set" in (checks["temperature"].reason or "")
    assert found == []
    warm = PortCounters()
    warm.add_optics_of(unset)
    assert warm.optics is not None
    warm.optics["temperature_c"] = 31.0
    checks, found = _judged(fab, "spine1", "Ethernet1/1", warm)
    assert checks["temperature"].status == "unknown" and found == []
    spread = PortCounters()
    spread.add_optics_of(warm)
    assert spread.optics is not None
    keys = OPTICS_KEYS["temperature_c"]
    spread.optics.update({keys["high_alarm"]: 75.0, keys["low_alarm"]: -5.0, keys["high_warn"]: 70.0,
                          keys["low_warn"]: 0.0})
    checks, found = _judged(fab, "spine1", "Ethernet1/1", spread)
    assert checks["temperature"].status == "ok"
    spread.optics["temperature_c"] = 80.0
    checks, found = _judged(fab, "spine1", "Ethernet1/1", spread)
    assert checks["temperature"].status == "finding"
    assert [(r, s) for r, s, _m in found] == [("RC516", "error")]
