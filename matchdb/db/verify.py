"""Checking a database: metadata, every table's bytes and content, derived data, and sampled entries recomputed.

>>> report = verify(path, sample=5, seed=1)
>>> report.ok, report.tables_checked, report.sampled
(True, 8, 5)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from matchdb.answers import plural
from matchdb.core import reference
from matchdb.core.canonical import (
    CANONICAL_FLOPS,
    N_FLOPS,
    ORBIT_SIZES,
    flop_cards,
    local_cards,
)
from matchdb.core.pairs import COLLISION, N_PAIRS, PAIRS, SENTINEL
from matchdb.db.query import MatchDB
from matchdb.errors import DatabaseError, MatchdbError
from matchdb.progress import progress
from matchdb.storage.derived import DERIVED_FOLDER, decode_derived, derived_member, tables_fingerprint
from matchdb.storage.digests import sha256_bytes, table_digest
from matchdb.storage.layout import SHARD_INDEX_BYTES
from matchdb.storage.shards import parse_shard_index

__all__ = ["verify", "VerifyReport", "compact_ranges"]


def compact_ranges(indices: list[int]) -> str:
    """Write sorted indices compactly.

    >>> compact_ranges([0, 1, 2, 5, 7, 8])
    '0-2,5,7-8'
    """
    parts: list[str] = []
    start = prev = None
    for i in indices:
        if prev is not None and i == prev + 1:
            prev = i
            continue
        if start is not None:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = i
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(parts)


@dataclass
class VerifyReport:
    """Outcome of :func:`verify`; ``ok`` is True only when nothing is wrong.

    ``missing`` lists the required tables that are not built (none are
    required unless asked); ``present`` counts the tables the database holds.
    ``derived_missing`` names the kinds of derived data a complete database
    lacks or holds in an older layout (a store built before ``matchdb build``
    computed them): not damage, so not a failure; ``matchdb build`` computes them.
    """

    path: str
    present: int = 0
    tables_checked: int = 0
    missing: list[int] = field(default_factory=list)
    bad: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    derived_checked: list[str] = field(default_factory=list)
    derived_missing: list[str] = field(default_factory=list)
    sampled: int = 0
    recomputed: int = 0

    @property
    def ok(self) -> bool:
        return not (self.missing or self.bad or self.problems)

    def lines(self) -> list[str]:
        intact = self.tables_checked - len(self.bad)
        out = [
            f"{self.path}: {self.present} of {N_FLOPS} tables present, {intact} intact, "
            f"{plural(len(self.derived_checked), 'derived file')} checked, {plural(self.sampled, 'entry', 'entries')} recomputed"
            + (f", {plural(self.recomputed, 'whole table')} recomputed and compared" if self.recomputed else "")
        ]
        out += [f"problem: {p}" for p in self.problems]
        if self.missing:
            out.append(f"missing {plural(len(self.missing), 'required table')}: {compact_ranges(self.missing)}")
        out += [f"bad table {i}: {why}" for i, why in sorted(self.bad.items())]
        if self.derived_missing:
            out.append(f"derived data not yet computed: {', '.join(self.derived_missing)} (matchdb build computes it; "
                       "until then a question computes what it needs on first use)")
        out.append("OK" if self.ok else "FAILED")
        return out


def _check_metadata(db: MatchDB, report: VerifyReport) -> None:
    import zarr

    reference_arrays = {  # name: what this matchdb computes for it
        "collision": COLLISION,
        "flops": CANONICAL_FLOPS,
        "orbit_sizes": ORBIT_SIZES.astype(np.uint8),
        "pairs": PAIRS,
        "cards": flop_cards(),
    }
    zarr_store = db.store.zarr_store()
    try:
        tables = zarr.open_array(store=zarr_store, path="W", mode="r")
        if tables.shape != (N_FLOPS, N_PAIRS, N_PAIRS) or tables.dtype != np.uint16:
            report.problems.append(f"array 'W' is {tables.shape} {tables.dtype}; expected {(N_FLOPS, N_PAIRS, N_PAIRS)} uint16")
    except Exception as error:  # any zarr, zip or codec failure is a finding, not a crash
        report.problems.append(f"array 'W' cannot be read ({error})")
    for name, data in reference_arrays.items():
        try:
            array = zarr.open_array(store=zarr_store, path=name, mode="r")
            if array.shape != data.shape or array.dtype != data.dtype:
                report.problems.append(f"array {name!r} is {array.shape} {array.dtype}; expected {data.shape} {data.dtype}")
            elif not np.array_equal(array[...], data):
                report.problems.append(f"array {name!r} differs from what this matchdb computes")
        except Exception as error:
            report.problems.append(f"array {name!r} cannot be read ({error})")


def _check_bytes(db: MatchDB, index: int) -> str | None:
    """What is wrong with table ``index``'s stored bytes (manifest, shard checksum, shard index), or None."""
    entry = db.store.manifest(index)
    location = db.store.locate(index)
    if entry is None or location is None:
        return "the table disappeared while being checked"
    shard = db.store.read_ranges(location, [(0, location.length)], f"of table {index} in '{db.store.name}'")[0]
    if sha256_bytes(shard) != entry.get("shard_sha256"):
        return "shard bytes do not match the manifest's SHA-256 (altered, truncated or another table's)"
    recorded = tuple((offset, nbytes) for offset, nbytes, _ in location.chunks)
    if parse_shard_index(shard[-SHARD_INDEX_BYTES:], f"of table {index}") != recorded:
        return "the shard's own index disagrees with the manifest's chunk ranges"
    return None


