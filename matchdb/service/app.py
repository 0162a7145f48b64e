"""The HTTP service: FastAPI routes that call :class:`matchdb.MatchDB` and send its answers as JSON.

Run it with ``matchdb serve`` (needs the ``service`` extra). Every answer is
the Python API's answer object, sent as its fields; bad input answers 400
(422 for a parameter of the wrong type, 413 for a body over 2 MB) with the
same one-sentence message, as ``{"detail": "..."}``; a table missing from a
partial database 404; a damaged or unreadable database, or an answer that
takes over 30 s, 503.

One client cannot stall the others: an unknown or repeated parameter is
refused before any work, range text is bounded and parsed in linear time,
every answer is computed in a worker thread under a deadline (the cache
holds no lock while it reads), a connection that sends nothing is closed
after 5 s, and SIGTERM stops the server within 3 s. ``--workers N`` runs N
processes on one listening socket, sharing the operating system's page cache.

It also serves the equity explorer at ``/`` (the package's ``matchdb/service/web/``
files, under a content security policy that lets the page load and ask
nothing from elsewhere) and ``GET /v1/hands``, every hand's exact equity or
naive win rate on a board with the 13 x 13 grid of classes, which the page draws.

>>> sorted(route.path for route in create_app(db).routes if route.path.startswith("/v1/"))
['/v1/batch', '/v1/distribution', '/v1/equity', '/v1/hands', '/v1/health', '/v1/info', '/v1/multiway', '/v1/report', '/v1/win-rate']
"""

# No ``from __future__ import annotations`` here: FastAPI reads the route functions'
# annotations at run time, and the request models are local to create_app.
import os
import resource
import socket
from collections import Counter
from functools import partial
from typing import Literal, get_args, get_origin

from matchdb.answers import Multiway, Outcome, RangeEquity, WinRate
from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    IncompleteDatabaseError,
    MatchdbError,
)
from matchdb.db.query import MatchDB, opponent_list
from matchdb.db.query import open as open_database

__all__ = ["create_app", "serve", "MAX_BATCH", "MAX_BODY_BYTES", "ANSWER_SECONDS", "IDLE_SECONDS"]

#: Most queries one batch request may carry.
MAX_BATCH = 1000
#: Largest request body accepted (a batch of 1,000 queries with long ranges fits).
MAX_BODY_BYTES = 2_000_000
#: Longest an answer may take before the request fails with 503 (a read that hangs, say).
ANSWER_SECONDS = 30.0
#: A connection that sends nothing for this long is closed (before its first request too).
IDLE_SECONDS = 5
_ENVIRON_DB = "MATCHDB_SERVE_DB"


def _status_of(error: MatchdbError) -> int:
    if isinstance(error, IncompleteDatabaseError):
        return 404  # the question is fine; this database lacks the table it needs
    if isinstance(error, (CorruptDatabaseError, DatabaseError)):
        return 503  # the server's data, not the request, is at fault
    return 400


class _BodyTooLarge(Exception):
    pass


