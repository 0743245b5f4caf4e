"""Junos bill of materials from ``show version`` (Juniper CLI reference, "show version": ``Hostname:``,
``Model:``, ``Junos: 23.4R1.10``)."""

from __future__ import annotations

import re
from typing import Any

METHOD = "cli"
COMMANDS = ["show version"]


def parse(outputs: dict[str, str]) -> dict[str, Any]:
    text = outputs.get("show version", "")
    model = re.search(r"^Model:[ \t]*(\S+)", text, re.M)
    ver = re.search(r"^Junos:[ \t]*(\S+)", text, re.M) or re.search(r"JUNOS .*?\[(\S+)\]", text)
    serial = re.search(r"^Serial Number:[ \t]*(\S+)", text, re.M)
    return {
        "kind": "switch",
        "vendor": "Juniper",
        "model": model.group(1) if model else None,
        "os": "Junos",
        "version": ver.group(1) if ver else None,
        "serial": serial.group(1) if serial else None,
    }
