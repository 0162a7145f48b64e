"""The table for a person (issue 24): the page at ``/play`` and its JSON routes under ``/v1/play``.

Routes (every answer but ``leave`` is the session's view,
:meth:`matchdb.human.Session.view`: only what a player at the table sees):

- ``POST /v1/play`` with the table's settings (:class:`matchdb.human.TableConfig`'s
  fields as JSON; ``opponents`` built-in bots only, like ``"west-tight"`` or
  ``"west:exact"``: a server does not load files or classes a request names)
  starts a session: 201 and the view, whose ``id`` names the session;
- ``GET /v1/play/{id}`` the view; ``POST /v1/play/{id}/act`` with
  ``{"kind": "raise", "amount": 120}`` plays the person's action;
  ``POST /v1/play/{id}/step`` lets the next bot act once (``{"action": ...,
  "view": ...}``); ``POST /v1/play/{id}/next`` deals the next hand;
  ``POST /v1/play/{id}/leave`` closes the session (its summary, and with the
  coach the session report).

A malformed or out-of-turn action is 400 with one sentence, and changes
nothing; an id that names no session (or a kept state that is not what a
session writes) 404; a new session when the server, or this client (its
address), holds as many as it may 429. Sessions live in a bounded store
(:class:`matchdb.human.store.SessionStore`): idle ones are put away, their
hand in play settled as if the person folded (checking when free) and kept,
and come back by their id. A session resumed from its folder is checked as a
new one is: built-in bots only, so an edited ``state.json`` loads no code.
A session whose creating request failed (its answer took longer than the
deadline: 503) is removed when it is made, and one left before the person
played anything leaves no folder. The session ids come from
:func:`secrets.token_urlsafe` (144 bits). A ``seed`` makes every card of the
session predictable to whoever knows it (for practice and tests); the view
says ``"seeded": true`` then.
"""

# No ``from __future__ import annotations``: FastAPI reads these annotations at run time.
import asyncio
import json
import os
import re
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import Response

from matchdb.db.query import MatchDB
from matchdb.errors import DatabaseError
from matchdb.human.coach import session_report
from matchdb.human.session import Session, SessionError, TableConfig
from matchdb.human.store import CLIENT_LIMIT, IDLE_SECONDS, LIMIT, SessionStore, Ticket
from matchdb.play.bots import BOT_NAMES
from matchdb.service.guards import ANSWER_SECONDS, compute

__all__ = ["STRENGTHS", "add_routes", "allowed_opponent", "table_config"]

#: Strength suffixes a request may give a built-in bot (``west:exact``).
STRENGTHS = ("naive", "headsup", "exact", "exact-dropout", "montecarlo", "dropout")
_SPEC = re.compile(r"([a-z-]+)(?::([a-z-]+))?")
_ACT_KEYS = {"kind", "amount"}


def allowed_opponent(spec: Any, solutions: str | os.PathLike[str] | None = None) -> str:
    """``spec`` when it names a built-in bot (with an optional strength), else a one-sentence refusal.

    With a ``solutions`` folder (``matchdb serve --play-solutions DIR``), ``"solver:NAME"`` is the ``solver``
    bot playing ``DIR/NAME.npz`` (:class:`matchdb.play.solved.SolverBot`) or the library ``DIR/NAME.zarr`` or
    ``DIR/NAME.zip`` (:class:`matchdb.play.solved.LibraryBot`); the spec kept is the file's path, which the
    client never sees.

    >>> allowed_opponent("west-tight"), allowed_opponent("west:exact")
    ('west-tight', 'west:exact')
    >>> allowed_opponent("bots/mine.py:Mine")
    Traceback (most recent call last):
    ...
    matchdb.human.session.SessionError: The opponent 'bots/mine.py:Mine' is not a built-in bot; expected one of allin, fives, station, random, west, west-tight, west-loose, west-aggressive, west-passive, income, tomlinson, with an optional strength like ':exact'.
    """
    if solutions is not None and isinstance(spec, str) and spec.startswith("solver:"):
        return _solution_opponent(spec[len("solver:"):], Path(solutions))
    match = _SPEC.fullmatch(spec) if isinstance(spec, str) else None
    if match is None or match[1] not in BOT_NAMES or (match[2] is not None and match[2] not in STRENGTHS):
        raise SessionError(f"The opponent {str(spec)[:60]!r} is not a built-in bot; expected one of "
                           f"{', '.join(BOT_NAMES)}, with an optional strength like ':exact'.")
    return str(spec)


def _solution_opponent(name: str, folder: Path) -> str:
    """``solver:PATH`` for a solution ``NAME`` of ``folder``: ``NAME.npz`` (a saved solution), ``NAME.zarr`` or
    ``NAME.zip`` (a solution library, played on every flop); or its own path, as a kept session names it."""
    path = Path(name)
    kinds = (".npz", ".zarr", ".zip")
    if path.is_absolute() and path.parent == folder.resolve() and path.suffix in kinds and path.exists():
        return f"solver:{path}"
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        for kind in kinds:
            if (folder / f"{name}{kind}").exists():
                return f"solver:{(folder / f'{name}{kind}').resolve()}"
    offered = sorted({p.stem for kind in kinds for p in folder.glob(f"*{kind}")})[:20]
    raise SessionError(f"The solution {name[:40]!r} is not one this server offers; expected one of "
                       f"{', '.join(offered) or 'none'}.")


