"""The rendered configs the conformance tests check: the lab intent, the pod intent and every test intent
that validates (tests/intents/plan, tests/intents/fabric), per platform, as (label, desired state)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

from roceconf.intent import load
from roceconf.intent.desired import desired_states
from roceconf.state import DeviceState

ROOT = Path(__file__).resolve().parents[2]


def intent_files() -> list[Path]:
    return [
        ROOT / "inventories" / "lab" / "intent.yml",
        ROOT / "inventories" / "pod" / "intent.yml",
        *sorted((ROOT / "tests" / "intents" / "plan").glob("*.yml")),
        *sorted((ROOT / "tests" / "intents" / "fabric").glob("*.yml")),
    ]


@cache
def _states(path: Path) -> tuple[tuple[str, DeviceState], ...]:
    fab = load(path)
    if any(d.severity == "error" for d in fab.diagnostics):
        return ()
    return tuple(desired_states(fab).items())


def intent_states(platform: str) -> Iterator[tuple[str, DeviceState]]:
    """(label, desired state) of every device of ``platform`` in the intents above."""
    for path in intent_files():
        for name, st in _states(path):
            if st.platform == platform:
                yield f"{path.relative_to(ROOT)}:{name}", st
