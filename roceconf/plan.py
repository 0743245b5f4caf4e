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

import dataclasses
import difflib
import io
import posixpath
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from roceconf.compile import output_name
from roceconf.desired import desired_state
from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.intent import Fabric, load
from roceconf.names import natural_key
from roceconf.render import PLACEHOLDER, PLAIN_NAME, ShapeRenderer
from roceconf.resources import MissingResource
from roceconf.state import DeviceState

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


# ------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class DisruptionRule:
    """How applying one kind of change disrupts traffic.

    ``scope`` is a platform name, ``switch``, ``host`` or ``*``; the most specific matching row wins.
    ``lossless`` restricts a row to changes that do (True) or do not (False) touch lossless ports.
    """

    kind: str
    scope: str
    disruption: Disruption
    risk: Risk
    reason: str
    source: str
    lossless: bool | None = None


_BUFFERS = (
    "NVIDIA Cumulus Linux QoS docs (a buffer change reloads switchd: 'momentary packet loss'); NVIDIA Onyx "
    "'RoCE Commands' (changing the RoCE mode toggles interfaces: 'momentary loss of data')"
)
_MLX5 = (
    "Linux mlx5 en_dcbnl.c mlx5e_dcbnl_ieee_setpfc() calls mlx5_toggle_port_link() "
    "(commit 667daedaecd1 'net/mlx5e: Toggle link only after modifying port parameters')"
)
_BNXT = "Broadcom bnxt_re README.TXT (configfs changes take effect at `apply`); Linux dcbnl ieee_setpfc"
_POLICY = "roceconf policy"

#: The disruption/risk rules of `roceconf plan` (documented in docs/plan.md). First match by specificity.
RULES: tuple[DisruptionRule, ...] = (
    DisruptionRule(
        "pfc",
        "switch",
        "brief traffic hit",
        "high",
        "a PFC/no-drop change re-carves the ingress buffers (headroom per lossless priority)",
        _BUFFERS,
    ),
    DisruptionRule(
        "pfc",
        "connectx",
        "link flap",
        "high",
        "mlx5 toggles the link when the PFC priority mask changes",
        _MLX5,
    ),
    DisruptionRule(
        "pfc",
        "host",
        "brief traffic hit",
        "high",
        "the NIC re-programs its receive buffers; on bnxt the change only takes effect at `apply`",
        _BNXT,
    ),
    DisruptionRule(
        "port_added",
        "switch",
        "brief traffic hit",
        "medium",
        "a new lossless port reserves PFC headroom: buffer re-carve",
        _BUFFERS,
        lossless=True,
    ),
    DisruptionRule(
        "port_added",
        "connectx",
        "link flap",
        "medium",
        "setting the PFC mask on a mlx5 port toggles its link",
        _MLX5,
        lossless=True,
    ),
    DisruptionRule(
        "port_added",
        "host",
        "brief traffic hit",
        "medium",
        "the NIC re-programs its receive buffers for the new lossless priority",
        _BNXT,
        lossless=True,
    ),
    DisruptionRule(
        "port_added", "*", "hitless", "low", "a port with no lossless priority joins the policy", _POLICY
    ),
    DisruptionRule(
        "port_removed",
        "*",
        "hitless",
        "high",
        "lossless ports leave the RoCE policy: RDMA traffic on them is no longer protected",
        _POLICY,
        lossless=True,
    ),
    DisruptionRule("port_removed", "*", "hitless", "low", "ports without lossless priorities leave", _POLICY),
    DisruptionRule(
        "device_added",
        "*",
        "hitless",
        "low",
        "a new device: nothing running changes",
        _POLICY,
    ),
    DisruptionRule(
        "device_removed",
        "*",
        "hitless",
        "high",
        "the plan itself is hitless, but lossless ports disappear from the fabric",
        _POLICY,
        lossless=True,
    ),
    DisruptionRule(
        "device_removed", "*", "hitless", "low", "a device without lossless ports leaves the intent", _POLICY
    ),
    DisruptionRule(
        "platform",
        "*",
        "needs reboot",
        "high",
        "a different network OS or NIC driver under the same name: reinstall and reboot",
        _POLICY,
    ),
    DisruptionRule(
        "mtu",
        "*",
        "link flap",
        "medium",
        "an MTU change re-initialises the port (link down/up on most ASICs and NICs)",
        _POLICY + " (conservative: NOSes and NIC drivers re-initialise the port on an MTU change)",
    ),
    DisruptionRule(
        "link_pause",
        "*",
        "link flap",
        "medium",
        "changing 802.3x pause restarts autonegotiation",
        _POLICY + " (conservative: a pause change renegotiates the link)",
    ),
    DisruptionRule(
        "trust",
        "*",
        "hitless",
        "high",
        "reclassifies every packet: RoCE may land in a lossy queue if the two ends disagree",
        _POLICY + "; why trust matters: Intel 800 Series RDMA flow control guide, PCP vs DSCP",
    ),
    DisruptionRule(
        "dscp_map",
        "*",
        "hitless",
        "medium",
        "classification changes in place; traffic moves between queues",
        _POLICY + " (QoS maps are replaced in place on every supported platform)",
    ),
    DisruptionRule(
        "ecn",
        "*",
        "hitless",
        "medium",
        "WRED/ECN profile changes in place; marking starts at another queue depth",
        _POLICY + " (WRED/ECN profiles are replaced in place on every supported platform)",
    ),
    DisruptionRule("scheduling", "*", "hitless", "low", "scheduler weights change in place", _POLICY),
    DisruptionRule(
        "pfc_watchdog",
        "*",
        "hitless",
        "low",
        "watchdog timers and actions change in place",
        _POLICY,
    ),
    DisruptionRule(
        "rdma",
        "*",
        "hitless",
        "medium",
        "RDMA-CM TOS and DCQCN settings apply to new connections / in place",
        "mlnx-tools cma_roce_tos (RDMA-CM default TOS of new connections); " + _POLICY,
    ),
    DisruptionRule(
        "ecmp",
        "nvue",
        "brief traffic hit",
        "high",
        "an NVUE hash change restarts switchd; flows re-hash",
        "NVIDIA Cumulus Linux docs: the ECMP hash seed is a switchd datapath setting applied by restarting switchd, which resets the ports (assumed the same when NVUE applies it)",
    ),
    DisruptionRule(
        "ecmp",
        "*",
        "brief traffic hit",
        "medium",
        "flows re-hash onto other paths (reordering, brief loss in flight)",
        _POLICY + " (a new hash moves flows between paths)",
    ),
)


