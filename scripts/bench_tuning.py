"""Benchmark tuning: the preflop score fit, a tuning run of 200 candidates x 200 duplicate games, random walk against genetic.

    python scripts/bench_tuning.py --db data/matchdb.zarr --tables /path/to/decoded [--repeats 5] [--workers 1,2]

Targets (issue 14): the preflop fit <= 10 s with a rank correlation >= 0.95
against the heads-up equity; a tuning run of 200 candidates x 200
duplicate games under 10 minutes here. Timings are medians of
``--repeats`` runs where a run is short; the tuning runs are long, so each is
run once per worker count (with the mean time of a session).
"""

from __future__ import annotations

import argparse
import statistics
import time

import matchdb
from matchdb.play.preflop_score import fit_preflop_score, preflop_targets, spearman
from matchdb.play.sources import TableSource
from matchdb.play.tuning import SessionConfig, TuningConfig, compare_methods, tune_bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="database path (default $MATCHDB_PATH or the user's data folder)")
    parser.add_argument("--tables", help="folder of decoded tables (matchdb arena --decode); default: decode lazily")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bot", default="west", help="the bot to tune (default west)")
    parser.add_argument("--field", default="west-tight,west-loose,income,fives,allin", help="its opponents")
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--hands", type=int, default=100, help="hands per cash game (default 100)")
    parser.add_argument("--workers", default="1,2", help="worker counts to time the tuning run with")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-tuning", action="store_true", help="skip the timed tuning runs")
    parser.add_argument("--compare-seeds", default="1", help="seeds of the random walk against genetic comparisons")
    parser.add_argument("--skip-compare", action="store_true", help="skip random walk against genetic")
    args = parser.parse_args()

    db = matchdb.open(args.db)
    table = db.preflop()

    # 1. the preflop score fit
    print("preflop score fit (random walk, +-10 points, 1-3 parameters a cycle; target <= 10 s, rank correlation >= 0.95)")
    for opponents in range(1, 10):
        targets = preflop_targets(table, opponents)
        times, fit = [], None
        for repeat in range(args.repeats if opponents == 1 else 1):
            started = time.perf_counter()
            fit = fit_preflop_score(targets, seed=repeat)
            times.append(time.perf_counter() - started)
        print(f"  {opponents} opponent{'s' if opponents > 1 else ' '}: {statistics.median(times):.2f} s"
              f"{' (median of ' + str(len(times)) + ': ' + ', '.join(f'{t:.2f}' for t in times) + ')' if len(times) > 1 else ''}"
              f", {fit.search.evaluations} cycles ({fit.search.reason}), rms {fit.start_rms:.1f} -> {fit.rms:.1f} points, "
              f"rank correlation with its targets {fit.correlation:.4f}, with the heads-up equity "
              f"{spearman(fit.score.scores(), table.equity):.4f}")

    # 2. a tuning run of 200 candidates x 200 duplicate games
    field = args.field.split(",")
    print(f"\ntuning {args.bot} against {', '.join(field)}: {args.cycles} candidates x {args.games} duplicate cash games "
          f"of {args.hands} hands, seed {args.seed} (target: under 10 minutes)")
    for workers in [] if args.skip_tuning else [int(w) for w in args.workers.split(",")]:
        started = time.perf_counter()
        config = TuningConfig(cycles=args.cycles, seed=args.seed,
                              sessions=SessionConfig(games=args.games, hands=args.hands, workers=workers))
        result = tune_bot(args.bot, field, config, source=TableSource(args.db, tables=args.tables))
        seconds = time.perf_counter() - started
        print(f"  workers {workers}: {seconds:.0f} s in all ({seconds / (args.cycles + 10):.2f} s a session on average; "
              f"{result.search.evaluations} candidates + 10 noise and held-out sessions)")
        print("    " + result.summary().replace("\n", "\n    "))

    # 3. random walk against genetic search on the same budget
    if not args.skip_compare:
        gains: dict[str, list[float]] = {}
        for seed in [int(s) for s in args.compare_seeds.split(",")]:
            config = TuningConfig(cycles=args.cycles, seed=seed, sessions=SessionConfig(games=args.games, hands=args.hands))
            comparison = compare_methods(args.bot, field, config, source=TableSource(args.db, tables=args.tables))
            print(f"\nrandom walk against genetic search on the same budget, seed {seed}")
            print("  " + comparison.summary().replace("\n", "\n  "))
            for name, r in comparison.results.items():
                print(f"  {name}: changed " + ", ".join(f"{k} {a:.3g}->{b:.3g}" for k, (a, b) in r.changed().items()))
                gains.setdefault(name, []).append(r.improvement.mean)
        if len(next(iter(gains.values()))) > 1:
            print("\nheld-out improvement by seed (mean over the noise sessions):")
            for name, values in gains.items():
                print(f"  {name:12} " + ", ".join(f"{v:.1f}" for v in values)
                      + f"; median {statistics.median(values):.1f}")


if __name__ == "__main__":
    main()
