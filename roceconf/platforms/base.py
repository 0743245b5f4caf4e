"""What every platform module provides: the one contract of a platform driver.

A platform lives in one place: ``roceconf/platforms/<name>/``, ``templates/<name>/`` (its Jinja2 templates) and
``tests/fixtures/<name>/`` (recorded configs with expected states). Adding a vendor touches nothing else: the
registry discovers the package by name. The package holds one file per responsibility:

* ``__init__.py``: ``PLATFORM = Platform(...)`` (below), assembled from the files beside it (host NICs:
  :func:`host_nic`);
* ``syntax.py``: the vocabulary of the platform's config the others share (keywords, documents, readers);
* ``parser.py``: config text -> :class:`roceconf.state.DeviceState` (``Platform.parse``, ``parse_shared``);
* ``render.py``: the template filters (``Platform.filters``), conversions the templates call;
* ``capabilities.py``: what the config can state (``Platform.capabilities``, each limit with its source);
* ``readback.py`` (hosts): read-back commands and their outputs simulated from a state (the loopback lab);
* ``counters.py``: ``COUNTERS = CounterSpec(...)`` (:mod:`roceconf.counters.model`), read by ``roceconf health``;
* ``bom.py``: the bill of materials read from the device (``roceconf acceptance``).

Negation / remediation of merge-applied CLIs is the one :func:`negate_stale_lines` here, configured per
platform (``Platform.negate_stale``). A platform imports only from the foundation layer (``roceconf.state``,
``roceconf.counters``, ``roceconf.names``, ``roceconf.units``, ...): see ``tests/test_layers.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, TypeVar

from roceconf.state import DeviceState

Kind = Literal["switch", "nic"]
E = TypeVar("E", bound=Exception)

#: Interface fields a platform may set differently per port.
ALL_PORT_FIELDS = frozenset({"mtu", "trust", "pfc", "pfc_watchdog", "link_pause", "ecn", "scheduling"})


@dataclass(frozen=True)
class Fact:
    """A number with the source it comes from (shown by validation and docs)."""

    value: int
    source: str


@dataclass(frozen=True)
class Capabilities:
    min_mtu: Fact
    max_mtu: Fact
    max_lossless_priorities: Fact
    #: Interface fields that may differ from port to port on this platform.
    per_port: frozenset[str] = ALL_PORT_FIELDS
    #: Canonical hash fields the platform can express (see roceconf.state.HASH_FIELDS).
    hash_fields: tuple[str, ...] = ()
    hash_seed: bool = False
    hash_symmetric: bool = False
    #: PFC watchdog fields the config can state.
    watchdog_fields: frozenset[str] = frozenset()
    watchdog_actions: tuple[str, ...] = ()
    #: ECN thresholds are stored in multiples of this many bytes by the config syntax.
    ecn_quantum_bytes: int = 1
    #: PFC watchdog timers are stated in multiples of this many milliseconds by the config syntax.
    watchdog_quantum_ms: int = 1
    #: ECN thresholds are stated as "bytes" of queue depth, or as a "percent" fill level of the queue's buffer
    #: share (Junos drop profiles): then the intent must give the platform's own value (no conversion).
    ecn_units: str = "bytes"
    #: Inclusive (min, max) ranges of PFC watchdog values the config syntax accepts, by state field
    #: (``detection_polls`` = detection_ms / polling_ms); a value outside is refused by validation.
    watchdog_ranges: tuple[tuple[str, int, int], ...] = ()
    #: Source of ``watchdog_ranges``.
    watchdog_ranges_source: str = ""
    #: The rendered DSCP map replaces the device's table (the config deletes or flushes it first), so a
    #: partial render (a drift fix) must carry the whole map, not only the drifted entries.
    dscp_map_replaced: bool = False
    #: DSCP matches add up (NX-OS class-map 'match dscp'): a DSCP moved to another class stays matched by
    #: the class it was in until that match is removed.
    dscp_match_additive: bool = False
    #: The fix is merged into the running config and keeps list members the intent lacks (NVUE: an extra
    #: switch-priority under qos pfc): the drift report asks for their removal by hand.
    extra_members_stay: bool = False
    #: Every DSCP 0-63 the intent does not name is mapped to the intent's default class
    #: (:func:`roceconf.intent.desired.dscp_homes`), so no DSCP keeps a platform default class.
    every_dscp_mapped: bool = False
    #: Queues (TCs) left at a strict-priority default unless configured: given the render hints, the TCs the
    #: desired state sets to round robin when the intent does not use them. None = nothing to do.
    unused_queues_round_robin: Callable[[dict[str, str]], tuple[int, ...]] | None = None
    #: A round-robin queue makes the queues numbered below it round robin too (strict queues must be the
    #: highest-numbered): an unused queue above the highest strict queue then stays at its strict default
    #: rather than be set round robin, which would demote the strict (CNP) queue.
    round_robin_demotes_lower: bool = False
    #: Does the platform state a traffic-class MTU apart from the port MTU (NX-OS network-qos class 'mtu')?
    #: The desired state then carries ``class_mtu`` (the largest port MTU of the device).
    class_mtu: bool = False
    #: Dynamic load balancing: intent mode (``platform``, ``flowlet``, ``per-packet``, ``assigned-flow``) ->
    #: the state's ``ecmp.dynamic`` value the config states; a mode not listed is refused (RC160).
    dlb_modes: tuple[tuple[str, str], ...] = ()
    #: The flowlet inactivity interval can be stated (``ecmp.dynamic.flowlet_gap``).
    dlb_flowlet_gap: bool = False
    #: Hashing on the RoCE BTH destination QP: "config" (a statement), "default" (on by default where the
    #: ASIC supports it, no statement: warned, RC162), "" (no documented way: refused, RC161).
    hash_dest_qp: str = ""
    #: ``extra_config`` lines have a verbatim place in the rendered config (a CLI text; never a structured
    #: document or a host script, RC164).
    extra_config: bool = False
    #: Settings the platform's configuration gained in a later release: (feature, first release, source).
    #: Features: ``qos`` (the QoS configuration as a whole), ``pfc_watchdog``. A device on an older release
    #: whose desired state renders the feature is refused (RC167).
    introduced: tuple[tuple[str, str, str], ...] = ()
    #: Primary sources of the DLB / QP-hashing / extra_config capabilities above.
    lb_source: str = ""
    #: Does the platform's config express ECN / scheduling at all?
    ecn: bool = True
    scheduling: bool = True
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Platform:
    name: str
    kind: Kind
    title: str
    #: Extension of the rendered / backed-up config file: DIR/<device>.<extension>
    extension: str
    capabilities: Capabilities
    #: parse(text) -> DeviceState. Must never raise; problems become state.warnings.
    parse: Callable[[str], DeviceState]
    #: Extra Jinja2 filters for this platform's templates (conversions live in Python).
    filters: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: napalm driver name, or None where napalm has no driver.
    napalm_driver: str | None = None
    #: netmiko device_type used when napalm has no driver (or for CLI read-back).
    netmiko_device_type: str | None = None
    #: Commands whose output, concatenated, is what ``parse`` reads (live collection).
    collect_commands: tuple[str, ...] = ()
    #: How `roceconf apply` pushes a rendered config: "napalm" (merge/compare/commit), "junos-cli"
    #: (load set + commit confirmed over SSH), "nvue-patch" (nv config patch + apply --confirm),
    #: "sonic-config-load" (config load + config qos reload), "script" (host NIC script over SSH).
    apply_method: str | None = None
    #: ``ansible_network_os`` values (fnmatch patterns) of the Ansible collections for this platform, so a
    #: user's inventory maps to it without roceconf variables (``roceconf.inventory``).
    ansible_network_os: tuple[str, ...] = ()
    #: Main template, relative to templates/<name>/.
    template: str = "device.j2"
    #: Rendering hints from the device's ASIC and model (intent `asic:`/`model:`), e.g. which queue keyword
    #: the switch family uses. Stored in DeviceState.hints; never compared.
    render_hints: Callable[[str | None, str | None], dict[str, str]] | None = None
    #: For hosts: commands to read back a device, given its desired state (interface names).
    #: Default: ``collect_commands``.
    readback_commands: Callable[[DeviceState], list[str]] | None = None
    #: For hosts: answer one read-back command from a state, formatted like the real tool
    #: (used by the loopback lab's Linux host). None where the platform is a switch.
    simulate: Callable[[DeviceState, str], str | None] | None = None
    #: For merge-applied CLIs: commands that remove stale interface-level lines (given the running config,
    #: the source lines of the drifted fields and the rendered fix), see :func:`negate_stale_lines`.
    negate_stale: Callable[[str, list[int], str], str] | None = None
    #: ``parse(text)`` sharing the work with earlier texts of one audit (``memo``: a dict the caller keeps
    #: for the run); the states it returns share their read-only values. None: every text is parsed.
    parse_shared: Callable[[str, dict], DeviceState] | None = None
    #: Documented OS releases whose configuration syntax differs, oldest first. The device's release (intent
    #: `os_version:`, else ``release_of_model(model)``, else the newest listed here) is put in
    #: ``DeviceState.hints["os_version"]``; templates test it with ``release_at_least(s, "5.15")``.
    releases: tuple[str, ...] = ()
    #: The release a device model implies, where the platform documents one (None: not derivable).
    release_of_model: Callable[[str | None], str | None] | None = None

    def release(self, os_version: str | None, model: str | None) -> str | None:
        """The release whose syntax a device's config follows (see ``releases``)."""
        if os_version:
            return os_version
        if self.release_of_model is not None:
            derived = self.release_of_model(model)
            if derived:
                return derived
        return self.releases[-1] if self.releases else None
    #: Full-match regular expression of the interface names the intent may use on this platform (checked
    #: on every expanded name before anything is rendered, see roceconf.names). None: Linux netdev names.
    interface_pattern: str | None = None
    #: Examples of valid interface names, for messages.
    interface_example: str = ""

    def commands_for(self, desired: DeviceState) -> list[str]:
        if self.readback_commands is not None:
            return self.readback_commands(desired)
        return list(self.collect_commands)


