"""NVIDIA Cumulus Linux (NVUE): the template filters (conversions the templates call)."""

from __future__ import annotations

import json
import math
from typing import Any

from roceconf.names import compress_interfaces, group_interfaces, natural_key
from roceconf.platforms.base import release_at_least
from roceconf.platforms.nvue.roce import roce_plan
from roceconf.platforms.nvue.syntax import _SWP, DEFAULT_POLLING_MS, HASH_NVUE, TRUST_OUT, _expand_names
from roceconf.state import DeviceState, Interface, Sched
from roceconf.units import compress_ints

# ----------------------------------------------------------------------------- template filters
KIND_FIELD = {
    "mapping": ("trust", "dscp_to_tc"),
    "pfc": ("pfc",),
    "congestion-control": ("ecn",),
    "egress-scheduler": ("scheduling",),
    "link-pause": ("link_pause",),
}
KIND_SHORT = {
    "mapping": "map",
    "pfc": "pfc",
    "congestion-control": "ecn",
    "egress-scheduler": "ets",
    "link-pause": "pause",
}


def _stated(itf: Interface, kind: str) -> bool:
    if kind == "mapping":
        return itf.trust is not None or itf.dscp_to_tc is not None
    if kind == "pfc":
        return itf.pfc.enabled is not None or itf.pfc.no_drop is not None
    if kind == "congestion-control":
        return bool(itf.ecn)
    if kind == "egress-scheduler":
        return bool(itf.scheduling)
    return itf.link_pause is True


def qos_plan(state: DeviceState) -> dict[str, Any]:
    """Decide which settings go into ``default-global`` and which into named, attached profiles.

    ``default-global`` is used for a kind only when every port states that setting and then holds
    the most common value; other values become profiles ``roce-<kind>-<n>``. When some ports do not
    state a setting, only named profiles are used, so ports outside the state are not touched.
    """
    plan: dict[str, Any] = {"global": {}, "profiles": {}, "attach": {}}
    names = sorted(state.interfaces, key=natural_key)
    for kind, fields in KIND_FIELD.items():
        sub = DeviceState(platform=state.platform)
        sub.interfaces = {n: state.interfaces[n] for n in names if _stated(state.interfaces[n], kind)}
        groups = group_interfaces(sub, fields) if sub.interfaces else []
        glob = None
        candidates = [g for g in groups if not (kind == "mapping" and g[1].dscp_to_tc is not None)]
        if candidates and len(sub.interfaces) == len(names) and kind != "link-pause":
            glob = max(candidates, key=lambda g: len(g[0]))  # first of the largest (stable)
        plan["global"][kind] = glob[1] if glob else None
        plan["profiles"][kind] = []
        n = 0
        for members, itf in groups:
            if glob is not None and members is glob[0]:
                continue
            n += 1
            pname = f"roce-{KIND_SHORT[kind]}-{n}"
            plan["profiles"][kind].append((pname, itf))
            for m in members:
                plan["attach"].setdefault(m, {})[kind] = pname
    if plan["global"]["mapping"] is None and state.dscp_to_tc:
        plan["global"]["mapping"] = Interface()  # only the device DSCP map
    return plan


def interface_blocks(state: DeviceState, plan: dict[str, Any]) -> list[tuple[str, Interface, dict]]:
    """Ports grouped by what their block renders: [(range key, interface, attachments)]."""
    groups: dict[str, tuple[list[str], Interface, dict]] = {}
    for name in sorted(state.interfaces, key=natural_key):
        itf = state.interfaces[name]
        att = plan["attach"].get(name, {})
        key = json.dumps([itf.mtu, itf.pfc_watchdog, sorted(att.items())])
        groups.setdefault(key, ([], itf, att))[0].append(name)
    out = []
    for members, itf, att in groups.values():
        out.append((",".join(compress_interfaces(members)), itf, att))
    return out


def dscp_by_sp(dscp_to_tc: dict[str, int] | None) -> list[tuple[int, int]]:
    return sorted((int(d), tc) for d, tc in (dscp_to_tc or {}).items())


