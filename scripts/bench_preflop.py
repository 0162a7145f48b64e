"""Preflop benchmarks beside OMPEval in the same run (medians of several runs).

Peers: OMPEval (C++, one thread) through scripts/ompeval_peer.cpp when built (``--ompeval PATH``; its header
says how). matchdb answers through the Python API, warm: the preflop matchups read once before timing
(``--build`` also times computing the derived data from every table: the matchups, the preflop tables, all three).

    python3 scripts/bench_preflop.py [--db PATH] [--ompeval /tmp/omp_peer] [--build]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import time

import matchdb
from matchdb.core.canonical import N_FLOPS

FULL = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"


def median_time(fn, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def ompeval(path: str | None, args: list[str], timeout: float = 600) -> dict | None:
    if not path:
        return None
    try:
        out = subprocess.run([path, *args], capture_output=True, text=True, timeout=timeout, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        print(f"  (OMPEval {' '.join(args)}: {error})")
        return None


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--ompeval", default=None, help="the omp_peer binary built from scripts/ompeval_peer.cpp")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--build", action="store_true", help="also time computing the derived data from every table")
    args = parser.parse_args()
    db = matchdb.open(args.db)
    if args.build:
        from matchdb.equity.derived import compute_derived

        for kinds in (["preflop_matchups"], ["preflop", "preflop_multiway"], None):
            started = time.perf_counter()
            derived = compute_derived(db.tables(range(N_FLOPS)), kinds=kinds)
            seconds = time.perf_counter() - started
            raw = b"".join(json.dumps(value.to_stored()).encode() for value in derived.values())
            print(f"{', '.join(derived)} from every table: {seconds:.1f} s; {len(raw) / 1e6:.2f} MB of JSON, "
                  f"{len(gzip.compress(raw)) / 1e6:.2f} MB gzipped")
    started = time.perf_counter()
    db.range_equity("AA", "KK", "")  # reads (or computes and keeps) the matchups
    print(f"first range question (matchups read or computed): {time.perf_counter() - started:.2f} s\n")
    print("| question | matchdb | result | OMPEval (same run) | its result | target |")
    print("|---|---:|---|---|---|---|")
    rows = [
        ("AhKh vs QsQd", lambda: db.equity("AhKh", "", "QsQd"), ["AhKh", "QsQd"], "<= 20 us warm"),
        ("AcAd vs KhKs", lambda: db.equity("AcAd", "", "KhKs"), ["AcAd", "KhKs"], "<= 20 us warm"),
        ("QQ+,AKs vs JJ,TT,99", lambda: db.range_equity("QQ+,AKs", "JJ,TT,99", ""), ["QQ+,AKs", "JJ,TT,99"], "<= 0.2 ms"),
        ("22+ vs AKo", lambda: db.range_equity("22+", "AKo", ""), ["22+", "AKo"], "<= 0.2 ms"),
        ("full vs full", lambda: db.range_equity(FULL, FULL, ""), None, "<= 5 ms"),
        ("AhKh vs QsQd vs JcTc", lambda: db.multiway("AhKh", "", ["QsQd", "JcTc"]).equity, ["AhKh", "QsQd", "JcTc"],
         "no slower than OMPEval"),
        ("AhKh vs QsQd vs JcTc vs 9d9c", lambda: db.multiway("AhKh", "", ["QsQd", "JcTc", "9d9c"]).equity,
         ["AhKh", "QsQd", "JcTc", "9d9c"], "no slower than OMPEval"),
        ("JhTh vs 2 random (exact)", lambda: db.multiway("JhTh", "", 2, method="exact").equity, None,
         "<= 30 s (OMPEval exact: 367 s, run apart)"),
    ]
    for name, question, peer_args, target in rows:
        question()
        runs = args.runs if "vs JcTc" in name else max(args.runs, 50)
        seconds, value = median_time(question, runs)
        peer = ompeval(args.ompeval, [*peer_args, "-r", str(args.runs)]) if peer_args else None
        peer_text = fmt(peer["median_s"]) if peer else ("not run here" if peer_args is None else "not built")
        peer_value = f"{peer['equity']:.16f}" if peer else ""
        print(f"| {name} | {fmt(seconds)} | {value:.16f} | {peer_text} | {peer_value} | {target} |")
    sampled = db.multiway("AsAd", "", 2, seed=1)
    seconds, sampled = median_time(lambda: db.multiway("AsAd", "", 2, seed=1), args.runs)
    print(f"| AsAd vs 2 random (sampled) | {fmt(seconds)} | {sampled.equity:.5f} s.e. {sampled.standard_error:.5f} "
          f"| | | |")


if __name__ == "__main__":
    main()
