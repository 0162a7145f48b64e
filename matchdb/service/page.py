"""The equity explorer (issue 15): the page at ``/``, its files under ``/web/``, and ``GET /v1/hands``, the grid it draws.

The page's files live in the package (``matchdb/service/web/``) and are sent
under a content security policy that lets the page load and ask nothing from
elsewhere.
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
import math
from importlib.resources import files
from typing import Literal

from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import Response
from pydantic import BaseModel

from matchdb.answers import RangeEquity
from matchdb.db.query import MatchDB
from matchdb.errors import MatchdbError
from matchdb.service.guards import compute

__all__ = ["PAGE_FILES", "HandsAnswer", "add_routes", "hands_answer"]

#: The page's files in the package (matchdb/service/web/) and their media types; nothing else is served from there.
PAGE_FILES = {"index.html": "text/html", "page.js": "text/javascript", "page.css": "text/css"}
#: The page loads nothing from elsewhere and talks only to this server.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class HandsAnswer(BaseModel):
    """What ``/v1/hands`` sends: every hand's figure on a board, the 13 x 13 grid of classes, a hero range's equity."""

    board: str
    figure: str
    hands: list[str]
    values: list[float | None]
    grid: list[list[float | None]]
    hero: RangeEquity | None


def hands_answer(db: MatchDB, board: str, figure: str, villain: str | None, players: int, hero: str | None) -> dict:
    """The fields of :class:`HandsAnswer`: the HandTable's fields, its 13 x 13 grid, and a hero range's equity when asked."""
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


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the page, its files and ``/v1/hands``, answering from ``db``."""
    folder = files("matchdb.service") / "web"
    contents = {name: (folder / name).read_bytes() for name in PAGE_FILES}

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
        return await compute(hands_answer, db, board, figure, villain, players, hero)

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