def traffic_classes(state: DeviceState) -> list[int]:
    """TCs that the state uses (priority N -> TC N identity map is rendered for them). A queue whose only
    entry is a bare ``mode dwrr`` (an unused queue kept off strict priority, see :func:`unused_queues`)
    carries no switch priority, so it gets no egress-queue-mapping line."""
    tcs: set[int] = set(state.dscp_to_tc.values())
    for itf in state.interfaces.values():
        tcs |= set((itf.dscp_to_tc or {}).values())
        tcs |= set(itf.pfc.no_drop or [])
        tcs |= {int(t) for t in itf.ecn}
        tcs |= {int(t) for t, sc in itf.scheduling.items() if sc != UNUSED_QUEUE}
    return sorted(t for t in tcs if 0 <= t <= 7)


#: The scheduling of a queue the intent does not use: DWRR without a bw-percent, which NVIDIA documents as
#: "a DWRR value of 0 (no egress scheduling)" (QOS_DOC, Egress Scheduler) - never strict priority.
UNUSED_QUEUE = Sched(mode="dwrr")


def unused_queues(hints: dict[str, str]) -> tuple[int, ...]:
    """Every queue the intent does not use is stated ``mode dwrr`` (no bw-percent: DWRR 0): NVIDIA's RoCE
    profile only documents TC0/TC3 (DWRR 50 %) and TC6 (strict) ("Default RoCE Configuration", ROCE_DOC),
    so no other queue is left at a default that could be strict (same behaviour as every platform)."""
    return tuple(range(8))


def robustness(detection_ms: int, polling_ms: int | None) -> int:
    """Detection time -> number of polling intervals (rounded up, at least 1)."""
    return max(1, math.ceil(detection_ms / (polling_ms or DEFAULT_POLLING_MS)))


def on_off(value: bool) -> str:
    return "on" if value else "off"


def enable(value: bool) -> str:
    return "enable" if value else "disable"


def hash_rows(fields: list[str]) -> list[tuple[str, bool]]:
    return [(HASH_NVUE[f], f in fields) for f in sorted(HASH_NVUE)]


def hash_word(value: bool, new_words: bool) -> str:
    """ecmp-hash value: ``enabled|disabled`` from CL 5.15 (NVUE "New and Changed NVUE Commands", 5.15),
    ``'on'|'off'`` before (quoted, as `nv config show` prints YAML 1.1 booleans)."""
    if new_words:
        return "enabled" if value else "disabled"
    return quote(on_off(value))


def ar_word(s: DeviceState) -> str:
    """The adaptive-routing switch: ``state: enabled`` from CL 5.15, ``enable: 'on'`` up to 5.14 (NVUE
    reference "Adaptive Routing": "In Cumulus Linux 5.14 and earlier, you specify enable on or enable off
    instead of state enabled or state disabled")."""
    return "state: enabled" if release_at_least(s, "5.15") else "enable: 'on'"


def quote(value: Any) -> str:
    """YAML single-quoted scalar (NVUE prints keys and on/off this way)."""
    return "'" + str(value).replace("'", "''") + "'"


FILTERS = {
    "nvue_plan": qos_plan,
    "nvue_interface_blocks": interface_blocks,
    "nvue_dscp": dscp_by_sp,
    "nvue_tcs": traffic_classes,
    "nvue_robustness": robustness,
    "nvue_on_off": on_off,
    "nvue_enable": enable,
    "nvue_ar_word": ar_word,
    "nvue_hash_rows": hash_rows,
    "nvue_hash_word": hash_word,
    "nvue_roce": roce_plan,
    "nvue_trust": lambda t: TRUST_OUT[t],
    "nvue_ranges": compress_ints,
    "nvue_is_swp": lambda key: all(_SWP.match(n) for n in (_expand_names(key) or ["?"])),
    "nvue_int_keys": lambda d: sorted(d.items(), key=lambda kv: int(kv[0])),
    "q": quote,
}
