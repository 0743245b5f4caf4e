"""Names: ranges ('gpu[0001-0004]', 'Ethernet1/1-32', 'swp1-4,swp9', 'Ethernet[0-504/8]') and the grammar
each kind of name must follow.

The grammar admits what real devices use and nothing that a shell, a device CLI parser or a file path can
interpret: no whitespace, quotes, shell or CLI metacharacters, no leading '-' (an option to a command), no
'/' or leading '.' where a name becomes a file name. Interface names follow the syntax of their platform
(``Platform.interface_pattern``); the other kinds are defined here. The intent loader checks every
expanded name (rule IDs RC014-RC017); the render writer checks again that each file stays in its directory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from roceconf.state import DeviceState, Interface

_TAIL_RANGE = re.compile(r"^(.*?)(\d+)-(\d+)$")
_ITEM_RANGE = re.compile(r"(\d+)-(\d+)(?:/(\d+))?")
_ITEM_LITERAL = re.compile(r"[A-Za-z0-9_.]+")

#: Largest number of names one pattern may expand to (a device range, an interface range).
MAX_EXPANSION = 100_000


class RangeError(ValueError):
    pass


# --------------------------------------------------------------------------- name grammar
@dataclass(frozen=True)
class NameKind:
    """One kind of name: a full-match regular expression, a length limit and a description for messages."""

    what: str
    pattern: re.Pattern[str]
    max_len: int
    describe: str

    def problem(self, name: str, what: str | None = None) -> str | None:
        """Why ``name`` is not a valid name of this kind, or None when it is."""
        what = what or self.what
        if not name:
            return f"{what} is empty"
        if not self.pattern.fullmatch(name):
            return f"{what} {excerpt(name)} is not allowed: {self.describe}"
        if len(name) > self.max_len:
            return f"{what} {excerpt(name)} is longer than {self.max_len} characters"
        return None


#: Characters any value that lands in device config may contain at all (RC121); range and list syntax
#: included. Newlines, quotes, ';', '!', '$', backticks, braces, '#', '|', '&', '<', '>' are not.
_SAFE = re.compile(r"[A-Za-z0-9._:/\-\[\], ]*")


def unsafe_char(value: str | None) -> str | None:
    """The first character of ``value`` that no name may contain, or None."""
    if value is None or _SAFE.fullmatch(value):
        return None
    return next((c for c in value if not _SAFE.fullmatch(c)), "?")


#: Device names: host-name syntax (RFC 1123 labels, dots allowed, '_' tolerated). They become file names
#: (DIR/<name>.<ext>) and host names in the configs, so no '/', no leading '.', no '..'.
DEVICE = NameKind(
    "device name",
    re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.))*"),
    63,
    "letters, digits, '-', '_' and '.' (not first, not doubled), at most 63 characters",
)
#: Linux network interface names (dev_valid_name(): at most 15 bytes, no '/', ':' or whitespace), also
#: refusing a leading '-' or '.' so that a name is never an option or a relative path.
NETDEV = NameKind(
    "interface name",
    re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*"),
    15,
    "a Linux netdev name: letters, digits, '_', '.', '-' (not first), at most 15 characters",
)
#: RDMA (ib_core) device names: mlx5_0, bnxt_re0, rocep65s0f0, irdma0 (IB_DEVICE_NAME_MAX is 64).
RDMA_DEVICE = NameKind(
    "RDMA device name",
    re.compile(r"[A-Za-z][A-Za-z0-9_.-]*"),
    63,
    "a letter first, then letters, digits, '_', '.', '-', at most 63 characters",
)
#: Profile, role and class names: identifiers used in messages, plans and YAML keys.
IDENTIFIER = NameKind(
    "name",
    re.compile(r"[A-Za-z][A-Za-z0-9_-]*"),
    63,
    "a letter first, then letters, digits, '_' and '-', at most 63 characters",
)


def group_interfaces(
    state: DeviceState, fields: tuple[str, ...] | None = None
) -> list[tuple[list[str], Interface]]:
    """Group ports with identical settings (optionally only the given fields), in natural order.

    Templates use it to emit one range command instead of one per port.
    """
    groups: dict[str, tuple[list[str], Interface]] = {}
    for name in sorted(state.interfaces, key=natural_key):
        itf = state.interfaces[name]
        key = itf.model_dump_json(include=set(fields) if fields else None)
        groups.setdefault(key, ([], itf))[0].append(name)
    return list(groups.values())



# --------------------------------------------------------------------------- messages
#: Longest excerpt of a user value quoted in a message.
EXCERPT_CHARS = 60


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """repr() of a value for a message, truncated so a huge value never floods a log."""
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


# --------------------------------------------------------------------------- ranges
def _bracket_items(body: str, pattern: str, offset: int) -> list[str]:
    """The items of one '[...]' group: numeric ranges 'a-b', stepped ranges 'a-b/s', literals."""
    items: list[str] = []
    pos = offset
    for raw in body.split(","):
        part = raw.strip()
        where = f"at character {pos + 1} of {excerpt(pattern)}"
        pos += len(raw) + 1
        if not part:
            raise RangeError(f"empty item {where}")
        m = _ITEM_RANGE.fullmatch(part)
        if m:
            a, b, step = m.group(1), m.group(2), m.group(3)
            lo, hi, st = int(a), int(b), int(step) if step else 1
            if hi < lo:
                raise RangeError(f"range {part!r} runs backwards {where}")
            if st < 1:
                raise RangeError(f"range {part!r} has step 0 {where}")
            if (hi - lo) // st + 1 > MAX_EXPANSION:
                raise RangeError(f"range {part!r} has more than {MAX_EXPANSION} items {where}")
            width = len(a) if a.startswith("0") and len(a) > 1 else 0
            items.extend(str(i).zfill(width) for i in range(lo, hi + 1, st))
        elif _ITEM_LITERAL.fullmatch(part):
            items.append(part)
        else:
            raise RangeError(
                f"malformed range item {part!r} {where} "
                "(use a-b, a-b/step or a comma list of numbers and names)"
            )
    return items


def _groups(pattern: str) -> list[str | list[str]]:
    """Split a bracket pattern into literal text and lists of items; checks brackets balance."""
    out: list[str | list[str]] = []
    i = 0
    text = ""
    while i < len(pattern):
        c = pattern[i]
        if c == "]":
            raise RangeError(f"']' without '[' at character {i + 1} of {excerpt(pattern)}")
        if c == "[":
            j = pattern.find("]", i + 1)
            k = pattern.find("[", i + 1)
            if j < 0 or (0 <= k < j):
                raise RangeError(f"'[' at character {i + 1} of {excerpt(pattern)} is not closed")
            if text:
                out.append(text)
                text = ""
            out.append(_bracket_items(pattern[i + 1 : j], pattern, i + 1))
            i = j + 1
            continue
        text += c
        i += 1
    if text:
        out.append(text)
    return out


def count_names(pattern: str) -> int:
    """How many names ``expand_names(pattern)`` gives, without building them."""
    n = 1
    for g in _groups(pattern):
        if isinstance(g, list):
            n *= len(g)
    return n


def expand_names(pattern: str, limit: int = MAX_EXPANSION) -> list[str]:
    """Expand bracket ranges: 'gpu[0001-0003]' -> gpu0001..gpu0003, 'leaf[1-2]-[a,b]' -> cartesian,
    'Ethernet[0-16/8]' -> Ethernet0, Ethernet8, Ethernet16. A malformed range raises RangeError naming
    the position; so does a pattern that expands to more than ``limit`` names."""
    if "[" not in pattern and "]" not in pattern:
        return [pattern]
    groups = _groups(pattern)
    total = 1
    for g in groups:
        if isinstance(g, list):
            total *= len(g)
            if total > limit:
                raise RangeError(f"{excerpt(pattern)} expands to more than {limit} names")
    out = [""]
    for g in groups:
        if isinstance(g, str):
            out = [o + g for o in out]
        else:
            out = [o + i for o in out for i in g]
    return out


def expand_interfaces(spec: str, limit: int = MAX_EXPANSION) -> list[str]:
    """'Ethernet1/1-4' -> Ethernet1/1..Ethernet1/4; 'swp1-2,swp9' -> swp1, swp2, swp9; brackets allowed too
    ('Ethernet[0-504/8]': every 8th port)."""
    out: list[str] = []
    for part in _split_top(spec):
        part = part.strip()
        if not part:
            raise RangeError(f"empty item in interface list {excerpt(spec)}")
        if "[" in part or "]" in part:
            out.extend(expand_names(part, limit))
        else:
            m = _TAIL_RANGE.match(part)
            if m:
                prefix, a, b = m.group(1), int(m.group(2)), int(m.group(3))
                if b < a:
                    raise RangeError(f"interface range {part!r} runs backwards")
                if b - a >= limit:
                    raise RangeError(f"interface range {excerpt(part)} has more than {limit} interfaces")
                out.extend(f"{prefix}{i}" for i in range(a, b + 1))
            else:
                out.append(part)
        if len(out) > limit:
            raise RangeError(f"{excerpt(spec)} expands to more than {limit} interfaces")
    return out


def _split_top(spec: str) -> list[str]:
    """Split on commas outside brackets ('eth[0,1],eth4' -> ['eth[0,1]', 'eth4'])."""
    parts, depth, cur = [], 0, ""
    for c in spec:
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


_NATURAL = re.compile(r"(\d+)")


@lru_cache(maxsize=1 << 18)  # the same device and port names are sorted again and again (a fabric has ~10^5)
def natural_key(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in _NATURAL.split(name))


def compress_interfaces(names: list[str]) -> list[str]:
    """Inverse of expand_interfaces for sorted names sharing a prefix: swp1,swp2,swp3 -> ['swp1-3']."""
    groups: list[tuple[str, int, int]] = []
    singles: list[str] = []
    for n in sorted(names, key=natural_key):
        m = re.match(r"^(.*?)(\d+)$", n)
        if not m or (m.group(2).startswith("0") and len(m.group(2)) > 1):
            singles.append(n)
            continue
        prefix, num = m.group(1), int(m.group(2))
        if groups and groups[-1][0] == prefix and groups[-1][2] == num - 1:
            groups[-1] = (prefix, groups[-1][1], num)
        else:
            groups.append((prefix, num, num))
    out = [p + (str(a) if a == b else f"{a}-{b}") for p, a, b in groups]
    return out + singles
