#!/usr/bin/python
"""Ansible module: push one rendered roceconf config to one switch (compare, commit, verify)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: roceconf_apply
short_description: Push a rendered RoCE config to one switch (compare, commit-confirm, verify)
description:
  - Pushes the file rendered by M(roceconf_render) for ONE device with C(roceconf.apply.apply_config).
  - "EOS (eAPI) and NX-OS (C(nxos_ssh)): napalm C(load_merge_candidate), C(compare_config), C(commit_config);
    the merge is loaded again from a new session and must compare empty, otherwise napalm C(rollback())."
  - "Junos (CLI over SSH): C(configure), the set lines, C(show | compare), C(commit confirmed N), then
    C(commit) from a new session (an unreachable switch is not confirmed and rolls back by itself)."
  - "NVUE (SSH): upload the YAML, C(nv config patch), C(nv config diff), C(nv config apply --confirm Ns -y),
    then C(nv config apply -y) from a new session to confirm."
  - "SONiC (SSH): the diff of the running CONFIG_DB before/after the merge, C(sudo config load F -y), verify,
    C(sudo config save -y) (no commit-confirm on SONiC)."
  - Idempotent; when the compare shows no difference nothing is committed and C(changed=false).
  - Check mode compares and discards (nothing changes on the device); C(--diff) shows the candidate diff.
  - Host NIC scripts are not pushed by this module; the playbook runs them with M(ansible.builtin.script).
version_added: "0.1.0"
author: roceconf maintainers
options:
  src:
    description: The rendered config file of the device (C(dest/<device>.<ext>) of M(roceconf_render)).
    type: path
    required: true
  device:
    description: Device name (normally C(inventory_hostname)); used in messages and temp file names.
    type: str
    required: true
  host:
    description: Address of the device (C(ansible_host)).
    type: str
    required: true
  port:
    description: TCP port (SSH, or eAPI for EOS).
    type: int
  platform:
    description: roceconf platform of the device.
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
    description: Connect/command timeout, seconds.
    type: float
    default: 30
  confirm_seconds:
    description:
      - Commit-confirm window where the platform has one (Junos rounds up to minutes, NVUE seconds).
        The change is confirmed only after it was verified; otherwise the device rolls back by itself.
        C(0) commits without confirm.
    type: int
    default: 120
notes:
  - Supports check mode and diff mode.
  - Merge semantics, never replace; lines the intent no longer renders are not removed (the drift audit
    reports what they break).
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Push the rendered config
  roceconf_apply:
    src: "{{ roceconf_render_dir }}/{{ inventory_hostname }}.cfg"
    device: "{{ inventory_hostname }}"
    host: "{{ ansible_host }}"
    port: "{{ ansible_port | default(omit) }}"
    platform: "{{ platform }}"
    transport: "{{ transport | default(omit) }}"
    password: "{{ ansible_password | default(omit) }}"
  delegate_to: localhost
"""

RETURN = r"""
diff_text:
  description: The candidate diff as the device (or roceconf, for SONiC) printed it; empty when unchanged.
  returned: success
  type: str
committed:
  description: Whether a commit happened (false in check mode and when there was no difference).
  returned: success
  type: bool
method:
  description: "How the config was pushed: napalm, junos-cli, nvue-patch, sonic-config-load."
  returned: success
  type: str
messages:
  description: What was done, step by step (no secrets).
  returned: success
  type: list
  elements: str
"""

import sys  # noqa: E402

from ansible.module_utils.basic import AnsibleModule, env_fallback  # noqa: E402


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "src": {"type": "path", "required": True},
            "device": {"type": "str", "required": True},
            "host": {"type": "str", "required": True},
            "port": {"type": "int"},
            "platform": {"type": "str", "required": True},
            "transport": {"type": "str"},
            "username": {"type": "str", "fallback": (env_fallback, ["ROCECONF_USERNAME"])},
            "password": {"type": "str", "no_log": True, "fallback": (env_fallback, ["ROCECONF_PASSWORD"])},
            "timeout": {"type": "float", "default": 30.0},
            "confirm_seconds": {"type": "int", "default": 120},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf import platforms
        from roceconf.apply import ApplyError, apply_config, apply_method
        from roceconf.drift.collect import Target
    except ImportError as e:
        module.fail_json(msg=f"roceconf is not importable by {sys.executable}: {e}")
    p = module.params
    try:
        plat = platforms.get(p["platform"])
    except Exception:  # noqa: BLE001 - unknown platform name
        module.fail_json(msg=f"unknown platform '{p['platform']}'")
    if plat.kind == "nic":
        module.fail_json(
            msg=f"{p['device']} is a host ({plat.name}): NIC scripts are run with ansible.builtin.script"
        )
    try:
        with open(p["src"], encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        module.fail_json(msg=f"cannot read {p['src']}: {e.strerror or e} (run playbooks/generate.yml)")
    target = Target.from_params(p)
    method = apply_method(plat)
    try:
        res = apply_config(
            target,
            plat,
            text,
            check=module.check_mode,
            timeout=p["timeout"],
            confirm_seconds=p["confirm_seconds"] or None,
        )
    except ApplyError as e:
        module.fail_json(msg=str(e), method=method)
    out = {
        "changed": res.changed,
        "committed": res.committed,
        "diff_text": res.diff,
        "messages": res.messages,
        "method": method,
    }
    if module._diff and res.diff:
        out["diff"] = {"prepared": res.diff}
    module.exit_json(**out)


if __name__ == "__main__":
    main()
