"""Cisco NX-OS (Nexus 9000, MQC) platform: capabilities, template filters and running-config parser.

NX-OS expresses RoCE in four linked objects:

* ``class-map type qos`` + ``policy-map type qos`` (``match dscp`` -> ``set qos-group N``), attached per
  interface with ``service-policy type qos input`` -> the DSCP map and trust;
* ``policy-map type network-qos`` (``class type network-qos c-8q-nq<N>`` / ``pause pfc-cos <N>``), attached
  globally under ``system qos`` -> the no-drop priorities;
* ``policy-map type queuing`` (``class type queuing c-out-8q-q<N>`` / ``priority`` / ``bandwidth`` /
  ``random-detect ... ecn``), attached under ``system qos`` (or per interface) -> ECN and scheduling;
* interface lines (``mtu``, ``priority-flow-control mode``, ``priority-flow-control watch-dog-interval``,
  ``flowcontrol``) and global lines (watchdog, ``ip load-sharing``).

qos-group N is egress queue N (fixed on NX-OS), which is roceconf's priority/TC N.

The parser reads semantics, not text: only attached objects count. Objects defined but never attached
produce ``UNUSED`` warnings, references to undefined objects produce ``UNDEFINED`` warnings.
"""

from __future__ import annotations

from functools import partial

from roceconf.platforms.base import Platform, negate_stale_lines
from roceconf.platforms.nxos.capabilities import CAPABILITIES
from roceconf.platforms.nxos.parser import parse
from roceconf.platforms.nxos.render import FILTERS

PLATFORM = Platform(
    # Interface syntax: NX-OS "interface ethernet <slot>/<port>[/<breakout>]", "interface port-channel <n>"
    # (Cisco Nexus 9000 NX-OS Interfaces Configuration Guide); canonical forms as the parser prints them.
    interface_pattern=r"Ethernet\d+/\d+(?:/\d+)?|port-channel\d+",
    interface_example="Ethernet1/1, Ethernet1/1/1 (breakout), port-channel10",
    apply_method="napalm",
    name="nxos",
    kind="switch",
    title="Cisco NX-OS (Nexus 9000)",
    extension="cfg",
    capabilities=CAPABILITIES,
    parse=parse,
    filters=FILTERS,
    napalm_driver="nxos_ssh",
    netmiko_device_type="cisco_nxos",
    # cisco.nxos collection (cliconf/httpapi plugins named cisco.nxos.nxos); short form of Ansible < 2.10
    ansible_network_os=("cisco.nxos.nxos", "nxos"),
    collect_commands=("show running-config",),
    negate_stale=partial(
        # the queuing policy too: a 'priority level' added out of band to a queue the intent leaves round
        # robin must go before its 'bandwidth remaining percent' is restated (Cisco N9K QoS guide, queuing:
        # 'priority [level <n>]' / 'no priority')
        negate_stale_lines,
        indent="  ",
        blocks=("interface ", "policy-map type network-qos ", "policy-map type queuing "),
    ),
)
