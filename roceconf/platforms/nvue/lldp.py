"""LLDP neighbours of nvue. Cumulus Linux / NVUE: the lldpd daemon answers ``sudo lldpctl -f json`` (NVIDIA Cumulus Linux user guide,
"Link Layer Discovery Protocol": "The lldpd daemon implements the IEEE802.1AB LLDP standard"). NVUE's own
``nv show interface --view=lldp`` is not read: no recorded output of it is kept yet.
"""

from __future__ import annotations

from roceconf.neighbors import lldpctl_spec

LLDP = lldpctl_spec("cli")
