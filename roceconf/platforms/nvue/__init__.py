"""NVIDIA Cumulus Linux 5.x managed with NVUE (``nv set`` / ``nv config``).

Three inputs are accepted by :func:`parse` and all become one object tree first:

* the rendered YAML patch / ``startup.yaml`` (a list of ``header`` / ``set`` items),
* ``nv config show -o json`` or the REST ``?rev=applied`` JSON (with or without the ``set`` wrapper),
* ``nv config show -o commands`` / hand-written ``nv set ...`` lines (ranges ``swp1-32`` and lists
  ``swp1,swp3`` in interface, DSCP, switch-priority and traffic-class keys).

The tree is then read for its *meaning*: QoS profiles of each kind (``mapping``, ``pfc``,
``congestion-control``, ``egress-scheduler``, ``link-pause``) apply to a port when the port attaches
them (``interface <p> qos <kind> profile <name>``); ``default-global`` applies to every port that
attaches no profile of that kind. A named profile nobody attaches contributes nothing (warning
``UNUSED``); an attached name that is not defined is a warning ``UNDEFINED``.

Semantics chosen here (documented NVUE behaviour where a source exists):

* trust ``l3`` -> ``dscp``, ``l2`` -> ``pcp``, ``port`` -> ``none``; ``both`` classifies IP packets by
  DSCP (CL QoS guide, classification table), so it reads as ``dscp``.
* DSCP -> switch-priority is composed with ``egress-queue-mapping`` (switch-priority -> traffic-class,
  identity unless stated) to give DSCP -> TC.
* ECN counts for a traffic class unless ``ecn`` is ``disable`` (``red enable`` + ``ecn disable`` is
  WRED drop, not ECN). An entry that does not state ``ecn`` is an "ECN profile" entry and marks by
  default; that is recorded in ``state.defaults``.
* PFC tx/rx default to enabled when a PFC profile states priorities (CL QoS guide, "All PFC
  commands"); that is recorded in ``state.defaults``.
* PFC watchdog: ``robustness`` polling intervals before mitigation, so
  ``detection_ms = robustness * polling-interval`` (polling default 100 ms, CL QoS guide).
* ``qos roce`` is a macro whose effective values are only visible in ``nv show qos roce``: it
  produces a warning (code ``MACRO``) and no values.
* Ports are the ``swp`` interfaces the configuration names, plus any other interface with a ``qos``
  subtree (bonds); management and loopback interfaces without QoS are not ports.
* A port-level mapping profile whose DSCP map differs from ``default-global`` is reported in
  ``Interface.dscp_to_tc``.
* ``ecmp-hash``: the fields stated ``on``; when some of the seven expressible fields are not stated
  at all, a ``PARTIAL`` warning names them (their release default is not guessed).
"""

from __future__ import annotations

from roceconf.platforms.base import Capabilities, Fact, Platform
from roceconf.platforms.nvue.parser import parse, parse_shared
from roceconf.platforms.nvue.render import FILTERS, unused_queues
from roceconf.platforms.nvue.roce import ROCE_DOC
from roceconf.platforms.nvue.syntax import HASH_NVUE, NVUE_REF, QOS_DOC

