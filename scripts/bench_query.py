"""Benchmark the query layer against the issue's targets, with eval7 as the peer in the same run.

Usage: python scripts/bench_query.py [--db data/matchdb.zarr] [--positions 200] [--seed 0]

Needs a built database (a folder or a packed file). Prints medians over random
positions: the naive win rate with its table cached and on first touch (a
fresh MatchDB, so the shard index and chunk are read from disk), exact
heads-up equity against a random hand on the flop (cached and first touch),
range against range with both ranges full, and every private hand at once.
eval7's Monte Carlo at 4,000,000 samples (the accuracy the issue matches,
about +-0.03 %) runs on the same flops. (eval7's ``py_hand_vs_range_exact`` is
no peer here: it scores the board as dealt and does not enumerate the turn
and river, so on a flop it answers a different question.)

First-touch figures depend on the operating system's page cache: the first
run after a reboot reads the shards from disk, later runs from memory.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import matchdb
from matchdb.canonical import CANONICAL_FLOPS, CARD_MAP
from matchdb.cards import format_cards

FULL_RANGE = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"


def positions(rng, built, count, extra=0):
    out = []
    for _ in range(count):
        index = int(rng.choice(built))
        perm = int(rng.integers(24))
        flop = [int(CARD_MAP[perm, c]) for c in CANONICAL_FLOPS[index]]
        rest = [c for c in range(52) if c not in flop]
        picked = [int(c) for c in rng.choice(rest, size=2 + extra, replace=False)]
        out.append((format_cards(picked[:2]), format_cards(flop + picked[2:])))
    return out


def timed(call, *args, **kwargs) -> float:
    start = time.perf_counter()
    call(*args, **kwargs)
    return time.perf_counter() - start


def median_us(samples) -> str:
    return f"{statistics.median(samples) * 1e6:9.1f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7

    db = matchdb.open(args.db)
    built = db._store.built()
    rng = np.random.default_rng(args.seed)
    print(f"database {db.path}: {len(built)} tables")
    db.win_rate(*positions(rng, built, 1)[0])  # compile / load numba caches outside the timing
    db.equities(positions(rng, built, 1)[0][1])

    rows = []
    for street, extra in (("flop", 0), ("turn", 1), ("river", 2)):
        sample = positions(rng, built, args.positions, extra)
        first = []
        fresh = matchdb.open(db.path)
        for hole, board in sample:
            first.append(timed(fresh.win_rate, hole, board))
        cached = []
        for _ in range(3):
            for hole, board in sample:
                cached.append(timed(fresh.win_rate, hole, board))
        rows.append((f"win_rate on the {street}, table cached", median_us(cached), "target <= 20 us"))
        rows.append((f"win_rate on the {street}, first touch", median_us(first), "target <= 500 us"))

    sample = positions(rng, built, min(args.positions, 60))
    fresh = matchdb.open(db.path)
    first = [timed(fresh.equity, hole, board) for hole, board in sample]
    cached = [timed(fresh.equity, hole, board) for hole, board in sample]
    rows.append(("exact equity vs random on the flop, cached", median_us(cached), "target <= 2 ms"))
    rows.append(("exact equity vs random on the flop, first touch", median_us(first), ""))

    peer_sample = sample[:10]
    full = eval7.HandRange(FULL_RANGE)
    monte_carlo, error = [], []
    for hole, board in peer_sample:
        hand = [eval7.Card(hole[i : i + 2]) for i in (0, 2)]
        cards = [eval7.Card(board[i : i + 2]) for i in range(0, len(board), 2)]
        start = time.perf_counter()
        estimate = eval7.py_hand_vs_range_monte_carlo(hand, full, cards, 4_000_000)
        monte_carlo.append(time.perf_counter() - start)
        error.append(abs(estimate - fresh.equity(hole, board)))
    ratio = statistics.median(monte_carlo) / statistics.median(cached)
    rows.append(("eval7 Monte Carlo, 4,000,000 samples (peer)", median_us(monte_carlo), f"matchdb {ratio:,.0f}x faster"))
    rows.append(("  eval7 Monte Carlo |error| vs exact, median", f"{statistics.median(error) * 100:9.4f} %", ""))

    boards = [board for _, board in positions(rng, built, 20)]
    for board in boards:
        db.table(db._frame(None, board)[0].index)  # cache the tables: this measures the computation
    ranges = [timed(db.range_equity, FULL_RANGE, FULL_RANGE, board) for board in boards]
    rows.append(("range vs range, both full, on a flop", median_us(ranges), "target <= 50 ms"))
    everything = [timed(db.equities, board) for board in boards]
    rows.append(("every hand at once: exact equity vs random", median_us(everything), "target <= 10 ms"))
    naive = [timed(db.win_rates, board, 6) for board in boards]
    rows.append(("every hand at once: naive win rate, 6 players", median_us(naive), "target <= 10 ms"))

    width = max(len(name) for name, _, _ in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}  {note}")


if __name__ == "__main__":
    main()
