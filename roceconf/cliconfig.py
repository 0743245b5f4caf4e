"""Settings for the command line from a file: ``roceconf.toml`` or ``[tool.roceconf]`` in ``pyproject.toml``.

Looked up in the working directory (or given with ``--config FILE`` / ``ROCECONF_CONFIG``). Top-level keys
set the options every command shares (``verbose``, ``debug``, ``session-log``); one table per command sets
that command's options, named as on the command line (dashes or underscores)::

    session-log = "logs/roceconf"

    [validate]
    strict = true

    [drift]
    workers = 16
    timeout = 20
    format = "junit"

Precedence, highest first: the command line, ``ROCECONF_<COMMAND>_<OPTION>`` environment variables
(``ROCECONF_DRIFT_WORKERS=16``; shared options ``ROCECONF_<OPTION>``), this file, the built-in default. A key
that names no command or option is an error (exit 2), never ignored.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import click

FILE_NAMES = ("roceconf.toml", "pyproject.toml")


class ConfigError(Exception):
    """The settings file cannot be read or names an unknown command or option; the message says where."""


def find(cwd: str | Path | None = None) -> Path | None:
    """``roceconf.toml`` in ``cwd``, else ``pyproject.toml`` there if it has a ``[tool.roceconf]`` table."""
    d = Path(cwd or Path.cwd())
    own = d / "roceconf.toml"
    if own.is_file():
        return own
    py = d / "pyproject.toml"
    if py.is_file():
        try:
            raw = py.read_bytes()
            data = tomllib.loads(raw.decode("utf-8"))
        except OSError:
            return None  # a pyproject.toml we cannot read is not ours to complain about
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            # ... unless it has our table: then its error is ours to report (read() names it)
            return py if b"[tool.roceconf" in raw else None
        if isinstance(data.get("tool"), dict) and "roceconf" in data["tool"]:
            return py
    return None


def read(path: str | Path) -> tuple[dict[str, Any], str]:
    """The roceconf settings table of ``path`` and a label naming where it came from."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
    if p.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("roceconf", {}) if isinstance(tool, dict) else None
        label = f"{p} [tool.roceconf]"
    else:
        table, label = data, str(p)
    if not isinstance(table, dict):
        raise ConfigError(f"{label}: must be a table")
    return table, label


def _params(cmd: click.Command) -> dict[str, click.Parameter]:
    """Option names as written in a settings file (``save-configs``, ``save_configs``) -> parameter."""
    out: dict[str, click.Parameter] = {}
    for p in cmd.params:
        if not isinstance(p, click.Option) or p.name is None or p.name in ("help",):
            continue
        if getattr(p, "is_eager", False) and not p.expose_value:
            continue  # --version and the like
        out[p.name] = p
        out[p.name.replace("_", "-")] = p
        for opt in p.opts:
            if opt.startswith("--"):
                out[opt[2:]] = p
                out[opt[2:].replace("-", "_")] = p
    return out


def long_name(p: click.Parameter) -> str:
    """The option as written on the command line without dashes (``format`` for ``--format``)."""
    longs = [o[2:] for o in getattr(p, "opts", []) if o.startswith("--")]
    return longs[0] if longs else str(p.name)


def envvar(command: str | None, p: click.Parameter) -> str:
    """``ROCECONF_<COMMAND>_<OPTION>`` (``ROCECONF_<OPTION>`` for the shared options)."""
    parts = ["ROCECONF", *([command] if command else []), long_name(p)]
    return "_".join(x.upper().replace("-", "_") for x in parts)


def _known(params: dict[str, click.Parameter]) -> str:
    return ", ".join(sorted({long_name(q) for q in params.values()}))


def default_map(group: click.Group, table: dict[str, Any], label: str) -> tuple[dict, dict]:
    """(values for the group's own options, click ``default_map`` for the commands) from a settings table."""
    shared = _params(group)
    top: dict[str, Any] = {}
    commands: dict[str, dict[str, Any]] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            cmd = group.commands.get(key)
            if cmd is None:
                known = ", ".join(sorted(group.commands))
                raise ConfigError(f"{label}: [{key}] is not a roceconf command (known: {known})")
            params = _params(cmd)
            section: dict[str, Any] = {}
            for k, v in value.items():
                p = params.get(k)
                if p is None:
                    raise ConfigError(
                        f"{label}: [{key}] {k}: no such option of `roceconf {key}` ({_known(params)})"
                    )
                section[p.name] = _checked(p, v, f"{label}: [{key}] {k}")  # type: ignore[index]
            commands[key] = section
        else:
            p = shared.get(key)
            if p is None:
                raise ConfigError(
                    f"{label}: {key}: not a shared option ({_known(shared)}); "
                    "command options go in a [command] table"
                )
            top[p.name] = _checked(p, value, f"{label}: {key}")  # type: ignore[index]
    return top, commands


#: options that weaken security when set, and what they do; set from a settings file or an environment
#: variable (a repository's pyproject.toml, a CI variable) they are named on stderr with where they came from
WEAKENING = {
    "no_verify_tls": "eAPI HTTPS certificates are not verified",
    "ca_file": "eAPI HTTPS certificates signed by this CA bundle are trusted",
}


def weakening(ctx: click.Context, settings: str | None) -> list[str]:
    """One warning per security-weakening option of the running command that a settings file (``settings``,
    its label) or an environment variable set; the command line needs none (the user typed it)."""
    src = click.core.ParameterSource
    out = []
    for p in ctx.command.params:
        if p.name not in WEAKENING or not ctx.params.get(p.name):
            continue
        where = ctx.get_parameter_source(p.name)
        if where == src.DEFAULT_MAP:
            origin = settings or "the settings file"
        elif where == src.ENVIRONMENT:
            origin = f"the environment variable {envvar(ctx.info_name, p)}"
        else:
            continue
        out.append(f"{long_name(p)} = {ctx.params[p.name]!r} set by {origin}: {WEAKENING[p.name]}")
    return out


def _checked(p: click.Parameter, value: Any, where: str) -> Any:
    """A settings value converted as the option's own type would convert it; ConfigError naming the key."""
    if getattr(p, "multiple", False) or p.nargs != 1:
        return value
    if isinstance(value, dict | list):
        raise ConfigError(f"{where}: a single value is expected, not a {'table' if isinstance(value, dict) else 'list'}")
    if isinstance(p.type, click.Path) and not isinstance(value, str):
        raise ConfigError(f"{where}: a path (a string) is expected, not {value!r}")
    try:
        return p.type.convert(value, p, None)
    except click.BadParameter as e:
        raise ConfigError(f"{where}: {e.message}") from None


__all__ = ["ConfigError", "FILE_NAMES", "WEAKENING", "default_map", "envvar", "find", "long_name", "read", "weakening"]
