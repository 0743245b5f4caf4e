"""The plan as text, Markdown and JSON."""

from __future__ import annotations

import io

from roceconf.plan.model import DeviceDiff, Plan

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
