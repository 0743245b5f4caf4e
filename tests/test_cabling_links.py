"""`roceconf cabling --counters DIR`: link health (RC510-RC516), ECMP balance (RC520) and one verdict per link,
offline from saved counter samples each platform prints as its own commands answer (the lab's counter engine
formatted by every platform's ``counters.simulate``); a check whose counter a platform never reads is n/a (RC519,
neither ok nor unknown), one the platform reads but that could not be judged stays unknown, never ok."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from lxml import etree

from roceconf import platforms
from roceconf.cabling.collect import cabling_offline, link_counters_offline, with_links
from roceconf.cabling.linkhealth import CHECKS, judge, tiers
from roceconf.cabling.report import FORMATS, format_report
from roceconf.compile import load_valid, output_name, render_fabric, write_outputs
from roceconf.counters.hostnic import with_end
from roceconf.counters.model import LINK_COUNTERS, OPTICS_LEVELS, CounterSpec, PortCounters, Snapshot
from roceconf.counters.model import OPTICS as OPTICS_READINGS
from roceconf.drift.audit import audit
from roceconf.health.collect import SAVED_SUFFIX, health_offline
from roceconf.health.report import format_report as health_format
from roceconf.intent import Fabric
from roceconf.lab.counters import OPTICS as LAB_OPTICS
from roceconf.lab.counters import OPTICS_THRESHOLDS, LabCounters, PortProfile, Scenario
from tests.test_cabling import LAB_INTENT, save

BIN = Path(sys.executable).parent
XSD = Path(__file__).parent / "fixtures" / "junit" / "junit-10.xsd"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


def save_counters(fab: Fabric, d: Path, scenarios: dict[str, list[Scenario]] | None = None,
                  times: tuple[float, ...] = (1000.0, 1010.0), health: bool = False) -> Path:
    """DIR/<device>.counters.json as --save-counters writes it: ``times`` samples of each device's link
    commands (and its health commands with ``health``), answered by its platform's own ``simulate`` over the
    lab's counter engine (with ``scenarios`` per device)."""
    d.mkdir(exist_ok=True)
    for n, dev in fab.devices.items():
        spec = platforms.counters(dev.platform)
        rdma = {p: sp.rdma_device for p, sp in dev.ports.items()}
        prof = {p: PortProfile([3], [3]) for p in dev.ports}
        engine = LabCounters(is_host=dev.is_host, t0=times[0] - 100)
        engine.set_scenarios((scenarios or {}).get(n, []))
        engine.speeds = {p: sp.speed_gbps * 10**9 for p, sp in dev.ports.items()}  # every port at the intent's
        cmds = list(spec.link_commands(rdma)) if spec.link_commands else []
        if health or not cmds:
            cmds = [*spec.commands(rdma), *(c for c in cmds if c not in spec.commands(rdma))]
        samples = []
        for t in times:
            outs = {}
            for c in cmds:
                text = spec.simulate(engine.read(c, prof, now=t), c, rdma) or ""
                outs[c] = with_end(text) if dev.is_host else text
            samples.append({"taken_at": t, "command_times": {}, "outputs": outs})
        (d / (n + SAVED_SUFFIX)).write_text(json.dumps({"format_version": 1, "device": n, "platform": dev.platform,
                                                        "samples": samples}))
    return d


def run(fab: Fabric, tmp: Path, scenarios: dict[str, list[Scenario]] | None = None, **kw):
    lldp = save(fab, tmp / "lldp")
    counters = save_counters(fab, tmp / "counters", scenarios)
    report = cabling_offline(fab, lldp)
    snaps, unread = link_counters_offline(fab, counters, [d.device for d in report.devices])
    return with_links(report, fab, snaps, unread, **kw)


def keyed(report) -> list[tuple[str, str, str | None]]:
    return sorted((f.rule, f.device, f.port) for f in report.findings)


def end(report, device: str, port: str) -> dict[str, str]:
    return {k: c.status for k, c in report.link.ends[(device, port)].checks.items()}


# ------------------------------------------------------------------------------------ what each platform reads
#: platform -> the checks it cannot observe (no sourced counter: CounterSpec.link_reads), docs/cabling.md's table
OPTICS = {"rx_power", "tx_power", "temperature"}
BLIND = {"eos": {"fec", "fec_mode", *OPTICS}, "nxos": {"fec", "flaps", "fec_mode"}, "junos": {"fec", "fec_mode"},
         "sonic": {"fcs", "flaps", "ecmp"}, "nvue": {"fec", "fec_mode", *OPTICS},
         "connectx": {"fec"}, "bnxt": {"fec"}, "linux-dcb": {"fec"}}
#: the optics checks of an end whose platform reads no optics (RC519)
NO_OPTICS = dict.fromkeys(OPTICS, "n/a")
OPTICS_OK = dict.fromkeys(OPTICS, "ok")


