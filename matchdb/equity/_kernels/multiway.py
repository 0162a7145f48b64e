"""Numba kernels behind :mod:`matchdb.equity.multiway` (private: call the public functions there).

All kernels work on one table's frame and on *transposed* columns: ``cols[c]``
holds the W level of every row (1,176 of them) in board column ``columns[c]``.
Cards are local indices 0..48 and a set of cards is a uint64 bit mask.

Counting (the identity of :mod:`matchdb.equity.multiway`). On one column fix
the hero (level ``L``) and give every opponent hand a factor g: 1 below the
hero, x tied, 0 above. The
weighted number of deals M(x) = sum over card-disjoint opponent tuples of the
product of g is a polynomial of degree <= k in x whose coefficient of x^t is
the weight of the deals where the hero is best, tied with t opponents. The
kernels evaluate M at x = 0, 1, 2, 3 and recover the coefficients, so win,
tie and the equity (each tie split, sum_t c_t / (1 + t)) follow exactly.

Two ways to count, both inclusion-exclusion over card conflicts:

* random opponents (``_random_poly``): M(x) = sum_m D_m(x) c(n - 2m, k - m)
  where D_m sums over m-matchings of the *top graph* (hands that tie or beat
  the hero) the product of d = g - 1; only the few top hands are touched;
* opponents with their own weights (``_weighted_poly``): ordered tuples,
  sum over all tuples times prod (1 - conflict), expanded with per-card sums;
  three opponents need the triangle term trace(U1 U2 U3).

``c(v, r) = v! / ((v - 2r)! r! 2^r)`` is the number of r-matchings of v cards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from matchdb.core.pairs import SENTINEL
from matchdb.equity._kernels.bits import MIX1, MIX2, bit_index, lowest_bit, popcount, splitmix
from matchdb.jit import jit


@jit
def _matchings(v, r):
    """c(v, r): ways to choose r card-disjoint hands (unordered) from v cards."""
    if r < 0 or v < 2 * r:
        return 0.0
    out = 1.0
    for i in range(r):
        m = v - 2 * i
        out *= m * (m - 1) / 2.0
    for i in range(2, r + 1):
        out /= i
    return out


@jit
def _coefficients(m, k, out):
    """Coefficients (x^0..x^3) of the polynomial of degree <= 3 with values m[0..3] at x = 0..3."""
    d1 = m[1] - m[0]
    d2 = m[2] - 2.0 * m[1] + m[0]
    d3 = m[3] - 3.0 * m[2] + 3.0 * m[1] - m[0]
    out[0] = m[0]
    out[1] = d1 - d2 / 2.0 + d3 / 3.0
    out[2] = d2 / 2.0 - d3 / 2.0
    out[3] = d3 / 6.0
    for t in range(k + 1, 4):  # exact zeros beyond the degree (rounding would leave ~1e-16)
        out[t] = 0.0


@jit
def _collect_split(levels, level, hero, free, cards, lists):
    """Both lists :func:`_random_poly` can count from: the top hands (tied 0, above 1) in
    ``lists.ea, eb, et`` and the others (tied 0, below 1) in ``lists.ba, bb, bt``; returns both lengths."""
    plow, phigh, bits = cards.low, cards.high, cards.bits
    ea, eb, et, ba, bb, bt = lists.ea, lists.eb, lists.et, lists.ba, lists.bb, lists.bt
    ne = 0
    nb = 0
    for k in range(levels.shape[0]):
        v = levels[k]
        if v == SENTINEL or k == hero:
            continue
        a = plow[k]
        b = phigh[k]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        if v >= level:
            ea[ne] = a
            eb[ne] = b
            et[ne] = 0 if v == level else 1
            ne += 1
        if v <= level:
            ba[nb] = a
            bb[nb] = b
            bt[nb] = 0 if v == level else 1
            nb += 1
    return ne, nb


@jit
def _random_poly(ea, eb, et, ne, free, n, k, bits, out, direct=False):
    """Coefficients of M(x) for ``k`` <= 3 random opponents (unordered deals) over the ``n`` free cards.

    ``ea, eb, et[:ne]`` are the top hands (type 0 tied, 1 above); those touching a card
    outside ``free`` are skipped, so one list serves any subset of the cards.
    ``direct``: the list holds instead the hands that do not beat the hero (type 0 tied,
    1 below) and M(x) sums directly over k-matchings of them with factors x and 1 (cheaper
    when those are fewer than the top hands, for weak hands).

    With d = x - 1 on tied hands and -1 on hands above, every sum the identity needs is
    a polynomial in d whose coefficients are sums over the hands of each type, taken in
    two passes over the top hands; evaluating at x = 0..3 is then O(1).
    """
    tdeg = np.zeros(49, dtype=np.int64)
    adeg = np.zeros(49, dtype=np.int64)
    tadj = np.zeros(49, dtype=np.uint64)
    aadj = np.zeros(49, dtype=np.uint64)
    n_tied = 0
    n_above = 0
    for e in range(ne):
        a = ea[e]
        b = eb[e]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        if et[e] == 0:
            n_tied += 1
            tdeg[a] += 1
            tdeg[b] += 1
            tadj[a] |= bits[b]
            tadj[b] |= bits[a]
        else:
            n_above += 1
            adeg[a] += 1
            adeg[b] += 1
            aadj[a] |= bits[b]
            aadj[b] |= bits[a]
    # per-card sums: s(v) = d t(v) - a(v)
    tt2 = 0.0
    ta2 = 0.0
    aa2 = 0.0
    t3 = 0.0
    t2a = 0.0
    ta2b = 0.0
    a3 = 0.0
    for c in range(49):
        t = float(tdeg[c])
        a = float(adeg[c])
        tt2 += t * t
        ta2 += t * a
        aa2 += a * a
        t3 += t * t * t
        t2a += t * t * a
        ta2b += t * a * a
        a3 += a * a * a
    # per-hand sums for the centre term y_e (s(a) + s(b) - y_e)^2 and the triangles
    tied_aa = 0.0  # tied hands: N = d * alpha - beta, alpha = t(a) + t(b) - 1, beta = a(a) + a(b)
    tied_ab = 0.0
    tied_bb = 0.0
    above_aa = 0.0  # above: N = d * alpha - beta, alpha = t(a) + t(b), beta = a(a) + a(b) - 1
    above_ab = 0.0
    above_bb = 0.0
    tri_t = np.zeros(3)  # over tied hands: common neighbours tied-tied, tied-above, above-above
    tri_a = np.zeros(3)
    if k >= 3:
        for e in range(ne):
            a = ea[e]
            b = eb[e]
            if (free & bits[a]) == 0 or (free & bits[b]) == 0:
                continue
            c_tt = float(popcount(tadj[a] & tadj[b]))
            c_ta = float(popcount(tadj[a] & aadj[b]) + popcount(aadj[a] & tadj[b]))
            c_aa = float(popcount(aadj[a] & aadj[b]))
            if et[e] == 0:
                alpha = float(tdeg[a] + tdeg[b] - 1)
                beta = float(adeg[a] + adeg[b])
                tied_aa += alpha * alpha
                tied_ab += alpha * beta
                tied_bb += beta * beta
                tri_t[0] += c_tt
                tri_t[1] += c_ta
                tri_t[2] += c_aa
            else:
                alpha = float(tdeg[a] + tdeg[b])
                beta = float(adeg[a] + adeg[b] - 1)
                above_aa += alpha * alpha
                above_ab += alpha * beta
                above_bb += beta * beta
                tri_a[0] += c_tt
                tri_a[1] += c_ta
                tri_a[2] += c_aa
    m = np.empty(4)
    ya = 1.0 if direct else -1.0
    for x in range(4):
        d = float(x) if direct else x - 1.0
        s1 = d * n_tied + ya * n_above
        sq = d * d * n_tied + n_above
        cu = d * d * d * n_tied + ya * n_above
        ss2 = d * d * tt2 + 2.0 * ya * d * ta2 + aa2
        ss3 = d * d * d * t3 + 3.0 * ya * d * d * t2a + 3.0 * d * ta2b + ya * a3
        cross = ss2 - sq  # ordered pairs of hands sharing a card (a hand with itself once)
        d2 = (s1 * s1 - cross) / 2.0
        d3 = 0.0
        if k >= 3:
            centre = d * (d * d * tied_aa + 2.0 * ya * d * tied_ab + tied_bb) + ya * (
                d * d * above_aa + 2.0 * ya * d * above_ab + above_bb
            )
            common_t = d * d * tri_t[0] + ya * d * tri_t[1] + tri_t[2]
            common_a = d * d * tri_a[0] + ya * d * tri_a[1] + tri_a[2]
            tri = d * common_t + ya * common_a
            # ordered triples pairwise in conflict: stars (three hands on one card) and
            # triangles; ``tri`` counts each triangle once per edge, 3 times, of 6 orders
            every = ss3 - cu + 2.0 * tri
            d3 = (s1 * s1 * s1 - 3.0 * s1 * cross + 3.0 * centre - every) / 6.0
        if direct:  # the k hands all among the listed ones
            total = 1.0 if k == 0 else (s1 if k == 1 else (d2 if k == 2 else d3))
        else:
            total = _matchings(n, k)
            if k >= 1:
                total += s1 * _matchings(n - 2, k - 1)
            if k >= 2:
                total += d2 * _matchings(n - 4, k - 2)
            if k >= 3:
                total += d3 * _matchings(n - 6, k - 3)
        m[x] = total
    _coefficients(m, k, out)


@jit
def _weighted_poly_small(levels, level, hero, free, weights, k, plow, phigh, bits, out, total_out):
    """:func:`_weighted_poly` for ``k`` <= 2 in one pass: sums per hand type (below, tied, above).

    Every sum the count needs is linear in the type factors g (1, x, 0; or 1, 1, 1
    for all deals) per opponent, so one pass over the rows collects per-type totals,
    per-card sums and same-hand products, and each evaluation is O(49).
    """
    tot = np.zeros((2, 3))
    card = np.zeros((2, 3, 49))
    same = np.zeros(3)  # sum over hands of w0 * w1, per type
    for r in range(levels.shape[0]):
        v = levels[r]
        if v == SENTINEL or r == hero:
            continue
        a = plow[r]
        b = phigh[r]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        t = 0 if v < level else (1 if v == level else 2)
        for i in range(k):
            w = weights[i, r]
            tot[i, t] += w
            card[i, t, a] += w
            card[i, t, b] += w
        if k == 2:
            same[t] += weights[0, r] * weights[1, r]
    m = np.empty(4)
    g = np.empty(3)
    for ev in range(5):
        g[0] = 1.0
        g[1] = float(ev) if ev < 4 else 1.0
        g[2] = 0.0 if ev < 4 else 1.0
        s0 = g[0] * tot[0, 0] + g[1] * tot[0, 1] + g[2] * tot[0, 2]
        if k == 0:
            value = 1.0
        elif k == 1:
            value = s0
        else:
            s1 = g[0] * tot[1, 0] + g[1] * tot[1, 1] + g[2] * tot[1, 2]
            cross = 0.0
            for c in range(49):
                a0 = g[0] * card[0, 0, c] + g[1] * card[0, 1, c] + g[2] * card[0, 2, c]
                a1 = g[0] * card[1, 0, c] + g[1] * card[1, 1, c] + g[2] * card[1, 2, c]
                cross += a0 * a1
            cross -= g[0] * g[0] * same[0] + g[1] * g[1] * same[1] + g[2] * g[2] * same[2]
            value = s0 * s1 - cross
        if ev < 4:
            m[ev] = value
        else:
            total_out[0] = value
    _coefficients(m, k, out)


@jit
def _weighted_poly(levels, level, hero, free, weights, k, plow, phigh, bits, u_dense, out, total_out):
    """Ordered deals of ``k`` <= 3 opponents with their own weights (``weights[i]`` over rows).

    ``out[0..3]``: coefficients of M(x); returns the weight of all deals (no
    level condition) in ``total_out[0]``. ``u_dense`` is (2, 49, 49) scratch, zero on entry and exit.
    """
    if k <= 2:
        _weighted_poly_small(levels, level, hero, free, weights, k, plow, phigh, bits, out, total_out)
        return
    n_rows = levels.shape[0]
    rows = np.empty(n_rows, dtype=np.int64)
    kind = np.empty(n_rows, dtype=np.int64)
    nr = 0
    for r in range(n_rows):
        v = levels[r]
        if v == SENTINEL or r == hero:
            continue
        a = plow[r]
        b = phigh[r]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        any_weight = False
        for i in range(k):
            if weights[i, r] != 0.0:
                any_weight = True
        if not any_weight:
            continue
        rows[nr] = r
        kind[nr] = 0 if v < level else (1 if v == level else 2)
        nr += 1
    u = np.zeros((3, nr))
    s = np.zeros((3, 49))
    m = np.empty(4)
    for ev in range(5):
        g_tied = float(ev) if ev < 4 else 1.0
        g_above = 0.0 if ev < 4 else 1.0
        tot = np.zeros(3)
        for c in range(49):
            s[0, c] = 0.0
            s[1, c] = 0.0
            s[2, c] = 0.0
        for j in range(nr):
            r = rows[j]
            g = 1.0 if kind[j] == 0 else (g_tied if kind[j] == 1 else g_above)
            for i in range(k):
                val = weights[i, r] * g
                u[i, j] = val
                tot[i] += val
                s[i, plow[r]] += val
                s[i, phigh[r]] += val
        if k == 1:
            value = tot[0]
        else:
            # x_il: ordered pairs (hand of i, hand of l) sharing a card
            x01 = 0.0
            x02 = 0.0
            x12 = 0.0
            for c in range(49):
                x01 += s[0, c] * s[1, c]
                x02 += s[0, c] * s[2, c]
                x12 += s[1, c] * s[2, c]
            p01 = 0.0
            p02 = 0.0
            p12 = 0.0
            p012 = 0.0
            for j in range(nr):
                p01 += u[0, j] * u[1, j]
                p02 += u[0, j] * u[2, j]
                p12 += u[1, j] * u[2, j]
                p012 += u[0, j] * u[1, j] * u[2, j]
            x01 -= p01
            x02 -= p02
            x12 -= p12
            if k == 2:
                value = tot[0] * tot[1] - x01
            else:
                centre = 0.0
                star = 0.0
                for c in range(49):
                    star += s[0, c] * s[1, c] * s[2, c]
                for j in range(nr):
                    a = plow[rows[j]]
                    b = phigh[rows[j]]
                    n0 = s[0, a] + s[0, b] - u[0, j]
                    n1 = s[1, a] + s[1, b] - u[1, j]
                    n2 = s[2, a] + s[2, b] - u[2, j]
                    centre += u[0, j] * n1 * n2 + u[1, j] * n0 * n2 + u[2, j] * n0 * n1
                # triangles: trace(U0 U1 U2) with U1, U2 dense
                for j in range(nr):
                    a = plow[rows[j]]
                    b = phigh[rows[j]]
                    u_dense[0, a, b] = u[1, j]
                    u_dense[0, b, a] = u[1, j]
                    u_dense[1, a, b] = u[2, j]
                    u_dense[1, b, a] = u[2, j]
                tri = 0.0
                for j in range(nr):
                    w0 = u[0, j]
                    if w0 == 0.0:
                        continue
                    a = plow[rows[j]]
                    b = phigh[rows[j]]
                    acc = 0.0
                    for c in range(49):
                        acc += u_dense[0, b, c] * u_dense[1, c, a] + u_dense[0, a, c] * u_dense[1, c, b]
                    tri += w0 * acc
                for j in range(nr):
                    a = plow[rows[j]]
                    b = phigh[rows[j]]
                    u_dense[0, a, b] = 0.0
                    u_dense[0, b, a] = 0.0
                    u_dense[1, a, b] = 0.0
                    u_dense[1, b, a] = 0.0
                every = star - p012 + tri
                value = tot[0] * tot[1] * tot[2] - x01 * tot[2] - x02 * tot[1] - x12 * tot[0] + centre - every
        if ev < 4:
            m[ev] = value
        else:
            total_out[0] = value
    _coefficients(m, k, out)


@jit
def _add_shares(coef, k, tied_before, share):
    """(win, any tie, equity) weights of a column's coefficients with ``tied_before`` known ties already."""
    win = coef[0] if tied_before == 0 else 0.0
    tie = 0.0
    eq = 0.0
    for t in range(k + 1):
        eq += coef[t] / (1.0 + t + tied_before)
        if t + tied_before > 0:
            tie += coef[t]
    share[0] += win
    share[1] += tie
    share[2] += eq


