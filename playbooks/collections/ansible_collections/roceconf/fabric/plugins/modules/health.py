#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: fabric health from counters (roceconf health) for the hosts of a play."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: health
short_description: Read every device's counters twice or more and evaluate them against the intent
description:
  - Runs C(roceconf.health.collect.health_live) for the given devices of the inventory - the same
    collection, credentials, worker pool, timeouts and C(unknown) semantics as the drift audit - and writes
    the health report into a dated folder C(dest/<YYYY-MM-DD>/) (UTC date) - C(health.json),
    C(health-junit.xml), C(health.md), C(health.prom) (Prometheus textfile), C(health.html) (fabric map) - and
    the raw counters of every
    sample into C(dest/<YYYY-MM-DD>/counters/) (C(roceconf health --counters) reads them again).
  - "The evaluation needs every device at once (link partners are correlated), so it runs once on the
    controller (C(run_once: true), C(delegate_to: localhost))."
  - Fails when a finding of severity O(fail_on) or worse exists, naming device, port, priority and rule; fails
    when a device could not be read (unless O(fail_on_unknown=false)). The reports are written first.
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
extends_documentation_fragment:
  - roceconf.fabric.fleet
  - roceconf.fabric.fleet.read
options:
  interval:
    description: Seconds between samples.
    type: float
    default: 10
  samples:
    description: Reads per device (at least 2).
    type: int
    default: 2
  fail_on:
    description: Fail when a finding of this severity or worse exists.
    type: str
    choices: [critical, warning, never]
    default: critical
  inventory_hosts:
    description:
      - Every host of the inventory (C(groups['all'])). A device of the intent that is not among them is reported
        C(unknown) (not in the inventory). Not used for a slice (O(job_id)).
    type: list
    elements: str
    default: []
  job_id:
    description:
      - AWX's C(awx_job_id). Given, this run is one slice - its reports and counters go to
        C(dest/<date>/slices/awx-<workflow_job_id>/job-<job_id>/) with a C(slice.json), never over another
        slice's. M(roceconf.fabric.merge) evaluates the slices' counters together (link partners included).
    type: str
  workflow_job_id:
    description: AWX's C(awx_workflow_job_id), shared by the slices of one run.
    type: str
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
  - roceconf, napalm, netmiko and prometheus-client in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Fabric health from counters (connections from every host's inventory variables)
  roceconf.fabric.health:
    intent: "{{ roceconf_intent }}"
    devices: "{{ ansible_play_hosts_all }}"
    interval: 60
    dest: /srv/roceconf
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
summary:
  description:
    - Counts of the report - devices by status (devices, healthy, findings, unknown); causes (one finding per
      rule, priority and counters of a device, whatever the port), the ports they cover and the per-port
      findings (causes, ports, items); critical, warning and info count causes.
  returned: always, unless the module could not start
  type: dict
exit_code:
  description: What C(roceconf health) would exit with (0 healthy, 1 findings, 3 some device unknown).
  returned: always, unless the module could not start
  type: int
findings:
  description: Every finding (rule, severity, device, port, priority, counters, value, threshold, message).
  returned: always, unless the module could not start
  type: list
  elements: dict
lines:
  description: One line per blocking finding (severity, rule, device, port, priority, message) or unreadable device.
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
  description: The folder the reports were written to (a slice's own folder when O(job_id) is given).
  returned: always, unless the module could not start
  type: str
slice:
  description: The slice folder's C(slice.json) content, when O(job_id) is given.
  returned: when O(job_id) is given
  type: dict
files:
  description: The report files written.
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
            "interval": {"type": "float", "default": 10.0},
            "samples": {"type": "int", "default": 2},
            "workers": {"type": "int", "default": 8},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            **play.FAIL_ON_ARGS,
            **play.REPORT_ARGS,
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.compile import write_outputs
        from roceconf.drift.collect import CollectError
        from roceconf.health.collect import health_live
        from roceconf.health.report import FORMATS
    except ImportError as e:
        play.fail_unimportable(module, e)
    p = module.params
    if p["samples"] < 2:
        module.fail_json(msg="samples must be at least 2: rates need two reads")
    fab = play.load_intent(module, p["intent"])
    targets = play.targets(p)
    devices, skipped = play.devices(module, fab)
    folder, meta = play.report_folder(module, "health", devices)
    try:
        report = health_live(
            fab,
            None,
            targets=targets,
            samples=p["samples"],
            interval=p["interval"],
            device=devices,
            workers=p["workers"],
            timeout=p["timeout"],
            retries=p["retries"],
            save_dir=os.path.join(folder, "counters"),
        )
    except CollectError as e:
        module.fail_json(msg=str(e))
    texts = {
        "health.json": FORMATS["json"](report),
        "health-junit.xml": FORMATS["junit"](report),
        "health.md": FORMATS["markdown"](report),
        "health.prom": FORMATS["prometheus"](report),
    }
    from roceconf.reports import html

    texts["health.html"] = html.render(html.health_map(report, fab))  # the fabric map
    write_outputs(play.add_slice(texts, meta), folder)
    findings = [f.to_dict() for f in report.findings]
    bad = [f for f in findings if p["fail_on"] != "never" and play.RANK[f["severity"]] <= play.RANK[p["fail_on"]]]
    unknown = [d for d in report.devices if d.status == "unknown"]
    failed = {f["device"] for f in bad} | ({d.device for d in unknown} if p["fail_on_unknown"] else set())
    lines = [
        f"[{f['severity']}] {f['rule']} {f['device']}:{f['port'] or '-'} priority "
        f"{'-' if f['priority'] is None else f['priority']}: {f['message']}"
        for f in bad
    ] + ([f"{d.device}: could not read: {d.reason}" for d in unknown] if p["fail_on_unknown"] else [])
    out = {
        "summary": report.counts,
        "lines": lines,
        "exit_code": report.exit_code,
        "findings": findings,
        "failed_devices": sorted(failed),
        "skipped": skipped,
        "folder": folder,
        "files": [os.path.join(folder, n) for n in texts],
        "changed": False,
        **({"slice": meta} if meta is not None else {}),
    }
    if not p["fail"]:
        module.exit_json(**out)
    if p["fail_on"] != "never":
        if bad:
            shown = "; ".join(
                f"[{f['severity']}] {f['rule']} {f['device']}:{f['port'] or '-'} priority "
                f"{'-' if f['priority'] is None else f['priority']}: {f['message']}"
                for f in bad[:10]
            )
            more = f" (+{len(bad) - 10} more)" if len(bad) > 10 else ""
            module.fail_json(msg=f"{len(bad)} health finding(s) of severity {p['fail_on']} or worse: {shown}{more}", **out)
    if unknown and p["fail_on_unknown"]:
        module.fail_json(msg="could not read: " + "; ".join(f"{d.device} ({d.reason})" for d in unknown), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
