"""A library's cost from a real Dask run on local workers: seconds per flop, projections, size, query time.

Builds ``--flops`` flops of a spec (default the shipped 3-bet pot) with ``--workers`` single-threaded Dask workers
into a fresh folder, then prints: the wall time, each flop's solve seconds (one thread) and their median, the
projected time of all 1,755 flops on this machine's workers and on 16 and 256 cores (the median solve per flop
per core; a flop is never split, so 256 cores still wait for the slowest flop of each round), the bytes stored per
flop and projected for every flop, and the time to answer a stored decision from a warm process (median of 200,
the flop read once) and a first one (the flop read and checked), and a stored turn decision's from a warm process.

    python3 scripts/bench_library.py [--spec data/library/3bet-100bb.toml] [--flops Kd7h2s,Td9d6h,AsAd5c,8h7h2c]
        [--workers 2] [--db PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import matchdb  # noqa: E402
from matchdb.core.canonical import N_FLOPS  # noqa: E402
from matchdb.library import build_library, open_library, read_spec  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(ROOT / "data" / "library" / "3bet-100bb.toml"))
    parser.add_argument("--flops", default="Kd7h2s,Td9d6h,AsAd5c,8h7h2c")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--db", help="database path (default: matchdb's default)")
    args = parser.parse_args()
    spec = read_spec(args.spec)
    db = matchdb.open(args.db)
    with tempfile.TemporaryDirectory(prefix="bench-library-") as folder:
        out = Path(folder) / f"{spec.name}.zarr"
        started = time.perf_counter()
        report = build_library(out, spec, db, flops=args.flops, workers=args.workers, quiet=True)
        wall = time.perf_counter() - started
        entries = [json.loads(p.read_text()) for p in sorted((out / "manifest").glob("*.json"))]
        seconds = [e["seconds"] for e in entries]
        stored = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())  # arrays, metadata, manifest
        library = open_library(out, db)
        board = entries[0]["board"]
        first = time.perf_counter()
        library.node(board, entries[0]["lines"][1])
        first = time.perf_counter() - first
        warm = []
        for _ in range(200):
            t = time.perf_counter()
            node = library.node(board, entries[0]["lines"][1])
            node.hand(node.hands()[0])
            warm.append(time.perf_counter() - t)
        # a turn decision: the deepest of the first line that closes the flop, on a card off the flop
        end = entries[0]["turn"]["ends"][0]
        card = next(c for c in ("2c", "7d", "Qh", "As", "5s") if c not in board)
        turn_line = [*end["line"], card, *end["lines"][-1]]
        turn_warm = []
        for _ in range(200):
            t = time.perf_counter()
            node = library.node(board, turn_line)
            node.hand(node.hands()[0])
            turn_warm.append(time.perf_counter() - t)
    per = statistics.median(seconds)
    print(f"spec {spec.name}: {len(entries)} flops on {args.workers} Dask workers in {wall:.1f} s wall "
          f"(cluster start and kernel loading included)")
    print("flop solves, one thread each: " + ", ".join(f"{e['board']} {e['seconds']:.1f} s ({e['iterations']} it, "
                                                      f"{e['exploitability_pct']:.3f} %)" for e in entries))
    print(f"median solve per flop: {per:.1f} s; worst exploitability {report.worst_pct:.3f} % of the pot")
    for cores in (args.workers, 16, 256):
        rounds = math.ceil(N_FLOPS / cores)
        print(f"projected, all {N_FLOPS:,} flops on {cores} cores: {rounds * per / 3600:.2f} h")
    print(f"stored: {stored / len(entries) / 1e3:.0f} kB per flop, {stored / len(entries) * N_FLOPS / 1e6:.0f} MB "
          f"projected for every flop")
    print(f"a stored decision and one hand's figures: first {first * 1e3:.1f} ms (flop read and checked), warm median "
          f"{statistics.median(warm) * 1e3:.3f} ms of 200 (target <= 10 ms)")
    print(f"a stored turn decision ({', '.join(turn_line)}) and one hand's figures: warm median "
          f"{statistics.median(turn_warm) * 1e3:.3f} ms of 200 (its combos from the stored frequencies along the line)")


if __name__ == "__main__":
    main()
