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

import numpy as np

from matchdb.cards import COLLISION, N_LOCAL, N_PAIRS, PAIR_INDEX, PAIRS
from matchdb.errors import BoardError, MatchdbError
from matchdb.evaluator import jit

__all__ = ["board_columns", "naive_win_rate", "naive_win_rates", "hand_vs_weights", "all_hands_vs_weights"]

_PAIR_A = PAIRS[:, 0].astype(np.int64)
_PAIR_B = PAIRS[:, 1].astype(np.int64)
_ALL_COLUMNS = np.arange(N_PAIRS, dtype=np.int64)


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
        turn = int(extra[0])
        return np.array([PAIR_INDEX[turn, x] for x in range(N_LOCAL) if x != turn], dtype=np.int64)
    return np.array([PAIR_INDEX[int(extra[0]), int(extra[1])]], dtype=np.int64)


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
def _hand_vs_weights(table, row, columns, weights):
    """Weighted (win, tie, loss) sums of hand ``row`` against rows with weight, over columns."""
    hero = np.empty(columns.shape[0], dtype=np.int64)
    for c in range(columns.shape[0]):
        hero[c] = table[row, columns[c]]
    win = 0.0
    tie = 0.0
    loss = 0.0
    for k in range(table.shape[0]):
        w = weights[k]
        if w == 0.0:
            continue
        n_win = 0
        n_tie = 0
        n_loss = 0
        for c in range(columns.shape[0]):
            h = hero[c]
            if h == 65535:
                continue
            v = table[k, columns[c]]
            if v == 65535:
                continue
            if h > v:
                n_win += 1
            elif h == v:
                n_tie += 1
            else:
                n_loss += 1
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
    win, tie, loss = _hand_vs_weights(table, row, columns, weights)
    total = win + tie + loss
    if total == 0:
        raise MatchdbError("No opponent hand in the range is possible with these cards.")
    return win / total, tie / total, loss / total


@jit
def _all_hands_vs_weights(table, columns, weights, pair_a, pair_b):
    """Per-row weighted (win, tie, total) sums against weighted opponents, all rows at once.

    For each column: counting-sort the valid rows by W, then sweep the levels
    upwards keeping the opponent weight below, in all and per card, so that
    card removal is exact by inclusion-exclusion (a hand sharing one card with
    the hero is subtracted once; the hero itself, sharing both, is added back).
    """
    n_rows = table.shape[0]
    win = np.zeros(n_rows)
    tie = np.zeros(n_rows)
    total = np.zeros(n_rows)
    level_start = np.zeros(2162, dtype=np.int64)
    order = np.empty(n_rows, dtype=np.int64)
    below_card = np.zeros(49)
    group_card = np.zeros(49)
    card_total = np.zeros(49)
    for c in range(columns.shape[0]):
        column = table[:, columns[c]]
        level_start[:] = 0
        col_total = 0.0
        card_total[:] = 0.0
        for k in range(n_rows):
            v = column[k]
            if v != 65535:
                level_start[v + 1] += 1
                w = weights[k]
                col_total += w
                card_total[pair_a[k]] += w
                card_total[pair_b[k]] += w
        for v in range(2161):
            level_start[v + 1] += level_start[v]
        n_valid = level_start[2161]
        for k in range(n_rows):
            v = column[k]
            if v != 65535:
                order[level_start[v]] = k
                level_start[v] += 1
        # level_start[v] is now the end of level v; sweep groups of equal W
        below = 0.0
        below_card[:] = 0.0
        g0 = 0
        while g0 < n_valid:
            v = column[order[g0]]
            g1 = g0
            group = 0.0
            while g1 < n_valid and column[order[g1]] == v:
                k = order[g1]
                w = weights[k]
                group += w
                group_card[pair_a[k]] += w
                group_card[pair_b[k]] += w
                g1 += 1
            for g in range(g0, g1):
                k = order[g]
                a = pair_a[k]
                b = pair_b[k]
                w_self = weights[k]
                win[k] += below - below_card[a] - below_card[b]
                tie[k] += group - group_card[a] - group_card[b] + w_self
                total[k] += col_total - card_total[a] - card_total[b] + w_self
            for g in range(g0, g1):
                k = order[g]
                group_card[pair_a[k]] = 0.0
                group_card[pair_b[k]] = 0.0
                below_card[pair_a[k]] += weights[k]
                below_card[pair_b[k]] += weights[k]
            below += group
            g0 = g1
    return win, tie, total


def all_hands_vs_weights(table: np.ndarray, columns: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted (win, tie, total) sums of every row against weighted opponents.

    ``win[h] / total[h]`` is the win probability of hand h (ties separately);
    rows that cannot be dealt have ``total[h] == 0``.
    """
    _check_table(table)
    weights = _check_weights(weights)
    return _all_hands_vs_weights(table, columns, weights, _PAIR_A, _PAIR_B)

