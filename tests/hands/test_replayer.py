"""Replaying through matchdb's engine: the real files identical or raked, pokerkit as the oracle, refusals named."""

from __future__ import annotations

from decimal import Decimal

import pytest

from matchdb.hands import ReplayError, read_text, replay, replay_hand
from matchdb.hands.replayer import replay_files
from tests.hands.conftest import DATA, phh

pokerkit = pytest.importorskip("pokerkit")


def test_the_real_files_replay_with_counts(sample_replays):
    report, hands = sample_replays
    assert report.read == 191
    assert (report.identical, report.raked, report.unrecorded) == (45, 50, 95)
    assert dict(report.refused) == {"disagreement": 1}
    [refusal] = report.refusals
    # ABS hand 25: the record pays 3.50 for a raise to 3 that everybody folded to (pot 4.50, 2 of it uncalled):
    # more than any reading of its actions gives, probably a posted blind the record leaves out
    assert refusal.message == (
        "Hand abs-100nl.phhs [25] pays p3 3.50 in the record but 2.50 in the engine (record [0.00, 0.00, 3.50, "
        "0.00, 0.00, 0.00, 0.00], engine [0.00, 0.00, 2.50, 0.00, 0.00, 0.00, 0.00]).")
    assert round(report.rake, 2) == 44.40
    assert len(hands) == 190


def test_every_replayed_hand_ends_as_pokerkit_ends_it(sample_replays):
    """Every hand's result before rake equals pokerkit's replay of the same record, hidden showdown cards included.

    The one difference is named: Ongame [2]'s post, which the site took as dead money and pokerkit as p3's bet.
    """
    _, hands = sample_replays
    for done in hands:
        state = list(done.record.history())[-1]
        theirs = [Decimal(x) for x in state.payoffs]
        mine = [done.record.amount(x - y) for x, y in zip(done.engine.stacks, done.engine.start, strict=True)]
        if "post counted as dead money" in done.notes:
            assert done.record.label == "ong-1000nl.phhs [2]" and mine[2] - theirs[2] == -5
            continue
        assert mine == theirs, done.record.label


def test_raked_hands_pay_the_record_and_keep_the_rake(sample_replays):
    _, hands = sample_replays
    raked = [d for d in hands if d.status == "raked"]
    for done in raked:
        assert sum(done.won) - sum(done.paid) == done.rake > 0
        assert all(p <= w for p, w in zip(done.paid, done.won, strict=True))
        if done.paid != done.record.winnings:  # Party's winnings count the uncalled bet given back; Ongame's split
            assert done.notes[0] in ("uncalled bet counted as won", "winnings from finishing stacks")
    # ABS hand 3: 5.00 preflop, the flop raise to 17 uncalled past 6: a 17.00 pot, 15.65 collected
    [third] = [d for d in hands if d.record.label == "abs-100nl.phhs [3]"]
    assert (third.status, third.record.amount(third.rake)) == ("raked", Decimal("1.35"))


def test_walks_count_the_returned_big_blind_as_collected(sample_replays):
    """Absolute Poker writes a walk's whole pot (1.50) as collected; the engine returns 0.50 uncalled: same stacks."""
    _, hands = sample_replays
    [walk] = [d for d in hands if d.record.label == "abs-100nl.phhs [7]"]
    assert walk.status == "identical" and walk.won[1] == 100 and walk.record.winnings[1] == 150


def test_heads_up_seats_as_pokerkit_does():
    """Heads-up p1 posts the big blind and p2, the button, the small blind and acts first preflop."""
    done = replay_hand(next(iter(read_text(phh(["d dh p1 ????", "d dh p2 ????", "p2 cbr 6", "p1 f"],
                                               stacks=(100, 100), winnings=[0, 8]), "hu.phh"))))
    assert done.status == "identical" and done.engine.button == 1 and done.final == (98, 102)


