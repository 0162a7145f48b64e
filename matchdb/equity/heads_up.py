"""Heads-up equity over one decoded match table W (docs/contract.md): a hand, every hand, or a range against a range.

Everything here works in the table's own frame: rows and columns are pair
indices over the canonical flop's 49 remaining cards (:mod:`matchdb.core.pairs`). The
query layer maps real cards into that frame; these functions only check their
input (:mod:`matchdb.equity.checks`) and call the numba kernels.

A *column set* is the list of (turn, river) columns consistent with the board:
all 1,176 on the flop, the 48 holding the turn card on the turn, and the one
holding both cards on the river. Columns that share a card with a hand are
skipped for that hand automatically (their entries hold the sentinel).

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.table import match_table
>>> from matchdb.core.pairs import board_columns, pair_row
>>> flop = parse_cards("2c7dJh")
>>> table = match_table(flop)
>>> hero = pair_row(flop, parse_cards("AhKh"))
>>> round(naive_win_rate(table, hero, board_columns(()), players=2), 6)
0.580707
>>> win, tie, loss = hand_vs_weights(table, hero, board_columns(()), np.ones(1176))
>>> round(win + tie / 2, 6)
0.572571
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.hole_cards import check_players
from matchdb.core.pairs import (
    MAX_W,
    N_LEVELS,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_LOW,
    ROWS_OF_CARD,
    SENTINEL,
    check_columns,
)
from matchdb.equity.checks import check_row, check_table, check_weights, is_uniform, read_only
from matchdb.errors import MatchdbError, RangeError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "naive_win_rate",
    "naive_win_rates",
    "hand_vs_weights",
    "all_hands_scores",
    "RangeResult",
    "range_vs_range",
    "range_scores",
    "range_counts",
]


#: ``_LEVEL_POWERS[e, w]`` is (w / MAX_W) ** e for every level w, so the naive
#: win rate looks powers up instead of computing one per entry.
_LEVEL_POWERS = (np.arange(N_LEVELS) / MAX_W) ** np.arange(23)[:, None]
_LEVEL_POWERS.flags.writeable = False
_POWER_ROWS = list(_LEVEL_POWERS)  # one view per exponent: indexing a list is cheaper than numpy


def _kernels() -> ModuleType:
    """The numba kernels, loaded (and compiled or read from numba's cache) on first use."""
    from matchdb.equity._kernels import heads_up as _equity_kernels

    return _equity_kernels


def naive_win_rate(table: np.ndarray, row: int, columns: np.ndarray, players: int = 2, jit: bool = True) -> float:
    """The article's naive win rate: mean of (W / MAX_W) ** (players - 1) over the hand's columns.

    ``table`` may be the whole table or any block of its rows (a decoded chunk),
    with ``row`` counted within it. NaN when no column is consistent with the
    hand (it shares a card with the board). ``jit=False`` answers with numpy
    alone (no numba to load: what a one-off process wants); both ways sum the
    same terms in the same order, so they agree to the last bit.
    """
    if table.ndim != 2 or table.shape[1] != N_PAIRS or table.dtype != np.uint16:
        raise MatchdbError(f"Rows of a match table must be (k, {N_PAIRS}) uint16; got {table.shape} {table.dtype}.")
    row, columns, powers = check_row(row, table.shape[0]), check_columns(columns), _POWER_ROWS[check_players(players) - 1]
    if jit:
        return float(_kernels()._naive(table, row, columns, powers))
    levels = table[row, columns]
    levels = levels[levels != SENTINEL]
    return float(np.cumsum(powers[levels])[-1] / len(levels)) if len(levels) else float("nan")


def naive_win_rates(table: np.ndarray, columns: np.ndarray, players: int = 2) -> np.ndarray:
    """Naive win rate of every row at once (NaN for rows that share a card with the board)."""
    table = check_table(table)
    rates: NDArray[np.float64] = _kernels()._naive_all(table, check_columns(columns), _POWER_ROWS[check_players(players) - 1])
    return rates


def hand_vs_weights(
    table: np.ndarray, row: int, columns: np.ndarray, weights: np.ndarray, jit: bool = True
) -> tuple[float, float, float]:
    """Exact (win, tie, loss) probabilities of one hand against weighted opponent hands.

    Every deal counts: each column consistent with both hands, each opponent
    hand disjoint from the hero's cards, the board and the column, weighted by
    ``weights[k]``. Raises when no deal is possible. ``jit=False`` counts with
    numpy alone; both ways add the same products in the same order, so they
    agree to the last bit.
    """
    table = check_table(table)
    row = check_row(row)
    weights = check_weights(weights).copy()
    weights[ROWS_OF_CARD[PAIR_LOW[row]]] = 0.0  # opponent hands sharing a card with the hero, and the hero itself
    weights[ROWS_OF_CARD[PAIR_HIGH[row]]] = 0.0
    columns = check_columns(columns)
    if len(columns) != N_PAIRS:
        table = read_only(np.ascontiguousarray(table[:, columns]))
    if jit:
        win, tie, loss = _kernels()._hand_vs_weights(table, row, weights)
    else:
        hero = table[row]
        valid = (table != SENTINEL) & (hero != SENTINEL)
        # each opponent row's counts, then the weighted sums in row order, as the kernel adds them
        win, tie, loss = (np.cumsum(weights * (valid & compare).sum(axis=1))[-1] for compare in (hero > table, hero == table, hero < table))
    total = win + tie + loss
    if total == 0:
        raise MatchdbError("No opponent hand in the range is possible with these cards.")
    return win / total, tie / total, loss / total


_PARALLEL = threading.Lock()  # one parallel kernel at a time: not every numba threading layer is thread-safe


def all_hands_scores(table: np.ndarray, columns: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted score (wins + ties / 2) and deals of every row against weighted opponents, card removal exact.

    ``score[h] / deals[h]`` is the exact heads-up equity of hand h; rows that
    cannot be dealt have ``deals[h] == 0``. Equal weights (a random opponent)
    take a shortcut through W's own counts; other weights count each column.

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> score, deals = all_hands_scores(match_table("2c7dJh"), board_columns(()), np.ones(1176))
    >>> hero = pair_row(parse_cards("2c7dJh"), parse_cards("AhKh"))
    >>> round(float(score[hero] / deals[hero]), 6)
    0.572571
    """
    table = check_table(table)
    weights = check_weights(weights)
    columns = check_columns(columns)
    board = _board(table, columns)
    kernels = _kernels()
    with _PARALLEL:
        if is_uniform(weights):
            score, deals = kernels._uniform_scores(board)
            score *= weights[0]
            deals *= weights[0]
        else:
            score, deals = kernels._level_scores(board, weights, 2 * kernels.numba.get_num_threads())
        pair_scores = kernels._shared_card_scores(board, ROWS_OF_CARD)
    kernels._remove_shared_cards(pair_scores, ROWS_OF_CARD, columns, weights, PAIR_LOW, PAIR_HIGH, score, deals)
    return score, deals


def _board(table: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The table's board columns: the table itself on a flop, else a contiguous copy of the few (the kernels read every
    column); read-only either way, so that each kernel compiles once (:func:`matchdb.equity.checks.read_only`)."""
    return read_only(table if len(columns) == N_PAIRS else np.ascontiguousarray(table[:, columns]))


# -- range against range --------------------------------------------------------------------


@dataclass(frozen=True)
class RangeResult:
    """A hero range against a villain range: the weighted score (wins + ties / 2), ties and number of deals.

    ``equity = score / deals``; ``win``, ``tie`` and ``loss`` are the hero's
    shares of the deals (they sum to 1, and ``equity = win + tie / 2``). The
    three sums run over every (hero hand, villain hand, runout) deal consistent
    with the board, weighted by the two hands' weights, so results on several
    boards add up.
    """

    score: float
    deals: float
    ties: float

    @property
    def equity(self) -> float:
        """The hero range's equity."""
        return self.score / self.deals

    @property
    def win(self) -> float:
        """The share of the deals the hero range wins (never below 0 by a rounding error, when it never wins)."""
        return max(0.0, (self.score - self.ties / 2) / self.deals)

    @property
    def tie(self) -> float:
        """The share of the deals the two ranges tie."""
        return self.ties / self.deals

    @property
    def loss(self) -> float:
        """The share of the deals the hero range loses (the villain range wins; never below 0 either)."""
        return max(0.0, (self.deals - self.score - self.ties / 2) / self.deals)

    @property
    def players(self) -> tuple[float, float]:
        """Both players' equities, hero first."""
        return (self.equity, 1.0 - self.equity)


#: Pairs of hero and villain rows per row of either up to which comparing every pair beats walking every column.
_PAIRS_PER_ROW = 20
#: Rows of a range against a random hand up to which its ties are counted row by row on a flop rather than by a pass
#: over every row's levels (measured crossover: about 27 rows; on a turn, 4 rows, on a river 1: the pass there).
_TIES_BY_ROWS = 24


def range_scores(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float]:
    """(score, deals) of a hero range against a villain range on the board of ``columns``, card removal exact.

    ``hero`` and ``villain`` are weights on the table's 1,176 rows; either may
    have no hand (then both figures are 0: a report over every flop meets such
    flops). One way to count, chosen by the ranges' sizes: a uniform side (a
    random hand) takes W's own counts, less the rows sharing a card with each
    hand of the other side, each such pair compared once; two small ranges
    compare every pair of their hands on every runout (16 runouts per vector
    instruction); larger ones sum each runout's hero and villain weight per W
    level (the levels present found through a bitmap) and take away the pairs
    of hands that share a card. :func:`range_counts` also counts the ties.
    """
    score, _, deals = _range_counts(table, columns, hero, villain, ties=False)
    return score, deals


def range_counts(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float, float]:
    """(score, ties, deals) of a hero range against a villain range: :func:`range_scores` and the weighted tied deals.

    The score is the same number :func:`range_scores` gives, to the last bit.
    Ties are counted beside it at no measurable cost, except against a uniform
    side (a random hand), where a hand's W says nothing of its ties: there one
    pass over the table finds the size of every runout's W levels (about
    1.4 ms on a flop, 0.05 ms on a turn; on a flop a range of a few hands
    compares each with every hand instead, about 55 µs a hand), less each
    hand level with itself and the pairs of hands sharing a card.

    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns
    >>> score, ties, deals = range_counts(match_table("2c7dJh"), board_columns(()), np.ones(1176), np.ones(1176))
    >>> score / deals, round(ties / deals, 6)  # a random hand against a random hand
    (0.5, 0.022053)
    """
    return _range_counts(table, columns, hero, villain, ties=True)


def _range_counts(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray, ties: bool) -> tuple[float, float, float]:
    """(score, ties, deals), the ties only when ``ties`` is true (else 0: against a uniform side they cost a pass over the table)."""
    table = check_table(table)
    columns = check_columns(columns)
    hero = check_weights(hero, "hero range", empty=True)
    villain = check_weights(villain, "villain range", empty=True)
    if not hero.any() or not villain.any():
        return 0.0, 0.0, 0.0
    score, tied, deals = _count(table, columns, hero, villain, ties)
    return float(score), float(tied), float(deals)


def _count(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray, ties: bool) -> tuple[float, float, float]:
    """:func:`_range_counts` after its checks: the kernels that suit the ranges."""
    kernels = _kernels()
    board = _board(table, columns)
    if is_uniform(villain) or is_uniform(hero):
        flip = not is_uniform(villain)
        ranged, uniform = (villain, hero) if flip else (hero, villain)
        score, deals, doubles = kernels._against_uniform(board, columns, ranged, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH,
                                                         is_uniform(ranged), ties)
        tied = 0.0
        if ties:  # the ranged rows' ties with every valid row, less each row with itself and the pairs sharing a card
            rows = np.flatnonzero(ranged)
            if len(rows) <= _TIES_BY_ROWS and len(columns) == N_PAIRS:
                level_ties = kernels._ties_by_rows(board, rows, ranged[rows])
            else:
                level_ties = kernels._level_ties(board, rows, ranged[rows], is_uniform(ranged))
            tied = (level_ties - doubles) * uniform[0]
        score, deals = score * uniform[0], deals * uniform[0]
        return (deals - score, tied, deals) if flip else (score, tied, deals)
    h_rows = np.flatnonzero(hero)
    v_rows = np.flatnonzero(villain)
    rows = np.flatnonzero((hero > 0) | (villain > 0))
    if len(h_rows) * len(v_rows) <= _PAIRS_PER_ROW * len(rows):  # measured crossover
        counts: tuple[float, float, float] = kernels._range_pairs(
            board, h_rows, hero[h_rows], v_rows, villain[v_rows], kernels.ROW_MASKS
        )
        return counts
    score, tied, deals = kernels._level_walk(np.ascontiguousarray(board[rows].T), hero[rows], villain[rows])
    shared_score, shared_tied, shared_deals = kernels._shared_pairs(board, columns, hero, villain, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH)
    return score - shared_score, tied - shared_tied, deals - shared_deals


def range_vs_range(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray) -> RangeResult:
    """Exact heads-up result of a hero range against a villain range (:func:`range_counts`); raises when no deal is possible.

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
    >>> round(r.win, 6), r.tie, round(r.loss, 6)  # no runout splits a pot between these ranges
    (0.645326, 0.0, 0.354674)
    >>> r = range_vs_range(match_table(flop), board_columns(()), rows("AK,AQ"), rows("AK,KQ"))
    >>> round(r.win, 6), round(r.tie, 6), round(r.loss, 6), round(r.win + r.tie / 2, 12) == round(r.equity, 12)
    (0.492479, 0.203763, 0.303758, True)
    """
    hero = check_weights(hero, "hero range")
    villain = check_weights(villain, "villain range")
    score, ties, deals = range_counts(table, columns, hero, villain)
    if deals <= 0:
        raise RangeError("No deal is possible: every hero hand collides with every villain hand on this board.")
    return RangeResult(float(score), float(deals), float(ties))
