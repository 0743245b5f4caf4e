"""YAML loading with source positions (ruamel.yaml round-trip loader: safe constructors only)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml as libyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.parser import Parser
from ruamel.yaml.scanner import Scanner

from roceconf import limits
from roceconf.diagnostics import Diagnostic, DiagnosticError
from roceconf.inputfile import InputFileError, read_text

Path_ = tuple[str | int, ...]


class Positions:
    """Maps a data path (('devices', 0, 'name')) to the (line, col) of its value, 1-based."""

    def __init__(self, file: str):
        self.file = file
        self.values: dict[Path_, tuple[int, int]] = {}
        self.keys: dict[Path_, tuple[int, int]] = {}

    def of(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """Position of the path, or of its nearest ancestor."""
        table = self.keys if key else self.values
        p = tuple(path)
        while p:
            if p in table:
                return table[p]
            if not key and p in self.keys:
                return self.keys[p]
            p = p[:-1]
        return self.values.get((), (1, 1))


class _TagFound(Exception):
    def __init__(self, path: Path_, tag: str):
        self.path, self.tag = path, tag


class _TooBig(Exception):
    def __init__(self, path: Path_, code: str, message: str):
        self.path, self.code, self.message = path, code, message


class _Budget:
    """Counts what aliases repeat and how deep the document nests (limits RC020, RC021)."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.aliased = 0


def _walk(
    node: Any, path: Path_, pos: Positions, budget: _Budget | None = None, in_alias: bool = False
) -> Any:
    """Convert ruamel nodes to plain Python, recording positions. Explicit YAML tags are refused."""
    budget = budget or _Budget()
    if len(path) > limits.MAX_DEPTH:
        raise _TooBig(path, "RC021", f"YAML nested deeper than {limits.MAX_DEPTH} levels")
    if isinstance(node, CommentedMap | CommentedSeq):
        if id(node) in budget.seen:
            in_alias = True  # the same object again: an alias (*name) repeats it
        budget.seen.add(id(node))
    if in_alias:
        budget.aliased += 1
        if budget.aliased > limits.MAX_ALIAS_NODES:
            raise _TooBig(
                path,
                "RC020",
                f"YAML aliases repeat more than {limits.MAX_ALIAS_NODES} values (an alias bomb?)",
            )
    tag = getattr(getattr(node, "tag", None), "value", None)
    if tag and isinstance(node, TaggedScalar | CommentedMap | CommentedSeq):
        raise _TagFound(path, str(tag))
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for k in node:
            try:
                kl, kc, vl, vc = node.lc.data[k]
                pos.keys[path + (k,)] = (kl + 1, kc + 1)
                pos.values[path + (k,)] = (vl + 1, vc + 1)
            except (KeyError, TypeError, IndexError):
                pass
            out[k] = _walk(node[k], path + (k,), pos, budget, in_alias)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, v in enumerate(node):
            try:
                ln, cn = node.lc.data[i]
                pos.values[path + (i,)] = (ln + 1, cn + 1)
            except (KeyError, TypeError, IndexError):
                pass
            items.append(_walk(v, path + (i,), pos, budget, in_alias))
        return items
    if isinstance(node, str):
        return str(node)
    if isinstance(node, bool | int | float) or node is None:
        return node if not isinstance(node, float) else float(node)
    # dates, timestamps and other scalars: keep their text form
    return str(node)


def _fail(file: str, line: int, col: int, code: str, message: str, hint: str) -> DiagnosticError:
    return DiagnosticError([Diagnostic(file, line, col, "error", code, message, hint)])


_TAG_HINT = "remove the !tag; intents are plain YAML (safe loading only)"


_BRACKETS = re.compile(r"[\[\]{}]")


def _flow_too_deep(text: str) -> int | None:
    """Offset where flow collections ('[', '{') nest deeper than the limit, found before the parser recurses
    into them (brackets inside quoted strings count too: they balance, so they only loosen the bound)."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > limits.MAX_DEPTH:
                return m.start()
        elif depth:
            depth -= 1
    return None


def load_yaml_text(text: str, file: str, *, fast: bool = True) -> tuple[Any, Positions]:
    """The plain data of an intent's YAML text and the position of every key and value, or DiagnosticError.
    Read by libyaml (:func:`_fast_load`) when it gives the same answer, else (``fast=False`` always) by
    ruamel's loader, the reference for data, positions and every diagnostic."""
    if len(text) > limits.MAX_YAML_BYTES:
        raise _fail(
            file,
            1,
            1,
            "RC019",
            f"the file has {len(text)} characters; the limit is {limits.MAX_YAML_BYTES}",
            "",
        )
    text = text.removeprefix("\ufeff")
    deep = _flow_too_deep(text)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        col = deep - (text.rfind("\n", 0, deep) + 1) + 1
        raise _fail(file, line, col, "RC021", f"YAML nested deeper than {limits.MAX_DEPTH} levels", "")
    if fast:
        try:
            return _fast_load(text, file)
        except _Fallback:
            pass
    return _ruamel_load(text, file)


