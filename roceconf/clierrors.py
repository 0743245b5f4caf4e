"""Where the command line ends on bad input: one place, used by every command (``guarded``) and by the
group's own options (settings file, ``--session-log``).

Bad input is a ``DiagnosticError`` (compiler-style lines), a ``BadInput`` (a file or argument that cannot be
used: one line naming the file, line and field) or an ``OSError`` (a path that cannot be read or written):
``error: ...`` on stderr and exit 2, never a traceback. Any other exception is a bug of roceconf and is not
caught here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn

import click

from roceconf.diagnostics import BadInput, Diagnostic, DiagnosticError
from roceconf.reports import escape

EXIT_OK, EXIT_FINDINGS, EXIT_INVALID, EXIT_UNKNOWN = 0, 1, 2, 3


def echo_diagnostics(diags: list[Diagnostic], err: bool = True) -> None:
    from roceconf.diagnostics import capped

    for d in capped(diags):
        click.echo(escape.diagnostic(d), err=err)


def error(message: object) -> None:
    """``error: MESSAGE`` on stderr, on one line whatever the message quotes (roceconf.reports.escape)."""
    click.echo(f"error: {escape.plain(message)}", err=True)


def bad_input(message: str) -> NoReturn:
    """The one way a command ends on bad input: ``error: MESSAGE`` (one line naming the file, line and field)
    on stderr, exit 2."""
    error(message)
    sys.exit(EXIT_INVALID)


def warn_weakening() -> None:
    """On stderr, each security-weakening option of the running command set by a settings file or variable."""
    from roceconf.cliconfig import weakening

    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        for w in weakening(ctx, (ctx.find_root().obj or {}).get("settings")):
            click.echo(f"warning: {escape.plain(w)}", err=True)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Where bad input ends a command: DiagnosticError as compiler-style messages, BadInput (a file or
    argument that cannot be used) and OSError (a path that cannot be read or written) as one line; exit 2.
    Never a traceback for bad input; any other exception is a bug of roceconf and propagates."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            warn_weakening()
            return fn(*args, **kwargs)
        except DiagnosticError as e:
            echo_diagnostics(e.diagnostics)
            n = sum(1 for d in e.diagnostics if d.severity == "error")
            click.echo(f"{n} error(s)", err=True)
            sys.exit(EXIT_INVALID)
        except BadInput as e:
            bad_input(str(e))
        except BrokenPipeError:  # `roceconf ... | head`: the reader left; not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_OK)
        except OSError as e:
            bad_input(os_error_text(e))

    return wrapper


def os_error_text(e: OSError, what: str = "") -> str:
    """``[WHAT ]FILE: reason`` of an OSError (the file it names, else WHAT alone)."""
    where = f"{e.filename}: " if e.filename else ""
    return f"{what + ' ' if what else ''}{where}{e.strerror or e}"


__all__ = [
    "EXIT_FINDINGS",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "bad_input",
    "echo_diagnostics",
    "error",
    "guarded",
    "os_error_text",
    "warn_weakening",
]