def table_config(payload: Any, solutions: str | os.PathLike[str] | None = None) -> TableConfig:
    """The :class:`TableConfig` a request's JSON body asks for (built-in opponents only)."""
    if not isinstance(payload, dict):
        raise SessionError("The request body is not a JSON object of table settings like {\"seats\": 6}.")
    values = dict(payload)
    opponents = values.get("opponents")
    if isinstance(opponents, str):
        opponents = [b.strip() for b in opponents.split(",") if b.strip()]
    if opponents is not None:
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= 9:
            raise SessionError(f"The opponents {str(opponents)[:80]!r} are not 1 to 9 bot names.")
        values["opponents"] = [allowed_opponent(b, solutions) for b in opponents]
    return TableConfig.from_dict(values)


def _json(data: Any, status: int = 200) -> Response:
    """A view as JSON bytes: the views are plain JSON data already, so FastAPI's encoder (a tenth of a ms) is skipped."""
    return Response(json.dumps(data, allow_nan=False), status_code=status, media_type="application/json")


def _act(session: Session, payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict) or not set(payload) <= _ACT_KEYS or "kind" not in payload:
        raise SessionError("The action is not a JSON object like {\"kind\": \"raise\", \"amount\": 120}.")
    return session.act(payload["kind"], payload.get("amount"))


def _step(session: Session) -> dict[str, Any]:
    action = session.step()
    return {"action": action, "view": session.view()}


def _leave(session: Session) -> dict[str, Any]:
    if session.unplayed:  # nothing was played: nothing is kept
        session.discard()
        summary = session.summary()
    else:
        summary = session.leave()
    del summary["history"]  # a path on the server: not the client's business
    if session.config.coach and session.hands:
        summary["report"] = session_report(session.history_path)
    return summary


def _client(request: Request) -> str:
    """The client's address: whom the per-client limit counts."""
    return request.client.host if request.client is not None else "unknown"


def add_routes(app: FastAPI, db: MatchDB, directory: Any = None, limit: int = LIMIT,
               idle_seconds: float = IDLE_SECONDS, client_limit: int = CLIENT_LIMIT,
               deadline: float = ANSWER_SECONDS, solutions: str | os.PathLike[str] | None = None) -> SessionStore:
    """Add ``/v1/play`` over a :class:`SessionStore` in ``directory`` (by default a fresh temporary folder, removed
    with the app or when the process exits).

    At most ``limit`` sessions are open, ``client_limit`` per client address;
    a new session not made within ``deadline`` seconds is answered 503 and
    removed when it is made. ``solutions``: a folder of saved solutions the ``solver`` bot may play
    (``"solver:NAME"`` for ``NAME.npz``).
    """
    if directory is None:  # removed with the app, or at the latest when the process exits
        scratch = tempfile.TemporaryDirectory(prefix="matchdb-play-", ignore_cleanup_errors=True)
        app.state.play_scratch = scratch
        directory = scratch.name
    store = SessionStore(directory, limit=limit, idle_seconds=idle_seconds, db=db, client_limit=client_limit,
                         check=partial(table_config, solutions=solutions))
    app.state.play = store

    @app.post("/v1/play", status_code=201, summary="Sit down at a table of bots: a new session, its first hand dealt")
    async def post_play(request: Request, payload: Any = Body(None)) -> Response:  # noqa: B008  (FastAPI's JSON body)
        """A new session within ``deadline`` seconds, else 503; the session of a request that fails is abandoned."""
        config = table_config(payload, solutions)
        ticket = Ticket()
        making = asyncio.get_running_loop().run_in_executor(None, store.create, config, _client(request), ticket)
        try:
            try:
                session = await asyncio.wait_for(asyncio.shield(making), deadline)
            except TimeoutError:
                raise DatabaseError(f"The session took longer than {deadline:g} s to make (the first one after a "
                                    "start loads the engine); it was not kept: ask again.") from None
            return _json(await compute(store.run, session.id, Session.view), 201)
        except BaseException:
            store.abandon(ticket)
            raise

    @app.get("/v1/play/{session_id}", summary="What the person at the table sees")
    async def get_play(request: Request, session_id: str) -> Response:
        return _json(await compute(store.run, session_id, Session.view, _client(request)))

    @app.post("/v1/play/{session_id}/act", summary="The person's action: fold, check, call, bet or raise to an amount")
    async def post_act(request: Request, session_id: str, payload: Any = Body(None)) -> Response:  # noqa: B008
        return _json(await compute(store.run, session_id, lambda session: _act(session, payload), _client(request)))

    @app.post("/v1/play/{session_id}/step", summary="The next bot acts once")
    async def post_step(request: Request, session_id: str) -> Response:
        return _json(await compute(store.run, session_id, _step, _client(request)))

    @app.post("/v1/play/{session_id}/next", summary="Deal the next hand")
    async def post_next(request: Request, session_id: str) -> Response:
        return _json(await compute(store.run, session_id, Session.next_hand, _client(request)))

    @app.post("/v1/play/{session_id}/leave", summary="Leave the table: the hand in play folded, the session kept")
    async def post_leave(request: Request, session_id: str) -> Response:
        summary = await compute(store.run, session_id, _leave, _client(request))
        store.close(session_id)
        return _json(summary)

    return store