@cache  # a pure lookup in the constant RULES, asked once per changed port (60,000 times at 32k)
def classify(kind: str, platform: str, is_host: bool, lossless: bool = False) -> DisruptionRule:
    """The most specific rule of :data:`RULES` for a change kind on a platform."""
    best: tuple[int, DisruptionRule] | None = None
    for r in RULES:
        if r.kind != kind or (r.lossless is not None and r.lossless != lossless):
            continue
        if r.scope == platform:
            rank = 3
        elif r.scope == ("host" if is_host else "switch"):
            rank = 2
        elif r.scope == "*":
            rank = 1
        else:
            continue
        rank = rank * 2 + (r.lossless is not None)
        if best is None or rank > best[0]:
            best = (rank, r)
    if best is None:
        return DisruptionRule(kind, "*", "hitless", "low", "no rule for this change", "-")
    return best[1]


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
    schema = Plan.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://roceconf.dev/schemas/plan.schema.json"
    schema["title"] = "roceconf plan"
    return schema


# ------------------------------------------------------------------------------------------- loading
def read_intent(spec: str, cwd: str | Path | None = None) -> Fabric:
    """Load one side: a file path, or ``REV:PATH`` read with ``git show`` in the current repository.

    For ``REV:PATH`` the cabling tables the intent names (``links: - csv: FILE``) are read from the same
    revision, so the revision is planned as it was committed.
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    p = Path(spec) if Path(spec).is_absolute() else base / spec
    try:
        if p.is_file():
            return load(p if cwd is not None else spec)
        if ":" not in spec:
            raise PlanError([f"error: {spec}: no such file (and not a REV:PATH git revision)"])
        rev, _, path = spec.partition(":")
        if not rev or not path:
            raise PlanError([f"error: {spec}: expected REV:PATH, e.g. main:inventories/pod/intent.yml"])
        return _load_revision(spec, rev, path, base)
    except DiagnosticError as e:
        msgs = [d.format() for d in e.diagnostics]
        raise PlanError([*msgs, f"error: {spec}: cannot be loaded ({len(msgs)} error(s))"]) from None
    except MissingResource:  # roceconf's own files are missing: not a problem of this intent (exit 2)
        raise
    except OSError as e:
        raise PlanError([f"error: {spec}: {e.strerror or e}"]) from None


def _git_show(rev: str, path: str, cwd: Path) -> str:
    try:
        res = subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=cwd, capture_output=True, text=True, check=False
        )
    except OSError as e:
        raise PlanError([f"error: cannot run git: {e.strerror or e}"]) from None
    if res.returncode != 0:
        why = res.stderr.strip().splitlines()
        raise PlanError([f"error: {rev}:{path}: {why[-1] if why else 'git show failed'}"])
    return res.stdout


def _csv_tables(text: str) -> list[str]:
    from ruamel.yaml import YAML

    try:
        data = YAML(typ="safe", pure=True).load(text)
    except Exception:  # noqa: BLE001 - the loader reports YAML errors with positions
        return []
    links = data.get("links") if isinstance(data, dict) else None
    return [lk["csv"] for lk in links or [] if isinstance(lk, dict) and isinstance(lk.get("csv"), str)]


def _load_revision(spec: str, rev: str, path: str, cwd: Path) -> Fabric:
    text = _git_show(rev, path, cwd)
    with tempfile.TemporaryDirectory(prefix="roceconf-plan-") as tmp:
        root = Path(tmp)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        for rel in _csv_tables(text):
            if posixpath.isabs(rel):
                continue
            repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(path), rel))
            if repo_path.startswith(".."):
                continue
            try:
                content = _git_show(rev, repo_path, cwd)
            except PlanError:
                continue  # the loader reports the missing table (RC012)
            (root / repo_path).parent.mkdir(parents=True, exist_ok=True)
            (root / repo_path).write_text(content, encoding="utf-8")

        def label(file: str) -> str:
            if file == str(target):
                return spec
            try:
                return f"{rev}:{Path(file).relative_to(root).as_posix()}"
            except ValueError:
                return file

        try:
            fab = load(target)
        except DiagnosticError as e:
            raise DiagnosticError(
                [dataclasses.replace(d, file=label(d.file)) for d in e.diagnostics]
            ) from None
    fab.file = spec
    fab.diagnostics = [dataclasses.replace(d, file=label(d.file)) for d in fab.diagnostics]
    return fab


# ------------------------------------------------------------------------------------------- states
Flat = tuple[dict[tuple, Any], dict[str, dict[tuple, Any]]]


def _v(x: Any) -> Any:
    """A hashable value: lists become tuples, mappings sorted tuples of pairs."""
    if isinstance(x, list | tuple):
        return tuple(_v(i) for i in x)
    if isinstance(x, dict):
        return tuple(sorted((str(k), _v(v)) for k, v in x.items()))
    return x


def _walk(prefix: tuple, value: Any, out: dict[tuple, Any]) -> None:
    """Flatten fields the plan has no special phrasing for (e.g. added to the state later)."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _walk((*prefix, str(k)), v, out)
    else:
        out[prefix] = _v(value)


