#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: read one device and return its RoCE configuration as the vendor-neutral state."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: state_info
short_description: Read one device's RoCE configuration as the vendor-neutral device state
description:
  - Reads the running configuration (switches) or the NIC read-back (hosts) of ONE device and parses it
    with the platform's parser (C(roceconf.drift.collect.read_state)) into the same device state the intent
    compiles to - DSCP map, per-port PFC, ECN, scheduling, MTU, PFC watchdog, ECMP hashing - with the
    parser's warnings and the source line of every field.
  - A read - never C(changed). A device that cannot be read fails the task with the reason.
  - "Runs on the controller (C(delegate_to: localhost)); the action plugin passes the host's connection
    variables."
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.connection
options:
  intent:
    description:
      - Intent file. Needed for hosts (it names the NIC ports to read back); optional for switches.
    type: path
  src:
    description: Parse this saved config (or read-back bundle) instead of reading the live device.
    type: path
  timeout:
    description: Connect/read timeout per attempt, seconds.
    type: float
    default: 10
  retries:
    description: Retries of connection problems.
    type: int
    default: 2
attributes:
  action:
    description: Has an action plugin that passes the host's connection variables.
    support: full
  check_mode:
    description: Reads only, so it runs the same in check mode.
    support: full
  diff_mode:
    description: Returns no diff (nothing changes).
    support: none
seealso:
  - module: roceconf.fabric.drift
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Read the switch's RoCE state
  roceconf.fabric.state_info:
  delegate_to: localhost
  register: leaf

- name: Show its no-drop priorities per port
  ansible.builtin.debug:
    msg: "{{ leaf.state.interfaces | dict2items | map(attribute='value.pfc.no_drop') | list }}"
"""

RETURN = r"""
state:
  description: The device state (C(schemas/device-state.schema.json) of roceconf), meta fields included.
  returned: success
  type: dict
  sample: {"platform": "eos", "hostname": "leaf1", "dscp_to_tc": {"26": 3, "48": 6}, "interfaces": {}}
platform:
  description: roceconf platform of the device.
  returned: success
  type: str
source:
  description: Where the text was read (address and port, or the file).
  returned: success
  type: str
warnings_found:
  description: Parser warnings (unrecognised RoCE-relevant lines, unused or undefined objects).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.play import fail_unimportable, load_intent  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.target import (  # noqa: E402
    CONNECTION_ARGS,
    target_from_params,
)


def main():
    module = AnsibleModule(
        argument_spec={
            **CONNECTION_ARGS,
            "intent": {"type": "path"},
            "src": {"type": "path"},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf import platforms
        from roceconf.desired import desired_state
        from roceconf.drift.collect import CollectError, read_state
    except ImportError as e:
        fail_unimportable(module, e)
    p = module.params
    target = target_from_params(p)
    if target.problem:
        module.fail_json(msg=f"{p['device']}: {target.problem}")
    desired = None
    if p["intent"]:
        fab = load_intent(module, p["intent"], p["device"])
        if p["device"] in fab.devices:
            desired = desired_state(fab.devices[p["device"]])
    if p["src"]:
        try:
            with open(p["src"], encoding="utf-8", errors="replace") as fh:
                state = platforms.get(target.platform).parse(fh.read())
        except OSError as e:
            module.fail_json(msg=f"cannot read {p['src']}: {e.strerror or e}")
        source = p["src"]
    else:
        try:
            state, _text, _attempts = read_state(target, desired, p["timeout"], p["retries"])
        except CollectError as e:
            module.fail_json(msg=f"{p['device']}: could not read: {target.scrub(str(e))}")
        source = target.where
    data = state.model_dump(mode="json")
    module.exit_json(
        changed=False,
        state=data,
        platform=target.platform,
        source=source,
        warnings_found=data.get("warnings", []),
    )


if __name__ == "__main__":
    main()
