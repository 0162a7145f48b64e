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

How one flop's equity is counted (card removal exact, see
``_range_vs_range``): a random side takes W's own counts, less the 94 rows
sharing a card with each hand of the other side; two small ranges compare
every pair of their hands on every runout; larger ones sum each runout's
hero and villain weight per W level (the levels present found through a
bitmap) and take away the pairs of hands that share a card.

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

import csv
import functools
import io
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from matchdb.jit import jit
from matchdb.answers import Answer, plain, require_pandas
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, N_FLOPS, canonical_index
from matchdb.core.cards import RANKS, format_cards
from matchdb.errors import MatchdbError, RangeError
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.core.hole_cards import HAND_HIGH as _HAND_HIGH
from matchdb.core.hole_cards import HAND_LOW as _HAND_LOW
from matchdb.core.pairs import (
    COLLISION,
    N_LEVELS,
    N_LOCAL,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    ROWS_OF_CARD,
    SENTINEL,
    local_index,
)
from matchdb.core.ranges import range_weights

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

#: Made hands and draws counted on the flop, in report order (see the module docstring).
HITS = (
    "pair_or_better",
    "two_pair",
    "set",
    "trips",
    "straight",
    "flush",
    "full_house_plus",
    "flush_draw",
    "oesd",
    "gutshot",
)
#: Texture keys of a flop, and their values in display order.
TEXTURES = {
    "suits": ("monotone", "two-tone", "rainbow"),
    "pairing": ("unpaired", "paired", "trips"),
    "high_card": tuple(reversed(RANKS)),
    "connectedness": ("connected", "semi-connected", "disconnected"),
}

#: What the loop reads: (canonical index, canonical flop card ids, orbit size, decoded (1176, 1176) uint16 table);
#: objects with those four attributes (the whole-database iterator's) are taken too (:func:`as_items`).
TableItem = tuple[int, tuple[int, int, int], int, np.ndarray]


def iter_tables(db, indices: Iterable[int] | None = None, show_progress: bool = False) -> Iterator[TableItem]:
    """Every table of a :class:`matchdb.MatchDB` (or those of ``indices``) as :data:`TableItem` tuples.

    Through the database's whole-database iterator, :meth:`matchdb.MatchDB.tables`.
    """
    yield from as_items(db.tables(indices, show_progress=show_progress))


def as_items(tables: Iterable) -> Iterator[TableItem]:
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

#: Runouts of a flop valid for one row (C(47, 2)), and for two rows sharing one card (C(46, 2)).
_ROW_RUNOUTS = 1081
_SHARED_RUNOUTS = 1035

_TYPE_PAIR, _TYPE_TWO_PAIR, _TYPE_TRIPS, _TYPE_STRAIGHT, _TYPE_FLUSH, _TYPE_FULL_HOUSE = 1, 2, 3, 4, 5, 6


