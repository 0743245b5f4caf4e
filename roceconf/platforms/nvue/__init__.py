"""NVIDIA Cumulus Linux 5.x managed with NVUE (``nv set`` / ``nv config``).

Three inputs are accepted by :func:`parse` and all become one object tree first:

* the rendered YAML patch / ``startup.yaml`` (a list of ``header`` / ``set`` items),
* ``nv config show -o json`` or the REST ``?rev=applied`` JSON (with or without the ``set`` wrapper),
* ``nv config show -o commands`` / hand-written ``nv set ...`` lines (ranges ``swp1-32`` and lists
  ``swp1,swp3`` in interface, DSCP, switch-priority and traffic-class keys).

The tree is then read for its *meaning*: QoS profiles of each kind (``mapping``, ``pfc``,
``congestion-control``, ``egress-scheduler``, ``link-pause``) apply to a port when the port attaches
them (``interface <p> qos <kind> profile <name>``); ``default-global`` applies to every port that
attaches no profile of that kind. A named profile nobody attaches contributes nothing (warning
``UNUSED``); an attached name that is not defined is a warning ``UNDEFINED``.

Semantics chosen here (documented NVUE behaviour where a source exists):

* trust ``l3`` -> ``dscp``, ``l2`` -> ``pcp``, ``port`` -> ``none``; ``both`` classifies IP packets by
  DSCP (CL QoS guide, classification table), so it reads as ``dscp``.
* DSCP -> switch-priority is composed with ``egress-queue-mapping`` (switch-priority -> traffic-class,
  identity unless stated) to give DSCP -> TC.
* ECN counts for a traffic class unless ``ecn`` is ``disable`` (``red enable`` + ``ecn disable`` is
  WRED drop, not ECN). An entry that does not state ``ecn`` is an "ECN profile" entry and marks by
  default; that is recorded in ``state.defaults``.
* PFC tx/rx default to enabled when a PFC profile states priorities (CL QoS guide, "All PFC
  commands"); that is recorded in ``state.defaults``.
* PFC watchdog: ``robustness`` polling intervals before mitigation, so
  ``detection_ms = robustness * polling-interval`` (polling default 100 ms, CL QoS guide).
* ``qos roce`` is a macro whose effective values are only visible in ``nv show qos roce``: it
  produces a warning (code ``MACRO``) and no values.
* Ports are the ``swp`` interfaces the configuration names, plus any other interface with a ``qos``
  subtree (bonds); management and loopback interfaces without QoS are not ports.
* A port-level mapping profile whose DSCP map differs from ``default-global`` is reported in
  ``Interface.dscp_to_tc``.
* ``ecmp-hash``: the fields stated ``on``; when some of the seven expressible fields are not stated
  at all, a ``PARTIAL`` warning names them (their release default is not guessed).
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML

from roceconf.names import compress_interfaces, natural_key
from roceconf.platforms.base import Capabilities, Fact, Platform, parse_shared_by_line, split_words
from roceconf.platforms.nvue.roce import (
    ROCE_DOC,
    ROCE_ECN,
    ROCE_NO_DROP,
    ROCE_SCHED,
    ROCE_SP_TC,
    ROCE_TRUST,
    roce_plan,
)
from roceconf.render import group_interfaces
from roceconf.state import DeviceState, Ecn, Interface, Pfc, Sched
from roceconf.units import compress_ints, expand_ints, parse_size, parse_time_ms

QOS_DOC = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/"
    "Layer-1-and-Switch-Ports/Quality-of-Service/"
)
NVUE_REF = "https://docs.nvidia.com/networking-ethernet-software/nvue-reference/"

#: NVUE ecmp-hash field -> canonical field (NVUE reference, System Forwarding).
HASH_MAP = {
    "source-ip": "src_ip",
    "destination-ip": "dst_ip",
    "ip-protocol": "ip_proto",
    "source-port": "src_port",
    "destination-port": "dst_port",
    "ingress-interface": "ingress_port",
    "ipv6-label": "flow_label",
}
HASH_NVUE = {v: k for k, v in HASH_MAP.items()}

TRUST_IN = {"l3": "dscp", "both": "dscp", "l2": "pcp", "port": "none"}
TRUST_OUT = {"dscp": "l3", "pcp": "l2", "none": "port"}

TRUE_WORDS = {"on", "enable", "enabled", "true", "yes"}
FALSE_WORDS = {"off", "disable", "disabled", "false", "no"}

DEFAULT_POLLING_MS = 100
DEFAULT_PROFILE = "default-global"

#: QoS profile kinds that ports attach, and the name used for rendered profiles.
KINDS = ("mapping", "pfc", "congestion-control", "egress-scheduler", "link-pause")

#: Keys under ``qos`` that are understood but not part of the vendor-neutral model.
QOS_KNOWN_UNMODELLED = {"traffic-pool", "advance-buffer-config", "remark", "egress-shaper"}
#: Keys inside profiles that are understood but not modelled (buffers, cable length, remarking ...).
PFC_UNMODELLED = {"cable-length", "port-buffer", "xoff-threshold", "xon-threshold"}
CC_UNMODELLED = {"red"}
MAPPING_UNMODELLED = {"pcp", "port-default-sp"}
IFACE_QOS_UNMODELLED = {"remark", "egress-shaper", "headroom", "shared-headroom-pool", "roce", "buffer"}

_SWP = re.compile(r"^swp\d+(s\d+)?$")
_RANGE = re.compile(r"^([a-z_]+(?:\d+s)?)(\d+)-(?:\1)?(\d+)$", re.I)
_PROMPT = re.compile(r"^\S+@\S*\$\s*")
_ROCEISH = re.compile(r"qos|pfc|ecn|roce|mtu|ecmp|hash|watchdog|congestion|trust|dscp|scheduler", re.I)


# ----------------------------------------------------------------------------- object tree
class Node(dict):
    """A mapping of the NVUE tree that remembers the line of its key."""

    def __init__(self, line: int | None = None, text: str = "") -> None:
        super().__init__()
        self.line = line
        self.text = text


@dataclass
class Leaf:
    value: Any
    line: int | None = None
    text: str = ""


def _lines_of(*items: Any) -> list[int]:
    out: list[int] = []
    for it in items:
        line = getattr(it, "line", None)
        if isinstance(line, int):
            out.append(line)
    return out


def _text_of(*items: Any) -> str:
    for it in items:
        t = getattr(it, "text", "")
        if t:
            return t
    return ""


def _copy(x: Node | Leaf) -> Node | Leaf:
    if isinstance(x, Node):
        new = Node(x.line, x.text)
        for k, v in x.items():
            new[k] = _copy(v)
        return new
    return x


def _merge(dst: Node, src: Node) -> None:
    """Deep-merge src into dst (src is copied, never shared); leaves in src win."""
    for k, v in src.items():
        old = dst.get(k)
        if isinstance(v, Node) and isinstance(old, Node):
            _merge(old, v)
        else:
            dst[k] = _copy(v)


#: Upper bound on tree size after YAML aliases are expanded (alias bombs become a warning).
MAX_NODES = 200_000


class _TooBig(ValueError):
    pass


def _from_yaml_obj(
    obj: Any, line: int | None, lines: list[str], budget: list[int] | None = None
) -> Node | Leaf:
    """Convert a ruamel round-trip object into Node/Leaf with 1-based line numbers."""
    budget = budget if budget is not None else [MAX_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig("document too large (YAML aliases expand beyond the size limit)")
    if isinstance(obj, dict):
        node = Node(line, lines[line - 1].strip() if line and line <= len(lines) else "")
        lc = getattr(obj, "lc", None)
        for k, v in obj.items():
            kline = None
            if lc is not None:
                try:
                    pos = lc.key(k)
                    kline = pos[0] + 1 if pos else None
                except (KeyError, TypeError, AttributeError):
                    kline = None
            node[str(k)] = _from_yaml_obj(v, kline, lines, budget)
        return node
    if isinstance(obj, list):
        # Lists only appear at the top (header/set items); keep them as an indexed node.
        node = Node(line)
        lc = getattr(obj, "lc", None)
        for i, v in enumerate(obj):
            iline = None
            if lc is not None:
                try:
                    iline = lc.item(i)[0] + 1
                except (KeyError, TypeError, AttributeError, IndexError):
                    iline = None
            node[f"#{i}"] = _from_yaml_obj(v, iline, lines, budget)
        return node
    text = lines[line - 1].strip() if line and line <= len(lines) else ""
    return Leaf(obj, line, text)


def _from_plain(obj: Any) -> Node | Leaf:
    if isinstance(obj, dict):
        node = Node()
        for k, v in obj.items():
            node[str(k)] = _from_plain(v)
        return node
    if isinstance(obj, list):
        node = Node()
        for i, v in enumerate(obj):
            node[f"#{i}"] = _from_plain(v)
        return node
    return Leaf(obj)


def _unwrap(root: Node | Leaf, st: DeviceState) -> Node:
    """Take the ``set`` part of a startup.yaml / ``nv config show`` document."""
    if not isinstance(root, Node):
        if isinstance(root, Leaf) and root.value not in (None, ""):
            st.warn("no NVUE configuration found (neither 'nv set' lines nor a YAML/JSON tree)", root.line)
        return Node()
    items = [v for k, v in root.items() if k.startswith("#")]
    if items:
        tree = Node()
        if not any(isinstance(it, Node) and "set" in it for it in items):
            st.warn("YAML/JSON list without a 'set' item: nothing to evaluate", root.line)
        for it in items:
            if not isinstance(it, Node):
                continue
            for k, v in it.items():
                if k == "set" and isinstance(v, Node):
                    _merge(tree, v)
                elif k == "unset":
                    st.warn("'unset' item in the patch is not evaluated", it.line, code="IGNORED")
        return tree
    if isinstance(root.get("set"), Node):
        return root["set"]
    return root


def _load_structured(text: str, st: DeviceState) -> Node:
    lines = text.split("\n")
    yaml = YAML(typ="rt", pure=True)
    try:
        obj = yaml.load(io.StringIO(text))
        return _unwrap(_from_yaml_obj(obj, None, lines), st)
    except (_TooBig, RecursionError) as exc:
        st.warn(f"not evaluated: {exc or 'document nests too deeply'}")
        return Node()
    except Exception as exc:  # noqa: BLE001 - any loader failure falls back / becomes a warning
        yaml_error = exc
    try:
        return _unwrap(_from_plain(json.loads(text)), st)
    except Exception:  # noqa: BLE001
        mark = getattr(yaml_error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        st.warn(f"not valid NVUE YAML/JSON: {str(yaml_error).splitlines()[0][:160]}", line)
        return Node()


# presence-only commands: ``nv set qos roce``, ``nv set interface swp1 qos pfc-watchdog``
_PRESENCE = {"roce", "pfc-watchdog"}
# ``nv set qos pfc P switch-priority 3`` adds to a set; store it like the YAML form (key -> {}).
_SET_COLLECTIONS = {("qos", "pfc", "switch-priority"), ("qos", "traffic-pool", "switch-priority")}


def _load_commands(text: str, st: DeviceState) -> Node:
    tree = Node()
    for n, raw in enumerate(text.split("\n"), start=1):
        line = _PROMPT.sub("", raw.strip())
        if not line or line.startswith("#"):
            continue
        try:
            words = split_words(line)  # shlex.split(line), linear in the line
        except ValueError:
            words = line.split()
        if len(words) < 2 or words[0] != "nv":
            if _ROCEISH.search(line):
                st.warn(f"unrecognised line: {line[:120]}", n)
            continue
        if words[1] == "unset":
            if _ROCEISH.search(line):
                st.warn(f"'nv unset' is not evaluated: {line[:120]}", n, code="IGNORED")
            continue
        if words[1] != "set" or len(words) < 3:
            continue  # nv config apply / nv show / ...
        _insert(tree, words[2:], n, raw.strip())
    return tree


def _insert(tree: Node, path: list[str], line: int, text: str) -> None:
    if len(path) == 1 or (path[-1] in _PRESENCE and len(path) >= 2 and path[-2] == "qos"):
        keys, value = path, None
    else:
        keys, value = path[:-1], path[-1]
    if value is not None and len(keys) >= 3 and (keys[0], keys[1], keys[-1]) in _SET_COLLECTIONS:
        keys, value = [*keys, value], None
    node = tree
    for k in keys[:-1]:
        nxt = node.get(k)
        if not isinstance(nxt, Node):
            nxt = Node(line, text)
            node[k] = nxt
        node = nxt
    last = keys[-1]
    if value is None:
        if not isinstance(node.get(last), Node):
            node[last] = Node(line, text)
        else:
            node[last].line = node[last].line or line
    else:
        node[last] = Leaf(value, line, text)


def _is_commands(text: str) -> bool:
    for raw in text.split("\n"):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        s = _PROMPT.sub("", s)
        return s.startswith("nv ") or s == "nv"
    return False


def load_tree(text: str, st: DeviceState) -> Node:
    """Any accepted input -> the NVUE object tree (the content of ``set``)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return Node()
    if _is_commands(text):
        return _load_commands(text, st)
    return _load_structured(text, st)


