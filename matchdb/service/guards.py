"""What every request passes: a bounded body, known parameters, a cost budget, an answer under a deadline, and an HTTP status for each error.

One client cannot stall the others: a body over :data:`MAX_BODY_BYTES` is
refused as it streams in, an unknown or repeated parameter before any work,
a question whose estimated work is over the budget of :mod:`matchdb.service.costs`
with 413 before any work too; a cheap answer is computed in a worker thread, a heavy one in a worker
process of :mod:`matchdb.service.pool` that is killed when its client goes away or
the answer deadline passes (:data:`ANSWER_SECONDS` unless the server sets another,
``matchdb serve --answer-deadline``, through :class:`AnswerDeadline`).

An error about the database is told to the client by the table it concerns,
never by where the server keeps it (:func:`client_message`); the server's log
gets the whole message.

>>> from matchdb.errors import IncompleteDatabaseError, MatchdbError, WorkLimitError
>>> status_of(MatchdbError("bad cards")), status_of(IncompleteDatabaseError("no table")), status_of(WorkLimitError("too much"))
(400, 404, 413)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from functools import partial
from typing import Any, TypeVar, get_args, get_origin

import anyio
from fastapi import Request

from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    IncompleteDatabaseError,
    MatchdbError,
    WorkLimitError,
)
from matchdb.human.store import SessionLimitError, SessionNotFoundError
from matchdb.library.spec import FlopNotStoredError
from matchdb.service.costs import Cost, check
from matchdb.storage.layout import table_name

__all__ = [
    "ANSWER_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_ANSWER_SECONDS",
    "AnswerDeadline",
    "BodyLimit",
    "answer",
    "answer_seconds",
    "check_deadline",
    "client_message",
    "compute",
    "status_of",
    "strict_parameters",
]

#: Largest request body accepted (a batch of 1,000 queries with long ranges fits).
MAX_BODY_BYTES = 2_000_000
#: Longest an answer may take before the request fails with 503 (a read that hangs, say), unless the server sets
#: another (``matchdb serve --answer-deadline``).
ANSWER_SECONDS = 30.0
#: Most seconds an answer deadline may be set to.
MAX_ANSWER_SECONDS = 3600.0

#: The deadline of the request being answered (set for each request by :class:`AnswerDeadline`).
_DEADLINE: ContextVar[float] = ContextVar("matchdb_answer_deadline", default=ANSWER_SECONDS)

_T = TypeVar("_T")


def status_of(error: MatchdbError) -> int:
    """The HTTP status of an error: 404 for a table the database lacks, a session no id names or a flop a library
    lacks, 429 for a full
    table of sessions, 413 for too much work, 503 for a damaged database or data still being prepared
    (:class:`~matchdb.errors.NotReadyError`, sent with Retry-After), else 400."""
    if isinstance(error, (SessionNotFoundError, FlopNotStoredError)):
        return 404
    if isinstance(error, SessionLimitError):
        return 429
    if isinstance(error, WorkLimitError):
        return 413  # the question is well formed, but more than this server answers
    if isinstance(error, IncompleteDatabaseError):
        return 404  # the question is fine; this database lacks the table it needs
    if isinstance(error, (CorruptDatabaseError, DatabaseError)):
        return 503  # the server's data, not the request, is at fault
    return 400


def client_message(error: MatchdbError, hidden: Iterable[str] = ()) -> str:
    """What a client is told of ``error``: its message, except that an error about the database names the table it
    concerns (its index and flop), never a path; any other mention of ``hidden`` (the database's path as given and
    resolved) becomes "the database".

    >>> error = CorruptDatabaseError("The shard of table 3 in '/srv/matchdb.zarr' is not a regular file.")
    >>> error.table = 3
    >>> client_message(error)
    "Table 3 (flop 2c3c7c) of this server's database is damaged; expected its operator to rebuild or restore it (the server's log says what is wrong)."
    >>> client_message(DatabaseError("The manifest folder of '/srv/matchdb.zarr' cannot be listed."), ["/srv/matchdb.zarr"])
    'The manifest folder of the database cannot be listed.'
    """
    text = str(error)
    if not isinstance(error, DatabaseError):
        return text
    query = re.match(r"Query \d+: ", text)  # a batch names the query at fault
    where = query.group(0) if query else ""
    if error.table is not None:
        name = table_name(error.table)
        if isinstance(error, IncompleteDatabaseError):
            return (f"{where}This server's database lacks {name}; expected a board of one of the tables it holds "
                    "(/v1/info says how many).")
        fault = "is damaged" if isinstance(error, CorruptDatabaseError) else "cannot be read"
        return (f"{where}{name[:1].upper()}{name[1:]} of this server's database {fault}; expected its operator to "
                "rebuild or restore it (the server's log says what is wrong).")
    for path in sorted({p for p in hidden if p}, key=len, reverse=True):
        text = re.sub(rf"'{re.escape(path)}[^']*'|{re.escape(path)}\S*", "the database", text)
    return text


def check_deadline(seconds: Any) -> float:
    """``seconds`` as an answer deadline, or :class:`~matchdb.errors.MatchdbError` when it is not a number of seconds
    above 0 and at most :data:`MAX_ANSWER_SECONDS`.

    >>> check_deadline(300)
    300.0
    >>> check_deadline(0)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The answer deadline 0 is out of range; expected seconds above 0, at most 3,600.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_ANSWER_SECONDS:
        raise MatchdbError(f"The answer deadline {seconds!r} is out of range; expected seconds above 0, at most "
                           f"{MAX_ANSWER_SECONDS:,.0f}.")
    return float(seconds)


