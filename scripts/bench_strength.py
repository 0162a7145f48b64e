"""Benchmark the bots' exact strength (issue 31): the equity kernels' count against the bots' old own count.

    PYTHONPATH=$PWD python scripts/bench_strength.py [--db PATH] [--hands 40] [--rounds 7]

The strength kernel's heads-up and exact kinds (one or two opponents, random or
West's drop-out range) now call :func:`matchdb.equity.kernels.exact_hero`; until
issue 31 the bots counted them with kernels of their own, kept as the tests'
oracle (``tests/play/strength_oracle.py``). For random hands on flops, turns and
rivers (their tables decoded once, before timing), each round times both on
every case, alternating which goes first; the figure per case kind is the median
over rounds of the mean microseconds per call, old beside new. Every pair of
values is checked equal to the last bit.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import matchdb
from matchdb.core.cards import format_cards
from matchdb.equity import kernels
from matchdb.play.strength import StrengthSource
from tests.play.strength_oracle import exact_strength

CASES = {  # name: (kind, players, model, flags)
    "headsup": (kernels.HEADSUP, 2, kernels.UNIFORM, (0, 0)),
    "exact, 1 random": (kernels.EXACT, 2, kernels.UNIFORM, (0, 0)),
    "exact, 2 random": (kernels.EXACT, 3, kernels.UNIFORM, (0, 0)),
    "exact, 1 drop-out": (kernels.EXACT, 2, kernels.DROPOUT, (1, 0)),
    "exact, 2 drop-out": (kernels.EXACT, 3, kernels.DROPOUT, (1, 1)),
    "exact, drop-out + random": (kernels.EXACT, 3, kernels.DROPOUT, (1, 0)),
}
THRESHOLD = 0.6328  # a pair of sixes' heads-up equity, West's drop-out line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--hands", type=int, default=40, help="random hands per board size")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    db = matchdb.open(args.db)
    source = StrengthSource(db, capacity=3 * args.hands)
    rng = np.random.default_rng(31)
    deals = []
    for n_board in (3, 4, 5):
        for _ in range(args.hands):
            cards = rng.choice(52, size=7, replace=False)
            board = np.zeros(5, dtype=np.int64)
            board[:n_board] = cards[2 : 2 + n_board]
            source.tables.ensure(source.table_index(format_cards(cards[2:5])))
            deals.append((int(cards[0]), int(cards[1]), board, n_board))
    arrays = source.arrays()
    columns = np.empty(1176, dtype=np.int64)
    flags = np.zeros(10, dtype=np.int64)

    def new(kind, players, model, deal):
        hole0, hole1, board, n_board = deal
        return kernels.strength(kind, hole0, hole1, board, n_board, players, 1, model, THRESHOLD, 0, flags, arrays,
                                columns)

    def old(kind, players, model, deal):
        hole0, hole1, board, n_board = deal
        return exact_strength(kind, hole0, hole1, board, n_board, players, model, THRESHOLD, flags, arrays, columns)

    def timed(fn, kind, players, model, case_flags, subset):
        values = []
        start = time.perf_counter()
        for deal in subset:
            flags[:2] = case_flags
            values.append(fn(kind, players, model, deal))
        return 1e6 * (time.perf_counter() - start) / len(subset), values

    print(f"{len(deals)} hands ({args.hands} each on flops, turns and rivers), {args.rounds} rounds; "
          "microseconds per call, median over rounds (old: the bots' own count, new: exact_hero)")
    for name, (kind, players, model, case_flags) in CASES.items():
        for n_board, street in ((3, "flop"), (4, "turn"), (5, "river")):
            subset = [d for d in deals if d[3] == n_board]
            timed(old, kind, players, model, case_flags, subset[:2])  # compile or load the kernels
            timed(new, kind, players, model, case_flags, subset[:2])
            olds, news = [], []
            for r in range(args.rounds):
                order = (old, new) if r % 2 == 0 else (new, old)
                for fn in order:
                    us, values = timed(fn, kind, players, model, case_flags, subset)
                    (olds if fn is old else news).append((us, values))
            equal = all(a == b for (_, va), (_, vb) in zip(olds, news, strict=True) for a, b in zip(va, vb, strict=True))
            o = statistics.median(t for t, _ in olds)
            n = statistics.median(t for t, _ in news)
            print(f"{name:26s} {street:5s}  old {o:8.1f}  new {n:8.1f}  new/old {n / o:5.2f}  "
                  f"{'equal to the last bit' if equal else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
