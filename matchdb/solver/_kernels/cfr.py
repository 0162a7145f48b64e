"""The traversal of the game tree: one pass for one player, as a DCFR update, a best response, or the values of
the average strategy (private: :mod:`matchdb.solver.solve` and :mod:`matchdb.solver.solution` call it).

A street subtree is traversed in two sweeps over its nodes in preorder: down,
the opponent's reach of each node (its reach at the parent times its strategy's
share of the action); then up, in reverse, the player's value of each node (a
fold or a showdown from the opponent's reach there, a deal from the next
street's subtrees, an action node from its children's values). Between the
two, the values of the subtree's deals are computed: for each card dealt
(one of each isomorphic pair), the next street's subtree with the reach
divided by the cards that can come (45 turns, 44 rivers); a card dealt as
another's image takes that card's values with the suits swapped.

The top of a traversal spreads the deals below its subtree over the threads
(:func:`traverse`); below that each thread works on its own rows. Every
function takes the spot (:class:`matchdb.solver.layout.KTree`, ``KCards``,
``KLayout`` as one tuple), the numbers (``KBuffers``), the traversal's
``Params``, and working rows.
"""

from __future__ import annotations

import numba
import numpy as np

from matchdb.jit import jit, jit_parallel
from matchdb.solver._kernels.terminal import fold_values, showdown_values, showdown_values_tied

ACTION, FOLD, SHOWDOWN, CHANCE = 0, 1, 2, 3
MAX_RIVERS = 48
UPDATE, BEST, AVERAGE = 0, 1, 2


@jit
def instance_entry(tree, layout, sub, t, r):
    """Entry of instance (subtree ``sub``, turn index ``t``, river index ``r``) in the layout's tables."""
    street = tree.sub_street[sub]
    start = tree.sub_street[0]
    if street == start:
        return layout.inst_first[sub]
    if street == 1:
        return layout.inst_first[sub] + t
    return layout.inst_first[sub] + t * MAX_RIVERS + r


@jit
def node_strategy(tree, bufs, prm, k, base, nodes, n, out):
    """The strategy at action node ``k`` of an instance (numbers from ``base``, action nodes from ``nodes``) that
    the traversal plays: regret matching when updating, else the summed strategy normalised; locked hands keep
    their lock."""
    count = tree.nact[k]
    offset = base + tree.loc[k]
    total = out[out.shape[0] - 1]  # the working rows keep one row more than the most actions
    for i in range(n):
        total[i] = 0.0
    if prm.mode == UPDATE:
        if bufs.compressed:
            for a in range(count):
                for i in range(n):
                    x = np.float32(max(bufs.regrets16[offset + a * n + i], 0))
                    out[a, i] = x
                    total[i] += x
        else:
            for a in range(count):
                for i in range(n):
                    x = bufs.regrets[offset + a * n + i]
                    x = x if x > 0.0 else np.float32(0.0)
                    out[a, i] = x
                    total[i] += x
    else:
        if bufs.compressed:
            for a in range(count):
                for i in range(n):
                    x = np.float32(bufs.strategy16[offset + a * n + i])
                    out[a, i] = x
                    total[i] += x
        else:
            for a in range(count):
                for i in range(n):
                    x = bufs.strategy[offset + a * n + i]
                    out[a, i] = x
                    total[i] += x
    even = np.float32(1.0) / np.float32(count)
    for a in range(count):
        for i in range(n):
            out[a, i] = out[a, i] / total[i] if total[i] != 0.0 else even
    lock = bufs.lock_of[nodes + tree.lnode[k]]
    if lock >= 0:
        for a in range(count):
            for i in range(n):
                x = bufs.locks[lock + a * n + i]
                if x >= 0.0:
                    out[a, i] = x


@jit
def top_down(spot, bufs, prm, inst, reach, rows):
    """The opponent's reach of every node of one subtree instance ``inst`` = (sub, base, nodes, t, r), from
    ``reach`` at its root, into ``rows`` = (R, V, src, strat): node at position q reads row ``src[q]`` of R."""
    tree, cards, _ = spot
    sub, base, nodes, _, _ = inst
    R, _, src, strat = rows
    opp = 1 - prm.player
    n_opp = cards.n[opp]
    first = tree.sub_first[sub]
    count = tree.sub_first[sub + 1] - first
    for i in range(n_opp):
        R[0, i] = reach[i]
    src[0] = 0
    for q in range(count):
        k = tree.sub_nodes[first + q]
        if tree.kind[k] != ACTION:
            continue
        if tree.player[k] == prm.player:
            for a in range(tree.nact[k]):
                src[tree.pos[tree.child[k, a]]] = src[q]
            continue
        node_strategy(tree, bufs, prm, k, base, nodes, n_opp, strat)
        row = src[q]
        for a in range(tree.nact[k]):
            c = tree.pos[tree.child[k, a]]
            src[c] = c
            for i in range(n_opp):
                R[c, i] = R[row, i] * strat[a, i]


