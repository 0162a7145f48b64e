"""The coach's figures equal the Python API's: db.multiway (exact), the decisions module, analyse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.core.hole_cards import hand_order
from matchdb.hands.analysis import analyse
from matchdb.human import Session, TableConfig
from matchdb.human.coach import band_of, session_report
from matchdb.play.bots import BOT_NAMES, DROPOUT, PAIR_OF_SIXES, opponent_flags
from matchdb.play.decisions import bet_odds, fcr_probabilities, pot_odds, rate_of_return
from matchdb.play.strength import class_of


def dropout_weights(source) -> np.ndarray:
    """West's drop-out range as 1,326 weights: classes whose preflop heads-up equity reaches a pair of sixes'."""
    classes = class_of()
    return np.array([float(source.preflop[classes[a, b], 0] >= PAIR_OF_SIXES)
                     for a, b in (parse_cards(h) for h in hand_order())])


def reference_equity(db, source, view, model: str) -> float | None:
    """The exact equity from the database's API (None where the coach samples or reads the naive preflop table)."""
    opponents = view.players - 1
    if not view.board:
        return source.headsup(view.hole) if opponents == 1 else None  # the preflop table's heads-up equity
    if opponents > 2:
        return None
    if model == "uniform":
        specs: list = ["random"] * opponents
    else:
        flags = opponent_flags(view.history, view.in_hand, view.seat, DROPOUT)
        weights = dropout_weights(source)
        specs = [weights if flag else "random" for flag in flags]
    return db.multiway(view.hole, view.board, specs, method="exact").equity


@pytest.mark.parametrize("model", ["uniform", "dropout"])
def test_coach_figures_equal_the_python_api(db, source, tmp_path, model):
    config = TableConfig(seats=3, opponents=("station", "west"), stack=400, small_blind=2, big_blind=4, coach=True,
                         coach_model=model, seed=21)
    session = Session.new(config, db=db, directory=tmp_path, source=source)
    compared = postflop = 0
    for _ in range(12):
        while not session.hand_over:
            view = session.view()
            if not view["your_turn"]:
                session.step()
                continue
            coach = view["coach"]
            engine_view = session._human_view()
            expected = reference_equity(db, source, engine_view, model)
            if expected is not None:
                assert coach["equity"] == pytest.approx(expected, abs=1e-9), (engine_view.hole, engine_view.board)
                compared += 1
                postflop += bool(engine_view.board)
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
    assert compared >= 10 and postflop >= 5
    report = session_report(session.history_path, db)
    analysis = analyse(session.history_path, db)
    for name, stats in analysis.players.items():
        row = report["players"][name]
        assert (row["hands"], row["vpip"], row["pfr"]) == (stats.hands, stats.vpip_rate, stats.pfr_rate)
        assert row["adjusted_bb_per_100"] == pytest.approx(stats.adjusted_bb_per_100, nan_ok=True)
    assert report["players"]["you"]["hands"] == 12
