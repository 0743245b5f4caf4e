"""Compact storage of what a health evaluation keeps per port: its rates per interval and its last sample.

A fabric's report keeps every port's rates (the JSON, YAML and HTML reports and the Prometheus means show
them) and its last sample's counters (the Prometheus totals, watermarks and watchdog state). As Python dicts
of dicts they cost several kilobytes per port; packed, the numbers of one interval or sample are one array
and the names that say which number is which (the layout: counters and priorities, in the order read) one
tuple, shared by every port read alike. Unpacking gives back the same objects with the same values, keys and
key order, so a report drawn from packed ports is the report drawn from the dicts.
"""

from __future__ import annotations

from array import array
from itertools import chain
from typing import Any

from roceconf.counters.model import PortCounters

#: an interval's (priority counters, port counters) or a sample's (priority counters, port counters, gauges):
#: ((counter, (priority, ...)), ...), (counter, ...)
LayoutKey = tuple[Any, ...]

_U64 = 1 << 64
#: layouts in use, so ports read alike share one (a bounded table: past it each port keeps its own)
_LAYOUTS: dict[LayoutKey, Layout] = {}
_MAX_LAYOUTS = 4096


class Layout:
    """Which number is which in a packed interval or sample; ``pos``: (counter, priority or None) -> index."""

    __slots__ = ("by_prio", "gauges", "port", "pos", "prio")

    def __init__(self, prio: tuple[Any, ...], port: tuple[str, ...], gauges: tuple[Any, ...]) -> None:
        self.prio, self.port, self.gauges = prio, port, gauges
        pos: dict[tuple[str, int | None], int] = {}
        for c, ps in prio:
            for p in ps:
                pos[(c, p)] = len(pos)
        for c in port:
            pos[(c, None)] = len(pos)
        self.pos = pos
        #: counter -> the index of each priority 0-7 (None: not in the layout), worked out on first use
        self.by_prio: dict[str, tuple[int | None, ...]] = {}

    def indexes(self, counter: str) -> tuple[int | None, ...]:
        """The index of ``(counter, p)`` for p = 0..7 (None where the layout has none)."""
        got = self.by_prio.get(counter)
        if got is None:
            got = self.by_prio[counter] = tuple(self.pos.get((counter, p)) for p in range(8))
        return got


def _layout(prio: dict[str, dict[int, Any]], port: dict[str, Any], gauges: dict[str, dict[int, Any]]) -> Layout:
    key = (
        tuple(zip(prio, map(tuple, prio.values()), strict=True)),  # ((counter, (priority, ...)), ...)
        tuple(port),
        tuple(zip(gauges, map(tuple, gauges.values()), strict=True)),
    )
    lay = _LAYOUTS.get(key)
    if lay is None:
        lay = Layout(*key)
        if len(_LAYOUTS) < _MAX_LAYOUTS:
            _LAYOUTS[key] = lay
    return lay


def _numbers(values: list[Any], code: str) -> Any:
    """``values`` as an array of doubles (``d``: every value a float) or of unsigned 64-bit integers (``Q``:
    every value an int that fits); otherwise as they are, in a tuple (the same values back either way)."""
    kinds = set(map(type, values))
    if code == "d" and kinds <= _FLOAT:
        return array("d", values)
    if code == "Q" and kinds <= _INT and (not values or (min(values) >= 0 and max(values) < _U64)):
        return array("Q", values)
    return tuple(values)


_FLOAT, _INT = {float}, {int}


def _dicts(pairs: tuple[Any, ...], values: Any, at: int) -> tuple[dict[str, dict[int, Any]], int]:
    out: dict[str, dict[int, Any]] = {}
    for c, ps in pairs:
        out[c] = dict(zip(ps, values[at : at + len(ps)], strict=True))
        at += len(ps)
    return out, at


# ------------------------------------------------------------------------------------------- intervals
#: a packed interval: (start, seconds, reset counters, layout, rates)
PackedInterval = tuple[float, float, tuple[str, ...], Layout, Any]


def pack_interval(start: float, seconds: float, prio: dict[str, dict[int, float]], port: dict[str, float],
                  reset: list[str]) -> PackedInterval:
    lay = _layout(prio, port, {})
    values = list(chain.from_iterable(map(dict.values, prio.values())))
    values += port.values()
    return (start, seconds, tuple(reset), lay, _numbers(values, "d"))


def unpack_interval(packed: PackedInterval) -> tuple[float, float, dict[str, dict[int, float]], dict[str, float],
                                                    list[str]]:
    """(start, seconds, prio, port, reset) of a packed interval: new dicts and list, the same values."""
    start, seconds, reset, lay, values = packed
    prio, at = _dicts(lay.prio, values, 0)
    port = dict(zip(lay.port, values[at:], strict=True))
    return start, seconds, prio, port, list(reset)


def mean(packed: tuple[PackedInterval, ...], counter: str, priority: int | None) -> float | None:
    """:meth:`roceconf.health.evaluate.PortHealth.mean` over packed intervals (the same sums in the same order)."""
    total, secs = 0.0, 0.0
    key = (counter, priority)
    for _start, seconds, _reset, lay, values in packed:
        i = lay.pos.get(key)
        if i is not None:
            total += values[i] * seconds
            secs += seconds
    return total / secs if secs > 0 else None


def means(packed: tuple[PackedInterval, ...], counter: str) -> list[float | None]:
    """:func:`mean` of ``counter`` for each priority 0-7 (the same sums in the same order)."""
    if len(packed) == 1:  # two samples: one interval
        _start, seconds, _reset, lay, values = packed[0]
        secs = 0.0 + seconds
        if not secs > 0:
            return [None] * 8
        return [None if i is None else (0.0 + values[i] * seconds) / secs for i in lay.indexes(counter)]
    return [mean(packed, counter, p) for p in range(8)]


# ------------------------------------------------------------------------------------------- samples
#: a packed sample of one port: (layout, counters then gauges, wd_shut, wd_read, link counters)
PackedCounters = tuple[Layout, Any, Any, Any, Any]


def pack_counters(pc: PortCounters) -> PackedCounters:
    lay = _layout(pc.prio, pc.port, pc.gauges)
    values = list(chain.from_iterable(map(dict.values, pc.prio.values())))
    values += pc.port.values()
    values += chain.from_iterable(map(dict.values, pc.gauges.values()))
    # link counters (roceconf cabling's; nothing health reports): as read, None when there are none
    link = tuple(pc.link.items()) if pc.link else None
    return (lay, _numbers(values, "Q"), pc.wd_shut, pc.wd_read, link)


def unpack_counters(packed: PackedCounters) -> PortCounters:
    lay, values, wd_shut, wd_read, link = packed
    prio, at = _dicts(lay.prio, values, 0)
    port = dict(zip(lay.port, values[at : at + len(lay.port)], strict=True))
    gauges, _ = _dicts(lay.gauges, values, at + len(lay.port))
    return PortCounters(prio=prio, port=port, gauges=gauges, wd_shut=wd_shut, wd_read=wd_read,
                        link=dict(link) if link else {})


__all__ = ["Layout", "mean", "means", "pack_counters", "pack_interval", "unpack_counters", "unpack_interval"]
