"""Semantic comparison and RDMA-impact ranking (offline: saved configs and states)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.drift.audit import audit, policy_for
from roceconf.drift.collect import load_inventory
from roceconf.drift.compare import compare
from roceconf.intent import Fabric, load
from roceconf.intent.desired import desired_states

ROOT = Path(__file__).parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load(LAB)


def _items(fab: Fabric, device: str, mutate) -> list:
    desired = desired_states(fab)[device]
    actual = desired.model_copy(deep=True)
    mutate(actual)
    return compare(desired, actual, policy_for(fab.devices[device]), device)


def test_identical_states_have_no_drift(fab: Fabric) -> None:
    assert _items(fab, "leaf1", lambda s: None) == []


@pytest.mark.parametrize(
    ("mutate", "field", "severity", "words"),
    [
        (
            lambda s: s.dscp_to_tc.__setitem__("26", 0),
            "dscp_to_tc.26",
            "critical",
            "RoCE DSCP 26 maps to traffic class 0 (lossy)",
        ),
        (lambda s: s.dscp_to_tc.__setitem__("48", 0), "dscp_to_tc.48", "critical", "CNP DSCP 48"),
        (
            lambda s: setattr(s.interfaces["Ethernet1"].pfc, "no_drop", []),
            "interfaces.Ethernet1.pfc.no_drop",
            "critical",
            "no-drop missing for priority 3",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"].pfc, "no_drop", [3, 4]),
            "interfaces.Ethernet1.pfc.no_drop",
            "warning",
            "extra no-drop priority 4",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"], "mtu", 1500),
            "interfaces.Ethernet1.mtu",
            "critical",
            "below what RoCE",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"], "mtu", 9000),
            "interfaces.Ethernet1.mtu",
            "warning",
            "below the intended",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"], "trust", "pcp"),
            "interfaces.Ethernet1.trust",
            "critical",
            "trusts pcp",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"].ecn["3"], "max_bytes", 3_000_000),
            "interfaces.Ethernet1.ecn.3.max_bytes",
            "warning",
            "congestion marking",
        ),
        (
            lambda s: s.interfaces["Ethernet1"].ecn.pop("3"),
            "interfaces.Ethernet1.ecn.3",
            "critical",
            "DCQCN gets no congestion signal",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"].scheduling["6"], "mode", "dwrr"),
            "interfaces.Ethernet1.scheduling.6.mode",
            "critical",
            "CNP queue 6",
        ),
        (
            lambda s: setattr(s.interfaces["Ethernet1"], "pfc_watchdog", False),
            "interfaces.Ethernet1.pfc_watchdog",
            "warning",
            "PFC watchdog",
        ),
        (
            lambda s: setattr(s.pfc_watchdog, "detection_ms", 1000),
            "pfc_watchdog.detection_ms",
            "warning",
            "PFC watchdog",
        ),
        (
            lambda s: setattr(s.ecmp, "fields", ["dst_ip", "src_ip"]),
            "ecmp.fields",
            "critical",
            "UDP source port",
        ),
        (
            lambda s: s.interfaces.pop("Ethernet2"),
            "interfaces.Ethernet2",
            "critical",
            "no RoCE configuration",
        ),
    ],
)
def test_ranking(fab: Fabric, mutate, field: str, severity: str, words: str) -> None:
    items = _items(fab, "leaf1", mutate)
    assert [(i.field, i.severity) for i in items] == [(field, severity)]
    assert words in items[0].explanation


def test_host_ranking(fab: Fabric) -> None:
    def m(s):
        s.interfaces["eth0"].rdma.dcqcn_rp = []
        s.interfaces["eth1"].rdma.roce_tos = 0

    items = _items(fab, "gpu1", m)
    assert {(i.interface, i.field.split(".")[-1], i.severity) for i in items} == {
        ("eth0", "dcqcn_rp", "critical"),
        ("eth1", "roce_tos", "critical"),
    }
    assert any("congestion control loop is broken" in i.explanation for i in items)


def test_unknown_actual_values_are_drift_not_sync(fab: Fabric) -> None:
    """What the device does not state is unknown, and unknown never counts as in sync."""
    items = _items(fab, "leaf1", lambda s: setattr(s.interfaces["Ethernet1"], "mtu", None))
    assert [(i.field, i.actual, i.severity) for i in items] == [
        ("interfaces.Ethernet1.mtu", None, "critical")
    ]


def test_order_whitespace_and_unrelated_lines_do_not_matter(fab: Fabric, tmp_path: Path) -> None:
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    leaf = (d / "leaf1.cfg").read_text()
    blocks = re.split(r"(?m)^!\n", leaf)  # top-level blocks only
    # reorder top-level blocks, add CRLF, trailing spaces and configuration roceconf does not manage
    text = "!\n".join([blocks[0], *reversed(blocks[1:-1]), blocks[-1]])
    text = (
        text.replace("\n", "  \r\n")
        + "interface Management1\n   ip address 192.0.2.10/24\n!\nrouter bgp 65001\n   maximum-paths 64\n!\n"
    )
    (d / "leaf1.cfg").write_text(text)
    report = audit(fab, configs=d)
    assert {x.device: x.status for x in report.devices}["leaf1"] == "in_sync"
    assert report.exit_code == 0


def test_missing_backup_is_unknown_and_exit_3(fab: Fabric, tmp_path: Path) -> None:
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    (d / "spine1.cfg").unlink()
    (d / "leaf2.yaml").write_text("this: [is not\nan nvue config")
    report = audit(fab, configs=d)
    st = {x.device: x for x in report.devices}
    assert st["spine1"].status == "unknown" and "no saved config" in st["spine1"].reason
    assert st["leaf2"].status == "unknown" and st["leaf2"].reason
    assert report.exit_code == 3
    res = CliRunner().invoke(main, ["drift", str(LAB), "--configs", str(d)])
    assert res.exit_code == 3


def test_cli_exit_codes_and_formats(tmp_path: Path) -> None:
    r = CliRunner()
    assert r.invoke(main, ["drift", str(LAB), "--configs", str(GOLDEN)]).exit_code == 0
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    (d / "leaf3.json").write_text(
        (d / "leaf3.json").read_text().replace('"pfc_enable": "3"', '"pfc_enable": ""')
    )
    for fmt, marker in (
        ("text", "no-drop missing"),
        ("json", '"severity": "critical"'),
        ("junit", "<failure"),
        ("markdown", "### leaf3"),
    ):
        res = r.invoke(main, ["drift", str(LAB), "--configs", str(d), "--format", fmt])
        assert res.exit_code == 1, res.output
        assert marker in res.stdout
    out = tmp_path / "r.md"
    res = r.invoke(
        main, ["drift", str(LAB), "--configs", str(d), "--format", "markdown", "--output", str(out)]
    )
    assert res.exit_code == 1 and out.read_text().startswith("## roceconf drift report")
    # invalid input: exit 2, no traceback
    res = r.invoke(main, ["drift", str(LAB)])
    assert res.exit_code == 2
    res = r.invoke(main, ["drift", str(LAB), "--inventory", str(tmp_path / "nope.yml")])
    assert res.exit_code == 2 and "not found" in res.output


def test_inventory_with_vaulted_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ansible.parsing.vault import VaultLib, VaultSecret

    secret = b"demo-vault-pass"
    vault = VaultLib([("default", VaultSecret(secret))])
    enc = vault.encrypt("s3cr3t-Pa55").decode()
    body = "\n".join("        " + line for line in enc.splitlines())
    inv = tmp_path / "hosts.yml"
    inv.write_text(
        "all:\n  hosts:\n    leaf1:\n      ansible_host: 127.0.0.1\n      ansible_port: 2222\n      platform: eos\n"
        "      transport: http\n      ansible_user: ops\n      ansible_password: !vault |\n" + body + "\n"
    )
    pw = tmp_path / "vault-pass"
    pw.write_bytes(secret)
    monkeypatch.delenv("ROCECONF_USERNAME", raising=False)
    monkeypatch.delenv("ROCECONF_PASSWORD", raising=False)
    monkeypatch.setenv("ROCECONF_VAULT_PASSWORD_FILE", str(pw))
    t = load_inventory(inv)["leaf1"]
    assert (t.host, t.port, t.platform, t.transport, t.username, t.password) == (
        "127.0.0.1",
        2222,
        "eos",
        "http",
        "ops",
        "s3cr3t-Pa55",
    )
    assert "s3cr3t" not in repr(t)
    assert t.scrub("login with s3cr3t-Pa55 failed") == "login with ******** failed"


@pytest.mark.parametrize(
    ("device", "mutate", "present", "absent"),
    [
        # a switch: the fix is the MTU line alone, no 'hostname' / 'host-name' noise
        ("spine2", lambda s: setattr(s.interfaces["et-0/0/1"], "mtu", 1500), "mtu 9214", "host-name"),
        ("leaf1", lambda s: setattr(s.interfaces["Ethernet2"], "mtu", 1500), "mtu 9214", "hostname"),
        # a host script keeps its guard against running on the wrong machine
        ("gpu1", lambda s: setattr(s.interfaces["eth0"], "mtu", 1500), "expected_host=gpu1", None),
        ("gpu4", lambda s: setattr(s.interfaces["eth0"], "mtu", 1500), "EXPECTED_HOST=gpu4", None),
    ],
)
def test_remediation_commands_hold_only_what_fixes_the_drift(
    fab: Fabric, device: str, mutate, present: str, absent: str | None
) -> None:
    from roceconf.drift.remediate import remediation

    desired = desired_states(fab)[device]
    items = _items(fab, device, mutate)
    assert [i.field for i in items] == [i.field for i in items if i.field.endswith(".mtu")] and items
    (fix,) = remediation(desired, items, fab.devices[device].is_host)
    assert fix.group == "mtu" and fix.disruptive
    assert present in fix.commands
    # commands only: a script keeps its shebang, the template's comment header is gone
    body = [ln for ln in fix.commands.splitlines() if not ln.startswith("#!")]
    assert body and not body[0].lstrip().startswith(("#", "!"))
    if absent is not None:
        assert absent not in fix.commands


@pytest.mark.parametrize("device", ["gpu1", "gpu3", "gpu4"])
def test_host_dscp_fix_restates_the_whole_table_on_every_port(fab: Fabric, device: str) -> None:
    """NIC tools replace a port's DSCP table whole (flush, then set): the fix for one drifted DSCP must carry
    the full table to every port that uses it, or running it would drop the other mappings."""
    from roceconf import platforms
    from roceconf.drift.remediate import remediation

    desired = desired_states(fab)[device]
    items = _items(fab, device, lambda s: s.dscp_to_tc.__setitem__("26", 0))
    assert [i.field for i in items] == ["dscp_to_tc.26"]
    (fix,) = remediation(desired, items, True)
    stated = platforms.get(desired.platform).parse(fix.commands)
    assert sorted(stated.interfaces) == sorted(desired.interfaces)
    for name, itf in stated.interfaces.items():
        assert itf.trust == "dscp"
        assert (itf.dscp_to_tc or stated.dscp_to_tc) == desired.dscp_to_tc, name


def _dscp_moved_and_extra(s) -> None:
    s.dscp_to_tc["26"] = 0  # moved from TC 3 to TC 0
    s.dscp_to_tc["10"] = 3  # a mapping the intent does not have


@pytest.mark.parametrize(
    ("device", "by_hand"),
    [
        # NX-OS matches add up: the moved DSCP and the one moved out of the default class (NX-OS matches
        # every DSCP explicitly, so DSCP 10 belongs to the default class) both need a removal by hand
        ("spine1", ["DSCP 26 is still matched for traffic class 0", "DSCP 10 is still matched for traffic class 3"]),
        # EOS maps every DSCP (the default class takes DSCP 10) and 'qos map' lines replace per DSCP: the
        # commands cover the extra mapping too (it used to be left to the engineer)
        ("leaf1", []),
        # Junos and the NIC tools replace the whole table: the commands cover both
        ("spine2", []),
        ("gpu4", []),
    ],
)
def test_dscp_fix_says_what_it_cannot_remove(fab: Fabric, device: str, by_hand: list[str]) -> None:
    from roceconf.drift.remediate import remediation

    desired = desired_states(fab)[device]
    items = _items(fab, device, _dscp_moved_and_extra)
    assert sorted(i.field for i in items) == ["dscp_to_tc.10", "dscp_to_tc.26"]
    (fix,) = remediation(desired, items, fab.devices[device].is_host)
    assert len(fix.manual) == len(by_hand)
    for words, note in zip(by_hand, fix.manual, strict=True):
        assert words in note and "by hand" in note


def test_junos_dscp_fix_replaces_the_classifier(fab: Fabric) -> None:
    """Applied over the drifted config, the Junos fix leaves exactly the intended DSCP map."""
    from roceconf import platforms
    from roceconf.drift.remediate import remediation
    from roceconf.lab.device import junos_lines
    from roceconf.render import render_state

    desired = desired_states(fab)["spine2"]
    drifted = desired.model_copy(deep=True)
    _dscp_moved_and_extra(drifted)
    items = _items(fab, "spine2", _dscp_moved_and_extra)
    (fix,) = remediation(desired, items, False)
    assert "delete class-of-service classifiers dscp RC-DSCP" in fix.commands
    after = "\n".join(junos_lines(render_state(drifted) + "\n" + fix.commands))
    assert platforms.get("junos").parse(after).dscp_to_tc == desired.dscp_to_tc


def test_report_shows_what_to_remove_by_hand(tmp_path: Path) -> None:
    """NX-OS: DSCP 26 moved into the TC 0 class-map; the report names the stale match's line."""
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    cfg = d / "spine1.cfg"
    text = cfg.read_text()
    cfg.write_text(
        text.replace("  match dscp 0-25,27-47,49-63\n", "  match dscp 0-47,49-63\n").replace("  match dscp 26\n", "")
    )
    line = cfg.read_text().splitlines().index("  match dscp 0-47,49-63") + 1
    r = CliRunner()
    res = r.invoke(main, ["drift", str(LAB), "--configs", str(d)])
    assert res.exit_code == 1, res.output
    assert "by hand: DSCP 26 is still matched for traffic class 0" in res.stdout
    assert f"spine1.cfg:{line})" in res.stdout  # the stale match's line
    md = r.invoke(main, ["drift", str(LAB), "--configs", str(d), "--format", "markdown"]).stdout
    assert "- by hand: DSCP 26 is still matched" in md


