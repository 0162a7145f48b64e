"""The bots' exact strength as it was counted before it moved onto the equity kernels: the test oracle.

Until issue 31 the bots counted their exact and heads-up strengths with kernels of their own (rows first,
vectorised over the runouts, with the heads-up count's W-level shortcut). The strength kernel now calls
:func:`matchdb.equity.kernels.exact_hero`; ``tests/play/test_strength.py`` checks it against this copy to the
last bit (the bots' decisions compare these numbers with thresholds, so a last-bit change could flip one), and
``scripts/bench_strength.py`` times the two side by side.
"""

from __future__ import annotations

import numpy as np

from matchdb.core.pairs import N_PAIRS, PAIR_HIGH, PAIR_LOW, ROWS_OF_CARD, SENTINEL
from matchdb.equity.kernels import DROPOUT, EXACT, HEADSUP
from matchdb.jit import jit


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.int64)
    array.flags.writeable = False
    return array


_PAIR_LOW = _readonly(PAIR_LOW)
_PAIR_HIGH = _readonly(PAIR_HIGH)
_ROWS_OF_CARD = _readonly(ROWS_OF_CARD)


@jit
def _locate(frame_arrays, board):
    """(canonical index, renaming) of the flop ``board[:3]``."""
    flop_table, flop_perm = frame_arrays.flop_table, frame_arrays.flop_perm
    return np.int64(flop_table[board[0], board[1], board[2]]), np.int64(flop_perm[board[0], board[1], board[2]])


@jit
def _local_card(frame_arrays, index, perm, card):
    return np.int64(frame_arrays.local[index, frame_arrays.card_map[perm, card]])


@jit
def _headsup_post(table, row, columns, n_columns, pair_index, low, high):
    """Exact heads-up equity of ``row`` over the given columns against every row disjoint from it."""
    a = low[row]
    b = high[row]
    score = 0.0
    deals = 0.0
    hero = np.empty(n_columns, dtype=np.uint16)
    for k in range(n_columns):
        hero[k] = table[row, columns[k]]
    for k in range(table.shape[0]):
        if low[k] == a or low[k] == b or high[k] == a or high[k] == b:
            continue
        villain = table[k]
        twice = 0
        count = 0
        for c in range(n_columns):
            h = hero[c]
            v = villain[columns[c]]
            valid = (h != SENTINEL) & (v != SENTINEL)
            twice += valid * ((h > v) * 2 + (h == v))
            count += valid
        score += twice
        deals += 2 * count
    return score / deals if deals > 0 else 0.0


@jit
def _columns(frame_arrays, index, perm, board, n_board, out):
    """Fill ``out`` with the columns consistent with the board; return how many."""
    if n_board == 3:
        for j in range(N_PAIRS):
            out[j] = j
        return N_PAIRS
    turn = _local_card(frame_arrays, index, perm, board[3])
    if n_board == 4:
        turn_columns = frame_arrays.turn_columns[turn]
        for j in range(turn_columns.shape[0]):
            out[j] = turn_columns[j]
        return turn_columns.shape[0]
    river = _local_card(frame_arrays, index, perm, board[4])
    out[0] = frame_arrays.pair_index[turn, river]
    return 1


@jit
def _exact_rows(frame_arrays, index, hole_local0, hole_local1, classes, preflop, threshold, dropout, low, high,
                valid, in_range):
    """Rows of this flop's table an opponent may hold (disjoint from the hero) and those in the drop-out range."""
    local = frame_arrays.local[index]
    card_of = np.empty(49, dtype=np.int64)
    for c in range(52):
        if local[c] >= 0:
            card_of[local[c]] = c
    for k in range(low.shape[0]):
        a = low[k]
        b = high[k]
        valid[k] = not (a == hole_local0 or a == hole_local1 or b == hole_local0 or b == hole_local1)
        in_range[k] = valid[k] and (dropout == 0 or preflop[classes[card_of[a], card_of[b]], 0] >= threshold)


