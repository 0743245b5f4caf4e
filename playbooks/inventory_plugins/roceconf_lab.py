"""Inventory plugin: the hosts of a running loopback lab (``python -m roceconf.lab --inventory-out FILE``)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
name: roceconf_lab
short_description: Hosts of the running roceconf loopback lab
description:
  - Reads the inventory file written by C(python -m roceconf.lab --inventory-out FILE) (or
    C(roceconf.lab.Lab.write_inventory)) and adds its hosts, host variables and per-platform groups.
  - The configuration file sits in the inventory folder (C(inventories/lab/lab.roceconf_lab.yml)), so that
    folder's C(group_vars/) apply; the lab's own file can live anywhere (C(ROCECONF_LAB_INVENTORY)).
  - The plugin is found because it sits in C(playbooks/inventory_plugins/), next to the playbooks
    (C(ansible-inventory) needs C(--playbook-dir playbooks)).
options:
  plugin:
    description: Must be C(roceconf_lab).
    required: true
    choices: [roceconf_lab]
  lab_inventory:
    description:
      - The file the lab wrote. A relative path is relative to the folder of the configuration file.
      - The environment variable wins over the default; leave the option out of the configuration file
        so that the variable can point at another lab.
    type: str
    default: hosts.yml
    env:
      - name: ROCECONF_LAB_INVENTORY
"""

import os  # noqa: E402

from ansible.errors import AnsibleParserError  # noqa: E402
from ansible.plugins.inventory import BaseInventoryPlugin  # noqa: E402


class InventoryModule(BaseInventoryPlugin):
    NAME = "roceconf_lab"

    def verify_file(self, path: str) -> bool:
        return super().verify_file(path) and path.endswith(("roceconf_lab.yml", "roceconf_lab.yaml"))

    def parse(self, inventory, loader, path, cache=True):  # type: ignore[no-untyped-def]
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        lab_file = os.path.expanduser(str(self.get_option("lab_inventory")))
        if not os.path.isabs(lab_file):
            lab_file = os.path.join(os.path.dirname(path), lab_file)
        if not os.path.isfile(lab_file):
            raise AnsibleParserError(
                f"no lab inventory at {lab_file}: start the lab with "
                f"`python -m roceconf.lab --configs DIR --inventory-out {lab_file}` "
                "or set ROCECONF_LAB_INVENTORY"
            )
        data = loader.load_from_file(lab_file, cache="none")
        if not isinstance(data, dict) or not isinstance(data.get("all"), dict):
            raise AnsibleParserError(f"{lab_file} is not a lab inventory (no 'all' group)")
        top = data["all"]
        for host, hvars in (top.get("hosts") or {}).items():
            self.inventory.add_host(str(host))
            for key, value in (hvars or {}).items():
                self.inventory.set_variable(str(host), str(key), value)
        for group, gdata in (top.get("children") or {}).items():
            self.inventory.add_group(str(group))
            for host in (gdata or {}).get("hosts") or {}:
                self.inventory.add_host(str(host), group=str(group))