@pytest.mark.parametrize(("actions", "words"), [
    (["p2 cbr 6", "p3 f"], "action 1 'p2 cbr 6' comes when p3 is to act."),
    (["p3 cbr 3", "p1 f"], "action 1 'p3 cbr 3' bets or raises to 3; the rules allow 4 to 100."),
    (["p3 cbr 500"], "action 1 'p3 cbr 500' bets or raises to 500; the rules allow 4 to 100."),
    (["p3 f", "p1 f", "p2 cc"], "action 3 'p2 cc' comes after the hand is over."),
])
def test_an_illegal_action_is_named_and_the_rest_replayed(actions, words):
    text = phh(actions, number=1) + "\n" + phh(["p3 f", "p1 f"], number=2, winnings=[0, 3, 0])
    report = replay(read_text(text, "bad.phhs"))
    assert (report.read, report.identical, dict(report.refused)) == (2, 1, {"illegal": 1})
    assert report.refusals[0].message == f"Hand bad.phhs [1], {words}"


def test_a_record_that_stops_early_is_incomplete():
    with pytest.raises(ReplayError, match=r"the record stops while p1 is to act on the preflop\.") as error:
        replay_hand(next(iter(read_text(phh(["p3 cc"]), "short.phh"))))
    assert error.value.reason == "incomplete"


@pytest.mark.parametrize(("change", "words"), [
    ({"blinds": (0, 0)}, "posts no blind, straddle or ante; pokerkit and the engine need one."),
    ({"antes": 1, "extra": "antes = [1, 1, 2]"}, None),
])
def test_set_ups_the_engine_does_not_play_are_refused(change, words):
    text = phh(["p3 f", "p1 f"], **{k: v for k, v in change.items() if k != "extra"})
    if "extra" in change:
        text = text.replace("antes = [1, 1, 1]", change["extra"])
        words = "has unequal antes [1, 1, 2]"
    report = replay(read_text(text, "table.phh"))
    assert dict(report.refused) == {"table": 1} and words in report.refusals[0].message


def test_hidden_cards_at_a_showdown_lose_as_mucked_hands_do():
    actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cc", "p1 cc", "p2 cc", "d db 2c7dJh", "p1 cc",
               "p2 cc", "p3 cc", "d db 3s", "p1 cc", "p2 cc", "p3 cc", "d db 9h", "p1 cc", "p2 cc", "p3 cc",
               "p1 sm 4c4d", "p2 sm ????", "p3 sm ????"]
    done = replay_hand(next(iter(read_text(phh(actions), "muck.phh"))))
    assert done.won == (6, 0, 0) and done.status == "unrecorded"


def test_unlimited_stacks_replay(tmp_path):
    text = phh(["d dh p1 ????", "d dh p2 ????", "p2 cbr 2000", "p1 cc", "d db 2c7dJh", "d db 3s", "d db 9h",
                "p1 sm AsAd", "p2 sm KsKd"], stacks=("inf", 2000), winnings=[4000, 0])
    done = replay_hand(next(iter(read_text(text.replace("'inf'", "inf"), "ipoker.phh"))))
    assert done.final == (None, 0) and done.status == "identical"


def test_steps_give_a_replayer_every_state():
    """What a page's replayer steps through: after each action the board, the pot, stacks and bets."""
    text = phh(["d dh p1 AsAd", "d dh p2 ????", "d dh p3 KcKd", "p3 cbr 6", "p1 cc", "p2 f", "d db 2c7dJh",
                "p1 cbr 10", "p3 f"])
    done = replay_hand(next(iter(read_text(text, "steps.phh"))))
    assert [str(s) for s in done.steps] == ["p3 raises to 6 (preflop, pot 3)", "p1 calls 5 (preflop, pot 9)",
                                            "p2 folds (preflop, pot 14)", "p1 bets 10 (flop, pot 14)",
                                            "p3 folds (flop, pot 24)"]
    assert done.steps[3].board == done.board[:3] and done.steps[3].stacks == (84, 98, 94)
    assert done.steps[3].bets == (10, 0, 0) and done.steps[4].in_hand == (True, False, False)


def test_dask_replays_files_to_the_same_counts(sample_replays):
    report, _ = sample_replays
    together = replay_files(DATA, workers=2)
    assert together.to_dict() | {"seconds": 0, "refusals": []} == report.to_dict() | {"seconds": 0, "refusals": []}
    assert [r.message for r in together.refusals] == [r.message for r in report.refusals]
