"""The numba kernels behind :mod:`matchdb.equity.matchups` (private: call the public functions there)."""

from __future__ import annotations

import numpy as np

from matchdb.core.pairs import SENTINEL
from matchdb.jit import jit


@jit
def _pair_counts(columns, starts, weights, win, tie):
    """``win[h, v]`` and ``tie[h, v]`` (h < v) add each column's weight where row h beats / ties row v.

    ``columns[c]`` holds the W level of every row on selected column c; the columns come in
    groups of equal weight (``starts``, ``weights``). For one row h the comparisons with all
    later rows run along a column at once, counted in 16 bits (16 rows per vector instruction),
    four columns at a time (the counters read and written once per four columns); a column
    holding a card of row h is skipped, and a row that shares a card with the column cannot
    beat or tie h (its entry is the sentinel, above every level).
    """
    n_rows = columns.shape[1]
    win16 = np.zeros(n_rows, dtype=np.uint16)
    tie16 = np.zeros(n_rows, dtype=np.uint16)
    valid = np.empty(columns.shape[0], dtype=np.int64)
    for h in range(n_rows - 1):
        m = n_rows - h - 1
        win_row = win[h, h + 1:]
        tie_row = tie[h, h + 1:]
        w16 = win16[:m]
        t16 = tie16[:m]
        for g in range(weights.shape[0]):
            n = 0
            for c in range(starts[g], starts[g + 1]):
                if columns[c, h] != SENTINEL:
                    valid[n] = c
                    n += 1
            if n == 0:
                continue
            w16[:] = 0
            t16[:] = 0
            k = 0
            while k + 4 <= n:
                c0, c1, c2, c3 = valid[k], valid[k + 1], valid[k + 2], valid[k + 3]
                x0, x1, x2, x3 = columns[c0, h], columns[c1, h], columns[c2, h], columns[c3, h]
                l0, l1, l2, l3 = columns[c0, h + 1:], columns[c1, h + 1:], columns[c2, h + 1:], columns[c3, h + 1:]
                for i in range(m):  # i counts from 0, so no negative-index check stops vectorisation
                    y0, y1, y2, y3 = l0[i], l1[i], l2[i], l3[i]
                    w16[i] = np.uint16(w16[i] + np.uint16(x0 > y0) + np.uint16(x1 > y1) + np.uint16(x2 > y2) + np.uint16(x3 > y3))
                    t16[i] = np.uint16(t16[i] + np.uint16(x0 == y0) + np.uint16(x1 == y1) + np.uint16(x2 == y2)
                                       + np.uint16(x3 == y3))
                k += 4
            while k < n:
                x = columns[valid[k], h]
                later = columns[valid[k], h + 1:]
                for i in range(m):
                    y = later[i]
                    w16[i] = np.uint16(w16[i] + np.uint16(x > y))
                    t16[i] = np.uint16(t16[i] + np.uint16(x == y))
                k += 1
            weight = np.int32(weights[g])
            for i in range(m):
                win_row[i] += weight * np.int32(w16[i])
                tie_row[i] += weight * np.int32(t16[i])


@jit
def _add_to_hands(win, tie, row_hand, row_cards, column_weight, card_weight, total_weight, orbit, hand_win, hand_lose,
                  hand_tie):
    """Add one table's counts, times its orbit size, to the real hands of its rows.

    For rows h < v holding four distinct cards, with H and V their hands: ``hand_win[H, V]`` gets
    h's wins, ``hand_lose[H, V]`` v's wins (the weight of the columns valid for both, less h's
    wins and the ties) and ``hand_tie[H, V]`` the ties; all three are read along H's row, so the
    writes stay in a few kilobytes (v's wins against h are ``hand_lose`` transposed, and the
    ties count both ways). The weight valid for both is the total less the columns holding one
    of the four cards, by inclusion and exclusion (``card_weight[x]``: columns holding card x;
    ``column_weight[x, y]``: the column {x, y}).
    """
    n_rows = win.shape[0]
    for h in range(n_rows - 1):
        a = row_cards[h, 0]
        b = row_cards[h, 1]
        wins = hand_win[row_hand[h]]
        loses = hand_lose[row_hand[h]]
        ties = hand_tie[row_hand[h]]
        base = total_weight - card_weight[a] - card_weight[b] + column_weight[a, b]
        with_a = column_weight[a]
        with_b = column_weight[b]
        for v in range(h + 1, n_rows):
            c = row_cards[v, 0]
            d = row_cards[v, 1]
            if a == c or a == d or b == c or b == d:
                continue
            both = base - card_weight[c] - card_weight[d] + with_a[c] + with_a[d] + with_b[c] + with_b[d] + column_weight[c, d]
            w = win[h, v]
            t = tie[h, v]
            other = row_hand[v]
            wins[other] += orbit * w
            loses[other] += orbit * (both - w - t)
            ties[other] += orbit * t


@jit
def _row_sums_and_ties(matrix, ties, rows, weights):
    """(``matrix[rows] @ weights``, ``ties[rows] @ weights``) in one pass; the first sum as :func:`_row_sums` adds it."""
    out = np.zeros(rows.shape[0])
    tied = np.zeros(rows.shape[0])
    for i in range(rows.shape[0]):
        row = matrix[rows[i]]
        tie = ties[rows[i]]
        total = 0.0
        even = 0.0
        for j in range(weights.shape[0]):
            total += row[j] * weights[j]
            even += tie[j] * weights[j]
        out[i] = total
        tied[i] = even
    return out, tied


@jit
def _row_sums(matrix, rows, weights):
    """``matrix[rows] @ weights``: one thread, so a busy machine never keeps it waiting for BLAS's second thread."""
    out = np.zeros(rows.shape[0])
    for i in range(rows.shape[0]):
        row = matrix[rows[i]]
        total = 0.0
        for j in range(weights.shape[0]):
            total += row[j] * weights[j]
        out[i] = total
    return out
