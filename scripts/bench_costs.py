"""Every route's estimated work beside its measured CPU: the service's cost estimates checked against the cost.

Usage: python scripts/bench_costs.py [--db PATH] [--small PATH] [--long] [--repeat 2] [--markdown] [--factor 3]

For each kind of question of each route (``/v1/win-rate``, ``/v1/equity``,
``/v1/multiway``, ``/v1/distribution``, ``/v1/hands``, ``/v1/report``,
``POST /v1/batch``), this computes the estimate the service makes before any
work (:mod:`matchdb.service.costs`) and then runs the very function the
service runs for it, in this process, measuring its CPU time (every thread,
user and system; the least of ``--repeat`` runs, after one run that loads the
compiled kernels). It prints estimate, measured and their ratio, and says
whether every measured CPU is within ``--factor`` of its estimate either way
(questions under 0.1 s of both are only checked to be on the same side of the
heavy threshold, where a factor means little).

``--db`` is a complete database (default: ``matchdb.open()``'s); ``--small``
a database lacking tables (the conftest's small store), for the preflop
questions that count matchups by enumeration there; ``--long`` adds the
issue's largest accepted questions (tens of seconds each). The CPU seconds
depend on the machine and its load: run it on a quiet machine, and compare
only figures of one run.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

import matchdb
from matchdb.db.query import MatchDB
from matchdb.service import costs
from matchdb.service.batch import Batch, batch_cost, run_batch
from matchdb.service.page import hands_answer
from matchdb.service.questions import distribution_fields, report_fields


def cpu() -> float:
    """CPU seconds of this process so far, every thread, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cases(db: MatchDB, long: bool) -> list[tuple[str, str, Any, Callable[..., Any], tuple]]:
    """(route, question, its estimate, the function the service runs, its arguments after the database)."""
    out: list[tuple[str, str, Any, Callable[..., Any], tuple]] = []

    def add(route: str, text: str, cost: Any, call: Callable[..., Any], *args: Any) -> None:
        out.append((route, text, cost, call, args))

    def multiway(text: str, hole: str, board: str, opponents: list, method: str = "auto", samples: int | None = None) -> None:
        add("/v1/multiway", text, costs.multiway_cost(db, hole, board, opponents, method, samples), MatchDB.multiway,
            hole, board, opponents, method, samples, 1)

    add("/v1/win-rate", "AhKh 2c7dJh, 6 players", costs.win_rate_cost(db, "AhKh", "2c7dJh", 6), MatchDB.naive,
        "AhKh", "2c7dJh", 6)
    add("/v1/equity", "AhKh 2c7dJh vs QQ+,AKs", costs.equity_cost(db, "AhKh", "2c7dJh", "QQ+,AKs"), MatchDB.outcome,
        "AhKh", "2c7dJh", "QQ+,AKs")
    add("/v1/equity", "AhKh preflop vs QsQd", costs.equity_cost(db, "AhKh", "", "QsQd"), MatchDB.outcome, "AhKh", "", "QsQd")
    multiway("AhKh 2c7dJh, 2 random", "AhKh", "2c7dJh", ["random"] * 2)
    multiway("AhKh 2c7dJh, 3 random", "AhKh", "2c7dJh", ["random"] * 3)
    multiway("AhKh 2c7dJh, 3 ranges", "AhKh", "2c7dJh", ["QQ+,AKs", "22+,A2s+", "random"])
    multiway("AhKh 2c7dJh, 4 random (auto)", "AhKh", "2c7dJh", ["random"] * 4)
    multiway("AhKh 2c7dJh, 6 random (auto)", "AhKh", "2c7dJh", ["random"] * 6)
    multiway("AhKh 2c7dJh, 9 random (auto)", "AhKh", "2c7dJh", ["random"] * 9)
    multiway("AhKh 2c7dJh8s, 6 random (auto)", "AhKh", "2c7dJh8s", ["random"] * 6)
    multiway("AhKh 2c7dJh8s9d, 6 random (auto)", "AhKh", "2c7dJh8s9d", ["random"] * 6)
    multiway("AhKh 2c7dJh, 6 random, 100,000 samples", "AhKh", "2c7dJh", ["random"] * 6, "sample", 100_000)
    multiway("AhKh 2c7dJh, 2 random, 200,000 samples", "AhKh", "2c7dJh", ["random"] * 2, "sample", 200_000)
    multiway("AhKh 2c7dJh8s9d, 4 random, 200,000 samples", "AhKh", "2c7dJh8s9d", ["random"] * 4, "sample", 200_000)
    multiway("AhKh 2c7dJh, 3 ranges, 50,000 samples", "AhKh", "2c7dJh", ["QQ+,AKs"] * 3, "sample", 50_000)
    multiway("AhKh 2c7dJh, 4 ranges, 20,000 samples", "AhKh", "2c7dJh", ["22+,A2+,K9+"] * 4, "sample", 20_000)
    multiway("QQ+ 2c7dJh, 6 random, samples=1", "QQ+", "2c7dJh", ["random"] * 6, "sample", 1)
    multiway("QQ+,AKs 2c7dJh, 3 random", "QQ+,AKs", "2c7dJh", ["random"] * 3)
    multiway("QQ+,AKs 2c7dJh, 3 ranges", "QQ+,AKs", "2c7dJh", ["JJ-99", "AQs+", "KQs"])
    multiway("JJ-99 2c7dJh vs QQ+,AKs (range vs range)", "JJ-99", "2c7dJh", ["QQ+,AKs"])
    multiway("KdQd AhKhQh vs 2 known hands", "KdQd", "AhKhQh", ["JcTc", "5h5s"])
    multiway("AhKh 2c7dJh, 3 random (independent)", "AhKh", "2c7dJh", ["random"] * 3, "independent")
    multiway("AhKh preflop vs 2 known hands", "AhKh", "", ["QsQd", "JcTc"])
    multiway("AhKh preflop, 3 random (sampled)", "AhKh", "", ["random"] * 3)
    multiway("AhKh preflop, 9 random, 100,000 samples", "AhKh", "", ["random"] * 9, "sample", 100_000)
    multiway("AhKh preflop vs 2 known hands, 1,000,000 samples", "AhKh", "", ["QsQd", "JcTc"], "sample", 1_000_000)
    multiway("AA preflop vs QQ, KK (distinct deals)", "AA", "", ["QQ", "KK"])
    multiway("AK preflop vs AK, AK, AK, random (1 deal in 114 fits)", "AK", "", ["AK", "AK", "AK", "random"], "sample", 20_000)
    add("/v1/distribution", "AhKh 2c7dJh", costs.distribution_cost(db, "AhKh", "2c7dJh", None, 50), distribution_fields,
        "AhKh", "2c7dJh", None, 50)
    add("/v1/distribution", "AhKh 2c7dJh8s vs QQ+,AKs", costs.distribution_cost(db, "AhKh", "2c7dJh8s", "QQ+,AKs", 50),
        distribution_fields, "AhKh", "2c7dJh8s", "QQ+,AKs", 50)
    for board, figure, villain, hero in (("2c7dJh", "equity", None, None), ("2c7dJh", "equity", "22+,A2+,K2+", "JJ-99"),
                                         ("2c7dJh8s9d", "equity", "QQ+,AKs", None), ("2c7dJh", "win-rate", None, None)):
        add("/v1/hands", f"{board} {figure}" + (f" vs {villain}" if villain else "") + (f", hero {hero}" if hero else ""),
            costs.hands_cost(db, board, figure, villain, 2, hero), hands_answer, board, figure, villain, 2, hero)
    add("/v1/report", "QQ+,AKs", costs.report_cost("QQ+,AKs", None), report_fields, "QQ+,AKs", None)
    queries = [{"kind": "equity", "hole": "AhKh", "board": "2c7dJh", "villain": "QQ+"}] * 50
    queries += [{"kind": "multiway", "hole": "AhKh", "board": "2c7dJh", "opponents": 6, "method": "sample", "samples": 20_000}] * 4
    batch = Batch.model_validate({"queries": queries})
    add("POST /v1/batch", "50 equities and 4 sampled six-way questions", batch_cost(db, batch), run_batch, batch)
    if long:
        multiway("random 2c7dJh, 2 random, samples=1", "random", "2c7dJh", ["random"] * 2, "sample", 1)
        multiway("random 2c7dJh, 6 random, samples=1 (the issue's)", "random", "2c7dJh", ["random"] * 6, "sample", 1)
        multiway("AhKh preflop, 9 random, 1,000,000 samples", "AhKh", "", ["random"] * 9, "sample", 1_000_000)
        multiway("AhKh 2c7dJh, 4 random (exact)", "AhKh", "2c7dJh", ["random"] * 4, "exact")
        add("/v1/report", "random", costs.report_cost("random", None), report_fields, "random", None)
    return out


