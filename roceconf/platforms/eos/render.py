"""Arista EOS: the template filters and render hints (conversions the templates call)."""

from __future__ import annotations

import hashlib
from typing import Any

from roceconf.names import compress_interfaces
from roceconf.platforms.eos.parser import _HASH_ORDER, _HASH_RENDER
from roceconf.state import DeviceState, Ecn, Interface

# --------------------------------------------------------------------------------------------- filters
_PROFILE_FIELDS = ("trust", "pfc", "pfc_watchdog", "ecn", "scheduling")


def _profile_is_empty(itf: Interface) -> bool:
    return (
        itf.trust is None
        and itf.pfc.enabled is None
        and itf.pfc.no_drop is None
        and itf.pfc_watchdog is None
        and not itf.ecn
        and not itf.scheduling
    )


def profile_name(itf: Interface) -> str | None:
    """Deterministic qos profile name derived from the profile content (same content -> same name)."""
    if _profile_is_empty(itf):
        return None
    blob = itf.model_dump_json(include=set(_PROFILE_FIELDS))
    return "ROCE-" + hashlib.sha256(blob.encode()).hexdigest()[:8].upper()


def eos_profiles(state: DeviceState) -> list[dict[str, Any]]:
    """One qos profile per distinct group of profile settings, in natural port order."""
    from roceconf.names import group_interfaces

    out: list[dict[str, Any]] = []
    for _names, itf in group_interfaces(state, _PROFILE_FIELDS):
        name = profile_name(itf)
        if name is None:
            continue
        tcs = sorted({int(k) for k in itf.ecn} | {int(k) for k in itf.scheduling})
        queues = [{"tc": tc, "ecn": itf.ecn.get(str(tc)), "sched": itf.scheduling.get(str(tc))} for tc in tcs]
        out.append({"name": name, "itf": itf, "queues": queues})
    return out


def eos_port_groups(state: DeviceState) -> list[dict[str, Any]]:
    """Ports sharing MTU, link pause and profile, as compact EOS interface ranges."""
    groups: dict[tuple, list[str]] = {}
    from roceconf.names import group_interfaces

    for names, itf in group_interfaces(state):
        key = (itf.mtu, itf.link_pause, profile_name(itf))
        groups.setdefault(key, []).extend(names)
    out = []
    for (mtu, pause, prof), names in groups.items():
        if mtu is None and pause is None and prof is None:
            continue
        out.append({"ranges": compress_interfaces(names), "mtu": mtu, "link_pause": pause, "profile": prof})
    return out


def eos_seconds(ms: int) -> str:
    """200 -> '0.2', 5000 -> '5', 10001 -> '10.001' (EOS watchdog timers are seconds)."""
    whole, frac = divmod(int(ms), 1000)
    return f"{whole}.{frac:03d}".rstrip("0") if frac else str(whole)


def eos_hash_keywords(fields: list[str]) -> str:
    return " ".join(_HASH_RENDER[f] for f in _HASH_ORDER if f in fields and f != "flow_label")


def eos_trust(trust: str) -> str:
    return {"dscp": "qos trust dscp", "pcp": "qos trust cos", "none": "no qos trust"}[trust]


def eos_ecn_line(ecn: Ecn) -> str | None:
    if ecn.min_bytes is None or ecn.max_bytes is None:
        return None
    line = (
        f"random-detect ecn minimum-threshold {ecn.min_bytes} bytes maximum-threshold {ecn.max_bytes} bytes"
    )
    if ecn.probability is not None:
        line += f" max-mark-probability {ecn.probability}"
    return line


FILTERS = {
    "eos_profiles": eos_profiles,
    "eos_port_groups": eos_port_groups,
    "eos_seconds": eos_seconds,
    "eos_hash_keywords": eos_hash_keywords,
    "eos_trust": eos_trust,
    "eos_ecn_line": eos_ecn_line,
}

#: Sand-family (Jericho VOQ) switches: 7280R/7500R/7800R. Their queues are `tx-queue N`; Trident/Tomahawk
#: switches (7050X/7060X/7260X/7300X/7388) use `uc-tx-queue N` for unicast (AVD qos-profiles templates).
_SAND_ASICS = ("jericho", "qumran", "arad")
_SAND_MODELS = ("7280", "7500", "7800")


def render_hints(asic: str | None, model: str | None) -> dict[str, str]:
    """The switch family: it decides the queue keyword and the hash syntax (the parser reads both forms)."""
    a, m = (asic or "").lower(), (model or "").upper()
    if a.startswith(_SAND_ASICS) or any(x in m for x in _SAND_MODELS):
        return {"family": "sand"}
    return {"family": "trident"} if a or m else {}
