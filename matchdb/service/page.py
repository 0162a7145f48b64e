"""The pages and their files: the equity explorer (issues 15 and 21) at ``/``, the table at ``/play``, the hand
replayer at ``/replayer``, the solver at ``/solver``, the trainer at ``/trainer``, their files under ``/web/``; and the explorer's routes ``GET /v1/hands`` (the grid it draws)
and ``GET /v1/range`` (a range's weight on each starting-hand class, what the page draws of a range).

The pages' files live in the package (``matchdb/service/web/``) and are sent
under a content security policy that lets a page load and ask nothing from
elsewhere. The pages share one base (issue 31): each is ``base.html``'s shell
(head, header with the pages' navigation, the error box) around its own body
(``explorer.html``, ``play.html``, ``replayer.html``, ``solver.html``, ``trainer.html``), styled by ``base.css``
and its own stylesheet; its script imports ``base.js`` (``$``, the requests to
the API with their one error path, ``showError``, percentages). Every number
a page shows is an answer of the API: the pages compute nothing.

>>> html = page_html("/play")
>>> "<title>matchdb: play the bots</title>" in html, '<script type="module" src="/web/play.js"></script>' in html
(True, True)
>>> '<a href="/play" aria-current="page">play the bots</a>' in html
True
>>> answer = range_answer("qq+, 0.5(AKs)")
>>> answer["range"], answer["combos"], answer["classes"]["AKs"]
('QQ+,0.5(AKs)', 20.0, {'weight': 0.5, 'combos': 4, 'hands': None})
>>> range_answer("AhKh")["classes"]["AKs"]["hands"]
{'AhKh': 1.0}
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
import math
import re
from importlib.resources import files
from typing import Any, Literal

import numpy as np
from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel

from matchdb.answers import RangeEquity
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, N_HANDS, hand_order
from matchdb.core.ranges import describe_range, range_weights
from matchdb.db.query import MatchDB
from matchdb.errors import MatchdbError
from matchdb.service.costs import hands_cost
from matchdb.service.guards import ANSWER_SECONDS, answer, answer_seconds, compute

__all__ = [
    "PAGES", "PAGE_FILES", "PAGE_HEADERS", "ClassWeight", "HandsAnswer", "RangeAnswer", "add_routes", "hands_answer",
    "page_html", "range_answer",
]

#: Each page's address, its title and its name: its body is web/{name}.html, its script and stylesheet
#: /web/{name}.js and /web/{name}.css; web/base.html is the shell of them all.
PAGES = {"/": ("equity explorer", "explorer"), "/play": ("play the bots", "play"), "/replayer": ("hand replayer", "replayer"),
         "/solver": ("solver", "solver"), "/trainer": ("trainer", "trainer")}
#: The files served under ``/web/`` (from matchdb/service/web/) and their media types; nothing else is served from there.
PAGE_FILES = {
    "base.js": "text/javascript", "base.css": "text/css",
    **{f"{name}.{ending}": media for _, name in PAGES.values()
       for ending, media in (("js", "text/javascript"), ("css", "text/css"))},
}
#: A page loads nothing from elsewhere and talks only to this server.
PAGE_HEADERS = {
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


def range_answer(text: str) -> dict[str, Any]:
    """The fields of :class:`RangeAnswer`: ``text`` read as every range is (:func:`matchdb.core.ranges.range_weights`)."""
    weights = range_weights(text)
    names = hand_order()
    classes: dict[str, dict[str, Any]] = {}
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


def hands_answer(db: MatchDB, board: str, figure: str, villain: str | None, players: int, hero: str | None) -> dict[str, Any]:
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
    answer: dict[str, Any] = table.to_dict() | {"grid": grid, "hero": mine}
    return answer


def page_html(path: str, wait: float = ANSWER_SECONDS + 60) -> str:
    """The HTML of the page at ``path`` (a key of :data:`PAGES`): web/base.html with the page's title, files, body and
    the navigation between the pages filled in, and ``wait``, the seconds its requests wait for an answer (a minute
    past the server's answer deadline, so that the server's own sentence arrives first)."""
    title, name = PAGES[path]
    folder = files("matchdb.service") / "web"
    current = ' aria-current="page"'
    nav = "".join(f'<a href="{where}"{current if where == path else ""}>{text}</a>' for where, (text, _) in PAGES.items())
    fields = {"title": title, "name": name, "nav": nav, "body": (folder / f"{name}.html").read_text().rstrip(),
              "wait": f"{wait:g}"}
    return re.sub(r"\{\{(\w+)\}\}", lambda match: fields[match[1]], (folder / "base.html").read_text())


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the pages, their files and ``/v1/hands``, answering from ``db``."""
    folder = files("matchdb.service") / "web"
    contents = {name: (folder / name).read_bytes() for name in PAGE_FILES}
    pages: dict[tuple[str, float], bytes] = {}  # (path, the server's answer deadline) -> the page

    @app.get(
        "/v1/hands",
        response_model=HandsAnswer,
        summary="Every hand's exact equity (or naive win rate) on a board, and the 13 x 13 grid of classes",
    )
    async def get_hands(
        request: Request,
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        figure: Literal["equity", "win-rate"] = Query("equity", description="exact heads-up equity, or the naive win rate"),
        villain: str | None = Query(None, description="opponent range for the equity, like 'QQ+,AKs' (write '+' as %2B); default any hand"),
        players: int = Query(2, description="players for the naive win rate, 2..23 (the equity is heads-up: 2)"),
        hero: str | None = Query(None, description="a hero range whose exact equity against the villain to add, like 'JJ-99'"),
    ) -> dict[str, Any]:
        cost = await compute(hands_cost, db, board, figure, villain, players, hero)
        return await answer(request, cost, hands_answer, board, figure, villain, players, hero)

    @app.get(
        "/v1/range",
        response_model=RangeAnswer,
        summary="A range's weight on each of the 169 starting-hand classes (what the page draws on its grid)",
    )
    async def get_range(
        range: str = Query(description="a range like 'QQ+,AKs,0.5(KQo)' (write '+' as %2B), a hand, or 'random'"),
    ) -> dict[str, Any]:
        return await compute(range_answer, range)

    def page(path: str) -> Response:
        deadline = answer_seconds()  # this server's (``matchdb serve --answer-deadline``)
        if (path, deadline) not in pages:
            pages[path, deadline] = page_html(path, deadline + 60).encode()
        return Response(pages[path, deadline], media_type="text/html", headers=PAGE_HEADERS)

    @app.get("/", include_in_schema=False)
    def get_page() -> Response:
        return page("/")

    @app.get("/replayer", include_in_schema=False)
    def get_replayer() -> Response:
        return page("/replayer")

    @app.get("/play", include_in_schema=False)
    def get_play_page(pause: int | None = Query(None, description="ms the page waits before each bot action")) -> Response:
        return page("/play")  # the page's script reads ``pause`` itself

    @app.get("/solver", include_in_schema=False)
    def get_solver_page() -> Response:
        return page("/solver")  # over /v1/solve (matchdb.service.solves) and /v1/library (matchdb.service.library)

    @app.get("/trainer", include_in_schema=False)
    def get_trainer_page() -> Response:
        return page("/trainer")  # over /v1/library (matchdb.service.library)

    @app.get("/web/{name}", include_in_schema=False)
    def get_page_file(name: str) -> Response:
        if name not in PAGE_FILES:
            raise HTTPException(404, detail=f"The page has no file {name[:40]!r}; expected one of {', '.join(PAGE_FILES)}.")
        return Response(contents[name], media_type=PAGE_FILES[name], headers=PAGE_HEADERS)

