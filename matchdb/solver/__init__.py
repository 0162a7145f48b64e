"""The exact heads-up postflop solver: Discounted CFR on the match tables.

Give it two ranges, a board (flop, turn or river), the pot, the effective
stack and the bet sizes; it solves the game to a target exploitability and
answers, at every node, what each hand does, how often, and what each action
is worth. The showdown of every hand on every runout is read from the flop's
match table (one read per solve), not evaluated.

>>> solution = db.solve("AA,QQ", "KK", "2c7dJh3s8c", pot=100, stack=100, bet="a", target=0.05)
>>> solution.root.actions, [round(f, 2) for f in solution.root.frequencies()]
(['Check', 'All-in 100'], [0.25, 0.75])

Modules: :mod:`~matchdb.solver.sizes` (bet-size syntax),
:mod:`~matchdb.solver.tree` (the action tree, postflop-solver's rules),
:mod:`~matchdb.solver.game` (hands, deals, showdown orders, isomorphism),
:mod:`~matchdb.solver.layout` (the kernels' arrays, memory),
:mod:`~matchdb.solver.solve` (DCFR, exploitability),
:mod:`~matchdb.solver.navigate` (lines through the game),
:mod:`~matchdb.solver.solution` (answers at nodes, files),
:mod:`~matchdb.solver.categories` (hand categories),
:mod:`~matchdb.solver.lock` (node locking) and :mod:`~matchdb.solver.api`
(:func:`solve`, :func:`load`). The numba kernels are private
(``matchdb.solver._kernels``).
"""

from __future__ import annotations

from matchdb.solver.api import DEFAULT_TARGET, load, resolve, solve
from matchdb.solver.sizes import BetSize, SolverError, parse_sizes
from matchdb.solver.solution import Solution, SolutionNode

__all__ = ["solve", "load", "resolve", "Solution", "SolutionNode", "SolverError", "BetSize", "parse_sizes", "DEFAULT_TARGET"]