@jit
def _hit_flags(hole_a, hole_b, flop, straight_top, flush_value):
    """Bit i of ``out[h]`` is set when hand h (cards hole_a[h], hole_b[h]) makes :data:`HITS` [i] on the flop."""
    n = hole_a.shape[0]
    out = np.zeros(n, dtype=np.int64)
    cards = np.empty(5, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int32)
    flop_counts = np.zeros(13, dtype=np.int64)
    for c in flop:
        flop_counts[c % 13] += 1
    flop_type = 0
    for r in range(13):
        if flop_counts[r] == 3:
            flop_type = _TYPE_TRIPS
        elif flop_counts[r] == 2:
            flop_type = _TYPE_PAIR
    cards[2] = flop[0]
    cards[3] = flop[1]
    cards[4] = flop[2]
    for h in range(n):
        a = hole_a[h]
        b = hole_b[h]
        cards[0] = a
        cards[1] = b
        kind = evaluate_with(cards, counts, straight_top, flush_value) >> 20
        pocket = a % 13 == b % 13
        flags = 0
        if kind > flop_type:
            flags |= 1 << 0
            if kind == _TYPE_TWO_PAIR:
                flags |= 1 << 1
            elif kind == _TYPE_TRIPS:
                flags |= 1 << (2 if pocket else 3)
            elif kind == _TYPE_STRAIGHT:
                flags |= 1 << 4
            elif kind == _TYPE_FLUSH:
                flags |= 1 << 5
            elif kind >= _TYPE_FULL_HOUSE:
                flags |= 1 << 6
        suit_count = np.zeros(4, dtype=np.int64)
        mask = 0
        for c in cards:
            suit_count[c // 13] += 1
            mask |= 1 << (c % 13)
        if suit_count.max() == 4:
            flags |= 1 << 7
        if straight_top[mask] < 0:
            outs = 0
            for r in range(13):
                if not (mask >> r) & 1 and straight_top[mask | (1 << r)] >= 0:
                    outs += 1
            if outs >= 2:
                flags |= 1 << 8
            elif outs == 1:
                flags |= 1 << 9
        out[h] = flags
    return out


def hand_hits(hole, flop) -> tuple[str, ...]:
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


def flop_texture(flop) -> dict[str, str]:
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
def _orbits() -> tuple[tuple[tuple[tuple[int, int, int], int], ...], ...]:
    """For each canonical index, its flops (sorted card ids) and the renaming carrying each onto the canonical flop."""
    members: list[list[tuple[tuple[int, int, int], int]]] = [[] for _ in range(N_FLOPS)]
    for flop in combinations(range(52), 3):
        index, perm = canonical_index(flop)
        members[index].append((flop, perm))
    return tuple(tuple(m) for m in members)


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


# -- range against range on one table -----------------------------------------------------------


@jit
def _random_villain(table, hero_rows, rows_of_card, pair_low, pair_high):
    """Twice the score of each hero row against a random hand, card removal exact.

    W counts wins twice and ties once against every valid row of a column;
    what is left is to take away, column by column, the rows sharing one of
    the hero's cards (16-bit counters: vectorised).
    """
    n_cols = table.shape[1]
    out = np.zeros(hero_rows.shape[0], dtype=np.int64)
    for i in range(hero_rows.shape[0]):
        h = hero_rows[i]
        hero = table[h]
        total = 0
        for c in range(n_cols):
            v = np.int64(hero[c])
            total += v * (v != SENTINEL)
        shared = 0
        for side in range(2):
            card = pair_low[h] if side == 0 else pair_high[h]
            for m in range(rows_of_card.shape[1]):
                k = rows_of_card[card, m]
                if k == h:
                    continue
                other = table[k]
                twice = np.uint16(0)
                for c in range(n_cols):
                    u = hero[c]
                    valid = u != SENTINEL  # other == SENTINEL makes both comparisons false
                    twice = np.uint16(twice + np.uint16(valid & (u > other[c])) + np.uint16(valid & (u >= other[c])))
                shared += twice
        out[i] = total - shared
    return out


@jit
def _direct_pairs(table, hero_rows, hero_w, villain_rows, villain_w, collision):
    """(Σ hero x villain weight x (2 wins + ties), Σ weight x deals) over every disjoint pair, column by column."""
    n_cols = table.shape[1]
    twice = np.zeros(hero_rows.shape[0])
    deals = np.zeros(hero_rows.shape[0])
    for i in range(hero_rows.shape[0]):
        h = hero_rows[i]
        hero = table[h]
        for m in range(villain_rows.shape[0]):
            k = villain_rows[m]
            if collision[h, k]:
                continue
            other = table[k]
            t2 = np.uint16(0)
            both = np.uint16(0)
            for c in range(n_cols):
                u = hero[c]
                v = other[c]
                valid = (u != SENTINEL) & (v != SENTINEL)
                t2 = np.uint16(t2 + np.uint16(valid & (u > v)) + np.uint16(valid & (u >= v)))
                both = np.uint16(both + np.uint16(valid))
            twice[i] += villain_w[m] * t2
            deals[i] += villain_w[m] * both
        twice[i] *= hero_w[i]
        deals[i] *= hero_w[i]
    return twice.sum(), deals.sum()


@jit
def _level_walk(tt, hero_w, villain_w, debruijn):
    """(Σ hero x villain weight x score, Σ of the weights) over every pair of rows valid on a column,
    including pairs that share a card (``_shared_pairs`` takes those away).

    ``tt[j, m]`` is W of row m on column j. Each column's hero and villain
    weight is summed per W level, with a bitmap of the levels present; the
    levels (about 75 of the 2,161) are then visited in order through the
    bitmap: a level's hero weight scores the villain weight below it and
    half the villain weight level with it.
    """
    n_cols, n = tt.shape
    n_words = (N_LEVELS + 63) // 64
    level_h = np.zeros(n_words * 64)
    level_v = np.zeros(n_words * 64)
    present = np.zeros(n_words, dtype=np.uint64)
    s_sum = 0.0
    d_sum = 0.0
    for j in range(n_cols):
        col = tt[j]
        last = -1
        acc_h = 0.0
        acc_v = 0.0
        for m in range(n):  # rows of one level often come together: sum them before touching memory
            v = np.int64(col[m])
            if v == SENTINEL:
                continue
            if v != last:
                if last >= 0:
                    level_h[last] += acc_h
                    level_v[last] += acc_v
                last = v
                acc_h = 0.0
                acc_v = 0.0
                present[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
            acc_h += hero_w[m]
            acc_v += villain_w[m]
        if last >= 0:
            level_h[last] += acc_h
            level_v[last] += acc_v
        below = 0.0
        hero_total = 0.0
        for word_index in range(n_words):
            word = present[word_index]
            present[word_index] = 0
            while word:
                low = word & (np.uint64(0) - word)
                v = word_index * 64 + debruijn[(low * np.uint64(0x03F79D71B4CB0A89)) >> np.uint64(58)]
                word ^= low
                h = level_h[v]
                w = level_v[v]
                s_sum += h * (below + 0.5 * w)
                below += w
                hero_total += h
                level_h[v] = 0.0
                level_v[v] = 0.0
        d_sum += hero_total * below
    return s_sum, d_sum


def _debruijn_table() -> np.ndarray:
    """Position of the one set bit of a 64-bit word, looked up by the word times a de Bruijn constant."""
    table = np.zeros(64, dtype=np.int64)
    for i in range(64):
        table[((1 << i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = i
    return table


_DEBRUIJN = _debruijn_table()


@jit
def _shared_pairs(table, hero_w, villain_w, rows_of_card):
    """(Σ hero x villain weight x score, Σ weight x runouts) over the pairs of rows that share one card,
    and of each row with itself, over the runouts where both are valid.

    One comparison per unordered pair serves both orders (the second's score
    is the runouts less the first's); 16-bit counters, so it vectorises.
    """
    n_cols = table.shape[1]
    m = rows_of_card.shape[1]
    score = np.zeros(N_LOCAL)
    deals = np.zeros(N_LOCAL)
    for a in range(N_LOCAL):
        for i in range(m):
            h = rows_of_card[a, i]
            hero = table[h]
            for q in range(i + 1, m):
                k = rows_of_card[a, q]
                forward = hero_w[h] * villain_w[k]
                backward = hero_w[k] * villain_w[h]
                if forward == 0.0 and backward == 0.0:
                    continue
                other = table[k]
                t2 = np.uint16(0)
                for c in range(n_cols):
                    u = hero[c]
                    valid = u != SENTINEL  # other == SENTINEL makes both comparisons false
                    t2 = np.uint16(t2 + np.uint16(valid & (u > other[c])) + np.uint16(valid & (u >= other[c])))
                first = t2 / 2  # h's wins and half ties against k
                score[a] += forward * first + backward * (_SHARED_RUNOUTS - first)
                deals[a] += (forward + backward) * _SHARED_RUNOUTS
    same = 0.0
    for h in range(hero_w.shape[0]):
        same += hero_w[h] * villain_w[h]
    return score.sum() + same * _ROW_RUNOUTS / 2, deals.sum() + same * _ROW_RUNOUTS


#: Pairs of hero and villain rows per row of either up to which comparing every pair beats walking every column.
_DIRECT_PAIRS_PER_ROW = 20
#: Opponent hands on a full board beside a hero hand, times the full boards beside it on a flop: 990 x 1,081.
_RANDOM_DEALS = 990 * 1081


def _range_vs_range(table: np.ndarray, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float]:
    """(Σ hero weight x score, Σ hero weight x deals) on one flop's table, card removal exact.

    ``hero`` and ``villain`` are weights on the table's 1,176 rows. A uniform
    side takes the shortcut through W's own counts (a uniform hero as one
    minus the villain's share); small ranges compare every pair of hands;
    larger ones walk every column once (``_level_walk``) and take away the
    pairs that share a card (``_shared_pairs``).
    """
    if villain.min() == villain.max() or hero.min() == hero.max():
        flip = villain.min() != villain.max()
        ranged, uniform = (villain, hero) if flip else (hero, villain)
        rows = np.flatnonzero(ranged)
        if len(rows) == 0 or uniform[0] == 0:
            return 0.0, 0.0
        twice = _random_villain(table, rows, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH)
        score = float(ranged[rows] @ twice) / 2 * uniform[0]
        deals = float(ranged[rows].sum()) * _RANDOM_DEALS * uniform[0]
        return (deals - score, deals) if flip else (score, deals)
    hero_rows = np.flatnonzero(hero)
    villain_rows = np.flatnonzero(villain)
    if len(hero_rows) == 0 or len(villain_rows) == 0:
        return 0.0, 0.0
    rows = np.flatnonzero((hero > 0) | (villain > 0))
    if len(hero_rows) * len(villain_rows) <= _DIRECT_PAIRS_PER_ROW * len(rows):  # measured crossover
        twice, deals = _direct_pairs(table, hero_rows, hero[hero_rows], villain_rows, villain[villain_rows], COLLISION)
        return twice / 2, deals
    tt = np.ascontiguousarray(table[rows].T)
    score, deals = _level_walk(tt, hero[rows], villain[rows], _DEBRUIJN)
    shared_score, shared_deals = _shared_pairs(table, hero, villain, ROWS_OF_CARD)
    return score - shared_score, deals - shared_deals


# -- the report ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FlopReport(Answer):
    """A hero range against a villain range on every flop, flop by flop and by texture.

    Entries are the canonical flops, each standing for ``count`` flops (its
    orbit), when both ranges are suit-symmetric, else the actual flops
    (``count`` 1). Arrays are read-only and aligned with ``flops``.

    Attributes
    ----------
    hero, villain : the ranges as given (``'random'`` for none).
    symmetric : whether entries are canonical flops standing for their orbits.
    flops : text of each entry's flop (the canonical one when ``symmetric``).
    index : canonical index of each entry.
    count : how many of the 22,100 flops each entry stands for.
    equity : the hero range's exact equity on the entry's flop (NaN where no deal is possible).
    deals : the weight of (hero, villain, runout) deals on one of its flops; ``count x deals`` weighs the equity.
    hero_weight : the hero weight live on one of its flops; ``count x hero_weight`` weighs the hits.
    hits : :data:`HITS` name -> the share of the live hero weight making it on the flop.
    textures : :data:`TEXTURES` key -> each entry's value.
    seconds : how long the report took.
    """

    hero: str
    villain: str
    symmetric: bool
    flops: tuple[str, ...]
    index: np.ndarray
    count: np.ndarray
    equity: np.ndarray
    deals: np.ndarray
    hero_weight: np.ndarray
    hits: dict[str, np.ndarray]
    textures: dict[str, tuple[str, ...]]
    seconds: float = field(default=0.0)

    def __post_init__(self) -> None:
        for array in (self.index, self.count, self.equity, self.deals, self.hero_weight, *self.hits.values()):
            array.flags.writeable = False

    def __repr__(self) -> str:
        return f"FlopReport({self.hero!r} vs {self.villain!r}: {self.total_flops:,} flops, equity {self.overall_equity():.4f})"

    @property
    def total_flops(self) -> int:
        """How many of the 22,100 flops the report covers."""
        return int(self.count.sum())

    def _equity_weight(self) -> np.ndarray:
        return self.count * self.deals

    def _hit_weight(self) -> np.ndarray:
        return self.count * self.hero_weight

    def overall_equity(self) -> float:
        """The hero's equity over every flop covered: the preflop equity when all 22,100 are."""
        weight = self._equity_weight()
        live = weight > 0
        return float((weight[live] * self.equity[live]).sum() / weight[live].sum())

    def overall_hits(self) -> dict[str, float]:
        """How often the hero range makes each hit, over every flop covered."""
        weight = self._hit_weight()
        return {name: float((weight * share).sum() / weight.sum()) for name, share in self.hits.items()}

    def rows(self, sort: str | None = None, descending: bool = True, expand: bool = False) -> list[dict]:
        """One dict per entry (or per actual flop with ``expand``), optionally sorted by a column.

        Columns: flop, index, count, equity, frequency (the share of the
        equity weight), the hits and the textures.
        """
        weight = self._equity_weight()
        frequency = weight / weight.sum() if weight.sum() > 0 else weight
        out = []
        orbits = _orbits() if expand and self.symmetric else None
        for e, flop in enumerate(self.flops):
            row = {"flop": flop, "index": int(self.index[e]), "count": int(self.count[e]), "equity": float(self.equity[e]),
                   "frequency": float(frequency[e])}
            row |= {name: float(share[e]) for name, share in self.hits.items()}
            row |= {key: values[e] for key, values in self.textures.items()}
            if orbits is None:
                out.append(row)
            else:
                for member, _ in orbits[int(self.index[e])]:
                    out.append(row | {"flop": format_cards(member), "count": 1, "frequency": row["frequency"] / row["count"]})
        return _sorted(out, sort, descending)

    def by_texture(self, key: str | tuple[str, ...] = "suits", sort: str | None = None, descending: bool = True) -> list[dict]:
        """Aggregate by one texture key or several (a tuple), weighted as the module docstring says.

        Each row: the texture values, flops (how many of the 22,100),
        frequency (share of the equity weight), equity and each hit rate.
        Without ``sort``, rows follow the textures' display order.
        """
        keys = (key,) if isinstance(key, str) else tuple(key)
        for k in keys:
            if k not in TEXTURES:
                raise MatchdbError(f"The texture key {k!r} is unknown; expected one of {', '.join(TEXTURES)}.")
        groups: dict[tuple[str, ...], list[int]] = {}
        for e in range(len(self.flops)):
            groups.setdefault(tuple(self.textures[k][e] for k in keys), []).append(e)
        weight = self._equity_weight()
        hit_weight = self._hit_weight()
        total = weight.sum()
        out = []
        for values in sorted(groups, key=lambda v: tuple(TEXTURES[k].index(x) for k, x in zip(keys, v))):
            members = np.array(groups[values])
            w = weight[members]
            hw = hit_weight[members]
            row = dict(zip(keys, values))
            row["flops"] = int(self.count[members].sum())
            row["frequency"] = float(w.sum() / total) if total > 0 else 0.0
            live = w > 0
            row["equity"] = float((w[live] * self.equity[members][live]).sum() / w[live].sum()) if live.any() else float("nan")
            for name, share in self.hits.items():
                row[name] = float((hw * share[members]).sum() / hw.sum()) if hw.sum() > 0 else float("nan")
            out.append(row)
        return _sorted(out, sort, descending)

    def to_csv(self, path: str | Path | None = None, by: str | tuple[str, ...] | None = None,
               sort: str | None = None, descending: bool = True, expand: bool = False) -> str:
        """The entries (or, with ``by``, the texture aggregates) as CSV; written to ``path`` when given."""
        rows = self.rows(sort, descending, expand) if by is None else self.by_texture(by, sort, descending)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_json(self, path: str | Path | None = None, expand: bool = False) -> str:
        """Summary, every entry and the aggregates by each texture key as JSON; written to ``path`` when given."""
        data = {
            "hero": self.hero,
            "villain": self.villain,
            "symmetric": self.symmetric,
            "flops_covered": self.total_flops,
            "equity": self.overall_equity(),
            "hits": self.overall_hits(),
            "seconds": self.seconds,
            "summary": self.summary(),
            "textures": {key: self.by_texture(key) for key in TEXTURES},
            "flops": self.rows(expand=expand),
        }
        text = json.dumps(plain(data))  # NaN (a flop where the hero range has no hand) becomes null
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_dict(self) -> dict:
        return json.loads(self.to_json())

    def to_pandas(self, by: str | tuple[str, ...] | None = None, sort: str | None = None, descending: bool = True,
                  expand: bool = False) -> Any:
        """:meth:`rows` (one per flop entry) or, with ``by``, :meth:`by_texture` as a DataFrame (the ``notebook`` extra)."""
        rows = self.rows(sort, descending, expand) if by is None else self.by_texture(by, sort, descending)
        return require_pandas().DataFrame(rows)

    def to_text(self) -> str:
        lines = [self.summary(), "", f"{'suits':<10} {'pairing':<9} {'frequency':>9} {'equity':>8}"]
        for row in self.by_texture(("suits", "pairing"), sort="equity"):
            if row["frequency"] > 0:
                lines.append(f"{row['suits']:<10} {row['pairing']:<9} {row['frequency']:>9.4f} {row['equity']:>8.4f}")
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: the equity, how the flops were covered, the main hit rates and the best and worst suit-and-pairing texture."""
        hits = self.overall_hits()
        textures = [t for t in self.by_texture(("suits", "pairing"), sort="equity") if t["frequency"] > 0]
        shown = ", ".join(f"{name.replace('_', ' ')} {hits[name]:.3f}" for name in HITS)
        how = f"{len(self.flops):,} canonical tables x orbits" if self.symmetric else f"{len(self.flops):,} flops one by one"
        extremes = ""
        if textures:
            best, worst = textures[0], textures[-1]
            extremes = (f"; best {best['suits']} {best['pairing']} {best['equity']:.4f}, "
                        f"worst {worst['suits']} {worst['pairing']} {worst['equity']:.4f}")
        return (f"{self.hero} vs {self.villain}: equity {self.overall_equity():.4f} over {self.total_flops:,} flops "
                f"({how}){extremes}; {shown}; {self.seconds:.1f} s")


def _sorted(rows: list[dict], sort: str | None, descending: bool) -> list[dict]:
    if sort is None:
        return rows
    if rows and sort not in rows[0]:
        raise MatchdbError(f"Cannot sort by {sort!r}; expected one of {', '.join(rows[0])}.")
    nan_last = float("-inf") if descending else float("inf")
    return sorted(rows, key=lambda r: nan_last if r[sort] != r[sort] else r[sort], reverse=descending)


def _range_text(spec) -> str:
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

    items: queue.Queue = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def read() -> None:
        try:
            for index, flop, orbit, table in tables:
                if stop.is_set():
                    return
                items.put((index, flop, orbit, np.array(table)))
            items.put(done)
        except BaseException as error:  # handed to the consumer
            items.put(error)

    reader = threading.Thread(target=read, name="matchdb-report-reader", daemon=True)
    reader.start()
    try:
        while True:
            item = items.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while reader.is_alive():  # let a blocked reader finish its put and see the stop
            try:
                items.get(timeout=0.1)
            except queue.Empty:
                pass


def flop_report(tables: Iterable[TableItem], hero, villain=None, quiet: bool = True,
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
    symmetric = is_suit_symmetric(hero_real) and is_suit_symmetric(villain_real)
    if per_flop is None:
        per_flop = not symmetric
    elif not per_flop and not symmetric:
        raise RangeError("A range is not suit-symmetric, so each flop must be computed on its own; expected per_flop=None or True.")
    textures = _canonical_textures()
    villain_uniform = bool((villain_real == villain_real[0]).all())
    hero_frame, villain_frame = _RangeInFrame(hero_real), _RangeInFrame(villain_real)
    entries: list[tuple] = []
    bar = tqdm(total=N_FLOPS, desc="report", unit="table", disable=True if quiet else None)
    with bar:
        items = as_items(tables)
        for index, flop, orbit, table in _prefetched(items) if (os.cpu_count() or 1) > 1 else items:
            flags = _hit_flags(*_flop_hole_cards(index), np.array(flop, dtype=np.int64), STRAIGHT_TOP, FLUSH_VALUE)
            bits = ((flags[:, None] >> np.arange(len(HITS))) & 1).astype(np.float64)
            for member, perm in (_orbits()[index] if per_flop else ((tuple(flop), 0),)):
                h = hero_frame.weights(index, perm)
                v = np.full(N_PAIRS, villain_real[0]) if villain_uniform else villain_frame.weights(index, perm)
                score, deals = _range_vs_range(table, h, v)
                live = h.sum()
                hits = h @ bits / live if live > 0 else np.zeros(len(HITS))
                entries.append((member, index, 1 if per_flop else orbit, score, deals, live, hits))
            bar.update(1)
    if not entries:
        raise MatchdbError("No table was given; expected (index, flop, orbit size, table) tuples, e.g. from iter_tables(db).")
    index = np.array([e[1] for e in entries], dtype=np.int64)
    score = np.array([e[3] for e in entries])
    deals = np.array([e[4] for e in entries])
    with np.errstate(invalid="ignore", divide="ignore"):
        equity = np.where(deals > 0, score / np.where(deals > 0, deals, 1), np.nan)
    hit_table = np.array([e[6] for e in entries]).reshape(len(entries), len(HITS))
    return FlopReport(
        hero=_range_text(hero),
        villain=_range_text(villain),
        symmetric=not per_flop,
        flops=tuple(format_cards(e[0]) for e in entries),
        index=index,
        count=np.array([e[2] for e in entries], dtype=np.int64),
        equity=equity,
        deals=deals,
        hero_weight=np.array([e[5] for e in entries]),
        hits={name: hit_table[:, i].copy() for i, name in enumerate(HITS)},
        textures={key: tuple(textures[i][key] for i in index) for key in TEXTURES},
        seconds=time.perf_counter() - started,
    )


@functools.cache
def _flop_hole_cards(index: int) -> tuple[np.ndarray, np.ndarray]:
    """Card ids of each row's two cards on canonical flop ``index``."""
    from matchdb.core.pairs import remaining_cards

    rest = remaining_cards(CANONICAL_FLOPS[index]).astype(np.int64)
    return rest[PAIR_LOW], rest[PAIR_HIGH]


def report(db, hero, villain=None, quiet: bool = True, per_flop: bool | None = None,
           indices: Iterable[int] | None = None) -> FlopReport:
    """:func:`flop_report` over every table of a :class:`matchdb.MatchDB` (or the canonical flops of ``indices``).

    >>> r = report(db, "AA", "KK", indices=[0, 1])    # no indices: all 22,100 flops
    >>> r.total_flops, round(r.overall_equity(), 4), r.by_texture("suits")[0]["suits"]
    (8, 0.8398, 'monotone')
    """
    return flop_report(iter_tables(db, indices, show_progress=not quiet), hero, villain, quiet=True, per_flop=per_flop)
