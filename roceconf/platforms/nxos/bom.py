"""NX-OS bill of materials from ``show version`` (Cisco Nexus 9000 NX-OS Fundamentals Configuration Guide,
"show version": ``NXOS: version 10.3(4a)``, ``cisco Nexus9000 C9332D-GX2B Chassis``, ``Processor Board ID``)."""

from __future__ import annotations

import re
from typing import Any

METHOD = "cli"
COMMANDS = ["show version"]


def parse(outputs: dict[str, str]) -> dict[str, Any]:
    text = outputs.get("show version", "")
    ver = re.search(r"^\s*NXOS:\s+version\s+(\S+)", text, re.M) or re.search(
        r"^\s*system:\s+version\s+(\S+)", text, re.M
    )
    model = re.search(r"^\s*cisco\s+(.+?)\s+(?:chassis|\(\"Supervisor)", text, re.M | re.I)
    serial = re.search(r"Processor Board ID\s+(\S+)", text)
    return {
        "kind": "switch",
        "vendor": "Cisco",
        "model": model.group(1).strip() if model else None,
        "os": "NX-OS",
        "version": ver.group(1) if ver else None,
        "serial": serial.group(1) if serial else None,
    }
