"""`roceconf cabling --counters DIR`: link health (RC510-RC512), ECMP balance (RC520) and one verdict per link,
offline from saved counter samples each platform prints as its own commands answer (the lab's counter engine
formatted by every platform's ``counters.simulate``); what a platform does not read stays unknown, never ok."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from roceconf import platforms
from roceconf.cabling.collect import cabling_offline, link_counters_offline, with_links
from roceconf.cabling.linkhealth import judge, tiers
from roceconf.cabling.report import FORMATS, format_report
from roceconf.compile import load_valid, output_name, render_fabric, write_outputs
from roceconf.counters.hostnic import with_end
from roceconf.counters.model import PortCounters, Snapshot
from roceconf.drift.audit import audit
from roceconf.health.collect import SAVED_SUFFIX, health_offline
from roceconf.health.report import format_report as health_format
from roceconf.intent import Fabric
from roceconf.lab.counters import LabCounters, PortProfile, Scenario
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
def test_healthy_counters_give_no_finding_and_what_is_not_read_stays_unknown(fab: Fabric, tmp_path: Path) -> None:
    report = run(fab, tmp_path)
    assert report.findings == []
    # per platform: what its answers carry is judged ok, the rest is unknown with the reason
    assert end(report, "leaf1", "Ethernet49") == {"fcs": "ok", "fec": "unknown", "flaps": "ok"}  # EOS
    assert end(report, "spine1", "Ethernet1/1") == {"fcs": "ok", "fec": "unknown", "flaps": "unknown"}  # NX-OS
    assert end(report, "spine2", "et-0/0/0") == {"fcs": "ok", "fec": "unknown", "flaps": "ok"}  # Junos
    assert end(report, "leaf3", "Ethernet248") == {"fcs": "unknown", "fec": "ok", "flaps": "unknown"}  # SONiC
    assert end(report, "leaf2", "swp31") == {"fcs": "unknown", "fec": "unknown", "flaps": "unknown"}  # NVUE
    for host, port in (("gpu1", "eth0"), ("gpu3", "eth0"), ("gpu4", "eth0")):  # ConnectX, bnxt, linux-dcb
        assert end(report, host, port) == {"fcs": "ok", "fec": "unknown", "flaps": "ok"}
    why = report.link.ends[("spine1", "Ethernet1/1")].checks["flaps"].reason
    assert why == "carrier_transitions not in nxos's answers (what each platform reads: docs/cabling.md)"
    assert "nvue reads no link counters" in report.link.ends[("leaf2", "swp31")].checks["fcs"].reason
    # no link has every check read on both ends: none is ok, each is unknown and the run exits 3, never 0
    assert {li.status for li in report.links} == {"unknown"}
    assert {li.parts["cabling"] for li in report.links} == {"ok"}
    assert report.exit_code == 3
    groups = {g.device: (g.status, g.max_over_mean) for g in report.link.groups}
    assert groups == {"leaf1": ("ok", 1.0), "leaf2": ("unknown", None), "leaf3": ("unknown", None),
                      "leaf4": ("ok", 1.0)}


#: scenario -> (the devices and ports it is set on, its exact findings): every platform that can show it
SHOWN = {
    "crc": (["leaf1:Ethernet49", "spine1:Ethernet1/3", "spine2:et-0/0/1", "gpu1:eth0", "gpu3:eth1", "gpu4:eth1"],
            "RC510"),
    "flap": (["leaf4:Ethernet50", "spine2:et-0/0/2", "gpu2:eth1", "gpu3:eth0", "gpu4:eth0"], "RC512"),
    "fec": (["leaf3:Ethernet248"], "RC511"),
}
#: ... and where it is set but the platform's answer does not carry the counter: that check stays unknown
NOT_SHOWN = {"crc": ["leaf2:swp1", "leaf3:Ethernet0"], "flap": ["spine1:Ethernet1/1", "leaf3:Ethernet256"],
             "fec": ["leaf1:Ethernet50", "spine2:et-0/0/3"]}
CHECK = {"crc": "fcs", "flap": "flaps", "fec": "fec"}


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
        assert end(report, *w.split(":", 1))[CHECK[name]] == "unknown", w
    for li in report.links:
        ends = {f"{d}:{p}" for d, p in li.ends}
        assert (li.status == "fail") == bool(ends & set(where)), li.a
        if li.status == "fail":
            assert rule in li.rules and li.parts["link_health"]["status"] == "fail"
    assert report.exit_code == 1


def test_ecmp_imbalance_names_the_hot_member_and_an_unread_group_is_unknown(fab: Fabric, tmp_path: Path) -> None:
    sc = {"leaf1": [Scenario("ecmp-imbalance", "Ethernet50")], "leaf2": [Scenario("ecmp-imbalance", "swp31")]}
    report = run(fab, tmp_path, sc)
    assert keyed(report) == [("RC520", "leaf1", "Ethernet50")]
    g = {g.device: g for g in report.link.groups}
    assert g["leaf1"].status == "finding" and round(g["leaf1"].max_over_mean, 3) == 1.6  # 4 / mean(1, 4)
    assert round(g["leaf1"].cv, 3) == 0.6
    assert g["leaf2"].status == "unknown"  # NVUE: no byte counters read
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
        out.append(Snapshot(device, "eos", t, {port: pc}))
    return out


ALL_READ = {"fcs_errors": 5, "fec_uncorrectable": 1, "carrier_transitions": 3, "tx_octets": 0, "rx_octets": 0}


def test_a_link_with_every_check_read_and_clean_on_both_ends_is_ok(fab: Fabric) -> None:
    snaps = {"leaf1": _snaps([ALL_READ, ALL_READ]),
             "spine1": _snaps([ALL_READ, ALL_READ], "spine1", "Ethernet1/1")}
    lh = judge(fab, snaps, {})
    assert lh.ends[("leaf1", "Ethernet49")].status == "ok" and lh.ends[("spine1", "Ethernet1/1")].status == "ok"
    assert lh.findings == []


@pytest.mark.parametrize(("second", "times", "check", "status", "why"), [
    ({**ALL_READ, "fcs_errors": 6}, (0.0, 10.0), "fcs", "finding", None),  # one error in 10 s: 0.1/s > 0
    ({**ALL_READ, "fcs_errors": 4}, (0.0, 10.0), "fcs", "unknown", "went backwards"),  # cleared: no rate
    ({**ALL_READ, "carrier_transitions": 5}, (0.0, 10.0), "flaps", "finding", None),
    ({**ALL_READ, "fec_uncorrectable": 2}, (0.0, 10.0), "fec", "finding", None),
    ({k: v for k, v in ALL_READ.items() if k != "fec_uncorrectable"}, (0.0, 10.0), "fec", "unknown",
     "not read in two consecutive samples"),  # read once only
    (ALL_READ, (10.0, 10.0), "fcs", "unknown", "not read in two consecutive samples with valid times"),
])
def test_each_check_from_two_samples(fab: Fabric, second: dict, times: tuple[float, float], check: str, status: str,
                                     why: str | None) -> None:
    lh = judge(fab, {"leaf1": _snaps([ALL_READ, second], times=times)}, {})
    c = lh.ends[("leaf1", "Ethernet49")].checks[check]
    assert c.status == status
    if why:
        assert why in (c.reason or "")


def test_one_sample_and_an_unread_device_are_unknown(fab: Fabric) -> None:
    lh = judge(fab, {"leaf1": _snaps([ALL_READ], times=(0.0,))}, {"spine1": "timed out"})
    assert lh.ends[("leaf1", "Ethernet49")].checks["fcs"].reason == "1 sample(s): rates need two"
    assert lh.ends[("spine1", "Ethernet1/1")].status == "unknown"
    assert lh.ends[("spine1", "Ethernet1/1")].checks["flaps"].reason == "counters not read: timed out"


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
    lldp = save(fab, tmp_path / "lldp")
    counters = save_counters(fab, tmp_path / "counters", {"spine2": [Scenario("crc", "et-0/0/1")]})
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    for fmt in FORMATS:
        out = tmp_path / f"report.{fmt}"
        proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--lldp", str(lldp), "--counters",
                               str(counters), "--format", fmt, "-o", str(out)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 1, proc.stderr
        assert "RC510" in out.read_text() and "et-0/0/1" in out.read_text(), fmt
    data = json.loads((tmp_path / "report.json").read_text())
    assert [(f["rule"], f["device"], f["port"]) for f in data["findings"]] == [("RC510", "spine2", "et-0/0/1")]
    link = next(x for x in data["links"] if x["b"] == "spine2:et-0/0/1")
    assert link["status"] == "fail" and link["parts"]["link_health"]["b"]["checks"]["fcs"]["status"] == "finding"
    root = etree.fromstring((tmp_path / "report.junit").read_bytes())
    assert schema.validate(root), schema.error_log
    assert root.xpath("//testsuite[@name='spine2']/testcase[starts-with(@name,'RC510')]/failure")
    text = (tmp_path / "report.text").read_text()
    assert "link leaf2:swp32 - spine2:et-0/0/1: fail: link health fail:" in text
    # the unknown links are counted by cause, not listed one by one
    assert "15 link(s) unknown (each is listed in the JSON and Markdown reports): " in text
    assert "fec unknown: fec_uncorrectable not in eos's answers (what each platform reads: docs/cabling.md) " \
        "(8 link(s))" in text
    # a rule that could not be judged is an error case, never a pass
    assert root.xpath("//testsuite[@name='leaf2']/testcase[starts-with(@name,'RC510')]/error")
    # a rule that does not apply (a spine has no next tier) is skipped, not passed
    assert root.xpath("//testsuite[@name='spine2']/testcase[starts-with(@name,'RC520')]/skipped")
    assert not root.xpath("//testsuite[@name='leaf1']/testcase[starts-with(@name,'RC520')]/*")  # judged: pass
    md = (tmp_path / "report.markdown").read_text()
    assert "| leaf2:swp32 - spine2:et-0/0/1 | ❌ fail | ✅ ok | ❌ fail |" in md
    assert "| leaf2:swp31 - spine1:Ethernet1/2 | ❓ unknown | ✅ ok | ❓ unknown |" in md


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
    assert checks[("spine2", "et-0/0/1", "fcs")] == "finding" and checks[("leaf2", "swp32", "fcs")] == "unknown"
    ratio = {s.labels["device"]: s.value for s in fams["roceconf_cabling_ecmp_max_over_mean"].samples}
    assert set(ratio) == {"leaf1", "leaf4"} and round(ratio["leaf1"], 3) == 1.6  # leaf2/leaf3 unknown: no sample
