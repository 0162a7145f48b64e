"""The DCFR loop in one compiled call: iterations, discounts and exploitability checks without a return to Python
(private: :func:`matchdb.solver.solve.run` calls :func:`iterate` a few iterations at a time, for its progress bar).

A call from Python costs a fraction of a millisecond (numba checks every array
it is given), more than a whole iteration of a small river spot: the loop lives here.
"""

from __future__ import annotations

import numpy as np

from matchdb.jit import jit
from matchdb.solver._kernels.cfr import traverse
from matchdb.solver.layout import Params

UPDATE, BEST, AVERAGE = 0, 1, 2


@jit
def discounts(t, alpha, gamma):
    """DCFR's (positive regret, negative regret, summed strategy) discounts at iteration ``t`` (from 0), as
    postflop-solver computes them (``DiscountParams::new``)."""
    if t == 0:
        power4 = 0
    else:
        power4 = 1
        while power4 * 4 <= t:
            power4 *= 4
    ta = max(t - 1, 0)
    pa = float(ta) ** alpha
    tg = float(t - power4)
    return np.float32(pa / (pa + 1.0)), np.float32(0.5), np.float32((tg / (tg + 1.0)) ** gamma)


@jit
def root_value(tree, cards, layout, bufs, scr, mode, player):
    """The player's value at the root over their starting weights (chips less half the starting pot)."""
    zero = np.float32(0.0)
    prm = Params(np.int64(mode), np.int64(player), zero, zero, zero)
    traverse(tree, cards, layout, bufs, prm, scr, (np.int64(0), np.int64(0), np.int64(0)), cards.weights[1 - player])
    street = tree.sub_street[0]
    if street == 2:
        row = scr.V_river[scr.V_river.shape[0] - 1][0]
    elif street == 1:
        row = scr.V_turn[scr.V_turn.shape[0] - 1][0]
    else:
        row = scr.V_flop[0]
    total = 0.0
    for i in range(cards.n[player]):
        total += np.float64(row[i]) * np.float64(cards.weights[player, i])
    return total


@jit
def exploitability(tree, cards, layout, bufs, scr, raked):
    """The mean over both players of the best response's gain over the average strategy, in chips."""
    best = 0.0
    own = 0.0
    for player in range(2):
        best += root_value(tree, cards, layout, bufs, scr, np.int64(BEST), np.int64(player))
        if raked:
            own += root_value(tree, cards, layout, bufs, scr, np.int64(AVERAGE), np.int64(player))
    if not raked:
        return 0.5 * best
    return 0.5 * (best - own)


@jit
def iterate(tree, cards, layout, bufs, scr, plan, history):
    """Run iterations ``plan[0]`` up to ``plan[1]`` (exclusive) unless the exploitability ``plan[2]`` (the last
    checked; checked first when ``plan[8]`` is nonzero) is at most the target ``plan[3]``; check it after every
    tenth iteration and at ``plan[4]`` (the last iteration of the whole solve). ``plan[5]``/``plan[6]`` are alpha
    and gamma, ``plan[7]`` nonzero when raked. Each check is written to ``history`` as (iteration,
    exploitability). Returns (iterations done, exploitability, checks written)."""
    start, stop, expl, target, last = int(plan[0]), int(plan[1]), plan[2], plan[3], int(plan[4])
    alpha, gamma, raked = plan[5], plan[6], plan[7] != 0.0
    done = start
    checks = 0
    if plan[8] != 0.0:
        expl = exploitability(tree, cards, layout, bufs, scr, raked)
        history[0, 0] = start
        history[0, 1] = expl
        checks = 1
    for t in range(start, stop):
        if expl <= target:
            break
        a, b, g = discounts(t, alpha, gamma)
        for player in range(2):
            prm = Params(np.int64(UPDATE), np.int64(player), a, b, g)
            traverse(tree, cards, layout, bufs, prm, scr, (np.int64(0), np.int64(0), np.int64(0)), cards.weights[1 - player])
        done = t + 1
        if done % 10 == 0 or done == last:
            expl = exploitability(tree, cards, layout, bufs, scr, raked)
            history[checks, 0] = done
            history[checks, 1] = expl
            checks += 1
    return done, expl, checks
