"""The numba kernels behind :mod:`matchdb.equity.heads_up` (private: call the public functions there).

:mod:`matchdb.equity.heads_up` loads this module on first use, so a process that asks
one question can answer through numpy and never load numba (about 0.4 s).
"""

from __future__ import annotations

import numba
import numpy as np

from matchdb.core.pairs import N_LEVELS, N_LOCAL, PAIR_HIGH, PAIR_LOW, SENTINEL
from matchdb.equity._kernels.bits import BITS, bit_index, lowest_bit
from matchdb.jit import jit, jit_parallel

#: ROW_MASKS[r] is the mask of the two cards of row r (:data:`matchdb.equity._kernels.bits.BITS`).
ROW_MASKS = (BITS[PAIR_LOW] | BITS[PAIR_HIGH]).astype(np.uint64)
ROW_MASKS.flags.writeable = False


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
            for v in range(N_LEVELS):  # type: ignore[assignment]  # numba unifies the loop index with the int64 above
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


@jit
def _pair_counts(first, second):
    """(wins, ties) of row ``first`` against row ``second`` over the columns where both are valid.

    ``2 * wins + ties`` is :func:`_pair_score`. Counted in 16 bits, so the loop
    runs on 16 columns per vector instruction, as fast as :func:`_pair_score`
    (measured): an equality test takes the place of its second comparison.
    """
    wins = np.uint16(0)
    ties = np.uint16(0)
    for c in range(first.shape[0]):
        u = first[c]
        v = second[c]
        valid = u != SENTINEL  # v == SENTINEL makes both comparisons false
        wins = np.uint16(wins + np.uint16(valid & (u > v)))
        ties = np.uint16(ties + np.uint16(valid & (u == v)))
    return wins, ties


@jit
def _pair_ties(first, second):
    """The ties of :func:`_pair_counts` alone: one comparison a column, about half its time (measured)."""
    ties = np.uint16(0)
    for c in range(first.shape[0]):
        u = first[c]
        ties = np.uint16(ties + np.uint16((u == second[c]) & (u != SENTINEL)))
    return ties


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


# -- range against range ----------------------------------------------------------------------


@jit
def _columns_of_pairs(columns, pair_a, pair_b):
    """(columns holding each card, columns equal to each pair of cards) among ``columns``."""
    touching = np.zeros(N_LOCAL, dtype=np.int64)
    exact = np.zeros((N_LOCAL, N_LOCAL), dtype=np.int64)
    for c in range(columns.shape[0]):
        x = pair_a[columns[c]]
        y = pair_b[columns[c]]
        touching[x] += 1
        touching[y] += 1
        exact[x, y] += 1
        exact[y, x] += 1
    return touching, exact


@jit
def _against_uniform(board, columns, hero_w, rows_of_card, plow, phigh, uniform, ties):
    """(score, deals, doubles) of a hero range against a uniformly random villain (weight 1 each), card removal exact.

    Against every other valid row a row's doubled score is its W (docs/contract.md)
    and every column has the same number of valid rows, so the sums over columns come
    straight from the hero rows; the villain rows sharing one card with a hero row are
    then taken out, each pair compared once (16 columns per vector instruction), the
    columns valid for both counted from the cards. ``uniform``: the hero rows too
    have one weight, so a pair's two scores add up to its runouts whoever wins:
    no comparison is needed but for the ties, and those only with ``ties``
    (``doubles`` is 0 without).

    ``doubles`` is what a count of ties over every pair of valid rows (``_level_ties``)
    holds that no deal does: each hero row level with itself on its valid
    columns, and the ties of the pairs of rows sharing one card, hero weighted.
    The hero range's weighted ties are that count less ``doubles``.
    """
    n_rows, n_cols = board.shape
    n_valid = 0
    for k in range(n_rows):
        n_valid += board[k, 0] != SENTINEL
    touching, exact = _columns_of_pairs(columns, plow, phigh)
    score = 0.0
    deals = 0.0
    doubles = 0.0
    for h in range(n_rows):
        w = hero_w[h]
        if w == 0.0:
            continue
        twice = 0
        count = 0
        for c in range(n_cols):
            v = np.int64(board[h, c])
            valid = v != SENTINEL
            twice += v * valid
            count += valid
        score += w * twice / 2.0
        deals += w * count * (n_valid - 1.0)
        doubles += w * count
    # villains sharing one card with a hero hand: compare each such pair once
    for a in range(N_LOCAL):
        for i in range(N_LOCAL - 1):
            r1 = rows_of_card[a, i]
            x = plow[r1] + phigh[r1] - a
            w1 = hero_w[r1]
            for j in range(i + 1, N_LOCAL - 1):
                r2 = rows_of_card[a, j]
                w2 = hero_w[r2]
                if w1 == 0.0 and w2 == 0.0:
                    continue
                y = plow[r2] + phigh[r2] - a
                both = n_cols - touching[a] - touching[x] - touching[y] + exact[a, x] + exact[a, y] + exact[x, y]
                if both <= 0:
                    continue
                deals -= (w1 + w2) * both
                if uniform:  # w1 == w2: w1 x first + w2 x (both - first)
                    score -= w1 * both
                    if ties:
                        doubles += (w1 + w2) * _pair_ties(board[r1], board[r2])
                    continue
                wins, tied = _pair_counts(board[r1], board[r2])
                first = (2 * wins + tied) / 2.0  # r1 against r2; r2 gets what is left
                score -= w1 * first + w2 * (both - first)
                doubles += (w1 + w2) * tied
    return score, deals, doubles


