"""The vendor-neutral LLDP neighbour table, the LLDP contract of a platform and the output formats several
platforms share (lldpd's ``lldpctl -f json``, napalm's ``get_lldp_neighbors_detail``).

A platform's ``lldp.py`` provides ``LLDP = LldpSpec(...)``: the read-only commands that list a device's LLDP
neighbours, the parser of their outputs into :class:`Neighbor` rows, the lab's simulator of those outputs and
the source of each command. ``roceconf cabling`` compares the rows with the intent's links.

Sources of the shared formats:

* ``lldpctl -f json`` (lldpd, ISC licence): the JSON writer ``src/client/json_writer.c`` and the expected
  outputs of lldpd's own tests (``tests/integration/test_lldpcli.py``, ``test_json_output``), recorded in
  tests/fixtures/linux-dcb/lldp/real/. One neighbour is ``{"lldp": {"interface": {"eth0": {...}}}}``;
  several are a list of one-key objects (``"interface": [{"eth0": {...}}, {"eth1": {...}}]``). The
  chassis is keyed by the system name; ``port.id`` has a ``type`` (``ifname``, ``mac``, ``local``) and a
  ``value``; ``port.descr`` is the port description.
* ``lldptool -t -n -i PORT`` (open-lldp's lldpad, the TLVs received on PORT; lldptool(8)): one header line per
  TLV ending in ``TLV`` (``Chassis ID TLV``, ``Port ID TLV``, ``System Name TLV``, ``Port Description TLV``,
  ...), its value on the tab-indented lines below, the ID TLVs' values led by their subtype (``MAC: ...``,
  ``Ifname: ...``), a multi-line system description continued on unindented lines; as the recordings in the
  Apache-2.0 test data of redhat-cip/hardware show it (tests/fixtures/linux-dcb/lldp/real/).
* napalm ``get_lldp_neighbors_detail`` (napalm/base/base.py docstring; napalm's own test data under
  ``test/<driver>/mocked_data/test_get_lldp_neighbors_detail/``, Apache-2.0): ``{local_port: [{
  "remote_system_name", "remote_port", "remote_port_description", "remote_chassis_id", ...}]}``.

Host LLDP agents (lldpd) send the port's MAC as port ID and the interface name as port description by
default (lldpd(8), ``configure lldp portidsubtype``); the NX-OS and EOS records in napalm's test data show
it too. :meth:`Neighbor.port_name` therefore reads the description where the ID is a MAC address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roceconf.counters.hostnic import complete

#: a MAC address as LLDP agents print it (00:0f:53:2e:ce:d1, 000f.532e.ced1, 00-0f-53-2e-ce-d1)
_MAC = re.compile(r"(?i)(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}|(?:[0-9a-f]{4}\.){2}[0-9a-f]{4}")


@dataclass(frozen=True)
class Neighbor:
    """One LLDP neighbour seen on a local port."""

    local_port: str
    system_name: str
    port_id: str
    port_descr: str = ""
    chassis_id: str = ""

    def port_name(self) -> str:
        """The neighbour's interface name: its port ID, or its port description where the ID is a MAC
        address or a number (lldpd's default on hosts, Junos' SNMP index); "" when neither names a port."""
        pid = self.port_id.strip()
        if pid and not _MAC.fullmatch(pid) and not pid.isdigit():
            return pid
        descr = self.port_descr.strip()
        return descr if descr and " " not in descr else ""

    def to_dict(self) -> dict[str, str]:
        return {
            "local_port": self.local_port,
            "system_name": self.system_name,
            "port_id": self.port_id,
            "port_descr": self.port_descr,
            "chassis_id": self.chassis_id,
        }


Parsed = tuple[list[Neighbor], list[str]]


@dataclass(frozen=True)
class LldpSpec:
    """What a platform's ``lldp.py`` provides (``LLDP = LldpSpec(...)``).

    * ``commands``: the read-only commands a live read sends (none: the platform is read offline only);
    * ``parse(outputs)``: ``{command: output}`` -> (neighbours, warnings); never raises;
    * ``simulate(command, neighbours, hostname)``: the output of one command as the device prints it (the
      loopback lab), None where ``command`` is not one of them;
    * ``canonical(name)``: an interface name of this platform as the intent writes it (``Eth2/1`` ->
      ``Ethernet2/1`` on NX-OS), so names read from LLDP compare with the intent's;
    * ``sources``: command -> the document that defines its output;
    * ``transport``: ``eapi-json``, ``cli`` or ``shell``, as for counters (:mod:`roceconf.counters.model`);
    * ``port_commands(ports)``: the per-port commands of an alternative agent (``lldptool`` on hosts), or None.
    """

    commands: tuple[str, ...]
    parse: Callable[[dict[str, str]], Parsed]
    simulate: Callable[[str, list[Neighbor], str], str | None]
    sources: dict[str, str]
    canonical: Callable[[str], str] = str
    transport: str = "cli"
    #: the per-port commands of an alternative LLDP agent (hosts: open-lldp's ``lldptool``), sent instead of
    #: ``commands`` where the inventory says so (``roceconf_lldp_agent: lldptool``); None: no alternative
    port_commands: Callable[[list[str]], tuple[str, ...]] | None = None


#: the key of a saved napalm ``get_lldp_neighbors_detail`` result in a saved LLDP file
NAPALM = "napalm get_lldp_neighbors_detail"
LLDPCTL = "lldpctl -f json"
#: open-lldp's neighbour TLVs of one port (hosts whose LLDP agent is lldpad: ``roceconf_lldp_agent: lldptool``)
LLDPTOOL = "lldptool -t -n -i {port}"
_LLDPTOOL = re.compile(r"^lldptool -t -n -i (\S+)$")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def load_json(text: str, what: str) -> tuple[Any, list[str]]:
    """JSON text of a device output, or (None, [one warning]) when it is not JSON."""
    try:
        return json.loads(text), []
    except ValueError as e:
        return None, [f"{what}: not JSON ({e})"]


# ------------------------------------------------------------------------------------------- napalm
def parse_napalm(text: str) -> Parsed:
    """napalm ``get_lldp_neighbors_detail`` JSON -> neighbours."""
    data, warnings = load_json(text, NAPALM)
    if data is None:
        return [], warnings
    if not isinstance(data, dict):
        return [], [f"{NAPALM}: an object of local ports is expected"]
    out: list[Neighbor] = []
    for port, rows in data.items():
        if not isinstance(rows, list):
            warnings.append(f"{NAPALM}: {port}: a list of neighbours is expected")
            continue
        for row in rows:
            if not isinstance(row, dict):
                warnings.append(f"{NAPALM}: {port}: a neighbour is not an object")
                continue
            out.append(
                Neighbor(
                    str(port),
                    _text(row.get("remote_system_name")),
                    _text(row.get("remote_port")),
                    _text(row.get("remote_port_description")),
                    _text(row.get("remote_chassis_id")),
                )
            )
    return out, warnings


def simulate_napalm(neighbours: list[Neighbor]) -> str:
    data: dict[str, list[dict[str, Any]]] = {}
    for n in neighbours:
        data.setdefault(n.local_port, []).append(
            {
                "parent_interface": "",
                "remote_chassis_id": n.chassis_id,
                "remote_port": n.port_id,
                "remote_port_description": n.port_descr,
                "remote_system_name": n.system_name,
                "remote_system_description": "",
                "remote_system_capab": [],
                "remote_system_enable_capab": [],
            }
        )
    return json.dumps(data, indent=2) + "\n"


# ------------------------------------------------------------------------------------------- lldpctl
def parse_lldpctl(text: str) -> Parsed:
    """``lldpctl -f json`` (lldpd) -> neighbours."""
    data, warnings = load_json(text, LLDPCTL)
    if data is None:
        return [], warnings
    lldp = data.get("lldp") if isinstance(data, dict) else None
    if not isinstance(lldp, dict):
        return [], warnings + [f"{LLDPCTL}: no 'lldp' object"]
    itfs = lldp.get("interface", {})
    items: list[tuple[str, Any]] = []
    if isinstance(itfs, dict):
        items = list(itfs.items())
    elif isinstance(itfs, list):
        for one in itfs:
            if isinstance(one, dict):
                items.extend(one.items())
    else:
        warnings.append(f"{LLDPCTL}: 'interface' is neither an object nor a list")
    out: list[Neighbor] = []
    for port, body in items:
        if not isinstance(body, dict):
            warnings.append(f"{LLDPCTL}: {port}: not an object")
            continue
        chassis = body.get("chassis")
        name, chassis_id = "", ""
        if isinstance(chassis, dict) and len(chassis) == 1:
            name, inner = next(iter(chassis.items()))
            if isinstance(inner, dict) and isinstance(inner.get("id"), dict):
                chassis_id = _text(inner["id"].get("value"))
        elif isinstance(chassis, dict) and isinstance(chassis.get("id"), dict):
            # a neighbour without a system name: the chassis object itself (json_writer.c)
            chassis_id = _text(chassis["id"].get("value"))
        p = body.get("port") if isinstance(body.get("port"), dict) else {}
        pid = p.get("id") if isinstance(p.get("id"), dict) else {}
        out.append(Neighbor(str(port), _text(name), _text(pid.get("value")), _text(p.get("descr")), chassis_id))
    return out, warnings


def simulate_lldpctl(neighbours: list[Neighbor]) -> str:
    """``lldpctl -f json`` as lldpd writes it: one neighbour an object, several a list of one-key objects."""
    entries = []
    for n in neighbours:
        mac = bool(_MAC.fullmatch(n.port_id))
        entries.append(
            {
                n.local_port: {
                    "via": "LLDP",
                    "rid": str(len(entries) + 1),
                    "age": "0 day, 00:10:00",
                    "chassis": {n.system_name: {"id": {"type": "mac", "value": n.chassis_id}, "ttl": "120"}},
                    "port": {
                        "id": {"type": "mac" if mac else "ifname", "value": n.port_id},
                        "descr": n.port_descr,
                    },
                }
            }
        )
    interface: Any = entries[0] if len(entries) == 1 else entries
    return json.dumps({"lldp": {"interface": interface} if entries else {}}, indent=2) + "\n"


# ------------------------------------------------------------------------------------------- lldptool
_TLV = {"Chassis ID TLV": "chassis", "Port ID TLV": "port", "System Name TLV": "name",
        "Port Description TLV": "descr"}


def parse_lldptool(text: str, local_port: str) -> Parsed:
    """``lldptool -t -n -i PORT`` (open-lldp) -> the neighbour on PORT (none where the output is empty)."""
    what = LLDPTOOL.format(port=local_port)
    got: dict[str, str] = {}
    tlvs = 0
    key: str | None = None
    for line in text.replace("\r", "").split("\n"):
        if not line.strip():
            continue
        if not line.startswith("\t") and line.rstrip().endswith("TLV"):
            tlvs += 1
            key = _TLV.get(line.strip())
            continue
        if key is None or not line.startswith("\t") or key in got:
            continue  # another TLV's value, a continued description, or a second value line
        value = line.strip()
        if key in ("chassis", "port"):
            sub, sep, rest = value.partition(":")
            # the subtype label before the value (``MAC: 00:...``, ``Ifname: gi1/1``); a MAC has colons too
            value = rest.strip() if sep and " " not in sub.strip() and not _MAC.fullmatch(value) else value
        got[key] = value
    if not tlvs:
        return [], ([f"{what}: no TLV found"] if text.strip() else [])
    if "port" not in got and "name" not in got:
        return [], [f"{what}: no Port ID or System Name TLV"]
    return [Neighbor(local_port, got.get("name", ""), got.get("port", ""), got.get("descr", ""),
                     got.get("chassis", ""))], []


def simulate_lldptool(neighbours: list[Neighbor]) -> str:
    """``lldptool -t -n -i PORT`` for the neighbour on that port, as lldptool prints the TLVs it received."""
    out = []
    for n in neighbours[:1]:  # lldpad keeps one neighbour per port and agent
        kind = "MAC" if _MAC.fullmatch(n.port_id) else "Ifname"
        out += ["Chassis ID TLV", f"\tMAC: {n.chassis_id}", "Port ID TLV", f"\t{kind}: {n.port_id}",
                "Time to Live TLV", "\t120"]
        if n.port_descr:
            out += ["Port Description TLV", f"\t{n.port_descr}"]
        out += ["System Name TLV", f"\t{n.system_name}", "End of LLDPDU TLV"]
    return "".join(line + "\n" for line in out)


def lldptool_commands(ports: list[str]) -> tuple[str, ...]:
    """The per-port commands of a host whose LLDP agent is lldpad (``roceconf_lldp_agent: lldptool``)."""
    return tuple(LLDPTOOL.format(port=p) for p in ports)


def lldpctl_spec(transport: str, sources: dict[str, str] | None = None, lldptool: bool = False) -> LldpSpec:
    """The LLDP reader of a platform whose LLDP agent is lldpd (hosts, Cumulus Linux / NVUE, SONiC); with
    ``lldptool`` (hosts) it also reads open-lldp's ``lldptool -t -n -i PORT`` answers, one per port."""

    def parse(outputs: dict[str, str]) -> Parsed:
        if LLDPCTL in outputs:
            # a host bundle ends each output with an end mark (roceconf.counters.hostnic); a cut answer is
            # cut JSON, which does not parse: the mark is dropped where present, not required
            text = outputs[LLDPCTL]
            body = complete(text)
            return parse_lldpctl(text if body is None else body)
        per_port = {m.group(1): t for c, t in outputs.items() if lldptool and (m := _LLDPTOOL.match(" ".join(c.split())))}
        if per_port:
            out: list[Neighbor] = []
            warnings: list[str] = []
            for port, text in per_port.items():
                body = complete(text)
                if body is None and text.strip():  # a cut answer could have lost its System Name line
                    warnings.append(f"{LLDPTOOL.format(port=port)}: no end mark (a cut answer); not read")
                    continue
                got, w = parse_lldptool(body or "", port)
                out += got
                warnings += w
            return out, warnings
        return [], [f"no output of {LLDPCTL!r}" + (" nor of lldptool -t -n -i PORT" if lldptool else "")]

    def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
        cmd = " ".join(command.split())
        if cmd == LLDPCTL:
            return simulate_lldpctl(neighbours)
        m = _LLDPTOOL.match(cmd) if lldptool else None
        return simulate_lldptool([n for n in neighbours if n.local_port == m.group(1)]) if m else None

    src = sources or {LLDPCTL: "lldpd: lldpctl(8) -f json; src/client/json_writer.c"}
    if lldptool:
        src = {**src, LLDPTOOL: "open-lldp lldptool(8): -t -n -i PORT (neighbour TLVs); recordings in "
                                "redhat-cip/hardware's test data"}
    return LldpSpec(
        commands=(LLDPCTL,),
        parse=parse,
        simulate=simulate,
        sources=src,
        transport=transport,
        port_commands=lldptool_commands if lldptool else None,
    )


def with_napalm(parse: Callable[[dict[str, str]], Parsed]) -> Callable[[dict[str, str]], Parsed]:
    """``parse`` that also reads a saved napalm ``get_lldp_neighbors_detail`` result (key :data:`NAPALM`)."""

    def both(outputs: dict[str, str]) -> Parsed:
        if NAPALM in outputs:
            return parse_napalm(outputs[NAPALM])
        return parse(outputs)

    return both


__all__ = [
    "LLDPCTL",
    "LLDPTOOL",
    "NAPALM",
    "LldpSpec",
    "Neighbor",
    "lldpctl_spec",
    "lldptool_commands",
    "parse_lldpctl",
    "parse_lldptool",
    "parse_napalm",
    "simulate_lldpctl",
    "simulate_lldptool",
    "simulate_napalm",
    "with_napalm",
]
