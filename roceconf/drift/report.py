"""Drift report formats: text (rich tables), JSON (schemas/drift-report.schema.json) and YAML, JUnit XML,
Markdown."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import pydantic_core

from roceconf.drift.audit import SHAPE_DEVICE, DeviceResult, DriftReport
from roceconf.jsontext import published_schema
from roceconf.reports import escape, junit, scaffold
from roceconf.reports.causes import Cause, lines


# ----------------------------------------------------------------------------------------- JSON schema
class ItemModel(scaffold.Strict):
    device: str
    interface: str | None
    field: str
    expected: Any
    actual: Any
    severity: Literal["critical", "warning", "info"]
    feature: str
    explanation: str
    file: str | None
    line: int | None


class RemediationModel(scaffold.Strict):
    group: str
    disruptive: bool
    why: str
    fields: list[str]
    commands: str
    error: str | None
    manual: list[str]


class WarningModel(scaffold.Strict):
    line: int | None
    message: str
    code: str


class ChangeModel(scaffold.Strict):
    field: str
    expected: Any
    actual: Any


class FindingModel(scaffold.Strict):
    """One cause: the items of a device that share a feature, the changes and the ports (as ranges)."""

    severity: Literal["critical", "warning", "info"]
    feature: str
    interfaces: list[str]
    ports: int
    changes: list[ChangeModel]
    items: list[int]
    remediation: list[int]


class DeviceModel(scaffold.DeviceHeadModel):
    status: Literal["in_sync", "drift", "unknown"]
    items: list[ItemModel]
    findings: list[FindingModel]
    parse_warnings: list[WarningModel]
    remediation: list[RemediationModel]


class SummaryModel(scaffold.Strict):
    devices: int
    in_sync: int
    drift: int
    unknown: int
    findings: int
    ports: int
    items: int
    critical: int
    warning: int
    info: int


class BaselineFindingModel(scaffold.Strict):
    rule: Literal["RC400", "RC413"]
    severity: Literal["warning"]
    device: str
    component: str
    baseline: Any
    now: Any
    message: str


class BaselineModel(scaffold.Strict):
    """`drift --baseline`: what changed since the accepted acceptance test."""

    file: str
    recorded_at: str | None
    findings: list[BaselineFindingModel]


class ReportModel(scaffold.ReportHeadModel):
    """roceconf drift report (`roceconf drift --format json`)."""

    summary: SummaryModel
    devices: list[DeviceModel]
    baseline: BaselineModel | None = None


def report_json_schema() -> dict[str, Any]:
    return published_schema(ReportModel, "drift-report.schema.json", "roceconf drift report")


def to_json(report: DriftReport) -> str:
    fast = _json_by_shape(report)
    if fast is not None:
        return fast
    data = report.to_dict()
    ReportModel.model_validate(data)  # the output always matches its published schema
    if _native(data):
        # pydantic-core's encoder writes what json.dumps(indent=2) writes for these values, 8x faster
        text = pydantic_core.to_json(data, indent=2).decode()
        if text.isascii():  # json.dumps escapes other characters (ensure_ascii)
            return text + "\n"
    return escape.dumps(data, indent=2, default=str) + "\n"


def _native(data: dict[str, Any]) -> bool:
    """True when both JSON encoders write the report alike: no baseline (free-form values), only strings,
    ints, bools, None, lists and string-keyed dicts in the items' values, and the durations (floats) in
    the range where both write the same digits (json.dumps switches to an exponent below 1e-4)."""
    if "baseline" in data:
        return False
    for dev in data["devices"]:
        sec = dev["seconds"]
        if not (sec == 0 or 1e-4 <= sec < 1e15):
            return False
        for it in dev["items"]:
            e, a = it["expected"], it["actual"]
            if not ((type(e) in _SCALAR or _plain(e)) and (type(a) in _SCALAR or _plain(a))):
                return False
    return True


_SCALAR = frozenset({type(None), str, int, bool})

#: what stands for a device's file, source and duration in a shape's JSON (see `_json_by_shape`)
_FILE, _SOURCE, _SECONDS = "\x00file\x00", "\x00source\x00", "\x00seconds\x00"


class _Slow(Exception):
    """This report needs the general encoder (`json.dumps`)."""


def _json_by_shape(report: DriftReport) -> str | None:
    """`to_json`'s text, written per shape: the devices of one shape (``DeviceResult.shape``) report alike
    but for their name, file, source and duration, so their JSON is written once with placeholders, checked
    against the first device's own JSON, and filled in for the others. The schema check runs on the head
    and on one device of each shape (the others differ only by strings and a float, which keep their
    types). None when the report needs the general path (a baseline, values only `json.dumps` writes)."""
    if report.baseline is not None or not report.devices:
        return None
    head = report.head()
    ReportModel.model_validate({**head, "devices": []})
    try:
        text = _encode({**head, "devices": [None]})
    except _Slow:  # a name outside ASCII: the general encoder writes it
        return None
    tail = '"devices": [\n    null\n  ]\n}'
    if not text.endswith(tail):
        return None
    blocks: list[str] = []
    shapes: dict[int, tuple[list[str], list[int]] | None] = {}
    try:
        for dev in report.devices:
            sec = round(dev.seconds, 3)
            if not (sec == 0 or 1e-4 <= sec < 1e15):
                return None
            shape = dev.shape
            parts = None
            if shape is not None:
                if id(shape) not in shapes:
                    shapes[id(shape)] = _template(dev)
                parts = shapes[id(shape)]
            if parts is None:
                blocks.append(_device_json(dev.to_dict()))
                continue
            blocks.append(_fill(parts, dev))
    except _Slow:
        return None
    pieces = [text[: -len(tail)], '"devices": [\n    ']
    for block in blocks:
        pieces += (block, ",\n    ")
    pieces[-1] = "\n  ]\n}\n"
    return "".join(pieces)  # one copy of a text that can be megabytes


def _encode(value: Any) -> str:
    text = pydantic_core.to_json(value, indent=2).decode()
    if not text.isascii():  # json.dumps escapes other characters (ensure_ascii)
        raise _Slow
    return text


def _escaped(s: str) -> str:
    """A string as it stands between the quotes of the JSON text."""
    return _encode(s)[1:-1]


def _device_json(data: dict[str, Any]) -> str:
    """One device's JSON as it stands in the report's list (indented two levels), schema-checked."""
    DeviceModel.model_validate(data)
    for it in data["items"]:
        e, a = it["expected"], it["actual"]
        if not ((type(e) in _SCALAR or _plain(e)) and (type(a) in _SCALAR or _plain(a))):
            raise _Slow
    return _encode(data).replace("\n", "\n    ")  # JSON strings hold no raw line break


def _template(dev: DeviceResult) -> tuple[list[str], list[int]] | None:
    """The JSON of `dev`'s shape split at its placeholders for the device's name, file, source and duration
    (their NUL characters stand nowhere else: the encoder writes a NUL of a value as an escape), or None
    when filling it in does not give `dev`'s own JSON back (then each device is written alone)."""
    shape = dev.shape
    assert shape is not None
    own = dev.to_dict()
    real = _device_json(own)
    if len({i.file for i in dev.items}) > 1:  # builds the first device's items (one per shape)
        return None
    data = dict(own)
    data["device"], data["source"], data["seconds"] = SHAPE_DEVICE, _SOURCE, _SECONDS
    data["items"] = [
        {
            **it,
            "device": SHAPE_DEVICE,
            "file": None if it["file"] is None else _FILE,
            "explanation": t.explanation,
        }
        for it, t in zip(own["items"], shape.items, strict=True)
    ]
    raw = _encode(data).replace("\n", "\n    ")
    # the placeholders as the encoder wrote them: inside strings, and the duration as a whole string
    # the placeholders as the encoder wrote them: inside strings, and the duration as a whole string
    raw = raw.replace(f'"{_escaped(_SECONDS)}"', _SECONDS)
    for p in (SHAPE_DEVICE, _FILE, _SOURCE):
        raw = raw.replace(_escaped(p), p)
    parts = _PLACEHOLDER.split(raw)  # text, placeholder, text, ...: a value goes into every odd slot
    template = (parts, [_SLOTS.index(p) for p in parts[1::2]])
    return template if _fill(template, dev) == real else None


