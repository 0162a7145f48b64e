"""Hand-strength distributions, EHS, EHS^2 and Billings' hand potential from one match table.

A match table holds every runout of every hand on its flop, so the whole
distribution of a hand's strength is a pass over it. Everything here works in
one table's frame (:mod:`matchdb.core.pairs`): ``table`` is a decoded
(1176, 1176) uint16 W matrix, ``flop`` the flop's three card ids (the
canonical flop when the table comes from the store), ``columns`` the board's
columns (:func:`matchdb.core.pairs.board_columns`: all 1,176 on the flop, the 48
holding the turn card on the turn, one on the river), ``row`` the hero's row
and ``weights`` the opponent's weight on each of the 1,176 rows (``None``: a
uniformly random hand). The query layer maps real cards into that frame:
:meth:`matchdb.MatchDB.distribution` and :meth:`matchdb.MatchDB.distributions`.

Definitions (every deal counts, card removal exact: the opponent's hand never
shares a card with the hero, the board or the runout):

- A *runout* is a column consistent with the board and the hero: 1,081 on a
  flop (every turn and river), 46 on a turn (every river), 1 on a river. Its
  *river equity* is the hero's exact equity against the opponent on that full
  board, wins plus half the ties, over the opponent hands left. Its
  *probability* is the chance that it is dealt with the opponent's hand drawn
  from the range: the weight of the opponent hands left on it, normalised.
  Against a random hand every runout has 990 opponent hands and the same
  probability; against a range, a runout that leaves no hand of the range
  has probability 0 and is left out.
- The *turn equity* of a turn card (flop only) is the exact equity over every
  river and opponent hand after that turn.
- ``ehs`` is the probability-weighted mean river equity: the exact equity on
  the board. ``ehs2`` is the mean of its square (Johanson et al. 2013).
- A histogram of ``bins`` equal bins over [0, 1] puts equity e in bin
  floor(e x bins), 1 in the last; the bin is computed exactly from the
  integer counts (for integer weights), so equities on a bin edge never fall
  the wrong way. ``river_counts`` counts runouts per bin (they sum to the
  number of runouts), ``river_histogram`` holds their probabilities (sum 1).
- ``hs`` is the current hand strength (Billings 2006): the hero's best hand
  made of its hole cards and the board as dealt (5 cards on a flop) against
  every opponent hand on that board, ahead plus half of tied. It needs
  evaluations the table does not hold; the numba evaluator makes them.
- Potential (Billings' thesis, section 5.3): over every opponent hand and
  every runout, ``HP[now][river]`` adds the opponent's weight, ``now`` and
  ``river`` being ahead (0), tied (1) or behind (2) on the board as dealt and
  on the final board. With ``HPTotal[now]`` the row sums,

      PPot = (HP[behind][ahead] + HP[behind][tied]/2 + HP[tied][ahead]/2)
             / (HPTotal[behind] + HPTotal[tied]/2)
      NPot = (HP[ahead][behind] + HP[tied][behind]/2 + HP[ahead][tied]/2)
             / (HPTotal[ahead] + HPTotal[tied]/2)

  (0 where the denominator is 0). HPTotal counts (opponent, runout) cases
  like HP, so both are probabilities; the pseudo-code of Billings et al.
  (2002) adds 1 to HPTotal once per opponent, which makes the ratio a count
  of runouts. On a river no card is to come: PPot = NPot = 0.

How it is counted. One hand (:func:`hand_distribution`, about 0.6 ms on a
flop): against a random hand, W already holds twice the wins plus the ties
against every valid row of a column, so only the 94 rows sharing a hero card
are compared again (16-bit counters, 16 columns per vector instruction); a
range takes one pass over its rows. Billings' counts take one pass over the
opponent rows, each compared on every column at once. Every hand
(:func:`board_distributions`): each column's rows are counting-sorted by W
level and walked from the weakest with running weights in all and per card,
which gives every row's score against the opponents left on that board with
card removal exact; a Fenwick tree over the current-strength ranks, filled
in the same walk, gives the 2-D counts (ahead now and below on the river)
the potential needs; the rows sharing a card, which those counts still hold,
are taken away afterwards from one 16-bit comparison per pair of such rows.
A second pass over the rows turns the scores into the histograms, EHS,
EHS^2 and the turn equities.

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.table import match_table
>>> from matchdb.core.pairs import board_columns, pair_row
>>> flop = parse_cards("Kc7d2h")
>>> table = match_table(flop)
>>> d = hand_distribution(table, flop, pair_row(flop, parse_cards("KsQs")), board_columns(()))
>>> d.now.tolist(), round(d.hs, 3)
([1033.0, 6.0, 42.0], 0.958)
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from matchdb.answers.distributions import BoardDistributions, HandDistribution
from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP
from matchdb.core.pairs import (
    COLLISION,
    N_LOCAL,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_LOW,
    PAIRS,
    ROWS_OF_CARD,
    board_columns,
    remaining_cards,
)
from matchdb.equity._kernels import distributions as _k
from matchdb.equity.checks import check_row, check_table, check_weights, is_uniform, read_only
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from matchdb.core.cards import CardsLike

__all__ = [
    "DEFAULT_BINS",
    "HandDistribution",
    "BoardDistributions",
    "hand_distribution",
    "board_distributions",
    "histogram_bins",
    "check_bins",
]

#: Bins of a histogram unless told otherwise (the literature's 50).
DEFAULT_BINS = 50
#: Runouts beside a hero and an opponent holding four distinct cards, by board size.
_RUNOUTS_PER_OPPONENT = {3: 990, 4: 44, 5: 1}
#: Runouts beside two hands that share one card (three distinct cards), by board size.
_SHARED_RUNOUTS = {3: 1035, 4: 45, 5: 1}


# -- checks ----------------------------------------------------------------------


def _check_flop(flop: CardsLike) -> tuple[int, int, int]:
    first, second, third = parse_cards(flop, count=3)
    return int(first), int(second), int(third)


def check_bins(bins: object) -> int:
    """Return ``bins`` as an int after checking it is a whole number of histogram bins, 1..10000."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 10_000:
        raise MatchdbError(f"The number of bins {bins!r} is out of range; expected an integer 1..10000.")
    return int(bins)


