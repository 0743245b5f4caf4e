"""YAML loading with source positions (ruamel.yaml round-trip loader: safe constructors only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from roceconf.diagnostics import Diagnostic, DiagnosticError

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


def _walk(node: Any, path: Path_, pos: Positions) -> Any:
    """Convert ruamel nodes to plain Python, recording positions. Explicit YAML tags are refused."""
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
            out[k] = _walk(node[k], path + (k,), pos)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, v in enumerate(node):
            try:
                ln, cn = node.lc.data[i]
                pos.values[path + (i,)] = (ln + 1, cn + 1)
            except (KeyError, TypeError, IndexError):
                pass
            items.append(_walk(v, path + (i,), pos))
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


def load_yaml_text(text: str, file: str) -> tuple[Any, Positions]:
    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    pos = Positions(file)
    try:
        data = yaml.load(text)
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
    except _TagFound as e:
        line, col = pos.of(e.path)
        raise _fail(file, line, col, "RC001", f"YAML tags are not allowed: {e.tag}", _TAG_HINT) from None
    if pos.keys:  # the document itself "is" where its first key is
        pos.values[()] = min(pos.keys.values())
    return plain, pos


def load_yaml_file(path: str | Path) -> tuple[Any, Positions]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _fail(str(path), 1, 1, "RC000", "file not found", "") from None
    except (OSError, UnicodeDecodeError) as e:
        raise _fail(str(path), 1, 1, "RC000", f"cannot read file: {_one_line(str(e))}", "") from None
    return load_yaml_text(text, str(path))


def _one_line(s: object) -> str:
    return " ".join(str(s).split())
