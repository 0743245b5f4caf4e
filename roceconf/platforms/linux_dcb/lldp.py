"""LLDP neighbours of linux_dcb. A Linux host: lldpd's ``lldpctl -f json`` (lldpd, ISC licence; see roceconf.neighbors), or
open-lldp's ``lldptool -t -n -i PORT`` per port where the inventory says ``roceconf_lldp_agent: lldptool``.
"""

from __future__ import annotations

from roceconf.neighbors import lldpctl_spec

LLDP = lldpctl_spec("shell", lldptool=True)
