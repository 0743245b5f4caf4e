"""`roceconf plan`: review an intent change before it is applied.

Both sides (OLD and NEW intent) are compiled into one desired :class:`~roceconf.state.DeviceState` per device.
The per-device differences are grouped by what changed - (field, old value, new value) - and phrased in
terms of the intent (class names, DSCP values, roles), with the number of devices and interfaces affected.
Each change gets a disruption class and a risk level from :data:`RULES`, the one table of those rules.

The plan also lists the validation findings that NEW introduces and the unified diff of every rendered
config that changes. Formats: text (terminal), Markdown (pull-request comment), JSON (:class:`Plan`,
schema from :func:`plan_json_schema`).
"""

from __future__ import annotations

from roceconf.plan.build import build_plan, plan_specs
from roceconf.plan.load import read_intent
from roceconf.plan.model import Plan, PlanChange, PlanError, plan_json_schema
from roceconf.plan.output import format_plan, to_json, to_markdown, to_text
from roceconf.plan.rules import RULES, DisruptionRule, classify

__all__ = [
    "DisruptionRule",
    "Plan",
    "PlanChange",
    "PlanError",
    "RULES",
    "build_plan",
    "classify",
    "format_plan",
    "plan_json_schema",
    "plan_specs",
    "read_intent",
    "to_json",
    "to_markdown",
    "to_text",
]