def test_healthy_counters_give_ok_links_exit_0_and_what_a_platform_cannot_observe_is_na(
        fab: Fabric, tmp_path: Path) -> None:
    report = run(fab, tmp_path)
    assert report.findings == []
    # per platform: what its answers carry is judged ok, a check it never reads is n/a (never ok, never unknown)
    na_mode = {"fec_mode": "n/a"}
    assert end(report, "leaf1", "Ethernet49") == {"fcs": "ok", "fec": "n/a", "flaps": "ok", "speed": "ok", **na_mode,
                                                  **NO_OPTICS}  # EOS
    assert end(report, "spine1", "Ethernet1/1") == {"fcs": "ok", "fec": "n/a", "flaps": "n/a", "speed": "ok",
                                                    **na_mode, **OPTICS_OK}  # NX-OS
    assert end(report, "spine2", "et-0/0/0") == {"fcs": "ok", "fec": "n/a", "flaps": "ok", "speed": "ok", **na_mode,
                                                 **OPTICS_OK}  # Junos
    # SONiC: its far end (NX-OS) cannot show a FEC mode, so the mode is n/a there too
    assert end(report, "leaf3", "Ethernet248") == {"fcs": "n/a", "fec": "ok", "flaps": "n/a", "speed": "ok", **na_mode,
                                                   **OPTICS_OK}
    assert end(report, "leaf2", "swp31") == {"fcs": "ok", "fec": "n/a", "flaps": "ok", "speed": "ok", **na_mode,
                                             **NO_OPTICS}  # NVUE
    # ConnectX to EOS (no FEC mode there); bnxt and linux-dcb to SONiC: both ends read RS-FEC
    assert end(report, "gpu1", "eth0") == {"fcs": "ok", "fec": "n/a", "flaps": "ok", "speed": "ok", **na_mode,
                                           **OPTICS_OK}
    for host, port in (("gpu3", "eth0"), ("gpu4", "eth0")):
        assert end(report, host, port) == {"fcs": "ok", "fec": "n/a", "flaps": "ok", "speed": "ok", "fec_mode": "ok",
                                           **OPTICS_OK}
    assert end(report, "leaf3", "Ethernet0") == {"fcs": "n/a", "fec": "ok", "flaps": "n/a", "speed": "ok",
                                                 "fec_mode": "ok", **OPTICS_OK}
    assert report.link.ends[("gpu3", "eth0")].checks["fec_mode"].mode == "rs"
    why = report.link.ends[("spine1", "Ethernet1/1")].checks["flaps"].reason
    assert why == "not observable on nxos: no sourced counter (carrier_transitions is not read; docs/cabling.md)"
    # an end with a n/a check is judged on what is observable (ok), never n/a as a whole
    assert report.link.ends[("leaf3", "Ethernet248")].status == "ok"
    assert report.link.ends[("leaf2", "swp31")].status == "ok"
    # everything observable is ok: every link is ok and the run exits 0
    assert [li.status for li in report.links] == ["ok"] * 16 and report.exit_code == 0
    groups = {g.device: (g.status, g.max_over_mean) for g in report.link.groups}
    assert groups == {"leaf1": ("ok", 1.0), "leaf2": ("ok", 1.0), "leaf3": ("n/a", None), "leaf4": ("ok", 1.0)}
    # RC519 once per platform and check, exactly what the platforms cannot observe
    notes = {(n.platform, n.check) for n in report.link.not_observable}
    assert notes == {(p, k) for p, ks in BLIND.items() for k in ks if k != "ecmp" or p == "sonic"}
    assert len(report.link.not_observable) == len(notes)
    text = format_report(report, "text")
    assert "nvue: info[RC519]: fec is not observable on nvue: no sourced counter (fec_uncorrectable is not read); " \
        "n/a on 4 link end(s) of leaf2" in text
    assert "link health n/a on" not in text  # every platform now observes some check
    assert "16 links: 16 ok, 0 with findings, 0 unknown" in text and "unknown:" not in text


def test_link_reads_is_what_each_parser_reads(fab: Fabric) -> None:
    """The declaration is the parser's: a port answered with every link counter by the platform's own format
    parses to exactly ``link_reads`` (and the checks each platform cannot observe are BLIND's)."""
    from roceconf.cabling.linkhealth import CHECKS, ECMP_COUNTER

    full = PortCounters(link={**{c: 7 for c in LINK_COUNTERS}, "speed_bps": 400 * 10**9, "fec_mode": 3})
    for reading in OPTICS_READINGS:
        full.set_optics(reading, -1.0, dict.fromkeys(OPTICS_LEVELS, 0.5))
    seen = set()
    for dev in fab.devices.values():
        if dev.platform in seen:
            continue
        seen.add(dev.platform)
        spec = platforms.counters(dev.platform)
        rdma = {p: sp.rdma_device for p, sp in dev.ports.items()}
        port = next(iter(dev.ports))
        cmds = list(spec.link_commands(rdma)) if spec.link_commands else []
        outs = {c: spec.simulate({p: full for p in dev.ports}, c, rdma) or "" for c in cmds}
        if dev.is_host:
            outs = {c: with_end(t) for c, t in outs.items()}
        parsed, _warnings = spec.parse(outs)
        got = {*parsed[port].link, *(k for k in parsed[port].optics or {} if ":" not in k)} if port in parsed else set()
        assert got == spec.link_reads, dev.platform
        blind = {k for k, (c, _r) in CHECKS.items() if c not in spec.link_reads}
        assert blind | ({"ecmp"} if ECMP_COUNTER not in spec.link_reads else set()) == BLIND[dev.platform]
    assert seen == set(BLIND)


@pytest.mark.parametrize("fixtures", [
    ["eos/counters/real/napalm-show-interfaces", "eos/counters/real/napalm-get-interfaces"],  # speed: the 2nd
    ["nxos/counters/real/napalm-n3548-show-interface", "nxos/counters/real/ntc-transceiver-details"],
    ["junos/counters/real/pyez-srx-extensive", "junos/counters/real/napalm-optics-normal"],  # optics: the 2nd
    ["sonic/counters/real/fec-stats", "sonic/counters/real/intf-status", "sonic/counters/real/sfpshow-qsfp-dd-dom"]],
    ids=["eos", "nxos", "junos", "sonic"])
def test_link_reads_matches_the_real_recordings(fixtures: list[str]) -> None:
    """The link counters each platform declares are the ones its real recorded answers parse to (the expected
    parses, which tests/test_health_real_counters.py holds to the parser's)."""
    got = set()
    for fixture in fixtures:
        expected = yaml.safe_load((Path(__file__).parent / "fixtures" / (fixture + ".expected.yaml")).read_text())
        expected = expected.get("ports", expected) if "warnings" in expected else expected
        got |= {c for port in expected.values() for c in (port.get("link") or {})}
        got |= {c for port in expected.values() for c in (port.get("optics") or {}) if ":" not in c}
    assert got == platforms.counters(fixtures[0].split("/")[0]).link_reads


def test_a_counter_spec_that_declares_no_counter_or_half_is_refused() -> None:
    spec = platforms.counters("eos")
    with pytest.raises(ValueError, match="names no link counter: fcs"):
        CounterSpec(spec.commands, spec.parse, spec.simulate, spec.sources, link_commands=spec.link_commands,
                    link_sources=spec.link_sources, link_reads=frozenset({"fcs"}))
    with pytest.raises(ValueError, match="all given or none"):
        CounterSpec(spec.commands, spec.parse, spec.simulate, spec.sources, link_commands=spec.link_commands,
                    link_sources=spec.link_sources)


