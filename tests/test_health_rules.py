"""The RC3xx health rules on crafted snapshots: each fires on its condition (with the right device, port,
priority and severity) and not below its threshold; resets never give a negative rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from roceconf.compile import load_valid
from roceconf.counters.model import PortCounters, Snapshot
from roceconf.health.evaluate import evaluate, intervals
from roceconf.intent import Fabric
from roceconf.intent.rules import RULES

LAB = Path(__file__).parent.parent / "inventories" / "lab" / "intent.yml"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB)


def quiet(host: bool) -> PortCounters:
    """A healthy port: pauses both ways on lossless priority 3, ECN marks on 3, drops on lossy 0."""
    pc = PortCounters()
    for p in range(8):
        for c in ("pfc_rx", "pfc_tx", "pfc_rx_us", "pfc_tx_us", "pg_drops"):
            pc.set_prio(c, p, 1000)
        if not host:
            pc.set_prio("queue_drops", p, 1000)
            pc.set_prio("ecn_marked", p, 1000)
    if host:
        for c in ("cnp_sent", "cnp_handled", "cnp_ignored", "ecn_roce_rx", "out_of_sequence", "packet_seq_err", "rx_discards_phy"):
            pc.set_port(c, 1000)
    else:
        pc.wd_shut = []
    return pc


def snaps(fab: Fabric, device: str, change: dict[str, dict[str, object]] | None = None, n: int = 2, dt: float = 10.0) -> list[Snapshot]:
    """``n`` snapshots ``dt`` apart; healthy growth on every port plus ``change``: port -> {counter or
    (counter, prio): per-second rate, or "wd_shut": [prios]}."""
    dev = fab.devices[device]
    out = []
    for k in range(n):
        s = Snapshot(device, dev.platform, 1000.0 + k * dt)
        for port in dev.ports:
            pc = quiet(dev.is_host)
            for p in (3,):
                for c in ("pfc_rx", "pfc_tx"):
                    pc.prio[c][p] += int(20 * k * dt)
                for c in ("pfc_rx_us", "pfc_tx_us"):
                    pc.prio[c][p] += int(2000 * k * dt)
                if not dev.is_host:
                    pc.prio["ecn_marked"][p] += int(500 * k * dt)
            if not dev.is_host:
                pc.prio["queue_drops"][0] += int(5 * k * dt)
            else:
                pc.port["ecn_roce_rx"] += int(500 * k * dt)
                pc.port["cnp_sent"] += int(500 * k * dt)
                pc.port["cnp_handled"] += int(480 * k * dt)
            for key, rate in (change or {}).get(port, {}).items():
                if key == "wd_shut":
                    pc.wd_shut = list(rate)  # type: ignore[arg-type]
                elif isinstance(key, tuple):
                    c, p = key
                    pc.prio.setdefault(c, {}).setdefault(p, 1000)
                    if rate == "reset":
                        pc.prio[c][p] = 1000 if k == 0 else 3
                    elif c in ("pfc_rx", "pfc_tx", "pfc_rx_us", "pfc_tx_us", "ecn_marked") and p == 3:
                        pc.prio[c][p] = 1000 + int(rate * k * dt)  # type: ignore[operator]
                    else:
                        pc.prio[c][p] += int(rate * k * dt)  # type: ignore[operator]
                else:
                    base = {"cnp_sent": 1000, "ecn_roce_rx": 1000, "cnp_handled": 1000}.get(key, pc.port.get(key, 1000))
                    pc.port[key] = base + int(rate * k * dt)  # type: ignore[operator]
            s.ports[port] = pc
        out.append(s)
    return out


def found(fab: Fabric, device: str, change: dict | None = None, **kw) -> list[tuple]:
    rep = evaluate(fab, {device: snaps(fab, device, change, **kw)})
    return [(f.rule, f.severity, f.device, f.port, f.priority) for f in rep.findings]


def test_rules_are_in_the_catalogue() -> None:
    ids = [f"RC{n}" for n in range(300, 312)]
    assert all(i in RULES for i in ids)
    assert all(300 <= int(i[2:]) <= 349 for i in RULES if i.startswith("RC3"))


@pytest.mark.parametrize("device", ["leaf1", "spine1", "gpu1"])
def test_healthy_load_gives_no_finding(fab: Fabric, device: str) -> None:
    rep = evaluate(fab, {device: snaps(fab, device, n=3)})
    assert rep.findings == [] and rep.exit_code == 0 and rep.devices[0].status == "healthy"
    assert rep.devices[0].ports["Ethernet1" if device == "leaf1" else next(iter(fab.devices[device].ports))].intervals


def test_drops_on_lossless_priority_are_critical_and_lossy_drops_are_not(fab: Fabric) -> None:
    assert found(fab, "leaf1", {"Ethernet2": {("queue_drops", 3): 1.0}}) == [("RC300", "critical", "leaf1", "Ethernet2", 3)]
    assert found(fab, "leaf1", {"Ethernet2": {("pg_drops", 3): 0.5}}) == [("RC300", "critical", "leaf1", "Ethernet2", 3)]
    assert found(fab, "leaf1", {"Ethernet2": {("queue_drops", 0): 500.0}}) == []
    assert found(fab, "gpu3", {"eth0": {("pg_drops", 3): 2.0}}) == [("RC300", "critical", "gpu3", "eth0", 3)]


def test_watchdog_events_and_shut_queues(fab: Fabric) -> None:
    assert found(fab, "leaf3", {"Ethernet0": {("wd_detected", 3): 0.1}}) == [("RC301", "critical", "leaf3", "Ethernet0", 3)]
    assert found(fab, "leaf3", {"Ethernet0": {("wd_restored", 3): 0.1}}) == [("RC301", "critical", "leaf3", "Ethernet0", 3)]
    # shut without a new event: RC302; shut with one: RC301 only
    assert found(fab, "leaf3", {"Ethernet8": {"wd_shut": [3]}}) == [("RC302", "critical", "leaf3", "Ethernet8", 3)]
    both = {"Ethernet8": {"wd_shut": [3], ("wd_detected", 3): 0.1}}
    assert found(fab, "leaf3", both) == [("RC301", "critical", "leaf3", "Ethernet8", 3)]


def test_pause_storm_by_duration_share(fab: Fabric) -> None:
    # 0.6 s paused per second > 50 %
    assert found(fab, "leaf2", {"swp1": {("pfc_rx_us", 3): 600_000}}) == [("RC303", "critical", "leaf2", "swp1", 3)]
    assert found(fab, "leaf2", {"swp1": {("pfc_rx_us", 3): 400_000}}) == []


def test_pause_storm_by_frame_rate_needs_every_sample(fab: Fabric) -> None:
    """Without a duration counter: 400G, 65535 quanta x 512 bit = 83.9 us per frame; 10,000 frames/s can
    keep the port paused 84 % of the time; 1,000/s at most 8 %."""
    dev = fab.devices["spine1"]
    ss = snaps(fab, "spine1", {"Ethernet1/2": {("pfc_rx", 3): 10_000}}, n=3)
    for s in ss:
        for pc in s.ports.values():
            pc.prio.pop("pfc_rx_us"), pc.prio.pop("pfc_tx_us")
    rep = evaluate(fab, {"spine1": ss})
    assert [(f.rule, f.port, f.priority) for f in rep.findings] == [("RC303", "Ethernet1/2", 3)]
    assert dev.ports["Ethernet1/2"].speed_gbps == 400
    # the same rate on only one of two intervals is not "continuous"
    ss[2].ports["Ethernet1/2"].prio["pfc_rx"][3] = ss[1].ports["Ethernet1/2"].prio["pfc_rx"][3] + 10
    assert [f.rule for f in evaluate(fab, {"spine1": ss}).findings] == []


def test_pauses_on_lossy_priority_warn(fab: Fabric) -> None:
    assert found(fab, "leaf4", {"Ethernet1": {("pfc_rx", 0): 3.0}}) == [("RC304", "warning", "leaf4", "Ethernet1", 0)]
    assert found(fab, "gpu2", {"eth1": {("pfc_tx", 6): 3.0}}) == [("RC304", "warning", "gpu2", "eth1", 6)]


def test_ecn_marks_on_class_without_ecn_warn(fab: Fabric) -> None:
    assert found(fab, "leaf1", {"Ethernet49": {("ecn_marked", 0): 10.0}}) == [("RC305", "warning", "leaf1", "Ethernet49", 0)]


def test_nic_congestion_control(fab: Fabric) -> None:
    # ECN-marked RoCE arriving, cnp_sent flat
    assert found(fab, "gpu1", {"eth0": {"cnp_sent": 0}}) == [("RC306", "critical", "gpu1", "eth0", None)]
    assert found(fab, "gpu1", {"eth1": {"cnp_ignored": 4.0}}) == [("RC307", "warning", "gpu1", "eth1", None)]
    assert found(fab, "gpu1", {"eth1": {"out_of_sequence": 1.0}}) == [("RC308", "critical", "gpu1", "eth1", None)]
    assert found(fab, "gpu1", {"eth1": {"rx_discards_phy": 1.0}}) == [("RC311", "warning", "gpu1", "eth1", None)]


def test_counter_reset_is_reported_and_never_a_negative_rate(fab: Fabric) -> None:
    ss = snaps(fab, "leaf1", {"Ethernet1": {("pfc_rx", 3): "reset", ("queue_drops", 3): "reset"}})
    rep = evaluate(fab, {"leaf1": ss})
    assert [(f.rule, f.severity, f.port, f.priority) for f in rep.findings] == [("RC309", "warning", "Ethernet1", None)]
    assert rep.findings[0].counters == ["pfc_rx", "queue_drops"]
    for iv in intervals(ss, "Ethernet1"):
        assert all(v >= 0 for per in iv.prio.values() for v in per.values())
        assert 3 not in iv.prio["queue_drops"] and 3 not in iv.prio["pfc_rx"]


def test_link_partner_correlation(fab: Fabric) -> None:
    """leaf1:Ethernet49 <-> spine1:Ethernet1/1 in the intent: pauses leaf1 sends must arrive at spine1."""
    leaf = snaps(fab, "leaf1", {"Ethernet49": {("pfc_tx", 3): 200.0}})
    spine = snaps(fab, "spine1")  # receives the healthy 20/s only
    rep = evaluate(fab, {"leaf1": leaf, "spine1": spine})
    assert [(f.rule, f.severity, f.device, f.port, f.priority) for f in rep.findings] == [
        ("RC310", "warning", "leaf1", "Ethernet49", 3)
    ]
    assert "spine1:Ethernet1/1" in rep.findings[0].message
    assert rep.devices[0].ports["Ethernet49"].partner == "spine1:Ethernet1/1"
    # agreeing ends: nothing
    assert evaluate(fab, {"leaf1": snaps(fab, "leaf1"), "spine1": snaps(fab, "spine1")}).findings == []


def test_unreadable_or_single_sample_is_unknown(fab: Fabric) -> None:
    rep = evaluate(fab, {"leaf1": snaps(fab, "leaf1", n=1)}, {"spine1": "connection refused"})
    assert {d.device: d.status for d in rep.devices} == {"leaf1": "unknown", "spine1": "unknown"}
    assert rep.exit_code == 3
    empty = [Snapshot("leaf1", "eos", 1.0), Snapshot("leaf1", "eos", 2.0)]
    rep = evaluate(fab, {"leaf1": empty})
    assert rep.devices[0].status == "unknown" and "no counters" in (rep.devices[0].reason or "")


def test_findings_win_over_unknown_in_the_exit_code(fab: Fabric) -> None:
    rep = evaluate(fab, {"leaf1": snaps(fab, "leaf1", {"Ethernet2": {("queue_drops", 3): 1.0}})}, {"spine1": "timed out"})
    assert rep.exit_code == 1


def test_result_tree_device_port_priority(fab: Fabric) -> None:
    rep = evaluate(fab, {"leaf1": snaps(fab, "leaf1", {"Ethernet2": {("queue_drops", 3): 1.0, ("pfc_rx", 0): 2.0}})})
    tree = rep.devices[0].tree()
    assert set(tree) == {"Ethernet2"} and set(tree["Ethernet2"]) == {3, 0}
    assert [f.rule for f in tree["Ethernet2"][3]] == ["RC300"] and [f.rule for f in tree["Ethernet2"][0]] == ["RC304"]


#: RC300's fix, written once per cause
R_FIX = RULES["RC300"].hint


def test_one_finding_per_cause_in_every_format(fab: Fabric) -> None:
    """Drops on lossless priority 3 of all four leaf1 ports are one finding (Ethernet1-2, Ethernet49-50) with
    one fix; pauses on lossy priority 0 of one port are another; egress and ingress drops are read from other
    counters, so they are two causes. Every format lists causes; JSON keeps each per-port finding."""
    import json

    from roceconf.health.report import format_report

    change: dict[str, dict[object, object]] = {p: {("queue_drops", 3): 1.0 + n} for n, p in enumerate(("Ethernet1", "Ethernet2", "Ethernet49", "Ethernet50"))}
    change["Ethernet2"][("pfc_rx", 0)] = 2.0
    rep = evaluate(fab, {"leaf1": snaps(fab, "leaf1", change)})
    causes = rep.devices[0].causes
    assert [(c.rule, c.priority, c.where, len(c.findings)) for c in causes] == [
        ("RC300", 3, "Ethernet1-2, Ethernet49-50", 4),
        ("RC304", 0, "Ethernet2", 1),
    ]
    assert causes[0].message.startswith("4 ports; value 1 to 4; first (Ethernet1): 1.0 packets/s dropped")
    c = rep.counts
    assert (c["causes"], c["ports"], c["items"], c["critical"], c["warning"]) == (2, 5, 5, 1, 1)
    assert rep.exit_code == 1  # unchanged: findings fail
    data = json.loads(format_report(rep, "json"))
    dev = data["devices"][0]
    assert [f["interfaces"] for f in dev["findings"]] == [["Ethernet1-2", "Ethernet49-50"], ["Ethernet2"]]
    ports = {p["port"]: p["findings"] for p in dev["ports"]}
    for f in dev["findings"]:  # each item points at its per-port finding
        assert all(ports[i["port"]][i["finding"]]["rule"] == f["rule"] for i in f["items"])
    assert sum(len(f) for f in ports.values()) == 5
    text = format_report(rep, "text", color=False)
    assert text.count("RC300") == 1 and "Ethernet1-2, Ethernet49-50" in text
    assert "2 finding(s) on 5 port(s): 1 critical, 1 warning (5 per-port finding(s))" in text
    md = format_report(rep, "markdown")
    assert md.count("| RC300 |") == 1 and md.count(R_FIX) == 1
    junit = format_report(rep, "junit")
    assert 'message="1 finding(s) on 4 port(s)"' in junit and junit.count(R_FIX) == 1
    # another kind of drop (ingress) on the same priority is read from another counter: another cause
    change["Ethernet50"] = {("pg_drops", 3): 1.0}
    rep = evaluate(fab, {"leaf1": snaps(fab, "leaf1", change)})
    assert [(c.rule, c.where) for c in rep.devices[0].causes][:2] == [
        ("RC300", "Ethernet1-2, Ethernet49"), ("RC300", "Ethernet50")
    ]

