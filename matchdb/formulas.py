"""Equity formulas over one decoded match table W (docs/contract.md).

Everything here works in the table's own frame: rows and columns are pair
indices over the canonical flop's 49 remaining cards (:mod:`matchdb.pairs`). The
query layer maps real cards into that frame; these functions only check shapes
and ranges and call the numba kernels.

A *column set* is the list of (turn, river) columns consistent with the board:
all 1,176 on the flop, the 48 holding the turn card on the turn, and the one
holding both cards on the river. Columns that share a card with a hand are
skipped for that hand automatically (their entries hold the sentinel).

>>> from matchdb.cards import parse_cards
>>> from matchdb.kernels import match_table
>>> from matchdb.pairs import board_columns, pair_row
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

import numba
import numpy as np

from matchdb._jit import jit, jit_parallel
from matchdb.errors import MatchdbError
from matchdb.hands import check_players
from matchdb.pairs import (
    COLLISION,
    MAX_W,
    N_LEVELS,
    N_LOCAL,
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


@jit
def _naive(table, row, columns, powers):
    total = 0.0
    n = 0
    for j in columns:
        w = table[row, j]
        if w != SENTINEL:
            total += powers[w]
            n += 1
    return total / n if n else np.nan


def naive_win_rate(table: np.ndarray, row: int, columns: np.ndarray, players: int = 2) -> float:
    """The article's naive win rate: mean of (W / MAX_W) ** (players - 1) over the hand's columns.

    ``table`` may be the whole table or any block of its rows (a decoded chunk),
    with ``row`` counted within it. NaN when no column is consistent with the
    hand (it shares a card with the board).
    """
    if table.ndim != 2 or table.shape[1] != N_PAIRS or table.dtype != np.uint16:
        raise MatchdbError(f"Rows of a match table must be (k, {N_PAIRS}) uint16; got {table.shape} {table.dtype}.")
    return float(_naive(table, _check_row(row, table.shape[0]), check_columns(columns), _POWER_ROWS[check_players(players) - 1]))


@jit
def _naive_all(table, columns, powers):
    out = np.empty(table.shape[0], dtype=np.float64)
    for row in range(table.shape[0]):
        out[row] = _naive(table, row, columns, powers)
    return out


def naive_win_rates(table: np.ndarray, columns: np.ndarray, players: int = 2) -> np.ndarray:
    """Naive win rate of every row at once (NaN for rows that share a card with the board)."""
    _check_table(table)
    return _naive_all(table, check_columns(columns), _POWER_ROWS[check_players(players) - 1])


@jit
def _hand_vs_weights(table, row, weights):
    """Weighted (win, tie, loss) sums of hand ``row`` against rows with weight, over all of ``table``'s columns."""
    hero = table[row]
    n_cols = table.shape[1]
    win = 0.0
    tie = 0.0
    loss = 0.0
    for k in range(table.shape[0]):
        w = weights[k]
        if w == 0.0:
            continue
        villain = table[k]
        # 16-bit counters (a count never exceeds the 1,176 columns) let the loop run
        # on 16 columns per vector instruction; int64 counters would take 4.
        n_win = np.uint16(0)
        n_tie = np.uint16(0)
        n_loss = np.uint16(0)
        for c in range(n_cols):  # branch-free so that it vectorizes
            h = hero[c]
            v = villain[c]
            valid = (h != SENTINEL) & (v != SENTINEL)
            n_win = np.uint16(n_win + np.uint16(valid & (h > v)))
            n_tie = np.uint16(n_tie + np.uint16(valid & (h == v)))
            n_loss = np.uint16(n_loss + np.uint16(valid & (h < v)))
        win += w * n_win
        tie += w * n_tie
        loss += w * n_loss
    return win, tie, loss


def _check_weights(weights: np.ndarray) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (N_PAIRS,):
        raise MatchdbError(f"Weights must be a vector of {N_PAIRS} entries; got shape {weights.shape}.")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise MatchdbError("Weights must be finite and non-negative.")
    return weights


