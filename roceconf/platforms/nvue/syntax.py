"""NVIDIA Cumulus Linux (NVUE): the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml as yaml_errors
from ruamel.yaml import YAML

import roceconf.platforms.nvue.bigyaml as bigyaml
from roceconf.platforms.base import split_words
from roceconf.state import DeviceState
from roceconf.units import expand_ints, parse_size

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


def _load_structured(text: str, st: DeviceState, fast_bytes: int = bigyaml.FAST_BYTES) -> Node:
    lines = text.split("\n")
    if len(text) >= fast_bytes:  # libyaml's events: linear and fast (roceconf/platforms/nvue/bigyaml.py)
        try:
            return _unwrap(bigyaml.load(text, lines, Node, Leaf, MAX_NODES), st)
        except bigyaml.Unsupported as exc:
            st.warn(f"not evaluated: {exc} in a document of {len(text)} bytes")
            return Node()
        except yaml_errors.YAMLError as exc:
            yaml_error: Exception = exc
        except ValueError as exc:
            st.warn(f"not evaluated: {exc}")
            return Node()
    else:
        # libyaml's events build the same tree (tests/platforms/test_nvue_bigyaml.py) in a quarter of the
        # time: what a fabric check or audit pays per distinct device. What they do not take (anchors, tags,
        # duplicate keys, a syntax error) is read by ruamel as before, with its own lines and messages.
        try:
            fast = bigyaml.load(text, lines, Node, Leaf, MAX_NODES)
        except (bigyaml.Unsupported, yaml_errors.YAMLError, ValueError, RecursionError):
            fast = None
        if isinstance(fast, Node):  # a document of one scalar or none: as before
            return _unwrap(fast, st)
        try:
            return _unwrap(_from_yaml_obj(YAML(typ="rt", pure=True).load(io.StringIO(text)), None, lines), st)
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
        if words[2:4] == ["qos", "roce"] and (len(words) == 4 or words[4] == "mode"):
            # the CLI commands that switch RoCE on: "To enable RoCE lossless: nv set qos roce";
            # "nv set qos roce and nv set qos roce mode lossless are equivalent" (CL 5.15 RoCE guide); the
            # stored configuration then holds the state (``nv show qos roce``: enable on)
            _insert(tree, ["qos", "roce", "state", "enabled"], n, raw.strip())
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
