"""Indentation-based running-config tree (NX-OS / EOS style) and config-mode line placement.

A real switch knows its command grammar and therefore which line opens a sub-mode and
where an unrelated line falls back to. The lab does not: indented input is placed by its
indentation, unindented input by a small keyword table (block openers, nested openers,
global-only lines). That covers what roceconf and the napalm / netmiko / Ansible clients
send; it is not a full grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Node:
    text: str
    children: list[Node] = field(default_factory=list)

    def find(self, text: str) -> Node | None:
        for child in self.children:
            if child.text == text:
                return child
        return None

    def get_or_add(self, text: str) -> Node:
        node = self.find(text)
        if node is None:
            node = Node(text)
            self.children.append(node)
        return node

    def remove(self, text: str) -> bool:
        """``no <text>``: drop the exact child, else children whose text starts with ``text + ' '``."""
        exact = [c for c in self.children if c.text == text]
        if not exact:
            exact = [c for c in self.children if c.text.startswith(text + " ")]
        if not exact:
            # "no shutdown" style where the stored line is the negated form
            return False
        self.children = [c for c in self.children if c not in exact]
        return True

    def copy(self) -> Node:
        return Node(self.text, [c.copy() for c in self.children])


@dataclass(frozen=True)
class Grammar:
    """Keyword tables of one platform's config syntax."""

    indent: int
    #: Unindented lines that open a top-level block (regex, matched at the start of the line).
    blocks: tuple[str, ...]
    #: Lines that always belong to the global level (leave any sub-mode).
    globals_: tuple[str, ...]
    #: parent-block first word(s) -> regexes of nested block openers.
    nested: dict[str, tuple[str, ...]]
    #: nested block first word -> first words allowed inside it (others fall back to the parent).
    nested_words: dict[str, tuple[str, ...]]
    #: Lines that are skipped when loading text (comments, ``end``).
    comment: str = r"^\s*(!|#|end\s*$|version\s)"
    #: Negations the running config shows as a line of their own (``no shutdown`` on NX-OS).
    shown_negations: tuple[str, ...] = ()

    def is_block(self, line: str) -> bool:
        return any(re.match(p, line) for p in self.blocks)

    def is_global(self, line: str) -> bool:
        return any(re.match(p, line) for p in self.globals_)


_COMMON_BLOCKS = (
    r"interface\s",
    r"policy-map\s",
    r"class-map\s",
    r"router\s",
    r"vrf\s",
    r"vlan\s",
    r"ip access-list\s",
    r"ipv6 access-list\s",
    r"route-map\s",
    r"line\s",
    r"management\s",
    r"spanning-tree mst configuration",
    r"monitor session\s",
)

_COMMON_GLOBALS = (
    r"hostname\s",
    r"feature\s",
    r"username\s",
    r"ntp\s",
    r"logging\s",
    r"snmp-server\s",
    r"ip domain",
    r"ip name-server",
    r"ip route\s",
    r"clock\s",
    r"banner\s",
    r"hardware\s",
    r"platform\s",
    r"port-channel load-balance",
    r"ip load-sharing",
    r"ipv6 load-sharing",
)

_CLASS_WORDS = (
    "set",
    "pause",
    "mtu",
    "congestion-control",
    "bandwidth",
    "priority",
    "random-detect",
    "shape",
    "police",
    "queue-limit",
    "match",
    "description",
    "no",
)

NXOS = Grammar(
    indent=2,
    blocks=_COMMON_BLOCKS + (r"system qos\s*$", r"qos\s", r"priority-flow-control watch-dog\s*$"),
    globals_=_COMMON_GLOBALS
    + (
        r"priority-flow-control watch-dog-interval",
        r"priority-flow-control auto-restore",
        r"priority-flow-control fixed-restore",
        r"priority-flow-control recover",
        r"priority-flow-control watch-dog (interval|shutdown|auto-restore|internal)",
    ),
    nested={"policy-map": (r"class\s",), "router": (r"address-family\s", r"neighbor\s", r"vrf\s")},
    nested_words={"class": _CLASS_WORDS, "address-family": (), "neighbor": (), "vrf": ()},
    shown_negations=("no shutdown", "no switchport", "no ip redirects", "no ipv6 redirects"),
)