#: scenario -> (the devices and ports it is set on, its exact findings): every platform that can show it
SHOWN = {
    "crc": (["leaf1:Ethernet49", "spine1:Ethernet1/3", "spine2:et-0/0/1", "leaf2:swp1", "gpu1:eth0", "gpu3:eth1",
             "gpu4:eth1"], "RC510"),
    "flap": (["leaf4:Ethernet50", "spine2:et-0/0/2", "leaf2:swp2", "gpu2:eth1", "gpu3:eth0", "gpu4:eth0"], "RC512"),
    "fec": (["leaf3:Ethernet248"], "RC511"),
    # a port at half the intent's speed (its far end at the intent's): EOS, NX-OS, Junos, NVUE, SONiC, hosts
    "speed-mismatch": (["leaf1:Ethernet49", "spine1:Ethernet1/3", "spine2:et-0/0/1", "leaf2:swp1", "leaf3:Ethernet0",
                        "gpu1:eth0", "gpu4:eth1"], "RC513"),
    # received power below the module's low alarm threshold: Junos, NX-OS, SONiC, the hosts (ethtool -m)
    "optics": (["spine2:et-0/0/1", "spine1:Ethernet1/3", "leaf3:Ethernet0", "gpu1:eth1", "gpu3:eth1", "gpu4:eth1"],
               "RC514"),
}
#: ... and where it is set but the platform does not read the counter: that check is n/a (RC519), the link ok
NOT_SHOWN = {"crc": ["leaf3:Ethernet0"], "flap": ["spine1:Ethernet1/1", "leaf3:Ethernet256"],
             "fec": ["leaf1:Ethernet50", "spine2:et-0/0/3", "leaf2:swp31"],
             "speed-mismatch": [],  # every platform reads a speed
             "optics": ["leaf1:Ethernet49", "leaf2:swp1"]}  # EOS, NVUE: optics n/a
CHECK = {"crc": "fcs", "flap": "flaps", "fec": "fec", "speed-mismatch": "speed", "optics": "rx_power"}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_each_link_scenario_gives_exactly_its_finding_on_every_platform_that_shows_it(
        fab: Fabric, tmp_path: Path, name: str) -> None:
    where, rule = SHOWN[name]
    sc: dict[str, list[Scenario]] = {}
    for w in where + NOT_SHOWN[name]:
        dev, port = w.split(":", 1)
        sc.setdefault(dev, []).append(Scenario(name, port))
    report = run(fab, tmp_path, sc)
    assert keyed(report) == sorted((rule, *w.split(":", 1)) for w in where)
    for w in NOT_SHOWN[name]:
        assert end(report, *w.split(":", 1))[CHECK[name]] == "n/a", w
    for li in report.links:
        ends = {f"{d}:{p}" for d, p in li.ends}
        assert (li.status == "fail") == bool(ends & set(where)), li.a
        assert li.status in ("ok", "fail"), li.a  # nothing unknown: every observable check was judged
        if li.status == "fail":
            assert rule in li.rules and li.parts["link_health"]["status"] == "fail"
    assert report.exit_code == 1


def test_ecmp_imbalance_names_the_hot_member_and_a_group_without_bytes_is_na(fab: Fabric, tmp_path: Path) -> None:
    sc = {"leaf1": [Scenario("ecmp-imbalance", "Ethernet50")], "leaf2": [Scenario("ecmp-imbalance", "swp31")],
          "leaf3": [Scenario("ecmp-imbalance", "Ethernet248")]}
    report = run(fab, tmp_path, sc)
    assert keyed(report) == [("RC520", "leaf1", "Ethernet50"), ("RC520", "leaf2", "swp31")]  # EOS, NVUE
    g = {g.device: g for g in report.link.groups}
    assert g["leaf1"].status == "finding" and round(g["leaf1"].max_over_mean, 3) == 1.6  # 4 / mean(1, 4)
    assert round(g["leaf1"].cv, 3) == 0.6
    assert g["leaf2"].status == "finding" and round(g["leaf2"].max_over_mean, 3) == 1.6
    assert g["leaf3"].status == "n/a" and g["leaf3"].reason.startswith("not observable on sonic")  # no bytes read
    msg = report.findings[0].message
    assert "Ethernet50 sends 5000.0 MB/s, 1.60x the mean" in msg
    assert msg.endswith("; roceconf check finds no hash polarization (RC213)")  # the lab's tiers have own seeds
    assert report.findings[0].severity == "warning"


def test_ecmp_imbalance_mentions_the_static_hash_polarization_where_check_finds_it(tmp_path: Path) -> None:
    intent = tmp_path / "intent.yml"
    intent.write_text(LAB_INTENT.read_text().replace("ecmp: {seed: 25}", "ecmp: {seed: 10}"))  # spines = leaves
    polarized = load_valid(intent)
    report = run(polarized, tmp_path, {"leaf4": [Scenario("ecmp-imbalance", "Ethernet49")]})
    assert keyed(report) == [("RC520", "leaf4", "Ethernet49")]
    assert report.findings[0].message.endswith(
        "; roceconf check: RC213 tiers leaf, spine (leaf2, spine1) hash on "
        "['dst_ip', 'dst_port', 'src_ip', 'src_port'] with seed 10")


def test_tiers_come_from_the_intent_links(fab: Fabric) -> None:
    t = tiers(fab)
    assert {n: t[n] for n in ("gpu1", "leaf1", "leaf3", "spine1", "spine2")} == {
        "gpu1": 0, "leaf1": 1, "leaf3": 1, "spine1": 2, "spine2": 2}


# ------------------------------------------------------------------------------------ rates and unknowns
def _snaps(values: list[dict[str, int]], device: str = "leaf1", port: str = "Ethernet49",
           times: tuple[float, ...] = (0.0, 10.0)) -> list[Snapshot]:
    out = []
    for t, v in zip(times, values, strict=True):
        pc = PortCounters(link=dict(v))
        for reading, value in LAB_OPTICS.items():  # a module within its thresholds
            pc.set_optics(reading, value, dict(OPTICS_THRESHOLDS[reading]))
        out.append(Snapshot(device, "eos", t, {port: pc}))
    return out


ALL_READ = {"fcs_errors": 5, "fec_uncorrectable": 1, "carrier_transitions": 3, "tx_octets": 0, "rx_octets": 0,
            "speed_bps": 400 * 10**9}  # the lab intent's ports are 400G