@jit
def _known_state(levels, level, known_rows):
    """(-1 if a known hand collides with the column, 0 if one beats the hero, else 1 + number tied)."""
    tied = 0
    beaten = False
    for i in range(known_rows.shape[0]):
        v = levels[known_rows[i]]
        if v == SENTINEL:
            return -1
        if v > level:
            beaten = True
        elif v == level:
            tied += 1
    if beaten:
        return 0
    return 1 + tied


@jit
def _sweep_sets(question, opponents, cards, which):
    """Whether :func:`_sweep_rows` counts this question, and what each opponent holds (``which[o]``: 0 any
    hand, 1 one of the range ``opponents.exact[ranged]``; returns ``ranged``, -1 when it does not apply).

    It applies to ``cols`` laid out rows first in memory (``cols[:, r]`` contiguous, as a decoded table's
    transpose), no known hands and one or two opponents, each a random hand (weights all 1) or one of a
    0/1 range, the same for both.
    """
    cols, k = question.cols, opponents.k_exact
    if cols.shape[0] < 2 or cols.strides[0] >= cols.strides[1] or question.known_rows.shape[0] > 0:
        return -1
    if k < 1 or k > 2 or opponents.drawn.shape[0] > 0:
        return -1
    which[:] = 0
    if opponents.exact_random:
        return 0
    weights, taken = opponents.exact, cards.masks[question.hero]
    ranged = -1
    for o in range(k):
        ones = True
        for r in range(cols.shape[1]):
            w = weights[o, r]
            if (cards.masks[r] & taken) != 0 or w == 1.0:
                continue
            if w != 0.0:
                return -1
            ones = False
        if ones:
            continue
        which[o] = 1
        if ranged < 0:
            ranged = o
            continue
        for r in range(cols.shape[1]):
            if (cards.masks[r] & taken) == 0 and weights[o, r] != weights[ranged, r]:
                return -1
    return max(ranged, 0)


