"""NVIDIA's RoCE profile on Cumulus Linux: ``nv set qos roce`` (mode lossless) and its documented values.

Source: NVIDIA Cumulus Linux 5.15 user guide, "RDMA over Converged Ethernet - RoCE" (``ROCE_DOC``), table
"Default RoCE Configuration" and ``nv show qos roce``: port trust ``pcp,dscp``; switch priority 3 -> TC3
(RoCE), 6 -> TC6 (CNP), every other switch priority -> TC0; ETS TC6 strict, TC3 and TC0 DWRR 50 %; ECN
on TC0 and TC3, 150000 -> 1500000 bytes, probability 100; PFC on switch priority 3 (rx and tx); switch
priority 3 in the RoCE lossless traffic pool. Section "Change RoCE Configuration" documents adjusting
those settings with ordinary ``nv set qos ...`` commands after RoCE is enabled (egress-queue-mapping,
mapping trust/dscp, traffic-pool ``<pool> switch-priority`` / ``memory-percent``).

Rendering: when a device's state is a lossless RoCE policy that the profile can carry (every port lossless
on the same priorities, scheduling stated for the profile's TC0/TC3/TC6), the template states
``qos roce mode lossless`` plus the lossless traffic pool, and only the values where the intent differs
from the profile (ECN the profile enables but the intent does not is disabled explicitly). Otherwise the
policy is built by hand as before; so is a fix (``hints["partial"]``), which must restate values an
out-of-band override may have changed. Parsing: ``qos roce`` (lossless) contributes the profile values to
``default-global``; explicit ``default-global`` entries override them per traffic class (and are what a
port that attaches no profile gets).
"""

from __future__ import annotations

from typing import Any

from roceconf.state import DeviceState, Ecn, Interface, Sched

ROCE_DOC = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/Layer-1-and-Switch-Ports/"
    "Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/"
)

#: Switch priority of RoCE (lossless, PFC, lossless pool) and of CNP in NVIDIA's profile.
ROCE_SP = 3
CNP_SP = 6
ROCE_NO_DROP = [ROCE_SP]
ROCE_TRUST = "dscp"  # trust-mode pcp,dscp: IP packets are classified by DSCP (CL QoS guide)
ROCE_SP_TC = {sp: sp if sp in (ROCE_SP, CNP_SP) else 0 for sp in range(8)}
ROCE_ECN = {
    0: Ecn(min_bytes=150000, max_bytes=1500000, probability=100),
    3: Ecn(min_bytes=150000, max_bytes=1500000, probability=100),
}
ROCE_SCHED = {
    0: Sched(mode="dwrr", bandwidth_percent=50),
    3: Sched(mode="dwrr", bandwidth_percent=50),
    6: Sched(mode="strict"),
}
#: Traffic pool names (CL 5.15 RoCE guide, "Change RoCE Configuration").
LOSSLESS_POOL = "roce-lossless"
LOSSY_POOL = "default-lossy"


def roce_plan(state: DeviceState, plan: dict[str, Any], tcs: list[int]) -> dict[str, Any] | None:
    """The RoCE-profile rendering of a state (None: the state is built by hand).

    Returns ``plan`` with its ``default-global`` entries reduced to the overrides, plus ``pool`` (lossless
    switch priorities), ``lossy`` (the default-lossy pool's priorities when they differ from the profile),
    ``ecn_off`` (TCs whose profile ECN the intent does not have) and ``sp_tc`` (switch priorities whose
    traffic class differs from the profile's)."""
    if state.hints.get("partial"):
        return None  # a fix merged into a running config states every value explicitly
    g = plan["global"]
    pfc, sched, mapping = g["pfc"], g["egress-scheduler"], g["mapping"]
    if pfc is None or not pfc.pfc.no_drop or pfc.pfc.enabled is not True:
        return None
    if sched is None or not {str(t) for t in ROCE_SCHED} <= set(sched.scheduling):
        return None
    if mapping is None or mapping.trust is None:
        return None
    new = {"global": dict(g), "profiles": plan["profiles"], "attach": plan["attach"]}
    ng = new["global"]
    if pfc.pfc.no_drop == ROCE_NO_DROP:
        ng["pfc"] = None
    if mapping.trust == ROCE_TRUST:
        ng["mapping"] = mapping.model_copy(update={"trust": None})
    ecn_glob = g["congestion-control"].ecn if g["congestion-control"] is not None else {}
    ecn_over = {t: e for t, e in ecn_glob.items() if ROCE_ECN.get(int(t)) != e}
    ecn_off = [t for t in sorted(ROCE_ECN) if str(t) not in ecn_glob]
    ng["congestion-control"] = Interface(ecn=ecn_over) if ecn_over or ecn_off else None
    sched_over = {t: s for t, s in sched.scheduling.items() if ROCE_SCHED.get(int(t)) != s}
    ng["egress-scheduler"] = Interface(scheduling=sched_over) if sched_over else None
    no_drop = list(pfc.pfc.no_drop)
    return {
        "plan": new,
        "pool": no_drop,
        "lossy": [sp for sp in range(8) if sp not in no_drop] if no_drop != ROCE_NO_DROP else None,
        "ecn_off": ecn_off,
        "sp_tc": [t for t in tcs if ROCE_SP_TC[t] != t],
    }
