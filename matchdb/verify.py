"""Checking a database: metadata, every table's checksums, and sampled entries recomputed.

>>> report = verify("data/matchdb.zarr", sample=10)     # doctest: +SKIP
>>> report.ok                                            # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from matchdb import reference
from matchdb.canonical import CANONICAL_FLOPS, N_FLOPS, ORBIT_SIZES
from matchdb.pairs import COLLISION, N_PAIRS, PAIRS, SENTINEL
from matchdb.errors import CorruptDatabaseError, DatabaseError
from matchdb.store import ShardReader, flop_cards, open_database, sha256_range, table_digest

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
    """Outcome of :func:`verify`; ``ok`` is True only when nothing is wrong."""

    path: str
    tables_checked: int = 0
    missing: list[int] = field(default_factory=list)
    bad: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    sampled: int = 0

    @property
    def ok(self) -> bool:
        return not (self.missing or self.bad or self.problems)

    def lines(self) -> list[str]:
        out = [f"{self.path}: {self.tables_checked} tables checked, {self.sampled} entries recomputed"]
        out += [f"problem: {p}" for p in self.problems]
        if self.missing:
            out.append(f"missing {len(self.missing)} tables: {compact_ranges(self.missing)}")
        out += [f"bad table {i}: {why}" for i, why in sorted(self.bad.items())]
        out.append("OK" if self.ok else "FAILED")
        return out


def _check_metadata(store, report: VerifyReport) -> None:
    import zarr

    reference_arrays = {  # name: what this matchdb computes for it
        "collision": COLLISION,
        "flops": CANONICAL_FLOPS,
        "orbit_sizes": ORBIT_SIZES.astype(np.uint8),
        "pairs": PAIRS,
        "cards": flop_cards(),
    }
    expected_shapes = {name: (data.shape, data.dtype) for name, data in reference_arrays.items()}
    expected_shapes["W"] = ((N_FLOPS, N_PAIRS, N_PAIRS), np.dtype(np.uint16))  # its content: each table, checked below
    zarr_store = store.zarr_store()
    for name, (shape, dtype) in expected_shapes.items():
        data = reference_arrays.get(name)
        try:
            array = zarr.open_array(store=zarr_store, path=name, mode="r")
            if array.shape != shape or array.dtype != dtype:
                report.problems.append(f"array {name!r} is {array.shape} {array.dtype}; expected {shape} {dtype}")
            elif data is not None and not (array[...] == data).all():
                report.problems.append(f"array {name!r} differs from what this matchdb computes")
        except Exception as error:  # any zarr, zip or codec failure is a finding, not a crash
            report.problems.append(f"array {name!r} cannot be read ({error})")


def verify(path: str | Path, sample: int = 100, seed: int | None = None, expected=None) -> VerifyReport:
    """Check the store folder or packed file at ``path``; see :class:`VerifyReport`.

    Checks the format, every array's shape and content, each table's manifest
    entry, shard checksum, decoded checksum and collision pattern, and
    recomputes ``sample`` random entries with the pure-Python twin. A packed
    file's own checksums (the ``.sha256`` beside it, the manifest inside) are
    checked first. A table is reported missing when it is in ``expected``
    (indices; default all 1,755) and not finished; finished tables outside it
    are checked too.
    """
    expected = set(range(N_FLOPS) if expected is None else expected)
    report = VerifyReport(path=str(path))
    try:
        store = open_database(path)
    except DatabaseError as error:
        report.problems.append(str(error))
        return report
    report.problems.extend(store.integrity_problems())
    _check_metadata(store, report)
    reader = ShardReader(store.shard, str(path))
    samples = _sample_entries(store.built(), sample, seed)  # drawn first, so no table need be kept
    local_cards = flop_cards()
    table = np.empty((N_PAIRS, N_PAIRS), dtype=np.uint16)  # one buffer for every table
    for index in range(N_FLOPS):
        entry = store.manifest(index)
        located = store.shard(index)
        if entry is None:
            if index in expected:
                report.missing.append(index)
            continue
        report.tables_checked += 1
        if located is None:
            report.bad[index] = "shard file is missing"
            continue
        if sha256_range(*located) != entry.get("shard_sha256"):
            report.bad[index] = "shard bytes do not match the manifest's SHA-256 (altered or truncated)"
            continue
        try:
            reader.read_table(index, out=table)
        except CorruptDatabaseError as error:
            report.bad[index] = str(error)
            continue
        if table_digest(table) != entry.get("table_sha256"):
            report.bad[index] = "decoded table does not match the manifest's SHA-256"
            continue
        if not ((table == SENTINEL) == COLLISION).all():
            report.bad[index] = "sentinel entries do not follow the collision mask"
            continue
        for row, column in samples.get(index, ()):
            hole = tuple(int(local_cards[index, l]) for l in PAIRS[row])
            runout = tuple(int(local_cards[index, l]) for l in PAIRS[column])
            twin = reference.entry([int(c) for c in CANONICAL_FLOPS[index]], hole, runout)
            report.sampled += 1
            if int(table[row, column]) != twin:
                report.bad[index] = f"entry [{row}, {column}] is {int(table[row, column])}; the pure-Python twin computes {twin}"
                break
    return report


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