def _check_derived(db: MatchDB, report: VerifyReport) -> None:
    from matchdb.equity.derived import DERIVED

    members = db.store.members_under(DERIVED_FOLDER)
    built = db.built()
    if len(built) == N_FLOPS:
        for kind, entry in DERIVED.items():
            data = db.store.read_member(derived_member(kind))
            try:
                current = data is not None and json.loads(data).get("version") == entry.version
            except (ValueError, AttributeError):
                current = True  # damaged: the check below names it
            if not current:
                report.derived_missing.append(kind)
    if not members:
        return
    fingerprint = tables_fingerprint(db.store, built) if built else ""
    for member in members:
        report.derived_checked.append(member)
        try:
            data = db.store.read_member(member)
            if data is None:
                raise DatabaseError(f"the member {member} is listed but missing")
            header = json.loads(data)
            content = decode_derived(data, member, header.get("kind"), header.get("version"), fingerprint, db.store.name)
        except (DatabaseError, ValueError, AttributeError) as error:
            report.problems.append(f"derived file {member}: {error}")
            continue
        if content is None:
            report.problems.append(f"derived file {member} was computed from other tables than these (stale); delete it to recompute it")


#: Most entries ``verify`` recomputes with the pure-Python twin.
MAX_SAMPLE = 10_000_000


