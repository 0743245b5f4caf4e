"""Printed drift fixes, applied as printed, against the loopback lab.

Each case starts one lab switch with its rendered config, changes it out of band the way an engineer at
3 a.m. would, audits it live, applies every fix of the report with `roceconf.apply`, and audits again. The
device must come back in sync - or, where the commands cannot remove what is there (a DSCP the intent leaves
unmapped, an extra NVUE no-drop priority), the report must have said so as a "by hand" step, and exactly
those items may remain.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from roceconf.apply import apply_config
from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.drift.audit import audit_device
from roceconf.lab import Lab

ROOT = Path(__file__).resolve().parents[1]
FAB = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
FILES = render_fabric(FAB)
USER, PASSWORD = "ops", secrets.token_urlsafe(12)


def sub(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new)

    return edit


def sonic(fn: Callable[[dict], None]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        data = json.loads(text)
        fn(data)
        return json.dumps(data, indent=4)

    return edit


NQ3 = "    pause pfc-cos 3\n"
CASES: list[tuple[str, str, Callable[[str], str], list[str]]] = [
    # device, fault, out-of-band edit, fields left for the engineer (by hand)
    ("leaf1", "DSCP 26 moved to TC 0", sub("dscp 26 to traffic-class 3", "dscp 26 to traffic-class 0"), []),
    ("leaf1", "ECN min threshold", sub("minimum-threshold 150000 bytes", "minimum-threshold 300000 bytes"), []),
    (
        "leaf1",
        "extra no-drop 4 in the profile",
        sub("   priority-flow-control priority 3 no-drop\n", "   priority-flow-control priority 3 no-drop\n   priority-flow-control priority 4 no-drop\n"),
        [],
    ),
    ("leaf1", "watchdog timeout", sub("watchdog default timeout 0.2", "watchdog default timeout 0.5"), []),
    ("leaf1", "port MTU 1500", sub("interface Ethernet1-2\n   mtu 9214", "interface Ethernet1-2\n   mtu 1500"), []),
    ("spine1", "port MTU 1500", sub("interface Ethernet1/1-4\n  mtu 9214", "interface Ethernet1/1-4\n  mtu 1500"), []),
    ("spine1", "PFC off on the ports", sub("  priority-flow-control mode on\n", "  priority-flow-control mode off\n"), []),
    (
        "spine1",
        "extra no-drop 4",
        sub(NQ3, NQ3 + "  class type network-qos c-8q-nq4\n    pause pfc-cos 4\n"),
        [],
    ),
    ("spine1", "ECN min threshold", sub("minimum-threshold 150 kbytes", "minimum-threshold 300 kbytes"), []),
    # NX-OS keeps queues the intent does not use at 0 %: one made strict out of band is put back
    (
        "spine1",
        "unused queue 5 strict",
        sub("c-out-8q-q5\n    bandwidth remaining percent 0\n", "c-out-8q-q5\n    priority level 2\n"),
        [],
    ),
    ("leaf2", "DSCP 26 moved to priority 0", sub("'26':\n          switch-priority: 3", "'26':\n          switch-priority: 0"), []),
    ("leaf2", "port MTU 1500", sub("      mtu: 9214", "      mtu: 1500"), []),
    # leaf2 runs NVIDIA's RoCE profile (qos roce): out-of-band overrides on top of it
    (
        "leaf2",
        "ECN min threshold",
        sub("        '0':\n          ecn: disable\n", "        '0':\n          ecn: disable\n        '3':\n          min-threshold: 300000\n"),
        [],
    ),
    (
        "leaf2",
        "extra no-drop 4",
        sub("  congestion-control:\n", "  pfc:\n    default-global:\n      switch-priority:\n        '4': {}\n  congestion-control:\n"),
        ["pfc.no_drop"],
    ),
    # NVUE maps every DSCP (unnamed ones to the default class): a DSCP moved out of band is put back
    ("leaf2", "DSCP 10 moved to priority 3", sub("'10':\n          switch-priority: 0", "'10':\n          switch-priority: 3"), []),
    ("leaf2", "unused queue 4 strict", sub("'4':\n          mode: dwrr", "'4':\n          mode: strict"), []),
    ("leaf3", "PFC on 3 and 4", sub('"pfc_enable": "3"', '"pfc_enable": "3,4"'), []),
    ("leaf3", "DSCP 26 moved to TC 0", sonic(lambda d: d["DSCP_TO_TC_MAP"]["ROCE"].__setitem__("26", "0")), []),
    # SONiC maps every DSCP (unnamed ones to the default class): a DSCP moved out of band is put back
    ("leaf3", "DSCP 10 moved to TC 3", sonic(lambda d: d["DSCP_TO_TC_MAP"]["ROCE"].__setitem__("10", "3")), []),
    (
        "spine2",
        "DSCP 26 moved to TC 0",
        sub("forwarding-class RC-TC3 loss-priority low code-points 011010", "forwarding-class RC-TC0 loss-priority low code-points 011010"),
        [],
    ),
    ("spine2", "drop profile point added", sub("interpolate fill-level 55\n", "interpolate fill-level 60\n"), []),
    ("spine2", "port MTU 1500", sub("set interfaces et-0/0/1 mtu 9214", "set interfaces et-0/0/1 mtu 1500"), []),
]


@pytest.mark.parametrize(("device", "fault", "edit", "by_hand"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_printed_fix_brings_the_device_back(device: str, fault: str, edit: Callable, by_hand: list[str]) -> None:
    platform = FAB.devices[device].platform
    with Lab(USER, PASSWORD) as lab:
        lab.add(device, platform, FILES[output_name(device, platform)])
        lab.edit(device, edit)
        tg = lab.target(device)
        before = audit_device(FAB, device, target=tg)
        assert before.status == "drift", fault
        manual = [note for fix in before.remediation for note in fix.manual]
        for fix in before.remediation:
            if fix.commands.strip():
                apply_config(tg, platform, fix.commands, check=False, timeout=10, confirm_seconds=None)
        after = audit_device(FAB, device, target=tg)
    left = sorted({i.field.partition(".")[2].partition(".")[2] if i.interface else i.field for i in after.items})
    assert left == sorted(by_hand), (fault, [(i.field, i.expected, i.actual) for i in after.items])
    assert bool(manual) == bool(by_hand), (fault, manual)
