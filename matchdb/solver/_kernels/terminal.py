"""Values at the ends of the game: a fold, and a showdown by one linear sweep over hands sorted by strength.

Private: the traversal (:mod:`matchdb.solver._kernels.cfr`) calls them. A
value is the player's chips won, per deal weight, times the opponent's reach
of every hand that shares no card with theirs or the board: card removal by
inclusion and exclusion (the opponent's total reach, less the reach of the
hands holding either of the player's two cards, plus that of the very same
hand, which was taken away twice).
"""

from __future__ import annotations

import numpy as np

from matchdb.jit import jit


@jit
def fold_values(cards, player, board, payoff, reach, out):
    """``out[i]`` = ``payoff`` x the opponent's reach beside hand ``i`` and ``board`` (0 for a hand on the board)."""
    opp = 1 - player
    minus = np.zeros(52)
    total = 0.0
    for j in range(cards.n[opp]):
        if cards.mask[opp, j] & board:
            continue
        r = reach[j]
        if r != 0.0:
            total += r
            minus[cards.cards[opp, j, 0]] += r
            minus[cards.cards[opp, j, 1]] += r
    for i in range(cards.n[player]):
        if cards.mask[player, i] & board:
            out[i] = 0.0
            continue
        s = cards.same[player, i]
        same = reach[s] if s >= 0 else 0.0
        out[i] = payoff * (total + same - minus[cards.cards[player, i, 0]] - minus[cards.cards[player, i, 1]])


@jit
def showdown_values(cards, player, runout, win, lose, reach, out):
    """Showdown without rake: ``win`` x the reach of weaker hands plus ``lose`` x that of stronger ones (ties 0).

    Two passes over the runout's sorted hands: upwards the reach of the
    opponent's weaker hands grows, downwards that of the stronger ones.
    """
    opp = 1 - player
    for i in range(cards.n[player]):
        out[i] = 0.0
    p0, p1 = cards.sd_start[player, runout], cards.sd_start[player, runout + 1]
    o0, o1 = cards.sd_start[opp, runout], cards.sd_start[opp, runout + 1]
    order, strength, first, second = cards.sd_order[player], cards.sd_strength[player], cards.sd_card0[player], cards.sd_card1[player]
    o_order, o_strength, o_first, o_second = cards.sd_order[opp], cards.sd_strength[opp], cards.sd_card0[opp], cards.sd_card1[opp]
    minus = np.zeros(52)
    total = 0.0
    j = o0
    for q in range(p0, p1):
        s = strength[q]
        while j < o1 and o_strength[j] < s:
            r = reach[o_order[j]]
            if r != 0.0:
                total += r
                minus[o_first[j]] += r
                minus[o_second[j]] += r
            j += 1
        out[order[q]] = win * (total - minus[first[q]] - minus[second[q]])
    minus[:] = 0.0
    total = 0.0
    j = o1 - 1
    for q in range(p1 - 1, p0 - 1, -1):
        s = strength[q]
        while j >= o0 and o_strength[j] > s:
            r = reach[o_order[j]]
            if r != 0.0:
                total += r
                minus[o_first[j]] += r
                minus[o_second[j]] += r
            j -= 1
        i = order[q]
        out[i] += np.float32(lose * (total - minus[first[q]] - minus[second[q]]))


@jit
def showdown_values_tied(cards, player, runout, win, tie, lose, reach, out):
    """Showdown where a tie has a value (rake): one upward pass keeps the reach below and below-or-equal."""
    opp = 1 - player
    for i in range(cards.n[player]):
        out[i] = 0.0
    p0, p1 = cards.sd_start[player, runout], cards.sd_start[player, runout + 1]
    o0, o1 = cards.sd_start[opp, runout], cards.sd_start[opp, runout + 1]
    minus = np.zeros(52)
    total = 0.0
    for j in range(o0, o1):
        h = cards.sd_order[opp, j]
        r = reach[h]
        total += r
        minus[cards.cards[opp, h, 0]] += r
        minus[cards.cards[opp, h, 1]] += r
    below = np.zeros(52)
    upto = np.zeros(52)
    total_below = 0.0
    total_upto = 0.0
    j = o0
    k = o0
    for q in range(p0, p1):
        s = cards.sd_strength[player, q]
        while j < o1 and cards.sd_strength[opp, j] < s:
            h = cards.sd_order[opp, j]
            r = reach[h]
            total_below += r
            below[cards.cards[opp, h, 0]] += r
            below[cards.cards[opp, h, 1]] += r
            j += 1
        if k < j:
            k = j
            total_upto = total_below
            upto[:] = below
        while k < o1 and cards.sd_strength[opp, k] <= s:
            h = cards.sd_order[opp, k]
            r = reach[h]
            total_upto += r
            upto[cards.cards[opp, h, 0]] += r
            upto[cards.cards[opp, h, 1]] += r
            k += 1
        i = cards.sd_order[player, q]
        c0, c1 = cards.cards[player, i, 0], cards.cards[player, i, 1]
        sh = cards.same[player, i]
        same = reach[sh] if sh >= 0 else 0.0
        r_below = total_below - below[c0] - below[c1]
        r_upto = total_upto - upto[c0] - upto[c1] + same
        r_all = total - minus[c0] - minus[c1] + same
        out[i] = win * r_below + tie * (r_upto - r_below) + lose * (r_all - r_upto)


@jit
def equity_sums(cards, player, runout, reach, weight, out):
    """Add ``weight`` x (reach of weaker hands - reach of stronger hands) beside each hand on one runout to
    ``out`` (what an equity is made of: 1/2 + 1/2 x that sum / the reach beside the hand)."""
    opp = 1 - player
    p0, p1 = cards.sd_start[player, runout], cards.sd_start[player, runout + 1]
    o0, o1 = cards.sd_start[opp, runout], cards.sd_start[opp, runout + 1]
    minus = np.zeros(52)
    total = 0.0
    j = o0
    for q in range(p0, p1):
        s = cards.sd_strength[player, q]
        while j < o1 and cards.sd_strength[opp, j] < s:
            h = cards.sd_order[opp, j]
            r = reach[h]
            total += r
            minus[cards.cards[opp, h, 0]] += r
            minus[cards.cards[opp, h, 1]] += r
            j += 1
        i = cards.sd_order[player, q]
        out[i] += weight * (total - minus[cards.cards[player, i, 0]] - minus[cards.cards[player, i, 1]])
    minus[:] = 0.0
    total = 0.0
    j = o1 - 1
    for q in range(p1 - 1, p0 - 1, -1):
        s = cards.sd_strength[player, q]
        while j >= o0 and cards.sd_strength[opp, j] > s:
            h = cards.sd_order[opp, j]
            r = reach[h]
            total += r
            minus[cards.cards[opp, h, 0]] += r
            minus[cards.cards[opp, h, 1]] += r
            j -= 1
        i = cards.sd_order[player, q]
        out[i] -= weight * (total - minus[cards.cards[player, i, 0]] - minus[cards.cards[player, i, 1]])
