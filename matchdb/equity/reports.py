"""Reports over all 22,100 flops: a range's exact equity against a range on every flop, by texture, and its flop hits.

The loop runs over an iterable of ``(canonical index, canonical flop cards,
orbit size, decoded table)`` tuples (:func:`iter_tables` makes one from a
:class:`matchdb.MatchDB`), so that it reads every table once.

How every flop is covered: when both ranges are *suit-symmetric* (renaming
suits maps each onto itself, as every range written in the usual notation
like ``'QQ+,AKs'`` is), the equity and the hits are the same on every flop of
an orbit, so each canonical table answers for its whole orbit and counts
``orbit size`` times. Otherwise (explicit hands like ``'AhKh'``, uneven
weights) every one of the 22,100 flops is computed on its own, through its
canonical table with both ranges renamed into it: 12.6 times the work of the
symmetric case for the same ranges.

Weights of the aggregates: the equity over several flops is the mean of the
flops' equities weighted by each flop's probability given the two ranges
(its count times the weight of the hero and villain hands that can be dealt
on it together), so the mean over all flops is the preflop range-against-
range equity. Hit rates are weighted by each flop's count times the hero
weight live on it: the chance that the hero range flops the hand.

How one flop's equity is counted: the heads-up range against range of
:func:`matchdb.equity.heads_up.range_scores` (card removal exact), on each
flop's table.

Hits (``HITS``) of the hero's two cards with the three flop cards, counted
the way Flopzilla reports them (each combo once per category, draws beside
made hands), with these precise definitions:

- ``pair_or_better``: the five cards make a better hand type than the flop
  alone (a board pair or board trips does not count: on K-K-7, A-Q is no pair).
- ``two_pair``: the five cards make two pair and the flop is not paired, or
  the flop is paired and the hole cards make a second pair (a pocket pair or
  a card pairing the flop's other card).
- ``set``: a pocket pair matching one flop card, making trips.
- ``trips``: one hole card matching a flop pair (not a pocket pair).
- ``straight``: five cards in sequence, not all of one suit.
- ``flush``: five cards of one suit, not in sequence.
- ``full_house_plus``: a full house, quads or a straight flush made with the hole cards.
- ``flush_draw``: exactly four of the five cards in one suit (one- and two-card draws).
- ``oesd``: no straight yet, and two or more ranks that would complete one
  (open-ended and double-gutshot draws, 8 outs before blockers).
- ``gutshot``: no straight yet, and exactly one rank that would complete one
  (4 outs before blockers; a straight the turn completes always uses a
  hole card, so every straight draw does).

Textures (``TEXTURES``) of a flop: ``suits`` (monotone, two-tone, rainbow),
``pairing`` (unpaired, paired, trips), ``high_card`` (the highest rank,
``A`` to ``2``) and ``connectedness``: ``connected`` when its three ranks
are distinct and fit in five consecutive ranks (the ace also low: a straight
is possible with two hole cards), ``semi-connected`` when only two of its
distinct ranks fit in five consecutive ranks, else ``disconnected``.

>>> from matchdb.core.table import match_table
>>> from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES
>>> tables = [(i, tuple(CANONICAL_FLOPS[i]), int(ORBIT_SIZES[i]), match_table(CANONICAL_FLOPS[i])) for i in (0, 677)]
>>> r = flop_report(tables, "QQ+,AKs")
>>> r.flops, [round(float(e), 4) for e in r.equity], r.textures["connectedness"]
(('2c3c4c', '3cTdAd'), [0.7033, 0.8157], ('connected', 'semi-connected'))
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import numpy as np

from matchdb.answers.reports import HITS, TEXTURES, FlopReport
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, N_FLOPS, flop_orbits
from matchdb.core.cards import RANKS, CardsLike, format_cards
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP
from matchdb.core.hole_cards import HAND_HIGH as _HAND_HIGH
from matchdb.core.hole_cards import HAND_LOW as _HAND_LOW
from matchdb.core.pairs import N_PAIRS, PAIR_HIGH, PAIR_INDEX, PAIR_LOW, board_columns, local_index, remaining_cards
from matchdb.core.ranges import RangeLike, range_weights
from matchdb.equity._kernels.reports import _hit_flags
from matchdb.equity.heads_up import range_scores
from matchdb.errors import MatchdbError, RangeError

__all__ = [
    "HITS",
    "TEXTURES",
    "TableItem",
    "FlopReport",
    "flop_report",
    "report",
    "iter_tables",
    "as_items",
    "flop_texture",
    "hand_hits",
    "is_suit_symmetric",
]

_FLOP = board_columns(())  # a report counts every turn and river of each flop

#: What the loop reads: (canonical index, canonical flop card ids, orbit size, decoded (1176, 1176) uint16 table);
#: objects with those four attributes (the whole-database iterator's) are taken too (:func:`as_items`).
TableItem = tuple[int, tuple[int, int, int], int, np.ndarray]


class FlopTableLike(Protocol):
    """What the whole-database passes read of each table (:class:`matchdb.db.query.FlopTable` has it)."""

    @property
    def index(self) -> int: ...  # canonical index, 0..1754
    @property
    def orbit(self) -> int: ...  # how many flops it stands for
    @property
    def hands(self) -> np.ndarray: ...  # (1176, 2) card ids of each row's hand
    @property
    def table(self) -> np.ndarray: ...  # (1176, 1176) uint16 W


def iter_tables(db: Any, indices: Iterable[int] | None = None, show_progress: bool = False) -> Iterator[TableItem]:
    """Every table of a :class:`matchdb.MatchDB` (or those of ``indices``) as :data:`TableItem` tuples.

    Through the database's whole-database iterator, :meth:`matchdb.MatchDB.tables`.
    """
    yield from as_items(db.tables(indices, show_progress=show_progress))


def as_items(tables: Iterable[Any]) -> Iterator[TableItem]:
    """:data:`TableItem` tuples from tuples or from objects with ``index``, ``flop``, ``orbit`` and ``table``.

    >>> from types import SimpleNamespace
    >>> next(as_items([SimpleNamespace(index=0, flop=(0, 1, 2), orbit=4, table=None)]))
    (0, (0, 1, 2), 4, None)
    """
    for item in tables:
        if hasattr(item, "table"):
            yield item.index, tuple(item.flop), item.orbit, item.table
        else:
            index, flop, orbit, table = item
            yield index, flop, orbit, table


# -- hits -----------------------------------------------------------------------------------


def hand_hits(hole: CardsLike, flop: CardsLike) -> tuple[str, ...]:
    """The :data:`HITS` a hand makes on a flop, by their names.

    >>> hand_hits("JhTh", "9h8c2h")
    ('flush_draw', 'oesd')
    >>> hand_hits("7s7d", "Kc7h2d")
    ('pair_or_better', 'set')
    >>> hand_hits("AhQd", "KcKd7s")
    ()
    """
    from matchdb.core.cards import parse_cards

    hole = parse_cards(hole, count=2)
    flop = parse_cards(flop, count=3)
    if set(hole) & set(flop):
        raise MatchdbError(f"The hand {format_cards(hole)!r} shares a card with the flop {format_cards(flop)!r}; expected distinct cards.")
    flags = int(_hit_flags(np.array([hole[0]]), np.array([hole[1]]), np.array(flop), STRAIGHT_TOP, FLUSH_VALUE)[0])
    return tuple(name for i, name in enumerate(HITS) if flags >> i & 1)


# -- textures --------------------------------------------------------------------------------


def flop_texture(flop: CardsLike) -> dict[str, str]:
    """The texture of a flop (see the module docstring); the same for every flop of a suit orbit.

    >>> flop_texture("Kc7d2h")
    {'suits': 'rainbow', 'pairing': 'unpaired', 'high_card': 'K', 'connectedness': 'disconnected'}
    >>> flop_texture("9h8h6h")["connectedness"], flop_texture("Ac7d2h")["connectedness"]
    ('connected', 'semi-connected')
    """
    from matchdb.core.cards import parse_cards

    cards = parse_cards(flop, count=3)
    ranks = sorted({c % 13 for c in cards})
    suits = len({c // 13 for c in cards})
    pairing = ("trips", "paired", "unpaired")[len(ranks) - 1]
    # the most distinct ranks inside five consecutive ones; the window from -1 is A-2-3-4-5
    best = max(sum(1 for r in ranks if low <= r <= low + 4 or (r == 12 and low == -1)) for low in range(-1, 9))
    connectedness = "connected" if best == 3 else "semi-connected" if best == 2 else "disconnected"
    return {
        "suits": ("monotone", "two-tone", "rainbow")[suits - 1],
        "pairing": pairing,
        "high_card": RANKS[max(ranks)],
        "connectedness": connectedness,
    }


@functools.cache
def _canonical_textures() -> tuple[dict[str, str], ...]:
    return tuple(flop_texture([int(c) for c in flop]) for flop in CANONICAL_FLOPS)


# -- ranges -----------------------------------------------------------------------------------


@functools.cache
def _hand_permutations() -> np.ndarray:
    """``out[p, i]``: the position in hand order of hand i with its suits renamed by p."""
    position = np.full((52, 52), -1, dtype=np.int64)
    position[_HAND_HIGH, _HAND_LOW] = np.arange(1326)
    position[_HAND_LOW, _HAND_HIGH] = np.arange(1326)
    return np.stack([position[CARD_MAP[p, _HAND_HIGH], CARD_MAP[p, _HAND_LOW]] for p in range(24)])


def is_suit_symmetric(weights: np.ndarray) -> bool:
    """True when renaming suits maps a 1,326-weight range onto itself.

    >>> from matchdb.core.ranges import range_weights
    >>> is_suit_symmetric(range_weights("QQ+,AKs")), is_suit_symmetric(range_weights("AhKh"))
    (True, False)
    """
    weights = np.asarray(weights)
    return bool((weights[_hand_permutations()] == weights[None, :]).all())


@functools.cache
def _local_table() -> np.ndarray:
    """(1755, 52): the local index of each card id on each canonical flop, -1 for the flop's own cards."""
    return np.stack([local_index(flop) for flop in CANONICAL_FLOPS]).astype(np.int64)


