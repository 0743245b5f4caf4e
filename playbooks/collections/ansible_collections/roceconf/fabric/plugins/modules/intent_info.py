#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: the devices of an intent (which inventory hosts a play audits)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: intent_info
short_description: List the devices of a roceconf intent
description:
  - Validates the intent file and returns its devices (name and platform), so that a play audits exactly the
    intent's devices - inventory hosts that are not devices of the intent (a firewall, a management switch)
    are skipped, and the intent's devices that the inventory lacks can be reported.
  - A read of a local file - never C(changed). An invalid intent fails with C(FILE:LINE:COL) lines.
  - "Runs on the controller (C(run_once: true), C(delegate_to: localhost))."
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
attributes:
  check_mode:
    description: Reads only, so it runs the same in check mode.
    support: full
  diff_mode:
    description: Returns no diff (nothing changes).
    support: none
requirements:
  - roceconf in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: The intent's devices
  roceconf.fabric.intent_info:
    intent: "{{ roceconf_intent }}"
  run_once: true
  delegate_to: localhost
  register: roceconf_intent_info
"""

RETURN = r"""
devices:
  description: Device name -> platform, in the intent's natural order.
  returned: success
  type: dict
  sample: {"leaf1": "eos", "gpu1": "connectx"}
names:
  description: The device names (the keys of RV(devices)).
  returned: success
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.play import fail_unimportable, load_intent  # noqa: E402


def main():
    module = AnsibleModule(argument_spec={"intent": {"type": "path", "required": True}}, supports_check_mode=True)
    try:
        from roceconf.names import natural_key
    except ImportError as e:
        fail_unimportable(module, e)
    fab = load_intent(module, module.params["intent"])
    names = sorted(fab.devices, key=natural_key)
    module.exit_json(changed=False, devices={n: fab.devices[n].platform for n in names}, names=names)


if __name__ == "__main__":
    main()