EOS = Grammar(
    indent=3,
    blocks=_COMMON_BLOCKS + (r"qos profile\s", r"load-balance\s", r"queue-monitor\s", r"dcbx\s"),
    globals_=_COMMON_GLOBALS
    + (
        r"qos map\s",
        r"qos rewrite\s",
        r"qos random-detect\s",
        r"priority-flow-control pause watchdog default",
        r"service-policy\s",
    ),
    nested={
        "policy-map": (r"class\s",),
        "interface": (r"tx-queue\s", r"uc-tx-queue\s", r"mc-tx-queue\s"),
        "qos": (r"tx-queue\s", r"uc-tx-queue\s", r"mc-tx-queue\s"),
        "router": (r"address-family\s", r"neighbor\s", r"vrf\s"),
    },
    nested_words={
        "class": _CLASS_WORDS,
        "tx-queue": ("random-detect", "bandwidth", "priority", "shape", "no", "queue-limit"),
        "uc-tx-queue": ("random-detect", "bandwidth", "priority", "shape", "no", "queue-limit"),
        "mc-tx-queue": ("random-detect", "bandwidth", "priority", "shape", "no"),
        "address-family": (),
        "neighbor": (),
        "vrf": (),
    },
    # EOS prints these negations in running-config: `no priority` under a tx-queue is a setting (WRR), not a removal
    shown_negations=("no shutdown", "no switchport", "no priority"),
)

GRAMMARS = {"nxos": NXOS, "eos": EOS}

#: Single-valued commands: a new line with the same key replaces the old one (``hostname b``
#: replaces ``hostname a``). The first group is the key.
SINGLETONS = tuple(
    re.compile(p)
    for p in (
        r"^(hostname)\s",
        r"^(mtu)\s",
        r"^(description)\s",
        r"^(speed)\s",
        r"^(load-interval)\s",
        r"^(switchport mode)\s",
        r"^(priority-flow-control mode)\s",
        r"^(priority-flow-control priority \d+)\s",
        r"^(priority-flow-control watch-dog-interval)\s",
        r"^(priority-flow-control watch-dog (?:interval|shutdown-multiplier|auto-restore-multiplier))\s",
        r"^(priority-flow-control pause watchdog default \S+)\s",
        r"^(priority-flow-control pause watchdog (?:port )?action)\s",
        r"^(service-policy (?:type \S+ )?(?:input|output))\s",
        r"^(bandwidth remaining percent)\s",
        r"^(bandwidth percent)\s",
        r"^(bandwidth guaranteed percent)\s",
        r"^(priority level)\s",
        r"^(pause pfc-cos)\s",
        r"^(set qos-group)\s",
        r"^(set traffic-class)\s",
        r"^(qos trust)\s",
        r"^(random-detect ecn)\s",
        r"^(random-detect minimum-threshold)\s",
        r"^(congestion-control)\s",
        r"^(shape rate)\s",
        r"^(ip load-sharing)\s",
        r"^(port-channel load-balance)\s",
        r"^(load-balance sand profile)\s",
    )
)


def singleton_key(line: str) -> str | None:
    for pat in SINGLETONS:
        m = pat.match(line)
        if m:
            return m.group(1)
    return None


def parse(text: str, grammar: Grammar) -> Node:
    """Running-config text -> tree (indentation based; comments and ``end`` skipped)."""
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not raw.strip() or re.match(grammar.comment, raw):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        while stack[-1][0] >= indent:
            stack.pop()
        node = stack[-1][1].get_or_add(line)
        stack.append((indent, node))
    return root