def small_cases(db: MatchDB) -> list[tuple[str, str, Any, Callable[..., Any], tuple]]:
    """Preflop questions on a database lacking tables: the matchups they need counted by enumeration."""
    out = [("/v1/hands", f"preflop grid vs {villain} (tables lacking)", costs.hands_cost(db, "", "equity", villain, 2, None),
            hands_answer, ("", "equity", villain, 2, None)) for villain in ("AA", "QQ+,AKs")]
    out.append(("/v1/equity", "AhKh preflop vs 22+,A2s+ (tables lacking)", costs.equity_cost(db, "AhKh", "", "22+,A2s+"),
                MatchDB.outcome, ("AhKh", "", "22+,A2s+")))
    return out


def measure(db: MatchDB, call: Callable[..., Any], args: tuple, repeat: int, fresh: Callable[[], MatchDB] | None) -> float:
    """The least CPU of ``repeat`` runs (each on a freshly opened database when ``fresh``: nothing kept from before)."""
    best = float("inf")
    for _ in range(repeat):
        target = fresh() if fresh is not None else db
        started = cpu()
        try:
            call(target, *args)
        except matchdb.MatchdbError as error:
            print(f"    (refused: {error})", file=sys.stderr)
        best = min(best, cpu() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a complete database (default: matchdb.open()'s)")
    parser.add_argument("--small", help="a database lacking tables, for the preflop matchups counted by enumeration")
    parser.add_argument("--long", action="store_true", help="add the largest accepted questions (tens of seconds each)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each question, the least CPU kept (default 2)")
    parser.add_argument("--factor", type=float, default=3.0, help="the factor every estimate must be within (default 3)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    db = matchdb.open(args.db)
    db.compute_on_first_use = False  # a question needing derived data it lacks is refused: nothing written into it
    rows = []
    plan = [(case, None) for case in cases(db, args.long)]
    if args.small:
        small = matchdb.open(args.small)
        plan += [(case, (lambda: matchdb.open(args.small))) for case in small_cases(small)]
    for (route, text, cost, call, call_args), fresh in plan:
        target = fresh() if fresh is not None else db
        started = time.perf_counter()
        if fresh is None:
            measure(target, call, call_args, 1, None)  # loads the compiled kernels and the tables once
        measured = measure(target, call, call_args, args.repeat, fresh)
        rows.append((route, text, cost.seconds, measured, "refused (413)" if cost.bound > costs.MAX_WORK_SECONDS
                     else "pool" if cost.heavy else "thread"))
        print(f"{route:16} {text:52} estimate {cost.seconds:9.3f} s  measured {measured:8.3f} s  "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    bad = []
    lines = ["| route | question | estimate (s) | measured CPU (s) | measured / estimate | the service answers it in |",
             "| --- | --- | ---: | ---: | ---: | --- |"]
    for route, text, estimate, measured, where in rows:
        ratio = measured / estimate if estimate > 0 else float("inf")
        small_both = estimate < costs.HEAVY_SECONDS and measured < costs.HEAVY_SECONDS
        if not small_both and not 1 / args.factor <= ratio <= args.factor:
            bad.append(text)
        lines.append(f"| `{route}` | {text} | {estimate:,.3f} | {measured:,.3f} | {ratio:.2f} | {where} |")
    if args.markdown:
        print("\n".join(lines))
    else:
        for route, text, estimate, measured, _ in rows:
            print(f"{route:16} {text:58} {estimate:10.3f} {measured:10.3f} {measured / estimate if estimate else 0:6.2f}")
    verdict = "all within" if not bad else f"{len(bad)} outside ({'; '.join(bad)})"
    print(f"\n{len(rows)} questions; estimates {verdict} a factor {args.factor:g} of the measured CPU "
          f"(both under {costs.HEAVY_SECONDS} s: only the side of the heavy threshold counts).")
    return 0 if not bad else 1


if __name__ == "__main__":
    raise SystemExit(main())
