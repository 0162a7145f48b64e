"""The numba kernels behind :mod:`matchdb.equity.heads_up` (private: call the public functions there).

:mod:`matchdb.equity.heads_up` loads this module on first use, so a process that asks
one question can answer through numpy and never load numba (about 0.4 s).
"""

from __future__ import annotations

import numba
import numpy as np

from matchdb.jit import jit, jit_parallel
from matchdb.core.pairs import N_LEVELS, N_LOCAL, SENTINEL


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


@jit
def _naive_all(table, columns, powers):
    out = np.empty(table.shape[0], dtype=np.float64)
    for row in range(table.shape[0]):
        out[row] = _naive(table, row, columns, powers)
    return out


@jit
def _row_counts(hero, villain):
    """(win, tie, loss) counts of row ``hero`` against row ``villain`` over the columns where both are valid.

    16-bit counters (a count never exceeds the 1,176 columns) let the loop run
    on 16 columns per vector instruction; int64 counters would take 4.
    """
    n_win = np.uint16(0)
    n_tie = np.uint16(0)
    n_loss = np.uint16(0)
    for c in range(hero.shape[0]):  # branch-free so that it vectorizes
        h = hero[c]
        v = villain[c]
        valid = (h != SENTINEL) & (v != SENTINEL)
        n_win = np.uint16(n_win + np.uint16(valid & (h > v)))
        n_tie = np.uint16(n_tie + np.uint16(valid & (h == v)))
        n_loss = np.uint16(n_loss + np.uint16(valid & (h < v)))
    return n_win, n_tie, n_loss


@jit
def _hand_vs_weights(table, row, weights):
    """Weighted (win, tie, loss) sums of hand ``row`` against rows with weight, over all of ``table``'s columns."""
    hero = table[row]
    win = 0.0
    tie = 0.0
    loss = 0.0
    for k in range(table.shape[0]):
        w = weights[k]
        if w == 0.0:
            continue
        n_win, n_tie, n_loss = _row_counts(hero, table[k])
        win += w * n_win
        tie += w * n_tie
        loss += w * n_loss
    return win, tie, loss


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
