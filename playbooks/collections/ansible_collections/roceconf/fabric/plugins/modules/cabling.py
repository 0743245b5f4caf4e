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
  - With O(interval) (live samples) or O(counters) (saved samples) the link counters are judged too - FCS
    errors, FEC, flaps, speed and optics of both ends (RC510-RC516), ECMP balance (RC520), one verdict per link - as
    C(roceconf cabling --interval / --counters) does; live samples are kept in C(dest/<YYYY-MM-DD>/counters/).
  - "A link is judged from both of its ends, so the module runs once on the controller (C(run_once: true),
    C(delegate_to: localhost))."
  - Fails on a finding of severity O(fail_on) or worse (RC500-RC504 - missing, miswired, unexpected, crossed
    rails, NIC on the wrong leaf), naming rule, device and port; fails when a device could not be read (unless
    O(fail_on_unknown=false)). The reports are written first.
  - Sliced like the drift audit and the health check - under AWX job slicing (O(job_id)) each job judges its own
    hosts' link ends and writes its own slice folder; M(roceconf.fabric.merge) judges every link, unexpected
    neighbour and ECMP group again on the union of the slices (a link whose ends were read by different slices
    included).
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
  interval:
    description:
      - Also sample the link counters of every device O(samples) times this many seconds apart (live, as
        C(roceconf cabling --interval)). Leave out (and O(counters) out) for LLDP only.
    type: float
  samples:
    description: Samples of the link counters (at least 2), with O(interval).
    type: int
    default: 2
  counters:
    description:
      - Judge the link counters from saved samples instead - C(DIR/<device>.counters.json) as
        C(roceconf health --save-counters) or C(roceconf cabling --save-counters) writes them (as
        C(roceconf cabling --counters)). Not with O(interval).
    type: path
  job_id:
    description:
      - AWX's C(awx_job_id). Given, this run is one slice - its reports, neighbours and link counters go to
        C(dest/<date>/slices/awx-<workflow_job_id>/job-<job_id>/) with a C(slice.json), never over another
        slice's. M(roceconf.fabric.merge) judges the slices together. Devices of the intent outside the slice
        are not reported by it (O(inventory_hosts) is not used).
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

- name: Cabling and link health (counters sampled 3 times 10 s apart), one slice of an AWX sliced job
  roceconf.fabric.cabling:
    intent: "{{ roceconf_intent }}"
    devices: "{{ ansible_play_hosts_all }}"
    interval: 10
    samples: 3
    dest: /srv/roceconf
    job_id: "{{ awx_job_id | default(omit) }}"
    workflow_job_id: "{{ awx_workflow_job_id | default(omit) }}"
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

RANK = {"error": 0, "warning": 1}


def main():
    module = AnsibleModule(
        argument_spec={
            **play.PLAY_ARGS,
            "workers": {"type": "int", "default": 8},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            "fail_on": {"type": "str", "choices": ["error", "warning", "never"], "default": "error"},
            "fail_on_unknown": {"type": "bool", "default": True},
            "interval": {"type": "float"},
            "samples": {"type": "int", "default": 2},
            "counters": {"type": "path"},
            **play.REPORT_ARGS,
        },
        mutually_exclusive=[("interval", "counters")],
        supports_check_mode=True,
    )
    try:
        from roceconf.cabling.collect import cabling_live, link_counters_live, link_counters_offline, with_links
        from roceconf.cabling.report import FORMATS
        from roceconf.drift.collect import CollectError
        from roceconf.outdir import write_outputs
    except ImportError as e:
        play.fail_unimportable(module, e)
    p = module.params
    if p["interval"] is not None and not (0 < p["interval"] <= 3600):
        module.fail_json(msg="interval must be more than 0 and at most 3600 seconds")
    if not 2 <= p["samples"] <= 100:
        module.fail_json(msg="samples must be between 2 and 100: rates need two reads")
    fab = play.load_intent(module, p["intent"])
    targets = play.targets(p)
    devices, skipped = play.devices(module, fab)
    folder, meta = play.report_folder(module, "cabling", devices)
    try:
        report = cabling_live(fab, None, targets=targets, device=devices, workers=p["workers"],
                              timeout=p["timeout"], retries=p["retries"], save_dir=os.path.join(folder, "lldp"))
        names = [d.device for d in report.devices]
        if p["counters"] is not None:
            snaps, unread = link_counters_offline(fab, p["counters"], names)
        elif p["interval"] is not None:
            snaps, unread = link_counters_live(fab, targets, names, samples=p["samples"], interval=p["interval"],
                                               workers=p["workers"], timeout=p["timeout"], retries=p["retries"],
                                               save_dir=os.path.join(folder, "counters"))
        if p["counters"] is not None or p["interval"] is not None:
            report = with_links(report, fab, snaps, unread)
    except CollectError as e:
        module.fail_json(msg=str(e))
    texts = {
        "cabling.json": FORMATS["json"](report),
        "cabling-junit.xml": FORMATS["junit"](report),
        "cabling.md": FORMATS["markdown"](report),
    }
    if p["counters"] is not None and meta is not None:  # the slice carries the counters the merge judges again
        from roceconf.health.collect import SAVED_SUFFIX

        saved = {}
        for n in names:
            src = os.path.join(p["counters"], n + SAVED_SUFFIX)
            if n not in report.link.unread and os.path.isfile(src):
                with open(src, encoding="utf-8") as f:
                    saved[n + SAVED_SUFFIX] = f.read()
        if saved:
            write_outputs(saved, os.path.join(folder, "counters"), private=True)
    write_outputs(play.add_slice(texts, meta), folder)
    findings = [f.to_dict() for f in report.findings if f.rule != "RC505"]  # RC505: the unknown devices below
    bad = [f for f in findings if p["fail_on"] != "never" and f["severity"] in RANK
           and RANK[f["severity"]] <= RANK[p["fail_on"]]]
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
        **({"slice": meta} if meta is not None else {}),
    }
    if p["fail"] and lines:
        shown = "; ".join(lines[:10]) + (f" (+{len(lines) - 10} more)" if len(lines) > 10 else "")
        module.fail_json(msg=f"{len(lines)} cabling problem(s): {shown}", **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
