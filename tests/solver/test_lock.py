"""Node locking: with one player's strategy fixed at a node, the other's becomes a best response to it.

The spots are postflop-solver's own node-locking examples (examples/node_locking.rs), moved to a river of the
small store where no card is shared: OOP holds the nuts (AA) and air (QQ, TT), IP a bluff catcher (KK), bets all-in.
"""

from __future__ import annotations

import pytest

from matchdb.solver import SolverError, resolve
from tests.solver import reference

BOARD = "2c7dJh3s8c"


def _best_response_gain(solution, player: int) -> float:
    """How much the player would gain by a best response (an independent one: tests/solver/reference.py)."""
    total = reference.deal_weight(solution)
    w = list(solution.root.weights(player))
    best = reference.counterfactual_values(solution, player, best=True)
    own = reference.counterfactual_values(solution, player, best=False)
    return sum(x * (b - o) for x, b, o in zip(w, best, own, strict=True)) / total


@pytest.mark.parametrize(("call", "qq_bets"), [(0.75, 0.0), (0.5, 1.0)])
def test_a_locked_caller_meets_a_best_response(small_db, call, qq_bets):
    """IP locked to call an all-in 75 % (50 %): betting QQ loses (wins) against it, so QQ checks (bets) always."""
    solution = small_db.solve("AA,QQ", "KK", BOARD, pot=20, stack=10, bet="a", target=0.05,
                              locks={"All-in 10": {"Fold": 1 - call, "Call": call}})
    locked = solution.node("All-in 10")
    assert locked.strategy[1] == pytest.approx([call] * 6)
    strategy = solution.root.strategy
    hands = solution.root.hands("oop")
    qq = [i for i, h in enumerate(hands) if h.startswith("Q")]
    aa = [i for i, h in enumerate(hands) if h.startswith("A")]
    assert strategy[1, qq] == pytest.approx([qq_bets] * 6, abs=1e-3)
    assert strategy[1, aa] == pytest.approx([1.0] * 6, abs=1e-3)
    assert _best_response_gain(solution, 0) == pytest.approx(0.0, abs=0.02)


def test_a_partial_lock_keeps_its_hands_and_moves_the_rest(small_db):
    """TT locked to check 80 %: QQ, the other air, makes up the bluffs (check 70 %), AA always bets (the peer's
    partial-locking example gives the same 0.8 / 0.7 / 0)."""
    tt = {f"T{a}T{b}": {"Check": 0.8, "All-in 10": 0.2} for a, b in ("cd", "ch", "cs", "dh", "ds", "hs")}
    solution = small_db.solve("AA,QQ,TT", "KK", BOARD, pot=10, stack=10, bet="a", target=0.02, locks={"": tt})
    root = solution.root
    check = {hand[:2] + hand[2]: root.strategy[0, i] for i, hand in enumerate(root.hands("oop"))}
    assert all(v == pytest.approx(0.8, abs=1e-6) for k, v in check.items() if k.startswith("T"))
    assert all(v == pytest.approx(0.7, abs=0.01) for k, v in check.items() if k.startswith("Q"))
    assert all(v == pytest.approx(0.0, abs=0.01) for k, v in check.items() if k.startswith("A"))


def test_resolving_a_solution_with_a_lock(small_db):
    free = small_db.solve("AA,QQ", "KK", BOARD, pot=20, stack=10, bet="a", target=0.1)
    locked = resolve(free, {"All-in 10": {"Call": 1}})
    assert locked.node("All-in 10").frequencies() == pytest.approx([0.0, 1.0])
    assert locked.root.frequencies()[1] == pytest.approx(0.5, abs=1e-3)  # only AA bets into a caller who never folds
    assert locked.locks == {"All-in 10": {"Call": 1}}


@pytest.mark.parametrize(("locks", "words"), [
    ({"All-in 10": {"Raise 30": 1}}, "names the action"),
    ({"All-in 10, Call": {"Call": 1}}, "leads to no decision"),
    ({"All-in 10": {"AhAs": {"Call": 1}}}, "does not hold"),
    ({"All-in 10": [[1, 0]]}, "has shape"),
    ({"All-in 10": {"Fold": "most"}}, "is not a number"),
])
def test_bad_locks_are_refused_in_one_sentence(small_db, locks, words):
    with pytest.raises(SolverError, match=words):
        small_db.solve("AA,QQ", "KK", BOARD, pot=20, stack=10, bet="a", locks=locks)