@jit
def _sweep_accumulate(wk, hero, n_columns, beats, ties, card_beats, card_ties, a, b, per_card):
    """Add one opponent hand (cards a, b; its levels ``wk`` on every column) where it beats or ties the hero,
    per column, branch-free (so the loop runs on vectors)."""
    if per_card:
        ba = card_beats[a]
        bb = card_beats[b]
        ta = card_ties[a]
        tb = card_ties[b]
        for jj in range(n_columns):
            v = wk[jj]
            ok = v != SENTINEL
            gt = np.int16(ok & (v > hero[jj]))
            eq = np.int16(ok & (v == hero[jj]))
            beats[jj] += gt
            ties[jj] += eq
            ba[jj] += gt
            bb[jj] += gt
            ta[jj] += eq
            tb[jj] += eq
    else:
        for jj in range(n_columns):
            v = wk[jj]
            ok = v != SENTINEL
            beats[jj] += np.int16(ok & (v > hero[jj]))
            ties[jj] += np.int16(ok & (v == hero[jj]))


@jit
def _sweep_rows(question, opponents, cards, which, ranged, result):
    """:func:`exact_hero` for one or two opponents on ``cols`` laid out rows first: one sweep over the rows.

    Opponent o holds any hand (``which[o] == 0``) or one of the range ``opponents.exact[ranged] != 0``
    (:func:`_sweep_sets`). On a column fix f(e) = 1 below the hero, x tied, 0 above (times the range's indicator);
    the ordered deals of two card-disjoint hands count F1 F2 - sum_c F1_c F2_c + sum_e f1(e) f2(e),
    F the sum of f and F_c its sum over the hands holding card c (the identity of
    :mod:`matchdb.equity.multiway`). Only the hands that tie or beat the hero change f from its
    count, and one pass over the rows, vectorised over the columns, collects them; the counts per
    column are exact integers, so the result is the same to the last bit as the other counts'.
    """
    cols, col_masks, hero = question.cols, question.col_masks, question.hero
    k, weights = opponents.k_exact, opponents.exact
    low, high, masks = cards.low, cards.high, cards.masks
    n_columns = cols.shape[0]
    n_rows = cols.shape[1]
    taken = masks[hero]
    hero_a = low[hero]
    hero_b = high[hero]
    two = k == 2
    n_cards = 49 if two else 1
    # set 0: every hand; set 1: the range's. which[o]: the set opponent o draws from
    need_all = which[0] == 0 or (two and which[1] == 0)
    need_range = which[0] == 1 or (two and which[1] == 1)
    in_set = np.zeros((2, n_rows), dtype=np.bool_)
    base = np.zeros(2, dtype=np.int64)
    base_card = np.zeros((2, 49), dtype=np.int64)
    member = np.zeros((2, 49, 49), dtype=np.int64)
    for r in range(n_rows):
        if (masks[r] & taken) != 0:
            continue
        in_set[0, r] = True
        in_set[1, r] = need_range and weights[ranged, r] != 0.0
        a = low[r]
        b = high[r]
        for s in range(2):
            if in_set[s, r]:
                base[s] += 1
                base_card[s, a] += 1
                base_card[s, b] += 1
                member[s, a, b] = 1
                member[s, b, a] = 1
    # what the hands at or above the hero add per column, per set counted (acc[s]: where set s adds up)
    acc = np.zeros(2, dtype=np.int64)
    acc[1] = 1 if need_all and need_range else 0
    n_acc = acc[1] + 1
    # int16 counts (at most 1,176 hands): twice the lanes of int32 on the vector unit
    beats = np.zeros((n_acc, n_columns), dtype=np.int16)
    ties = np.zeros((n_acc, n_columns), dtype=np.int16)
    card_beats = np.zeros((n_acc, n_cards, n_columns), dtype=np.int16)
    card_ties = np.zeros((n_acc, n_cards, n_columns), dtype=np.int16)
    hero_levels = cols[:, hero]
    beats0, ties0, card_beats0, card_ties0 = beats[0], ties[0], card_beats[0], card_ties[0]
    beats1, ties1, card_beats1, card_ties1 = beats[n_acc - 1], ties[n_acc - 1], card_beats[n_acc - 1], card_ties[n_acc - 1]
    for r in range(n_rows):
        if need_all and in_set[0, r]:
            _sweep_accumulate(cols[:, r], hero_levels, n_columns, beats0, ties0, card_beats0, card_ties0, low[r],
                              high[r], two)
        if need_range and in_set[1, r]:
            _sweep_accumulate(cols[:, r], hero_levels, n_columns, beats1, ties1, card_beats1, card_ties1, low[r],
                              high[r], two)
    coef = np.zeros(4)
    same = 1 if need_range else 0  # the set of a hand both opponents take (the range's when there is one)
    for jj in range(n_columns):
        if hero_levels[jj] == SENTINEL:
            continue
        bit = lowest_bit(col_masks[jj])
        t = bit_index(bit)  # the column's two cards
        u = bit_index(col_masks[jj] & ~bit)
        s1 = which[0]
        n1 = base[s1] - base_card[s1, t] - base_card[s1, u] + member[s1, t, u]
        a1 = acc[s1]
        f1_0 = n1 - beats[a1, jj] - ties[a1, jj]  # hands below the hero (coefficient of x^0)
        f1_1 = np.int64(ties[a1, jj])  # hands tied (coefficient of x^1)
        if not two:
            coef[0] = f1_0
            coef[1] = f1_1
            _add_shares(coef, 1, 0, result)
            result[3] += n1
            continue
        s2 = which[1]
        n2 = base[s2] - base_card[s2, t] - base_card[s2, u] + member[s2, t, u]
        a2 = acc[s2]
        f2_0 = n2 - beats[a2, jj] - ties[a2, jj]
        f2_1 = np.int64(ties[a2, jj])
        c0 = f1_0 * f2_0
        c1 = f1_0 * f2_1 + f1_1 * f2_0
        c2 = f1_1 * f2_1
        den = n1 * n2
        # minus the pairs of hands that share one card: sum over cards of F1_c F2_c
        for c in range(49):
            if c == hero_a or c == hero_b or c == t or c == u:
                continue
            m1 = base_card[s1, c] - member[s1, c, t] - member[s1, c, u]
            m2 = base_card[s2, c] - member[s2, c, t] - member[s2, c, u]
            q1b = np.int64(card_beats[a1, c, jj])
            q1t = np.int64(card_ties[a1, c, jj])
            q2b = np.int64(card_beats[a2, c, jj])
            q2t = np.int64(card_ties[a2, c, jj])
            g1_0 = m1 - q1b - q1t
            g2_0 = m2 - q2b - q2t
            c0 -= g1_0 * g2_0
            c1 -= g1_0 * q2t + q1t * g2_0
            c2 -= q1t * q2t
            den -= m1 * m2
        # plus the same hand taken by both (it shares both cards, subtracted twice above): sum over hands of f1 f2
        n_same = base[same] - base_card[same, t] - base_card[same, u] + member[same, t, u]
        c0 += n_same - beats[acc[same], jj] - ties[acc[same], jj]
        c2 += np.int64(ties[acc[same], jj])
        den += n_same
        coef[0] = c0
        coef[1] = c1
        coef[2] = c2
        _add_shares(coef, 2, 0, result)
        result[3] += den


