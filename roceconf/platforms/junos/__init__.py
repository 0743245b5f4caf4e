"""Juniper Junos (QFX5000 line, Junos OS and Junos OS Evolved): capabilities, parser, template filters.

The parser reads ``show configuration | display set`` output (what the collector and the
template produce) and also the hierarchical (curly-brace) form that public configs are
published in. Both are flattened into the same list of statements first; the semantic pass
then only counts what is *applied*:

* a DSCP classifier counts for a port when ``class-of-service interfaces <ifd> [unit <n>]
  classifiers dscp <name>`` binds it (wildcards ``et-*`` / ``all`` / ``unit *`` expand onto the
  interfaces that ``interfaces <ifd>`` defines; an explicit interface entry wins over a wildcard);
* PFC comes from the congestion-notification profile (CNP) bound to the port: ``input
  ieee-802.1 code-point <bits> pfc`` gives the priority directly, ``input dscp code-point <bits>
  pfc`` gives the ``pfc-priority`` (or queue) of the forwarding class the port's classifier puts
  that DSCP in;
* ECN and scheduling come from the scheduler map bound to the port. A drop profile on a
  scheduler *without* ``explicit-congestion-notification`` is WRED drop, not ECN;
* defined-but-unbound objects give ``UNUSED`` warnings, references to undefined objects
  ``UNDEFINED`` warnings.

Traffic class of a forwarding class = its ``queue-num`` (roceconf assumes priority = TC = queue;
a ``pfc-priority`` that differs from the queue is reported as a warning).

ECN thresholds: Junos drop profiles state the fill level in *percent of the queue's dynamic buffer
share* (integers 0-100, Juniper 23.4R1 class-of-service YANG ``drop-profiles interpolate fill-level``).
A byte threshold has no fixed percent equivalent (the share depends on the shared-buffer partitioning
and the dynamic threshold), so nothing is converted: the state carries ``Ecn.min_percent`` /
``max_percent`` (the intent's ``ecn.junos`` fill levels), and an intent that states only bytes for a
Junos device is refused by validation (RC130).

Schema: Juniper/yang 23.4R1 ``junos-qfx-conf-class-of-service`` and (EVO) ``junos-conf-class-of-service``,
``*-conf-forwarding-options`` and ``*-conf-interfaces``; ``roceconf/platforms/junos/schema.py`` resolves
every rendered line against them (tests/conformance).
"""

from __future__ import annotations

from roceconf.platforms.base import Platform
from roceconf.platforms.junos.capabilities import CAPABILITIES
from roceconf.platforms.junos.parser import parse, parse_shared
from roceconf.platforms.junos.render import FILTERS

PLATFORM = Platform(
    # Interface syntax: Junos "<type>-<fpc>/<pic>/<port>[:<channel>]" (Junos "Interface Naming Overview":
    # et/xe/ge/mge media types, ":n" channelized ports) and aggregated "ae<n>".
    interface_pattern=r"(?:et|xe|ge|mge)-\d+/\d+/\d+(?::\d+)?|ae\d+",
    interface_example="et-0/0/0, et-0/0/1:2 (channelized), xe-0/0/3, ae0",
    apply_method="junos-cli",
    name="junos",
    kind="switch",
    title="Juniper Junos / Junos OS Evolved (QFX5000 line)",
    extension="set",
    capabilities=CAPABILITIES,
    parse=parse,
    parse_shared=parse_shared,
    filters=FILTERS,
    napalm_driver="junos",
    netmiko_device_type="juniper_junos",
    # junipernetworks.junos collection (cliconf/netconf plugins named junipernetworks.junos.junos)
    ansible_network_os=("junipernetworks.junos.junos", "junos"),
    collect_commands=("show configuration | display set",),
)
