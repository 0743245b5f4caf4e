"""Community SONiC: CONFIG_DB (``config_db.json`` / ``show runningconfiguration all``) <-> DeviceState.

What is read (all CONFIG_DB values are strings):

* ``DSCP_TO_TC_MAP`` bound in ``PORT_QOS_MAP|<port>`` or ``PORT_QOS_MAP|global`` -> ``dscp_to_tc`` and
  trust ``dscp``. SONiC classifies by DSCP when a ``dscp_to_tc_map`` is bound; with only a
  ``dot1p_to_tc_map`` bound the port trusts ``pcp``. Where ports bind different DSCP maps, the device map
  is the ``global`` one (else the most common one) and the other ports carry ``Interface.dscp_to_tc``.
* ``PORT_QOS_MAP|<port>`` ``pfc_enable`` ("3,4"; "" = PFC off) -> ``pfc``; ``pfcwd_sw_enable`` and a
  ``PFC_WD|<port>`` entry -> ``pfc_watchdog`` (``pfcwd_sw_enable`` lists the queues the software
  watchdog watches, sonic-utilities ``scripts/db_migrator.py`` version_3_0_4; ``""`` = none = off).
* ``QUEUE|<port>|<queue or range>`` -> ``SCHEDULER`` (STRICT -> strict, DWRR weight -> dwrr with
  ``bandwidth_percent`` = weight) and ``WRED_PROFILE`` (ECN only when ``ecn`` marks green and
  ``wred_green_enable`` is true; ``ecn_none`` or no ``ecn`` field is WRED *drop*, not ECN). Queue N is
  TC N (roceconf convention); a bound ``TC_TO_QUEUE_MAP`` / ``MAP_PFC_PRIORITY_TO_QUEUE`` that is not the
  identity produces a warning.
* ``PORT|<port>`` ``mtu``; ``PFC_WD|GLOBAL`` ``POLL_INTERVAL``; ``PFC_WD|<port>`` action/detection/
  restoration; ``DEVICE_METADATA|localhost`` ``hostname`` and ``default_pfcwd_status``;
  ``SWITCH_HASH|GLOBAL`` ``ecmp_hash``. The ECMP hash seed is not in CONFIG_DB (APPL_DB
  ``SWITCH_TABLE:switch``, generated from ``switch.json.j2``), so it is never read here.

Accepted layouts: plain ``config_db.json`` (``{"TABLE": {"key": {...}}}``), redis-key dumps
(``{"TABLE|key": {...}}`` or ``{"TABLE|key": {"value": {...}}}``, list fields ``name@``), wrapper or
multi-ASIC namespaces (``{"localhost": {...}, "asic0": {...}}``), old bracket references
(``"[DSCP_TO_TC_MAP|AZURE]"``), comma-joined port keys and queue ranges. The reader is tolerant
(comments, trailing or missing commas, several top-level objects, CLI prompt around the JSON), reports
such problems as ``SYNTAX`` warnings (a repeated key: ``DUPLICATE``, the later one wins as in
``json.load``) and never raises. Other warning codes: ``UNUSED`` (map / WRED profile / scheduler not
attached), ``UNDEFINED`` (reference to a missing object), ``VOQ`` (queue keys of other linecards),
``PARSE`` (anything RoCE-related that is not understood or not modelled).

Interfaces in the state are the ports with a RoCE-relevant statement (PORT mtu/pfc_asym, PORT_QOS_MAP,
QUEUE, PFC_WD); ports listed in PORT with nothing relevant are left out.
"""

from __future__ import annotations

from roceconf.platforms.base import Platform
from roceconf.platforms.sonic.capabilities import CAPABILITIES
from roceconf.platforms.sonic.parser import parse
from roceconf.platforms.sonic.render import FILTERS, render_hints

PLATFORM = Platform(
    # Interface syntax: SONiC PORT keys "Ethernet<n>" (sonic-port.yang, platform port_config.ini) and
    # PORTCHANNEL keys "PortChannel<n>" (sonic-portchannel.yang).
    interface_pattern=r"Ethernet\d+|PortChannel\d+",
    interface_example="Ethernet0, Ethernet8, PortChannel1",
    apply_method="sonic-config-load",
    name="sonic",
    kind="switch",
    title="SONiC (community, CONFIG_DB)",
    extension="json",
    capabilities=CAPABILITIES,
    parse=parse,
    filters=FILTERS,
    render_hints=render_hints,
    napalm_driver=None,
    netmiko_device_type="linux",  # community SONiC logs in to a bash shell; netmiko has no community-SONiC type
    # dellemc.enterprise_sonic collection (cliconf/httpapi plugins named dellemc.enterprise_sonic.sonic);
    # "sonic" and other collections' <ns>.<name>.sonic for community SONiC
    ansible_network_os=("dellemc.enterprise_sonic.sonic", "sonic", "*.sonic"),
    collect_commands=("show runningconfiguration all",),
)
