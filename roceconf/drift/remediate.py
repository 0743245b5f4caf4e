"""Minimal commands that restore the intent: the platform template rendered over a partial desired state.

Templates render nothing for unknown (None) fields, so a state holding only the drifted values renders only
the commands that fix them. Changes are grouped by disruption: PFC changes re-carve switch buffers (brief
loss) and toggle the link on ConnectX NICs; MTU changes flap links; the rest is hitless.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from roceconf import platforms
from roceconf.drift.compare import DriftItem
from roceconf.jsontext import fields_of
from roceconf.platforms.base import Capabilities
from roceconf.render import render_state
from roceconf.state import DeviceState, Interface

GROUPS = {
    "pfc": (True, "PFC/no-drop change: switches re-carve buffers (brief drops); ConnectX toggles the link"),
    "interface": (True, "port gets the full RoCE policy: buffers re-carved, link may flap"),
    "mtu": (True, "MTU change flaps the link / bounces sessions on most platforms"),
    "other": (False, "classification, marking, scheduling and watchdog settings"),
}


@dataclass
class Remediation:
    group: str
    disruptive: bool
    why: str
    fields: list[str]
    commands: str
    error: str | None = None
    #: Steps the commands cannot do (removing a stale mapping whose syntax depends on the running config).
    manual: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return fields_of(self)


def _strip_header(text: str) -> str:
    """Drop the template's leading comment header (sources, notes): remediation shows commands only.

    A script's shebang line stays; the comment block after it goes."""
    lines = text.splitlines()
    keep = [lines[0]] if lines and lines[0].startswith("#!") else []
    i = len(keep)
    while i < len(lines) and (lines[i].lstrip().startswith(("!", "#")) or not lines[i].strip()):
        i += 1
    return "\n".join(keep + lines[i:]) + "\n"


def _group(feature: str) -> str:
    return feature if feature in ("pfc", "interface", "mtu") else "other"


def partial_state(desired: DeviceState, paths: list[str], port_granular: bool = True) -> DeviceState:
    """A state with only the values at `paths` (plus what their syntax needs) taken from `desired`."""
    # host scripts use the hostname as a guard against running on the wrong machine; on a switch it would
    # only add a 'hostname' command that changes nothing
    plat = platforms.get(desired.platform)
    host = plat.kind != "switch"
    # the fix follows the device's rendering hints (release, switch family); "partial" tells a template that
    # the text is merged into a running config, so it states values explicitly instead of relying on a
    # platform profile's defaults that an out-of-band override may have changed (NVUE qos roce)
    part = DeviceState(
        platform=desired.platform,
        hostname=desired.hostname if host else None,
        hints={**desired.hints, "partial": "true"},
    )
    for path in paths:
        p = path.split(".")
        if p[0] == "dscp_to_tc" and plat.capabilities.dscp_map_replaced:
            # the rendered table replaces the device's (Junos deletes its classifier first, NIC tools flush
            # the port's table): render the whole map, or the fix would drop the other entries
            part.dscp_to_tc = dict(desired.dscp_to_tc)
            if host:  # NIC tools program the table per port: every port that uses the device-level map
                for name, itf in desired.interfaces.items():
                    if itf.dscp_to_tc is None and itf.trust in ("dscp", "pcp"):
                        part.interfaces[name] = itf.model_copy(deep=True)
        elif p[0] == "dscp_to_tc" and len(p) > 1 and p[1] in desired.dscp_to_tc:
            part.dscp_to_tc[p[1]] = desired.dscp_to_tc[p[1]]
        elif p[0] == "interfaces" and len(p) > 1 and p[1] in desired.interfaces:
            src = desired.interfaces[p[1]]
            if len(p) == 2 or port_granular:
                # the whole port: on profile-based platforms (EOS qos profiles, NVUE profiles) a port takes
                # one complete profile, so rendering a subset would replace its other settings. A port's
                # rendering also reads device-level settings: the DSCP map (host scripts flush and re-add
                # it per port; Junos derives the PFC profile's DSCP code points from it) and the watchdog
                # timers (Junos puts them in the port's PFC profile). Without them the fix would state
                # other values than the intent.
                part.interfaces[p[1]] = src.model_copy(deep=True)
                part.dscp_to_tc = dict(desired.dscp_to_tc)
                part.pfc_watchdog = desired.pfc_watchdog.model_copy()
                continue
            dst = part.interfaces.setdefault(p[1], Interface())
            key = p[2]
            if key in ("ecn", "scheduling") and len(p) > 3:
                getattr(dst, key)[p[3]] = getattr(src, key)[p[3]].model_copy()
            elif key == "rdma" and src.rdma is not None:
                if dst.rdma is None:
                    dst.rdma = type(src.rdma)(device=src.rdma.device)
                if len(p) > 3:
                    setattr(dst.rdma, p[3], getattr(src.rdma, p[3]))
                else:
                    dst.rdma = src.rdma.model_copy(deep=True)
            elif key == "pfc":
                dst.pfc = src.pfc.model_copy(deep=True)
            else:
                val = getattr(src, key)
                setattr(dst, key, val.model_copy(deep=True) if hasattr(val, "model_copy") else val)
        elif p[0] == "ecmp":
            part.ecmp = desired.ecmp.model_copy(deep=True)
        elif p[0] == "pfc_watchdog" and len(p) > 1:
            setattr(part.pfc_watchdog, p[1], getattr(desired.pfc_watchdog, p[1]))
    return part


