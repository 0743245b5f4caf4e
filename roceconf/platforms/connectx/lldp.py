"""LLDP neighbours of connectx. A Linux host: lldpd's ``lldpctl -f json`` (lldpd, ISC licence; see roceconf.neighbors).
"""

from __future__ import annotations

from roceconf.neighbors import lldpctl_spec

LLDP = lldpctl_spec("shell")