# ----------------------------------------------------------------------------- value helpers
def _node(x: Any) -> Node:
    return x if isinstance(x, Node) else Node()


def _bool(leaf: Any, st: DeviceState, what: str) -> bool | None:
    if isinstance(leaf, Node):
        # ``state: {enabled: {}}``-like presence forms
        keys = {k.lower() for k in leaf}
        if keys & TRUE_WORDS:
            return True
        if keys & FALSE_WORDS:
            return False
        return None
    if not isinstance(leaf, Leaf):
        return None
    v = leaf.value
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in TRUE_WORDS:
        return True
    if s in FALSE_WORDS:
        return False
    st.warn(f"{what}: not a boolean: {v!r}", leaf.line)
    return None


def _int(leaf: Any, st: DeviceState, what: str, lo: int | None = None, hi: int | None = None) -> int | None:
    if not isinstance(leaf, Leaf):
        if leaf is not None:
            st.warn(f"{what}: expected a value", getattr(leaf, "line", None))
        return None
    v = leaf.value
    try:
        if isinstance(v, bool):
            raise ValueError
        n = int(v) if isinstance(v, int) else int(str(v).strip())
    except (TypeError, ValueError):
        st.warn(f"{what}: not a number: {v!r}", leaf.line)
        return None
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        st.warn(f"{what}: {n} out of range", leaf.line)
        return None
    return n


