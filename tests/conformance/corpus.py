"""What the conformance tests render: the desired states of every intent the project ships or tests with."""

from __future__ import annotations

import functools
from pathlib import Path

from roceconf.intent import validate
from roceconf.intent.desired import desired_states
from roceconf.state import DeviceState

ROOT = Path(__file__).resolve().parents[2]
#: the xdist group of the modules that read the corpus (one worker validates it once, see _all_states)
CORPUS_GROUP = "corpus"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def intent_files() -> list[Path]:
    """The lab and pod intents and every test intent (tests/intents/**) that validates without errors."""
    files = [ROOT / "inventories" / "lab" / "intent.yml", ROOT / "inventories" / "pod" / "intent.yml"]
    files += sorted((ROOT / "tests" / "intents").rglob("*.yml"))
    return files


@functools.cache
def _all_states() -> tuple[tuple[str, DeviceState], ...]:
    """(label, desired state) of every device in every valid intent: validated once per test process (the
    ~70 intents took seconds per platform asked for)."""
    out = []
    for f in intent_files():
        fab, diags = validate(f)
        if fab is None or any(d.severity == "error" for d in diags):
            continue
        for name, st in desired_states(fab).items():
            out.append((f"{f.relative_to(ROOT)}:{name}", st))
    return tuple(out)


def states(platform: str) -> list[tuple[str, DeviceState]]:
    """(label, desired state) of every device of `platform` in every valid intent (copies: a test may
    change its states)."""
    return [(label, st.model_copy(deep=True)) for label, st in _all_states() if st.platform == platform]


def negative_lines(name: str) -> list[tuple[str, str]]:
    """(why, line) of a negative fixture: each line preceded by a '# why' comment."""
    out, why = [], ""
    for raw in (FIXTURES / name).read_text().splitlines():
        if raw.startswith("# "):
            why = raw[2:]
        elif raw.strip():
            out.append((why, raw.strip()))
    return out
