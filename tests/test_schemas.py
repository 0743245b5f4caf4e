"""Generated artefacts are committed and current; machine outputs match their published schemas."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from roceconf.cli import main
from roceconf.docgen import intent_markdown, rules_markdown, schemas

ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("name", sorted(schemas()))
def test_committed_schema_equals_generated(name: str, tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["schema", "-o", str(tmp_path)])
    assert res.exit_code == 0
    generated = (tmp_path / name).read_text()
    committed = ROOT / "schemas" / name
    assert committed.exists(), f"schemas/{name} is not committed; run `roceconf schema -o schemas`"
    assert committed.read_text() == generated, f"schemas/{name} is stale; run `roceconf schema -o schemas`"


def test_generated_docs_are_current() -> None:
    assert (ROOT / "docs" / "intent.md").read_text() == intent_markdown(), "run `roceconf docs`"
    assert (ROOT / "docs" / "rules.md").read_text() == rules_markdown(), "run `roceconf docs`"


def test_examples_validate_against_the_intent_schema() -> None:
    from ruamel.yaml import YAML

    schema = json.loads((ROOT / "schemas" / "intent.schema.json").read_text())
    for p in (ROOT / "inventories" / "lab" / "intent.yml", ROOT / "inventories" / "pod" / "intent.yml"):
        text = p.read_text()
        assert text.startswith("# yaml-language-server: $schema=../../schemas/intent.schema.json")
        jsonschema.validate(YAML(typ="safe").load(text), schema)


def test_parse_output_matches_the_device_state_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "device-state.schema.json").read_text())
    res = CliRunner().invoke(main, ["parse", "--platform", "eos", str(ROOT / "tests" / "golden" / "leaf1.cfg")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    jsonschema.validate(data, schema)
    for key in ("platform", "hostname", "dscp_to_tc", "interfaces", "pfc_watchdog", "ecmp", "warnings"):
        assert key in data
    port = data["interfaces"]["Ethernet1"]
    assert set(port["pfc"]) >= {"enabled", "no_drop"} and port["pfc"]["no_drop"] == [3]
    assert port["ecn"]["3"] == {
        "min_bytes": 150000,
        "max_bytes": 1500000,
        "probability": 100,
        "min_percent": None,
        "max_percent": None,
    }
    assert data["dscp_to_tc"]["26"] == 3
    assert set(data["ecmp"]) >= {"fields", "seed"}


def test_drift_json_matches_its_schema(tmp_path: Path) -> None:
    schema = json.loads((ROOT / "schemas" / "drift-report.schema.json").read_text())
    res = CliRunner().invoke(main, ["drift", str(ROOT / "inventories" / "lab" / "intent.yml"), "--configs",
                                    str(ROOT / "tests" / "golden"), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    jsonschema.validate(data, schema)
    assert data["summary"]["in_sync"] == data["summary"]["devices"] == 10
