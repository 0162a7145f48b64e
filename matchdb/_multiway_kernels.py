"""Numba kernels behind :mod:`matchdb.multiway` (private: call the public functions there).

All kernels work on one table's frame and on *transposed* columns: ``cols[c]``
holds the W level of every row (1,176 of them) in board column ``columns[c]``.
Cards are local indices 0..48 and a set of cards is a uint64 bit mask.

Counting (DESIGN.md section 4). On one column fix the hero (level ``L``) and
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

import numpy as np

from matchdb._jit import jit
from matchdb.pairs import N_LOCAL, SENTINEL

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
def _random_poly(ea, eb, et, ne, free, n, k, bits, out):
    """Coefficients of M(x) for ``k`` <= 3 random opponents (unordered deals) over the ``n`` free cards.

    ``ea, eb, et[:ne]`` are the top hands (type 0 tied, 1 above); those touching a card
    outside ``free`` are skipped, so one list serves any subset of the cards.
    """
    tdeg = np.zeros(49)
    adeg = np.zeros(49)
    tadj = np.zeros(49, dtype=np.uint64)
    aadj = np.zeros(49, dtype=np.uint64)
    sv = np.empty(49)
    keep = np.empty(ne, dtype=np.int64)
    n_keep = 0
    n_tied = 0
    n_above = 0
    for e in range(ne):
        a = ea[e]
        b = eb[e]
        if (free & bits[a]) == 0 or (free & bits[b]) == 0:
            continue
        keep[n_keep] = e
        n_keep += 1
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
    c_tt = np.empty(n_keep)
    c_ta = np.empty(n_keep)
    c_aa = np.empty(n_keep)
    if k >= 3:
        for i in range(n_keep):
            e = keep[i]
            a = ea[e]
            b = eb[e]
            c_tt[i] = _popcount(tadj[a] & tadj[b])
            c_ta[i] = _popcount(tadj[a] & aadj[b]) + _popcount(aadj[a] & tadj[b])
            c_aa[i] = _popcount(aadj[a] & aadj[b])
    m = np.empty(4)
    for x in range(4):
        yt = x - 1.0
        ya = -1.0
        s1 = yt * n_tied + ya * n_above
        sq = yt * yt * n_tied + n_above
        cu = yt * yt * yt * n_tied - n_above
        ss2 = 0.0
        ss3 = 0.0
        for c in range(49):
            s = yt * tdeg[c] + ya * adeg[c]
            sv[c] = s
            ss2 += s * s
            ss3 += s * s * s
        cross = ss2 - sq  # ordered pairs of hands sharing a card (a hand with itself once)
        total = _matchings(n, k)
        if k >= 1:
            total += s1 * _matchings(n - 2, k - 1)
        if k >= 2:
            total += (s1 * s1 - cross) / 2.0 * _matchings(n - 4, k - 2)
        if k >= 3:
            centre = 0.0
            tri = 0.0
            for i in range(n_keep):
                e = keep[i]
                y = yt if et[e] == 0 else ya
                nb = sv[ea[e]] + sv[eb[e]] - y
                centre += y * nb * nb
                tri += y * (yt * yt * c_tt[i] + yt * ya * c_ta[i] + ya * ya * c_aa[i])
            # ordered triples pairwise in conflict: stars (three hands on one card) and
            # triangles; ``tri`` counts each triangle once per edge, 3 times, of 6 orders
            every = ss3 - cu + 2.0 * tri
            d3 = (s1 * s1 * s1 - 3.0 * s1 * cross + 3.0 * centre - every) / 6.0
            total += d3 * _matchings(n - 6, k - 3)
        m[x] = total
    _coefficients(m, k, out)


@jit
def _weighted_poly(levels, level, hero, free, weights, k, plow, phigh, bits, u_dense, out, total_out):
    """Ordered deals of ``k`` <= 3 opponents with their own weights (``weights[i]`` over rows).

    ``out[0..3]``: coefficients of M(x); returns the weight of all deals (no
    level condition) in ``total_out[0]``. ``u_dense`` is (2, 49, 49) scratch, zero on entry and exit.
    """
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
                value = (
                    tot[0] * tot[1] * tot[2] - x01 * tot[2] - x02 * tot[1] - x12 * tot[0] + centre - every
                )
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
            ne = _collect_top(levels, level, hero, free, plow, phigh, bits, ea, eb, et)
            _random_poly(ea, eb, et, ne, free, n_free - 2, k, bits, coef)
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
            if v > best:
                best = v
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
