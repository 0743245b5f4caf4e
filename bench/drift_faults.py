"""Saved configs of a fabric with a few injected faults (for the drift benchmarks and the drift report test).

`faulted_configs(fab)` renders every device from its desired state, and for a handful of devices renders a
changed state instead: a device config a real switch or host could be running. One fault per switch platform
present (NX-OS, Junos, NVUE, SONiC, EOS, in that order), then host NICs, until `count` faults.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from roceconf.compile import output_name
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_states
from roceconf.render import render_state
from roceconf.state import DeviceState


def _second(st: DeviceState) -> str:
    names = list(st.interfaces)
    return names[min(1, len(names) - 1)]


def _mtu_all(st: DeviceState) -> str:
    for itf in st.interfaces.values():  # NX-OS states the MTU once, in the network-qos class
        itf.mtu = 9000
    return "mtu 9000 on every port"


def _mtu_one(st: DeviceState) -> str:
    p = _second(st)
    st.interfaces[p].mtu = 1500
    return f"{p} mtu 1500"


def _no_drop(st: DeviceState) -> str:
    p = _second(st)
    st.interfaces[p].pfc.no_drop = []
    return f"{p} loses no-drop"


def _ecn(st: DeviceState) -> str:
    p = _second(st)
    ecn = st.interfaces[p].ecn
    tc = sorted(ecn)[0]
    ecn[tc].max_bytes = (ecn[tc].max_bytes or 1_000_000) * 2
    return f"{p} ECN max of TC {tc} doubled"


def _dscp(st: DeviceState) -> str:
    # the highest DSCP not already in TC 0 (Junos and SONiC map all 64 DSCPs, most of them to TC 0)
    d = sorted((k for k, tc in st.dscp_to_tc.items() if tc != 0), key=int)[-1]
    st.dscp_to_tc[d] = 0
    return f"DSCP {d} -> TC 0"


def _cnp(st: DeviceState) -> str:
    p = _second(st)
    rdma = st.interfaces[p].rdma
    assert rdma is not None
    rdma.cnp_dscp = 40
    return f"{p} CNP DSCP 40"


SWITCH_FAULTS: dict[str, Callable[[DeviceState], str]] = {
    "nxos": _mtu_all,
    "junos": _dscp,
    "nvue": _ecn,
    "sonic": _no_drop,
    "eos": _mtu_one,
}
HOST_FAULTS: tuple[Callable[[DeviceState], str], ...] = (_mtu_one, _cnp)


def faulted_configs(fab: Fabric, count: int = 5) -> tuple[dict[str, str], dict[str, str]]:
    """({file name: config text} for every device, {device: the fault injected})."""
    states = desired_states(fab)
    names = list(states)
    picks: list[tuple[str, Callable[[DeviceState], str]]] = []
    for plat, fault in SWITCH_FAULTS.items():
        devs = [n for n in names if fab.devices[n].platform == plat]
        if devs and len(picks) < count:
            picks.append((devs[len(devs) // 2], fault))
    hosts = [n for n in names if fab.devices[n].is_host]
    left = count - len(picks)
    for i in range(left):
        picks.append((hosts[(i + 1) * len(hosts) // (left + 1)], HOST_FAULTS[i % 2]))
    faults: dict[str, str] = {}
    changed: dict[str, DeviceState] = {}
    for name, fault in picks:
        st = states[name].model_copy(deep=True)
        faults[name] = fault(st)
        changed[name] = st
    files = {
        output_name(n, fab.devices[n].platform): render_state(changed.get(n, st)) for n, st in states.items()
    }
    return files, faults


#: drift found by `roceconf drift --configs` before the fast audit (one DeepDiff per device, threads), on
#: `bench/fabricgen.py --gpus 32768` with this module's five faults: device -> [(field, severity)]. Checked by
#: bench/bench_scale.py (its `drift --configs` phase on the 32k fabric); tests/test_drift_reports.py proves the
#: fast audit equal to that reference on a smaller fabric of the same generator.
EXPECTED_32K: dict[str, list[tuple[str, str]]] = {
    "leaf0257": [("interfaces.Ethernet2.mtu", "critical")],
    "leaf0769": [
        ("interfaces.Ethernet1.pfc.enabled", "critical"),
        ("interfaces.Ethernet1.pfc.no_drop", "critical"),
    ],
    "spine09-01": [("interfaces.swp2.ecn.3.max_bytes", "warning")],
    "spine25-01": [("dscp_to_tc.48", "critical")],
    # the network-qos class MTU: one line of the config, stated for every port
    "superspine33": sorted((f"interfaces.Ethernet1/{p}.mtu", "warning") for p in range(1, 33)),
}


def drifted_items(report: dict) -> dict[str, list[tuple[str, str]]]:
    """{device: [(field, severity)]} of every device of a drift JSON report (or `to_dict()`s) not in sync."""
    return {
        d["device"]: [(i["field"], i["severity"]) for i in d["items"]]
        for d in report["devices"]
        if d["status"] != "in_sync"
    }


def write_configs(files: dict[str, str], directory: str | Path) -> None:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")


def _sonic_lines(text: str, ends: list[tuple[str, str, str]]) -> str:
    import json

    db = json.loads(text)
    for port, desc, addr in ends:
        db.setdefault("PORT", {}).setdefault(port, {})["description"] = desc
        db.setdefault("INTERFACE", {})[port] = {}
        db["INTERFACE"][f"{port}|{addr}"] = {}
    return json.dumps(db, indent=4, sort_keys=True) + "\n"


#: per platform: a running config's own per-port description and address lines (what a device carries
#: besides roceconf's settings; the parsers read them as nothing roceconf audits). NVUE and the host
#: scripts are left as rendered.
_DECORATE: dict[str, Callable[[str, list[tuple[str, str, str]]], str]] = {
    "eos": lambda t, e: (
        t + "".join(f"interface {p}\n   description {d}\n   ip address {a}\n!\n" for p, d, a in e)
    ),
    "nxos": lambda t, e: (
        t + "".join(f"interface {p}\n  description {d}\n  ip address {a}\n" for p, d, a in e)
    ),
    "junos": lambda t, e: (
        t
        + "".join(
            f'set interfaces {p} description "{d}"\nset interfaces {p} unit 0 family inet address {a}\n'
            for p, d, a in e
        )
    ),
    "sonic": _sonic_lines,
}


def decorated(fab: Fabric, files: dict[str, str]) -> dict[str, str]:
    """`files` with every switch's per-port description (its peer) and a /31 address per link added, as
    running configs differ device by device (EOS, NX-OS, Junos, SONiC)."""
    ends: dict[str, list[tuple[str, str, str]]] = {}
    for i, link in enumerate(fab.links):
        for k, (me, peer) in enumerate(((link.a, link.b), (link.b, link.a))):
            addr = f"10.{(i >> 15) & 255}.{(i >> 7) & 255}.{((i & 127) << 1) + k}/31"
            ends.setdefault(me.device, []).append((me.port, f"{peer.device} {peer.port}", addr))
    out = dict(files)
    for name, dev in fab.devices.items():
        fix = _DECORATE.get(dev.platform)
        fname = output_name(name, dev.platform)
        if fix is not None and name in ends and fname in out:
            out[fname] = fix(out[fname], ends[name])
    return out
