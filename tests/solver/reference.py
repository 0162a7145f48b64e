"""An independent best response and strategy values for small river spots, in plain Python.

Nothing here uses the solver's kernels, layout or showdown orders: the tree is
walked recursively from the action tree's nodes, each showdown is decided by
matchdb's evaluator on the seven cards (:func:`matchdb.core.evaluator.evaluate`),
and strategies are read through the public :class:`matchdb.solver.Solution`.
Payoffs are chips relative to half the starting pot (win +pot/2 less rake,
lose -pot/2, tie -rake/2), as postflop-solver's and the solver's values are.
"""

from __future__ import annotations

from matchdb.core.cards import parse_cards
from matchdb.core.evaluator import evaluate


def _payoffs(solution, node, p: int, mine: list, theirs: list) -> list[list[float]]:
    options = solution.spot.options
    pot = options.pot + 2 * node.amount
    rake = min(pot * options.rake_rate, options.rake_cap)
    board = list(solution.spot.board)
    out = []
    for a in mine:
        row = []
        for b in theirs:
            if set(a) & set(b):
                row.append(0.0)
            elif node.kind == "fold":
                row.append(pot / 2 - rake if node.player != p else -pot / 2)
            else:
                va, vb = evaluate(list(a) + board), evaluate(list(b) + board)
                row.append(pot / 2 - rake if va > vb else -pot / 2 if va < vb else -rake / 2)
        out.append(row)
    return out


def counterfactual_values(solution, p: int, best: bool) -> list[float]:
    """Each of p's hands' value summed over the opponent's weights: the best response (``best``) or p's own
    average strategy, against the opponent's average strategy (what ``Solution.node(...).strategy`` reports)."""
    hands = [tuple(parse_cards(h)) for h in solution.root.hands(0)], [tuple(parse_cards(h)) for h in solution.root.hands(1)]
    weights = [list(solution.root.weights(0)), list(solution.root.weights(1))]
    mine, theirs = hands[p], hands[1 - p]

    def walk(node, line: list[str], reach: list[float]) -> list[float]:
        if node.kind in ("fold", "showdown"):
            table = _payoffs(solution, node, p, mine, theirs)
            return [sum(r * x for r, x in zip(reach, row, strict=True)) for row in table]
        strategy = solution.node(line).strategy
        children = node.children
        if node.player == p:
            values = [walk(c, [*line, str(a)], reach) for a, c in zip(node.actions, children, strict=True)]
            if best:
                return [max(v[i] for v in values) for i in range(len(mine))]
            return [sum(strategy[a][i] * values[a][i] for a in range(len(children))) for i in range(len(mine))]
        total = [0.0] * len(mine)
        for a, (action, child) in enumerate(zip(node.actions, children, strict=True)):
            part = walk(child, [*line, str(action)], [r * strategy[a][j] for j, r in enumerate(reach)])
            total = [x + y for x, y in zip(total, part, strict=True)]
        return total

    return walk(solution.spot.tree.root, [], weights[1 - p])


def deal_weight(solution) -> float:
    """The weight of every deal of an OOP hand and an IP hand that share no card."""
    hands = [[set(parse_cards(h)) for h in solution.root.hands(p)] for p in (0, 1)]
    w = [list(solution.root.weights(0)), list(solution.root.weights(1))]
    return sum(w[0][i] * w[1][j] for i, a in enumerate(hands[0]) for j, b in enumerate(hands[1]) if not a & b)


def exploitability(solution) -> float:
    """The mean over both players of (best response's value - the average strategy's value), in chips."""
    total = deal_weight(solution)
    gains = []
    for p in (0, 1):
        w = list(solution.root.weights(p))
        best = sum(x * v for x, v in zip(w, counterfactual_values(solution, p, True), strict=True))
        own = sum(x * v for x, v in zip(w, counterfactual_values(solution, p, False), strict=True))
        gains.append((best - own) / total)
    return sum(gains) / 2
