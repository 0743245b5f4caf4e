"""``roceconf --version``: roceconf's version, the versions of the libraries that talk to devices, and the
platforms it compiles for."""

from __future__ import annotations

import sys
from typing import Any

import click

from roceconf import __version__

#: Distributions whose versions matter when reporting a problem with a device.
COMPONENTS = ("napalm", "netmiko", "ansible-core")


def version_text() -> str:
    from importlib import metadata  # only for --version: importing it costs every command ~70 ms

    from roceconf import platforms

    lines = [f"roceconf {__version__}"]
    for dist in COMPONENTS:
        try:
            lines.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{dist} not installed")
    lines.append(f"python {sys.version.split()[0]}")
    lines.append(f"switch platforms: {', '.join(platforms.SWITCHES)}")
    lines.append(f"host NIC platforms: {', '.join(platforms.NICS)}")
    return "\n".join(lines)


def _show(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_text())
    ctx.exit()


def version_option() -> Any:
    """The ``--version`` option of the command group."""
    return click.option(
        "--version",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_show,
        help="Show the versions of roceconf, napalm, netmiko, ansible-core and the platforms, and exit.",
    )
