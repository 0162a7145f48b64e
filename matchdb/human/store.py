"""Sessions of many people in one process: bounded, per client too, idle ones put away, each reached only by its id.

:class:`SessionStore` holds at most ``limit`` sessions in memory, and at
most ``client_limit`` started (or resumed) by one client; one not used for
``idle_seconds`` is put away: its hand in play is settled as if the person
folded (or checked, when nothing was to call) and kept, its state and
history stay on disk, and it comes back by its id through
:meth:`Session.resume`. A session the person never played (no decision, no
finished hand) leaves nothing behind when it is put away or left. A new
session beyond a limit, after the idle ones are put away, is refused
(:class:`SessionLimitError`). Every call names the session by its id; an id
that is not one (wrong characters or length) or names no session, or a kept
state that is not what a session writes, is refused
(:class:`SessionNotFoundError`), so a session cannot be reached from
another's id. One lock serialises the work of all sessions on the shared
strength source (its table slots are shared).

A request that creates a session and then fails (its answer took too long)
abandons it with its :class:`Ticket`: the session is removed, whether its
creation had finished or finishes later, so it holds no seat and leaves no
folder.

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
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from matchdb.human.session import Session, SessionError, TableConfig
from matchdb.play.games import needs_strength

__all__ = ["SessionStore", "SessionLimitError", "SessionNotFoundError", "Ticket", "private_directory",
           "IDLE_SECONDS", "LIMIT", "CLIENT_LIMIT"]

#: Sessions one process keeps open by default.
LIMIT = 200
#: Sessions one client (an address) may hold open at once by default.
CLIENT_LIMIT = 8
#: A session not used for this long is put away (it resumes by its id).
IDLE_SECONDS = 1800.0

_T = TypeVar("_T")


class SessionLimitError(SessionError):
    """The store, or this client's share of it, holds as many sessions as it may."""


class SessionNotFoundError(SessionError):
    """No session has this id."""


@dataclass
class Ticket:
    """One request's claim on the session it creates; :meth:`SessionStore.abandon` gives it up."""

    abandoned: bool = False
    session_id: str | None = None


def private_directory(directory: str | os.PathLike[str]) -> Path:
    """``directory``, made (0700) if missing, when it is a folder this process can write; else one sentence.

    >>> private_directory("/dev/null")
    Traceback (most recent call last):
    ...
    matchdb.human.session.SessionError: The sessions' folder '/dev/null' is not a folder; expected a folder (or a path where one can be made) to keep the sessions in.
    """
    path = Path(directory)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        pass
    except OSError as error:
        raise SessionError(f"The sessions' folder {str(path)!r} cannot be made ({error.strerror or error}); expected a "
                           "folder (or a path where one can be made) to keep the sessions in.") from None
    if not path.is_dir():
        raise SessionError(f"The sessions' folder {str(path)!r} is not a folder; expected a folder (or a path where one "
                           "can be made) to keep the sessions in.")
    if not os.access(path, os.W_OK | os.X_OK):
        raise SessionError(f"The sessions' folder {str(path)!r} cannot be written by this process; expected a folder "
                           "it may write.")
    return path


