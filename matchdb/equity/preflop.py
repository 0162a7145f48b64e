"""Preflop tables derived from the database: every starting-hand class, averaged over all boards.

For each of the 169 classes (``AA``, ``AKs``, ``AKo``, ...): the exact heads-up
equity against a uniformly random hand and the naive win rate
mean((1 - S) ** (n - 1)) for 2 to 10 players (:class:`PreflopTable`), and the
equity against 1 to 9 random hands (:class:`PreflopMultiway`): exact against one
and two, sampled against three to nine. Every flop is reached through its
canonical table weighted by its orbit size (how many of the 22,100 flops it
stands for): renaming suits maps the hands of one class onto the same class,
so the sums over an orbit equal the canonical flop's sums times the orbit
size.

The exact figures come from one pass over the tables
(:func:`matchdb.equity.derived.compute_derived`, what ``matchdb build`` runs
after the tables): on each table's weighted columns (each board counted 12
times, :func:`matchdb.equity.matchups.column_weights`) :func:`add_table_counts`
counts every row's deals against one and two random hands exactly and the
levels of W; :func:`preflop_table` and :func:`multiway_table` turn the totals
into the answers. Against three to nine random hands the figures were sampled
once over every board and hero hand of a full database
(:func:`compute_preflop_multiway`, 15 minutes) and ship with the package
(``matchdb/equity/data/preflop_multiway_sampled.json``, with its provenance and
standard errors of at most 0.00017); :func:`multiway_table` puts them beside
the exact ones.

:meth:`matchdb.MatchDB.preflop` and :meth:`matchdb.MatchDB.preflop_multiway`
read the tables from the store, where they are derived data bound to the
tables (:mod:`matchdb.storage.derived`).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers.preflop import (
    PLAYERS,
    PREFLOP_KIND,
    PREFLOP_MULTIWAY_KIND,
    PREFLOP_MULTIWAY_VERSION,
    PREFLOP_VERSION,
    PreflopMultiway,
    PreflopTable,
)
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, hand_positions
from matchdb.core.pairs import MAX_W, N_LEVELS, N_PAIRS, PAIR_HIGH, PAIR_INDEX, PAIR_LOW, board_columns
from matchdb.equity._kernels import preflop as _kernels
from matchdb.equity.heads_up import all_hands_scores
from matchdb.equity.multiway import MAX_OPPONENTS
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from matchdb.equity.reports import FlopTableLike

__all__ = [
    "PLAYERS",
    "PREFLOP_KIND",
    "PREFLOP_VERSION",
    "PREFLOP_MULTIWAY_KIND",
    "PREFLOP_MULTIWAY_VERSION",
    "HEADS_UP_DEALS",
    "THREE_PLAYER_DEALS",
    "PreflopTable",
    "PreflopMultiway",
    "RandomCounts",
    "add_table_counts",
    "preflop_table",
    "multiway_table",
    "sampled_multiway",
    "compute_preflop_multiway",
    "SAMPLED_FILE",
]

#: On a whole board beside the hero's hand (45 cards left): the hands of one opponent, C(45, 2), and the
#: unordered pairs of card-disjoint hands of two, C(45, 2) x C(43, 2) / 2.
HEADS_UP_DEALS = 990
THREE_PLAYER_DEALS = 446_985
#: The sampled figures against 3 to 9 random hands shipped with the package (see the module docstring).
SAMPLED_FILE = Path(__file__).resolve().parent / "data" / "preflop_multiway_sampled.json"
_PAIR_INDEX = PAIR_INDEX.astype(np.int64)
_BOARDS_PER_HAND = 2_118_760  # C(50, 5): boards beside one hand
_WEIGHT_PER_BOARD = 12  # a board's column weights over its ten splits (matchdb.equity.matchups)


class RandomCounts:
    """Totals per class of every table's :func:`add_table_counts`: exact counts against random hands, W's levels.

    ``counts[c]`` sums, orbit-weighted, the columns of :data:`matchdb.equity._kernels.preflop.HU_BELOW` ...
    ``WEIGHT`` over the rows of class c; ``histogram[c, w]`` how often level w occurs.
    Several threads each fill their own and :meth:`add` them at the end.
    """

    def __init__(self) -> None:
        self.counts = np.zeros((len(CLASSES), 6), dtype=np.int64)
        self.histogram = np.zeros((len(CLASSES), N_LEVELS), dtype=np.int64)

    def add(self, other: RandomCounts) -> RandomCounts:
        self.counts += other.counts
        self.histogram += other.histogram
        return self

    def check(self) -> None:
        """Every hand of every class met every board 12 times (the column weights' sum), or a table is wrong or missing."""
        combos = np.bincount(CLASS_OF_HAND, minlength=len(CLASSES))
        if not np.array_equal(self.counts[:, _kernels.WEIGHT], combos * _BOARDS_PER_HAND * _WEIGHT_PER_BOARD):
            raise MatchdbError("The preflop counts do not cover every board once per hand; a table is wrong or missing.")


def add_table_counts(columns: np.ndarray, weights: np.ndarray, hands: np.ndarray, orbit: int, totals: RandomCounts) -> np.ndarray:
    """Add one canonical table's exact counts against one and two random hands, and its levels, to ``totals``.

    ``columns`` are the table's weighted columns as rows of W levels (uint16, C order), ``weights``
    their weights (:func:`matchdb.equity.matchups.column_weights`), ``hands`` the (1176, 2) card ids
    of the rows, ``orbit`` the flop's orbit size. For each column the kernel sweeps the hands in the
    order of their level and counts, for every row and without looking at a single pair of hands:
    the hands below and tied that share no card with it (one opponent), and the card-disjoint pairs
    of them (two opponents: the number of pairs of a set of hands, less those sharing a card, from
    per-card degree sums, as in DESIGN.md's counting identity). Releases the GIL. Returns the rows'
    counts (1176 x 6, before the orbit size: wins and ties against one hand, both below, none above
    and the hero's share in sixths against two, the columns' weight).

    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import PAIRS, pair_row, remaining_cards
    >>> from matchdb.core.cards import parse_cards
    >>> flop = parse_cards("2c7dJh")
    >>> columns = np.ascontiguousarray(match_table(flop).T)
    >>> rows = add_table_counts(columns, np.ones(1176, dtype=np.int64), remaining_cards(flop)[PAIRS], 1, RandomCounts())
    >>> win, tie, _, _, sixths, weight = rows[pair_row(flop, parse_cards("AhKh"))]
    >>> round(float(sixths / (6 * THREE_PLAYER_DEALS * weight)), 12)  # AhKh against two random hands on the flop
    0.375861338429
    """
    row_class = CLASS_OF_HAND[hand_positions(hands[:, 0], hands[:, 1])]
    out = np.zeros((N_PAIRS, 6), dtype=np.int64)
    _kernels._random_counts(columns, np.asarray(weights, dtype=np.int64), PAIR_LOW, PAIR_HIGH, out)
    np.add.at(totals.counts, row_class, int(orbit) * out)
    _kernels._weighted_histogram(columns, np.asarray(weights, dtype=np.int64), row_class, int(orbit), totals.histogram)
    return out


def preflop_table(totals: RandomCounts, provenance: dict[str, Any]) -> PreflopTable:
    """The preflop table from every table's counts: heads-up equity (wins + ties / 2 over the deals) and naive win rates."""
    totals.check()
    counts = totals.counts
    score = 2 * counts[:, _kernels.HU_BELOW] + counts[:, _kernels.HU_TIED]  # twice the wins plus the ties: whole numbers
    equity = score / (2 * HEADS_UP_DEALS * counts[:, _kernels.WEIGHT])
    levels = np.arange(N_LEVELS) / MAX_W
    entries = totals.histogram.sum(axis=1)
    win_rate = {n: (totals.histogram * levels ** (n - 1)).sum(axis=1) / entries for n in PLAYERS}
    return PreflopTable(classes=CLASSES, equity=equity, win_rate=win_rate, provenance=provenance)


@functools.cache
def sampled_multiway() -> dict[str, Any]:
    """The shipped sampled figures against 1 to 9 random hands (``equity``, ``standard_error``, ``sampled_heads_up``, ``provenance``)."""
    data: dict[str, Any] = json.loads(SAMPLED_FILE.read_text())
    if tuple(data["classes"]) != tuple(CLASSES) or data["opponents"] != list(range(1, MAX_OPPONENTS + 1)):
        raise MatchdbError(f"The shipped file {SAMPLED_FILE.name} does not list the 169 classes against 1 to 9 opponents.")
    return data


def multiway_table(totals: RandomCounts, provenance: dict[str, Any]) -> PreflopMultiway:
    """The multiway preflop table: exact against one and two random hands from the counts, sampled beyond (shipped)."""
    totals.check()
    counts = totals.counts.astype(np.float64)  # each below 2^53: exact
    weight = counts[:, _kernels.WEIGHT]
    shipped = sampled_multiway()
    equity = np.array(shipped["equity"], dtype=np.float64)
    standard_error = np.array(shipped["standard_error"], dtype=np.float64)
    win = np.full(equity.shape, np.nan)
    tie = np.full(equity.shape, np.nan)
    heads_up = HEADS_UP_DEALS * weight
    equity[:, 0] = (2 * counts[:, _kernels.HU_BELOW] + counts[:, _kernels.HU_TIED]) / (2 * heads_up)
    win[:, 0] = counts[:, _kernels.HU_BELOW] / heads_up
    tie[:, 0] = counts[:, _kernels.HU_TIED] / heads_up
    three = THREE_PLAYER_DEALS * weight
    equity[:, 1] = counts[:, _kernels.THREE_SIXTHS] / (6 * three)
    win[:, 1] = counts[:, _kernels.THREE_WIN] / three
    tie[:, 1] = (counts[:, _kernels.THREE_NOT_BEHIND] - counts[:, _kernels.THREE_WIN]) / three
    standard_error[:, :2] = 0.0
    return PreflopMultiway(
        classes=tuple(CLASSES),
        opponents=tuple(range(1, MAX_OPPONENTS + 1)),
        equity=equity,
        standard_error=standard_error,
        exact=(True, True) + (False,) * (MAX_OPPONENTS - 2),
        sampled_heads_up=np.array(shipped["sampled_heads_up"], dtype=np.float64),
        provenance=provenance | {"sampled": shipped["provenance"]},
        win=win,
        tie=tie,
    )


def compute_preflop_multiway(tables: Iterable[FlopTableLike], draws: int = 1, seed: int = 0) -> PreflopMultiway:
    """Equity of every starting-hand class against 1 to 9 random hands, sampled, from every canonical table.

    What computed the shipped sampled figures (:data:`SAMPLED_FILE`, 15 minutes on 2 cores);
    the database's own table takes them beside its exact figures (:func:`multiway_table`).
    ``tables`` yields objects with ``index``, ``hands`` (the rows' card ids), ``orbit``
    and ``table``, one per canonical flop: :meth:`matchdb.MatchDB.tables` does. Heads-up
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
    import numba

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
        sums, counts = _kernels._preflop_sample(
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
        win=np.full(equity.shape, np.nan),  # sampled: shares only
        tie=np.full(equity.shape, np.nan),
        provenance={
            "draws": int(draws),
            "seed": int(seed),
            "tables": flops_seen,
            "seconds": round(time.perf_counter() - started, 1),
            "method": "heads-up exact; 2-9 opponents: every board and hero hand, opponents' hands sampled",
        },
    )
