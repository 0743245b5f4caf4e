"""Nothing is dropped silently, on every platform (roceconf/intent/unexpressed.py, rules RC150 / RC126).

One generic property over generated intents with a device of each of the 8 platforms: for every device,
what the intent asks (its state before any platform capability is applied) is compared field by field with
what the rendered config says when the platform's parser reads it back. Every field that differs must be
named by a `roceconf validate` warning that names the device, the field and the platform.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from ruamel.yaml import YAML

from roceconf import platforms
from roceconf.cli import main
from roceconf.intent import load_text
from roceconf.intent.desired import desired_state, intended_state
from roceconf.names import expand_interfaces
from roceconf.render import render_state
from roceconf.state import META_FIELDS
from tests.strategies import INTENT_DEVICES, examples, intent

EXAMPLES = 60


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: data}


def _ports_named(item: str) -> set[str]:
    """Ports a message item names: '(ports et-0/0/0-2, swp1)' -> every expanded name."""
    m = re.search(r"\(ports? ([^)]*)\)", item)
    return {p for part in (m.group(1).split(", ") if m else []) for p in expand_interfaces(part)}


def _dump(data: dict) -> str:
    import io

    buf = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, buf)
    return buf.getvalue()


def test_the_generated_intents_cover_every_platform() -> None:
    assert sorted(INTENT_DEVICES) == sorted(platforms.NAMES)


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intent())
def test_every_value_the_config_does_not_carry_is_warned_about(data: dict) -> None:
    fab = load_text(_dump(data), "generated.yml")
    warned = [d.message for d in fab.diagnostics if d.code in ("RC150", "RC126")]
    # ECN bytes a fill-level platform cannot carry are refused outright (error RC130 names device and class)
    refused = [d.message for d in fab.diagnostics if d.code == "RC130"]
    assert len(fab.devices) == len(platforms.NAMES)
    for name, dev in fab.devices.items():
        plat = platforms.get(dev.platform)
        back = plat.parse(render_state(desired_state(dev)))
        want = _flat(intended_state(dev).model_dump(mode="json", exclude=set(META_FIELDS)))
        got = _flat(back.model_dump(mode="json", exclude=set(META_FIELDS)))
        for path, value in want.items():
            if value is None or value == {} or got.get(path) == value:
                continue
            parts = path.split(".")
            port = None
            if parts[0] == "interfaces":
                port, parts[1] = parts[1], "*"
            field = ".".join(parts)
            covering = [
                m
                for m in warned
                for item in m.split("; ")
                if item.startswith(f"{field} ")
                and f" on {dev.platform} " in item
                and name in item.split(f" on {dev.platform} ", 1)[1].split(":")[0].split(", ")
                and (port is None or port in _ports_named(item))
            ]
            # a message over the 400-character diagnostic cap loses its tail (roceconf.diagnostics): a cut
            # message that lists this field may have named the device in the part cut off
            covering += [m for m in warned if m.endswith("more characters)") and m.startswith(f"{field} ")]
            if parts[0] == "interfaces" and parts[2] == "ecn":
                covering += [m for m in refused if f" on {dev.platform} {name}:" in m]
            assert covering, (
                f"{name} ({dev.platform}): {path} = {value!r} reads back as {got.get(path)!r} silently"
            )


def test_the_warning_reads_like_the_issue_asks(tmp_path) -> None:
    p = tmp_path / "i.yml"
    p.write_text(
        "version: 1\nfabric: t\nroles:\n  spine: {ecmp: {seed: 10}}\ndevices:\n"
        "  - {name: leaf3, platform: sonic, role: spine, interfaces: [{name: Ethernet0, speed: 400G}]}\n"
    )
    res = CliRunner().invoke(main, ["validate", "--format", "json", str(p)])
    msgs = [d["message"] for d in json.loads(res.output)["files"][0]["diagnostics"] if d["code"] == "RC150"]
    assert msgs == ["ecmp.seed 10 cannot be expressed on sonic leaf3: not configured"]
    out = CliRunner().invoke(main, ["render", str(p), "-o", str(tmp_path / "out")])
    assert out.exit_code == 0
    assert "warning[RC150]: ecmp.seed 10 cannot be expressed on sonic leaf3: not configured" in out.output


def test_the_lab_reports_what_its_devices_cannot_carry() -> None:
    """NVUE restores after one polling interval, not after the intent's 400 ms. NX-OS now states the watchdog
    timers (interval and multipliers), so none of them is reported for spine1."""
    lab = Path(__file__).parent.parent / "inventories" / "lab" / "intent.yml"
    res = CliRunner().invoke(main, ["validate", "--format", "json", str(lab)])
    assert res.exit_code == 0, res.output
    items = [
        item
        for d in json.loads(res.output)["files"][0]["diagnostics"]
        if d["code"] == "RC150"
        for item in d["message"].split("; ")
    ]
    assert "pfc_watchdog.restoration_ms 400 cannot be expressed on nvue leaf2: configured as 100" in items, items
    assert not [i for i in items if i.startswith("pfc_watchdog.") and "nxos spine1" in i], items
    # what the platforms do carry is not reported
    assert not any(
        i.startswith(
            (
                "pfc_watchdog.action drop cannot be expressed on nxos",
                "ecmp.seed 25 cannot be expressed on nxos",
            )
        )
        for i in items
    ), items


def test_a_scope_checks_lost_values_of_its_devices_only(tmp_path) -> None:  # noqa: ANN001
    """``load(path, scope)``: the per-host drift task checks its own device's render for lost values (RC150),
    not every device's (one run per host over a fleet would otherwise be O(N^2)); every other check still
    covers the whole intent, and without a scope every device is checked."""
    from roceconf.intent import load

    p = tmp_path / "intent.yml"
    p.write_text(
        "version: 1\nfabric: t\necmp:\n  seed: 7\ndevices:\n"
        "  - {name: leaf3, platform: sonic, role: spine, interfaces: [{name: Ethernet0, speed: 400G}]}\n"
        "  - {name: leaf9, platform: sonic, role: spine, interfaces: [{name: Ethernet0, speed: 400G}]}\n"
        "  - {name: spine1, platform: nxos, role: spine, interfaces: [{name: Ethernet1/1, speed: 400G}]}\n"
        "links:\n  - {a: 'leaf3:Ethernet0', b: 'spine1:Ethernet1/9'}\n"
    )
    lost = lambda fab: sorted(d.message.split(" on ")[1] for d in fab.diagnostics if d.code == "RC150")  # noqa: E731
    others = lambda fab: sorted(str(d) for d in fab.diagnostics if d.code != "RC150")  # noqa: E731
    whole = load(p)
    assert lost(whole) == ["sonic leaf3, leaf9: not configured"]
    assert lost(load(p, frozenset({"leaf9"}))) == ["sonic leaf9: not configured"]
    scoped = load(p, frozenset({"spine1"}))
    assert lost(scoped) == []
    assert others(scoped) == others(whole) and others(whole)  # the rest of the intent is checked whole
