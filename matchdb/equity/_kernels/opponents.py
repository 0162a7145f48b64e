"""The numba kernel behind :func:`matchdb.equity.opponents.independent_outcome` (private: call that function)."""

from __future__ import annotations

from matchdb.core.pairs import SENTINEL
from matchdb.jit import jit


@jit
def _independent(cols, hero, weights, out):
    """The article's formula with beliefs: per column each opponent's chance to be below or tied, multiplied.

    For every column valid for the hero and every opponent i: below_i, tied_i and all_i,
    the weight of his hands below, level with (the hero's own row excluded) and any level,
    over the rows valid on the column (the hero's cards not removed, as in the article).
    ``out`` gets the sums over columns of prod below/all, prod (below + tied)/all,
    prod (below + tied/2)/all, and the number of columns. A column on which some
    opponent can hold no hand of his range (a known hand that shares a card with
    the turn or river) is a runout that cannot happen: it is left out.
    """
    k = weights.shape[0]
    for c in range(cols.shape[0]):
        levels = cols[c]
        level = levels[hero]
        if level == SENTINEL:
            continue
        p_win = 1.0
        p_noloss = 1.0
        p_share = 1.0
        possible = True
        for i in range(k):
            below = 0.0
            tied = 0.0
            total = 0.0
            w = weights[i]
            for r in range(levels.shape[0]):
                v = levels[r]
                if v == SENTINEL or r == hero:
                    continue
                total += w[r]
                if v < level:
                    below += w[r]
                elif v == level:
                    tied += w[r]
            if total <= 0.0:
                possible = False
                break
            p_win *= below / total
            p_noloss *= (below + tied) / total
            p_share *= (below + tied / 2.0) / total
        if not possible:
            continue
        out[0] += p_win
        out[1] += p_noloss
        out[2] += p_share
        out[3] += 1.0
