"""Semantic rules: what a schema cannot see but what breaks RDMA.

Each rule has a stable ID, a severity, a title and a hint. ``docs/rules.md`` is generated from ``RULES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ruamel.yaml import YAML

from roceconf.diagnostics import DEFAULT_HINTS
from roceconf.intent.fabric import Fabric
from roceconf.intent.guards import HARDENING_RULES

#: Ethernet header 14 + 802.1Q tag 4 + FCS 4 (IEEE 802.3 frame format, IEEE 802.1Q tag)
L2_OVERHEAD = 22
#: RoCEv2 headers the NIC subtracts from the netdev MTU: GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4
#: (Linux include/rdma/ib_addr.h iboe_get_mtu())
ROCE_OVERHEAD = 96


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    title: str
    hint: str
    why: str


RULES: dict[str, Rule] = {}
CHECKS: list[Callable[[Fabric], None]] = []


def rule(id: str, severity: str, title: str, hint: str, why: str) -> Rule:
    r = Rule(id, severity, title, hint, why)
    RULES[id] = r
    DEFAULT_HINTS[id] = hint
    return r


def check(fn: Callable[[Fabric], None]) -> Callable[[Fabric], None]:
    CHECKS.append(fn)
    return fn


# Structural diagnostics raised while loading (documented here too so docs/rules.md lists every ID)
for _id, _sev, _t, _h, _w in [
    ("RC000", "error", "File cannot be read", "check the path and permissions", "nothing can be checked"),
    (
        "RC001",
        "error",
        "YAML syntax error or YAML tag",
        "fix the YAML at the position shown",
        "the file cannot be read safely",
    ),
    (
        "RC002",
        "error",
        "Duplicate key",
        "merge the two entries",
        "the second value would silently replace the first",
    ),
    (
        "RC003",
        "error",
        "Unknown key",
        "use one of the allowed keys (a 'did you mean' hint is given)",
        "a misspelt knob would be ignored",
    ),
    ("RC004", "error", "Wrong type or value", "see docs/intent.md for the field", "the value cannot be used"),
    ("RC005", "error", "Missing required field", "add the field", "the intent is incomplete"),
    (
        "RC006",
        "error",
        "Bad name or interface range",
        "ranges look like gpu[0001-0256], Ethernet1/1-32",
        "devices cannot be expanded",
    ),
    (
        "RC007",
        "error",
        "Unknown profile",
        "define it under profiles:",
        "the device would silently miss settings",
    ),
    (
        "RC008",
        "error",
        "RDMA devices do not pair with interfaces",
        "one RDMA device per interface",
        "NIC settings would land on the wrong port",
    ),
    (
        "RC009",
        "error",
        "Interface listed twice on a device",
        "list each interface once",
        "conflicting settings",
    ),
    ("RC010", "error", "Device defined twice", "rename or remove one", "conflicting settings"),
    ("RC011", "error", "Malformed link entry", "use a+b, rail, mesh or csv", "the topology cannot be built"),
    (
        "RC012",
        "error",
        "Cabling table cannot be read",
        "check the CSV path and columns",
        "the topology cannot be built",
    ),
    *HARDENING_RULES,
]:
    rule(_id, _sev, _t, _h, _w)

R_ROCE_MISSING = rule(
    "RC100",
    "error",
    "No RoCE class (or more than one)",
    "mark exactly one class `role: roce`",
    "roceconf cannot tell which traffic must be lossless",
)
R_ROCE_LOSSY = rule(
    "RC101",
    "error",
    "RoCE class is not lossless",
    "set `lossless: true` on the roce class",
    "RoCE drops trigger go-back-N retransmissions and collapse throughput",
)
R_CNP_LOSSLESS = rule(
    "RC102",
    "error",
    "CNP class is lossless",
    "set `lossless: false` on the cnp class",
    "pausing CNPs delays congestion feedback; CNPs need priority, not PFC",
)
R_CNP_ON_ROCE = rule(
    "RC103",
    "error",
    "CNP shares the RoCE priority",
    "give the cnp class its own priority (e.g. 6)",
    "CNPs queue behind the congested RoCE traffic they are meant to relieve",
)
R_CNP_NOT_STRICT = rule(
    "RC104",
    "error",
    "CNP queue is not strict priority",
    "set `scheduling: {mode: strict}` on the cnp class",
    "delayed CNPs let queues grow to XOFF and PFC storms follow",
)
R_DSCP_TWICE = rule(
    "RC105",
    "error",
    "DSCP value in two classes",
    "remove the DSCP from one class",
    "the device keeps only one mapping; traffic lands in an unintended queue",
)
R_PRIO_DISAGREE = rule(
    "RC106",
    "error",
    "Classes on one priority disagree on lossless",
    "make them agree or use different priorities",
    "PFC is per priority: one class cannot be lossless while the other is lossy",
)
R_ECN_ORDER = rule(
    "RC107",
    "error",
    "ECN min >= max",
    "make min smaller than max",
    "marking would jump from 0 to full probability, or never start",
)
R_ECN_PROB = rule(
    "RC108",
    "error",
    "ECN probability outside 1-100",
    "use a percentage from 1 to 100",
    "not a valid probability",
)
R_ECN_XOFF = rule(
    "RC109",
    "warning",
    "ECN max above the estimated PFC XOFF point",
    "lower ecn.max below the per-port share of the switch buffer",
    "if PFC pauses before ECN marks, congestion spreads by pauses (head-of-line blocking, victim flows). "
    "Estimate: switch buffer / (QoS ports x lossless priorities) from roceconf/data/asics.yaml; a heuristic",
)
R_NIC_MTU = rule(
    "RC110",
    "error",
    "NIC MTU below RoCE path MTU + 96",
    "raise mtu.host_nic (RoCE 4096 needs 4192)",
    "the NIC negotiates a smaller RoCE MTU (iboe_get_mtu subtracts 96 B of RoCE headers)",
)
R_SWITCH_MTU = rule(
    "RC111",
    "error",
    "Switch MTU below NIC MTU + L2 overhead",
    "raise mtu.switch_port to NIC MTU + 22",
    "full-size RoCE frames are dropped silently by the switch; QPs hit retry-exceeded",
)
R_PLATFORM_MTU = rule(
    "RC112",
    "error",
    "MTU outside what the platform supports",
    "use an MTU within the platform's range",
    "the device rejects the config or clamps the MTU",
)
R_LOSSLESS_MAX = rule(
    "RC113",
    "error",
    "More lossless priorities than the platform supports",
    "reduce the lossless classes",
    "each lossless priority reserves per-port headroom; the platform cannot carve more",
)
R_WD_OFF = rule(
    "RC114",
    "warning",
    "PFC watchdog off while a lossless class exists",
    "set qos.pfc_watchdog.enabled: true",
    "a stuck receiver can pause the fabric forever (PFC storm / deadlock)",
)
R_WD_POLL = rule(
    "RC115",
    "error",
    "Watchdog polling >= detection",
    "make polling shorter than detection",
    "the watchdog cannot detect a storm within the detection time",
)
R_ECMP_SPORT = rule(
    "RC116",
    "error",
    "ECMP hash without the UDP source port",
    "add src_port to ecmp.fields",
    "RoCEv2 uses destination port 4791 for every flow; entropy is only in the UDP source port",
)
R_SEED_TIERS = rule(
    "RC117",
    "warning",
    "Same hash seed on two tiers",
    "give each tier its own ecmp.seed (roles: ...)",
    "identical hashing at leaf and spine sends correlated flows down the same links (polarization)",
)
R_LINK_LOSSLESS = rule(
    "RC118",
    "error",
    "Link ends disagree on lossless priorities or MTU",
    "make both ends' policy agree",
    "one-sided PFC is no flow control at all; an MTU mismatch drops full-size frames",
)
R_LINK_UNDEF = rule(
    "RC119",
    "error",
    "Link to an undefined device or interface",
    "fix the name or define the interface",
    "the path cannot be checked and the port is not configured",
)
R_LINK_TWICE = rule(
    "RC120", "error", "Interface in two links", "each interface is cabled once", "a cabling table error"
)
R_INJECT = rule(
    "RC121",
    "error",
    "Unsafe characters in a value that lands in device config",
    "use letters, digits and . _ : / - only",
    "newlines or control characters could inject commands",
)
R_LINK_PAUSE = rule(
    "RC122",
    "error",
    "Link-level pause enabled with PFC",
    "set qos.link_pause: false",
    "802.3x pause and PFC are mutually exclusive; 802.3x pauses all traffic on the link",
)
R_WD_RESTORE = rule(
    "RC123",
    "warning",
    "Watchdog restoration shorter than detection",
    "make restoration >= detection",
    "queues flap between stormed and restored",
)
R_PRIO_QOS_PORT = rule(
    "RC124",
    "error",
    "A link joins a lossless port to a port without the RoCE policy",
    "set qos: true on both ends or on neither",
    "RoCE crosses a hop that drops under congestion",
)
R_BNXT_DSCP = rule(
    "RC125",
    "error",
    "Broadcom NICs accept one RoCE DSCP",
    "give the roce class a single DSCP",
    "bnxt_re supports exactly one RoCE DSCP (one APP TLV)",
)
R_HASH_FIELD = rule(
    "RC126",
    "warning",
    "Hash field not expressible on the platform",
    "check the platform's capabilities",
    "the device hashes differently from the intent",
)
R_NOT_CONFIGURED = rule(
    "RC150",
    "warning",
    "Intent value not configured on the platform",
    "the platform's config cannot state it: choose a value the platform carries, or accept its default",
    "the device runs with another value than the intent states (roceconf.unexpressed: parse(render) "
    "of the device's config differs from the intent in that field)",
)
#: Rules that report one diagnostic per value at the same intent position (not deduplicated by position).
PER_VALUE_RULES = frozenset({"RC150", "RC126"})
R_CABLE_NOT_RENDERED = rule(
    "RC151",
    "info",
    "Cable lengths are not rendered",
    "size headroom with `roceconf check` (RC211 uses the cable lengths); set the switches' cable length "
    "(SONiC CABLE_LENGTH, NVUE/EOS/NX-OS/Junos platform defaults) where your platform needs it",
    "no rendered configuration carries the links' cable lengths: each switch sizes its PFC headroom from its "
    "own setting or default, which may be shorter than the real cable (pause frames arrive late, drops)",
)
R_LOSSY_ECN = rule(
    "RC127", "info", "ECN on a lossy class", "fine for TCP-like traffic; intended?", "informational"
)
R_ASIC_UNKNOWN = rule(
    "RC128",
    "warning",
    "Unknown ASIC",
    "use a name from roceconf/data/asics.yaml",
    "buffer and headroom checks cannot run for this switch",
)
R_CLASS_NAME = rule(
    "RC129",
    "error",
    "Two classes share a name",
    "class names must be unique",
    "overrides address classes by name",
)

R_ECN_UNITS = rule(
    "RC130",
    "error",
    "ECN thresholds cannot be expressed in the platform's unit",
    "state the platform's own value, e.g. `ecn: {..., junos: {min_percent: 55, max_percent: 90}}`",
    "Junos drop profiles state a fill-level percent of the queue's dynamic buffer share; a byte threshold has "
    "no fixed percent equivalent, and a made-up conversion would mark at points unrelated to the intent",
)
R_WD_RANGE = rule(
    "RC131",
    "error",
    "PFC watchdog value outside the range the platform accepts",
    "choose a value inside the range shown (the vendor's schema)",
    "the device refuses the line and keeps its default watchdog timers",
)

R_DLB = rule(
    "RC160",
    "error",
    "Dynamic load balancing mode not available on the platform",
    "use a mode the platform states (docs/intent.md, ecmp.dynamic) or leave ecmp.dynamic unset for it",
    "the device would keep static hashing (or another mode) while the intent counts on dynamic path choice",
)
R_QP_HASH = rule(
    "RC161",
    "error",
    "Hashing on the RoCE BTH destination QP cannot be configured on the platform",
    "set ecmp.hash_dest_qp: false for this device (role/profile override); on Junos give the `model` of an "
    "Evolved device",
    "no documented statement puts the QP in the hash: RoCE entropy stays in the UDP source port",
)
R_QP_DEFAULT = rule(
    "RC162",
    "warning",
    "BTH destination-QP hashing is the platform's default: not configured, not audited",
    "check `show forwarding-options enhanced-hash-key` (RDMA Queue Pair: yes) on the device",
    "Junos OS Evolved hashes on the RDMA QP by default where the ASIC supports it and has no statement for "
    "it; roceconf can neither configure nor audit it (and it is off on LAGs when DLB is on)",
)
R_EXTRA = rule(
    "RC163",
    "warning",
    "extra_config lines are rendered verbatim and not audited",
    "model the setting in roceconf when it can be; check the lines with the vendor's own tools",
    "drift, plan and check do not read these lines; a line that contradicts roceconf's own is not noticed",
)
R_EXTRA_PLATFORM = rule(
    "RC164",
    "error",
    "extra_config has no verbatim place on the platform",
    "remove extra_config for this platform (NVUE patch, SONiC config_db JSON, host NIC scripts)",
    "a structured document has no place for raw lines, and a host script must never run text from the intent",
)
R_EXTRA_GRAMMAR = rule(
    "RC166",
    "error",
    "extra_config line refused by the vendor's own grammar",
    "fix the line (the message quotes the grammar's error), or remove it",
    "the device would refuse the line (a Junos commit fails as a whole); checked where the vendor's schema "
    "is at hand (Junos: Juniper's YANG, $ROCECONF_VENDOR_MODELS), otherwise the line is only warned (RC163)",
)
R_EXTRA_CHARS = rule(
    "RC165",
    "error",
    "extra_config line with a newline or control character",
    "one config line per list item, printable characters only",
    "a newline or control character would smuggle further commands past the one-line-per-item review",
)


@cache
def asic_table() -> dict:
    text = resources.files("roceconf").joinpath("data/asics.yaml").read_text(encoding="utf-8")
    return YAML(typ="safe").load(text) or {}
