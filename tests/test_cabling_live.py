"""`roceconf cabling --inventory` against the loopback lab: every platform answers its LLDP command from the
lab's cables (the intent's links), read through drift's collection path; each cabling scenario injected on
each platform that can show it gives exactly its findings (rule, device, port); a saved read replays offline
to the same report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from roceconf.cabling.collect import cabling_live, cabling_offline
from roceconf.compile import output_name, render_fabric, write_outputs
from roceconf.drift.collect import load_inventory
from roceconf.intent import Fabric
from roceconf.lab.server import Lab
from tests.test_health_live import creds, fab, lab

SHARED_LAB = pytest.mark.xdist_group("cabling-lab")
LAB_INTENT = Path(__file__).parent.parent / "inventories" / "lab" / "intent.yml"
BIN = Path(sys.executable).parent
__all__ = ["creds", "fab", "lab"]  # the lab fixtures of the health tests (the rendered lab intent)


@pytest.fixture(scope="module")
def cabled(lab: tuple[Lab, Path], fab: Fabric) -> tuple[Lab, Path]:
    """The health tests' lab with the intent's links laid as cables, each port running at the intent's speed."""
    speeds = {(e.device, e.port): fab.devices[e.device].ports[e.port].speed_gbps for x in fab.links for e in (x.a, x.b)}
    lab[0].set_links([(x.a.device, x.a.port, x.b.device, x.b.port) for x in fab.links], speeds)
    return lab


def run(fab: Fabric, inv: Path, creds: tuple[str, str], **kw):
    targets = load_inventory(inv)
    for t in targets.values():
        t.username, t.password = creds
    return cabling_live(fab, None, targets=targets, workers=10, timeout=10, **kw)


def keyed(report) -> list[tuple[str, str, str | None]]:
    return sorted((f.rule, f.device, f.port) for f in report.findings)


def rc(rule: str, *ends: str) -> list[tuple[str, str, str]]:
    return sorted((rule, *e.split(":", 1)) for e in ends)  # type: ignore[misc]


#: scenario -> its exact findings; miswire on every switch platform, crossed rails on every host NIC family
SCENARIOS = {
    "miswire@spine1:Ethernet1/1": rc("RC501", "spine1:Ethernet1/1", "spine1:Ethernet1/2", "leaf1:Ethernet49",
                                      "leaf2:swp31"),  # NX-OS
    "miswire@spine2:et-0/0/2": rc("RC501", "spine2:et-0/0/2", "spine2:et-0/0/3", "leaf3:Ethernet256",
                                   "leaf4:Ethernet50"),  # Junos
    "miswire@leaf1:Ethernet49": rc("RC501", "leaf1:Ethernet49", "leaf1:Ethernet50", "spine1:Ethernet1/1",
                                    "spine2:et-0/0/0"),  # EOS
    "miswire@leaf2:swp31": rc("RC501", "leaf2:swp31", "leaf2:swp32", "spine1:Ethernet1/2", "spine2:et-0/0/1"),  # NVUE
    "miswire@leaf3:Ethernet0": rc("RC501", "leaf3:Ethernet0", "leaf3:Ethernet8", "gpu3:eth0", "gpu4:eth0"),  # SONiC
    "crossed-rail@gpu1": rc("RC503", "gpu1:eth0", "gpu1:eth1", "leaf1:Ethernet1", "leaf2:swp1"),  # ConnectX
    "crossed-rail@gpu3:eth0": rc("RC503", "gpu3:eth0", "gpu3:eth1", "leaf3:Ethernet0", "leaf4:Ethernet1"),  # bnxt
    "crossed-rail@gpu4": rc("RC503", "gpu4:eth0", "gpu4:eth1", "leaf3:Ethernet8", "leaf4:Ethernet2"),  # linux-dcb
}


@SHARED_LAB
def test_the_lab_as_cabled_confirms_every_link_on_every_platform(fab: Fabric, cabled: tuple[Lab, Path],
                                                                   creds: tuple[str, str]) -> None:
    lab_, inv = cabled
    lab_.set_scenarios([])
    report = run(fab, inv, creds)
    assert [(d.device, d.status, d.reason) for d in report.devices if d.status != "read"] == []
    assert {d.platform for d in report.devices} == {"eos", "nxos", "junos", "nvue", "sonic", "connectx", "bnxt",
                                                    "linux-dcb"}
    assert report.findings == [] and [li.status for li in report.links] == ["ok"] * 16
    assert report.exit_code == 0
    # every device was asked its platform's LLDP command
    assert all(len(d.neighbours) == len(fab.devices[d.device].ports) for d in report.devices)