_DEVICE_KEYS = {"platform", "hostname", "dscp_to_tc", "pfc_watchdog", "ecmp", "interfaces"}
_PORT_KEYS = {"mtu", "trust", "pfc_watchdog", "link_pause", "pfc", "ecn", "scheduling", "dscp_to_tc", "rdma"}


def _flatten(sem: dict[str, Any]) -> Flat:
    dev: dict[tuple, Any] = {("platform",): sem.get("platform")}
    for d, tc in (sem.get("dscp_to_tc") or {}).items():
        dev[("dscp_to_tc", d)] = tc
    for f, v in (sem.get("pfc_watchdog") or {}).items():
        dev[("pfc_watchdog", f)] = _v(v)
    for f, v in (sem.get("ecmp") or {}).items():
        dev[("ecmp", f)] = _v(v)
    for k, v in sem.items():
        if k not in _DEVICE_KEYS:
            _walk((k,), v, dev)
    ports: dict[str, dict[tuple, Any]] = {}
    for name, itf in (sem.get("interfaces") or {}).items():
        lv: dict[tuple, Any] = {}
        for f in ("mtu", "trust", "pfc_watchdog", "link_pause"):
            lv[(f,)] = _v(itf.get(f))
        pfc = itf.get("pfc") or {}
        lv[("pfc",)] = (pfc.get("enabled"), _v(pfc.get("no_drop")))
        for tc, e in (itf.get("ecn") or {}).items():
            for f, v in e.items():
                lv[("ecn", tc, f)] = _v(v)
        for tc, s in (itf.get("scheduling") or {}).items():
            for f, v in s.items():
                lv[("scheduling", tc, f)] = _v(v)
        for d, tc in (itf.get("dscp_to_tc") or {}).items():
            lv[("port_dscp", d)] = tc
        for f, v in (itf.get("rdma") or {}).items():
            lv[("rdma", f)] = _v(v)
        for k, v in itf.items():
            if k not in _PORT_KEYS:
                _walk((k,), v, lv)
        ports[name] = lv
    return dev, ports


@dataclass
class _Shape:
    """Desired state shared by every device expanded from one intent entry (same settings and ports)."""

    state: DeviceState
    flat: Flat
    sem: dict[str, Any]


@dataclass
class _Side:
    label: str
    fab: Fabric
    shapes: dict[str, _Shape] = field(default_factory=dict)
    _texts: dict[str, str] = field(default_factory=dict)
    _renderer: ShapeRenderer = field(default_factory=ShapeRenderer)

    def render(self, name: str) -> str:
        if name not in self._texts:
            shape = self.shapes[name]
            state = shape.state.model_copy(update={"hostname": name})
            try:
                self._texts[name] = self._renderer.render(id(shape), state)
            except MissingResource:  # a broken installation is an error, never an empty diff
                raise
            except Exception as e:  # noqa: BLE001 - a plan still shows the rest
                self._texts[name] = f"# cannot render {name}: {e}\n"
        return self._texts[name]

    def file(self, name: str) -> str:
        return output_name(name, self.fab.devices[name].platform)

    def placeholder_text(self, name: str) -> str:
        """`render(name)` with the hostname placeholder (shared by the devices of the shape)."""
        shape = self.shapes[name]
        return self._renderer.placeholder_text(id(shape), shape.state)


def _side(label: str, fab: Fabric) -> _Side:
    side = _Side(label, fab)
    cache: dict[tuple, _Shape] = {}
    for name in sorted(fab.devices, key=natural_key):
        dev = fab.devices[name]
        key = (dev.platform, id(dev.settings), id(dev.ports))
        if key not in cache:
            state = desired_state(dev)
            sem = state.semantic()
            sem.pop("hostname", None)
            cache[key] = _Shape(state, _flatten(sem), sem)
        side.shapes[name] = cache[key]
    return side


