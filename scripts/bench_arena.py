"""Benchmark the arena: hands per second, tournament time, 10,000 duplicate tournaments, start-up costs.

    python scripts/bench_arena.py --db data/matchdb.zarr --tables /path/to/decoded [--repeats 5] [--skip-10k]

Without ``--tables`` the decoded tables are made first in a temporary folder
(4.85 GB, about half a minute) and removed afterwards. Every timing is the
median of ``--repeats`` runs (the machine may be shared).
"""

from __future__ import annotations

import argparse
import itertools
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import matchdb
from matchdb.play.arena import DEFAULT_FIELD, run_arena
from matchdb.play.bots import IncomeBot, PairOfFives, WestBot, make_bot
from matchdb.play.games import GameSettings, play_game
from matchdb.play.sources import TableSource
from matchdb.play.strength import StrengthSource, decode_tables, open_decoded

_SEEDS = itertools.count(1)


def median_of(repeats: int, run) -> tuple[float, list[float]]:
    values = [run() for _ in range(repeats)]
    return statistics.median(values), values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    parser.add_argument("--tables", help="folder of decoded tables (default: decode into a temporary folder)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2, help="Dask workers for the 10,000 tournaments")
    parser.add_argument("--skip-10k", action="store_true", help="skip the 10,000 duplicate tournaments")
    args = parser.parse_args()

    started = time.perf_counter()
    db = matchdb.open(args.db)
    print(f"open database: {time.perf_counter() - started:.2f} s")
    temporary = None
    if args.tables is None:
        temporary = Path(tempfile.mkdtemp(prefix="matchdb-decoded-"))
        started = time.perf_counter()
        decode_tables(db, temporary)
        print(f"decode all 1,755 tables once (4.85 GB file): {time.perf_counter() - started:.1f} s")
        args.tables = str(temporary)
    try:
        started = time.perf_counter()
        source = StrengthSource(db, tables=open_decoded(args.tables))
        print(f"strength source over the decoded file (map + lookups + preflop table): {time.perf_counter() - started:.2f} s")

        # 1. six-handed hands per second, naive win rates, one process
        bots = [WestBot() for _ in range(6)]
        settings = GameSettings(mode="cash", hands=20_000)
        play_game(bots, GameSettings(mode="cash", hands=50), source=source)  # compile or load kernels

        def hands_per_second():
            seed = next(_SEEDS)  # each run deals new hands
            t = time.perf_counter()
            result = play_game(bots, settings, deal_seed=seed, bot_seed=seed, source=source)
            return result.hands / (time.perf_counter() - t)

        first = hands_per_second()
        rate, runs = median_of(args.repeats, hands_per_second)
        print(f"six-handed hands/s, 6 x West (naive), compiled loop, one process: median {rate:,.0f} "
              f"(runs {', '.join(f'{r:,.0f}' for r in runs)}; the first, paging the file in, {first:,.0f}); target >= 5,000")

        lazy = StrengthSource(db, capacity=64)
        small = GameSettings(mode="cash", hands=1000)
        t = time.perf_counter()
        result = play_game(bots, small, deal_seed=1, bot_seed=1, source=lazy)
        print(f"  the same with lazily decoded tables (64 slots): {result.hands / (time.perf_counter() - t):,.0f} hands/s "
              f"({result.tables_decoded} table decodes)")

        def python_loop():
            seed = next(_SEEDS)  # each run deals new hands
            t = time.perf_counter()
            r = play_game(bots, GameSettings(mode="cash", hands=2000), deal_seed=seed, bot_seed=seed, source=source,
                          python=True)
            return r.hands / (time.perf_counter() - t)

        rate, _ = median_of(args.repeats, python_loop)
        print(f"  the same in the Python loop (each decision bot.act(view)): median {rate:,.0f} hands/s")

        # 1b. six West bots on exact equity against the live opponents (west:exact), compiled, and its peer:
        # the same bots in the Python loop (each decision bot.act(view), the same strength kernel)
        exact = [make_bot("west:exact") for _ in range(6)]
        play_game(exact, GameSettings(mode="cash", hands=50), source=source)

        def exact_rate(python):
            seed = next(_SEEDS)  # each run deals new hands
            t = time.perf_counter()
            r = play_game(exact, GameSettings(mode="cash", hands=400 if python else 2000), deal_seed=seed,
                          bot_seed=seed, source=source, python=python)
            return r.hands / (time.perf_counter() - t)

        rate, runs = median_of(args.repeats, lambda: exact_rate(False))
        print(f"six-handed hands/s, 6 x west:exact (exact equity against the live opponents), compiled loop: median "
              f"{rate:,.0f} (runs {', '.join(f'{r:,.0f}' for r in runs)}); target >= 500")
        rate, runs = median_of(args.repeats, lambda: exact_rate(True))
        print(f"  peer, the same bots in the Python loop: median {rate:,.0f} hands/s "
              f"(runs {', '.join(f'{r:,.0f}' for r in runs)})")

        # 2. six-player tournaments to one winner
        fields = {
            "articles' default field": [make_bot(name) for name in DEFAULT_FIELD],
            "West x3, income, fives, West-tight (naive)": [WestBot(), WestBot(), WestBot(), IncomeBot(), PairOfFives(),
                                                           WestBot(personality="tight")],
        }
        for label, field in fields.items():
            def tournament_ms(field=field):
                times, hands = [], []
                for _ in range(200):
                    seed = next(_SEEDS)  # each run deals new hands
                    t = time.perf_counter()
                    r = play_game(field, deal_seed=seed, bot_seed=seed, source=source)
                    times.append(time.perf_counter() - t)
                    hands.append(r.hands)
                tournament_ms.hands = statistics.fmean(hands)
                return 1000 * statistics.fmean(times)

            ms, runs = median_of(args.repeats, tournament_ms)
            print(f"six-player tournament, {label}: mean {ms:.2f} ms over 200 (median of {args.repeats} runs: "
                  f"{', '.join(f'{r:.2f}' for r in runs)}), {tournament_ms.hands:.0f} hands each; target <= 50 ms")

        # 3. 10,000 duplicate tournaments
        if not args.skip_10k:
            for workers in sorted({1, args.workers}):
                t = time.perf_counter()
                result = run_arena(None, games=10_000, seed=1, duplicate=True, workers=workers,
                                   source=TableSource(strengths=source, tables=args.tables), progress=False)
                seconds = time.perf_counter() - t
                print(f"10,000 duplicate tournaments ({result.settings['units']} sets of 6), default field, "
                      f"{workers} worker{'s' if workers > 1 else ''}: {seconds:.1f} s")
            print(result.report())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak resident memory of this process: {peak:.0f} MB (file-backed table pages included)")
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    main()
