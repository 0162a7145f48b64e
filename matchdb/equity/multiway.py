"""Multiway equity: one hand (or a range) against 1 to 9 opponents, card removal exact.

Everything here works in one table's frame, like :mod:`matchdb.equity.heads_up`:
``table`` is a decoded (1176, 1176) W matrix, ``columns`` the board's columns
(:func:`matchdb.core.pairs.board_columns`), the hero a row or 1,176 row weights, and
each opponent 1,176 row weights: all ones for a random hand, one-hot for a
known hand, a range's weights otherwise. :meth:`matchdb.MatchDB.multiway` asks
with real cards and ranges, through the query layer's mapping into that frame.

How it counts (the counting identity of docs/guide/multiway.md; the kernels in :mod:`matchdb.equity.kernels`):
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

Beyond that the answer is sampled, with these variance reductions: the runouts
are strata (each one, or small groups of runouts where the hero is about as
strong, a visit picking one of the group), only the opponents beyond three are
drawn, from the hands that do not beat the hero, each draw weighted by the mass
it was drawn from, and the last three are then counted exactly given the drawn
cards; a visit draws apart the deals where a drawn opponent ties the hero (a
split pot) and those where none does. Visits go where the first ones varied
most until the standard error is 0.0005. The answer says it is sampled and
carries its standard error; the same seed gives the same answer on any number
of threads.

Elsewhere: range against range heads-up (:func:`matchdb.equity.heads_up.range_vs_range`),
the articles' opponent models (:mod:`matchdb.equity.opponents`) and the preflop
table against 1 to 9 random hands (:func:`matchdb.equity.preflop.compute_preflop_multiway`).

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

import collections
import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.pairs import N_LOCAL, N_PAIRS, SENTINEL, check_columns
from matchdb.equity import kernels
from matchdb.equity._kernels.heads_up import ROW_MASKS as _ROW_MASKS
from matchdb.equity.checks import MAX_SAMPLES, check_samples, check_table, check_weights
from matchdb.equity.kernels import CARDS, Opponents, Question, read_only
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError

if TYPE_CHECKING:
    from numpy.typing import NDArray
    _Parts = tuple[np.ndarray, bool, np.ndarray, NDArray[np.bool_], bool]  # what _split returns

__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT_AUTO_LEAVES",
    "EXACT_MAX_LEAVES",
    "MAX_EXACT_UNKNOWN",
    "MAX_OPPONENTS",
    "MAX_SAMPLES",
    "MultiwayResult",
    "check_samples",
    "multiway_outcome",
    "sampled_work",
]

#: Opponents a question may have (ten players in all).
MAX_OPPONENTS = 9
#: Opponents that are not known hands which the closed-form count handles (known hands are free);
#: one or two more are enumerated when affordable (:data:`EXACT_AUTO_LEAVES`).
MAX_EXACT_UNKNOWN = 3
#: Opponents counted exactly under a sampled answer (the rest are drawn).
_EXACT_WHEN_SAMPLING = 3
#: Partial deals drawn by default (at most), over visits spread evenly over the board's columns (at least 2 each):
#: per hand of a hero range, and first for a hand on a turn or river or beside known opponents; a hand on a flop
#: visits groups of runouts instead (see ``_sampled``).
DEFAULT_SAMPLES = 2 * N_PAIRS

_ALL_CARDS = np.uint64((1 << N_LOCAL) - 1)
_NO_DRAWN = np.zeros((0, N_PAIRS))
_NO_DRAWN_RANDOM = np.zeros(0, dtype=np.bool_)


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
    samples : sampled partial deals drawn (0 when exact).
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


def _hero_weights(hero: object) -> tuple[np.ndarray, bool]:
    """(weights, is_single_row) of the hero given as a row or 1,176 weights."""
    if isinstance(hero, (int, np.integer)) and not isinstance(hero, bool):
        if not 0 <= int(hero) < N_PAIRS:
            raise MatchdbError(f"The hero row {hero!r} is out of range; expected 0..{N_PAIRS - 1}.")
        w = np.zeros(N_PAIRS)
        w[int(hero)] = 1.0
        return w, True
    w = check_weights(hero, "hero range")
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

    def __init__(self, table: np.ndarray, columns: np.ndarray, opponents: Iterable[np.ndarray]) -> None:
        unchanging = isinstance(table, np.ndarray) and not table.flags.writeable  # before check_table's read-only view
        self.table = check_table(table)
        self.columns = check_columns(columns)
        if isinstance(opponents, np.ndarray) and opponents.ndim == 1:
            raise MatchdbError("The opponents must be a list of weight vectors, one per opponent; got one vector.")
        opponents = list(opponents)
        if not 1 <= len(opponents) <= MAX_OPPONENTS:
            raise MatchdbError(
                f"The question has {len(opponents)} opponents; expected 1 to {MAX_OPPONENTS} (2 to 10 players)."
            )
        self.weights = [check_weights(w, f"range of opponent {i + 1}") for i, w in enumerate(opponents)]
        self.kinds = [_kind(w) for w in self.weights]
        self.known_rows = read_only(np.array(
            [int(np.flatnonzero(w)[0]) for w, kind in zip(self.weights, self.kinds, strict=True) if kind == "known"],
            dtype=np.int64,
        ))
        known_mask = np.uint64(0)
        for row in self.known_rows:
            if known_mask & _ROW_MASKS[row]:
                raise CardError("Two known opponent hands share a card; expected card-disjoint hands.")
            known_mask |= _ROW_MASKS[row]
        self.known_mask = known_mask
        self.unknown = [w for w, kind in zip(self.weights, self.kinds, strict=True) if kind != "known"]
        self.unknown_kinds = [kind for kind in self.kinds if kind != "known"]
        self.cols = read_only(_columns_first(self.table, self.columns, unchanging))  # read-only: each kernel compiles once
        self.col_masks = read_only(_ROW_MASKS[self.columns])
        self.n_free = N_LOCAL - 2 - 2 * len(self.known_rows)  # the column's two cards still included

    def question(self, row: int, free: np.uint64) -> Question:
        """The kernels' :class:`matchdb.equity.kernels.Question` for hero ``row`` with ``free`` from :meth:`hero_free`."""
        return Question(self.cols, self.col_masks, row, self.known_rows, free, self.n_free)

    def hero_free(self, row: int) -> np.uint64 | None:
        """Cards free for the unknown opponents once ``row`` holds its cards; None if it collides with a known hand."""
        if self.known_mask & _ROW_MASKS[row]:
            return None
        free: np.uint64 = _ALL_CARDS & ~self.known_mask & ~_ROW_MASKS[row]
        return free


