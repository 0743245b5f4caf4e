"""Junos LLDP neighbours: ``show lldp neighbors | display xml`` over SSH, or a saved napalm
``get_lldp_neighbors_detail`` result (napalm's Junos driver reads the same RPC over NETCONF).

Sources: napalm's test data ``test/junos/mocked_data/test_get_lldp_neighbors_detail/qfx5110`` (Apache-2.0;
tests/fixtures/junos/lldp/real/): the RPC reply ``get-lldp-neighbors-information`` recorded from a QFX5110
(``lldp-neighbors-information`` / ``lldp-neighbor-information`` with ``lldp-local-port-id``,
``lldp-remote-chassis-id``, ``lldp-remote-port-description``, ``lldp-remote-system-name``; the
``lldp-remote-port-id`` element appears in the EX/MX recordings of the same directory) and napalm's result
for it. ``| display xml`` prints that RPC reply (Junos "display xml" pipe). Junos may send the SNMP index
as port ID and the interface name as port description (``"remote_port": "549"``).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from roceconf.neighbors import NAPALM, LldpSpec, Neighbor, Parsed, parse_napalm
from roceconf.platforms.junos.counters import _local, _xml

SHOW = "show lldp neighbors | display xml"
_FIELDS = {
    "lldp-local-port-id": "local",
    "lldp-remote-system-name": "name",
    "lldp-remote-port-id": "port",
    "lldp-remote-port-description": "descr",
    "lldp-remote-chassis-id": "chassis",
}


def parse_xml(text: str) -> Parsed:
    root = _xml(text)
    if root is None:
        return [], [f"{SHOW}: not XML (or XML with a DOCTYPE)"]
    if not any(_local(el.tag) == "lldp-neighbors-information" for el in root.iter()):
        return [], [f"{SHOW}: no lldp-neighbors-information element"]
    out: list[Neighbor] = []
    warnings: list[str] = []
    for el in root.iter():
        if _local(el.tag) != "lldp-neighbor-information":
            continue
        f = {_FIELDS[_local(c.tag)]: (c.text or "").strip() for c in el if _local(c.tag) in _FIELDS}
        if not f.get("local"):
            warnings.append(f"{SHOW}: a neighbour without lldp-local-port-id")
            continue
        out.append(Neighbor(f["local"], f.get("name", ""), f.get("port", ""), f.get("descr", ""), f.get("chassis", "")))
    return out, warnings


def parse(outputs: dict[str, str]) -> Parsed:
    if NAPALM in outputs:
        return parse_napalm(outputs[NAPALM])
    if SHOW in outputs:
        return parse_xml(outputs[SHOW])
    return [], [f"no output of {SHOW!r}"]


def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
    if " ".join(command.split()) != SHOW:
        return None
    rows = []
    for n in neighbours:
        rows.append(
            "    <lldp-neighbor-information>\n"
            f"        <lldp-local-port-id>{escape(n.local_port)}</lldp-local-port-id>\n"
            "        <lldp-local-parent-interface-name>-</lldp-local-parent-interface-name>\n"
            "        <lldp-remote-chassis-id-subtype>Mac address</lldp-remote-chassis-id-subtype>\n"
            f"        <lldp-remote-chassis-id>{escape(n.chassis_id)}</lldp-remote-chassis-id>\n"
            f"        <lldp-remote-port-id>{escape(n.port_id)}</lldp-remote-port-id>\n"
            f"        <lldp-remote-port-description>{escape(n.port_descr)}</lldp-remote-port-description>\n"
            f"        <lldp-remote-system-name>{escape(n.system_name)}</lldp-remote-system-name>\n"
            "    </lldp-neighbor-information>\n"
        )
    return '<rpc-reply xmlns:junos="http://xml.juniper.net/junos/22.4R1/junos">\n<lldp-neighbors-information ' \
           'junos:style="brief">\n' + "".join(rows) + "</lldp-neighbors-information>\n</rpc-reply>\n"


LLDP = LldpSpec(
    commands=(SHOW,),
    parse=parse,
    simulate=simulate,
    sources={
        SHOW: "Junos get-lldp-neighbors-information RPC reply (napalm test/junos/mocked_data, recorded)",
        NAPALM: "napalm junos driver get_lldp_neighbors_detail (test/junos/mocked_data, recorded)",
    },
)