#: the placeholders of a shape's JSON, in the order `_fill` passes their values
_SLOTS = (SHAPE_DEVICE, _FILE, _SOURCE, _SECONDS)
_PLACEHOLDER = re.compile("(" + "|".join(map(re.escape, _SLOTS)) + ")")


def _fill(template: tuple[list[str], list[int]], dev: DeviceResult) -> str:
    """A shape's JSON with `dev`'s values (a few C-level list operations: the text is tens of kB)."""
    parts, slots = template
    file = dev.items_file
    values = (
        _escaped(dev.device),
        "" if file is None else _escaped(file),
        _escaped(dev.source),
        _encode(round(dev.seconds, 3)),
    )
    out = parts.copy()
    out[1::2] = map(values.__getitem__, slots)
    return "".join(out)


def _plain(v: Any) -> bool:
    if type(v) in _SCALAR:
        return True
    if type(v) is list:
        return all(_plain(x) for x in v)
    if type(v) is dict:
        return all(type(k) is str and _plain(x) for k, x in v.items())
    return False


# ----------------------------------------------------------------------------------------- text
_STYLE = {
    "critical": "bold red",
    "warning": "yellow",
    "info": "dim",
    "in_sync": "green",
    "drift": "red",
    "unknown": "magenta",
}


def to_text(report: DriftReport, color: bool = False, width: int = 140) -> str:
    buf, con = scaffold.text_console(color, width)
    con.print(scaffold.text_title("drift", report))
    for d in report.devices:
        con.print()
        con.print(scaffold.text_device(d, _STYLE))
        if d.status == "unknown":
            con.print(f"  could not audit: {esc(d.reason)}")
            continue
        if not d.items:
            continue
        t = scaffold.text_table(("severity", "ports", "field", "expected", "actual", "where", "impact"), ("impact",))
        for cause in d.causes:
            for row in _cause_rows(cause):
                t.add_row(*row)
        con.print(t)
        for r in d.remediation:
            tag = "DISRUPTIVE" if r.disruptive else "hitless"
            con.print(f"  remediation ({tag}: {esc(r.why)}):")
            if r.error:
                con.print(f"    cannot render: {esc(r.error)}")
            for line in r.commands.splitlines():
                if line.strip():
                    con.print(f"    {escape.plain(line)}", markup=False, highlight=False)
            for note in r.manual:
                con.print(f"    by hand: {escape.plain(note)}", markup=False, highlight=False)
    if report.baseline is not None:
        found = report.baseline["findings"]
        con.print()
        con.print(
            f"[bold]acceptance baseline[/bold] {esc(report.baseline['file'])} "
            f"(recorded {esc(report.baseline['recorded_at'])}): "
            + (f"[{_STYLE['warning']}]{len(found)} change(s)[/]" if found else "[green]unchanged[/]")
        )
        for f in found:
            con.print(f"  warning[{escape.plain(f['rule'])}]: {escape.plain(f['message'])}", markup=False, highlight=False)
    con.print()
    con.print(scaffold.text_totals(report, "nothing audited: no device of the intent was selected"))
    return buf.getvalue()