def test_negate_stale_lines_only_touches_stale_lines_of_the_given_blocks() -> None:
    from roceconf.platforms.base import negate_stale_lines

    running = "\n".join(
        [
            "qos profile P",  # 1
            "   priority-flow-control priority 4 no-drop",  # 2: stale in an owned block
            "interface Ethernet1-2",  # 3
            "   mtu 9214",  # 4: also in the fix
            "   priority-flow-control priority 3 drop",  # 5: stale override
            "   no shutdown",  # 6: a shown negation, left alone
            "policy-map type network-qos NQ",  # 7
            "  class type network-qos c-8q-nq4",  # 8
            "    pause pfc-cos 4",  # 9: nested, under a block that is not given
        ]
    )
    fix = "interface Ethernet2\n   mtu 9214\n   service-profile P\n"
    lines = [1, 2, 3, 4, 5, 6, 9, 99]
    assert negate_stale_lines(running, lines, fix) == (
        "interface Ethernet1-2\n   no priority-flow-control priority 3 drop\n"
    )
    assert negate_stale_lines(running, lines, fix, blocks=("qos profile ", "policy-map ")) == (
        "qos profile P\n   no priority-flow-control priority 4 no-drop\n"
        "policy-map type network-qos NQ\n   class type network-qos c-8q-nq4\n      no pause pfc-cos 4\n"
    )
    assert negate_stale_lines(running, [2, 4], fix) == ""


