"""NVUE bill of materials from ``nv show system -o json`` (NVUE command reference, "nv show system":
``hostname``, ``product-name``, ``product-release``, ``platform``, ``build``)."""

from __future__ import annotations

import json
from typing import Any

METHOD = "cli"
COMMANDS = ["nv show system -o json"]


def parse(outputs: dict[str, str]) -> dict[str, Any]:
    try:
        data = json.loads(outputs.get("nv show system -o json", "") or "{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    return {
        "kind": "switch",
        "vendor": "NVIDIA",
        "model": data.get("platform") or None,
        "os": data.get("product-name") or "Cumulus Linux",
        "version": data.get("product-release") or None,
        "serial": None,
    }
