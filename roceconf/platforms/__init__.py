"""Platform registry. Each platform is one module in this package exposing ``PLATFORM``."""

from __future__ import annotations

import importlib
import re
from functools import cache

from roceconf import names
from roceconf.platforms.base import Capabilities, Fact, Platform

#: name -> module name. Switches first, then host NIC families.
SWITCHES = ("eos", "nxos", "nvue", "sonic", "junos")
NICS = ("connectx", "bnxt", "linux-dcb")
NAMES = SWITCHES + NICS

__all__ = ["NAMES", "NICS", "SWITCHES", "Capabilities", "Fact", "Platform", "all_platforms", "counters", "get", "interface_kind", "lldp"]


@cache
def get(name: str) -> Platform:
    if name not in NAMES:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f"roceconf.platforms.{name.replace('-', '_')}")
    return module.PLATFORM


def all_platforms() -> list[Platform]:
    return [get(n) for n in NAMES]


@cache
def counters(name: str):  # -> roceconf.counters.model.CounterSpec
    """The counter reader of a platform: ``roceconf/platforms/<name>/counters.py`` ``COUNTERS``."""
    if name not in NAMES:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f"roceconf.platforms.{name.replace('-', '_')}.counters")
    return module.COUNTERS


@cache
def lldp(name: str):  # -> roceconf.neighbors.LldpSpec
    """The LLDP reader of a platform: ``roceconf/platforms/<name>/lldp.py`` ``LLDP``."""
    if name not in NAMES:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(NAMES)}")
    module = importlib.import_module(f"roceconf.platforms.{name.replace('-', '_')}.lldp")
    return module.LLDP


def interface_kind(platform: str) -> names.NameKind:
    """The interface-name grammar of a platform (``Platform.interface_pattern``; hosts: Linux netdev names)."""
    plat = get(platform)
    if plat.interface_pattern is None:
        return names.NETDEV
    return names.NameKind(
        f"{plat.name} interface name",
        re.compile(plat.interface_pattern),
        names.NETDEV.max_len if plat.kind == "nic" else 64,
        f"use the platform's interface syntax ({plat.interface_example})",
    )
