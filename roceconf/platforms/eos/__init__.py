"""Arista EOS: capabilities, running-config parser and template filters.

Model of EOS used here (sources in ``templates/eos/device.j2`` and ``CAPABILITIES``):

* global ``qos map dscp <list> to traffic-class <tc>`` -> ``dscp_to_tc``;
* ``qos profile <name>`` blocks hold trust, PFC, the per-port watchdog switch and per-queue blocks
  (``uc-tx-queue N`` on Trident/Tomahawk, ``tx-queue N`` on Sand) with ECN and scheduling; a profile
  only counts where an interface attaches it with ``service-profile <name>``;
* the same keywords directly under ``interface`` override the attached profile (field by field,
  priority by priority, queue by queue);
* global ``priority-flow-control pause watchdog default ...`` timers (seconds) and ``action``;
* ``ip load-sharing trident fields ip ...`` -> ECMP hash fields.

Only physical Ethernet ports and Port-Channels are reported (no sub-interfaces, SVIs, loopbacks or
management ports), and only when at least one RoCE-relevant setting applies to them.
"""

from __future__ import annotations

from functools import partial

from roceconf.platforms.base import Platform, negate_stale_lines
from roceconf.platforms.eos.capabilities import CAPABILITIES
from roceconf.platforms.eos.parser import parse, parse_shared
from roceconf.platforms.eos.render import FILTERS, render_hints
from roceconf.platforms.eos.syntax import NAME

PLATFORM = Platform(
    # Interface syntax: EOS "interface Ethernet<port>[/<lane>]", "Ethernet<slot>/<port>/<lane>" on modular
    # systems, "interface Port-Channel<n>" (arista.avd eos_cli_config_gen ethernet-interfaces / port-channel-interfaces).
    interface_pattern=r"Ethernet\d+(?:/\d+){0,2}|Port-Channel\d+",
    interface_example="Ethernet1, Ethernet1/1, Ethernet3/1/1, Port-Channel10",
    apply_method="napalm",
    render_hints=render_hints,
    name=NAME,
    kind="switch",
    title="Arista EOS",
    extension="cfg",
    capabilities=CAPABILITIES,
    parse=parse,
    filters=FILTERS,
    napalm_driver="eos",
    netmiko_device_type="arista_eos",
    # arista.eos collection (cliconf/httpapi plugins named arista.eos.eos); short form of Ansible < 2.10
    ansible_network_os=("arista.eos.eos", "eos"),
    collect_commands=("show running-config",),
    negate_stale=partial(negate_stale_lines, blocks=("interface ", "qos profile ")),
    parse_shared=parse_shared,
)

__all__ = ["CAPABILITIES", "PLATFORM", "parse", "parse_shared", "profile_name"]
