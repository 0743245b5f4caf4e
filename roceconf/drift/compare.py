"""Semantic comparison of a desired and an actual DeviceState, ranked by how each difference hurts RDMA.

The comparison runs DeepDiff over the two states' semantic dictionaries. Only what the intent states is
compared: a field the desired state leaves unknown (None) is not checked, interfaces the intent does not
manage are ignored, and order never matters (lists in the state are sorted sets).

Cheap first: one walk over what the intent states finds the values the device does not have, with the
rules DeepDiff applies here (a value of another type differs; a list is compared as a set: order and
repetition ignored, as ``ignore_order`` does; a list difference is reported for the whole list, as
``_list_owner`` does with DeepDiff's item paths). DeepDiff runs only where the walk cannot decide (a list of
unhashable items, which no state has today). ``compare_reference`` keeps the whole-state DeepDiff; the tests
check that both report the same items on the lab, the pod and the 32k fabric.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from roceconf.jsontext import fields_of
from roceconf.reports.scaffold import SEVERITY_RANK
from roceconf.state import META_FIELDS, DeviceState, Interface

Severity = Literal["critical", "warning", "info"]
#: RoCE headers subtracted from the netdev MTU (iboe_get_mtu) and Ethernet+VLAN+FCS overhead on switches
ROCE_OVERHEAD, L2_OVERHEAD = 96, 22


@dataclass(frozen=True)
class Policy:
    """What the intent says RoCE needs on this device: used to rank differences."""

    roce_dscp: tuple[int, ...] = ()
    cnp_dscp: tuple[int, ...] = ()
    roce_priority: int | None = None
    cnp_priority: int | None = None
    lossless: tuple[int, ...] = ()
    roce_path_mtu: int = 4096
    is_host: bool = False

    @property
    def min_mtu(self) -> int:
        return self.roce_path_mtu + ROCE_OVERHEAD + (0 if self.is_host else L2_OVERHEAD)


@dataclass
class DriftItem:
    device: str
    interface: str | None
    field: str
    expected: Any
    actual: Any
    severity: Severity
    feature: str
    explanation: str
    file: str | None = None
    line: int | None = None

    @property
    def location(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or ""

    def to_dict(self) -> dict[str, Any]:
        return fields_of(self)


_PATH = re.compile(r"\['([^']*)'\]|\[(\d+)\]")


def _parts(deep_path: str) -> list[str]:
    return [a if a else b for a, b in _PATH.findall(deep_path)]


def _prune(desired: Any, actual: Any) -> Any:
    """Restrict `actual` to what `desired` states (same keys; None in desired = not checked)."""
    if isinstance(desired, dict):
        if not isinstance(actual, dict):
            return actual
        return {k: _prune(v, actual.get(k)) for k, v in desired.items() if v is not None}
    return actual


def _clean(desired: Any) -> Any:
    if isinstance(desired, dict):
        return {k: _clean(v) for k, v in desired.items() if v is not None}
    return desired


def _get(d: Any, parts: list[str]) -> Any:
    for p in parts:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def wanted(desired: DeviceState) -> dict[str, Any]:
    """What a drift audit checks of a desired state: its stated values, without identity (hostname, platform).

    Devices of one shape can share it (``compare(..., want=...)``); it is never modified."""
    want = _clean(desired.semantic())
    want.pop("hostname", None)  # identity, not RoCE policy
    want.pop("platform", None)
    # ports with equal settings share one dictionary: `compare` walks each distinct pair of wanted and
    # actual port settings once
    itfs = want.get("interfaces")
    if isinstance(itfs, dict):
        first: dict[str, Any] = {}
        for name, w in itfs.items():
            itfs[name] = first.setdefault(repr(w), w)
    return want


def _members(values: list) -> frozenset | None:
    """A list as DeepDiff's ignore_order sees it (order and repetition ignored, types kept); None when an
    item is not hashable."""
    try:
        return frozenset((type(v), v) for v in values)
    except TypeError:
        return None


def _walk(w: Any, g: Any, parts: list[str], out: list[tuple[list[str], Any]]) -> bool:
    """Append (path, actual value) for every stated value of `w` that `g` does not have; a list counts as
    one value. False when a piece needs DeepDiff (a list of unhashable items)."""
    if isinstance(w, dict):
        if not isinstance(g, dict):
            out.append((parts, g))
            return True
        ok = True
        for k, v in w.items():
            gv = g.get(k)
            if v is gv or (v == gv and type(v) is type(gv) and not isinstance(v, dict | list)):
                continue
            ok &= _walk(v, gv, [*parts, k], out)
        return ok
    if isinstance(w, list):
        if not isinstance(g, list):
            out.append((parts, g))
            return True
        mw, mg = _members(w), _members(g)
        if mw is None or mg is None:
            return False
        if mw != mg:
            out.append((parts, g))
        return True
    if w != g or type(w) is not type(g):
        out.append((parts, g))
    return True


def keep_newest(memo: dict, size: int) -> None:
    """Make room for one entry in an audit memo of at most `size` entries, dropping the oldest (the devices
    of one shape come one after the other). The audit's threads share the memo: an entry another thread
    dropped or added meanwhile is no error."""
    for _ in range(8):
        if len(memo) < size:
            return
        try:
            memo.pop(next(iter(memo)), None)
        except (RuntimeError, StopIteration):  # changed or emptied by another thread meanwhile
            continue


#: walks of the running audit (see ``shared_compares``); None outside one
_COMPARED: dict[tuple, tuple] | None = None


@contextmanager
def shared_compares() -> Iterator[None]:
    """Within the block, the walk over a wanted state and an actual state's values is done once for states
    that share those values (the same objects: devices of one shape, parsed by ``Platform.parse_shared``);
    each device still gets its own items (its name, file and lines). The memo keeps the objects alive, so
    their ids are not reused; nothing may modify them inside the block."""
    global _COMPARED
    prev, _COMPARED = _COMPARED, {}
    try:
        yield
    finally:
        _COMPARED = prev


def _top(actual: DeviceState) -> dict[str, Any]:
    """`actual.semantic()` without the ports (`_walk_state` reads them one by one)."""
    return actual.model_dump(mode="json", exclude={*META_FIELDS, "interfaces"})


#: field values a port key holds as they are (bool, int, str, None); any other value by its identity
_PLAIN = frozenset({bool, int, str, type(None)})


def _port_key(itf: Interface) -> tuple:
    """Equal for two ports whose settings are the same objects (the ports of one parsed range share their
    sub-objects): their semantic dictionaries are equal. (`type(v) in _PLAIN`: a set lookup, not an
    isinstance over a union; a subclass of int or str, which validated fields do not hold, is keyed by
    identity, which can only split a group, never merge two.)"""
    return tuple([v if type(v) in _PLAIN else id(v) for v in itf.__dict__.values()])


def _walk_state(
    want: dict[str, Any], actual: DeviceState, got: dict[str, Any], out: list[tuple[list[str], Any]]
) -> bool:
    """`_walk(want, actual.semantic(), [], out)`, port by port: each distinct pair of wanted and actual port
    settings is walked once (the ports of a range share both), and a port's semantic dictionary is built
    once per distinct settings object."""
    ok = True
    for k, w in want.items():
        if k != "interfaces":
            gv = got.get(k)
            if not (w is gv or (w == gv and type(w) is type(gv) and not isinstance(w, dict | list))):
                ok &= _walk(w, gv, [k], out)
            continue
        if not isinstance(w, dict):
            ok &= _walk(w, {n: i.model_dump(mode="json") for n, i in actual.interfaces.items()}, [k], out)
            continue
        ports = actual.interfaces
        dumps: dict[tuple, tuple[Any, dict[str, Any]]] = {}  # port key -> (the port, its semantic dict)
        walked: dict[tuple, tuple[bool, list[tuple[list[str], Any]]]] = {}
        for name, wi in w.items():
            itf = ports.get(name)
            if itf is None:
                out.append(([k, name], None))
                continue
            pk = _port_key(itf)
            hit = dumps.get(pk)
            if hit is None:
                hit = dumps[pk] = (itf, itf.model_dump(mode="json"))  # the port keeps its ids alive
            res = walked.get((id(wi), pk))
            if res is None:
                sub: list[tuple[list[str], Any]] = []
                res = walked[(id(wi), pk)] = (_walk(wi, hit[1], [], sub), sub)
            ok &= res[0]
            if res[1]:
                out.extend(([k, name, *parts], act) for parts, act in res[1])
        if ok is False:
            return False
    return ok


def compare(
    desired: DeviceState,
    actual: DeviceState,
    policy: Policy,
    device: str,
    file: str | None = None,
    *,
    want: dict[str, Any] | None = None,
    shared: bool = False,
) -> list[DriftItem]:
    """Drift items between desired and actual, most harmful first. `want` is `wanted(desired)` when the
    caller has it already (it is the same for every device of one shape); `shared`: `actual` may share its
    values with other devices' states (``Platform.parse_shared``), so inside ``shared_compares`` the walk
    is looked up and kept for them."""
    return _compare(desired, actual, policy, device, file, want, whole=False, shared=shared)


def compare_reference(
    desired: DeviceState, actual: DeviceState, policy: Policy, device: str, file: str | None = None
) -> list[DriftItem]:
    """`compare` with one DeepDiff over the whole state (the slow path the fast one must match)."""
    return _compare(desired, actual, policy, device, file, None, whole=True)


def _compare(
    desired: DeviceState,
    actual: DeviceState,
    policy: Policy,
    device: str,
    file: str | None,
    want: dict[str, Any] | None,
    whole: bool,
    shared: bool = False,
) -> list[DriftItem]:
    if want is None:
        want = wanted(desired)
    got_full = actual.semantic() if whole else _top(actual)
    items: dict[str, DriftItem] = {}

    def add(parts: list[str], exp: Any, act: Any) -> None:
        dotted = ".".join(parts)
        if dotted in items:
            return
        items[dotted] = _item(parts, exp, act, policy, device, actual, file)

    found: list[tuple[list[str], Any]] = []
    memo, key, hit = _COMPARED, None, None
    if memo is not None and shared and not whole:
        # states of one shape share their values (the parse memo): the walk is the same
        key = (
            id(want),
            id(actual.interfaces),
            id(actual.dscp_to_tc),
            id(actual.pfc_watchdog),
            id(actual.ecmp),
            actual.class_mtu,
        )
        hit = memo.get(key)
    if hit is not None:
        found, got_full = hit[2], hit[3]
    else:
        if whole or not _walk_state(want, actual, got_full, found):
            # imported here: the walk decides every state today, and deepdiff's import is slow
            from deepdiff import DeepDiff

            found = []
            got_full = actual.semantic()
            got = _prune(want, got_full)
            for ch in (
                ch
                for chs in DeepDiff(want, got, ignore_order=True, verbose_level=2, view="tree").values()
                for ch in chs
            ):
                parts = _parts(ch.path())
                # list differences (pfc.no_drop, ecmp.fields): compare the whole list
                parts = _list_owner(parts, want) or parts
                found.append((parts, _get(got, parts)))
        if key is not None and memo is not None:
            keep_newest(memo, 64)
            memo[key] = (want, actual, found, got_full)  # the first two keep the ids alive
    for parts, act in found:
        add(parts, _get(want, parts), act)
    # stated in the device but not in the intent and harmful: extra DSCPs into a lossless class, extra no-drop
    for dscp, tc in (got_full.get("dscp_to_tc") or {}).items():
        if dscp not in want.get("dscp_to_tc", {}) and tc in policy.lossless and want.get("dscp_to_tc"):
            parts = ["dscp_to_tc", dscp]
            items[".".join(parts)] = DriftItem(
                device,
                None,
                ".".join(parts),
                None,
                tc,
                "warning",
                "dscp_map",
                f"DSCP {dscp} is mapped into lossless traffic class {tc} on {device} but the intent does not classify it "
                "there: unplanned traffic can fill the no-drop queue and trigger PFC",
                file,
                actual.line_of(".".join(parts)),  # a DSCP's first line is its match / map statement
            )
    return sorted(items.values(), key=lambda i: (SEVERITY_RANK[i.severity], i.interface or "", i.field))


def _list_owner(parts: list[str], want: dict) -> list[str] | None:
    for i in range(len(parts), 0, -1):
        if isinstance(_get(want, parts[:i]), list):
            return parts[:i]
    return None


def _fmt(v: Any) -> str:
    return "unset" if v is None else str(v)


def _item(
    parts: list[str], exp: Any, act: Any, p: Policy, device: str, actual: DeviceState, file: str | None
) -> DriftItem:
    dotted = ".".join(parts)
    if parts[0] == "interfaces" and len(parts) == 2:
        return DriftItem(
            device,
            parts[1],
            dotted,
            "configured",
            None,
            "critical",
            "interface",
            f"{device} has no RoCE configuration for {parts[1]}: the port is not lossless",
            file,
            actual.line_of(dotted, last=True),
        )
    itf = parts[1] if parts[0] == "interfaces" and len(parts) > 1 else None
    sub = parts[2:] if itf else parts
    where = f"{device} {itf}" if itf else device
    # the most specific line (an interface override after its profile); for a DSCP, its match / map line
    line = actual.line_of(dotted, last=parts[0] != "dscp_to_tc")
    sev: Severity = "warning"
    feature = sub[0] if sub else parts[0]
    why = f"{dotted} is {_fmt(act)}, intent says {_fmt(exp)}"

    if parts[0] == "dscp_to_tc":
        feature = "dscp_map"
        dscp = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        if dscp in p.roce_dscp:
            sev = "critical"
            lossy = act is None or act not in p.lossless
            why = (
                f"RoCE DSCP {dscp} maps to traffic class {_fmt(act)}{' (lossy)' if lossy else ''} on {device}: "
                "drops under congestion trigger go-back-N retransmissions"
            )
        elif dscp in p.cnp_dscp:
            sev = "critical"
            why = (
                f"CNP DSCP {dscp} maps to traffic class {_fmt(act)} instead of {exp} on {device}: CNPs are not "
                "prioritised, congestion feedback is delayed and queues grow into PFC"
            )
        else:
            why = f"DSCP {dscp} maps to traffic class {_fmt(act)} instead of {exp} on {device}"
    elif sub[:1] == ["pfc"]:
        feature = "pfc"
        if sub[1:] == ["no_drop"] or sub == ["pfc"]:
            missing = sorted(set(exp or []) - set(act or [])) if isinstance(exp, list) else exp
            extra = sorted(set(act or []) - set(exp or [])) if isinstance(exp, list) else []
            if missing:
                sev = "critical"
                why = (
                    f"no-drop missing for priority {','.join(map(str, missing))} on {where}: RoCE traffic on it is "
                    "dropped under congestion instead of paused (go-back-N retransmissions, throughput collapse)"
                )
            else:
                sev = "warning"
                why = (
                    f"extra no-drop priority {','.join(map(str, extra))} on {where}: more headroom reserved, and "
                    "PFC can pause traffic the intent treats as lossy"
                )
        else:
            sev = "critical" if exp else "warning"
            why = f"PFC is {'off' if not act else 'on'} on {where}: the RoCE priority is not lossless on this port"
    elif sub[:1] == ["trust"]:
        feature, sev = "trust", "critical"
        why = (
            f"{where} trusts {_fmt(act)} instead of {exp}: RoCE packets are classified into the default (lossy) "
            "class"
        )
    elif sub[:1] == ["mtu"]:
        feature = "mtu"
        if isinstance(act, int) and act < p.min_mtu or act is None:
            sev = "critical"
            why = (
                f"MTU {_fmt(act)} on {where} is below what RoCE path MTU {p.roce_path_mtu} needs ({p.min_mtu}): "
                "full-size RoCE frames are dropped, QPs fail with retry-exceeded"
            )
        elif isinstance(act, int) and isinstance(exp, int) and act < exp:
            sev = "warning"
            why = (
                f"MTU {act} on {where} is below the intended {exp}: larger frames from peers will be dropped"
            )
        else:
            sev = "info"
            why = f"MTU {_fmt(act)} on {where} differs from the intended {exp}"
    elif sub[:1] == ["ecn"]:
        feature = "ecn"
        tc = int(sub[1]) if len(sub) > 1 and sub[1].isdigit() else None
        if act is None and tc is not None and tc == p.roce_priority and len(sub) == 2:
            sev = "critical"
            why = (
                f"ECN is not marking on the RoCE queue {tc} of {where}: DCQCN gets no congestion signal, "
                "so congestion is handled by PFC alone (pause storms, head-of-line blocking)"
            )
        else:
            sev = "warning"
            why = (
                f"ECN {'.'.join(sub[1:])} on {where} is {_fmt(act)} instead of {_fmt(exp)}: congestion marking "
                "starts at a different queue depth than planned (later marking lets PFC fire first)"
            )
    elif sub[:1] == ["scheduling"]:
        feature = "scheduling"
        tc = int(sub[1]) if len(sub) > 1 and sub[1].isdigit() else None
        if tc is not None and tc == p.cnp_priority:
            sev = "critical"
            why = (
                f"CNP queue {tc} on {where} is not strict priority ({_fmt(act)}): delayed CNPs let senders keep "
                "their rate and queues grow to XOFF"
            )
        else:
            why = f"scheduling of traffic class {tc} on {where} is {_fmt(act)} instead of {_fmt(exp)}"
    elif sub[:1] == ["pfc_watchdog"]:
        feature = "pfc_watchdog"
        why = (
            f"PFC watchdog {'.'.join(sub)} on {where} is {_fmt(act)} instead of {_fmt(exp)}: a PFC storm "
            "may not be detected or broken as planned"
        )
    elif sub[:1] == ["link_pause"]:
        feature = "link_pause"
        sev = "critical" if act else "warning"
        why = (
            f"802.3x link-level pause is {_fmt(act)} on {where}: it conflicts with PFC and pauses all traffic"
            if act
            else f"link-level pause state on {where} is unknown"
        )
    elif sub[:1] == ["rdma"]:
        feature = "rdma"
        key = sub[1] if len(sub) > 1 else "rdma"
        sev = "critical"
        if key == "cnp_dscp":
            why = (
                f"CNP DSCP on {where} is {_fmt(act)} instead of {exp}: switches classify CNPs into the wrong "
                "queue, congestion feedback is delayed"
            )
        elif key == "cnp_priority":
            why = f"CNP priority on {where} is {_fmt(act)} instead of {exp}: CNPs leave on a non-prioritised queue"
        elif key == "roce_tos":
            why = (
                f"RoCE TOS on {where} is {_fmt(act)} instead of {exp} (DSCP {exp >> 2 if isinstance(exp, int) else '?'}): "
                "RDMA-CM traffic is marked into a lossy class"
            )
        elif key in ("dcqcn_rp", "dcqcn_np"):
            why = (
                f"DCQCN {'reaction' if key == 'dcqcn_rp' else 'notification'} point on {where} is "
                f"{_fmt(act)} instead of {exp}: the congestion control loop is broken"
            )
        else:
            sev = "warning"
            why = f"{'.'.join(sub)} on {where} is {_fmt(act)} instead of {_fmt(exp)}"
    elif parts[0] == "ecmp":
        feature = "ecmp"
        if parts[1:] == ["fields"]:
            if (
                isinstance(exp, list)
                and "src_port" in exp
                and (not isinstance(act, list) or "src_port" not in act)
            ):
                sev = "critical"
                why = (
                    f"ECMP on {device} does not hash on the UDP source port: every RoCEv2 flow uses destination "
                    "port 4791, so all QPs between two hosts take one path"
                )
            else:
                why = f"ECMP hash fields on {device} are {_fmt(act)} instead of {exp}"
        else:
            why = (
                f"ECMP {'.'.join(parts[1:])} on {device} is {_fmt(act)} instead of {_fmt(exp)}: tiers may hash "
                "identically (polarization)"
            )
    elif parts[0] == "pfc_watchdog":
        feature = "pfc_watchdog"
        why = (
            f"PFC watchdog {'.'.join(parts[1:])} on {device} is {_fmt(act)} instead of {_fmt(exp)}: a PFC storm "
            "may not be detected or broken as planned"
        )
    elif parts[0] == "class_mtu":
        feature = "mtu"
        sev = "critical" if isinstance(act, int) and isinstance(exp, int) and act < exp else "warning"
        why = (
            f"traffic-class (network-qos) MTU on {device} is {_fmt(act)} instead of {_fmt(exp)}: frames above "
            "the class MTU are dropped in the lossless class whatever the port MTU"
        )
    elif parts[0] == "hostname":
        feature, sev = "hostname", "info"
        why = f"hostname is {_fmt(act)}, intent says {exp}"
    return DriftItem(device, itf, dotted, exp, act, sev, feature, why, file, line)


__all__ = ["DriftItem", "Policy", "compare", "compare_reference", "wanted", "SEVERITY_RANK", "field"]
