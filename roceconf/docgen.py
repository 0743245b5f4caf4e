"""Generated artefacts: JSON Schemas and the reference docs (docs/intent.md, docs/rules.md)."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from roceconf.intent.model import Intent
from roceconf.jsontext import published_schema


def intent_schema() -> dict[str, Any]:
    return published_schema(Intent, "intent.schema.json", "roceconf intent")


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema for every machine-readable format roceconf reads or writes."""
    from roceconf.state import state_json_schema

    out = {"intent.schema.json": intent_schema(), "device-state.schema.json": state_json_schema()}
    try:
        from roceconf.drift.report import report_json_schema
    except ImportError:
        pass
    else:
        out["drift-report.schema.json"] = report_json_schema()
    try:
        from roceconf.health.report import report_json_schema as health_schema
    except ImportError:
        pass
    else:
        out["health-report.schema.json"] = health_schema()
    try:
        from roceconf.plan import plan_json_schema
    except ImportError:
        pass
    else:
        out["plan.schema.json"] = plan_json_schema()
    from roceconf.acceptance.report import verdict_json_schema

    out["acceptance-verdict.schema.json"] = verdict_json_schema()
    return out


def dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(out_dir: str | Path) -> list[Path]:
    """Write every schema into DIR as render writes a report: atomically, never through a link planted in
    DIR (roceconf.outdir.write_outputs)."""
    from roceconf.outdir import write_outputs

    d = Path(out_dir)
    files = {name: dump_json(schema) for name, schema in schemas().items()}
    write_outputs(files, d)
    return [d / name for name in files]


# ------------------------------------------------------------------------------------------ intent.md
def _field_type(f: Any) -> str:
    """A field's type as the unit-aware annotation states it (pydantic moves the metadata of a field's
    ``Annotated`` type, e.g. the JSON schema of ``Millis``, onto the field)."""
    for meta in f.metadata:
        js = getattr(meta, "json_schema", None)
        if js and "description" in js:
            return _type_name(typing.Annotated[f.annotation, meta])
    return _type_name(f.annotation)


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        base = args[0]
        for meta in args[1:]:
            js = getattr(meta, "json_schema", None)
            if js and "description" in js:
                return js["description"].split(",")[0].replace("bytes or a size with a unit: 150KB", "size")
        return _type_name(base)
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        parts = [_type_name(a) for a in args if a is not type(None)]
        return " \\| ".join(parts) + (" (optional)" if type(None) in args else "")
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"map of {_type_name(args[0])} to {_type_name(args[1])}"
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return getattr(tp, "__name__", str(tp))


def _models(root: type[BaseModel]) -> list[type[BaseModel]]:
    seen: list[type[BaseModel]] = []

    def visit(m: type[BaseModel]) -> None:
        if m in seen:
            return
        seen.append(m)
        for f in m.model_fields.values():
            stack = [f.annotation]
            while stack:
                t = stack.pop()
                if isinstance(t, type) and issubclass(t, BaseModel):
                    visit(t)
                stack.extend(typing.get_args(t))

    visit(root)
    return seen


def _default(field: Any) -> str:
    if field.default is not PydanticUndefined:
        d = field.default
        return "" if d is None else f"`{json.dumps(d) if not isinstance(d, BaseModel) else '...'}`"
    if field.default_factory is not None:
        try:
            v = field.default_factory()
        except TypeError:
            return "(see model)"
        if isinstance(v, BaseModel):
            return "(defaults below)"
        if isinstance(v, list) and v and isinstance(v[0], BaseModel):
            return "NVIDIA RoCE profile (see example)"
        return f"`{json.dumps(v)}`"
    return "**required**"


EXAMPLE_PATH = "inventories/lab/intent.yml"

#: The smallest useful intent: every other setting takes its default. Valid without a warning on each
#: switch platform with that platform's interface names (tests/security/test_defaults.py).
MINIMAL_INTENT = """version: 1
fabric: pod1
devices:
  - name: leaf1
    platform: eos
    role: leaf
    interfaces:
      - {name: "Ethernet1-2", speed: 400G}
"""

#: An interface range of each switch platform for the minimal intent.
MINIMAL_INTERFACES = {
    "eos": "Ethernet1-2",
    "nxos": "Ethernet1/1-2",
    "nvue": "swp1-2",
    "sonic": "Ethernet[0-8/8]",
    "junos": "et-0/0/[0-1]",
}