@jit
def _update(tree, bufs, prm, k, base, nodes, n, children, V, strat, out):
    """DCFR at one of the player's nodes: the node's value under the current strategy, the summed strategy
    discounted by gamma plus the current one, regrets discounted (alpha when positive, beta when not) plus
    each action's value less the node's."""
    count = tree.nact[k]
    offset = base + tree.loc[k]
    for i in range(n):
        out[i] = 0.0
    for a in range(count):
        c = children[a]
        for i in range(n):
            out[i] += strat[a, i] * V[c, i]
    lock = bufs.lock_of[nodes + tree.lnode[k]]
    if not bufs.compressed:
        gamma = prm.gamma
        for a in range(count):
            row = offset + a * n
            for i in range(n):
                bufs.strategy[row + i] = bufs.strategy[row + i] * gamma + strat[a, i]
        alpha, beta = prm.alpha, prm.beta
        for a in range(count):
            row = offset + a * n
            c = children[a]
            for i in range(n):
                x = bufs.regrets[row + i]
                bufs.regrets[row + i] = x * (alpha if x >= 0.0 else beta) + V[c, i] - out[i]
        return
    index = nodes + tree.lnode[k]
    decoder = prm.gamma * bufs.sscale[index] / np.float32(65535.0)
    largest = np.float32(0.0)
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            x = strat[a, i] + np.float32(bufs.strategy16[row + i]) * decoder
            if lock >= 0 and bufs.locks[lock + a * n + i] >= 0.0:
                x = np.float32(0.0)
            strat[a, i] = x
            largest = max(largest, x)
    scale = largest if largest > 0.0 else np.float32(1.0)
    encoder = np.float32(65535.0) / scale
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            bufs.strategy16[row + i] = np.uint16(np.int32(strat[a, i] * encoder + np.float32(0.49999997)))
    bufs.sscale[index] = largest
    alpha = prm.alpha * bufs.rscale[index] / np.float32(32767.0)
    beta = prm.beta * bufs.rscale[index] / np.float32(32767.0)
    largest = np.float32(0.0)
    for a in range(count):
        row = offset + a * n
        c = children[a]
        for i in range(n):
            y = bufs.regrets16[row + i]
            x = V[c, i] + np.float32(y) * (alpha if y >= 0 else beta) - out[i]
            if lock >= 0 and bufs.locks[lock + a * n + i] >= 0.0:
                x = np.float32(0.0)
            strat[a, i] = x
            largest = max(largest, abs(x))
    scale = largest if largest > 0.0 else np.float32(1.0)
    encoder = np.float32(32767.0) / scale
    for a in range(count):
        row = offset + a * n
        for i in range(n):
            bufs.regrets16[row + i] = np.int16(np.int32(np.round(strat[a, i] * encoder)))
    bufs.rscale[index] = largest


