#!/usr/bin/python
"""Ansible module: fabric health from counters (roceconf health) for the hosts of a play."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: roceconf_health
short_description: Read every device's counters twice or more and evaluate them against the intent
description:
  - Runs C(roceconf.health.collect.health_live) for the given devices of the inventory - the same
    collection, credentials, worker pool, timeouts and C(unknown) semantics as the drift audit - and writes
    the health report into a dated folder C(dest/<YYYY-MM-DD>/) (UTC date) - C(health.json),
    C(health-junit.xml), C(health.md), C(health.prom) (Prometheus textfile) - and the raw counters of every
    sample into C(dest/<YYYY-MM-DD>/counters/) (C(roceconf health --counters) reads them again).
  - The evaluation needs every device at once (link partners are correlated), so it runs once on the
    controller (C(run_once: true), C(delegate_to: localhost)).
  - Fails when a finding of severity O(fail_on) or worse exists, naming device, port, priority and rule; fails
    when a device could not be read (unless O(fail_on_unknown=false)). The reports are written first.
version_added: "0.1.0"
author: roceconf maintainers
options:
  intent:
    description: Path of the intent YAML file.
    type: path
    required: true
  devices:
    description: Devices to read (C(ansible_play_hosts_all)); the connection lists below are aligned with it.
    type: list
    elements: str
    required: true
  hosts:
    description: Address of each device (C(ansible_host)).
    type: list
    elements: str
    required: true
  ports:
    description: TCP port of each device (SSH, or eAPI for EOS); empty for the protocol's default.
    type: list
    elements: str
    default: []
  platforms:
    description: roceconf platform of each device (must match the intent).
    type: list
    elements: str
    required: true
  transports:
    description: C(ssh), or C(http)/C(https) for EOS eAPI, per device; empty for the default.
    type: list
    elements: str
    default: []
  usernames:
    description: Login name per device (C(ansible_user)); empty for C(ROCECONF_USERNAME).
    type: list
    elements: str
    default: []
  passwords:
    description: Password per device (may come from a vaulted C(ansible_password)); empty for C(ROCECONF_PASSWORD).
    type: list
    elements: str
    default: []
  interval:
    description: Seconds between samples.
    type: float
    default: 10
  samples:
    description: Reads per device (at least 2).
    type: int
    default: 2
  workers:
    description: Devices read in parallel.
    type: int
    default: 8
  timeout:
    description: Connect/read timeout per attempt, seconds.
    type: float
    default: 10
  retries:
    description: Retries of connection problems (authentication errors are not retried).
    type: int
    default: 2
  dest:
    description: Root folder of the reports; the files go to C(dest/<date>/).
    type: path
    required: true
  date:
    description: Folder name; default today's UTC date C(YYYY-MM-DD).
    type: str
  fail_on:
    description: Fail when a finding of this severity or worse exists.
    type: str
    choices: [critical, warning, never]
    default: critical
  fail_on_unknown:
    description: Fail when a device could not be read.
    type: bool
    default: true
notes:
  - Read-only; credentials come from ROCECONF_USERNAME / ROCECONF_PASSWORD or the inventory, as for drift.
requirements:
  - roceconf, napalm, netmiko and prometheus-client in the interpreter that runs the module.
"""

EXAMPLES = r"""
- name: Fabric health from counters
  roceconf_health:
    intent: "{{ roceconf_intent }}"
    devices: "{{ ansible_play_hosts_all }}"
    hosts: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='ansible_host', default='') | list }}"
    ports: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='ansible_port', default='') | list }}"
    platforms: "{{ ansible_play_hosts_all | map('extract', hostvars) | map(attribute='platform', default='') | list }}"
    interval: 60
    dest: /srv/roceconf
  run_once: true
  delegate_to: localhost
"""