def minimal_intent(platform: str) -> str:
    return MINIMAL_INTENT.replace("platform: eos", f"platform: {platform}").replace(
        "Ethernet1-2", MINIMAL_INTERFACES[platform]
    )


def _names_section() -> list[str]:
    from roceconf import limits, names, platforms
    from roceconf.intent.rules import asic_table

    lines = [
        "## Minimal intent",
        "",
        "Everything else takes its default (NVIDIA's lossless RoCE profile, switch MTU 9214, host NIC MTU "
        "9000, hash on source/destination IP and L4 ports). It validates without a warning on each switch "
        "platform once the interface names follow that platform's syntax:",
        "",
        "```yaml",
        MINIMAL_INTENT.rstrip(),
        "```",
        "",
        "| platform | interfaces |",
        "|---|---|",
        *(f"| `{p}` | `{i}` |" for p, i in MINIMAL_INTERFACES.items()),
        "",
        "## Names and ranges",
        "",
        "Every name is checked after ranges are expanded; a name that a shell, a device CLI or a file path "
        "could interpret is refused before anything is rendered.",
        "",
        "| kind | rule | ID |",
        "|---|---|---|",
        f"| device | {names.DEVICE.describe} | RC014 |",
        f"| profile, role, class | {names.IDENTIFIER.describe} | RC017 |",
        f"| RDMA device | {names.RDMA_DEVICE.describe} | RC016 |",
        f"| host interface (`connectx`, `bnxt`, `linux-dcb`) | {names.NETDEV.describe} | RC015 |",
    ]
    for plat in platforms.all_platforms():
        if plat.interface_pattern:
            lines.append(f"| `{plat.name}` interface | {plat.interface_example} | RC015 |")
    lines += [
        "",
        "A value as written (with its ranges) is at most 128 characters. Ranges: `gpu[0001-0256]` (leading "
        "zeros keep their width), `leaf[1-2]-[a,b]` (every combination), `Ethernet1/1-32` and `swp1-4,swp9` "
        "(a range at the end of a name, comma lists), and a **step** inside brackets for SONiC-style port "
        "numbering: `Ethernet[0-504/8]` is Ethernet0, Ethernet8, ..., Ethernet504. A malformed range "
        "(`leaf[1-2x]`, an unclosed `[`) is an error naming the character position (RC006).",
        "",
        f"Limits (RC019-RC022): an intent file of at most {limits.MAX_YAML_BYTES // 2**20} MiB, a cabling "
        f"table of at most {limits.MAX_SIDE_FILE_BYTES // 2**20} MiB, an `--asic-table` of at most "
        f"{limits.MAX_ASIC_TABLE_BYTES // 2**20} MiB, {limits.MAX_ALIAS_NODES} values "
        f"repeated through YAML aliases, {limits.MAX_DEPTH} levels of nesting, {limits.MAX_DEVICES} "
        f"devices, {limits.MAX_PORTS} interfaces per device. The expanded fabric (RC026, checked before "
        f"a range or pattern is expanded): at most {limits.MAX_INTERFACES} interfaces of all devices "
        f"together (devices x interfaces) and {limits.MAX_LINKS} links, about five times a 32,768-GPU fabric; "
        f"`{limits.SIZE_ENV['interfaces']}=N` and `{limits.SIZE_ENV['links']}=N` raise them. A `csv:` cabling "
        "table is read relative to the intent and must stay inside the intent's directory or git "
        "repository (`ROCECONF_ALLOW_PATHS` names more directories, separated by `:`).",
        "",
        "## Switch ASICs",
        "",
        "`asic:` names a row of the buffer table shipped in `roceconf/data/asics.yaml` (`--asic-table FILE` "
        "adds rows for `roceconf check` / `roceconf headroom`): "
        + ", ".join(f"`{a}`" for a in sorted(asic_table()))
        + ".",
        "",
    ]
    return lines


