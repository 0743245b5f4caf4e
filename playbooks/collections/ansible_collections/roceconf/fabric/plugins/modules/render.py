#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: validate a roceconf intent and render one config file per device."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: render
short_description: Validate a RoCE fabric intent and render the device configs
description:
  - Loads and validates a roceconf intent file and renders one config file per device into O(dest)
    (C(dest/<device>.<ext>)), atomically and deterministically, with C(roceconf.compile).
  - Reports the files whose content changes. In check mode nothing is written and the task reports
    C(changed) when a file would change. With C(--diff) the unified diff before/after of each file is shown.
  - An invalid intent fails the task with the C(FILE:LINE:COL) diagnostics of the validator.
  - "Runs on the controller (C(delegate_to: localhost) or a play on localhost)."
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
  dest:
    description: Directory the rendered files are written to (created when missing).
    type: path
    required: true
  device:
    description: Render this device only (default every device of the intent).
    type: str
  check_current:
    description:
      - Write nothing and fail when a file in O(dest) is missing or differs from what the intent renders
        (the playbook-side equivalent of C(roceconf render --check)). Used by the apply playbook so that only
        reviewed, current files are pushed.
    type: bool
    default: false
attributes:
  check_mode:
    description: Writes nothing; reports C(changed) when a file would change.
    support: full
  diff_mode:
    description: The unified diff of every file that changes.
    support: full
notes:
  - Files in O(dest) that do not belong to the intent are reported in RV(unexpected) and left alone.
requirements:
  - roceconf (the Python package) in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Render every device of the lab fabric
  roceconf.fabric.render:
    intent: inventories/lab/intent.yml
    dest: build/render/lab
  delegate_to: localhost

- name: Fail when the rendered files are not current
  roceconf.fabric.render:
    intent: inventories/lab/intent.yml
    dest: build/render/lab
    check_current: true
"""

RETURN = r"""
files:
  description: Every file the intent renders (names inside O(dest)).
  returned: success
  type: list
  elements: str
  sample: [leaf1.cfg, spine2.set]
changed_files:
  description: Files written (or, in check mode, that would be written).
  returned: success
  type: list
  elements: str
unexpected:
  description: Files in O(dest) with a config extension that the intent does not render.
  returned: success
  type: list
  elements: str
devices:
  description: Per device, its platform, kind (switch or nic), apply method and rendered file.
  returned: success
  type: dict
  sample: {"leaf1": {"platform": "eos", "kind": "switch", "apply_method": "napalm", "file": "leaf1.cfg",
           "path": "/repo/build/render/lab/leaf1.cfg"}}
diagnostics:
  description: Validation errors (FILE:LINE:COL lines) when the intent is invalid.
  returned: failure
  type: list
  elements: str
"""

import os  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.play import (  # noqa: E402
    diagnostics_message,
    fail_unimportable,
)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "intent": {"type": "path", "required": True},
            "dest": {"type": "path", "required": True},
            "device": {"type": "str"},
            "check_current": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf import platforms
        from roceconf.apply import apply_method
        from roceconf.compile import check_outputs, load_valid, render_fabric, write_render
        from roceconf.diagnostics import DiagnosticError
    except ImportError as e:
        fail_unimportable(module, e)
    p = module.params
    dest = os.path.abspath(p["dest"])
    try:
        fab = load_valid(p["intent"])
        files = render_fabric(fab, p["device"])
    except DiagnosticError as e:
        module.fail_json(msg=diagnostics_message(e), diagnostics=[d.format() for d in e.diagnostics])
    except OSError as e:
        module.fail_json(msg=f"cannot read intent {p['intent']}: {e.strerror or e}")

    res = check_outputs(files, dest, all_devices=p["device"] is None)
    changed_files = sorted(res.missing + res.stale)
    devices = {}
    for name, dev in fab.devices.items():
        if p["device"] is not None and name != p["device"]:
            continue
        plat = platforms.get(dev.platform)
        fname = f"{name}.{plat.extension}"
        devices[name] = {
            "platform": dev.platform,
            "kind": plat.kind,
            "apply_method": apply_method(plat),
            "file": fname,
            "path": os.path.join(dest, fname),
        }
    out = {
        "files": sorted(files),
        "changed_files": changed_files,
        "unexpected": res.unexpected,
        "devices": devices,
        "dest": dest,
    }
    if module._diff and changed_files:
        diffs = []
        for name in changed_files:
            path = os.path.join(dest, name)
            before = ""
            if os.path.exists(path):
                with open(path, encoding="utf-8") as fh:
                    before = fh.read()
            diffs.append(
                {"before": before, "after": files[name], "before_header": path, "after_header": path}
            )
        out["diff"] = diffs
    if p["check_current"]:
        if changed_files:
            module.fail_json(
                msg=f"{len(changed_files)} rendered file(s) in {dest} are missing or out of date "
                f"({', '.join(changed_files)}): run the roceconf.fabric.generate playbook or role first and review the result",
                changed=False,
                **out,
            )
        module.exit_json(changed=False, **out)
    if changed_files and not module.check_mode:
        try:
            write_render(files, dest, complete=p["device"] is None)
        except OSError as e:
            module.fail_json(msg=f"cannot write {dest}: {e.strerror or e}")
    module.exit_json(changed=bool(changed_files), **out)


if __name__ == "__main__":
    main()
