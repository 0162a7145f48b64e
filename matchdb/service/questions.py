"""The question routes: ``/v1/win-rate``, ``/v1/equity``, ``/v1/multiway``, ``/v1/distribution`` and ``/v1/report``.

Each calls the Python API's method of the same name and sends its answer; a
multiway question's opponents are listed by :func:`matchdb.db.query.opponent_list`,
as the command line lists them. ``/v1/equity`` and ``/v1/multiway`` without
``board`` ask before the flop, as ``matchdb query`` without a board does. Every
question is first estimated (:mod:`matchdb.service.costs`): over the budget it
is refused with 413, a heavy one is answered in the pool of worker processes
(stopped when its client goes away), a light one in a server thread.
"""

# No ``from __future__ import annotations`` in the route modules: FastAPI reads the
# route functions' annotations at run time.
from collections.abc import Callable
from typing import Any, Literal

from fastapi import FastAPI, Query, Request

from matchdb.answers import Multiway, Outcome, WinRate
from matchdb.db.query import MatchDB, opponent_list
from matchdb.equity.checks import SAMPLES_HELP
from matchdb.service.costs import Cost, distribution_cost, equity_cost, multiway_cost, report_cost, win_rate_cost
from matchdb.service.guards import answer, compute

__all__ = ["PREFLOP_BOARD_HELP", "add_routes", "distribution_fields", "report_fields"]

#: The board parameter of the equity questions: left out (or empty), the question is asked before the flop.
PREFLOP_BOARD_HELP = "three to five board cards, like 2c7dJh; left out or empty: before the flop"


def report_fields(db: MatchDB, hero: str, villain: str | None) -> dict[str, Any]:
    """What ``/v1/report`` sends: the report's aggregates (every flop's row is in ``matchdb report --out``)."""
    from matchdb.equity.reports import report

    data = report(db, hero, villain).to_dict()
    data.pop("flops")
    return data


def distribution_fields(db: MatchDB, hole: str, board: str, villain: str | None, bins: int) -> dict[str, Any]:
    """What ``/v1/distribution`` sends: the distribution's fields."""
    return db.distribution(hole, board, villain, bins).to_dict()


async def _estimate(cost: Callable[..., Cost], db: MatchDB, hole: str, board: str, *args: Any) -> Cost:
    """A win rate's or an equity's estimate: at once after the flop (one table, only the board parsed), in a thread
    before it (the first preflop question may read the database's derived data)."""
    if board.strip():
        return cost(db, hole, board, *args)
    return await compute(cost, db, hole, board, *args)


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the question routes, answering from ``db``."""

    @app.get("/v1/win-rate", response_model=WinRate, summary="Naive win rate of a hand on a board")
    async def get_win_rate(
        request: Request,
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="three to five board cards, like 2c7dJh"),
        players: int = Query(2, description="players at the table, 2..23"),
    ) -> WinRate:
        cost = await _estimate(win_rate_cost, db, hole, board, players)
        return await answer(request, cost, MatchDB.naive, hole, board, players)

    @app.get("/v1/equity", response_model=Outcome, summary="Exact heads-up equity of a hand on a board, or preflop")
    async def get_equity(
        request: Request,
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query("", description=PREFLOP_BOARD_HELP),
        villain: str | None = Query(None, description="opponent range like 'QQ+,AKs' (write '+' as %2B); default any hand"),
    ) -> Outcome:
        cost = await _estimate(equity_cost, db, hole, board, villain)
        return await answer(request, cost, MatchDB.outcome, hole, board, villain)

    @app.get("/v1/multiway", response_model=Multiway, summary="Equity against 1 to 9 opponents, exact when affordable")
    async def get_multiway(
        request: Request,
        hole: str = Query(description="two hole cards like AhKh, or a hero range"),
        board: str = Query("", description=PREFLOP_BOARD_HELP),
        villain: list[str] | None = Query(None, description="one per opponent: a range ('JJ%2B'), a hand or 'random'; repeat it"),  # noqa: B008 - FastAPI's parameter declaration, read once
        opponents: int | None = Query(None, description="this many random opponents beside any villains"),
        method: Literal["auto", "exact", "sample", "independent"] = Query("auto", description="exact when affordable (auto), exact, sample, independent"),
        samples: int | None = Query(None, description=SAMPLES_HELP),
        seed: int | None = Query(None, description="seed of a sampled answer"),
    ) -> Multiway:
        players = opponent_list(villain or [], opponents)
        cost = await compute(multiway_cost, db, hole, board, players, method, samples)
        return await answer(request, cost, MatchDB.multiway, hole, board, players, method, samples, seed)

    @app.get("/v1/distribution", summary="How a hand's exact equity moves on the turn and river: EHS, EHS^2, HS, PPot, NPot")
    async def get_distribution(
        request: Request,
        hole: str = Query(description="two hole cards, like AhKh"),
        board: str = Query(description="a flop or turn, like 2c7dJh"),
        villain: str | None = Query(None, description="opponent range like 'QQ%2B,AKs'; default any hand"),
        bins: int = Query(50, ge=1, le=1000, description="histogram bins"),
    ) -> dict[str, Any]:
        cost = distribution_cost(db, hole, board, villain, bins)  # a constant: no thread needed
        return await answer(request, cost, distribution_fields, hole, board, villain, bins)

    @app.get("/v1/report", summary="A range's equity and hits over all 22,100 flops, aggregated by texture (seconds)")
    async def get_report(
        request: Request,
        hero: str = Query(description="the hero's range, like 'QQ%2B,AKs'"),
        villain: str | None = Query(None, description="the villain's range; default any hand"),
    ) -> dict[str, Any]:
        cost = await compute(report_cost, hero, villain)
        return await answer(request, cost, report_fields, hero, villain)

