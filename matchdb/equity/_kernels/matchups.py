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
    later rows run along a column at once, counted in 16 bits (16 rows per vector instruction);
    a row holding a card of the column is skipped, and one that the other holds cannot beat or
    tie (its entry is the sentinel, above every level).
    """
    n_rows = columns.shape[1]
    win16 = np.zeros(n_rows, dtype=np.uint16)
    tie16 = np.zeros(n_rows, dtype=np.uint16)
    for h in range(n_rows - 1):
        m = n_rows - h - 1
        win_row = win[h, h + 1:]
        tie_row = tie[h, h + 1:]
        w16 = win16[:m]
        t16 = tie16[:m]
        for g in range(weights.shape[0]):
            w16[:] = 0
            t16[:] = 0
            for c in range(starts[g], starts[g + 1]):
                x = columns[c, h]
                if x == SENTINEL:
                    continue
                later = columns[c, h + 1:]
                for i in range(m):  # i counts from 0, so no negative-index check stops vectorisation
                    y = later[i]
                    w16[i] = np.uint16(w16[i] + np.uint16(x > y))
                    t16[i] = np.uint16(t16[i] + np.uint16(x == y))
            weight = np.int32(weights[g])
            for i in range(m):
                win_row[i] += weight * np.int32(w16[i])
                tie_row[i] += weight * np.int32(t16[i])


@jit
def _add_to_classes(win, tie, row_hand, row_cards, class_of, class_of_t, column_weight, card_weight, total_weight, orbit,
                    class_win, class_tie):
    """Add one table's counts, times its orbit size, to the ordered matchup classes of its rows' real hands.

    For rows h < v holding four distinct cards: the class of (h's hand, v's hand) gets h's wins
    and the ties, the class of (v's hand, h's hand) gets v's wins (the weight of the columns
    valid for both, less h's wins and the ties) and the ties. The weight valid for both is the
    total less the columns holding one of the four cards, by inclusion and exclusion
    (``card_weight[x]``: columns holding card x; ``column_weight[x, y]``: the column {x, y}).
    ``class_of_t`` is ``class_of`` transposed, so that both classes of h's pairs are read along rows.
    """
    n_rows = win.shape[0]
    for h in range(n_rows - 1):
        a = row_cards[h, 0]
        b = row_cards[h, 1]
        forward = class_of[row_hand[h]]
        backward = class_of_t[row_hand[h]]
        for v in range(h + 1, n_rows):
            c = row_cards[v, 0]
            d = row_cards[v, 1]
            if a == c or a == d or b == c or b == d:
                continue
            both = (total_weight - card_weight[a] - card_weight[b] - card_weight[c] - card_weight[d]
                    + column_weight[a, b] + column_weight[a, c] + column_weight[a, d]
                    + column_weight[b, c] + column_weight[b, d] + column_weight[c, d])
            w = np.int64(win[h, v])
            t = np.int64(tie[h, v])
            k = forward[row_hand[v]]
            class_win[k] += orbit * w
            class_tie[k] += orbit * t
            k = backward[row_hand[v]]
            class_win[k] += orbit * (both - w - t)
            class_tie[k] += orbit * t


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
