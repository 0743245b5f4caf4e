"""Juniper Junos: the template filters (conversions the templates call)."""

from __future__ import annotations

import hashlib
from typing import Any

from roceconf.names import group_interfaces, natural_key
from roceconf.platforms.junos.syntax import (
    HASH_EXCLUDE_V4,
    HASH_EXCLUDE_V6,
    WD_DEFAULT_POLL_MS,
    dscp_bits,
    pcp_bits,
)
from roceconf.state import DeviceState

# ------------------------------------------------------------------------------ render plan


def _short_hash(obj: Any) -> str:
    return hashlib.sha1(repr(obj).encode()).hexdigest()[:6].upper()


_GROUP_FIELDS = ("trust", "pfc", "pfc_watchdog", "ecn", "scheduling", "dscp_to_tc")


def render_plan(state: DeviceState) -> dict[str, Any]:
    """Names and objects the template prints. Pure data: names derive from content, not order."""
    itfs = state.interfaces
    tcs: set[int] = set(state.dscp_to_tc.values())
    lossless: set[int] = set()
    for itf in itfs.values():
        tcs.update(int(k) for k in itf.ecn)
        tcs.update(int(k) for k in itf.scheduling)
        if itf.dscp_to_tc:
            tcs.update(itf.dscp_to_tc.values())
        if itf.pfc.no_drop:
            lossless.update(itf.pfc.no_drop)
    tcs |= lossless
    fcs = [{"name": f"RC-TC{t}", "queue": t, "no_loss": t in lossless} for t in sorted(tcs)]

    def dscp_entries(m: dict[str, int]) -> list[dict[str, Any]]:
        return [
            {"fc": f"RC-TC{tc}", "bits": dscp_bits(int(d))}
            for d, tc in sorted(m.items(), key=lambda kv: (kv[1], int(kv[0])))
        ]

    classifiers = []
    if state.dscp_to_tc:
        classifiers.append({"kind": "dscp", "name": "RC-DSCP", "entries": dscp_entries(state.dscp_to_tc)})
    port_maps: dict[str, str] = {}
    for name in sorted(itfs, key=natural_key):
        m = itfs[name].dscp_to_tc
        if m:
            cname = f"RC-DSCP-{_short_hash(sorted(m.items()))}"
            port_maps[name] = cname
            if all(c["name"] != cname for c in classifiers):
                classifiers.append({"kind": "dscp", "name": cname, "entries": dscp_entries(m)})
    if any(itf.trust == "pcp" for itf in itfs.values()):
        classifiers.append(
            {
                "kind": "ieee-802.1",
                "name": "RC-PCP",
                "entries": [{"fc": f"RC-TC{t}", "bits": pcp_bits(t)} for t in sorted(tcs)],
            }
        )

    drop_profiles: dict[str, tuple[int, int, int]] = {}
    schedulers: dict[str, dict[str, Any]] = {}
    smaps: dict[str, list[tuple[str, str]]] = {}
    cnps: dict[str, dict[str, Any]] = {}
    bindings: list[dict[str, Any]] = []
    wd = state.pfc_watchdog
    wd_opts = _watchdog_options(wd.detection_ms, wd.polling_ms, wd.restoration_ms, wd.action)

    # one set of objects per group of ports with identical CoS settings
    for names, itf in group_interfaces(state, _GROUP_FIELDS):
        name = names[0]
        b: dict[str, Any] = {"name": name, "mtu": itf.mtu, "link_pause": itf.link_pause}
        # classifier
        if itf.trust == "dscp":
            b["dscp"] = port_maps.get(name, "RC-DSCP" if state.dscp_to_tc else None)
        elif itf.trust == "pcp":
            b["pcp"] = "RC-PCP"
        # scheduler map
        entries: list[tuple[str, str]] = []
        for tc in sorted({*itf.scheduling, *itf.ecn}, key=int):
            sch = itf.scheduling.get(tc)
            ecn = itf.ecn.get(tc)
            parts = [f"RC-TC{tc}"]
            spec: dict[str, Any] = {"priority": None, "rate": None, "dp": None}
            if sch is not None and sch.mode == "strict":
                parts.append("SP")
                spec["priority"] = "strict-high"
            elif sch is not None and sch.mode == "dwrr":
                if sch.bandwidth_percent is not None:
                    parts.append(f"BW{sch.bandwidth_percent}")
                    spec["rate"] = sch.bandwidth_percent
                else:
                    parts.append("WRR")
                    spec["priority"] = "low"
            if (
                ecn is not None
                and ecn.min_percent is not None
                and ecn.max_percent is not None
                and ecn.probability is not None
            ):
                # fill-level percent as stated (bytes are never converted: see the module docstring)
                lo, hi = ecn.min_percent, ecn.max_percent
                dp = f"RC-ECN-{lo}-{hi}-{ecn.probability}"
                drop_profiles[dp] = (lo, hi, ecn.probability)
                parts.append(f"E{lo}-{hi}-{ecn.probability}")
                spec["dp"] = dp
            if len(parts) == 1:
                continue
            sname = "-".join(parts)
            schedulers[sname] = spec
            entries.append((f"RC-TC{tc}", sname))
        if entries:
            smname = f"RC-SM-{_short_hash(entries)}"
            smaps[smname] = entries
            b["sm"] = smname
        # congestion notification profile
        no_drop = itf.pfc.no_drop or []
        pfc_on = bool(itf.pfc.enabled) and bool(no_drop)
        if pfc_on or itf.pfc_watchdog:
            port_map = itf.dscp_to_tc or state.dscp_to_tc
            dscps = sorted(int(d) for d, tc in port_map.items() if tc in no_drop)
            covered = {port_map[str(d)] for d in dscps}
            use_dscp = itf.trust == "dscp" and pfc_on and covered >= set(no_drop)
            parts = ["RC-PFC"]
            if pfc_on:
                parts.append(("DSCP-P" if use_dscp else "P") + "-".join(str(p) for p in no_drop))
            if itf.pfc_watchdog:
                parts.append("WD")
            cname = "-".join(parts)
            cnps[cname] = {
                "in_dscp": [dscp_bits(d) for d in dscps] if use_dscp else [],
                "in_pcp": [] if use_dscp or not pfc_on else [pcp_bits(p) for p in no_drop],
                "out": [(pcp_bits(p), p) for p in no_drop] if pfc_on else [],
                "watchdog": bool(itf.pfc_watchdog),
                "wd_opts": wd_opts,
            }
            b["cnp"] = cname
        for port_name in names:
            port = itfs[port_name]
            bindings.append({**b, "name": port_name, "mtu": port.mtu, "link_pause": port.link_pause})
    bindings.sort(key=lambda x: natural_key(x["name"]))

    hash_excl: dict[str, list[str]] = {}
    if state.ecmp.fields is not None:
        fields = set(state.ecmp.fields)
        hash_excl["inet"] = [k for k, f in HASH_EXCLUDE_V4.items() if f not in fields]
        hash_excl["inet6"] = [k for k, f in HASH_EXCLUDE_V6.items() if f not in fields]
    return {
        "fcs": fcs,
        "classifiers": classifiers,
        "drop_profiles": sorted(drop_profiles.items()),
        "schedulers": sorted(schedulers.items()),
        "scheduler_maps": sorted(smaps.items()),
        "cnps": sorted(cnps.items()),
        "bindings": bindings,
        "hash": hash_excl if state.ecmp.fields is not None else None,
        "seed": state.ecmp.seed,
    }


def _watchdog_options(
    detection_ms: int | None, polling_ms: int | None, restoration_ms: int | None, action: str | None = None
) -> list[str]:
    opts: list[str] = []
    if polling_ms is not None:
        opts.append(f"poll-interval {polling_ms}")
    if detection_ms is not None:
        poll = polling_ms or WD_DEFAULT_POLL_MS
        opts.append(f"detection {max(1, int(round(detection_ms / poll)))}")
    if restoration_ms is not None:
        opts.append(f"recovery {restoration_ms}")  # YANG leaf 'recovery' (200..1000 ms), not 'recovery-time'
    if action == "drop":
        opts.append("watchdog-action drop")
    return opts

FILTERS = {
    "junos_plan": render_plan,
    "dscp_bits": dscp_bits,
    "pcp_bits": pcp_bits,
}