@SHARED_LAB
def test_hosts_whose_inventory_says_lldptool_are_read_with_lldptool(fab: Fabric, cabled: tuple[Lab, Path],
                                                                   creds: tuple[str, str], tmp_path: Path) -> None:
    """``roceconf_lldp_agent: lldptool`` on two hosts: they are asked ``lldptool -t -n -i PORT`` for each of
    their ports instead of ``lldpctl -f json`` and give the same neighbours (a crossed rail is found the same)."""
    import yaml

    lab_, inv = cabled
    data = yaml.safe_load(inv.read_text())

    marked = []

    def hosts(node: dict) -> None:
        for name, hv in (node.get("hosts") or {}).items():
            if name in ("gpu3", "gpu4") and isinstance(hv, dict):  # where its variables are (not a group's list)
                hv["roceconf_lldp_agent"] = "lldptool"
                marked.append(name)
        for child in (node.get("children") or {}).values():
            hosts(child or {})

    for top in data.values():
        hosts(top)
    assert sorted(marked) == ["gpu3", "gpu4"]
    inv2 = tmp_path / "inventory.yml"
    inv2.write_text(yaml.safe_dump(data))
    lab_.set_scenarios(["crossed-rail@gpu4"])
    try:
        report = run(fab, inv2, creds, save_dir=tmp_path / "lldp")
    finally:
        lab_.set_scenarios([])
    assert keyed(report) == SCENARIOS["crossed-rail@gpu4"]
    saved = json.loads((tmp_path / "lldp" / "gpu3.lldp.json").read_text())["outputs"]
    assert sorted(saved) == ["lldptool -t -n -i eth0", "lldptool -t -n -i eth1"]
    assert "lldpctl -f json" in json.loads((tmp_path / "lldp" / "gpu1.lldp.json").read_text())["outputs"]
    assert all(len(d.neighbours) == 2 for d in report.devices if d.device in ("gpu3", "gpu4"))


@SHARED_LAB
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_each_cabling_scenario_gives_exactly_its_findings(fab: Fabric, cabled: tuple[Lab, Path],
                                                          creds: tuple[str, str], scenario: str) -> None:
    lab_, inv = cabled
    lab_.set_scenarios([scenario])
    try:
        report = run(fab, inv, creds)
    finally:
        lab_.set_scenarios([])
    assert keyed(report) == SCENARIOS[scenario]
    assert report.exit_code == 1 and sum(li.status == "fail" for li in report.links) == 2


@SHARED_LAB
def test_saved_lldp_replays_offline_to_the_same_findings_through_the_cli(
    fab: Fabric, cabled: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path
) -> None:
    lab_, inv = cabled
    lab_.set_scenarios(["crossed-rail@gpu1", "miswire@spine2:et-0/0/2"])
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    saved, out = tmp_path / "lldp", tmp_path / "live.json"
    try:
        proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--inventory", str(inv),
                               "--save-lldp", str(saved), "--format", "json", "-o", str(out)],
                              env=env, capture_output=True, text=True, timeout=300)
    finally:
        lab_.set_scenarios([])
    assert proc.returncode == 1, proc.stderr
    live = json.loads(out.read_text())
    assert sorted((f["rule"], f["device"], f["port"]) for f in live["findings"]) == sorted(
        SCENARIOS["crossed-rail@gpu1"] + SCENARIOS["miswire@spine2:et-0/0/2"])
    assert sorted(p.name for p in saved.iterdir()) == sorted(n + ".lldp.json" for n in fab.devices)
    offline = cabling_offline(fab, saved)
    assert [f.to_dict() for f in offline.findings] == live["findings"]


