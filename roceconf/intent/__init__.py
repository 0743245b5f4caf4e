"""Intent loading and validation: ``load(path)`` gives a Fabric with every diagnostic attached."""

from __future__ import annotations

from pathlib import Path

from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent.checks import run_rules
from roceconf.intent.fabric import DeviceSpec, Fabric, load_fabric, load_fabric_text
from roceconf.intent.rules import PER_VALUE_RULES

__all__ = ["DeviceSpec", "Diagnostic", "DiagnosticError", "Fabric", "load", "load_text", "validate"]


def _finish(fab: Fabric) -> Fabric:
    run_rules(fab)
    seen: set[tuple] = set()
    unique = []
    for d in sorted(fab.diagnostics):
        # rules that report several values at one position (RC150: one diagnostic per lost value) keep
        # each message; others report a position once
        k = (d.file, d.line, d.col, d.code, d.message if d.code in PER_VALUE_RULES else "")
        if k not in seen:
            seen.add(k)
            unique.append(d)
    fab.diagnostics = unique
    return fab


def load(path: str | Path, scope: frozenset[str] | None = None) -> Fabric:
    """Load, expand and check an intent. Raises DiagnosticError when the file cannot be read or fails the schema;
    semantic findings are in ``fabric.diagnostics``. ``scope``: the devices whose rendered config is checked
    for lost values (RC150, a render and parse-back per device shape); every other check covers the whole
    intent. A per-device Ansible task (the drift module, one run per host) takes its own device only, after the
    play has validated the whole intent once on the controller: a fleet is then O(N), not O(N^2)."""
    fab = load_fabric(path)
    fab.scope = scope
    return _finish(fab)


def load_text(text: str, file: str = "<intent>") -> Fabric:
    return _finish(load_fabric_text(text, file))


def validate(path: str | Path) -> tuple[Fabric | None, list[Diagnostic]]:
    try:
        fab = load(path)
    except DiagnosticError as e:
        return None, e.diagnostics
    return fab, fab.diagnostics
