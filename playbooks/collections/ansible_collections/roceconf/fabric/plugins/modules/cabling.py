#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: cabling from LLDP (roceconf cabling) for the hosts of a play."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: cabling
short_description: Compare every device's LLDP neighbours with the intent's links
description:
  - Runs C(roceconf.cabling.collect.cabling_live) for the given devices of the inventory - the same collection,
    credentials, worker pool, timeouts and C(unknown) semantics as the drift audit and the health check - and
    writes the cabling report into a dated folder C(dest/<YYYY-MM-DD>/) (UTC date) - C(cabling.json),
    C(cabling-junit.xml), C(cabling.md) - and every device's raw LLDP outputs into C(dest/<YYYY-MM-DD>/lldp/)
    (C(roceconf cabling --lldp) reads them again).
  - "A link is judged from both of its ends, so the module runs once on the controller (C(run_once: true),
    C(delegate_to: localhost))."
  - Fails on a finding of severity O(fail_on) or worse (RC500-RC504 - missing, miswired, unexpected, crossed
    rails, NIC on the wrong leaf), naming rule, device and port; fails when a device could not be read (unless
    O(fail_on_unknown=false)). The reports are written first.
  - Not sliced - give it every device of the fabric (AWX job slicing would judge each slice's link ends alone).
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.fleet
  - roceconf.fabric.fleet.read
options:
  fail_on:
    description: Fail when a finding of this severity or worse exists.
    type: str
    choices: [error, warning, never]
    default: error
  inventory_hosts:
    description:
      - Every host of the inventory (C(groups['all'])). A device of the intent that is not among them is reported
        C(unknown) (not in the inventory).
    type: list
    elements: str
    default: []
attributes:
  action:
    description: Has an action plugin that passes every host's connection variables.
    support: full
  check_mode:
    description: Reads only; the reports are written in check mode too.
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
- name: Cabling from LLDP (connections from every host's inventory variables)
  roceconf.fabric.cabling:
    intent: "{{ roceconf_intent }}"
    devices: "{{ ansible_play_hosts_all }}"
    dest: /srv/roceconf
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
summary:
  description: Counts of the report (devices, unknown_devices, links, ok, fail, unknown, error, warning).
  returned: always, unless the module could not start
  type: dict
exit_code:
  description: What C(roceconf cabling) would exit with (0 every link confirmed, 1 findings, 3 something unknown).
  returned: always, unless the module could not start
  type: int
findings:
  description: Every finding (rule, severity, device, port, message, expected, observed) but RC505 (unread devices are in RV(lines) and RV(failed_devices)).
  returned: always, unless the module could not start
  type: list
  elements: dict
lines:
  description: One line per blocking finding (severity, rule, device, port, message) or unreadable device.
  returned: always, unless the module could not start
  type: list
  elements: str
failed_devices:
  description: Devices with a blocking finding or that could not be read (their hosts fail in the role).
  returned: always, unless the module could not start
  type: list
  elements: str
skipped:
  description: Devices of the play that are not devices of the intent (not read).
  returned: always, unless the module could not start
  type: list
  elements: str
folder:
  description: The folder the reports were written to.
  returned: always, unless the module could not start
  type: str
files:
  description: The report files written.
  returned: always, unless the module could not start
  type: list
  elements: str
"""

import os  # noqa: E402
import sys  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

RANK = {"error": 0, "warning": 1}


def main():
    module = AnsibleModule(
        argument_spec={
            "intent": {"type": "path", "required": True},
            "devices": {"type": "list", "elements": "str", "required": True},
            "connections": {"type": "list", "elements": "dict", "default": []},
            "connection_secrets": {"type": "list", "elements": "dict", "default": [], "no_log": True},
            "workers": {"type": "int", "default": 8},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            "dest": {"type": "path", "required": True},
            "date": {"type": "str"},
            "fail_on": {"type": "str", "choices": ["error", "warning", "never"], "default": "error"},
            "fail_on_unknown": {"type": "bool", "default": True},
            "fail": {"type": "bool", "default": True},
            "inventory_hosts": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.cabling.collect import cabling_live
        from roceconf.cabling.report import FORMATS
        from roceconf.compile import load_valid
        from roceconf.diagnostics import DiagnosticError
        from roceconf.drift.collect import CollectError
        from roceconf.inventory import target_from_vars
        from roceconf.outdir import write_outputs
    except ImportError as e:
        module.fail_json(msg=f"roceconf is not importable by {sys.executable}: {e}")
    p = module.params
    try:
        fab = load_valid(p["intent"])
    except DiagnosticError as e:
        module.fail_json(msg="invalid intent:\n" + "\n".join(d.format() for d in e.diagnostics))
    except OSError as e:
        module.fail_json(msg=f"cannot read intent {p['intent']}: {e.strerror or e}")
    n = len(p["devices"])
    conns = list(p["connections"]) + [{}] * (n - len(p["connections"]))
    secrets = list(p["connection_secrets"]) + [{}] * (n - len(p["connection_secrets"]))
    targets = {}
    for dev, conn, secret in zip(p["devices"], conns[:n], secrets[:n], strict=True):
        targets[dev] = target_from_vars(dev, {**(conn or {}), **(secret or {})}, env=os.environ)
    devices = [d for d in p["devices"] if d in fab.devices]
    skipped = [d for d in p["devices"] if d not in fab.devices]
    if p["inventory_hosts"]:  # the intent's devices the inventory lacks: unknown
        devices += [d for d in fab.devices if d not in set(p["inventory_hosts"]) and d not in devices]
    if not devices:
        module.fail_json(msg="none of the play's hosts is a device of the intent")
    folder = os.path.join(os.path.abspath(p["dest"]), p["date"] or datetime.now(UTC).strftime("%Y-%m-%d"))
    try:
        report = cabling_live(fab, None, targets=targets, device=devices, workers=p["workers"],
                              timeout=p["timeout"], retries=p["retries"], save_dir=os.path.join(folder, "lldp"))
    except CollectError as e:
        module.fail_json(msg=str(e))
    texts = {
        "cabling.json": FORMATS["json"](report),
        "cabling-junit.xml": FORMATS["junit"](report),
        "cabling.md": FORMATS["markdown"](report),
    }
    write_outputs(texts, folder)
    findings = [f.to_dict() for f in report.findings if f.rule != "RC505"]  # RC505: the unknown devices below
    bad = [f for f in findings if p["fail_on"] != "never" and RANK[f["severity"]] <= RANK[p["fail_on"]]]
    unknown = [d for d in report.devices if d.status == "unknown"]
    failed = {f["device"] for f in bad} | ({d.device for d in unknown} if p["fail_on_unknown"] else set())
    lines = [f"[{f['severity']}] {f['rule']} {f['device']}:{f['port'] or '-'}: {f['message']}" for f in bad] + (
        [f"{d.device}: could not read: {d.reason}" for d in unknown] if p["fail_on_unknown"] else [])
    out = {
        "summary": report.counts,
        "lines": lines,
        "exit_code": report.exit_code,
        "findings": findings,
        "failed_devices": sorted(failed),
        "skipped": skipped,
        "folder": folder,
        "files": [os.path.join(folder, name) for name in texts],
        "changed": False,
    }
    if p["fail"] and lines:
        shown = "; ".join(lines[:10]) + (f" (+{len(lines) - 10} more)" if len(lines) > 10 else "")
        module.fail_json(msg=f"{len(lines)} cabling problem(s): {shown}", **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
