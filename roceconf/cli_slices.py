"""The command line of sliced runs (roceconf.slices): ``--slice K/N --results-dir DIR`` of drift, health, bom
and cabling, and ``roceconf report merge DIR...``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

EXIT_INVALID = 2


def slice_options(fn: Any) -> Any:
    """``--slice K/N`` and ``--results-dir DIR`` (the options of drift, health, bom and cabling)."""
    fn = click.option(
        "--results-dir",
        type=click.Path(file_okay=False),
        help="With --slice: write this slice's results into DIR/sliceKofN/ (for `roceconf report merge`).",
    )(fn)
    return click.option(
        "--slice",
        "slice_spec",
        metavar="K/N",
        help="Only slice K of N of the inventory's hosts, by AWX's job-slicing rule (hosts sorted by name, "
        "every N-th from the K-th); devices of other slices are not reported. Needs --results-dir.",
    )(fn)


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_INVALID)


@dataclass
class SliceRun:
    number: int
    count: int
    devices: list[str]
    folder: Path
    intent: str


def choose(
    fab: Any, slice_spec: str | None, results_dir: str | None, inventory: str | None, device: str | None
) -> SliceRun | None:
    """The slice of this run (None when not sliced); exit 2 with one line for a bad combination."""
    from roceconf import slices

    if slice_spec is None and results_dir is None:
        return None
    if slice_spec is None or results_dir is None:
        _fail("--slice K/N and --results-dir DIR go together")
    if device is not None:
        _fail("--device and --slice exclude each other")
    try:
        number, count = slices.parse_slice(slice_spec or "")
    except slices.SliceError as e:
        _fail(str(e))
    hosts = None
    if inventory is not None:
        from roceconf.drift.collect import CollectError, load_inventory

        try:
            hosts = list(load_inventory(inventory))
        except CollectError as e:
            _fail(str(e))
    names = slices.slice_devices(list(fab.devices), hosts, number, count)
    folder = Path(results_dir or ".") / slices.dirname(number, count)
    return SliceRun(number, count, names, folder, fab.file)


def save(run: SliceRun, kind: str, report_text: str, extra: dict[str, Any] | None = None) -> None:
    """Write the slice's result directory and say so on stderr (``extra``: more fields of ``slice.json``)."""
    from roceconf import slices

    meta = slices.slice_meta(kind, run.intent, run.devices, number=run.number, count=run.count)
    meta.update(extra or {})
    slices.write_slice(run.folder, meta, report_text)
    click.echo(f"wrote slice {run.number} of {run.count} ({len(run.devices)} device(s)) to {run.folder}", err=True)


def copy_counters(run: SliceRun, counters_dir: str, report: Any) -> None:
    """An offline slice (``health --counters``): copy the counters of the devices it read into its results."""
    from roceconf.health.collect import SAVED_SUFFIX
    from roceconf.outdir import write_outputs

    files = {}
    for d in report.devices:
        if d.status != "unknown":
            name = d.device + SAVED_SUFFIX
            files[name] = (Path(counters_dir) / name).read_text(encoding="utf-8")
    write_outputs(files, run.folder / "counters", private=True)


def drift_text(report: Any, fab: Any, fmt: str, color: bool) -> str:
    """A drift report in ``fmt`` (html and markdown draw the fabric map too)."""
    from roceconf.drift.report import format_report
    from roceconf.reports import html

    if fmt == "html":
        return html.render(html.drift_map(report, fab))
    text = format_report(report, fmt, color=color)
    if fmt == "markdown":
        text += html.mermaid_block(html.drift_map(report, fab))
    return text


def health_text(report: Any, fab: Any, fmt: str, color: bool) -> str:
    from roceconf.health.report import format_report
    from roceconf.reports import html

    if fmt == "html":
        return html.render(html.health_map(report, fab))
    return format_report(report, fmt, color=color)


def register(main: click.Group, *, guarded: Any, emit: Any, color: Any) -> None:
    """Add ``report merge`` to the ``roceconf`` command group."""

    @main.group("report")
    def report() -> None:
        """Work with written reports (merge the results of sliced runs)."""

    formats = ("text", "json", "yaml", "junit", "markdown", "prometheus", "html")

    @report.command("merge")
    @click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
    @click.option("--intent", type=click.Path(dir_okay=False), help="Intent file [default: the one the slices name].")
    @click.option("--format", "fmt", type=click.Choice(formats), default=None,
                  help="Output format [default: text]; the formats of the merged command (drift, health, bom or cabling).")
    @click.option("--output", type=click.Path(dir_okay=False), help="Write the merged report to FILE (atomically).")
    @guarded
    def merge_cmd(dirs: tuple[str, ...], intent: str | None, fmt: str | None, output: str | None) -> None:
        """Merge the result directories of sliced runs (`--slice K/N --results-dir DIR`, or the playbooks'
        per-job folders) into one fabric report, as the unsliced run writes it. DIR is a slice's directory or a
        folder holding them. A device of the intent that no slice reported is unknown. Health and cabling are
        judged again on the merged data (link partners, links whose ends were read by different slices, ECMP
        groups).

        Exit codes of the merged command: drift 0 in sync, 1 drift, 3 some device unknown; health 0, 1, 3;
        bom 0, 3; cabling 0 every link confirmed, 1 findings, 3 something not judged; 2 invalid input
        (overlapping or inconsistent slices)."""
        from roceconf import slices
        from roceconf.reports import formats_for, resolve_format, to_data

        try:
            merged = slices.merge(list(dirs), intent)
        except slices.SliceError as e:
            _fail(str(e))
        for note in merged.notes:
            click.echo(f"note: {note}", err=True)
        kind = merged.kind
        allowed = formats_for(kind) if kind != "bom" else ("text", "json", "yaml")
        fmt = fmt or ("text" if kind == "bom" else resolve_format(kind, None))
        if fmt not in allowed:
            _fail(f"--format {fmt}: the merged {kind} results are written as one of {', '.join(allowed)}")
        use_color = output is None and fmt == "text" and color()
        if kind == "drift":
            text = drift_text(merged.report, merged.fab, fmt, use_color)
        elif kind == "health":
            text = health_text(merged.report, merged.fab, fmt, use_color)
        elif kind == "cabling":
            from roceconf.cabling.report import format_report
            from roceconf.reports import html

            text = (html.render(html.cabling_map(merged.report, merged.fab)) if fmt == "html"
                    else format_report(merged.report, fmt))
        else:
            from roceconf.acceptance.bom import bom_text

            text = bom_text(merged.report) if fmt == "text" else to_data(merged.report, fmt)
        emit(text, output, use_color)
        sys.exit(merged.exit_code)


__all__ = ["SliceRun", "choose", "drift_text", "health_text", "register", "save", "slice_options"]
