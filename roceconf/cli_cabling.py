"""`roceconf cabling`: the LLDP neighbours of every device compared with the intent's links (roceconf.cabling).

``register(main)`` adds the command to the `roceconf` group (this module never imports roceconf.cli, which also
runs as ``python -m roceconf.cli``).
"""

from __future__ import annotations

import sys

import click

from roceconf.cli_common import EXIT_INVALID, _emit, _format_option, error, guarded


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
    fmt: str | None,
    output: str | None,
    workers: int,
    timeout: float,
    retries: int,
) -> None:
    """Cabling from LLDP: every intended link's two ends against the neighbours each device reports
    (missing, miswired, unexpected, crossed rails, NIC on the wrong leaf: RC500-RC505, docs/cabling.md).
    With link counters (--counters DIR, or --interval with --inventory): FCS errors, FEC and flaps of both
    ends (RC510-RC512), ECMP balance (RC520) and one verdict per link, joining --health / --drift reports.

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
    fab = load_valid(intent)
    try:
        targets = None
        if lldp_dir is not None:
            report = cabling_offline(fab, lldp_dir, device=device)
        else:
            from roceconf.drift.collect import load_inventory

            targets = load_inventory(inventory)
            report = cabling_live(fab, inventory, targets=targets, device=device, workers=workers, timeout=timeout,
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
    if fmt == "html":
        from roceconf.reports import html

        _emit(html.render(html.cabling_map(report, fab)), output)
    else:
        _emit(format_report(report, fmt), output)
    sys.exit(report.exit_code)