_ONES = np.ones(N_PAIRS)
_ONES.flags.writeable = False


def _opponent_weights(weights: np.ndarray | None) -> tuple[np.ndarray, bool]:
    """(weights, uniform): ``None`` and equal weights are a random opponent, weight 1 each."""
    if weights is None:
        return _ONES, True
    weights = check_weights(weights)
    if is_uniform(weights):
        return _ONES, True
    return weights, False


def _board_extra(columns: np.ndarray) -> tuple[int, ...]:
    """The turn and river (local indices) whose board ``columns`` are; raises unless they are a board's columns."""
    columns = np.asarray(columns)
    if columns.ndim != 1 or columns.dtype.kind not in "iu":
        raise BoardError(f"Board columns must be a 1-D integer array from board_columns(); got {columns.dtype} of shape {columns.shape}.")
    n = len(columns)
    extra: tuple[int, ...] | None = None
    if n == N_PAIRS:
        extra = ()
    elif n == N_LOCAL - 1 and columns.min() >= 0 and columns.max() < N_PAIRS:
        counts = np.bincount(PAIRS[columns].ravel(), minlength=N_LOCAL)
        turn = int(counts.argmax())
        if counts[turn] == n:
            extra = (turn,)
    elif n == 1 and 0 <= columns[0] < N_PAIRS:
        extra = tuple(int(c) for c in PAIRS[columns[0]])
    if extra is None or not np.array_equal(board_columns(extra), columns):
        raise BoardError(
            f"The {n} columns are not a board's columns; expected board_columns() of a flop (1176), a turn (48) or a river (1)."
        )
    return extra


# -- current hand strength: the evaluator on the board as dealt ----------------------


