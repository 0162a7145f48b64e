"""The numba kernels behind :mod:`matchdb.equity.preflop` (private: call the public functions there)."""

from __future__ import annotations

import numba
import numpy as np

from matchdb.core.pairs import MAX_W, SENTINEL
from matchdb.equity._kernels.bits import MIX1, MIX2, below, high32, low32, popcount, splitmix
from matchdb.jit import jit, jit_parallel

#: Columns of :func:`_random_counts`'s output, per row: heads-up hands below and tied; three-player deals with
#: both opponents below, with none above, and the hero's share in sixths; the weight of the row's columns.
HU_BELOW, HU_TIED, THREE_WIN, THREE_NOT_BEHIND, THREE_SIXTHS, WEIGHT = range(6)


@jit
def _level_histogram(table, row_class, weight, histogram):
    """Add ``weight`` x the count of each W level per class, over every valid entry."""
    for row in range(table.shape[0]):
        target = histogram[row_class[row]]
        for column in range(table.shape[1]):
            v = table[row, column]
            if v != SENTINEL:
                target[v] += weight


@jit_parallel
def _preflop_sample(cols, col_a, col_b, row_class, n_classes, max_opp, draws, seed, plow, phigh, pair_index, n_blocks):
    """Sampled showdowns of every hero row on every column against 1..``max_opp`` random hands.

    For each (column, hero row) ``draws`` deals of ``max_opp`` card-disjoint hands from
    the 45 free cards; the first k of them are the deal against k opponents. Returns
    per block the sums of (share, share squared, share times the first opponent's share)
    per (class, k) and the deal count per class. Each column has its own generator (splitmix64
    seeded by ``seed`` and the column), so
    the figures do not depend on the number of threads.
    """
    n_cols = cols.shape[0]
    n_rows = cols.shape[1]
    sums = np.zeros((n_blocks, n_classes, max_opp, 3))
    counts = np.zeros((n_blocks, n_classes))
    for block in numba.prange(n_blocks):
        deck = np.empty(49, dtype=np.int64)
        for c in range(block, n_cols, n_blocks):
            levels = cols[c]
            state = np.uint64(seed) * MIX2 + np.uint64(c + 1) * MIX1
            # the 47 cards off the column; a partial shuffle from any order deals uniformly
            n = 0
            for x in range(49):
                if x != col_a[c] and x != col_b[c]:
                    deck[n] = x
                    n += 1
            for h in range(n_rows):
                level = levels[h]
                if level == SENTINEL:
                    continue
                a = plow[h]
                b = phigh[h]
                cls = row_class[h]
                for _rep in range(draws):
                    best = -1
                    tied = 0
                    first = 0.0
                    for k in range(max_opp):  # opponent k holds deck[2k], deck[2k + 1]
                        i = 2 * k
                        while i < 2 * k + 2:  # 32 random bits per card; a hero card is redrawn
                            state, z = splitmix(state)
                            for half in range(2):
                                if i == 2 * k + 2:
                                    break
                                bits32 = high32(z) if half == 0 else low32(z)
                                j = i + below(bits32, n - i)
                                card = deck[j]
                                deck[j] = deck[i]
                                deck[i] = card
                                if card != a and card != b:
                                    i += 1
                        v = levels[pair_index[deck[2 * k], deck[2 * k + 1]]]
                        best = max(best, v)
                        if v == level:
                            tied += 1
                        share = 0.0
                        if best < level:
                            share = 1.0
                        elif best == level:
                            share = 1.0 / (1 + tied)
                        if k == 0:
                            first = share
                        sums[block, cls, k, 0] += share
                        sums[block, cls, k, 1] += share * share
                        sums[block, cls, k, 2] += share * first
                    counts[block, cls] += 1.0
    return sums, counts


@jit
def _weighted_histogram(columns, weights, row_class, orbit, histogram):
    """Add ``orbit`` x the column's weight to the count of each W level per class, over the valid entries of ``columns``."""
    for c in range(columns.shape[0]):
        levels = columns[c]
        w = orbit * weights[c]
        for row in range(columns.shape[1]):
            v = levels[row]
            if v != SENTINEL:
                histogram[row_class[row], v] += w


_ONE = np.uint64(1)


@jit
def _pairs_without(n_set, deg, paths, masks, squares, a, b, holds):
    """Card-disjoint pairs of the set's hands that hold neither card a nor card b.

    The set is a graph on the cards: ``n_set`` hands, ``deg[c]`` hands holding card c,
    ``paths[c]`` the sum of ``deg`` over c's neighbours, ``masks[c]`` c's neighbours as bits,
    ``squares`` the sum over cards of C(deg, 2) (pairs of hands sharing a card); ``holds`` is 1
    when the hand {a, b} itself is in the set. Taking away the hands that hold a or b leaves
    n = n_set - deg a - deg b + holds hands; a card c other than a, b loses e_c of its hands
    (its hands with a and with b), so the pairs sharing a card are
    sum over c of C(deg c - e_c, 2) = C(deg c, 2) - e_c deg c + e_c (e_c + 1) / 2, summed in closed form.
    """
    da = np.int64(deg[a])
    db = np.int64(deg[b])
    n = n_set - da - db + holds
    both = popcount(masks[a] & masks[b])  # cards joined to both a and b: e_c = 2
    sharing = (squares - da * (da - 1) // 2 - db * (db - 1) // 2
               - (np.int64(paths[a]) - holds * db) - (np.int64(paths[b]) - holds * da)
               + (da - holds) + (db - holds) + both)
    return n * (n - 1) // 2 - sharing


