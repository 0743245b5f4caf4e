#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: push one rendered roceconf config to one switch (compare, commit, verify)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: apply
short_description: Push a rendered RoCE config to one switch (compare, commit-confirm, verify)
description:
  - Pushes the file rendered by M(roceconf.fabric.render) for ONE device with C(roceconf.apply.apply_config).
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
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.connection
options:
  src:
    description: The rendered config file of the device (C(dest/<device>.<ext>) of M(roceconf.fabric.render)).
    type: path
    required: true
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
attributes:
  action:
    description: Has an action plugin that passes the host's connection variables.
    support: full
  check_mode:
    description: The candidate is compared on the device and discarded; nothing changes.
    support: full
  diff_mode:
    description: The candidate diff as the device prints it.
    support: full
notes:
  - Merge semantics, never replace; lines the intent no longer renders are not removed (the drift audit
    reports what they break).
requirements:
  - roceconf, napalm and netmiko in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Push the rendered config (connection from the host's inventory variables)
  roceconf.fabric.apply:
    src: "{{ roceconf_render_dir }}/{{ inventory_hostname }}.cfg"
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

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.play import fail_unimportable  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.target import (  # noqa: E402
    CONNECTION_ARGS,
    target_from_params,
)


def main():
    module = AnsibleModule(
        argument_spec={
            **CONNECTION_ARGS,
            "src": {"type": "path", "required": True},
            "timeout": {"type": "float", "default": 30.0},
            "confirm_seconds": {"type": "int", "default": 120},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf import platforms
        from roceconf.apply import ApplyError, apply_config, apply_method
    except ImportError as e:
        fail_unimportable(module, e)
    p = module.params
    target = target_from_params(p)
    if target.problem:
        module.fail_json(msg=f"{p['device']}: {target.problem}")
    plat = platforms.get(target.platform)
    if plat.kind == "nic":
        module.fail_json(
            msg=f"{p['device']} is a host ({plat.name}): NIC scripts are run with ansible.builtin.script"
        )
    try:
        with open(p["src"], encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        module.fail_json(msg=f"cannot read {p['src']}: {e.strerror or e} (run playbooks/generate.yml)")
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