esc = escape.markup


def _cause_rows(cause: Cause) -> list[tuple[str, ...]]:
    """A cause's rows (escaped for rich): severity, ports and where on the first, then one per change (field,
    expected, actual, impact)."""
    out = []
    for n, ch in enumerate(cause.changes):
        first = n == 0
        out.append((
            f"[{_STYLE[cause.severity]}]{cause.severity}[/]" if first else "",
            esc(cause.where or "-") if first else "",
            esc(ch.field),
            esc(_v(ch.expected)),
            esc(_v(ch.actual)),
            esc(lines(cause.locations) or "-") if first else "",
            esc(cause.explanations[n] if n < len(cause.explanations) else ""),
        ))
    return out


_v = scaffold.shown


# ----------------------------------------------------------------------------------------- JUnit
FEATURES = (
    "dscp_map",
    "trust",
    "pfc",
    "ecn",
    "scheduling",
    "mtu",
    "pfc_watchdog",
    "ecmp",
    "rdma",
    "link_pause",
    "interface",
)


def _features(d: DeviceResult) -> list[tuple[str, str]]:
    """A case per feature the device's platform has (hosts have no ECMP)."""
    return [(f, f) for f in FEATURES if d.platform not in ("connectx", "bnxt", "linux-dcb") or f not in ("ecmp",)]