def test_a_link_whose_observable_checks_are_clean_on_both_ends_is_ok(fab: Fabric) -> None:
    snaps = {"leaf1": _snaps([ALL_READ, ALL_READ]),
             "spine1": _snaps([ALL_READ, ALL_READ], "spine1", "Ethernet1/1")}
    lh = judge(fab, snaps, {})
    assert lh.ends[("leaf1", "Ethernet49")].status == "ok" and lh.ends[("spine1", "Ethernet1/1")].status == "ok"
    # the samples carry FEC (and flaps on NX-OS) but the platforms declare no reader for them: the declaration
    # decides, a stray value is not judged
    assert {k: c.status for k, c in lh.ends[("spine1", "Ethernet1/1")].checks.items()} == {
        "fcs": "ok", "fec": "n/a", "flaps": "n/a", "speed": "ok", "fec_mode": "n/a", **OPTICS_OK}
    assert lh.findings == []


SONIC = {"device": "leaf3", "port": "Ethernet248"}  # the lab's SONiC leaf: FEC is read there (and only there)


@pytest.mark.parametrize(("second", "times", "where", "check", "status", "why"), [
    ({**ALL_READ, "fcs_errors": 6}, (0.0, 10.0), {}, "fcs", "finding", None),  # one error in 10 s: 0.1/s > 0
    ({**ALL_READ, "fcs_errors": 4}, (0.0, 10.0), {}, "fcs", "unknown", "went backwards"),  # cleared: no rate
    ({**ALL_READ, "carrier_transitions": 5}, (0.0, 10.0), {}, "flaps", "finding", None),
    ({**ALL_READ, "fec_uncorrectable": 2}, (0.0, 10.0), SONIC, "fec", "finding", None),
    ({k: v for k, v in ALL_READ.items() if k != "fec_uncorrectable"}, (0.0, 10.0), SONIC, "fec", "unknown",
     "not read in two consecutive samples"),  # read once only
    (ALL_READ, (10.0, 10.0), {}, "fcs", "unknown", "not read in two consecutive samples with valid times"),
    ({**ALL_READ, "fec_uncorrectable": 2}, (0.0, 10.0), {}, "fec", "n/a", "not observable on eos"),  # EOS: no FEC
    # speed: the value read (the last sample's), against the intent's 400G
    ({**ALL_READ, "speed_bps": 100 * 10**9}, (0.0, 10.0), {}, "speed", "finding",
     "runs at 100 Gb/s, the intent says 400 Gb/s"),
    ({k: v for k, v in ALL_READ.items() if k != "speed_bps"}, (0.0, 10.0), {}, "speed", "ok", None),  # 1st sample's
    (ALL_READ, (10.0, 10.0), {}, "speed", "ok", None),  # a gauge: no rate, so no valid interval is needed
    # NVUE and SONiC read a speed too (no platform is blind to it)
    ({**ALL_READ, "speed_bps": 100 * 10**9}, (0.0, 10.0), {"device": "leaf2", "port": "swp31"}, "speed", "finding",
     "runs at 100 Gb/s, the intent says 400 Gb/s"),
    ({**ALL_READ, "speed_bps": 100 * 10**9}, (0.0, 10.0), SONIC, "speed", "finding",
     "runs at 100 Gb/s, the intent says 400 Gb/s"),
    ({**ALL_READ, "fec_mode": 3}, (0.0, 10.0), {"device": "leaf2", "port": "swp31"}, "fec_mode", "n/a",
     "not observable on nvue"),
])
def test_each_check_from_two_samples(fab: Fabric, second: dict, times: tuple[float, float], where: dict[str, str],
                                     check: str, status: str, why: str | None) -> None:
    dev, port = where.get("device", "leaf1"), where.get("port", "Ethernet49")
    lh = judge(fab, {dev: _snaps([ALL_READ, second], dev, port, times=times)}, {})
    c = lh.ends[(dev, port)].checks[check]
    assert c.status == status
    if why:
        assert why in (c.reason or "")


def test_a_read_counter_missing_from_the_answers_is_unknown_never_na(fab: Fabric) -> None:
    """EOS reads FCS errors: a port whose answers lack them is unknown (the platform could have shown them)."""
    no_fcs = {k: v for k, v in ALL_READ.items() if k != "fcs_errors"}
    lh = judge(fab, {"leaf1": _snaps([no_fcs, no_fcs])}, {})
    c = lh.ends[("leaf1", "Ethernet49")].checks["fcs"]
    assert c.status == "unknown" and c.reason == "fcs_errors missing from eos's answers for this port (the platform " \
        "reads it)"
    assert lh.ends[("leaf1", "Ethernet49")].status == "unknown"


def test_one_sample_and_an_unread_device_are_unknown(fab: Fabric) -> None:
    lh = judge(fab, {"leaf1": _snaps([ALL_READ], times=(0.0,))}, {"spine1": "timed out"})
    assert lh.ends[("leaf1", "Ethernet49")].checks["fcs"].reason == "1 sample(s): rates need two"
    assert lh.ends[("spine1", "Ethernet1/1")].status == "unknown"
    assert lh.ends[("spine1", "Ethernet1/1")].checks["fcs"].reason == "counters not read: timed out"
    # what NX-OS never reads stays n/a even when the device was not read
    assert lh.ends[("spine1", "Ethernet1/1")].checks["flaps"].status == "n/a"


def test_ecmp_group_thresholds_and_unread_member(fab: Fabric) -> None:
    def group(rates: dict[str, float]):
        ports = {p: (PortCounters(link={"tx_octets": 0}), PortCounters(link={"tx_octets": int(r * 10)}))
                 for p, r in rates.items()}
        snaps = [Snapshot("leaf1", "eos", t, {p: pair[i] for p, pair in ports.items()}) for i, t in
                 enumerate((0.0, 10.0))]
        return {g.device: g for g in judge(fab, {"leaf1": snaps}, {}).groups}["leaf1"]

    assert group({"Ethernet49": 1e9, "Ethernet50": 1e9}).status == "ok"
    assert group({"Ethernet49": 1.2e9, "Ethernet50": 1e9}).status == "ok"  # 1.09x, CV 0.09
    assert group({"Ethernet49": 1.6e9, "Ethernet50": 1e9}).status == "ok"  # 1.23x, CV 0.23: within both limits
    hot = group({"Ethernet49": 1.8e9, "Ethernet50": 1e9})  # 1.29x (within 1.5) but CV 0.29 > 0.25
    assert hot.status == "finding" and round(hot.cv, 3) == 0.286
    idle = group({"Ethernet49": 1e5, "Ethernet50": 0})
    assert idle.status == "unknown" and "too little load" in (idle.reason or "")
    half = group({"Ethernet49": 1e9})
    assert half.status == "unknown" and half.reason == "bytes sent not read on Ethernet50"


