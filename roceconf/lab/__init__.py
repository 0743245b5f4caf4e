"""Loopback lab: simulated switches and hosts on 127.0.0.1 that real napalm / netmiko / Ansible
clients accept, each keeping a mutable running configuration.

See ``docs/lab.md`` for what the lab imitates and what it does not.
"""

from roceconf.lab.device import FAULTS, HOST_PLATFORMS, PLATFORMS, SWITCH_PLATFORMS, Device
from roceconf.lab.server import HOST, Lab

__all__ = ["FAULTS", "HOST", "HOST_PLATFORMS", "PLATFORMS", "SWITCH_PLATFORMS", "Device", "Lab"]