@jit
def heads_up_hero(question, cards, result):
    """Add one hero row's exact (equity, deals) weights against one random hand over every column to
    ``result[2], result[3]`` (no known hands; win and tie are not counted: ``result[0], result[1]`` untouched).

    A W level is twice the hands below plus the hands tied among every hand on the column, so only card
    removal is left to count: the 94 other hands holding a card of the hero are compared and taken out
    (those not colliding with the column). The same numbers as :func:`exact_hero` with one random opponent, to the
    last bit (every weight is a half-integer), reading 95 rows instead of all.
    """
    cols, hero = question.cols, question.hero
    row_of = cards.row_of
    hero_a = cards.low[hero]
    hero_b = cards.high[hero]
    n_columns = cols.shape[0]
    twice = np.zeros(n_columns, dtype=np.int64)
    for jj in range(n_columns):
        twice[jj] = cols[jj, hero]
    for side in range(2):
        card = hero_a if side == 0 else hero_b
        for x in range(49):
            if x == card or x == hero_a or x == hero_b:
                continue  # the hero, and (side 1) a hand holding both hero cards, counted once
            k = row_of[card, x]
            for jj in range(n_columns):
                h = cols[jj, hero]
                v = cols[jj, k]
                if h != SENTINEL and v != SENTINEL:
                    twice[jj] -= 2 * (v < h) + (v == h)
    per_column = _matchings(question.n_free - 2, 1)
    for jj in range(n_columns):
        if cols[jj, hero] != SENTINEL:
            result[2] += twice[jj] / 2.0
            result[3] += per_column


