"""The ``solver`` bot: it plays a saved solution's strategy in the solved spot, a simple rule elsewhere, in the arena too."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.play.arena import run_arena
from matchdb.play.bots import BotError, make_bot
from matchdb.play.engine import CALL, FOLD, RAISE, Table
from matchdb.play.solved import SolverBot

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)

BOARD = "2c7dJh3s8c"


@pytest.fixture(scope="module")
def solved(small_db, tmp_path_factory):
    """A river spot with mixed strategies (QQ bluffs some, KK calls some), pot 100, stacks 100, saved."""
    solution = small_db.solve("AA,QQ", "KK", BOARD, pot=100, stack=100, bet="a", target=0.1)
    path = tmp_path_factory.mktemp("solved") / "spot.npz"
    solution.save(path)
    return solution, path


def _river(oop_hole: str, ip_hole: str, board: str = BOARD, preflop_to: int = 50):
    """A real hand heads-up, stacks 150, blinds 1/2: the button raises to ``preflop_to``, the big blind calls, both
    check the flop and the turn; returned at the river with the big blind (OOP) to act."""
    table = Table([150, 150], 1, 2)
    # the first hand's button is seat 0 (checked below): seat 1 is the big blind, OOP after the flop
    deck = list(parse_cards(ip_hole)) + list(parse_cards(oop_hole)) + list(parse_cards(board))
    deck += [c for c in range(52) if c not in deck]
    hand = table.start_hand(deck)
    assert hand.view().button == 0
    hand.act(RAISE, preflop_to)
    hand.act(CALL)
    for _ in range(4):
        hand.act(CALL)  # checks on the flop and the turn
    return hand


def test_at_the_root_the_bot_plays_the_solution_s_frequencies(solved, small_db):
    solution, path = solved
    bot = SolverBot(path, seed=3, db=small_db)
    hand = _river("QhQd", "KsKd")
    view = hand.view()
    assert view.street == 3 and view.seat == 1
    node = solution.root
    i = node.hands("oop").index("QhQd")
    p = float(node.strategy[node.actions.index("All-in 100"), i])
    assert 0.05 < p < 0.95  # a mixed strategy: the test means something
    n = 2000
    allins = sum(bot.act(view) == (RAISE, view.max_raise_to) for _ in range(n))
    # within 4 standard errors of the binomial (seeded: the same count every run)
    assert abs(allins / n - p) <= 4 * math.sqrt(p * (1 - p) / n), (allins, n, p)
    assert bot.in_spot == n and bot.outside == 0


def test_the_caller_follows_the_tree_after_the_bet_and_scales_chips(solved, small_db):
    solution, path = solved
    bot = SolverBot(path, seed=1, db=small_db)
    hand = _river("AsAh", "KsKd", preflop_to=100)  # pot 200, stacks 50: a different scale, not the same ratio
    assert bot.locate(hand.view()) is None
    assert bot.act(hand.view()) == (CALL, 0)  # the simple rule: a free check
    hand = _river("AsAh", "KsKd")
    hand.act(RAISE, 100)  # OOP all-in
    view = hand.view()
    node, ratio, index = bot.locate(view)
    assert node.line == ("All-in 100",) and node.player == "IP" and ratio == 1.0
    assert node.hands("ip")[index] in ("KsKd", "KdKs")
    advice = bot.advice(view)
    assert advice["actions"] == ["Fold", "Call"]
    assert advice["frequencies"] == pytest.approx(node.strategy[:, index].tolist())
    assert advice["ev"] == pytest.approx(node.action_ev()[:, index].tolist())
    calls = sum(bot.act(view)[0] == CALL for _ in range(2000))
    p = float(node.strategy[1, index])
    assert abs(calls / 2000 - p) <= 4 * math.sqrt(p * (1 - p) / 2000) + 1e-12


def test_outside_the_spot_the_simple_rule_plays(solved, small_db):
    _, path = solved
    bot = make_bot(f"solver:{path}")
    bot.db = small_db
    other = _river("QhQd", "KsKd", board="2c7dJh3s9c")  # another river card
    assert bot.locate(other.view()) is None
    table = Table([100, 100], 1, 2)
    hand = table.start_hand()
    assert bot.act(hand.view()) == (CALL, 0)  # preflop: 1 to call into 3
    assert bot.outside == 1
    hand.act(RAISE, 60)
    assert bot.act(hand.view()) == (FOLD, 0)  # 58 to call into 62: too dear


def test_without_a_database_it_says_so(solved):
    _, path = solved
    with pytest.raises(BotError, match="needs the database"):
        SolverBot(path).act(_river("QhQd", "KsKd").view())


def test_the_arena_plays_it(solved, small_db):
    _, path = solved
    # the bot is given the database (the small store lacks the preflop table a strength source reads)
    result = run_arena([SolverBot(path, db=small_db), "station"], games=2, mode="cash", hands=20, seed=5,
                       progress=False)
    assert sorted(bot.name for bot in result.bots) == ["solver", "station"]
    assert result.bot("solver").hands == 40 and np.isfinite(result.bot("solver").bb_per_100.mean)


def test_the_coach_shows_the_solution_s_figures_in_the_spot(solved, small_db):
    from matchdb.human.coach import Coach

    solution, path = solved
    coach = Coach(None, solved=[SolverBot(path, db=small_db)])
    view = _river("QhQd", "KsKd").view()
    advice = coach.solution_advice(view)
    i = solution.root.hands("oop").index("QhQd")
    assert advice["line"] == [] and advice["actions"] == solution.root.actions
    assert advice["frequencies"] == pytest.approx(solution.root.strategy[:, i].tolist())
    assert advice["ev"] == pytest.approx(solution.root.action_ev()[:, i].tolist())
    assert advice["range_frequencies"] == pytest.approx(solution.root.frequencies())
    assert coach.solution_advice(_river("QhQd", "KsKd", board="2c7dJh3s9c").view()) is None