#: The last few read-only tables' columns as rows: (id of the table, its columns) -> (the table, weakly; the copy).
_COLUMNS_FIRST: collections.OrderedDict[tuple[int, bytes], tuple[weakref.ref[np.ndarray], np.ndarray]] = (
    collections.OrderedDict()
)
_COLUMNS_FIRST_LOCK = threading.Lock()
_COLUMNS_FIRST_KEPT = 4  # 2.8 MB each on a flop


def _columns_first(table: np.ndarray, columns: np.ndarray, kept_here: bool) -> np.ndarray:
    """The table's ``columns`` as contiguous rows (a copy that takes about a millisecond on a flop), kept for the last
    few tables that cannot change (``kept_here``: the caller's table was read-only, as the database hands them out),
    so questions on one board share it."""
    key = (id(table), columns.tobytes())
    if kept_here:
        with _COLUMNS_FIRST_LOCK:
            kept = _COLUMNS_FIRST.get(key)
            if kept is not None and kept[0]() is table:
                _COLUMNS_FIRST.move_to_end(key)
                return kept[1]
    if len(columns) == N_PAIRS and (columns == np.arange(N_PAIRS)).all():
        cols = np.ascontiguousarray(table.T)  # a flop: every column, one copy
    else:
        cols = np.ascontiguousarray(table[:, columns].T)
    if kept_here:
        cols.flags.writeable = False
        with _COLUMNS_FIRST_LOCK:
            _COLUMNS_FIRST[key] = (weakref.ref(table), cols)
            while len(_COLUMNS_FIRST) > _COLUMNS_FIRST_KEPT:
                _COLUMNS_FIRST.popitem(last=False)
    return cols


