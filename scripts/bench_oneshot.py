"""Benchmark one-shot speed: a fresh ``matchdb query`` process, start to exit, beside what its parts cost.

Usage: python scripts/bench_oneshot.py [--db PATH] [--runs 15]

Runs the real command (the ``matchdb`` executable found beside this Python)
``--runs`` times and prints the median and the spread, beside: a bare Python
start, ``import numpy``, the import of what the query needs, and the same
question answered in a fresh process through the compiled (numba) kernels,
the path long-running processes take. Run it once first to warm the page
cache: the figure of interest is a warm one.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path (default: the default database)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    executable = shutil.which("matchdb", path=str(Path(sys.executable).parent)) or shutil.which("matchdb")
    if executable is None:
        raise SystemExit("no 'matchdb' executable found; install the package first (pip install -e .)")
    db = ["--db", args.db] if args.db else []
    question = ["AhKh", "2c7dJh", "--players", "3"]
    jit = (
        "import matchdb; db = matchdb.open(" + (repr(args.db) if args.db else "") + "); "
        "db.report('AhKh', '2c7dJh', players=3)"
    )
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"]),
        ("import of the query path", [sys.executable, "-c", "import matchdb.cli.main, matchdb.db.query"]),
        ("matchdb query AhKh 2c7dJh --players 3", [executable, "query", *question, *db]),
        ("the same with numba's kernels (python -c)", [sys.executable, "-c", jit]),
    ]
    timed(rows[3][1], 2)  # warm the page cache and numba's cache
    timed(rows[4][1], 1)
    print(f"{args.runs} runs each; median (min-max) in seconds; target for 'matchdb query': <= 0.25 s")
    for name, command in rows:
        seconds = timed(command, args.runs)
        print(f"{name:<45} {statistics.median(seconds):6.3f}  ({min(seconds):.3f}-{max(seconds):.3f})")


if __name__ == "__main__":
    main()
