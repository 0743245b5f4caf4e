"""Terminal capabilities, decided by rich (the one place): colour and live progress bars.

rich honours ``NO_COLOR`` (no colour), ``FORCE_COLOR`` (colour even when not a terminal, e.g. CI logs),
``TERM=dumb``/``unknown`` (no colour, no cursor movement) and whether the stream is a terminal at all.
"""

from __future__ import annotations

from typing import Any


def console(stderr: bool = False, file: Any = None, **kw: Any) -> Any:
    """A rich console on stdout (or stderr, or ``file``) that decides colour from the environment."""
    from rich.console import Console

    if file is not None:
        return Console(file=file, **kw)
    return Console(stderr=stderr, **kw)


def stdout_color(file: Any = None) -> bool:
    """Whether reports printed on ``file`` (default stdout) should carry colour."""
    con = console(file=file)
    return con.color_system is not None and not con.no_color


def interactive(stderr: bool = True) -> bool:
    """Whether a live progress bar can be drawn (a terminal that understands cursor movement)."""
    return bool(console(stderr=stderr).is_interactive)


__all__ = ["console", "interactive", "stdout_color"]