def _bytes(leaf: Any, st: DeviceState, what: str) -> int | None:
    if not isinstance(leaf, Leaf):
        return None
    try:
        if isinstance(leaf.value, bool):
            raise ValueError
        return parse_size(leaf.value if isinstance(leaf.value, int | float) else str(leaf.value))
    except (TypeError, ValueError):
        st.warn(f"{what}: not a size in bytes: {leaf.value!r}", leaf.line)
        return None


def _expand_ids(key: str) -> list[int] | None:
    try:
        vals = expand_ints(key)
    except ValueError:
        return None
    return vals or None


def _expand_names(key: str) -> list[str] | None:
    out: list[str] = []
    for part in key.split(","):
        part = part.strip()
        if not part:
            return None
        m = _RANGE.match(part)
        if m:
            a, b = int(m.group(2)), int(m.group(3))
            if b < a or b - a > 4096:
                return None
            out.extend(f"{m.group(1)}{i}" for i in range(a, b + 1))
        else:
            out.append(part)
    return out


def _ids(node: Any, st: DeviceState, what: str, hi: int) -> dict[int, Any]:
    """Expand a collection keyed by ids ('4,5,7', '0-3') into id -> merged subtree."""
    out: dict[int, Any] = {}
    if not isinstance(node, Node):
        if isinstance(node, Leaf):
            # command form ``... switch-priority 3,5`` stored as a scalar
            vals = _expand_ids(str(node.value))
            if vals is None or any(v < 0 or v > hi for v in vals):
                st.warn(f"{what}: bad list {node.value!r}", node.line)
                return {}
            return {v: node for v in vals}
        return out
    for key, sub in node.items():
        vals = _expand_ids(key)
        if vals is None or any(v < 0 or v > hi for v in vals):
            st.warn(f"{what}: bad key {key!r}", getattr(sub, "line", None) or node.line)
            continue
        for v in vals:
            old = out.get(v)
            if isinstance(old, Node) and isinstance(sub, Node):
                merged = Node(old.line, old.text)
                _merge(merged, old)
                _merge(merged, sub)
                out[v] = merged
            else:
                out[v] = sub
    return out


# ----------------------------------------------------------------------------- profile readers
@dataclass
class _Profile:
    name: str
    node: Node
    line: int | None
    used: bool = False


@dataclass
class _Mapping:
    trust: str | None = None
    trust_src: list[int] = field(default_factory=list)
    dscp: dict[int, int] = field(default_factory=dict)  # dscp -> switch priority
    dscp_src: dict[int, Leaf] = field(default_factory=dict)


def _read_mapping(p: _Profile, st: DeviceState) -> _Mapping:
    m = _Mapping()
    for key, val in p.node.items():
        if key == "trust":
            t = str(val.value).strip().lower() if isinstance(val, Leaf) else ""
            if t in TRUST_IN:
                m.trust = TRUST_IN[t]
                m.trust_src = _lines_of(val)
            else:
                st.warn(f"qos mapping {p.name}: unknown trust {getattr(val, 'value', val)!r}", _line(val, p))
        elif key == "dscp":
            for d, sub in _ids(val, st, f"qos mapping {p.name} dscp", 63).items():
                sp = _int(_node(sub).get("switch-priority"), st, f"dscp {d} switch-priority", 0, 7)
                if sp is not None:
                    m.dscp[d] = sp
                    m.dscp_src[d] = _node(sub).get("switch-priority")
        elif key not in MAPPING_UNMODELLED:
            st.warn(f"qos mapping {p.name}: unrecognised setting {key!r}", _line(val, p))
    return m


@dataclass
class _PfcProf:
    no_drop: list[int] | None = None
    tx: bool | None = None
    rx: bool | None = None
    src: list[int] = field(default_factory=list)
    text: str = ""


def _read_pfc(p: _Profile, st: DeviceState) -> _PfcProf:
    out = _PfcProf(text=p.node.text)
    for key, val in p.node.items():
        if key == "switch-priority":
            out.no_drop = sorted(_ids(val, st, f"qos pfc {p.name} switch-priority", 7))
            out.src += _lines_of(val, *(val.values() if isinstance(val, Node) else []))
        elif key in ("tx", "rx"):
            setattr(out, key, _bool(val, st, f"qos pfc {p.name} {key}"))
            out.src += _lines_of(val)
        elif key not in PFC_UNMODELLED:
            st.warn(f"qos pfc {p.name}: unrecognised setting {key!r}", _line(val, p))
    return out


