"""Benchmark the build: wall time, CPU-seconds and bytes per table, full-build figures.

Usage:
    python scripts/bench_build.py                 # a random sample of 120 tables, extrapolated
    python scripts/bench_build.py --full          # all 1,755 tables, real figures

Builds into a temporary folder with the default local Dask cluster (one worker
per core), exactly as ``matchdb build`` does, and prints the figures beside the
targets and the article author's (about 2 CPU-minutes per table, half a day on
10 cluster nodes).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from matchdb.db.build import build

TARGET_WALL = 120.0
TARGET_BYTES = 250e6


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _store_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=120, help="tables in the sample (ignored with --full)")
    parser.add_argument("--full", action="store_true", help="build all 1,755 tables")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", help="build here instead of a temporary folder (kept afterwards)")
    args = parser.parse_args()

    if args.full:
        flops = list(range(1755))
    else:
        flops = sorted(np.random.default_rng(args.seed).choice(1755, args.sample, replace=False).tolist())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp) / "matchdb.zarr"
        cpu_before = time.process_time() + _children_cpu()
        report = build(root, flops=flops, quiet=True)
        cpu = time.process_time() + _children_cpu() - cpu_before
        n = len(report.built)
        size = _store_bytes(root)
        table_bytes = report.shard_bytes / n
        workers = os.cpu_count()
        print(f"built {n} tables with {workers} local Dask workers into {root}")
        print(f"  wall {report.wall_seconds:.1f} s (cluster start-up included)")
        print(f"  CPU-seconds per table: {cpu / n:.4f} all processes; {report.cpu_seconds / n:.4f} in the kernel")
        print(f"  bytes per table: {table_bytes / 1e3:.1f} kB; store on disk {size / 1e6:.1f} MB")
        if args.full:
            print(f"full build: {report.wall_seconds:.1f} s wall (target <= {TARGET_WALL:.0f} s), "
                  f"{size / 1e6:.1f} MB (target <= {TARGET_BYTES / 1e6:.0f} MB)")
        else:
            wall = report.wall_seconds * 1755 / n
            print(f"extrapolated full build: ~{wall:.0f} s wall, an overestimate: start-up scaled too (target <= {TARGET_WALL:.0f} s), "
                  f"~{table_bytes * 1755 / 1e6:.0f} MB (target <= {TARGET_BYTES / 1e6:.0f} MB)")
        print("article's author: ~120 CPU-seconds per table, about half a day on 10 cluster nodes; "
              f"ratio {120 / (cpu / n):.0f}x per table")


if __name__ == "__main__":
    main()
