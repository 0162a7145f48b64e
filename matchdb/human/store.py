"""Sessions of many people in one process: bounded, idle ones put away, each reached only by its id.

:class:`SessionStore` holds at most ``limit`` sessions in memory; one not
used for ``idle_seconds`` is put away (its kept hands and state stay on disk,
the hand in play is lost, as after a restart) and comes back by its id through
:meth:`Session.resume`. A new session beyond the limit, after the idle ones
are put away, is refused (:class:`SessionLimitError`). Every call names the
session by its id; an id that is not one (wrong characters or length) or
names no session is refused (:class:`SessionNotFoundError`), so a session
cannot be reached from another's id. One lock serialises the work of all
sessions on the shared strength source (its table slots are shared).

>>> import tempfile
>>> from matchdb.human.session import TableConfig
>>> store = SessionStore(tempfile.mkdtemp(), limit=1)
>>> first = store.create(TableConfig(seats=2, opponents="station"))
>>> store.get(first.id) is first
True
>>> store.create(TableConfig(seats=2, opponents="station"))
Traceback (most recent call last):
...
matchdb.human.store.SessionLimitError: The table is full: 1 sessions are open, the most this server keeps; try again later.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from matchdb.human.session import Session, SessionError, TableConfig
from matchdb.play.games import needs_strength

__all__ = ["SessionStore", "SessionLimitError", "SessionNotFoundError", "IDLE_SECONDS", "LIMIT"]

#: Sessions one process keeps open by default.
LIMIT = 200
#: A session not used for this long is put away (it resumes by its id).
IDLE_SECONDS = 1800.0

_T = TypeVar("_T")


class SessionLimitError(SessionError):
    """The store holds as many sessions as it may."""


class SessionNotFoundError(SessionError):
    """No session has this id."""


class SessionStore:
    """Open sessions by id, at most ``limit``, put away after ``idle_seconds``; kept in ``directory``.

    ``db`` and ``source`` are what sessions read strengths from (one
    :class:`matchdb.play.strength.StrengthSource` shared by all);
    ``clock`` is the time in seconds (tests pass their own).
    """

    def __init__(self, directory: str | os.PathLike, limit: int = LIMIT, idle_seconds: float = IDLE_SECONDS,
                 db: Any = None, source: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.db = db
        self.source = source
        self.clock = clock
        self._sessions: OrderedDict[str, tuple[Session, float]] = OrderedDict()
        self._lock = threading.Lock()  # the store's table of sessions
        self.work = threading.RLock()  # the sessions' work on the shared strength source

    def __len__(self) -> int:
        return len(self._sessions)

    def expire(self) -> int:
        """Put away the sessions idle for ``idle_seconds``; how many."""
        now = self.clock()
        gone = 0
        with self._lock:
            while self._sessions:
                session_id, (_, used) = next(iter(self._sessions.items()))
                if now - used < self.idle_seconds:
                    break
                del self._sessions[session_id]
                gone += 1
        return gone

    def _source(self) -> Any:
        if self.source is None:
            from matchdb.play.arena import open_source

            self.source = open_source(self.db)
        return self.source

    def _add(self, session: Session) -> None:
        with self._lock:
            self._sessions[session.id] = (session, self.clock())

    def _room(self) -> None:
        if self.limit == 0:
            raise SessionLimitError("This server seats nobody: 'matchdb serve --workers N' keeps no sessions, since a "
                                    "session lives in one process; serve with one worker to play.")
        self.expire()
        if len(self._sessions) >= self.limit:
            raise SessionLimitError(f"The table is full: {len(self._sessions)} sessions are open, the most this server "
                                    "keeps; try again later.")

    def create(self, config: TableConfig) -> Session:
        """A new session (its first hand dealt)."""
        self._room()
        with self.work:
            needs = config.coach or needs_strength(config.make_bots())
            session = Session.new(config, self.db, self.directory, self._source() if needs else None)
        self._add(session)
        return session

    def get(self, session_id: str) -> Session:
        """The session ``session_id``: open, or resumed from its folder; refused when the id names none."""
        with self._lock:
            found = self._sessions.get(session_id) if isinstance(session_id, str) else None
            if found is not None:
                self._sessions[session_id] = (found[0], self.clock())
                self._sessions.move_to_end(session_id)
                return found[0]
        try:
            self._room()
            with self.work:
                session = Session.resume(session_id, self.directory, self.db, self.source)
                if self.source is None:  # the session opened one: the next sessions share it
                    self.source = session.source
        except SessionLimitError:
            raise
        except SessionError:
            raise SessionNotFoundError(f"No session has the id {str(session_id)[:64]!r}; start a new one.") from None
        self._add(session)
        return session

    def run(self, session_id: str, call: Callable[[Session], _T]) -> _T:
        """``call(session)`` for the session ``session_id``, serialised with every other session's work."""
        session = self.get(session_id)
        with self.work:
            return call(session)

    def close(self, session_id: str) -> None:
        """Forget an open session (its folder stays)."""
        with self._lock:
            self._sessions.pop(session_id, None)
