"""Numba kernels behind :mod:`matchdb.equity.multiway` (private: call the public functions there).

All kernels work on one table's frame and on *transposed* columns: ``cols[c]``
holds the W level of every row (1,176 of them) in board column ``columns[c]``.
Cards are local indices 0..48 and a set of cards is a uint64 bit mask.

Counting (docs/guide/multiway.md, "The counting identity"). On one column fix the hero (level ``L``) and
give every opponent hand a factor g: 1 below the hero, x tied, 0 above. The
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

import numba
import numpy as np

from matchdb.equity._kernels.heads_up import _pair_score
from matchdb.jit import jit, jit_parallel
from matchdb.core.pairs import N_LOCAL, SENTINEL

_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)

#: BITS[c] is the mask of local card c.
BITS = np.array([1 << c for c in range(N_LOCAL)], dtype=np.uint64)
BITS.flags.writeable = False


@jit
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


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
def _collect_top(levels, level, hero, free, plow, phigh, bits, ea, eb, et):
    """The hands at or above ``level`` with both cards in ``free``, the hero's own excluded; returns how many."""
    ne = 0
    for k in range(levels.shape[0]):
        v = levels[k]
        if v == SENTINEL or v < level or k == hero:
            continue
        a = plow[k]
        b = phigh[k]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        ea[ne] = a
        eb[ne] = b
        et[ne] = 0 if v == level else 1
        ne += 1
    return ne


@jit
def _collect_split(levels, level, hero, free, plow, phigh, bits, ea, eb, et, ba, bb, bt):
    """Both lists :func:`_random_poly` can count from: the top hands (tied 0, above 1) in
    ``ea, eb, et`` and the others (tied 0, below 1) in ``ba, bb, bt``; returns both lengths."""
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
            c_tt = float(_popcount(tadj[a] & tadj[b]))
            c_ta = float(_popcount(tadj[a] & aadj[b]) + _popcount(aadj[a] & tadj[b]))
            c_aa = float(_popcount(aadj[a] & aadj[b]))
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
def _exact_hero(cols, col_masks, hero, known_rows, base_free, n_free, k, random, weights, plow, phigh, bits, result):
    """Add one hero row's exact (win, tie, equity, deals) weights over every column to ``result``.

    ``random``: all ``k`` (<= 3) unknown opponents are uniformly random (weights ignored);
    else ``weights[:k]`` are theirs. Known opponents ``known_rows`` are fixed hands whose
    cards are already out of ``base_free`` (``n_free`` cards, the column's two included).
    Deals are ordered tuples of the unknown opponents' hands.
    """
    coef = np.zeros(4)
    ea = np.empty(cols.shape[1], dtype=np.int64)
    eb = np.empty(cols.shape[1], dtype=np.int64)
    et = np.empty(cols.shape[1], dtype=np.int64)
    ba = np.empty(cols.shape[1], dtype=np.int64)
    bb = np.empty(cols.shape[1], dtype=np.int64)
    bt = np.empty(cols.shape[1], dtype=np.int64)
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
            ne, nb = _collect_split(levels, level, hero, free, plow, phigh, bits, ea, eb, et, ba, bb, bt)
            if nb < ne:
                _random_poly(ba, bb, bt, nb, free, n_free - 2, k, bits, coef, True)
            else:
                _random_poly(ea, eb, et, ne, free, n_free - 2, k, bits, coef, False)
            for t in range(k + 1):
                coef[t] *= ordered
        else:
            _weighted_poly(levels, level, hero, free, weights, k, plow, phigh, bits, u_dense, coef, total)
            result[3] += total[0]
            if state == 0:
                continue
        _add_shares(coef, k, state - 1, result)


@jit
def _known_all(cols, rows, result):
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
def _draw(levels, level, hero, free, weights, cand, n_cand, restrict, row_masks, bits):
    """Draw one hand from ``cand[:n_cand]`` with both cards in ``free`` in proportion to ``weights``.

    ``restrict``: only hands that do not beat the hero (level <= ``level``).
    Returns (row, mass drawn from); row -1 when the mass is zero.
    """
    mass = 0.0
    for i in range(n_cand):
        r = cand[i]
        if (row_masks[r] & ~free) != 0 or (restrict and levels[r] > level):
            continue
        mass += weights[r]
    if mass <= 0.0:
        return -1, 0.0
    target = np.random.random() * mass
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
            return r, mass
    return last, mass


