"""``POST /v1/solve``: a heads-up postflop spot solved as a job (:mod:`matchdb.solver`), followed, stopped and browsed.

A solve takes seconds to hours, longer than a request may wait, so it is a job:

- ``POST /v1/solve`` checks the spot (ranges, board, pot, stack, sizes,
  target, rake: a bad one is refused in one sentence, 400 or 422), builds its
  tree and estimates it before anything runs: the memory
  (:func:`matchdb.solver.solve.prepare`, the solver's own estimate) over
  :data:`SOLVE_MEMORY` bytes, or the work (the tree's numbers x
  ``max_iterations`` x :data:`ELEMENT_SECONDS`) over :data:`SOLVE_WORK_SECONDS`
  of one core, is refused with 413; then it answers 202 with the job's id. The
  solve runs in a worker process of the server's pool for solves (a
  :class:`matchdb.service.pool.HeavyPool` of :data:`SOLVE_PROCESSES` process,
  at low priority; the jobs beyond wait their turn, ``"queued"``);
- ``GET /v1/solve/{id}`` answers its state (``queued``, ``running``,
  ``done``, ``failed``), its progress (iterations, exploitability so far in
  chips and % of the pot) and, when done, the solution's summary
  (:meth:`matchdb.solver.Solution.to_dict`);
- ``DELETE /v1/solve/{id}`` stops it (its worker is killed at once) or lets a
  finished one go; the id then names nothing;
- ``GET /v1/solve/{id}/node?path=Check, Bet 30, 7s`` answers a node of the
  solved game (:func:`node_fields`): the player to act, the actions and their
  frequencies, the cards that can be dealt at a deal, every hand's strategy,
  EV per action, EV, equity and weight for both ranges, and the hand categories.

At most :data:`JOBS_LIMIT` jobs are kept (:data:`CLIENT_JOBS` per client
address; one more is refused with 429), and a finished job is let go
:data:`KEEP_SECONDS` after it was last asked about. The solution file lives in
the server's temporary folder, never named to a client.
"""

# No ``from __future__ import annotations``: FastAPI and pydantic read these annotations at run time.
import asyncio
import json
import math
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from matchdb.db.query import MatchDB
from matchdb.errors import MatchdbError, WorkLimitError
from matchdb.human.store import SessionLimitError, SessionNotFoundError
from matchdb.service.guards import compute
from matchdb.service.pool import HeavyPool

__all__ = [
    "CLIENT_JOBS",
    "ELEMENT_SECONDS",
    "JOBS_LIMIT",
    "KEEP_SECONDS",
    "SOLVE_MEMORY",
    "SOLVE_PROCESSES",
    "SOLVE_WORK_SECONDS",
    "SolveSpot",
    "add_routes",
    "estimate",
    "json_ready",
    "node_fields",
    "run_solve",
]

#: Most memory one solve may take, in bytes (the solver's own estimate of its tree).
SOLVE_MEMORY = 500_000_000
#: Most work one solve may ask for, in seconds of one core (its numbers x max_iterations x ELEMENT_SECONDS).
SOLVE_WORK_SECONDS = 1800.0
#: Seconds of one core per number of the tree per iteration, measured on the shared 2-core machine: the public
#: turn spot (1,391,529 numbers) ran 100 iterations in 9.3 s on 2 threads, 1.3e-7 s of one core a number.
ELEMENT_SECONDS = 1.3e-7
#: Worker processes solving at once; the other jobs wait their turn.
SOLVE_PROCESSES = 1
#: Jobs kept at once (queued, running or finished), and per client address.
JOBS_LIMIT = 8
CLIENT_JOBS = 2
#: A finished job is let go this long after it was last asked about.
KEEP_SECONDS = 900.0


#: A range as 1,326 weights, one per hand in :func:`matchdb.hand_order` (what ``/v1/library/{name}/subgame`` gives).
Weights = Annotated[list[float], Field(min_length=1326, max_length=1326)]


