"""The solver's two entry points: :func:`solve` a spot, :func:`load` a saved solution.

Both take the match tables from a *source*, a
:class:`matchdb.solver.solve.TableReader`: anything with a ``table(index)``
method that returns a canonical flop's (1176, 1176) W table:
:class:`matchdb.MatchDB` is one, and ``db.solve(...)`` is ``solve(db, ...)``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from matchdb.core.cards import CardsLike, format_cards
from matchdb.core.ranges import RangeLike, range_weights
from matchdb.solver.lock import LockLike, lock_arrays
from matchdb.solver.sizes import SolverError
from matchdb.solver.solution import Solution, read_saved
from matchdb.solver.solve import SolveStats, Spot, TableReader, allocate, prepare, run
from matchdb.solver.tree import SizesLike

__all__ = ["solve", "load", "DEFAULT_TARGET"]

#: Default target exploitability, in % of the starting pot.
DEFAULT_TARGET = 0.5


def _check_number(name: str, value: object, low: float, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value) \
            or not low <= value <= high:
        upper = "" if high == math.inf else f"..{high:g}"
        raise SolverError(f"{name} is {value!r}; expected a number {low:g}{upper}.")
    return float(value)


def _check_sizes(name: str, spec: object) -> Any:
    """Sizes as the question keeps them (text, None, or a mapping of texts), JSON-able for a saved solution."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, Mapping):
        return {str(k): v for k, v in spec.items()}
    raise SolverError(f"The {name} sizes {spec!r} are neither text like '33%, 75%, a' nor a mapping like {{'flop': '33%'}}.")


def solve(source: TableReader, oop: RangeLike, ip: RangeLike, board: CardsLike, pot: int, stack: int,
          bet: SizesLike = "", raise_: SizesLike = "", *, donk: SizesLike = None, rake: float = 0.0,
          rake_cap: float = 0.0, target: float = DEFAULT_TARGET, max_iterations: int = 1000, add_allin: float = 1.5,
          force_allin: float = 0.15, merge: float = 0.1, compressed: bool = False, max_memory: int | None = None,
          threads: int | None = None, locks: Mapping[Any, LockLike] | None = None, show_progress: bool = False,
          gamma: float = 3.0, on_check: Callable[[int, float], object] | None = None) -> Solution:
    """Solve a heads-up postflop spot to ``target`` % of the pot (see :meth:`matchdb.MatchDB.solve` for every option).

    ``on_check(iterations, exploitability)`` is called after every exploitability check (every tenth
    iteration; the exploitability in chips) to follow the solve; an exception it raises stops it.
    """
    target_pct = _check_number("target", target, 0.0, 100.0)
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or not 0 <= max_iterations <= 1_000_000:
        raise SolverError(f"max_iterations is {max_iterations!r}; expected a whole number 0..1,000,000.")
    gamma = _check_number("gamma", gamma, 0.0, 10.0)
    weights = (np.array(range_weights(oop), dtype=np.float64), np.array(range_weights(ip), dtype=np.float64))
    question = {
        "oop": _range_text(oop), "ip": _range_text(ip), "board": format_cards(_board(board)), "pot": pot, "stack": stack,
        "bet": _check_sizes("bet", bet), "raise": _check_sizes("raise", raise_), "donk": _check_sizes("donk", donk),
        "rake": rake, "rake_cap": rake_cap, "add_allin": add_allin, "force_allin": force_allin, "merge": merge,
        "compressed": compressed, "gamma": gamma, "max_iterations": int(max_iterations), "target_pct": target_pct,
    }
    spot = prepare(source, oop, ip, board, pot, stack, bet, raise_, donk=donk, rake=rake,
                   rake_cap=rake_cap, add_allin=add_allin, force_allin=force_allin, merge=merge, compressed=compressed,
                   max_memory=max_memory, threads=threads)
    spot.ranges = (question["oop"], question["ip"])
    spot.gamma = gamma
    allocate(spot, source, show_progress=show_progress)
    _apply_locks(spot, locks)
    target_chips = spot.options.pot * target_pct / 100.0
    stats = run(spot, target_chips, int(max_iterations), show_progress=show_progress, on_check=on_check)
    return Solution(spot, stats=stats, question=question, weights=weights, target=target_chips, locks=locks)


def _board(board: CardsLike) -> tuple[int, ...]:
    from matchdb.solver.game import parse_board

    return parse_board(board)


