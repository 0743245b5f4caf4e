"""The lab's cables: who is plugged into which port, answered as LLDP neighbours on every platform.

``Lab.set_links([(a_device, a_port, b_device, b_port), ...])`` lays the cables (the intent's links); each
device then answers its platform's LLDP commands (``roceconf/platforms/<p>/lldp.py`` ``simulate``) with the
far ends of its cables. Cabling scenarios move cables (``Lab.set_scenarios``):

* ``miswire@DEVICE[:PORT]``: the cables in PORT (default: the device's first cabled port) and in the next
  cabled port of the device (natural order, wrapping) are swapped at DEVICE;
* ``crossed-rail@HOST[:NIC]``: the same swap on a host - its NIC's cable and the next NIC's are exchanged,
  so each NIC lands on the other rail's leaf.

What a device advertises as its port follows real recordings (napalm's test data, lldpd's defaults, see
tests/fixtures/<p>/lldp/real/): hosts (lldpd) send their MAC as port ID and the interface name as port
description; NX-OS sends the short name (``Eth1/1``) and the full name as description; Junos sends an SNMP
index and the name as description; EOS, SONiC and NVUE send the interface name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from roceconf.names import natural_key
from roceconf.neighbors import Neighbor

CABLING_SCENARIOS = ("miswire", "crossed-rail")
HOSTS = ("connectx", "bnxt", "linux-dcb")

End = tuple[str, str]


def _mac(device: str, port: str = "") -> str:
    h = hashlib.sha256(f"{device}\0{port}".encode()).digest()
    return ":".join(f"{b:02x}" for b in (b"\x02" + h[:5]))


def advertised(device: str, platform: str, port: str, index: int) -> tuple[str, str]:
    """(port ID, port description) a device of ``platform`` sends for ``port`` (its ``index``-th cabled port)."""
    if platform in HOSTS:
        return _mac(device, port), port
    if platform == "nxos":
        return re.sub(r"^Ethernet", "Eth", port), port
    if platform == "junos":
        return str(500 + index), port
    return port, ""


class Wiring:
    """The cables of the lab, with the cabling scenarios applied."""

    def __init__(self) -> None:
        self.intended: dict[End, End] = {}
        self.cables: dict[End, End] = {}
        self._ports: dict[str, list[str]] = {}

    def set_links(self, links: Iterable[tuple[str, str, str, str]]) -> None:
        self.intended = {}
        for a_dev, a_port, b_dev, b_port in links:
            self.intended[(a_dev, a_port)] = (b_dev, b_port)
            self.intended[(b_dev, b_port)] = (a_dev, a_port)
        self.cables = dict(self.intended)
        by: dict[str, list[str]] = {}
        for d, p in self.intended:
            by.setdefault(d, []).append(p)
        self._ports = {d: sorted(ps, key=natural_key) for d, ps in by.items()}

    def ports(self, device: str) -> list[str]:
        """The device's cabled ports, in natural order."""
        return self._ports.get(device, [])

    def reset(self) -> None:
        self.cables = dict(self.intended)

    def swap(self, device: str, port: str | None, what: str) -> None:
        """Swap the cable in ``port`` with the next cabled port's at ``device``; ValueError when impossible."""
        ports = self.ports(device)
        if len(ports) < 2:
            raise ValueError(f"scenario {what}: {device} has {len(ports)} cabled port(s), two are needed")
        port = port or ports[0]
        if port not in ports:
            raise ValueError(f"scenario {what}: {device} has no cable in {port!r} (cabled: {', '.join(ports)})")
        other = ports[(ports.index(port) + 1) % len(ports)]
        a, b = self.cables[(device, port)], self.cables[(device, other)]
        self.cables[(device, port)], self.cables[(device, other)] = b, a
        self.cables[a], self.cables[b] = (device, other), (device, port)

    def neighbours(self, device: str, platforms: dict[str, str]) -> list[Neighbor]:
        """What LLDP shows on each cabled port of ``device`` (``platforms``: device -> platform)."""
        out = []
        for port in self.ports(device):
            far = self.cables.get((device, port))
            if far is None or far[0] not in platforms:
                continue
            peer, peer_port = far
            pid, descr = advertised(peer, platforms[peer], peer_port, self.ports(peer).index(peer_port) if
                                    platforms[peer] == "junos" else 0)
            out.append(Neighbor(port, peer, pid, descr, _mac(peer)))
        return out


def read_cabling(text: str, name: str) -> list[tuple[str, str, str, str]]:
    """A cabling table in the intent's CSV form (``a_device,a_port,b_device,b_port[,cable_m]``, an optional
    header, ``#`` comments) -> links; ValueError ``NAME:LINE: reason`` on the first bad line."""
    import csv

    out = []
    for n, row in enumerate(csv.reader(text.splitlines()), start=1):
        if not row or row[0].startswith("#") or (n == 1 and row[0].strip().lower() in ("a_device", "device_a")):
            continue
        cells = [c.strip() for c in row]
        if len(cells) not in (4, 5) or not all(cells[:4]):
            raise ValueError(f"{name}:{n}: expected a_device,a_port,b_device,b_port[,cable_m], got {len(row)} columns")
        out.append((cells[0], cells[1], cells[2], cells[3]))
    return out


__all__ = ["CABLING_SCENARIOS", "Wiring", "advertised", "read_cabling"]