#: link scenarios on every platform whose answers carry the counter, all at once: (scenario, its exact finding)
LINK_SCENARIOS = {
    "crc@leaf1:Ethernet49": ("RC510", "leaf1", "Ethernet49"),  # EOS
    "crc@spine1:Ethernet1/3": ("RC510", "spine1", "Ethernet1/3"),  # NX-OS
    "crc@spine2:et-0/0/1": ("RC510", "spine2", "et-0/0/1"),  # Junos
    "crc@gpu1:eth0": ("RC510", "gpu1", "eth0"),  # ConnectX
    "crc@gpu3:eth1": ("RC510", "gpu3", "eth1"),  # bnxt
    "crc@gpu4:eth1": ("RC510", "gpu4", "eth1"),  # linux-dcb
    "flap@leaf4:Ethernet50": ("RC512", "leaf4", "Ethernet50"),  # EOS
    "flap@spine2:et-0/0/2": ("RC512", "spine2", "et-0/0/2"),  # Junos
    "flap@gpu2:eth1": ("RC512", "gpu2", "eth1"),  # ConnectX
    "flap@gpu3:eth0": ("RC512", "gpu3", "eth0"),  # bnxt
    "flap@gpu4:eth0": ("RC512", "gpu4", "eth0"),  # linux-dcb
    "fec@leaf3:Ethernet248": ("RC511", "leaf3", "Ethernet248"),  # SONiC
    "crc@leaf2:swp2": ("RC510", "leaf2", "swp2"),  # NVUE (counters errors: FCS Errors)
    "flap@leaf2:swp31": ("RC512", "leaf2", "swp31"),  # NVUE (link stats: carrier-transitions)
    "speed-mismatch@leaf2:swp32": ("RC513", "leaf2", "swp32"),  # NVUE (link speed; its far end, Junos, at 400G)
    "ecmp-imbalance@leaf2:swp31": ("RC520", "leaf2", "swp31"),  # NVUE (link stats: out-bytes)
    "ecmp-imbalance@leaf1:Ethernet50": ("RC520", "leaf1", "Ethernet50"),  # EOS
    "speed-mismatch@leaf1:Ethernet1": ("RC513", "leaf1", "Ethernet1"),  # EOS (its far end, a host, at the intent's)
    "speed-mismatch@spine1:Ethernet1/2": ("RC513", "spine1", "Ethernet1/2"),  # NX-OS
    "speed-mismatch@spine2:et-0/0/3": ("RC513", "spine2", "et-0/0/3"),  # Junos (its far end, EOS, runs at the intent's)
    "speed-mismatch@leaf3:Ethernet8": ("RC513", "leaf3", "Ethernet8"),  # SONiC (show interfaces status)
    "speed-mismatch@gpu2:eth0": ("RC513", "gpu2", "eth0"),  # ConnectX (sysfs speed)
    "optics@spine2:et-0/0/0": ("RC514", "spine2", "et-0/0/0"),  # Junos: received power below the alarm threshold
    "optics@spine1:Ethernet1/4": ("RC514", "spine1", "Ethernet1/4"),  # NX-OS
    "optics@leaf3:Ethernet8": ("RC514", "leaf3", "Ethernet8"),  # SONiC
    "optics@gpu2:eth0": ("RC514", "gpu2", "eth0"),  # ConnectX (ethtool -m)
    "optics@gpu4:eth1": ("RC514", "gpu4", "eth1"),  # linux-dcb
}
#: scenarios whose finding is on both ends of the link: fec-mismatch on a bnxt host's NIC facing SONiC (neither
#: end's mode is known to be the wrong one)
BOTH_ENDS = {"fec-mismatch@gpu3:eth0": [("RC517", "gpu3", "eth0"), ("RC517", "leaf3", "Ethernet0")]}


#: (platform, check) not observable there (no sourced counter: CounterSpec.link_reads), RC519 once each; ECMP
#: only where the lab has a group (the leaves)
NOT_OBSERVABLE = sorted([("eos", "fec"), ("eos", "fec_mode"), ("nxos", "fec"), ("nxos", "flaps"),
                         ("nxos", "fec_mode"), ("junos", "fec"), ("junos", "fec_mode"), ("sonic", "fcs"),
                         ("sonic", "flaps"), ("sonic", "ecmp"), ("nvue", "fec"), ("nvue", "fec_mode"),
                         ("connectx", "fec"), ("bnxt", "fec"), ("linux-dcb", "fec"),
                         # optics (RC514-RC516): not read on EOS and NVUE
                         *((p, k) for p in ("eos", "nvue") for k in ("rx_power", "tx_power", "temperature"))])