class _BodyLimit:
    """ASGI middleware: refuse a request body over ``limit`` bytes with 413, by its length or as it streams in."""

    def __init__(self, app, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            return await self._refuse(send, declared.decode(errors="replace"))
        received = 0
        started = False

        async def limited_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _BodyTooLarge
            return message

        async def tracked_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except _BodyTooLarge:
            if not started:
                await self._refuse(send, f"over {self.limit:,}")

    async def _refuse(self, send, size: str) -> None:
        import json

        body = json.dumps({"detail": f"The request body is {size} bytes; expected at most {self.limit:,}."}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


def create_app(db: MatchDB):
    """The FastAPI application answering from ``db``."""
    import anyio
    from fastapi import Depends, FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from pydantic import BaseModel, Field

    async def strict_parameters(request: Request) -> None:
        """Refuse unknown and repeated query parameters: 'player=6' must not answer for 2 players.

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

    app = FastAPI(
        title="matchdb",
        version=db.attrs.get("provenance", {}).get("matchdb", "unknown"),
        description="Texas Hold'em win rates and exact equities from the precomputed match-table database.",
        dependencies=[Depends(strict_parameters)],
    )
    app.add_middleware(_BodyLimit)

    async def answer(call, *args):
        """Compute in a worker thread under a deadline; a hung read fails this request only."""
        try:
            with anyio.fail_after(ANSWER_SECONDS):
                return await anyio.to_thread.run_sync(partial(call, *args), abandon_on_cancel=True)
        except TimeoutError:
            raise DatabaseError(f"The answer took longer than {ANSWER_SECONDS:.0f} s; the database could not be read in time.") from None

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
        kind: Literal["win_rate", "equity", "multiway"] = "equity"
        hole: str
        board: str
        players: int = 2
        villain: str | None = None
        opponents: int | None = None
        villains: list[str] = Field(default_factory=list, max_length=9)
        method: Literal["auto", "exact", "sample", "independent"] = "auto"
        samples: int | None = None
        seed: int | None = None

    class Batch(BaseModel):
        queries: list[BatchItem] = Field(max_length=MAX_BATCH)

    class BatchAnswer(BaseModel):
        results: list[WinRate | Outcome | Multiway]

    #: What each kind of batch query asks of the database.
    questions = {
        "win_rate": lambda item: db.naive(item.hole, item.board, item.players),
        "equity": lambda item: db.outcome(item.hole, item.board, item.villain),
        "multiway": lambda item: db.multiway(
            item.hole, item.board, opponent_list(item.villains, item.opponents), item.method, item.samples, item.seed
        ),
    }

    @app.get("/v1/win-rate", response_model=WinRate, summary="Naive win rate of a hand on a board")
    async def get_win_rate(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        players: int = Query(2, description="players at the table, 2..23"),
    ) -> WinRate:
        return await answer(db.naive, hole, board, players)

    @app.get("/v1/equity", response_model=Outcome, summary="Exact heads-up equity of a hand on a board")
    async def get_equity(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        villain: str | None = Query(None, description="opponent range like 'QQ+,AKs' (write '+' as %2B); default any hand"),
    ) -> Outcome:
        return await answer(db.outcome, hole, board, villain)

    @app.get("/v1/multiway", response_model=Multiway, summary="Equity against 1 to 9 opponents, exact when affordable")
    async def get_multiway(
        hole: str = Query(description="two hole cards like AhKh, or a hero range"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        villain: list[str] | None = Query(None, description="one per opponent: a range ('JJ%2B'), a hand or 'random'; repeat it"),
        opponents: int | None = Query(None, description="this many random opponents beside any villains"),
        method: Literal["auto", "exact", "sample", "independent"] = Query("auto", description="exact when affordable (auto), exact, sample, independent"),
        samples: int | None = Query(None, description="sampled partial deals (default 2,352)"),
        seed: int | None = Query(None, description="seed of a sampled answer"),
    ) -> Multiway:
        return await answer(db.multiway, hole, board, opponent_list(villain, opponents), method, samples, seed)

    @app.get("/v1/distribution", summary="How a hand's exact equity moves on the turn and river: EHS, EHS^2, HS, PPot, NPot")
    async def get_distribution(
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="a flop or turn, like 2c7dJh"),
        villain: str | None = Query(None, description="opponent range like 'QQ%2B,AKs'; default any hand"),
        bins: int = Query(50, ge=1, le=1000, description="histogram bins"),
    ) -> dict:
        return (await answer(db.distribution, hole, board, villain, bins)).to_dict()

    @app.get("/v1/report", summary="A range's equity and hits over all 22,100 flops, aggregated by texture (seconds)")
    async def get_report(
        hero: str = Query(description="the hero's range, like 'QQ%2B,AKs'"),
        villain: str | None = Query(None, description="the villain's range; default any hand"),
    ) -> dict:
        from matchdb.equity.reports import report

        result = await answer(report, db, hero, villain)
        data = result.to_dict()
        data.pop("flops")  # every flop's row is in 'matchdb report --out'; the service sends the aggregates
        return data

    def run_batch(batch: Batch) -> BatchAnswer:
        results = []
        for position, item in enumerate(batch.queries):
            try:
                results.append(questions[item.kind](item))
            except MatchdbError as error:
                raise type(error)(f"Query {position}: {error}") from None
        return BatchAnswer(results=results)

    @app.post("/v1/batch", response_model=BatchAnswer, summary=f"Up to {MAX_BATCH} queries in one request")
    async def post_batch(batch: Batch) -> BatchAnswer:
        return await answer(run_batch, batch)

    @app.get("/v1/health", summary="Liveness: the database is open")
    def get_health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/info", summary="Format version, tables and build provenance")
    def get_info() -> dict:
        return db.info()

    _add_page(app, db, answer)
    return app


def _is_list(annotation) -> bool:
    """True for ``list[...]``, also inside an optional (``list[str] | None``)."""
    return get_origin(annotation) is list or any(get_origin(arg) is list for arg in get_args(annotation))


# -- the equity explorer page (issue 15): the page at /, its files, and every hand's figure on a board ------------

#: The page's files in the package (matchdb/service/web/) and their media types; nothing else is served from there.
PAGE_FILES = {"index.html": "text/html", "page.js": "text/javascript", "page.css": "text/css"}
#: The page loads nothing from elsewhere and talks only to this server.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def _hands_answer(db: MatchDB, board: str, figure: str, villain, players: int, hero) -> dict:
    """What ``/v1/hands`` sends: the HandTable's fields, its 13 x 13 grid, and a hero range's equity when asked."""
    import math

    from matchdb.plots import grid_table

    if hero is not None and figure != "equity":
        raise MatchdbError(
            f"A hero range is answered with its exact heads-up equity, not the figure {figure!r}; "
            "ask /v1/win-rate for one hand's naive win rate."
        )
    table = grid_table(db, board, figure=figure, villain=villain, players=players)
    grid = [[None if math.isnan(v) else v for v in row] for row in table.grid().tolist()]
    mine = db.range_outcome(hero, villain, board).to_dict() if hero is not None else None
    return table.to_dict() | {"grid": grid, "hero": mine}


def _add_page(app, db: MatchDB, answer) -> None:
    """Serve the equity explorer at ``/`` (files from the package) and ``GET /v1/hands``, the grid it draws."""
    from importlib.resources import files

    from fastapi import HTTPException, Query
    from fastapi.responses import Response
    from pydantic import BaseModel

    folder = files("matchdb.service") / "web"
    contents = {name: (folder / name).read_bytes() for name in PAGE_FILES}

    class HandsAnswer(BaseModel):
        board: str
        figure: str
        hands: list[str]
        values: list[float | None]
        grid: list[list[float | None]]
        hero: RangeEquity | None

    @app.get(
        "/v1/hands",
        response_model=HandsAnswer,
        summary="Every hand's exact equity (or naive win rate) on a board, and the 13 x 13 grid of classes",
    )
    async def get_hands(
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        figure: Literal["equity", "win-rate"] = Query("equity", description="exact heads-up equity, or the naive win rate"),
        villain: str | None = Query(None, description="opponent range for the equity, like 'QQ+,AKs' (write '+' as %2B); default any hand"),
        players: int = Query(2, description="players for the naive win rate, 2..23 (the equity is heads-up: 2)"),
        hero: str | None = Query(None, description="a hero range whose exact equity against the villain to add, like 'JJ-99'"),
    ) -> dict:
        return await answer(_hands_answer, db, board, figure, villain, players, hero)

    def page_file(name: str) -> Response:
        return Response(contents[name], media_type=PAGE_FILES[name], headers=_PAGE_HEADERS)

    @app.get("/", include_in_schema=False)
    def get_page() -> Response:
        return page_file("index.html")

    @app.get("/web/{name}", include_in_schema=False)
    def get_page_file(name: str) -> Response:
        if name not in PAGE_FILES:
            raise HTTPException(404, detail=f"The page has no file {name[:40]!r}; expected one of {', '.join(PAGE_FILES)}.")
        return page_file(name)


# -- end of the page's block ----------------------------------------------------------------------------------------


def _app_from_environment():
    """The application of one worker process of ``matchdb serve --workers N`` (the database path comes by environment)."""
    return create_app(open_database(os.environ[_ENVIRON_DB]))


try:
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError:  # the service extra is not installed; serve() says so
    H11Protocol = None
else:

    class IdleClosingProtocol(H11Protocol):
        """uvicorn's h11 protocol, also closing a connection that sends nothing before its first request.

        (uvicorn starts its keep-alive timer only after a response, so a client
        that connects and stays silent held a descriptor forever.)
        """

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            _no_delay(transport.get_extra_info("socket"))
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)


def _no_delay(sock) -> None:
    """Send small writes at once (TCP_NODELAY) on an accepted connection.

    uvicorn writes a response's head and body separately; without this the body
    waits for the client's delayed ACK, 40 ms on every request of a kept-alive
    connection after its first. (asyncio sets the option itself only on sockets
    created with ``proto=IPPROTO_TCP``.)
    """
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass


def _more_file_descriptors() -> None:
    """Raise the soft open-file limit to the hard one: each connection holds a descriptor."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass


def serve(db: MatchDB, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, access_log: bool = False) -> None:
    """Serve ``db`` over HTTP until interrupted (SIGINT or SIGTERM); the port is bound before anything is printed.

    ``workers`` processes share the listening socket, each with its own
    decoded-table cache over the operating system's shared page cache.
    """
    try:
        import uvicorn
    except ImportError:
        raise MatchdbError("'matchdb serve' needs the service extra; install it with: pip install 'matchdb[service]'.") from None
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MatchdbError(f"The port {port!r} is out of range; expected an integer 0..65535.")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise MatchdbError(f"The number of workers {workers!r} is out of range; expected an integer 1..64.")
    _more_file_descriptors()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
    except (OSError, OverflowError) as error:
        listener.close()
        reason = getattr(error, "strerror", None) or str(error)
        raise MatchdbError(f"Cannot listen on {host}:{port} ({reason}); expected a free port and a local address.") from None
    bound = listener.getsockname()[1]
    print(
        f"matchdb: serving {db.path} ({db.info()['tables_built']} tables) on http://{host}:{bound}"
        + (f" with {workers} worker processes" if workers > 1 else ""),
        flush=True,
    )
    settings = dict(
        http=IdleClosingProtocol,
        timeout_keep_alive=IDLE_SECONDS,
        timeout_graceful_shutdown=3,
        log_level="info" if access_log else "warning",
        access_log=access_log,
    )
    if workers == 1:
        uvicorn.Server(uvicorn.Config(create_app(db), **settings)).run(sockets=[listener])
        return
    from uvicorn.supervisors import Multiprocess

    os.environ[_ENVIRON_DB] = str(db.path.resolve())
    config = uvicorn.Config("matchdb.service.app:_app_from_environment", factory=True, workers=workers, **settings)
    Multiprocess(config, sockets=[listener]).run()