# ------------------------------------------------------------------------------------ joint verdict, formats
def test_health_and_drift_reports_join_each_link_verdict(fab: Fabric, tmp_path: Path) -> None:
    counters = save_counters(fab, tmp_path / "counters", health=True,
                             scenarios={"leaf1": [Scenario("lossless-drops", "Ethernet49")]})
    hrep = tmp_path / "health.json"
    hrep.write_text(health_format(health_offline(fab, counters), "json"))
    # a real drift report: roceconf's own render audited offline (in sync), leaf4's MTU changed (drift),
    # spine2's config missing (unknown)
    configs = tmp_path / "configs"
    files = render_fabric(fab)
    files[output_name("leaf4", "eos")] = files[output_name("leaf4", "eos")].replace("mtu 9214", "mtu 1500")
    write_outputs({k: v for k, v in files.items() if k != output_name("spine2", "junos")}, configs)
    drep = tmp_path / "drift.json"
    drep.write_text(json.dumps(audit(fab, configs=configs).to_dict()))
    lldp = save(fab, tmp_path / "lldp")
    report = cabling_offline(fab, lldp)
    snaps, unread = link_counters_offline(fab, counters, [d.device for d in report.devices])
    report = with_links(report, fab, snaps, unread, health=hrep, drift=drep)
    by = {li.a: li for li in report.links}
    li = by["leaf1:Ethernet49"]
    assert li.parts["health"] == {"status": "fail", "a": "fail", "b": "ok"} and li.status == "fail"
    assert by["leaf1:Ethernet50"].parts["drift"] == {"status": "unknown", "a": "ok", "b": "unknown"}
    assert by["leaf4:Ethernet49"].parts["drift"] == {"status": "fail", "a": "fail", "b": "ok"}
    assert by["gpu1:eth0"].parts["drift"] == {"status": "ok", "a": "ok", "b": "ok"}
    assert by["leaf4:Ethernet49"].parts["health"]["status"] == "ok"
    assert report.joined == {"health": str(hrep), "drift": str(drep)}


def test_cli_counters_in_every_format_and_junit_is_valid(fab: Fabric, tmp_path: Path) -> None:
    """One FCS finding (spine2), spine1's counters missing (unknown where NX-OS reads, n/a where it does not),
    every format: a finding fails, unknown is an error, n/a is skipped with its reason (never passed)."""
    lldp = save(fab, tmp_path / "lldp")
    counters = save_counters(fab, tmp_path / "counters", {"spine2": [Scenario("crc", "et-0/0/1")]})
    (counters / ("spine1" + SAVED_SUFFIX)).unlink()
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    for fmt in FORMATS:
        out = tmp_path / f"report.{fmt}"
        proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--lldp", str(lldp), "--counters",
                               str(counters), "--format", fmt, "-o", str(out)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 1, proc.stderr
        assert "RC510" in out.read_text() and "et-0/0/1" in out.read_text(), fmt
        assert fmt == "prometheus" or "RC519" in out.read_text(), fmt
    data = json.loads((tmp_path / "report.json").read_text())
    assert [(f["rule"], f["device"], f["port"]) for f in data["findings"]] == [("RC510", "spine2", "et-0/0/1")]
    link = next(x for x in data["links"] if x["b"] == "spine2:et-0/0/1")
    assert link["status"] == "fail" and link["parts"]["link_health"]["b"]["checks"]["fcs"]["status"] == "finding"
    assert link["parts"]["link_health"]["a"]["status"] == "ok"  # leaf2, NVUE: fcs, flaps and speed read
    assert link["parts"]["link_health"]["a"]["checks"]["fec"]["status"] == "n/a"
    na = {(n["platform"], n["check"]): n for n in data["not_observable"]}
    assert na[("sonic", "ecmp")] == {
        "rule": "RC519", "severity": "info", "platform": "sonic", "check": "ecmp", "counter": "tx_octets",
        "devices": ["leaf3"], "count": 1, "message": "ecmp is not observable on sonic: no sourced counter (tx_octets "
        "is not read); n/a on 1 ECMP group(s) of leaf3"}
    assert set(na) == {(p, k) for p, ks in BLIND.items() for k in ks if k != "ecmp" or p == "sonic"}
    root = etree.fromstring((tmp_path / "report.junit").read_bytes())
    assert schema.validate(root), schema.error_log
    assert root.xpath("//testsuite[@name='spine2']/testcase[starts-with(@name,'RC510')]/failure")

    def case(device: str, rule: str) -> list:
        return root.xpath(f"//testsuite[@name='{device}']/testcase[starts-with(@name,'{rule}')]/*")

    # a rule that could not be judged is an error case, never a pass
    err = case("spine1", "RC510")
    assert [e.tag for e in err] == ["error"] and err[0].get("message").startswith(
        "not read: Ethernet1/1: counters not read: no saved counters spine1.counters.json in ")
    # a rule not observable on the platform is skipped with RC519's reason, not passed and not an error
    for dev, rule, counter in (("spine1", "RC512", "carrier_transitions"), ("leaf2", "RC511", "fec_uncorrectable"),
                               ("leaf3", "RC510", "fcs_errors"), ("leaf1", "RC511", "fec_uncorrectable"),
                               ("leaf3", "RC520", "tx_octets")):
        got = case(dev, rule)
        assert [e.tag for e in got] == ["skipped"], (dev, rule)
        assert got[0].get("message").startswith(f"RC519 n/a: not observable on {fab.devices[dev].platform}: no "
                                                f"sourced counter ({counter} is not read"), (dev, rule)
    # a rule that does not apply (a spine has no next tier) is skipped, not passed
    assert [e.tag for e in case("spine2", "RC520")] == ["skipped"]
    assert case("leaf1", "RC520") == [] and case("leaf3", "RC511") == []  # judged: pass
    text = (tmp_path / "report.text").read_text()
    assert "link leaf2:swp32 - spine2:et-0/0/1: fail: link health fail: spine2:et-0/0/1 fcs finding" in text
    # the unknown links (spine1's) are counted by cause, not listed one by one; n/a is no cause
    assert "4 link(s) unknown (each is listed in the JSON and Markdown reports): fcs unknown: counters not read: " \
        in text
    assert "n/a" not in text.split("4 link(s) unknown")[1].split("\n")[0]
    assert "sonic: info[RC519]: flaps is not observable on sonic" in text
    md = (tmp_path / "report.markdown").read_text()
    assert "| leaf2:swp32 - spine2:et-0/0/1 | ❌ fail | ✅ ok | ❌ fail | link health fail: spine2:et-0/0/1 fcs" in md
    assert "| leaf2:swp31 - spine1:Ethernet1/2 | ❓ unknown | ✅ ok | ❓ unknown |" in md
    assert "| leaf2 | 1 | 2 | 1.00 | 0.00 | ✅ ok |" in md  # NVUE's group, judged on its bytes
    assert "| leaf3 | 1 | 2 | - | - | ➖ n/a: not observable on sonic" in md
    assert "| nxos | flaps | carrier_transitions | 4 link end(s) | spine1 |" in md


