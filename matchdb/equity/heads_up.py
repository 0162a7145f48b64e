"""Equity formulas over one decoded match table W (docs/contract.md).

Everything here works in the table's own frame: rows and columns are pair
indices over the canonical flop's 49 remaining cards (:mod:`matchdb.core.pairs`). The
query layer maps real cards into that frame; these functions only check shapes
and ranges and call the numba kernels.

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

import numpy as np

from matchdb.errors import MatchdbError
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

__all__ = ["naive_win_rate", "naive_win_rates", "hand_vs_weights", "all_hands_scores"]


def _check_table(table: np.ndarray) -> None:
    if table.shape != (N_PAIRS, N_PAIRS) or table.dtype != np.uint16:
        raise MatchdbError(f"A match table must be a ({N_PAIRS}, {N_PAIRS}) uint16 array; got {table.shape} {table.dtype}.")


def _check_row(row: int, rows: int = N_PAIRS) -> int:
    if isinstance(row, bool) or not hasattr(row, "__index__") or not 0 <= row.__index__() < rows:
        raise MatchdbError(f"Row {row!r} is out of range; expected an integer 0..{rows - 1}.")
    return row.__index__()


#: ``_LEVEL_POWERS[e, w]`` is (w / MAX_W) ** e for every level w, so the naive
#: win rate looks powers up instead of computing one per entry.
_LEVEL_POWERS = (np.arange(N_LEVELS) / MAX_W) ** np.arange(23)[:, None]
_LEVEL_POWERS.flags.writeable = False
_POWER_ROWS = list(_LEVEL_POWERS)  # one view per exponent: indexing a list is cheaper than numpy




def _kernels():
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
    row, columns, powers = _check_row(row, table.shape[0]), check_columns(columns), _POWER_ROWS[check_players(players) - 1]
    if jit:
        return float(_kernels()._naive(table, row, columns, powers))
    levels = table[row, columns]
    levels = levels[levels != SENTINEL]
    return float(np.cumsum(powers[levels])[-1] / len(levels)) if len(levels) else float("nan")




def naive_win_rates(table: np.ndarray, columns: np.ndarray, players: int = 2) -> np.ndarray:
    """Naive win rate of every row at once (NaN for rows that share a card with the board)."""
    _check_table(table)
    return _kernels()._naive_all(table, check_columns(columns), _POWER_ROWS[check_players(players) - 1])




def _check_weights(weights: np.ndarray) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (N_PAIRS,):
        raise MatchdbError(f"Weights must be a vector of {N_PAIRS} entries; got shape {weights.shape}.")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise MatchdbError("Weights must be finite and non-negative.")
    return weights


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
    _check_table(table)
    row = _check_row(row)
    weights = _check_weights(weights).copy()
    weights[ROWS_OF_CARD[PAIR_LOW[row]]] = 0.0  # opponent hands sharing a card with the hero, and the hero itself
    weights[ROWS_OF_CARD[PAIR_HIGH[row]]] = 0.0
    columns = check_columns(columns)
    if len(columns) != N_PAIRS:
        table = np.ascontiguousarray(table[:, columns])
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
    _check_table(table)
    weights = _check_weights(weights)
    columns = check_columns(columns)
    # the kernels read every column of what they get: all of them on a flop, else a copy of the few
    board = table if len(columns) == N_PAIRS else np.ascontiguousarray(table[:, columns])
    kernels = _kernels()
    with _PARALLEL:
        if weights.min() == weights.max():
            score, deals = kernels._uniform_scores(board)
            score *= weights[0]
            deals *= weights[0]
        else:
            score, deals = kernels._level_scores(board, weights, 2 * kernels.numba.get_num_threads())
        pair_scores = kernels._shared_card_scores(board, ROWS_OF_CARD)
    kernels._remove_shared_cards(pair_scores, ROWS_OF_CARD, columns, weights, PAIR_LOW, PAIR_HIGH, score, deals)
    return score, deals