Raw = tuple[tuple, str | None, Any, Any]


def _raw_diff(a: Flat, b: Flat) -> list[Raw]:
    (adev, aports), (bdev, bports) = a, b
    out: list[Raw] = []
    for k in sorted(set(adev) | set(bdev), key=repr):
        if adev.get(k) != bdev.get(k):
            out.append((k, None, adev.get(k), bdev.get(k)))
    for p in sorted(set(aports) | set(bports), key=natural_key):
        if p not in bports:
            out.append((("port_removed",), p, aports[p].get(("pfc",), (None, None))[1], None))
        elif p not in aports:
            out.append((("port_added",), p, None, bports[p].get(("pfc",), (None, None))[1]))
        else:
            ap, bp = aports[p], bports[p]
            for k in sorted(set(ap) | set(bp), key=repr):
                if ap.get(k) != bp.get(k):
                    out.append((k, p, ap.get(k), bp.get(k)))
    return out


def _kind(key: tuple, port: str | None) -> str:
    head = key[0]
    if head in ("dscp_to_tc", "port_dscp"):
        return "dscp_map"
    return str(head)


def _lossless_ports(flat: Flat) -> int:
    return sum(1 for lv in flat[1].values() if (lv.get(("pfc",)) or (None, None))[1])


# ------------------------------------------------------------------------------------------- grouping
@dataclass
class _Group:
    key: tuple
    kind: str
    rule: DisruptionRule
    old: Any
    new: Any
    devices: dict[str, list[str]] = field(default_factory=dict)
    device_level: bool = False
    port_counts: dict[str, int] = field(default_factory=dict)


def _plural(word: str, n: int) -> str:
    if n == 1:
        return word
    if word.endswith("af"):
        return word[:-1] + "ves"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _devices_noun(n: int, roles: set[str], hosts: bool, switches: bool) -> str:
    if len(roles) == 1:
        word = next(iter(roles))
    elif hosts and not switches:
        word = "host"
    elif switches and not hosts:
        word = "switch"
    else:
        word = "device"
    return f"{n} {_plural(word, n)}"


def _size(v: Any) -> str:
    if not isinstance(v, int) or isinstance(v, bool):
        return _plain(v)
    if v and v % 1_000_000 == 0:
        return f"{v // 1_000_000} MB"
    if v and v % 1000 == 0:
        return f"{v // 1000} KB"
    if v and v % 1024 == 0:
        return f"{v // 1024} KiB"
    return f"{v} B"


def _plain(v: Any) -> str:
    if v is None:
        return "unset"
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, tuple | list):
        return ",".join(map(str, v)) if v else "none"
    return str(v)


def _ms(v: Any) -> str:
    return f"{v} ms" if isinstance(v, int) and not isinstance(v, bool) else _plain(v)


def _class_names(fab: Fabric) -> dict[int, str]:
    names: dict[int, list[str]] = {}
    for c in fab.base_settings.classes:
        names.setdefault(c.priority, []).append(c.name)
    return {p: "/".join(n) for p, n in names.items()}


_ECN_FIELD = {"min_bytes": "min", "max_bytes": "max", "probability": "probability"}
_RDMA_FIELD = {
    "device": "RDMA device",
    "roce_tos": "RoCE TOS (RDMA-CM)",
    "cnp_dscp": "CNP DSCP",
    "cnp_priority": "CNP priority",
    "dcqcn_rp": "DCQCN reaction-point priorities",
    "dcqcn_np": "DCQCN notification-point priorities",
}
_KIND_ORDER = [
    "device_removed",
    "device_added",
    "platform",
    "port_removed",
    "port_added",
    "pfc",
    "dscp_map",
    "trust",
    "mtu",
    "ecn",
    "scheduling",
    "pfc_watchdog",
    "link_pause",
    "ecmp",
    "rdma",
]