@jit
def exact_hero(question, opponents, cards, result):
    """Add one hero row's exact (win, tie, equity, deals) weights over every column to ``result``.

    ``opponents.exact_random``: all ``opponents.k_exact`` (<= 3) unknown opponents are uniformly
    random (weights ignored); else ``opponents.exact[:k]`` are theirs (none are drawn). Known
    opponents ``question.known_rows`` are fixed hands whose cards are already out of
    ``question.free`` (``question.n_free`` cards, the column's two included). Deals are ordered
    tuples of the unknown opponents' hands.

    One or two opponents on ``cols`` laid out rows first in memory (a decoded table's transpose, as the
    bots' strength hands it) are counted by one sweep over the rows (:func:`_sweep_rows`): the same
    numbers to the last bit.
    """
    which = np.zeros(2, dtype=np.int64)
    ranged = _sweep_sets(question, opponents, cards, which)
    if ranged >= 0:
        _sweep_rows(question, opponents, cards, which, ranged, result)
        return
    cols, col_masks, hero, known_rows = question.cols, question.col_masks, question.hero, question.known_rows
    base_free, n_free = question.free, question.n_free
    k, random, weights = opponents.k_exact, opponents.exact_random, opponents.exact
    plow, phigh, bits = cards.low, cards.high, cards.bits
    coef = np.zeros(4)
    lists = _lists(cols.shape[1], 0, np.int64)
    u_dense = np.zeros((2, 49, 49))
    total = np.zeros(1)
    ordered = 1.0
    for i in range(2, k + 1):
        ordered *= i
    for c in range(cols.shape[0]):
        levels = cols[c]
        level = levels[hero]
        if level == SENTINEL:
            continue
        state = _known_state(levels, level, known_rows)
        if state < 0:
            continue
        free = base_free & ~col_masks[c]
        if random:
            result[3] += _matchings(n_free - 2, k) * ordered
            if state == 0:
                continue
            ne, nb = _collect_split(levels, level, hero, free, cards, lists)
            if nb < ne:
                _random_poly(lists.ba, lists.bb, lists.bt, nb, free, n_free - 2, k, bits, coef, True)
            else:
                _random_poly(lists.ea, lists.eb, lists.et, ne, free, n_free - 2, k, bits, coef, False)
            for t in range(k + 1):
                coef[t] *= ordered
        else:
            _weighted_poly(levels, level, hero, free, weights, k, plow, phigh, bits, u_dense, coef, total)
            result[3] += total[0]
            if state == 0:
                continue
        _add_shares(coef, k, state - 1, result)


@jit
def known_all(cols, rows, result):
    """Every player a known hand (``rows``, disjoint): add each player's (win, tie, equity) over the columns.

    ``result`` is (players, 3) plus the number of columns counted in ``result[0, 3]``.
    """
    n = rows.shape[0]
    lv = np.empty(n, dtype=np.int64)
    for c in range(cols.shape[0]):
        levels = cols[c]
        best = -1
        skip = False
        for i in range(n):
            v = levels[rows[i]]
            if v == SENTINEL:
                skip = True
                break
            lv[i] = v
            best = max(best, v)
        if skip:
            continue
        winners = 0
        for i in range(n):
            if lv[i] == best:
                winners += 1
        for i in range(n):
            if lv[i] == best:
                if winners == 1:
                    result[i, 0] += 1.0
                else:
                    result[i, 1] += 1.0
                result[i, 2] += 1.0 / winners
        result[0, 3] += 1.0


@jit
def _uniform(state):
    """(next state, a uniform float in [0, 1)) from the splitmix stream ``state``."""
    state, z = splitmix(state)
    return state, np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@jit
def _draw(levels, level, hero, free, weights, cand, n_cand, restrict, row_masks, bits, state):
    """Draw one hand from ``cand[:n_cand]`` with both cards in ``free`` in proportion to ``weights``.

    ``restrict``: only hands that do not beat the hero (level <= ``level``).
    Returns (row, mass drawn from, next state); row -1 when the mass is zero.
    """
    mass = 0.0
    for i in range(n_cand):
        r = cand[i]
        if (row_masks[r] & ~free) != 0 or (restrict and levels[r] > level):
            continue
        mass += weights[r]
    if mass <= 0.0:
        return -1, 0.0, state
    state, u = _uniform(state)
    target = u * mass
    last = -1
    for i in range(n_cand):
        r = cand[i]
        if (row_masks[r] & ~free) != 0 or (restrict and levels[r] > level):
            continue
        w = weights[r]
        if w <= 0.0:
            continue
        last = r
        target -= w
        if target < 0.0:
            return r, mass, state
    return last, mass, state


#: Tries of a drawing by rejection before it scans for the hands left instead (so no draw loops without end).
_MOST_TRIES = 1 << 20