def _exact_row(q: _Question, row: int, free: np.uint64) -> np.ndarray:
    result = np.zeros(4)
    k = len(q.unknown)
    random = all(kind == "random" for kind in q.unknown_kinds)
    weights = np.zeros((3, N_PAIRS))
    if not random:
        order = sorted(range(k), key=lambda i: np.count_nonzero(q.unknown[i]))  # sparsest first: the triangle term
        for slot, i in enumerate(order):
            weights[slot] = q.unknown[i]
    opponents = Opponents(_NO_DRAWN, _NO_DRAWN_RANDOM, k, random, weights, random)
    kernels.exact_hero(q.question(row, free), opponents, CARDS, result)
    return result


def multiway_outcome(
    table: np.ndarray,
    columns: np.ndarray,
    hero: Any,
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
    samples : partial deals to draw, at most: the board's columns are visited evenly, each
        visit drawing once or (when every drawn opponent is random) twice, so samples / 2
        visits in all then, else samples (rounded up, at least 2 per column). Default: 2,352
        so for a hero range (per hand); for a hand, as many as a standard error of 0.0005
        needs (on a flop visiting groups of runouts; else 2,352 first; see ``_sampled``).
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


def _split(q: _Question, k_exact: int) -> _Parts:
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
    exact_w, exact_random, drawn_w, drawn_random, all_random = _split(q, MAX_EXACT_UNKNOWN)
    totals = np.zeros(4)
    for row in np.flatnonzero(hero_w):
        free = q.hero_free(int(row))
        if free is None:
            continue
        part = np.zeros(4)
        opponents = Opponents(drawn_w, drawn_random, MAX_EXACT_UNKNOWN, exact_random, exact_w, all_random)
        kernels.enumerate_hero(q.question(int(row), free), opponents, CARDS, part)
        totals += hero_w[row] * part
    if totals[3] == 0:
        raise RangeError(
            "No deal is possible: the hero and the opponents' ranges cannot all be dealt beside this board."
        )
    shares: NDArray[np.float64] = totals[:3] / totals[3]
    return shares


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
    shares: NDArray[np.float64] = totals[:3] / totals[3]
    return shares


#: Every player's equity of an all-ranges question is computed when each range has at most this many rows.
_CHEAP_RANGE_ROWS = 200


def _cheap_all_ranges(hero_w: np.ndarray, weights: Iterable[np.ndarray]) -> bool:
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
    kernels.known_all(q.cols, rows, result)
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


#: Columns (runouts) in one stratum of a sampled answer's default allocation on a flop: each stratum is this many
#: runouts where the hero's hand is about as strong (adjacent in the order of its level), and every visit picks
#: one of them at random (a single-runout stratum needs two visits a runout to say its error, which is more than
#: the target needs on a flop's 1,081 runouts). Not with known opponents: a known hand that beats the hero on
#: some runouts of a group and not on others makes them too unlike for two visits to say their spread (measured:
#: standard errors half what the estimates spread); not on a turn or river, whose runouts are few.
GROUP_COLUMNS = 4


class _Strata:
    """A sampled answer's strata for one hero row: the runouts where the hero can be dealt, in groups of ``size``
    adjacent in the order of the hero's level there (``size`` 1: every runout its own stratum), after the runouts
    where a known opponent beats the hero (nothing to win: those groups are exact zeros) and by the number of known
    opponents tied with him (a split pot), so that a group's runouts are alike. A visit to a group picks one of its
    runouts uniformly, from a stream of the seed, the row and the phase only."""

    def __init__(self, q: _Question, row: int, size: int) -> None:
        levels = q.cols[:, row]
        valid = levels != SENTINEL
        beaten = np.zeros(len(levels), dtype=bool)  # by a known hand: the hero wins nothing there
        tied = np.zeros(len(levels), dtype=np.int64)  # with known hands: the pot is split
        for known in q.known_rows:
            theirs = q.cols[:, known]
            valid &= theirs != SENTINEL
            beaten |= theirs > levels
            tied += theirs == levels
        columns = np.flatnonzero(valid)
        self.order = columns[np.lexsort((levels[columns], tied[columns], beaten[columns]))]
        self.starts = np.arange(0, len(self.order), size)
        self.sizes = np.minimum(size, len(self.order) - self.starts)
        self.group = np.repeat(np.arange(len(self.starts)), self.sizes)  # of each runout in ``order``
        self.n_cols = len(q.columns)
        self.size = size
        self.row = row

    def choose(self, visits: np.ndarray, seed: int, phase: int) -> np.ndarray:
        """Visits per column for ``visits[g]`` visits to group g."""
        if self.size == 1:
            per_column = np.zeros(self.n_cols, dtype=np.int64)
            per_column[self.order] = visits
            return per_column
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), self.row, phase, 2])))
        group = np.repeat(np.arange(len(self.starts)), visits)
        picked = self.starts[group] + rng.integers(0, self.sizes[group])
        return np.bincount(self.order[picked], minlength=self.n_cols).astype(np.int64)

    def gather(self, sums: np.ndarray) -> np.ndarray:
        """Per column sums of the visits' values and squares added up per group."""
        return np.add.reduceat(sums[self.order], self.starts, axis=0)

    def estimate(self, sums: np.ndarray, visits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(totals of win, tie, equity and deals; their variances) from the groups' gathered sums and visits."""
        n = np.maximum(visits, 1)[:, None]
        size = self.sizes[:, None]
        means = sums[:, :4] / n
        variances = np.maximum(sums[:, 4:] - n * means**2, 0.0) / np.maximum(n - 1, 1) / n
        return (size * means).sum(axis=0), (size**2 * variances).sum(axis=0)


def _sampled(
    q: _Question, hero_w: np.ndarray, forced: bool, samples: int | None, seed: int | None
) -> MultiwayResult:
    """Stratified estimate: visits to the runouts, one or two partial deals each, the last (up to) three opponents exact.

    With ``samples`` given (or a hero range), every runout is its own stratum and gets the same
    number of visits (``samples`` over the runouts, halved when a visit can draw twice). By default a hand's strata on a flop (without known opponents) are groups
    of :data:`GROUP_COLUMNS` runouts where its level is about the same (:class:`_Strata`),
    visited :data:`PILOT_SAMPLES` times each, a visit picking one runout of the group at random
    (on a turn or river, and beside known hands, every runout is a stratum visited as often as
    with ``samples`` at its default); while the standard error is above
    :data:`TARGET_STANDARD_ERROR`, up to :data:`_PHASES` - 1 later phases add visits where the
    earlier ones found the numerator most variable (Neyman's allocation), as many as that target
    asks (at most :data:`MAX_EXTRA_SAMPLES` per runout on average each). A visit draws once from
    the deals where no drawn opponent ties the hero and, when the runout has a tied hand, once
    from those where one does (:func:`matchdb.equity.kernels.sample_columns`). The
    standard error comes from the spread of the visits within each stratum.

    Streams: the runouts a phase visits come from the question's seed, the hero row and the
    phase; each runout's draws from its own stream of those and the runout. The runouts are
    split between threads in pieces, so the answer depends on the seed only, not on the threads.
    """
    k = len(q.unknown)
    k_exact = min(MAX_EXACT_UNKNOWN, k - 1) if forced else min(_EXACT_WHEN_SAMPLING, k)
    parts = _split(q, k_exact)
    n_cols = len(q.columns)
    adaptive = samples is None and np.count_nonzero(hero_w) == 1
    samples = check_samples(samples)
    if samples is None:
        samples = DEFAULT_SAMPLES
    drawn_random = parts[3]
    per_visit = 2 if len(drawn_random) and drawn_random.all() else 1  # draws a visit makes at most
    per_column = _per_column(samples, n_cols, per_visit)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MatchdbError(f"The seed {seed!r} is not a non-negative whole number.")
    out = np.zeros(8)
    used = 0
    for row in np.flatnonzero(hero_w):
        free = q.hero_free(int(row))
        if free is None:
            continue
        # a flop's runouts in groups (its 1,081 runouts each visited twice would be more than the target needs);
        # a turn's or river's few runouts get as many visits each as before, each its own stratum
        grouped = adaptive and not len(q.known_rows) and per_column <= PILOT_SAMPLES
        strata = _Strata(q, int(row), GROUP_COLUMNS if grouped else 1)
        if not len(strata.sizes):
            continue  # the hero cannot be dealt on any runout beside the known hands
        visits = np.full(len(strata.sizes), PILOT_SAMPLES if grouped else per_column, dtype=np.int64)
        first = strata.choose(visits, seed, 0)
        sums, taken = _sample_phase(q, int(row), free, k_exact, parts, first, _stream_seed(seed, row, 0))
        used += taken
        for phase in range(1, _PHASES if adaptive else 1):
            extra = _neyman_extra(strata.gather(sums), visits, strata.sizes)
            if not extra.any():
                break
            more, taken = _sample_phase(
                q, int(row), free, k_exact, parts, strata.choose(extra, seed, phase), _stream_seed(seed, row, phase)
            )
            sums += more
            visits += extra
            used += taken
        total, variance = strata.estimate(strata.gather(sums), visits)
        out[:4] += hero_w[row] * total
        out[4:] += hero_w[row] ** 2 * variance
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
        samples=used,
        seed=int(seed),
        method="sample",
    )


