#!/usr/bin/python
# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""Ansible module: merge the per-slice results of a sliced audit into one fabric report."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: merge
short_description: Merge the slices of a sliced drift audit, health check, bill of materials or cabling check into one report
description:
  - Combines the result folders of the slices of one run (AWX / Automation Platform job slicing; each slice
    wrote C(slices/awx-<workflow_job_id>/job-<job_id>/) with M(roceconf.fabric.report),
    M(roceconf.fabric.health), M(roceconf.fabric.bom) or M(roceconf.fabric.cabling)) with C(roceconf.slices.merge) - the same as
    C(roceconf report merge) - into the
    report the unsliced run writes - devices, items, counts and exit code. Health is evaluated again from every
    slice's raw counters, so link partners read by different slices are correlated. Cabling is judged again
    from every slice's LLDP neighbours and link counters - a link whose two ends were read by different slices, a
    miswire seen from two slices, unexpected neighbours and ECMP groups are judged on the merged data.
  - A device of the intent that no slice reported (a slice missing or failed) is C(unknown), never in sync.
  - Writes into O(dest) C(drift.json), C(drift-junit.xml), C(drift.md), C(drift.html) (drift) or C(health.json),
    C(health-junit.xml), C(health.md), C(health.prom), C(health.html) (health), C(bom.json) (bom) or
    C(cabling.json), C(cabling-junit.xml), C(cabling.md), C(cabling.html) (cabling).
  - Fails when the merged report's exit code is not 0 (O(fail=true)), after writing the reports.
version_added: "0.1.0"
author: roceconf maintainers (@roceconf)
options:
  src:
    description:
      - Folders holding slice results (each with a C(slice.json)), or folders whose subfolders do.
    type: list
    elements: path
    required: true
  intent:
    description: Intent file; default the one the slices name.
    type: path
  dest:
    description: Folder the merged reports are written to.
    type: path
    required: true
  fail:
    description: Fail when the merged exit code is not 0 (1 findings, 3 some device unknown).
    type: bool
    default: true
attributes:
  check_mode:
    description: Nothing is written; the merged result is still returned.
    support: full
  diff_mode:
    description: Returns no diff.
    support: none
requirements:
  - roceconf in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: One fabric report from the slices of tonight's audit
  roceconf.fabric.merge:
    src: ["{{ roceconf_report_dir }}/{{ '%Y-%m-%d' | strftime(utc=true) }}/slices"]
    dest: "{{ roceconf_report_dir }}/{{ '%Y-%m-%d' | strftime(utc=true) }}"
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
kind:
  description: What was merged (drift, health, bom or cabling).
  returned: success
  type: str
exit_code:
  description: >-
    The merged exit code (drift 0 in sync, 1 drift, 3 some device unknown; health 0, 1, 3; bom 0, 3;
    cabling 0 every link confirmed, 1 findings, 3 something not judged).
  returned: success
  type: int
summary:
  description: Counts of the merged report.
  returned: success
  type: dict
notes:
  description: Slices found missing, devices a slice did not report.
  returned: success
  type: list
  elements: str
files:
  description: The merged report files.
  returned: success
  type: list
  elements: str
"""

import os  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402
from ansible_collections.roceconf.fabric.plugins.module_utils.play import (  # noqa: E402
    diagnostics_message,
    fail_unimportable,
)


def main():
    module = AnsibleModule(
        argument_spec={
            "src": {"type": "list", "elements": "path", "required": True},
            "intent": {"type": "path"},
            "dest": {"type": "path", "required": True},
            "fail": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.compile import write_outputs
        from roceconf.diagnostics import DiagnosticError
        from roceconf.slices import SliceError, merge
    except ImportError as e:
        fail_unimportable(module, e)
    p = module.params
    try:
        merged = merge(p["src"], p["intent"])
    except SliceError as e:
        module.fail_json(msg=str(e))
    except DiagnosticError as e:
        module.fail_json(msg=diagnostics_message(e))
    except OSError as e:
        module.fail_json(msg=f"cannot read {e.filename or 'the intent'}: {e.strerror or e}")
    if merged.kind == "drift":
        from roceconf.drift.report import to_json, to_junit, to_markdown

        texts = {"drift.json": to_json(merged.report), "drift-junit.xml": to_junit(merged.report),
                 "drift.md": to_markdown(merged.report)}
        from roceconf.reports import html

        texts["drift.html"] = html.render(html.drift_map(merged.report, merged.fab))
        summary = merged.report.counts
    elif merged.kind == "health":
        from roceconf.health.report import FORMATS

        texts = {"health.json": FORMATS["json"](merged.report), "health-junit.xml": FORMATS["junit"](merged.report),
                 "health.md": FORMATS["markdown"](merged.report), "health.prom": FORMATS["prometheus"](merged.report)}
        from roceconf.reports import html

        texts["health.html"] = html.render(html.health_map(merged.report, merged.fab))
        summary = merged.report.counts
    elif merged.kind == "cabling":
        from roceconf.cabling.report import FORMATS
        from roceconf.reports import html

        texts = {"cabling.json": FORMATS["json"](merged.report), "cabling-junit.xml": FORMATS["junit"](merged.report),
                 "cabling.md": FORMATS["markdown"](merged.report),
                 "cabling.html": html.render(html.cabling_map(merged.report, merged.fab))}
        summary = merged.report.counts
    else:
        import json

        texts = {"bom.json": json.dumps(merged.report, indent=2) + "\n"}
        summary = {"devices": len(merged.report["devices"])}
    dest = os.path.abspath(p["dest"])
    if not module.check_mode:
        write_outputs(texts, dest)
    out = {
        "changed": not module.check_mode,
        "kind": merged.kind,
        "exit_code": merged.exit_code,
        "summary": summary,
        "notes": merged.notes,
        "files": [os.path.join(dest, n) for n in texts],
    }
    if p["fail"] and merged.exit_code != 0:
        meaning = {1: "findings", 3: "some device could not be audited"}.get(merged.exit_code, "failed")
        lines = "; ".join(merged.notes)
        module.fail_json(msg=f"merged {merged.kind} report: exit code {merged.exit_code} ({meaning}); {summary}"
                         + (f"; {lines}" if lines else ""), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
