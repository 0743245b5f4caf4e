"""NX-OS LLDP neighbours: ``show lldp neighbors detail`` (CLI text), or a saved napalm
``get_lldp_neighbors_detail`` result.

Source: the CLI output recorded in napalm's test data (``test/nxos_ssh/mocked_data/
test_get_lldp_neighbors_detail/normal``, Apache-2.0; tests/fixtures/nxos/lldp/real/): one record per
neighbour, opened by ``Chassis id:``, with ``Port id:``, ``Local Port id:`` (abbreviated, ``Eth2/1``),
``Port Description:`` and ``System Name:`` lines; a system description may run over several lines and a
record's last line (``Vlan ID:``) may come after the blank line. napalm's nxos_ssh driver reads the same.
"""

from __future__ import annotations

import re

from roceconf.neighbors import LldpSpec, Neighbor, Parsed, with_napalm
from roceconf.platforms.nxos.syntax import canonical_name

SHOW = "show lldp neighbors detail"
_FIELD = re.compile(r"^(Chassis id|Port id|Local Port id|Port Description|System Name):\s?(.*)$")
#: what every listing has, even an empty one: the capability legend, a record or the total line
_TABLE = re.compile(r"^(Capability codes:|Chassis id:|Total entries displayed:)", re.M)
_KEYS = {"Chassis id": "chassis", "Port id": "port", "Local Port id": "local", "Port Description": "descr",
         "System Name": "name"}


def _value(text: str) -> str:
    text = text.strip()
    return "" if text == "not advertised" else text


def parse_cli(outputs: dict[str, str]) -> Parsed:
    if SHOW not in outputs:
        return [], [f"no output of {SHOW!r}"]
    text = outputs[SHOW]
    if not _TABLE.search(text):
        return [], [f"{SHOW}: not an NX-OS LLDP neighbour listing (no capability legend, record or total)"]
    records: list[dict[str, str]] = []
    for line in text.splitlines():
        m = _FIELD.match(line.strip())
        if not m:
            continue
        key = _KEYS[m.group(1)]
        if key == "chassis":
            records.append({})
        if records:
            records[-1][key] = _value(m.group(2))
    out, warnings = [], []
    for r in records:
        if not r.get("local"):
            warnings.append(f"{SHOW}: a neighbour (chassis {r.get('chassis', '?')}) has no local port")
            continue
        out.append(
            Neighbor(canonical_name(r["local"]), r.get("name", ""), r.get("port", ""), r.get("descr", ""),
                     r.get("chassis", ""))
        )
    return out, warnings


def _short(port: str) -> str:
    return "Eth" + port[len("Ethernet"):] if port.startswith("Ethernet") else port


def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
    if " ".join(command.split()) != SHOW:
        return None
    out = [
        "Capability codes:",
        "  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device",
        "  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other",
        "Device ID            Local Intf      Hold-time  Capability  Port ID  ",
        "",
    ]
    for n in neighbours:
        out += [
            f"Chassis id: {n.chassis_id or 'not advertised'}",
            f"Port id: {n.port_id}",
            f"Local Port id: {_short(n.local_port)}",
            f"Port Description: {n.port_descr or 'not advertised'}",
            f"System Name: {n.system_name or 'not advertised'}",
            "System Description: not advertised",
            "Time remaining: 104 seconds",
            "System Capabilities: B, R",
            "Enabled Capabilities: B, R",
            "Management Address: not advertised",
            "Vlan ID: not advertised",
            "",
            "",
        ]
    out.append(f"Total entries displayed: {len(neighbours)}")
    return "\n".join(out) + "\n"


LLDP = LldpSpec(
    commands=(SHOW,),
    parse=with_napalm(parse_cli),
    simulate=simulate,
    sources={SHOW: "Cisco NX-OS show lldp neighbors detail (napalm test/nxos_ssh/mocked_data, recorded)"},
    canonical=canonical_name,
    transport="cli",
)
