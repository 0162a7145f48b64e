"""The HTTP service: FastAPI routes that call :class:`matchdb.MatchDB` and send its answers as JSON.

Run it with ``matchdb serve`` (needs the ``service`` extra). Every answer is
the Python API's answer object, sent as its fields; bad input answers 400
(422 for a parameter of the wrong type) with the same one-sentence message,
as ``{"detail": "..."}``; a table missing from a partial database 404; a
damaged or unreadable database 503.

>>> sorted(route.path for route in create_app(db).routes if route.path.startswith("/v1/"))
['/v1/batch', '/v1/equity', '/v1/health', '/v1/info', '/v1/win-rate']
"""

# No ``from __future__ import annotations`` here: FastAPI reads the route functions'
# annotations at run time, and the request models are local to create_app.
import socket
from typing import Literal

from matchdb.answers import Outcome, WinRate
from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    IncompleteDatabaseError,
    MatchdbError,
)
from matchdb.query import MatchDB

__all__ = ["create_app", "serve", "MAX_BATCH"]

#: Most queries one batch request may carry.
MAX_BATCH = 1000


def _status_of(error: MatchdbError) -> int:
    if isinstance(error, IncompleteDatabaseError):
        return 404  # the question is fine; this database lacks the table it needs
    if isinstance(error, (CorruptDatabaseError, DatabaseError)):
        return 503  # the server's data, not the request, is at fault
    return 400


def create_app(db: MatchDB):
    """The FastAPI application answering from ``db``."""
    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, Field

    app = FastAPI(
        title="matchdb",
        version=db.attrs.get("provenance", {}).get("matchdb", "unknown"),
        description="Texas Hold'em win rates and exact equities from the precomputed match-table database.",
    )

    @app.exception_handler(MatchdbError)
    async def _matchdb_error(request: Request, error: MatchdbError) -> JSONResponse:
        return JSONResponse(status_code=_status_of(error), content={"detail": str(error)})

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
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

    class BatchItem(BaseModel):
        kind: Literal["win_rate", "equity"] = "equity"
        hole: str
        board: str
        players: int = 2
        villain: str | None = None

    class Batch(BaseModel):
        queries: list[BatchItem] = Field(max_length=MAX_BATCH)

    class BatchAnswer(BaseModel):
        results: list[WinRate | Outcome]

    #: What each kind of batch query asks of the database.
    questions = {
        "win_rate": lambda item: db.naive(item.hole, item.board, item.players),
        "equity": lambda item: db.outcome(item.hole, item.board, item.villain),
    }

    @app.get("/v1/win-rate", response_model=WinRate, summary="Naive win rate of a hand on a board")
    def get_win_rate(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        players: int = Query(2, description="players at the table, 2..23"),
    ) -> WinRate:
        return db.naive(hole, board, players)

    @app.get("/v1/equity", response_model=Outcome, summary="Exact heads-up equity of a hand on a board")
    def get_equity(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        villain: str | None = Query(None, description="opponent range like 'QQ+,AKs'; default any hand"),
    ) -> Outcome:
        return db.outcome(hole, board, villain)

    @app.post("/v1/batch", response_model=BatchAnswer, summary=f"Up to {MAX_BATCH} queries in one request")
    def post_batch(batch: Batch) -> BatchAnswer:
        results = []
        for position, item in enumerate(batch.queries):
            try:
                results.append(questions[item.kind](item))
            except MatchdbError as error:
                raise type(error)(f"Query {position}: {error}") from None
        return BatchAnswer(results=results)

    @app.get("/v1/health", summary="Liveness: the database is open")
    def get_health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/info", summary="Format version, tables and build provenance")
    def get_info() -> dict:
        return db.info()

    return app


def serve(db: MatchDB, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``db`` over HTTP until interrupted; the port is bound before anything is printed."""
    try:
        import uvicorn
    except ImportError:
        raise MatchdbError("'matchdb serve' needs the service extra; install it with: pip install 'matchdb[service]'.") from None
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MatchdbError(f"The port {port!r} is out of range; expected an integer 0..65535.")
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise MatchdbError(f"Cannot listen on {host}:{port} ({error.strerror}); expected a free port and a local address.") from None
    bound = listener.getsockname()[1]
    print(f"matchdb: serving {db.path} ({db.info()['tables_built']} tables) on http://{host}:{bound}", flush=True)
    config = uvicorn.Config(create_app(db), log_level="warning")
    uvicorn.Server(config).run(sockets=[listener])
