"""The layering of roceconf/ (docs/architecture.md, "Layers"): every import, at the top of a module or inside a
function, goes to the same layer or a lower one, and no two top-level units import each other.

A top-level unit is ``roceconf.X`` (a module or a package with everything below it). A new unit must be placed
in :data:`LAYERS` before it can be imported at all.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "roceconf"

#: The layers, lowest first. A unit may import units of its own layer and of the layers below it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "roceconf",  # the package itself: __version__
            "cliconfig",
            "counters",
            "diagnostics",
            "forkmap",
            "gcpolicy",
            "inputfile",
            "jsontext",
            "limits",
            "names",
            "neighbors",
            "outdir",
            "redact",
            "resources",
            "sessionlog",
            "state",
            "tplcache",
            "transport",
            "units",
            "yamlsrc",
            "yangtext",
        ),
    ),
    ("platforms", ("platforms",)),
    ("render", ("render", "inventory", "lab", "about")),
    ("intent", ("intent", "desired")),
    ("reports", ("reports", "compile")),
    ("readers", ("drift", "plan")),
    ("audits", ("health", "cabling", "fabric", "acceptance", "apply", "demo", "slices")),
    ("commands", ("findings", "docgen", "clierrors", "cli_common", "cli_acceptance", "cli_slices", "cli_cabling", "cli")),
]

#: What the platform drivers must never reach, not even inside a function.
ABOVE_PLATFORMS = ("health", "cabling", "drift", "fabric", "reports", "acceptance", "plan", "apply", "lab", "cli", "compile")


def layer_of() -> dict[str, int]:
    out: dict[str, int] = {}
    for i, (_name, units) in enumerate(LAYERS):
        for u in units:
            out[u] = i
    return out


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under ``root`` (a roceconf/ directory)."""
    out: dict[str, Path] = {}
    for p in sorted(root.rglob("*.py")):
        parts = ["roceconf", *p.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def unit(module: str) -> str:
    """``roceconf.health.model`` -> ``health``; ``roceconf`` -> ``roceconf``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "roceconf"


def imports(root: Path) -> list[tuple[str, int, str]]:
    """(module, line, imported module) for every import of a roceconf module anywhere in roceconf/ (top level,
    inside functions and ``if TYPE_CHECKING`` blocks; relative imports resolved)."""
    mods = modules(root)

    def resolve(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    out: list[tuple[str, int, str]] = []
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                # ``from roceconf import platforms`` imports roceconf.platforms, not the package alone
                names = [f"{base}.{a.name}" if resolve(f"{base}.{a.name}") != resolve(base) else base for a in node.names]
            for n in names:
                target = resolve(n)
                if target.startswith("roceconf") and target != mod:
                    out.append((mod, node.lineno, target))
    return out


def violations(root: Path) -> list[str]:
    """Every import that breaks the layering: upward, into an unplaced unit, or one half of a unit cycle."""
    layer = layer_of()
    bad: list[str] = []
    edges: dict[tuple[str, str], str] = {}
    for mod, line, target in imports(root):
        a, b = unit(mod), unit(target)
        where = f"{mod}:{line} imports {target}"
        for u in (a, b):
            if u not in layer:
                bad.append(f"{where}: unit {u!r} is in no layer of tests/test_layers.py LAYERS")
        if a == b or a not in layer or b not in layer:
            continue
        edges.setdefault((a, b), where)
        if layer[b] > layer[a]:
            bad.append(f"{where}: layer {LAYERS[layer[a]][0]} imports the higher layer {LAYERS[layer[b]][0]}")
        if a == "platforms" and b in ABOVE_PLATFORMS:
            bad.append(f"{where}: the platforms import nothing from {b}")
    for (a, b), where in sorted(edges.items()):
        if a < b and (b, a) in edges:
            bad.append(f"units {a} and {b} import each other: {where}; {edges[(b, a)]}")
    return sorted(set(bad))


def test_every_import_follows_the_layers() -> None:
    assert violations(ROOT) == []


def test_every_unit_is_placed_once() -> None:
    placed = [u for _name, units in LAYERS for u in units]
    assert len(placed) == len(set(placed))
    assert {unit(m) for m in modules(ROOT)} == set(placed)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("platforms/x.py", "from roceconf.health import model\n"),
        ("platforms/x.py", "def f():\n    from roceconf import render\n"),
        ("names.py", "def f():\n    from roceconf import platforms\n"),
        ("state.py", "import roceconf.counters\n"),
    ],
)
def test_the_check_sees_an_import_up_or_across(tmp_path: Path, source: str, message: str) -> None:
    """Each import here is planted into a tree of four units and must be reported."""
    root = tmp_path / "roceconf"
    for f in ("__init__.py", "state.py", "names.py", "counters/__init__.py", "platforms/__init__.py",
              "render.py", "health/__init__.py", "health/model.py"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    (root / "counters/__init__.py").write_text("from roceconf import state\n")
    (root / "platforms/x.py").write_text("")
    (root / source).write_text(message)
    assert violations(root) != []
    (root / source).write_text("")
    assert violations(root) == []


def test_the_architecture_picture_shows_these_layers() -> None:
    """docs/architecture.md opens with the Mermaid picture of these layers, in this order, each unit in its box."""
    text = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    picture = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert text.index("```mermaid") < text.index("## The device state")
    boxes = dict(re.findall(r'^\s+(\w+)\["(.*)"\]$', picture, re.M))
    assert list(boxes) == [name for name, _units in LAYERS]
    for name, units in LAYERS:
        words = set(re.findall(r"[a-z_]+", boxes[name].replace("<b>", " ").replace("</b>", " ")))
        assert {u for u in units if u != "roceconf"} <= words, name
    assert " --> ".join(name for name, _units in LAYERS) in picture
