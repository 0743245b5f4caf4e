#!/usr/bin/python
"""Ansible module: audit one device's live RoCE configuration against the intent."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: roceconf_drift
short_description: Audit one device's RoCE configuration against the intent
description:
  - Reads the running configuration (switches) or the NIC read-back (hosts) of ONE device, parses it into
    the vendor-neutral device state and compares it with what the intent says, with
    C(roceconf.drift.audit.audit_device). Returns the structured drift items (severity, field, expected,
    actual, impact) and the remediation commands.
  - C(changed) is true when drift of severity critical or warning exists (info items do not count).
  - O(fail_on) fails the task when drift of that severity (or worse) exists. A device that cannot be read
    (refused, unreachable, bad credentials, timeout, unparsable answer) has status C(unknown) and fails the
    task with the reason unless O(fail_on_unknown=false).
  - Runs on the controller. Pass the device's connection data from its inventory variables
    (C(ansible_host), C(ansible_port), C(platform), C(transport)).
version_added: "0.1.0"
author: roceconf maintainers
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
  device:
    description: Device name in the intent (normally C(inventory_hostname)).
    type: str
    required: true
  host:
    description: Address of the device (C(ansible_host)).
    type: str
    required: true
  port:
    description: TCP port (SSH, or eAPI for EOS); default the protocol's port.
    type: int
  platform:
    description: roceconf platform of the device (must match the intent).
    type: str
    required: true
  transport:
    description: C(ssh), or C(http)/C(https) for EOS eAPI.
    type: str
  username:
    description: Login name. Default the environment variable C(ROCECONF_USERNAME).
    type: str
  password:
    description: Password (may come from a vaulted C(ansible_password)). Default C(ROCECONF_PASSWORD).
    type: str
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
      - Fail the task when drift of this severity or worse exists. C(never) only reports.
    type: str
    choices: [critical, warning, never]
    default: critical
  fail_on_unknown:
    description: Fail the task when the device could not be audited (status C(unknown)).
    type: bool
    default: true
notes:
  - Read-only; supports check mode (it runs normally) and diff mode (expected vs actual per drifted field).
  - Credentials never appear in the result or in messages.
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Audit the device
  roceconf_drift:
    intent: "{{ roceconf_intent }}"
    device: "{{ inventory_hostname }}"
    host: "{{ ansible_host }}"
    port: "{{ ansible_port | default(omit) }}"
    platform: "{{ platform }}"
    transport: "{{ transport | default(omit) }}"
    password: "{{ ansible_password | default(omit) }}"
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
status:
  description: Same as C(drift.status).
  returned: always
  type: str
  sample: drift
"""

import sys  # noqa: E402

from ansible.module_utils.basic import AnsibleModule, env_fallback  # noqa: E402

RANK = {"critical": 0, "warning": 1, "info": 2}


def _item_line(i: dict) -> str:
    where = f" ({i['interface']})" if i.get("interface") else ""
    return f"{i['device']}: {i['field']}{where} expected {i['expected']!r}, actual {i['actual']!r}"


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "intent": {"type": "path", "required": True},
            "device": {"type": "str", "required": True},
            "host": {"type": "str", "required": True},
            "port": {"type": "int"},
            "platform": {"type": "str", "required": True},
            "transport": {"type": "str"},
            "username": {"type": "str", "fallback": (env_fallback, ["ROCECONF_USERNAME"])},
            "password": {"type": "str", "no_log": True, "fallback": (env_fallback, ["ROCECONF_PASSWORD"])},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            "fail_on": {"type": "str", "choices": ["critical", "warning", "never"], "default": "critical"},
            "fail_on_unknown": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.compile import load_valid
        from roceconf.diagnostics import DiagnosticError
        from roceconf.drift.audit import audit_device
        from roceconf.drift.collect import Target
    except ImportError as e:
        module.fail_json(msg=f"roceconf is not importable by {sys.executable}: {e}")
    p = module.params
    try:
        fab = load_valid(p["intent"])
    except DiagnosticError as e:
        module.fail_json(msg="invalid intent:\n" + "\n".join(d.format() for d in e.diagnostics))
    except OSError as e:
        module.fail_json(msg=f"cannot read intent {p['intent']}: {e.strerror or e}")
    if p["device"] not in fab.devices:
        module.fail_json(msg=f"no device named '{p['device']}' in the intent {p['intent']}")
    target = Target.from_params(p)
    res = audit_device(
        fab,
        p["device"],
        target=target,
        timeout=p["timeout"],
        retries=p["retries"],
        source=f"{p['host']}:{p['port']}" if p["port"] else p["host"],
    )
    data = res.to_dict()
    blocking = [i for i in data["items"] if i["severity"] != "info"]
    out = {"drift": data, "status": data["status"], "changed": bool(blocking)}
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
        bad = [i for i in blocking if RANK[i["severity"]] <= RANK[p["fail_on"]]]
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
