"""NX-OS and NVUE have no public machine-readable grammar: every distinct line shape the lab and pod renders
produce (and the platform tests' per-knob states) must be listed in docs/conformance.md with its status
(confirmed / safest documented form / unconfirmed) and its sources. A new template line without a status
fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from roceconf.compile import load_valid, render_fabric
from roceconf.render import render_state
from roceconf.state import DeviceState, Ecn, Pfc, Sched
from tests.strategies import lab_port

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "conformance.md"
INTENTS = [ROOT / "inventories" / "lab" / "intent.yml", ROOT / "inventories" / "pod" / "intent.yml"]
STATUSES = ("confirmed", "safest documented form", "unconfirmed")
KINDS = ("mapping", "pfc", "congestion-control", "egress-scheduler", "link-pause")

_IFACE = re.compile(r"^(Ethernet\d+(/\d+)*(-\d+)?(, )?)+$|^'?(swp\d+(s\d+)?(-\d+)?,?)+'?$")


def nxos_shape(line: str) -> str:
    text = line.strip()
    if text.startswith("interface "):
        return "interface <interfaces>"
    if text.startswith("hostname "):
        return "hostname <name>"
    text = re.sub(r"\bmatch (dscp|cos) \S+", r"match \1 <values>", text)
    text = re.sub(r"\b\d+\b", "<n>", text)
    return re.sub(r"(?<=[A-Za-z_])\d+\b", "<n>", text)  # ROCECONF_TC3, c-8q-nq3 (not the '8q')


def _nvue_paths(node: object, path: list[str]) -> list[str]:
    if isinstance(node, dict):
        if not node:
            return [" ".join(path)]
        out = []
        for key, value in node.items():
            k = str(key)
            if path[-1:] == ["interface"]:
                k = "<interfaces>"
            elif path[2:3] == ["qos"] and len(path) == 4 and path[3] in KINDS and k != "default-global":
                k = "<profile>"
            elif path[-1:] == ["hostname"]:
                k = "<name>"
            elif re.fullmatch(r"\d+", k):
                k = "<n>"
            out += _nvue_paths(value, path + [k])
        return out
    value = str(node)
    if path[-1:] == ["hostname"]:
        value = "<name>"
    elif path[-1:] == ["profile"]:
        value = "<profile>"
    value = re.sub(r"^\d+$", "<n>", value)
    return [" ".join(path + [value])]


def nvue_shapes(text: str) -> set[str]:
    doc = YAML(typ="safe").load(text)
    out: set[str] = set()
    for item in doc:
        for path in _nvue_paths(item.get("set") or {}, ["nv", "set"]):
            out.add(path)
    return out


def _extra_states() -> list[DeviceState]:
    """The per-knob states of the platform tests: PCP trust, link pause, per-port profiles, RoCE overrides."""
    port = lab_port(mtu=9216, link_pause=None)
    other = port.model_copy(deep=True)
    other.ecn["3"] = Ecn(min_bytes=200000, max_bytes=1500000, probability=50)
    other.trust = "pcp"
    other.link_pause = True
    other.pfc = Pfc(enabled=True, no_drop=[3, 4])
    other.scheduling["4"] = Sched(mode="dwrr", bandwidth_percent=10)
    out = []
    for plat, names in (("nxos", ("Ethernet1/1", "Ethernet1/2")), ("nvue", ("swp1", "swp2"))):
        out.append(
            DeviceState(
                platform=plat,
                dscp_to_tc={"26": 3, "34": 4, "48": 6},
                interfaces={names[0]: port.model_copy(deep=True), names[1]: other.model_copy(deep=True)},
            )
        )
        s = DeviceState(platform=plat, dscp_to_tc={"26": 3, "48": 6}, interfaces={names[0]: other.model_copy(deep=True)})
        if plat == "nvue":  # adaptive routing (ecmp.dynamic), in both release spellings
            s.ecmp.dynamic = "adaptive-routing"
        out.append(s)
        old = s.model_copy(deep=True)
        old.hints["os_version"] = "5.14"
        old.ecmp.fields = ["src_ip", "src_port"]
        out.append(old)
    return out


def rendered_shapes() -> dict[str, set[str]]:
    shapes: dict[str, set[str]] = {"nxos": set(), "nvue": set()}
    texts: list[tuple[str, str]] = []
    for intent in INTENTS:
        fab = load_valid(intent)
        for name, text in render_fabric(fab).items():
            plat = fab.devices[name.rsplit(".", 1)[0]].platform
            texts.append((plat, text))
    texts += [(s.platform, render_state(s)) for s in _extra_states()]
    for plat, text in texts:
        if plat == "nxos":
            shapes["nxos"] |= {nxos_shape(ln) for ln in text.splitlines() if ln.strip()}
        elif plat == "nvue":
            shapes["nvue"] |= nvue_shapes(text)
    return shapes


def documented(section: str) -> dict[str, str]:
    """`shape` -> status from the table rows of one '## <section>' of docs/conformance.md."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"docs/conformance.md has no '## {section}' section"
    out = {}
    for row in re.findall(r"^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|", m.group(1), re.M):
        shape, status, sources = row
        assert status in STATUSES, f"{shape}: status {status!r} is not one of {STATUSES}"
        assert sources.strip(), f"{shape}: no source"
        out[shape] = status
    return out


@pytest.mark.parametrize(("platform", "section"), [("nxos", "NX-OS"), ("nvue", "NVUE")])
def test_every_rendered_line_shape_has_a_conformance_status(platform: str, section: str) -> None:
    table = documented(section)
    missing = sorted(rendered_shapes()[platform] - set(table))
    assert not missing, f"rendered {section} lines without a status in docs/conformance.md: {missing}"


def test_the_shapes_are_real_lines() -> None:
    """The normalisation keeps keywords: a changed keyword is a new shape (e.g. on -> enabled)."""
    assert nxos_shape("  pause pfc-cos 3") == "pause pfc-cos <n>"
    assert nxos_shape("interface Ethernet1/1-4") == "interface <interfaces>"
    shapes = nvue_shapes("- set:\n    system:\n      forwarding:\n        ecmp-hash:\n          source-ip: 'on'\n")
    assert shapes == {"nv set system forwarding ecmp-hash source-ip on"}
