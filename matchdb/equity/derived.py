"""Every derived item of a complete database, from one pass over its tables: what ``matchdb build`` computes after them.

Three items, each kept in the store as derived data bound to the tables
(:mod:`matchdb.storage.derived`), shipped by ``matchdb pack`` and checked by
``matchdb verify``:

- ``preflop`` (:class:`matchdb.answers.PreflopTable`): each starting-hand
  class's exact heads-up equity against a random hand and its naive win rates;
- ``preflop_matchups`` (:class:`matchdb.equity.matchups.PreflopMatchups`):
  every hand against every hand, what preflop range questions read;
- ``preflop_multiway`` (:class:`matchdb.answers.PreflopMultiway`): each
  class against 1 to 9 random hands, exact against one and two.

Each averages over boards, and a board is an entry of ten tables (its ten
splits into a flop and a turn and river), so a table is read on its weighted
columns only (:func:`matchdb.equity.matchups.column_weights`: each board
counted 12 times, about one column in nine). :func:`compute_derived` reads
every table once, takes those columns and counts them on ``threads`` threads
(the kernels release the GIL) while the next tables are decoded: the matchups
(:func:`matchdb.equity.matchups.add_table_counts`) and the counts against
random hands (:func:`matchdb.equity.preflop.add_table_counts`). About half a
minute for all three on 2 cores, most of it the matchups.

>>> tuple(DERIVED)
('preflop', 'preflop_matchups', 'preflop_multiway')
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers.preflop import (
    PREFLOP_KIND,
    PREFLOP_MULTIWAY_KIND,
    PREFLOP_MULTIWAY_VERSION,
    PREFLOP_VERSION,
    PreflopMultiway,
    PreflopTable,
)
from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS
from matchdb.equity import matchups
from matchdb.errors import MatchdbError
from matchdb.progress import progress

if TYPE_CHECKING:
    from matchdb.equity.reports import FlopTableLike

__all__ = ["DERIVED", "DerivedKind", "compute_derived"]


@dataclass(frozen=True)
class DerivedKind:
    """One kind of derived data: its layout version and how its stored JSON becomes the answer."""

    version: int
    read: Callable[[dict[str, Any]], Any]


#: Every kind of derived data a complete database keeps (``derived/KIND.json``), in the order a pass computes them.
DERIVED = {
    PREFLOP_KIND: DerivedKind(PREFLOP_VERSION, PreflopTable.from_stored),
    matchups.MATCHUPS_KIND: DerivedKind(matchups.MATCHUPS_VERSION, matchups.PreflopMatchups.from_stored),
    PREFLOP_MULTIWAY_KIND: DerivedKind(PREFLOP_MULTIWAY_VERSION, PreflopMultiway.from_stored),
}


class _Totals:
    """What one thread adds up: the hands' wins and ties (the matchups), the counts against random hands."""

    def __init__(self, with_matchups: bool, with_counts: bool) -> None:
        from matchdb.equity.preflop import RandomCounts

        self.hands = matchups.HandCounts() if with_matchups else None
        self.counts = RandomCounts() if with_counts else None


def compute_derived(tables: Iterable[FlopTableLike], kinds: Iterable[str] | None = None, threads: int | None = None,
                    show_progress: bool = False) -> dict[str, Any]:
    """The derived data ``kinds`` (default all of :data:`DERIVED`) from every canonical table, kind -> answer.

    ``tables`` yields objects with ``index``, ``orbit``, ``hands`` and ``table`` for all
    1,755 canonical flops (:meth:`matchdb.MatchDB.tables`); ``threads`` count them (default
    one per core); ``show_progress`` shows the tables done (:mod:`matchdb.progress`).

    >>> compute_derived([], kinds=["preflop"])
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The derived data needs all 1755 tables; got 0.
    """
    from matchdb.equity import preflop  # numba's kernels: loaded here, not by a process that only reads derived data
    from matchdb.equity.enumeration import THREADS

    wanted = list(DERIVED) if kinds is None else list(dict.fromkeys(kinds))
    for kind in wanted:
        if kind not in DERIVED:
            raise MatchdbError(f"The derived data {kind!r} is unknown; expected one of {', '.join(DERIVED)}.")
    with_matchups = matchups.MATCHUPS_KIND in wanted
    with_counts = any(kind != matchups.MATCHUPS_KIND for kind in wanted)
    threads = THREADS if threads is None else max(1, int(threads))
    started = time.perf_counter()
    slots = [_Totals(with_matchups, with_counts) for _ in range(threads)]
    free = list(range(threads))
    free_lock = threading.Condition()
    seen: set[int] = set()

    def work(slot: int, flop: tuple[int, ...], orbit: int, hands: np.ndarray, columns: np.ndarray, weights: np.ndarray,
             column_weight: np.ndarray) -> None:
        try:
            totals = slots[slot]
            if totals.hands is not None:
                matchups.add_table_counts(columns, weights, flop, column_weight, orbit, totals.hands)
            if totals.counts is not None:
                preflop.add_table_counts(columns, weights, hands, orbit, totals.counts)
        finally:
            with free_lock:
                free.append(slot)
                free_lock.notify()

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="matchdb-derived") as pool:
        futures: list[Future[None]] = []
        for item in progress(tables, N_FLOPS, "preflop data", unit="table", enabled=show_progress):
            flop = tuple(int(c) for c in CANONICAL_FLOPS[item.index])
            seen.add(item.index)
            column_weight = matchups.column_weights(flop)
            chosen = np.flatnonzero(column_weight)
            if len(chosen) == 0:
                continue
            chosen = chosen[np.argsort(column_weight[chosen], kind="stable")]  # grouped by weight, as the matchups want
            columns = np.ascontiguousarray(item.table[:, chosen].T)  # a copy: the iterator reuses its buffer
            with free_lock:
                while not free:
                    free_lock.wait()
                slot = free.pop()
            futures.append(pool.submit(work, slot, flop, int(item.orbit), np.array(item.hands), columns,
                                       column_weight[chosen].astype(np.int64), column_weight))
            for future in [f for f in futures if f.done()]:
                future.result()  # an error in a worker stops the loop here
                futures.remove(future)
        for future in futures:
            future.result()
    if len(seen) != N_FLOPS:
        raise MatchdbError(f"The derived data needs all {N_FLOPS} tables; got {len(seen)}.")
    provenance = {"seconds": round(time.perf_counter() - started, 1), "method": "match tables"}
    out: dict[str, Any] = {}
    if with_counts:
        counts = slots[0].counts
        assert counts is not None
        for other in slots[1:]:
            assert other.counts is not None
            counts.add(other.counts)
        if PREFLOP_KIND in wanted:
            out[PREFLOP_KIND] = preflop.preflop_table(counts, provenance)
        if PREFLOP_MULTIWAY_KIND in wanted:
            out[PREFLOP_MULTIWAY_KIND] = preflop.multiway_table(counts, provenance)
    if with_matchups:
        out[matchups.MATCHUPS_KIND] = matchups.matchups_from_counts([s.hands for s in slots if s.hands is not None],
                                                                    provenance)
    return {kind: out[kind] for kind in wanted}
