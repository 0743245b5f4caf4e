"""Cisco NX-OS: the template filters (conversions the templates call)."""

from __future__ import annotations

import math
from typing import Any

from roceconf.names import compress_interfaces, natural_key
from roceconf.platforms.nxos.syntax import (
    _KBYTE,
    NQ_POLICY,
    QOS_POLICY,
    QOS_POLICY_COS,
    QUEUING_POLICY,
    WD_INTERVAL_DEFAULT_MS,
    WD_TIMERS,
)
from roceconf.state import DeviceState, PfcWatchdog
from roceconf.units import compress_ints


# --------------------------------------------------------------------------- template filters
def _kbytes(value: int) -> str:
    """ECN threshold in the confirmed ``<n> kbytes`` form (1 kbyte = 1000 bytes, as roceconf units)."""
    if value % _KBYTE == 0:
        return f"{value // _KBYTE} kbytes"
    return f"{value} bytes"


def _queue_class(tc: int | str) -> str:
    tc = int(tc)
    return "c-out-8q-q-default" if tc == 0 else f"c-out-8q-q{tc}"


def _nq_class(tc: int | str) -> str:
    tc = int(tc)
    return "c-8q-nq-default" if tc == 0 else f"c-8q-nq{tc}"


def _first(values: list[Any]) -> Any:
    return values[0] if values else None


def _plan(state: DeviceState) -> dict[str, Any]:
    """Device-wide objects for the template (NX-OS makes PFC no-drop, ECN and scheduling global)."""
    ports = [state.interfaces[n] for n in sorted(state.interfaces, key=natural_key)]
    no_drop = _first([p.pfc.no_drop for p in ports if p.pfc.no_drop is not None])
    ecn = _first([p.ecn for p in ports if p.ecn]) or {}
    sched = _first([p.scheduling for p in ports if p.scheduling]) or {}
    tcs = sorted({int(t) for t in ecn} | {int(t) for t in sched})
    strict = sorted((int(t) for t, sc in sched.items() if sc.mode == "strict"), reverse=True)
    queues = []
    for tc in tcs:
        sc = sched.get(str(tc))
        queues.append(
            {
                "cls": _queue_class(tc),
                "strict_level": strict.index(tc) + 1 if tc in strict else None,
                # dwrr without a weight (a queue the intent does not use): 0 % of the remaining bandwidth
                "bandwidth": (sc.bandwidth_percent or 0) if sc is not None and sc.mode == "dwrr" else None,
                "ecn": ecn.get(str(tc)),
            }
        )
    trusts = {p.trust for p in ports}
    return {
        "dscp": [(tc, compress_ints(ds)) for tc, ds in _by_tc(state.dscp_to_tc)],
        "qos_dscp": bool(state.dscp_to_tc) or "dscp" in trusts,
        "qos_cos": "pcp" in trusts,
        "no_drop": no_drop,
        "nq_mtu": state.class_mtu,
        "queues": queues,
        "queuing": bool(queues),
        "nq_policy": NQ_POLICY,
        "queuing_policy": QUEUING_POLICY,
    }


def _by_tc(dscp_to_tc: dict[str, int]) -> list[tuple[int, list[int]]]:
    by: dict[int, list[int]] = {}
    for d, tc in dscp_to_tc.items():
        by.setdefault(int(tc), []).append(int(d))
    return [(tc, sorted(ds)) for tc, ds in sorted(by.items())]


def _interface_list(names: list[str]) -> str:
    return ", ".join(compress_interfaces(names))


def _qos_policy(trust: str | None) -> str | None:
    return {"dscp": QOS_POLICY, "pcp": QOS_POLICY_COS}.get(trust or "")


def _onoff(value: bool) -> str:
    return "on" if value else "off"


def _ecmp_line(state: DeviceState) -> str | None:
    e = state.ecmp
    if not e.fields:
        return None
    f = set(e.fields)

    def kind(src: str, dst: str) -> str | None:
        if src in f and dst in f:
            return "source-destination"
        return "source" if src in f else ("destination" if dst in f else None)

    ip = kind("src_ip", "dst_ip")
    port = kind("src_port", "dst_port")
    if ip is None:
        return None  # the NX-OS grammar needs 'address'
    parts = ["ip load-sharing address", ip]
    if port:
        parts += ["port", port]
    if e.symmetric:
        parts.append("symmetric")
    if e.seed is not None:
        parts += ["universal-id", str(e.seed)]
    return " ".join(parts)


def _wd_timers(wd: PfcWatchdog) -> list[str]:
    """The global watchdog timer lines (``WD_TIMERS``): the interval is the polling time, detection and
    restoration are multipliers of it (rounded up; validation refuses times that are not whole multiples,
    RC131). Without a polling time the multipliers count the default interval (100 ms)."""
    out = []
    interval = wd.polling_ms or WD_INTERVAL_DEFAULT_MS
    for words, (field, _lo, _hi) in WD_TIMERS.items():
        value = getattr(wd, field)
        if value is None:
            continue
        n = value if field == "polling_ms" else max(1, math.ceil(value / interval))
        out.append(f"priority-flow-control {' '.join(words)} {n}")
    return out


FILTERS = {
    "nxos_wd_timers": _wd_timers,
    "nxos_kbytes": _kbytes,
    "nxos_plan": _plan,
    "nxos_interfaces": _interface_list,
    "nxos_qos_policy": _qos_policy,
    "nxos_onoff": _onoff,
    "nxos_ecmp": _ecmp_line,
    "nxos_nq_class": _nq_class,
}