def test_nxos_fix_removes_an_interface_override(tmp_path: Path) -> None:
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    cfg = d / "spine1.cfg"
    cfg.write_text(
        cfg.read_text().replace("  priority-flow-control mode on\n", "  priority-flow-control mode off\n")
    )
    report = audit(load(LAB), configs=d)
    (spine1,) = [x for x in report.devices if x.device == "spine1"]
    assert spine1.status == "drift"
    commands = "".join(r.commands for r in spine1.remediation)
    assert commands.startswith("interface Ethernet1/1-4\n  no priority-flow-control mode off\n")
    assert "  priority-flow-control mode on\n" in commands


def _leaves(d: object, pre: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, f"{pre}.{k}" if pre else str(k))
    else:
        yield pre, d


def _at(d: object, path: str) -> object:
    for k in path.split("."):
        if not isinstance(d, dict) or k not in d:
            return "<absent>"
        d = d[k]
    return d


def _one_field_drifts(state) -> Iterator[tuple[str, Callable]]:
    from roceconf.state import Ecn, Sched

    port = sorted(state.interfaces)[0]

    def on_port(fn: Callable) -> Callable:
        return lambda s: fn(s.interfaces[port])

    yield "mtu", on_port(lambda i: setattr(i, "mtu", 1500))
    yield "no_drop", on_port(lambda i: setattr(i.pfc, "no_drop", []))
    yield (
        "ecn",
        on_port(lambda i: i.ecn.__setitem__("3", Ecn(min_bytes=300000, max_bytes=1500000, probability=100))),
    )
    yield (
        "scheduling",
        on_port(lambda i: i.scheduling.__setitem__("0", Sched(mode="dwrr", bandwidth_percent=20))),
    )
    yield "dscp", lambda s: s.dscp_to_tc.__setitem__("26", 0)
    yield "watchdog", lambda s: setattr(s.pfc_watchdog, "detection_ms", 900)
    yield "cnp_dscp", on_port(lambda i: i.rdma is not None and setattr(i.rdma, "cnp_dscp", 46))
    yield "port_watchdog", on_port(lambda i: setattr(i, "pfc_watchdog", False))