def _range_text(spec: RangeLike) -> str:
    from matchdb.core.ranges import describe_range

    return describe_range(spec)


def _apply_locks(spot: Spot, locks: Mapping[Any, LockLike] | None) -> None:
    if not locks:
        return
    if not isinstance(locks, Mapping):
        raise SolverError(f"The locks {locks!r} are not a mapping of lines to strategies, like {{'Bet 120': {{'Call': 1}}}}.")
    lock_of, values = lock_arrays(spot, locks)
    spot.bufs = spot.bufs._replace(lock_of=lock_of, locks=values)


def resolve(solution: Solution, locks: Mapping[Any, LockLike], source: TableReader | None = None,
            target: float | None = None, max_iterations: int | None = None, show_progress: bool = False) -> Solution:
    """The same spot solved again with ``locks`` (added to the solution's own), from scratch."""
    question = dict(solution.question)
    merged = dict(solution.locks)
    merged.update(locks)
    table = solution.spot.table
    return solve(source or _Fixed(table), solution.question_weights[0], solution.question_weights[1], question["board"],
                 question["pot"], question["stack"], question["bet"], question["raise"], donk=question["donk"],
                 rake=question["rake"], rake_cap=question["rake_cap"],
                 target=question["target_pct"] if target is None else target,
                 max_iterations=question["max_iterations"] if max_iterations is None else max_iterations,
                 add_allin=question["add_allin"], force_allin=question["force_allin"], merge=question["merge"],
                 compressed=question["compressed"], threads=solution.spot.threads, locks=merged,
                 show_progress=show_progress, gamma=question["gamma"])


class _Fixed:
    """A source of the one table a solution already holds."""

    def __init__(self, table: np.ndarray) -> None:
        self._table = table

    def table(self, index: int) -> np.ndarray:
        return self._table


def load(path: str | os.PathLike[str], source: TableReader, threads: int | None = None) -> Solution:
    """Read a solution saved by :meth:`Solution.save`, checking it against ``source``'s match table of its flop.

    Refused (:class:`matchdb.solver.SolverError`, one sentence) when the file
    is not a saved solution, was written by another version, or was solved on
    a table whose SHA-256 differs from the source's: its strategies would not
    answer for these tables.
    """
    meta, arrays = read_saved(path)
    q = meta["question"]
    try:
        weights = (np.asarray(arrays["oop_weights"], dtype=np.float64), np.asarray(arrays["ip_weights"], dtype=np.float64))
        spot = prepare(source, weights[0], weights[1], q["board"], q["pot"], q["stack"], q["bet"], q["raise"],
                       donk=q["donk"], rake=q["rake"], rake_cap=q["rake_cap"], add_allin=q["add_allin"],
                       force_allin=q["force_allin"], merge=q["merge"], compressed=q["compressed"], threads=threads)
    except KeyError as missing:
        raise SolverError(f"The saved solution '{os.fspath(path)}' lacks {missing}; it is damaged.") from None
    spot.ranges = (q["oop"], q["ip"])
    spot.gamma = q["gamma"]
    allocate(spot, source)
    if spot.table_sha256 != meta["table_sha256"] or spot.flop_index != meta["flop_index"]:
        raise SolverError(
            f"The saved solution '{os.fspath(path)}' was solved on flop table {meta['flop_index']} with SHA-256 "
            f"{meta['table_sha256'][:12]}..., but this database's is {spot.flop_index} with {spot.table_sha256[:12]}...; "
            "expected the tables it was solved on."
        )
    name = "strategy16" if spot.compressed else "strategy"
    stored = arrays.get(name)
    if stored is None or stored.shape != (spot.layout.elements,) or meta.get("elements") != spot.layout.elements:
        raise SolverError(f"The saved solution '{os.fspath(path)}' holds {0 if stored is None else stored.size} numbers; "
                          f"its question needs {spot.layout.elements}: it is damaged or of another tree.")
    if spot.compressed:
        spot.bufs.strategy16[:] = stored
        spot.bufs.sscale[:] = arrays["sscale"]
    else:
        spot.bufs.strategy[:] = stored
    locks = {tuple(line): strategy for line, strategy in meta.get("locks", [])}
    _apply_locks(spot, locks)
    s = meta["stats"]
    stats = SolveStats(int(s["iterations"]), float(s["seconds"]), float(s["exploitability"]),
                       [tuple(h) for h in s.get("history", [])])
    return Solution(spot, stats=stats, question=q, weights=weights, target=float(meta["target"]), locks=locks)