@jit
def _draw_uniform(
    ba, bb, n_na, na_deg, levels, level, blocked, removed, removed_cards, n_removed, pair_index, row_masks
):
    """Draw uniformly one of the hands ``(ba[i], bb[i])``, i < ``n_na``, touching no card of ``removed``, by rejection.

    Returns (row, how many such hands there are). ``na_deg[c]`` counts the listed hands
    holding card c; a hand made of two removed cards is listed when it is valid, not
    blocked and does not beat the hero, so the count is the list less the hands touching
    a removed card (inclusion-exclusion over those cards).
    """
    touching = 0
    for i in range(n_removed):
        touching += na_deg[removed_cards[i]]
        for j in range(i + 1, n_removed):
            r = pair_index[removed_cards[i], removed_cards[j]]
            if levels[r] != SENTINEL and levels[r] <= level and not blocked[r]:
                touching -= 1
    mass = n_na - touching
    if mass <= 0:
        return -1, 0.0
    while True:
        i = int(np.random.random() * n_na)
        r = pair_index[ba[i], bb[i]]
        if (row_masks[r] & removed) == 0:
            return r, float(mass)


@jit
def _rest_counts(
    levels,
    level,
    hero,
    free,
    n_rest,
    k,
    random,
    weights,
    ea,
    eb,
    et,
    ne,
    ba,
    bb,
    bt,
    nb,
    plow,
    phigh,
    bits,
    u_dense,
    coef,
    total,
):
    """Coefficients (ordered deals) of the ``k`` exactly counted opponents on the cards ``free``; total deals in ``total[0]``."""
    if random:
        if nb < ne:
            _random_poly(ba, bb, bt, nb, free, n_rest, k, bits, coef, True)
        else:
            _random_poly(ea, eb, et, ne, free, n_rest, k, bits, coef, False)
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
        _weighted_poly(levels, level, hero, free, weights, k, plow, phigh, bits, u_dense, coef, total)


