"""The solver against answers nobody here computed with it: a toy river's closed-form equilibrium and an independent
best response (tests/solver/reference.py: plain Python, matchdb's evaluator, its own walk of the tree)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.solver import reference

#: A polarised river: OOP holds the nuts (AA) or air (QQ), IP a bluff catcher (KK); no card is shared, 6 combos each.
BOARD = "2c7dJh3s8c"


@pytest.mark.parametrize("share", [0.5, 1.0])
def test_a_polarised_bet_is_bluffed_and_called_as_the_closed_form_says(small_db, share):
    """A bet of s pots: OOP bluffs s / (1 + 2s) of its betting range, IP calls 1 / (1 + s)."""
    s = share
    solution = small_db.solve("AA,QQ", "KK", BOARD, pot=100, stack=1000, bet={"oop": f"{100 * s:g}%"}, raise_="",
                              target=0.01, max_iterations=5000)
    root = solution.root
    assert root.actions == ["Check", f"Bet {round(100 * s)}"]
    strategy = root.strategy
    hands = root.hands("oop")
    value = [i for i, h in enumerate(hands) if h.startswith("A")]
    air = [i for i, h in enumerate(hands) if h.startswith("Q")]
    bet_value = strategy[1, value].sum()
    bet_air = strategy[1, air].sum()
    assert bet_value == pytest.approx(6, abs=0.01)
    assert bet_air / (bet_air + bet_value) == pytest.approx(s / (1 + 2 * s), abs=0.005)
    call = solution.node(f"Bet {round(100 * s)}").strategy[1]
    assert call == pytest.approx(np.full(6, 1 / (1 + s)), abs=0.01)
    # the game's value: the nuts take the pot, and the bet when called (P + cB); a bluff breaks even (EV 0)
    assert solution.oop_ev == pytest.approx((100 + 100 * s / (1 + s)) / 2, abs=0.2)
    assert solution.exploitability_pct <= 0.01


@pytest.mark.parametrize(("bet", "raise_", "rake"), [("50%, a", "2.5x", (0.0, 0.0)), ("33%, 75%", "3x, a", (0.05, 3.0))])
def test_the_exploitability_is_an_independent_best_responses(small_db, bet, raise_, rake):
    solution = small_db.solve("AA,KK,QQ,JJ,T9s,A5s,76s", "AK,KQ,JJ,99,87s", "AhKhQh2c3d", pot=60, stack=200, bet=bet,
                              raise_=raise_, rake=rake[0], rake_cap=rake[1], target=2.0)
    expected = reference.exploitability(solution)
    assert solution.exploitability == pytest.approx(expected, rel=1e-4, abs=1e-5)


def test_the_evs_are_the_average_strategys_values(small_db):
    solution = small_db.solve("AA,KK,QQ,JJ,T9s,A5s,76s", "AK,KQ,JJ,99,87s", "AhKhQh2c3d", pot=60, stack=200, bet="50%, a",
                              raise_="2.5x", target=1.0)
    total = reference.deal_weight(solution)
    root = solution.root
    for p in (0, 1):
        values = reference.counterfactual_values(solution, p, best=False)
        w = root.weights(p)
        range_ev = sum(x * v for x, v in zip(w, values, strict=True)) / total + 30
        assert root.range_ev(p) == pytest.approx(range_ev, abs=1e-3)
    assert solution.oop_ev + solution.ip_ev == pytest.approx(60, abs=1e-3)
    assert not math.isnan(solution.oop_equity)