def _ruamel_load(text: str, file: str) -> tuple[Any, Positions]:
    """The reference path: ruamel's round-trip loader, then :func:`_walk` (every error and limit here)."""
    yaml = YAML(typ="rt", pure=True)
    # the round-trip constructor (positions: .lc) over the plain scanner and parser: intents need no comments,
    # and collecting them was a fifth of the load time (same data, positions and errors)
    yaml.Scanner, yaml.Parser = Scanner, Parser
    yaml.allow_duplicate_keys = False
    pos = Positions(file)
    try:
        data = yaml.load(text)
    except RecursionError:
        raise _fail(file, 1, 1, "RC021", f"YAML nested deeper than {limits.MAX_DEPTH} levels", "") from None
    except (DuplicateKeyError, MarkedYAMLError) as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = _one_line(e.problem or e.context or "invalid YAML")
        if isinstance(e, DuplicateKeyError):
            raise _fail(
                file,
                line,
                col,
                "RC002",
                f"duplicate key: {problem}",
                "each key may appear once in a mapping; merge the two entries",
            ) from None
        if "could not determine a constructor" in str(e) or "tag" in problem:
            raise _fail(
                file, line, col, "RC001", f"YAML tags are not allowed: {problem}", _TAG_HINT
            ) from None
        raise _fail(
            file,
            line,
            col,
            "RC001",
            f"YAML syntax error: {problem}",
            "check indentation, quotes and ':' around this position",
        ) from None
    except YAMLError as e:
        raise _fail(file, 1, 1, "RC001", f"YAML error: {_one_line(str(e))}", "") from None
    try:
        plain = _walk(data, (), pos)
    except _TooBig as e:
        line, col = pos.of(e.path)
        raise _fail(file, line, col, e.code, e.message, "") from None
    except RecursionError:
        raise _fail(file, 1, 1, "RC021", f"YAML nested deeper than {limits.MAX_DEPTH} levels", "") from None
    except _TagFound as e:
        line, col = pos.of(e.path)
        raise _fail(file, line, col, "RC001", f"YAML tags are not allowed: {e.tag}", _TAG_HINT) from None
    if pos.keys:  # the document itself "is" where its first key is
        pos.values[()] = min(pos.keys.values())
    return plain, pos


def read_text_file(path: str | Path, max_bytes: int = limits.MAX_YAML_BYTES) -> str:
    """A UTF-8 text file (a BOM is accepted) as str, or DiagnosticError with a one-line reason
    (missing, a directory, unreadable, too large, not UTF-8 text)."""
    try:
        return read_text(path, max_bytes)
    except InputFileError as e:
        raise _fail(str(path), e.line, 1, e.code, e.reason, "") from None


def load_yaml_file(path: str | Path) -> tuple[Any, Positions]:
    return load_yaml_text(read_text_file(path), str(path))


def _one_line(s: object) -> str:
    return " ".join(str(s).split())


# --------------------------------------------------------------------------- the libyaml fast path
#: tabs (which the two parsers accept in different places), characters ruamel's reader refuses or counts as
#: line breaks that libyaml may count otherwise (NEL, the
#: Unicode line and paragraph separators, a BOM inside the text): a text with one goes the ruamel way
_ODD_CHARS = re.compile(
    "[^\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
#: scalar tags the fast path constructs (ruamel's YAML 1.2 resolution of a plain scalar); any other: ruamel
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp")
)


class _Fallback(Exception):
    """Something the fast path does not answer itself: the ruamel path reads the text (and answers)."""


class PlainScalars:
    """ruamel's YAML 1.2 resolution and round-trip construction of plain scalars, memoised per text (the
    intent's fast path here, and the NVUE reader's large-document path).

    A tag ``accept`` refuses raises ``refused(tag)``; with ``construct_errors`` a value ruamel cannot construct
    raises ``refused(tag)`` too (the caller's slow path then says what ruamel says of it)."""

    def __init__(
        self,
        accept: Callable[[str], bool],
        refused: Callable[[str], Exception],
        construct_errors: bool = False,
        memo: int = 100_000,
    ) -> None:
        y = YAML(typ="rt", pure=True)
        self._resolver = y.resolver
        self._constructor = y.constructor
        self._accept, self._refused, self._wrap = accept, refused, construct_errors
        self._memo: dict[str, Any] = {}
        self._limit = memo

    def plain(self, value: str) -> Any:
        try:
            return self._memo[value]
        except KeyError:
            pass
        tag = str(self._resolver.resolve(ScalarNode, value, (True, False)))
        if not self._accept(tag):
            raise self._refused(tag)
        con = self._constructor
        try:
            out = con.construct_object(ScalarNode(tag, value), deep=True)
        except Exception:  # noqa: BLE001 - whatever ruamel would say about it, it says on its own path
            if not self._wrap:
                raise
            raise self._refused(tag) from None
        finally:  # each node is new: nothing to keep (an instance may serve many documents)
            con.constructed_objects.clear()
            con.recursive_objects.clear()
        if len(self._memo) < self._limit:
            self._memo[value] = out
        return out


