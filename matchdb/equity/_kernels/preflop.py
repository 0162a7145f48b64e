"""The numba kernels behind :mod:`matchdb.equity.preflop` (private: call the public functions there)."""

from __future__ import annotations

import numba
import numpy as np

from matchdb.core.pairs import SENTINEL
from matchdb.equity._kernels.bits import MIX1, MIX2, below, high32, low32, splitmix
from matchdb.jit import jit, jit_parallel


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