def _read_cc(p: _Profile, st: DeviceState) -> dict[int, tuple[Ecn | None, list[int], bool]]:
    """tc -> (Ecn or None when the entry is not ECN marking, source lines, ecn-by-default)."""
    out: dict[int, tuple[Ecn | None, list[int], bool]] = {}
    for key, val in p.node.items():
        if key != "traffic-class":
            if key not in CC_UNMODELLED:
                st.warn(f"qos congestion-control {p.name}: unrecognised setting {key!r}", _line(val, p))
            continue
        for tc, sub in _ids(val, st, f"qos congestion-control {p.name} traffic-class", 7).items():
            sub = _node(sub)
            e = Ecn()
            ecn_on: bool | None = None
            for k, v in sub.items():
                if k == "ecn":
                    ecn_on = _bool(v, st, f"traffic-class {tc} ecn")
                elif k in ("min-threshold", "min-threshold-bytes"):
                    e.min_bytes = _bytes(v, st, f"traffic-class {tc} {k}")
                elif k in ("max-threshold", "max-threshold-bytes"):
                    e.max_bytes = _bytes(v, st, f"traffic-class {tc} {k}")
                elif k == "probability":
                    e.probability = _int(v, st, f"traffic-class {tc} probability", 0, 100)
                elif k not in CC_UNMODELLED:
                    st.warn(f"traffic-class {tc}: unrecognised setting {k!r}", _line(v, p))
            lines = _lines_of(sub, *sub.values())
            if ecn_on is False:
                out[tc] = (None, lines, False)  # RED/WRED drop only: not ECN marking
            else:
                out[tc] = (e, lines, ecn_on is None)
    return out


def _read_sched(p: _Profile, st: DeviceState) -> dict[int, tuple[Sched, list[int]]]:
    out: dict[int, tuple[Sched, list[int]]] = {}
    for key, val in p.node.items():
        if key != "traffic-class":
            st.warn(f"qos egress-scheduler {p.name}: unrecognised setting {key!r}", _line(val, p))
            continue
        for tc, sub in _ids(val, st, f"qos egress-scheduler {p.name} traffic-class", 7).items():
            sub = _node(sub)
            s = Sched()
            for k, v in sub.items():
                if k == "mode":
                    mode = str(getattr(v, "value", "")).strip().lower()
                    if mode in ("strict", "dwrr"):
                        s.mode = mode  # type: ignore[assignment]
                    else:
                        st.warn(f"traffic-class {tc}: unknown scheduler mode {mode!r}", _line(v, p))
                elif k == "bw-percent":
                    s.bandwidth_percent = _int(v, st, f"traffic-class {tc} bw-percent", 0, 100)
                else:
                    st.warn(f"traffic-class {tc}: unrecognised setting {k!r}", _line(v, p))
            out[tc] = (s, _lines_of(sub, *sub.values()))
    return out


def _read_pause(p: _Profile, st: DeviceState) -> tuple[bool | None, list[int]]:
    tx = _bool(p.node.get("tx"), st, f"qos link-pause {p.name} tx") if "tx" in p.node else None
    rx = _bool(p.node.get("rx"), st, f"qos link-pause {p.name} rx") if "rx" in p.node else None
    lines = _lines_of(p.node, p.node.get("tx"), p.node.get("rx"))
    if tx is None and rx is None:
        return True, lines  # a link-pause profile with defaults (tx/rx enabled) is link pause on
    return bool(tx) or bool(rx), lines


def _line(val: Any, p: _Profile | None = None) -> int | None:
    line = getattr(val, "line", None)
    if line is None and p is not None:
        return p.line
    return line


