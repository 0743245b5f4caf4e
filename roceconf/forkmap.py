"""One function over many items on forked worker processes, results in the items' order.

For CPU-bound work over a loaded fabric (parsing saved configs or counters): threads would queue on the GIL.
The workers inherit the parent's memory at fork time - the loaded intent and the function itself, which is
never pickled; only the items and the results travel. The parent's heap is frozen for the pool's life, so
the workers' garbage collector never walks (and unshares) the inherited pages.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: the function of the forked workers (inherited from the parent at fork time, never pickled)
_FN: Callable[[Any], Any] | None = None


def available() -> bool:
    """Can this system fork worker processes?"""
    return "fork" in multiprocessing.get_all_start_methods()


def _chunk(items: list[Any]) -> list[Any]:
    assert _FN is not None
    return [_FN(x) for x in items]


def forked_map(
    fn: Callable[[T], R], items: Sequence[T], procs: int, min_chunk: int, max_chunk: int
) -> Iterator[R]:
    """``fn`` of every item on ``procs`` forked processes, yielded in the order of ``items``. Items travel in
    chunks of ``min_chunk`` to ``max_chunk`` (about eight per process), a chunk's results back together."""
    global _FN
    size = max(min_chunk, min(max_chunk, len(items) // (procs * 8) or 1))
    chunks = [list(items[i : i + size]) for i in range(0, len(items), size)]
    _FN = fn
    gc.collect()
    gc.freeze()
    try:
        ctx = multiprocessing.get_context("fork")
        with cf.ProcessPoolExecutor(max_workers=procs, mp_context=ctx) as pool:
            for chunk in pool.map(_chunk, chunks):
                yield from chunk
    finally:
        gc.unfreeze()
        _FN = None