def host_nic(
    name: str,
    title: str,
    parser: ModuleType,
    readback: ModuleType,
    filters: dict[str, Callable[..., Any]],
    **limits: Any,
) -> Platform:
    """A Linux host NIC platform: the rendered file is an idempotent bash script (``.sh``) run on the host
    ("script"), read back as a bundle of command outputs (``readback``: ``readback_commands`` and the lab's
    ``simulate``; ``parser``: ``parse`` and ``parse_shared`` read the script and the bundle). The script
    replaces the port's DSCP map and maps every DSCP; ECN marking is the switch's, scheduling is stated.
    ``limits``: the other :class:`Capabilities` fields (``min_mtu``, ``max_mtu``, ``max_lossless_priorities``,
    ``notes``, ``per_port``), each limit with its source."""
    return Platform(
        apply_method="script",
        name=name,
        kind="nic",
        title=title,
        extension="sh",
        capabilities=Capabilities(
            dscp_map_replaced=True, every_dscp_mapped=True, ecn=False, scheduling=True, **limits
        ),
        parse=parser.parse,
        parse_shared=parser.parse_shared,
        filters=filters,
        readback_commands=readback.readback_commands,
        simulate=readback.simulate,
    )


def refusals(
    commands: list[tuple[int, list[str]]],
    check: Callable[[list[str]], None],
    refused: type[E],
    message: Callable[[E], str] = str,
) -> list[tuple[int, str, str]]:
    """[(line, command, message)] for every command of a script (``(line, argv)``) that ``check`` refuses by
    raising ``refused`` (a tool's grammar restated: iproute2, mlnx_qos); ``message``: what the tool prints."""
    bad = []
    for n, argv in commands:
        try:
            check(argv)
        except refused as exc:
            bad.append((n, " ".join(argv), message(exc)))
    return bad


