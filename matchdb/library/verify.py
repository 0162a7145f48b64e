"""Check a library: every stored flop whole, within its spec's target, and a sample of flops solved again to the same bytes."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matchdb.library.build import database_location, solve_flop
from matchdb.library.packed import library_files
from matchdb.library.spec import LibraryError
from matchdb.library.store import array_digest, library_spec, read_flop, stored_flops

__all__ = ["LibraryCheck", "verify_library"]


@dataclass
class LibraryCheck:
    """What :func:`verify_library` found: flops checked and solved again, and one line per problem."""

    path: Path
    checked: int = 0
    resolved: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        again = f", {len(self.resolved)} solved again ({', '.join(map(str, self.resolved))})" if self.resolved else ""
        verdict = "OK" if self.ok else f"{len(self.problems)} problems"
        return f"{self.path}: {self.checked} flops checked{again}: {verdict}"


def verify_library(path: str | os.PathLike[str], db: Any, sample: int = 0, seed: int | None = None) -> LibraryCheck:
    """Check every stored flop of the library at ``path`` (its arrays against the manifest's SHA-256, its table
    against ``db``'s, its exploitability against the spec's target) and solve ``sample`` flops drawn at random
    again, comparing their arrays byte for byte with the stored ones."""
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise LibraryError(f"The sample {sample!r} is not a whole number of flops of at least 0.")
    root = Path(path)
    files = library_files(path)
    spec = library_spec(files)
    report = LibraryCheck(root)
    flops = stored_flops(files)
    for index in flops:
        report.checked += 1
        try:
            answers = read_flop(files, index)
        except LibraryError as error:
            report.problems.append(str(error))
            continue
        own = (db.store.manifest(index) or {}).get("table_sha256")
        if own != answers.meta["table_sha256"]:
            report.problems.append(f"flop {index} was solved on another table than this database's")
        if answers.meta["exploitability_pct"] > spec.target:
            report.problems.append(f"flop {index} is at {answers.meta['exploitability_pct']:.3f} % of the pot, over the "
                                   f"spec's target {spec.target:g} %")
    chosen = sorted(random.Random(seed).sample(flops, min(sample, len(flops))))
    for index in chosen:
        fresh = solve_flop(database_location(db), index, spec.to_dict())
        stored = json.loads(files.read(f"manifest/{index:04d}.json") or b"{}").get("digests", {})
        differ = [name for name, data in fresh.arrays().items() if array_digest(data) != stored.get(name)]
        if differ:
            report.problems.append(f"flop {index} solved again differs from the stored one in {', '.join(differ)}")
        report.resolved.append(index)
    return report
