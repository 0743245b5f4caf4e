"""What the conformance tests render: the desired states of every intent the project ships or tests with."""

from __future__ import annotations

from pathlib import Path

from roceconf.intent import validate
from roceconf.intent.desired import desired_states
from roceconf.state import DeviceState

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def intent_files() -> list[Path]:
    """The lab and pod intents and every test intent (tests/intents/**) that validates without errors."""
    files = [ROOT / "inventories" / "lab" / "intent.yml", ROOT / "inventories" / "pod" / "intent.yml"]
    files += sorted((ROOT / "tests" / "intents").rglob("*.yml"))
    return files


def states(platform: str) -> list[tuple[str, DeviceState]]:
    """(label, desired state) of every device of `platform` in every valid intent."""
    out = []
    for f in intent_files():
        fab, diags = validate(f)
        if fab is None or any(d.severity == "error" for d in diags):
            continue
        for name, st in desired_states(fab).items():
            if st.platform == platform:
                out.append((f"{f.relative_to(ROOT)}:{name}", st))
    return out


def negative_lines(name: str) -> list[tuple[str, str]]:
    """(why, line) of a negative fixture: each line preceded by a '# why' comment."""
    out, why = [], ""
    for raw in (FIXTURES / name).read_text().splitlines():
        if raw.startswith("# "):
            why = raw[2:]
        elif raw.strip():
            out.append((why, raw.strip()))
    return out