@jit
def bottom_up(spot, bufs, prm, inst, rows):
    """The player's value of every node of one subtree instance, leaves first (see :func:`top_down`); the
    values of its deals must already be in their rows of V."""
    tree, cards, _ = spot
    sub, base, nodes, t, r = inst
    R, V, src, strat = rows
    p = prm.player
    n = cards.n[p]
    first = tree.sub_first[sub]
    count = tree.sub_first[sub + 1] - first
    children = np.empty(tree.child.shape[1], dtype=np.int64)
    for q in range(count - 1, -1, -1):
        k = tree.sub_nodes[first + q]
        kind = tree.kind[k]
        if kind == CHANCE:
            continue
        if kind == FOLD or kind == SHOWDOWN:
            pot = tree.pot[k]
            rake = min(pot * tree.rake_rate, tree.rake_cap)
            win = (0.5 * pot - rake) / tree.numcomb
            lose = -0.5 * pot / tree.numcomb
            if kind == FOLD:
                street = tree.street[k]
                if street == 0:
                    board = cards.board_mask
                elif street == 1:
                    board = cards.turn_mask[t]
                else:
                    board = cards.river_mask[t, r]
                fold_values(cards, p, board, win if tree.player[k] != p else lose, R[src[q]], V[q])
            elif rake == 0.0:
                showdown_values(cards, p, cards.runout[t, r], win, lose, R[src[q]], V[q])
            else:
                showdown_values_tied(cards, p, cards.runout[t, r], win, -0.5 * rake / tree.numcomb, lose, R[src[q]], V[q])
            continue
        nact = tree.nact[k]
        for a in range(nact):
            children[a] = tree.pos[tree.child[k, a]]
        if tree.player[k] != p:
            for i in range(n):
                V[q, i] = V[children[0], i]
            for a in range(1, nact):
                c = children[a]
                for i in range(n):
                    V[q, i] += V[c, i]
            continue
        if prm.mode == BEST:
            lock = bufs.lock_of[nodes + tree.lnode[k]]
            for i in range(n):
                V[q, i] = V[children[0], i]
            for a in range(1, nact):
                c = children[a]
                for i in range(n):
                    V[q, i] = max(V[q, i], V[c, i])
            if lock >= 0:
                for i in range(n):
                    if bufs.locks[lock + i] >= 0.0:
                        x = np.float32(0.0)
                        for a in range(nact):
                            x += bufs.locks[lock + a * n + i] * V[children[a], i]
                        V[q, i] = x
            continue
        node_strategy(tree, bufs, prm, k, base, nodes, n, strat)
        if prm.mode == UPDATE:
            _update(tree, bufs, prm, k, base, nodes, n, children, V, strat, V[q])
        else:
            for i in range(n):
                V[q, i] = 0.0
            for a in range(nact):
                c = children[a]
                for i in range(n):
                    V[q, i] += strat[a, i] * V[c, i]


@jit
def _instance(spot, sub, t, r):
    tree, _, layout = spot
    entry = instance_entry(tree, layout, sub, t, r)
    return (sub, layout.inst_base[entry], layout.inst_node[entry], t, r)


@jit
def river_pass(spot, bufs, prm, scr, at, reach):
    """One river subtree instance ``at`` = (sub, t, r, slot) on the slot's rows; its root's value ends in
    ``scr.V_river[slot][0]``."""
    sub, t, r, slot = at
    inst = _instance(spot, sub, t, r)
    rows = (scr.R_river[slot], scr.V_river[slot], scr.src_river[slot], scr.strat[slot])
    top_down(spot, bufs, prm, inst, reach, rows)
    bottom_up(spot, bufs, prm, inst, rows)


@jit
def _sum_deal(cards, p, out, n_cards, rep, swap, n_mapped, acc):
    """``acc`` = the sum over a deal's cards of their values (rows of ``out``), in float64: the cards dealt for
    themselves in order, then each card taken from another (``rep``) with the suits of ``swap`` exchanged."""
    n = cards.n[p]
    for i in range(n):  # the last card first: the order postflop-solver's sums come out in, bit for bit
        acc[i] = out[n_cards - 1, i]
    for card in range(n_cards - 2, -1, -1):
        for i in range(n):
            acc[i] += out[card, i]
    for m in range(n_mapped):
        perm = cards.swaps[swap[m], p]
        values = out[rep[m]]
        for i in range(n):
            acc[i] += values[perm[i]]


@jit
def turn_pass(spot, bufs, prm, scr, at, reach):
    """One turn subtree instance ``at`` = (sub, t, 0, slot), its rivers one after another on the slot's rows;
    its root's value ends in ``scr.V_turn[slot][0]``."""
    tree, cards, _ = spot
    sub, t, _, slot = at
    inst = _instance(spot, sub, t, np.int64(0))
    R, V, src = scr.R_turn[slot], scr.V_turn[slot], scr.src_turn[slot]
    rows = (R, V, src, scr.strat[slot])
    top_down(spot, bufs, prm, inst, reach, rows)
    p = prm.player
    n = cards.n[p]
    n_opp = cards.n[1 - p]
    below = np.empty(n_opp, dtype=np.float32)
    acc = scr.acc[slot]
    factor = np.float32(1.0 / 44.0)
    for x in range(tree.exit_first[sub], tree.exit_first[sub + 1]):
        c = tree.exits[x]
        qc = tree.pos[c]
        row = src[qc]
        for i in range(n_opp):
            below[i] = R[row, i] * factor
        for i in range(n):
            acc[i] = 0.0
        out = scr.deal_out[slot]
        for rr in range(cards.n_river[t]):
            river_pass(spot, bufs, prm, scr, (tree.next_sub[c], t, rr, slot), below)
            values = scr.V_river[slot][0]
            for i in range(n):
                out[rr, i] = values[i]
        _sum_deal(cards, p, out, cards.n_river[t], cards.rmap_rep[t], cards.rmap_swap[t], cards.rmap_n[t], acc)
        for i in range(n):
            V[qc, i] = acc[i]
    bottom_up(spot, bufs, prm, inst, rows)


