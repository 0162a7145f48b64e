"""Benchmark the match-table kernel: CPU-seconds per table and hand evaluations per second.

Usage: python scripts/bench_kernel.py [--tables 40] [--seed 0]

Prints the median over random canonical flops (CPU time of this process, one
core), the raw 7-card evaluator's rate, and eval7's rate measured in the same
run as the peer. "Evaluations" counts the 1,176 x 1,081 valid entries of a
table, ranking included, as the issue defines the target.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS
from matchdb.core.evaluator import evaluate_many
from matchdb.core.table import match_table

ENTRIES_PER_TABLE = 1176 * 1081
TARGET_SECONDS = 0.03


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    flops = rng.choice(len(CANONICAL_FLOPS), size=args.tables, replace=False)
    match_table(CANONICAL_FLOPS[0].tolist())  # compile or load the cache outside the timing

    seconds = []
    for index in flops:
        flop = CANONICAL_FLOPS[index].tolist()
        start = time.process_time()
        match_table(flop)
        seconds.append(time.process_time() - start)
    median = statistics.median(seconds)
    print(f"match_table: {args.tables} random canonical flops, CPU-seconds per table")
    print(f"  median {median:.4f} s  (min {min(seconds):.4f}, max {max(seconds):.4f});  target <= {TARGET_SECONDS} s")
    print(f"  {ENTRIES_PER_TABLE / median / 1e6:.1f} M hand evaluations per second, ranking included")
    print(f"  full database, 1,755 tables: {1755 * median:.1f} CPU-seconds of kernel time")

    hands = np.argsort(rng.random((200_000, 52)), axis=1)[:, :7]
    evaluate_many(hands[:10])
    start = time.perf_counter()
    evaluate_many(hands)
    ours = len(hands) / (time.perf_counter() - start)
    print(f"matchdb.evaluate_many, generic 7-card evaluator: {ours / 1e6:.1f} M evaluations per second")
    try:
        import eval7
    except ImportError:
        print("eval7 not installed: no peer figure (pip install eval7)")
        return
    cards = [eval7.Card("23456789TJQKA"[c % 13] + "cdhs"[c // 13]) for c in range(52)]
    sample = [[cards[c] for c in hand] for hand in hands[:100_000].tolist()]
    start = time.perf_counter()
    for hand in sample:
        eval7.evaluate(hand)
    theirs = len(sample) / (time.perf_counter() - start)
    print(f"eval7.evaluate (peer, same run): {theirs / 1e6:.2f} M evaluations per second")
    print(
        f"  a table built from eval7 evaluations alone would take {ENTRIES_PER_TABLE / theirs:.2f} s "
        f"({ENTRIES_PER_TABLE / theirs / median:.0f}x the kernel), before ranking"
    )


if __name__ == "__main__":
    main()
