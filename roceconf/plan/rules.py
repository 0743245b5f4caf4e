"""The disruption rules: which change to which field disrupts traffic how much, with its source."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from roceconf.plan.model import Disruption, Risk


# ------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class DisruptionRule:
    """How applying one kind of change disrupts traffic.

    ``scope`` is a platform name, ``switch``, ``host`` or ``*``; the most specific matching row wins.
    ``lossless`` restricts a row to changes that do (True) or do not (False) touch lossless ports.
    """

    kind: str
    scope: str
    disruption: Disruption
    risk: Risk
    reason: str
    source: str
    lossless: bool | None = None


_BUFFERS = (
    "NVIDIA Cumulus Linux QoS docs (a buffer change reloads switchd: 'momentary packet loss'); NVIDIA Onyx "
    "'RoCE Commands' (changing the RoCE mode toggles interfaces: 'momentary loss of data')"
)
_MLX5 = (
    "Linux mlx5 en_dcbnl.c mlx5e_dcbnl_ieee_setpfc() calls mlx5_toggle_port_link() "
    "(commit 667daedaecd1 'net/mlx5e: Toggle link only after modifying port parameters')"
)
_BNXT = "Broadcom bnxt_re README.TXT (configfs changes take effect at `apply`); Linux dcbnl ieee_setpfc"
_POLICY = "roceconf policy"

#: The disruption/risk rules of `roceconf plan` (documented in docs/plan.md). First match by specificity.
RULES: tuple[DisruptionRule, ...] = (
    DisruptionRule(
        "pfc",
        "switch",
        "brief traffic hit",
        "high",
        "a PFC/no-drop change re-carves the ingress buffers (headroom per lossless priority)",
        _BUFFERS,
    ),
    DisruptionRule(
        "pfc",
        "connectx",
        "link flap",
        "high",
        "mlx5 toggles the link when the PFC priority mask changes",
        _MLX5,
    ),
    DisruptionRule(
        "pfc",
        "host",
        "brief traffic hit",
        "high",
        "the NIC re-programs its receive buffers; on bnxt the change only takes effect at `apply`",
        _BNXT,
    ),
    DisruptionRule(
        "port_added",
        "switch",
        "brief traffic hit",
        "medium",
        "a new lossless port reserves PFC headroom: buffer re-carve",
        _BUFFERS,
        lossless=True,
    ),
    DisruptionRule(
        "port_added",
        "connectx",
        "link flap",
        "medium",
        "setting the PFC mask on a mlx5 port toggles its link",
        _MLX5,
        lossless=True,
    ),
    DisruptionRule(
        "port_added",
        "host",
        "brief traffic hit",
        "medium",
        "the NIC re-programs its receive buffers for the new lossless priority",
        _BNXT,
        lossless=True,
    ),
    DisruptionRule(
        "port_added", "*", "hitless", "low", "a port with no lossless priority joins the policy", _POLICY
    ),
    DisruptionRule(
        "port_removed",
        "*",
        "hitless",
        "high",
        "lossless ports leave the RoCE policy: RDMA traffic on them is no longer protected",
        _POLICY,
        lossless=True,
    ),
    DisruptionRule("port_removed", "*", "hitless", "low", "ports without lossless priorities leave", _POLICY),
    DisruptionRule(
        "device_added",
        "*",
        "hitless",
        "low",
        "a new device: nothing running changes",
        _POLICY,
    ),
    DisruptionRule(
        "device_removed",
        "*",
        "hitless",
        "high",
        "the plan itself is hitless, but lossless ports disappear from the fabric",
        _POLICY,
        lossless=True,
    ),
    DisruptionRule(
        "device_removed", "*", "hitless", "low", "a device without lossless ports leaves the intent", _POLICY
    ),
    DisruptionRule(
        "platform",
        "*",
        "needs reboot",
        "high",
        "a different network OS or NIC driver under the same name: reinstall and reboot",
        _POLICY,
    ),
    DisruptionRule(
        "mtu",
        "*",
        "link flap",
        "medium",
        "an MTU change re-initialises the port (link down/up on most ASICs and NICs)",
        _POLICY + " (conservative: NOSes and NIC drivers re-initialise the port on an MTU change)",
    ),
    DisruptionRule(
        "class_mtu",
        "*",
        "link flap",
        "medium",
        "the NX-OS network-qos class MTU bounds every port's MTU: treated like a port MTU change",
        _POLICY + " (conservative, as for a port MTU)",
    ),
    DisruptionRule(
        "link_pause",
        "*",
        "link flap",
        "medium",
        "changing 802.3x pause restarts autonegotiation",
        _POLICY + " (conservative: a pause change renegotiates the link)",
    ),
    DisruptionRule(
        "trust",
        "*",
        "hitless",
        "high",
        "reclassifies every packet: RoCE may land in a lossy queue if the two ends disagree",
        _POLICY + "; why trust matters: Intel 800 Series RDMA flow control guide, PCP vs DSCP",
    ),
    DisruptionRule(
        "dscp_map",
        "*",
        "hitless",
        "medium",
        "classification changes in place; traffic moves between queues",
        _POLICY + " (QoS maps are replaced in place on every supported platform)",
    ),
    DisruptionRule(
        "ecn",
        "*",
        "hitless",
        "medium",
        "WRED/ECN profile changes in place; marking starts at another queue depth",
        _POLICY + " (WRED/ECN profiles are replaced in place on every supported platform)",
    ),
    DisruptionRule("scheduling", "*", "hitless", "low", "scheduler weights change in place", _POLICY),
    DisruptionRule(
        "pfc_watchdog",
        "*",
        "hitless",
        "low",
        "watchdog timers and actions change in place",
        _POLICY,
    ),
    DisruptionRule(
        "rdma",
        "*",
        "hitless",
        "medium",
        "RDMA-CM TOS and DCQCN settings apply to new connections / in place",
        "mlnx-tools cma_roce_tos (RDMA-CM default TOS of new connections); " + _POLICY,
    ),
    DisruptionRule(
        "ecmp",
        "nvue",
        "brief traffic hit",
        "high",
        "an NVUE hash change restarts switchd; flows re-hash",
        "NVIDIA Cumulus Linux docs: the ECMP hash seed is a switchd datapath setting applied by restarting switchd, which resets the ports (assumed the same when NVUE applies it)",
    ),
    DisruptionRule(
        "ecmp",
        "*",
        "brief traffic hit",
        "medium",
        "flows re-hash onto other paths (reordering, brief loss in flight)",
        _POLICY + " (a new hash moves flows between paths)",
    ),
)


@cache  # a pure lookup in the constant RULES, asked once per changed port (60,000 times at 32k)
def classify(kind: str, platform: str, is_host: bool, lossless: bool = False) -> DisruptionRule:
    """The most specific rule of :data:`RULES` for a change kind on a platform."""
    best: tuple[int, DisruptionRule] | None = None
    for r in RULES:
        if r.kind != kind or (r.lossless is not None and r.lossless != lossless):
            continue
        if r.scope == platform:
            rank = 3
        elif r.scope == ("host" if is_host else "switch"):
            rank = 2
        elif r.scope == "*":
            rank = 1
        else:
            continue
        rank = rank * 2 + (r.lossless is not None)
        if best is None or rank > best[0]:
            best = (rank, r)
    if best is None:
        return DisruptionRule(kind, "*", "hitless", "low", "no rule for this change", "-")
    return best[1]
