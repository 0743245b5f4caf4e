"""`roceconf cabling`: the LLDP neighbours of every device compared with the intent's links (roceconf.cabling).

``register(main)`` adds the command to the `roceconf` group (this module never imports roceconf.cli, which also
runs as ``python -m roceconf.cli``).
"""

from __future__ import annotations

import sys

import click

from roceconf import cli_slices
from roceconf.cli_common import EXIT_INVALID, _emit, _format_option, error, guarded
from roceconf.cli_slices import slice_options


def register(main: click.Group) -> None:
    main.add_command(cabling)


@click.command()
@click.argument("intent", type=click.Path(dir_okay=False))
@click.option("--inventory", type=click.Path(), help="Ansible inventory of live devices (as for drift).")
@click.option("--lldp", "lldp_dir", type=click.Path(file_okay=False), help="Saved LLDP outputs: DIR/<device>.lldp.json.")
@click.option("--save-lldp", type=click.Path(file_okay=False), help="Also save every device's raw LLDP outputs (for --lldp).")
@click.option("--counters", "counters_dir", type=click.Path(file_okay=False),
              help="Link health from saved counter samples: DIR/<device>.counters.json (health's or cabling's --save-counters).")
@click.option("--interval", type=click.FloatRange(0, 3600, min_open=True), default=None,
              help="With --inventory: also sample the link counters --samples times this many seconds apart.")
@click.option("--samples", type=click.IntRange(2, 100), default=2, show_default=True,
              help="Samples of the link counters (with --interval).")
@click.option("--save-counters", type=click.Path(file_okay=False), help="Also save the sampled link counters (for --counters).")
@click.option("--health", "health_report", type=click.Path(dir_okay=False),
              help="A roceconf health JSON report to join into each link's verdict (needs link counters).")
@click.option("--drift", "drift_report", type=click.Path(dir_okay=False),
              help="A roceconf drift JSON report to join into each link's verdict (needs link counters).")
