#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: combine per-device drift results into the JSON, JUnit and Markdown reports."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: report
short_description: Write the drift reports (JSON, JUnit, Markdown) of a whole audit run
description:
  - Combines the per-device results registered from M(roceconf.fabric.drift) into one drift report and writes it
    with the library's report functions (C(roceconf.drift.report) C(to_json), C(to_junit), C(to_markdown))
    into a dated folder C(dest/<YYYY-MM-DD>/) (UTC date) - C(drift.json), C(drift-junit.xml), C(drift.md) and,
    when O(intent) is given, the HTML fabric map C(drift.html).
  - Fails when drift of severity O(fail_on) exists, naming every device and item; fails when a device could
    not be audited (unless O(fail_on_unknown=false)). The reports are written first.
  - "Runs on the controller, once (C(run_once: true), C(delegate_to: localhost))."
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
options:
  results:
    description:
      - The registered results of M(roceconf.fabric.drift), one per audited host (in the order of O(hosts)).
        A host without a result (its task failed before auditing) is reported as C(unknown).
    type: list
    elements: dict
    required: true
  hosts:
    description: Names of the audited hosts, aligned with O(results).
    type: list
    elements: str
    required: true
  platforms:
    description:
      - Platform of each host, aligned with O(hosts) (used for hosts without a result); default the platform
        each result names.
    type: list
    elements: str
    default: []
  intent:
    description: Intent path shown in the report header.
    type: str
    default: ""
  source:
    description: Source shown in the report header.
    type: str
    default: ansible inventory
  dest:
    description: Root folder of the reports; the files go to C(dest/<date>/).
    type: path
    required: true
  date:
    description: Folder name; default today's UTC date C(YYYY-MM-DD).
    type: str
  fail_on:
    description: Fail when drift of this severity or worse exists.
    type: str
    choices: [critical, warning, never]
    default: critical
  fail_on_unknown:
    description: Fail when a device could not be audited.
    type: bool
    default: true
  baseline:
    description:
      - An acceptance baseline (C(roceconf acceptance record)). Every BOM or rendered-config change since the
        accepted acceptance test is added to the reports (rule C(RC400); a device whose BOM could not be read
        is C(RC413)), from the C(bom) the M(roceconf.fabric.drift) results carry (run it with O(roceconf.fabric.drift#module:bom=true)).
      - Only the hosts of the play are compared, so a C(--limit) run does not report the others as gone.
    type: path
  fail_on_stale:
    description: Fail when O(baseline) is stale (an C(RC400) finding), as C(roceconf drift --baseline) exits 1.
    type: bool
    default: true
  fail:
    description:
      - Fail the task when a finding blocks the audit (O(fail_on), O(fail_on_unknown), O(fail_on_stale)). With
        V(false) the task only returns RV(findings) and RV(failed_devices) (the role then fails each device's own
        host and one summary task).
    type: bool
    default: true
  inventory_hosts:
    description:
      - Every host of the inventory (C(groups['all'])). A device of the intent that is not among them is reported
        C(unknown) (not in the inventory), as C(roceconf drift --inventory) does. Not used for a slice
        (O(job_id)) - a slice's inventory holds its own hosts only, the merge reports the devices no slice had.
    type: list
    elements: str
    default: []
  job_id:
    description:
      - AWX's C(awx_job_id). Given, this run is one slice of a sliced job template (or one job of a workflow) -
        its reports go to C(dest/<date>/slices/awx-<workflow_job_id>/job-<job_id>/) with a C(slice.json), never
        over another slice's, and only this slice's hosts are reported. M(roceconf.fabric.merge) (or
        C(roceconf report merge)) combines the slices into one fabric report.
    type: str
  workflow_job_id:
    description: AWX's C(awx_workflow_job_id), shared by the slices of one run (the folder above the slices).
    type: str
attributes:
  check_mode:
    description: Nothing is written; the findings are still reported.
    support: full
  diff_mode:
    description: No diff is returned (the reports are new files).
    support: none
requirements:
  - roceconf (the Python package) in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Write the reports and fail on critical drift
  roceconf.fabric.report:
    results: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='roceconf_audit', default={}) | list }}"
    hosts: "{{ ansible_play_hosts_all }}"
    intent: "{{ roceconf_intent }}"
    dest: "{{ roceconf_report_dir }}"
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
folder:
  description: The dated folder the reports were written to.
  returned: always
  type: str
files:
  description: Paths of the JSON, JUnit and Markdown reports.
  returned: always
  type: dict
  sample: {"json": "reports/2026-11-30/drift.json", "junit": "reports/2026-11-30/drift-junit.xml",
           "markdown": "reports/2026-11-30/drift.md"}
baseline:
  description: The C(baseline) block of the JSON report (file, recorded_at, findings), when O(baseline) is given.
  returned: when O(baseline) is given
  type: dict
summary:
  description: Counts (devices, in_sync, drift, unknown, critical, warning, info).
  returned: always
  type: dict
exit_code:
  description: What C(roceconf drift) would exit with for these devices (0 in sync, 1 drift, 3 some device unknown).
  returned: always
  type: int
failed_devices:
  description: The devices with a finding that blocks the audit (their hosts fail in the role).
  returned: always
  type: list
  elements: str
skipped:
  description: Hosts of the play that are not devices of the intent (not audited, not reported).
  returned: always
  type: list
  elements: str
slice:
  description: The slice folder's C(slice.json) content, when O(job_id) is given.
  returned: when O(job_id) is given
  type: dict
findings:
  description: One line per failing item or unknown device (device, severity, field, interface, expected, actual).
  returned: always
  type: list
  elements: str
