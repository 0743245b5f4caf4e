"""One finding per cause: the per-port items of a device grouped into what an operator fixes once.

A drift of one setting on a range of ports is one cause, not one item per port: the items of a device are
grouped by (feature, field, expected, actual) with the field's interface part taken out, and the groups of
one device that touch the same ports in the same feature (``pfc.enabled`` and ``pfc.no_drop`` of a port that
lost its no-drop class) are one cause. A cause names its ports as compressed ranges in the platform's own
naming (``Ethernet1/1-64``, ``swp1-4``; netutils' ``interface_range_compress``), its changes, the source lines
and the per-port items it stands for (their positions in the device's list, so JSON keeps them reachable).

Every report format of drift (text, JSON/YAML, Markdown, JUnit, HTML) lists causes; summaries count causes
and ports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from roceconf.names import natural_key

#: severities, worst first
_RANK = {"critical": 0, "warning": 1, "info": 2}


def compress(ports: Iterable[str]) -> list[str]:
    """Interface names as ranges in their platform's naming: ``Ethernet1/1-64``, ``swp1-3``, ``eth1``
    (netutils' ``interface_range_compress``; names it cannot read are kept as they are, in order)."""
    names = sorted(set(ports), key=natural_key)
    if len(names) < 2:
        return names
    try:
        from netutils.interface import interface_range_compress

        return list(interface_range_compress(names))
    except Exception:  # noqa: BLE001 - netutils raises on names it cannot split; keep them as given
        return names


def field_of(item: Any) -> str:
    """An item's field without its interface part: ``interfaces.Ethernet1/1.mtu`` -> ``mtu``."""
    f = str(item.field)
    itf = getattr(item, "interface", None)
    if itf:
        head = f"interfaces.{itf}."
        if f.startswith(head):
            return f[len(head):]
    return f


@dataclass
class Change:
    """One (field, expected, actual) of a cause."""

    field: str
    expected: Any
    actual: Any


@dataclass
class Cause:
    """What an operator fixes once on one device."""

    device: str
    severity: str
    feature: str
    changes: list[Change]
    ports: list[str] = field(default_factory=list)
    #: the positions of the per-port items in the device's item list
    items: list[int] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    #: one explanation per change, its port named as the cause's ranges
    explanations: list[str] = field(default_factory=list)
    #: the full fields of its items (``interfaces.Ethernet1/1.mtu``), to find its remediation
    fields: list[str] = field(default_factory=list)

    @property
    def explanation(self) -> str:
        return "; ".join(self.explanations)

    @property
    def ranges(self) -> list[str]:
        return compress(self.ports)

    @property
    def where(self) -> str:
        """The ports as ranges ("" for a device-wide setting)."""
        return ", ".join(self.ranges)

    def what(self, show: Any = repr) -> str:
        """``mtu 1500, expected 9214`` (each change), with values written by ``show``."""
        return "; ".join(f"{c.field} {show(c.actual)}, expected {show(c.expected)}" for c in self.changes)

    def title(self, show: Any = repr) -> str:
        """``Ethernet1/1-64: mtu 1500, expected 9214``."""
        return f"{self.where}: {self.what(show)}" if self.ports else self.what(show)

    def to_dict(self) -> dict[str, Any]:
        """The cause as JSON: no device name, file or explanation (those are in the items it lists by
        position), so the devices of one shape write the same findings."""
        return {
            "severity": self.severity,
            "feature": self.feature,
            "interfaces": self.ranges,
            "ports": len(self.ports),
            "changes": [{"field": c.field, "expected": c.expected, "actual": c.actual} for c in self.changes],
            "items": self.items,
        }


def _key(v: Any) -> str:
    return repr(v)


def _for_ranges(item: Any, ports: list[str]) -> str:
    """``item``'s explanation with its port replaced by the ranges of ``ports`` (when there are several)."""
    text = str(item.explanation or "")
    if len(ports) > 1 and item.interface:
        pattern = re.compile(r"(?<![\w/])" + re.escape(item.interface) + r"(?![\w/]|[:.-]\w)")
        text = pattern.sub(lambda _m: ", ".join(compress(ports)), text)
    return text


def causes(device: str, items: Sequence[Any]) -> list[Cause]:
    """The causes of one device's items (each with interface, field, expected, actual, severity, feature,
    explanation and location), worst first, then by port."""
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    for n, it in enumerate(items):
        groups.setdefault((str(it.feature), field_of(it), _key(it.expected), _key(it.actual)), []).append(n)
    merged: dict[tuple[str, tuple[str, ...]], list[list[int]]] = {}
    for (feature, _f, _e, _a), idx in groups.items():
        ports = tuple(sorted({items[i].interface for i in idx if items[i].interface}, key=natural_key))
        merged.setdefault((feature, ports), []).append(idx)
    out: list[Cause] = []
    for (feature, ports), parts in merged.items():
        idx = sorted(i for p in parts for i in p)
        changes = [Change(field_of(items[p[0]]), items[p[0]].expected, items[p[0]].actual) for p in parts]
        sev = min((items[i].severity for i in idx), key=lambda s: _RANK.get(s, 9))
        locs: list[str] = []
        for i in idx:
            loc = getattr(items[i], "location", "") or ""
            if loc and loc not in locs:
                locs.append(loc)
        expl: list[str] = []
        for p in parts:  # one explanation per change, its port named as the cause's ranges
            e = _for_ranges(items[p[0]], list(ports))
            if e and e not in expl:
                expl.append(e)
        out.append(Cause(device, sev, feature, changes, list(ports), idx, locs, expl,
                         [items[i].field for i in idx]))
    out.sort(key=lambda c: (_RANK.get(c.severity, 9), natural_key(c.ports[0]) if c.ports else (), c.items[0]))
    return out


def lines(locations: Sequence[str], cap: int = 4) -> str:
    """Source locations (``file:line``) with each file named once: ``leaf3.json:144,152,160 (+1 more)``."""
    by_file: dict[str, list[str]] = {}
    for loc in locations:
        file, sep, line = loc.rpartition(":")
        if not sep or not line.isdigit():
            file, line = loc, ""
        by_file.setdefault(file, [])
        if line:
            by_file[file].append(line)
    out = []
    for file, nums in by_file.items():
        more = len(nums) - cap
        out.append(file + (":" + ",".join(nums[:cap]) if nums else "") + (f" (+{more} more)" if more > 0 else ""))
    return "; ".join(out)


def summary(all_causes: Iterable[Cause]) -> dict[str, int]:
    """Causes per severity, and the causes and ports they cover."""
    c = {"findings": 0, "ports": 0, "critical": 0, "warning": 0, "info": 0}
    for x in all_causes:
        c["findings"] += 1
        c["ports"] += len(x.ports)
        c[x.severity] = c.get(x.severity, 0) + 1
    return c


def remediation_for(cause: Cause, remediation: Sequence[Any]) -> list[int]:
    """The positions of the remediation blocks (each with ``fields``) that fix ``cause``: one per group."""
    want = set(cause.fields)
    return [n for n, r in enumerate(remediation) if not r.fields or want & set(r.fields)]


#: a port named as ``device:port`` in a diagnostic's message (``leaf01:Ethernet33``, ``spine2:et-0/0/1``)
_LABEL = re.compile(r"(?<![\w/.:-])([A-Za-z][\w.-]*):([A-Za-z][A-Za-z-]*\d+(?:[/.]\d+)*)(?![\w/-])")
#: where a value of a device's config was read: `` (leaf01.cfg:55)`` or `` (leaf01.cfg)``
_CITED = re.compile(r" \([^()\s]+(?::\d+)?\)")
#: ports listed per place of a merged diagnostic before "(+N more)"
SHOWN = 6


def _ends(labels: list[tuple[str, str]]) -> str:
    """``leaf01:Ethernet33-40`` or ``spine1:swp1, spine2:swp1 (+6 more)``: ports per device as ranges."""
    by_dev: dict[str, list[str]] = {}
    for dev, port in labels:
        by_dev.setdefault(dev, []).append(port)
    names = [f"{dev}:{r}" for dev in sorted(by_dev, key=natural_key) for r in compress(by_dev[dev])]
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" (+{more} more)" if more > 0 else "")


