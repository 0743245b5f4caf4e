"""SONiC bill of materials from ``show version`` (sonic-utilities ``show/main.py`` ``version``: ``SONiC Software
Version:``, ``Platform:``, ``HwSKU:``, ``ASIC:``, ``Serial Number:``)."""

from __future__ import annotations

import re
from typing import Any

METHOD = "cli"
COMMANDS = ["show version"]


def _field(text: str, name: str) -> str | None:
    m = re.search(rf"^{re.escape(name)}:[ \t]*(.*?)[ \t]*$", text, re.M)
    return m.group(1) if m and m.group(1) not in ("", "N/A") else None


def parse(outputs: dict[str, str]) -> dict[str, Any]:
    text = outputs.get("show version", "")
    return {
        "kind": "switch",
        "vendor": "SONiC",
        "model": _field(text, "HwSKU") or _field(text, "Platform"),
        "os": "SONiC",
        "version": _field(text, "SONiC Software Version"),
        "serial": _field(text, "Serial Number"),
        "asic": _field(text, "ASIC"),
    }