#: Words of a bitmap with one bit per W level, and one spare word where the sentinel's bit goes.
_LEVEL_WORDS = (N_LEVELS + 63) // 64


@jit
def _level_ties(board, rows, weights, uniform):
    """Σ over the board's columns and the given rows of weight x the number of valid rows level with the row (itself included).

    A column's levels decode into their sizes: listed upwards, a level of size
    s above b rows is W = 2b + s - 1 (docs/contract.md), so s = W - 2b + 1 and
    the next level starts at b + s. One pass over the table, row by row, marks
    each column's levels in a bitmap (no transposed copy, no branch); each
    column's set bits are then read upwards. ``uniform``: every row has
    ``weights[0]`` (a random hand), so a column's sum is its sizes' squares.
    """
    n_rows, n_cols = board.shape
    spare = np.uint64(_LEVEL_WORDS)
    present = np.zeros((n_cols, _LEVEL_WORDS + 1), dtype=np.uint64)
    for r in range(n_rows):
        row = board[r]
        for c in range(n_cols):
            entry = np.uint64(row[c])  # the sentinel's bit goes to the spare word
            present[c, min(entry >> np.uint64(6), spare)] |= np.uint64(1) << (entry & np.uint64(63))
    size = np.zeros(N_LEVELS, dtype=np.int64)
    total = 0.0
    for c in range(n_cols):
        below = 0
        squares = 0
        for word_index in range(_LEVEL_WORDS):
            word = present[c, word_index]
            while word:
                low = lowest_bit(word)
                word ^= low
                v = word_index * 64 + bit_index(low)
                s = v - 2 * below + 1
                size[v] = s
                squares += s * s
                below += s
        if uniform:
            total += weights[0] * squares
            continue
        for i in range(rows.shape[0]):
            level = np.int64(board[rows[i], c])
            if level != SENTINEL:
                total += weights[i] * size[level]
    return total


@jit
def _ties_by_rows(board, rows, weights):
    """:func:`_level_ties` for a few rows: each compared with every row on every column (16 per vector instruction).

    About 55 µs a row on a flop, against about 1.4 ms for the pass over the table.
    """
    n_rows, n_cols = board.shape
    total = 0.0
    for i in range(rows.shape[0]):
        hero = board[rows[i]]
        count = 0
        for k in range(n_rows):
            other = board[k]
            level = np.uint16(0)
            for c in range(n_cols):
                u = hero[c]
                level = np.uint16(level + np.uint16((u == other[c]) & (u != SENTINEL)))
            count += int(level)
        total += weights[i] * count
    return total


@jit
def _range_pairs(board, hero_rows, hero_w, villain_rows, villain_w, row_masks):
    """(score, ties, deals): every hero row against every card-disjoint villain row, weighted, over the board's columns.

    Counts are 16-bit (at most 1,176), so the inner loop runs on 16 columns per vector instruction.
    """
    n_cols = board.shape[1]
    score = 0.0
    tied = 0.0
    deals = 0.0
    for i in range(hero_rows.shape[0]):
        h = hero_rows[i]
        hero = board[h]
        twice = 0.0
        even = 0.0
        count = 0.0
        for m in range(villain_rows.shape[0]):
            k = villain_rows[m]
            if row_masks[h] & row_masks[k]:
                continue
            other = board[k]
            wins = np.uint16(0)
            ties = np.uint16(0)
            both = np.uint16(0)
            for c in range(n_cols):
                u = hero[c]
                v = other[c]
                valid = (u != SENTINEL) & (v != SENTINEL)
                wins = np.uint16(wins + np.uint16(valid & (u > v)))
                ties = np.uint16(ties + np.uint16(valid & (u == v)))
                both = np.uint16(both + np.uint16(valid))
            twice += villain_w[m] * (2 * wins + ties)
            even += villain_w[m] * ties
            count += villain_w[m] * both
        score += hero_w[i] * twice / 2.0
        tied += hero_w[i] * even
        deals += hero_w[i] * count
    return score, tied, deals


