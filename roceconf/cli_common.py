"""What the commands of ``roceconf`` share: exit codes, the --format / --output options, output, colour,
the guard that turns bad input into one line and exit 2, the group that closes the session log, and the
audit progress bar."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from roceconf.diagnostics import Diagnostic, DiagnosticError

EXIT_OK, EXIT_FINDINGS, EXIT_INVALID, EXIT_UNKNOWN = 0, 1, 2, 3


def _echo_diags(diags: list[Diagnostic], err: bool = True) -> None:
    from roceconf.diagnostics import capped

    for d in capped(diags):
        click.echo(d.format(), err=err)


def _format_option(command: str) -> Callable[..., Any]:
    """--format with the command's share of the one vocabulary (roceconf.reports.COMMAND_FORMATS)."""
    from roceconf.reports import formats_for

    choices = formats_for(command)
    auto = " (github when GITHUB_ACTIONS=true)" if "github" in choices else ""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=None,
        help=f"Output format [default: {choices[0]}{auto}].",
    )


def _output_option(what: str = "report") -> Callable[..., Any]:
    return click.option(
        "--output", type=click.Path(dir_okay=False), help=f"Write the {what} to FILE (atomically)."
    )


def _color() -> bool:
    """Colour on stdout as rich decides it (NO_COLOR, FORCE_COLOR, TERM=dumb, not a terminal)."""
    from roceconf.reports.term import stdout_color

    return stdout_color()


def _emit(text: str, output: str | None, color: bool = False) -> None:
    """Print a report, or write it to --output FILE atomically (and say so on stderr)."""
    if output:
        from roceconf.reports import write_report

        write_report(text, output)
        click.echo(f"wrote {output}", err=True)
    else:
        # click strips escape sequences from what goes to no terminal, with a regex over the whole text:
        # a report without any (JSON, YAML, ... escape them) has nothing to strip
        click.echo(text, nl=False, color=True if color or "\x1b" not in text else None)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn DiagnosticError into compiler-style messages + exit 2; never show a traceback for bad input."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DiagnosticError as e:
            _echo_diags(e.diagnostics)
            n = sum(1 for d in e.diagnostics if d.severity == "error")
            click.echo(f"{n} error(s)", err=True)
            sys.exit(EXIT_INVALID)
        except BrokenPipeError:  # `roceconf ... | head`: the reader left; not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_OK)
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            click.echo(f"error: {where}{e.strerror or e}", err=True)
            sys.exit(EXIT_INVALID)

    return wrapper


class _Group(click.Group):
    """Closes the session log with the exit code, however the command ends."""

    def invoke(self, ctx: click.Context) -> Any:
        code: int | str | None = 0
        try:
            return super().invoke(ctx)
        except SystemExit as e:
            code = e.code
            raise
        except click.exceptions.Exit as e:
            code = e.exit_code
            raise
        except BaseException as e:
            code = type(e).__name__
            raise
        finally:
            session = (ctx.obj or {}).get("session") if isinstance(ctx.obj, dict) else None
            if session is not None:
                session.finish(code)


class _progress:
    """A rich progress bar on an interactive terminal (rich decides); plain lines on stderr otherwise."""

    def __enter__(self) -> Callable[..., None]:
        from roceconf.drift.audit import plain_progress
        from roceconf.reports.term import console, interactive

        self.bar = None
        if interactive(stderr=True):
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("auditing"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                transient=True,
                console=console(stderr=True),
            )
            self.bar.start()
            self.task = self.bar.add_task("", total=None)

            def cb(r: Any, i: int, n: int) -> None:
                self.bar.update(self.task, completed=i, total=n, description=f"{r.device}: {r.status}")

            return cb
        return plain_progress()

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