class _Phraser:
    def __init__(self, old: Fabric, new: Fabric):
        self.old_cls = _class_names(old)
        self.new_cls = _class_names(new)

    def cls(self, prio: Any, new: bool = True) -> str | None:
        try:
            p = int(prio)
        except (TypeError, ValueError):
            return None
        return (self.new_cls if new else self.old_cls).get(p) or (self.old_cls if new else self.new_cls).get(
            p
        )

    def cls_obj(self, prio: Any) -> str:
        name = self.cls(prio)
        return f"class {name}" if name else f"priority {prio}"

    def phrase(self, g: _Group, roles: list[str]) -> tuple[str, str]:
        """(object, change text without scope)."""
        k, old, new = g.key, g.old, g.new
        kind = g.kind
        if kind == "pfc":
            o = set((old or (None, None))[1] or ())
            n = set((new or (None, None))[1] or ())
            parts = []
            for p in sorted(n - o):
                c = self.cls(p, new=True)
                parts.append(f"priority {p}{f' (class {c})' if c else ''} becomes lossless")
            for p in sorted(o - n):
                c = self.cls(p, new=False)
                parts.append(f"priority {p}{f' (class {c})' if c else ''} is no longer lossless")
            if not parts:
                parts.append(f"PFC {_plain((old or (None,))[0])} -> {_plain((new or (None,))[0])}")
            prios = sorted(n ^ o)
            obj = self.cls_obj(prios[0]) if len(prios) == 1 else "PFC"
            return obj, "; ".join(parts)
        if kind == "dscp_map":
            d = k[1]
            if old is not None and new is not None:
                a, b = self.cls(old, new=False), self.cls(new, new=True)
                if a and b and a != b:
                    return f"DSCP {d}", f"DSCP {d} moves from class {a} to class {b}"
                a = f"class {a} (priority {old})" if a else f"priority {old}"
                b = f"class {b} (priority {new})" if b else f"priority {new}"
                return f"DSCP {d}", f"DSCP {d} moves from {a} to {b}"
            if old is None:
                c = self.cls(new)
                return (
                    f"DSCP {d}",
                    f"DSCP {d} is now classified into {f'class {c}' if c else f'priority {new}'}",
                )
            c = self.cls(old, new=False)
            return (
                f"DSCP {d}",
                f"DSCP {d} is no longer classified (was {f'class {c}' if c else f'priority {old}'})",
            )
        if kind == "mtu":
            obj = f"role {roles[0]}" if len(roles) == 1 else f"roles {', '.join(roles)}"
            return obj, f"MTU of {obj} {_plain(old)} -> {_plain(new)}"
        if kind == "ecn":
            obj = self.cls_obj(k[1])
            f = _ECN_FIELD.get(k[2], k[2])
            fmt = (lambda v: f"{v}%" if v is not None else "unset") if f == "probability" else _size
            return obj, f"ECN {f} of {obj} {fmt(old)} -> {fmt(new)}"
        if kind == "scheduling":
            obj = self.cls_obj(k[1])
            if k[2] == "bandwidth_percent":
                return obj, (
                    f"scheduling weight of {obj} "
                    f"{f'{old}%' if old is not None else 'unset'} -> {f'{new}%' if new is not None else 'unset'}"
                )
            return obj, f"scheduling mode of {obj} {_plain(old)} -> {_plain(new)}"
        if kind == "trust":
            return "QoS trust", f"QoS trust {_plain(old)} -> {_plain(new)}"
        if kind == "pfc_watchdog":
            if len(k) == 1:
                return "PFC watchdog", f"PFC watchdog on lossless ports {_plain(old)} -> {_plain(new)}"
            fmt = _ms if k[1].endswith("_ms") else _plain
            f = k[1].removesuffix("_ms")
            return "PFC watchdog", f"PFC watchdog {f} {fmt(old)} -> {fmt(new)}"
        if kind == "link_pause":
            return "link pause", f"802.3x link pause {_plain(old)} -> {_plain(new)}"
        if kind == "ecmp":
            label = {"seed": "hash seed", "fields": "hash fields", "symmetric": "symmetric hashing"}.get(
                k[1], k[1]
            )
            return "ECMP hash", f"ECMP {label} {_plain(old)} -> {_plain(new)}"
        if kind == "rdma":
            return "host NICs", f"{_RDMA_FIELD.get(k[1], k[1])} {_plain(old)} -> {_plain(new)}"
        if kind == "platform":
            return "platform", f"platform {_plain(old)} -> {_plain(new)}"
        if kind in ("port_added", "port_removed"):
            prios = new if kind == "port_added" else old
            ll = f" (lossless {_plural('priority', len(prios))} {_plain(prios)})" if prios else ""
            verb = "added to" if kind == "port_added" else "removed from"
            return "interfaces", f"RoCE policy{ll} {verb}"
        return kind, f"{'.'.join(map(str, k))} {_plain(old)} -> {_plain(new)}"


def _field_path(key: tuple, port: bool) -> str:
    if key[0] in ("port_added", "port_removed"):
        return "interfaces.*"
    head = "interfaces.*." if port else ""
    if key[0] == "port_dscp":
        return head + "dscp_to_tc." + ".".join(map(str, key[1:]))
    if key[0] == "pfc":
        return head + "pfc"
    return head + ".".join(map(str, key))


def _json(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_json(x) for x in v]
    return v


