"""Text and JSON output of `roceconf check` and `roceconf headroom`."""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from typing import Any

from roceconf.fabric.checks import CheckResult
from roceconf.fabric.headroom import DEFAULT_SMALL_PACKET_PERCENT, DeviceHeadroom
from roceconf.intent.fabric import Fabric
from roceconf.reports import escape

#: in text output, at most this many findings per intent position and rule (JSON has all of them)
PER_POSITION = 5


_LEADING_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _device_of(message: str) -> str:
    """The device a check message starts with ('leaf1:Ethernet1 ...', 'leaf1 ...'); names follow the device
    grammar (roceconf.names.DEVICE), so the leading name is the device."""
    m = _LEADING_NAME.match(message)
    return m.group() if m else ""


_DEVICE_PORT = re.compile(r"\b([A-Za-z0-9][A-Za-z0-9_.-]*):[A-Za-z]")


def _naming(hidden: list) -> str:
    """', on leaf3, leaf4 and 6 more devices': which devices the folded findings are about."""
    names: list[str] = []
    for d in hidden:
        for n in _DEVICE_PORT.findall(d.message) or [_device_of(d.message)]:
            if n and n not in names:
                names.append(n)
    if not names:
        return ""
    shown = ", ".join(names[:8])
    return f", on {shown}" + (f" and {len(names) - 8} more devices" if len(names) > 8 else "")


def check_text(result: CheckResult) -> str:
    groups: dict[tuple, list] = defaultdict(list)
    for d in result.diagnostics:
        # folded per device too: one device's finding never hides behind another's "... more like this"
        groups[(d.file, d.line, d.col, d.code, _device_of(d.message))].append(d)
    lines: list[str] = []
    for ds in groups.values():
        for d in ds[:PER_POSITION]:
            lines.append(escape.diagnostic(d))
        if len(ds) > PER_POSITION:
            lines.append(
                f"{ds[0].file}:{ds[0].line}:{ds[0].col}: {ds[0].severity}[{ds[0].code}]: "
                f"... and {len(ds) - PER_POSITION} more like this{_naming(ds[PER_POSITION:])} "
                "(--format json lists all)"
            )
    sev: dict[str, int] = defaultdict(int)
    for d in result.diagnostics:
        sev[d.severity] += 1
    lines.append(
        f"{result.fabric}: checked {result.kind} states ({escape.plain(result.source)}): {result.devices} devices, "
        f"{result.hops} links on the lossless path; {sev['error']} error(s), {sev['warning']} warning(s), "
        f"{sev['info']} info; {len(result.unreadable)} device(s) unreadable"
    )
    return "\n".join(lines) + "\n"


def _b(n: float | None) -> str:
    if n is None:
        return "unknown"
    return f"{n / 1e6:.2f} MB" if abs(n) >= 1e6 else f"{n / 1e3:.1f} KB"


def headroom_table(
    reports: list[DeviceHeadroom],
    small_packet_percent: float = DEFAULT_SMALL_PACKET_PERCENT,
    file: Any = None,
) -> None:
    from rich.console import Console
    from rich.table import Table

    esc = escape.markup
    out = file or sys.stdout
    console = Console(file=out, width=140, highlight=False)  # rich decides colour (NO_COLOR, TTY, ...)
    table = Table(
        title=f"PFC headroom (SONiC dynamic model, small packets {small_packet_percent:g} %)",
        show_lines=False,
    )
    for col, just in (
        ("device", "left"),
        ("port", "left"),
        ("peer", "left"),
        ("speed", "right"),
        ("cable", "right"),
        ("no-drop", "left"),
        ("xoff", "right"),
        ("required", "right"),
        ("budget", "right"),
        ("margin", "right"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    notes: list[str] = []
    for rep in reports:
        for i, r in enumerate(rep.rows):
            h = r.per_priority
            table.add_row(
                esc(rep.device) if i == 0 else "",
                esc(r.port),
                esc(r.peer),
                f"{r.speed_gbps}G",
                f"{r.cable_m:g} m",
                ",".join(map(str, r.priorities)) or "-",
                _b(h.xoff) if h else "unknown",
                _b(r.required) if r.required is not None else "unknown",
                _b(r.share),
                ("[red]" if (r.margin or 0) < 0 else "") + _b(r.margin)
                if r.margin is not None
                else "unknown",
            )
        status = "" if rep.margin is None else ("fits" if rep.margin >= 0 else "[red]DOES NOT FIT[/red]")
        table.add_row(
            "",
            f"[bold]total {esc(rep.asic or '')}[/bold]",
            status,
            "",
            "",
            "",
            "",
            _b(rep.total) if not any(r.required is None for r in rep.rows) else "unknown",
            _b(rep.budget),
            _b(rep.margin),
            end_section=True,
        )
        if rep.unknown:
            notes.append(f"{esc(rep.device)}: {esc(rep.unknown)}")
    console.print(table)
    console.print(
        "budget per port = ASIC buffer / lossless-path ports (secondary or unverified figures: see "
        "roceconf/data/asics.yaml); required = (xoff + xon) x no-drop priorities"
    )
    for n in notes:
        console.print(f"unknown: {n}")


def headroom_json(fab: Fabric, reports: list[DeviceHeadroom], small_packet_percent: float) -> dict[str, Any]:
    return {
        "format_version": 1,
        "intent": fab.file,
        "model": "SONiC dynamic headroom (buffer_headroom_mellanox.lua), no shared headroom pool",
        "small_packet_percent": small_packet_percent,
        "devices": [r.to_dict() for r in reports],
    }