def test_without_counters_the_report_is_the_lldp_one(fab: Fabric, tmp_path: Path) -> None:
    report = cabling_offline(fab, save(fab, tmp_path / "lldp"))
    data = json.loads(format_report(report, "json"))
    assert "link_health" not in data and all(set(li) == {"a", "b", "status", "rules"} for li in data["links"])
    assert "RC510" not in format_report(report, "junit") and "## Links" not in format_report(report, "markdown")


def test_cli_link_options_bad_input_is_one_line_exit_2(fab: Fabric, tmp_path: Path) -> None:
    lldp = save(fab, tmp_path / "lldp")
    counters = save_counters(fab, tmp_path / "counters")
    bad = tmp_path / "bad.json"
    bad.write_text('{"devices": [{"device": 1}]}')
    base = [str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--lldp", str(lldp)]
    for args, said in (
        (["--interval", "5"], "--interval samples live devices"),
        (["--health", str(bad)], "give link counters"),
        (["--counters", str(counters), "--interval", "5"], "not both"),
        (["--counters", str(counters), "--health", str(bad)], "field 'devices' must list objects"),
        (["--counters", str(counters), "--drift", str(tmp_path / "none.json")], "none.json"),
        (["--counters", str(tmp_path / "nodir")], "not a directory"),
    ):
        proc = subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_prometheus_exposition_parses_and_never_samples_what_was_not_judged(fab: Fabric, tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    report = run(fab, tmp_path, {"spine2": [Scenario("crc", "et-0/0/1")],
                                 "leaf1": [Scenario("ecmp-imbalance", "Ethernet50")]})
    fams = {f.name: f for f in text_string_to_metric_families(format_report(report, "prometheus"))}
    one = {tuple(sorted(s.labels.items())): s.value for s in fams["roceconf_cabling_link_status"].samples}
    assert one[(("a", "leaf2:swp32"), ("b", "spine2:et-0/0/1"), ("status", "fail"))] == 1.0
    assert one[(("a", "leaf2:swp32"), ("b", "spine2:et-0/0/1"), ("status", "ok"))] == 0.0
    found = {(s.labels["device"], s.labels["port"], s.labels["rule"]) for s in fams["roceconf_cabling_finding"].samples}
    assert found == {("spine2", "et-0/0/1", "RC510"), ("leaf1", "Ethernet50", "RC520")}
    checks = {(s.labels["device"], s.labels["port"], s.labels["check"]): s.labels["status"]
              for s in fams["roceconf_cabling_link_check"].samples if s.value == 1.0}
    assert checks[("spine2", "et-0/0/1", "fcs")] == "finding" and checks[("spine2", "et-0/0/1", "flaps")] == "ok"
    # n/a has no sample at all (neither 1 nor 0 for any status): not observable is not 'ok' nor 'unknown'
    sampled = {(s.labels["device"], s.labels["check"]) for s in fams["roceconf_cabling_link_check"].samples}
    assert ("leaf2", "fec") not in sampled and ("spine2", "fec") not in sampled and ("leaf3", "fec") in sampled
    assert ("leaf2", "fcs") in sampled  # NVUE reads FCS
    assert {s.labels["status"] for s in fams["roceconf_cabling_link_check"].samples} == {"ok", "finding", "unknown"}
    na = {(s.labels["platform"], s.labels["check"]) for s in fams["roceconf_cabling_not_observable"].samples}
    assert ("nvue", "fec") in na and ("nvue", "fcs") not in na and ("nxos", "flaps") in na and ("eos", "fec") in na and ("eos", "fcs") not in na
    ratio = {s.labels["device"]: s.value for s in fams["roceconf_cabling_ecmp_max_over_mean"].samples}
    assert set(ratio) == {"leaf1", "leaf2", "leaf4"} and round(ratio["leaf1"], 3) == 1.6  # leaf3 n/a: no sample
    assert {s.labels["device"] for s in fams["roceconf_cabling_ecmp_status"].samples} == {"leaf1", "leaf2", "leaf4"}


def test_speed_is_unknown_where_read_but_missing_and_compared_with_the_far_end_as_read(fab: Fabric) -> None:
    """RC513: an end whose answers hold no speed (a port down, EOS's bandwidth 0) is unknown, never ok; both
    ends at the intent's speed are ok; the finding names the speed read, the intent's and the far end's."""
    no_speed = {k: v for k, v in ALL_READ.items() if k != "speed_bps"}
    lh = judge(fab, {"leaf1": _snaps([no_speed, no_speed])}, {})
    c = lh.ends[("leaf1", "Ethernet49")].checks["speed"]
    assert c.status == "unknown" and c.reason.startswith("speed_bps missing from eos's answers for this port")
    slow = {**ALL_READ, "speed_bps": 200 * 10**9}
    lh = judge(fab, {"leaf1": _snaps([slow, slow]), "spine1": _snaps([ALL_READ, ALL_READ], "spine1", "Ethernet1/1")},
               {})
    assert lh.ends[("spine1", "Ethernet1/1")].checks["speed"].status == "ok"
    assert [(f.rule.id, f.device, f.port, f.message, f.observed) for f in lh.findings] == [
        ("RC513", "leaf1", "Ethernet49", "Ethernet49 (to spine1:Ethernet1/1): runs at 200 Gb/s, the intent says "
         "400 Gb/s (the far end runs at 400 Gb/s)", "200 Gb/s")]
    assert lh.ends[("leaf1", "Ethernet49")].checks["speed"].to_dict()["value"] == 200 * 10**9


def test_speed_against_the_far_end_where_the_intent_gives_the_ends_different_speeds(tmp_path: Path) -> None:
    intent = tmp_path / "intent.yml"
    intent.write_text(LAB_INTENT.read_text().replace("{name: Ethernet1/1-4, speed: 400G,",
                                                     "{name: Ethernet1/1-4, speed: 200G,"))
    odd = load_valid(intent)  # spine1's ports at 200G, leaf1:Ethernet49's at 400G
    at400 = _snaps([ALL_READ, ALL_READ])
    lh = judge(odd, {"leaf1": at400, "spine1": _snaps([ALL_READ, ALL_READ], "spine1", "Ethernet1/1")}, {})
    assert {k: lh.ends[k].checks["speed"].status for k in (("leaf1", "Ethernet49"), ("spine1", "Ethernet1/1"))} == {
        ("leaf1", "Ethernet49"): "ok", ("spine1", "Ethernet1/1"): "ok"}  # the ends agree with each other
    lh = judge(odd, {"leaf1": at400}, {})  # the far end not read: nothing to compare with
    c = lh.ends[("leaf1", "Ethernet49")].checks["speed"]
    assert c.status == "unknown" and "different speeds" in (c.reason or "")


def test_a_speed_mismatch_shows_in_every_format_as_the_other_link_checks_do(fab: Fabric, tmp_path: Path) -> None:
    """RC513 on spine2:et-0/0/1 (Junos, at half the intent's 400G): the finding and the check in text,
    Markdown, JSON, JUnit, Prometheus and HTML, as an FCS finding is; where speed is not read, RC519 says so."""
    from prometheus_client.parser import text_string_to_metric_families

    from roceconf.reports import html

    report = run(fab, tmp_path, {"spine2": [Scenario("speed-mismatch", "et-0/0/1")]})
    assert keyed(report) == [("RC513", "spine2", "et-0/0/1")]
    # the far end (leaf2, NVUE) now reads its speed: the message says it
    msg = "et-0/0/1 (to leaf2:swp32): runs at 200 Gb/s, the intent says 400 Gb/s (the far end runs at 400 Gb/s)"
    assert report.findings[0].message == msg and report.findings[0].severity == "error"
    text = format_report(report, "text")
    assert f"spine2:et-0/0/1: error[RC513]: {msg}" in text
    assert ("link leaf2:swp32 - spine2:et-0/0/1: fail: link health fail: spine2:et-0/0/1 speed finding (runs at "
            "200 Gb/s, the intent says 400 Gb/s (the far end runs at 400 Gb/s))") in text
    # every platform reads a speed (NVUE, SONiC and the hosts too): no RC519 note for it, other checks keep theirs
    assert "speed is not observable" not in text
    assert "sonic: info[RC519]: fcs is not observable on sonic: no sourced counter (fcs_errors is not read)" in text
    md = format_report(report, "markdown")
    assert "| leaf2:swp32 - spine2:et-0/0/1 | ❌ fail | ✅ ok | ❌ fail |" in md and "RC513" in md
    assert "| sonic | fcs | fcs_errors |" in md and "| speed | speed_bps |" not in md  # every platform reads a speed
    data = json.loads(format_report(report, "json"))
    chk = next(e for e in data["link_health"] if (e["device"], e["port"]) == ("spine2", "et-0/0/1"))["checks"]
    assert chk["speed"] == {"status": "finding", "value": 200 * 10**9,
                            "reason": "runs at 200 Gb/s, the intent says 400 Gb/s (the far end runs at 400 Gb/s)"}
    root = etree.fromstring(format_report(report, "junit").encode())
    assert root.xpath("//testsuite[@name='spine2']/testcase[starts-with(@name,'RC513')]/failure")
    assert not root.xpath("//testcase[starts-with(@name,'RC513')]/skipped")  # nowhere n/a
    skipped = root.xpath("//testsuite[@name='leaf3']/testcase[starts-with(@name,'RC510')]/skipped")
    assert skipped and skipped[0].get("message").startswith("RC519 n/a: not observable on sonic")
    assert root.xpath("//testsuite[@name='leaf1']/testcase[starts-with(@name,'RC513')]") and not root.xpath(
        "//testsuite[@name='leaf1']/testcase[starts-with(@name,'RC513')]/*")  # judged ok: a pass
    fams = {f.name: f for f in text_string_to_metric_families(format_report(report, "prometheus"))}
    checks = {(s.labels["device"], s.labels["port"], s.labels["check"]): s.labels["status"]
              for s in fams["roceconf_cabling_link_check"].samples if s.value == 1.0}
    assert checks[("spine2", "et-0/0/1", "speed")] == "finding" and checks[("leaf1", "Ethernet49", "speed")] == "ok"
    assert checks[("leaf2", "swp31", "speed")] == "ok"  # NVUE judged
    assert ("leaf3", "Ethernet248", "fcs") not in checks  # n/a: no sample
    notobs = {(s.labels["platform"], s.labels["check"]) for s in fams["roceconf_cabling_not_observable"].samples}
    assert ("sonic", "fcs") in notobs and not {c for _p, c in notobs} & {"speed"}
    page = html.render(html.cabling_map(report, fab))
    assert "RC513" in page and "200 Gb/s" in page


# ------------------------------------------------------------------------------------ FEC mode (RC517)
def test_a_fec_mode_mismatch_is_found_on_both_ends_and_shows_in_every_format(fab: Fabric, tmp_path: Path) -> None:
    """gpu4:eth0 (linux-dcb, ethtool BaseR) against leaf3:Ethernet8 (SONiC, rs): both ends read a mode and
    they differ, so each end has the finding (neither is known to be the wrong one); a FEC mode on an end whose
    far end cannot show one (EOS) is n/a, never ok."""
    from prometheus_client.parser import text_string_to_metric_families

    from roceconf.reports import html

    report = run(fab, tmp_path, {"gpu4": [Scenario("fec-mismatch", "eth0")],
                                 "leaf1": [Scenario("fec-mismatch", "Ethernet49")]})  # EOS: not shown, n/a
    assert keyed(report) == [("RC517", "gpu4", "eth0"), ("RC517", "leaf3", "Ethernet8")]
    msgs = {f.device: f.message for f in report.findings}
    assert msgs == {"gpu4": "eth0 (to leaf3:Ethernet8): FEC fc, the far end FEC rs",
                    "leaf3": "Ethernet8 (to gpu4:eth0): FEC rs, the far end FEC fc"}
    assert end(report, "leaf1", "Ethernet49")["fec_mode"] == "n/a"
    li = next(x for x in report.links if x.a == "gpu4:eth0")
    assert li.status == "fail" and "RC517" in li.rules and report.exit_code == 1
    assert [x.status for x in report.links].count("fail") == 1
    text = format_report(report, "text")
    assert "gpu4:eth0: error[RC517]: eth0 (to leaf3:Ethernet8): FEC fc, the far end FEC rs" in text
    assert "eos: info[RC519]: fec_mode is not observable on eos: no sourced counter (fec_mode is not read)" in text
    assert "RC517" in format_report(report, "markdown")
    data = json.loads(format_report(report, "json"))
    chk = next(e for e in data["link_health"] if (e["device"], e["port"]) == ("gpu4", "eth0"))["checks"]
    assert chk["fec_mode"] == {"status": "finding", "value": None, "reason": "FEC fc, the far end FEC rs",
                               "mode": "fc"}
    root = etree.fromstring(format_report(report, "junit").encode())
    assert root.xpath("//testsuite[@name='gpu4']/testcase[starts-with(@name,'RC517')]/failure")
    skipped = root.xpath("//testsuite[@name='leaf1']/testcase[starts-with(@name,'RC517')]/skipped")
    assert skipped and skipped[0].get("message").startswith("RC519 n/a: not observable on eos")
    fams = {f.name: f for f in text_string_to_metric_families(format_report(report, "prometheus"))}
    checks = {(s.labels["device"], s.labels["port"], s.labels["check"]): s.labels["status"]
              for s in fams["roceconf_cabling_link_check"].samples if s.value == 1.0}
    assert checks[("gpu4", "eth0", "fec_mode")] == "finding" and checks[("gpu3", "eth0", "fec_mode")] == "ok"
    assert ("leaf1", "Ethernet49", "fec_mode") not in checks  # n/a: no sample
    page = html.render(html.cabling_map(report, fab))
    assert "RC517" in page


@pytest.mark.parametrize(("mine", "far", "status", "why"), [
    (3, 3, "ok", None),
    (3, 2, "finding", "FEC rs, the far end FEC fc"),
    (1, 3, "finding", "FEC off, the far end FEC rs"),
    # auto is the mode negotiated (SONiC's configured auto, ethtool's Auto), not one read: no verdict either way
    (0, 3, "unknown", "auto is the mode negotiated"),
    (3, 0, "unknown", "auto is the mode negotiated"),
    (3, None, "unknown", "the far end's FEC mode was not read"),
    (None, 3, "unknown", "fec_mode missing from sonic's answers"),
])
def test_fec_mode_of_one_end_against_the_far_end(fab: Fabric, mine: int | None, far: int | None, status: str,
                                                 why: str | None) -> None:
    def snaps(dev: str, port: str, platform: str, mode: int | None) -> list[Snapshot]:
        link = {} if mode is None else {"fec_mode": mode}
        return [Snapshot(dev, platform, t, {port: PortCounters(link=dict(link))}) for t in (0.0, 10.0)]

    lh = judge(fab, {"leaf3": snaps("leaf3", "Ethernet8", "sonic", mine),
                     "gpu4": snaps("gpu4", "eth0", "linux-dcb", far)}, {})
    c = lh.ends[("leaf3", "Ethernet8")].checks["fec_mode"]
    assert c.status == status
    if why:
        assert why in (c.reason or "")
    assert [f.rule.id for f in lh.findings if f.rule.id == "RC517"] == (["RC517"] * 2 if status == "finding" else [])


@pytest.mark.parametrize("platform", ["connectx", "bnxt", "linux-dcb"])
def test_host_speed_is_sysfs_mb_per_s_and_a_down_link_has_none(platform: str) -> None:
    """/sys/class/net/<p>/speed is Mb/s (sysfs-class-net); a link that is down gives no line (the kernel refuses
    the read) or the driver's -1: no speed, so RC513 is unknown there, never ok. A sample saved before the speed
    was read (the older sysfs command) still reads its counters."""
    from roceconf.counters.hostnic import LINK_SYSFS, LINK_SYSFS_V1

    spec = platforms.counters(platform)
    up = ("/sys/class/net/eth0/carrier_changes:3\n/sys/class/net/eth0/speed:25000\n"
          "/sys/class/net/eth0/statistics/rx_crc_errors:0\n")
    down = "/sys/class/net/eth1/carrier_changes:4\n/sys/class/net/eth1/speed:-1\n"
    old = "/sys/class/net/eth2/carrier_changes:5\n/sys/class/net/eth2/statistics/rx_bytes:10\n"
    ports, warnings = spec.parse({LINK_SYSFS.format(port="eth0"): with_end(up),
                                  LINK_SYSFS.format(port="eth1"): with_end(down),
                                  LINK_SYSFS_V1.format(port="eth2"): with_end(old)})
    assert warnings == []
    assert ports["eth0"].link == {"carrier_transitions": 3, "speed_bps": 25 * 10**9, "fcs_errors": 0}
    assert ports["eth1"].link == {"carrier_transitions": 4}
    assert ports["eth2"].link == {"carrier_transitions": 5, "rx_octets": 10}
def test_an_end_with_no_observable_check_is_na_and_said_once_per_platform(fab: Fabric, tmp_path: Path) -> None:
    """No platform today observes nothing (NVUE reads FCS, flaps, speed and bytes since it was the last one); an
    end all of whose checks are n/a (what such a platform gives) is n/a as a whole, never ok, and the text
    report names those ends once per platform."""
    from roceconf.cabling.linkhealth import NA, Check, na_reason

    report = run(fab, tmp_path)
    for (dev, _port), e in report.link.ends.items():
        if dev == "leaf2":
            e.checks = {k: Check(NA, reason=na_reason("nvue", c)) for k, (c, _r) in CHECKS.items()}
    assert report.link.ends[("leaf2", "swp31")].status == "n/a"
    assert "nvue: link health n/a on 4 link end(s) of leaf2: no link check is observable on nvue (RC519)" in \
        format_report(report, "text")