def version_key(version: str) -> tuple[int, ...]:
    """'5.15' -> (5, 15), '23.4R1' -> (23, 4, 1): release strings compared number by number."""
    return tuple(int(x) for x in re.findall(r"[0-9]+", version))


def release_at_least(state: DeviceState, version: str) -> bool:
    """Does the state's release (``hints["os_version"]``, default: the platform's newest documented
    release) use the syntax introduced in ``version``? Unknown platforms/releases count as newest."""
    current = state.hints.get("os_version")
    if not current:
        return True
    return version_key(current) >= version_key(version)


#: Marker line that starts one command's output in a read-back bundle (hosts).
BUNDLE_MARK = "#>>> "


def join_outputs(outputs: dict[str, str]) -> str:
    """Several command outputs as one text file (what a NIC backup or live read-back looks like)."""
    parts = []
    for cmd, out in outputs.items():
        parts.append(f"{BUNDLE_MARK}{cmd}\n{out.rstrip(chr(10))}\n")
    return "".join(parts)


def split_outputs(text: str) -> list[tuple[str, int, str]]:
    """Inverse of join_outputs: [(command, first line number of its output, output)]."""
    out: list[tuple[str, int, str]] = []
    cmd: str | None = None
    start = 0
    buf: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith(BUNDLE_MARK):
            if cmd is not None:
                out.append((cmd, start, "\n".join(buf)))
            cmd, start, buf = line[len(BUNDLE_MARK) :].strip(), n + 1, []
        elif cmd is not None:
            buf.append(line)
    if cmd is not None:
        out.append((cmd, start, "\n".join(buf)))
    return out