@jit
def _sample_hero(
    cols,
    col_masks,
    hero,
    known_rows,
    base_free,
    n_free,
    drawn_w,
    drawn_random,
    k_exact,
    exact_random,
    exact_w,
    all_random,
    per_column,
    seed,
    plow,
    phigh,
    pair_index,
    row_masks,
    bits,
    out,
):
    """Stratified, partly exact estimate for one hero row, added to ``out``.

    Every column is a stratum with ``per_column`` samples. A sample draws the opponents of
    ``drawn_w`` one by one from the hands that do not beat the hero (weighted by the mass
    drawn from), then counts the last ``k_exact`` opponents exactly on the cards left. When
    not every unknown opponent is random, the column's number of deals is estimated the same
    way with unrestricted draws. ``out``: sums over columns of the column means of (win, tie,
    equity, deals) in 0..3 and of their variances in 4..7.
    """
    np.random.seed(seed)
    n_drawn = drawn_w.shape[0]
    k_all = n_drawn + k_exact
    ordered_all = 1.0
    for i in range(2, k_all + 1):
        ordered_all *= i
    n_rows = cols.shape[1]
    cand = np.empty(n_rows, dtype=np.int64)
    na_deg = np.zeros(49, dtype=np.int64)
    blocked = np.empty(n_rows, dtype=np.bool_)  # rows holding a card of the hero or of a known opponent
    for r in range(n_rows):
        blocked[r] = (row_masks[r] & ~base_free) != 0
    ea = np.empty(n_rows, dtype=np.int64)
    eb = np.empty(n_rows, dtype=np.int64)
    et = np.empty(n_rows, dtype=np.int64)
    ba = np.empty(n_rows, dtype=np.int64)
    bb = np.empty(n_rows, dtype=np.int64)
    bt = np.empty(n_rows, dtype=np.int64)
    removed_cards = np.empty(2 * n_drawn + 1, dtype=np.int64)
    need_cand = not all_random
    for i in range(n_drawn):
        if not drawn_random[i]:
            need_cand = True
    u_dense = np.zeros((2, 49, 49))
    coef = np.zeros(4)
    total = np.zeros(1)
    share = np.zeros(4)
    acc = np.zeros(4)
    acc2 = np.zeros(4)
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
        n_na = 0
        ne = 0
        for x in range(49):
            na_deg[x] = 0
        for r in range(n_rows):
            v = levels[r]
            if v == SENTINEL or blocked[r]:
                continue
            if need_cand:
                cand[n_cand] = r
                n_cand += 1
            if v <= level:
                a = plow[r]
                b = phigh[r]
                ba[n_na] = a
                bb[n_na] = b
                bt[n_na] = 0 if v == level else 1
                na_deg[a] += 1
                na_deg[b] += 1
                n_na += 1
            if v >= level and exact_random:
                ea[ne] = plow[r]
                eb[ne] = phigh[r]
                et[ne] = 0 if v == level else 1
                ne += 1
        acc[:] = 0.0
        acc2[:] = 0.0
        for rep in range(per_column):
            # the numerator: draws among the hands that do not beat the hero
            if state > 0:
                weight = 1.0
                free = free0
                tied = state - 1
                for i in range(n_drawn):
                    if drawn_random[i]:
                        row, mass = _draw_uniform(
                            ba,
                            bb,
                            n_na,
                            na_deg,
                            levels,
                            level,
                            blocked,
                            ~free & free0,
                            removed_cards,
                            2 * i,
                            pair_index,
                            row_masks,
                        )
                    else:
                        row, mass = _draw(levels, level, hero, free, drawn_w[i], cand, n_cand, True, row_masks, bits)
                    if row < 0:
                        weight = 0.0
                        break
                    weight *= mass
                    free &= ~row_masks[row]
                    removed_cards[2 * i] = plow[row]
                    removed_cards[2 * i + 1] = phigh[row]
                    if levels[row] == level:
                        tied += 1
                if weight > 0.0:
                    _rest_counts(
                        levels,
                        level,
                        hero,
                        free,
                        n0 - 2 * n_drawn,
                        k_exact,
                        exact_random,
                        exact_w,
                        ea,
                        eb,
                        et,
                        ne,
                        ba,
                        bb,
                        bt,
                        n_na,
                        plow,
                        phigh,
                        bits,
                        u_dense,
                        coef,
                        total,
                    )
                    share[:] = 0.0
                    _add_shares(coef, k_exact, tied, share)
                    for j in range(3):
                        acc[j] += weight * share[j]
                        acc2[j] += (weight * share[j]) ** 2
            # the deals: exact for random opponents, else unrestricted draws
            if all_random:
                d = _matchings(n0, k_all) * ordered_all
            else:
                weight = 1.0
                free = free0
                for i in range(n_drawn):
                    row, mass = _draw(levels, level, hero, free, drawn_w[i], cand, n_cand, False, row_masks, bits)
                    if row < 0:
                        weight = 0.0
                        break
                    weight *= mass
                    free &= ~row_masks[row]
                d = 0.0
                if weight > 0.0:
                    _rest_counts(
                        levels,
                        level,
                        hero,
                        free,
                        n0 - 2 * n_drawn,
                        k_exact,
                        exact_random,
                        exact_w,
                        ea,
                        eb,
                        et,
                        0,
                        ba,
                        bb,
                        bt,
                        1,
                        plow,
                        phigh,
                        bits,
                        u_dense,
                        coef,
                        total,
                    )
                    d = weight * total[0]
            acc[3] += d
            acc2[3] += d * d
        for j in range(4):
            mean = acc[j] / per_column
            out[j] += mean
            if per_column > 1:
                var = (acc2[j] - per_column * mean * mean) / (per_column - 1)
                out[4 + j] += max(var, 0.0) / per_column