def _now_ranks(rest: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Dense rank (0 = weakest) of each row's hand on the board as dealt; -1 for rows holding a board card."""
    values = _k._row_values(rest[PAIR_LOW], rest[PAIR_HIGH], board, STRAIGHT_TOP, FLUSH_VALUE)
    valid = values >= 0
    ranks = np.full(N_PAIRS, -1, dtype=np.int64)
    ranks[valid] = np.unique(values[valid], return_inverse=True)[1]
    return ranks


# -- one hand ----------------------------------------------------------------------


def histogram_bins(equities: np.ndarray, bins: int = DEFAULT_BINS) -> np.ndarray:
    """The bin of each equity: floor(e x bins), with 1 in the last bin.

    The distributions compute bins from exact counts instead; this is the same
    rule for equities given as numbers.

    >>> histogram_bins(np.array([0.0, 0.019, 0.02, 0.5, 1.0])).tolist()
    [0, 0, 1, 25, 49]
    """
    bins = check_bins(bins)
    equities = np.asarray(equities, dtype=np.float64)
    if not ((equities >= 0) & (equities <= 1)).all():
        raise MatchdbError("Equities must lie in [0, 1]; got a value outside it.")
    which: NDArray[np.int64] = _k._bins_of(equities, np.ones_like(equities), bins)
    return which


def _potential(hp: np.ndarray, now_total: np.ndarray) -> tuple[float, float]:
    """(PPot, NPot) from Billings' HP matrix and its row sums."""
    behind = now_total[2] + now_total[1] / 2
    ahead = now_total[0] + now_total[1] / 2
    ppot = (hp[2, 0] + hp[2, 1] / 2 + hp[1, 0] / 2) / behind if behind > 0 else 0.0
    npot = (hp[0, 2] + hp[1, 2] / 2 + hp[0, 1] / 2) / ahead if ahead > 0 else 0.0
    return float(ppot), float(npot)


def _distribution_parts(
    score: np.ndarray, deals: np.ndarray, bins: int
) -> tuple[NDArray[np.bool_], np.ndarray, np.ndarray, NDArray[np.int64], np.ndarray]:
    """(valid, equities, probabilities, counts, histogram, bin of each) over entries with deals > 0."""
    valid = deals > 0
    s, d = score[valid], deals[valid]
    which = _k._bins_of(s, d, bins)
    probabilities = d / d.sum() if len(d) else d
    counts = np.bincount(which, minlength=bins).astype(np.int64)
    histogram = np.bincount(which, weights=probabilities, minlength=bins)
    return valid, s / d, probabilities, counts, histogram


def hand_distribution(
    table: np.ndarray,
    flop: Iterable[int],
    row: int,
    columns: np.ndarray,
    weights: np.ndarray | None = None,
    bins: int = DEFAULT_BINS,
) -> HandDistribution:
    """The distribution and potential of the hand in ``row`` on the board of ``columns``.

    Parameters
    ----------
    table : the flop's decoded W matrix, (1176, 1176) uint16.
    flop : the flop's three card ids (the frame's flop; with a stored table, the canonical flop).
    row : the hero's row (:func:`matchdb.core.pairs.pair_row`).
    columns : :func:`matchdb.core.pairs.board_columns` of the turn and river dealt (none, one or both).
    weights : the opponent's weight on each of the 1,176 rows; ``None`` for a random hand (equal
        weights count as a random hand too, weight 1 each, in ``now`` and ``potential``).
    bins : histogram bins over [0, 1].

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> flop = parse_cards("7h9hQh")
    >>> d = hand_distribution(match_table(flop), flop, pair_row(flop, parse_cards("TcQd")), board_columns(()))
    >>> round(d.ehs, 3), int(d.river_counts.sum()), len(d.turn_cards)
    (0.683, 1081, 47)
    >>> hand_distribution(match_table(flop), flop, 1176, board_columns(()))
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: Row 1176 is out of range; expected an integer 0..1175.
    """
    table = check_table(table)
    flop = _check_flop(flop)
    row = check_row(row)
    extra = _board_extra(columns)
    weights, uniform = _opponent_weights(weights)
    bins = check_bins(bins)
    rest = remaining_cards(flop).astype(np.int64)
    hole = (int(rest[PAIR_LOW[row]]), int(rest[PAIR_HIGH[row]]))
    if set(PAIRS[row].tolist()) & set(extra):
        raise CardError(
            f"The hole cards {format_cards(hole)!r} share a card with the board "
            f"{format_cards(flop + tuple(int(rest[e]) for e in extra))!r}; expected distinct cards."
        )
    board = np.array(flop + tuple(int(rest[e]) for e in extra), dtype=np.int64)
    ranks = _now_ranks(rest, board)
    columns = np.asarray(columns, dtype=np.int64)
    sub = read_only(table if len(columns) == N_PAIRS else np.ascontiguousarray(table[:, columns]))  # one compilation
    score, deals, hp, now = _k._hand_kernel(
        sub, row, weights, uniform, ranks, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH, COLLISION[row]
    )
    if deals.sum() == 0:
        raise RangeError("No opponent hand with a positive weight can be dealt beside these hole cards and board.")
    valid, equities, probabilities, counts, histogram = _distribution_parts(score, deals, bins)
    total = deals[valid].sum()
    ehs = float(score[valid].sum() / total)
    ehs2 = float((score[valid] ** 2 / deals[valid]).sum() / total)
    added = PAIRS[columns[valid]].astype(np.int64)
    if len(extra) == 0:
        runouts = rest[added]
        turn_score = np.bincount(added[:, 0], score[valid], N_LOCAL) + np.bincount(added[:, 1], score[valid], N_LOCAL)
        turn_deals = np.bincount(added[:, 0], deals[valid], N_LOCAL) + np.bincount(added[:, 1], deals[valid], N_LOCAL)
        t_valid, turn_equities, turn_probabilities, turn_counts, turn_histogram = _distribution_parts(
            turn_score, turn_deals, bins
        )
        turn_cards = rest[np.flatnonzero(t_valid)]
    else:
        if len(extra) == 1:  # each column holds the turn and one river: the runout is the river
            runouts = rest[np.where(added[:, 0] == extra[0], added[:, 1], added[:, 0])][:, None]
        else:
            runouts = np.zeros((len(added), 0), dtype=np.int64)
        turn_cards = np.zeros(0, dtype=np.int64)
        turn_equities = turn_probabilities = np.zeros(0)
        turn_counts = np.zeros(bins, dtype=np.int64)
        turn_histogram = np.zeros(bins)
    ppot, npot = _potential(hp, hp.sum(axis=1))
    if len(extra) == 2:
        ppot = npot = 0.0
    ahead, tied, behind = now
    hs = float((ahead + tied / 2) / now.sum()) if now.sum() > 0 else float("nan")
    return HandDistribution(
        board=tuple(int(c) for c in board),
        hole=hole,
        bins=bins,
        equity=ehs,
        ehs=ehs,
        ehs2=ehs2,
        hs=hs,
        ppot=ppot,
        npot=npot,
        now=now,
        potential=hp,
        runouts=np.ascontiguousarray(runouts, dtype=np.int64),
        river_equities=equities,
        river_probabilities=probabilities,
        river_counts=counts,
        river_histogram=histogram,
        turn_cards=np.asarray(turn_cards, dtype=np.int64),
        turn_equities=turn_equities,
        turn_probabilities=turn_probabilities,
        turn_counts=turn_counts,
        turn_histogram=turn_histogram,
    )


# -- every hand at once ---------------------------------------------------------------


def board_distributions(
    table: np.ndarray,
    flop: Iterable[int],
    columns: np.ndarray,
    weights: np.ndarray | None = None,
    bins: int = DEFAULT_BINS,
    raw: bool = False,
    parallel: bool = True,
) -> BoardDistributions:
    """The distribution figures of every row of the table on the board of ``columns`` at once.

    The same figures as :func:`hand_distribution` for each of the 1,176 rows,
    in one pass over the board's columns (see ``_board_kernel``): about
    20-30 ms for a flop here, where row by row would take half a second.
    ``raw=True`` also returns every row's river equity and probability on
    every column (two (1176, 1176) float64 arrays). The kernels run in a
    small thread pool, one part of the columns (rows, cards) per core;
    ``parallel=False`` keeps them on the calling thread, for callers that
    compute several boards at once in their own threads.

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> flop = parse_cards("Kc7d2h")
    >>> every = board_distributions(match_table(flop), flop, board_columns(()))
    >>> row = pair_row(flop, parse_cards("KsQs"))
    >>> round(float(every.hs[row]), 3), round(float(every.ehs[row]), 4), int(every.river_counts[row].sum())
    (0.958, 0.874, 1081)
    """
    table = check_table(table)
    flop = _check_flop(flop)
    extra = _board_extra(columns)
    weights, uniform = _opponent_weights(weights)
    bins = check_bins(bins)
    rest = remaining_cards(flop).astype(np.int64)
    board = np.array(flop + tuple(int(rest[e]) for e in extra), dtype=np.int64)
    ranks = _now_ranks(rest, board)
    n_ranks = int(ranks.max()) + 1
    columns = np.asarray(columns, dtype=np.int64)
    by_turn = len(extra) == 0
    n_cols = len(columns)
    col_low, col_high = PAIR_LOW[columns], PAIR_HIGH[columns]
    sub = read_only(table if n_cols == N_PAIRS else np.ascontiguousarray(table[:, columns]))  # one compilation
    tt = read_only(np.ascontiguousarray(sub.T))
    if raw:
        score_hj, deals_hj = np.empty((N_PAIRS, n_cols)), np.empty((N_PAIRS, n_cols))
    else:
        score_hj, deals_hj = _thread_scratch(n_cols)
    parts = _PARTS if parallel else 1
    potential = np.zeros((parts, N_PAIRS, 3))
    _split(n_cols, parts, lambda lo, hi, p: _k._column_range(
        tt, weights, uniform, ranks, n_ranks, PAIR_LOW, PAIR_HIGH, col_low, col_high, lo, hi, score_hj, deals_hj,
        potential[p],
    ))
    potential = potential.sum(axis=0)
    sums, mass = np.zeros((N_PAIRS, 3)), np.zeros((N_PAIRS, bins))
    counts = np.zeros((N_PAIRS, bins), dtype=np.int64)
    turn = np.zeros((N_PAIRS, N_LOCAL if by_turn else 1, 2))
    _split(N_PAIRS, parts, lambda lo, hi, p: _k._row_range(
        score_hj, deals_hj, uniform, col_low, col_high, bins, by_turn, lo, hi, sums, counts, mass, turn
    ))
    twice = np.zeros((N_LOCAL, N_LOCAL - 1, N_LOCAL - 1), dtype=np.int64)
    ties = np.zeros_like(twice)
    _split(N_LOCAL, parts, lambda lo, hi, p: _k._shared_cards(sub, ROWS_OF_CARD, ranks, lo, hi, twice, ties))
    if raw:
        if uniform:
            deals_hj = np.where(score_hj >= 0, float(_k.OPPONENTS), 0.0)
        river_eq, river_deals = _river_arrays(score_hj, deals_hj)
    score, deals, squares = sums[:, 0], sums[:, 1], sums[:, 2]
    behind_score, tied_score, tied_ties = potential[:, 0].copy(), potential[:, 1].copy(), potential[:, 2].copy()
    both = _SHARED_RUNOUTS[len(board)]
    _k._remove_shared_potential(twice, both, ties, ROWS_OF_CARD, ranks, weights, behind_score, tied_score, tied_ties)
    now = _k._now_counts(ranks, n_ranks, weights, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH)
    valid = (ranks >= 0) & (deals > 0)
    if not valid.any():
        raise RangeError("No opponent hand with a positive weight can be dealt on this board.")
    with np.errstate(invalid="ignore", divide="ignore"):
        ehs = np.where(valid, score / deals, np.nan)
        ehs2 = np.where(valid, squares / deals, np.nan)
        ahead_w, tied_w, behind_w = now[:, 0], now[:, 1], now[:, 2]
        hs = np.where(valid, (ahead_w + tied_w / 2) / now.sum(axis=1), np.nan)
        if len(extra) == 2:
            ppot = npot = np.where(valid, 0.0, np.nan)
        else:
            m = _RUNOUTS_PER_OPPONENT[len(board)]
            d_ahead, d_tied, d_behind = m * ahead_w, m * tied_w, m * behind_w
            ahead_score = score - behind_score - tied_score
            p_den = d_behind + d_tied / 2
            n_den = d_ahead + d_tied / 2
            p_num = behind_score + (tied_score - tied_ties / 2) / 2
            n_num = (d_ahead - ahead_score) + (d_tied - tied_score - tied_ties / 2) / 2
            ppot = np.where(valid, np.where(p_den > 0, p_num / np.where(p_den > 0, p_den, 1), 0.0), np.nan)
            npot = np.where(valid, np.where(n_den > 0, n_num / np.where(n_den > 0, n_den, 1), 0.0), np.nan)
        river_histogram = mass / np.where(deals > 0, deals, 1)[:, None]
    counts[~valid] = 0
    river_histogram[~valid] = 0.0
    if by_turn:
        turn_score, turn_deals = turn[:, :, 0], turn[:, :, 1]
        live = turn_deals > 0
        turn_local = np.where(live, turn_score / np.where(live, turn_deals, 1), np.nan)
        which = _k._bins_of(turn_score[live], turn_deals[live], bins)
        rows_of = np.nonzero(live)[0]
        turn_counts = np.bincount(rows_of * bins + which, minlength=N_PAIRS * bins).reshape(N_PAIRS, bins)
        turn_probability = np.where(live, turn_deals / np.where(deals > 0, deals, 1)[:, None] / 2, 0.0)
        turn_histogram = np.bincount(
            rows_of * bins + which, weights=turn_probability[live], minlength=N_PAIRS * bins
        ).reshape(N_PAIRS, bins)
        turn_equities = np.full((N_PAIRS, 52), np.nan)
        turn_equities[:, rest] = turn_local
    else:
        turn_equities = np.zeros((N_PAIRS, 0))
        turn_counts = np.zeros((N_PAIRS, bins), dtype=np.int64)
        turn_histogram = np.zeros((N_PAIRS, bins), dtype=np.float64)
    if raw:
        total = np.where(deals > 0, deals, 1)[:, None]
        river_probabilities = river_deals / total
    return BoardDistributions(
        board=tuple(int(c) for c in board),
        hands=_frame_hand_names(flop),
        bins=bins,
        valid=valid,
        ehs=ehs,
        ehs2=ehs2,
        hs=hs,
        ppot=ppot,
        npot=npot,
        now=np.where(valid[:, None], now, np.nan),
        river_counts=counts,
        river_histogram=river_histogram,
        turn_equities=turn_equities,
        turn_counts=turn_counts,
        turn_histogram=turn_histogram,
        river_equities=river_eq if raw else None,
        river_probabilities=river_probabilities if raw else None,
    )


def _river_arrays(score: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    live = deals > 0
    return np.where(live, score / np.where(live, deals, 1), np.nan), deals


_LOCAL = threading.local()
#: Parts each pass of :func:`board_distributions` is split into: one per core, at most 8 (a pass is ~30 ms of work).
_PARTS = max(1, min(os.cpu_count() or 1, 8))
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _split(n: int, parts: int, work: Callable[[int, int, int], object]) -> None:
    """Run ``work(lo, hi, part)`` over ``parts`` equal slices of range(n), on the pool when more than one.

    The kernels release the GIL; threads that wait block instead of spinning,
    which matters on machines shared with other work.
    """
    if parts == 1:
        work(0, n, 0)
        return
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_PARTS, thread_name_prefix="matchdb-distributions")
    futures = [_POOL.submit(work, p * n // parts, (p + 1) * n // parts, p) for p in range(1, parts)]
    work(0, n // parts, 0)  # the caller takes the first part
    for future in futures:
        future.result()


def _thread_scratch(n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Reused (1176, n_cols) score and deals buffers, one set per calling thread (fresh memory costs a page fault per 4 KiB)."""
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = {}
    if n_cols not in buffers:
        buffers[n_cols] = (np.empty((N_PAIRS, n_cols)), np.empty((N_PAIRS, n_cols)))
    scratch: tuple[np.ndarray, np.ndarray] = buffers[n_cols]
    return scratch


@functools.lru_cache(maxsize=64)
def _frame_hand_names(flop: tuple[int, int, int]) -> tuple[str, ...]:
    """Names of the table's 1,176 rows on ``flop``, higher rank first like :func:`matchdb.db.query.hand_order`."""
    rest = remaining_cards(flop)
    return tuple(_hand_name(int(rest[a]), int(rest[b])) for a, b in PAIRS)


def _hand_name(a: int, b: int) -> str:
    return format_cards(sorted((a, b), key=lambda c: (c % 13, c // 13), reverse=True))
