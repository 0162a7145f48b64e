"""``POST /v1/batch``: up to :data:`MAX_BATCH` questions in one request, answered in order."""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
from collections.abc import Callable
from typing import Literal

from fastapi import FastAPI
from pydantic import BaseModel, Field

from matchdb.answers import Multiway, Outcome, WinRate
from matchdb.db.query import MatchDB, opponent_list
from matchdb.errors import MatchdbError
from matchdb.service.guards import compute

__all__ = ["MAX_BATCH", "Batch", "BatchAnswer", "BatchItem", "add_routes"]

#: Most queries one batch request may carry.
MAX_BATCH = 1000


class BatchItem(BaseModel):
    """One question of a batch: a naive win rate, a heads-up equity or a multiway equity."""

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
    """The body of ``POST /v1/batch``."""

    queries: list[BatchItem] = Field(max_length=MAX_BATCH)


class BatchAnswer(BaseModel):
    """The answers of a batch, in the order of its queries."""

    results: list[WinRate | Outcome | Multiway]


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the batch route, answering from ``db``."""
    #: What each kind of batch query asks of the database.
    questions: dict[str, Callable[[BatchItem], WinRate | Outcome | Multiway]] = {
        "win_rate": lambda item: db.naive(item.hole, item.board, item.players),
        "equity": lambda item: db.outcome(item.hole, item.board, item.villain),
        "multiway": lambda item: db.multiway(
            item.hole, item.board, opponent_list(item.villains, item.opponents), item.method, item.samples, item.seed
        ),
    }

    def run_batch(batch: Batch) -> BatchAnswer:
        results: list[WinRate | Outcome | Multiway] = []
        for position, item in enumerate(batch.queries):
            try:
                results.append(questions[item.kind](item))
            except MatchdbError as error:
                raise type(error)(f"Query {position}: {error}") from None
        return BatchAnswer(results=results)

    @app.post("/v1/batch", response_model=BatchAnswer, summary=f"Up to {MAX_BATCH} queries in one request")
    async def post_batch(batch: Batch) -> BatchAnswer:
        return await compute(run_batch, batch)

