"""Equity formulas over one decoded match table W (DESIGN.md section 1).

Everything here works in the table's own frame: rows and columns are pair
indices over the canonical flop's 49 remaining cards (``matchdb.cards``). The
query layer maps real cards into that frame; these functions only check shapes
and ranges and call the numba kernels.

A *column set* is the list of (turn, river) columns consistent with the board:
all 1,176 on the flop, the 48 holding the turn card on the turn, and the one
holding both cards on the river. Columns that share a card with a hand are
skipped for that hand automatically (their entries hold the sentinel).

>>> from matchdb.cards import parse_cards, pair_row
>>> from matchdb.kernels import match_table
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

from matchdb.cards import COLLISION, N_LOCAL, N_PAIRS, PAIR_INDEX, PAIRS
from matchdb.errors import BoardError, MatchdbError
from matchdb.evaluator import jit

__all__ = ["board_columns", "naive_win_rate", "naive_win_rates", "hand_vs_weights", "all_hands_vs_weights"]

_PAIR_A = PAIRS[:, 0].astype(np.int64)
_PAIR_B = PAIRS[:, 1].astype(np.int64)
_ALL_COLUMNS = np.arange(N_PAIRS, dtype=np.int64)
_TURN_COLUMNS = np.array([[PAIR_INDEX[t, x] for x in range(N_LOCAL) if x != t] for t in range(N_LOCAL)], dtype=np.int64)
_RIVER_COLUMNS = PAIR_INDEX.astype(np.int64)[:, :, None]
for _columns in (_ALL_COLUMNS, _TURN_COLUMNS, _RIVER_COLUMNS):
    _columns.flags.writeable = False


def board_columns(extra: tuple[int, ...]) -> np.ndarray:
    """Columns consistent with the turn and river given as local indices (0, 1 or 2 of them).

    >>> len(board_columns(())), len(board_columns((5,))), board_columns((5, 9)).tolist()
    (1176, 48, [49])
    """
    if len(extra) == 0:
        return _ALL_COLUMNS
    if any(not 0 <= int(c) < N_LOCAL for c in extra) or len(set(extra)) != len(extra) or len(extra) > 2:
        raise BoardError(f"The turn and river {extra!r} are not 1 or 2 distinct local indices 0..48.")
    if len(extra) == 1:
        return _TURN_COLUMNS[int(extra[0])]
    return _RIVER_COLUMNS[int(extra[0]), int(extra[1])]


def _check_table(table: np.ndarray) -> None:
    if table.shape != (N_PAIRS, N_PAIRS) or table.dtype != np.uint16:
        raise MatchdbError(f"A match table must be a ({N_PAIRS}, {N_PAIRS}) uint16 array; got {table.shape} {table.dtype}.")


def _check_row(row: int) -> int:
    if not 0 <= int(row) < N_PAIRS:
        raise MatchdbError(f"Row {row!r} is out of range; expected 0..{N_PAIRS - 1}.")
    return int(row)


def _check_players(players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 23:
        raise MatchdbError(f"The number of players {players!r} is out of range; expected an integer 2..23.")
    return int(players)


@jit
def _naive(table, row, columns, exponent):
    total = 0.0
    n = 0
    for j in columns:
        w = table[row, j]
        if w != 65535:
            total += (w / 2160.0) ** exponent
            n += 1
    return total / n if n else np.nan


def naive_win_rate(table: np.ndarray, row: int, columns: np.ndarray, players: int = 2) -> float:
    """The article's naive win rate: mean of (W / 2160) ** (players - 1) over the hand's columns.

    ``table`` may be the whole table or any block of its rows (a decoded chunk),
    with ``row`` counted within it. NaN when no column is consistent with the
    hand (it shares a card with the board).
    """
    if table.ndim != 2 or table.shape[1] != N_PAIRS or table.dtype != np.uint16:
        raise MatchdbError(f"Rows of a match table must be (k, {N_PAIRS}) uint16; got {table.shape} {table.dtype}.")
    if not 0 <= int(row) < table.shape[0]:
        raise MatchdbError(f"Row {row!r} is out of range; expected 0..{table.shape[0] - 1}.")
    return float(_naive(table, int(row), columns, _check_players(players) - 1))


@jit
def _naive_all(table, columns, exponent):
    out = np.empty(table.shape[0], dtype=np.float64)
    for row in range(table.shape[0]):
        out[row] = _naive(table, row, columns, exponent)
    return out


def naive_win_rates(table: np.ndarray, columns: np.ndarray, players: int = 2) -> np.ndarray:
    """Naive win rate of every row at once (NaN for rows that share a card with the board)."""
    _check_table(table)
    return _naive_all(table, columns, _check_players(players) - 1)


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
        n_win = 0
        n_tie = 0
        n_loss = 0
        for c in range(n_cols):  # branch-free so that it vectorizes
            h = hero[c]
            v = villain[c]
            valid = (h != 65535) & (v != 65535)
            n_win += valid & (h > v)
            n_tie += valid & (h == v)
            n_loss += valid & (h < v)
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
    if len(columns) != N_PAIRS:
        table = np.ascontiguousarray(table[:, columns])
    win, tie, loss = _hand_vs_weights(table, row, weights)
    total = win + tie + loss
    if total == 0:
        raise MatchdbError("No opponent hand in the range is possible with these cards.")
    return win / total, tie / total, loss / total


#: ``ROWS_OF_CARD[a]`` are the 48 rows holding local card ``a`` (the same pairs as a turn's columns).
ROWS_OF_CARD = _TURN_COLUMNS
_PARALLEL = threading.Lock()  # one parallel kernel at a time: not every numba threading layer is thread-safe
_jit_parallel = numba.njit(cache=True, nogil=True, parallel=True, error_model="numpy")


@_jit_parallel
def _level_sums(table, columns, weights, n_blocks):
    """Per-row weighted (below, equal, valid) sums over columns, ignoring card removal.

    A weighted histogram of each column's W levels and its running sum give,
    for every valid row, the weight of rows strictly below it and level with it
    (itself excluded), and of all valid rows but itself.
    """
    n_rows = table.shape[0]
    n_cols = columns.shape[0]
    win = np.zeros((n_blocks, n_rows))
    tie = np.zeros((n_blocks, n_rows))
    total = np.zeros((n_blocks, n_rows))
    for block in numba.prange(n_blocks):
        level = np.zeros(2161)
        below = np.zeros(2161)
        column = np.empty(n_rows, dtype=np.int64)
        for c in range(block, n_cols, n_blocks):
            j = columns[c]
            level[:] = 0.0
            for k in range(n_rows):
                v = np.int64(table[k, j])
                column[k] = v
                if v != 65535:
                    level[v] += weights[k]
            running = 0.0
            for v in range(2161):
                below[v] = running
                running += level[v]
            for k in range(n_rows):
                v = column[k]
                if v != 65535:
                    w = weights[k]
                    win[block, k] += below[v]
                    tie[block, k] += level[v] - w
                    total[block, k] += running - w
    return win.sum(axis=0), tie.sum(axis=0), total.sum(axis=0)


@_jit_parallel
def _shared_card_counts(table, columns, rows_of_card):
    """For every two rows sharing exactly one card: columns where the first beats / ties the second.

    ``out[a, i, j]`` (i < j) compares rows ``rows_of_card[a, i]`` and
    ``rows_of_card[a, j]`` over ``columns``; both entries must be valid. The
    48 rows of a card are copied once and compared tile by tile, so the work
    runs from cache.
    """
    n_cols = columns.shape[0]
    out = np.zeros((N_LOCAL, 48, 48, 2), dtype=np.int64)
    for a in numba.prange(N_LOCAL):
        block = np.empty((48, n_cols), dtype=np.uint16)
        for i in range(48):
            row = rows_of_card[a, i]
            for c in range(n_cols):
                block[i, c] = table[row, columns[c]]
        for c0 in range(0, n_cols, 512):
            c1 = min(n_cols, c0 + 512)
            for i in range(48):
                first = block[i, c0:c1]
                for j in range(i + 1, 48):
                    second = block[j, c0:c1]
                    beats = 0
                    ties = 0
                    for c in range(c1 - c0):  # 1-d slices: this loop vectorizes
                        u = first[c]
                        v = second[c]
                        beats += (u > v) & (u != 65535)
                        ties += (u == v) & (u != 65535)
                    out[a, i, j, 0] += beats
                    out[a, i, j, 1] += ties
    return out


@jit
def _remove_shared_cards(counts, rows_of_card, columns, weights, pair_a, pair_b, win, tie, total):
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
                beats = counts[a, i, j, 0]
                ties = counts[a, i, j, 1]
                w1 = weights[r1]
                w2 = weights[r2]
                win[r1] -= w2 * beats
                win[r2] -= w1 * (both - beats - ties)
                tie[r1] -= w2 * ties
                tie[r2] -= w1 * ties
                total[r1] -= w2 * both
                total[r2] -= w1 * both


def all_hands_vs_weights(table: np.ndarray, columns: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted (win, tie, total) sums of every row against weighted opponents.

    ``win[h] / total[h]`` is the win probability of hand h (ties separately);
    rows that cannot be dealt have ``total[h] == 0``.
    """
    _check_table(table)
    weights = _check_weights(weights)
    columns = np.asarray(columns, dtype=np.int64)
    with _PARALLEL:
        win, tie, total = _level_sums(table, columns, weights, 2 * numba.get_num_threads())
        counts = _shared_card_counts(table, columns, ROWS_OF_CARD)
    _remove_shared_cards(counts, ROWS_OF_CARD, columns, weights, _PAIR_A, _PAIR_B, win, tie, total)
    return win, tie, total

