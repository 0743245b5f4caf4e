"""Neighbours + intent -> findings per link end and one verdict per link.

Each end of an intended link whose device was read is judged from the neighbours LLDP shows on that port:

* none -> RC500 (missing);
* the intended peer device and port -> confirmed;
* the intended peer device on another port -> RC501 (miswired, with the port it lands on);
* a host NIC that lands on a leaf of another rail (rail-optimised cabling, see :func:`rails`) -> RC503;
  a leaf port of rail k that sees a host NIC of rail j -> RC503 too;
* a host NIC that lands on another leaf (same rail, or no rail pattern) -> RC504;
* anything else -> RC501 (the neighbour named as LLDP gives it).

A port that is no end of an intended link but sees a device of the intent is RC502. A device that could not
be read is RC505 and its link ends are unknown. A link is ``ok`` when an end confirms it and no end
contradicts it, ``fail`` on any finding, ``unknown`` when neither end was read.

Names: the neighbour's system name is matched with the intent's device names exactly, then case-blind,
then by its first DNS label (``leaf1.example.com`` -> ``leaf1``); its port name (port ID, or description
where the ID is a MAC) and the local port are put in the intent's spelling by the platform's
``LldpSpec.canonical`` (NX-OS ``Eth1/1`` -> ``Ethernet1/1``, netutils).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from roceconf import platforms
from roceconf.cabling.rules import (
    R_CROSSED_RAIL,
    R_MISSING,
    R_MISWIRED,
    R_UNEXPECTED,
    R_UNREAD,
    R_WRONG_LEAF,
)
from roceconf.intent import Fabric
from roceconf.intent.rules import Rule
from roceconf.names import natural_key
from roceconf.neighbors import Neighbor


@dataclass
class Finding:
    rule: str
    severity: str
    device: str
    port: str | None
    message: str
    expected: str | None = None
    observed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DeviceLldp:
    """What was read from one device (``status`` ``read`` or ``unknown`` with ``reason``)."""

    device: str
    platform: str
    status: str = "read"
    reason: str | None = None
    neighbours: list[Neighbor] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    source: str = ""


@dataclass
class LinkVerdict:
    a: str
    b: str
    status: str
    rules: list[str]
    #: the joint verdict's parts (cabling, link health, health, drift: :mod:`.joint`); None = LLDP only. The
    #: link health part's ends ``a`` / ``b`` are the ends' :class:`~roceconf.cabling.linkhealth.EndHealth`
    #: (None: not judged), written as their ``to_dict()``
    parts: dict[str, Any] | None = None
    #: (device, port) of each end (not written: ``a`` / ``b`` say it)
    ends: tuple[tuple[str, str], tuple[str, str]] | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"a": self.a, "b": self.b, "status": self.status, "rules": self.rules}
        if self.parts is not None:
            lh = self.parts.get("link_health")
            out["parts"] = self.parts if lh is None else {**self.parts, "link_health": {
                k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in lh.items()}}
        return out


@dataclass
class CablingReport:
    intent: str
    source: str
    generated_at: str
    devices: list[DeviceLldp]
    links: list[LinkVerdict]
    findings: list[Finding]
    #: link counters judged (:class:`roceconf.cabling.linkhealth.LinkHealth`); None = LLDP only
    link: Any = None
    #: the reports joined into each link's verdict (``health``, ``drift``: file names)
    joined: dict[str, str] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        c = {"devices": len(self.devices), "unknown_devices": 0, "links": len(self.links), "ok": 0, "fail": 0,
             "unknown": 0, "error": 0, "warning": 0}
        for d in self.devices:
            c["unknown_devices"] += d.status == "unknown"
        for li in self.links:
            c[li.status] += 1
        for f in self.findings:
            c[f.severity] += 1
        return c

    @property
    def exit_code(self) -> int:
        """0 every link confirmed, 1 findings, 3 something could not be read (nothing judged is never 0). A link
        check or ECMP group not observable on its platform (n/a, RC519) is no finding and keeps nothing from 0."""
        if any(f.rule != R_UNREAD.id for f in self.findings):
            return 1
        if not self.links or any(d.status == "unknown" for d in self.devices):
            return 3
        if any(li.status != "ok" for li in self.links):
            return 3
        if self.link is not None and any(g.status not in ("ok", "n/a") for g in self.link.groups):
            return 3
        return 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "intent": self.intent,
            "source": self.source,
            "generated_at": self.generated_at,
            "summary": self.counts,
            "exit_code": self.exit_code,
            "devices": [
                {"device": d.device, "platform": d.platform, "status": d.status, "reason": d.reason,
                 "source": d.source, "neighbours": [n.to_dict() for n in d.neighbours], "warnings": d.warnings}
                for d in self.devices
            ],
            "links": [li.to_dict() for li in self.links],
            "findings": [f.to_dict() for f in self.findings],
            **self._link_dict(),
        }

    def _link_dict(self) -> dict[str, Any]:
        """The link counters' part of the JSON report (absent when no counters were given)."""
        if self.link is None:
            return {}
        return {
            "joined": self.joined,
            "link_health": [{"device": d, "port": p, **e.to_dict()} for (d, p), e in self.link.ends.items()],
            "counters_unread": self.link.unread,
            "not_observable": [n.to_dict() for n in self.link.not_observable],
            "ecmp": [g.to_dict() for g in self.link.groups],
        }


