"""The coach's figures equal the Python API's: db.multiway (exact, or sampled and labelled so), the decisions module, analyse."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.core.hole_cards import hand_order
from matchdb.hands.analysis import analyse
from matchdb.human import Session, TableConfig
from matchdb.human.coach import PREFLOP_SAMPLES, band_of, session_report
from matchdb.play.bots import BOT_NAMES, DROPOUT, PAIR_OF_SIXES, opponent_flags
from matchdb.play.decisions import bet_odds, fcr_probabilities, pot_odds, rate_of_return
from matchdb.play.strength import class_of


def dropout_weights(source) -> np.ndarray:
    """West's drop-out range as 1,326 weights: classes whose preflop heads-up equity reaches a pair of sixes'."""
    classes = class_of()
    return np.array([float(source.preflop[classes[a, b], 0] >= PAIR_OF_SIXES)
                     for a, b in (parse_cards(h) for h in hand_order())])


def reference_equity(db, source, view, model: str) -> tuple[float, bool] | None:
    """The equity and whether it is exact, from the database's API (None where the coach samples with the bots' own
    sampler, or counts one drop-out range before the flop, which db.multiway would count from every table)."""
    opponents = view.players - 1
    flags = opponent_flags(view.history, view.in_hand, view.seat, DROPOUT) if model == "dropout" else [0] * opponents
    specs = [dropout_weights(source) if flag else "random" for flag in flags]
    if not view.board:
        if opponents == 1:
            return None if flags[0] else (source.headsup(view.hole), True)  # the preflop table's heads-up equity
        answer = db.multiway(view.hole, "", specs, samples=PREFLOP_SAMPLES, seed=0)
        return answer.equity, answer.exact
    if any(flags) and opponents > 3:
        return None
    answer = db.multiway(view.hole, view.board, specs, seed=0)
    if answer.exact:
        assert answer.equity == pytest.approx(db.multiway(view.hole, view.board, specs, method="exact").equity, abs=1e-12)
    return answer.equity, answer.exact


@pytest.mark.parametrize("model", ["uniform", "dropout"])
def test_coach_figures_equal_the_python_api(db, source, tmp_path, model):
    config = TableConfig(seats=4, opponents=("station", "west", "station"), stack=400, small_blind=2, big_blind=4,
                         coach=True, coach_model=model, seed=21)
    session = Session.new(config, db=db, directory=tmp_path, source=source)
    compared = postflop = sampled = three = 0
    for _ in range(8):
        while not session.hand_over:
            view = session.view()
            if not view["your_turn"]:
                session.step()
                continue
            coach = view["coach"]
            engine_view = session._human_view()
            expected = reference_equity(db, source, engine_view, model)
            if expected is not None:
                assert coach["equity"] == pytest.approx(expected[0], abs=1e-9), (engine_view.hole, engine_view.board)
                assert (coach["method"] == "exact") == expected[1] == (coach["standard_error"] == 0)
                if not expected[1]:  # a sampled figure says how many deals and its standard error
                    assert re.fullmatch(r"sampled, [\d,]+ deals, s\.e\. 0\.\d{4}", coach["method"]), coach["method"]
                    assert 0 < coach["standard_error"] < 0.002
                compared += 1
                postflop += bool(engine_view.board)
                sampled += not expected[1]
                three += bool(engine_view.board) and engine_view.players == 4 and expected[1]
            legal = view["legal"]
            odds = pot_odds(legal["to_call"], legal["pot"]) if legal["to_call"] else bet_odds(legal["pot"], legal["pot"])
            assert coach["pot_odds"] == odds
            rr = rate_of_return(coach["equity"], odds)
            assert coach["rate_of_return"] == (rr if math.isfinite(rr) else None)
            assert coach["band"] == band_of(rr)
            assert tuple(coach["west"].values()) == fcr_probabilities(rr)
            assert set(coach["bots"]) == set(BOT_NAMES)
            session.act("check" if legal["check"] else "call")
        review = session.last["review"]
        assert all(row["equity"] >= 0 for row in review["decisions"])
        session.next_hand()
    assert compared >= 10 and postflop >= 5 and sampled >= 3 and three >= 2, (compared, postflop, sampled, three)
    report = session_report(session.history_path, db)
    analysis = analyse(session.history_path, db)
    for name, stats in analysis.players.items():
        row = report["players"][name]
        assert (row["hands"], row["vpip"], row["pfr"]) == (stats.hands, stats.vpip_rate, stats.pfr_rate)
        assert row["adjusted_bb_per_100"] == pytest.approx(stats.adjusted_bb_per_100, nan_ok=True)
    assert report["players"]["you"]["hands"] == 8


def test_the_coach_labels_a_sampled_preflop_figure_and_counts_three_opponents_exactly(db, source):
    """Issue 29: preflop 2c7c against two random hands was the naive win rate (0.2431) labelled exact; it is now the
    database's exact figure (0.24572; the sampled table had 0.2458 +- 0.0002). After the flop against three opponents
    it sampled 1,000 deals."""
    from matchdb.human.coach import Coach
    from matchdb.play.engine import View

    def view(hole, board, players):
        cards = tuple(parse_cards(hole))
        return View(seat=0, hole=(cards[0], cards[1]), board=tuple(parse_cards(board)), street=0 if not board else 1,
                    pot=10, to_call=0, can_raise=True, min_raise_to=4, max_raise_to=400, stack=400, bet=0,
                    contributed=0, max_bet=0, stacks=(400,) * players, bets=(0,) * players,
                    contributions=(0,) * players, in_hand=(True,) * players, button=players - 1, small_blind=2,
                    big_blind=4, ante=0, players=players, history=())

    coach = Coach(source, "uniform")
    equity, method, standard_error = coach.equity(view("2c7c", "", 3))  # two random hands: exact (issue 29 item 7)
    assert (method, standard_error) == ("exact", 0.0)
    assert abs(equity - 0.2458) < 4 * 0.0002  # the sampled table's figure and its standard error
    assert equity == db.multiway("2c7c", "", 2, method="exact").equity
    equity, method, standard_error = coach.equity(view("2c7c", "", 4))  # three: sampled, and said
    assert method == f"sampled, {PREFLOP_SAMPLES:,} deals, s.e. {standard_error:.4f}" and 0 < standard_error < 0.001
    assert equity == db.multiway("2c7c", "", 3, samples=PREFLOP_SAMPLES, seed=0).equity
    equity, method, standard_error = coach.equity(view("AhKh", "2c7dJh", 4))
    assert (method, standard_error) == ("exact", 0.0)
    assert equity == pytest.approx(db.multiway("AhKh", "2c7dJh", 3, method="exact").equity, abs=1e-12)
    equity, method, standard_error = coach.equity(view("AhKh", "2c7dJh", 6))  # five opponents: sampled, and said
    reference = db.multiway("AhKh", "2c7dJh", 5, seed=0)
    assert method.startswith("sampled, ") and standard_error == reference.standard_error > 0
    assert equity == reference.equity
