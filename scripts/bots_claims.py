"""Re-measure every claim about bots that the docs make, over pooled seeds with paired intervals.

    python scripts/bots_claims.py --db PATH --tables DECODED [--seeds 11-20] [--only arena|exact|tuning] [--out FILE.json]

Prints each experiment's paired comparisons (what ``docs/guide/bots-claims.md``
quotes) and writes every figure to ``--out``. Every pair is written as first
named minus second in the order of :data:`ORDER` (the six-handed listing),
whatever order an experiment lists its bots in, so a pair's figure has one
sign in both listings. The claims test (``tests/play/test_claims.py``)
replays the same experiments on other seeds.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from matchdb.play.arena import Estimate, parse_seeds, run_arena
from matchdb.play.sources import TableSource
from matchdb.play.tuning import SessionConfig, TuningConfig, compare_methods

#: The experiments: name -> run_arena arguments (games per seed).
EXPERIMENTS = {
    "three": dict(bots=["fives", "allin", "station"], games=300, duplicate=True),
    "six": dict(bots=["west", "west-tight", "income", "tomlinson", "fives", "allin"], games=1200, duplicate=True),
    "six-reversed": dict(bots=["allin", "fives", "tomlinson", "income", "west-tight", "west"], games=1200,
                         duplicate=True),
    "west-allin": dict(bots=["west", "allin"], games=1000, duplicate=True),
    "west-fives": dict(bots=["west", "fives"], games=600, duplicate=True),
    "exact": dict(bots=["west", "west:exact", "west:exact-dropout", "west-tight", "income", "fives"], games=600,
                  duplicate=True, mode="cash", hands=100),
}
TUNING_FIELD = ["west-tight", "west-loose", "income", "fives", "allin"]
#: The order pairs are written in (first minus second): the six-handed listing, then the others.
ORDER = ["west", "west:exact", "west:exact-dropout", "west-tight", "income", "tomlinson", "fives", "allin", "station"]


def ordered_pairs(result, figure):
    """Every two bots' paired difference of ``figure``, first minus second in :data:`ORDER`."""
    names = sorted((b.name for b in result.bots), key=ORDER.index)
    return [result.pair(a, b, figure) for i, a in enumerate(names) for b in names[i + 1:]]


def describe(name, result) -> dict:
    out = {"settings": {k: result.settings[k] for k in ("games", "seeds", "units", "mode", "seats")},
           "seconds": result.seconds, "bots": {}, "pairs": []}
    figures = ("bb_per_100", "chips") if result.settings["mode"] == "cash" else ("wins", "place", "stacks")
    for b in result.bots:
        out["bots"][b.name] = {f: [getattr(b, f).mean, getattr(b, f).low, getattr(b, f).high] for f in figures}
    for figure in figures:
        for pair in ordered_pairs(result, figure):
            d = pair.difference
            out["pairs"].append({"first": pair.first, "second": pair.second, "figure": figure,
                                 "mean": d.mean, "low": d.low, "high": d.high, "statement": pair.statement()})
    print(f"== {name}: {result.report().splitlines()[0]}")
    print(result.report().split("\npaired differences")[0])
    for figure in figures:
        print(f"  paired differences of {figure} (first - second):")
        for pair in ordered_pairs(result, figure):
            d = pair.difference
            print(f"    {pair.first} - {pair.second} = {d.mean:+.4g} [{d.low:.4g}, {d.high:.4g}]: {pair.statement()}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--tables", default=None)
    parser.add_argument("--seeds", default="11-20")
    parser.add_argument("--only", choices=("arena", "exact", "tuning"))
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    source = TableSource(args.db, tables=args.tables)
    figures: dict = {}
    names = {"arena": [k for k in EXPERIMENTS if k != "exact"], "exact": ["exact"], "tuning": []}
    chosen = names[args.only] if args.only else list(EXPERIMENTS)
    for name in chosen:
        figures[name] = describe(name, run_arena(seeds=seeds, source=source, progress=False, **EXPERIMENTS[name]))
    if args.only in (None, "tuning"):
        rows = []
        for seed in seeds:
            started = time.perf_counter()
            config = TuningConfig(cycles=args.cycles, seed=seed,
                                  sessions=SessionConfig(games=204, mode="cash", hands=100, chunks=1))
            comparison = compare_methods("west", TUNING_FIELD, config, source=source)
            walk, genetic = comparison.results["random walk"], comparison.results["genetic"]
            rows.append({"seed": seed, "walk": walk.improvement.__dict__, "genetic": genetic.improvement.__dict__,
                         "walk_gains": (walk.validation - walk.noise.values).tolist(),
                         "genetic_gains": (genetic.validation - genetic.noise.values).tolist(),
                         "noise_sd": walk.noise.sd, "seconds": time.perf_counter() - started})
            print(f"tuning seed {seed}: walk {walk.improvement} genetic {genetic.improvement} "
                  f"noise sd {walk.noise.sd:.3g} ({time.perf_counter() - started:.0f} s)", flush=True)
        walk = np.concatenate([r["walk_gains"] for r in rows])
        genetic = np.concatenate([r["genetic_gains"] for r in rows])
        pooled = {"walk": Estimate.of(walk).__dict__, "genetic": Estimate.of(genetic).__dict__,
                  "walk_minus_genetic": Estimate.of(walk - genetic).__dict__}
        print(f"tuning pooled over {len(walk)} held-out sessions: walk {Estimate.of(walk)}, genetic "
              f"{Estimate.of(genetic)}, walk - genetic {Estimate.of(walk - genetic)}")
        figures["tuning"] = {"seeds": rows, "pooled": pooled}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
