"""Sessions: refusals change nothing, hidden cards stay hidden, every hand replays in pokerkit, resume keeps the stacks."""

from __future__ import annotations

import json
import re

import pokerkit
import pytest

from matchdb.core.cards import format_cards
from matchdb.human import Session, SessionError, TableConfig

SHORT = dict(seats=4, opponents=("allin", "station", "fives"), stack=60, small_blind=1, big_blind=2, seed=11)


def policy(view: dict, step: int) -> tuple[str, int | None]:
    """A scripted person: shoves now and then, raises the pot, calls, checks, folds some."""
    legal = view["legal"]
    if legal["raise"] and step % 7 == 0:
        return "raise", legal["presets"]["all_in"]
    if legal["raise"] and step % 5 == 0:
        return ("bet" if legal["bet"] else "raise"), legal["presets"]["pot"]
    if legal["check"]:
        return "check", None
    if step % 4 == 0:
        return "fold", None
    return "call", None


def hidden_cards(session: Session) -> set[str]:
    """The cards the person must not see yet: the bots' hole cards and the undealt board."""
    live = session._live
    assert live is not None
    hand = live.hand
    cards = set()
    for seat in range(1, session.config.seats):
        hole = hand.hole(seat)
        if hole is not None:
            cards |= {format_cards([c]) for c in hole}
    cards |= {format_cards([int(c)]) for c in hand.full_board[len(hand.board):]}
    return cards


def play(session: Session, hands: int, check_hidden: bool = False) -> int:
    step = 0
    for number in range(hands):
        while not session.hand_over:
            if check_hidden:
                view = session.view()
                shown = json.dumps({k: v for k, v in view.items() if k != "last"})
                assert not set(re.findall(r'"([2-9TJQKA][cdhs])"', shown)) & hidden_cards(session)
            if session.view()["your_turn"]:
                kind, amount = policy(session.view(), step)
                session.act(kind, amount)
                step += 1
            else:
                assert session.step() is not None
        if session.over or number == hands - 1:
            break
        session.next_hand()
    return step


def test_refused_actions_say_why_and_change_nothing(tmp_path):
    session = Session.new(TableConfig(**SHORT), directory=tmp_path)
    session.run_bots()
    view = session.view()
    assert view["your_turn"]
    before = json.dumps(view)
    legal = view["legal"]
    bad = [("shove", None), ("raise", legal["max_raise_to"] + 1), ("raise", "ten"), ("raise", None), ("bet", 1.5),
           ("raise", True), (None, None)]
    bad.append(("check", None) if legal["to_call"] else ("call", None))
    if not legal["to_call"]:
        bad.append(("fold", None))
    for kind, amount in bad:
        with pytest.raises(SessionError) as error:
            session.act(kind, amount)  # type: ignore[arg-type]
        assert str(error.value).count(".") >= 1 and "\n" not in str(error.value)
        assert json.dumps(session.view()) == before
    summary = session.leave()
    assert summary["hands"] == 1 and session.hand_over
    with pytest.raises(SessionError, match="was left"):
        session.act("call")


def test_out_of_turn_is_refused(tmp_path):
    session = Session.new(TableConfig(seats=3, opponents="station", seed=4, stack=100, small_blind=1, big_blind=2),
                          directory=tmp_path)
    if session.view()["your_turn"]:
        session.act("call")
    assert not session.view()["your_turn"]
    before = json.dumps(session.view())
    with pytest.raises(SessionError, match="turn"):
        session.act("call")
    assert json.dumps(session.view()) == before
    with pytest.raises(SessionError, match="still in play"):
        session.next_hand()


def test_no_hidden_card_in_any_view_and_showdowns_reveal(tmp_path):
    session = Session.new(TableConfig(**SHORT), directory=tmp_path)
    play(session, 30, check_hidden=True)
    assert session.hands >= 20
    shown = [session.last] if session.last else []
    assert all(set(map(int, last["shown"])) <= set(range(4)) for last in shown)


