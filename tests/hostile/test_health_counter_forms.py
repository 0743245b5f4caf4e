"""Hostile counter answers in the forms the parsers detect (Junos XML / text, SONiC and NVUE tables, dcb
text), through ``roceconf health --counters``: bounded in time and memory, no traceback, and the device is
``unknown`` (exit 3) or read - never a crash, never a value from an answer it cannot trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile import harness

INTENT = """version: 1
fabric: hostile
qos:
  trust: dscp
  classes:
    - {{name: roce, role: roce, dscp: [26], priority: 3, lossless: true, ecn: {{min: 150KB, max: 1500KB, probability: 100, junos: {{min_percent: 55, max_percent: 90}}}}, scheduling: {{mode: dwrr, weight_percent: 50}}}}
    - {{name: default, dscp: [0], priority: 0, scheduling: {{mode: dwrr, weight_percent: 50}}}}
devices:
  - name: sw1
    platform: {plat}
    role: leaf
    interfaces:
      - {{name: "{port}", speed: 400G, role: fabric}}
"""
LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i else "&lol;" * 10}">' for i in range(10)
    )
    + "]><rpc-reply><interface-information><physical-interface><name>et-0/0/1</name>"
    "<ethernet-mac-pfc-statistics><mac-pfc-dot1p>3</mac-pfc-dot1p><input-mac-pfc-frames>&lol9;</input-mac-pfc-frames>"
    "</ethernet-mac-pfc-statistics></physical-interface></interface-information></rpc-reply>"
)
DEEP = "<a>" * 200_000 + "</a>" * 200_000
CASES = {
    "junos-xml-entity-expansion": ("junos", "et-0/0/1", "show interfaces extensive | display xml", LAUGHS),
    "junos-xml-deep": ("junos", "et-0/0/1", "show interfaces extensive | display xml", DEEP),
    "junos-text-huge-lines": (
        "junos",
        "et-0/0/1",
        "show interfaces extensive",
        "Physical interface: et-0/0/1, Enabled\n  MAC Priority Flow Control Statistics:\n"
        + "    Priority :  3 "
        + "9" * 200_000
        + " 1\n" * 2000,
    ),
    "sonic-table-one-giant-row": (
        "sonic",
        "Ethernet0",
        "show pfc counters",
        "  Port Rx    PFC0\n---------  ------\n" + "Ethernet0" + " " * 500_000 + "1\n",
    ),
    "nvue-table-many-columns": (
        "nvue",
        "swp1",
        "nv show interface swp1 counters qos pfc-stats",
        " ".join(f"c{i}" for i in range(20_000))
        + "\n"
        + " ".join("--" for _ in range(20_000))
        + "\n"
        + " ".join("1" for _ in range(20_000))
        + "\n",
    ),
    "dcb-text-endless-pairs": (
        "linux-dcb",
        "eth0",
        "dcb pfc show dev eth0 requests indications",
        "requests" + " 0:1" * 300_000 + "\nindications" + " 0:1" * 300_000 + "\n",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_counter_answer_is_bounded_and_unknown(case: str, tmp_path: Path) -> None:
    plat, port, cmd, text = CASES[case]
    (tmp_path / "intent.yml").write_text(INTENT.format(plat=plat, port=port))
    saved = tmp_path / "counters"
    saved.mkdir()
    samples = [{"taken_at": 1000.0 + 10 * i, "command_times": {}, "outputs": {cmd: text}} for i in range(2)]
    (saved / "sw1.counters.json").write_text(
        json.dumps({"format_version": 1, "device": "sw1", "platform": plat, "samples": samples})
    )
    o = harness.run(
        "health", str(tmp_path / "intent.yml"), "--counters", str(saved), "--format", "json", cwd=tmp_path
    )
    harness.check(o, bad_input=False, rc=3)
    report = json.loads(o.stdout)
    assert report["devices"][0]["status"] == "unknown"
