"""Benchmark distributions, reports and the abstraction dataset against issue 12's targets.

Usage: python scripts/bench_distributions.py [--db data/matchdb.zarr] [--positions 50] [--repeat 5]
                                             [--reports 3] [--dataset OUT_DIR] [--seed 0]

Prints, for each figure, the median over ``--repeat`` runs (these machines
are shared and noisy), with the target beside it, and the machine's load
average before and after (another developer's work shows there):

- one hand's distribution and potential on a flop, its table cached
  (against a random hand and against a range), and on a turn;
- every hand on a board at once, distributions included (flop and turn);
- a range against a range over all 22,100 flops, for a few range pairs
  (each report reads every table once through ``db.table``);
- with ``--dataset``, the abstraction dataset of all 1,755 x 1,176 flop
  hands, written as zarr and HDF5 under OUT_DIR, with its sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import matchdb
from matchdb.core.canonical import CANONICAL_FLOPS, N_FLOPS
from matchdb.core.pairs import board_columns
from matchdb.core.ranges import range_weights
from matchdb.equity.distributions import board_distributions, hand_distribution
from matchdb.equity.reports import _frame_weights, report

RANGE = "22+,A2s+,K9s+,QTs+,JTs,T9s,98s,ATo+,KJo+"
REPORTS = [("QQ+,AKs", None), (RANGE, None), ("QQ+,AKs", "JJ,TT,99"), (RANGE, "22+,A2+,K7+,Q8+,J8+,T8+,98,87s,76s"), ("AhKh", "QsQd")]


def median_of_medians(call, cases, repeat: int) -> float:
    """Median over ``repeat`` runs of the median time of ``call(*case)`` over the cases, in seconds."""
    runs = []
    for _ in range(repeat):
        times = []
        for case in cases:
            start = time.perf_counter()
            call(*case)
            times.append(time.perf_counter() - start)
        runs.append(statistics.median(times))
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reports", type=int, default=3, help="runs of each all-flop report")
    parser.add_argument("--dataset", default=None, help="build the abstraction dataset into this folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    db = matchdb.open(args.db)
    rng = np.random.default_rng(args.seed)
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")

    # one hand, one board: tables picked at random, cached before timing
    flops = [int(i) for i in rng.choice(N_FLOPS, size=8, replace=False)]
    tables = {i: db.table(i) for i in flops}
    weights = {i: _frame_weights(range_weights(RANGE), i, 0) for i in flops}
    flop_cases, range_cases, turn_cases, board_cases, turn_board_cases = [], [], [], [], []
    for _ in range(args.positions):
        i = int(rng.choice(flops))
        row = int(rng.integers(1176))
        flop = tuple(int(c) for c in CANONICAL_FLOPS[i])
        flop_cases.append((tables[i], flop, row, board_columns(())))
        range_cases.append((tables[i], flop, row, board_columns(()), weights[i]))
        turn = int(rng.integers(49))
        while turn in (int(c) for c in np.asarray(matchdb.core.pairs.PAIRS[row])):
            turn = int(rng.integers(49))
        turn_cases.append((tables[i], flop, row, board_columns((turn,))))
    for i in flops:
        flop = tuple(int(c) for c in CANONICAL_FLOPS[i])
        board_cases.append((tables[i], flop, board_columns(())))
        turn_board_cases.append((tables[i], flop, board_columns((int(rng.integers(49)),))))
    hand_distribution(*flop_cases[0])  # compile or load the kernels before timing
    hand_distribution(*range_cases[0])
    board_distributions(*board_cases[0])
    figures = [
        ("one hand on a flop vs a random hand (table cached)", median_of_medians(hand_distribution, flop_cases, args.repeat), 2e-3),
        (f"one hand on a flop vs {RANGE}", median_of_medians(hand_distribution, range_cases, args.repeat), 2e-3),
        ("one hand on a turn vs a random hand", median_of_medians(hand_distribution, turn_cases, args.repeat), 2e-3),
        ("every hand on a flop, distributions included", median_of_medians(board_distributions, board_cases, args.repeat), 50e-3),
        ("every hand on a turn, distributions included", median_of_medians(board_distributions, turn_board_cases, args.repeat), 50e-3),
    ]
    for name, seconds, target in figures:
        print(f"{name:62s} {seconds * 1e3:9.2f} ms   target <= {target * 1e3:g} ms")

    # every flop: a report reads each table once
    report(db, "AA", indices=range(20))  # compile or load the kernels before timing
    for hero, villain in REPORTS:
        runs = []
        for _ in range(args.reports):
            start = time.perf_counter()
            result = report(db, hero, villain)
            runs.append(time.perf_counter() - start)
        print(f"all 22,100 flops: {hero} vs {villain or 'random'}: {statistics.median(runs):.2f} s "
              f"(runs {', '.join(f'{r:.1f}' for r in runs)})   target <= 15 s")
        print(f"    {result.summary()}")

    if args.dataset:
        from matchdb.db.abstraction import build_dataset

        out = os.path.abspath(args.dataset)
        start = time.perf_counter()
        built = build_dataset(db, os.path.join(out, "abstraction.zarr"), os.path.join(out, "abstraction.h5"), overwrite=True)
        print(f"abstraction dataset, 1,755 x 1,176 flop hands: {time.perf_counter() - start:.1f} s in all   target <= 300 s")
        print(f"    {built.summary()}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
