# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Options shared by the modules that read every device of a play (bom, health, cabling)."""

from __future__ import annotations


class ModuleDocFragment:
    # every fleet module (bom, health, cabling)
    DOCUMENTATION = r"""
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
  devices:
    description: Devices to read (C(ansible_play_hosts_all)); the connection lists below are aligned with it.
    type: list
    elements: str
    required: true
  connection_secrets:
    description: The password variables of each device, aligned with O(devices). Filled in by the action plugin.
    type: list
    elements: dict
    default: []
  workers:
    description: Devices read in parallel.
    type: int
    default: 8
  date:
    description: Folder name; default today's UTC date C(YYYY-MM-DD).
    type: str
"""

    # the modules that judge what they read and fail on it (health, cabling): roceconf.fabric.fleet.read
    READ = r"""
options:
  connections:
    description:
      - The connection variables of each device, aligned with O(devices), resolved like
        C(roceconf drift --inventory) does (C(roceconf.inventory.target_from_vars)). Filled in by the action
        plugin from every host's variables (templated by Ansible); leave it out.
    type: list
    elements: dict
    default: []
  timeout:
    description: Connect/read timeout per attempt, seconds.
    type: float
    default: 10
  retries:
    description: Retries of connection problems (authentication errors are not retried).
    type: int
    default: 2
  dest:
    description: Root folder of the reports; the files go to C(dest/<date>/).
    type: path
    required: true
  fail_on_unknown:
    description: Fail when a device could not be read.
    type: bool
    default: true
  fail:
    description:
      - Fail the task on a blocking finding or unknown device. With V(false) it only returns RV(findings),
        RV(exit_code) and RV(failed_devices) (the role fails each device's own host and one summary task).
    type: bool
    default: true
"""
