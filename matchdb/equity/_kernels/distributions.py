"""The numba kernels behind :mod:`matchdb.equity.distributions` (private: call the public functions there).

How they count is written in that module's docstring; each kernel says its part.
"""

from __future__ import annotations

import numpy as np

from matchdb.core.evaluator import evaluate_with
from matchdb.core.pairs import N_LEVELS, N_LOCAL, SENTINEL
from matchdb.equity._kernels.bits import bit_index, lowest_bit
from matchdb.equity._kernels.heads_up import _row_counts
from matchdb.jit import jit

#: Opponent hands on a full board beside a hero hand: C(45, 2). Every valid
#: entry of a row stands for as many deals against a random hand.
OPPONENTS = 990


@jit
def _row_values(low_cards, high_cards, board, straight_top, flush_value):
    """Value of each row's two cards with the board (3 to 5 card ids); -1 where a card repeats the board."""
    n = low_cards.shape[0]
    out = np.empty(n, dtype=np.int64)
    cards = np.empty(board.shape[0] + 2, dtype=np.int64)
    for k in range(board.shape[0]):  # a loop, not cards[2:] = board: a slice assignment compiles seconds of error text
        cards[2 + k] = board[k]
    counts = np.zeros(13, dtype=np.int32)
    for i in range(n):
        a = low_cards[i]
        b = high_cards[i]
        clash = False
        for c in board:
            if c == a or c == b:
                clash = True
        if clash:
            out[i] = -1
            continue
        cards[0] = a
        cards[1] = b
        out[i] = evaluate_with(cards, counts, straight_top, flush_value)
    return out


@jit
def _hand_kernel(table, row, weights, uniform, rank, rows_of_card, pair_low, pair_high, collides):
    """Per-column (score, deals) of hand ``row`` and its potential counts, over ``table``'s columns.

    ``score[c]`` is the weighted wins plus half ties against the opponent
    hands left on column c, ``deals[c]`` their weight (0 where the column
    collides with the hero). ``hp[now, river]`` and ``now[state]`` are
    Billings' counts (0 ahead, 1 tied, 2 behind).
    """
    n_rows, n_cols = table.shape
    hero = table[row]
    score = np.zeros(n_cols)
    deals = np.zeros(n_cols)
    hp = np.zeros((3, 3))
    now = np.zeros(3)
    if uniform:
        # W already counts wins twice and ties once against every valid row; take away
        # the rows sharing a hero card (16-bit counters: vectorised, at most 2 x 94).
        shared = np.zeros(n_cols, dtype=np.uint16)
        for side in range(2):
            card = pair_low[row] if side == 0 else pair_high[row]
            for i in range(rows_of_card.shape[1]):
                k = rows_of_card[card, i]
                if k == row:
                    continue
                other = table[k]
                for c in range(n_cols):
                    h = hero[c]
                    v = other[c]
                    valid = h != SENTINEL  # v == SENTINEL makes both comparisons false
                    shared[c] = np.uint16(shared[c] + np.uint16(valid & (h > v)) + np.uint16(valid & (h >= v)))
        for c in range(n_cols):
            if hero[c] != SENTINEL:
                score[c] = (np.int64(hero[c]) - np.int64(shared[c])) / 2
                deals[c] = OPPONENTS
    rh = rank[row]
    for k in range(n_rows):
        w = weights[k]
        if w == 0.0 or collides[k] or rank[k] < 0:
            continue
        other = table[k]
        n_win, n_tie, n_loss = _row_counts(hero, other)
        state = 0 if rh > rank[k] else (1 if rh == rank[k] else 2)
        now[state] += w
        hp[state, 0] += w * n_win
        hp[state, 1] += w * n_tie
        hp[state, 2] += w * n_loss
        if not uniform:
            for c in range(n_cols):
                h = hero[c]
                v = other[c]
                valid = (h != SENTINEL) & (v != SENTINEL)
                score[c] += w * (np.float64(valid & (h > v)) + 0.5 * np.float64(valid & (h == v)))
                deals[c] += w * np.float64(valid)
    return score, deals, hp, now