def build_plan(old: Fabric, new: Fabric, old_label: str | None = None, new_label: str | None = None) -> Plan:
    """Compare two loaded intents and return the plan."""
    a = _side(old_label or old.file, old)
    b = _side(new_label or new.file, new)
    phr = _Phraser(old, new)
    groups: dict[tuple, _Group] = {}
    changes: list[PlanChange] = []
    diff_cache: dict[tuple[int, int], list[Raw]] = {}
    changed_devices: list[str] = []
    all_names = sorted(set(old.devices) | set(new.devices), key=natural_key)
    for name in all_names:
        if name not in new.devices:
            changed_devices.append(name)
            changes.append(_device_change("remove", name, a))
            continue
        if name not in old.devices:
            changed_devices.append(name)
            changes.append(_device_change("add", name, b))
            continue
        sa, sb = a.shapes[name], b.shapes[name]
        ck = (id(sa), id(sb))
        if ck not in diff_cache:
            raw = [] if sa.sem == sb.sem else _raw_diff(sa.flat, sb.flat)
            # a new platform replaces the whole config: the other differences follow from it
            diff_cache[ck] = [r for r in raw if r[0] == ("platform",)] or raw
        raws = diff_cache[ck]
        if not raws:
            continue
        changed_devices.append(name)
        dev = new.devices[name]
        nports = len(sb.flat[1]) or len(sa.flat[1])
        for key, port, ov, nv in raws:
            kind = _kind(key, port)
            lossless = bool(nv if kind == "port_added" else ov if kind == "port_removed" else False)
            rule = classify(kind, dev.platform, dev.is_host, lossless)
            gk = (key, port is None, ov, nv, rule)
            g = groups.get(gk)
            if g is None:
                g = groups[gk] = _Group(key, kind, rule, ov, nv, device_level=port is None)
            ports = g.devices.setdefault(name, [])
            if port is not None:
                ports.append(port)
            else:
                g.port_counts[name] = nports
    for g in groups.values():
        names = list(g.devices)
        specs = [new.devices[n] for n in names]
        roles = sorted({d.role for d in specs})
        plats = sorted({d.platform for d in specs})
        obj, text = phr.phrase(g, roles)
        nitf = sum(g.port_counts.values()) if g.device_level else sum(len(p) for p in g.devices.values())
        noun = _devices_noun(
            len(names), set(roles), any(d.is_host for d in specs), any(not d.is_host for d in specs)
        )
        scope = noun if g.device_level else f"{nitf} {_plural('port', nitf)} of {noun}"
        joint = " " if g.kind in ("port_added", "port_removed") else " on "
        action: Action = (
            "add" if g.kind == "port_added" else "remove" if g.kind == "port_removed" else "change"
        )
        changes.append(
            PlanChange(
                action=action,
                kind=g.kind,
                object=obj,
                summary=f"{text}{joint}{scope}",
                field=_field_path(g.key, not g.device_level),
                old=_json(g.old),
                new=_json(g.new),
                disruption=g.rule.disruption,
                risk=g.rule.risk,
                reason=g.rule.reason,
                rule_source=g.rule.source,
                device_count=len(names),
                interface_count=nitf,
                devices=names,
                interfaces={} if g.device_level else {n: p for n, p in g.devices.items()},
                platforms=plats,
                roles=roles,
            )
        )
    changes.sort(
        key=lambda c: (
            _KIND_ORDER.index(c.kind) if c.kind in _KIND_ORDER else len(_KIND_ORDER),
            -RISK_RANK[c.risk],
            c.summary,
        )
    )
    diags = _introduced(old.diagnostics, new.diagnostics)
    new_errors = sum(1 for d in new.diagnostics if d.severity == "error")
    memo: dict[tuple[int, int], tuple[str | None, int, int, int]] = {}
    devices = [_device_diff(n, a, b, memo) for n in changed_devices]
    affected_devs: set[str] = set()
    affected_itfs: set[tuple[str, str]] = set()
    for c in changes:
        affected_devs.update(c.devices)
        if c.interfaces:
            affected_itfs.update((d, p) for d, ps in c.interfaces.items() for p in ps)
        else:
            for d in c.devices:
                side = b if d in b.shapes else a
                affected_itfs.update((d, p) for p in side.shapes[d].flat[1])
    return Plan(
        old=PlanSide(source=a.label, fabric=old.intent.fabric, devices=len(old.devices)),
        new=PlanSide(source=b.label, fabric=new.intent.fabric, devices=len(new.devices)),
        changed=bool(changes),
        safe=new_errors == 0,
        new_errors=new_errors,
        disruption=max((c.disruption for c in changes), key=DISRUPTION_RANK.__getitem__, default=None),
        risk=max((c.risk for c in changes), key=RISK_RANK.__getitem__, default=None),
        counts=PlanCounts(
            add=sum(c.action == "add" for c in changes),
            change=sum(c.action == "change" for c in changes),
            remove=sum(c.action == "remove" for c in changes),
            devices=len(affected_devs),
            interfaces=len(affected_itfs),
        ),
        changes=changes,
        diagnostics=diags,
        devices=devices,
    )


def _device_change(action: Action, name: str, side: _Side) -> PlanChange:
    dev = side.fab.devices[name]
    shape = side.shapes[name]
    nports = len(shape.flat[1])
    lossless = _lossless_ports(shape.flat)
    kind = "device_added" if action == "add" else "device_removed"
    rule = classify(kind, dev.platform, dev.is_host, lossless=bool(lossless))
    extra = f", {lossless} lossless" if lossless and action == "remove" else ""
    text = (
        f"device {name} {'added' if action == 'add' else 'removed'} ({dev.platform}, {nports} ports{extra})"
    )
    return PlanChange(
        action=action,
        kind=kind,
        object=f"device {name}",
        summary=text,
        field=None,
        old=None,
        new=None,
        disruption=rule.disruption,
        risk=rule.risk,
        reason=rule.reason,
        rule_source=rule.source,
        device_count=1,
        interface_count=nports,
        devices=[name],
        interfaces={name: sorted(shape.flat[1], key=natural_key)},
        platforms=[dev.platform],
        roles=[dev.role],
    )


