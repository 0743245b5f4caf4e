"""The plan's vocabulary and schema: disruption and risk levels, the pydantic models of a plan and its JSON
Schema."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from roceconf.jsontext import published_schema

Disruption = Literal["hitless", "brief traffic hit", "link flap", "needs reboot"]
Risk = Literal["low", "medium", "high"]
Action = Literal["add", "change", "remove"]
DISRUPTION_RANK: dict[str, int] = {"hitless": 0, "brief traffic hit": 1, "link flap": 2, "needs reboot": 3}
RISK_RANK: dict[str, int] = {"low": 0, "medium": 1, "high": 2}
FORMAT_VERSION = 1


class PlanError(Exception):
    """A side of the plan cannot be read or loaded, or OLD is invalid (exit 2; 1 with --detailed-exitcode).
    ``messages`` are printed one per line."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


# ------------------------------------------------------------------------------------------- schema
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlanSide(_Model):
    source: str = Field(description="File path or REV:PATH the intent was read from")
    fabric: str = Field(description="Fabric name of the intent")
    devices: int = Field(description="Number of devices in the intent")


class PlanChange(_Model):
    action: Action = Field(description="add (+), change (~) or remove (-)")
    kind: str = Field(
        description="What changed: pfc, dscp_map, mtu, ecn, scheduling, trust, pfc_watchdog, "
        "ecmp, rdma, link_pause, port_added, port_removed, device_added, device_removed, platform"
    )
    object: str = Field(
        description="The intent object, e.g. 'class roce', 'DSCP 24', 'role leaf', 'device leaf9'"
    )
    summary: str = Field(description="One line in terms of the intent, with the scope")
    field: str | None = Field(None, description="Device-state field, e.g. interfaces.*.ecn.3.max_bytes")
    old: Any = Field(None, description="Value before (device-state units: bytes, ms)")
    new: Any = Field(None, description="Value after")
    disruption: Disruption
    risk: Risk
    reason: str = Field(description="Why applying this change disrupts as stated")
    rule_source: str = Field(description="Where the disruption rule comes from")
    device_count: int
    interface_count: int = Field(description="Ports affected (device-wide settings count every RoCE port)")
    devices: list[str]
    interfaces: dict[str, list[str]] = Field(
        default_factory=dict, description="Device -> ports changed (port-level changes only)"
    )
    platforms: list[str]
    roles: list[str]


class PlanDiagnostic(_Model):
    severity: str
    code: str
    message: str
    file: str
    line: int
    col: int
    hint: str = ""


class DeviceDiff(_Model):
    device: str
    action: Action
    platform: str
    old_file: str | None = Field(None, description="Rendered file name on the OLD side")
    new_file: str | None = Field(None, description="Rendered file name on the NEW side")
    added_lines: int
    removed_lines: int
    diff: str = Field(description="Unified diff of the rendered configs (a/<file> b/<file>)")


class PlanCounts(_Model):
    add: int
    change: int
    remove: int
    devices: int = Field(description="Devices affected by at least one change")
    interfaces: int = Field(description="Interfaces affected by at least one change")


class Plan(_Model):
    """A roceconf plan (format_version 1)."""

    format_version: Literal[1] = FORMAT_VERSION
    old: PlanSide
    new: PlanSide
    changed: bool = Field(description="Whether any device's desired state changes")
    safe: bool = Field(description="False when NEW has validation errors")
    new_errors: int = Field(description="Validation errors in NEW (introduced or not)")
    disruption: Disruption | None = Field(None, description="Worst disruption of all changes")
    risk: Risk | None = Field(None, description="Highest risk of all changes")
    counts: PlanCounts
    changes: list[PlanChange]
    diagnostics: list[PlanDiagnostic] = Field(
        description="Validation findings of NEW that OLD does not have (matched by code and message)"
    )
    devices: list[DeviceDiff] = Field(description="Rendered-config diff of every changed device")

    def exit_code(self, detailed: bool = False) -> int:
        """Terraform-like: 1 unsafe (NEW has errors); with ``detailed`` 2 when there are changes, else 0."""
        if not self.safe:
            return 1
        if detailed and self.changed:
            return 2
        return 0


def plan_json_schema() -> dict[str, Any]:
    return published_schema(Plan, "plan.schema.json", "roceconf plan")
