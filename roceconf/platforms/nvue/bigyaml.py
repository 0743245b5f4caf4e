"""A large NVUE YAML/JSON document read in linear time with libyaml's event parser.

ruamel's round-trip loader (what :func:`syntax._load_structured` uses, for its line numbers) is pure Python:
about 13 s per MB here, so a 60 MB ``nv config show`` would take minutes. Above :data:`FAST_BYTES` the tree
is built from libyaml's events instead (PyYAML's C parser; libyaml keeps its own stacks, and the tree is
built here with an explicit stack, so nesting depth never recurses). Every plain scalar is resolved and
constructed by ruamel's own YAML 1.2 resolver and constructor, so values are exactly what the ruamel path
gives (tests/platforms/test_nvue_bigyaml.py compares both paths node by node over every NVUE fixture and
generated render). What the fast path does not take - anchors and aliases, explicit tags, merge keys,
duplicate keys, more than one document - is a :class:`Unsupported` (the caller warns: not evaluated);
``nv config show`` prints none of them.
"""

from __future__ import annotations

import threading
from typing import Any

import yaml

from roceconf.yamlsrc import PlainScalars

#: Documents at least this large take the libyaml path; smaller ones keep ruamel's (the same tree).
FAST_BYTES = 512 * 1024
#: Deepest nesting the fast path builds (a real NVUE tree is about 10 levels deep).
MAX_DEPTH = 64


class Unsupported(ValueError):
    """A construct the fast path does not evaluate (the message says which, and on which line)."""


class _MergeKey(Exception):
    """A plain scalar that resolves to YAML's merge key (``<<``)."""


_MERGE = "tag:yaml.org,2002:merge"


def _accept(tag: str) -> bool:
    return tag != _MERGE


def _refused(_tag: str) -> Exception:
    return _MergeKey()


#: the plain scalars' resolver and constructor, made once per thread (ruamel's YAML() and its plug-in search
#: cost as much as reading a small document; a live audit reads devices on several threads, and ruamel's
#: constructor keeps state while it constructs); its memo holds the values of scalar texts, whatever document
#: they are in
_LOCAL = threading.local()


def _scalars() -> PlainScalars:
    scalars = getattr(_LOCAL, "scalars", None)
    if scalars is None:
        scalars = _LOCAL.scalars = PlainScalars(_accept, _refused)
    return scalars


def load(text: str, lines: list[str], node_cls: type, leaf_cls: type, max_nodes: int) -> Any:
    """The Node/Leaf tree of ``text`` (lines 1-based, as the ruamel path gives them); yaml.YAMLError on text
    libyaml cannot parse, :class:`Unsupported` on what this path does not evaluate, ValueError over
    ``max_nodes`` nodes or :data:`MAX_DEPTH` levels."""
    scalars = _scalars()
    budget = max_nodes

    def text_at(line: int | None) -> str:
        return lines[line - 1].strip() if line and line <= len(lines) else ""

    # each open collection: [container, is_mapping, pending key (mappings), key line, keys seen]
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0

    def place(value: Any, line: int | None) -> None:
        nonlocal root
        if not stack:
            root = value
            return
        top = stack[-1]
        if top[1]:
            top[0][top[2]] = value
            top[2] = None
        else:
            top[0][f"#{len(top[0])}"] = value

    def value_line(start: int) -> int | None:
        """The line a value is recorded with: its key's line in a mapping, its own in a sequence."""
        if not stack:
            return None
        return stack[-1][3] if stack[-1][1] else start

    for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
        kind = type(ev)
        line = ev.start_mark.line + 1 if ev.start_mark is not None else None
        if kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise Unsupported(f"line {line}: more than one YAML document")
            continue
        if kind in (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent):
            continue
        if kind is yaml.AliasEvent or getattr(ev, "anchor", None):
            raise Unsupported(f"line {line}: YAML anchors and aliases")
        if kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            stack.pop()  # placed when it was opened
            continue
        tag = getattr(ev, "tag", None)
        if kind is yaml.ScalarEvent:
            if tag is not None:
                raise Unsupported(f"line {line}: an explicit tag {tag}")
            plain = ev.implicit[0] and not ev.style
            try:
                value: Any = scalars.plain(ev.value) if plain else ev.value
            except _MergeKey:
                raise Unsupported(f"line {line or 0}: a merge key (<<)") from None
            if stack and stack[-1][1] and stack[-1][2] is None:  # a mapping key
                key = str(value)
                if key in stack[-1][4]:
                    raise Unsupported(f"line {line}: duplicate key {key!r}")
                stack[-1][4].add(key)
                stack[-1][2] = key
                stack[-1][3] = line
                continue
            budget -= 1
            if budget < 0:
                raise ValueError("document too large (beyond the size limit)")
            vline = value_line(line or 0)
            place(leaf_cls(value, vline, text_at(vline)), vline)
            continue
        if tag is not None:
            raise Unsupported(f"line {line}: an explicit tag {tag}")
        if stack and stack[-1][1] and stack[-1][2] is None:
            raise Unsupported(f"line {line}: a collection as a mapping key")
        if len(stack) >= MAX_DEPTH:
            raise ValueError("document nests too deeply")
        budget -= 1
        if budget < 0:
            raise ValueError("document too large (beyond the size limit)")
        is_map = kind is yaml.MappingStartEvent
        vline = value_line(line or 0)
        node = node_cls(vline, text_at(vline)) if is_map else node_cls(vline)
        place(node, vline)
        stack.append([node, is_map, None, None, set()])
    return root if root is not None else leaf_cls(None, None, "")