# ----------------------------------------------------------------------------- interpretation
def _interpret(tree: Node, st: DeviceState) -> None:
    system = _node(tree.get("system"))
    host = system.get("hostname")
    if isinstance(host, Leaf) and str(host.value).strip():
        st.hostname = str(host.value).strip()
        st.at("hostname", host.line, host.text)

    if tree.get("qos") is not None and not isinstance(tree.get("qos"), Node):
        st.warn("qos: expected a mapping of QoS settings", _line(tree.get("qos")))
    qos = _node(tree.get("qos"))
    roce = _check_macro(qos, st)

    # switch priority -> traffic class (identity unless stated, the RoCE profile's map with qos roce;
    # NVUE only supports default-global)
    sp_tc: dict[int, int] = dict(ROCE_SP_TC) if roce is not None else {}
    for prof, pnode in _node(qos.get("egress-queue-mapping")).items():
        if prof != DEFAULT_PROFILE:
            st.warn(f"egress-queue-mapping profile {prof!r}: NVUE only supports default-global", _line(pnode))
            continue
        for sp, sub in _ids(_node(pnode).get("switch-priority"), st, "egress-queue-mapping", 7).items():
            tc = _int(_node(sub).get("traffic-class"), st, f"switch-priority {sp} traffic-class", 0, 7)
            if tc is not None:
                sp_tc[sp] = tc
                if tc != sp:
                    st.warn(
                        f"switch-priority {sp} -> traffic-class {tc}: roceconf assumes priority == TC; "
                        "DSCP map composed through it",
                        _line(_node(sub).get("traffic-class")),
                        code="SEMANTIC",
                    )

    profiles: dict[str, dict[str, _Profile]] = {}
    for kind in KINDS:
        kn = qos.get(kind)
        profiles[kind] = {}
        if isinstance(kn, Node):
            for name, pnode in kn.items():
                if isinstance(pnode, Node):
                    profiles[kind][name] = _Profile(name, pnode, pnode.line)
                else:
                    st.warn(f"qos {kind} {name}: expected a profile", _line(pnode))
        elif kn is not None:
            st.warn(f"qos {kind}: expected profiles", _line(kn))
    for key, val in qos.items():
        if (
            key not in KINDS
            and key not in QOS_KNOWN_UNMODELLED
            and key
            not in (
                "egress-queue-mapping",
                "pfc-watchdog",
                "roce",
            )
        ):
            st.warn(f"qos {key}: unrecognised QoS setting", _line(val))

    # device DSCP map (default-global)
    mappings = {n: _read_mapping(p, st) for n, p in profiles["mapping"].items()}
    pfcs = {n: _read_pfc(p, st) for n, p in profiles["pfc"].items()}
    ccs = {n: _read_cc(p, st) for n, p in profiles["congestion-control"].items()}
    scheds = {n: _read_sched(p, st) for n, p in profiles["egress-scheduler"].items()}
    pauses = {n: _read_pause(p, st) for n, p in profiles["link-pause"].items()}
    if roce is not None:
        _apply_roce(roce, profiles, mappings, pfcs, ccs, scheds)

    def tc_of(sp: int) -> int:
        return sp_tc.get(sp, sp)

    device_map: dict[int, int] = {}
    glob = mappings.get(DEFAULT_PROFILE)
    if glob is not None:
        for d in sorted(glob.dscp):
            device_map[d] = tc_of(glob.dscp[d])
            src = glob.dscp_src[d]
            st.dscp_to_tc[str(d)] = device_map[d]
            st.at(f"dscp_to_tc.{d}", src.line, src.text)

    _read_watchdog(_node(qos.get("pfc-watchdog")), st)
    _read_ecmp(_node(system.get("forwarding")), st)

    # ports
    for name, inode, iline in _ports(tree, st):
        itf = Interface()
        path = f"interfaces.{name}"
        st.at(path, iline, inode.text)
        link = _node(inode.get("link"))
        if "mtu" in link:
            itf.mtu = _int(link["mtu"], st, f"interface {name} link mtu", 552, 9216)
            if itf.mtu is not None:
                st.at(f"{path}.mtu", link["mtu"].line, link["mtu"].text)
        if inode.get("qos") is not None and not isinstance(inode.get("qos"), Node):
            st.warn(f"interface {name} qos: unrecognised setting", _line(inode.get("qos")))
        iqos = _node(inode.get("qos"))
        attach: dict[str, tuple[str, Leaf | None]] = {}
        for key, val in iqos.items():
            if key in KINDS:
                pname = _node(val).get("profile")
                if isinstance(pname, Leaf):
                    attach[key] = (str(pname.value), pname)
                else:
                    st.warn(f"interface {name} qos {key}: expected 'profile <name>'", _line(val))
            elif key == "pfc-watchdog":
                wd = _node(val)
                if isinstance(val, Leaf):
                    itf.pfc_watchdog = _bool(val, st, f"interface {name} pfc-watchdog")
                elif "state" in wd:
                    itf.pfc_watchdog = _bool(wd["state"], st, f"interface {name} pfc-watchdog state")
                elif "enable" in wd:
                    itf.pfc_watchdog = _bool(wd["enable"], st, f"interface {name} pfc-watchdog enable")
                else:
                    itf.pfc_watchdog = True  # ``nv set interface swpN qos pfc-watchdog``
                st.at(
                    f"{path}.pfc_watchdog", _lines_of(val, wd.get("state"), wd.get("enable")), _text_of(val)
                )
            elif key not in IFACE_QOS_UNMODELLED:
                st.warn(f"interface {name} qos {key}: unrecognised QoS setting", _line(val))

        def effective(kind: str, _attach: dict = attach, _name: str = name) -> tuple[str | None, list[int]]:
            if kind in _attach:
                pname, leaf = _attach[kind]
                if pname in profiles[kind]:
                    profiles[kind][pname].used = True
                    return pname, _lines_of(leaf)
                st.warn(
                    f"interface {_name} qos {kind} profile {pname!r} is not defined",
                    _line(leaf),
                    code="UNDEFINED",
                )
                return None, []
            if DEFAULT_PROFILE in profiles[kind]:
                profiles[kind][DEFAULT_PROFILE].used = True
                return DEFAULT_PROFILE, []
            return None, []

        # trust + port DSCP map
        pname, alines = effective("mapping")
        if pname is not None:
            m = mappings[pname]
            if m.trust is not None:
                itf.trust = m.trust  # type: ignore[assignment]
                st.at(f"{path}.trust", m.trust_src + alines, _text_of(attach.get("mapping", (0, None))[1]))
            if pname != DEFAULT_PROFILE and m.dscp:
                port_map = {str(d): tc_of(sp) for d, sp in sorted(m.dscp.items())}
                if port_map != {str(d): t for d, t in device_map.items()}:
                    itf.dscp_to_tc = port_map
                    st.at(f"{path}.dscp_to_tc", [x.line for x in m.dscp_src.values() if x.line] + alines)
        # PFC
        pname, alines = effective("pfc")
        if pname is not None:
            p = pfcs[pname]
            itf.pfc = Pfc(no_drop=p.no_drop)
            if p.tx is not None or p.rx is not None or p.no_drop:
                tx = True if p.tx is None else p.tx
                rx = True if p.rx is None else p.rx
                if p.tx is None or p.rx is None:
                    st.defaults.append(f"{path}.pfc.enabled")
                if tx != rx:
                    st.warn(
                        f"interface {name}: PFC {'tx' if tx else 'rx'} only (asymmetric); reported as enabled",
                        p.src[0] if p.src else None,
                        code="SEMANTIC",
                    )
                itf.pfc.enabled = tx or rx
            st.at(f"{path}.pfc", p.src + alines, p.text)
        # ECN
        pname, alines = effective("congestion-control")
        if pname is not None:
            for tc, (e, lines, by_default) in sorted(ccs[pname].items()):
                if e is None:
                    continue
                itf.ecn[str(tc)] = e.model_copy()
                st.at(f"{path}.ecn.{tc}", lines + alines)
                if by_default:
                    st.defaults.append(f"{path}.ecn.{tc}")
        # scheduling
        pname, alines = effective("egress-scheduler")
        if pname is not None:
            for tc, (s, lines) in sorted(scheds[pname].items()):
                itf.scheduling[str(tc)] = s.model_copy()
                st.at(f"{path}.scheduling.{tc}", lines + alines)
        # link pause
        pname, alines = effective("link-pause")
        if pname is not None:
            itf.link_pause, lines = pauses[pname]
            st.at(f"{path}.link_pause", lines + alines)
        st.interfaces[name] = itf

    _watchdog_behaviour(st)
    for kind in KINDS:
        for pname, p in profiles[kind].items():
            if not p.used and pname != DEFAULT_PROFILE:
                st.warn(
                    f"qos {kind} profile {pname!r} is defined but attached to no interface", p.line, "UNUSED"
                )
    st.defaults = sorted(set(st.defaults))


def _check_macro(qos: Node, st: DeviceState) -> tuple[int | None, str] | None:
    """``qos roce``: (line, text) when NVIDIA's lossless RoCE profile applies (its values are filled in,
    see ``roce.py``); other modes (lossy, single ingress pool, multi-TC) give a ``MACRO`` warning."""
    roce = qos.get("roce")
    if roce is None:
        return None
    on: bool | None = True
    rn = _node(roce)
    for key in ("enable", "state"):
        if key in rn:
            on = _bool(rn[key], st, f"qos roce {key}")
    if isinstance(roce, Leaf):
        on = _bool(roce, st, "qos roce")
    if not on:
        return None
    mode = rn.get("mode")
    mode_name = str(mode.value).strip().lower() if isinstance(mode, Leaf) else "lossless"
    line = _line(mode) or _line(roce) or _line(rn.get("enable")) or _line(rn.get("state"))
    if mode_name == "lossless":
        return line, (mode.text if isinstance(mode, Leaf) and mode.text else "qos roce mode lossless")
    st.warn(
        f"qos roce mode {mode_name} is enabled: its values are only visible in 'nv show qos roce' and are "
        "not part of this parse",
        line,
        code="MACRO",
    )
    return None