@jit
def _draw_uniform(lists, start, n_na, na_deg, levels, lo, hi, removed, n_removed, cards, state):
    """Draw uniformly one of the hands ``(lists.ba[i], lists.bb[i])``, ``start <= i < start + n_na``, touching no
    card of ``removed``, by rejection.

    The list holds every valid unblocked hand whose level is in ``lo..hi`` (the hands that do
    not beat the hero, or only those below it, or only those tied with it). Returns (row, how
    many such hands there are, next state). ``na_deg[c]`` counts the listed hands holding card
    c; a hand made of two removed cards is listed when its level is in the band and it is not
    blocked, so the count is the list less the hands touching a removed card
    (inclusion-exclusion over those cards, ``lists.removed_cards[:n_removed]``).
    """
    ba, bb, blocked, removed_cards = lists.ba, lists.bb, lists.blocked, lists.removed_cards
    pair_index, row_masks = cards.row_of, cards.masks
    touching = 0
    for i in range(n_removed):
        touching += na_deg[removed_cards[i]]
        for j in range(i + 1, n_removed):
            r = pair_index[removed_cards[i], removed_cards[j]]
            v = np.int64(levels[r])
            if v >= lo and v <= hi and not blocked[r]:
                touching -= 1
    mass = n_na - touching
    if mass <= 0:
        return -1, 0.0, state
    for _ in range(_MOST_TRIES):  # each try keeps its hand with chance mass / n_na, at least 1 / 1,176
        state, u = _uniform(state)
        i = start + int(u * n_na)
        r = pair_index[ba[i], bb[i]]
        if (row_masks[r] & removed) == 0:
            return r, float(mass), state
    state, u = _uniform(state)  # never reached in practice; bounded all the same: one of the hands left, by a scan
    pick = int(u * mass)
    for i in range(start, start + n_na):
        r = pair_index[ba[i], bb[i]]
        if (row_masks[r] & removed) == 0:
            if pick == 0:
                return r, float(mass), state
            pick -= 1
    return -1, 0.0, state


@jit
def _rest_counts(levels, level, hero, free, n_rest, opponents, lists, ne, nb, cards, work):
    """Coefficients (ordered deals) of the ``opponents.k_exact`` exactly counted opponents on the cards ``free``
    (into ``work.coef``); total deals in ``work.total[0]``. ``ne``, ``nb``: the lengths of the lists of
    :func:`_collect_split` in ``lists``."""
    k, random, weights = opponents.k_exact, opponents.exact_random, opponents.exact
    coef, total = work.coef, work.total
    if random:
        if nb < ne:
            _random_poly(lists.ba, lists.bb, lists.bt, nb, free, n_rest, k, cards.bits, coef, True)
        else:
            _random_poly(lists.ea, lists.eb, lists.et, ne, free, n_rest, k, cards.bits, coef, False)
        ordered = 1.0
        for i in range(2, k + 1):
            ordered *= i
        for t in range(k + 1):
            coef[t] *= ordered
        total[0] = _matchings(n_rest, k) * ordered
    elif k == 0:
        coef[:] = 0.0
        coef[0] = 1.0
        total[0] = 1.0
    else:
        _weighted_poly(levels, level, hero, free, weights, k, cards.low, cards.high, cards.bits, work.u_dense, coef,
                       total)


@jit
def _column_lists(levels, level, need_cand, exact_random, cards, lists):
    """The hands one column offers the sampler: every valid unblocked row (``lists.cand``, when ``need_cand``),
    those that do not beat the hero (``ba, bb, bt``: tied 0, below 1; ``na_deg`` per card) and, for a random
    exact part, those that tie or beat it (``ea, eb, et``). Returns the three lengths.

    The hands that do not beat the hero are listed below it first, then tied with it, so each kind
    is a stretch of the list; ``lists.ta, tb`` get the tied hands' cards on the way, ``lists.deg``
    each kind's degrees per card (``deg[0]`` below, ``deg[1]`` tied) and ``lists.n_below[0]`` the
    number below the hero.
    """
    plow, phigh = cards.low, cards.high
    blocked, cand, ba, bb, bt, na_deg = lists.blocked, lists.cand, lists.ba, lists.bb, lists.bt, lists.na_deg
    ea, eb, et, ta, tb, deg = lists.ea, lists.eb, lists.et, lists.ta, lists.tb, lists.deg
    n_cand = 0
    n_na = 0
    ne = 0
    n_tied = 0
    for x in range(49):
        deg[0, x] = 0
        deg[1, x] = 0
    for r in range(levels.shape[0]):
        v = levels[r]
        if v == SENTINEL or blocked[r]:
            continue
        if need_cand:
            cand[n_cand] = r
            n_cand += 1
        a = plow[r]
        b = phigh[r]
        if v < level:
            ba[n_na] = a
            bb[n_na] = b
            bt[n_na] = 1
            deg[0, a] += 1
            deg[0, b] += 1
            n_na += 1
        else:
            if v == level:
                ta[n_tied] = a
                tb[n_tied] = b
                n_tied += 1
            if exact_random:
                ea[ne] = a
                eb[ne] = b
                et[ne] = 0 if v == level else 1
                ne += 1
    lists.n_below[0] = n_na
    for j in range(n_tied):
        a = ta[j]
        b = tb[j]
        ba[n_na] = a
        bb[n_na] = b
        bt[n_na] = 0
        deg[1, a] += 1
        deg[1, b] += 1
        n_na += 1
    for x in range(49):
        na_deg[x] = deg[0, x] + deg[1, x]
    return n_cand, n_na, ne


class _Lists(NamedTuple):
    """One column's lists of hands (rows, or cards and kinds), filled again for every column: scratch."""

    cand: np.ndarray  # rows an opponent may hold
    blocked: np.ndarray  # rows holding a card of the hero or of a known opponent
    na_deg: np.ndarray  # per card, the hands that do not beat the hero holding it
    ea: np.ndarray  # the hands that tie or beat the hero: cards and kinds
    eb: np.ndarray
    et: np.ndarray
    ba: np.ndarray  # the hands that do not beat the hero: cards and kinds
    bb: np.ndarray
    bt: np.ndarray
    ta: np.ndarray  # the tied hands' cards
    tb: np.ndarray
    deg: np.ndarray  # (2, 49): per card, the hands below and tied
    n_below: np.ndarray  # (1,): how many hands below the hero
    removed_cards: np.ndarray  # the drawn opponents' cards


class _Work(NamedTuple):
    """Scratch of the exact counts: ``u_dense`` (2, 49, 49), zero on entry and exit; ``coef`` (4,) the count's
    coefficients; ``total`` (1,) its deals; ``share`` (4,) one sample's (win, tie, equity)."""

    u_dense: np.ndarray
    coef: np.ndarray
    total: np.ndarray
    share: np.ndarray


