"""SONiC: the template filters (conversions the templates call)."""

from __future__ import annotations

import json
from typing import Any

from roceconf.names import group_interfaces
from roceconf.platforms.sonic.parser import Tables
from roceconf.platforms.sonic.syntax import DEVICE_MAP, HASH_TO_SONIC
from roceconf.state import DeviceState, Ecn, Interface, Sched
from roceconf.units import compress_ints


def _sched_name(s: Sched) -> str | None:
    if s.mode == "strict":
        return "ROCE_STRICT"
    if s.mode == "dwrr":
        return f"ROCE_DWRR_{s.bandwidth_percent}" if s.bandwidth_percent is not None else "ROCE_DWRR"
    return None


def _sched_fields(s: Sched) -> dict[str, str]:
    if s.mode == "strict":
        return {"type": "STRICT"}
    out = {"type": "DWRR"}
    if s.bandwidth_percent is not None:
        out["weight"] = str(s.bandwidth_percent)
    return out


def _ecn_stated(e: Ecn) -> bool:
    return any(v is not None for v in (e.min_bytes, e.max_bytes, e.probability))


def _wred_name(e: Ecn) -> str:
    return "ROCE_ECN_" + "_".join(
        "x" if v is None else str(v) for v in (e.min_bytes, e.max_bytes, e.probability)
    )


def _wred_fields(e: Ecn) -> dict[str, str]:
    out = {"ecn": "ecn_all"}
    for color in ("green", "yellow", "red"):
        out[f"wred_{color}_enable"] = "true"
        if e.min_bytes is not None:
            out[f"{color}_min_threshold"] = str(e.min_bytes)
        if e.max_bytes is not None:
            out[f"{color}_max_threshold"] = str(e.max_bytes)
        if e.probability is not None:
            out[f"{color}_drop_probability"] = str(e.probability)
    return out


def _binds_qos(itf: Interface) -> bool:
    """Ports whose PORT_QOS_MAP entry carries the identity TC/queue/PG bindings."""
    return (
        itf.pfc.enabled is not None
        or itf.pfc.no_drop is not None
        or bool(itf.ecn)
        or bool(itf.scheduling)
        or itf.trust is not None
    )


def f_device_metadata(s: DeviceState) -> Tables:
    md: dict[str, str] = {}
    if s.hostname is not None:
        md["hostname"] = s.hostname
    if s.pfc_watchdog.enabled is not None:
        md["default_pfcwd_status"] = "enable" if s.pfc_watchdog.enabled else "disable"
    return {"localhost": md} if md else {}


def f_port(s: DeviceState) -> Tables:
    return {n: {"mtu": str(i.mtu)} for n, i in s.interfaces.items() if i.mtu is not None}


def f_dscp_to_tc_map(s: DeviceState) -> Tables:
    out: Tables = {}
    if s.dscp_to_tc:
        out[DEVICE_MAP] = {str(d): str(tc) for d, tc in s.dscp_to_tc.items()}
    for n, i in s.interfaces.items():
        if i.dscp_to_tc:
            out[f"{DEVICE_MAP}_{n}"] = {str(d): str(tc) for d, tc in i.dscp_to_tc.items()}
    return out


def _identity(s: DeviceState, pred: Any = _binds_qos) -> Tables:
    if any(pred(i) for i in s.interfaces.values()):
        return {DEVICE_MAP: {str(x): str(x) for x in range(8)}}
    return {}


def _lossless(s: DeviceState) -> list[int]:
    return sorted(
        {p for i in s.interfaces.values() if i.pfc.enabled and i.pfc.no_drop for p in i.pfc.no_drop}
    )


def f_tc_to_pg_map(s: DeviceState) -> Tables:
    """TC_TO_PRIORITY_GROUP_MAP: a lossless TC N -> PG N, every lossy TC (CNP too) -> PG0, the one ingress PG
    that has a (lossy) buffer profile - as community files/build_templates/qos_config.j2 (AZURE: 3->3, 4->4,
    others 0; 7->7 is left out: roceconf does not reserve a control PG)."""
    if not any(_binds_qos(i) for i in s.interfaces.values()):
        return {}
    lossless = set(_lossless(s))
    return {DEVICE_MAP: {str(tc): str(tc if tc in lossless else 0) for tc in range(8)}}


#: sonic-device_metadata.yang, leaf buffer_model: "The dynamic model ... is used by Mellanox so far. The
#: traditional model represents the model in which all the buffer configurations are statically configured
#: in CONFIG_DB tables. This is the default model used by all other vendors".
BUFFER_MODEL_SOURCE = "sonic-buildimage src/sonic-yang-models/yang-models/sonic-device_metadata.yang (buffer_model)"