def _frame_weights(real: np.ndarray, index: int, perm: int) -> np.ndarray:
    """1,326 real-hand weights as weights on the rows of canonical table ``index``, reached by renaming ``perm``."""
    return _RangeInFrame(real).weights(index, perm)


class _RangeInFrame:
    """A range's hands with weight, ready to be carried into any canonical table's rows (the per-flop loop's hot path)."""

    def __init__(self, real: np.ndarray) -> None:
        held = np.flatnonzero(real)
        self.high = _HAND_HIGH[held]
        self.low = _HAND_LOW[held]
        self.values = real[held]

    def weights(self, index: int, perm: int) -> np.ndarray:
        local = _local_table()[index]
        la = local[CARD_MAP[perm, self.high]]
        lb = local[CARD_MAP[perm, self.low]]
        on = (la >= 0) & (lb >= 0)
        out = np.zeros(N_PAIRS)
        out[_PAIR_ROWS[la[on], lb[on]]] = self.values[on]
        return out


_PAIR_ROWS = PAIR_INDEX.astype(np.int64)


# -- the report ----------------------------------------------------------------------------------


def _range_text(spec: object) -> str:
    if spec is None:
        return "random"
    if isinstance(spec, str):
        return spec
    if isinstance(spec, (list, tuple)) and all(isinstance(hand, str) for hand in spec):
        return ",".join(spec)
    return "weights"