@jit
def _lists(n_rows, n_removed, dtype):
    """:class:`_Lists` for tables of ``n_rows`` rows, the lists of cards as ``dtype``."""
    return _Lists(
        np.empty(n_rows, dtype=np.int64),
        np.zeros(n_rows, dtype=np.bool_),
        np.zeros(49, dtype=np.int64),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=dtype),
        np.empty(n_rows, dtype=np.int8),
        np.empty(n_rows, dtype=np.int8),
        np.zeros((2, 49), dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.empty(n_removed, dtype=np.int64),
    )


@jit
def _sample_numerator(levels, level, free0, tied0, n_rest, sizes, part, question, opponents, lists, cards, work,
                      state):
    """One sample of the numerator: the drawn opponents from the hands that do not beat the hero (each
    weighted by the mass it came from), then the last ``opponents.k_exact`` counted exactly; (win, tie,
    equity) weights in ``work.share[0..2]`` (zeros when a draw finds no hand). Returns the stream's next state.

    ``sizes`` is :func:`_column_lists`' lengths (``cand``, hands that do not beat the hero, top hands).
    ``part`` splits the deals by the drawn opponents' ties (every drawn opponent random): 0, the deals
    where none of them ties the hero (all drawn from the hands below it); 1, those where some do (the first
    drawn from the tied hands, the others from every hand that does not beat the hero, and the weight
    times d / j for j tied among the d drawn: a deal with j tied drawn opponents has j orders with a tied
    one first, of d). A tied opponent splits the pot, so mixing the two in one draw is most of the
    variance; -1 draws as one (opponents with their own weights).
    """
    n_cand, n_na, ne = sizes
    hero = question.hero
    drawn_w, drawn_random = opponents.drawn, opponents.drawn_random
    plow, phigh, row_masks = cards.low, cards.high, cards.masks
    removed_cards = lists.removed_cards
    share = work.share
    share[:] = 0.0
    weight = 1.0
    free = free0
    tied = tied0
    deg = lists.deg
    n_below = lists.n_below[0]
    n_drawn = drawn_w.shape[0]
    lo = np.int64(0)
    level_i = np.int64(level)
    for i in range(n_drawn):
        if part == 0:
            row, mass, state = _draw_uniform(
                lists, 0, n_below, deg[0], levels, lo, level_i - 1, ~free & free0, 2 * i, cards, state
            )
        elif part == 1 and i == 0:
            row, mass, state = _draw_uniform(
                lists, n_below, n_na - n_below, deg[1], levels, level_i, level_i, ~free & free0, 0, cards, state
            )
        elif drawn_random[i]:
            row, mass, state = _draw_uniform(
                lists, 0, n_na, lists.na_deg, levels, lo, level_i, ~free & free0, 2 * i, cards, state
            )
        else:
            row, mass, state = _draw(
                levels, level, hero, free, drawn_w[i], lists.cand, n_cand, True, row_masks, cards.bits, state
            )
        if row < 0:
            return state
        weight *= mass
        free &= ~row_masks[row]
        removed_cards[2 * i] = plow[row]
        removed_cards[2 * i + 1] = phigh[row]
        if levels[row] == level:
            tied += 1
    if part == 1:
        weight *= n_drawn / (tied - tied0)
    _rest_counts(levels, level, hero, free, n_rest, opponents, lists, ne, n_na, cards, work)
    _add_shares(work.coef, opponents.k_exact, tied, share)
    for j in range(3):
        share[j] *= weight
    return state


@jit
def _sample_deals(levels, level, free0, n_rest, n_cand, question, opponents, lists, cards, work, state):
    """One sample of a column's number of deals when some opponent has his own weights: unrestricted draws
    of the drawn opponents, then the exact count of the rest's deals. Returns (deals, next state)."""
    weight = 1.0
    free = free0
    drawn_w = opponents.drawn
    for i in range(drawn_w.shape[0]):
        row, mass, state = _draw(
            levels, level, question.hero, free, drawn_w[i], lists.cand, n_cand, False, cards.masks, cards.bits, state
        )
        if row < 0:
            return 0.0, state
        weight *= mass
        free &= ~cards.masks[row]
    _rest_counts(levels, level, question.hero, free, n_rest, opponents, lists, 0, 1, cards, work)
    return weight * work.total[0], state


#: A visit draws from a column's tied part with probability min(1, this x sqrt(d t / h)) (t tied hands of the h
#: that do not beat the hero, d drawn opponents: about the tied part's share of the numerator), its draw divided
#: by that probability: the tied part is a small share where ties are few, and a draw costs as much there.
TIED_DRAW_FACTOR = 2.0


