"""The hand replayer's frames (matchdb.hands.walkthrough): chips conserved on every step of every real hand, and every
equity equal to an independent count (every board enumerated for known hands preflop, the database's tables after it)."""

from __future__ import annotations

import pytest

from matchdb.core.cards import format_cards
from matchdb.equity.enumeration import known_hands
from matchdb.hands import read_text, replay_hand
from matchdb.hands.walkthrough import walk
from tests.hands.conftest import phh


def test_every_frame_of_every_real_hand_keeps_the_chips(sample_replays):
    _, hands = sample_replays
    assert len(hands) >= 150
    for done in hands:
        replay = walk(done)
        frames = replay["frames"]
        start = sum(done.record.amount(s) for s in done.engine.start)
        for frame in frames:
            assert sum(frame["stacks"]) + frame["pot"] == pytest.approx(float(start)), done.record.label
        assert frames[0]["text"] == "dealt" and frames[0]["board"] == ""
        assert frames[-1]["stacks"] == [float(done.record.amount(s)) for s in done.engine.stacks]
        assert frames[-1]["board"] == format_cards(done.board)
        actions = [f for f in frames if f["seat"] is not None]
        assert len(actions) == len(done.steps)
        for frame, step in zip(actions, done.steps, strict=True):
            assert frame["in_hand"] == list(step.in_hand)
            assert frame["board"] == format_cards(step.board)
        for frame in frames:  # without a database only shown hands, or the last player in, have an equity
            alone = sum(frame["in_hand"]) == 1
            for seat, equity in enumerate(frame["equity"]):
                if equity is not None:
                    assert frame["in_hand"][seat] and (alone and equity == 1.0 or done.holes[seat] is not None)


def test_shown_hands_equities_equal_independent_counts(sample_replays, full_db):
    _, hands = sample_replays
    checked = 0
    for done in hands:
        if not done.showdown or sum(h is not None for h in done.holes) < 2:
            continue
        for frame in walk(done)["frames"][:-1]:
            live = [k for k, alive in enumerate(frame["in_hand"]) if alive]
            if len(live) < 2 or any(done.holes[k] is None for k in live):
                continue
            holes = [done.holes[k] for k in live]
            if not frame["board"]:
                expected = list(known_hands(holes).equity)
            else:
                expected = [full_db.multiway(format_cards(holes[i]), frame["board"],
                                             [format_cards(h) for j, h in enumerate(holes) if j != i]).equity
                            for i in range(len(holes))]
            got = [frame["equity"][k] for k in live]
            assert got == pytest.approx(expected, abs=1e-12), (done.record.label, frame["text"])
            checked += 1
    assert checked >= 20


def test_hidden_hands_are_the_databases_multiway_answers(full_db):
    text = phh(["d dh p1 AhKh", "d dh p2 ????", "d dh p3 ????", "p3 cc", "p1 cc", "p2 cc",
                "d db 2c7dJh", "p1 cbr 4", "p2 f", "p3 cc", "d db 9s", "p1 cc", "p3 cc", "d db 3d", "p1 cc", "p3 cc"])
    done = replay_hand(next(iter(read_text(text, "hidden.phh"))))
    frames = walk(done, full_db, "random")["frames"]
    flop = next(f for f in frames if f["text"] == "p2 folds")
    assert flop["equity"][0] == pytest.approx(full_db.multiway("AhKh", "2c7dJh", ["random"]).equity, abs=1e-12)
    assert flop["equity"][1:] == [None, None]
    three = next(f for f in frames if f["text"] == "the flop: 2c7dJh")
    assert three["equity"][0] == pytest.approx(full_db.multiway("AhKh", "2c7dJh", 2).equity, abs=1e-12)
    ranged = walk(done, full_db, "QQ+")["frames"]
    turn = next(f for f in ranged if f["board"] == "2c7dJh9s" and f["seat"] is None)
    assert turn["equity"][0] == pytest.approx(full_db.multiway("AhKh", "2c7dJh9s", ["QQ+"]).equity, abs=1e-12)


def test_the_first_frame_is_the_table_the_first_actor_faced(sample_replays):
    _, hands = sample_replays
    for done in hands:
        first, step = walk(done)["frames"][0], done.steps[0]
        amount = done.record.amount
        assert first["pot"] == float(amount(step.pot)), done.record.label
        assert first["stacks"][step.seat] == float(amount(step.stack))
        assert first["bets"][step.seat] == float(amount(step.bet))