def _prefetched(tables: Iterable[TableItem], depth: int = 2) -> Iterator[TableItem]:
    """The items of ``tables``, read ahead in a thread (decoding overlaps the counting), each table copied.

    Copying keeps every item valid however the iterable reuses its buffer.
    An error in the reading thread is raised here, where the item would have come.
    """
    import queue
    import threading

    items: queue.Queue[TableItem | BaseException | None] = queue.Queue(maxsize=depth)  # None: the last item was read
    stop = threading.Event()

    def read() -> None:
        try:
            for index, flop, orbit, table in tables:
                if stop.is_set():
                    return
                items.put((index, flop, orbit, np.array(table)))
            items.put(None)
        except BaseException as error:  # handed to the consumer
            items.put(error)

    reader = threading.Thread(target=read, name="matchdb-report-reader", daemon=True)
    reader.start()
    try:
        while True:
            item = items.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while reader.is_alive():  # let a blocked reader finish its put and see the stop
            with contextlib.suppress(queue.Empty):
                items.get(timeout=0.1)


def _check_dealable(hero: np.ndarray, villain: np.ndarray, hero_spec: object, villain_spec: object) -> None:
    """Refuse ranges of which no hero hand can be dealt beside any villain hand (a report would be all NaN)."""
    live = (villain > 0).astype(np.int64)
    with_card = np.bincount(_HAND_HIGH, live, minlength=52) + np.bincount(_HAND_LOW, live, minlength=52)
    beside = live.sum() - with_card[_HAND_HIGH] - with_card[_HAND_LOW] + live  # villain hands disjoint from each hand
    if not ((hero > 0) & (beside > 0)).any():
        raise RangeError(
            f"No deal is possible: every hand of {_range_text(hero_spec)!r} shares a card with every hand of "
            f"{_range_text(villain_spec)!r}; expected ranges that can be dealt together."
        )