RETURN = r"""
summary:
  description: Counts of the report (devices, healthy, findings, unknown, critical, warning, info).
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

RANK = {"critical": 0, "warning": 1, "info": 2}


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "intent": {"type": "path", "required": True},
            "devices": {"type": "list", "elements": "str", "required": True},
            "hosts": {"type": "list", "elements": "str", "required": True},
            "ports": {"type": "list", "elements": "str", "default": []},
            "platforms": {"type": "list", "elements": "str", "required": True},
            "transports": {"type": "list", "elements": "str", "default": []},
            "usernames": {"type": "list", "elements": "str", "default": []},
            "passwords": {"type": "list", "elements": "str", "default": [], "no_log": True},
            "interval": {"type": "float", "default": 10.0},
            "samples": {"type": "int", "default": 2},
            "workers": {"type": "int", "default": 8},
            "timeout": {"type": "float", "default": 10.0},
            "retries": {"type": "int", "default": 2},
            "dest": {"type": "path", "required": True},
            "date": {"type": "str"},
            "fail_on": {"type": "str", "choices": ["critical", "warning", "never"], "default": "critical"},
            "fail_on_unknown": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    try:
        from roceconf.compile import load_valid, write_outputs
        from roceconf.diagnostics import DiagnosticError
        from roceconf.drift.collect import CollectError, Target
        from roceconf.health.collect import health_live
        from roceconf.health.report import FORMATS
    except ImportError as e:
        module.fail_json(msg=f"roceconf is not importable by {sys.executable}: {e}")
    p = module.params
    if p["samples"] < 2:
        module.fail_json(msg="samples must be at least 2: rates need two reads")
    try:
        fab = load_valid(p["intent"])
    except DiagnosticError as e:
        module.fail_json(msg="invalid intent:\n" + "\n".join(d.format() for d in e.diagnostics))
    except OSError as e:
        module.fail_json(msg=f"cannot read intent {p['intent']}: {e.strerror or e}")
    n = len(p["devices"])

    def col(name: str, env: str | None = None) -> list[str | None]:
        vals = list(p[name]) + [""] * (n - len(p[name]))
        return [v or (os.environ.get(env) if env else None) or None for v in vals[:n]]

    targets = {}
    for dev, host, port, plat, transport, user, pw in zip(
        p["devices"],
        col("hosts"),
        col("ports"),
        col("platforms"),
        col("transports"),
        col("usernames", "ROCECONF_USERNAME"),
        col("passwords", "ROCECONF_PASSWORD"),
        strict=True,
    ):
        targets[dev] = Target(
            name=dev,
            platform=plat or "",
            host=host or dev,
            port=int(port) if port and str(port).isdigit() else None,
            username=user,
            password=pw,
            transport=transport,
        )
    devices = [d for d in p["devices"] if d in fab.devices]
    if not devices:
        module.fail_json(msg="none of the play's hosts is a device of the intent")
    folder = os.path.join(os.path.abspath(p["dest"]), p["date"] or datetime.now(UTC).strftime("%Y-%m-%d"))
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
    write_outputs(texts, folder)
    findings = [f.to_dict() for f in report.findings]
    out = {
        "summary": report.counts,
        "exit_code": report.exit_code,
        "findings": findings,
        "files": [os.path.join(folder, n) for n in texts],
        "changed": False,
    }
    if p["fail_on"] != "never":
        bad = [f for f in findings if RANK[f["severity"]] <= RANK[p["fail_on"]]]
        if bad:
            shown = "; ".join(
                f"[{f['severity']}] {f['rule']} {f['device']}:{f['port'] or '-'} priority "
                f"{'-' if f['priority'] is None else f['priority']}: {f['message']}"
                for f in bad[:10]
            )
            more = f" (+{len(bad) - 10} more)" if len(bad) > 10 else ""
            module.fail_json(msg=f"{len(bad)} health finding(s) of severity {p['fail_on']} or worse: {shown}{more}", **out)
    unknown = [d for d in report.devices if d.status == "unknown"]
    if unknown and p["fail_on_unknown"]:
        module.fail_json(msg="could not read: " + "; ".join(f"{d.device} ({d.reason})" for d in unknown), **out)
    module.exit_json(**out)


if __name__ == "__main__":
    main()
