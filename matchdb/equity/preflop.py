"""Preflop tables derived from the database: every starting-hand class, averaged over all boards.

For each of the 169 classes (``AA``, ``AKs``, ``AKo``, ...): the exact heads-up
equity against a uniformly random hand, and the naive win rate
mean((1 - S) ** (n - 1)) for 2 to 10 players, both averaged over every flop,
turn and river (:func:`compute_preflop`); and the equity against 1 to 9 random
hands (:func:`compute_preflop_multiway`). Every flop is reached through its
canonical table weighted by its orbit size (how many of the 22,100 flops it
stands for): renaming suits maps the hands of one class onto the same class,
so the sums over an orbit equal the canonical flop's sums times the orbit
size. Every (hand, flop) pair holds the same number of runouts and opponent
hands, so plain sums of win and tie counts give the exact average.

:meth:`matchdb.MatchDB.preflop` and :meth:`matchdb.MatchDB.preflop_multiway`
compute their table once from every table (reading each once) and keep it in
the store as derived data bound to the tables (:mod:`matchdb.storage.derived`);
the answers are :class:`matchdb.answers.preflop.PreflopTable` and
:class:`matchdb.answers.preflop.PreflopMultiway`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np

from matchdb.answers.preflop import PREFLOP_MULTIWAY_VERSION, PreflopMultiway, PreflopTable
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, hand_positions
from matchdb.core.pairs import MAX_W, N_LEVELS, N_PAIRS, PAIR_HIGH, PAIR_INDEX, PAIR_LOW, board_columns
from matchdb.equity._kernels import preflop as _kernels
from matchdb.equity.heads_up import all_hands_scores
from matchdb.equity.multiway import MAX_OPPONENTS
from matchdb.errors import MatchdbError

__all__ = [
    "PLAYERS",
    "PREFLOP_KIND",
    "PREFLOP_VERSION",
    "PREFLOP_MULTIWAY_KIND",
    "PREFLOP_MULTIWAY_VERSION",
    "PreflopTable",
    "PreflopMultiway",
    "compute_preflop",
    "compute_preflop_multiway",
]

#: Player counts the naive win rate is tabulated for.
PLAYERS = tuple(range(2, 11))
#: How the table is kept in a store (``derived/preflop.json``), and its layout's version.
PREFLOP_KIND = "preflop"
PREFLOP_VERSION = 2
#: How the multiway table is kept in a store (``derived/preflop_multiway.json``); its version is the answer's.
PREFLOP_MULTIWAY_KIND = "preflop_multiway"
_PAIR_INDEX = PAIR_INDEX.astype(np.int64)


def compute_preflop(tables: Iterable) -> PreflopTable:
    """Compute the preflop table from every canonical table.

    ``tables`` yields objects with ``hands`` (the (1176, 2) card ids of the
    rows), ``orbit`` (the orbit size) and ``table`` (the decoded W), one per
    canonical flop, all 1,755 of them: :meth:`matchdb.MatchDB.tables` does.
    """
    started = time.perf_counter()
    columns = board_columns(())
    ones = np.ones(N_PAIRS)
    score = np.zeros(len(CLASSES))  # orbit-weighted wins + ties / 2
    deals = np.zeros(len(CLASSES))
    histogram = np.zeros((len(CLASSES), N_LEVELS), dtype=np.int64)
    for flop in tables:
        row_class = CLASS_OF_HAND[hand_positions(flop.hands[:, 0], flop.hands[:, 1])]
        table_score, table_deals = all_hands_scores(flop.table, columns, ones)
        np.add.at(score, row_class, flop.orbit * table_score)
        np.add.at(deals, row_class, flop.orbit * table_deals)
        _kernels._level_histogram(flop.table, row_class, flop.orbit, histogram)
    levels = np.arange(N_LEVELS) / MAX_W
    entries = histogram.sum(axis=1)
    win_rate = {n: (histogram * levels ** (n - 1)).sum(axis=1) / entries for n in PLAYERS}
    return PreflopTable(
        classes=CLASSES,
        equity=score / deals,
        win_rate=win_rate,
        provenance={"seconds": round(time.perf_counter() - started, 1)},
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
        provenance={
            "draws": int(draws),
            "seed": int(seed),
            "tables": flops_seen,
            "seconds": round(time.perf_counter() - started, 1),
            "method": "heads-up exact; 2-9 opponents: every board and hero hand, opponents' hands sampled",
        },
    )