@jit
def _jobs(tree, cards, layout, bufs, prm, scr, w, where):
    """Thread ``w``'s share of the deals below a subtree: every ``threads``-th (exit, card), from ``w``."""
    spot = (tree, cards, layout)
    street, t, x0, n_exits, n_cards, threads = where
    n = cards.n[prm.player]
    n_jobs = n_exits * n_cards
    for j in range(w, n_jobs, threads):
        x = j // n_cards
        card = j - x * n_cards
        nsub = tree.next_sub[tree.exits[x0 + x]]
        if street == 1:
            river_pass(spot, bufs, prm, scr, (nsub, t, card, w), scr.exit_reach[x])
            values = scr.V_river[w][0]
        else:
            turn_pass(spot, bufs, prm, scr, (nsub, card, np.int64(0), w), scr.exit_reach[x])
            values = scr.V_turn[w][0]
        for i in range(n):
            scr.job_out[j, i] = values[i]


@jit_parallel
def traverse(tree, cards, layout, bufs, prm, scr, at, reach):
    """Traverse subtree instance ``at`` = (sub, t, r) from ``reach`` at its root, the deals below it spread over
    the threads; the values of its nodes end in the calling slot's rows (``V_river``/``V_turn`` at the last
    slot, or ``V_flop``), its root's first."""
    spot = (tree, cards, layout)
    sub, t, r = at
    street = tree.sub_street[sub]
    slots = scr.strat.shape[0]
    top = slots - 1
    threads = slots - 1
    if street == 2:
        river_pass(spot, bufs, prm, scr, (sub, t, r, top), reach)
        return
    if street == 1:
        R, V, src = scr.R_turn[top], scr.V_turn[top], scr.src_turn[top]
        factor = np.float32(1.0 / 44.0)
        n_cards = cards.n_river[t]
    else:
        R, V, src = scr.R_flop, scr.V_flop, scr.src_flop
        factor = np.float32(1.0 / 45.0)
        n_cards = cards.turn_card.shape[0]
    inst = _instance(spot, sub, t, r)
    rows = (R, V, src, scr.strat[top])
    top_down(spot, bufs, prm, inst, reach, rows)
    p = prm.player
    n = cards.n[p]
    n_opp = cards.n[1 - p]
    x0 = tree.exit_first[sub]
    n_exits = tree.exit_first[sub + 1] - x0
    for x in range(n_exits):
        row = src[tree.pos[tree.exits[x0 + x]]]
        for i in range(n_opp):
            scr.exit_reach[x, i] = R[row, i] * factor
    where = (np.int64(street), np.int64(t), np.int64(x0), np.int64(n_exits), np.int64(n_cards), np.int64(threads))
    for w in numba.prange(threads):  # a parallel loop's index is unsigned: made int64, so one compiled version
        _jobs(tree, cards, layout, bufs, prm, scr, np.int64(w), where)
    acc = scr.acc[top]
    for x in range(n_exits):
        out = scr.job_out[x * n_cards : (x + 1) * n_cards]
        if street == 1:
            _sum_deal(cards, p, out, n_cards, cards.rmap_rep[t], cards.rmap_swap[t], cards.rmap_n[t], acc)
        else:
            _sum_deal(cards, p, out, n_cards, cards.tmap_rep, cards.tmap_swap, cards.tmap_rep.shape[0], acc)
        q = tree.pos[tree.exits[x0 + x]]
        for i in range(n):
            V[q, i] = acc[i]
    bottom_up(spot, bufs, prm, inst, rows)