@jit
def _exact_bin(score, deals, bins):
    """floor(score / deals x bins) clamped to the last bin, exact when score x 2 and deals are whole numbers."""
    x = 2.0 * score * bins
    y = 2.0 * deals
    b = np.int64(x / y)
    if (b + 1) * y <= x:
        b += 1
    elif b * y > x:
        b -= 1
    return min(max(b, 0), bins - 1)


@jit
def _bins_of(score, deals, bins):
    out = np.empty(score.shape[0], dtype=np.int64)
    for i in range(score.shape[0]):
        out[i] = _exact_bin(score[i], deals[i], bins)
    return out


@jit
def _bit_prefix(tree, r):
    """Sum of the Fenwick tree's entries at ranks 0..r."""
    total = 0.0
    i = r + 1
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total


@jit
def _bit_add(tree, r, w):
    i = r + 1
    while i < tree.shape[0]:
        tree[i] += w
        i += i & -i


@jit
def _sorted_runs(col, level_count, present, order, run_start, run_end, col_score, col_deals):
    """Counting-sort one column's runs of neighbouring rows on one level, weakest first; returns how many.

    The suit variants of a hand lie side by side, so a column has 150-420 runs;
    the levels present (about 75 of 2,161) come from a bitmap. ``order[q]`` is
    the q-th run in level order; rows holding a column card get score -1 and
    deals 0. ``level_count`` and ``present`` are zero on entry and on return.
    """
    n_rows = col.shape[0]
    n_runs = 0
    k = 0
    while k < n_rows:
        v = np.int64(col[k])
        if v == SENTINEL:
            col_score[k] = -1.0
            col_deals[k] = 0.0
            k += 1
            continue
        first = k
        k += 1
        while k < n_rows and col[k] == v:
            k += 1
        run_start[n_runs] = first
        run_end[n_runs] = k
        n_runs += 1
        level_count[v] += 1
        present[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    n = 0
    for word_index in range(present.shape[0]):
        word = present[word_index]
        present[word_index] = 0
        while word:
            low = lowest_bit(word)
            word ^= low
            v = word_index * 64 + bit_index(low)
            c = level_count[v]
            level_count[v] = n
            n += c
    for q in range(n_runs):
        v = col[run_start[q]]
        order[level_count[v]] = q
        level_count[v] += 1
    for q in range(n_runs):
        level_count[col[run_start[q]]] = 0
    return n_runs


@jit
def _walk_levels(
    col, order, run_start, run_end, n_runs, weights, uniform, rank, pair_low, pair_high, total, card_total,
    card_upto, shared_below, tree, point, ahead_before, tied_before, col_score, col_deals, sums,
):
    """Walk one column's rows from the weakest level up, scoring each row (see :func:`_column_range`)."""
    card_upto[:] = 0.0
    tree[:] = 0.0
    point[:] = 0.0
    below = 0.0
    i = 0
    while i < n_runs:  # a level (its runs order[i:e]) at a time
        v = col[run_start[order[i]]]
        e = i + 1
        while e < n_runs and col[run_start[order[e]]] == v:
            e += 1
        # before the level joins: what holds each row's cards below it, and what is below and ahead / tied now
        level = 0.0
        last = -1
        ahead = 0.0
        tied_now = 0.0
        for q in range(i, e):
            for k in range(run_start[order[q]], run_end[order[q]]):
                level += weights[k]
                shared_below[k] = card_upto[pair_low[k]] + card_upto[pair_high[k]]
                r = rank[k]
                if r != last:
                    last = r
                    ahead = below - _bit_prefix(tree, r)
                    tied_now = point[r]
                ahead_before[k] = ahead
                tied_before[k] = tied_now
        # the level joins the running sums per card and the tree (a run of equal ranks at a time)
        last = rank[run_start[order[i]]]
        run = 0.0
        for q in range(i, e):
            for k in range(run_start[order[q]], run_end[order[q]]):
                w = weights[k]
                card_upto[pair_low[k]] += w
                card_upto[pair_high[k]] += w
                if rank[k] != last:
                    _bit_add(tree, last, run)
                    point[last] += run
                    last = rank[k]
                    run = 0.0
                run += w
        _bit_add(tree, last, run)
        point[last] += run
        filled = below + level
        last = -1
        ahead = 0.0
        for q in range(i, e):
            for h in range(run_start[order[q]], run_end[order[q]]):
                a = pair_low[h]
                b = pair_high[h]
                wh = weights[h]
                r = rank[h]
                if r != last:
                    last = r
                    ahead = filled - _bit_prefix(tree, r)
                # below and half of level, less what holds a or b (the row itself counts in both)
                shared_upto = card_upto[a] + card_upto[b]
                col_score[h] = below + 0.5 * (level + wh - shared_below[h] - shared_upto)
                if not uniform:
                    col_deals[h] = total - card_total[a] - card_total[b] + wh
                tied_after = point[r] - wh
                sums[h, 0] += 0.5 * (ahead_before[h] + ahead)
                sums[h, 1] += 0.5 * (tied_before[h] + tied_after)
                sums[h, 2] += tied_after - tied_before[h]
        below = filled
        i = e


@jit
def _column_range(tt, weights, uniform, rank, n_ranks, pair_low, pair_high, col_low, col_high, start, end, score_out, deals_out, sums):
    """Every row's score and deals on columns ``start`` to ``end``, and the potential's 2-D counts (added to ``sums``).

    ``tt`` is the board's columns of W, transposed (one column a row). Each
    column's valid rows are counting-sorted by W level (:func:`_sorted_runs`)
    and walked from the weakest, a level (the rows tied on that river) at a
    time (:func:`_walk_levels`): the weight below and level with a row, less
    what holds one of its cards (running sums per card), is its score against
    the opponents left on that board (card removal exact), and the deals are
    the column's weight less the weight holding one of its cards. They go to
    ``score_out[h, j]`` and ``deals_out[h, j]`` (score -1 where impossible;
    against a random hand, ``uniform``, every possible entry has 990 deals
    and ``deals_out`` is not written, else deals 0 where impossible).

    A Fenwick tree over the rows' current-strength ranks, filled in the same
    walk, gives the weight below (and level) on the river that is ahead (or
    tied) now. Rows of one level mostly share one rank (the suit variants of
    one hand), so a run of equal ranks asks the tree once. Added to ``sums``
    over the columns, per row: the score against the opponents the row is behind
    now, the score against those it is tied with now, and the ties with
    those; still counting the opponents that share one of its cards
    (``_remove_shared_potential`` takes them away).
    """
    n_rows = tt.shape[1]
    with_card = np.zeros(N_LOCAL)  # weight of the rows holding each card
    pair_weight = np.zeros((N_LOCAL, N_LOCAL))
    for k in range(n_rows):
        with_card[pair_low[k]] += weights[k]
        with_card[pair_high[k]] += weights[k]
        pair_weight[pair_low[k], pair_high[k]] = weights[k]
        pair_weight[pair_high[k], pair_low[k]] = weights[k]
    everything = weights.sum()
    level_count = np.zeros(N_LEVELS, dtype=np.int64)
    present = np.zeros((N_LEVELS + 63) // 64, dtype=np.uint64)
    order = np.empty(n_rows, dtype=np.int64)
    run_start = np.empty(n_rows, dtype=np.int64)
    run_end = np.empty(n_rows, dtype=np.int64)
    # a column's results go to block buffers first, eight columns to a block, then to the outputs a
    # row at a time: whole cache lines instead of one scattered store per row and column
    block_score = np.zeros((8, n_rows))
    block_deals = np.zeros((8, n_rows))
    card_total = np.zeros(N_LOCAL)
    card_upto = np.zeros(N_LOCAL)  # weight of the rows holding each card, up to the level being walked
    shared_below = np.empty(n_rows)
    tree = np.zeros(n_ranks + 1)
    point = np.zeros(n_ranks)
    ahead_before = np.empty(n_rows)
    tied_before = np.empty(n_rows)
    for j in range(start, end):
        col = tt[j]
        t = col_low[j]
        u = col_high[j]
        slot = (j - start) % 8
        col_score = block_score[slot]
        col_deals = block_deals[slot]
        # the weight of the rows left on this board, in all and holding each card
        total = everything - with_card[t] - with_card[u] + pair_weight[t, u]
        for a in range(N_LOCAL):
            card_total[a] = with_card[a] - pair_weight[a, t] - pair_weight[a, u]
        card_total[t] = 0.0
        card_total[u] = 0.0
        n_runs = _sorted_runs(col, level_count, present, order, run_start, run_end, col_score, col_deals)
        _walk_levels(
            col, order, run_start, run_end, n_runs, weights, uniform, rank, pair_low, pair_high, total, card_total,
            card_upto, shared_below, tree, point, ahead_before, tied_before, col_score, col_deals, sums,
        )
        if slot == 7 or j == end - 1:
            first_column = j - slot
            for h in range(n_rows):
                for m in range(slot + 1):
                    score_out[h, first_column + m] = block_score[m, h]
                if not uniform:
                    for m in range(slot + 1):
                        deals_out[h, first_column + m] = block_deals[m, h]


@jit
def _row_range(score, deals, uniform, col_low, col_high, bins, by_turn, start, end, sums, counts, mass, turn):
    """Rows ``start`` to ``end``, over their possible columns: sums (score, deals, score^2 / deals), the
    histogram of river equities (runouts and deals per bin) and, when ``by_turn``, score and deals by
    turn card. Against a random hand (``uniform``) every possible entry has 990 deals, and the bin of
    each score is looked up (twice the score is a whole number 0..1980)."""
    n_cols = score.shape[1]
    lookup = np.empty(2 * OPPONENTS + 1, dtype=np.int64)
    for twice in range(2 * OPPONENTS + 1):
        lookup[twice] = min(twice * bins // (2 * OPPONENTS), bins - 1)
    for h in range(start, end):
        s_sum = 0.0
        d_sum = 0.0
        q_sum = 0.0
        for j in range(n_cols):
            s = score[h, j]
            if s < 0.0:
                continue
            if uniform:
                d = np.float64(OPPONENTS)
                which = lookup[np.int64(2.0 * s)]
                q_sum += s * s
            else:
                d = deals[h, j]
                if d <= 0.0:
                    continue
                e = s / d
                q_sum += s * e
                # the bin, floor(e x bins), made exact against the integer counts (see _exact_bin)
                which = np.int64(e * bins)
                x = 2.0 * s * bins
                y = 2.0 * d
                if (which + 1) * y <= x:
                    which += 1
                elif which * y > x:
                    which -= 1
                which = min(max(which, 0), bins - 1)
            s_sum += s
            d_sum += d
            counts[h, which] += 1
            mass[h, which] += d
            if by_turn:
                turn[h, col_low[j], 0] += s
                turn[h, col_low[j], 1] += d
                turn[h, col_high[j], 0] += s
                turn[h, col_high[j], 1] += d
        sums[h, 0] = s_sum
        sums[h, 1] = d_sum
        sums[h, 2] = q_sum / OPPONENTS if uniform else q_sum


@jit
def _shared_card(table, rows_of_card, rank, a, twice, ties):
    """For every two rows holding card ``a``, both valid on the board, over the columns valid for both:
    ``twice[a, i, j]`` = 2 x wins + ties of the first against the second, and ``ties[a, i, j]`` the
    ties, counted only where the two are tied now (16-bit counters: vectorised). The card's rows are
    copied together first, so the comparisons run from cache."""
    n_cols = table.shape[1]
    m = rows_of_card.shape[1]
    block = np.empty((m, n_cols), dtype=np.uint16)
    for i in range(m):
        block[i] = table[rows_of_card[a, i]]
    for i in range(m):
        if rank[rows_of_card[a, i]] < 0:
            continue
        first = block[i]
        for j in range(i + 1, m):
            if rank[rows_of_card[a, j]] < 0:
                continue
            second = block[j]
            t2 = np.uint16(0)
            for c in range(n_cols):
                u = first[c]
                v = second[c]
                valid = u != SENTINEL  # v == SENTINEL makes both comparisons false
                t2 = np.uint16(t2 + np.uint16(valid & (u > v)) + np.uint16(valid & (u >= v)))
            twice[a, i, j] = t2
            if rank[rows_of_card[a, i]] == rank[rows_of_card[a, j]]:
                nt = np.uint16(0)
                for c in range(n_cols):
                    u = first[c]
                    nt = np.uint16(nt + np.uint16((u == second[c]) & (u != SENTINEL)))
                ties[a, i, j] = nt


@jit
def _shared_cards(table, rows_of_card, rank, start, end, twice, ties):
    """:func:`_shared_card` for cards ``start`` to ``end``."""
    for a in range(start, end):
        _shared_card(table, rows_of_card, rank, a, twice, ties)


@jit
def _remove_shared_potential(twice, both, ties, rows_of_card, rank, weights, behind_score, tied_score, tied_ties):
    """Take the opponents sharing one of a row's cards out of its potential sums.

    ``both`` is the number of columns valid for two rows that share one card (the same for every such pair).
    """
    m = rows_of_card.shape[1]
    for a in range(N_LOCAL):
        for i in range(m):
            r1 = rows_of_card[a, i]
            if rank[r1] < 0:
                continue
            for j in range(i + 1, m):
                r2 = rows_of_card[a, j]
                if rank[r2] < 0:
                    continue
                first = twice[a, i, j] / 2  # r1's score against r2
                second = both - first  # r2's against r1
                if rank[r2] > rank[r1]:
                    behind_score[r1] -= weights[r2] * first
                elif rank[r2] < rank[r1]:
                    behind_score[r2] -= weights[r1] * second
                else:
                    tied_score[r1] -= weights[r2] * first
                    tied_score[r2] -= weights[r1] * second
                    tied_ties[r1] -= weights[r2] * ties[a, i, j]
                    tied_ties[r2] -= weights[r1] * ties[a, i, j]


@jit
def _now_counts(rank, n_ranks, weights, rows_of_card, pair_low, pair_high):
    """(n_rows, 3): opponent weight each row is ahead of, tied with, behind now, card removal exact."""
    n_rows = rank.shape[0]
    by_rank = np.zeros(n_ranks + 1)
    for k in range(n_rows):
        if rank[k] >= 0:
            by_rank[rank[k] + 1] += weights[k]
    below = np.cumsum(by_rank)  # below[r] = weight of ranks < r
    total = below[n_ranks]
    out = np.full((n_rows, 3), np.nan)
    for h in range(n_rows):
        r = rank[h]
        if r < 0:
            continue
        ahead = below[r]
        tied = below[r + 1] - below[r] - weights[h]
        behind = total - below[r + 1]
        for side in range(2):
            card = pair_low[h] if side == 0 else pair_high[h]
            for i in range(rows_of_card.shape[1]):
                k = rows_of_card[card, i]
                if k == h or rank[k] < 0:
                    continue
                if rank[k] < r:
                    ahead -= weights[k]
                elif rank[k] == r:
                    tied -= weights[k]
                else:
                    behind -= weights[k]
        out[h, 0] = ahead
        out[h, 1] = tied
        out[h, 2] = behind
    return out
