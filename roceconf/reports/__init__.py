"""Report formats shared by every command: one ``--format`` vocabulary, one way to write a report.

The vocabulary is ``text json yaml junit markdown sarif github``; :data:`COMMAND_FORMATS` says which
command writes which (docs/cli.md has the table). Without ``--format`` a command writes its default, except
under GitHub Actions (``GITHUB_ACTIONS=true``), where the commands that can write workflow annotations do.
The formatters live beside this module: :mod:`.sarif`, :mod:`.github`, :mod:`.junit`, :mod:`.markdown`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: every format name any command accepts, in the order the help lists them
FORMATS = ("text", "json", "yaml", "junit", "markdown", "sarif", "github", "prometheus", "shell", "html")

#: commands whose result is a list of positioned findings (validate, check)
_FINDINGS = ("text", "json", "yaml", "junit", "markdown", "sarif", "github")
#: command -> formats it writes; the first is the default
COMMAND_FORMATS: dict[str, tuple[str, ...]] = {
    "validate": _FINDINGS,
    "check": (*_FINDINGS, "html"),
    "plan": ("text", "json", "yaml", "junit", "markdown", "github", "html"),
    "drift": ("text", "json", "yaml", "junit", "markdown", "html"),
    "health": ("text", "json", "yaml", "junit", "markdown", "prometheus", "html"),
    "cabling": ("text", "json", "junit", "markdown", "prometheus", "html"),
    "demo": ("text", "json", "yaml", "junit", "markdown"),
    "headroom": ("text", "json", "yaml"),
    "expand": ("yaml", "json"),
    "parse": ("json", "yaml"),
    "acceptance plan": ("text", "json", "yaml", "markdown", "shell"),
    "acceptance verdict": ("text", "json", "yaml", "junit", "markdown"),
    "bom": ("json", "yaml", "text"),
}


def formats_for(command: str) -> tuple[str, ...]:
    return COMMAND_FORMATS[command]


def resolve_format(command: str, given: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The format to write: the one given, else ``github`` under GitHub Actions where the command has it,
    else the command's default."""
    if given:
        return given
    env = os.environ if environ is None else environ
    choices = COMMAND_FORMATS[command]
    if env.get("GITHUB_ACTIONS") == "true" and "github" in choices:
        return "github"
    return choices[0]


def to_yaml(data: Any) -> str:
    """Block-style YAML with keys in the order given (the JSON document of a report, as YAML)."""
    import io

    from ruamel.yaml import YAML

    y = YAML(typ="safe", pure=True)
    y.default_flow_style = False
    y.sort_base_mapping_type_on_output = False  # type: ignore[attr-defined]
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def to_data(data: Any, fmt: str) -> str:
    """``data`` as JSON (indented) or YAML."""
    if fmt == "yaml":
        return to_yaml(data)
    from roceconf.reports.escape import dumps

    return dumps(data, indent=2, default=str) + "\n"


def write_report(text: str, output: str | Path) -> Path:
    """Write a report file atomically (temp file + rename): a reader never sees half a report."""
    from roceconf.outdir import write_outputs

    out = Path(output)
    write_outputs({out.name: text}, out.parent if str(out.parent) else ".")
    return out


def relative_path(file: str, base: str | Path | None = None) -> str:
    """``file`` relative to ``base`` (default: the working directory) with ``/`` separators, as code scanning
    and workflow annotations expect; a file outside ``base`` keeps its absolute path."""
    b = Path(base or os.getcwd()).resolve()
    p = Path(file)
    absolute = (p if p.is_absolute() else Path.cwd() / p).resolve()
    try:
        return absolute.relative_to(b).as_posix()
    except ValueError:
        return absolute.as_posix()


def relative_uri(file: str, base: str | Path | None = None) -> str:
    """:func:`relative_path` as a URI reference (percent-encoded); outside ``base`` an absolute file URI."""
    from urllib.parse import quote

    rel = relative_path(file, base)
    return Path(rel).as_uri() if rel.startswith("/") else quote(rel)


__all__ = [
    "COMMAND_FORMATS",
    "FORMATS",
    "formats_for",
    "relative_path",
    "relative_uri",
    "resolve_format",
    "to_data",
    "to_yaml",
    "write_report",
]
