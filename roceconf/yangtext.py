"""YANG text as plain data: statement tree (RFC 7950 section 6.3) and the leaf types a value is checked against.

Used by the conformance oracles of the platforms whose vendors publish YANG (Junos configuration schema,
SONiC CONFIG_DB models). Input is YANG text, typically ``yanglint -f info -P <path>`` - libyang's print
of the *compiled* schema (groupings expanded, augments applied, typedefs resolved to base types).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_TOK = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[{};]|[^\s{};"\']+')


@dataclass
class Stmt:
    keyword: str
    arg: str | None
    subs: list[Stmt] = field(default_factory=list)

    def all(self, keyword: str) -> list[Stmt]:
        return [s for s in self.subs if s.keyword == keyword]

    def first(self, keyword: str) -> Stmt | None:
        return next((s for s in self.subs if s.keyword == keyword), None)


def _unquote(tok: str) -> str:
    if tok.startswith('"'):
        body = tok[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)
    if tok.startswith("'"):
        return tok[1:-1]
    return tok


def parse_statements(text: str) -> list[Stmt]:
    """YANG statement syntax (RFC 7950 section 6.3) -> statement tree. Strings joined with `+` are concatenated."""
    toks = _TOK.findall(text)
    root = Stmt("<root>", None)
    stack = [root]
    kw: str | None = None
    arg: list[str] = []
    concat = False
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "{" or t == ";":
            if kw is not None:
                st = Stmt(kw, " ".join(arg) if arg else None)
                stack[-1].subs.append(st)
                if t == "{":
                    stack.append(st)
            kw, arg = None, []
        elif t == "}":
            if len(stack) > 1:
                stack.pop()
            kw, arg = None, []
        elif kw is None:
            kw = t
        elif t == "+":
            concat = True
        elif concat and arg:
            arg[-1] += _unquote(t)
            concat = False
        else:
            arg.append(_unquote(t))
        i += 1
    return root.subs


# ------------------------------------------------------------------------------------- types


@functools.lru_cache(maxsize=4096)
def _xsd_to_python(pattern: str) -> re.Pattern[str] | None:
    """A YANG (XSD) regular expression as a Python one: XSD has no anchors, so ^ and $ are literals."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "pPicIC":  # XSD-only classes: not translated, the pattern is not checked
                return None
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        elif c in "^$" and not in_class:
            out.append("\\" + c)
            i += 1
            continue
        out.append(c)
        i += 1
    try:
        return re.compile("".join(out), re.S)
    except re.error:
        return None


def _ranges(text: str) -> list[tuple[float, float]]:
    out = []
    for part in text.split("|"):
        lo, _, hi = part.strip().partition("..")
        hi = hi or lo
        out.append(
            (
                float("-inf") if lo.strip() == "min" else float(lo),
                float("inf") if hi.strip() == "max" else float(hi),
            )
        )
    return out


_INT_BOUNDS = {
    "int8": (-128, 127),
    "int16": (-32768, 32767),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 255),
    "uint16": (0, 65535),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}


@dataclass
class Type:
    base: str
    ranges: list[tuple[float, float]] = field(default_factory=list)
    range_text: str = ""
    lengths: list[tuple[float, float]] = field(default_factory=list)
    #: (XSD pattern, invert-match); compiled when first used
    patterns: list[tuple[str, bool]] = field(default_factory=list)
    enums: tuple[str, ...] = ()
    members: list[Type] = field(default_factory=list)

    @classmethod
    def from_stmt(cls, st: Stmt) -> Type:
        t = cls(base=(st.arg or "string").split(":")[-1])
        r = st.first("range")
        if r is not None and r.arg:
            t.ranges, t.range_text = _ranges(r.arg), r.arg
        ln = st.first("length")
        if ln is not None and ln.arg:
            t.lengths = _ranges(ln.arg)
        for p in st.all("pattern"):
            inv = any(m.keyword == "modifier" and m.arg == "invert-match" for m in p.subs)
            t.patterns.append((p.arg or "", inv))
        t.enums = tuple(e.arg or "" for e in st.all("enum"))
        t.members = [cls.from_stmt(m) for m in st.all("type")]
        return t

    def problem(self, value: str) -> str | None:
        """None when the value is valid for this type, else why not."""
        b = self.base
        if b == "union":
            reasons = [m.problem(value) for m in self.members]
            if any(r is None for r in reasons):
                return None
            return next(
                (r for r in reasons if r and "range" in r), reasons[0] if reasons else "invalid value"
            )
        if b == "empty":
            return "takes no value"
        if b in _INT_BOUNDS or b == "decimal64":
            try:
                num = float(value) if b == "decimal64" else int(value, 10)
            except ValueError:
                return f"'{value}' is not a number"
            if b in _INT_BOUNDS:
                lo, hi = _INT_BOUNDS[b]
                if not lo <= num <= hi:
                    return f"value {value} is not within range ({lo}..{hi})"
            if self.ranges and not any(lo <= num <= hi for lo, hi in self.ranges):
                return f"value {value} is not within range ({self.range_text})"
            return None
        if b == "enumeration":
            return None if value in self.enums else f"'{value}' is not one of {', '.join(self.enums)}"
        if b == "boolean":
            return None if value in ("true", "false") else f"'{value}' is not true or false"
        # string, leafref, identityref, bits, ... : length and patterns
        if self.lengths and not any(lo <= len(value) <= hi for lo, hi in self.lengths):
            return f"'{value}' has a length outside {self.lengths}"
        for pat, inv in self.patterns:
            rx = _xsd_to_python(pat)
            if rx is None:
                continue
            if bool(rx.fullmatch(value)) == inv:
                return f"'{value}' is not valid here"
        return None


