"""Host bill of materials: the shared Linux host read-back (roceconf/platforms/hostbom.py)."""

from roceconf.platforms.hostbom import commands, parse

METHOD = "host"

__all__ = ["METHOD", "commands", "parse"]