def render_hints(asic: str | None, model: str | None) -> dict[str, str]:
    """The buffer model a SONiC switch runs unless the intent says (``buffer_model``): dynamic on NVIDIA
    (Mellanox) Spectrum, traditional on every other ASIC (``BUFFER_MODEL_SOURCE``)."""
    return {"buffer_model": "dynamic" if (asic or "").lower().startswith("spectrum") else "traditional"}


def f_buffer_pg(s: DeviceState) -> Tables:
    """BUFFER_PG|<port>|<lossless PGs>, per buffer model (``hints["buffer_model"]``, default dynamic for a
    state without hints).

    Dynamic: profile "NULL", as files/build_templates/buffers_config.j2 writes the lossless PGs in the
    dynamic buffer model ("<port>|3-4": {"profile": "NULL"}): buffermgrd computes the headroom from the
    port's speed, cable length and MTU (sonic-net/SONiC doc/qos/dynamically-headroom-calculation.md).
    Traditional: nothing - "NULL" is understood by the dynamic buffermgrd only; the traditional one
    (sonic-swss cfgmgr/buffermgr.cpp doSpeedUpdateTask) creates BUFFER_PROFILE pg_lossless_<speed>_<cable>
    _profile from pg_profile_lookup.ini and writes BUFFER_PG <port>|<lossless PGs> with it itself, from
    the port's speed, CABLE_LENGTH and PORT_QOS_MAP pfc_enable (which roceconf renders). PG0
    (ingress_lossy_profile) is left to the device's buffer template. sonic-buffer-pg.yang: key port +
    pg_num "[0-7]((-)[0-7])?", profile leafref or "NULL"."""
    if s.hints.get("buffer_model") == "traditional":
        return {}
    out: Tables = {}
    for n, i in s.interfaces.items():
        if i.pfc.enabled and i.pfc.no_drop:
            # one key per run of consecutive PGs: pg_num is "N" or "N-M", never a list
            runs: list[list[int]] = []
            for p in sorted(set(i.pfc.no_drop)):
                if runs and runs[-1][-1] == p - 1:
                    runs[-1].append(p)
                else:
                    runs.append([p])
            for r in runs:
                out[f"{n}|{r[0]}" if len(r) == 1 else f"{n}|{r[0]}-{r[-1]}"] = {"profile": "NULL"}
    return out


def f_dot1p_to_tc_map(s: DeviceState) -> Tables:
    return _identity(s, lambda i: i.trust == "pcp")


def f_identity_map(s: DeviceState) -> Tables:
    """TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP and MAP_PFC_PRIORITY_TO_QUEUE: priority N = TC N = queue N."""
    return _identity(s)


def f_port_qos_map(s: DeviceState) -> Tables:
    out: Tables = {}
    if s.dscp_to_tc:
        out["global"] = {"dscp_to_tc_map": DEVICE_MAP}
    for n, i in s.interfaces.items():
        e: dict[str, str] = {}
        if i.trust == "dscp":
            e["dscp_to_tc_map"] = f"{DEVICE_MAP}_{n}" if i.dscp_to_tc else DEVICE_MAP
        elif i.trust == "pcp":
            e["dot1p_to_tc_map"] = DEVICE_MAP
        if _binds_qos(i):
            e.update(tc_to_queue_map=DEVICE_MAP, tc_to_pg_map=DEVICE_MAP, pfc_to_queue_map=DEVICE_MAP)
        if i.pfc.enabled is False:
            e["pfc_enable"] = ""
        elif i.pfc.no_drop:
            e["pfc_enable"] = ",".join(str(x) for x in sorted(i.pfc.no_drop))
        if i.pfc_watchdog is False:
            e["pfcwd_sw_enable"] = ""
        elif i.pfc_watchdog and i.pfc.no_drop and i.pfc.enabled is not False:
            e["pfcwd_sw_enable"] = ",".join(str(x) for x in sorted(i.pfc.no_drop))
        if e:
            out[n] = e
    return out


