"""Benchmark shipping: pack size and time, opening the packed file, its query latency beside the folder's.

Usage: python scripts/bench_ship.py [--db PATH] [--out /tmp/bench.zip] [--repeat 4] [--preflop] [--hdf5]

Packs the store (reusing its cached preflop table, so this times the packing
alone), then measures opening the file and answering a first query both in a
process that has already loaded matchdb's compiled kernels and in a fresh
Python process, and the median latency of naive win rates (cached and first
touch) and exact equities in the packed file and in the folder, with their
ratio. ``--preflop`` also times computing the preflop table from scratch and
``--hdf5`` the HDF5 export.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import matchdb
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, flop_index
from matchdb.core.cards import format_cards
from matchdb.db.pack import pack


def positions(rng, count):
    out = []
    for _ in range(count):
        perm = int(rng.integers(24))
        flop = [int(CARD_MAP[perm, c]) for c in CANONICAL_FLOPS[int(rng.integers(len(CANONICAL_FLOPS)))]]
        picked = [int(c) for c in rng.choice([c for c in range(52) if c not in flop], size=3, replace=False)]
        out.append((format_cards(picked[:2]), format_cards(flop + picked[2:])))
    return out


def latencies(path, sample):
    db = matchdb.open(path)
    first, cached, exact = [], [], []
    for hole, board in sample:
        start = time.perf_counter()
        db.win_rate(hole, board)
        first.append(time.perf_counter() - start)
    for hole, board in sample:
        start = time.perf_counter()
        db.win_rate(hole, board)
        cached.append(time.perf_counter() - start)
    for hole, board in sample[:60]:
        db.table(flop_index(board[:6]))
        start = time.perf_counter()
        db.equity(hole, board)
        exact.append(time.perf_counter() - start)
    return [statistics.median(x) for x in (cached, first, exact)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="store folder (default: the default database)")
    parser.add_argument("--out", help="packed file to write (default: a temporary file)")
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=4, help="runs of the latency comparison; their median is printed")
    parser.add_argument("--preflop", action="store_true", help="also time the preflop table from scratch")
    parser.add_argument("--hdf5", action="store_true", help="also time the HDF5 export")
    args = parser.parse_args()

    folder = matchdb.open(args.db)
    scratch = Path(tempfile.mkdtemp(prefix="matchdb-bench-"))
    try:
        run(args, folder, scratch)
    finally:  # the packed file and the HDF5 copy are hundreds of MB: never leave them behind
        shutil.rmtree(scratch, ignore_errors=True)


def run(args, folder, scratch: Path) -> None:
    out = Path(args.out) if args.out else scratch / "matchdb.zip"
    report = pack(folder.path, out)
    print(report.summary())
    print(f"packed size {report.bytes / 1e6:.2f} MB (target <= 250 MB); pack {report.seconds:.1f} s (target <= 60 s)")

    folder.win_rate("AhKh", "2c7dJh")  # load the compiled kernels once
    opens = []
    for _ in range(5):
        start = time.perf_counter()
        matchdb.open(out).win_rate("AhKh", "2c7dJh")
        opens.append(time.perf_counter() - start)
    print(f"open packed file + first query, kernels loaded: median {statistics.median(opens) * 1e3:.1f} ms (target <= 50 ms)")
    code = (
        "import time; t = time.perf_counter(); import matchdb; t1 = time.perf_counter(); "
        f"matchdb.open({str(out)!r}).win_rate('AhKh', '2c7dJh'); t2 = time.perf_counter(); "
        "print(f'{(t1 - t) * 1e3:.0f} {(t2 - t1) * 1e3:.0f}')"
    )
    imported, answered = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    print(f"fresh process: import matchdb {imported} ms, then open + first query {answered} ms (loads numba's cached kernels)")

    rng = np.random.default_rng(0)
    runs = {out: [], folder.path: []}
    for run in range(args.repeat):  # alternate, so neither format always meets the fresher machine
        sample = positions(rng, args.positions)
        for path in (out, folder.path) if run % 2 == 0 else (folder.path, out):
            runs[path].append(latencies(path, sample))
    packed_times, folder_times = ([statistics.median(figures) for figures in zip(*runs[path], strict=True)]
                                  for path in (out, folder.path))
    print(f"latency, median of {args.repeat} runs of {args.positions} positions each:")
    names = ("win_rate, cached", "win_rate, first touch", "exact equity, table cached")
    for name, p, f in zip(names, packed_times, folder_times, strict=True):
        print(f"{name:<28} packed {p * 1e6:8.1f} us   folder {f * 1e6:8.1f} us   ratio {p / f:4.2f} (target <= 2)")

    if args.preflop:
        from matchdb.equity.derived import compute_derived

        start = time.perf_counter()
        compute_derived(folder.tables(), kinds=["preflop", "preflop_multiway"])
        print(f"preflop tables from scratch, 169 classes x players 2..10, exact against 1 and 2 random hands: "
              f"{time.perf_counter() - start:.1f} s (target <= 300 s)")
    if args.hdf5:
        from matchdb.db.export import export_hdf5

        print(export_hdf5(folder.path, scratch / "matchdb.h5").summary())


if __name__ == "__main__":
    main()
