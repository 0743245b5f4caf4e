"""Hypothesis strategies for DeviceState, constrained by a platform's capabilities.

Every platform's round-trip test draws states here, so parse(render(state)) == state
is checked over states the platform can actually express.
"""

from __future__ import annotations

from hypothesis import strategies as st

from roceconf.platforms import Platform
from roceconf.platforms import get as get_platform
from roceconf.state import DeviceState, Ecmp, Ecn, Interface, Pfc, PfcWatchdog, Sched

PRIO = st.integers(min_value=0, max_value=7)


def ecn(quantum: int) -> st.SearchStrategy[Ecn]:
    @st.composite
    def _ecn(draw):
        lo = draw(st.integers(min_value=1, max_value=2000)) * quantum
        hi = lo + draw(st.integers(min_value=1, max_value=4000)) * quantum
        return Ecn(min_bytes=lo, max_bytes=hi, probability=draw(st.integers(min_value=1, max_value=100)))

    return _ecn()


@st.composite
def scheduling(draw, tcs: list[int], unused: bool = False) -> dict[str, Sched]:
    """Scheduling of the used TCs; with ``unused`` (platforms that keep unused queues off strict priority)
    some other TCs are round robin without a weight, as the desired state states them."""
    out: dict[str, Sched] = {}
    for tc in range(8):
        if tc in tcs:
            if draw(st.booleans()):
                out[str(tc)] = Sched(mode="strict")
            else:
                out[str(tc)] = Sched(mode="dwrr", bandwidth_percent=draw(st.integers(min_value=1, max_value=100)))
        elif unused and draw(st.booleans()):
            out[str(tc)] = Sched(mode="dwrr")
    return out


@st.composite
def interface(draw, plat: Platform, tcs: list[int], lossless: list[int]) -> Interface:
    cap = plat.capabilities
    return Interface(
        mtu=draw(st.integers(min_value=cap.min_mtu.value, max_value=cap.max_mtu.value)),
        trust=draw(st.sampled_from(["dscp", "pcp"])) if "trust" in cap.per_port else "dscp",
        pfc=Pfc(enabled=True, no_drop=lossless),
        pfc_watchdog=True,
        link_pause=None,
        ecn={str(tc): draw(ecn(cap.ecn_quantum_bytes)) for tc in lossless[:1]} if cap.ecn else {},
        scheduling=draw(scheduling(tcs, unused=cap.unused_queues_round_robin is not None)) if cap.scheduling else {},
    )


