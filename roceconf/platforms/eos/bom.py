"""EOS bill of materials: napalm's ``get_facts()`` over eAPI (it runs ``show version``, ``show hostname``,
``show interfaces``; napalm/eos/eos.py), or the JSON of ``show version`` (Arista eAPI: ``modelName``,
``version``, ``serialNumber``)."""

from __future__ import annotations

import json
import re
from typing import Any

#: how roceconf.acceptance.bom reads this platform
METHOD = "napalm-facts"
COMMANDS = ["show version"]


def parse_facts(facts: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "switch",
        "vendor": facts.get("vendor") or "Arista",
        "model": facts.get("model") or None,
        "os": "EOS",
        "version": facts.get("os_version") or None,
        "serial": facts.get("serial_number") or None,
    }


def parse(outputs: dict[str, str]) -> dict[str, Any]:
    """From a saved ``show version`` answer: eAPI JSON, or the CLI text (``Arista <model>``, ``Serial number:``,
    ``Software image version:``)."""
    text = outputs.get("show version", "")
    try:
        data = json.loads(text or "{}")
    except ValueError:
        model = re.search(r"^Arista\s+(\S+)", text, re.M)
        serial = re.search(r"^Serial number:[ \t]*(\S+)", text, re.M)
        ver = re.search(r"^Software image version:[ \t]*(\S+)", text, re.M)
        data = {
            "modelName": model.group(1) if model else None,
            "serialNumber": serial.group(1) if serial else None,
            "version": ver.group(1) if ver else None,
        }
    if not isinstance(data, dict):
        data = {}
    return parse_facts(
        {"model": data.get("modelName"), "os_version": data.get("version"), "serial_number": data.get("serialNumber")}
    )
