"""Junos `set` / `delete` lines resolved against Juniper's own configuration YANG (the conformance oracle).

Juniper publishes the Junos configuration schema as YANG (github.com/Juniper/yang, 23.4R1: ``junos-qfx``
for QFX on Junos OS, ``junos`` for Junos OS Evolved). ``yanglint -f info -P <path>`` (Debian
``libyang2-tools``) prints a subtree of the *compiled* schema - groupings expanded, augments applied,
typedefs resolved - in YANG syntax. That text is parsed once into a tree of containers, lists (with their
keys), leaves and leaf-lists with their types (ranges, lengths, patterns, enums, unions, ``empty``), and a
``set`` line is walked down that tree the way the Junos CLI reads it:

* a container or list name descends; a list then takes one word per key (``unit *`` is the key value
  ``*``, which the ``unit`` key type accepts as a wildcard; ``x*`` it does not);
* a leaf takes one value (none for ``empty``), a leaf-list one value or ``[ v1 v2 ]``; several leaves of
  the same node may follow each other on one line (``queue-num 3 no-loss pfc-priority 3``);
* ``choice`` / ``case`` are transparent;
* where a container holds a single ``*-name`` leaf (Junos DDL identifiers such as ``classifiers ieee-802.1
  <name>`` = ``ieee-802.1/classifier-name``), the word right after the container is that leaf's value:
  the plain (extension-free) YANG does not mark these positional identifiers, so this is an inference.

The first word that does not resolve, a missing value or a value its type refuses is an error, worded like
the Junos CLI (``syntax error`` / ``value ... is not within range``; the exact device wording is not
confirmed). Statements outside the three modules roceconf renders into (``system host-name``) are
reported as unchecked, not as errors: no system module is in the model set.

The lab's simulated Junos device uses the same checker (roceconf/lab/refuse.py junos_refusal), so the lab refuses what
the schema refuses.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from roceconf import yangtext
from roceconf.yangtext import ENV_MODELS, Node, Type, parse_info, vendor_models

#: (root module, module file stem, namespace prefix) per flavour, Juniper/yang 23.4R1.
FLAVOURS = {
    "qfx": ("qfx-23.4R1", "junos-qfx-conf"),
    "evo": ("evo-23.4R1", "junos-conf"),
}
#: Top-level configuration sections checked, and the module that defines each.
SECTIONS = ("class-of-service", "interfaces", "forwarding-options")
#: Top-level sections roceconf renders whose module is not in the model set (reported as unchecked).
UNCHECKED = ("system",)


def unavailable_reason() -> str | None:
    """Why the Junos oracle cannot run here (None when it can)."""
    models = vendor_models()
    if models is None:
        return f"vendor models not found (../shared/vendor-models beside the repository, or ${ENV_MODELS})"
    if not (models / "junos-yang").is_dir():
        return f"{models}/junos-yang is missing"
    if shutil.which("yanglint") is None:
        return "yanglint not installed (Debian libyang2-tools, see debian-packages.txt)"
    return None


# ------------------------------------------------------------------------------------- schema tree


def _cache_file(d: Path, flavour: str) -> Path:
    h = hashlib.sha256()
    for f in sorted(d.glob("*.yang")):
        h.update(f.name.encode() + f.read_bytes())
    for code in (Path(__file__), Path(yangtext.__file__)):
        h.update(code.read_bytes())  # a new parser invalidates the cache
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "roceconf"
    return base / f"junos-{flavour}-{h.hexdigest()[:16]}.pickle"


@functools.cache
def load(flavour: str = "qfx", models: str | None = None) -> Node:
    """The ``configuration`` tree of one flavour (qfx | evo), from yanglint's compiled-schema print.

    The parsed tree is cached (pickle under ``$XDG_CACHE_HOME/roceconf``, keyed by the model files and this
    module), so only the first use parses yanglint's multi-megabyte print."""
    base = Path(models) if models else vendor_models()
    if base is None:
        raise FileNotFoundError(unavailable_reason() or "vendor models not found")
    folder, stem = FLAVOURS[flavour]
    d = base / "junos-yang" / folder
    cache = _cache_file(d, flavour)
    try:
        with cache.open("rb") as fh:
            tree = pickle.load(fh)  # noqa: S301 - our own cache file, written below
        if isinstance(tree, Node):
            return tree
    except (OSError, pickle.PickleError, EOFError, AttributeError):
        pass
    tree = _load(d, stem)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump(tree, fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(cache)
    except OSError:
        pass
    return tree


def _load(d: Path, stem: str) -> Node:
    root = Node("configuration", "container")
    for sec in SECTIONS:
        module = f"{stem}-{sec}"
        path = f"/{stem}-root:configuration/{module}:{sec}"
        res = subprocess.run(
            [
                "yanglint",
                "-p",
                str(d),
                "-f",
                "info",
                "-P",
                path,
                str(d / f"{stem}-root@2023-01-01.yang"),
                str(d / f"{module}@2023-01-01.yang"),
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        if res.returncode != 0:
            raise RuntimeError(f"yanglint failed on {module}: {res.stderr.strip()[:300]}")
        for n in parse_info(res.stdout):
            root.children[n.name] = n
    return root


# ------------------------------------------------------------------------------------- set lines

_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|\[|\]|[^\s\[\]"]+')


def words_of(line: str) -> list[str]:
    return [
        w[1:-1] if w.startswith('"') and w.endswith('"') and len(w) > 1 else w for w in _WORD.findall(line)
    ]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    #: the schema path reached (CLI words), for messages
    path: tuple[str, ...]
    #: index of the offending word in the words after the verb (None when ok)
    at: int | None = None
    message: str = ""
    checked: bool = True


def check_line(tree: Node, line: str) -> Verdict:
    """Resolve one ``set`` / ``delete`` line against the schema tree."""
    ws = words_of(line.strip())
    if not ws or ws[0] not in ("set", "delete"):
        return Verdict(False, (), 0, "syntax error: expected set or delete")
    verb, words = ws[0], ws[1:]
    if not words:
        return Verdict(False, (), 0, "syntax error: missing statement")
    if words[0] in UNCHECKED:
        return Verdict(True, tuple(words), checked=False, message=f"{words[0]}: no schema module in the set")
    node = tree
    path: list[str] = []
    ended_on_container = False
    i = 0
    while i < len(words):
        w = words[i]
        child = node.children.get(w)
        implicit = False
        if child is None:
            # the CLI leaves out the list name where a container holds a list of its singular name
            # (`interfaces et-0/0/0` = interfaces/interface[name='et-0/0/0'])
            lst = node.children.get(node.name[:-1]) if node.name.endswith("s") else None
            if lst is not None and lst.kind == "list" and len(lst.keys) == 1:
                kt = lst.children.get(lst.keys[0])
                if kt is None or kt.type is None or kt.type.problem(w) is None:
                    child, implicit = lst, True
        if child is None and node.kind == "container":
            # a Junos DDL positional identifier (`classifiers ieee-802.1 <name>` = ieee-802.1/classifier-name):
            # the plain YANG does not mark it; a container whose single *-name leaf takes the word
            named = [c for c in node.children.values() if c.kind == "leaf" and c.name.endswith("-name")]
            if len(named) == 1 and path and path[-1] == node.name and named[0].type is not None:
                why = named[0].type.problem(w)
                if why:
                    return Verdict(False, tuple(path), i, f"error: {why}")
                path.append(named[0].name)
                i += 1
                ended_on_container = False
                continue
        if child is None:
            return Verdict(False, tuple(path), i, f"syntax error: {w}")
        ended_on_container = False
        if child.kind == "container":
            node, i = child, i + 1
            path.append(w)
            ended_on_container = True
            continue
        if child.kind == "list":
            if not implicit:
                path.append(w)
                i += 1
            for key in child.keys:
                # lists with several keys name them: drop-profile-map loss-priority any protocol any
                if len(child.keys) > 1 and i + 1 < len(words) and words[i] == key:
                    i += 1
                if i >= len(words):
                    if verb == "delete":
                        return Verdict(True, tuple(path))
                    return Verdict(False, tuple(path), i - 1, f"missing argument: {key}")
                kt = child.children.get(key)
                why = kt.type.problem(words[i]) if kt is not None and kt.type is not None else None
                if why:
                    return Verdict(False, tuple(path), i, f"error: {why}")
                path.append(words[i])
                i += 1
            node = child
            continue
        # leaf / leaf-list: a value (none for empty), then more leaves of the same node may follow
        path.append(w)
        t = child.type or Type("string")
        if t.base == "empty":
            i += 1
            continue
        if i + 1 >= len(words):
            if verb == "delete":
                return Verdict(True, tuple(path))
            return Verdict(False, tuple(path), i, f"missing argument: {w}")
        if child.kind == "leaf-list" and words[i + 1] == "[":
            j = i + 2
            while j < len(words) and words[j] != "]":
                why = t.problem(words[j])
                if why:
                    return Verdict(False, tuple(path), j, f"error: {why}")
                j += 1
            if j >= len(words):
                return Verdict(False, tuple(path), j - 1, "syntax error: missing ]")
            i = j + 1
            continue
        why = t.problem(words[i + 1])
        if why:
            return Verdict(False, tuple(path), i + 1, f"error: {why}")
        i += 2
    if verb == "set" and ended_on_container and not node.presence:
        # the line stops at a container that exists only through its children
        return Verdict(False, tuple(path), len(words) - 1, f"syntax error, incomplete statement: {words[-1]}")
    return Verdict(True, tuple(path))


def cli_error(line: str, v: Verdict) -> str:
    """The Junos CLI's answer to a refused configuration-mode line: a caret under the word, then the reason."""
    ws = words_of(line.strip())
    at = (v.at or 0) + 1
    col = len(" ".join(ws[:at])) + (1 if at else 0)
    reason = v.message
    if reason.startswith("syntax error"):
        reason = "syntax error."
    return f"{' ' * col}^\n{reason}"