@click.option("--device", default=None, help="Read one device only.")
@slice_options
@_format_option("cabling")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to FILE (atomically; - for standard output).")
@click.option("--workers", type=click.IntRange(1, 256), default=8, show_default=True)
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True)
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True)
@guarded
def cabling(
    intent: str,
    inventory: str | None,
    lldp_dir: str | None,
    save_lldp: str | None,
    counters_dir: str | None,
    interval: float | None,
    samples: int,
    save_counters: str | None,
    health_report: str | None,
    drift_report: str | None,
    device: str | None,
    slice_spec: str | None,
    results_dir: str | None,
    fmt: str | None,
    output: str | None,
    workers: int,
    timeout: float,
    retries: int,
) -> None:
    """Cabling from LLDP: every intended link's two ends against the neighbours each device reports
    (missing, miswired, unexpected, crossed rails, NIC on the wrong leaf: RC500-RC505, docs/cabling.md).
    With link counters (--counters DIR, or --interval with --inventory): FCS errors, FEC, flaps, the speed, the
    optics against the module's thresholds and the FEC mode of both ends (RC510-RC517), ECMP balance (RC520) and
    one verdict per link, joining --health / --drift reports.

    Sliced (--slice K/N --results-dir DIR, AWX's rule as for drift and health): the slice reads its devices,
    judges the links that touch them from its side only and keeps their neighbours (and link counters) in
    DIR/sliceKofN/; `roceconf report merge` judges every link, unexpected neighbour and ECMP group again on
    the union of the slices.

    Exit 0 every link confirmed, 1 findings, 2 invalid input, 3 some device or link could not be judged."""
    from roceconf.cabling.collect import (
        cabling_live,
        cabling_offline,
        link_counters_live,
        link_counters_offline,
        with_links,
    )
    from roceconf.cabling.report import format_report
    from roceconf.compile import load_valid
    from roceconf.drift.collect import CollectError
    from roceconf.health.collect import plain_progress
    from roceconf.reports import resolve_format

    fmt = resolve_format("cabling", fmt)
    if (inventory is None) == (lldp_dir is None):
        click.echo("error: give exactly one of --inventory FILE or --lldp DIR", err=True)
        sys.exit(EXIT_INVALID)
    if save_lldp is not None and lldp_dir is not None:
        click.echo("error: --save-lldp saves a live read; drop it with --lldp", err=True)
        sys.exit(EXIT_INVALID)
    problem = None
    if counters_dir is not None and interval is not None:
        problem = "give --counters DIR (saved samples) or --interval (live samples), not both"
    elif interval is not None and inventory is None:
        problem = "--interval samples live devices: give --inventory FILE (offline: --counters DIR)"
    elif save_counters is not None and interval is None:
        problem = "--save-counters saves live samples: give --interval with --inventory"
    elif (health_report or drift_report) and counters_dir is None and interval is None:
        problem = "--health / --drift are joined into the link verdicts: give link counters (--counters or --interval)"
    if problem:
        click.echo(f"error: {problem}", err=True)
        sys.exit(EXIT_INVALID)
    if slice_spec is not None and (save_counters is not None or save_lldp is not None):
        click.echo("error: a slice keeps its neighbours and counters in its --results-dir; drop --save-lldp and "
                   "--save-counters", err=True)
        sys.exit(EXIT_INVALID)
    fab = load_valid(intent)
    sliced = cli_slices.choose(fab, slice_spec, results_dir, inventory, device)
    chosen: str | list[str] | None = sliced.devices if sliced is not None else device
    if sliced is not None and interval is not None:
        save_counters = str(sliced.folder / "counters")
    try:
        targets = None
        if lldp_dir is not None:
            report = cabling_offline(fab, lldp_dir, device=chosen)
        else:
            from roceconf.drift.collect import load_inventory

            targets = load_inventory(inventory)
            report = cabling_live(fab, inventory, targets=targets, device=chosen, workers=workers, timeout=timeout,
                                  retries=retries, save_dir=save_lldp, progress=plain_progress())
        names = [d.device for d in report.devices]
        if counters_dir is not None:
            snaps, unread = link_counters_offline(fab, counters_dir, names)
        elif interval is not None and targets is not None:
            snaps, unread = link_counters_live(fab, targets, names, samples=samples, interval=interval,
                                               workers=workers, timeout=timeout, retries=retries,
                                               save_dir=save_counters)
        if counters_dir is not None or interval is not None:
            report = with_links(report, fab, snaps, unread, health=health_report, drift=drift_report)
    except CollectError as e:
        error(e)
        sys.exit(EXIT_INVALID)
    if sliced is not None:
        _save_slice(sliced, report, counters_dir, health_report, drift_report)
    if fmt == "html":
        from roceconf.reports import html

        _emit(html.render(html.cabling_map(report, fab)), output)
    else:
        _emit(format_report(report, fmt), output)
    sys.exit(report.exit_code)


def _save_slice(sliced: cli_slices.SliceRun, report: object, counters_dir: str | None, health: str | None,
                drift: str | None) -> None:
    """The slice's result directory: ``cabling.json`` (its devices' neighbours; the merge judges every link again
    from them), the raw link counters it judged under ``counters/`` (an offline run copies them; a live run
    saved them there) and, in ``slice.json``, the reports it joined (absolute paths: the merge joins them)."""
    from pathlib import Path

    from roceconf.cabling.report import to_json

    link = getattr(report, "link", None)
    if counters_dir is not None and link is not None:
        from roceconf.health.collect import SAVED_SUFFIX
        from roceconf.outdir import write_outputs

        files = {}
        for d in getattr(report, "devices", []):
            name = d.device + SAVED_SUFFIX
            if d.device not in link.unread and (Path(counters_dir) / name).is_file():
                files[name] = (Path(counters_dir) / name).read_text(encoding="utf-8")
        if files:
            write_outputs(files, sliced.folder / "counters", private=True)
    joined = {k: str(Path(v).resolve()) for k, v in (("health", health), ("drift", drift)) if v is not None}
    cli_slices.save(sliced, "cabling", to_json(report), extra={"joined": joined} if joined else None)
