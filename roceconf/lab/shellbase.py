"""The loopback lab's shell base: the common command loop, pipes (``| include`` ...) and junk output."""

from __future__ import annotations

import random
import re
import string
import time

from roceconf.lab.device import Device

BOOT_TIME = time.time()
_JUNK_CHARS = string.ascii_letters + string.digits + " .,:;()[]{}-_=+*/\\'\"\t"


def junk(rng: random.Random | None = None) -> str:
    """Random lines that look like nothing a parser knows."""
    rng = rng or random.Random()
    lines = []
    for _ in range(rng.randint(3, 12)):
        lines.append("".join(rng.choice(_JUNK_CHARS) for _ in range(rng.randint(5, 70))))
    return "\n".join(lines)


def apply_pipes(text: str, pipes: list[str]) -> str:
    """``| include / exclude / begin / section / count / no-more`` on command output."""
    for pipe in pipes:
        words = pipe.split(None, 1)
        if not words:
            continue
        op, arg = words[0], (words[1] if len(words) > 1 else "")
        arg = arg.strip().strip('"')
        lines = text.splitlines()
        if op in ("include", "inc", "i", "grep", "match"):
            lines = [ln for ln in lines if re.search(arg, ln)]
        elif op in ("exclude", "exc", "e", "except"):
            lines = [ln for ln in lines if not re.search(arg, ln)]
        elif op in ("begin", "b"):
            for i, ln in enumerate(lines):
                if re.search(arg, ln):
                    lines = lines[i:]
                    break
            else:
                lines = []
        elif op in ("section", "sec"):
            out, keep = [], False
            for ln in lines:
                if not ln.startswith(" "):
                    keep = bool(re.search(arg, ln))
                if keep:
                    out.append(ln)
            lines = out
        elif op == "count":
            return str(len(lines))
        # no-more, json handled by the caller, anything else: ignored
        text = "\n".join(lines)
    return text


def split_pipes(line: str) -> tuple[str, list[str]]:
    parts = [p.strip() for p in line.split(" | ")]
    return parts[0], parts[1:]


class Shell:
    """Base class: prompt, counters, garbage fault."""

    read_prefixes: tuple[str, ...] = ("show",)
    #: a bash shell answers each command of a list (``a; b``) by itself, counters included
    answers_lists: bool = False

    def __init__(self, device: Device, username: str) -> None:
        self.device = device
        self.username = username
        self.host = device.name
        self.closed = False
        self.rng = random.Random()

    def banner(self) -> str:
        return ""

    def prompt(self) -> str:  # pragma: no cover - overridden
        return f"{self.host}# "

    def is_read(self, line: str) -> bool:
        return line.startswith(self.read_prefixes)

    def feed(self, line: str) -> str:
        """One input line -> output (no prompt). Counts the command, applies the garbage fault."""
        stripped = line.replace("\x00", "").strip()
        if stripped:
            self.device.record(stripped)
        if self.device.fault == "garbage" and self.is_read(stripped):
            return junk(self.rng)
        if stripped and not self.answers_lists:  # bash shells answer per command of a list
            counted = self.device.counter_output(stripped)
            if counted is not None:
                return counted
        return self.handle(line.replace("\x00", ""))

    def handle(self, line: str) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def control(self, char: str) -> str | None:
        """Control character (Ctrl-C / Ctrl-D / Ctrl-Z). Returns output or None if ignored."""
        return None
