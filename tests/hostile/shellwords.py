"""A bash word reader for the hostile-script tests: what bash splits a generated script into, without running it.

`tokens(script)` yields ``(kind, raw, value, active)``: kind ``W`` (a word or part of one around a command
substitution), ``OP`` (operator), ``NL`` (end of a command line), ``C`` (comment), ``H`` (a here-document
line), ``(`` / ``)`` around the words of a ``$(...)``. ``value`` is what bash makes of the quoting (single,
double, ``$'...'``, backslash); ``active`` counts what bash would expand in it (``$x``, ``${x}``, backticks,
command substitutions, unquoted glob characters). Both sides of a comparison are read by this same reader, so
what it simplifies (arithmetic, case patterns) cancels out; what it must get right is quoting, which
:func:`bash_words` checks against bash itself.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_MESSAGE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")

_OPS = ("<<<", "<<-", ";;&", ";;", "&&", "||", "<<", ">>", ">&", "<&", "|&", "&>", ";", "&", "|", "<", ">", "(", ")")
_SIMPLE = {"n": b"\n", "t": b"\t", "r": b"\r", "a": b"\a", "b": b"\b", "e": b"\x1b", "E": b"\x1b",
           "f": b"\f", "v": b"\v", "\\": b"\\", "'": b"'", '"': b'"', "?": b"?"}


def _ansi_c(s: str, i: int) -> tuple[bytes, int]:
    """Decode $'...' from just after the opening quote; return (bytes, index after the closing quote)."""
    out = bytearray()
    while s[i] != "'":
        if s[i] == "\\":
            c = s[i + 1]
            if c in _SIMPLE:
                out += _SIMPLE[c]
                i += 2
            elif c == "x":
                j = i + 2
                while j < i + 4 and s[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(s[i + 2 : j], 16))
                i = j
            elif c in "01234567":
                j = i + 1
                while j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1 : j], 8) & 0xFF)
                i = j
            else:
                out += ("\\" + c).encode()
                i += 2
        else:
            out += s[i].encode()
            i += 1
    return bytes(out), i + 1


def _skip_quoted(s: str, i: int) -> int:
    """Index after the quoted or substituted construct starting at s[i] (for finding a matching paren)."""
    if s.startswith("$'", i):
        return _ansi_c(s, i + 2)[1]
    if s[i] == "'":
        return s.index("'", i + 1) + 1
    if s[i] == '"':
        i += 1
        while s[i] != '"':
            if s[i] == "\\":
                i += 2
            elif s.startswith("$(", i):
                i = _match(s, i + 2) + 1
            else:
                i += 1
        return i + 1
    if s[i] == "\\":
        return i + 2
    raise AssertionError(s[i])


def _match(s: str, i: int) -> int:
    """Index of the ')' that closes the '(' just before s[i]."""
    depth = 1
    while True:
        c = s[i]
        if c in "'\"\\" or s.startswith("$'", i):
            i = _skip_quoted(s, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1


def tokens(s: str) -> list[tuple[str, str, str, int]]:
    out: list[tuple[str, str, str, int]] = []
    heredocs: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t":
            i += 1
            continue
        if s.startswith("\\\n", i):
            i += 2
            continue
        if c == "\n":
            out.append(("NL", "\n", "\n", 0))
            i += 1
            for delim in heredocs:
                while True:
                    end = s.find("\n", i)
                    line = s[i : end if end >= 0 else n]
                    i = end + 1 if end >= 0 else n
                    if line == delim or i >= n:
                        break
                    out.append(("H", line, line, 0))
            heredocs = []
            continue
        if c == "#":
            end = s.find("\n", i)
            end = n if end < 0 else end
            out.append(("C", s[i:end], s[i:end], 0))
            i = end
            continue
        op = next((o for o in _OPS if s.startswith(o, i)), None)
        if op:
            out.append(("OP", op, op, 0))
            i += len(op)
            if op in ("<<", "<<-"):
                while s[i] in " \t":
                    i += 1
                start = len(out)
                i = _word(s, i, out)
                heredocs.append("".join(t[2] for t in out[start:]))
            continue
        i = _word(s, i, out)
    return out


def _word(s: str, i: int, out: list[tuple[str, str, str, int]]) -> int:
    raw_start, value, active = i, bytearray(), 0

    def flush() -> None:
        out.append(("W", s[raw_start:i], value.decode("utf-8", "replace"), active))

    while i < len(s) and s[i] not in " \t\n;&|()<>":
        c = s[i]
        if s.startswith("$'", i):
            b, i = _ansi_c(s, i + 2)
            value += b
        elif c == "'":
            j = s.index("'", i + 1)
            value += s[i + 1 : j].encode()
            i = j + 1
        elif c == "\\":
            value += s[i + 1].encode()
            i += 2
        elif c == '"':
            i += 1
            while s[i] != '"':
                if s[i] == "\\" and s[i + 1] in '$`"\\\n':
                    value += s[i + 1].encode()
                    i += 2
                elif s.startswith("$(", i):
                    flush()
                    i = _subst(s, i, out)
                    raw_start, value, active = i, bytearray(), 1
                elif s[i] == "$" and (s[i + 1].isalnum() or s[i + 1] in "_{@*#?!$-"):
                    active += 1
                    value += s[i].encode()
                    i += 1
                elif s[i] == "`":
                    active += 1
                    value += s[i].encode()
                    i += 1
                else:
                    value += s[i].encode()
                    i += 1
            i += 1
        elif s.startswith("$(", i):
            flush()
            i = _subst(s, i, out)
            raw_start, value, active = i, bytearray(), 1
        else:
            if c in "$`*?[":
                active += 1
            value += c.encode()
            i += 1
    flush()
    return i


def _subst(s: str, i: int, out: list[tuple[str, str, str, int]]) -> int:
    """The words of the $(...) at s[i] into out; index after its ')'."""
    end = _match(s, i + 2)
    out.append(("(", "$(", "$(", 1))
    out.extend(tokens(s[i + 2 : end]))
    out.append((")", ")", ")", 1))
    return end + 1


def bash_words(raws: list[str], cwd: Path) -> list[str]:
    """What bash makes of each raw word (each must be exactly one word): ``printf '%s\\0'`` over them."""
    if not raws:
        return []
    script = "\n".join(f"printf '%s\\0' {r}" for r in raws) + "\n"
    res = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=cwd, capture_output=True,
                         timeout=10)
    assert res.returncode == 0, res.stderr
    return res.stdout.decode("utf-8", "replace").split("\0")[:-1]


def check_inert(hostile: str, placeholder: str, swaps: dict[str, str], cwd: Path) -> int:
    """``hostile`` is ``placeholder`` generated with each key of ``swaps`` replaced by its value: both must
    have the same commands, lines and expansions, each hostile value inside one word whose value bash reads
    as exactly the placeholder's word with the value in. Returns the number of hostile words checked."""
    th, tp = tokens(hostile), tokens(placeholder)
    kinds_h = [(k, r if k == "OP" else "") for k, r, _, _ in th]
    kinds_p = [(k, r if k == "OP" else "") for k, r, _, _ in tp]
    assert kinds_h == kinds_p, "the hostile values changed the script's structure (lines, commands, operators)"
    checked: list[tuple[str, str]] = []
    for (k, raw_h, val_h, act_h), (_, _, val_p, act_p) in zip(th, tp, strict=True):
        if k != "W":
            continue
        want = val_p
        for ph, hv in swaps.items():
            want = want.replace(ph, hv)
        # inside a double-quoted message a control character or line separator is written as '?'
        assert val_h in (want, _MESSAGE_CONTROL.sub("?", want)), f"word {raw_h!r} reads as {val_h!r}, want {want!r}"
        assert act_h == act_p, f"word {raw_h!r} expands something the placeholder's word does not"
        if val_h != val_p and act_h == 0:
            checked.append((raw_h, val_h))
    got = bash_words([r for r, _ in checked], cwd)
    assert got == [v for _, v in checked], "bash reads a hostile word differently"
    return len(checked)
