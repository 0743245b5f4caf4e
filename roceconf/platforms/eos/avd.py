"""A DeviceState as Arista AVD structured config (the input of ``pyavd.get_device_config``).

Used twice: ``bench/bench_render.py`` times roceconf's EOS render against Arista's own renderer for the
same content, and ``tests/conformance/test_eos_avd.py`` renders desired states with pyavd and parses
the Arista-authored text back with roceconf's EOS parser (the state must come back the same).

Keys follow AVD's ``eos_cli_config_gen`` schema (github.com/aristanetworks/avd, python-avd/pyavd/
_eos_cli_config_gen/schema: ``qos.map.dscp``, ``qos_profiles[].{trust, priority_flow_control, tx_queues,
uc_tx_queues}``, ``priority_flow_control.watchdog``, ``ethernet_interfaces[].{mtu, service_profile,
flowcontrol.received}``).

What AVD cannot express, and so is left out here (listed in ``NOT_EXPRESSED``):
"""

from __future__ import annotations

from typing import Any

from roceconf.names import group_interfaces
from roceconf.platforms.eos.render import profile_name
from roceconf.state import DeviceState, Interface

#: DeviceState fields AVD's eos_cli_config_gen schema has no key for (why), so the pyavd cross-check
#: leaves them out of the comparison.
NOT_EXPRESSED: dict[str, str] = {
    "ecmp.fields": "no 'ip load-sharing trident fields' key in the eos_cli_config_gen schema (AVD renders "
    "load-balance profiles only for Sand switches: 'load_balance_policies')",
    "ecmp.seed": "no hash-seed key in the schema (and no documented EOS command: roceconf reports it, RC150)",
    "ecmp.symmetric": "no symmetric-hashing key in the schema",
    "interfaces.*.link_pause (send)": "ethernet_interfaces[].flowcontrol has 'received' only; roceconf "
    "renders 'flowcontrol send' as well, AVD's text carries the receive side (the parser reads pause as "
    "on if either side is on, so the state is the same)",
}

_TRUST = {"dscp": "dscp", "pcp": "cos", "none": "disabled"}


def _seconds(ms: int) -> float | int:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def _queues(itf: Interface) -> list[dict[str, Any]]:
    out = []
    for tc in sorted({int(k) for k in itf.ecn} | {int(k) for k in itf.scheduling}):
        q: dict[str, Any] = {"id": tc}
        sch = itf.scheduling.get(str(tc))
        if sch is not None and sch.mode is not None:
            q["priority"] = "priority strict" if sch.mode == "strict" else "no priority"
        if sch is not None and sch.bandwidth_percent is not None:
            q["bandwidth_percent"] = sch.bandwidth_percent
        e = itf.ecn.get(str(tc))
        if e is not None and e.min_bytes is not None and e.max_bytes is not None:
            thr: dict[str, Any] = {"units": "bytes", "min": e.min_bytes, "max": e.max_bytes}
            if e.probability is not None:
                thr["max_probability"] = e.probability
            q["random_detect"] = {"ecn": {"threshold": thr}}
        out.append(q)
    return out


def _profile(name: str, itf: Interface, sand: bool) -> dict[str, Any]:
    p: dict[str, Any] = {"name": name}
    if itf.trust is not None:
        p["trust"] = _TRUST[itf.trust]
    pfc: dict[str, Any] = {}
    if itf.pfc.enabled is not None:
        pfc["enabled"] = itf.pfc.enabled
    if itf.pfc.no_drop is not None:
        pfc["priorities"] = [{"priority": n, "no_drop": True} for n in itf.pfc.no_drop]
    if itf.pfc_watchdog is not None:
        pfc["watchdog"] = {"enabled": itf.pfc_watchdog}
    if pfc:
        p["priority_flow_control"] = pfc
    queues = _queues(itf)
    if queues:
        p["tx_queues" if sand else "uc_tx_queues"] = queues
    return p