def _per_column(samples: int, columns: int, per_visit: int) -> int:
    """Visits to each runout for ``samples`` partial deals over ``columns`` columns: at least two (a runout's
    standard error needs two), else rounded up."""
    return max(2, -(-int(samples) // (columns * per_visit)))


def sampled_work(
    columns: int, runouts: int, samples: int | None, per_visit: int, adaptive: bool, known: bool
) -> tuple[int, int, int]:
    """The visits one hero hand's sampled answer makes in its first phase and at most in all, and its most column
    set-ups (each visit draws at most ``per_visit`` partial deals: what the answer's ``samples`` counts).

    ``columns`` are the board's (1,176 on a flop, 48 on a turn, 1 on a river), ``runouts`` those the hand can
    be dealt on beside any known opponents (1,081 on a flop without them); ``adaptive``: a hand without
    ``samples`` (later phases add visits while the standard error is above its target); ``known``: beside known
    opponents. Without ``adaptive`` the visits are exactly the first phase's: ``samples`` is rounded up to whole
    visits per runout, at least two each, so it is a floor as much as a cap (2,162 partial deals at least on a flop).

    >>> sampled_work(1176, 1081, 1, 2, adaptive=False, known=False)
    (2162, 2162, 1081)
    >>> sampled_work(1176, 1081, None, 2, adaptive=True, known=False)
    (542, 27299, 3785)
    """
    per_column = _per_column(samples if samples is not None else DEFAULT_SAMPLES, columns, per_visit)
    grouped = adaptive and not known and per_column <= PILOT_SAMPLES
    strata = -(-runouts // GROUP_COLUMNS) if grouped else runouts
    first = (PILOT_SAMPLES if grouped else per_column) * strata
    visits, setups = first, min(first, runouts)
    if adaptive:  # each later phase: at most MAX_EXTRA_SAMPLES a runout on average, each stratum's share rounded up
        visits += (_PHASES - 1) * (MAX_EXTRA_SAMPLES * runouts + strata)
        setups += (_PHASES - 1) * runouts
    return first, visits, setups


#: Visits to each group of runouts in a sampled answer's first phase on a flop, and the standard error the later
#: phases aim at.
PILOT_SAMPLES = 2
TARGET_STANDARD_ERROR = 0.0005
#: A later phase adds at most this many visits per column on average.
MAX_EXTRA_SAMPLES = 8
#: Phases in all (the first, then more while the standard error is above the target); each later one allocates
#: for a standard error this fraction of the target, since the first phase's deviations are only estimates.
_PHASES = 4
_AIM = 0.9


def _stream_seed(seed: int, row: int | np.integer[Any], phase: int) -> int:
    """The seed of one hero row's streams in one phase (each column then has its own stream)."""
    return int(np.random.SeedSequence([int(seed), int(row), phase]).generate_state(1)[0])


def _neyman_extra(sums: np.ndarray, visits: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Extra visits per stratum (a group of ``sizes`` runouts), enough to bring the standard error to
    :data:`TARGET_STANDARD_ERROR` if the earlier phases' deviations hold, split in proportion to each stratum's
    neighbours' standard deviation of the equity numerator times their size (Neyman's allocation, from the
    strata next to it in the order of the hero's level). ``sums`` is :meth:`_Strata.gather`'s.

    Not the stratum's own deviation: its visits would then decide how many more it gets, and the mean of a
    stratum whose first visits happened to spread wide would be pulled towards the later ones, while one whose
    first visits agreed would keep their mean (measured: 7c7s against five random hands 0.9 standard errors
    low on average over 150 seeds; the previous sampler, 9s8s 1.25 standard errors high). A neighbour's
    visits are independent of the stratum's own, so its pooled mean stays unbiased.
    """
    weight = sizes.astype(np.float64)
    n = np.maximum(visits, 2)
    deals = (weight * sums[:, 3] / np.maximum(visits, 1)).sum()
    spread = weight * np.sqrt(np.maximum(sums[:, 6] - sums[:, 2] ** 2 / n, 0.0) / (n - 1)) * (visits > 0)
    if (spread**2 / n).sum() <= (TARGET_STANDARD_ERROR * deals) ** 2 or spread.sum() == 0:
        return np.zeros_like(visits)
    if len(spread) > 1:
        padded = np.concatenate([[0.0], spread, [0.0]])
        neighbours = np.concatenate([[0.0], np.ones(len(spread)), [0.0]])
        share = (padded[:-2] + padded[2:]) / (neighbours[:-2] + neighbours[2:])
    else:
        share = spread  # one stratum: it alone says how many more visits it needs
    if share.sum() == 0:
        return np.zeros_like(visits)
    target = (_AIM * TARGET_STANDARD_ERROR * deals) ** 2
    low, high = 0.0, float(MAX_EXTRA_SAMPLES * sizes.sum())
    for _ in range(24):  # the smallest total whose split reaches the target (to 1e-3 visits)
        middle = (low + high) / 2
        if (spread**2 / (n + middle * share / share.sum())).sum() <= target:
            high = middle
        else:
            low = middle
    # every stratum whose neighbours spread gets at least one more visit: rounding shares below one down to none
    # would leave strata whose first visits happened to agree with their too-small variances (a standard error
    # that says less than the estimates spread)
    extra: NDArray[np.int64] = np.ceil(high * share / share.sum()).astype(np.int64)
    return extra


def _sample_phase(
    q: _Question, row: int, free: np.uint64, k_exact: int, parts: _Parts, counts: np.ndarray, seed: int
) -> tuple[np.ndarray, int]:
    """Per column sums (win, tie, equity, deals and their squares) of ``counts[c]`` visits to column c, and the
    draws made; on threads by columns."""
    from matchdb.equity.enumeration import THREADS, _pool

    exact_w, exact_random, drawn_w, drawn_random, all_random = parts
    n_cols = len(q.columns)
    sums = np.zeros((n_cols, 8))
    taken = np.zeros(n_cols, dtype=np.int64)

    threads = min(THREADS, n_cols) if kernels.sample_columns.signatures else 1  # the first call compiles: one thread
    # pieces of about equal work (a visit, plus a visit's worth a column to set up), taken in turn by whichever
    # thread is free: on a busy machine a thread that gets less of a core takes fewer pieces
    work_done = np.cumsum(np.where(counts > 0, counts + 1, 0))
    n_pieces = 1 if threads == 1 else _PIECES_PER_THREAD * threads
    bounds = np.searchsorted(work_done, work_done[-1] * np.arange(1, n_pieces) / n_pieces)
    bounds = np.unique(np.concatenate([[0], bounds, [n_cols]]))
    pieces = iter(range(len(bounds) - 1))  # next() on it is atomic under the GIL

    question = q.question(row, free)
    opponents = Opponents(drawn_w, drawn_random, k_exact, exact_random, exact_w, all_random)

    def work() -> None:
        for piece in pieces:
            kernels.sample_columns(
                question, opponents, counts, seed, int(bounds[piece]), int(bounds[piece + 1]), CARDS, sums, taken
            )

    futures = [_pool().submit(work) for _ in range(1, threads)]
    work()
    for future in futures:
        future.result()
    return sums, int(taken.sum())


#: A phase's columns are cut into this many pieces per thread (threads take the next piece when free).
_PIECES_PER_THREAD = 3