def verify(
    path: str | Path,
    sample: int = 100,
    seed: int | None = None,
    required: Iterable[int] = (),
    complete: bool = False,
    show_progress: bool = False,
    recompute: bool = False,
    workers: int | None = None,
) -> VerifyReport:
    """Check the store folder or packed file at ``path``; see :class:`VerifyReport`.

    Checks the format, every array's shape and content, the container's own
    checksums (a packed file's ``.sha256`` and ``SHA256SUMS``), each built
    table's manifest entry, shard checksum, shard index, decoded content
    (every chunk's crc32c and zstd checksum, the decoded SHA-256, the
    collision pattern), every derived file's digests, and recomputes
    ``sample`` random entries with the pure-Python twin. Tables not built are
    only reported when ``required`` (indices) names them, or all of them
    with ``complete``.

    With ``recompute``, every built table (or those ``required`` names) is
    computed again, as a build computes it, and compared entry by entry with
    what the store decodes to: checksums only prove bytes are what their
    manifest says, so a shard copied from another table with its manifest
    entry edited to match passes them, and fails here. ``workers`` threads
    compute (default one per core); a full recompute takes about as long as a
    build.
    """
    for name, value, high in (("sample", sample, MAX_SAMPLE), ("seed", seed, 2**63 - 1)):
        if value is None and name == "seed":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= high:
            raise MatchdbError(f"The {name} {value!r} is not a whole number 0..{high:,}.")
    required = list(required)
    report = VerifyReport(path=str(path))
    try:
        db = MatchDB(path, cache_tables=1)
    except DatabaseError as error:
        report.problems.append(str(error))
        return report
    report.problems.extend(db.store.integrity_problems())
    _check_metadata(db, report)
    built = db.built()
    report.present = len(built)
    needed = set(range(N_FLOPS)) if complete else set(required)
    report.missing = sorted(needed - set(built))
    samples = _sample_entries(built, sample, seed)  # drawn first, so no table need be kept
    table = np.empty((N_PAIRS, N_PAIRS), dtype=np.uint16)  # one buffer for every table
    chosen = set(required) if required and not complete else set(built)
    again = [index for index in built if index in chosen] if recompute else []
    fresh = _recomputed(again, workers)
    for index in progress(built, len(built), "verifying", unit="table", enabled=show_progress):
        report.tables_checked += 1
        try:
            problem = _check_bytes(db, index)
            if problem is None:
                db.read_table(index, out=table)
        except DatabaseError as error:
            problem = str(error)
        if problem is None and table_digest(table) != (db.store.manifest(index) or {}).get("table_sha256"):
            problem = "decoded table does not match the manifest's SHA-256"
        if problem is None and not ((table == SENTINEL) == COLLISION).all():
            problem = "sentinel entries do not follow the collision mask"
        if problem is None:
            problem = _check_samples(index, table, samples.get(index, ()), report)
        if index in chosen and recompute:
            computed = next(fresh)  # taken for every table recomputed, so the stream stays in step
            report.recomputed += 1
            if problem is None and not np.array_equal(computed, table):
                differ = int(np.count_nonzero(computed != table))
                problem = (f"the stored table differs from the recomputed one in {differ:,} of {N_PAIRS * N_PAIRS:,} entries "
                           "(a forged or misplaced shard); rebuild it")
        if problem is not None:
            report.bad[index] = problem
    _check_derived(db, report)
    return report


def _recomputed(indices: list[int], workers: int | None) -> Iterator[np.ndarray]:
    """The tables ``indices`` computed afresh, in order, by ``workers`` threads (the kernel releases the GIL)."""
    import os
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    from matchdb.core.table import match_table

    if not indices:
        return
    threads = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(threads) as pool:
        pending: deque[Future[np.ndarray]] = deque()
        upcoming = iter(indices)
        for index in upcoming:
            pending.append(pool.submit(match_table, CANONICAL_FLOPS[index].tolist()))
            if len(pending) >= 2 * threads:
                break
        while pending:
            table = pending.popleft().result()
            for index in upcoming:
                pending.append(pool.submit(match_table, CANONICAL_FLOPS[index].tolist()))
                break
            yield table


def _check_samples(index: int, table: np.ndarray, entries: Iterable[tuple[int, int]], report: VerifyReport) -> str | None:
    cards = local_cards(index)
    flop = [int(c) for c in CANONICAL_FLOPS[index]]
    for row, column in entries:
        hole = (int(cards[PAIRS[row][0]]), int(cards[PAIRS[row][1]]))
        runout = (int(cards[PAIRS[column][0]]), int(cards[PAIRS[column][1]]))
        twin = reference.entry(flop, hole, runout)
        report.sampled += 1
        if int(table[row, column]) != twin:
            return f"entry [{row}, {column}] is {int(table[row, column])}; the pure-Python twin computes {twin}"
    return None


def _sample_entries(tables: list[int], count: int, seed: int | None) -> dict[int, list[tuple[int, int]]]:
    """``count`` random non-colliding (row, column) entries of random tables among ``tables``, by table."""
    rng = np.random.default_rng(seed)
    drawn: dict[int, list[tuple[int, int]]] = {}
    for _ in range(count if tables else 0):
        index = int(rng.choice(tables))
        row, column = (int(x) for x in rng.integers(0, N_PAIRS, size=2))
        while COLLISION[row, column]:
            row, column = (int(x) for x in rng.integers(0, N_PAIRS, size=2))
        drawn.setdefault(index, []).append((row, column))
    return drawn
