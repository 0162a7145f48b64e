"""The ``matchdb`` command line: it parses arguments, calls the Python API and renders its answers.

Every answer prints as its ``to_text()`` or, with ``--json``, its ``to_dict()``.
Errors print one line to stderr and exit with status 2; a failed verify exits 1.
Long work shows a progress bar on a terminal and a log line every few
seconds otherwise.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from matchdb.errors import MatchdbError

__all__ = ["main"]

_DB_HELP = "database path (default $MATCHDB_PATH, else matchdb.zarr in the user's data folder)"


def _render(answer, as_json: bool) -> None:
    print(json.dumps(answer.to_dict()) if as_json else answer.to_text())


def _cmd_build(args: argparse.Namespace) -> int:
    from matchdb.db.build import build

    report = build(
        root=args.out, flops=args.flops, workers=args.workers, scheduler=args.scheduler, serial=args.serial, quiet=args.quiet
    )
    print(report.summary())
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from matchdb.storage import default_path
    from matchdb.storage.writer import create_store

    path = args.out or default_path()
    create_store(path)
    print(f"store ready at {path}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from matchdb.db.build import parse_flop_spec
    from matchdb.storage import default_path
    from matchdb.db.verify import verify

    path = args.path or args.db or default_path()
    required = parse_flop_spec(args.flops) if args.flops else ()
    report = verify(path, sample=args.sample, seed=args.seed, required=required, complete=args.complete, show_progress=not args.quiet)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _open(args: argparse.Namespace):
    from matchdb.db.query import open as open_database

    return open_database(args.db)


def _cmd_query(args: argparse.Namespace) -> int:
    from matchdb.db.query import open as open_database
    from matchdb.db.query import opponent_list

    villains = args.villain or []
    if args.opponents is None and len(villains) <= 1:
        db = open_database(args.db, jit=False)  # one question: numpy answers it before numba would have loaded
        answer = db.report(args.hole, args.board, players=args.players, villain=villains[0] if villains else None)
    else:
        answer = open_database(args.db).multiway(
            args.hole, args.board, opponent_list(villains, args.opponents), method=args.method, samples=args.samples, seed=args.seed
        )
    _render(answer, args.json)
    return 0


def _cmd_pack(args: argparse.Namespace) -> int:
    from matchdb.db.pack import pack
    from matchdb.storage import default_path

    db = args.db or default_path()
    out = args.out or str(db).removesuffix(".zarr") + ".zip"
    print(pack(db, out, show_progress=not args.quiet, preflop=not args.no_preflop).summary())
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from matchdb.db.export import export_hdf5

    print(export_hdf5(_open(args), args.out, show_progress=not args.quiet).summary())
    return 0


def _parse_players(text: str) -> list[int]:
    from matchdb.equity.preflop import PLAYERS

    low, _, high = text.partition("..")
    try:
        players = list(range(int(low), int(high or low) + 1))
    except ValueError:
        raise MatchdbError(f"--players is {text!r}; expected a number or a span like 2..10.") from None
    if not players or players[0] not in PLAYERS or players[-1] not in PLAYERS:
        raise MatchdbError(f"--players is {text!r}; preflop win rates cover 2..10 players.")
    return players


def _cmd_preflop(args: argparse.Namespace) -> int:
    import csv

    from matchdb.storage.files import check_output_file

    players = _parse_players(args.players)
    if args.out and not args.out.endswith((".csv", ".json")):
        raise MatchdbError(f"--out is {args.out!r}; expected a file name ending in .csv or .json.")
    out = check_output_file(args.out, ".csv") if args.out else None
    if args.multiway:
        table = _open(args).preflop_multiway(show_progress=not args.quiet)
    else:
        table = _open(args).preflop(players=players, show_progress=not args.quiet)
    if out is None:
        _render(table, args.json)
        return 0
    rows = table.rows()
    with open(out, "w", newline="") as handle:
        if out.suffix == ".json":
            json.dump(rows, handle, indent=1)
        else:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print(f"wrote {len(rows)} starting hands to {out}")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from matchdb.service.app import serve

    db = _open(args)  # a missing or damaged database fails here, before the port opens
    serve(db, host=args.host, port=args.port, workers=args.workers, access_log=args.access_log)
    return 0


def _cmd_arena(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from matchdb.play.arena import ArenaError, run_arena

    if args.decode:
        if not args.tables:
            raise ArenaError("--decode needs --tables, the folder to decode into.")
        from matchdb.play.strength import decode_tables

        started = time.perf_counter()
        decode_tables(_open(args), args.tables, quiet=args.quiet)
        print(f"decoded every table into {args.tables} in {time.perf_counter() - started:.1f} s")
    if args.out and Path(args.out).suffix not in (".csv", ".json"):
        raise ArenaError(f"The output file {args.out!r} ends neither in .csv nor in .json.")
    result = run_arena(
        args.bots, games=args.games, seats=args.seats, seed=args.seed, duplicate=args.duplicate, mode=args.mode,
        hands=args.hands, workers=args.workers, db=args.db, tables=args.tables, progress=False if args.quiet else None,
    )
    print(result.report())
    if args.out:
        print(f"wrote {result.save(args.out)}")
    if args.plot:
        print(f"drew {result.plot(args.plot)}")
    return 0


_PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _plot_output(out: str):
    """``--out`` of ``matchdb plot`` checked (an image file in a folder that exists), and matplotlib present."""
    from matchdb.plots import require_matplotlib
    from matchdb.storage.files import check_output_file

    if not out.lower().endswith(_PLOT_SUFFIXES):
        raise MatchdbError(f"--out is {out!r}; expected a file name ending in .png, .svg or .pdf.")
    require_matplotlib()
    return check_output_file(out, ".png")


def _cmd_plot(args: argparse.Namespace) -> int:
    from matchdb.plots import grid_table, plot_distribution, plot_turns, turn_equities

    out = _plot_output(args.out)
    if args.kind == "distribution":
        d = _open(args).distribution(args.hole, args.board, villain=args.villain, bins=args.bins)
        title = f"{args.hole} on {args.board} against {d.villain}: exact equity over {len(d.river_equities)} runouts"
        plot_distribution(d.river_histogram, ehs=d.ehs, title=title, out=out)
        print(f"drew the equity distribution of {args.hole} on {args.board} ({d.bins} bins) into {out}")
        return 0
    if args.kind == "grid":
        figure = args.figure or ("win-rate" if args.players is not None else "equity")
        players = 2 if args.players is None else args.players
        table = grid_table(_open(args), args.board, figure=figure, villain=args.villain, players=players)
        table.plot(out=out)
        print(f"drew {table.figure} of every hand on {table.board} into {out}")
        return 0
    turns = turn_equities(_open(args), args.hole, args.flop, villain=args.villain)
    against = "random" if args.villain is None else args.villain
    title = f"{args.hole} on {args.flop} against {against}: exact equity after each turn card"
    plot_turns(turns.cards, turns.values, title=title, reference=turns.flop_equity, out=out)
    print(f"drew the exact equity of {args.hole} after each of {len(turns.cards)} turn cards into {out}")
    return 0


def _cmd_distribution(args: argparse.Namespace) -> int:
    _render(_open(args).distribution(args.hole, args.board, villain=args.villain, bins=args.bins), args.json)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from matchdb.equity.reports import report

    if args.out and not args.out.endswith((".csv", ".json")):
        raise MatchdbError(f"--out is {args.out!r}; expected a file name ending in .csv or .json.")
    if args.out:
        from matchdb.storage.files import check_output_file

        check_output_file(args.out, ".csv")
    result = report(_open(args), args.hero, args.villain, quiet=args.quiet)
    if args.out:
        result.to_json(args.out) if args.out.endswith(".json") else result.to_csv(args.out, sort=args.sort)
        print(result.summary())
        print(f"wrote {result.total_flops:,} flops' figures to {args.out}")
        return 0
    _render(result, args.json)
    return 0


def _cmd_abstraction(args: argparse.Namespace) -> int:
    from matchdb.db.abstraction import build_dataset

    if not args.zarr and not args.hdf5:
        raise MatchdbError("'matchdb abstraction' writes a --zarr folder, an --hdf5 file or both; expected at least one.")
    print(build_dataset(_open(args), args.zarr, args.hdf5, bins=args.bins, quiet=args.quiet).summary())
    return 0


def _tune_outputs(args: argparse.Namespace):
    """Check --out, --log and --plot before the work starts; open the log (None when not asked for)."""
    from matchdb.storage.files import check_output_file

    if args.out and not args.out.endswith(".json"):
        raise MatchdbError(f"--out is {args.out!r}; expected a file name ending in .json.")
    for option in ("out", "log", "plot"):
        if getattr(args, option):
            check_output_file(getattr(args, option), {"out": ".json", "log": ".log", "plot": ".png"}[option])
    if args.plot:
        try:
            __import__("matplotlib")
        except ImportError:
            raise MatchdbError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
    return open(args.log, "w", buffering=1) if args.log else None


def _cmd_tune_preflop(args: argparse.Namespace) -> int:
    from matchdb.play.preflop_score import fit_preflop_score, preflop_targets

    if not 1 <= args.opponents <= 9:
        raise MatchdbError(f"--opponents is {args.opponents}; expected 1..9 (the preflop table covers 2..10 players).")
    log = _tune_outputs(args)
    try:
        reference = None
        if args.critical is None or args.db:
            table = _open(args).preflop(show_progress=not args.quiet)
            reference = preflop_targets(table, 1)
        if args.critical is not None:
            targets, description = args.critical, "critical hands"
        else:
            figure = "heads-up equity" if args.opponents == 1 else "naive win rate"
            if args.multiway:
                if not hasattr(_open(args), "preflop_multiway"):
                    raise MatchdbError("--multiway needs the exact multiway preflop table (db.preflop_multiway), "
                                       "which this version of matchdb lacks.")
                table, figure = _open(args).preflop_multiway(show_progress=not args.quiet), "exact multiway equity"
            targets = preflop_targets(table, args.opponents, args.scale)
            description = (f"the database's {figure} against {args.opponents} "
                           f"opponent{'s' if args.opponents > 1 else ''}, scaled by {args.scale}")
        on_step = None if log is None else (
            lambda step: log.write(f"cycle {step.evaluation}: rms {step.loss:.2f}: {step.describe()}\n"))

        fit = fit_preflop_score(targets, step=args.step, max_changes=args.changes, cycles=args.cycles,
                                target_error=args.target_error, patience=args.patience or None,
                                tolerance=args.tolerance,
                                pinned=_names(args.pin), seed=args.seed, progress=not args.quiet,
                                description=description, on_step=on_step)
    finally:
        if log is not None:
            log.close()
    if reference is not None:
        from matchdb.play.preflop_score import spearman

        fit.extra["rank_correlation_headsup"] = spearman(fit.score.scores(), reference)
    if args.json:
        print(json.dumps(fit.to_dict()))
    else:
        print(fit.to_text(reference, "the database's heads-up equity"))
    if args.out:
        print(f"wrote {fit.save(args.out)}")
    if args.log:
        print(f"wrote {len(fit.search.steps)} kept steps to {args.log}")
    if args.plot:
        print(f"drew {fit.plot(args.plot)}")
    return 0


def _names(text: str | None) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()] if text else []


def _bounds(items: list[str] | None) -> dict[str, tuple[float, float]]:
    bounds = {}
    for item in items or []:
        name, _, span = item.partition("=")
        low, _, high = span.partition(":")
        try:
            bounds[name.strip()] = (float(low), float(high))
        except ValueError:
            raise MatchdbError(f"--bound is {item!r}; expected NAME=LOW:HIGH, like raise_fraction=0.25:2.") from None
    return bounds


def _cmd_tune_bot(args: argparse.Namespace) -> int:
    from matchdb.play.tuning import compare_methods, tune_bot

    log = _tune_outputs(args)
    options = dict(objective=args.objective, target=args.target, cycles=args.cycles, step=args.step,
                   max_changes=args.changes, pinned=_names(args.pin), bounds=_bounds(args.bound),
                   patience=args.patience, hone=not args.no_hone, parents=args.parents, children=args.children,
                   noise_sessions=args.noise_sessions, seed=args.seed, games=args.games, seats=args.seats,
                   mode=args.mode, hands=args.hands, chunks=args.chunks, workers=args.workers,
                   db=args.db, tables=args.tables, name=args.name, progress=not args.quiet,
                   log=None if log is None else (lambda line: log.write(line + "\n")))
    try:
        if args.method == "both":
            comparison = compare_methods(args.bot, args.field, **options)
            results = list(comparison.results.values())
            result = max(results, key=lambda r: r.improvement.mean)
            print(comparison.summary())
        else:
            result = tune_bot(args.bot, args.field, method=args.method, **options)
            results = [result]
            print(result.summary())
    finally:
        if log is not None:
            log.close()
    changed = result.changed()
    print("changed: " + (", ".join(f"{k} {a:.4g} -> {b:.4g}" for k, (a, b) in changed.items()) or "nothing"))
    if args.out:
        print(f"wrote {result.save(args.out)} ({result.method}; load it with --bots {args.out})")
    if args.log:
        print(f"wrote the log to {args.log}")
    if args.plot:
        print(f"drew {comparison.plot(args.plot) if args.method == 'both' else result.plot(args.plot)}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    print(json.dumps(_open(args).info(), indent=2))
    return 0


class _Version(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata costs 15 ms a start)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import version

        parser.exit(message=f"matchdb {version('matchdb')}\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="matchdb", description="The Texas Hold'em match-table database.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="compute tables into a zarr store (resumes a partial build)")
    p.add_argument("--out", help="store path (default: the default database, see --db)")
    p.add_argument("--flops", help="tables to build: indices, ranges like 0-39, flops like AhTcTh; default all")
    p.add_argument("--workers", type=int, help="local Dask worker processes (default: one per core)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler to use instead of a local cluster")
    p.add_argument("--serial", action="store_true", help="compute in this process, without Dask")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_build)

    p = sub.add_parser("verify", help="check metadata, checksums, derived data and sampled entries of a database")
    p.add_argument("path", nargs="?", help="database path (same as --db)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--sample", type=int, default=100, help="entries to recompute with the pure-Python twin")
    p.add_argument("--seed", type=int, help="seed for the sampled entries")
    p.add_argument("--flops", help="tables that must be present (same forms as build --flops)")
    p.add_argument("--complete", action="store_true", help="fail unless all 1,755 tables are present")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("init", help="create an empty store (what a cluster build does before its array)")
    p.add_argument("--out", help="store path (default: the default database, see --db)")
    p.set_defaults(func=_cmd_init)

    p = sub.add_parser("query", help="win rate and exact equity of a hand on a board")
    p.add_argument("hole", help="two hole cards, like AhKh")
    p.add_argument("board", help="three to five board cards, like 2c7dJh")
    p.add_argument("--players", type=int, default=2, help="players for the naive win rate, 2..23 (default 2)")
    p.add_argument("--villain", action="append", help="an opponent's range, hand or 'random', like 'QQ+,AKs' "
                   "(default: one random opponent); repeat it for more opponents")
    p.add_argument("--opponents", type=int, help="this many random opponents (beside any --villain): a multiway answer")
    p.add_argument("--method", choices=("auto", "exact", "sample", "independent"), default="auto",
                   help="multiway: exact when affordable (auto), exact, sampled, or the article's independent formula")
    p.add_argument("--samples", type=int, help="multiway: sampled partial deals (default 2,352)")
    p.add_argument("--seed", type=int, help="multiway: seed of a sampled answer")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_query)

    p = sub.add_parser("pack", help="write the database as one checksummed file that opens directly")
    p.add_argument("--db", help="store folder (default: the default database, see --db of query)")
    p.add_argument("--out", help="file to write (default: the store's name with .zip)")
    p.add_argument("--no-preflop", action="store_true", help="do not compute the preflop table first")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_pack)

    p = sub.add_parser("export", help="export the database to another format (HDF5)")
    p.add_argument("--format", choices=["hdf5"], default="hdf5", help="output format (hdf5)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--out", required=True, help="file to write, like matchdb.h5")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("preflop", help="equity and win rates of the 169 starting hands, from the database")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--players", default="2..10", help="naive win rates to show: a number or a span like 2..10")
    p.add_argument("--multiway", action="store_true", help="equity against 1 to 9 random opponents instead "
                   "(computed once, about 4 minutes on 2 cores, then kept in the store)")
    p.add_argument("--out", help="write a .csv or .json file instead of printing")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_preflop)

    p = sub.add_parser("serve", help="answer queries over HTTP (needs the service extra)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="server processes sharing the port (default 1)")
    p.add_argument("--access-log", action="store_true", help="log every request (quiet by default)")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("arena", help="bots play each other: tournaments or cash sessions, with confidence intervals")
    p.add_argument("--bots", help="comma-separated bots like west,west-tight,allin,fives, each optionally with :naive, "
                   ":headsup, :montecarlo or :dropout (default: the articles' bots; an unknown name lists the known ones)")
    p.add_argument("--games", type=int, required=True, help="games to play (duplicate: rounded up to whole sets)")
    p.add_argument("--seats", type=int, help="seats at the table, 2..10 (default: one per bot)")
    p.add_argument("--seed", type=int, default=0, help="seed of every card and decision (default 0)")
    p.add_argument("--duplicate", action="store_true", help="replay each deal with the seats rotated")
    p.add_argument("--mode", choices=("tournament", "cash"), default="tournament")
    p.add_argument("--hands", type=int, help="cash session length (default 200) or tournament hand cap")
    p.add_argument("--workers", type=int, default=1, help="Dask worker processes on this machine (default 1)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--tables", help="folder of decoded tables (made by --decode); default: decode lazily")
    p.add_argument("--decode", action="store_true", help="decode every table into --tables first (4.85 GB)")
    p.add_argument("--out", help="write the results to a .csv or .json file")
    p.add_argument("--plot", help="draw the results into an image file (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_arena)

    p = sub.add_parser("plot", help="draw every hand's equity as a grid, or a hand's equity by turn card (needs matplotlib)")
    kinds = p.add_subparsers(dest="kind", required=True)
    g = kinds.add_parser("grid", help="the 13 x 13 starting-hand classes on a board as a heat map with their values")
    g.add_argument("board", help="three to five board cards, like 2c7dJh")
    g.add_argument("--villain", help="opponent range for the exact equity, like 'QQ+,AKs' (default: any hand)")
    g.add_argument("--players", type=int, help="players for the naive win rate, 2..23 (implies --figure win-rate)")
    g.add_argument("--figure", choices=("equity", "win-rate"), help="exact heads-up equity (default) or naive win rate")
    g.add_argument("--db", help=_DB_HELP)
    g.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    g.set_defaults(func=_cmd_plot)
    t = kinds.add_parser("turns", help="a hand's exact equity after each possible turn card")
    t.add_argument("hole", help="two hole cards, like AhKh")
    t.add_argument("flop", help="three flop cards, like 2c7dJh")
    t.add_argument("--villain", help="opponent range, like 'QQ+,AKs' (default: any hand)")
    t.add_argument("--db", help=_DB_HELP)
    t.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    t.set_defaults(func=_cmd_plot)
    d = kinds.add_parser("distribution", help="a hand's exact equity over every runout, as a histogram")
    d.add_argument("hole", help="two hole cards, like AhKh")
    d.add_argument("board", help="a flop or turn, like 2c7dJh")
    d.add_argument("--villain", help="opponent range, like 'QQ+,AKs' (default: any hand)")
    d.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    d.add_argument("--db", help=_DB_HELP)
    d.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    d.set_defaults(func=_cmd_plot)

    p = sub.add_parser("distribution", help="how a hand's equity moves on the turn and river: EHS, EHS^2, potential")
    p.add_argument("hole", help="two hole cards, like AhKh")
    p.add_argument("board", help="a flop or turn, like 2c7dJh")
    p.add_argument("--villain", help="opponent range (default: any hand)")
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_distribution)

    p = sub.add_parser("report", help="a range's equity and hits over all 22,100 flops, by texture")
    p.add_argument("hero", help="the hero's range, like 'QQ+,AKs'")
    p.add_argument("--villain", help="the villain's range (default: any hand)")
    p.add_argument("--sort", default="equity", help="sort the flops by this column (default equity)")
    p.add_argument("--out", help="write every flop and the texture aggregates to a .csv or .json file")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("abstraction", help="EHS, EHS^2 and the river-equity histogram of every flop hand, as an array file")
    p.add_argument("--zarr", help="zarr folder to write")
    p.add_argument("--hdf5", help="HDF5 file to write")
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--db", help=_DB_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_cmd_abstraction)

    p = sub.add_parser("tune", help="Tomlinson's Monte Carlo optimisation: fit a preflop score or tune a bot")
    tune = p.add_subparsers(dest="what", required=True)
    q = tune.add_parser("preflop", help="fit the preflop decision score (0-1000) to the database or to critical hands")
    q.add_argument("--db", help=_DB_HELP)
    q.add_argument("--opponents", type=int, default=1, help="targets: equity against 1 (exact) or 2..9 (naive win "
                   "rate) random opponents (default 1)")
    q.add_argument("--multiway", action="store_true", help="targets: the exact multiway preflop equity "
                   "(db.preflop_multiway(): computed once, about 4 minutes, then kept) instead of naive win rates")
    q.add_argument("--scale", choices=("range", "equity"), default="range",
                   help="targets 0..1000: the weakest to the strongest class (range) or 1000 x equity")
    q.add_argument("--critical", help="fit critical hands instead, like 'AA:950,AKs:800:2' (hand:target[:weight]) or "
                   "a .csv/.json file; with --db the ranking is still compared with the database")
    q.add_argument("--cycles", type=int, default=30_000, help="cycle limit (default 30,000)")
    q.add_argument("--patience", type=int, default=2000, help="stop after this many cycles without progress (0: never)")
    q.add_argument("--tolerance", type=float, default=0.05,
                   help="progress is the rms error falling by more than this many points (default 0.05)")
    q.add_argument("--target-error", type=float, help="stop when the rms error reaches this many points")
    q.add_argument("--step", type=float, default=10.0, help="a change is up to +-STEP points (default 10)")
    q.add_argument("--changes", type=int, default=3, help="1 to this many parameters change per cycle (default 3)")
    q.add_argument("--pin", help="comma-separated parameters that keep their first estimate")
    q.add_argument("--seed", type=int, default=0, help="seed of the random changes (default 0)")
    q.add_argument("--out", help="write the fitted score to a .json file")
    q.add_argument("--log", help="write every kept step to this file")
    q.add_argument("--plot", help="draw the rms error over the cycles into an image file (needs matplotlib)")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.add_argument("--quiet", action="store_true", help="no progress")
    q.set_defaults(func=_cmd_tune_preflop)

    b = tune.add_parser("bot", help="tune a bot's parameters in the arena against a field, measured against the noise")
    b.add_argument("bot", help="the bot to start from: a name like west or west-loose:headsup, or a bot .json file")
    b.add_argument("--field", required=True, help="comma-separated opponents, like west-tight,income,fives,allin")
    b.add_argument("--objective", choices=("bb_per_100", "invested", "target", "wins"), default="bb_per_100",
                   help="big blinds per 100 hands, chips won per chip invested, a target rate (--target), "
                   "tournament wins (default bb_per_100)")
    b.add_argument("--target", type=float, help="the target big blinds per 100 hands of --objective target")
    b.add_argument("--method", choices=("walk", "genetic", "both"), default="walk",
                   help="random walk, genetic search, or both on the same budget (default walk)")
    b.add_argument("--cycles", type=int, default=200, help="candidates to evaluate (default 200)")
    b.add_argument("--step", type=float, default=0.05, help="a change is up to +-STEP x the parameter's range (0.05)")
    b.add_argument("--changes", type=int, default=3, help="1 to this many parameters change at a time (default 3)")
    b.add_argument("--patience", type=int, help="stop after this many candidates without improvement")
    b.add_argument("--no-hone", action="store_true", help="the walk does not repeat changes that helped")
    b.add_argument("--pin", help="comma-separated parameters that keep their start value")
    b.add_argument("--bound", action="append", help="narrower bounds NAME=LOW:HIGH (repeatable)")
    b.add_argument("--parents", type=int, default=4, help="genetic: parents kept (default 4)")
    b.add_argument("--children", type=int, default=8, help="genetic: children per generation (default 8)")
    b.add_argument("--noise-sessions", type=int, default=5, help="sessions measuring the noise (default 5)")
    b.add_argument("--games", type=int, default=200, help="duplicate games per session (default 200)")
    b.add_argument("--seats", type=int, help="seats (default: the field plus one)")
    b.add_argument("--mode", choices=("cash", "tournament"), default="cash")
    b.add_argument("--hands", type=int, help="cash session length (default 200) or tournament hand cap")
    b.add_argument("--chunks", type=int, default=4, help="parts of a session played in parallel (default 4)")
    b.add_argument("--workers", type=int, default=1, help="Dask worker processes on this machine (default 1)")
    b.add_argument("--seed", type=int, default=0, help="seed of the sessions and the search (default 0)")
    b.add_argument("--db", help=_DB_HELP)
    b.add_argument("--tables", help="folder of decoded tables (matchdb arena --decode); default: decode lazily")
    b.add_argument("--name", help="the tuned bot's name (default NAME-tuned)")
    b.add_argument("--out", help="write the tuned bot to a .json file (matchdb arena --bots FILE.json plays it)")
    b.add_argument("--log", help="write the log (noise, every improvement, the held-out check) to this file")
    b.add_argument("--plot", help="draw the objective over the candidates into an image file (needs matplotlib)")
    b.add_argument("--quiet", action="store_true", help="no progress")
    b.set_defaults(func=_cmd_tune_bot)

    p = sub.add_parser("info", help="format, provenance and completeness of a database")
    p.add_argument("--db", help=_DB_HELP)
    p.set_defaults(func=_cmd_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="matchdb: %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except MatchdbError as error:
        print(f"matchdb: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head and the like
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps Python's exit-time flush quiet
        return 0
    except KeyboardInterrupt:
        print("matchdb: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