def hand_vs_weights(table: np.ndarray, row: int, columns: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
    """Exact (win, tie, loss) probabilities of one hand against weighted opponent hands.

    Every deal counts: each column consistent with both hands, each opponent
    hand disjoint from the hero's cards, the board and the column, weighted by
    ``weights[k]``. Raises when no deal is possible.
    """
    _check_table(table)
    row = _check_row(row)
    weights = _check_weights(weights).copy()
    weights[COLLISION[row]] = 0.0  # opponent hands sharing a card with the hero, and the hero itself
    columns = check_columns(columns)
    if len(columns) != N_PAIRS:
        table = np.ascontiguousarray(table[:, columns])
    win, tie, loss = _hand_vs_weights(table, row, weights)
    total = win + tie + loss
    if total == 0:
        raise MatchdbError("No opponent hand in the range is possible with these cards.")
    return win / total, tie / total, loss / total


_PARALLEL = threading.Lock()  # one parallel kernel at a time: not every numba threading layer is thread-safe


@jit_parallel
def _uniform_scores(table):
    """Per-row (score, deals) against every other valid row with weight 1, card removal ignored.

    No counting is needed: W = 2 x (rows below) + (rows level) is already twice
    a row's wins plus ties over its column (docs/contract.md), so the score
    is half the sum of the row's valid entries, and each valid entry stands for
    as many deals as its column has other valid rows.
    """
    n_rows, n_cols = table.shape
    valid_rows = np.zeros(n_cols, dtype=np.int64)
    for k in range(n_rows):
        for c in range(n_cols):
            valid_rows[c] += table[k, c] != SENTINEL
    score = np.empty(n_rows)
    deals = np.empty(n_rows)
    for k in numba.prange(n_rows):
        twice = 0
        count = 0
        for c in range(n_cols):
            v = np.int64(table[k, c])
            valid = v != SENTINEL
            twice += v * valid
            count += (valid_rows[c] - 1) * valid
        score[k] = twice / 2
        deals[k] = count
    return score, deals


@jit_parallel
def _level_scores(table, weights, n_blocks):
    """Per-row weighted (score, deals) against every other valid row, card removal ignored.

    A weighted histogram of each column's W levels and its running sum give,
    for every valid row, the weight of rows strictly below it and level with it
    (itself excluded), and of all valid rows but itself.
    """
    n_rows, n_cols = table.shape
    score = np.zeros((n_blocks, n_rows))
    deals = np.zeros((n_blocks, n_rows))
    for block in numba.prange(n_blocks):
        level = np.zeros(N_LEVELS)
        below = np.zeros(N_LEVELS)
        column = np.empty(n_rows, dtype=np.int64)
        for j in range(block, n_cols, n_blocks):
            level[:] = 0.0
            for k in range(n_rows):
                v = np.int64(table[k, j])
                column[k] = v
                if v != SENTINEL:
                    level[v] += weights[k]
            running = 0.0
            for v in range(N_LEVELS):
                below[v] = running
                running += level[v]
            for k in range(n_rows):
                v = column[k]
                if v != SENTINEL:
                    w = weights[k]
                    score[block, k] += below[v] + (level[v] - w) / 2
                    deals[block, k] += running - w
    return score.sum(axis=0), deals.sum(axis=0)


@jit
def _pair_score(first, second):
    """Twice the score of row ``first`` against row ``second`` over the columns where both are valid.

    Counted in 16 bits (at most 2 x 1,176), so the loop runs on 16 columns per
    vector instruction.
    """
    twice = np.uint16(0)
    for c in range(first.shape[0]):
        u = first[c]
        v = second[c]
        valid = u != SENTINEL  # v == SENTINEL makes both comparisons false
        twice = np.uint16(twice + np.uint16(valid & (u > v)) + np.uint16(valid & (u >= v)))
    return twice


@jit_parallel
def _shared_card_scores(table, rows_of_card):
    """For every two rows sharing one card, twice the first's score against the second.

    ``out[a, i, j]`` (i < j) compares rows ``rows_of_card[a, i]`` and
    ``rows_of_card[a, j]`` over the table's columns where both are valid: two
    for each column the first wins, one for each tie. The 48 rows of a card
    are copied together first, so the comparisons run from cache.
    """
    n_cols = table.shape[1]
    out = np.zeros((N_LOCAL, 48, 48), dtype=np.int64)
    for a in numba.prange(N_LOCAL):
        block = np.empty((48, n_cols), dtype=np.uint16)
        for i in range(48):
            block[i] = table[rows_of_card[a, i]]
        for i in range(48):
            for j in range(i + 1, 48):
                out[a, i, j] = _pair_score(block[i], block[j])
    return out


@jit
def _remove_shared_cards(pair_scores, rows_of_card, columns, weights, pair_a, pair_b, score, deals):
    """Subtract, for every row, the opponents that share one of its cards (card removal)."""
    n_cols = columns.shape[0]
    touching = np.zeros(N_LOCAL, dtype=np.int64)  # columns holding each card
    exact = np.zeros((N_LOCAL, N_LOCAL), dtype=np.int64)  # columns equal to each pair
    for c in range(n_cols):
        x = pair_a[columns[c]]
        y = pair_b[columns[c]]
        touching[x] += 1
        touching[y] += 1
        exact[x, y] += 1
        exact[y, x] += 1
    for a in range(N_LOCAL):
        for i in range(48):
            r1 = rows_of_card[a, i]
            x = pair_a[r1] + pair_b[r1] - a
            for j in range(i + 1, 48):
                r2 = rows_of_card[a, j]
                y = pair_a[r2] + pair_b[r2] - a
                both = n_cols - touching[a] - touching[x] - touching[y] + exact[a, x] + exact[a, y] + exact[x, y]
                if both <= 0:
                    continue
                first = pair_scores[a, i, j] / 2  # r1's score against r2; r2's is what is left of ``both``
                w1 = weights[r1]
                w2 = weights[r2]
                score[r1] -= w2 * first
                score[r2] -= w1 * (both - first)
                deals[r1] -= w2 * both
                deals[r2] -= w1 * both


def all_hands_scores(table: np.ndarray, columns: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted score (wins + ties / 2) and deals of every row against weighted opponents, card removal exact.

    ``score[h] / deals[h]`` is the exact heads-up equity of hand h; rows that
    cannot be dealt have ``deals[h] == 0``. Equal weights (a random opponent)
    take a shortcut through W's own counts; other weights count each column.

    >>> from matchdb.cards import parse_cards
    >>> from matchdb.kernels import match_table
    >>> from matchdb.pairs import board_columns, pair_row
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
    with _PARALLEL:
        if weights.min() == weights.max():
            score, deals = _uniform_scores(board)
            score *= weights[0]
            deals *= weights[0]
        else:
            score, deals = _level_scores(board, weights, 2 * numba.get_num_threads())
        pair_scores = _shared_card_scores(board, ROWS_OF_CARD)
    _remove_shared_cards(pair_scores, ROWS_OF_CARD, columns, weights, PAIR_LOW, PAIR_HIGH, score, deals)
    return score, deals
