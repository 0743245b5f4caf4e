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
    device: str | None,
    fmt: str | None,
    output: str | None,
    workers: int,
    timeout: float,
    retries: int,
) -> None:
    """Cabling from LLDP: every intended link's two ends against the neighbours each device reports
    (missing, miswired, unexpected, crossed rails, NIC on the wrong leaf: RC500-RC505, docs/cabling.md).

    Exit 0 every link confirmed, 1 findings, 2 invalid input, 3 some device or link could not be judged."""
    from roceconf.cabling.collect import cabling_live, cabling_offline
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
    fab = load_valid(intent)
    try:
        if lldp_dir is not None:
            report = cabling_offline(fab, lldp_dir, device=device)
        else:
            report = cabling_live(fab, inventory, device=device, workers=workers, timeout=timeout, retries=retries,
                                  save_dir=save_lldp, progress=plain_progress())
    except CollectError as e:
        error(e)
        sys.exit(EXIT_INVALID)
    _emit(format_report(report, fmt), output)
    sys.exit(report.exit_code)