_PAUSE_LINE = re.compile(r"^\s*(RX|TX):\s*(on|off)\s*$")


def ethtool_pause(lines: list[str]) -> tuple[bool | None, bool | None, list[int]]:
    """``ethtool -a <if>`` output (hosts): (RX pause on, TX pause on, indexes of those lines in ``lines``);
    None where the output has no such line."""
    rx = tx = None
    where: list[int] = []
    for k, line in enumerate(lines):
        m = _PAUSE_LINE.match(line)
        if m:
            if m.group(1) == "RX":
                rx = m.group(2) == "on"
            else:
                tx = m.group(2) == "on"
            where.append(k)
    return rx, tx, where


#: a line shlex splits exactly like str.split(): printable ASCII and spaces/tabs, no quote or backslash
_PLAIN_WORDS = re.compile(r"[ \t!#-&(-\[\]-~]*")


#: one piece of a POSIX shell word (shlex's rules: whitespace is space, tab, CR and LF only), or whitespace
_PIECE = re.compile(r"""[^ \t\r\n'"\\]+|'[^']*'|"(?:[^"\\]|\\[\s\S])*"|\\[\s\S]|[ \t\r\n]+""")
#: a backslash in double quotes: it escapes only '"' and '\\' (shlex's escapedquotes)
_DQ_ESCAPE = re.compile(r"\\([\s\S])")


def _dq(m: re.Match[str]) -> str:
    return m.group(1) if m.group(1) in "\"\\" else m.group(0)


def split_words(line: str) -> list[str]:
    """``shlex.split(line)`` (POSIX rules; raises ValueError on unbalanced quotes or a trailing backslash),
    in time linear in the line (shlex grows each word a character at a time: quadratic in a long word),
    with a fast path for the common line without quotes, escapes or other whitespace than space and tab."""
    if _PLAIN_WORDS.fullmatch(line):
        return line.split()
    words: list[str] = []
    word: list[str] = []
    started = False  # a word has begun (an empty quoted string is a word)
    pos, end = 0, len(line)
    while pos < end:
        m = _PIECE.match(line, pos)
        if m is None:
            raise ValueError("No escaped character" if line[pos] == "\\" else "No closing quotation")
        piece, pos = m.group(), m.end()
        first = piece[0]
        if first in " \t\r\n":
            if started:
                words.append("".join(word))
                word, started = [], False
            continue
        started = True
        if first == "'":
            word.append(piece[1:-1])
        elif first == '"':
            word.append(_DQ_ESCAPE.sub(_dq, piece[1:-1]))
        elif first == "\\":
            word.append(piece[1])
        else:
            word.append(piece)
    if started:
        words.append("".join(word))
    return words