@jit
def sample_columns(question, opponents, per_column, seed, lo, hi, cards, sums, taken):
    """Partly exact samples for one hero row on columns ``lo`` to ``hi``: ``per_column[c]`` visits to column c.

    A visit draws the opponents of ``opponents.drawn`` one by one from the hands that do not beat the
    hero (weighted by the mass drawn from), then counts the last ``opponents.k_exact`` opponents exactly on
    the cards left (:func:`_sample_numerator`). When every drawn opponent is random, a visit
    draws twice, once from the deals where no drawn opponent ties the hero and once from those
    where one does (when the column has a tied hand), and adds the two: a stratified draw within
    the column, since a tie splits the pot. When not every unknown opponent is random, the
    column's number of deals is estimated the same way with unrestricted draws
    (:func:`_sample_deals`). Each column draws from its own splitmix stream, seeded by ``seed``
    (which the caller makes from the question's seed, the row and the phase) and the column, so
    the samples do not depend on how the columns are split between threads. ``sums[c]`` gets the
    sums over the visits of (win, tie, equity, deals) in 0..3 and of their squares in 4..7,
    ``taken[c]`` the draws made.
    """
    cols, col_masks, hero, known_rows = question.cols, question.col_masks, question.hero, question.known_rows
    base_free, n_free = question.free, question.n_free
    drawn_random, k_exact, exact_random, all_random = (
        opponents.drawn_random, opponents.k_exact, opponents.exact_random, opponents.all_random
    )
    row_masks = cards.masks
    n_drawn = opponents.drawn.shape[0]
    k_all = n_drawn + k_exact
    ordered_all = 1.0
    for i in range(2, k_all + 1):
        ordered_all *= i
    n_rows = cols.shape[1]
    # cards and kinds as bytes: the lists stay in the first cache level
    lists = _lists(n_rows, 2 * n_drawn + 1, np.int8)
    blocked = lists.blocked
    for r in range(n_rows):
        blocked[r] = (row_masks[r] & ~base_free) != 0
    need_cand = not all_random
    split = n_drawn > 0
    for i in range(n_drawn):
        if not drawn_random[i]:
            need_cand = True
            split = False
    u_dense = np.zeros((2, 49, 49)) if not exact_random else np.zeros((2, 1, 1))  # only ranges counted exactly use it
    work = _Work(u_dense, np.zeros(4), np.zeros(1), np.zeros(4))
    share = work.share
    visit = np.zeros(4)
    for c in range(lo, hi):
        if per_column[c] == 0:
            continue
        levels = cols[c]
        level = levels[hero]
        if level == SENTINEL:
            continue
        state = _known_state(levels, level, known_rows)
        if state < 0:
            continue
        free0 = base_free & ~col_masks[c]
        n_rest = n_free - 2 - 2 * n_drawn
        sizes = _column_lists(levels, level, need_cand, exact_random, cards, lists)
        n_cand, n_na, ne = sizes
        n_below = lists.n_below[0]
        n_parts = 1
        keep_tied = 1.0
        if split and state > 0 and n_na > n_below:
            n_parts = 2
            keep_tied = min(1.0, TIED_DRAW_FACTOR * np.sqrt(n_drawn * (n_na - n_below) / n_na))
        stream = np.uint64(seed) * MIX2 + np.uint64(c + 1) * MIX1
        out = sums[c]
        for _rep in range(per_column[c]):
            visit[:] = 0.0
            if state > 0:
                for part in range(n_parts):
                    how = part if split else -1
                    scale = 1.0
                    if part == 1 and keep_tied < 1.0:
                        stream, u = _uniform(stream)
                        if u >= keep_tied:
                            continue
                        scale = 1.0 / keep_tied
                    stream = _sample_numerator(
                        levels, level, free0, state - 1, n_rest, sizes, how, question, opponents, lists, cards, work,
                        stream,
                    )
                    taken[c] += 1
                    for j in range(3):
                        visit[j] += scale * share[j]
            if all_random:
                visit[3] = _matchings(n_free - 2, k_all) * ordered_all
            else:
                d, stream = _sample_deals(levels, level, free0, n_rest, n_cand, question, opponents, lists, cards,
                                          work, stream)
                visit[3] = d
            for j in range(4):
                out[j] += visit[j]
                out[4 + j] += visit[j] ** 2


@jit
def _enumerate_column(levels, level, free0, tied0, sizes, n_rest, restrict, question, opponents, lists, cards, work,
                      acc):
    """Every hand of the 1 or 2 drawn opponents, then the exact count of the rest, on one column.

    ``sizes``: the number of candidate rows in ``lists.cand`` and the lengths of :func:`_collect_split`'s lists.
    ``restrict``: the numerator (hands that do not beat the hero, shares added to ``acc[0..2]``);
    else the deals (all hands, the rest's number of deals added to ``acc[3]``).
    """
    n_cand, ne, nb = sizes
    drawn_w = opponents.drawn
    n_drawn = drawn_w.shape[0]
    cand, row_masks, share = lists.cand, cards.masks, work.share
    w1 = drawn_w[0]
    for i in range(n_cand):
        r1 = cand[i]
        if w1[r1] <= 0.0 or (row_masks[r1] & ~free0) != 0 or (restrict and levels[r1] > level):
            continue
        free1 = free0 & ~row_masks[r1]
        tied1 = tied0
        if levels[r1] == level:
            tied1 += 1
        for j in range(n_cand if n_drawn == 2 else 1):
            free = free1
            tied = tied1
            weight = w1[r1]
            if n_drawn == 2:
                r2 = cand[j]
                w2 = drawn_w[1, r2]
                if w2 <= 0.0 or (row_masks[r2] & ~free1) != 0 or (restrict and levels[r2] > level):
                    continue
                free = free1 & ~row_masks[r2]
                weight *= w2
                if levels[r2] == level:
                    tied += 1
            _rest_counts(levels, level, question.hero, free, n_rest, opponents, lists, ne, nb, cards, work)
            if restrict:
                share[:] = 0.0
                _add_shares(work.coef, opponents.k_exact, tied, share)
                for t in range(3):
                    acc[t] += weight * share[t]
            else:
                acc[3] += weight * work.total[0]


@jit
def enumerate_hero(question, opponents, cards, out):
    """Exact count with four or five unknown opponents: the first one or two enumerated, the last three counted.

    Adds (win, tie, equity, deals) to ``out``. The cost is the number of hands that do not
    beat the hero, to the power of the enumerated opponents, times one exact count per column.
    """
    cols, col_masks, hero, known_rows = question.cols, question.col_masks, question.hero, question.known_rows
    base_free, n_free = question.free, question.n_free
    exact_random, all_random = opponents.exact_random, opponents.all_random
    row_masks = cards.masks
    n_drawn = opponents.drawn.shape[0]
    k_all = n_drawn + opponents.k_exact
    ordered_all = 1.0
    for i in range(2, k_all + 1):
        ordered_all *= i
    n_rows = cols.shape[1]
    lists = _lists(n_rows, 0, np.int64)
    cand = lists.cand
    work = _Work(np.zeros((2, 49, 49)), np.zeros(4), np.zeros(1), np.zeros(4))
    for c in range(cols.shape[0]):
        levels = cols[c]
        level = levels[hero]
        if level == SENTINEL:
            continue
        state = _known_state(levels, level, known_rows)
        if state < 0:
            continue
        free0 = base_free & ~col_masks[c]
        n0 = n_free - 2
        n_cand = 0
        for r in range(n_rows):
            if levels[r] != SENTINEL and r != hero and (row_masks[r] & ~free0) == 0:
                cand[n_cand] = r
                n_cand += 1
        ne = 0
        nb = 0
        if exact_random:
            ne, nb = _collect_split(levels, level, hero, free0, cards, lists)
        if state > 0:
            _enumerate_column(levels, level, free0, state - 1, (n_cand, ne, nb), n0 - 2 * n_drawn, True, question,
                              opponents, lists, cards, work, out)
        if all_random:
            out[3] += _matchings(n0, k_all) * ordered_all
        else:
            _enumerate_column(levels, level, free0, 0, (n_cand, 0, 1), n0 - 2 * n_drawn, False, question, opponents,
                              lists, cards, work, out)
