"""Every DSCP has a home, on every platform: each DSCP 0-63 the intent does not name goes to the intent's
default class, and no queue the intent does not use is left strict priority.

Checked on what a device would run: the lab and pod intents rendered by each platform's template and read
back by its parser (one device per platform and intent entry), and on the configs a switch holds after an
out-of-band change (drift must see a DSCP moved away from the default class, a queue made strict)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from roceconf import platforms
from roceconf.compile import load_valid
from roceconf.drift.audit import policy_for
from roceconf.drift.compare import compare
from roceconf.intent.desired import default_class, desired_state, expressible
from roceconf.intent.fabric import DeviceSpec
from roceconf.render import render_state
from roceconf.state import DeviceState, Sched

ROOT = Path(__file__).resolve().parent.parent
INTENTS = {
    "lab": ROOT / "inventories" / "lab" / "intent.yml",
    "pod": ROOT / "inventories" / "pod" / "intent.yml",
}


@cache
def _fabric(name: str):  # noqa: ANN202 - a Fabric, cached per intent
    return load_valid(INTENTS[name])


def _one_device_per_shape(name: str) -> list[DeviceSpec]:
    """The first device of every (platform, settings) group: devices of one intent entry render alike."""
    seen: set[tuple[str, int]] = set()
    out = []
    for dev in _fabric(name).devices.values():
        key = (dev.platform, id(dev.settings))
        if key not in seen:
            seen.add(key)
            out.append(dev)
    return out


CASES = [(intent, dev.name) for intent in INTENTS for dev in _one_device_per_shape(intent)]


def _device(intent: str, name: str) -> DeviceSpec:
    return _fabric(intent).devices[name]


def test_the_intents_cover_every_platform() -> None:
    covered = {_device(i, n).platform for i, n in CASES}
    assert covered == set(platforms.NAMES), (
        f"platforms without a device in lab/pod: {set(platforms.NAMES) - covered}"
    )


@pytest.mark.parametrize(("intent", "device"), CASES, ids=[f"{i}-{n}" for i, n in CASES])
def test_every_dscp_has_a_home_and_no_unused_queue_is_strict(intent: str, device: str) -> None:
    dev = _device(intent, device)
    plat = platforms.get(dev.platform)
    classes = dev.settings.classes
    home = default_class(classes)
    assert home is not None, f"{intent}: no default class"
    named = {d: c.priority for c in classes for d in c.dscp}
    used = {c.priority for c in classes}
    expected = {str(d): named.get(d, home.priority) for d in range(64)}

    text = render_state(desired_state(dev))
    got = plat.parse(text)
    assert got.dscp_to_tc == expected, f"{dev.platform} {device}: DSCPs without the intent's home"
    for name, itf in got.interfaces.items():
        if itf.dscp_to_tc is not None:
            assert itf.dscp_to_tc == expected, f"{dev.platform} {device} {name}: port map"
        strict_unused = [
            tc for tc, sc in itf.scheduling.items() if sc.mode == "strict" and int(tc) not in used
        ]  # (an unstated queue above EOS's CNP queue keeps its default: see below)
        assert not strict_unused, f"{dev.platform} {device} {name}: unused queues {strict_unused} strict"
        hook = plat.capabilities.unused_queues_round_robin
        if hook is not None and not dev.is_host:
            # a platform whose unconfigured queue has a default (EOS: strict) states each unused one
            strict = [
                c.priority for c in classes if c.scheduling is not None and c.scheduling.mode == "strict"
            ]
            top = max(strict) if strict and plat.capabilities.round_robin_demotes_lower else 7
            for tc in hook(got.hints or desired_state(dev).hints):
                if tc > top:
                    # EOS: a round-robin queue above the CNP queue would demote it; the queue keeps its
                    # strict default, and no DSCP maps to it (checked above)
                    assert str(tc) not in itf.scheduling, f"{dev.platform} {device} {name}: queue {tc} stated"
                    assert tc not in expected.values()
                    continue
                if tc not in used:
                    assert itf.scheduling.get(str(tc)) == Sched(mode="dwrr"), (
                        f"{dev.platform} {device} {name}: unused queue {tc} is {itf.scheduling.get(str(tc))}"
                    )


# --------------------------------------------------------------------------------------------- NVUE
def _lab(name: str) -> tuple[DeviceSpec, DeviceState, str]:
    dev = _device("lab", name)
    desired = desired_state(dev)
    return dev, desired, render_state(desired)


def _nvue_set(text: str) -> dict:
    return YAML(typ="safe").load(text)[0]["set"]


def test_nvue_maps_every_dscp_and_states_every_unused_queue() -> None:
    """The old patch mapped only DSCP 0/26/48: DSCP 10 kept the Cumulus default SP1, and 24-31 / 49-55
    kept SP3 / SP6 - the lossless RoCE and the strict CNP priorities of NVIDIA's RoCE profile. Queues
    1, 2, 4, 5, 7 were left at whatever the profile leaves them."""
    _, _, text = _lab("leaf2")
    qos = _nvue_set(text)["qos"]
    dscp = qos["mapping"]["default-global"]["dscp"]
    assert sorted(int(d) for d in dscp) == list(range(64))
    assert dscp["10"] == {"switch-priority": 0}
    assert {d for d, v in dscp.items() if v["switch-priority"] == 3} == {"26"}
    assert {d for d, v in dscp.items() if v["switch-priority"] == 6} == {"48"}
    sched = qos["egress-scheduler"]["default-global"]["traffic-class"]
    for tc in ("1", "2", "4", "5", "7"):
        assert sched[tc] == {"mode": "dwrr"}, tc
    # no egress-queue-mapping line for a queue no switch priority reaches (RoCE keeps SP 1,2,4,5,7 -> TC0)
    assert "egress-queue-mapping" not in qos


def _drift_fields(dev: DeviceSpec, desired: DeviceState, running: str) -> set[str]:
    """What `roceconf drift` reports for a device running `running` (audited as drift does: what the
    platform can carry)."""
    actual = platforms.get(dev.platform).parse(running)
    return {item.field for item in compare(expressible(desired), actual, policy_for(dev), dev.name)}


def test_nvue_drift_sees_a_dscp_moved_away_from_the_default_class() -> None:
    dev, desired, text = _lab("leaf2")
    assert _drift_fields(dev, desired, text) == set()
    moved = text.replace(
        "            '10':\n              switch-priority: 0\n",
        "            '10':\n              switch-priority: 3\n",
    )
    assert moved != text
    assert "dscp_to_tc.10" in _drift_fields(dev, desired, moved)
    dropped = text.replace("            '10':\n              switch-priority: 0\n", "")
    assert "dscp_to_tc.10" in _drift_fields(dev, desired, dropped)


def test_nvue_drift_sees_an_unused_queue_made_strict() -> None:
    dev, desired, text = _lab("leaf2")
    strict = text.replace(
        "            '4':\n              mode: dwrr\n", "            '4':\n              mode: strict\n"
    )
    assert strict != text
    assert any(f.endswith("scheduling.4.mode") for f in _drift_fields(dev, desired, strict)), _drift_fields(
        dev, desired, strict
    )


# --------------------------------------------------------------------------------------------- NX-OS
def test_nxos_matches_every_dscp_explicitly() -> None:
    """The old config matched DSCP 0/26/48 and left the rest to the implicit class-default."""
    _, _, text = _lab("spine1")
    lines = text.splitlines()
    i = lines.index("class-map type qos match-any ROCECONF_TC0")
    assert lines[i + 1] == "  match dscp 0-25,27-47,49-63"
    for q in (1, 2, 4, 5, 7):
        j = lines.index(f"  class type queuing c-out-8q-q{q}")
        assert lines[j + 1] == "    bandwidth remaining percent 0"


def test_nxos_drift_sees_a_dscp_moved_away_from_the_default_class_and_a_strict_unused_queue() -> None:
    dev, desired, text = _lab("spine1")
    assert _drift_fields(dev, desired, text) == set()
    moved = text.replace("  match dscp 0-25,27-47,49-63", "  match dscp 0-9,11-25,27-47,49-63").replace(
        "  match dscp 26\n", "  match dscp 10,26\n"
    )
    assert moved != text
    assert "dscp_to_tc.10" in _drift_fields(dev, desired, moved)
    strict = text.replace(
        "  class type queuing c-out-8q-q5\n    bandwidth remaining percent 0",
        "  class type queuing c-out-8q-q5\n    priority level 2",
    )
    assert strict != text
    assert any(f.endswith("scheduling.5.mode") for f in _drift_fields(dev, desired, strict)), _drift_fields(
        dev, desired, strict
    )
