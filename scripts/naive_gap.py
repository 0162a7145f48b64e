"""How wrong is the article's naive formula? Naive rate against the exact (or sampled) multiway equity.

For 3 to 10 players and each street, over random positions (hole cards and a board,
the same positions for every player count), the gap naive - true between the naive
win rate mean((W / MAX_W) ** (players - 1)) and the equity against players - 1 random
hands with card removal: exact where matchdb counts it (up to 4 players, 5 on the river),
sampled beyond (the table says so and gives the largest standard error). Prints a
markdown table for docs/guide/multiway.md.

    python3 scripts/naive_gap.py [--db PATH] [--positions 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import matchdb

STREETS = {"flop": 0, "turn": 1, "river": 2}
#: Sampled partial deals per answer beyond 4 players: the flop has 1,176 columns to stratify over, the river one.
SAMPLES = {"flop": 2352, "turn": 4704, "river": 10000}


def positions(rng: np.random.Generator, count: int, extra: int) -> list[tuple[list[int], list[int]]]:
    """Random (hole, board) pairs: a uniformly random deal of 2 + 3 + ``extra`` cards."""
    out = []
    for _ in range(count):
        cards = [int(c) for c in rng.permutation(52)[: 5 + extra]]
        out.append((cards[:2], cards[2:]))
    return out


def gaps_for_street(db, street: str, count: int, seed: int, players: range, samples: int | None):
    rng = np.random.default_rng(seed)
    gaps = {n: [] for n in players}
    errors = {n: [] for n in players}
    for hole, board in positions(rng, count, STREETS[street]):
        for n in players:
            naive = db.win_rate(hole, board, players=n)
            result = db.multiway(hole, board, n - 1, seed=seed + n, samples=samples or SAMPLES[street])
            gaps[n].append(naive - result.equity)
            errors[n].append(None if result.exact else result.standard_error)
    return gaps, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="database path (default: the default database)")
    parser.add_argument("--positions", type=int, default=1000, help="random positions per street")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--streets", default="flop,turn,river")
    parser.add_argument("--max-players", type=int, default=10)
    parser.add_argument(
        "--samples", type=int, default=None, help="sampled partial deals per answer (default per street)"
    )
    args = parser.parse_args()
    db = matchdb.open(args.db)
    players = range(3, args.max_players + 1)
    print(f"Naive rate minus true equity against random hands, {args.positions} random positions per street")
    print("(exact where matchdb counts it; else sampled, with the largest standard error shown).\n")
    print("| street | players | median gap | median abs gap | worst gap | mean naive - true > 0 | method (max s.e.) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for street in args.streets.split(","):
        started = time.perf_counter()
        gaps, errors = gaps_for_street(db, street, args.positions, args.seed, players, args.samples)
        for n in players:
            g = np.array(gaps[n])
            worst = g[np.argmax(np.abs(g))]
            sampled = [e for e in errors[n] if e is not None]
            method = f"sampled ({max(sampled):.5f})" if sampled else "exact"
            print(
                f"| {street} | {n} | {np.median(g):+.4f} | {np.median(np.abs(g)):.4f} | {worst:+.4f} | "
                f"{(g > 0).mean():.0%} | {method} |"
            )
        print(f"<!-- {street}: {time.perf_counter() - started:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
