#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: the bill of materials (roceconf bom) of the hosts of a play."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: bom
short_description: Read the bill of materials of every device of the intent among the play's hosts
description:
  - Runs C(roceconf.acceptance.bom.collect) - what C(roceconf bom) runs - for the given devices, with the
    connection variables of every host (resolved like C(roceconf bom --inventory)), and writes C(bom.json)
    into a dated folder C(dest/<YYYY-MM-DD>/) (UTC date) - switch model, OS and version; host kernel, NIC
    driver and firmware, OFED, NCCL, CUDA; the SHA-256 of the config roceconf renders for each device.
  - A device that cannot be read, and a device of the intent the inventory lacks, is C(unknown) with the reason.
  - "Runs once on the controller (C(run_once: true), C(delegate_to: localhost))."
  - Under AWX (O(job_id)) each slice writes its own folder; M(roceconf.fabric.merge) combines them.
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.fleet
options:
  connections:
    description:
      - The connection variables of each device, aligned with O(devices), resolved like
        C(roceconf bom --inventory) does (C(roceconf.inventory.target_from_vars)). Filled in by the action
        plugin from every host's variables (templated by Ansible); leave it out.
    type: list
    elements: dict
    default: []
  timeout:
    description: Connect/read timeout, seconds.
    type: float
    default: 10
  dest:
    description: Root folder of the reports; C(bom.json) goes to C(dest/<date>/).
    type: path
    required: true
  fail:
    description:
      - Fail the task when a device could not be read. With V(false) it only returns RV(exit_code),
        RV(lines) and RV(failed_devices) (the role fails each device's own host and one summary task).
    type: bool
    default: true
  inventory_hosts:
    description:
      - Every host of the inventory (C(groups['all'])). A device of the intent that is not among them is reported
        C(unknown) (not in the inventory). Not used for a slice (O(job_id)).
    type: list
    elements: str
    default: []
  job_id:
    description:
      - AWX's C(awx_job_id). Given, this run is one slice - C(bom.json) goes to
        C(dest/<date>/slices/awx-<workflow_job_id>/job-<job_id>/) with a C(slice.json), never over another
        slice's. M(roceconf.fabric.merge) (C(roceconf report merge)) combines the slices.
    type: str
  workflow_job_id:
    description: AWX's C(awx_workflow_job_id), shared by the slices of one run.
    type: str
attributes:
  action:
    description: Has an action plugin that passes every host's connection variables.
    support: full
  check_mode:
    description: Reads only; the report is written in check mode too.
    support: full
  diff_mode:
    description: Returns no diff.
    support: none
notes:
  - Read-only (never C(changed)); credentials come from the inventory, then ROCECONF_USERNAME / ROCECONF_PASSWORD.
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Bill of materials of the play's devices
  roceconf.fabric.bom:
    intent: "{{ roceconf_intent }}"
    devices: "{{ ansible_play_hosts_all }}"
    dest: /srv/roceconf
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
summary:
  description: Counts (devices, read, unknown).
  returned: always, unless the module could not start
  type: dict
exit_code:
  description: What C(roceconf bom) would exit with (0 every device read, 3 some device unknown).
  returned: always, unless the module could not start
  type: int
lines:
  description: One line per device that could not be read.
  returned: always, unless the module could not start
  type: list
  elements: str
failed_devices:
  description: Devices that could not be read (their hosts fail in the role).
  returned: always, unless the module could not start
  type: list
  elements: str
skipped:
  description: Devices of the play that are not devices of the intent (not read).
  returned: always, unless the module could not start
  type: list
  elements: str
folder:
  description: The folder C(bom.json) was written to (a slice's own folder when O(job_id) is given).
  returned: always, unless the module could not start
  type: str
slice:
  description: The slice folder's C(slice.json) content, when O(job_id) is given.
  returned: when O(job_id) is given
  type: dict
files:
  description: The files written.
  returned: always, unless the module could not start
  type: list
  elements: str
"""

import os  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils import play  # noqa: E402


def main():
    module = AnsibleModule(
        argument_spec={
            **play.PLAY_ARGS,
            "workers": {"type": "int", "default": 8},
            "timeout": {"type": "float", "default": 10.0},
            **play.REPORT_ARGS,
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.acceptance.bom import collect
        from roceconf.compile import write_outputs
        from roceconf.drift.collect import CollectError
        from roceconf.reports import to_data
    except ImportError as e:
        play.fail_unimportable(module, e)
    p = module.params
    fab = play.load_intent(module, p["intent"])
    targets = play.targets(p, only=fab.devices)
    devices, skipped = play.devices(module, fab)
    folder, meta = play.report_folder(module, "bom", devices)
    try:
        data = collect(fab, None, targets=targets, workers=p["workers"], timeout=p["timeout"], device=devices)
    except CollectError as e:
        module.fail_json(msg=str(e))
    texts = play.add_slice({"bom.json": to_data(data, "json")}, meta)  # as `roceconf bom --format json`
    write_outputs(texts, folder)
    unknown = {name: d["reason"] for name, d in data["devices"].items() if d["status"] != "read"}
    out = {
        "summary": {"devices": len(data["devices"]), "read": len(data["devices"]) - len(unknown),
                    "unknown": len(unknown)},
        "exit_code": 3 if unknown else 0,
        "lines": [f"{name}: could not read: {reason}" for name, reason in unknown.items()],
        "failed_devices": sorted(unknown),
        "skipped": skipped,
        "folder": folder,
        "files": [os.path.join(folder, name) for name in texts],
        "changed": False,
        **({"slice": meta} if meta is not None else {}),
    }
    if p["fail"] and unknown:
        module.fail_json(msg="could not read: " + "; ".join(f"{k} ({v})" for k, v in unknown.items()), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