def test_every_kept_hand_replays_in_pokerkit_to_the_same_stacks(tmp_path):
    session = Session.new(TableConfig(**SHORT), directory=tmp_path)
    play(session, 40)
    with open(session.history_path, "rb") as handle:
        histories = list(pokerkit.HandHistory.load_all(handle))
    assert len(histories) == session.hands >= 30
    sidepots = 0
    for history in histories:
        assert list(list(history)[-1].stacks) == history.finishing_stacks
        sidepots += len(set(history.starting_stacks)) > 2 and history.actions[-1].startswith("d db")
    last = histories[-1]
    by_name = dict(zip(last.players, last.finishing_stacks, strict=True))
    assert [by_name.get(name, stack) for name, stack in zip(session.names, session.stacks, strict=True)] == session.stacks
    assert sidepots > 0


def test_a_restart_resumes_with_the_stacks_of_the_last_finished_hand(tmp_path):
    session = Session.new(TableConfig(**SHORT), directory=tmp_path)
    play(session, 6)
    session.next_hand()
    kept = list(session.stacks), session.hands, session.button
    session.run_bots()  # the hand in play is lost with the process
    with open(session.history_path, "ab") as phh:  # and a hand written after the last state is cut off
        phh.write(b"\n[99]\nvariant = 'NT'\n")
    again = Session.resume(session.id, tmp_path)
    assert (again.stacks, again.hands, again.button) == kept
    assert again.view()["hand"] == kept[1] + 1 and again.view()["stacks"] != [] and not again.hand_over
    with open(again.history_path, "rb") as handle:
        assert len(list(pokerkit.HandHistory.load_all(handle))) == kept[1]
    play(again, 3)
    assert again.hands == kept[1] + 3


def test_ids_are_unguessable_and_checked(tmp_path):
    ids = {Session.new(TableConfig(seats=2, opponents="station"), directory=tmp_path).id for _ in range(20)}
    assert len(ids) == 20 and all(len(i) >= 24 for i in ids)
    for bad in ("../etc", "x", "a" * 100, "abc/def" * 4, 5):
        with pytest.raises(SessionError, match="not a session id"):
            Session.resume(bad, tmp_path)  # type: ignore[arg-type]
    with pytest.raises(SessionError, match="No session"):
        Session.resume("A" * 24, tmp_path)


def test_a_sit_and_go_ends_and_its_blinds_rise(tmp_path):
    config = TableConfig(seats=3, opponents="allin", game="sng", stack=100, schedule=((1, 2, 0),),
                         hands_per_level=2, seed=3)
    session = Session.new(config, directory=tmp_path)
    play(session, 200)
    assert session.over and sum(session.stacks) == 300
    with pytest.raises(SessionError, match="over"):
        session.next_hand()
    assert config.blinds(4) == (4, 8, 0)


def test_cash_players_buy_in_again(tmp_path):
    session = Session.new(TableConfig(**SHORT), directory=tmp_path)
    play(session, 30)
    assert sum(session.stacks) == sum(session.buyins) > 4 * 60


@pytest.mark.parametrize(("settings", "message"), [
    (dict(seats=1), "seat count"), (dict(game="poker"), "game"), (dict(opponents="bluffer"), "bluffer"),
    (dict(small_blind=5, big_blind=2), "larger"), (dict(schedule=((1,),)), "schedule"), (dict(coach="yes"), "coach"),
])
def test_bad_tables_are_refused_in_one_sentence(tmp_path, settings, message):
    with pytest.raises(SessionError, match=message):
        Session.new(TableConfig(**settings), directory=tmp_path)



def test_a_failing_bot_folds_and_the_view_says_why(tmp_path):
    bot_file = tmp_path / "failing.py"
    bot_file.write_text("class Failing:\n    name = 'failing'\n\n    def act(self, view):\n        raise RuntimeError('no idea')\n")
    config = TableConfig(seats=2, opponents=f"{bot_file}:Failing", seed=2, stack=100, small_blind=1, big_blind=2)
    session = Session.new(config, directory=tmp_path)
    play(session, 3)
    assert session.view()["bot_errors"][0]["error"] == "RuntimeError: no idea"
    assert session.hands == 3 and session.names == ("you", "failing")
