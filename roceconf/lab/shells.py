"""Command interpreters of the simulated devices (one object per CLI session).

A shell is synchronous and transport-free: ``handle(line) -> output`` and ``prompt()``.
The SSH glue in :mod:`roceconf.lab.server` echoes input, splits lines and writes the output
followed by the prompt, which is all netmiko / napalm / Ansible need from a PTY.
"""

from __future__ import annotations

from roceconf.lab.junos_shell import JunosShell
from roceconf.lab.linux_shells import HostShell, NvueShell, SonicShell
from roceconf.lab.nxos_shell import NxosShell
from roceconf.lab.shellbase import Shell

SHELLS: dict[str, type[Shell]] = {
    "nxos": NxosShell,
    "junos": JunosShell,
    "sonic": SonicShell,
    "nvue": NvueShell,
    "connectx": HostShell,
    "bnxt": HostShell,
    "linux-dcb": HostShell,
}