def _unified(ta: str, tb: str, fa: str | None, fb: str | None) -> tuple[str, int, int]:
    lines = list(
        difflib.unified_diff(
            ta.splitlines(keepends=True),
            tb.splitlines(keepends=True),
            f"a/{fa or fb}",
            f"b/{fb or fa}",
        )
    )
    text = "".join(x if x.endswith("\n") else x + "\n" for x in lines)
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return text, added, removed


def _device_diff(
    name: str, a: _Side, b: _Side, memo: dict[tuple[int, int], tuple[str | None, int, int, int]] | None = None
) -> DeviceDiff:
    """The rendered diff of one device. Devices with the same old and new shape have the same diff but for
    their hostname: with `memo`, one diff per shape pair with a placeholder hostname, substituted per device
    once it reproduced the real diff of the first two devices (else every device is diffed for real)."""
    in_a, in_b = name in a.fab.devices, name in b.fab.devices
    fa = a.file(name) if in_a else None
    fb = b.file(name) if in_b else None
    action: Action = "remove" if not in_b else "add" if not in_a else "change"
    plat = (b.fab.devices[name] if in_b else a.fab.devices[name]).platform
    key = (id(a.shapes[name]), id(b.shapes[name])) if memo is not None and in_a and in_b else None
    if key is not None and not PLAIN_NAME.fullmatch(name):
        key = None
    hit = memo.get(key) if key is not None and memo is not None else None
    if hit is not None and hit[0] is not None and hit[3] >= 2:
        text, added, removed = hit[0].replace(PLACEHOLDER, name), hit[1], hit[2]
    else:
        ta = a.render(name) if in_a else ""
        tb = b.render(name) if in_b else ""
        text, added, removed = _unified(ta, tb, fa, fb)
        if key is not None and memo is not None and (hit is None or hit[0] is not None):
            tmpl = hit[0] if hit is not None else None
            if tmpl is None:
                tmpl, _, _ = _unified(
                    a.placeholder_text(name),
                    b.placeholder_text(name),
                    a.file(name).replace(name, PLACEHOLDER),
                    b.file(name).replace(name, PLACEHOLDER),
                )
            ok = PLACEHOLDER not in ta + tb and tmpl.replace(PLACEHOLDER, name) == text
            memo[key] = (tmpl if ok else None, added, removed, (hit[3] if hit else 0) + 1)
    return DeviceDiff(
        device=name,
        action=action,
        platform=plat,
        old_file=fa,
        new_file=fb,
        added_lines=added,
        removed_lines=removed,
        diff=text,
    )


def _introduced(old: list[Diagnostic], new: list[Diagnostic]) -> list[PlanDiagnostic]:
    seen = {(d.code, d.message) for d in old}
    out = []
    done: set[tuple[str, str]] = set()
    for d in new:
        k = (d.code, d.message)
        if k in seen or k in done:
            continue
        done.add(k)
        out.append(
            PlanDiagnostic(
                severity=d.severity,
                code=d.code,
                message=d.message,
                file=d.file,
                line=d.line,
                col=d.col,
                hint=d.hint,
            )
        )
    return out


def plan_specs(old: str, new: str, cwd: str | Path | None = None) -> Plan:
    """Plan between two sides given as file paths or ``REV:PATH`` (raises :class:`PlanError`)."""
    fa = read_intent(old, cwd)
    # an OLD that could not be expanded in full (RC0xx: names, ranges, links, tables) lacks devices, ports or
    # links, which the plan would show as added: nothing true can be planned from it. Its semantic findings
    # (RC1xx) are compared with NEW's as usual.
    errors = [d for d in fa.diagnostics if d.severity == "error" and d.code.startswith("RC0")]
    if errors:
        msgs = [d.format() for d in errors[:2]]
        raise PlanError(
            [*msgs, f"error: {old}: OLD cannot be expanded in full ({len(errors)} error(s)); a plan needs a valid OLD"]
        )
    fb = read_intent(new, cwd)
    return build_plan(fa, fb, old, new)


# ------------------------------------------------------------------------------------------- output
_SYMBOL = {"add": "+", "change": "~", "remove": "-"}
_STYLE = {"add": "green", "change": "yellow", "remove": "red"}
_RISK_STYLE = {"low": "green", "medium": "yellow", "high": "bold red"}
MAX_MARKDOWN_DIFF_CHARS = 40_000


def _same_diffs(devices: list[DeviceDiff]) -> list[tuple[DeviceDiff, list[str]]]:
    """Group devices whose diff is the same once the device name is substituted (shown once)."""
    groups: dict[tuple, tuple[DeviceDiff, list[str]]] = {}
    for d in devices:
        key = (d.action, d.platform, d.diff.replace(d.device, "\0"))
        if key in groups:
            groups[key][1].append(d.device)
        else:
            groups[key] = (d, [])
    return list(groups.values())


