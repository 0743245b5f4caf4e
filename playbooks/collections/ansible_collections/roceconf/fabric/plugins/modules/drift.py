#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: audit one device's live RoCE configuration against the intent."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: drift
short_description: Audit one device's RoCE configuration against the intent
description:
  - Reads the running configuration (switches) or the NIC read-back (hosts) of ONE device, parses it into
    the vendor-neutral device state and compares it with what the intent says, with
    C(roceconf.drift.audit.audit_device). Returns the structured drift items (severity, field, expected,
    actual, impact) and the remediation commands.
  - A read - C(changed) is always false. RV(status) is C(drift) when drift of severity critical or warning
    exists (info items do not count).
  - O(fail_on) fails the task when drift of that severity (or worse) exists. A device that cannot be read
    (refused, unreachable, bad credentials, untrusted certificate, timeout, unparsable answer) has status
    C(unknown) and fails the task with the reason unless O(fail_on_unknown=false).
  - "Runs on the controller (C(delegate_to: localhost)); the action plugin passes the host's connection
    variables, so nothing roceconf-specific is needed in an inventory of switches."
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.connection
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
  timeout:
    description: Connect/read timeout per attempt, seconds.
    type: float
    default: 10
  retries:
    description: Retries of connection problems (exponential backoff); authentication errors are not retried.
    type: int
    default: 2
  fail_on:
    description:
      - Fail the task when drift of this severity or worse exists. V(never) only reports.
    type: str
    choices: [critical, warning, never]
    default: critical
  fail_on_unknown:
    description: Fail the task when the device could not be audited (status C(unknown)).
    type: bool
    default: true
  bom:
    description:
      - Also read the device's bill of materials (model and OS version; host kernel, NIC driver and firmware,
        rdma-core / OFED, NCCL, GPU driver) with the same connection, and return it as C(bom), for
        O(roceconf.fabric.report#module:baseline) (the acceptance baseline check).
      - A device whose BOM cannot be read gets C(bom.status=unknown) with the reason; the audit itself is
        unaffected.
    type: bool
    default: false
attributes:
  action:
    description: Has an action plugin that passes the host's connection variables.
    support: full
  check_mode:
    description: Reads only, so it runs the same in check mode.
    support: full
  diff_mode:
    description: Expected (intent) against actual (running) value of every drifted field.
    support: full
notes:
  - Credentials never appear in the result or in messages.
seealso:
  - module: roceconf.fabric.state_info
  - module: roceconf.fabric.report
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Audit the device against the intent (connection from the host's inventory variables)
  roceconf.fabric.drift:
    intent: "{{ roceconf_intent }}"
    fail_on: warning
  delegate_to: localhost
  register: audit
"""

RETURN = r"""
drift:
  description: The device result (the same object as one entry of the JSON drift report's C(devices)).
  returned: always, unless the module could not start
  type: dict
  contains:
    device: {description: Device name., type: str}
    platform: {description: roceconf platform., type: str}
    status: {description: "C(in_sync), C(drift) or C(unknown).", type: str}
    reason: {description: Why the device could not be audited (status unknown)., type: str}
    worst_severity: {description: "C(critical), C(warning), C(info) or null.", type: str}
    items:
      description: Drift items (device, interface, field, expected, actual, severity, feature, explanation,
        file, line).
      type: list
      elements: dict
    remediation: {description: Commands that bring the device back to the intent., type: list, elements: dict}
bom:
  description:
    - The device's BOM entry (C(platform), C(config_sha256), C(status) C(read) or C(unknown), C(reason),
      C(facts)), the same object as one entry of C(roceconf bom)'s C(devices).
  returned: when O(bom=true)
  type: dict
status:
  description: Same as C(drift.status).
  returned: always
  type: str
  sample: drift
"""

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils import play  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.target import (  # noqa: E402
    CONNECTION_ARGS,
    target_from_params,
)


def _item_line(i):
    where = f" ({i['interface']})" if i.get("interface") else ""
    return f"{i['device']}: {i['field']}{where} expected {i['expected']!r}, actual {i['actual']!r}"


def main():
    module = AnsibleModule(
        argument_spec={
            **CONNECTION_ARGS,
            "intent": {"type": "path", "required": True},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            **play.FAIL_ON_ARGS,
            "bom": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.drift.audit import audit_device
    except ImportError as e:
        play.fail_unimportable(module, e)
    p = module.params
    fab = play.load_intent(module, p["intent"], p["device"])
    if p["device"] not in fab.devices:
        module.fail_json(msg=f"no device named '{p['device']}' in the intent {p['intent']}")
    target = target_from_params(p)
    res = audit_device(
        fab, p["device"], target=target, timeout=p["timeout"], retries=p["retries"], source=target.where
    )
    data = res.to_dict()
    blocking = [i for i in data["items"] if i["severity"] != "info"]
    out = {"drift": data, "status": data["status"], "changed": False}
    if p["bom"]:
        from roceconf.acceptance.bom import device_entry

        out["bom"] = device_entry(fab, p["device"], target, p["timeout"])
    if module._diff and blocking:
        out["diff"] = {
            "before_header": f"{p['device']} (running)",
            "after_header": f"{p['device']} (intent)",
            "before": "".join(f"{i['field']}: {i['actual']!r}\n" for i in blocking),
            "after": "".join(f"{i['field']}: {i['expected']!r}\n" for i in blocking),
        }
    if data["status"] == "unknown" and p["fail_on_unknown"]:
        module.fail_json(msg=f"{p['device']}: could not audit: {data['reason']}", **out)
    if p["fail_on"] != "never":
        bad = [i for i in blocking if play.RANK[i["severity"]] <= play.RANK[p["fail_on"]]]
        if bad:
            shown = "; ".join(f"[{i['severity']}] {_item_line(i)}" for i in bad[:10])
            more = f" (+{len(bad) - 10} more)" if len(bad) > 10 else ""
            module.fail_json(
                msg=f"{p['device']}: {len(bad)} drift item(s) of severity {p['fail_on']} or worse: "
                f"{shown}{more}",
                **out,
            )
    module.exit_json(**out)


if __name__ == "__main__":
    main()
