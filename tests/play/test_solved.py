"""The ``solver`` bot: it plays a saved solution's strategy in the solved spot, a simple rule elsewhere, in the arena too."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.core.hole_cards import hand_index
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


# -- the solver bot from a solution library: every flop -------------------------------------------------------------

@pytest.fixture(scope="module")
def library(toy_library):
    """The run's toy library: two flops (AhKhQh, AsTs9h), pot 100, stacks 100."""
    return toy_library


def _flop(oop_hole: str, ip_hole: str, flop: str, preflop_to: int = 50):
    """A real hand heads-up, stacks 150, blinds 1/2: the button (IP) raises to ``preflop_to``, the big blind calls;
    returned at the flop with the big blind (OOP) to act (pot 100, stacks 100 by default)."""
    table = Table([150, 150], 1, 2)
    deck = list(parse_cards(ip_hole)) + list(parse_cards(oop_hole)) + list(parse_cards(flop))
    deck += [c for c in range(52) if c not in deck]
    hand = table.start_hand(deck)
    hand.act(RAISE, preflop_to)
    hand.act(CALL)
    return hand


def test_from_a_library_it_plays_the_stored_frequencies_on_a_renamed_flop(library, small_db):
    from matchdb.library import open_library
    from matchdb.play.solved import LibraryBot

    bot = make_bot(f"solver:{library}")
    assert isinstance(bot, LibraryBot) and bot.name == "solver"
    bot.db = small_db
    hand = _flop("KsKd", "QhQd", "AhTh9c")  # AsTs9h with its suits renamed
    view = hand.view()
    assert view.street == 1 and view.seat == 1
    node = open_library(library).node("AhTh9c")
    figures = node.hand("KsKd")
    p = figures["Bet 50"][0]
    assert 0.05 < p < 0.95  # a mixed strategy: the test means something
    n = 2000
    bets = sum(bot.act(view) == (RAISE, 50) for _ in range(n))
    assert abs(bets / n - p) <= 4 * math.sqrt(p * (1 - p) / n), (bets, n, p)
    assert bot.in_spot == n and bot.outside == 0
    advice = bot.advice(view)
    assert advice["line"] == [] and advice["actions"] == node.actions
    assert advice["frequencies"] == [f for f, _ in figures.values()] and advice["ev"] == [ev for _, ev in figures.values()]
    assert advice["range_frequencies"] == node.frequencies()


def test_from_a_library_it_follows_the_flop_and_the_turn_and_leaves_the_river_to_the_simple_rule(library, small_db):
    from matchdb.library import open_library
    from matchdb.play.solved import LibraryBot

    bot = LibraryBot(library, seed=2, db=small_db)
    hand = _flop("KsKd", "QhQd", "AsTs9h")
    hand.act(RAISE, 50)  # OOP bets 50 (half the pot): IP faces the stored decision after "Bet 50"
    node, ratio, index = bot.locate(hand.view())
    assert node.line == ("Bet 50",) and node.player == "IP" and ratio == 1.0 and index == hand_index("QhQd")
    assert bot.advice(hand.view())["frequencies"] == [f for f, _ in open_library(library).node("AsTs9h", "Bet 50").hand("QhQd").values()]
    scaled = _flop("KsKd", "QhQd", "AsTs9h")
    scaled.act(RAISE, 48)  # within 10 % of the pot of 50: the tree's Bet 50
    assert bot.locate(scaled.view())[0].line == ("Bet 50",)
    off = _flop("KsKd", "QhQd", "AsTs9h")
    off.act(RAISE, 80)  # no stored size near 80
    assert bot.locate(off.view()) is None
    assert bot.locate(_flop("KsKd", "QhQd", "AsTs9h", preflop_to=100).view()) is None  # pot 200, stacks 50
    assert bot.locate(_flop("KsKd", "QhQd", "2c7dJh").view()) is None  # a flop the library lacks
    turn = _flop("KsKd", "QhQd", "AsTs9h")
    turn.act(CALL)
    turn.act(CALL)  # both check: the turn, played from its stored decisions
    view = turn.view()
    stored = open_library(library).node(hand_board(view), "Check, Check")
    node, ratio, index = bot.locate(view)
    assert view.street == 2 and node.street == "turn" and node.line == stored.line and index == hand_index("KsKd")
    assert bot.advice(view)["frequencies"] == [f for f, _ in stored.hand("KsKd").values()]
    turn.act(CALL)
    assert bot.locate(turn.view())[0].line[-1] == "Check" and bot.locate(turn.view())[0].player == "IP"
    turn.act(CALL)  # both check the turn: the river is the simple rule's
    assert turn.view().street == 3 and bot.locate(turn.view()) is None
    assert bot.act(turn.view()) == (CALL, 0) and bot.outside == 1  # the simple rule: a free check