def _apply_roce(
    roce: tuple[int | None, str],
    profiles: dict[str, dict[str, _Profile]],
    mappings: dict[str, _Mapping],
    pfcs: dict[str, _PfcProf],
    ccs: dict[str, dict[int, tuple[Ecn | None, list[int], bool]]],
    scheds: dict[str, dict[int, tuple[Sched, list[int]]]],
) -> None:
    """NVIDIA's lossless RoCE profile as the base of ``default-global``; explicit entries override it
    (per traffic class; ``ecn disable`` removes the profile's ECN on that class). Source: ``ROCE_DOC``."""
    line, text = roce
    lines = [line] if line else []
    for kind in ("mapping", "pfc", "congestion-control", "egress-scheduler"):
        profiles[kind].setdefault(DEFAULT_PROFILE, _Profile(DEFAULT_PROFILE, Node(), line))
    m = mappings.setdefault(DEFAULT_PROFILE, _Mapping())
    if m.trust is None:
        m.trust, m.trust_src = ROCE_TRUST, list(lines)
    if DEFAULT_PROFILE not in pfcs or pfcs[DEFAULT_PROFILE].no_drop is None:
        base = pfcs.get(DEFAULT_PROFILE) or _PfcProf()
        pfcs[DEFAULT_PROFILE] = _PfcProf(
            no_drop=list(ROCE_NO_DROP),
            tx=True if base.tx is None else base.tx,
            rx=True if base.rx is None else base.rx,
            src=lines + base.src,
            text=text,
        )
    cc: dict[int, tuple[Ecn | None, list[int], bool]] = {
        t: (e.model_copy(), list(lines), False) for t, e in ROCE_ECN.items()
    }
    for t, (e, elines, by_default) in ccs.get(DEFAULT_PROFILE, {}).items():
        if e is None:
            cc.pop(t, None)  # 'ecn disable' on a class the profile marks
            continue
        prior = cc.get(t, (None, [], False))[0]
        if prior is not None:
            e = Ecn(
                min_bytes=prior.min_bytes if e.min_bytes is None else e.min_bytes,
                max_bytes=prior.max_bytes if e.max_bytes is None else e.max_bytes,
                probability=prior.probability if e.probability is None else e.probability,
            )
        cc[t] = (e, elines, by_default)
    ccs[DEFAULT_PROFILE] = cc
    sc = {t: (x.model_copy(), list(lines)) for t, x in ROCE_SCHED.items()}
    sc.update(scheds.get(DEFAULT_PROFILE, {}))
    scheds[DEFAULT_PROFILE] = sc


def _watchdog_behaviour(st: DeviceState) -> None:
    """What NVUE's PFC watchdog does, where the config cannot state it (CL QoS guide, "PFC Watchdog"): a
    stormed queue drops new packets ('discards new incoming packets to this egress queue') and is
    restored after one polling interval without pause frames. Filled whenever the watchdog is
    configured or armed on a port, and listed in ``state.defaults``."""
    wd = st.pfc_watchdog
    armed = any(i.pfc_watchdog for i in st.interfaces.values())
    if not (armed or wd.polling_ms is not None or wd.detection_ms is not None):
        return
    wd.action = "drop"
    wd.restoration_ms = wd.polling_ms if wd.polling_ms is not None else DEFAULT_POLLING_MS
    st.defaults += ["pfc_watchdog.action", "pfc_watchdog.restoration_ms"]
    if "pfc_watchdog.polling_ms" in st.sources:
        st.sources["pfc_watchdog.restoration_ms"] = st.sources["pfc_watchdog.polling_ms"]


def _read_watchdog(wd: Node, st: DeviceState) -> None:
    polling = None
    if "polling-interval" in wd:
        leaf = wd["polling-interval"]
        try:
            polling = parse_time_ms(leaf.value if isinstance(leaf.value, int) else str(leaf.value))
        except (TypeError, ValueError, AttributeError):
            st.warn(
                f"pfc-watchdog polling-interval: not a duration: {getattr(leaf, 'value', leaf)!r}",
                _line(leaf),
            )
        if polling is not None:
            st.pfc_watchdog.polling_ms = polling
            st.at("pfc_watchdog.polling_ms", leaf.line, leaf.text)
    if "robustness" in wd:
        leaf = wd["robustness"]
        rob = _int(leaf, st, "pfc-watchdog robustness", 1, 1000)
        if rob is not None:
            st.pfc_watchdog.detection_ms = rob * (polling or DEFAULT_POLLING_MS)
            st.at("pfc_watchdog.detection_ms", _lines_of(leaf, wd.get("polling-interval")), leaf.text)
            if polling is None:
                st.defaults.append("pfc_watchdog.detection_ms")
    for key, val in wd.items():
        if key not in ("polling-interval", "robustness"):
            st.warn(f"qos pfc-watchdog {key}: unrecognised setting", _line(val))


def _read_ecmp(fwd: Node, st: DeviceState) -> None:
    hashes = fwd.get("ecmp-hash")
    if isinstance(hashes, Node):
        on: list[str] = []
        stated: set[str] = set()
        lines: list[int] = []
        for key, val in hashes.items():
            b = _bool(val, st, f"ecmp-hash {key}")
            lines += _lines_of(val)
            if key in HASH_MAP:
                if b is not None:
                    stated.add(key)
                    if b:
                        on.append(HASH_MAP[key])
            elif b:
                st.warn(f"ecmp-hash {key} on: no vendor-neutral field for it", _line(val))
        if stated:
            st.ecmp.fields = sorted(set(on))  # type: ignore[assignment]
            st.at("ecmp.fields", lines, _text_of(*hashes.values()))
            missing = sorted(set(HASH_MAP) - stated)
            if missing:
                st.warn(
                    "ecmp-hash states only some fields; unstated ones keep the release default: "
                    + ", ".join(missing),
                    hashes.line,
                    code="PARTIAL",
                )
    if "hash-seed" in fwd:
        seed = _int(fwd["hash-seed"], st, "hash-seed", 0, 4294967295)
        if seed is not None:
            st.ecmp.seed = seed
            st.at("ecmp.seed", fwd["hash-seed"].line, fwd["hash-seed"].text)