@st.composite
def device_state(draw, plat: Platform, interface_names: st.SearchStrategy[list[str]]) -> DeviceState:
    """A state the platform can express. Platform tests may post-process it (e.g. unify per-port fields)."""
    cap = plat.capabilities
    n_lossless = draw(st.integers(min_value=1, max_value=max(1, min(2, cap.max_lossless_priorities.value))))
    lossless = sorted(draw(st.lists(PRIO, min_size=n_lossless, max_size=n_lossless, unique=True)))
    cnp = draw(PRIO.filter(lambda p: p not in lossless))
    tcs = sorted({0, cnp, *lossless})
    dscps = draw(st.lists(st.integers(min_value=0, max_value=63), min_size=2, max_size=6, unique=True))
    dscp_to_tc = {str(d): draw(st.sampled_from(tcs)) for d in dscps}
    names = draw(interface_names)
    base = draw(interface(plat, tcs, lossless))
    itfs: dict[str, Interface] = {}
    for name in names:
        if cap.per_port >= {"mtu", "pfc", "ecn", "scheduling"} and draw(st.booleans()):
            itfs[name] = draw(interface(plat, tcs, lossless))
        else:
            itfs[name] = base.model_copy(deep=True)
        for f in ("mtu", "trust", "pfc", "ecn", "scheduling", "pfc_watchdog", "link_pause"):
            if f not in cap.per_port:
                setattr(
                    itfs[name],
                    f,
                    getattr(base, f).model_copy(deep=True)
                    if hasattr(getattr(base, f), "model_copy")
                    else getattr(base, f),
                )
    wd_fields = cap.watchdog_fields
    wq = cap.watchdog_quantum_ms  # timers the config syntax can state (EOS: 10 ms)
    wd = PfcWatchdog(
        enabled=True if "enabled" in wd_fields else None,
        detection_ms=draw(st.integers(min_value=100 // wq, max_value=5000 // wq)) * wq
        if "detection_ms" in wd_fields
        else None,
        restoration_ms=draw(st.integers(min_value=100 // wq, max_value=60000 // wq)) * wq
        if "restoration_ms" in wd_fields
        else None,
        polling_ms=draw(st.integers(min_value=10 // wq, max_value=99 // wq)) * wq
        if "polling_ms" in wd_fields
        else None,
        action=draw(st.sampled_from(cap.watchdog_actions)) if cap.watchdog_actions else None,
    )
    fields = None
    if cap.hash_fields:
        fields = sorted(draw(st.lists(st.sampled_from(cap.hash_fields), min_size=1, unique=True)))
    ecmp = Ecmp(
        fields=fields,
        seed=draw(st.integers(min_value=0, max_value=65535)) if cap.hash_seed else None,
        symmetric=draw(st.booleans()) if cap.hash_symmetric else None,
    )
    # a traffic-class MTU (NX-OS network-qos) exists with the no-drop classes that carry it
    lossless = any(i.pfc.no_drop for i in itfs.values())
    class_mtu = (
        draw(st.one_of(st.none(), st.integers(cap.min_mtu.value, cap.max_mtu.value)))
        if cap.class_mtu and lossless and cap.min_mtu is not None and cap.max_mtu is not None
        else None
    )
    modes = sorted({m for _, m in cap.dlb_modes})
    if modes:  # dynamic load balancing in the platform's terms (or none)
        ecmp.dynamic = draw(st.none() | st.sampled_from(modes))
        if ecmp.dynamic == "flowlet" and cap.dlb_flowlet_gap:
            ecmp.flowlet_gap_us = draw(st.none() | st.integers(min_value=1, max_value=100000))
    return DeviceState(
        platform=plat.name,
        hostname=draw(st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True)),
        dscp_to_tc=dscp_to_tc,
        interfaces=itfs,
        pfc_watchdog=wd,
        ecmp=ecmp,
        class_mtu=class_mtu,
    )


def lab_port(mtu: int, link_pause: bool | None = False) -> Interface:
    """The representative RoCE port used by every platform's per-knob tests: trust DSCP, PFC no-drop 3,
    ECN 150000/1500000/100 % on TC3, TC6 strict, TC0 and TC3 DWRR 50/50, watchdog on."""
    return Interface(
        mtu=mtu,
        trust="dscp",
        pfc=Pfc(enabled=True, no_drop=[3]),
        pfc_watchdog=True,
        link_pause=link_pause,
        ecn={"3": Ecn(min_bytes=150000, max_bytes=1500000, probability=100)},
        scheduling={
            "0": Sched(mode="dwrr", bandwidth_percent=50),
            "3": Sched(mode="dwrr", bandwidth_percent=50),
            "6": Sched(mode="strict"),
        },
    )


# ----------------------------------------------------------------------------------------- intents
#: One device per platform in every generated intent, with the platform's interface naming.
INTENT_DEVICES = {
    "eos": ("leaf1", "leaf", ["Ethernet1", "Ethernet2", "Ethernet49"]),
    "nxos": ("spine1", "spine", ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3"]),
    "nvue": ("leaf2", "leaf", ["swp1", "swp2", "swp31"]),
    "sonic": ("leaf3", "leaf", ["Ethernet0", "Ethernet8", "Ethernet248"]),
    "junos": ("spine2", "spine", ["et-0/0/0", "et-0/0/1", "et-0/0/2"]),
    "connectx": ("gpu1", "host", ["eth0", "eth1"]),
    "bnxt": ("gpu2", "host", ["eth0", "eth1"]),
    "linux-dcb": ("gpu3", "host", ["eth0", "eth1"]),
}
#: Documented releases drawn for `os_version` (None = the platform default).
INTENT_RELEASES = {"nvue": ["5.9", "5.14", "5.15"]}


@st.composite
def intent(draw) -> dict:
    """An intent (as loaded from YAML) with one device of each of the 8 platforms: random classes, ECN in
    any byte value, watchdog timers, hash fields and seeds per role, per-port MTUs, OS releases."""
    prios = draw(st.lists(PRIO, min_size=3, max_size=3, unique=True))
    roce_p, cnp_p, other_p = prios
    dscps = draw(st.lists(st.integers(min_value=0, max_value=63), min_size=3, max_size=6, unique=True))
    lo = draw(st.integers(min_value=1000, max_value=2_000_000))
    hi = lo + draw(st.integers(min_value=1, max_value=8_000_000))
    roce_weight = draw(st.integers(min_value=1, max_value=99))
    classes = [
        {
            "name": "roce",
            "role": "roce",
            "dscp": [dscps[0]],
            "priority": roce_p,
            "lossless": True,
            "ecn": {"min": lo, "max": hi, "probability": draw(st.integers(min_value=1, max_value=100))},
            "scheduling": {"mode": "dwrr", "weight_percent": roce_weight},
        },
        {
            "name": "cnp",
            "role": "cnp",
            "dscp": [dscps[1]],
            "priority": cnp_p,
            "scheduling": {"mode": "strict"},
        },
        {
            "name": "default",
            "dscp": dscps[2:],
            "priority": other_p,
            "scheduling": {"mode": "dwrr", "weight_percent": 100 - roce_weight},
        },
    ]
    detection = draw(st.integers(min_value=100, max_value=2000))
    watchdog = {
        "enabled": draw(st.booleans()),
        "detection": detection,
        "restoration": draw(st.integers(min_value=detection, max_value=10_000)),
        "polling": draw(st.integers(min_value=10, max_value=detection - 1)),
        "action": draw(st.sampled_from(["drop", "forward", "alert"])),
    }
    fields = ["src_port"] + draw(
        st.lists(
            st.sampled_from(["src_ip", "dst_ip", "ip_proto", "dst_port", "ingress_port", "flow_label"]),
            unique=True,
        )
    )
    roles = {
        role: {"ecmp": {"seed": draw(st.integers(min_value=0, max_value=65535))}}
        for role in ("leaf", "spine")
        if draw(st.booleans())
    }
    devices = []
    for platform, (name, role, ports) in INTENT_DEVICES.items():
        itfs = []
        for k, port in enumerate(ports):
            itf: dict = {"name": port, "speed": "400G", "role": "host" if role == "host" else "fabric"}
            if role == "host":
                itf["rdma_device"] = f"rdma{k}"
            elif draw(st.booleans()):
                itf["mtu"] = draw(st.integers(min_value=1500, max_value=9216))
            itfs.append(itf)
        dev: dict = {"name": name, "platform": platform, "role": role, "interfaces": itfs}
        if platform in INTENT_RELEASES and draw(st.booleans()):
            dev["os_version"] = draw(st.sampled_from(INTENT_RELEASES[platform]))
        devices.append(dev)
    return {
        "version": 1,
        "fabric": "generated",
        "qos": {"trust": "dscp", "classes": classes, "pfc_watchdog": watchdog},
        "mtu": {"switch_port": draw(st.integers(min_value=4200, max_value=9216)), "host_nic": 4200},
        "ecmp": {"fields": fields, "symmetric": draw(st.booleans())},
        "nic": {"dcqcn": draw(st.booleans())},
        "roles": roles,
        "devices": devices,
    }


#: What an override (`roles:`, `profiles:`, a device's `overrides:`) may state, drawn by `valid_intent`.
_OVERRIDE_KEYS = ("mtu", "ecmp", "pfc_watchdog", "classes", "nic")


def _mtu_bounds(role: str) -> tuple[int, int]:
    """The MTUs every platform of the intent's switches (role != host) or hosts accepts (RC112)."""
    caps = [
        get_platform(p).capabilities
        for p, (_, r, _) in INTENT_DEVICES.items()
        if (r == "host") == (role == "host")
    ]
    return max(c.min_mtu.value for c in caps), min(c.max_mtu.value for c in caps)


@st.composite
def _fill_level(draw) -> dict:
    """Junos drop-profile fill-level points (the platform's own ECN unit, `ecn.junos`)."""
    lo = draw(st.integers(min_value=0, max_value=99))
    return {"min_percent": lo, "max_percent": draw(st.integers(min_value=lo + 1, max_value=100))}


@st.composite
def _ecn(draw) -> dict:
    """ECN of a class as an intent states it: bytes, and the Junos fill level Junos needs (RC130)."""
    lo = draw(st.integers(min_value=1000, max_value=2_000_000))
    return {
        "min": lo,
        "max": lo + draw(st.integers(min_value=1, max_value=8_000_000)),
        "probability": draw(st.integers(min_value=1, max_value=100)),
        "junos": draw(_fill_level()),
    }


@st.composite
def _watchdog(draw, partial: bool = False) -> dict:
    """Watchdog timers every platform accepts (Junos: polling 100-1000 ms, detection 2-10 polls, recovery
    200-1000 ms; SONiC: detection up to 5000 ms; NX-OS: detection and restoration whole multiples of the
    polling interval). ``partial``: an override states some of them."""
    polling = draw(st.integers(min_value=100, max_value=500))
    wd = {
        "enabled": draw(st.booleans()),
        "polling": polling,
        "detection": polling * draw(st.integers(min_value=2, max_value=10)),
        "restoration": polling * draw(st.integers(min_value=-(-200 // polling), max_value=1000 // polling)),
        "action": draw(st.sampled_from(["drop", "forward", "alert"])),
    }
    if partial:
        # the timers stay a set (detection and restoration are whole numbers of polls of one interval)
        keep = draw(st.sets(st.sampled_from(["enabled", "timers", "action"]), min_size=1))
        return {
            k: v
            for k, v in wd.items()
            if k in keep or (k in ("polling", "detection", "restoration") and "timers" in keep)
        }
    return wd


@st.composite
def _override(draw, classes: list[dict], switch_min: int) -> dict:
    """An override: some of MTU, ECMP, watchdog, per-class ECN / scheduling / lossless, DCQCN."""
    keys = draw(st.sets(st.sampled_from(_OVERRIDE_KEYS), min_size=1))
    out: dict = {}
    if "mtu" in keys:
        out["mtu"] = {
            "switch_port": draw(st.integers(min_value=switch_min, max_value=_mtu_bounds("leaf")[1]))
        }
    if "ecmp" in keys:
        ecmp: dict = {"seed": draw(st.integers(min_value=0, max_value=65535))}
        if draw(st.booleans()):
            ecmp["fields"] = ["src_port"] + draw(
                st.lists(st.sampled_from(["src_ip", "dst_ip", "ip_proto", "dst_port"]), unique=True)
            )
        if draw(st.booleans()):
            ecmp["symmetric"] = draw(st.booleans())
        out["ecmp"] = ecmp
    if "pfc_watchdog" in keys:
        out["pfc_watchdog"] = draw(_watchdog(partial=True))
    if "classes" in keys:
        by_name: dict = {}
        for c in classes:
            if c.get("role") == "roce" and draw(st.booleans()):
                by_name[c["name"]] = {"ecn": draw(_ecn())}
            elif c.get("role") != "roce" and draw(st.booleans()):
                by_name[c["name"]] = {"scheduling": {"mode": "strict"}}
        if by_name:
            out["classes"] = by_name
    if "nic" in keys:
        out["nic"] = {"dcqcn": draw(st.booleans())}
    return out


@st.composite
def valid_intent(draw) -> dict:
    """A valid intent (no error) with one device entry of each of the 8 platforms, as a user writes it:

    * ``defaults``: no classes (roceconf's RoCE profile, the ECN no Junos fill level states), sometimes no
      `qos`, `ecmp` or `nic` at all;
    * ``stated``: `intent()`'s classes, watchdog, hash fields and seeds, the RoCE class with ECN in bytes
      and the Junos fill level, or without ECN;
    * overrides on top of either: per role, per profile, per device (MTU, ECMP, watchdog, class ECN and
      scheduling, DCQCN), and device entries that are ranges of two devices."""
    data = draw(intent())
    classes = data["qos"]["classes"]
    switch_lo, switch_hi = _mtu_bounds("leaf")
    host_nic = draw(st.integers(min_value=4200, max_value=min(switch_hi - 22, _mtu_bounds("host")[1])))
    switch_min = host_nic + 22  # RC111: a switch port carries the NIC MTU and the L2 header
    data["mtu"] = {
        "switch_port": draw(st.integers(min_value=switch_min, max_value=switch_hi)),
        "host_nic": host_nic,
    }
    for dev in data["devices"]:
        for itf in dev["interfaces"]:
            if "mtu" in itf:
                itf["mtu"] = draw(st.integers(min_value=max(1500, switch_lo), max_value=switch_hi))
    data["qos"]["pfc_watchdog"] = draw(_watchdog())
    if draw(st.sampled_from(["defaults", "stated"])) == "defaults":
        del data["qos"]["classes"]
        classes = [
            {"name": "roce", "role": "roce"},
            {"name": "cnp", "role": "cnp"},
            {"name": "default", "role": "other"},
        ]
        for key in ("qos", "ecmp", "nic", "roles"):
            if draw(st.booleans()):
                data.pop(key)
    else:
        roce = classes[0]
        if draw(st.booleans()):
            roce["ecn"]["junos"] = draw(_fill_level())
        else:
            del roce["ecn"]
    if draw(st.booleans()):
        data["roles"] = {
            role: draw(_override(classes, switch_min))
            for role in draw(st.sets(st.sampled_from(["leaf", "spine", "host"]), min_size=1))
        }
    if draw(st.booleans()):
        data["profiles"] = {"p1": draw(_override(classes, switch_min))}
    for dev in data["devices"]:
        if "profiles" in data and draw(st.booleans()):
            dev["profiles"] = ["p1"]
        if draw(st.booleans()):
            dev["overrides"] = draw(_override(classes, switch_min))
        if draw(st.booleans()):
            dev["name"] += "-[1-2]"
    return data


def full() -> bool:
    """True under ``make test-full`` (ROCECONF_TEST_FULL=1): a heavy test runs on its whole input there and
    on a smaller input that proves the same property in ``make test``."""
    import os

    return bool(os.environ.get("ROCECONF_TEST_FULL"))


def examples(n: int) -> int:
    """Hypothesis examples of a heavy property test: ``n`` under ``make test-full`` (ROCECONF_TEST_FULL=1),
    half of it in ``make test``. CI's profile is derandomized, so every CI run draws the same examples: the
    second half of a long run re-proves nothing new there, and a local run (random draws) keeps exploring."""
    return n if full() else max(10, n // 2)