def negate_stale_lines(
    text: str,
    lines: list[int],
    fix: str,
    indent: str = "   ",
    blocks: tuple[str, ...] = ("interface ",),
) -> str:
    """``no`` commands for lines of a running config that a merged fix would leave behind.

    For indentation-structured CLIs (EOS, NX-OS) whose fixes are merged into the running config: each given
    line that sits (at any depth) inside a top-level block whose header starts with one of ``blocks`` and
    does not appear (stripped) anywhere in ``fix`` is stale - an interface-level override, or a line added
    out of band to an object roceconf owns - and is negated under its parent headers, e.g.
    ``interface Ethernet2`` / ``no priority-flow-control priority 3 drop``. Lines in other blocks are
    never negated: they can carry settings the fix does not re-state. Shown negations (``no shutdown``)
    are left alone."""
    src = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    wanted = {ln.strip() for ln in fix.splitlines() if ln.strip()}

    def depth(line: str) -> int:
        return len(line) - len(line.lstrip(" \t"))

    out: dict[tuple[str, ...], list[str]] = {}
    for n in sorted(set(lines)):
        if not 1 <= n <= len(src):
            continue
        line = src[n - 1]
        body = line.strip()
        if not body or depth(line) == 0 or body in wanted or body.startswith(("!", "#", "no ")):
            continue
        chain: list[str] = []
        level = depth(line)
        for i in range(n - 2, -1, -1):
            cand = src[i]
            if cand.strip() and depth(cand) < level:
                chain.insert(0, cand.rstrip())
                level = depth(cand)
                if level == 0:
                    break
        if not chain or depth(chain[0]) != 0 or not chain[0].startswith(blocks):
            continue
        cmds = out.setdefault(tuple(chain), [])
        if f"no {body}" not in cmds:
            cmds.append(f"no {body}")
    text_out = []
    for chain, cmds in out.items():
        text_out += [f"{indent * k}{head.strip()}" for k, head in enumerate(chain)]
        text_out += [f"{indent * len(chain)}{c}" for c in cmds]
    return "\n".join(text_out) + "\n" if text_out else ""


def parse_shared_by_line(
    parse: Callable[[str], DeviceState],
    text: str,
    memo: dict,
    name_of: Callable[[list[str], int], str | None],
    blank: Callable[[list[str], int], bool] | None = None,
    text_of: Callable[[str], str] = str.strip,
) -> DeviceState:
    """``parse(text)`` for the configs of one audit, sharing the work between devices whose configs differ
    only by the one line that names them and by lines the parser reads as nothing.

    ``name_of(lines, i)``: the name line ``i`` gives the device, exactly as the parser reads it, or None;
    ``blank(lines, i)``: line ``i`` is one the parser reads as nothing whatever it says (a comment);
    ``text_of(line)``: the text the parser records as the hostname's source for the naming line.

    The text with the naming line cut out (its number kept) and the blank lines blanked is the key. The
    first text of a key is parsed, and kept only when its parse took its hostname from that line alone:
    ``hostname`` is the line's name and ``sources["hostname"]`` that one line, as ``text_of`` gives it,
    with no warning on it. A later text of the key gets a copy of that state with its own name and line
    (``DeviceState.named``: the copies share their values, read-only). Texts with another number of
    naming lines, or CR line ends, are parsed."""
    if not isinstance(text, str) or "\r" in text:
        return parse(text)
    lines = text.split("\n")
    found = [(i, name) for i in range(len(lines)) if (name := name_of(lines, i)) is not None]
    if len(found) != 1:
        return parse(text)
    n, name = found[0]
    key = "\n".join(
        "\x00" if i == n else "#" if blank is not None and blank(lines, i) else raw for i, raw in enumerate(lines)
    )
    base = memo.get(key)
    if base is None:
        state = parse(text)
        src = state.sources.get("hostname")
        if (
            state.hostname == name
            and src is not None
            and src.lines == [n + 1]
            and src.text == text_of(lines[n])
            and all(w.line != n + 1 for w in state.warnings)
        ):
            memo[key] = state
        return state
    return base.named(name, n + 1, text_of(lines[n]))
