"""Limits on what roceconf reads, so a hostile or broken input ends in a clear error (a rule ID), never in
exhausted memory, a hang or a flooded log. Each limit is far above what a real fabric needs (a 32,768-GPU
fabric: ~200 intent lines, 5,696 devices, 51,200 links, at most 512 ports per switch)."""

from __future__ import annotations

import os

#: Largest intent file (bytes). RC019.
MAX_YAML_BYTES = 16 * 1024 * 1024
#: Largest file the intent reads beside it (CSV cabling table, ASIC table), bytes. RC019.
MAX_SIDE_FILE_BYTES = 64 * 1024 * 1024
#: Largest ``--asic-table`` file, bytes (the shipped table of every ASIC is 10 KB). RC019. It is a YAML
#: file read by the pure-Python parser (about a second per MiB), so its cap is checked before parsing and
#: is small: a 17 MiB file is refused at once instead of being parsed for a minute.
MAX_ASIC_TABLE_BYTES = 1 * 1024 * 1024
#: Largest saved running config or NIC read-back (`drift --configs`, `parse`), bytes. RC019.
MAX_CONFIG_BYTES = 64 * 1024 * 1024
#: Largest JSON file roceconf reads back (saved counters, plan, verdict, BOM, baseline), bytes. RC019.
MAX_JSON_BYTES = 64 * 1024 * 1024
#: Largest Ansible inventory file (each file of an inventory directory), bytes.
MAX_INVENTORY_BYTES = 16 * 1024 * 1024
#: Largest vault password file (or the script Ansible runs for one), bytes.
MAX_VAULT_PASSWORD_BYTES = 64 * 1024
#: Largest acceptance result file (nccl-tests / perftest output), bytes.
MAX_RESULT_BYTES = 64 * 1024 * 1024
#: Every cap above can be raised for one run with ROCECONF_MAX_INPUT_MIB (roceconf/inputfile.py).
#: Values a YAML document may produce through aliases (*name), counting every node an alias repeats. RC020.
MAX_ALIAS_NODES = 100_000
#: Deepest nesting of YAML mappings / sequences. RC021.
MAX_DEPTH = 64
#: Devices in one intent, after expanding ranges. RC022.
MAX_DEVICES = 65_536
#: Interfaces on one device, after expanding ranges. RC022.
MAX_PORTS = 4_096
#: Links in one intent, after expanding patterns and tables (RC026; ROCECONF_MAX_LINKS raises it).
MAX_LINKS = 262_144
#: Interfaces of all devices together (devices x interfaces per device), checked before the devices of an
#: entry are made (RC026; ROCECONF_MAX_INTERFACES raises it). gpu[00001-65536] with Ethernet1-4096 passes
#: the device and the per-device limits but is 268 M interfaces: hours of checks, ~900 GB of configs.
MAX_INTERFACES = 524_288
#: Environment variables that set the two fabric-size limits (a positive integer each).
SIZE_ENV = {"interfaces": "ROCECONF_MAX_INTERFACES", "links": "ROCECONF_MAX_LINKS"}


def fabric_limit(what: str) -> int:
    """The limit on the expanded fabric's ``interfaces`` or ``links``: the environment variable of
    :data:`SIZE_ENV` when set, else the default. ValueError (a one-line reason) for a value that is not a
    positive integer."""
    default = MAX_INTERFACES if what == "interfaces" else MAX_LINKS
    raw = os.environ.get(SIZE_ENV[what], "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{SIZE_ENV[what]}={raw[:40]!r} is not a positive integer")
    return int(raw)


#: Longest message of one diagnostic (values in it are truncated first, see roceconf.names.excerpt), and
#: diagnostics of one rule shown in text before the rest are summarised in one line (RC023).
from roceconf.diagnostics import MAX_MESSAGE_CHARS, MAX_SAME_RULE  # noqa: E402,F401
