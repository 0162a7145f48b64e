"""The session store: bounded, idle sessions put away and resumed by id, ids that name nothing refused."""

from __future__ import annotations

import pytest

from matchdb.human import TableConfig
from matchdb.human.store import SessionLimitError, SessionNotFoundError, SessionStore

CONFIG = TableConfig(seats=2, opponents="station", stack=100, small_blind=1, big_blind=2, seed=3)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_full_store_refuses_until_idle_sessions_are_put_away(tmp_path):
    clock = Clock()
    store = SessionStore(tmp_path, limit=2, idle_seconds=60, clock=clock)
    first = store.create(CONFIG)
    store.run(first.id, lambda s: s.run_bots())
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
