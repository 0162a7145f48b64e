"""The HTTP service: the FastAPI application, assembled from route groups that call :class:`matchdb.MatchDB` and send its answers as JSON.

Run it with ``matchdb serve`` (needs the ``service`` extra; :mod:`matchdb.service.server`
listens and runs it). Every answer is the Python API's answer object, sent as
its fields; bad input answers 400 (422 for a parameter of the wrong type, 413
for a body over 2 MB or a question over the work budget of
:mod:`~matchdb.service.costs`) with the same one-sentence message, as
``{"detail": "..."}``; a table missing from a partial database 404; a damaged
or unreadable database, or an answer that takes longer than its deadline (30 s
unless ``answer_seconds`` says otherwise), 503; data the
server is still preparing (the derived data of a store built before ``matchdb
build`` computed it, prepared once at start-up) 503 with ``Retry-After``. Heavy
questions are answered in a small pool of worker processes
(:mod:`~matchdb.service.pool`), stopped when their client goes away.

The routes, by group: :mod:`~matchdb.service.questions` (win rate, equity,
multiway, distribution, report), :mod:`~matchdb.service.batch`,
:mod:`~matchdb.service.page` (the equity explorer at ``/``, ``/v1/hands``,
the grid it draws, and ``/v1/range``), :mod:`~matchdb.service.replayer` (the hand replayer), :mod:`~matchdb.service.play` (the
table for a person at ``/play`` and ``/v1/play``), :mod:`~matchdb.service.solves` (solves as jobs at
``/v1/solve``, in a pool of their own), :mod:`~matchdb.service.library` (solution libraries at ``/v1/library``),
:mod:`~matchdb.service.info` (health, info) and
:mod:`~matchdb.service.docs` (``/docs`` and ``/redoc``, working offline). What every
request passes (a bounded body, known parameters, a deadline) is in
:mod:`~matchdb.service.guards`.

>>> sorted(route.path for route in create_app(db).routes if route.path.startswith("/v1/"))  # doctest: +NORMALIZE_WHITESPACE
['/v1/batch', '/v1/distribution', '/v1/equity', '/v1/hands', '/v1/health', '/v1/info', '/v1/library',
 '/v1/library/{name}/deal', '/v1/library/{name}/grade', '/v1/library/{name}/node', '/v1/library/{name}/subgame',
     '/v1/library/{name}/summary', '/v1/library/{name}/turns', '/v1/multiway', '/v1/play', '/v1/play/{session_id}', '/v1/play/{session_id}/act', '/v1/play/{session_id}/leave', '/v1/play/{session_id}/next',
 '/v1/play/{session_id}/step', '/v1/range', '/v1/replayer', '/v1/report', '/v1/solve', '/v1/solve/{job_id}',
 '/v1/solve/{job_id}', '/v1/solve/{job_id}/node', '/v1/win-rate']
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from matchdb.db.query import MatchDB
from matchdb.errors import DatabaseError, MatchdbError, NotReadyError
from matchdb.human.store import CLIENT_LIMIT, IDLE_SECONDS, LIMIT
from matchdb.service import batch, docs, info, library, page, play, questions, replayer, solves
from matchdb.service.guards import ANSWER_SECONDS, AnswerDeadline, BodyLimit, client_message, status_of, strict_parameters
from matchdb.service.pool import HeavyPool

__all__ = ["RETRY_SECONDS", "create_app"]

#: Seconds a client is asked to wait (Retry-After) while the server prepares derived data it lacks.
RETRY_SECONDS = 30


def create_app(db: MatchDB, info_details: bool = False, play_dir: str | os.PathLike[str] | None = None,
               play_limit: int = LIMIT, play_idle: float = IDLE_SECONDS, play_client_limit: int = CLIENT_LIMIT,
               play_deadline: float = ANSWER_SECONDS, answer_seconds: float = ANSWER_SECONDS,
               play_solutions: str | os.PathLike[str] | None = None, solve_keep: float = solves.KEEP_SECONDS,
               libraries: Iterable[str | os.PathLike[str]] = ()) -> FastAPI:
    """The FastAPI application answering from ``db``.

    ``info_details`` lets ``/v1/info`` show the path, host and versions.
    At start-up the server prepares the derived data a complete store lacks
    (:meth:`matchdb.MatchDB.prepare_in_background`; ``db`` then never computes
    any on a question's first use).
    ``play_dir`` keeps the sessions of ``/play`` (a temporary folder by
    default: then they end with the process); at most ``play_limit`` are
    open (``play_client_limit`` per client address), each put away after
    ``play_idle`` seconds unused; a session not made within
    ``play_deadline`` seconds is answered 503 and not kept. A question not
    answered within ``answer_seconds`` is answered 503 (a heavy one's worker
    process killed).
    ``play_solutions`` is a folder of saved solutions that ``/play`` offers as ``solver:NAME`` opponents.
    A finished solve of ``/v1/solve`` is let go ``solve_keep`` seconds after it was last asked about.
    ``libraries`` are folders of solution libraries that ``/v1/library`` answers from (:mod:`matchdb.service.library`).
    """
    path = str(db.path.resolve()) if isinstance(db.path, Path) else str(db.path)
    opened = library.open_libraries(libraries, db)  # a folder that is not a library fails before the port opens
    heavy = HeavyPool(path)
    solving = HeavyPool(path, processes=solves.SOLVE_PROCESSES, queue=solves.JOBS_LIMIT)  # solves take minutes: apart

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # a store built before `matchdb build` computed its derived data: prepared now, once, in the background
        # (questions that need it meanwhile answer 503 with Retry-After); then the heavy workers get it too
        db.prepare_in_background(then=lambda kinds: heavy.share({kind: db.derived_bytes(kind) or b"" for kind in kinds}))
        yield  # the workers start with the first heavy question (a second or two, once): idle servers stay light
        heavy.stop()
        solving.stop()
        close_solves()
        scratch = getattr(app.state, "play_scratch", None)
        if scratch is not None:  # the sessions' temporary folder (uvicorn ends on SIGTERM without running atexit)
            scratch.cleanup()

    app = FastAPI(
        title="matchdb",
        # the library's version only where the server was asked to tell it (serve --info-details)
        version=db.attrs.get("provenance", {}).get("matchdb", "unknown") if info_details else f"format {db.attrs.get('format_version')}",
        lifespan=lifespan,
        description="Texas Hold'em win rates and exact equities from the precomputed match-table database.",
        dependencies=[Depends(strict_parameters)],
        docs_url=None,  # served by matchdb.service.docs, its scripts from this server rather than a CDN
        redoc_url=None,
    )
    app.state.db, app.state.heavy, app.state.info_details = db, heavy, info_details
    app.add_middleware(BodyLimit)
    app.add_middleware(AnswerDeadline, seconds=answer_seconds)
    # Starlette types a handler as taking any Exception; each of these takes the class it is registered for.
    app.add_exception_handler(MatchdbError, _matchdb_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    for group in (questions, batch, info, page, replayer, docs):
        group.add_routes(app, db)
    play.add_routes(app, db, play_dir, play_limit, play_idle, play_client_limit, play_deadline, play_solutions)
    close_solves = solves.add_routes(app, db, solving, keep_seconds=solve_keep)
    library.add_routes(app, db, opened)
    return app


async def _matchdb_error(request: Request, error: MatchdbError) -> JSONResponse:
    """The error's status and its message for the client (no server path); an error of the database's in the log whole."""
    db = request.app.state.db
    detail = client_message(error, _locations(db))
    if isinstance(error, DatabaseError) and detail != str(error):
        logging.getLogger("uvicorn.error").warning("%s %s: %s", request.method, request.url.path, error)
    headers = {"Retry-After": str(RETRY_SECONDS)} if isinstance(error, NotReadyError) else None
    return JSONResponse(status_code=status_of(error), content={"detail": detail}, headers=headers)


def _locations(db: MatchDB) -> list[str]:
    """The database's location as messages may write it: as given, absolute, and with links resolved."""
    given = str(db.path)
    if not isinstance(db.path, Path):
        return [given, str(db.store.name)]
    return [given, str(db.store.name), str(db.path.absolute()), str(db.path.resolve())]


async def _validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
    """FastAPI's list of validation errors as one sentence about the first."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("query", "body"))
    reason = first.get("msg", "invalid").rstrip(".")
    if first.get("type") == "missing":
        message = f"The parameter {where!r} is missing; it is required."
    elif not where or first.get("type") == "json_invalid":
        message = f"The request body cannot be read ({reason}); expected JSON like {{\"queries\": [...]}}."
    else:
        shown = first.get("input")
        shown = repr(shown) if len(repr(shown)) <= 80 else f"{repr(shown)[:77]}..."
        message = f"The parameter {where!r} is {shown}; {reason[:1].lower() + reason[1:]}."
    return JSONResponse(status_code=422, content={"detail": message})