@jit
def _headsup_uniform(table, row, columns, n_columns, dense, hero_a, hero_b):
    """Exact equity of ``row`` against one random hand: W counts every other hand, so only card removal remains.

    ``W[row, j]`` is twice the hands below plus the hands tied among all hands
    on runout j; the hands that share a card with the hero (the 94 other rows
    holding one of its cards) are taken out by comparing them, and 990 hands
    remain on every runout (45 free cards).
    """
    rows_of_card = _ROWS_OF_CARD
    twice = 0
    count = 0
    for jj in range(n_columns):
        h = table[row, jj if dense else columns[jj]]
        if h != SENTINEL:
            twice += h
            count += 1
    for side in range(2):
        card = hero_a if side == 0 else hero_b
        for m in range(rows_of_card.shape[1]):
            k = rows_of_card[card, m]
            if k == row or (side == 1 and (_PAIR_LOW[k] == hero_a or _PAIR_HIGH[k] == hero_a)):
                continue  # the hero, and a hand holding both hero cards, counted once
            wk = table[k]
            for jj in range(n_columns):
                c = jj if dense else columns[jj]
                h = table[row, c]
                v = wk[c]
                if h != SENTINEL and v != SENTINEL:
                    twice -= 2 * (v < h) + (v == h)
    return twice / (2.0 * 990 * count) if count else 0.0


@jit
def _exact_post(table, row, columns, n_columns, opponents, flags, valid, in_range, low, high, hero_a, hero_b):
    """Exact equity (ties split) of ``row`` against 1 or 2 opponents over the given runout columns.

    Opponent o holds any hand disjoint from the known cards (``flags[o] == 0``)
    or one of the drop-out range (``in_range``). On each runout the weighted
    count of opponents' deals (ordered, card-disjoint) is a polynomial in x,
    the tie marker: with f(e) = 1 below the hero, x tied, 0 above (times the
    range indicator), two opponents give F1 F2 - sum_c F1_c F2_c +
    sum_e f1(e) f2(e), F = sum f, F_c its sum over the hands holding card c
    (inclusion-exclusion over shared cards: the counting identity of docs/guide/multiway.md). Only
    the hands that tie or beat the hero change f from its count, so one pass
    over the rows collects what differs. Runouts are weighted by the number
    of deals they allow (card removal with ranges).
    """
    two = opponents == 2
    dense = n_columns == table.shape[1]
    if not two and flags[0] == 0:
        return _headsup_uniform(table, row, columns, n_columns, dense, hero_a, hero_b)
    need_all = flags[0] == 0 or (two and flags[1] == 0)
    need_range = flags[0] != 0 or (two and flags[1] != 0)
    n_cards = 49 if two else 1
    # what the hands at or above the hero add on each runout: beats and ties, all hands and the range's
    beats = np.zeros(n_columns, dtype=np.int32)
    ties = np.zeros(n_columns, dtype=np.int32)
    card_beats = np.zeros((n_cards if need_all else 1, n_columns), dtype=np.int32)
    card_ties = np.zeros((n_cards if need_all else 1, n_columns), dtype=np.int32)
    beats_r = np.zeros(n_columns, dtype=np.int32)
    ties_r = np.zeros(n_columns, dtype=np.int32)
    card_beats_r = np.zeros((n_cards if need_range else 1, n_columns), dtype=np.int32)
    card_ties_r = np.zeros((n_cards if need_range else 1, n_columns), dtype=np.int32)
    hero = np.empty(n_columns, dtype=np.uint16)
    for jj in range(n_columns):
        hero[jj] = table[row, jj if dense else columns[jj]]
    wk = np.empty(n_columns, dtype=np.uint16)
    # the drop-out range's rows disjoint from the hero: count, per card, pairs (card removal on each runout)
    base = 0
    base_card = np.zeros(49, dtype=np.int64)
    member = np.zeros((49, 49), dtype=np.int64)
    for k in range(table.shape[0]):
        if in_range[k]:
            base += 1
            base_card[low[k]] += 1
            base_card[high[k]] += 1
            member[low[k], high[k]] = 1
            member[high[k], low[k]] = 1
    for k in range(table.shape[0]):
        if not valid[k]:
            continue
        r = in_range[k]
        if not need_all and not r:
            continue
        if dense:
            wk[:] = table[k]
        else:
            for jj in range(n_columns):
                wk[jj] = table[k, columns[jj]]
        a = low[k]
        b = high[k]
        if need_all:
            _accumulate(wk, hero, n_columns, beats, ties, card_beats, card_ties, a, b, two)
        if need_range and r:
            _accumulate(wk, hero, n_columns, beats_r, ties_r, card_beats_r, card_ties_r, a, b, two)
    numerator = 0.0
    denominator = 0.0
    n_all = 45 * 44 // 2
    for jj in range(n_columns):
        if hero[jj] == SENTINEL:
            continue
        column = jj if dense else columns[jj]
        t = low[column]  # the runout's two local cards (this column's turn and river)
        u = high[column]
        n_range = base - base_card[t] - base_card[u] + member[t, u]
        n1 = n_range if flags[0] != 0 else n_all
        b1 = beats_r[jj] if flags[0] != 0 else beats[jj]
        t1 = ties_r[jj] if flags[0] != 0 else ties[jj]
        f1_0 = n1 - b1 - t1  # hands below the hero (coefficient of x^0)
        f1_1 = t1  # hands tied (coefficient of x^1)
        if not two:
            numerator += f1_0 + 0.5 * f1_1
            denominator += n1
            continue
        n2 = n_range if flags[1] != 0 else n_all
        b2 = beats_r[jj] if flags[1] != 0 else beats[jj]
        t2 = ties_r[jj] if flags[1] != 0 else ties[jj]
        f2_0 = n2 - b2 - t2
        f2_1 = t2
        c0 = f1_0 * f2_0
        c1 = f1_0 * f2_1 + f1_1 * f2_0
        c2 = f1_1 * f2_1
        den = n1 * n2
        # minus the pairs of hands that share one card: sum over cards of F1_c F2_c
        for c in range(49):
            if c == hero_a or c == hero_b or c == t or c == u:
                continue
            m_range = base_card[c] - member[c, t] - member[c, u]
            if flags[0] != 0:
                m1, q1b, q1t = m_range, card_beats_r[c, jj], card_ties_r[c, jj]
            else:
                m1, q1b, q1t = 44, card_beats[c, jj], card_ties[c, jj]
            if flags[1] != 0:
                m2, q2b, q2t = m_range, card_beats_r[c, jj], card_ties_r[c, jj]
            else:
                m2, q2b, q2t = 44, card_beats[c, jj], card_ties[c, jj]
            g1_0 = m1 - q1b - q1t
            g2_0 = m2 - q2b - q2t
            c0 -= g1_0 * g2_0
            c1 -= g1_0 * q2t + q1t * g2_0
            c2 -= q1t * q2t
            den -= m1 * m2
        # plus the same hand taken by both (it shares both cards, subtracted twice above): sum over hands of f1 f2
        if need_range:
            c0 += n_range - beats_r[jj] - ties_r[jj]
            c2 += ties_r[jj]
            den += n_range
        else:
            c0 += n_all - beats[jj] - ties[jj]
            c2 += ties[jj]
            den += n_all
        numerator += c0 + c1 / 2.0 + c2 / 3.0
        denominator += den
    return numerator / denominator if denominator > 0 else 0.0