def _short_list(names: list[str], limit: int = 8) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", ... ({len(names) - limit} more)"


def _headline(p: Plan) -> str:
    c = p.counts
    if not p.changed:
        return "No changes. The rendered configs of both intents are identical."
    return (
        f"Plan: {c.add} to add, {c.change} to change, {c.remove} to remove; "
        f"{c.devices} device(s), {c.interfaces} interface(s) affected. "
        f"Worst disruption: {p.disruption}; risk: {p.risk}."
    )


def to_text(p: Plan, color: bool = False, width: int = 120, diffs: bool = True) -> str:
    from rich.console import Console
    from rich.markup import escape

    buf = io.StringIO()
    con = Console(
        file=buf, force_terminal=color, no_color=not color, width=width, soft_wrap=True, emoji=False
    )
    con.print(f"[bold]roceconf plan[/bold]  {escape(p.old.source)} -> {escape(p.new.source)}")
    con.print()
    if p.changed:
        con.print("roceconf will perform the following changes (+ add, ~ change, - remove):")
        con.print()
    for c in p.changes:
        st = _STYLE[c.action]
        con.print(f"  [{st}]{_SYMBOL[c.action]}[/] {escape(c.summary)}", highlight=False)
        con.print(
            f"      disruption: [bold]{c.disruption}[/bold]  risk: [{_RISK_STYLE[c.risk]}]{c.risk}[/]"
            f"  ({escape(c.reason)})",
            highlight=False,
        )
        con.print(f"      devices: {escape(_short_list(c.devices))}", highlight=False)
    if p.diagnostics:
        con.print()
        con.print("[bold]New validation findings in NEW:[/bold]")
        for d in p.diagnostics:
            con.print(
                f"  {escape(d.file)}:{d.line}:{d.col}: {d.severity}[{d.code}]: {escape(d.message)}",
                highlight=False,
            )
    if not p.safe:
        con.print()
        con.print(f"[bold red]UNSAFE: NEW has {p.new_errors} validation error(s); do not apply.[/]")
    if diffs and p.devices:
        con.print()
        con.print("[bold]Rendered config diffs:[/bold]")
        for d, same in _same_diffs(p.devices):
            con.print()
            for line in d.diff.splitlines():
                st = (
                    "bold"
                    if line.startswith(("---", "+++"))
                    else "green"
                    if line.startswith("+")
                    else "red"
                    if line.startswith("-")
                    else "cyan"
                    if line.startswith("@@")
                    else None
                )
                con.print(escape(line), style=st, highlight=False)
            if same:
                con.print(f"  (same change, device name substituted, on {escape(_short_list(same))})")
    con.print()
    con.print(_headline(p), highlight=False)
    return buf.getvalue()


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("<", "&lt;")


def to_markdown(p: Plan) -> str:
    out = [f"### roceconf plan: `{p.old.source}` → `{p.new.source}`", ""]
    if not p.safe:
        out += [f"> **UNSAFE**: NEW has {p.new_errors} validation error(s). Do not merge as is.", ""]
    out += [f"**{_headline(p)}**", ""]
    if p.changes:
        out += ["| | change | disruption | risk | devices | interfaces |", "|---|---|---|---|---:|---:|"]
        for c in p.changes:
            out.append(
                f"| `{_SYMBOL[c.action]}` | {_md(c.summary)} | {c.disruption} | {c.risk} | "
                f"{c.device_count} | {c.interface_count} |"
            )
        out.append("")
    if p.diagnostics:
        out += ["#### New validation findings", ""]
        for d in p.diagnostics:
            out.append(f"- **{d.severity}** `{d.code}` {_md(d.message)} (`{d.file}:{d.line}`)")
        out.append("")
    if p.devices:
        groups = _same_diffs(p.devices)
        out += [
            "<details><summary>Rendered config diffs "
            f"({len(p.devices)} device(s), {len(groups)} distinct)</summary>",
            "",
        ]
        used = 0
        omitted: list[str] = []
        for d, same in groups:
            if used + len(d.diff) > MAX_MARKDOWN_DIFF_CHARS:
                omitted += [d.device, *same]
                continue
            used += len(d.diff)
            name = d.new_file or d.old_file
            also = f"; same on {_md(_short_list(same, 5))}" if same else ""
            out += [
                f"<details><summary><code>{name}</code> (+{d.added_lines} −{d.removed_lines}){also}</summary>",
                "",
                "```diff",
                d.diff.rstrip("\n"),
                "```",
                "",
                "</details>",
                "",
            ]
        if omitted:
            out += [
                f"{len(omitted)} more device diff(s) omitted to keep this comment short: "
                f"{_md(_short_list(omitted, 10))}. Run `roceconf plan` locally to see them.",
                "",
            ]
        out += ["</details>", ""]
    return "\n".join(out)


def to_json(p: Plan) -> str:
    return p.model_dump_json(indent=2) + "\n"


def format_plan(p: Plan, fmt: str, color: bool = False) -> str:
    if fmt == "json":
        return to_json(p)
    if fmt == "markdown":
        return to_markdown(p)
    return to_text(p, color=color)


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