def _plain_value(node: Any) -> Any:
    """What :func:`_walk` makes of a constructed scalar."""
    if isinstance(node, str):
        return str(node)
    if isinstance(node, bool | int | float) or node is None:
        return node if not isinstance(node, float) else float(node)
    return str(node)


_MISSING = object()


def _fast_load(text: str, file: str) -> tuple[Any, Positions]:
    """The plain data and positions :func:`_walk` gives for ``text``, built from libyaml's event parser
    (PyYAML's C parser: linear, about 40x faster than ruamel's pure-Python one). Anything it does not
    answer exactly as the ruamel path - a libyaml error, anchors, aliases, merge keys, tags, directives,
    duplicate or non-string keys, more than one document, nesting near the limit, characters the two
    readers may count differently - raises :class:`_Fallback` (tests/test_yamlsrc_fast.py compares both)."""
    if _ODD_CHARS.search(text):
        raise _Fallback
    scalars = PlainScalars(_PLAIN_TAGS.__contains__, lambda _tag: _Fallback(), construct_errors=True)
    pos = Positions(file)
    values, keys = pos.values, pos.keys
    # each open collection: [container, path, is_mapping, pending key (mappings), next index (sequences)]
    stack: list[list[Any]] = []
    root: Any = None
    done = False
    plains: dict[str, Any] = {}  # a plain value's text -> its value
    try:
        loader = libyaml.CSafeLoader(text)
        next_event = loader.get_event  # what libyaml.parse yields, without its generator
        while (ev := next_event()) is not None:
            kind = type(ev)
            if kind is libyaml.ScalarEvent:
                if ev.anchor is not None or ev.tag is not None:
                    raise _Fallback
                plain = ev.implicit[0] and not ev.style
                if plain and ev.start_mark.index == ev.end_mark.index:
                    raise _Fallback  # an empty value: ruamel places it at the next token, libyaml before
                if not stack:
                    raise _Fallback  # a document of one scalar
                top = stack[-1]
                mark = ev.start_mark
                if top[2] and top[3] is None:  # a mapping key
                    if not plain:
                        if ev.style not in ("'", '"'):
                            raise _Fallback
                        key: Any = ev.value
                    else:
                        key = scalars.plain(ev.value)
                        if type(key) is not str:
                            raise _Fallback
                    if key in top[0] or key == "<<":
                        raise _Fallback
                    top[3] = key
                    kpath = top[1] + (key,)
                    keys[kpath] = (mark.line + 1, mark.column + 1)
                    continue
                if plain:
                    text_value = ev.value
                    value = plains.get(text_value, _MISSING)
                    if value is _MISSING:
                        value = plains[text_value] = _plain_value(scalars.plain(text_value))
                else:
                    value = ev.value
                if top[2]:
                    vpath = top[1] + (top[3],)
                    top[0][top[3]] = value
                    top[3] = None
                else:
                    vpath = top[1] + (top[4],)
                    top[0].append(value)
                    top[4] += 1
                if len(vpath) >= limits.MAX_DEPTH:
                    raise _Fallback
                values[vpath] = (mark.line + 1, mark.column + 1)
                continue
            if kind is libyaml.MappingStartEvent or kind is libyaml.SequenceStartEvent:
                if ev.anchor is not None or ev.tag is not None:
                    raise _Fallback
                is_map = kind is libyaml.MappingStartEvent
                container: Any = {} if is_map else []
                if not stack:
                    if root is not None or done:
                        raise _Fallback
                    root = container
                    path: Path_ = ()
                else:
                    top = stack[-1]
                    if top[2]:
                        if top[3] is None:
                            raise _Fallback  # a collection as a mapping key
                        path = top[1] + (top[3],)
                        top[0][top[3]] = container
                        top[3] = None
                    else:
                        path = top[1] + (top[4],)
                        top[0].append(container)
                        top[4] += 1
                    if len(path) >= limits.MAX_DEPTH - 1:
                        raise _Fallback
                    mark = ev.start_mark
                    values[path] = (mark.line + 1, mark.column + 1)
                stack.append([container, path, is_map, None, 0])
                continue
            if kind is libyaml.MappingEndEvent or kind is libyaml.SequenceEndEvent:
                stack.pop()
                continue
            if kind is libyaml.DocumentStartEvent:
                if done or ev.version is not None or ev.tags:
                    raise _Fallback
                continue
            if kind is libyaml.DocumentEndEvent:
                done = True
                continue
            if kind is libyaml.StreamStartEvent or kind is libyaml.StreamEndEvent:
                continue
            raise _Fallback  # an alias, or an event this path does not know
    except libyaml.YAMLError:
        raise _Fallback from None
    if root is None:
        raise _Fallback
    if keys:
        values[()] = min(keys.values())
    return root, pos