@jit
def _accumulate(wk, hero, n_columns, beats, ties, card_beats, card_ties, a, b, per_card):
    """Add one opponent hand (local cards a, b) where it beats or ties the hero, per runout (no branches)."""
    if per_card:
        ba = card_beats[a]
        bb = card_beats[b]
        ta = card_ties[a]
        tb = card_ties[b]
        for jj in range(n_columns):
            v = wk[jj]
            ok = v != SENTINEL
            gt = np.int32(ok & (v > hero[jj]))
            eq = np.int32(ok & (v == hero[jj]))
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
            beats[jj] += np.int32(ok & (v > hero[jj]))
            ties[jj] += np.int32(ok & (v == hero[jj]))


@jit
def exact_strength(kind, hole0, hole1, board, n_board, players, model, threshold, flags, arrays, columns):
    """The old kernel's ``HEADSUP`` and ``EXACT`` (at most two opponents) strengths after the flop."""
    frame_arrays, preflop, classes, powers, tables, slot_of, low, high = arrays
    index, perm = _locate(frame_arrays, board)
    table = tables[slot_of[index]]
    pair_index = frame_arrays.pair_index
    hero_a = _local_card(frame_arrays, index, perm, hole0)
    hero_b = _local_card(frame_arrays, index, perm, hole1)
    row = pair_index[hero_a, hero_b]
    n_columns = _columns(frame_arrays, index, perm, board, n_board, columns)
    if kind == EXACT:
        valid = np.empty(low.shape[0], dtype=np.bool_)
        in_range = np.empty(low.shape[0], dtype=np.bool_)
        dropout = model == DROPOUT
        _exact_rows(frame_arrays, index, hero_a, hero_b, classes, preflop, threshold, dropout, low, high, valid,
                    in_range)
        if not dropout:
            for o in range(players - 1):
                flags[o] = 0
        return _exact_post(table, row, columns, n_columns, players - 1, flags, valid, in_range, low, high, hero_a,
                           hero_b)
    assert kind == HEADSUP
    return _headsup_post(table, row, columns, n_columns, pair_index, low, high)
