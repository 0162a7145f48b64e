"""Multiway equity: one hand (or a range) against 1 to 9 opponents, card removal exact.

Everything here works in one table's frame, like :mod:`matchdb.equity.heads_up`:
``table`` is a decoded (1176, 1176) W matrix, ``columns`` the board's columns
(:func:`matchdb.core.pairs.board_columns`), the hero a row or 1,176 row weights, and
each opponent 1,176 row weights: all ones for a random hand, one-hot for a
known hand, a range's weights otherwise. :meth:`matchdb.MatchDB.multiway` asks
with real cards and ranges, through the query layer's mapping into that frame.

How it counts (the counting identity of docs/guide/multiway.md; details in :mod:`matchdb.equity._kernels.multiway`):
on each column the opponents' hands get a factor 1 below the hero, x tied,
0 above; the weighted number M(x) of card-disjoint deals is a polynomial whose
coefficient of x^t is the weight of the deals the hero wins tied with t
opponents. Inclusion-exclusion over shared cards turns M into per-card sums:
for random opponents over the few hands that tie or beat the hero, for ranges
over the ranges' hands, with a triangle term for three opponents. Known hands
only fix cards and compare levels. That is exact for up to three opponents that
are not known hands, plus any number of known hands, on every street. With four
or five unknown opponents the first one or two are enumerated hand by hand and
the last three counted for each: exact, and chosen by default where that is
cheap (four random opponents on the river; ``method="exact"`` goes further).

Beyond that the answer is sampled, with two variance reductions: every column
is its own stratum (the runout is not sampled), and only the opponents beyond
three are drawn, from the hands that do not beat the hero, each draw weighted by
the mass it was drawn from; the last three are then counted exactly given the
drawn cards. The answer says it is sampled and carries its standard error.

Also here: :func:`range_vs_range` (heads-up, over the ranges' rows only), the
articles' opponent models (:func:`independent_outcome`, :func:`at_least`,
:func:`top_percent`, :func:`steered`; the drop-out mixture is
:meth:`matchdb.MatchDB.drop_out`) and the preflop table against 1 to 9 random
hands (:func:`compute_preflop_multiway`).

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.table import match_table
>>> from matchdb.core.pairs import board_columns, pair_row
>>> flop = parse_cards("2c7dJh")
>>> table = match_table(flop)
>>> hero = pair_row(flop, parse_cards("AhKh"))
>>> r = multiway_outcome(table, board_columns(()), hero, [np.ones(1176)] * 2)
>>> round(r.equity, 12), r.exact
(0.375861338429, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from matchdb.equity._kernels import multiway as _k
from matchdb.answers import Answer, require_pandas
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, combos, hand_class, hand_positions
from matchdb.core.pairs import (
    N_LOCAL,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    ROWS_OF_CARD,
    SENTINEL,
)

__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT_AUTO_LEAVES",
    "EXACT_MAX_LEAVES",
    "MAX_EXACT_UNKNOWN",
    "MAX_OPPONENTS",
    "ClassWeights",
    "MultiwayResult",
    "PreflopMultiway",
    "at_least",
    "compute_preflop_multiway",
    "independent_outcome",
    "multiway_outcome",
    "range_vs_range",
    "steered",
    "top_percent",
]

#: Opponents a question may have (ten players in all).
MAX_OPPONENTS = 9
#: Opponents that are not known hands which the closed-form count handles (known hands are free);
#: one or two more are enumerated when affordable (:data:`EXACT_AUTO_LEAVES`).
MAX_EXACT_UNKNOWN = 3
#: Opponents counted exactly under a sampled answer (the rest are drawn).
_EXACT_WHEN_SAMPLING = 3
#: Default number of sampled partial deals in all, spread evenly over the board's columns (at least 2 each).
DEFAULT_SAMPLES = 2 * N_PAIRS

_ALL_CARDS = np.uint64((1 << N_LOCAL) - 1)
_ROW_MASKS = (_k.BITS[PAIR_LOW] | _k.BITS[PAIR_HIGH]).astype(np.uint64)
_ROW_MASKS.flags.writeable = False
_PAIR_INDEX = PAIR_INDEX.astype(np.int64)


@dataclass(frozen=True)
class MultiwayResult:
    """The hero's result against several opponents.

    Attributes
    ----------
    win : probability the hero alone has the best hand.
    tie : probability the hero shares the best hand with at least one opponent.
    loss : probability some opponent beats the hero (``1 - win - tie``).
    equity : the hero's share of the pot: wins plus each tie split equally among those tied.
    players : every player's equity, hero first, where the question makes it cheap
        (every player a known hand; exact questions where every player is a sparse
        range); None otherwise. They sum to 1.
    exact : whether the figures are exact counts; else they are sampled estimates.
    standard_error : standard error of ``equity`` (0.0 when exact).
    samples : sampled partial deals used (0 when exact).
    seed : the seed that reproduces a sampled answer (None when exact).
    method : ``"exact"``, ``"sample"`` or ``"independent"`` (the article's approximation).
    """

    win: float
    tie: float
    loss: float
    equity: float
    players: tuple[float, ...] | None
    exact: bool
    standard_error: float
    samples: int
    seed: int | None
    method: str

    @property
    def tie_share(self) -> float:
        """The part of the equity won in split pots: ``equity - win``."""
        return self.equity - self.win


# -- checking input ------------------------------------------------------------


def _check_table(table: np.ndarray) -> np.ndarray:
    if not isinstance(table, np.ndarray) or table.shape != (N_PAIRS, N_PAIRS) or table.dtype != np.uint16:
        shape = getattr(table, "shape", None)
        raise MatchdbError(f"A match table must be a ({N_PAIRS}, {N_PAIRS}) uint16 array; got {shape!r}.")
    return table


def _check_columns(columns) -> np.ndarray:
    cols = np.asarray(columns, dtype=np.int64).ravel()
    if cols.size == 0 or cols.min() < 0 or cols.max() >= N_PAIRS:
        raise BoardError(f"The board columns {columns!r} are not 1 to {N_PAIRS} column indices 0..{N_PAIRS - 1}.")
    return cols


def _check_weights(weights, what: str) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (N_PAIRS,):
        raise RangeError(f"The {what} must be {N_PAIRS} row weights; got shape {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise RangeError(f"The {what} must have finite, non-negative weights.")
    if not w.any():
        raise RangeError(f"The {what} has no hand with a positive weight; expected at least one possible hand.")
    return w


def _hero_weights(hero) -> tuple[np.ndarray, bool]:
    """(weights, is_single_row) of the hero given as a row or 1,176 weights."""
    if isinstance(hero, (int, np.integer)) and not isinstance(hero, bool):
        if not 0 <= int(hero) < N_PAIRS:
            raise MatchdbError(f"The hero row {hero!r} is out of range; expected 0..{N_PAIRS - 1}.")
        w = np.zeros(N_PAIRS)
        w[int(hero)] = 1.0
        return w, True
    w = _check_weights(hero, "hero range")
    return w, int(np.count_nonzero(w)) == 1


def _kind(w: np.ndarray) -> str:
    nonzero = np.count_nonzero(w)
    if nonzero == 1:
        return "known"
    if nonzero == N_PAIRS and w.min() == w.max():
        return "random"
    return "range"


# -- the exact and sampled counts for one hero row ------------------------------


class _Question:
    """One question in a table's frame, checked and split into known, random and ranged opponents."""

    def __init__(self, table, columns, opponents):
        self.table = _check_table(table)
        self.columns = _check_columns(columns)
        if isinstance(opponents, np.ndarray) and opponents.ndim == 1:
            raise MatchdbError("The opponents must be a list of weight vectors, one per opponent; got one vector.")
        opponents = list(opponents)
        if not 1 <= len(opponents) <= MAX_OPPONENTS:
            raise MatchdbError(
                f"The question has {len(opponents)} opponents; expected 1 to {MAX_OPPONENTS} (2 to 10 players)."
            )
        self.weights = [_check_weights(w, f"range of opponent {i + 1}") for i, w in enumerate(opponents)]
        self.kinds = [_kind(w) for w in self.weights]
        self.known_rows = np.array(
            [int(np.flatnonzero(w)[0]) for w, kind in zip(self.weights, self.kinds) if kind == "known"], dtype=np.int64
        )
        known_mask = np.uint64(0)
        for row in self.known_rows:
            if known_mask & _ROW_MASKS[row]:
                raise CardError("Two known opponent hands share a card; expected card-disjoint hands.")
            known_mask |= _ROW_MASKS[row]
        self.known_mask = known_mask
        self.unknown = [w for w, kind in zip(self.weights, self.kinds) if kind != "known"]
        self.unknown_kinds = [kind for kind in self.kinds if kind != "known"]
        if len(self.columns) == N_PAIRS and (self.columns == np.arange(N_PAIRS)).all():
            self.cols = np.ascontiguousarray(self.table.T)  # a flop: every column, one copy
        else:
            self.cols = np.ascontiguousarray(self.table[:, self.columns].T)
        self.col_masks = _ROW_MASKS[self.columns]
        self.n_free = N_LOCAL - 2 - 2 * len(self.known_rows)  # the column's two cards still included

    def hero_free(self, row: int) -> np.uint64 | None:
        """Cards free for the unknown opponents once ``row`` holds its cards; None if it collides with a known hand."""
        if self.known_mask & _ROW_MASKS[row]:
            return None
        return _ALL_CARDS & ~self.known_mask & ~_ROW_MASKS[row]


def _exact_row(q: _Question, row: int, free) -> np.ndarray:
    result = np.zeros(4)
    k = len(q.unknown)
    random = all(kind == "random" for kind in q.unknown_kinds)
    weights = np.zeros((3, N_PAIRS))
    if not random:
        order = sorted(range(k), key=lambda i: np.count_nonzero(q.unknown[i]))  # sparsest first: the triangle term
        for slot, i in enumerate(order):
            weights[slot] = q.unknown[i]
    _k._exact_hero(
        q.cols, q.col_masks, row, q.known_rows, free, q.n_free, k, random, weights, PAIR_LOW, PAIR_HIGH, _k.BITS, result
    )
    return result


def multiway_outcome(
    table: np.ndarray,
    columns,
    hero,
    opponents: Sequence[np.ndarray],
    method: str = "auto",
    samples: int | None = None,
    seed: int | None = None,
) -> MultiwayResult:
    """The hero's win, tie, loss and equity against 1 to 9 opponents on one table's board.

    Parameters
    ----------
    table : a decoded (1176, 1176) uint16 W matrix.
    columns : the board's columns (:func:`matchdb.core.pairs.board_columns`).
    hero : a row index, or 1,176 row weights (a hero range).
    opponents : one vector of 1,176 row weights per opponent: all ones for a random
        hand, one-hot for a known hand, a range's weights otherwise.
    method : ``"exact"``, ``"sample"``, or ``"auto"``: exact up to three opponents that
        are not known hands; beyond, exact when enumerating the extra opponents' hands is
        cheap (:data:`EXACT_AUTO_LEAVES`: four unknown opponents on the river), else sampled.
        ``"exact"`` raises when that enumeration would be too long (:data:`EXACT_MAX_LEAVES`).
    samples : sampled partial deals in all, spread evenly over the board's columns
        (rounded up, at least 2 per column); default 2,352.
    seed : makes a sampled answer reproducible; None draws one, reported in the result.

    Examples
    --------
    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> flop = parse_cards("KcQh5c")
    >>> table = match_table(flop)
    >>> rows = [pair_row(flop, parse_cards(h)) for h in ("KdQd", "JcTc", "5h5s")]
    >>> known = [np.eye(1176)[r] for r in rows[1:]]
    >>> r = multiway_outcome(table, board_columns(()), rows[0], known)
    >>> [round(100 * p, 4) for p in r.players]
    [17.2757, 44.186, 38.5382]
    >>> multiway_outcome(table, board_columns(()), rows[0], [np.ones(1176)] * 10)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The question has 10 opponents; expected 1 to 9 (2 to 10 players).
    """
    if method not in ("auto", "exact", "sample"):
        raise MatchdbError(f"The method {method!r} is unknown; expected 'auto', 'exact' or 'sample'.")
    q = _Question(table, columns, opponents)
    hero_w, single = _hero_weights(hero)
    k = len(q.unknown)
    rows = np.flatnonzero(hero_w)
    if single and q.known_mask & _ROW_MASKS[rows[0]]:
        raise CardError("The hero's hand shares a card with a known opponent hand; expected card-disjoint hands.")
    if k == 0 and single:
        return _all_known(q, int(rows[0]))
    if method == "sample":
        return _sampled(q, hero_w, forced=k <= MAX_EXACT_UNKNOWN, samples=samples, seed=seed)
    if k > MAX_EXACT_UNKNOWN:
        if k > MAX_EXACT_UNKNOWN + 2:
            if method == "auto":
                return _sampled(q, hero_w, forced=False, samples=samples, seed=seed)
            raise MatchdbError(
                f"Exact counting handles up to {MAX_EXACT_UNKNOWN + 2} opponents that are not known hands; "
                f"this question has {k}: ask for method='sample'."
            )
        leaves = _enumeration_leaves(q, hero_w)
        if method == "auto" and leaves > EXACT_AUTO_LEAVES:
            return _sampled(q, hero_w, forced=False, samples=samples, seed=seed)
        if leaves > EXACT_MAX_LEAVES:
            raise MatchdbError(
                f"Exact counting of {k} opponents that are not known hands would take about {leaves:.1e} partial "
                f"deals here (at most {EXACT_MAX_LEAVES:.0e}); ask for method='sample'."
            )
        win, tie, equity = _enumerated_totals(q, hero_w)
    else:
        win, tie, equity = _exact_totals(q, hero_w)
    players = None
    if not single and k == len(q.weights) and k <= MAX_EXACT_UNKNOWN and _cheap_all_ranges(hero_w, q.weights):
        players = _every_player(q, hero_w, equity)
    return MultiwayResult(
        win=float(win),
        tie=float(tie),
        loss=float(max(0.0, 1.0 - win - tie)),
        equity=float(equity),
        players=players,
        exact=True,
        standard_error=0.0,
        samples=0,
        seed=None,
        method="exact",
    )


#: With four or five unknown opponents, the first one or two opponents' hands are enumerated:
#: ``auto`` does so when it costs at most this many partial deals (each one exact count of the
#: last three, a few microseconds), ``exact`` up to the second figure. Six or more: sampled.
EXACT_AUTO_LEAVES = 20_000
EXACT_MAX_LEAVES = 3_000_000


def _split(q: _Question, k_exact: int):
    """(exact weights, exact_random, drawn weights, drawn_random, all_random): the random opponents counted exactly first."""
    k = len(q.unknown)
    order = sorted(range(k), key=lambda i: q.unknown_kinds[i] != "random")
    exact_idx, drawn_idx = order[:k_exact], order[k_exact:]
    exact_w = np.zeros((3, N_PAIRS))
    for slot, i in enumerate(sorted(exact_idx, key=lambda i: np.count_nonzero(q.unknown[i]))):
        exact_w[slot] = q.unknown[i]
    drawn_w = np.array([q.unknown[i] for i in drawn_idx]).reshape(len(drawn_idx), N_PAIRS)
    drawn_random = np.array([q.unknown_kinds[i] == "random" for i in drawn_idx], dtype=np.bool_)
    exact_random = all(q.unknown_kinds[i] == "random" for i in exact_idx)
    all_random = all(kind == "random" for kind in q.unknown_kinds)
    return exact_w, exact_random, drawn_w, drawn_random, all_random


def _enumeration_leaves(q: _Question, hero_w: np.ndarray) -> float:
    """About how many partial deals enumerating the opponents beyond three takes (numerator and deals)."""
    s = len(q.unknown) - MAX_EXACT_UNKNOWN
    leaves = 0.0
    support = [np.count_nonzero(w) for w in q.unknown[MAX_EXACT_UNKNOWN:]]
    for row in np.flatnonzero(hero_w):
        levels = q.cols[:, row].astype(np.float64)
        valid = levels != SENTINEL
        below = np.minimum(levels[valid] / 2 + 1, min(support))  # hands that do not beat the hero
        leaves += float((below**s).sum())
        if not all(kind == "random" for kind in q.unknown_kinds):
            leaves += float(valid.sum()) * float(min(support)) ** s
    return leaves


def _enumerated_totals(q: _Question, hero_w: np.ndarray) -> np.ndarray:
    """Exact (win, tie, equity) with more than three unknown opponents, the first ones enumerated."""
    exact_w, exact_random, drawn_w, _, all_random = _split(q, MAX_EXACT_UNKNOWN)
    totals = np.zeros(4)
    for row in np.flatnonzero(hero_w):
        free = q.hero_free(int(row))
        if free is None:
            continue
        part = np.zeros(4)
        _k._enumerate_hero(
            q.cols,
            q.col_masks,
            int(row),
            q.known_rows,
            free,
            q.n_free,
            drawn_w,
            MAX_EXACT_UNKNOWN,
            exact_random,
            exact_w,
            all_random,
            PAIR_LOW,
            PAIR_HIGH,
            _ROW_MASKS,
            _k.BITS,
            part,
        )
        totals += hero_w[row] * part
    if totals[3] == 0:
        raise RangeError(
            "No deal is possible: the hero and the opponents' ranges cannot all be dealt beside this board."
        )
    return totals[:3] / totals[3]


def _exact_totals(q: _Question, hero_w: np.ndarray) -> np.ndarray:
    """Exact (win, tie, equity) of a hero range: every hero row's weighted counts added, then divided once."""
    totals = np.zeros(4)
    for row in np.flatnonzero(hero_w):
        free = q.hero_free(int(row))
        if free is None:
            continue
        totals += hero_w[row] * _exact_row(q, int(row), free)
    if totals[3] == 0:
        raise RangeError(
            "No deal is possible: the hero and the opponents' ranges cannot all be dealt beside this board."
        )
    return totals[:3] / totals[3]


#: Every player's equity of an all-ranges question is computed when each range has at most this many rows.
_CHEAP_RANGE_ROWS = 200


def _cheap_all_ranges(hero_w, weights) -> bool:
    return all(np.count_nonzero(w) <= _CHEAP_RANGE_ROWS for w in [hero_w, *weights])


def _every_player(q: _Question, hero_w: np.ndarray, hero_equity: float) -> tuple[float, ...]:
    everyone = [hero_w, *q.weights]
    out = [hero_equity]
    for i in range(1, len(everyone)):
        others = everyone[:i] + everyone[i + 1 :]
        out.append(_exact_totals(_Question(q.table, q.columns, others), everyone[i])[2])
    return tuple(float(x) for x in out)


def _all_known(q: _Question, hero: int) -> MultiwayResult:
    rows = np.concatenate([[hero], q.known_rows]).astype(np.int64)
    if q.known_mask & _ROW_MASKS[hero]:
        raise CardError("The hero's hand shares a card with a known opponent hand; expected card-disjoint hands.")
    result = np.zeros((len(rows), 4))
    _k._known_all(q.cols, rows, result)
    count = result[0, 3]
    if count == 0:
        raise BoardError("No runout is possible: a hand shares a card with the board.")
    win, tie, equity = result[0, :3] / count
    return MultiwayResult(
        win=float(win),
        tie=float(tie),
        loss=float(max(0.0, 1.0 - win - tie)),
        equity=float(equity),
        players=tuple(float(x) for x in result[:, 2] / count),
        exact=True,
        standard_error=0.0,
        samples=0,
        seed=None,
        method="exact",
    )


def _sampled(q: _Question, hero_w: np.ndarray, forced: bool, samples, seed) -> MultiwayResult:
    """Stratified estimate: every column, a few partial deals each, the last (up to) three opponents exact."""
    k = len(q.unknown)
    k_exact = min(MAX_EXACT_UNKNOWN, k - 1) if forced else min(_EXACT_WHEN_SAMPLING, k)
    exact_w, exact_random, drawn_w, drawn_random, all_random = _split(q, k_exact)
    n_cols = len(q.columns)
    if samples is None:
        samples = DEFAULT_SAMPLES
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise MatchdbError(f"The number of samples {samples!r} is not a positive whole number.")
    per_column = max(2, -(-int(samples) // n_cols))
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MatchdbError(f"The seed {seed!r} is not a non-negative whole number.")
    seeds = np.random.SeedSequence(int(seed)).generate_state(N_PAIRS)
    out = np.zeros(8)
    used_rows = 0
    for row in np.flatnonzero(hero_w):
        free = q.hero_free(int(row))
        if free is None:
            continue
        part = np.zeros(8)
        _k._sample_hero(
            q.cols,
            q.col_masks,
            int(row),
            q.known_rows,
            free,
            q.n_free,
            drawn_w,
            drawn_random,
            k_exact,
            exact_random,
            exact_w,
            all_random,
            per_column,
            int(seeds[row] >> 1),
            PAIR_LOW,
            PAIR_HIGH,
            _PAIR_INDEX,
            _ROW_MASKS,
            _k.BITS,
            part,
        )
        out[:4] += hero_w[row] * part[:4]
        out[4:] += hero_w[row] ** 2 * part[4:]
        used_rows += 1
    deals = out[3]
    if deals <= 0:
        raise RangeError(
            "No deal is possible: the hero and the opponents' ranges cannot all be dealt beside this board."
        )
    win, tie, equity = out[:3] / deals
    var = (out[6] + equity**2 * out[7]) / deals**2
    return MultiwayResult(
        win=float(win),
        tie=float(tie),
        loss=float(max(0.0, 1.0 - win - tie)),
        equity=float(equity),
        players=None,
        exact=False,
        standard_error=float(np.sqrt(max(var, 0.0))),
        samples=int(per_column * n_cols * used_rows),
        seed=int(seed),
        method="sample",
    )


# -- range against range, heads-up -----------------------------------------------

#: Above this many (hero row, villain row, column) comparisons range_vs_range scores every row at once instead.
_PAIRWISE_LIMIT = 4_000_000


def range_vs_range(table: np.ndarray, columns, hero, villain) -> MultiwayResult:
    """Exact heads-up result of a hero range against a villain range, touching only the ranges' rows.

    Every hero row is compared with every card-disjoint villain row on the board's
    columns (16 columns per vector instruction). Against a random villain (equal
    weights) the hero rows' own W sums give the score, less the villains sharing a
    card. When both ranges are so wide that pairs cost more than scoring every row,
    :func:`matchdb.equity.heads_up.all_hands_scores` does it instead. Equal to
    ``MatchDB.range_equity`` (to rounding). Win, tie and loss are NaN on the two
    shortcut paths, which count scores only.

    Examples
    --------
    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> from matchdb.core.ranges import parse_range
    >>> flop = parse_cards("2c7dJh")
    >>> def rows(text):  # a range's weights in this flop's frame
    ...     w = np.zeros(1176)
    ...     for a, b, x in parse_range(text):
    ...         if not {a, b} & set(flop):
    ...             w[pair_row(flop, (a, b))] = x
    ...     return w
    >>> r = range_vs_range(match_table(flop), board_columns(()), rows("QQ+,AKs"), rows("JJ,TT,99"))
    >>> round(r.equity, 12), [round(p, 6) for p in r.players]
    (0.645325987144, [0.645326, 0.354674])
    """
    table = _check_table(table)
    cols = _check_columns(columns)
    hero_w = _check_weights(hero, "hero range")
    villain_w = _check_weights(villain, "villain range")
    h_rows = np.flatnonzero(hero_w)
    v_rows = np.flatnonzero(villain_w)
    if villain_w.min() == villain_w.max():  # a random villain: W's own counts, serial
        board = table if len(cols) == N_PAIRS and (cols == np.arange(N_PAIRS)).all() else table[:, cols]
        score, total = _k._against_uniform(np.ascontiguousarray(board), cols, hero_w, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH)
        if total == 0:
            raise RangeError("No deal is possible: every hero hand collides with every villain hand on this board.")
        equity = score / total
        return MultiwayResult(
            win=float("nan"), tie=float("nan"), loss=float("nan"), equity=equity, players=(equity, 1.0 - equity),
            exact=True, standard_error=0.0, samples=0, seed=None, method="exact",
        )
    elif len(h_rows) * len(v_rows) * len(cols) <= _PAIRWISE_LIMIT:
        if len(cols) == N_PAIRS:
            h_block, v_block = table[h_rows], table[v_rows]
        else:
            h_block, v_block = table[np.ix_(h_rows, cols)], table[np.ix_(v_rows, cols)]
        win, tie, loss = _k._range_pairs(
            h_block, hero_w[h_rows], _ROW_MASKS[h_rows], v_block, villain_w[v_rows], _ROW_MASKS[v_rows]
        )
    else:
        from matchdb.equity.heads_up import all_hands_scores

        score, deals = all_hands_scores(table, cols, villain_w)
        total = float(hero_w @ deals)
        if total == 0:
            raise RangeError("No deal is possible: every hero hand collides with every villain hand on this board.")
        equity = float(hero_w @ score) / total
        return MultiwayResult(
            win=float("nan"),
            tie=float("nan"),
            loss=float("nan"),
            equity=equity,
            players=(equity, 1.0 - equity),
            exact=True,
            standard_error=0.0,
            samples=0,
            seed=None,
            method="exact",
        )
    total = win + tie + loss
    if total == 0:
        raise RangeError("No deal is possible: every hero hand collides with every villain hand on this board.")
    equity = (win + tie / 2) / total
    return MultiwayResult(
        win=win / total,
        tie=tie / total,
        loss=loss / total,
        equity=equity,
        players=(equity, 1.0 - equity),
        exact=True,
        standard_error=0.0,
        samples=0,
        seed=None,
        method="exact",
    )


# -- the articles' opponent models ---------------------------------------------------


def independent_outcome(table: np.ndarray, columns, hero: int, opponents: Sequence[np.ndarray]) -> MultiwayResult:
    """The match-table article's first formula with beliefs: opponents combined as if independent.

    On each column every opponent's hands (weighted by his belief weights) are split into
    below, level with and above the hero, and the chances multiply across opponents:
    equity = mean over columns of prod_i (below_i + tied_i / 2) / all_i. An
    approximation (``method="independent"``, ``exact=False``, no standard error): it
    ignores that opponents cannot hold the same cards, nor the hero's. With random
    opponents it is the naive win rate ``mean((W / MAX_W) ** (players - 1))``.

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.equity.heads_up import naive_win_rate
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> table = match_table("2c7dJh")
    >>> hero = pair_row(parse_cards("2c7dJh"), parse_cards("AhKh"))
    >>> r = independent_outcome(table, board_columns(()), hero, [np.ones(1176)] * 2)
    >>> round(r.equity, 6), round(naive_win_rate(table, hero, board_columns(()), players=3), 6), r.method
    (0.386583, 0.386583, 'independent')
    """
    table = _check_table(table)
    cols_idx = _check_columns(columns)
    if isinstance(hero, bool) or not isinstance(hero, (int, np.integer)) or not 0 <= int(hero) < N_PAIRS:
        raise MatchdbError(f"The hero row {hero!r} is out of range; expected a row 0..{N_PAIRS - 1}.")
    opponents = list(opponents)
    if not 1 <= len(opponents) <= MAX_OPPONENTS:
        raise MatchdbError(
            f"The question has {len(opponents)} opponents; expected 1 to {MAX_OPPONENTS} (2 to 10 players)."
        )
    weights = np.array([_check_weights(w, f"range of opponent {i + 1}") for i, w in enumerate(opponents)])
    cols = np.ascontiguousarray(table[:, cols_idx].T)
    out = np.zeros(4)
    _k._independent(cols, int(hero), weights, out)
    if out[3] == 0 or not np.isfinite(out[0]):
        raise RangeError("No opponent hand of some range is possible on this board, or the hero collides with it.")
    win, noloss, equity = out[:3] / out[3]
    return MultiwayResult(
        win=float(win),
        tie=float(noloss - win),
        loss=float(1.0 - noloss),
        equity=float(equity),
        players=None,
        exact=False,
        standard_error=float("nan"),
        samples=0,
        seed=None,
        method="independent",
    )


@dataclass(frozen=True)
class ClassWeights:
    """A range as a weight per starting-hand class (169 of them, :data:`matchdb.core.hole_cards.CLASSES`).

    Usable wherever a range is (:meth:`matchdb.MatchDB.multiway` takes it as an opponent or hero), and
    :meth:`to_range` writes it in the usual notation ('1(AA),0.5(KK)').
    """

    weights: tuple[float, ...]

    def hand_weights(self) -> np.ndarray:
        """The weight of every hand in :func:`matchdb.hand_order` (its class's weight): a range as 1,326 weights."""
        return np.asarray(self.weights, dtype=np.float64)[CLASS_OF_HAND]

    def hands(self) -> list[tuple[int, int, float]]:
        """Every two-card hand with its class's weight (card id, card id, weight), weight > 0."""

        out = []
        for b in range(52):
            for a in range(b):
                w = self.weights[hand_class(a, b)]
                if w > 0:
                    out.append((b, a, float(w)))
        return out

    def to_range(self) -> str:
        """The range in eval7's notation, weights to six decimals."""

        return ",".join(f"{w:.6f}({name})" for name, w in zip(CLASSES, self.weights) if w > 0)

    def fraction(self) -> float:
        """The weighted share of the 1,326 hands it holds."""

        return sum(w * combos(name) for name, w in zip(CLASSES, self.weights)) / 1326


def _strength(strength) -> np.ndarray:

    if strength is None:
        raise MatchdbError("A preflop strength score is needed: pass db.preflop().equity or 169 numbers.")
    if hasattr(strength, "equity") and hasattr(strength, "classes"):  # a PreflopTable or PreflopMultiway
        values = np.asarray(strength.equity, dtype=np.float64)
        strength = values if values.ndim == 1 else values[:, 0]
    values = np.asarray(strength, dtype=np.float64)
    if values.shape != (len(CLASSES),) or not np.isfinite(values).all():
        raise MatchdbError(f"A preflop strength score must be {len(CLASSES)} finite numbers; got shape {values.shape}.")
    return values


def _percentiles(strength: np.ndarray) -> np.ndarray:
    """Each class's position from the top: the share of hands in stronger classes plus half its own."""

    sizes = np.array([combos(name) for name in CLASSES], dtype=np.float64) / 1326
    order = np.argsort(-strength, kind="stable")
    above = np.zeros(len(CLASSES))
    above[order] = np.concatenate([[0.0], np.cumsum(sizes[order])[:-1]])
    return above + sizes / 2


def top_percent(percent: float, strength) -> ClassWeights:
    """Mick West's drop-out by share: the strongest ``percent`` % of starting hands by a preflop score.

    Classes are taken strongest first until they hold ``percent`` % of the 1,326
    hands; the class on the boundary gets the fractional weight that makes it exact.
    ``strength``: 169 scores, or a preflop table (``db.preflop()``; its heads-up equity).

    >>> from matchdb.core.hole_cards import CLASSES
    >>> r = top_percent(10, np.arange(169.0)[::-1])   # CLASSES order as the score
    >>> round(r.fraction(), 6), [CLASSES[i] for i in range(169) if r.weights[i] > 0][-1]
    (0.1, 'A6o')
    """
    values = _strength(strength)
    if (
        isinstance(percent, bool)
        or not isinstance(percent, (int, float, np.integer, np.floating))
        or not 0 < percent <= 100
    ):
        raise MatchdbError(f"The share of hands {percent!r} is out of range; expected a percentage in (0, 100].")

    target = percent / 100 * 1326
    weights = np.zeros(len(CLASSES))
    held = 0.0
    for i in np.argsort(-values, kind="stable"):
        if held >= target - 1e-9:
            break
        size = combos(CLASSES[i])
        weights[i] = min(1.0, (target - held) / size)
        held += weights[i] * size
    return ClassWeights(tuple(float(w) for w in weights))


def at_least(threshold: str, strength) -> ClassWeights:
    """Mick West's drop-out by threshold: every class scoring at least as high as ``threshold`` ('66').

    >>> from matchdb.core.hole_cards import CLASSES
    >>> r = at_least("AKo", np.arange(169.0)[::-1])
    >>> [CLASSES[i] for i in range(169) if r.weights[i] > 0]
    ['AA', 'AKs', 'AKo']
    """

    values = _strength(strength)
    if threshold not in CLASSES:
        raise MatchdbError(f"The threshold {threshold!r} is not a class like 'AA', 'AKs' or '66'.")
    bar = values[CLASSES.index(threshold)]
    return ClassWeights(tuple(float(v >= bar) for v in values))


def steered(strength, top: float = 0.15, softness: float = 0.05) -> ClassWeights:
    """Tomlinson's steered opponent: class weights falling smoothly with the class's preflop rank.

    A class whose position from the top (share of hands in stronger classes, plus
    half its own) is q gets weight 1 / (1 + exp((q - top) / softness)): a player
    who raised preflop holds mostly the top ``top`` share of hands, ``softness``
    says how sharp the edge is. An approximation of a player's range, by design.

    >>> r = steered(np.arange(169.0)[::-1], top=0.1, softness=0.02)
    >>> r.weights[0] > 0.99, r.weights[-1] < 1e-9, 0.08 < r.fraction() < 0.12
    (True, True, True)
    """
    values = _strength(strength)
    for name, value in (("top", top), ("softness", softness)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0:
            raise MatchdbError(f"The {name} {value!r} of a steered range must be a positive number.")
    q = _percentiles(values)
    with np.errstate(over="ignore"):
        weights = 1.0 / (1.0 + np.exp((q - top) / softness))
    return ClassWeights(tuple(float(w) for w in weights))


# -- preflop: every class against 1 to 9 random hands ------------------------------

PREFLOP_MULTIWAY_VERSION = 1


@dataclass(frozen=True)
class PreflopMultiway(Answer):
    """Preflop equity of the 169 starting-hand classes against 1 to 9 random hands.

    ``equity[c, k - 1]`` is class ``classes[c]`` against k random opponents, averaged over
    every deal; ``standard_error`` is 0 where ``exact[k - 1]`` (k = 1: counted from every
    table), else the standard error of the sampled figure. ``sampled_heads_up`` is the
    sampled k = 1 figure, kept as a check on the sampler against the exact one.
    """

    classes: tuple[str, ...]
    opponents: tuple[int, ...]
    equity: np.ndarray
    standard_error: np.ndarray
    exact: tuple[bool, ...]
    sampled_heads_up: np.ndarray
    provenance: dict

    def row(self, name: str) -> dict:
        """Figures of one class, like ``table.row("AA")``: equity and standard error per opponent count."""
        if name not in self.classes:
            raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
        i = self.classes.index(name)
        return {
            "hand": name,
            "equity": {k: float(self.equity[i, j]) for j, k in enumerate(self.opponents)},
            "standard_error": {k: float(self.standard_error[i, j]) for j, k in enumerate(self.opponents)},
        }

    def rows(self) -> list[dict]:
        """One row per class: its equity and standard error against each number of opponents (flat keys)."""
        return [
            {"hand": name}
            | {f"equity_{k}": float(self.equity[i, j]) for j, k in enumerate(self.opponents)}
            | {f"standard_error_{k}": float(self.standard_error[i, j]) for j, k in enumerate(self.opponents)}
            for i, name in enumerate(self.classes)
        ]

    def to_dict(self) -> dict:
        return {"rows": self.rows(), "exact": list(self.exact), "provenance": self.provenance}

    def __repr__(self) -> str:
        return (f"PreflopMultiway({len(self.classes)} classes against {self.opponents[0]}..{self.opponents[-1]} random "
                f"opponents, standard errors at most {float(self.standard_error.max()):.5f})")

    def to_pandas(self) -> Any:
        """One row per class (equity_K and standard_error_K for K opponents), indexed by the class."""
        return require_pandas().DataFrame(self.rows()).set_index("hand")

    def to_text(self) -> str:
        header = ["hand"] + [f"vs{k}" for k in self.opponents]
        lines = ["  ".join(f"{h:>7}" for h in header)]
        for i, name in enumerate(self.classes):
            lines.append("  ".join([f"{name:>7}"] + [f"{v:7.4f}" for v in self.equity[i]]))
        worst = float(self.standard_error.max())
        lines.append(f"(against 1 opponent exact; against 2-9 sampled, standard errors at most {worst:.5f})")
        return "\n".join(lines)

    def to_stored(self) -> dict:
        """What the store keeps (see :mod:`matchdb.storage.derived`); :meth:`from_stored` reads it back."""
        return {
            "version": PREFLOP_MULTIWAY_VERSION,
            "classes": list(self.classes),
            "opponents": list(self.opponents),
            "equity": self.equity.tolist(),
            "standard_error": self.standard_error.tolist(),
            "exact": list(self.exact),
            "sampled_heads_up": self.sampled_heads_up.tolist(),
            "provenance": self.provenance,
        }

    @classmethod
    def from_stored(cls, data: dict) -> PreflopMultiway:
        """The table :meth:`to_stored` wrote."""
        if data.get("version") != PREFLOP_MULTIWAY_VERSION:
            raise MatchdbError(
                f"The multiway preflop table has version {data.get('version')!r}; expected {PREFLOP_MULTIWAY_VERSION}."
            )
        return cls(
            classes=tuple(data["classes"]),
            opponents=tuple(int(k) for k in data["opponents"]),
            equity=np.array(data["equity"], dtype=np.float64),
            standard_error=np.array(data["standard_error"], dtype=np.float64),
            exact=tuple(bool(x) for x in data["exact"]),
            sampled_heads_up=np.array(data["sampled_heads_up"], dtype=np.float64),
            provenance=dict(data.get("provenance", {})),
        )


def compute_preflop_multiway(tables: Iterable, draws: int = 1, seed: int = 0) -> PreflopMultiway:
    """Equity of every starting-hand class against 1 to 9 random hands, from every canonical table.

    ``tables`` yields objects with ``index``, ``hands`` (the rows' card ids), ``orbit``
    and ``table``, one per canonical flop: :meth:`matchdb.MatchDB.tables` does, and
    :meth:`matchdb.MatchDB.preflop_multiway` computes and keeps the result. Heads-up
    (one opponent) is exact: every table's exact heads-up scores, weighted by the
    flop's orbit size (:mod:`matchdb.equity.preflop`). Against 2 to 9 opponents every (flop,
    turn and river, hero hand) is visited, orbit-weighted, and ``draws`` deals of nine
    card-disjoint random hands are sampled for it, the first k hands being the deal
    against k opponents: the board is enumerated, only the opponents' cards are
    sampled. The first opponent's share, whose mean is the exact heads-up equity,
    serves as a control variate. Seeded and reproducible whatever the number of threads.
    Given only some tables, the figures average over those flops, each weighted by its orbit size.

    >>> compute_preflop_multiway([], draws=0)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The number of draws 0 is not a positive whole number.
    """
    import time

    import numba

    from matchdb.equity.heads_up import all_hands_scores
    from matchdb.core.pairs import board_columns

    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise MatchdbError(f"The number of draws {draws!r} is not a positive whole number.")
    started = time.perf_counter()
    flops_seen = 0
    columns = board_columns(())
    ones = np.ones(N_PAIRS)
    n_classes = len(CLASSES)
    max_opp = MAX_OPPONENTS
    n_blocks = 4 * numba.get_num_threads()
    score = np.zeros(n_classes)
    deals = np.zeros(n_classes)
    s1 = np.zeros((n_classes, max_opp))  # orbit-weighted sums of shares
    a2 = np.zeros((n_classes, max_opp))  # orbit^2-weighted sums of shares
    b2 = np.zeros((n_classes, max_opp))  # orbit^2-weighted sums of squared shares
    c2 = np.zeros((n_classes, max_opp))  # orbit^2-weighted sums of share x first opponent's share
    w1 = np.zeros(n_classes)  # orbit-weighted deal counts
    w2 = np.zeros(n_classes)  # orbit^2-weighted deal counts
    for flop in tables:
        index, table, orbit = flop.index, flop.table, float(flop.orbit)
        row_class = CLASS_OF_HAND[hand_positions(flop.hands[:, 0], flop.hands[:, 1])]
        flops_seen += 1
        table_score, table_deals = all_hands_scores(table, columns, ones)
        np.add.at(score, row_class, orbit * table_score)
        np.add.at(deals, row_class, orbit * table_deals)
        cols = np.ascontiguousarray(table.T)
        sums, counts = _k._preflop_sample(
            cols,
            PAIR_LOW,
            PAIR_HIGH,
            row_class,
            n_classes,
            max_opp,
            int(draws),
            (int(seed) << 12) + index,
            PAIR_LOW,
            PAIR_HIGH,
            _PAIR_INDEX,
            n_blocks,
        )
        sums = sums.sum(axis=0)
        counts = counts.sum(axis=0)
        s1 += orbit * sums[:, :, 0]
        a2 += orbit**2 * sums[:, :, 0]
        b2 += orbit**2 * sums[:, :, 1]
        c2 += orbit**2 * sums[:, :, 2]
        w1 += orbit * counts
        w2 += orbit**2 * counts
    with np.errstate(invalid="ignore", divide="ignore"):
        exact_heads_up = score / deals
        # control variate: the first opponent's share, whose mean is the exact heads-up equity
        m_a = a2 / w2[:, None]
        m_b = b2 / w2[:, None]
        m_c = c2 / w2[:, None]
        beta = (m_c - m_a * m_a[:, :1]) / (m_b[:, :1] - m_a[:, :1] ** 2)
        beta = np.where(np.isfinite(beta), beta, 0.0)
        d_mean = (s1 - beta * s1[:, :1]) / w1[:, None]
        sum_d2 = b2 - 2 * beta * c2 + beta**2 * b2[:, :1]
        sum_d = a2 - beta * a2[:, :1]
        var = (sum_d2 - 2 * d_mean * sum_d + d_mean**2 * w2[:, None]) / w1[:, None] ** 2
        equity = d_mean + beta * exact_heads_up[:, None]
    se = np.sqrt(np.maximum(var, 0.0))
    sampled_heads_up = s1[:, 0] / w1
    equity[:, 0] = exact_heads_up
    se[:, 0] = 0.0
    return PreflopMultiway(
        classes=tuple(CLASSES),
        opponents=tuple(range(1, max_opp + 1)),
        equity=equity,
        standard_error=se,
        exact=(True,) + (False,) * (max_opp - 1),
        sampled_heads_up=sampled_heads_up,
        provenance={
            "draws": int(draws),
            "seed": int(seed),
            "tables": flops_seen,
            "seconds": round(time.perf_counter() - started, 1),
            "method": "heads-up exact; 2-9 opponents: every board and hero hand, opponents' hands sampled",
        },
    )
