"""Broken EOS lines, each paired with the AVD structured config that renders it: Arista's own schema
(pyavd ``validate_structured_config``, eos_cli_config_gen) refuses the value.

tests/conformance/test_eos_negatives.py requires pyavd to refuse every mutation (and to accept the unbroken
structured config); tests/lab/test_refuse.py requires the lab's simulated EOS switch to refuse every line
with "% Invalid input" and to leave its running configuration unchanged.
"""

from __future__ import annotations

from typing import Any

#: (why, the EOS mode the line is entered in, the line, the structured-config key path, the value)
NEGATIVES: list[tuple[str, str, str, tuple[Any, ...], Any]] = [
    (
        "mtu above the schema's 65535",
        "interface Ethernet1",
        "mtu 70000",
        ("ethernet_interfaces", 0, "mtu"),
        70000,
    ),
    (
        "flowcontrol received is desired | on | off",
        "interface Ethernet1",
        "flowcontrol receive maybe",
        ("ethernet_interfaces", 0, "flowcontrol", "received"),
        "maybe",
    ),
    (
        "qos trust is cos | dscp | disabled",
        "qos profile P",
        "qos trust ip",
        ("qos_profiles", 0, "trust"),
        "ip",
    ),
    (
        "a PFC priority is 0..7",
        "qos profile P",
        "priority-flow-control priority 8 no-drop",
        ("qos_profiles", 0, "priority_flow_control", "priorities", 0, "priority"),
        8,
    ),
    (
        "the watchdog action is drop | errdisable | notify-only",
        "",
        "priority-flow-control pause watchdog action shutdown",
        ("priority_flow_control", "watchdog", "action"),
        "shutdown",
    ),
    (
        "the watchdog timeout has at most two decimals (\\d+(\\.\\d{1,2})?)",
        "",
        "priority-flow-control pause watchdog default timeout 0.001",
        ("priority_flow_control", "watchdog", "timeout"),
        0.001,
    ),
]


def base() -> dict[str, Any]:
    """A structured config holding every key the mutations break (valid for AVD's schema)."""
    return {
        "hostname": "leaf2",
        "ethernet_interfaces": [
            {"name": "Ethernet1", "mtu": 9214, "flowcontrol": {"received": "off"}, "service_profile": "P"}
        ],
        "qos_profiles": [
            {
                "name": "P",
                "trust": "dscp",
                "priority_flow_control": {"enabled": True, "priorities": [{"priority": 3, "no_drop": True}]},
            }
        ],
        "priority_flow_control": {"watchdog": {"action": "drop", "timeout": 0.2}},
    }


def mutated(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    sc = base()
    cur: Any = sc
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return sc
