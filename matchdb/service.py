"""The HTTP service: a thin FastAPI layer over :class:`matchdb.MatchDB`.

Run it with ``matchdb serve`` (needs the ``service`` extra). Every answer is
exactly what the Python API returns; bad input answers 400 (422 for a
parameter of the wrong type) with the same one-sentence message, as
``{"detail": "..."}``.

>>> from fastapi.testclient import TestClient             # doctest: +SKIP
>>> client = TestClient(create_app(matchdb.open()))       # doctest: +SKIP
>>> client.get("/v1/win-rate", params={"hole": "AhKh", "board": "2c7dJh"}).json()["win_rate"]  # doctest: +SKIP
0.5807070707070707
"""

from typing import Literal

from matchdb.cards import format_cards, parse_cards
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
            message = f"The parameter {where!r} is {first.get('input')!r}; {reason[:1].lower() + reason[1:]}."
        return JSONResponse(status_code=422, content={"detail": message})

    class WinRate(BaseModel):
        hole: str
        board: str
        players: int
        win_rate: float = Field(description="mean((1 - S) ** (players - 1)) over the consistent runouts")

    class Equity(BaseModel):
        hole: str
        board: str
        villain: str
        equity: float = Field(description="win + tie / 2, exact heads-up")
        win: float
        tie: float
        loss: float

    class BatchItem(BaseModel):
        kind: Literal["win_rate", "equity"] = "equity"
        hole: str
        board: str
        players: int = 2
        villain: str | None = None

    class Batch(BaseModel):
        queries: list[BatchItem] = Field(max_length=MAX_BATCH)

    class BatchAnswer(BaseModel):
        results: list[WinRate | Equity]

    def win_rate(hole: str, board: str, players: int) -> WinRate:
        hole, board = format_cards(parse_cards(hole)), format_cards(parse_cards(board))
        value = db.win_rate(hole, board, players=players)
        return WinRate(hole=hole, board=board, players=players, win_rate=value)

    def equity(hole: str, board: str, villain: str | None) -> Equity:
        hole, board = format_cards(parse_cards(hole)), format_cards(parse_cards(board))
        outcome = db.outcome(hole, board, villain=villain)
        return Equity(
            hole=hole,
            board=board,
            villain=villain or "random",
            equity=outcome.equity,
            win=outcome.win,
            tie=outcome.tie,
            loss=outcome.loss,
        )

    @app.get("/v1/win-rate", response_model=WinRate, summary="Naive win rate of a hand on a board")
    def get_win_rate(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        players: int = Query(2, description="players at the table, 2..23"),
    ) -> WinRate:
        return win_rate(hole, board, players)

    @app.get("/v1/equity", response_model=Equity, summary="Exact heads-up equity of a hand on a board")
    def get_equity(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        villain: str | None = Query(None, description="opponent range like 'QQ+,AKs'; default any hand"),
    ) -> Equity:
        return equity(hole, board, villain)

    @app.post("/v1/batch", response_model=BatchAnswer, summary=f"Up to {MAX_BATCH} queries in one request")
    def post_batch(batch: Batch) -> BatchAnswer:
        results: list[WinRate | Equity] = []
        for position, item in enumerate(batch.queries):
            try:
                if item.kind == "win_rate":
                    results.append(win_rate(item.hole, item.board, item.players))
                else:
                    results.append(equity(item.hole, item.board, item.villain))
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
    """Serve ``db`` over HTTP until interrupted."""
    try:
        import uvicorn
    except ImportError:
        raise MatchdbError("'matchdb serve' needs the service extra; install it with: pip install 'matchdb[service]'.") from None
    uvicorn.run(create_app(db), host=host, port=port, log_level="info")