def raw_cli(state: DeviceState) -> str:
    """EOS lines for what the schema has no key for, for AVD's ``eos_cli`` raw passthrough (rendered
    verbatim at the end of the config): the ECMP hash fields line (same syntax and source as
    templates/eos/device.j2; no seed or symmetric hashing line, which roceconf does not render either)."""
    from roceconf.platforms.eos.render import eos_hash_keywords

    f = state.ecmp.fields
    if f and state.hints.get("family") != "sand" and eos_hash_keywords(f):
        return f"ip load-sharing trident fields ip {eos_hash_keywords(f)}"
    return ""


def structured_config(state: DeviceState, passthrough: bool = False) -> dict[str, Any]:
    """AVD structured config with the content of an EOS DeviceState (what AVD's schema can express; with
    `passthrough`, also `raw_cli` as ``eos_cli``, so the whole state is carried)."""
    sand = state.hints.get("family") == "sand"
    sc: dict[str, Any] = {}
    if state.hostname:
        sc["hostname"] = state.hostname
    if state.dscp_to_tc:
        by_tc: dict[int, list[str]] = {}
        for d, tc in sorted(state.dscp_to_tc.items(), key=lambda kv: int(kv[0])):
            by_tc.setdefault(tc, []).append(d)
        sc["qos"] = {
            "map": {"dscp": [f"{' '.join(ds)} to traffic-class {tc}" for tc, ds in sorted(by_tc.items())]}
        }
    profiles: dict[str, dict[str, Any]] = {}
    ports: list[dict[str, Any]] = []
    for names, itf in group_interfaces(state):
        name = profile_name(itf)
        if name is not None and name not in profiles:
            profiles[name] = _profile(name, itf, sand)
        for n in names:
            e: dict[str, Any] = {"name": n}
            if itf.mtu is not None:
                e["mtu"] = itf.mtu
            if itf.link_pause is not None:
                e["flowcontrol"] = {"received": "on" if itf.link_pause else "off"}
            if name is not None:
                e["service_profile"] = name
            ports.append(e)
    if profiles:
        sc["qos_profiles"] = list(profiles.values())
    eth = [p for p in ports if p["name"].startswith("Ethernet")]
    pch = [p for p in ports if p["name"].startswith("Port-Channel")]
    if eth:
        sc["ethernet_interfaces"] = eth
    if pch:
        sc["port_channel_interfaces"] = pch
    wd = state.pfc_watchdog
    w: dict[str, Any] = {}
    if wd.detection_ms is not None:
        w["timeout"] = _seconds(wd.detection_ms)
    if wd.restoration_ms is not None:
        w["recovery_time"] = _seconds(wd.restoration_ms)
    if wd.polling_ms is not None:
        w["polling_interval"] = _seconds(wd.polling_ms)
    if wd.action is not None:
        w["action"] = wd.action
    if w:
        sc["priority_flow_control"] = {"watchdog": w}
    if state.ecmp.dynamic == "dynamic":  # schema ip_hardware.fib.load_balance_distribution.dynamic
        sc["ip_hardware"] = {"fib": {"load_balance_distribution": {"dynamic": {"enabled": True}}}}
    raw = "\n".join(x for x in [raw_cli(state) if passthrough else "", *state.extra_config] if x)
    if raw:  # extra_config: AVD's own raw passthrough, rendered at the end of the config as roceconf does
        sc["eos_cli"] = raw
    return sc


def comparable(state: DeviceState) -> dict[str, Any]:
    """The semantic state without the fields AVD cannot express (see ``NOT_EXPRESSED``)."""
    sem = state.semantic()
    sem["ecmp"] = {**sem["ecmp"], "fields": None, "seed": None, "symmetric": None}
    return sem


__doc__ = (__doc__ or "") + "".join(f"\n* ``{k}``: {v}" for k, v in NOT_EXPRESSED.items())