@SHARED_LAB
def test_the_healthy_lab_with_link_counters_gives_ok_links_and_exit_0(
    fab: Fabric, cabled: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path
) -> None:
    """`roceconf cabling --inventory --interval` on the healthy lab: every check each platform reads is ok,
    every check it cannot observe is n/a (RC519 once per platform and check), so every link is ok and the run
    exits 0 - a healthy fabric is not 'unknown' forever."""
    lab_, inv = cabled
    lab_.set_scenarios([])
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    out = tmp_path / "healthy.json"
    proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--inventory", str(inv),
                           "--interval", "0.5", "--format", "json", "-o", str(out)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["exit_code"] == 0 and data["findings"] == [] and data["counters_unread"] == {}
    assert [li["status"] for li in data["links"]] == ["ok"] * 16
    assert {li["parts"]["link_health"]["status"] for li in data["links"]} == {"ok"}
    states = {(e["device"], k): c["status"] for e in data["link_health"] for k, c in e["checks"].items()}
    assert set(states.values()) == {"ok", "n/a"}  # nothing unknown: every check a platform reads was judged
    platform = {d["device"]: d["platform"] for d in data["devices"]}
    # fec_mode is also n/a on an end whose far end's platform cannot show it (that platform's note, not its own)
    assert sorted({(platform[d], k) for (d, k), st in states.items() if st == "n/a" and k != "fec_mode"}
                  | {(platform[g["device"]], "ecmp") for g in data["ecmp"] if g["status"] == "n/a"}) == [
        n for n in NOT_OBSERVABLE if n[1] != "fec_mode"]
    by_end = {(e["device"], e["port"]): e["checks"]["fec_mode"]["status"] for e in data["link_health"]}
    assert by_end[("gpu3", "eth1")] == "n/a" and by_end[("gpu3", "eth0")] == by_end[("leaf3", "Ethernet0")] == "ok"
    assert sorted((n["platform"], n["check"]) for n in data["not_observable"]) == NOT_OBSERVABLE
    assert {e["status"] for e in data["link_health"] if e["device"] == "leaf2"} == {"ok"}  # NVUE: fcs, flaps, speed
    assert {g["device"]: g["status"] for g in data["ecmp"]} == {"leaf1": "ok", "leaf2": "ok", "leaf3": "n/a",
                                                               "leaf4": "ok"}


@SHARED_LAB
def test_link_scenarios_live_give_exactly_their_findings_and_replay_offline(
    fab: Fabric, cabled: tuple[Lab, Path], creds: tuple[str, str], tmp_path: Path
) -> None:
    """`roceconf cabling --inventory --interval`: LLDP and two samples of every device's link counters from the
    lab; each link scenario's finding on the right device, port and rule; where a platform does not read the
    counter (fec on NVUE, crc on SONiC, flaps on NX-OS, optics on EOS) the check is n/a (RC519), never ok, and its link is judged on
    what is observable; the saved samples replay offline (--counters) to the same findings."""
    lab_, inv = cabled
    blind = ["fec@leaf2:swp1", "crc@leaf3:Ethernet0", "flap@spine1:Ethernet1/1", "optics@leaf1:Ethernet2"]
    lab_.set_scenarios([*LINK_SCENARIOS, *BOTH_ENDS, *blind])
    env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
    saved_lldp, saved, out = tmp_path / "lldp", tmp_path / "counters", tmp_path / "live.json"
    try:
        proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--inventory", str(inv),
                               "--interval", "0.5", "--save-lldp", str(saved_lldp), "--save-counters", str(saved),
                               "--format", "json", "-o", str(out)], env=env, capture_output=True, text=True,
                              timeout=300)
    finally:
        lab_.set_scenarios([])
    assert proc.returncode == 1, proc.stderr
    live = json.loads(out.read_text())
    assert sorted((f["rule"], f["device"], f["port"]) for f in live["findings"]) == sorted(
        [*LINK_SCENARIOS.values(), *(f for fs in BOTH_ENDS.values() for f in fs)])
    ends = {(e["device"], e["port"]): e["checks"] for e in live["link_health"]}
    assert ends[("leaf2", "swp1")]["fec"]["status"] == "n/a"
    assert ends[("leaf3", "Ethernet0")]["fcs"]["status"] == "n/a"
    assert ends[("spine1", "Ethernet1/1")]["flaps"]["status"] == "n/a"
    assert ends[("leaf1", "Ethernet2")]["rx_power"]["status"] == "n/a"  # EOS: optics not read
    assert ends[("spine2", "et-0/0/0")]["rx_power"] == {
        "status": "finding", "value": -24.5,
        "reason": "received power -24.5 dBm is below the module's low alarm threshold (-20 dBm)"}
    # the links fail exactly where a link health finding is (RC520 is its group's, not a link's), every other
    # one is ok (nothing unknown in the lab)
    failed = {(li["a"], li["b"]) for li in live["links"] if li["status"] == "fail"}
    hit = {f"{d}:{p}" for r, d, p in [*LINK_SCENARIOS.values(), *BOTH_ENDS["fec-mismatch@gpu3:eth0"]] if r != "RC520"}
    assert failed == {(li["a"], li["b"]) for li in live["links"] if {li["a"], li["b"]} & hit}
    assert {li["status"] for li in live["links"]} <= {"ok", "fail"}
    offline = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--lldp", str(saved_lldp),
                              "--counters", str(saved), "--format", "json"], capture_output=True, text=True,
                             timeout=300)
    assert offline.returncode == 1, offline.stderr
    replay = json.loads(offline.stdout)
    assert [(f["rule"], f["device"], f["port"]) for f in replay["findings"]] == [
        (f["rule"], f["device"], f["port"]) for f in live["findings"]]


