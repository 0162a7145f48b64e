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
from matchdb.cards import COLLISION, N_PAIRS, PAIRS
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

    reference_arrays = {
        "W": (np.empty((N_FLOPS, N_PAIRS, N_PAIRS), dtype=np.uint16), False),
        "collision": (COLLISION, True),
        "flops": (CANONICAL_FLOPS, True),
        "orbit_sizes": (ORBIT_SIZES.astype(np.uint8), True),
        "pairs": (PAIRS, True),
        "cards": (flop_cards(), True),
    }
    zarr_store = store.zarr_store()
    for name, (data, compare) in reference_arrays.items():
        try:
            array = zarr.open_array(store=zarr_store, path=name, mode="r")
            if array.shape != data.shape or array.dtype != data.dtype:
                report.problems.append(f"array {name!r} is {array.shape} {array.dtype}; expected {data.shape} {data.dtype}")
            elif compare and not (array[...] == data).all():
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
    present: dict[int, np.ndarray] = {}
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
            table = reader.read_table(index)
        except CorruptDatabaseError as error:
            report.bad[index] = str(error)
            continue
        if table_digest(table) != entry.get("table_sha256"):
            report.bad[index] = "decoded table does not match the manifest's SHA-256"
        elif not ((table == 65535) == COLLISION).all():
            report.bad[index] = "sentinel entries do not follow the collision mask"
        elif len(present) < 64 or index % 7 == 0:
            present[index] = table  # keep a bounded set for the sampled recomputation
    rng = np.random.default_rng(seed)
    local_cards = flop_cards()
    candidates = sorted(present)
    for _ in range(sample if candidates else 0):
        index = int(rng.choice(candidates))
        row, column = (int(x) for x in rng.integers(0, N_PAIRS, size=2))
        while COLLISION[row, column]:
            row, column = (int(x) for x in rng.integers(0, N_PAIRS, size=2))
        hole = tuple(int(local_cards[index, l]) for l in PAIRS[row])
        runout = tuple(int(local_cards[index, l]) for l in PAIRS[column])
        expected = reference.entry([int(c) for c in CANONICAL_FLOPS[index]], hole, runout)
        stored = int(present[index][row, column])
        report.sampled += 1
        if stored != expected:
            report.bad[index] = f"entry [{row}, {column}] is {stored}; the pure-Python twin computes {expected}"
    return report