def _where(it: DriftItem) -> str:
    return f" ({it.location})" if it.location else ""


def _manual_dscp(it: DriftItem, caps: Capabilities) -> str | None:
    """What the engineer must remove by hand for a DSCP drift, or None when the commands cover it."""
    if caps.dscp_map_replaced:
        return None  # the rendered table replaces the device's: stale entries go with it
    dscp = it.field.split(".")[-1]
    where = _where(it)
    if it.expected is None:
        return (
            f"DSCP {dscp} maps to traffic class {it.actual}{where} but the intent leaves it unmapped: "
            "remove that mapping by hand"
        )
    if it.actual is not None and caps.dscp_match_additive:
        return (
            f"DSCP {dscp} is still matched for traffic class {it.actual}{where}: remove it there by hand "
            "(the commands add it to the intended class; the old match stays and may win)"
        )
    return None


def _extra_members(it: DriftItem) -> list[Any]:
    """Members of a drifted list value that the intent does not have (an extra no-drop priority)."""
    if isinstance(it.actual, list) and isinstance(it.expected, list):
        return sorted(set(it.actual) - set(it.expected))
    return []


#: fixes already rendered in a `shared_fixes()` block: key -> (the desired state, text, error)
_MEMO: dict[tuple, tuple[DeviceState, str, str | None]] | None = None


@contextmanager
def shared_fixes() -> Iterator[None]:
    """Within the block, a fix is rendered once per desired values and drifted fields: the devices of one
    intent entry share their desired state's values (``desired.desired_states``), so a thousand leaves with
    the same drift render one fix. The key is the identity of the shared values (kept alive by the memo),
    plus the hostname where the platform's fix states it (host scripts)."""
    global _MEMO
    prev, _MEMO = _MEMO, {}
    try:
        yield
    finally:
        _MEMO = prev


def _fix(desired: DeviceState, fields: list[str], group: str, host: bool) -> tuple[str, str | None]:
    """The fix commands for `fields` of one disruption group (text, error)."""
    memo = _MEMO
    key: tuple = ()
    if memo is not None:
        d = desired
        key = (
            d.platform,
            d.hostname if host else None,
            id(d.interfaces),
            id(d.dscp_to_tc),
            id(d.pfc_watchdog),
            id(d.ecmp),
            id(d.hints),
            tuple(fields),
            group,
        )
        hit = memo.get(key)
        if hit is not None:
            return hit[1], hit[2]
    try:
        text, err = (
            _strip_header(render_state(partial_state(desired, fields, port_granular=group != "mtu"))),
            None,
        )
        if not text.strip():
            # the platform states these device-level settings per port (Junos keeps the watchdog
            # timers in each port's PFC profile): the fix re-states the ports
            ports = [f"interfaces.{n}" for n in desired.interfaces]
            text = _strip_header(render_state(partial_state(desired, fields + ports)))
    except Exception as e:  # noqa: BLE001 - a template that cannot express a partial state
        text, err = "", f"{type(e).__name__}: {e}"
    if memo is not None:
        memo[key] = (desired, text, err)
    return text, err


def remediation(
    desired: DeviceState,
    items: list[DriftItem],
    is_host: bool,
    actual: DeviceState | None = None,
    running: str | None = None,
) -> list[Remediation]:
    """Fix commands per disruption group. With the parsed ``actual`` state and the ``running`` text it came
    from, merge-applied CLIs also get ``no`` commands for the stale interface-level lines behind the drift."""
    plat = platforms.get(desired.platform)
    caps = plat.capabilities
    by: dict[str, list[str]] = {}
    manual: dict[str, list[str]] = {}
    for it in items:
        group = _group(it.feature)
        extra = _extra_members(it) if caps.extra_members_stay else []
        if extra:
            note = f"{it.field.rpartition('.')[2]} {extra} is set beyond the intent{_where(it)}: remove it by hand"
            if note not in manual.get(group, []):
                manual.setdefault(group, []).append(note)
        if it.field.startswith("dscp_to_tc"):
            note = _manual_dscp(it, caps)
            if note is not None:
                manual.setdefault(group, []).append(note)
            if it.expected is None and not caps.dscp_map_replaced:
                continue  # nothing to render: the mapping has to go
        by.setdefault(group, []).append(it.field)
    out = []
    for group in ("interface", "pfc", "mtu", "other"):
        if group not in by and group not in manual:
            continue
        disruptive, why = GROUPS[group]
        if group == "pfc" and is_host:
            why = "PFC mask change on the NIC: mlx5 toggles the link (link flap)"
        text, err = "", None
        if group in by:
            text, err = _fix(desired, by[group], group, plat.kind != "switch")
            if plat.negate_stale is not None and actual is not None and running is not None and not err:
                lines = sorted({n for f in by[group] for n in actual.lines_of(f)})
                text = plat.negate_stale(running, lines, text) + text
        out.append(Remediation(group, disruptive, why, by.get(group, []), text, err, manual.get(group, [])))
    return out
