"""Build a library: one spec solved on every canonical flop, resumable, in this process or on a Dask cluster.

Each flop is solved from the canonical flop's own cards (its 1,755 suit orbits
are answered by renaming suits, as the tables are). A worker solves and
returns the flop's decisions; this process writes them (one writer, whole flops
only), so a build killed at any point resumes where it stopped and computes
the same numbers: the solver is deterministic for a given number of threads,
and every solve of a Dask build runs on one thread.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matchdb.cluster import local_cluster
from matchdb.core.canonical import CANONICAL_FLOPS
from matchdb.core.cards import format_cards
from matchdb.db.build import connect_scheduler, parse_flop_spec
from matchdb.db.query import MatchDB
from matchdb.errors import IncompleteDatabaseError
from matchdb.library.spec import LibrarySpec
from matchdb.library.store import FlopAnswers, FolderFiles, create_library, extract, remove_partials, stored_flops, write_flop
from matchdb.progress import progress

__all__ = ["LibraryReport", "build_library", "solve_flop", "database_location"]


@dataclass
class LibraryReport:
    """What a library build did: flops solved and skipped, the worst exploitability, times."""

    root: Path
    requested: int
    built: list[int] = field(default_factory=list)
    skipped: int = 0
    worst_pct: float = 0.0  #: the largest exploitability of the flops solved now, % of the pot
    solve_seconds: float = 0.0  #: the solves' own seconds, summed
    wall_seconds: float = 0.0

    def summary(self) -> str:
        per = self.solve_seconds / len(self.built) if self.built else 0.0
        return (f"solved {len(self.built)} flops, skipped {self.skipped} already stored, of {self.requested} requested "
                f"into {self.root} in {self.wall_seconds:.1f} s wall ({per:.2f} s per flop's solve; worst "
                f"exploitability {self.worst_pct:.3f} % of the pot)")


def database_location(db: MatchDB) -> str:
    """Where a worker process opens ``db``: a folder or file by its absolute path, a URL as it is."""
    return str(db.path.resolve()) if isinstance(db.path, Path) else str(db.path)


@functools.cache
def _database(path: str) -> MatchDB:
    """One open database per worker process."""
    return MatchDB(path, cache_tables=1)


def solve_flop(db_path: str, index: int, spec: dict[str, Any], threads: int | None = None) -> FlopAnswers:
    """Solve ``spec`` (its keys) on canonical flop ``index`` of the database at ``db_path``; its stored decisions."""
    db = _database(db_path)
    chosen = LibrarySpec.from_dict(spec)
    board = format_cards([int(c) for c in CANONICAL_FLOPS[index]])
    options = chosen.solve_options()
    oop, ip, pot, stack, bet, raise_ = (options.pop(k) for k in ("oop", "ip", "pot", "stack", "bet", "raise_"))
    solution = db.solve(oop, ip, board, pot, stack, bet, raise_, threads=threads, **options)
    sha = (db.store.manifest(index) or {}).get("table_sha256", "")
    return extract(solution, index, sha)


def build_library(out: str | os.PathLike[str], spec: LibrarySpec, db: MatchDB, flops: str | Iterable[int] | None = None,
                  workers: int | None = None, scheduler: str | None = None, serial: bool = False,
                  quiet: bool = False) -> LibraryReport:
    """Solve ``spec`` on the flops named by ``flops`` (default all 1,755) into the library at ``out``.

    Flops already stored are skipped (a killed build resumes); a library begun
    for another spec is refused. ``serial`` solves in this process with every
    core's thread; otherwise ``workers`` single-threaded Dask worker processes
    (default one per core), or the running scheduler at ``scheduler``, solve a
    flop each at a time. Progress shows on a terminal unless ``quiet``.
    """
    root = Path(out)
    indices = parse_flop_spec(flops)
    built = set(db.built())
    lacking = [i for i in indices if i not in built]
    if lacking:
        raise IncompleteDatabaseError(f"The database '{db.path}' lacks {len(lacking)} of the {len(indices)} tables the "
                                      f"library needs (table {lacking[0]} first); build them with 'matchdb build'.")
    started = time.perf_counter()
    create_library(root, spec)
    remove_partials(root, indices)
    done = set(stored_flops(FolderFiles(root)))
    todo = [i for i in indices if i not in done]
    report = LibraryReport(root=root, requested=len(indices), skipped=len(indices) - len(todo))
    answers = _run(database_location(db), todo, spec, workers, scheduler, serial)
    for flop in progress(answers, len(todo), "solving", unit="flop", enabled=not quiet):
        write_flop(root, flop)
        report.built.append(flop.index)
        report.worst_pct = max(report.worst_pct, float(flop.meta["exploitability_pct"]))
        report.solve_seconds += float(flop.meta["seconds"])
    report.built.sort()
    report.wall_seconds = time.perf_counter() - started
    return report


def _run(db_path: str, todo: list[int], spec: LibrarySpec, workers: int | None, scheduler: str | None,
         serial: bool) -> Iterator[FlopAnswers]:
    """Yield each flop's answers as its solve finishes, in this process or on Dask."""
    keys = spec.to_dict()
    if serial or not todo:
        for index in todo:
            yield solve_flop(db_path, index, keys)
        return
    from distributed import as_completed

    clients: contextlib.AbstractContextManager[Any]
    clients = contextlib.closing(connect_scheduler(scheduler)) if scheduler else local_cluster(workers or os.cpu_count() or 1)
    with clients as client:
        futures = client.map(solve_flop, [db_path] * len(todo), todo, [keys] * len(todo), [1] * len(todo), pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]  # distributed leaves it unannotated
            yield future.result()