def flop_report(tables: Iterable[TableItem], hero: Any, villain: RangeLike = None, quiet: bool = True,
                per_flop: bool | None = None) -> FlopReport:
    """The hero range against the villain range on every flop the tables cover (either ``None``: a random hand).

    ``tables`` yields :data:`TableItem` tuples (all 1,755 for a full report:
    :func:`iter_tables`). Ranges are text like ``'QQ+,AKs'``, lists of hands
    or 1,326 weights (:func:`matchdb.equity.distributions.range_weights`).
    ``per_flop`` forces (True) or forbids (False) computing each actual flop
    on its own; by default only ranges that are not suit-symmetric are. A
    progress bar shows on a terminal unless ``quiet``.
    """
    from tqdm import tqdm

    started = time.perf_counter()
    hero_real = np.ones(1326) if hero is None else range_weights(hero)
    if not hero_real.any():
        raise RangeError(f"The hero range {hero!r} holds no hand with a positive weight.")
    villain_real = np.ones(1326) if villain is None else range_weights(villain)
    if not villain_real.any():
        raise RangeError(f"The villain range {villain!r} holds no hand with a positive weight.")
    _check_dealable(hero_real, villain_real, hero, villain)
    symmetric = is_suit_symmetric(hero_real) and is_suit_symmetric(villain_real)
    if per_flop is None:
        per_flop = not symmetric
    elif not per_flop and not symmetric:
        raise RangeError("A range is not suit-symmetric, so each flop must be computed on its own; expected per_flop=None or True.")
    textures = _canonical_textures()
    villain_uniform = bool((villain_real == villain_real[0]).all())
    hero_frame, villain_frame = _RangeInFrame(hero_real), _RangeInFrame(villain_real)
    entries: list[tuple[tuple[int, ...], int, int, float, float, float, np.ndarray]] = []
    bar = tqdm(total=N_FLOPS, desc="report", unit="table", disable=True if quiet else None)
    with bar:
        items = as_items(tables)
        for index, flop, orbit, table in _prefetched(items) if (os.cpu_count() or 1) > 1 else items:
            flags = _hit_flags(*_flop_hole_cards(index), np.array(flop, dtype=np.int64), STRAIGHT_TOP, FLUSH_VALUE)
            bits = ((flags[:, None] >> np.arange(len(HITS))) & 1).astype(np.float64)
            for member, perm in (flop_orbits()[index] if per_flop else ((tuple(flop), 0),)):
                h = hero_frame.weights(index, perm)
                v = np.full(N_PAIRS, villain_real[0]) if villain_uniform else villain_frame.weights(index, perm)
                score, deals = range_scores(table, _FLOP, h, v)
                live = h.sum()
                hits = h @ bits / live if live > 0 else np.zeros(len(HITS))
                entries.append((member, index, 1 if per_flop else orbit, score, deals, live, hits))
            bar.update(1)
    if not entries:
        raise MatchdbError("No table was given; expected (index, flop, orbit size, table) tuples, e.g. from iter_tables(db).")
    indices = np.array([e[1] for e in entries], dtype=np.int64)
    scores = np.array([e[3] for e in entries])
    all_deals = np.array([e[4] for e in entries])
    if not (all_deals > 0).any():  # possible preflop, impossible on every flop given
        raise RangeError(f"No deal of {_range_text(hero)!r} against {_range_text(villain)!r} is possible on the flops given.")
    with np.errstate(invalid="ignore", divide="ignore"):
        equity = np.where(all_deals > 0, scores / np.where(all_deals > 0, all_deals, 1), np.nan)
    hit_table = np.array([e[6] for e in entries]).reshape(len(entries), len(HITS))
    return FlopReport(
        hero=_range_text(hero),
        villain=_range_text(villain),
        symmetric=not per_flop,
        flops=tuple(format_cards(e[0]) for e in entries),
        index=indices,
        count=np.array([e[2] for e in entries], dtype=np.int64),
        equity=equity,
        deals=all_deals,
        hero_weight=np.array([e[5] for e in entries]),
        hits={name: hit_table[:, i].copy() for i, name in enumerate(HITS)},
        textures={key: tuple(textures[i][key] for i in indices) for key in TEXTURES},
        seconds=time.perf_counter() - started,
    )


@functools.cache
def _flop_hole_cards(index: int) -> tuple[np.ndarray, np.ndarray]:
    """Card ids of each row's two cards on canonical flop ``index``."""
    rest = remaining_cards(CANONICAL_FLOPS[index]).astype(np.int64)
    return rest[PAIR_LOW], rest[PAIR_HIGH]


def report(db: Any, hero: Any, villain: RangeLike = None, quiet: bool = True, per_flop: bool | None = None,
           indices: Iterable[int] | None = None) -> FlopReport:
    """:func:`flop_report` over every table of a :class:`matchdb.MatchDB` (or the canonical flops of ``indices``).

    >>> r = report(db, "AA", "KK", indices=[0, 1])    # no indices: all 22,100 flops
    >>> r.total_flops, round(r.overall_equity(), 4), r.by_texture("suits")[0]["suits"]
    (8, 0.8398, 'monotone')
    """
    return flop_report(iter_tables(db, indices, show_progress=not quiet), hero, villain, quiet=True, per_flop=per_flop)