class SolveSpot(BaseModel):
    """The body of ``POST /v1/solve``: the spot, as :meth:`matchdb.MatchDB.solve` takes it (``raise`` for ``raise_``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    oop: str | Weights = Field(description="OOP's range, like 'AA-88,AJs+' (weights as 'AA:0.5' or '0.5(AA)'), or "
                                           "1,326 weights in matchdb's hand order")
    ip: str | Weights = Field(description="IP's range, as OOP's")
    board: str = Field(description="a flop, turn or river, like 2c7dJh5s")
    pot: int = Field(description="the starting pot in chips")
    stack: int = Field(description="the effective stack in chips")
    bet: str | dict[str, str] = Field("", description="bet sizes like '33%, 75%, a', or per street {'flop': '33%'}")
    raise_: str | dict[str, str] = Field("", alias="raise", description="raise sizes like '2.5x, a'")
    donk: str | dict[str, str] | None = Field(None, description="OOP's donk sizes on the turn and river")
    rake: float = Field(0.0, description="rake as a share of the pot")
    rake_cap: float = Field(0.0, description="the rake's most, in chips (0: no rake)")
    target: float = Field(0.5, ge=0.0, le=100.0, description="the exploitability to reach, % of the starting pot")
    max_iterations: int = Field(1000, ge=0, le=1_000_000, description="the most iterations to run")
    add_allin: float = 1.5
    force_allin: float = 0.15
    merge: float = 0.1
    compressed: bool = False

    def options(self) -> dict[str, Any]:
        """The keywords of :func:`matchdb.solver.solve` beyond the positional ones."""
        return {"donk": self.donk, "rake": self.rake, "rake_cap": self.rake_cap, "add_allin": self.add_allin,
                "force_allin": self.force_allin, "merge": self.merge, "compressed": self.compressed}


def estimate(db: MatchDB, spot: SolveSpot) -> dict[str, Any]:
    """Check the spot and estimate its solve: ``{"memory_bytes", "numbers", "work_seconds"}``; a bad spot is
    refused in one sentence, a solve over :data:`SOLVE_MEMORY` or :data:`SOLVE_WORK_SECONDS` with
    :class:`~matchdb.errors.WorkLimitError`."""
    from matchdb.solver.solve import prepare

    prepared = prepare(db, spot.oop, spot.ip, spot.board, spot.pot, spot.stack, spot.bet, spot.raise_,
                       max_memory=SOLVE_MEMORY, **spot.options())
    numbers = int(prepared.layout.elements)
    work = numbers * max(1, spot.max_iterations) * ELEMENT_SECONDS
    if work > SOLVE_WORK_SECONDS:
        raise WorkLimitError(
            f"The solve would take about {work:,.0f} s of work ({numbers:,} numbers x {spot.max_iterations:,} "
            f"iterations); expected at most {SOLVE_WORK_SECONDS:,.0f} s: ask for fewer iterations, fewer bet sizes, "
            "a later street or narrower ranges."
        )
    return {"memory_bytes": int(prepared.memory), "numbers": numbers, "work_seconds": round(work, 3)}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` whole (a reader sees the old file or the new one)."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data))
    os.replace(partial, path)


def run_solve(db: MatchDB, spot: SolveSpot, folder: str) -> dict[str, Any]:
    """Solve ``spot`` (in a worker process) writing its progress to ``folder``/progress.json after every check
    and the solution to ``folder``/solution.npz; the solution's summary."""
    where = Path(folder)
    pot = spot.pot

    def on_check(iterations: int, exploitability: float) -> None:
        _write_json(where / "progress.json", {"iterations": iterations, "exploitability": _finite(exploitability),
                                              "exploitability_pct": _finite(100.0 * exploitability / pot)})

    _write_json(where / "progress.json", {"iterations": 0, "exploitability": None, "exploitability_pct": None})
    solution = db.solve(spot.oop, spot.ip, spot.board, spot.pot, spot.stack, spot.bet, spot.raise_,
                        target=spot.target, max_iterations=spot.max_iterations, on_check=on_check, **spot.options())
    solution.save(where / "solution.npz")
    clean: dict[str, Any] = json_ready(solution.to_dict())
    return clean


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def json_ready(value: Any) -> Any:
    """``value`` (dicts, lists, numbers) with NaN and infinities as None and numpy numbers as Python's (JSON has neither)."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def node_fields(solution: Any, path: str) -> dict[str, Any]:
    """What ``GET /v1/solve/{id}/node`` answers for the node at ``path`` (a line like ``"Check, Bet 30, 7s"``;
    empty: the root): where it is, the player to act, the actions, their frequencies over the range, the cards
    that can come at a deal, each range's combos, equity and EV, every hand of both ranges (weight, combos,
    equity, EV, EQR, made hand, draws, and for the player to act its strategy and each action's EV, in the
    order of ``actions``), and the hand categories by made hand and by draws.

    >>> from matchdb.service.solves import node_fields
    >>> toy = db.solve("AA,QQ", "KK", "2c7dJh3s8c", pot=100, stack=100, bet="a", target=0.1)
    >>> node = node_fields(toy, "")
    >>> node["player"], node["actions"], [round(f, 2) for f in node["frequencies"]]
    ('OOP', ['Check', 'All-in 100'], [0.25, 0.75])
    >>> aa = next(h for h in node["hands"]["oop"] if h["hand"] == "AsAh")
    >>> [round(f, 2) for f in aa["strategy"]], [round(v) for v in aa["action_ev"]]
    ([0.0, 1.0], [125, 150])
    """
    node = solution.node(path if path.strip() else None)
    out = node.to_dict()
    out["cards"] = node.cards()
    hands: dict[str, list[dict[str, Any]]] = {}
    categories: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for p, name in ((0, "oop"), (1, "ip")):
        frame = node.to_pandas(p)
        actor = node.kind == "action" and node.player == name.upper()
        records = []
        for row in frame.to_dict(orient="records"):
            record = {k: row[k] for k in ("hand", "weight", "combos", "equity", "ev", "eqr", "made", "draws")}
            if actor:
                record["strategy"] = [row[a] for a in node.actions]
                record["action_ev"] = [row[f"ev {a}"] for a in node.actions]
            records.append(record)
        hands[name] = records
        categories[name] = {by: node.categories(p, by=by).to_dict(orient="records") for by in ("made", "draws")}
    out["hands"] = hands
    out["categories"] = categories
    clean: dict[str, Any] = json_ready(out)
    return clean


@dataclass
class _Job:
    """One solve: its spot, owner, folder, state and (when done) its solution."""

    id: str
    client: str
    spot: SolveSpot
    estimate: dict[str, Any]
    folder: Path
    state: str = "queued"
    task: Any = None
    summary: dict[str, Any] | None = None
    error: str | None = None
    solution: Any = None
    finished: float | None = None
    touched: float = field(default_factory=time.monotonic)

    def view(self) -> dict[str, Any]:
        """What ``GET /v1/solve/{id}`` answers."""
        state = self.state
        progress: dict[str, Any] = {"iterations": 0, "exploitability": None, "exploitability_pct": None}
        try:
            progress = json.loads((self.folder / "progress.json").read_text())
            if state == "queued":
                state = "running"
        except (OSError, ValueError):
            pass
        if self.summary is not None:
            progress = {k: self.summary[k] for k in ("iterations", "exploitability", "exploitability_pct")}
        out: dict[str, Any] = {"id": self.id, "state": state, "progress": progress, "estimate": self.estimate,
                               "spot": self.spot.model_dump(by_alias=True)}
        if self.summary is not None:
            out["solution"] = self.summary
        if self.error is not None:
            out["error"] = self.error
        return out


def _json(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data), status_code=status, media_type="application/json")


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def add_routes(app: FastAPI, db: MatchDB, pool: HeavyPool, limit: int = JOBS_LIMIT, client_limit: int = CLIENT_JOBS,
               keep_seconds: float = KEEP_SECONDS) -> Callable[[], None]:
    """Add the solve routes: jobs run in ``pool``, their files in a private temporary folder made on the first
    job (see the module's docstring). Returns the function that lets every job go and removes the folder."""
    jobs: dict[str, _Job] = {}
    folders: list[Path] = []

    def forget(job: _Job) -> None:
        jobs.pop(job.id, None)
        if job.task is not None and not job.task.done():
            job.task.cancel()  # the pool kills its worker
        job.solution = None
        shutil.rmtree(job.folder, ignore_errors=True)

    def sweep() -> None:
        now = time.monotonic()
        for job in list(jobs.values()):
            if job.finished is not None and now - job.touched > keep_seconds:
                forget(job)

    def find(job_id: str) -> _Job:
        sweep()
        job = jobs.get(job_id)
        if job is None:
            raise SessionNotFoundError(f"No solve has the id {job_id[:40]!r}; expected one that POST /v1/solve "
                                       "answered, not yet deleted or let go.")
        job.touched = time.monotonic()
        return job

    async def work(job: _Job) -> None:
        try:
            summary = await pool.run(run_solve, job.spot, str(job.folder))
            from matchdb.solver import load

            job.solution = await anyio.to_thread.run_sync(load, job.folder / "solution.npz", db)
            job.summary, job.state = summary, "done"
        except MatchdbError as error:
            job.error, job.state = str(error), "failed"
        except asyncio.CancelledError:
            job.state = "cancelled"
            raise
        except Exception as error:  # a crash in the worker: said, not served as an answer
            job.error, job.state = f"The solve stopped: {type(error).__name__}.", "failed"
        finally:
            job.finished = time.monotonic()
            job.touched = job.finished

    @app.post("/v1/solve", status_code=202, summary="Solve a heads-up postflop spot: a job, followed at /v1/solve/{id}")
    async def post_solve(request: Request, spot: SolveSpot) -> Response:
        sweep()
        client = _client(request)
        if len(jobs) >= limit:
            raise SessionLimitError(f"The server holds {limit} solves, as many as it may; expected a retry once one "
                                    "is deleted or let go.")
        mine = sum(job.client == client for job in jobs.values())
        if mine >= client_limit:
            raise SessionLimitError(f"This client holds {mine} solves, as many as it may; expected DELETE "
                                    "/v1/solve/{id} of one first.")
        sized = await compute(estimate, db, spot)
        if len(jobs) >= limit:  # others were added while this one was estimated
            raise SessionLimitError(f"The server holds {limit} solves, as many as it may; expected a retry later.")
        job_id = secrets.token_urlsafe(12)
        if not folders:
            folders.append(Path(tempfile.mkdtemp(prefix="matchdb-solves-")))
        where = folders[0] / job_id
        where.mkdir(parents=True)
        job = _Job(job_id, client, spot, sized, where)
        jobs[job_id] = job
        job.task = asyncio.get_running_loop().create_task(work(job))
        return _json(job.view(), 202)

    @app.get("/v1/solve/{job_id}", summary="A solve's state, progress and (when done) summary")
    async def get_solve(job_id: str) -> Response:
        return _json(find(job_id).view())

    @app.delete("/v1/solve/{job_id}", summary="Stop a solve (its worker is killed) or let a finished one go")
    async def delete_solve(job_id: str) -> Response:
        job = find(job_id)
        view = job.view()
        if job.finished is None:
            view["state"] = "cancelled"
        forget(job)
        return _json(view)

    @app.get("/v1/solve/{job_id}/node", summary="A node of a solved spot: strategies, EVs, equities, ranges, categories")
    async def get_node(job_id: str, path: str = Query("", description="actions and cards from the root, like 'Check, Bet 30, 7s'")) -> Response:
        job = find(job_id)
        if job.solution is None:
            raise MatchdbError(f"The solve {job_id!r} is {job.view()['state']}; expected a finished one ('done') to browse.")
        return _json(await compute(node_fields, job.solution, path))

    def close() -> None:
        for job in list(jobs.values()):
            forget(job)
        for where in folders:
            shutil.rmtree(where, ignore_errors=True)

    return close
