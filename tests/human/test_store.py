"""The session store: bounded (per client too), idle sessions put away with their hand settled and resumed by id, ids
that name nothing refused, abandoned and unplayed sessions leaving nothing behind."""

from __future__ import annotations

import pytest

from matchdb.human import TableConfig
from matchdb.human.session import SessionError
from matchdb.human.store import SessionLimitError, SessionNotFoundError, SessionStore, Ticket

CONFIG = TableConfig(seats=2, opponents="station", stack=100, small_blind=1, big_blind=2, seed=3)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def first_decision(session) -> None:
    """The bots act, then the person checks or folds: the session is played."""
    session.run_bots()
    session.act("check" if session.view()["legal"]["check"] else "fold")


def test_a_full_store_refuses_until_idle_sessions_are_put_away(tmp_path):
    clock = Clock()
    store = SessionStore(tmp_path, limit=2, idle_seconds=60, clock=clock)
    first = store.create(CONFIG)
    store.run(first.id, first_decision)
    clock.now = 30
    second = store.create(CONFIG)
    with pytest.raises(SessionLimitError, match="The table is full: 2 sessions"):
        store.create(CONFIG)
    clock.now = 70  # the first idle for 70 s, the second for 40 s
    third = store.create(CONFIG)
    assert len(store) == 2 and store.get(second.id) is second
    with pytest.raises(SessionLimitError):
        store.get(first.id)  # put away, and no room to bring it back
    clock.now = 200
    again = store.get(first.id)  # room again: resumed from its folder with its stacks
    assert again is not first and again.hands == first.hands and again.id == first.id
    assert third.id not in (first.id, second.id)


def test_ids_that_name_no_session_are_refused(tmp_path):
    store = SessionStore(tmp_path, limit=3)
    session = store.create(CONFIG)
    for bad in ("A" * 24, session.id[:-2], "../" + session.id, "", None):
        with pytest.raises(SessionNotFoundError, match="No session has the id"):
            store.get(bad)  # type: ignore[arg-type]
    assert store.get(session.id) is session


def test_a_store_of_no_sessions_says_why(tmp_path):
    with pytest.raises(SessionLimitError, match="serve with one worker"):
        SessionStore(tmp_path, limit=0).create(CONFIG)


def test_an_idle_session_keeps_its_hand_in_play_and_an_unplayed_one_leaves_nothing(tmp_path):
    clock = Clock()
    store = SessionStore(tmp_path, limit=5, idle_seconds=60, clock=clock)
    played, unplayed = store.create(CONFIG), store.create(CONFIG)
    store.run(played.id, first_decision)
    store.run(played.id, lambda s: s.next_hand() if s.hand_over else None)
    store.run(played.id, lambda s: s.run_bots())
    before = played.hands
    assert not played.hand_over
    clock.now = 100
    assert store.expire() == 2
    assert played.hand_over and played.hands == before + 1  # settled (the person folds or checks) and kept
    assert not (tmp_path / unplayed.id).exists() and (tmp_path / played.id).exists()
    again = store.get(played.id)
    assert again.hands == before + 1 and again.stacks == played.stacks


def test_one_client_holds_at_most_its_share_and_an_abandoned_session_is_removed(tmp_path):
    store = SessionStore(tmp_path, limit=10, client_limit=2)
    store.create(CONFIG, client="a"), store.create(CONFIG, client="a")
    with pytest.raises(SessionLimitError, match="You hold 2 sessions, the most one client may"):
        store.create(CONFIG, client="a")
    store.create(CONFIG, client="b")
    ticket = Ticket()
    made = store.create(CONFIG, client="b", ticket=ticket)
    store.abandon(ticket)  # the request failed after the session was made
    assert len(store) == 3 and not (tmp_path / made.id).exists() and store.held("b") == 1
    late = Ticket(abandoned=True)  # the request failed before the session was made
    with pytest.raises(SessionError, match="ended before it was made"):
        store.create(CONFIG, client="b", ticket=late)
    assert store.held("b") == 1 and len(store) == 3
