"""``POST /v1/batch``: up to :data:`MAX_BATCH` questions in one request, answered in order.

The batch's work is the sum of its queries' estimates (:mod:`matchdb.service.costs`, each from what it will do):
over the budget it is refused with 413 before any query is answered; a heavy
batch is answered in the pool of worker processes, stopped when its client goes away.
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
from typing import Any, Literal

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from matchdb.answers import Multiway, Outcome, WinRate
from matchdb.db.query import MatchDB, opponent_list
from matchdb.errors import MatchdbError
from matchdb.service.costs import Cost, check, equity_cost, multiway_cost, total_cost, win_rate_cost
from matchdb.service.guards import answer, compute

__all__ = ["MAX_BATCH", "Batch", "BatchAnswer", "BatchItem", "add_routes", "batch_cost", "run_batch"]

#: Most queries one batch request may carry.
MAX_BATCH = 1000


#: The fields each kind of question takes, as its GET endpoint names them; any other field is refused.
FIELDS = {
    "win_rate": {"kind", "hole", "board", "players"},
    "equity": {"kind", "hole", "board", "villain"},
    "multiway": {"kind", "hole", "board", "villain", "opponents", "method", "samples", "seed"},
}


class BatchItem(BaseModel):
    """One question of a batch: a naive win rate, a heads-up equity or a multiway equity.

    Fields are spelt as the GET endpoints spell their parameters (``villain``
    is one range for ``equity``, one or a list for ``multiway``); a field that
    is unknown or does not apply to the kind is refused, naming it.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["win_rate", "equity", "multiway"] = "equity"
    hole: str
    board: str
    players: int = 2
    villain: str | list[str] | None = None
    opponents: int | None = None
    method: Literal["auto", "exact", "sample", "independent"] = "auto"
    samples: int | None = None
    seed: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _fields_of_its_kind(cls, data: Any) -> Any:
        if isinstance(data, dict):
            kind = data.get("kind", "equity")
            allowed = FIELDS.get(kind) if isinstance(kind, str) else None
            if allowed is not None:
                extra = sorted(set(data) - allowed)
                known = set().union(*FIELDS.values())
                inapplicable = [name for name in extra if name in known]
                if inapplicable:
                    raise ValueError(f"the field {inapplicable[0]!r} does not apply to a {kind!r} question; "
                                     f"expected only {', '.join(sorted(allowed))}")
        return data

    def villains(self) -> list[str]:
        """The villain field as a list of ranges (a multiway question's opponents)."""
        if self.villain is None:
            return []
        return [self.villain] if isinstance(self.villain, str) else list(self.villain)


class Batch(BaseModel):
    """The body of ``POST /v1/batch``."""

    model_config = ConfigDict(extra="forbid")

    queries: list[BatchItem] = Field(max_length=MAX_BATCH)


class BatchAnswer(BaseModel):
    """The answers of a batch, in the order of its queries."""

    results: list[WinRate | Outcome | Multiway]


def _one_range(villain: str | list[str] | None) -> str | None:
    """An equity question's villain: one range (a list of several is a multiway question)."""
    if isinstance(villain, list):
        if len(villain) != 1:
            raise MatchdbError(f"An 'equity' question takes one villain; got {len(villain)}: ask kind 'multiway'.")
        return villain[0]
    return villain


def _ask(db: MatchDB, item: BatchItem) -> WinRate | Outcome | Multiway:
    """One query's answer."""
    if item.kind == "win_rate":
        return db.naive(item.hole, item.board, item.players)
    if item.kind == "equity":
        return db.outcome(item.hole, item.board, _one_range(item.villain))
    return db.multiway(item.hole, item.board, opponent_list(item.villains(), item.opponents), item.method, item.samples, item.seed)


def run_batch(db: MatchDB, batch: Batch) -> BatchAnswer:
    """The answers of a batch, in order; a query's error names its position."""
    results: list[WinRate | Outcome | Multiway] = []
    for position, item in enumerate(batch.queries):
        try:
            results.append(_ask(db, item))
        except MatchdbError as error:
            raise _in_query(error, position) from None
    return BatchAnswer(results=results)


def _in_query(error: MatchdbError, position: int) -> MatchdbError:
    """``error`` with its message naming the query at fault, its attributes (the table it is about) kept."""
    named = type(error)(f"Query {position}: {error}")
    named.__dict__.update(error.__dict__)
    return named


def batch_cost(db: MatchDB, batch: Batch) -> Cost:
    """The estimated work of a whole batch (the sum of its queries'), refused (naming the query) when one query
    alone is over the budget."""
    costs = []
    for position, item in enumerate(batch.queries):
        try:
            if item.kind == "multiway":
                cost = multiway_cost(db, item.hole, item.board, opponent_list(item.villains(), item.opponents), item.method,
                                     item.samples)
            elif item.kind == "equity":
                cost = equity_cost(db, item.hole, item.board, _one_range(item.villain))
            else:
                cost = win_rate_cost(db, item.hole, item.board, item.players)
            costs.append(check(cost))
        except MatchdbError as error:
            raise _in_query(error, position) from None
    return check(total_cost(costs, f"{len(costs):,} queries"), "batch")


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the batch route, answering from ``db``."""

    @app.post("/v1/batch", response_model=BatchAnswer, summary=f"Up to {MAX_BATCH} queries in one request")
    async def post_batch(request: Request, batch: Batch) -> BatchAnswer:
        cost = await compute(batch_cost, db, batch)
        return await answer(request, cost, run_batch, batch)