def render(root: Node, grammar: Grammar, *, bang: bool = False) -> str:
    """Tree -> text. ``bang`` puts a ``!`` line after every top-level block (EOS style)."""
    out: list[str] = []

    def walk(node: Node, depth: int) -> None:
        for child in node.children:
            out.append(" " * (grammar.indent * depth) + child.text)
            walk(child, depth + 1)
            if bang and depth == 0 and child.children:
                out.append("!")

    walk(root, 0)
    return "\n".join(out) + ("\n" if out else "")


def mode_name(path: list[Node]) -> str:
    """Prompt sub-mode name, e.g. ``config-if`` for ``host(config-if)#``."""
    if not path:
        return "config"
    text = path[-1].text
    first = text.split()[0] if text.split() else ""
    if first == "interface":
        return "config-if"
    if first == "policy-map":
        return "config-pmap"
    if first == "class-map":
        return "config-cmap"
    if first == "class":
        return "config-pmap-c"
    if text.startswith("system qos"):
        return "config-sys-qos"
    return "config-" + first[:12]


class Editor:
    """One configuration-mode session placing lines into a tree."""

    def __init__(self, root: Node, grammar: Grammar) -> None:
        self.root = root
        self.g = grammar
        #: (indent of the line that opened it, node, opened by a block keyword)
        self.stack: list[tuple[int, Node, bool]] = []

    def context(self) -> list[Node]:
        return [n for _, n, block in self.stack if block]

    def exit(self) -> bool:
        """``exit``: leave one sub-mode. Returns False when already at the global level."""
        while self.stack and not self.stack[-1][2]:
            self.stack.pop()
        if not self.stack:
            return False
        self.stack.pop()
        return True

    def _parent(self) -> Node:
        return self.stack[-1][1] if self.stack else self.root

    def _place_unindented(self, line: str) -> None:
        # Leaf contexts pushed because of indentation are not sub-modes.
        while self.stack and not self.stack[-1][2]:
            self.stack.pop()
        if self.g.is_global(line):
            self.stack.clear()
            return
        if self.g.is_block(line):
            self.stack.clear()
            return
        # Nested opener of one of the open blocks?
        for i in range(len(self.stack) - 1, -1, -1):
            parent_first = self.stack[i][1].text.split()[0]
            for pat in self.g.nested.get(parent_first, ()):
                if re.match(pat, line):
                    del self.stack[i + 1 :]
                    return
        # A nested block only takes its own words; other lines fall back to the parent.
        first = line.split()[0]
        while len(self.stack) > 1:
            own = self.stack[-1][1].text.split()[0]
            words = self.g.nested_words.get(own)
            if words is None or not words or first in words:
                break
            self.stack.pop()

    def _opens(self, line: str) -> bool:
        if self.g.is_block(line):
            return True
        if self.stack:
            parent_first = self.stack[-1][1].text.split()[0]
            return any(re.match(p, line) for p in self.g.nested.get(parent_first, ()))
        return False

    def apply(self, raw: str) -> None:
        """Apply one configuration line (``no ...`` removes)."""
        line = raw.strip()
        if not line or line.startswith("!"):
            return
        indent = len(raw) - len(raw.lstrip(" "))
        if indent > 0 and self.stack:
            while self.stack and self.stack[-1][0] >= indent:
                self.stack.pop()
        else:
            body = line[3:].strip() if line.startswith("no ") else line
            self._place_unindented(body)
            indent = 0
        parent = self._parent()
        if line.startswith("no "):
            positive = line[3:].strip()
            parent.remove(positive)
            if line in self.g.shown_negations:
                parent.get_or_add(line)
            return
        for neg in self.g.shown_negations:  # `priority strict` replaces a shown `no priority`
            if line == neg[3:] or line.startswith(neg[3:] + " "):
                parent.remove(neg)
        opens = self._opens(line)
        key = singleton_key(line)
        same = [c for c in parent.children if key is not None and singleton_key(c.text) == key]
        if same and parent.find(line) is None:
            same[0].text = line  # replace in place, like the switch's own ordering
        parent.children = [c for c in parent.children if c not in same[1:] or c.text == line]
        node = parent.get_or_add(line)
        self.stack.append((indent, node, opens))