def _ports(tree: Node, st: DeviceState) -> Iterator[tuple[str, Node, int | None]]:
    """Switch ports (swp*) and any other interface carrying QoS settings, expanded and merged."""
    merged: dict[str, Node] = {}
    first_line: dict[str, int | None] = {}
    interfaces = tree.get("interface")
    if interfaces is not None and not isinstance(interfaces, Node):
        st.warn("interface: expected a mapping", _line(interfaces))
        return
    for key, inode in _node(interfaces).items():
        names = _expand_names(key)
        if names is None:
            st.warn(f"interface {key!r}: bad interface range", _line(inode))
            continue
        if not isinstance(inode, Node):
            if isinstance(inode, Leaf) and _ROCEISH.search(str(inode.text)):
                st.warn(f"interface {key}: unrecognised setting {inode.value!r}", inode.line)
            continue
        for name in names:
            name = name.strip()
            if name not in merged:
                merged[name] = Node(inode.line, inode.text)
                first_line[name] = inode.line
            _merge(merged[name], inode)
    for name in sorted(merged, key=natural_key):
        node = merged[name]
        if _SWP.match(name) or isinstance(node.get("qos"), Node):
            yield name, node, first_line[name]


#: a YAML ``hostname:`` line whose value YAML reads as this very string (single-quoted without escapes,
#: or a plain scalar that cannot be a number, boolean or null)
_HOSTNAME_LINE = re.compile(r"\s+hostname: (?:'([A-Za-z0-9._-]+)'|([A-Za-z][A-Za-z0-9_-]*))\s*")
_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def _hostname_of(line: str) -> str | None:
    m = _HOSTNAME_LINE.fullmatch(line)
    if m is None or (m.group(2) is not None and m.group(2).lower() in _YAML_WORDS):
        return None
    return m.group(1) or m.group(2)


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse`` sharing one parse between NVUE YAML files that differ only by their ``system: hostname:``
    line and the header comment (``base.parse_shared_by_line``)."""
    return parse_shared_by_line(
        parse, text, memo, lambda lines, i: _hostname_of(lines[i]), lambda lines, i: i == 0 and lines[0][:1] == "#"
    )


def parse(text: str) -> DeviceState:
    """NVUE YAML / JSON / ``nv set`` commands -> DeviceState. Never raises."""
    st = DeviceState(platform="nvue")
    try:
        tree = load_tree(text if isinstance(text, str) else str(text), st)
        _interpret(tree, st)
    except Exception as exc:  # noqa: BLE001 - a parser must never raise
        st.warn(f"internal parser error: {type(exc).__name__}: {exc}"[:200])
    return st


# ----------------------------------------------------------------------------- template filters
KIND_FIELD = {
    "mapping": ("trust", "dscp_to_tc"),
    "pfc": ("pfc",),
    "congestion-control": ("ecn",),
    "egress-scheduler": ("scheduling",),
    "link-pause": ("link_pause",),
}
KIND_SHORT = {
    "mapping": "map",
    "pfc": "pfc",
    "congestion-control": "ecn",
    "egress-scheduler": "ets",
    "link-pause": "pause",
}


def _stated(itf: Interface, kind: str) -> bool:
    if kind == "mapping":
        return itf.trust is not None or itf.dscp_to_tc is not None
    if kind == "pfc":
        return itf.pfc.enabled is not None or itf.pfc.no_drop is not None
    if kind == "congestion-control":
        return bool(itf.ecn)
    if kind == "egress-scheduler":
        return bool(itf.scheduling)
    return itf.link_pause is True


def qos_plan(state: DeviceState) -> dict[str, Any]:
    """Decide which settings go into ``default-global`` and which into named, attached profiles.

    ``default-global`` is used for a kind only when every port states that setting and then holds
    the most common value; other values become profiles ``roce-<kind>-<n>``. When some ports do not
    state a setting, only named profiles are used, so ports outside the state are not touched.
    """
    plan: dict[str, Any] = {"global": {}, "profiles": {}, "attach": {}}
    names = sorted(state.interfaces, key=natural_key)
    for kind, fields in KIND_FIELD.items():
        sub = DeviceState(platform=state.platform)
        sub.interfaces = {n: state.interfaces[n] for n in names if _stated(state.interfaces[n], kind)}
        groups = group_interfaces(sub, fields) if sub.interfaces else []
        glob = None
        candidates = [g for g in groups if not (kind == "mapping" and g[1].dscp_to_tc is not None)]
        if candidates and len(sub.interfaces) == len(names) and kind != "link-pause":
            glob = max(candidates, key=lambda g: len(g[0]))  # first of the largest (stable)
        plan["global"][kind] = glob[1] if glob else None
        plan["profiles"][kind] = []
        n = 0
        for members, itf in groups:
            if glob is not None and members is glob[0]:
                continue
            n += 1
            pname = f"roce-{KIND_SHORT[kind]}-{n}"
            plan["profiles"][kind].append((pname, itf))
            for m in members:
                plan["attach"].setdefault(m, {})[kind] = pname
    if plan["global"]["mapping"] is None and state.dscp_to_tc:
        plan["global"]["mapping"] = Interface()  # only the device DSCP map
    return plan


def interface_blocks(state: DeviceState, plan: dict[str, Any]) -> list[tuple[str, Interface, dict]]:
    """Ports grouped by what their block renders: [(range key, interface, attachments)]."""
    groups: dict[str, tuple[list[str], Interface, dict]] = {}
    for name in sorted(state.interfaces, key=natural_key):
        itf = state.interfaces[name]
        att = plan["attach"].get(name, {})
        key = json.dumps([itf.mtu, itf.pfc_watchdog, sorted(att.items())])
        groups.setdefault(key, ([], itf, att))[0].append(name)
    out = []
    for members, itf, att in groups.values():
        out.append((",".join(compress_interfaces(members)), itf, att))
    return out


def dscp_by_sp(dscp_to_tc: dict[str, int] | None) -> list[tuple[int, int]]:
    return sorted((int(d), tc) for d, tc in (dscp_to_tc or {}).items())


def traffic_classes(state: DeviceState) -> list[int]:
    """TCs that the state uses (priority N -> TC N identity map is rendered for them). A queue whose only
    entry is a bare ``mode dwrr`` (an unused queue kept off strict priority, see :func:`unused_queues`)
    carries no switch priority, so it gets no egress-queue-mapping line."""
    tcs: set[int] = set(state.dscp_to_tc.values())
    for itf in state.interfaces.values():
        tcs |= set((itf.dscp_to_tc or {}).values())
        tcs |= set(itf.pfc.no_drop or [])
        tcs |= {int(t) for t in itf.ecn}
        tcs |= {int(t) for t, sc in itf.scheduling.items() if sc != UNUSED_QUEUE}
    return sorted(t for t in tcs if 0 <= t <= 7)


#: The scheduling of a queue the intent does not use: DWRR without a bw-percent, which NVIDIA documents as
#: "a DWRR value of 0 (no egress scheduling)" (QOS_DOC, Egress Scheduler) - never strict priority.
UNUSED_QUEUE = Sched(mode="dwrr")


def unused_queues(hints: dict[str, str]) -> tuple[int, ...]:
    """Every queue the intent does not use is stated ``mode dwrr`` (no bw-percent: DWRR 0): NVIDIA's RoCE
    profile only documents TC0/TC3 (DWRR 50 %) and TC6 (strict) ("Default RoCE Configuration", ROCE_DOC),
    so no other queue is left at a default that could be strict (same behaviour as every platform)."""
    return tuple(range(8))


def robustness(detection_ms: int, polling_ms: int | None) -> int:
    """Detection time -> number of polling intervals (rounded up, at least 1)."""
    return max(1, math.ceil(detection_ms / (polling_ms or DEFAULT_POLLING_MS)))


def on_off(value: bool) -> str:
    return "on" if value else "off"


def enable(value: bool) -> str:
    return "enable" if value else "disable"


def hash_rows(fields: list[str]) -> list[tuple[str, bool]]:
    return [(HASH_NVUE[f], f in fields) for f in sorted(HASH_NVUE)]


def hash_word(value: bool, new_words: bool) -> str:
    """ecmp-hash value: ``enabled|disabled`` from CL 5.15 (NVUE "New and Changed NVUE Commands", 5.15),
    ``'on'|'off'`` before (quoted, as `nv config show` prints YAML 1.1 booleans)."""
    if new_words:
        return "enabled" if value else "disabled"
    return quote(on_off(value))


def quote(value: Any) -> str:
    """YAML single-quoted scalar (NVUE prints keys and on/off this way)."""
    return "'" + str(value).replace("'", "''") + "'"


FILTERS = {
    "nvue_plan": qos_plan,
    "nvue_interface_blocks": interface_blocks,
    "nvue_dscp": dscp_by_sp,
    "nvue_tcs": traffic_classes,
    "nvue_robustness": robustness,
    "nvue_on_off": on_off,
    "nvue_enable": enable,
    "nvue_hash_rows": hash_rows,
    "nvue_hash_word": hash_word,
    "nvue_roce": roce_plan,
    "nvue_trust": lambda t: TRUST_OUT[t],
    "nvue_ranges": compress_ints,
    "nvue_is_swp": lambda key: all(_SWP.match(n) for n in (_expand_names(key) or ["?"])),
    "nvue_int_keys": lambda d: sorted(d.items(), key=lambda kv: int(kv[0])),
    "q": quote,
}


# ----------------------------------------------------------------------------- platform
PLATFORM = Platform(
    # Interface syntax: Cumulus Linux "swp<n>" front-panel ports, "swp<n>s<lane>" breakouts (NVUE reference,
    # Interface), bonds named bond<n> here.
    interface_pattern=r"swp\d+(?:s\d+)?|bond\d+",
    interface_example="swp1, swp1s0 (breakout), bond1",
    apply_method="nvue-patch",
    name="nvue",
    # ecmp-hash values: on|off up to 5.14, enabled|disabled from 5.15 (the default: newest documented)
    releases=("5.2", "5.15"),
    kind="switch",
    title="NVIDIA Cumulus Linux 5.x (NVUE)",
    extension="yaml",
    capabilities=Capabilities(
        extra_members_stay=True,
        min_mtu=Fact(552, NVUE_REF + "Set-and-Unset-Commands/Interface/ (link mtu: 552-9216)"),
        max_mtu=Fact(9216, NVUE_REF + "Set-and-Unset-Commands/Interface/ (link mtu: 552-9216, default 9216)"),
        max_lossless_priorities=Fact(
            2,
            QOS_DOC + "#pfc (port groups example 'nv set qos pfc my_pfc_ports switch-priority 3,5'); "
            "no larger per-port set is documented and all no-drop priorities share one lossless "
            "priority group per port",
        ),
        per_port=frozenset({"mtu", "trust", "pfc", "pfc_watchdog", "link_pause", "ecn", "scheduling"}),
        hash_fields=tuple(sorted(HASH_NVUE)),
        hash_seed=True,
        hash_symmetric=False,
        watchdog_fields=frozenset({"polling_ms", "detection_ms", "restoration_ms"}),
        watchdog_actions=("drop",),
        ecn_quantum_bytes=1,
        ecn=True,
        scheduling=True,
        every_dscp_mapped=True,
        unused_queues_round_robin=unused_queues,
        notes=(
            "Every DSCP has a home: without a 'qos mapping ... dscp <n>' entry a DSCP keeps the Cumulus "
            "default switch priority DSCP / 8 (the RoCE profile's 'RoCE PCP/DSCP->SP mapping' table: 24-31 -> "
            "SP3, the lossless RoCE priority; 48-55 -> SP6, the strict CNP queue; " + ROCE_DOC + " 'Verify RoCE "
            "Configuration'), so the desired state maps all 64 DSCPs (the intent's default class takes the "
            "rest) and every queue the intent does not use is stated 'mode dwrr' without bw-percent (DWRR 0, "
            + QOS_DOC + "#egress-scheduler) instead of being left at a default.",
            "Per-port values use profiles attached with 'interface <p> qos <kind> profile <name>'; "
            "default-global applies to ports without one (" + QOS_DOC + "#port-groups).",
            "PFC watchdog: no configurable action (a stormed queue drops) and no global enable; "
            "detection = robustness x polling-interval (polling 100-5000 ms, robustness 1-1000); restoration "
            "is one polling interval without pause frames (" + QOS_DOC + "#pfc-watchdog): an intent "
            "restoration time other than the polling interval is reported (RC150).",
            "ECMP symmetric hashing has no NVUE setting.",
            "Link pause off is the absence of a link-pause profile; it cannot be stated explicitly.",
            "'qos roce' (lossless) is rendered with the lossless traffic pool where the state fits NVIDIA's "
            "RoCE profile, with overrides only where the intent differs (" + ROCE_DOC + "); the parser "
            "fills the profile's documented values. Other RoCE modes are reported as MACRO warnings.",
        ),
    ),
    parse=parse,
    parse_shared=parse_shared,
    filters=FILTERS,
    napalm_driver=None,
    netmiko_device_type="cumulus_linux",
    # nvidia.nvue collection (its httpapi plugin: ansible_network_os nvidia.nvue.httpapi); roceconf reads over SSH
    ansible_network_os=("nvidia.nvue.*", "nvue"),
    collect_commands=("nv config show -o json",),
)