def f_queue(s: DeviceState) -> Tables:
    """QUEUE|<port>|<q or q-range>; consecutive queues with the same binding share one range key."""
    out: Tables = {}
    for names, itf in group_interfaces(s, ("ecn", "scheduling")):
        per_q: dict[int, dict[str, str]] = {}
        for tc, sch in itf.scheduling.items():
            name = _sched_name(sch)
            if name:
                per_q.setdefault(int(tc), {})["scheduler"] = name
        for tc, ecn in itf.ecn.items():
            if _ecn_stated(ecn):
                per_q.setdefault(int(tc), {})["wred_profile"] = _wred_name(ecn)
        runs: list[tuple[list[int], dict[str, str]]] = []
        for q in sorted(per_q):
            if runs and runs[-1][0][-1] == q - 1 and runs[-1][1] == per_q[q]:
                runs[-1][0].append(q)
            else:
                runs.append(([q], per_q[q]))
        for n in names:
            for qs, fields in runs:
                out[f"{n}|{compress_ints(qs)}"] = dict(fields)
    return out


def f_scheduler(s: DeviceState) -> Tables:
    out: Tables = {}
    for i in s.interfaces.values():
        for sch in i.scheduling.values():
            name = _sched_name(sch)
            if name:
                out[name] = _sched_fields(sch)
    return out


def f_wred_profile(s: DeviceState) -> Tables:
    out: Tables = {}
    for i in s.interfaces.values():
        for ecn in i.ecn.values():
            if _ecn_stated(ecn):
                out[_wred_name(ecn)] = _wred_fields(ecn)
    return out


def f_pfc_wd(s: DeviceState) -> Tables:
    wd = s.pfc_watchdog
    out: Tables = {}
    if wd.polling_ms is not None:
        out["GLOBAL"] = {"POLL_INTERVAL": str(wd.polling_ms)}
    port: dict[str, str] = {}
    if wd.action is not None:
        port["action"] = wd.action
    if wd.detection_ms is not None:
        port["detection_time"] = str(wd.detection_ms)
    if wd.restoration_ms is not None:
        port["restoration_time"] = str(wd.restoration_ms)
    for n, i in s.interfaces.items():
        if i.pfc_watchdog:
            out[n] = dict(port)
    return out


def f_switch_hash(s: DeviceState) -> Tables:
    if s.ecmp.fields is None:
        return {}
    order = list(HASH_TO_SONIC)  # stable, documented order
    fields = sorted(s.ecmp.fields, key=order.index)
    return {"GLOBAL": {"ecmp_hash": [HASH_TO_SONIC[f] for f in fields]}}


def f_config_db_json(tables: dict[str, Tables]) -> str:
    """Drop empty tables; pretty-print with sorted keys (what ``config load`` reads)."""
    doc = {t: e for t, e in tables.items() if e}
    try:
        return _dumps4(doc, "\n")
    except _NotPlain:  # a value the writer below does not know: the standard (pure-Python) encoder
        return json.dumps(doc, indent=4, sort_keys=True)


class _NotPlain(Exception):
    pass


_STR = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


def _dumps4(v: Any, nl: str) -> str:
    """``json.dumps(v, indent=4, sort_keys=True)`` for objects with string keys, lists, strings, ints, booleans
    and None (raises _NotPlain for anything else): the same text, without the encoder's generator per value
    (``indent`` makes ``json`` use its pure-Python encoder)."""
    if type(v) is str:
        return _STR(v)
    if type(v) is dict:
        if not v:
            return "{}"
        inner = nl + "    "
        sep = "," + inner
        for k in v:
            if type(k) is not str:
                raise _NotPlain
        return (
            "{"
            + inner
            + sep.join(_STR(k) + ": " + (_STR(x) if type(x) is str else _dumps4(x, inner)) for k, x in sorted(v.items()))
            + nl
            + "}"
        )
    if type(v) is list:
        if not v:
            return "[]"
        inner = nl + "    "
        return "[" + inner + ("," + inner).join(_dumps4(x, inner) for x in v) + nl + "]"
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is int:
        return int.__repr__(v)
    raise _NotPlain


FILTERS = {
    "sonic_device_metadata": f_device_metadata,
    "sonic_port": f_port,
    "sonic_dscp_to_tc_map": f_dscp_to_tc_map,
    "sonic_dot1p_to_tc_map": f_dot1p_to_tc_map,
    "sonic_identity_map": f_identity_map,
    "sonic_tc_to_pg_map": f_tc_to_pg_map,
    "sonic_buffer_pg": f_buffer_pg,
    "sonic_port_qos_map": f_port_qos_map,
    "sonic_queue": f_queue,
    "sonic_scheduler": f_scheduler,
    "sonic_wred_profile": f_wred_profile,
    "sonic_pfc_wd": f_pfc_wd,
    "sonic_switch_hash": f_switch_hash,
    "sonic_config_db_json": f_config_db_json,
}
