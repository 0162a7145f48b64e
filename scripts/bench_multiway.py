"""Multiway benchmarks, each beside a peer measured in the same run (medians of several runs).

Peers: OMPEval (C++, one thread) through scripts/ompeval_peer.cpp when built (``--ompeval PATH``;
its header says how); a plain table-driven Monte Carlo (runouts and opponents sampled, no
variance reduction) written here; today's ``MatchDB.range_equity``; an eval7 enumeration.
Times are with the table already decoded (the computation); first touch is shown apart.

    python3 scripts/bench_multiway.py [--db PATH] [--ompeval /tmp/omp_peer] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time

import numba
import numpy as np

import matchdb
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, canonicalize
from matchdb.core.pairs import (
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    SENTINEL,
    board_columns,
    local_index,
)
from matchdb.core.ranges import parse_range
from matchdb.equity import enumeration
from matchdb.equity.heads_up import all_hands_scores, range_vs_range
from matchdb.equity.multiway import multiway_outcome

BOARD = "2c7dJh"
HERO = "AhKh"
FULL = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"


class Frame:
    """Real cards -> rows of a canonical table (the query layer's mapping, written out for the kernels' timings)."""

    def __init__(self, board: str, hole: str) -> None:
        canon = canonicalize(board, hole=hole)
        self.flop, self.perm = CANONICAL_FLOPS[canon.index], canon.perm
        self.local = local_index(self.flop)

    def row(self, a: int, b: int) -> int:
        return int(PAIR_INDEX[self.local[CARD_MAP[self.perm, a]], self.local[CARD_MAP[self.perm, b]]])

    def weights(self, text: str) -> np.ndarray:
        w = np.zeros(1176)
        for a, b, x in parse_range(text):
            la, lb = self.local[CARD_MAP[self.perm, a]], self.local[CARD_MAP[self.perm, b]]
            if la >= 0 and lb >= 0:
                w[PAIR_INDEX[la, lb]] = x
        return w


def median_time(fn, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


@numba.njit(cache=True)
def _plain_mc(cols, col_a, col_b, hero, hero_a, hero_b, pair_index, k, samples, seed):
    """Plain Monte Carlo on the table: a random runout (column) and k random disjoint hands per sample."""
    np.random.seed(seed)
    total = 0.0
    total2 = 0.0
    deck = np.empty(49, dtype=np.int64)
    done = 0
    while done < samples:
        c = np.random.randint(cols.shape[0])
        level = cols[c, hero]
        if level == SENTINEL:
            continue
        n = 0
        for x in range(49):
            if x != hero_a and x != hero_b and x != col_a[c] and x != col_b[c]:
                deck[n] = x
                n += 1
        best = -1
        tied = 0
        for i in range(2 * k):
            j = i + np.random.randint(n - i)
            deck[i], deck[j] = deck[j], deck[i]
        for o in range(k):
            v = cols[c, pair_index[deck[2 * o], deck[2 * o + 1]]]
            best = max(best, v)
            if v == level:
                tied += 1
        share = 0.0 if best > level else (1.0 / (1 + tied) if best == level else 1.0)
        total += share
        total2 += share * share
        done += 1
    mean = total / samples
    return mean, np.sqrt((total2 / samples - mean * mean) / samples)


def ompeval(path: str | None, args: list[str], timeout: float = 600) -> dict | None:
    if not path:
        return None
    try:
        out = subprocess.run([path, *args], capture_output=True, text=True, timeout=timeout, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        print(f"  (OMPEval {' '.join(args)}: {error})")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--ompeval", default=None, help="the omp_peer binary built from scripts/ompeval_peer.cpp")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None, help="threads of the sampler (default: one per core, at most 8)")
    parser.add_argument("--preflop-json", default=None, help="a saved preflop_multiway to_stored() to quote its time")
    args = parser.parse_args()
    db = matchdb.open(args.db)
    canon = canonicalize(BOARD, hole=HERO)
    frame = Frame(BOARD, HERO)
    started = time.perf_counter()
    first = db.multiway(HERO, BOARD, 2)
    print(f"first touch (table read + decode + 3-player exact): {1e3 * (time.perf_counter() - started):.1f} ms")
    table = db.table(canon.index)
    columns = board_columns(())
    hero = frame.row(*matchdb.parse_cards(HERO))
    ones = np.ones(1176)
    cols = np.ascontiguousarray(table.T)
    if args.threads is not None:
        enumeration.THREADS = args.threads
    print(
        f"machine: {os.cpu_count()} cores, {numba.get_num_threads()} numba threads; the six-player sampler splits its "
        f"runouts between {enumeration.THREADS} threads\n"
    )
    print("| question | matchdb | result | peer | peer result | target |")
    print("|---|---:|---|---|---|---|")

    t, r = median_time(lambda: multiway_outcome(table, columns, hero, [ones] * 2), args.runs)
    peer = ompeval(args.ompeval, [HERO, "random", "random", "-b", BOARD, "-r", "3"])
    peer_text = f"OMPEval exact {peer['median_s'] * 1e3:.0f} ms" if peer else "OMPEval not built"
    peer_res = f"{peer['equity']:.16f}" if peer else ""
    print(
        f"| 3 players, {HERO} vs 2 random, {BOARD}, exact | {t * 1e3:.2f} ms | {r.equity:.16f} | {peer_text} | {peer_res} | <= 10 ms |"
    )

    t, r = median_time(lambda: multiway_outcome(table, columns, hero, [ones] * 3), args.runs)
    hands = int(r.equity * (1 - r.equity) / 0.0002**2)
    peer = ompeval(args.ompeval, [HERO, "random", "random", "random", "-b", BOARD, "-n", str(hands), "-r", "3"])
    peer_text = (
        f"OMPEval Monte Carlo, {hands:,} hands (s.e. ~0.0002): {peer['median_s'] * 1e3:.0f} ms"
        if peer
        else "OMPEval not built"
    )
    peer_res = f"{peer['equity']:.5f}" if peer else ""
    print(
        f"| 4 players, vs 3 random, exact | {t * 1e3:.2f} ms | {r.equity:.16f} | {peer_text} | {peer_res} | <= 100 ms |"
    )

    for hand in (HERO, "7c7s", "9s8s", "3d4d"):
        row = frame.row(*matchdb.parse_cards(hand))
        t, r = median_time(lambda row=row: multiway_outcome(table, columns, row, [ones] * 5, seed=1), args.runs)
        hands = int(r.equity * (1 - r.equity) / 0.0005**2)
        peer = ompeval(args.ompeval, [hand, *["random"] * 5, "-b", BOARD, "-n", str(hands), "-r", "5"])
        peer_text = (
            f"OMPEval Monte Carlo, {hands:,} hands (s.e. ~0.0005): {peer['median_s'] * 1e3:.0f} ms"
            if peer
            else "OMPEval not built"
        )
        peer_res = f"{peer['equity']:.5f}" if peer else ""
        print(
            f"| 6 players, {hand} vs 5 random, sampled | {t * 1e3:.2f} ms | {r.equity:.5f} s.e. {r.standard_error:.5f} | {peer_text} | {peer_res} | <= 10 ms at s.e. 0.0005 |"
        )
    r = multiway_outcome(table, columns, hero, [ones] * 5, seed=1)
    mc_args = (
        cols,
        PAIR_LOW,
        PAIR_HIGH,
        hero,
        int(PAIR_LOW[hero]),
        int(PAIR_HIGH[hero]),
        PAIR_INDEX.astype(np.int64),
        5,
    )
    _plain_mc(*mc_args, 1000, 1)  # compile
    need = round(r.equity * (1 - r.equity) / 0.0005**2)
    t2, (mean, se) = median_time(lambda: _plain_mc(*mc_args, need, 1), 3)
    print(
        f"| 6 players, {HERO}: plain table-driven Monte Carlo, {need:,} deals | | | own plain MC {t2 * 1e3:.0f} ms | {mean:.5f} s.e. {se:.5f} | |"
    )

    for hero_range, villain_range, target in (("QQ+,AKs", "JJ,TT,99", "<= 0.1 ms"), (FULL, FULL, "<= 5 ms")):
        h = frame.weights(hero_range)
        v = frame.weights(villain_range)
        t, r = median_time(lambda h=h, v=v: range_vs_range(table, columns, h, v), max(args.runs, 20))
        db.range_equity(hero_range, villain_range, BOARD)
        t_api, _ = median_time(lambda a=hero_range, b=villain_range: db.range_equity(a, b, BOARD), max(args.runs, 20))
        # the previous method: score every row with all_hands_scores, then weigh by the hero range
        t_db, (score, deals) = median_time(lambda v=v: all_hands_scores(table, columns, v), args.runs)
        ref = float(h @ score) / float(h @ deals)
        name = "full vs full" if hero_range == FULL else f"{hero_range} vs {villain_range}"
        omp_args = (["random", "random"] if hero_range == FULL else [hero_range, villain_range]) + [
            "-b",
            BOARD,
            "-r",
            "3",
        ]
        peer = ompeval(args.ompeval, omp_args)
        peer_text = f"OMPEval {peer['median_s'] * 1e3:.2f} ms ({peer['equity']:.12f})" if peer else "OMPEval not built"
        print(
            f"| range vs range, {name} | {t * 1e3:.3f} ms (through db.range_equity {t_api * 1e3:.3f} ms) | {r.equity:.15f} | "
            f"all_hands_scores (the previous method) {t_db * 1e3:.2f} ms; {peer_text} | {ref:.15f} | {target} |"
        )
    if args.preflop_json:
        with open(args.preflop_json) as handle:
            provenance = json.load(handle)["provenance"]
        print(
            f"| preflop multiway, 169 classes x 1..9 opponents | {provenance['seconds']:.0f} s | {provenance} | | | <= 600 s |"
        )
    _ = first


if __name__ == "__main__":
    main()