def _finding(r: Rule, device: str, port: str | None, message: str, expected: str | None = None,
             observed: str | None = None) -> Finding:
    return Finding(r.id, r.severity, device, port, message, expected, observed)


class _Names:
    """System names as LLDP gives them -> the intent's device names."""

    def __init__(self, devices: Iterable[str]) -> None:
        self.exact = set(devices)
        self.lower: dict[str, str] = {}
        self.label: dict[str, str | None] = {}
        for d in self.exact:
            self.lower.setdefault(d.lower(), d)
        for d in self.exact:
            short = d.lower().split(".")[0]
            self.label[short] = None if short in self.label and self.label[short] != d else d

    def device(self, system_name: str) -> str | None:
        name = system_name.strip()
        if name in self.exact:
            return name
        low = name.lower()
        if low in self.lower:
            return self.lower[low]
        return self.label.get(low.split(".")[0]) if low else None


def rails(fab: Fabric) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Leaf -> rail and (host, NIC) -> rail: rail k is the k-th NIC of each host (in the intent's order). A
    leaf whose host links all come from NIC k is the leaf of rail k (a ``rail:`` pattern gives exactly that,
    and so do links written one by one in that shape); a leaf that mixes NICs belongs to no rail."""
    index = {n: {p: i for i, p in enumerate(d.ports)} for n, d in fab.devices.items() if d.is_host}
    per_leaf: dict[str, set[int | None]] = {}
    pairs = []
    for link in fab.links:
        ha, hb = link.a.device in index, link.b.device in index
        if ha == hb or link.a.device not in fab.devices or link.b.device not in fab.devices:
            continue
        host, leaf = (link.a, link.b) if ha else (link.b, link.a)
        pairs.append((host, leaf))
        per_leaf.setdefault(leaf.device, set()).add(index[host.device].get(host.port))
    leaf_rail = {leaf: next(iter(ks)) for leaf, ks in per_leaf.items() if len(ks) == 1 and None not in ks}
    nic_rail = {(h.device, h.port): leaf_rail[lf.device] for h, lf in pairs if lf.device in leaf_rail}
    return leaf_rail, nic_rail  # type: ignore[return-value]


def evaluate(fab: Fabric, read: dict[str, DeviceLldp], source: str) -> CablingReport:
    """The verdict of every link of the intent between devices in ``read`` (the devices asked for)."""
    names = _Names(fab.devices)
    leaf_rail, nic_rail = rails(fab)
    findings: list[Finding] = []
    # (device, local port) -> [(peer device or None, peer port, neighbour)]
    seen: dict[tuple[str, str], list[tuple[str | None, str, Neighbor]]] = {}
    for dev in read.values():
        if dev.status != "read":
            findings.append(_finding(R_UNREAD, dev.device, None, f"not read: {dev.reason}"))
            continue
        own = platforms.lldp(dev.platform).canonical
        for n in dev.neighbours:
            peer = names.device(n.system_name)
            port = n.port_name()
            if peer is not None and port:
                port = platforms.lldp(fab.devices[peer].platform).canonical(port)
            seen.setdefault((dev.device, own(n.local_port)), []).append((peer, port, n))

    def is_host(d: str | None) -> bool:
        return d is not None and fab.devices[d].is_host

    def rail_of(d: str | None, port: str) -> int | None:
        if d is None:
            return None
        return nic_rail.get((d, port)) if is_host(d) else leaf_rail.get(d)

    def judge(me_dev: str, me_port: str, peer_dev: str, peer_port: str) -> str:
        """'ok', 'fail' (a finding added) or 'unknown' (me not read)."""
        if read.get(me_dev) is None or read[me_dev].status != "read":
            return "unknown"
        rows = seen.get((me_dev, me_port), [])
        want = f"{peer_dev}:{peer_port}"
        if not rows:
            findings.append(_finding(R_MISSING, me_dev, me_port,
                                     f"no LLDP neighbour on {me_port}; the intent links it to {want}", want, None))
            return "fail"
        if any(d == peer_dev and p == peer_port for d, p, _n in rows):
            return "ok"
        d, p, n = rows[0]
        got = f"{d or n.system_name or n.chassis_id or '?'}:{p or n.port_id or '?'}"
        mine, theirs = rail_of(me_dev, me_port), rail_of(d, p)
        intended = rail_of(peer_dev, peer_port)
        if is_host(me_dev) and d is not None and not is_host(d) and mine is not None and theirs is not None \
                and theirs != mine:
            r, msg = R_CROSSED_RAIL, (f"NIC {me_port} (rail {mine}) lands on {got}, a leaf of rail {theirs}; "
                                      f"the intent puts it on {want}")
        elif not is_host(me_dev) and is_host(d) and intended is not None and theirs is not None \
                and theirs != intended:
            r, msg = R_CROSSED_RAIL, (f"{me_port} (a leaf port of rail {intended}) sees NIC {got} of rail {theirs} "
                                      f"instead of {want}")
        elif d == peer_dev:
            r, msg = R_MISWIRED, f"{me_port} lands on {got} instead of {want}"
        elif is_host(me_dev) and d is not None and not is_host(d):
            r, msg = R_WRONG_LEAF, f"NIC {me_port} lands on {got} instead of {want}"
        else:
            r, msg = R_MISWIRED, f"{me_port} sees {got} instead of {want}"
        findings.append(_finding(r, me_dev, me_port, msg, want, got))
        return "fail"

    links: list[LinkVerdict] = []
    ends: set[tuple[str, str]] = set()
    for link in fab.links:
        a, b = link.a, link.b
        if a.device not in read and b.device not in read:
            continue
        ends.update({(a.device, a.port), (b.device, b.port)})
        before = len(findings)
        verdicts = [judge(a.device, a.port, b.device, b.port), judge(b.device, b.port, a.device, a.port)]
        if "fail" in verdicts:
            status = "fail"
        elif "ok" in verdicts:
            status = "ok"
        else:
            status = "unknown"
        links.append(LinkVerdict(f"{a.device}:{a.port}", f"{b.device}:{b.port}", status,
                                 sorted({f.rule for f in findings[before:]}),
                                 ends=((a.device, a.port), (b.device, b.port))))
    for (dev, port), rows in sorted(seen.items(), key=lambda kv: (natural_key(kv[0][0]), natural_key(kv[0][1]))):
        if (dev, port) in ends:
            continue
        for d, p, _n in rows:
            if d is not None:
                findings.append(_finding(R_UNEXPECTED, dev, port,
                                         f"{port} sees {d}:{p or '?'}, a device of the intent, on a port of no link",
                                         None, f"{d}:{p or '?'}"))
    order = {n: i for i, n in enumerate(sorted(fab.devices, key=natural_key))}
    findings.sort(key=lambda f: (order.get(f.device, 0), natural_key(f.port or ""), f.rule))
    devices = sorted(read.values(), key=lambda d: order.get(d.device, 0))
    return CablingReport(fab.file, source, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), devices, links,
                         findings)


__all__ = ["CablingReport", "DeviceLldp", "Finding", "LinkVerdict", "evaluate", "rails"]