# ----------------------------------------------------------------------------- platform
PLATFORM = Platform(
    # Interface syntax: Cumulus Linux "swp<n>" front-panel ports, "swp<n>s<lane>" breakouts (NVUE reference,
    # Interface), bonds named bond<n> here.
    interface_pattern=r"swp\d+(?:s\d+)?|bond\d+",
    interface_example="swp1, swp1s0 (breakout), bond1",
    apply_method="nvue-patch",
    name="nvue",
    # ecmp-hash values: on|off up to 5.14, enabled|disabled from 5.15 (the default: newest documented)
    releases=("5.2", "5.15"),
    kind="switch",
    title="NVIDIA Cumulus Linux 5.x (NVUE)",
    extension="yaml",
    capabilities=Capabilities(
        extra_members_stay=True,
        # NVUE reference "Adaptive Routing" (nv set router adaptive-routing state, nv set interface <p> router
        # adaptive-routing state; CL 5.1 on, Spectrum-2 and later): the platform's dynamic mode
        dlb_modes=(("platform", "adaptive-routing"),),
        lb_source=NVUE_REF + "Set-and-Unset-Commands/Adaptive-Routing/ (adaptive routing); no QP hash field "
        "under system forwarding ecmp-hash (" + NVUE_REF + "Set-and-Unset-Commands/System-Forwarding/); the "
        "render is a YAML patch with no place for verbatim lines",
        # NVIDIA's NVUE OpenAPI schema of each release (PyPI nvueschema, checked by tests/conformance): 5.0-5.2
        # have no interface qos, qos mapping, traffic-pool or congestion-control; 5.0-5.5 no qos pfc-watchdog
        # (the NVUE command reference: pfc-watchdog polling-interval and robustness "introduced in 5.6.0")
        introduced=(
            ("qos", "5.3", "NVUE schema of Cumulus Linux 5.0-5.2: no qos mapping, interface qos or traffic-pool"),
            (
                "pfc_watchdog",
                "5.6",
                NVUE_REF + "Set-and-Unset-Commands/QoS/ (qos pfc-watchdog, introduced in 5.6.0)",
            ),
        ),
        min_mtu=Fact(552, NVUE_REF + "Set-and-Unset-Commands/Interface/ (link mtu: 552-9216)"),
        max_mtu=Fact(9216, NVUE_REF + "Set-and-Unset-Commands/Interface/ (link mtu: 552-9216, default 9216)"),
        max_lossless_priorities=Fact(
            2,
            QOS_DOC + "#pfc (port groups example 'nv set qos pfc my_pfc_ports switch-priority 3,5'); "
            "no larger per-port set is documented and all no-drop priorities share one lossless "
            "priority group per port",
        ),
        per_port=frozenset({"mtu", "trust", "pfc", "pfc_watchdog", "link_pause", "ecn", "scheduling"}),
        hash_fields=tuple(sorted(HASH_NVUE)),
        hash_seed=True,
        hash_symmetric=False,
        watchdog_fields=frozenset({"polling_ms", "detection_ms", "restoration_ms"}),
        watchdog_actions=("drop",),
        ecn_quantum_bytes=1,
        ecn=True,
        scheduling=True,
        every_dscp_mapped=True,
        unused_queues_round_robin=unused_queues,
        notes=(
            "Every DSCP has a home: without a 'qos mapping ... dscp <n>' entry a DSCP keeps the Cumulus "
            "default switch priority DSCP / 8 (the RoCE profile's 'RoCE PCP/DSCP->SP mapping' table: 24-31 -> "
            "SP3, the lossless RoCE priority; 48-55 -> SP6, the strict CNP queue; " + ROCE_DOC + " 'Verify RoCE "
            "Configuration'), so the desired state maps all 64 DSCPs (the intent's default class takes the "
            "rest) and every queue the intent does not use is stated 'mode dwrr' without bw-percent (DWRR 0, "
            + QOS_DOC + "#egress-scheduler) instead of being left at a default.",
            "Per-port values use profiles attached with 'interface <p> qos <kind> profile <name>'; "
            "default-global applies to ports without one (" + QOS_DOC + "#port-groups).",
            "PFC watchdog: no configurable action (a stormed queue drops) and no global enable; "
            "detection = robustness x polling-interval (polling 100-5000 ms, robustness 1-1000); restoration "
            "is one polling interval without pause frames (" + QOS_DOC + "#pfc-watchdog): an intent "
            "restoration time other than the polling interval is reported (RC150).",
            "ECMP symmetric hashing has no NVUE setting.",
            "Link pause off is the absence of a link-pause profile; it cannot be stated explicitly.",
            "'qos roce' (lossless) is rendered with the lossless traffic pool where the state fits NVIDIA's "
            "RoCE profile, with overrides only where the intent differs (" + ROCE_DOC + "); the parser "
            "fills the profile's documented values. Other RoCE modes are reported as MACRO warnings.",
        ),
    ),
    parse=parse,
    parse_shared=parse_shared,
    filters=FILTERS,
    napalm_driver=None,
    netmiko_device_type="cumulus_linux",
    # nvidia.nvue collection (its httpapi plugin: ansible_network_os nvidia.nvue.httpapi); roceconf reads over SSH
    ansible_network_os=("nvidia.nvue.*", "nvue"),
    collect_commands=("nv config show -o json",),
)