def cause_template(message: str) -> str:
    """The part of a positioned finding's message that names its cause: the ports (``device:port``) and cited
    config lines masked, and the tally :func:`same_cause` adds left out. Results of one cause share it however
    many ports they name (a stable SARIF fingerprint)."""
    return _CITED.sub(" (@)", _LABEL.sub("#", _TALLY.sub("", message)))


#: what :func:`same_cause` appends to the first message of a group
_TALLY = re.compile(r" \(the same \d+ times: .*\)\Z", re.S)


def same_cause(diags: Sequence[Any]) -> list[Any]:
    """Positioned findings (``Diagnostic``) of one cause as one: those of the same rule, severity and intent
    position whose messages differ only in the ports they name (``device:port``) and the config lines they cite
    become the first of them, with how many they were and the ports listed (per place in the message, each
    device's ports as ranges). A check of every link of a mesh finds one switch's MTU once per link, all at the
    mesh's line: one finding. Order is kept (each group where its first was)."""
    from dataclasses import replace

    groups: dict[tuple[Any, ...], list[Any]] = {}
    for d in diags:
        template = cause_template(d.message)
        groups.setdefault((d.code, d.severity, d.file, d.line, d.col, template), []).append(d)
    out = []
    for ds in groups.values():
        if len(ds) == 1:
            out.append(ds[0])
            continue
        places: list[list[tuple[str, str]]] = []
        for d in ds:
            for n, m in enumerate(_LABEL.finditer(d.message)):
                if n == len(places):
                    places.append([])
                places[n].append((m.group(1), m.group(2)))
        where = " with ".join(_ends(p) for p in places)
        out.append(replace(ds[0], message=f"{ds[0].message} (the same {len(ds)} times: {where})"))
    return out


__all__ = ["Cause", "Change", "cause_template", "causes", "compress", "field_of", "lines", "remediation_for", "same_cause", "summary"]