def test_deeper_it_plays_the_turn_solved_again_after_the_flops_line(library, small_db):
    """``solver:NAME.zarr:deeper``: after a flop line that closes the street, the turn decision is the library's
    subgame's (the same solve, sampled within 4 standard errors); the same turn again is not solved again; a flop
    line off the tree leaves the turn to the simple rule, as does a bot without ``deeper``."""
    from matchdb.library import open_library
    from matchdb.play.solved import LibraryBot

    bot = make_bot(f"solver:{library}:deeper")
    assert isinstance(bot, LibraryBot) and bot.deeper and bot.path == str(library)
    bot.db = small_db
    hand = _flop("KsKd", "QhQd", "AhTh9c")  # AsTs9h renamed; the turn is the deck's next card
    hand.act(RAISE, 50)  # OOP bets 50 (half the pot), IP calls: the turn, OOP to act
    hand.act(CALL)
    view = hand.view()
    assert view.street == 2 and view.seat == 1
    sub = open_library(library, small_db).subgame(hand_board(view), "Bet 50, Call")
    node = sub.root
    k = node.hands(0).index("KsKd") if "KsKd" in node.hands(0) else node.hands(0).index("KdKs")
    p = float(node.strategy[0, k])
    found = bot.locate(view)
    assert found is not None and found[0].line == node.line and found[0].actions == node.actions and found[2] == k
    n = 1000
    first = sum(bot.act(view) == bot._to_engine(node.actions[0], 1.0, view) for _ in range(n))
    assert abs(first / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-9, (first, n, p)
    assert len(bot._subgames) == 1  # solved once for every decision at this turn
    advice = bot.advice(view)
    assert advice["actions"] == node.actions and advice["frequencies"] == [float(x) for x in node.strategy[:, k]]
    off = _flop("KsKd", "QhQd", "AhTh9c")
    off.act(RAISE, 80)  # off the tree on the flop: the turn is the simple rule's too
    off.act(CALL)
    assert bot.locate(off.view()) is None and len(bot._subgames) == 1
    flat = LibraryBot(library, db=small_db)  # without deeper: the turn's stored decision
    stored = flat.locate(view)[0]
    assert stored.street == "turn" and stored.line == ("Bet 50", "Call", hand_board(view)[-2:])
    assert stored.actions == node.actions


def hand_board(view) -> str:
    from matchdb.core.cards import format_cards

    return format_cards(view.board)


def test_the_arena_and_the_play_service_seat_it(library, small_db, tmp_path):
    import shutil

    from matchdb.human.session import SessionError
    from matchdb.service.play import allowed_opponent

    bot = make_bot(f"solver:{library}")
    bot.db = small_db
    result = run_arena([bot, "station"], games=2, mode="cash", hands=20, seed=5, progress=False)
    assert result.bot("solver").hands == 40
    offered = tmp_path / "spots"
    offered.mkdir()
    shutil.copytree(library, offered / "toy.zarr")
    assert allowed_opponent("solver:toy", offered) == f"solver:{(offered / 'toy.zarr').resolve()}"
    with pytest.raises(SessionError, match=r"The solution 'nope' is not one this server offers; expected one of toy\."):
        allowed_opponent("solver:nope", offered)
