# Copyright: roceconf maintainers
# Apache License 2.0 (see https://www.apache.org/licenses/LICENSE-2.0)
"""What the modules share: roceconf importable or one clear failure, the intent loaded or its FILE:LINE:COL
lines, and for the modules that judge the hosts of a play (bom, cabling, health, report) their common options, the
intent's devices among the hosts, and the dated folder (a slice's own under AWX) their reports go to."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime

#: the severities, most severe first (what ``fail_on`` compares)
RANK = {"critical": 0, "warning": 1, "info": 2}

#: what fails the task: a finding of this severity or worse; a device that could not be read
FAIL_ON_ARGS = {
    "fail_on": {"type": "str", "choices": ["critical", "warning", "never"], "default": "critical"},
    "fail_on_unknown": {"type": "bool", "default": True},
}

#: the hosts of a play and their connection variables, aligned (filled in by the action plugin)
PLAY_ARGS = {
    "intent": {"type": "path", "required": True},
    "devices": {"type": "list", "elements": "str", "required": True},
    "connections": {"type": "list", "elements": "dict", "default": []},
    "connection_secrets": {"type": "list", "elements": "dict", "default": [], "no_log": True},
}

#: where the reports go and what fails the task; the AWX job of a slice
REPORT_ARGS = {
    "dest": {"type": "path", "required": True},
    "date": {"type": "str"},
    "fail": {"type": "bool", "default": True},
    "inventory_hosts": {"type": "list", "elements": "str", "default": []},
    "job_id": {"type": "str"},
    "workflow_job_id": {"type": "str"},
}


def fail_unimportable(module, error):
    """The module fails: roceconf (or what it needs) is not importable by this interpreter."""
    module.fail_json(msg=f"roceconf is not importable by {sys.executable}: {error}")


def diagnostics_message(error):
    """The message of an invalid intent: its FILE:LINE:COL lines."""
    return "invalid intent:\n" + "\n".join(d.format() for d in error.diagnostics)


def load_intent(module, path, device=None):
    """The validated intent at ``path``; the module fails with its FILE:LINE:COL lines or the read error.
    ``device``: a per-host task checks the rendered config of its own device only for lost values (RC150);
    the play's first task (intent_info, once on the controller) has validated every device."""
    try:
        from roceconf.compile import load_valid
        from roceconf.diagnostics import DiagnosticError
    except ImportError as e:
        fail_unimportable(module, e)
    try:
        return load_valid(path, scope=None if device is None else frozenset([device]))
    except DiagnosticError as e:
        msg = diagnostics_message(e)
    except OSError as e:
        msg = f"cannot read intent {path}: {e.strerror or e}"
    module.fail_json(msg=msg)
    return None  # not reached: fail_json exits


def targets(params, only=None):
    """Device -> roceconf Target of each of ``params['devices']`` (those in ``only`` when given), from the
    connection and password variables aligned with them, resolved like ``roceconf --inventory`` does."""
    from roceconf.inventory import target_from_vars

    n = len(params["devices"])
    conns = list(params["connections"]) + [{}] * (n - len(params["connections"]))
    secrets = list(params["connection_secrets"]) + [{}] * (n - len(params["connection_secrets"]))
    out = {}
    for dev, conn, secret in zip(params["devices"], conns[:n], secrets[:n], strict=True):
        if only is None or dev in only:
            out[dev] = target_from_vars(dev, {**(conn or {}), **(secret or {})}, env=os.environ)
    return out


def devices(module, fab):
    """(the devices to judge, the hosts skipped): the play's hosts that are devices of the intent and, outside
    a slice, the intent's devices the inventory lacks (reported unknown); the module fails when there is none."""
    p = module.params
    judged = [d for d in p["devices"] if d in fab.devices]
    skipped = [d for d in p["devices"] if d not in fab.devices]
    if p["inventory_hosts"] and not p["job_id"]:  # the intent's devices the inventory lacks: unknown
        judged += [d for d in fab.devices if d not in set(p["inventory_hosts"]) and d not in judged]
    if not judged:
        module.fail_json(msg="none of the play's hosts is a device of the intent")
    return judged, skipped


def report_folder(module, kind, names, now=None):
    """(folder, slice metadata): ``dest/<date>/`` (default today's UTC date), or under AWX (``job_id``) the
    slice's own folder below it with its ``slice.json`` content (of the devices ``names``); None without a job."""
    p = module.params
    folder = os.path.join(os.path.abspath(p["dest"]), p["date"] or (now or datetime.now(UTC)).strftime("%Y-%m-%d"))
    if not p["job_id"]:
        return folder, None
    from roceconf.slices import SliceError, job_dirname, slice_meta

    try:
        run = job_dirname(p["workflow_job_id"]) if p["workflow_job_id"] else "job-none"
        folder = os.path.join(folder, "slices", "awx-" + run[len("job-"):], job_dirname(p["job_id"]))
    except SliceError as e:
        module.fail_json(msg=str(e))
    return folder, slice_meta(kind, p["intent"], names, job_id=p["job_id"], workflow_job_id=p["workflow_job_id"])


def add_slice(texts, meta):
    """``texts`` with the slice's ``slice.json`` last (written last: the slice is complete), when there is one."""
    if meta is not None:
        texts["slice.json"] = json.dumps(meta, indent=1) + "\n"
    return texts