@jit
def _add_hand(u, v, deg, paths, masks, joined, squares):
    """Add the hand {u, v} to a graph (see :func:`_pairs_without`); returns the new sum of C(deg, 2)."""
    ru = joined[u]
    rv = joined[v]
    for c in range(ru.shape[0]):  # every neighbour of u or v gains a neighbour degree
        paths[c] += ru[c] + rv[c]
    squares += deg[u] + deg[v]
    deg[u] += 1
    deg[v] += 1
    paths[u] += deg[v]
    paths[v] += deg[u]
    ru[v] = 1
    rv[u] = 1
    masks[u] |= _ONE << np.uint64(v)
    masks[v] |= _ONE << np.uint64(u)
    return squares


@jit
def _random_counts(columns, weights, low, high, out):
    """Every row's exact counts against one and against two random hands on each of ``columns``, weighted.

    ``columns[c]`` holds the W level of every row on one column (a whole board); ``low`` and
    ``high`` are each row's two local cards. Per column the valid rows are swept in the order of
    their level, ties together, keeping the hands below as a graph on the cards (degrees, sums
    of the neighbours' degrees, neighbour masks). For a row h = {a, b} the hands below that
    share no card with it number n_below - deg a - deg b (heads-up wins), and the card-disjoint
    pairs of them (both of two opponents below) come from :func:`_pairs_without`; the same on
    the hands of its tie group and on the hands below or tied give the deals where opponents tie
    it. The hero's three-player share in sixths is 6 x both below + 3 x one tied, one below + 2 x
    both tied = 3 x none above + 3 x both below - both tied. ``out`` (rows x 6, int64) gains the
    column's weight times each figure (:data:`HU_BELOW` ... :data:`WEIGHT`).
    """
    n_cols, n_rows = columns.shape
    order = np.empty(n_rows, dtype=np.int64)
    start = np.zeros(MAX_W + 2, dtype=np.int64)
    deg = np.zeros(64, dtype=np.int32)
    paths = np.zeros(64, dtype=np.int32)
    masks = np.zeros(64, dtype=np.uint64)
    joined = np.zeros((64, 64), dtype=np.int32)
    group_deg = np.zeros(64, dtype=np.int32)
    group_paths = np.zeros(64, dtype=np.int32)
    group_masks = np.zeros(64, dtype=np.uint64)
    group_joined = np.zeros((64, 64), dtype=np.int32)
    for c in range(n_cols):
        levels = columns[c]
        w = weights[c]
        # the valid rows in the order of their level (a counting sort)
        start[:] = 0
        valid = 0
        for r in range(n_rows):
            v = levels[r]
            if v != SENTINEL:
                start[v + 1] += 1
                valid += 1
        for i in range(1, MAX_W + 2):
            start[i] += start[i - 1]
        for r in range(n_rows):
            v = levels[r]
            if v != SENTINEL:
                order[start[v]] = r
                start[v] += 1
        deg[:] = 0
        paths[:] = 0
        masks[:] = 0
        joined[:, :] = 0
        squares = 0
        n_below = 0
        i = 0
        while i < valid:
            level = levels[order[i]]
            j = i + 1
            while j < valid and levels[order[j]] == level:
                j += 1
            size = j - i
            if size == 1:  # tied with nobody: no tied deals
                r = order[i]
                a = low[r]
                b = high[r]
                wins = _pairs_without(n_below, deg, paths, masks, squares, a, b, 0)
                out[r, HU_BELOW] += w * (n_below - deg[a] - deg[b])
                out[r, THREE_WIN] += w * wins
                out[r, THREE_NOT_BEHIND] += w * wins
                out[r, THREE_SIXTHS] += w * 6 * wins
                out[r, WEIGHT] += w
                squares = _add_hand(a, b, deg, paths, masks, joined, squares)
                n_below += 1
            else:
                group_squares = 0
                for k in range(i, j):
                    r = order[k]
                    group_squares = _add_hand(low[r], high[r], group_deg, group_paths, group_masks, group_joined, group_squares)
                for k in range(i, j):
                    r = order[k]
                    a = low[r]
                    b = high[r]
                    wins = _pairs_without(n_below, deg, paths, masks, squares, a, b, 0)
                    both_tied = _pairs_without(size, group_deg, group_paths, group_masks, group_squares, a, b, 1)
                    out[r, HU_BELOW] += w * (n_below - deg[a] - deg[b])
                    out[r, HU_TIED] += w * (size + 1 - group_deg[a] - group_deg[b])
                    out[r, THREE_WIN] += w * wins
                    out[r, THREE_SIXTHS] += w * (3 * wins - both_tied)
                    out[r, WEIGHT] += w
                for k in range(i, j):
                    r = order[k]
                    squares = _add_hand(low[r], high[r], deg, paths, masks, joined, squares)
                n_below += size
                for k in range(i, j):
                    r = order[k]
                    a = low[r]
                    b = high[r]
                    not_behind = _pairs_without(n_below, deg, paths, masks, squares, a, b, 1)
                    out[r, THREE_NOT_BEHIND] += w * not_behind
                    out[r, THREE_SIXTHS] += w * 3 * not_behind
                for k in range(i, j):  # the group's graph, cleared card by card for the next group
                    r = order[k]
                    for x in (low[r], high[r]):
                        group_deg[x] = 0
                        group_paths[x] = 0
                        group_masks[x] = 0
                        group_joined[x, :] = 0
            i = j