class SessionStore:
    """Open sessions by id, at most ``limit`` (``client_limit`` per client), put away after ``idle_seconds``; kept in
    ``directory``.

    ``db`` and ``source`` are what sessions read strengths from (one
    :class:`matchdb.play.strength.StrengthSource` shared by all);
    ``check`` turns a kept session's table settings into a
    :class:`TableConfig` on resume (a server passes one that takes built-in
    bots only); ``clock`` is the time in seconds (tests pass their own).
    """

    def __init__(self, directory: str | os.PathLike[str], limit: int = LIMIT, idle_seconds: float = IDLE_SECONDS,
                 db: Any = None, source: Any = None, clock: Callable[[], float] = time.monotonic,
                 client_limit: int = CLIENT_LIMIT, check: Callable[[Any], TableConfig] | None = None) -> None:
        self.directory = private_directory(directory)
        self.limit = limit
        self.client_limit = client_limit
        self.idle_seconds = idle_seconds
        self.db = db
        self.source = source
        self.clock = clock
        self.check = check
        self._sessions: OrderedDict[str, tuple[Session, float]] = OrderedDict()
        self._owners: dict[str, str | None] = {}  # session id -> the client that holds it
        self._pending: Counter[str | None] = Counter()  # sessions being made, by client
        self._lock = threading.Lock()  # the store's table of sessions
        self.work = threading.RLock()  # the sessions' work on the shared strength source

    def __len__(self) -> int:
        return len(self._sessions)

    def held(self, client: str | None) -> int:
        """Sessions ``client`` holds open (or is having made)."""
        with self._lock:
            return self._held(client)

    def _held(self, client: str | None) -> int:
        return sum(owner == client for owner in self._owners.values()) + self._pending[client]

    def expire(self) -> int:
        """Put away the sessions idle for ``idle_seconds`` (their hand in play settled and kept); how many."""
        now = self.clock()
        gone = []
        with self._lock:
            while self._sessions:
                session_id, (session, used) = next(iter(self._sessions.items()))
                if now - used < self.idle_seconds:
                    break
                del self._sessions[session_id]
                self._owners.pop(session_id, None)
                gone.append(session)
        for session in gone:
            with self.work:
                self._put_away(session)
        return len(gone)

    @staticmethod
    def _put_away(session: Session) -> None:
        if session.unplayed:
            session.discard()
        else:
            session.put_away()

    def _source(self) -> Any:
        if self.source is None:
            from matchdb.play.sources import TableSource

            self.source = TableSource(self.db).open()
        return self.source

    def _reserve(self, client: str | None) -> None:
        """Room for one more session of ``client``, counted as being made until :meth:`_release`."""
        if self.limit == 0:
            raise SessionLimitError("This server seats nobody: 'matchdb serve --workers N' keeps no sessions, since a "
                                    "session lives in one process; serve with one worker to play.")
        self.expire()
        with self._lock:
            if len(self._sessions) + sum(self._pending.values()) >= self.limit:
                raise SessionLimitError(f"The table is full: {len(self._sessions)} sessions are open, the most this "
                                        "server keeps; try again later.")
            if client is not None and self._held(client) >= self.client_limit:
                raise SessionLimitError(f"You hold {self._held(client)} sessions, the most one client may; leave one "
                                        "before starting another.")
            self._pending[client] += 1

    def _release(self, client: str | None) -> None:
        self._pending[client] -= 1
        if self._pending[client] <= 0:
            del self._pending[client]

    def create(self, config: TableConfig, client: str | None = None, ticket: Ticket | None = None) -> Session:
        """A new session (its first hand dealt), held by ``client``; refused when ``ticket`` was abandoned."""
        self._reserve(client)
        session, kept = None, False
        try:
            with self.work:
                if ticket is None or not ticket.abandoned:
                    needs = config.coach or needs_strength(config.make_bots())
                    session = Session.new(config, self.db, self.directory, self._source() if needs else None)
            with self._lock:
                kept = session is not None and (ticket is None or not ticket.abandoned)
                if kept:
                    assert session is not None
                    self._sessions[session.id] = (session, self.clock())
                    self._owners[session.id] = client
                    if ticket is not None:
                        ticket.session_id = session.id
            if session is not None and not kept:
                session.discard()  # before its seat comes free: a free seat means no folder is left
        finally:
            with self._lock:
                self._release(client)
        if session is None or not kept:
            raise SessionError("The request that asked for this session ended before it was made; ask again.")
        return session

    def abandon(self, ticket: Ticket) -> None:
        """Give up the session ``ticket`` asked for: removed with its folder, now or as soon as it is made."""
        with self._lock:
            ticket.abandoned = True
            found = self._sessions.pop(ticket.session_id, None) if ticket.session_id else None
            if ticket.session_id:
                self._owners.pop(ticket.session_id, None)
        if found is not None:
            with self.work:
                found[0].discard()

    def get(self, session_id: str, client: str | None = None) -> Session:
        """The session ``session_id``: open, or resumed from its folder; refused when the id names none."""
        with self._lock:
            found = self._sessions.get(session_id) if isinstance(session_id, str) else None
            if found is not None:
                self._sessions[session_id] = (found[0], self.clock())
                self._sessions.move_to_end(session_id)
                return found[0]
        self._reserve(client)
        session = None
        try:
            with self.work:
                session = Session.resume(session_id, self.directory, self.db, self.source, check=self.check)
                if self.source is None:  # the session opened one: the next sessions share it
                    self.source = session.source
        except SessionLimitError:
            raise
        except SessionError:
            raise SessionNotFoundError(f"No session has the id {str(session_id)[:64]!r}; start a new one.") from None
        finally:
            with self._lock:
                self._release(client)
                if session is not None:
                    self._sessions[session.id] = (session, self.clock())
                    self._owners[session.id] = client
        return session

    def run(self, session_id: str, call: Callable[[Session], _T], client: str | None = None) -> _T:
        """``call(session)`` for the session ``session_id``, serialised with every other session's work."""
        session = self.get(session_id, client)
        with self.work:
            return call(session)

    def close(self, session_id: str) -> None:
        """Forget an open session (its folder stays)."""
        with self._lock:
            self._sessions.pop(session_id, None)
            self._owners.pop(session_id, None)