@jit
def _level_walk(tt, hero_w, villain_w):
    """(Σ hero x villain weight x score, Σ of them x tie, Σ of the weights) over every pair of rows valid on a
    column, including pairs that share a card and each row with itself (``_shared_pairs`` takes those away).

    ``tt[j, m]`` is W of row m on column j. Each column's hero and villain
    weight is summed per W level, with a bitmap of the levels present; the
    levels (about 75 of the 2,161) are then visited in order through the
    bitmap: a level's hero weight scores the villain weight below it and
    half the villain weight level with it.
    """
    n_cols, n = tt.shape
    n_words = (N_LEVELS + 63) // 64
    level_h = np.zeros(n_words * 64)
    level_v = np.zeros(n_words * 64)
    present = np.zeros(n_words, dtype=np.uint64)
    s_sum = 0.0
    t_sum = 0.0
    d_sum = 0.0
    for j in range(n_cols):
        col = tt[j]
        last = -1
        acc_h = 0.0
        acc_v = 0.0
        for m in range(n):  # rows of one level often come together: sum them before touching memory
            v = np.int64(col[m])
            if v == SENTINEL:
                continue
            if v != last:
                if last >= 0:
                    level_h[last] += acc_h
                    level_v[last] += acc_v
                last = v  # type: ignore[assignment]  # numba: an int64 level
                acc_h = 0.0
                acc_v = 0.0
                present[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
            acc_h += hero_w[m]
            acc_v += villain_w[m]
        if last >= 0:
            level_h[last] += acc_h
            level_v[last] += acc_v
        below = 0.0
        hero_total = 0.0
        for word_index in range(n_words):
            word = present[word_index]
            present[word_index] = 0
            while word:
                low = lowest_bit(word)
                word ^= low
                v = word_index * 64 + bit_index(low)
                h = level_h[v]
                w = level_v[v]
                s_sum += h * (below + 0.5 * w)
                t_sum += h * w
                below += w
                hero_total += h
                level_h[v] = 0.0
                level_v[v] = 0.0
        d_sum += hero_total * below
    return s_sum, t_sum, d_sum


@jit
def _shared_pairs(board, columns, hero_w, villain_w, rows_of_card, plow, phigh):
    """(Σ hero x villain weight x score, Σ of them x ties, Σ weight x runouts) over the pairs of rows that share one card,
    and of each row with itself, over the runouts where both are valid: what ``_level_walk`` counted
    but no deal holds.

    One comparison per unordered pair serves both orders (the second's score
    is the runouts less the first's); 16-bit counters, so it vectorises.
    """
    n_cols = board.shape[1]
    touching, exact = _columns_of_pairs(columns, plow, phigh)
    score = 0.0
    tied = 0.0
    deals = 0.0
    for a in range(N_LOCAL):
        for i in range(N_LOCAL - 1):
            h = rows_of_card[a, i]
            x = plow[h] + phigh[h] - a
            for q in range(i + 1, N_LOCAL - 1):
                k = rows_of_card[a, q]
                forward = hero_w[h] * villain_w[k]
                backward = hero_w[k] * villain_w[h]
                if forward == 0.0 and backward == 0.0:
                    continue
                y = plow[k] + phigh[k] - a
                both = n_cols - touching[a] - touching[x] - touching[y] + exact[a, x] + exact[a, y] + exact[x, y]
                if both <= 0:
                    continue
                wins, ties = _pair_counts(board[h], board[k])
                first = (2 * wins + ties) / 2.0  # h's wins and half ties against k
                score += forward * first + backward * (both - first)
                tied += (forward + backward) * ties
                deals += (forward + backward) * both
    for h in range(board.shape[0]):
        same = hero_w[h] * villain_w[h]
        if same == 0.0:
            continue
        valid = 0
        for c in range(n_cols):
            valid += board[h, c] != SENTINEL
        score += same * valid / 2.0
        tied += same * valid
        deals += same * valid
    return score, tied, deals
