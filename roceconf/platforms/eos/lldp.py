"""EOS LLDP neighbours: ``show lldp neighbors detail`` over eAPI (JSON), or a saved napalm
``get_lldp_neighbors_detail`` result.

Source: the eAPI JSON of ``show lldp neighbors detail`` as recorded in napalm's test data
(``test/eos/mocked_data/test_get_lldp_neighbors_detail/normal``, Apache-2.0; tests/fixtures/eos/lldp/real/):
``lldpNeighbors`` -> local port -> ``lldpNeighborInfo`` list, each with ``systemName``, ``chassisId`` and
``neighborInterfaceInfo`` (``interfaceId`` - quoted on some releases, ``"597"`` -, ``interfaceId_v2`` where
the release has it, ``interfaceDescription``). napalm's EOS driver reads the same fields.
"""

from __future__ import annotations

import json
from typing import Any

from roceconf.neighbors import LldpSpec, Neighbor, Parsed, load_json, with_napalm
from roceconf.platforms.eos.parser import _canonical

SHOW = "show lldp neighbors detail"


def _s(value: Any) -> str:
    return value.strip().strip('"') if isinstance(value, str) else ""


def parse_eapi(outputs: dict[str, str]) -> Parsed:
    if SHOW not in outputs:
        return [], [f"no output of {SHOW!r}"]
    data, warnings = load_json(outputs[SHOW], SHOW)
    table = data.get("lldpNeighbors") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return [], warnings or [f"{SHOW}: no 'lldpNeighbors' object"]
    out: list[Neighbor] = []
    for port, body in table.items():
        rows = body.get("lldpNeighborInfo") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            warnings.append(f"{SHOW}: {port}: no 'lldpNeighborInfo' list")
            continue
        for row in rows:
            if not isinstance(row, dict):
                continue
            info = row.get("neighborInterfaceInfo") if isinstance(row.get("neighborInterfaceInfo"), dict) else {}
            pid = _s(info.get("interfaceId_v2")) or _s(info.get("interfaceId"))
            out.append(
                Neighbor(str(port), _s(row.get("systemName")), pid, _s(info.get("interfaceDescription")),
                         _s(row.get("chassisId")))
            )
    return out, warnings


def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
    if " ".join(command.split()) != SHOW:
        return None
    table: dict[str, Any] = {}
    for n in neighbours:
        table.setdefault(n.local_port, {"lldpNeighborInfo": []})["lldpNeighborInfo"].append(
            {
                "systemName": n.system_name,
                "chassisIdType": "macAddress",
                "chassisId": n.chassis_id,
                "ttl": 120,
                "neighborInterfaceInfo": {
                    "interfaceIdType": "interfaceName",
                    "interfaceId": f'"{n.port_id}"',
                    "interfaceId_v2": n.port_id,
                    "interfaceDescription": n.port_descr,
                },
            }
        )
    return json.dumps({"lldpNeighbors": table})


LLDP = LldpSpec(
    commands=(SHOW,),
    parse=with_napalm(parse_eapi),
    simulate=simulate,
    sources={SHOW: "Arista EOS eAPI show lldp neighbors detail (napalm test/eos/mocked_data, recorded)"},
    canonical=_canonical,
    transport="eapi-json",
)
