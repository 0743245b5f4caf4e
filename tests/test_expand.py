"""`roceconf expand` prints a valid intent: validating it reports what validating the source reports, and it
compiles to the same desired states and the same rendered files (issue 13, item 12)."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.compile import expanded_text, load_valid, render_fabric
from roceconf.diagnostics import DiagnosticError
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_states

ROOT = Path(__file__).resolve().parents[1]


def _valid_intents() -> list[Path]:
    """The lab and pod intents and every example intent of the test suite that validates."""
    out = []
    for p in [
        *sorted((ROOT / "inventories").glob("*/intent.yml")),
        *sorted((ROOT / "tests" / "intents").glob("*/*.yml")),
    ]:
        try:
            load_valid(p)
        except DiagnosticError:
            continue
        out.append(p)
    return out


INTENTS = _valid_intents()


def _findings(fab: Fabric) -> collections.Counter:
    """Errors and warnings, positions aside."""
    return collections.Counter(
        (d.severity, d.code, d.message, d.hint) for d in fab.diagnostics if d.severity != "info"
    )


def _notes(fab: Fabric) -> set[tuple[str, str]]:
    """Notes (info) per device: a note about the defaults of a range entry names all its devices at once,
    the expanded intent lists them device by device."""
    out = set()
    for d in fab.diagnostics:
        if d.severity == "info":
            for name in fab.devices:
                if re.search(rf"\b{re.escape(name)}\b", d.message):
                    out.add((d.code, name))
    return out


def test_the_examples_cover_the_lab_pod_and_test_intents() -> None:
    names = {str(p.relative_to(ROOT)) for p in INTENTS}
    assert {"inventories/lab/intent.yml", "inventories/pod/intent.yml"} <= names
    assert len(names) >= 20


def _cases() -> list:
    """Every intent in YAML; JSON for the small ones too (the pod's 328 devices are one case: listed one by
    one, each device is checked and rendered on its own, a few seconds)."""
    out = []
    for p in INTENTS:
        ident = str(p.relative_to(ROOT))
        out.append(pytest.param(p, "yaml", id=f"{ident}-yaml"))
        if "pod" not in ident:
            out.append(pytest.param(p, "json", id=f"{ident}-json"))
    return out


@pytest.mark.parametrize(("intent", "fmt"), _cases())
def test_expand_output_is_an_intent_that_validates_the_same(tmp_path: Path, intent: Path, fmt: str) -> None:
    """`roceconf expand X > y && roceconf validate y` exits 0; y has the same devices, links, errors and
    warnings as X and compiles to the same desired states."""
    runner = CliRunner()
    res = runner.invoke(main, ["expand", str(intent), "--format", fmt])
    assert res.exit_code == 0, res.output
    out = tmp_path / f"expanded.{'yml' if fmt == 'yaml' else 'json'}"
    out.write_text(res.stdout, encoding="utf-8")
    check = runner.invoke(main, ["validate", str(out)])
    assert check.exit_code == 0, check.output

    src, exp = load_valid(intent), load_valid(out)
    assert list(exp.devices) == list(src.devices)
    assert [(lk.a, lk.b, lk.cable_m) for lk in exp.links] == [(lk.a, lk.b, lk.cable_m) for lk in src.links]
    assert _findings(exp) == _findings(src)
    assert _notes(exp) == _notes(src)
    want, got = desired_states(src), desired_states(exp)
    assert {n: s.semantic() for n, s in got.items()} == {n: s.semantic() for n, s in want.items()}


def test_expand_lists_every_device_and_link_one_by_one() -> None:
    """No range or pattern is left: every device, interface and link is written out."""
    pod = ROOT / "inventories" / "pod" / "intent.yml"
    src = load_valid(pod)
    data = json.loads(expanded_text(src, "json"))
    assert [d["name"] for d in data["devices"]] == list(src.devices)
    assert sum(len(d["interfaces"]) for d in data["devices"]) == sum(
        len(d.ports) for d in src.devices.values()
    )
    assert len(data["links"]) == len(src.links)
    assert all(set(lk) == {"a", "b", "cable"} for lk in data["links"])
    for d in data["devices"]:
        assert "[" not in d["name"]
        assert all("[" not in i["name"] and "-" not in i["name"].rsplit("/", 1)[-1] for i in d["interfaces"])


def test_expand_yaml_shows_effective_settings_as_comments_only() -> None:
    lab = ROOT / "inventories" / "lab" / "intent.yml"
    text = expanded_text(load_valid(lab), "yaml")
    tail = text.split("# ---- effective settings", 1)[1].split("\n", 1)[1]
    assert all(ln.startswith("#") for ln in tail.splitlines() if ln.strip())
    # every default shown there, e.g. the PFC watchdog action and the RoCE path MTU the lab never states
    assert "#     action: drop" in tail and "#     roce_path: 4096" in tail


OVERRIDES = """version: 1
fabric: ov
profiles:
  deep: {mtu: {switch_port: 9214}}
qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {min: 150KB, max: 1500KB, junos: {min_percent: 55, max_percent: 90}},
       scheduling: {mode: dwrr, weight_percent: 50}}
    - {name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {mode: strict}}
    - {name: default, dscp: [0], priority: 0, scheduling: {mode: dwrr, weight_percent: 50}}
devices:
  - name: leaf[1-3]
    platform: eos
    role: leaf
    profiles: [deep]
    interfaces: [{name: "Ethernet1/1-2", speed: 400G, role: host}]
    overrides: {ecmp: {seed: 7}, mtu: {switch_port: 9100}}
  - name: leaf9
    platform: eos
    role: leaf
    profiles: [deep]
    interfaces: [{name: "Ethernet1/1", speed: 400G, role: host}]
"""


def test_device_overrides_of_a_range_stay_one_setting(tmp_path: Path) -> None:
    """An entry's `overrides` become one profile applied last: the same precedence (overrides come after
    every profile), and the devices of a range keep one source position, so a message naming leaf1-3 stays
    one message."""
    intent = tmp_path / "i.yml"
    intent.write_text(OVERRIDES, encoding="utf-8")
    src = load_valid(intent)
    seed = [d for d in src.diagnostics if d.message.startswith("ecmp.seed 7 ")]
    assert len(seed) == 1 and "leaf1, leaf2, leaf3" in seed[0].message
    out = tmp_path / "expanded.yml"
    out.write_text(expanded_text(src, "yaml"), encoding="utf-8")
    exp = load_valid(out)
    assert _findings(exp) == _findings(src)
    assert _notes(exp) == _notes(src) == {("RC025", n) for n in ("leaf1", "leaf2", "leaf3", "leaf9")}
    assert {n: s.semantic() for n, s in desired_states(exp).items()} == {
        n: s.semantic() for n, s in desired_states(src).items()
    }
    assert render_fabric(exp) == render_fabric(src)
    assert {n: s.mtu.switch_port for n, s in ((n, d.settings) for n, d in exp.devices.items())} == {
        "leaf1": 9100,
        "leaf2": 9100,
        "leaf3": 9100,
        "leaf9": 9214,
    }
    data = json.loads(expanded_text(src, "json"))
    assert [d["profiles"] for d in data["devices"]] == [["deep", "devices-0-overrides"]] * 3 + [["deep"]]
    assert data["profiles"]["devices-0-overrides"] == {"ecmp": {"seed": 7}, "mtu": {"switch_port": 9100}}