@jit
def _range_pairs(hero_block, hero_w, hero_masks, villain_block, villain_w, villain_masks):
    """Weighted (win, tie, loss) deal counts of every hero row against every card-disjoint villain row.

    ``*_block`` hold the rows' levels on the board's columns only. Counts are 16-bit
    (at most 1,176 columns), so the inner loop runs on 16 columns per vector instruction.
    """
    n_cols = hero_block.shape[1]
    win = 0.0
    tie = 0.0
    loss = 0.0
    for i in range(hero_block.shape[0]):
        hero = hero_block[i]
        wins = 0.0
        ties = 0.0
        losses = 0.0
        for k in range(villain_block.shape[0]):
            if hero_masks[i] & villain_masks[k]:
                continue
            villain = villain_block[k]
            n_win = np.uint16(0)
            n_tie = np.uint16(0)
            n_loss = np.uint16(0)
            for c in range(n_cols):
                h = hero[c]
                v = villain[c]
                valid = (h != SENTINEL) & (v != SENTINEL)
                n_win = np.uint16(n_win + np.uint16(valid & (h > v)))
                n_tie = np.uint16(n_tie + np.uint16(valid & (h == v)))
                n_loss = np.uint16(n_loss + np.uint16(valid & (h < v)))
            w = villain_w[k]
            wins += w * n_win
            ties += w * n_tie
            losses += w * n_loss
        win += hero_w[i] * wins
        tie += hero_w[i] * ties
        loss += hero_w[i] * losses
    return win, tie, loss


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@jit
def _splitmix(state):
    """(next state, 64 random bits): splitmix64, a counter-based generator any thread can run on its own."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit_parallel
def _preflop_sample(cols, col_a, col_b, row_class, n_classes, max_opp, draws, seed, plow, phigh, pair_index, n_blocks):
    """Sampled showdowns of every hero row on every column against 1..``max_opp`` random hands.

    For each (column, hero row) ``draws`` deals of ``max_opp`` card-disjoint hands from
    the 45 free cards; the first k of them are the deal against k opponents. Returns
    per block the sums of (share, share squared, share times the first opponent's share)
    per (class, k) and the deal count per class. Each column has its own generator (splitmix64 seeded by ``seed`` and the column), so
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
            state = np.uint64(seed) * _MIX2 + np.uint64(c + 1) * _MIX1
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
                for rep in range(draws):
                    best = -1
                    tied = 0
                    first = 0.0
                    for k in range(max_opp):  # opponent k holds deck[2k], deck[2k + 1]
                        i = 2 * k
                        while i < 2 * k + 2:  # 32 random bits per card; a hero card is redrawn
                            state, z = _splitmix(state)
                            for half in range(2):
                                if i == 2 * k + 2:
                                    break
                                bits32 = (z >> _S32) if half == 0 else (z & _LOW32)
                                j = i + np.int64((bits32 * np.uint64(n - i)) >> _S32)
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
def _independent(cols, hero, weights, out):
    """The article's formula with beliefs: per column each opponent's chance to be below or tied, multiplied.

    For every column valid for the hero and every opponent i: below_i, tied_i and all_i,
    the weight of his hands below, level with (the hero's own row excluded) and any level,
    over the rows valid on the column (the hero's cards not removed, as in the article).
    ``out`` gets the sums over columns of prod below/all, prod (below + tied)/all,
    prod (below + tied/2)/all, and the number of columns.
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
                p_win = np.nan
                break
            p_win *= below / total
            p_noloss *= (below + tied) / total
            p_share *= (below + tied / 2.0) / total
        out[0] += p_win
        out[1] += p_noloss
        out[2] += p_share
        out[3] += 1.0


@jit
def _enumerate_column(
    n_drawn,
    levels,
    level,
    hero,
    free0,
    tied0,
    drawn_w,
    cand,
    n_cand,
    restrict,
    k_exact,
    exact_random,
    exact_w,
    ea,
    eb,
    et,
    ne,
    ba,
    bb,
    bt,
    nb,
    n_rest,
    plow,
    phigh,
    row_masks,
    bits,
    u_dense,
    coef,
    total,
    share,
    acc,
):
    """Every hand of the 1 or 2 drawn opponents, then the exact count of the rest, on one column.

    ``restrict``: the numerator (hands that do not beat the hero, shares added to ``acc[0..2]``);
    else the deals (all hands, the rest's number of deals added to ``acc[3]``).
    """
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
            _rest_counts(
                levels,
                level,
                hero,
                free,
                n_rest,
                k_exact,
                exact_random,
                exact_w,
                ea,
                eb,
                et,
                ne,
                ba,
                bb,
                bt,
                nb,
                plow,
                phigh,
                bits,
                u_dense,
                coef,
                total,
            )
            if restrict:
                share[:] = 0.0
                _add_shares(coef, k_exact, tied, share)
                for t in range(3):
                    acc[t] += weight * share[t]
            else:
                acc[3] += weight * total[0]


@jit
def _enumerate_hero(
    cols,
    col_masks,
    hero,
    known_rows,
    base_free,
    n_free,
    drawn_w,
    k_exact,
    exact_random,
    exact_w,
    all_random,
    plow,
    phigh,
    row_masks,
    bits,
    out,
):
    """Exact count with four or five unknown opponents: the first one or two enumerated, the last three counted.

    Adds (win, tie, equity, deals) to ``out``. The cost is the number of hands that do not
    beat the hero, to the power of the enumerated opponents, times one exact count per column.
    """
    n_drawn = drawn_w.shape[0]
    k_all = n_drawn + k_exact
    ordered_all = 1.0
    for i in range(2, k_all + 1):
        ordered_all *= i
    n_rows = cols.shape[1]
    cand = np.empty(n_rows, dtype=np.int64)
    ea = np.empty(n_rows, dtype=np.int64)
    eb = np.empty(n_rows, dtype=np.int64)
    et = np.empty(n_rows, dtype=np.int64)
    ba = np.empty(n_rows, dtype=np.int64)
    bb = np.empty(n_rows, dtype=np.int64)
    bt = np.empty(n_rows, dtype=np.int64)
    u_dense = np.zeros((2, 49, 49))
    coef = np.zeros(4)
    total = np.zeros(1)
    share = np.zeros(4)
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
            ne, nb = _collect_split(levels, level, hero, free0, plow, phigh, bits, ea, eb, et, ba, bb, bt)
        if state > 0:
            _enumerate_column(
                n_drawn,
                levels,
                level,
                hero,
                free0,
                state - 1,
                drawn_w,
                cand,
                n_cand,
                True,
                k_exact,
                exact_random,
                exact_w,
                ea,
                eb,
                et,
                ne,
                ba,
                bb,
                bt,
                nb,
                n0 - 2 * n_drawn,
                plow,
                phigh,
                row_masks,
                bits,
                u_dense,
                coef,
                total,
                share,
                out,
            )
        if all_random:
            out[3] += _matchings(n0, k_all) * ordered_all
        else:
            _enumerate_column(
                n_drawn,
                levels,
                level,
                hero,
                free0,
                0,
                drawn_w,
                cand,
                n_cand,
                False,
                k_exact,
                exact_random,
                exact_w,
                ea,
                eb,
                et,
                0,
                ba,
                bb,
                bt,
                1,
                n0 - 2 * n_drawn,
                plow,
                phigh,
                row_masks,
                bits,
                u_dense,
                coef,
                total,
                share,
                out,
            )


@jit
def _against_uniform(board, columns, hero_w, rows_of_card, plow, phigh):
    """(score, deals) of a hero range against a uniformly random villain, card removal exact.

    Against every other valid row a row's doubled score is its W (docs/contract.md)
    and every column has the same number of valid rows, so the sums over columns come
    straight from the hero rows; the villain rows sharing one card with a hero row are
    then taken out, each pair compared once (16 columns per vector instruction), the
    columns valid for both counted from the cards (as :mod:`matchdb.equity.heads_up` does).
    """
    n_rows, n_cols = board.shape
    n_valid = 0
    for k in range(n_rows):
        n_valid += board[k, 0] != SENTINEL
    touching = np.zeros(49, dtype=np.int64)
    exact = np.zeros((49, 49), dtype=np.int64)
    for c in range(n_cols):
        x = plow[columns[c]]
        y = phigh[columns[c]]
        touching[x] += 1
        touching[y] += 1
        exact[x, y] += 1
        exact[y, x] += 1
    score = 0.0
    deals = 0.0
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
    # villains sharing one card with a hero hand: compare each such pair once
    for a in range(49):
        for i in range(48):
            r1 = rows_of_card[a, i]
            x = plow[r1] + phigh[r1] - a
            w1 = hero_w[r1]
            for j in range(i + 1, 48):
                r2 = rows_of_card[a, j]
                w2 = hero_w[r2]
                if w1 == 0.0 and w2 == 0.0:
                    continue
                y = plow[r2] + phigh[r2] - a
                both = n_cols - touching[a] - touching[x] - touching[y] + exact[a, x] + exact[a, y] + exact[x, y]
                if both <= 0:
                    continue
                first = _pair_score(board[r1], board[r2]) / 2.0  # r1 against r2; r2 gets what is left
                score -= w1 * first + w2 * (both - first)
                deals -= (w1 + w2) * both
    return score, deals
