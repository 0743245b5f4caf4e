"""Fabric-wide checks: the lossless path end to end, the PFC headroom budget, hash polarization.

Importing this package registers the RC2xx rules in ``roceconf.intent.rules.RULES``.
"""

from __future__ import annotations

from roceconf.fabric.checks import CheckResult, run_checks
from roceconf.fabric.headroom import DeviceHeadroom, fabric_headroom, headroom
from roceconf.fabric.paths import PathGraph, build
from roceconf.fabric.states import StateSet, desired, from_configs, from_inventory

__all__ = [
    "CheckResult",
    "DeviceHeadroom",
    "PathGraph",
    "StateSet",
    "build",
    "desired",
    "fabric_headroom",
    "from_configs",
    "from_inventory",
    "headroom",
    "run_checks",
]
