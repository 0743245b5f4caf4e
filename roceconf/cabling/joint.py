"""One verdict per intent link: LLDP cabling, the link health of both ends and, where their reports are given,
both ends' ``health`` and ``drift`` status.

Each part of a link is ``ok``, ``fail`` or ``unknown`` (link health also ``n/a``); the link is ``fail`` when a part fails, ``ok`` when
every part that was asked for is ok, else ``unknown`` (a part not read is never taken for ok).

* cabling: the LLDP verdict (:mod:`.verdict`);
* link health: per end :class:`.linkhealth.EndHealth` (FCS, FEC, flaps, speed, optics, FEC mode; in ``parts``
  the end itself, written as a dict with the report); the link's is the worse end's, an
  ``n/a`` end (no check observable on its platform, RC519) left out; ``n/a`` when both ends are, and then the
  part is left out of the link's verdict;
* health (``--health REPORT.json``, a ``roceconf health --format json`` report): an end is ``fail`` when the
  report has findings on that port, ``ok`` when its device was judged and the port is listed without
  findings, ``unknown`` otherwise (device absent, unknown, or port not judged);
* drift (``--drift REPORT.json``, a ``roceconf drift --format json`` report): per device, ``in_sync`` ok,
  ``drift`` fail, anything else (absent, ``unknown``) unknown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roceconf import jsontext, limits
from roceconf.cabling.linkhealth import NA, LinkHealth
from roceconf.cabling.verdict import CablingReport, Finding
from roceconf.drift.collect import CollectError
from roceconf.inputfile import InputFileError, read_text
from roceconf.intent import Fabric
from roceconf.names import natural_key


def worst(states: list[str]) -> str:
    """``fail`` if any, ``ok`` when every state is ok, ``n/a`` when every state is n/a (not observable), else
    ``unknown``; ``n/a`` states are left out (an empty list is unknown: nothing judged is never ok)."""
    if "fail" in states:
        return "fail"
    seen = [s for s in states if s != NA]
    if not seen:
        return NA if states else "unknown"
    return "ok" if all(s == "ok" for s in seen) else "unknown"


def _load(path: str | Path, what: str) -> list[dict[str, Any]]:
    """The ``devices`` of a JSON report; CollectError (invalid input, one line) when it is not one."""
    try:
        data = jsontext.loads(read_text(path, limits.MAX_JSON_BYTES, encoding="utf-8"))
    except InputFileError as e:
        raise CollectError(str(e), retry=False) from None
    except ValueError as e:
        raise CollectError(f"{path}: not JSON ({e})", retry=False) from None
    devices = data.get("devices") if isinstance(data, dict) else None
    if not isinstance(devices, list) or not all(isinstance(d, dict) and isinstance(d.get("device"), str)
                                                and isinstance(d.get("status"), str) for d in devices):
        raise CollectError(f"{path}: field 'devices' must list objects with 'device' and 'status' "
                           f"(a roceconf {what} --format json report)", retry=False)
    return devices


def health_status(path: str | Path) -> dict[tuple[str, str | None], str]:
    """(device, port) -> ok / fail / unknown from a health JSON report; (device, None) -> the device's."""
    out: dict[tuple[str, str | None], str] = {}
    for i, d in enumerate(_load(path, "health")):
        dev, status = d["device"], d["status"]
        out[(dev, None)] = "unknown" if status == "unknown" else ("fail" if status == "findings" else "ok")
        ports = d.get("ports", [])
        if not isinstance(ports, list):
            raise CollectError(f"{path}: devices[{i}].ports must be a list", retry=False)
        for p in ports:
            if not isinstance(p, dict) or not isinstance(p.get("port"), str):
                raise CollectError(f"{path}: devices[{i}].ports: an entry without 'port'", retry=False)
            if status != "unknown":
                out[(dev, p["port"])] = "fail" if p.get("findings") else "ok"
    return out


def drift_status(path: str | Path) -> dict[str, str]:
    """device -> ok / fail / unknown from a drift JSON report."""
    return {d["device"]: {"in_sync": "ok", "drift": "fail"}.get(d["status"], "unknown")
            for d in _load(path, "drift")}


def end_health(status: dict[tuple[str, str | None], str], device: str, port: str) -> str:
    """An end's health status: the port's where the report judged it, else unknown."""
    return status.get((device, port), "unknown")


def attach(
    report: CablingReport,
    fab: Fabric,
    link: LinkHealth,
    health: str | Path | None = None,
    drift: str | Path | None = None,
) -> CablingReport:
    """Join the link checks (and the health / drift reports, where given) into every link's verdict and add
    the link findings to the report's."""
    hs = health_status(health) if health is not None else None
    ds = drift_status(drift) if drift is not None else None
    report.link = link
    if health is not None:
        report.joined["health"] = str(health)
    if drift is not None:
        report.joined["drift"] = str(drift)
    mine: dict[tuple[str, str | None], list[str]] = {}
    for f in link.findings:
        mine.setdefault((f.device, f.port), []).append(f.rule.id)
    for li in report.links:
        if li.ends is None:
            continue
        (ad, ap), (bd, bp) = li.ends
        cab = li.status if li.status in ("ok", "fail") else "unknown"
        ea, eb = link.ends.get((ad, ap)), link.ends.get((bd, bp))
        lh = worst([ea.status if ea else "unknown", eb.status if eb else "unknown"])
        # the ends themselves (EndHealth, None where not judged): written as dicts with the report
        # (LinkVerdict.to_dict), not copied into one per link here
        parts: dict[str, Any] = {"cabling": cab, "link_health": {"status": lh, "a": ea, "b": eb}}
        states = [cab, lh]  # link health n/a on both ends: the verdict is the other parts'
        if hs is not None:
            h = [end_health(hs, ad, ap), end_health(hs, bd, bp)]
            parts["health"] = {"status": worst(h), "a": h[0], "b": h[1]}
            states.append(worst(h))
        if ds is not None:
            d = [ds.get(ad, "unknown"), ds.get(bd, "unknown")]
            parts["drift"] = {"status": worst(d), "a": d[0], "b": d[1]}
            states.append(worst(d))
        li.parts = parts
        li.status = worst(states)
        li.rules = sorted({*li.rules, *mine.get((ad, ap), []), *mine.get((bd, bp), [])})
    report.findings += [Finding(f.rule.id, f.severity or f.rule.severity, f.device, f.port, f.message, None, f.observed)
                        for f in link.findings]
    order = {n: i for i, n in enumerate(sorted(fab.devices, key=natural_key))}
    report.findings.sort(key=lambda f: (order.get(f.device, 0), natural_key(f.port or ""), f.rule))
    return report


__all__ = ["attach", "drift_status", "end_health", "health_status", "worst"]
