"""Building the database: the work list, Dask orchestration, resume and progress.

``build()`` computes the tables a flop spec names (all 1,755 by default) and
writes each as one whole shard, one writer per table. Tables already recorded
in the manifest with an intact shard are skipped, so running it again resumes
a killed build and finishes at once on a complete one. Once every table is
there it computes the derived data the store lacks (the preflop tables and
matchups, :mod:`matchdb.equity.derived`: one pass over the tables, about half
a minute on 2 cores, with its progress), so no question computes it on first
use; on a store that already has it, nothing.

By default the work runs on a local Dask cluster
(:func:`matchdb.cluster.local_cluster`) of one single-threaded worker process
per core, Dask's own logging silenced; ``scheduler=`` connects to any running
Dask scheduler instead (for example one started on SLURM with dask-jobqueue),
and ``serial=True`` runs in this process (what a SLURM array task does).

>>> parse_flop_spec("0-2,AhTcTh,7")
[0, 1, 2, 7, 1681]
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchdb.answers import plural
from matchdb.cluster import local_cluster
from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS, flop_index
from matchdb.core.table import match_table
from matchdb.errors import DatabaseError, MatchdbError
from matchdb.progress import progress
from matchdb.storage import default_path
from matchdb.storage.files import remove_stale_partials
from matchdb.storage.layout import check_index
from matchdb.storage.writer import (
    clean_partials,
    create_store,
    table_is_done,
    write_table,
)

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["parse_flop_spec", "build", "BuildReport", "build_one", "connect_scheduler"]

_RANGE = re.compile(r"^(\d+)-(\d+)$")


#: Longest flop spec accepted, in characters: every table written out as a flop fits (12,284).
MAX_SPEC_CHARS = 16_384


def parse_flop_spec(spec: str | Iterable[int] | None) -> list[int]:
    """Canonical indices named by a spec: indices, ranges ``a-b`` and flops as cards, comma-separated.

    None means all 1,755. Flops need not be canonical: each names its canonical table.

    >>> parse_flop_spec("2c7dJh") == parse_flop_spec("2d7cJs")
    True
    >>> parse_flop_spec("1800")
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The flop spec '1800' names table 1800; expected indices 0..1754.
    """
    if spec is None:
        return list(range(N_FLOPS))
    if not isinstance(spec, str):
        indices = {check_index(i) for i in spec}
        shown = repr(list(spec))
    else:
        if len(spec) > MAX_SPEC_CHARS:
            raise MatchdbError(
                f"The flop spec is {len(spec):,} characters long; expected at most {MAX_SPEC_CHARS:,} "
                "(every table written out as a flop takes 12,284; ranges like 0-1754 are shorter)."
            )
        shown = repr(spec)
        indices = set()
        tokens = dict.fromkeys(t.strip() for t in spec.split(",") if t.strip())  # each token once, in order
        if not tokens:
            raise MatchdbError(f"The flop spec {spec!r} is empty; expected indices, ranges like 0-39 or flops like AhTcTh.")
        for token in tokens:
            if token.isdigit():
                indices.add(int(token))
            elif match := _RANGE.match(token):
                low, high = int(match[1]), int(match[2])
                if low > high:
                    raise MatchdbError(f"The flop spec range {token!r} runs backwards; expected low-high.")
                if high >= N_FLOPS:  # checked before expanding: '0-99999999999' must not fill memory
                    raise MatchdbError(f"The flop spec {shown[:80]} names table {high}; expected indices 0..{N_FLOPS - 1}.")
                indices.update(range(low, high + 1))
            else:
                try:
                    indices.add(flop_index(token))
                except MatchdbError as error:
                    raise MatchdbError(
                        f"The flop spec token {token[:40]!r} is neither an index, a range like 0-39 nor a flop ({error})"
                    ) from None
    for index in indices:
        if not 0 <= index < N_FLOPS:
            raise MatchdbError(f"The flop spec {shown[:80]} names table {index}; expected indices 0..{N_FLOPS - 1}.")
    return sorted(indices)


def build_one(root: str, index: int) -> dict[str, Any]:
    """Compute table ``index`` and write it to the store at ``root``; return its manifest entry.

    This is the unit of work a Dask worker or a SLURM array task runs.
    """
    start = time.process_time()
    table = match_table(CANONICAL_FLOPS[index].tolist())
    try:
        return write_table(Path(root), index, table, seconds=time.process_time() - start)
    except OSError as error:  # a full disk, a file-size limit, a store made read-only
        raise BuildWriteError(index, str(root), error.strerror or str(error)) from None


class BuildWriteError(DatabaseError):
    """A table could not be written; everything finished before it is kept."""

    def __init__(self, index: int, root: str, reason: str) -> None:  # plain arguments: it crosses processes
        self.index, self.root, self.reason = index, root, reason
        super().__init__(index, root, reason)

    def __str__(self) -> str:
        return (
            f"Writing table {self.index} to '{self.root}' failed ({self.reason}); the tables finished before it are kept: "
            "fix the cause and run the same command again to resume."
        )


@dataclass
class BuildReport:
    """What a build did: tables built and skipped, wall time, and per-table figures."""

    root: Path
    requested: int
    built: list[int] = field(default_factory=list)
    skipped: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    shard_bytes: int = 0
    derived: list[str] = field(default_factory=list)  #: kinds of derived data computed after the tables
    derived_seconds: float = 0.0  #: wall time of computing them (part of ``wall_seconds``)

    def summary(self) -> str:
        per_table = self.cpu_seconds / len(self.built) if self.built else 0.0
        after = (f"; then the derived data ({', '.join(self.derived)}) in {self.derived_seconds:.1f} s"
                 if self.derived else "")
        return (
            f"built {plural(len(self.built), 'table')}, skipped {self.skipped} already done, "
            f"of {self.requested} requested into {self.root} in {self.wall_seconds:.1f} s wall "
            f"({per_table * 1000:.1f} ms CPU per table, {self.shard_bytes / 1e6:.1f} MB written){after}"
        )


def _warm_up() -> None:
    """Compile (or load from numba's cache) the kernel once, before any worker starts.

    Workers then load the cached machine code instead of compiling at the same
    time, which numba's cache does not guard against (numba issues 4807, 10128).
    """
    match_table(CANONICAL_FLOPS[0].tolist())


def build(
    root: str | Path | None = None,
    flops: str | Iterable[int] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    serial: bool = False,
    quiet: bool = False,
    derived: bool = True,
) -> BuildReport:
    """Build (or resume building) the tables named by ``flops`` into the store at ``root``.

    Parameters
    ----------
    root : path of the zarr store; default :func:`matchdb.storage.default_path`.
    flops : a flop spec (see :func:`parse_flop_spec`) or indices; default all 1,755.
    workers : worker processes of the local Dask cluster; default one per core.
    scheduler : address of a running Dask scheduler to use instead of a local cluster.
    serial : compute in this process, without Dask.
    quiet : no progress (by default a bar on a terminal, a log line every few seconds otherwise).
    derived : once every table is built, compute the derived data the store lacks
        (:meth:`matchdb.MatchDB.prepare`); False leaves it to a later build.
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise MatchdbError(f"The number of workers {workers!r} is not a whole number of at least 1.")
    root = Path(root) if root is not None else default_path()
    indices = parse_flop_spec(flops)
    started = time.perf_counter()
    create_store(root)
    todo = [i for i in indices if not table_is_done(root, i)]
    report = BuildReport(root=root, requested=len(indices), skipped=len(indices) - len(todo))
    for index in todo:
        clean_partials(root, index)
    remove_stale_partials(root / "manifest")  # a writer killed while writing a table's manifest entry
    if todo:
        _warm_up()
        entries = _run(str(root.resolve()), todo, workers, scheduler, serial)
        for entry in progress(entries, len(todo), "building", unit="table", enabled=not quiet):
            report.built.append(entry["index"])
            report.cpu_seconds += entry["seconds"]
            report.shard_bytes += entry["shard_bytes"]
    if derived:
        from matchdb.db.query import MatchDB

        derived_started = time.perf_counter()
        report.derived = MatchDB(root, cache_tables=1).prepare(show_progress=not quiet)
        report.derived_seconds = time.perf_counter() - derived_started if report.derived else 0.0
    report.wall_seconds = time.perf_counter() - started
    return report


#: Environment of the worker processes a Dask build starts. Dask's nanny sets
#: MALLOC_TRIM_THRESHOLD_=65536 in every worker, and setting that switches off
#: glibc's adaptive mmap threshold: each table's multi-megabyte buffers are then
#: mapped and unmapped afresh and every page faults in again. Measured here, 200
#: tables took 17.8 s in one process with Dask's setting and 11.9 s with these
#: (buffers under 64 MiB come from the heap, which keeps up to 256 MiB free).
#: ``slurm/dask_build.py`` exports the same in its worker jobs.
WORKER_ENVIRON = {"MALLOC_TRIM_THRESHOLD_": str(256 << 20), "MALLOC_MMAP_THRESHOLD_": str(64 << 20)}


def _run(
    root: str, todo: list[int], workers: int | None, scheduler: str | None, serial: bool
) -> Iterator[dict[str, Any]]:
    """Yield manifest entries as tables finish, in this process or on Dask."""
    if serial:
        for index in todo:
            yield build_one(root, index)
        return
    from distributed import as_completed

    clients: contextlib.AbstractContextManager[Client]
    if scheduler:
        clients = contextlib.closing(connect_scheduler(scheduler))
    else:
        clients = local_cluster(workers or os.cpu_count() or 1, environ=WORKER_ENVIRON)
    with clients as client:
        futures = client.map(build_one, [root] * len(todo), todo, pure=False)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]  # distributed leaves it unannotated
            yield future.result()


def connect_scheduler(scheduler: str) -> Client:
    """A client of the Dask scheduler at ``scheduler``, or a one-sentence error."""
    from distributed import Client

    try:
        return Client(scheduler, timeout="10s")  # type: ignore[no-untyped-call]  # distributed leaves it unannotated
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise MatchdbError(
            f"The Dask scheduler {scheduler!r} cannot be reached ({error.__class__.__name__}); "
            "expected an address like tcp://host:8786 of a running scheduler."
        ) from None