@SHARED_LAB
def test_bad_cabling_scenarios_are_refused(cabled: tuple[Lab, Path]) -> None:
    lab_, _inv = cabled
    for bad, said in (("crossed-rail@leaf1", "give a host"), ("miswire", "give a device"),
                      ("miswire@leaf1:Ethernet9", "no cable in 'Ethernet9'"), ("miswire@nope", "give a device")):
        with pytest.raises(ValueError, match=said):
            lab_.set_scenarios([bad])
    lab_.set_scenarios([])
    with pytest.raises(ValueError, match="speed of nope:eth0: no device 'nope' in the lab"):
        lab_.set_links([("leaf1", "Ethernet1", "gpu1", "eth0")], {("nope", "eth0"): 400})


def test_the_lab_process_lays_the_cabling_table_and_cabling_reads_it(fab: Fabric, tmp_path: Path) -> None:
    """`python -m roceconf.lab --cabling CSV --scenario crossed-rail@gpu4`, then `roceconf cabling --inventory`."""
    files = render_fabric(fab)
    for name, dev in fab.devices.items():
        write_outputs({output_name(name, dev.platform): files[output_name(name, dev.platform)]},
                      tmp_path / "configs" / dev.platform)
    csv = tmp_path / "cabling.csv"
    csv.write_text("a_device,a_port,b_device,b_port,cable_m\n" + "".join(
        f"{x.a.device},{x.a.port},{x.b.device},{x.b.port},3\n" for x in fab.links))
    env = {**os.environ, "ROCECONF_USERNAME": "cab", "ROCECONF_PASSWORD": "pw-" + os.urandom(6).hex()}
    base = [sys.executable, "-m", "roceconf.lab", "--configs", str(tmp_path / "configs"), "--ttl", "120"]
    bad = tmp_path / "bad.csv"
    bad.write_text("leaf1,Ethernet49,spine1\n")
    refused = subprocess.run([*base, "--inventory-out", str(tmp_path / "x.yml"), "--cabling", str(bad)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and f"{bad}:1: expected a_device" in refused.stderr, refused.stderr
    inv = tmp_path / "inventory.yml"
    proc = subprocess.Popen([*base, "--inventory-out", str(inv), "--cabling", str(csv), "--link-speed", "400",
                             "--scenario", "crossed-rail@gpu4"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not inv.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "inventory not written"
            time.sleep(0.1)
        out = tmp_path / "cabling.json"
        run_ = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--inventory", str(inv),
                               "--format", "json", "-o", str(out)], env=env, capture_output=True, text=True, timeout=300)
        assert run_.returncode == 1, run_.stderr
        found = json.loads(out.read_text())["findings"]
        assert sorted((f["rule"], f["device"], f["port"]) for f in found) == SCENARIOS["crossed-rail@gpu4"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