def intent_markdown() -> str:
    lines = [
        "# Intent file reference",
        "",
        "<!-- generated by `roceconf docs`; do not edit by hand -->",
        "",
        "An intent states a lossless RoCEv2 fabric once. Sizes take `150KB`, `1.5MB`, `64KiB` or bytes "
        "(KB and MB are decimal, as NVIDIA's RoCE defaults use them); durations take `200ms`, `0.2s` or "
        "milliseconds; speeds `400G`; cable lengths `5m`.",
        "",
        "**ECN thresholds as a queue delay** (`ecn: {min: 5us, max: 20us}`, AVD issue 4900): on each port the "
        "delay becomes the bytes the port drains in that time, bytes = delay x speed / 8 (5us at 400G = "
        "5000 ns x 400 Gb/s / 8 = 250,000 B; at 100G 62,500 B), then the platform's unit and quantum "
        "(EOS bytes, NX-OS kbytes, NVUE and SONiC bytes; Junos states its own fill-level percent, "
        "`ecn.junos`). `roceconf expand` lists the bytes per port speed (`ecn_bytes_by_port_speed`), "
        "`plan` and drift compare the converted bytes.",
        "",
        "**Dynamic load balancing** (`ecmp.dynamic`) and **QP hashing** (`ecmp.hash_dest_qp`): per platform, "
        "see docs/conformance.md (AI-fabric knobs); a mode a platform cannot state is refused (RC160, RC161). "
        "**extra_config**: lines rendered verbatim at the end of the config (EOS before `end`, as AVD's "
        "`eos_cli`; NX-OS and Junos last), never parsed back nor audited (RC163); refused where the render "
        "is a structured document or a host script (NVUE, SONiC, NIC platforms: RC164) and for a line with a "
        "newline or control character (RC165).",
        "",
        "**Precedence** (lowest to highest): fabric-wide settings, `roles.<role>`, each of the device's "
        "`profiles` in listed order, the device's `overrides`.",
        "",
        "**Compact forms**: device names `gpu[0001-0256]`; interfaces `Ethernet1/1-32`, `swp1-4,swp9`, "
        "`eth[0-7]`; links by `rail` or `mesh` pattern or a `csv` cabling table. `roceconf expand INTENT` "
        "prints the expanded form, itself a valid intent to start from: every device, interface and link "
        "written out one by one, `roceconf validate` on it reports the same devices, links, errors and "
        "warnings and it renders the same configs (a device entry's `overrides` become a profile "
        "`devices-<n>-overrides` applied last, the same precedence). Values the source leaves to "
        "roceconf's defaults stay unstated, so they keep following the defaults; the YAML output lists "
        "the effective settings of each group of devices, every default included, as comments at the end.",
        "",
        "Defaults follow NVIDIA's lossless RoCE profile: RoCE DSCP 26 -> priority 3 lossless with ECN "
        "150 KB / 1500 KB / 100 %; CNP DSCP 48 -> priority 6 strict; PFC watchdog on.",
        "",
        f"A complete example: [`{EXAMPLE_PATH}`](../{EXAMPLE_PATH}).",
        "",
        *_names_section(),
    ]
    for m in _models(Intent):
        lines += [f"## {m.__name__}", "", (m.__doc__ or "").strip().split("\n\n")[0].replace("\n", " "), ""]
        lines += ["| field | type / unit | default | description | example |", "|---|---|---|---|---|"]
        for name, f in m.model_fields.items():
            ex = f"`{json.dumps(f.examples[0])}`" if f.examples else ""
            desc = (f.description or "").replace("|", "\\|")
            lines.append(f"| `{name}` | {_field_type(f)} | {_default(f)} | {desc} | {ex} |")
        lines.append("")
    return "\n".join(lines)


def rules_markdown() -> str:
    import roceconf.acceptance  # noqa: F401 - registers the RC4xx acceptance rules
    import roceconf.cabling  # noqa: F401 - registers the RC5xx cabling rules
    import roceconf.fabric  # noqa: F401 - registers the RC2xx fabric-check rules
    import roceconf.health  # noqa: F401 - registers the RC3xx health rules
    from roceconf.intent.rules import RULES

    lines = [
        "# Validation rules",
        "",
        "<!-- generated by `roceconf docs`; do not edit by hand -->",
        "",
        "Every finding is printed as `FILE:LINE:COL: severity[ID]: message` with a one-line hint. "
        "Errors make `roceconf validate` exit 2; warnings do too with `--strict`.",
        "",
        "| ID | severity | rule | why it matters for RDMA | hint |",
        "|---|---|---|---|---|",
    ]
    for r in sorted(RULES.values(), key=lambda r: r.id):
        lines.append(f"| {r.id} | {r.severity} | {r.title} | {r.why} | {r.hint} |")
    return "\n".join(lines) + "\n"


def write_docs(out_dir: str | Path) -> list[Path]:
    """Write docs/intent.md and docs/rules.md as :func:`write_schemas` writes the schemas."""
    from roceconf.outdir import write_outputs

    d = Path(out_dir)
    files = {"intent.md": intent_markdown(), "rules.md": rules_markdown()}
    write_outputs(files, d)
    return [d / name for name in files]
