"""Benchmark one-shot speed: a fresh ``matchdb query`` process, start to exit, against a bare ``import numpy``.

Usage: python scripts/bench_oneshot.py [--db PATH] [--runs 15]

Runs ``python -m matchdb query`` (the code of the checkout this script is in)
and its peers ``--runs`` times each, interleaved (one of each per round, so a
load that comes and goes falls on all of them alike), and prints each one's
median and spread, then the figure the project holds itself to: the query's
median over ``import numpy``'s, at most 2 (wall time, and CPU time, which a
loaded machine disturbs less). Beside them: a bare Python start,
the import of what the query needs, and the same question answered in a fresh
process through the compiled (numba) kernels, the path long-running processes
take. The first round only warms the page cache and numba's cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0  # the query's start-to-exit time over a bare numpy import's


def run_once(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user and system) of one run of ``command``, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path (default: the default database)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    db = ["--db", args.db] if args.db else []
    question = ["AhKh", "2c7dJh", "--players", "3"]
    jit = (
        "import matchdb; db = matchdb.open(" + (repr(args.db) if args.db else "") + "); "
        "db.report('AhKh', '2c7dJh', players=3)"
    )
    python = sys.executable
    rows = {
        "python -c pass": [python, "-c", "pass"],
        "python -c 'import numpy'": [python, "-c", "import numpy"],
        "import of the query path": [python, "-c", "import matchdb.cli.main, matchdb.db.query"],
        "matchdb query AhKh 2c7dJh --players 3": [python, "-m", "matchdb", "query", *question, *db],
        "the same with numba's kernels (python -c)": [python, "-c", jit],
    }
    for command in rows.values():  # warm the page cache and numba's cache
        run_once(command)
    wall: dict[str, list[float]] = {name: [] for name in rows}
    cpu: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.runs):
        for name, command in rows.items():
            seconds, cpu_seconds = run_once(command)
            wall[name].append(seconds)
            cpu[name].append(cpu_seconds)
    print(f"{args.runs} runs each, interleaved; wall median (min-max), CPU median, in seconds; code of {ROOT}")
    for name in rows:
        values = wall[name]
        print(f"{name:<45} {statistics.median(values):6.3f}  ({min(values):.3f}-{max(values):.3f})"
              f"  cpu {statistics.median(cpu[name]):6.3f}")
    query, numpy = "matchdb query AhKh 2c7dJh --players 3", "python -c 'import numpy'"
    ratio = statistics.median(wall[query]) / statistics.median(wall[numpy])
    cpu_ratio = statistics.median(cpu[query]) / statistics.median(cpu[numpy])
    print(f"matchdb query / import numpy: {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU (target: at most {TARGET:.0f}x; "
          f"load average {os.getloadavg()[0]:.1f}: on a loaded machine the CPU ratio is the steadier)")


if __name__ == "__main__":
    main()
