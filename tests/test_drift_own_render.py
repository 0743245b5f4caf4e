"""A render audited against its own intent is in sync: the drift counterpart of parse(render(state)) == state.

`roceconf render` then `roceconf drift --configs` on that render, over generated valid intents with a device
entry of each of the 8 platforms (roceconf's defaults, stated values, overrides per role, profile and device,
device ranges), the shipped intents under inventories/ and the shortest Junos intent: every device is in sync
and drift exits 0. What a platform's config does not carry (reported at validation, RC150 / RC025) is not
audited there, at any depth (the ECN of a class included); everything the config does carry still is.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from ruamel.yaml import YAML

from roceconf import platforms
from roceconf.cli import main
from roceconf.intent import load
from roceconf.intent.desired import desired_states, expressible, shape
from roceconf.render import render_state
from roceconf.state import DeviceState
from tests.strategies import INTENT_DEVICES, valid_intent

ROOT = Path(__file__).parent.parent
#: the intents shipped under inventories/ (the lab, the example pod)
SHIPPED = sorted((ROOT / "inventories").glob("*/intent.yml"))
EXAMPLES = 20

#: the shortest Junos intent: default classes, no ECN stated (RC025: Junos keeps its own ECN)
JUNOS_DEFAULTS = """\
version: 1
fabric: jdef
mtu: {switch_port: 9214, host_nic: 9000}
ecmp: {fields: [src_ip, dst_ip, src_port, dst_port]}
devices:
  - {name: 'junos[001-002]', platform: junos, role: leaf, interfaces: [{name: 'et-0/0/[0-31]', speed: 400G}]}
"""


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: data}


def _audited_where_carried(state: DeviceState) -> None:
    """Not a vacuous green: every value of the desired state that its rendered config carries is audited
    (is in `expressible`, with the value the config carries)."""
    back = _leaves(platforms.get(state.platform).parse(render_state(state)).semantic())
    audited = _leaves(expressible(state).semantic())
    for path, value in _leaves(state.semantic()).items():
        if value is not None and back.get(path) is not None and path != "hostname":
            assert audited.get(path) == back[path], f"{state.hostname}: {path} is carried but not audited"


def _in_sync(intent: Path, tmp: Path) -> None:
    out = tmp / "rendered"
    runner = CliRunner()
    r = runner.invoke(main, ["render", str(intent), "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["drift", str(intent), "--configs", str(out), "--format", "json"])
    report = json.loads(r.stdout)
    drifted = {
        d["device"]: [(i["field"], i["severity"], i["expected"], i["actual"]) for i in d["items"]][:5]
        for d in report["devices"]
        if d["status"] != "in_sync"
    }
    assert not drifted, f"{intent.name}: roceconf's own render drifts: {drifted}"
    assert r.exit_code == 0, r.output
    fab = load(intent)
    assert report["summary"]["devices"] == report["summary"]["in_sync"] == len(fab.devices) > 0
    states = desired_states(fab)
    shapes = {shape(dev): name for name, dev in fab.devices.items()}  # one device of each shape
    for name in shapes.values():
        _audited_where_carried(states[name])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=valid_intent())
def test_a_render_of_a_generated_intent_is_in_sync_with_it(data: dict, tmp_path_factory) -> None:
    tmp = tmp_path_factory.mktemp("own")
    buf = io.StringIO()
    YAML(typ="safe", pure=True).dump(data, buf)
    path = tmp / "intent.yml"
    path.write_text(buf.getvalue())
    assert {d["platform"] for d in data["devices"]} == set(INTENT_DEVICES) == set(platforms.NAMES)
    _in_sync(path, tmp)  # render exits 0: the strategy draws valid intents only


@pytest.mark.parametrize("intent", SHIPPED, ids=lambda p: p.parent.name)
def test_a_render_of_a_shipped_intent_is_in_sync_with_it(intent: Path, tmp_path) -> None:
    _in_sync(intent, tmp_path)


def test_the_shipped_intents_are_found() -> None:
    assert {p.parent.name for p in SHIPPED} >= {"lab", "pod"}


def test_junos_with_default_classes_is_in_sync_and_keeps_its_own_ecn(tmp_path) -> None:
    """The issue's intent: roceconf's default ECN (bytes) has no Junos fill level, so Junos keeps its own ECN
    (RC025) and no ECN is audited there - 64 false criticals before."""
    path = tmp_path / "jdef.yml"
    path.write_text(JUNOS_DEFAULTS)
    fab = load(path)
    assert any(d.code == "RC025" and "ecn.3" in d.message for d in fab.diagnostics)
    _in_sync(path, tmp_path)
    for state in desired_states(fab).values():
        assert all(itf.ecn for itf in state.interfaces.values())  # rendered from roceconf's default ...
        exp = expressible(state)
        assert not any(itf.ecn for itf in exp.interfaces.values())  # ... that the config does not carry
        assert all(itf.pfc.no_drop == [3] for itf in exp.interfaces.values())  # the rest is audited