def _feature_failure(d: DeviceResult, feat: str) -> tuple[str, str, str] | None:
    bad = [x for x in d.causes if x.feature == feat and x.severity != "info"]
    if not bad:
        return None
    sev = "critical" if any(x.severity == "critical" for x in bad) else "warning"
    return (
        f"{len(bad)} {sev} finding(s) on {sum(len(x.ports) for x in bad)} port(s)",
        sev,
        "\n".join(
            f"[{x.severity}] {x.title(_v)}{' at ' + lines(x.locations) if x.locations else ''} - {x.explanation}"
            for x in bad
        ),
    )


def to_junit(report: DriftReport) -> str:
    """One test case per device and feature; failures for critical/warning drift, errors for unknown devices."""
    root = junit.suites("roceconf drift")
    scaffold.junit_devices(root, report, "roceconf.", _features, _feature_failure, "not audited")
    if report.baseline is not None:
        suite = junit.suite(root, "acceptance-baseline")
        by_dev: dict[str, list[str]] = {}
        for f in report.baseline["findings"]:
            by_dev.setdefault(f["device"], []).append(f"[{f['rule']}] {f['message']}")
        for d in report.devices:
            case = junit.case(suite, "roceconf.baseline", d.device)
            if d.device in by_dev:
                junit.failure(case, by_dev[d.device][0], "stale-baseline", "\n".join(by_dev[d.device]))
        junit.totals(suite, len(report.devices), len(by_dev), 0)
    return junit.finish(root)


# ----------------------------------------------------------------------------------------- Markdown
def _md(s: Any) -> str:
    return scaffold.md_cell(_v(s))


def to_markdown(report: DriftReport) -> str:
    out = scaffold.overview("roceconf drift report", report, {"in_sync": "✅", "drift": "❌", "unknown": "❓"})
    for d in report.devices:
        if not d.items:
            continue
        out += scaffold.device_section(
            d.device, d.platform, "severity", "ports", "field", "expected", "actual", "where", "impact"
        )
        for x in d.causes:
            out.append(
                f"| {x.severity} | {_md(x.where or '-')} | `{_md('; '.join(ch.field for ch in x.changes))}` | "
                f"{_md('; '.join(_v(ch.expected) for ch in x.changes))} | "
                f"{_md('; '.join(_v(ch.actual) for ch in x.changes))} | {_md(lines(x.locations) or '-')} | "
                f"{_md(x.explanation)} |"
            )
        for r in d.remediation:
            tag = "**disruptive**" if r.disruptive else "hitless"
            out += [
                "",
                "<details>",
                f"<summary>Remediation ({tag}): {_md(r.why)}</summary>",
                "",
                *escape.md_fence(r.commands.rstrip()),
                *[f"- by hand: {_md(note)}" for note in r.manual],
                "</details>",
            ]
    if report.baseline is not None:
        found = report.baseline["findings"]
        out += ["", f"### Acceptance baseline (recorded {_md(report.baseline['recorded_at'])})", ""]
        out += [f"- {_md(f['rule'])}: {_md(f['message'])}" for f in found] or ["Unchanged since the accepted test."]
    return "\n".join(out) + "\n"


FORMATS = {"text": to_text, "json": to_json, "junit": to_junit, "markdown": to_markdown}


def format_report(report: DriftReport, fmt: str, color: bool = False) -> str:
    """The report as ``fmt`` (text, json, yaml, junit, markdown); ``color`` for text only."""
    if fmt == "text":
        return to_text(report, color=color)
    if fmt == "yaml":
        from roceconf.reports import to_yaml

        return to_yaml(json.loads(to_json(report)))
    return FORMATS[fmt](report)
