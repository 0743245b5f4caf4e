"""Input guards: the name grammar, file paths the intent reads, and resource limits (rules RC014-RC027).

The rule table is registered by ``roceconf.intent.rules`` so ``docs/rules.md`` lists every ID.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from roceconf import limits

#: (id, severity, title, hint, why)
HARDENING_RULES: list[tuple[str, str, str, str, str]] = [
    (
        "RC014",
        "error",
        "Bad device name",
        "letters, digits, '-', '_' and single '.', starting with a letter or digit (at most 63)",
        "device names become file names and host names: a '/' or '..' could write outside the output "
        "directory, a space or quote could inject commands",
    ),
    (
        "RC015",
        "error",
        "Interface name does not follow the platform's syntax",
        "use the platform's interface names (see the message); hosts: Linux netdev names (at most 15)",
        "the name is pasted into switch CLI and host scripts: 'eth0 down' or 'Ethernet1/1 - Ethernet1/9' "
        "would be read as extra arguments or a range",
    ),
    (
        "RC016",
        "error",
        "Bad RDMA device name",
        "RDMA device names look like mlx5_0, bnxt_re0, rocep65s0f0 (at most 63)",
        "the name is used in host scripts and sysfs paths",
    ),
    (
        "RC017",
        "error",
        "Bad profile, role, class or fabric name",
        "a letter first, then letters, digits, '_' and '-' (at most 63)",
        "names appear in messages, plans and generated objects",
    ),
    (
        "RC018",
        "error",
        "File outside the intent's directory",
        "keep cabling and ASIC tables beside the intent, or set ROCECONF_ALLOW_PATHS to allow a directory",
        "an intent could read any file on the machine (/etc/passwd, ../secret.env) and echo it in errors",
    ),
    (
        "RC019",
        "error",
        "File too large",
        f"intents are at most {limits.MAX_YAML_BYTES // 2**20} MiB, cabling tables "
        f"{limits.MAX_SIDE_FILE_BYTES // 2**20} MiB, ASIC tables {limits.MAX_ASIC_TABLE_BYTES // 2**20} MiB",
        "reading it would take unbounded time and memory",
    ),
    (
        "RC020",
        "error",
        "YAML aliases expand too far",
        f"aliases (*name) may repeat at most {limits.MAX_ALIAS_NODES} values; write the values out",
        "a few lines of anchors and aliases can expand to billions of values (an alias bomb)",
    ),
    (
        "RC021",
        "error",
        "YAML nested too deeply",
        f"at most {limits.MAX_DEPTH} levels of mappings and lists",
        "deep nesting exhausts the parser's stack",
    ),
    (
        "RC022",
        "error",
        "Range or pattern too large",
        f"at most {limits.MAX_DEVICES} devices, {limits.MAX_PORTS} interfaces per device (RC026: the "
        "whole fabric)",
        "a typo such as Ethernet1/1-999999 would exhaust memory",
    ),
    (
        "RC026",
        "error",
        "Fabric too large once expanded",
        f"at most {limits.MAX_INTERFACES} interfaces of all devices together and {limits.MAX_LINKS} links; "
        f"split the fabric, or raise the limits with {limits.SIZE_ENV['interfaces']}=N / "
        f"{limits.SIZE_ENV['links']}=N",
        "a short intent within every other limit (65,536 devices x 4,096 interfaces) expands to 268 M "
        "interfaces: minutes of checks and hundreds of GB of configs; the size is checked before expanding",
    ),
    (
        "RC023",
        "info",
        "More diagnostics of one rule than shown",
        "`roceconf validate --format json` lists all of them",
        "hundreds of copies of one message hide the others",
    ),
    (
        "RC025",
        "info",
        "A roceconf default the platform's config cannot state",
        "state the value in the intent to be warned (RC150) wherever it cannot be configured",
        "defaults adapt to each platform: the device keeps its own default there; values the intent states "
        "are never dropped silently (RC150)",
    ),
    (
        "RC024",
        "error",
        "Bad ASIC table value",
        "buffer sizes and cell sizes are positive integers (bytes)",
        "headroom cannot be computed from a negative or zero size",
    ),
]

#: Environment variable: extra directories (os.pathsep separated) the intent may read files from.
ALLOW_ENV = "ROCECONF_ALLOW_PATHS"


def confine(intent_file: str | Path, rel: str) -> tuple[Path | None, str]:
    """Resolve a path the intent names (relative to the intent's directory) and refuse it when it leaves
    that directory (or the git work tree the intent is in) and no allowed directory holds it.

    Returns (resolved path, "") or (None, reason)."""
    if "\0" in rel:
        return None, f"{rel!r} has a NUL byte (no file name can)"
    base = Path(intent_file).resolve().parent
    target = (base / rel).resolve()
    roots = [_repository_root(base) or base]
    roots += [Path(p).resolve() for p in os.environ.get(ALLOW_ENV, "").split(os.pathsep) if p]
    if any(target == r or r in target.parents for r in roots):
        return target, ""
    return None, f"{rel!r} resolves outside {roots[0]} (allowed: the intent's directory or repository)"


def _repository_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def read_side_file(path: Path, max_bytes: int = limits.MAX_SIDE_FILE_BYTES) -> str:
    """Read a file the intent names: size-limited (checked before a byte is read), UTF-8 (BOM accepted).
    Raises OSError / ValueError with a one-line reason."""
    from roceconf.inputfile import InputFileError, read_text

    try:
        return read_text(path, max_bytes)
    except InputFileError as e:
        raise ValueError(e.reason) from None


#: Numeric fields of an ASIC table row (roceconf/data/asics.yaml): positive numbers or null.
ASIC_NUMBERS = (
    "buffer_bytes",
    "cell_bytes",
    "max_lossless_priorities",
    "pipeline_latency_bytes",
    "mac_phy_delay_bytes",
    "peer_response_bytes",
)


def load_asic_table(path: str | Path) -> dict:
    """Read an ``--asic-table`` file: a YAML mapping of ASIC name -> mapping of buffer facts. Raises
    DiagnosticError with one line per problem (values quoted short, the file never echoed)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from roceconf.diagnostics import Diagnostic, DiagnosticError
    from roceconf.names import excerpt

    file = str(path)

    def fail(code: str, message: str, line: int = 1) -> DiagnosticError:
        return DiagnosticError([Diagnostic(file, line, 1, "error", code, message, "")])

    try:
        text = read_side_file(Path(path), limits.MAX_ASIC_TABLE_BYTES)
    except OSError as e:
        raise fail("RC000", f"cannot read the ASIC table: {e.strerror or e}") from None
    except ValueError as e:
        raise fail("RC019" if "limit" in str(e) else "RC000", f"cannot read the ASIC table: {e}") from None
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = " ".join(str(getattr(e, "problem", None) or "invalid YAML").split())
        raise fail(
            "RC001", f"ASIC table is not valid YAML: {problem[:120]}", mark.line + 1 if mark else 1
        ) from None
    except RecursionError:
        raise fail("RC021", "ASIC table nested too deeply") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise fail("RC004", "the ASIC table must map ASIC names to mappings")
    problems = []
    for asic, row in data.items():
        for k in ASIC_NUMBERS:
            v = row.get(k)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
                problems.append(
                    Diagnostic(
                        file,
                        1,
                        1,
                        "error",
                        "RC024",
                        f"{excerpt(asic, 40)[1:-1]}.{k} must be a positive finite number (got {excerpt(v, 20)[1:-1]})",
                        "",
                    )
                )
    if problems:
        raise DiagnosticError(problems)
    return data