"""

import os  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils import play  # noqa: E402


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "results": {"type": "list", "elements": "dict", "required": True},
            "hosts": {"type": "list", "elements": "str", "required": True},
            "platforms": {"type": "list", "elements": "str", "default": []},
            "intent": {"type": "str", "default": ""},
            "source": {"type": "str", "default": "ansible inventory"},
            **play.FAIL_ON_ARGS,
            "baseline": {"type": "path"},
            "fail_on_stale": {"type": "bool", "default": True},
            **play.REPORT_ARGS,
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.compile import write_outputs
        from roceconf.drift.audit import DeviceResult, DriftReport
        from roceconf.drift.compare import DriftItem
        from roceconf.drift.remediate import Remediation
        from roceconf.drift.report import to_json, to_junit, to_markdown
        from roceconf.names import natural_key
    except ImportError as e:
        play.fail_unimportable(module, e)
    p = module.params
    if len(p["results"]) != len(p["hosts"]):
        module.fail_json(msg=f"{len(p['results'])} results for {len(p['hosts'])} hosts")
    plats = list(p["platforms"]) + [""] * (len(p["hosts"]) - len(p["platforms"]))
    fab = play.load_intent(module, p["intent"]) if p["intent"] else None
    # exactly the intent's devices: hosts of the play that the intent lacks are skipped (and named)
    skipped = [h for h in p["hosts"] if fab is not None and h not in fab.devices]
    devices = []
    for host, plat, reg in zip(p["hosts"], plats[: len(p["hosts"])], p["results"], strict=True):
        if host in skipped:
            continue
        d = (reg or {}).get("drift")
        if not d:
            why = (reg or {}).get("msg") or "no audit result (the audit task did not run for this host)"
            devices.append(DeviceResult(host, plat or "unknown", "unknown", "", reason=str(why)))
            continue
        devices.append(
            DeviceResult(
                device=d["device"],
                platform=d["platform"],
                status=d["status"],
                source=d.get("source") or "",
                reason=d.get("reason"),
                items=[DriftItem(**i) for i in d.get("items", [])],
                parse_warnings=list(d.get("parse_warnings", [])),
                remediation=[Remediation(**r) for r in d.get("remediation", [])],
                attempts=int(d.get("attempts", 0)),
                seconds=float(d.get("seconds", 0.0)),
            )
        )
    if fab is not None and p["inventory_hosts"] and not p["job_id"]:
        listed = set(p["inventory_hosts"])
        for name, dev in fab.devices.items():
            if name not in listed:
                devices.append(DeviceResult(name, dev.platform, "unknown", "", reason="not in the inventory"))
    devices.sort(key=lambda r: natural_key(r.device))
    now = datetime.now(UTC)
    report = DriftReport(
        intent=p["intent"],
        source=p["source"],
        generated_at=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        devices=devices,
    )
    if p["baseline"]:
        from roceconf.acceptance.bom import BaselineError, baseline_block, load_baseline

        entries = {host: (reg or {}).get("bom") for host, reg in zip(p["hosts"], p["results"], strict=True)}
        try:
            report.baseline = baseline_block(load_baseline(p["baseline"]), p["baseline"], entries,
                                             only=[h for h in p["hosts"] if h not in skipped],
                                             missing="no BOM read (run roceconf.fabric.drift with bom: true)")
        except BaselineError as e:
            module.fail_json(msg=str(e))
    folder, meta = play.report_folder(module, "drift", [d.device for d in devices], now)
    texts = {
        "drift.json": to_json(report),
        "drift-junit.xml": to_junit(report),
        "drift.md": to_markdown(report),
    }
    if fab is not None:  # the fabric map (the HTML report of `roceconf drift --format html`)
        from roceconf.reports import html

        texts["drift.html"] = html.render(html.drift_map(report, fab))
    play.add_slice(texts, meta)
    changed = []
    if not module.check_mode:
        changed = write_outputs(texts, folder)
    findings = []
    failed_devices = set()
    for d in devices:
        if d.status == "unknown" and p["fail_on_unknown"]:
            findings.append(f"{d.device}: could not audit: {d.reason}")
            failed_devices.add(d.device)
        if p["fail_on"] == "never":
            continue
        for i in d.items:
            if play.RANK[i.severity] <= play.RANK[p["fail_on"]]:
                failed_devices.add(d.device)
                where = f" ({i.interface})" if i.interface else ""
                findings.append(
                    f"{d.device}: [{i.severity}] {i.field}{where} expected {i.expected!r}, actual {i.actual!r}"
                )
    if report.baseline is not None and p["fail_on_stale"]:
        stale = [f for f in report.baseline["findings"] if f["rule"] == "RC400"]
        findings += [f["message"] for f in stale]
        failed_devices.update(f["device"] for f in stale)
    out = {
        "changed": bool(changed) or (module.check_mode and bool(texts)),
        "folder": folder,
        "files": {
            "json": os.path.join(folder, "drift.json"),
            "junit": os.path.join(folder, "drift-junit.xml"),
            "markdown": os.path.join(folder, "drift.md"),
            **({"html": os.path.join(folder, "drift.html")} if "drift.html" in texts else {}),
        },
        "summary": report.counts,
        "exit_code": report.exit_code,
        "skipped": skipped,
        "failed_devices": sorted(failed_devices, key=natural_key),
        "findings": findings,
        **({"slice": meta} if meta is not None else {}),
        **({"baseline": report.baseline} if report.baseline is not None else {}),
    }
    if findings and p["fail"]:
        shown = "\n".join(findings[:40])
        more = f"\n(+{len(findings) - 40} more in {out['files']['markdown']})" if len(findings) > 40 else ""
        module.fail_json(msg=f"{len(findings)} finding(s) block the audit:\n{shown}{more}", **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
