"""LLDP neighbours of nvue. Cumulus Linux / NVUE: the lldpd daemon answers ``sudo lldpctl -f json`` (NVIDIA Cumulus
Linux user guide, "Link Layer Discovery Protocol": "The lldpd daemon implements the IEEE802.1AB LLDP standard"):
the live read asks it.

NVUE's own view is understood too, as an alternative source (a saved LLDP file holding it, or the lab):
``nv show interface <port> lldp -o json``, one answer per port. Its layout is the NVUE command reference's
(``nv show interface <interface-id> lldp``: ``[neighbor]`` a collection keyed by the neighbour's id;
``nv show interface <interface-id> lldp neighbor <neighbor-id>``, Cumulus Linux 5.1+: ``chassis`` with
``chassis-id`` and ``system-name``, ``port`` with ``name``, ``description`` and ``type``), as JSON keys the
collection by id like every NVUE collection. NVIDIA's NVUE schema as PyPI ``nvueschema`` models the
configuration only: its ``/interface/{interface-id}/lldp`` has no ``neighbor`` (tests/test_nvue_link_counters.py
checks that it still has none). A device whose NVUE answers are not all understood is unknown (RC505), never a
port without a neighbour. The live read does not ask it: a platform's LLDP commands name no ports.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roceconf.counters.hostnic import complete
from roceconf.neighbors import LLDPCTL, LldpSpec, Neighbor, Parsed, load_json, parse_lldpctl, simulate_lldpctl

#: NVUE's own LLDP view of one port
NV_LLDP = re.compile(r"nv show interface (\S+) lldp -o json")
#: the keys of that answer (the command reference's example): one at least, or it is not that answer
_KEYS = frozenset({"neighbor", "dcbx-pfc-tlv", "dcbx-ets-config-tlv", "dcbx-ets-recomm-tlv", "application-tlv"})


def _text(v: Any) -> str:
    return v.strip() if isinstance(v, str) else ""


def parse_nv(port: str, text: str) -> Parsed:
    """``nv show interface <port> lldp -o json`` -> the port's neighbours (``neighbor``: id -> chassis, port)."""
    what = f"nv show interface {port} lldp -o json"
    data, warnings = load_json(text, what)
    if data is None:
        return [], warnings
    if not isinstance(data, dict) or not data.keys() & _KEYS:
        return [], [f"{what}: not NVUE's LLDP view of an interface"]
    nbrs = data.get("neighbor", {})
    if not isinstance(nbrs, dict):
        return [], [f"{what}: 'neighbor' is not an object"]
    out: list[Neighbor] = []
    for nid, body in nbrs.items():
        if not isinstance(body, dict):
            return [], [f"{what}: neighbour {str(nid)[:40]!r} is not an object"]
        ch = body.get("chassis") if isinstance(body.get("chassis"), dict) else {}
        p = body.get("port") if isinstance(body.get("port"), dict) else {}
        out.append(Neighbor(port, _text(ch.get("system-name")) or _text(nid), _text(p.get("name")),
                            _text(p.get("description")), _text(ch.get("chassis-id"))))
    return out, []


def parse(outputs: dict[str, str]) -> Parsed:
    if LLDPCTL in outputs:
        text = outputs[LLDPCTL]
        body = complete(text)
        return parse_lldpctl(text if body is None else body)
    nv = [(m.group(1), text) for cmd, text in outputs.items() if (m := NV_LLDP.fullmatch(" ".join(cmd.split())))]
    if not nv:
        return [], [f"no output of {LLDPCTL!r} nor of 'nv show interface <port> lldp -o json'"]
    out: list[Neighbor] = []
    for port, text in nv:
        rows, warnings = parse_nv(port, text)
        if warnings:  # one port not understood: the device's cabling is unknown, never that port's "no neighbour"
            return [], warnings
        out += rows
    return out, []


def simulate_nv(port: str, neighbours: list[Neighbor]) -> str:
    """``nv show interface <port> lldp -o json`` as the command reference lays it out (the lab serves it)."""
    nbrs = {n.system_name or n.chassis_id: {
        "chassis": {"chassis-id": n.chassis_id, "system-name": n.system_name},
        "port": {"description": n.port_descr, "name": n.port_id, "type": "ifname", "ttl": 120},
    } for n in neighbours if n.local_port == port}
    return json.dumps({"dcbx-ets-config-tlv": "off", "dcbx-ets-recomm-tlv": "off", "dcbx-pfc-tlv": "off",
                       "neighbor": nbrs}, indent=2) + "\n"


def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
    cmd = " ".join(command.split())
    if cmd == LLDPCTL:
        return simulate_lldpctl(neighbours)
    m = NV_LLDP.fullmatch(cmd)
    return simulate_nv(m.group(1), neighbours) if m else None


LLDP = LldpSpec(
    commands=(LLDPCTL,),
    parse=parse,
    simulate=simulate,
    sources={LLDPCTL: "lldpd: lldpctl(8) -f json; src/client/json_writer.c",
             "nv show interface <port> lldp -o json": "NVUE command reference, nv show interface <id> lldp and lldp "
             "neighbor <neighbor-id> (chassis: chassis-id, system-name; port: name, description, type)"},
    transport="cli",
)
