"""Platform registry. Each platform is one module in this package exposing ``PLATFORM``."""

from __future__ import annotations

import importlib
from functools import cache

from roceconf.platforms.base import Capabilities, Fact, Platform

#: name -> module name. Switches first, then host NIC families.
SWITCHES = ("eos", "nxos", "nvue", "sonic", "junos")
NICS = ("connectx", "bnxt", "linux-dcb")
NAMES = SWITCHES + NICS

__all__ = ["NAMES", "NICS", "SWITCHES", "Capabilities", "Fact", "Platform", "all_platforms", "counters", "get"]


@cache
def get(name: str) -> Platform:
    if name not in NAMES:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f"roceconf.platforms.{name.replace('-', '_')}")
    return module.PLATFORM


def all_platforms() -> list[Platform]:
    return [get(n) for n in NAMES]


@cache
def counters(name: str):  # -> roceconf.health.model.CounterSpec
    """The counter reader of a platform: ``roceconf/platforms/<name>/counters.py`` ``COUNTERS``."""
    if name not in NAMES:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f"roceconf.platforms.{name.replace('-', '_')}.counters")
    return module.COUNTERS