def test_a_fix_never_states_other_values_than_the_intent(fab: Fabric) -> None:
    """Every lab device, one drifted field at a time: whatever the printed fix states (parsed back with the
    platform's parser) equals the intent. A fix that flushes a DSCP table without re-adding it, or re-binds a
    port to a PFC profile without the watchdog timers, states other values and fails here."""
    from roceconf import platforms
    from roceconf.drift.remediate import remediation
    from roceconf.intent.desired import expressible

    checked = 0
    for name, desired in desired_states(fab).items():
        want = expressible(desired).semantic()
        plat = platforms.get(desired.platform)
        for what, mutate in _one_field_drifts(desired):
            items = [i for i in _items(fab, name, mutate) if i.severity != "info"]
            for fix in remediation(desired, items, fab.devices[name].is_host):
                assert fix.commands.strip() or fix.manual, (name, what)
                stated = plat.parse(fix.commands).semantic()
                wrong = [
                    (path, _at(want, path), v)
                    for path, v in _leaves(stated)
                    if v not in (None, [], {})
                    and path not in ("platform", "hostname")
                    and _at(want, path) != v
                ]
                assert not wrong, (name, what, fix.group, wrong)
                checked += 1
    assert checked >= 50


def test_nxos_network_qos_class_mtu_change_is_drift(fab: Fabric, tmp_path: Path) -> None:
    """The no-drop class MTU of the NX-OS network-qos policy is its own fact (class_mtu): 9214 -> 1500 there
    is one critical drift item pointing at the class's mtu line; the ports' own MTU is not drift (it used to
    be folded into every port's MTU)."""
    d = tmp_path / "cfg"
    shutil.copytree(GOLDEN, d)
    cfg = (d / "spine1.cfg").read_text()
    nq3 = "  class type network-qos c-8q-nq3\n    mtu 9214\n"
    assert nq3 in cfg
    (d / "spine1.cfg").write_text(cfg.replace(nq3, "  class type network-qos c-8q-nq3\n    mtu 1500\n"))
    report = audit(fab, configs=d)
    spine1 = next(x for x in report.devices if x.device == "spine1")
    assert spine1.status == "drift"
    assert not [i for i in spine1.items if i.field.endswith(".mtu")]  # the ports' MTU is unchanged
    mtu = [i for i in spine1.items if i.field == "class_mtu"]
    assert [(i.expected, i.actual, i.severity, i.feature) for i in mtu] == [(9214, 1500, "critical", "mtu")]
    line = cfg.splitlines().index("    mtu 9214") + 1  # the nq3 class's mtu line
    assert mtu[0].line == line
    others = [x for x in report.devices if x.device != "spine1"]
    assert all(x.status == "in_sync" for x in others)