def answer_seconds() -> float:
    """The answer deadline of the request being answered, in seconds (:data:`ANSWER_SECONDS` outside a request)."""
    return _DEADLINE.get()


def _seconds(value: float) -> str:
    """A deadline as a message writes it: '30 s', '0.5 s'."""
    return f"{value:g} s"


async def compute(call: Callable[..., _T], *args: Any) -> _T:
    """``call(*args)`` in a worker thread under the answer deadline; a hung read fails this request only."""
    seconds = answer_seconds()
    try:
        with anyio.fail_after(seconds):
            return await anyio.to_thread.run_sync(partial(call, *args), abandon_on_cancel=True)
    except TimeoutError:
        raise DatabaseError(f"The answer took longer than {_seconds(seconds)}; the database could not be read in time.") from None


async def answer(request: Request, cost: Cost, call: Callable[..., _T], *args: Any) -> _T:
    """``call(db, *args)`` for a question estimated at ``cost``: refused over the budget, heavy in the pool, else in a thread.

    A heavy question runs in a worker process of ``request.app.state.heavy``
    (:class:`matchdb.service.pool.HeavyPool`) while this request watches its
    client: the worker is killed when the client disconnects or after the answer
    deadline (503), so an abandoned question stops using the CPU at once.
    """
    check(cost)
    seconds = answer_seconds()
    db = request.app.state.db
    if not cost.heavy:
        return await compute(call, db, *args)
    outcome: list[tuple[bool, Any]] = []

    async def ask() -> None:
        try:
            outcome.append((True, await request.app.state.heavy.run(call, *args)))
        except Exception as error:
            outcome.append((False, error))
        group.cancel_scope.cancel()

    async def watch() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        group.cancel_scope.cancel()  # the client went away: its question is stopped (its worker killed)

    try:
        with anyio.fail_after(seconds):
            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                group.start_soon(watch)
    except TimeoutError:
        raise DatabaseError(f"The answer took longer than {_seconds(seconds)} and was stopped; expected a question with less "
                            "work.") from None
    if not outcome:
        raise DatabaseError("The client went away; its question was stopped.")
    done, value = outcome[0]
    if not done:
        raise value
    answer: _T = value
    return answer


async def strict_parameters(request: Request) -> None:
    """Refuse unknown and repeated query parameters ('player=6' must not answer for 2 players) and JSON keys.

    A parameter declared as a list (``villain`` of /v1/multiway: one per opponent) may repeat.
    """
    route = request.scope.get("route")
    params = route.dependant.query_params if route is not None else []
    allowed = {param.alias for param in params}
    repeatable = {param.alias for param in params if _is_list(param.field_info.annotation)}
    counts = Counter(name for name, _ in request.query_params.multi_items())
    for name, count in counts.items():
        if name not in allowed:
            expected = ", ".join(sorted(allowed)) or "no parameters"
            raise MatchdbError(f"The parameter {name[:40]!r} is not one of this endpoint's; expected {expected}.")
        if count > 1 and name not in repeatable:
            raise MatchdbError(f"The parameter {name!r} is given {count} times; expected it once.")
    if request.method == "POST":  # a JSON body: a key given twice would be read as its last value, silently
        body = await request.body()  # starlette keeps it for the route's own parsing
        try:
            json.loads(body, object_pairs_hook=_refuse_repeated_keys)
        except ValueError as error:
            if isinstance(error, MatchdbError):
                raise
            # not JSON at all: the route's own parsing says so in its words


def _refuse_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook that refuses an object naming a key twice."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise MatchdbError(f"The request body gives the field {key[:40]!r} twice in one object; expected it once.")
        seen.add(key)
    return dict(pairs)


def _is_list(annotation: Any) -> bool:
    """True for ``list[...]``, also inside an optional (``list[str] | None``)."""
    return get_origin(annotation) is list or any(get_origin(arg) is list for arg in get_args(annotation))


class AnswerDeadline:
    """ASGI middleware: every request it passes on is answered under the deadline ``seconds`` (what :func:`compute`
    and :func:`answer` wait; then 503, a heavy answer's worker killed)."""

    def __init__(self, app: Any, seconds: float = ANSWER_SECONDS) -> None:
        self.app, self.seconds = app, check_deadline(seconds)

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        token = _DEADLINE.set(self.seconds)
        try:
            await self.app(scope, receive, send)
        finally:
            _DEADLINE.reset(token)


class _BodyTooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: refuse a request body over ``limit`` bytes with 413, by its length or as it streams in."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return None
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            return await self._refuse(send, declared.decode(errors="replace"))
        received = 0
        started = False

        async def limited_receive() -> dict[str, Any]:
            nonlocal received
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        async def tracked_send(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except _BodyTooLarge:
            if not started:
                await self._refuse(send, f"over {self.limit:,}")
        except asyncio.CancelledError:
            # Only the server cancels a whole request, when it stops and the request outlived its grace period:
            # answer 503 rather than end in a CancelledError traceback in the log.
            if not started:
                with contextlib.suppress(Exception):
                    await _send_json(send, 503, "The server is shutting down; expected the question again once it is back.")

    async def _refuse(self, send: Callable[..., Any], size: str) -> None:
        await _send_json(send, 413, f"The request body is {size} bytes; expected at most {self.limit:,}.")


async def _send_json(send: Callable[..., Any], status: int, detail: str) -> None:
    """A whole response ``{"detail": detail}`` through ASGI's ``send``."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