_NOISE = re.compile(r'\b(?:description|reference|contact|organization)\s+"(?:[^"\\]|\\.)*"\s*;')
_NOISE_LINE = re.compile(
    r"^[ \t]*(?:config|status|min-elements|max-elements|ordered-by|units|default|value|mandatory|if-feature)"
    r"\b[^\n{;]*;[ \t]*\n",
    re.M,
)


def strip_noise(text: str) -> str:
    """Drop descriptions and the statements no check needs (a multi-megabyte print parses much faster)."""
    return _NOISE_LINE.sub("", _NOISE.sub("", text))


ENV_MODELS = "ROCECONF_VENDOR_MODELS"


def vendor_models(start: Path | None = None) -> Path | None:
    """``$ROCECONF_VENDOR_MODELS``, else ``../shared/vendor-models`` beside the repository root."""
    env = os.environ.get(ENV_MODELS)
    if env:
        p = Path(env)
        return p if p.is_dir() else None
    root = (start or Path(__file__)).resolve()
    for parent in root.parents:
        if (parent / "pyproject.toml").is_file():
            cand = parent.parent / "shared" / "vendor-models"
            return cand if cand.is_dir() else None
    return None


# ------------------------------------------------------------------------------------- schema tree


@dataclass
class Node:
    name: str
    kind: str  # container | list | leaf | leaf-list
    presence: bool = False
    keys: tuple[str, ...] = ()
    type: Type | None = None
    children: dict[str, Node] = field(default_factory=dict)


def _build(st: Stmt) -> Node | None:
    kinds = {"container": "container", "list": "list", "leaf": "leaf", "leaf-list": "leaf-list"}
    kind = kinds.get(st.keyword)
    if kind is None or st.arg is None:
        return None
    name = st.arg.split(":")[-1]
    node = Node(name=name, kind=kind)
    if kind == "container":
        node.presence = st.first("presence") is not None
    if kind in ("leaf", "leaf-list"):
        ts = st.first("type")
        node.type = Type.from_stmt(ts) if ts is not None else Type("string")
    _add_children(node, st)
    if kind == "list":
        k = st.first("key")
        node.keys = _keys((k.arg or "") if k else "", list(node.children))
    return node


def _keys(arg: str, children: list[str]) -> tuple[str, ...]:
    """The key leaves of a list. libyang 2.1's info printer joins several key names without a space
    ("loss-priorityprotocol"); compiled lists hold their keys first, in key order, so the names are the
    leading children whose names add up to the printed string."""
    words = [x.split(":")[-1] for x in arg.replace(",", " ").split()]
    if all(w in children for w in words):
        return tuple(words)
    joined = "".join(words)
    out: list[str] = []
    acc = ""
    for c in children:
        if not joined.startswith(acc + c):
            break
        acc += c
        out.append(c)
        if acc == joined:
            return tuple(out)
    return tuple(words)


def _add_children(node: Node, st: Stmt) -> None:
    for sub in st.subs:
        if sub.keyword in ("choice", "case"):
            _add_children(node, sub)
            continue
        child = _build(sub)
        if child is not None:
            node.children.setdefault(child.name, child)


def parse_info(text: str) -> list[Node]:
    """Nodes of a ``yanglint -f info -P <path>`` print (the printed node and everything below it)."""
    out = []
    for st in parse_statements(strip_noise(text)):
        n = _build(st)
        if n is not None:
            out.append(n)
    return out
