"""The one escaping of text that came from a device, a file or an inventory, for every output format.

Nothing read from outside may become markup, a terminal control sequence, a forged report line, raw HTML,
the end of the page's own script, or a JSON value a strict parser refuses. Each report module calls these
on the values it prints; the formats' own markup (styles, tables, tags) is written around them.

* :func:`plain` - one line of terminal text: control characters (C0, DEL, C1), line and paragraph
  separators and bidirectional overrides become visible escapes (``\\x1b``, ``\\n``, ``\\u202e``).
* :func:`plain_lines` - text whose line breaks are meant (a rendered fix): each line as :func:`plain`.
* :func:`markup` - :func:`plain`, then Rich's markup escape (``[/x]`` prints as itself).
* :func:`md` - a Markdown table cell or inline text: no raw HTML (``<`` as ``&lt;``), ``|`` escaped, one
  line.
* :func:`md_fence` - a fenced code block that the text cannot close.
* :func:`finite` / :func:`dumps` - JSON without NaN or Infinity (they become null: not known).
* :func:`script_json` - JSON inside an HTML ``<script>`` element that cannot end it, open a comment or a tag.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: what a terminal or a line-based reader takes for something other than a printable character
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(m: re.Match[str]) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def plain(value: Any) -> str:
    """One line of printable text: every control character as a visible escape (tab kept)."""
    s = str(value)
    if s.isprintable():  # the common case: nothing to do
        return s
    return _CONTROL.sub(lambda m: "\t" if m.group() == "\t" else _visible(m), s)


def plain_lines(value: Any) -> str:
    """Text whose line breaks are meant: each line as :func:`plain`, joined by ``\\n``."""
    return "\n".join(plain(line) for line in str(value).split("\n"))


def markup(value: Any) -> str:
    """A value inside Rich markup: printed as itself, on one line."""
    from rich.markup import escape

    return escape(plain(value))


def md(value: Any) -> str:
    """A value in Markdown (a table cell, a list item): one line, no raw HTML, ``|`` escaped."""
    s = str(value).replace("\r\n", " ").replace("\n", " ")
    return plain(s).replace("|", "\\|").replace("<", "&lt;")


def md_fence(text: str, info: str = "") -> list[str]:
    """``text`` as a fenced code block whose fence is longer than any backtick run in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, plain_lines(text), fence]


def finite(data: Any) -> Any:
    """``data`` with every NaN or infinite float replaced by None (not known)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def dumps(data: Any, **kw: Any) -> str:
    """``json.dumps`` that never writes NaN or Infinity (non-finite floats are null)."""
    try:
        return json.dumps(data, allow_nan=False, **kw)
    except ValueError:
        return json.dumps(finite(data), allow_nan=False, **kw)


def script_json(data: Any) -> str:
    """JSON for an HTML ``<script>`` element: ``</`` as ``<\\/``, every other ``<`` as ``\\u003c``, so nothing in
    it can end the element, open a comment or a tag; the JSON reads the same."""
    text = dumps(data, separators=(",", ":"))
    return re.sub("<(?!/)", "\\\\u003c", text).replace("</", "<\\/")


def diagnostic(d: Any) -> str:
    """A ``Diagnostic`` as its text line(s), the file, message and hint as :func:`plain` (one line each)."""
    from dataclasses import replace

    if all(plain(v) == v for v in (d.file, d.message, d.hint)):
        return d.format()
    return replace(d, file=plain(d.file), message=plain(d.message), hint=plain(d.hint)).format()


__all__ = ["diagnostic", "dumps", "finite", "markup", "md", "md_fence", "plain", "plain_lines", "script_json"]
