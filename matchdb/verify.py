"""Checking a database: metadata, every table's checksums, and sampled entries recomputed.

>>> report = verify("data/matchdb.zarr", sample=10)     # doctest: +SKIP
>>> report.ok                                            # doctest: +SKIP
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from matchdb import reference
from matchdb.canonical import CANONICAL_FLOPS, N_FLOPS, ORBIT_SIZES
from matchdb.cards import COLLISION, N_PAIRS, PAIRS
from matchdb.errors import CorruptDatabaseError, DatabaseError
from matchdb.store import (
    ShardReader,
    directory_source,
    flop_cards,
    open_store_attrs,
    read_manifest,
    sha256_file,
    shard_path,
    table_digest,
)

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


def _check_metadata(root: Path, report: VerifyReport) -> None:
    expected = {
        "W": ([N_FLOPS, N_PAIRS, N_PAIRS], "uint16"),
        "collision": (list(COLLISION.shape), "bool"),
        "flops": ([N_FLOPS, 3], "uint8"),
        "orbit_sizes": ([N_FLOPS], "uint8"),
        "pairs": ([N_PAIRS, 2], "uint8"),
        "cards": ([N_FLOPS, 49], "uint8"),
    }
    import zarr

    for name, (shape, dtype) in expected.items():
        try:
            meta = json.loads((root / name / "zarr.json").read_text())
        except (OSError, ValueError) as error:
            report.problems.append(f"array {name!r} metadata unreadable ({error})")
            continue
        if meta.get("shape") != shape or meta.get("data_type") != dtype:
            report.problems.append(
                f"array {name!r} is {meta.get('shape')} {meta.get('data_type')}; expected {shape} {dtype}"
            )
    reference_arrays = {
        "collision": COLLISION,
        "flops": CANONICAL_FLOPS,
        "orbit_sizes": ORBIT_SIZES,
        "pairs": PAIRS,
        "cards": flop_cards(),
    }
    for name, data in reference_arrays.items():
        try:
            stored = zarr.open_array(root / name, mode="r")[...]
        except Exception as error:  # any zarr or codec failure is a finding, not a crash
            report.problems.append(f"array {name!r} cannot be read ({error})")
            continue
        if stored.shape != data.shape or not (stored == data).all():
            report.problems.append(f"array {name!r} differs from what this matchdb computes")


def verify(path: str | Path, sample: int = 100, seed: int | None = None, expected=None) -> VerifyReport:
    """Check the store at ``path``; see :class:`VerifyReport`.

    Checks the format, every array's shape and content, each table's manifest
    entry, shard checksum, decoded checksum and collision pattern, and
    recomputes ``sample`` random entries with the pure-Python twin. A table
    is reported missing when it is in ``expected`` (indices; default all
    1,755) and not finished; finished tables outside it are checked too.
    """
    root = Path(path)
    expected = set(range(N_FLOPS) if expected is None else expected)
    report = VerifyReport(path=str(root))
    try:
        open_store_attrs(root)
    except DatabaseError as error:
        report.problems.append(str(error))
        return report
    _check_metadata(root, report)
    reader = ShardReader(directory_source(root), str(root))
    present: dict[int, np.ndarray] = {}
    for index in range(N_FLOPS):
        entry = read_manifest(root, index)
        if entry is None:
            if index in expected:
                report.missing.append(index)
            continue
        report.tables_checked += 1
        shard = shard_path(root, index)
        if not shard.exists():
            report.bad[index] = "shard file is missing"
            continue
        if sha256_file(shard) != entry.get("shard_sha256"):
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
