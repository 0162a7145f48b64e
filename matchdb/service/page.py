"""The equity explorer (issues 15 and 21): the page at ``/``, its files under ``/web/``, ``GET /v1/hands`` (the grid it
draws) and ``GET /v1/range`` (a range's weight on each starting-hand class, what the page draws of a range).

The page's files live in the package (``matchdb/service/web/``) and are sent
under a content security policy that lets the page load and ask nothing from
elsewhere. Every number the page shows is an answer of these routes or of the
question routes (:mod:`matchdb.service.questions`): the page computes nothing.

>>> answer = range_answer("qq+, 0.5(AKs)")
>>> answer["range"], answer["combos"], answer["classes"]["AKs"]
('QQ+,0.5(AKs)', 20.0, {'weight': 0.5, 'combos': 4, 'hands': None})
>>> range_answer("AhKh")["classes"]["AKs"]["hands"]
{'AhKh': 1.0}
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
import math
from importlib.resources import files
from typing import Literal

import numpy as np
from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import Response
from pydantic import BaseModel

from matchdb.answers import RangeEquity
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, N_HANDS, hand_order
from matchdb.core.ranges import describe_range, range_weights
from matchdb.db.query import MatchDB
from matchdb.errors import MatchdbError
from matchdb.service.guards import compute

__all__ = ["PAGE_FILES", "ClassWeight", "HandsAnswer", "RangeAnswer", "add_routes", "hands_answer", "range_answer"]

#: The pages' files in the package (matchdb/service/web/: the explorer's, the hand replayer's, the table's,
#: ``/play``, and the solver's, ``/solver``) and their media types; nothing else is served from there.
PAGE_FILES = {
    "index.html": "text/html", "page.js": "text/javascript", "page.css": "text/css",
    "replayer.html": "text/html", "replayer.js": "text/javascript", "replayer.css": "text/css",
    "play.html": "text/html", "play.js": "text/javascript", "play.css": "text/css",
    "solver.html": "text/html", "solver.js": "text/javascript", "solver.css": "text/css",
}
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


class ClassWeight(BaseModel):
    """A range's share of one starting-hand class: its mean weight, its combos, and its hands' weights when they differ."""

    weight: float
    combos: int
    hands: dict[str, float] | None


class RangeAnswer(BaseModel):
    """What ``/v1/range`` sends: the range as answers echo it, its total weight in combos, its share of all 1,326 hands,
    and each class it touches (pairs like ``QQ``, suited ``AKs``, offsuit ``AKo``)."""

    range: str
    combos: float
    fraction: float
    classes: dict[str, ClassWeight]


def range_answer(text: str) -> dict:
    """The fields of :class:`RangeAnswer`: ``text`` read as every range is (:func:`matchdb.core.ranges.range_weights`)."""
    weights = range_weights(text)
    names = hand_order()
    classes: dict[str, dict] = {}
    for position in np.flatnonzero(weights):
        classes.setdefault(CLASSES[CLASS_OF_HAND[position]], {})[names[position]] = float(weights[position])
    out = {}
    for name in CLASSES:  # the classes in their usual order, strongest-looking first
        if name not in classes:
            continue
        combos = 6 if len(name) == 2 else 4 if name.endswith("s") else 12
        hands = classes[name]
        values = set(hands.values())
        uniform = len(hands) == combos and len(values) == 1
        out[name] = {"weight": float(sum(hands.values()) / combos), "combos": combos, "hands": None if uniform else hands}
    total = float(weights.sum())
    return {"range": describe_range(text), "combos": total, "fraction": total / N_HANDS, "classes": out}


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

    @app.get(
        "/v1/range",
        response_model=RangeAnswer,
        summary="A range's weight on each of the 169 starting-hand classes (what the page draws on its grid)",
    )
    async def get_range(
        range: str = Query(description="a range like 'QQ+,AKs,0.5(KQo)' (write '+' as %2B), a hand, or 'random'"),
    ) -> dict:
        return await compute(range_answer, range)

    def page_file(name: str) -> Response:
        return Response(contents[name], media_type=PAGE_FILES[name], headers=_PAGE_HEADERS)

    @app.get("/", include_in_schema=False)
    def get_page() -> Response:
        return page_file("index.html")

    @app.get("/replayer", include_in_schema=False)
    def get_replayer() -> Response:
        return page_file("replayer.html")

    @app.get("/play", include_in_schema=False)
    def get_play_page(pause: int | None = Query(None, description="ms the page waits before each bot action")) -> Response:
        return page_file("play.html")  # the page's script reads ``pause`` itself

    @app.get("/solver", include_in_schema=False)
    def get_solver_page() -> Response:
        return page_file("solver.html")  # over /v1/solve (matchdb.service.solves)

    @app.get("/web/{name}", include_in_schema=False)
    def get_page_file(name: str) -> Response:
        if name not in PAGE_FILES:
            raise HTTPException(404, detail=f"The page has no file {name[:40]!r}; expected one of {', '.join(PAGE_FILES)}.")
        return page_file(name)

