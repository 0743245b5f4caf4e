"""Files the commands read at run time - templates, JSON Schemas, the example (lab) intent - wherever
roceconf runs from.

The top-level ``templates/``, ``schemas/`` and ``inventories/lab/intent.yml`` of the repository are the
source of truth. A wheel or sdist build copies them into the package (``roceconf/_data/``, see ``setup.py``),
so an installed roceconf finds them next to its code; a checkout (or an editable install) uses the
repository's own files. ``ROCECONF_TEMPLATES`` points the renderer at another template tree.

A missing file is a :class:`MissingResource` (an ``OSError``: the CLI prints one line and exits 2), never
an empty result.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: Where the build puts the copies (absent in a checkout).
PACKAGED = PACKAGE_DIR / "_data"
#: The repository root when running from a checkout.
CHECKOUT = PACKAGE_DIR.parent

#: resource name -> path in the repository (the source of truth); the build copies it to _data/<name>.
SOURCES: dict[str, str] = {
    "templates": "templates",
    "schemas": "schemas",
    "examples/lab/intent.yml": "inventories/lab/intent.yml",
}


class MissingResource(FileNotFoundError):
    """A file roceconf ships with is not where it should be (a broken installation or template tree)."""

    def __init__(self, what: str, path: Path | str, hint: str = ""):
        msg = f"{what} not found" + (f" ({hint})" if hint else "")
        super().__init__(errno.ENOENT, msg, str(path))


def resource(name: str) -> Path:
    """The path of a shipped resource (``templates``, ``schemas``, ``examples/lab/intent.yml``)."""
    if name not in SOURCES:
        raise KeyError(name)
    packaged = PACKAGED / name
    if packaged.exists():
        return packaged
    checkout = CHECKOUT / SOURCES[name]
    if checkout.exists():
        return checkout
    raise MissingResource(
        f"roceconf's {name}",
        packaged,
        "the installation is incomplete: reinstall roceconf from a wheel or an sdist",
    )


def template_root() -> Path:
    """The template tree: ``ROCECONF_TEMPLATES`` if set, else the shipped ``templates/``."""
    env = os.environ.get("ROCECONF_TEMPLATES")
    if env:
        root = Path(env)
        if not root.is_dir():
            raise MissingResource("template directory", root, "ROCECONF_TEMPLATES names no directory")
        return root
    return resource("templates")


def schema_path(name: str) -> Path:
    """A shipped JSON Schema, e.g. ``intent.schema.json``."""
    p = resource("schemas") / name
    if not p.is_file():
        raise MissingResource(f"JSON Schema {name}", p)
    return p


def example_intent() -> Path:
    """The lab fabric's intent (what ``roceconf demo`` renders and audits)."""
    return resource("examples/lab/intent.yml")
