"""Commands that play: ``arena`` (bots against each other), ``tune preflop|bot`` (Tomlinson's Monte Carlo optimisation)
and ``play`` (a person against bots in the terminal, :mod:`matchdb.cli.tui`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from matchdb.cli.common import DB_HELP, IMAGE_SUFFIXES, check_numbers, check_output, names, open_db
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``arena``, ``tune`` with its kinds ``preflop`` and ``bot``, and ``play`` to the subcommands ``sub``."""
    _register_arena(sub)
    p = sub.add_parser("tune", help="Tomlinson's Monte Carlo optimisation: fit a preflop score or tune a bot")
    tune = p.add_subparsers(dest="what", required=True)
    _register_tune_preflop(tune)
    _register_tune_bot(tune)
    _register_play(sub)


def _register_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("play", help="sit at a table of bots in the terminal (a textual app); every hand kept as PHH")
    p.add_argument("--seats", type=int, default=6, help="seats at the table, 2..10, yours included")
    p.add_argument("--opponents", default="west,west-tight,west-loose,income,fives",
                   help="bots filling the other seats in turn, as arena --bots takes them (names, name:strength, "
                   "bot .json files, file.py:Class)")
    p.add_argument("--game", choices=("cash", "sng"), default="cash", help="a cash game (fixed blinds, rebuys) or a "
                   "sit-and-go (rising blinds, to one winner)")
    p.add_argument("--stack", type=int, default=1000, help="every seat's starting stack (a cash game's buy-in)")
    p.add_argument("--blinds", default="5/10", help="small/big blind of a cash game")
    p.add_argument("--ante", type=int, default=0, help="a cash game's ante")
    p.add_argument("--hands-per-level", type=int, default=10, help="a sit-and-go's hands per blind level")
    p.add_argument("--coach", action="store_true", help="show the coach: exact equity, pot odds, rate of return, "
                   "West's band, the bots' choices, and a review after each hand")
    p.add_argument("--coach-model", choices=("uniform", "dropout"), default="uniform",
                   help="the coach's opponents: random hands or West's drop-out ranges")
    p.add_argument("--seed", type=int, help="seed of the decks (the same seed deals the same cards)")
    p.add_argument("--name", default="you", help="your name in the hand histories")
    p.add_argument("--pause", type=float, default=0.6, help="seconds between the bots' actions")
    p.add_argument("--dir", help="folder of the sessions (default: 'sessions' in the user's data folder)")
    p.add_argument("--resume", metavar="ID", help="go on with a session kept in --dir (its table settings are kept)")
    p.add_argument("--setup", action="store_true", help="choose the table in a form first (seats, opponents, game, "
                   "stack, blinds, coach), starting from these options")
    p.add_argument("--db", help=DB_HELP + "; needed by bots and the coach that read hand strength")
    p.set_defaults(func=_play)


def _register_arena(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("arena", help="bots play each other: tournaments or cash sessions, with confidence intervals")
    p.add_argument("--bots", help="comma-separated bots like west,west-tight,allin,fives, each optionally with :naive, "
                   ":headsup, :exact, :exact-dropout, :montecarlo or :dropout; a bot file (.json), or your own class as "
                   "path/to/file.py:Class or module:Class (PyPokerEngine players too) (default: the articles' bots)")
    p.add_argument("--games", type=int, required=True, help="games to play (duplicate: rounded up to whole sets)")
    p.add_argument("--seats", type=int, help="seats at the table, 2..10 (default: one per bot)")
    p.add_argument("--seed", type=int, default=0, help="seed of every card and decision (default 0)")
    p.add_argument("--seeds", help="pool several seeds, like 1-5 or 1,3,7 (each plays --games); overrides --seed")
    p.add_argument("--duplicate", action="store_true", help="replay each deal under several seatings (every order "
                   "up to 4 seats, else every rotation of a random seating)")
    p.add_argument("--lenient", action="store_true", help="correct and count illegal actions of Python bots (a raise "
                   "where none is allowed, an amount off the legal range) instead of stopping; an answer that is no "
                   "action, or a bot that fails, stops the run either way")
    p.add_argument("--button", choices=("moving", "dead"), default="moving", help="the button moves to the next "
                   "player (default), or the TDA's dead button")
    p.add_argument("--short-big-blind", choices=("full", "posted"), default=None, help="when the big blind is "
                   "all-in for less, the others owe the full big blind (default, card rooms) or what it posted "
                   "(pokerkit's rule; the default with --hands-out, so that pokerkit replays every written hand)")
    p.add_argument("--mode", choices=("tournament", "cash"), default="tournament")
    p.add_argument("--hands", type=int, help="cash session length (default 200) or tournament hand cap")
    p.add_argument("--workers", type=int, default=1, help="Dask worker processes on this machine (default 1)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--tables", help="folder of decoded tables (made by --decode); default: decode lazily")
    p.add_argument("--decode", action="store_true", help="decode every table into --tables first (4.85 GB)")
    p.add_argument("--out", help="write the results to a .csv or .json file")
    p.add_argument("--hands-out", metavar="DIR", help="write every game's hands as PHH into this folder, one .phhs "
                   "file per game (made when missing; it must hold no .phhs files yet)")
    p.add_argument("--plot", help="draw the results into an image file (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_arena)


def _register_tune_preflop(tune: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    q = tune.add_parser("preflop", help="fit the preflop decision score (0-1000) to the database or to critical hands")
    q.add_argument("--db", help=DB_HELP)
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
    q.set_defaults(func=_tune_preflop)


def _register_tune_bot(tune: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    b.add_argument("--db", help=DB_HELP)
    b.add_argument("--tables", help="folder of decoded tables (matchdb arena --decode); default: decode lazily")
    b.add_argument("--name", help="the tuned bot's name (default NAME-tuned)")
    b.add_argument("--out", help="write the tuned bot to a .json file (matchdb arena --bots FILE.json plays it)")
    b.add_argument("--log", help="write the log (noise, every improvement, the held-out check) to this file")
    b.add_argument("--plot", help="draw the objective over the candidates into an image file (needs matplotlib)")
    b.add_argument("--quiet", action="store_true", help="no progress")
    b.set_defaults(func=_tune_bot)


_TUNE_BOT_BOUNDS = (("cycles", 1, 10**6), ("step", 1e-6, 1.0), ("changes", 1, 64), ("patience", 1, 10**6),
                    ("parents", 1, 1000), ("children", 1, 10_000), ("noise_sessions", 2, 1000), ("games", 1, 10**7),
                    ("seats", 2, 10), ("hands", 1, 10**6), ("chunks", 1, 10_000), ("workers", 1, 256),
                    ("seed", 0, 2**63 - 1), ("target", -1e9, 1e9))
_TUNE_PREFLOP_BOUNDS = (("cycles", 1, 10**8), ("patience", 0, 10**8), ("tolerance", 0.0, 1e6),
                        ("target_error", 0.0, 1e6), ("step", 1e-6, 1000.0), ("changes", 1, 11), ("seed", 0, 2**63 - 1))


def _arena_outputs(args: argparse.Namespace) -> None:
    """--out and --plot checked before any game is played: the right suffix, a writable folder, matplotlib."""
    for option, suffixes in (("out", (".csv", ".json")), ("plot", IMAGE_SUFFIXES)):
        check_output(args, option, suffixes)
    if args.plot:
        from matchdb.plots import require_matplotlib

        require_matplotlib()


def _arena(args: argparse.Namespace) -> int:
    import time

    from matchdb.play.arena import run_arena
    from matchdb.play.engine import Rules
    from matchdb.play.games import GameSettings

    check_numbers(args, (("games", 1, 10**8), ("seats", 2, 10), ("seed", 0, 2**32 - 1), ("hands", 1, 10**6),
                          ("workers", 1, 256)))
    _arena_outputs(args)
    hands_out = None
    if args.hands_out:
        if args.button == "dead":
            raise MatchdbError("--hands-out cannot write the dead button's hands (PHH puts the blinds on the players "
                               "after the button); use the moving button with --hands-out.")
        if args.short_big_blind == "full":
            raise MatchdbError("--hands-out with --short-big-blind full would write hands that pokerkit replays to other "
                               "stacks (it charges callers only what a short big blind posted); leave "
                               "--short-big-blind out or give posted.")
        args.short_big_blind = "posted"
        from matchdb.hands.writer import ArenaWriter
        from matchdb.storage import default_path
        from matchdb.storage.files import check_outside

        check_outside(args.hands_out, args.db or default_path())  # never into the database folder

        hands_out = ArenaWriter(args.hands_out)  # checked (made, empty of .phhs, writable) before any game
    if args.decode:
        if not args.tables:
            raise MatchdbError("--decode needs --tables, the folder to decode into.")
        from matchdb.play.strength import decode_tables

        started = time.perf_counter()
        decode_tables(open_db(args), args.tables, quiet=args.quiet)
        print(f"decoded every table into {args.tables} in {time.perf_counter() - started:.1f} s")
    hands = args.hands if args.hands is not None else (200 if args.mode == "cash" else 5000)
    settings = GameSettings(mode=args.mode, hands=hands, stack=1500 if args.mode == "tournament" else 2000,
                            rules=Rules(short_big_blind=args.short_big_blind or "full", button=args.button))
    result = run_arena(
        args.bots, games=args.games, seats=args.seats, seed=args.seed, seeds=args.seeds, duplicate=args.duplicate,
        settings=settings, workers=args.workers, source=_table_source(args), lenient=args.lenient,
        progress=False if args.quiet else None, hands_out=hands_out,
    )
    print(result.report())
    if hands_out is not None:
        print(f"wrote {result.settings['games']} games' hands as PHH to {args.hands_out} (played under pokerkit's "
              "short-big-blind rule, so that pokerkit replays every hand to the same stacks)")
    if args.out:
        written = result.save(args.out)
        extra = (f", {written.with_suffix('.pairs.csv')} and {written.with_suffix('.units.csv')}"
                 if written.suffix == ".csv" else "")
        print(f"wrote {written}{extra}")
    if args.plot:
        print(f"drew {result.plot(args.plot)}")
    return 0


def _tune_outputs(args: argparse.Namespace) -> TextIO | None:
    """Check --out, --log and --plot before the work starts; open the log (None when not asked for)."""
    from matchdb.storage import default_path
    from matchdb.storage.files import check_output_file

    check_output(args, "out", (".json",))
    check_output(args, "plot", IMAGE_SUFFIXES)
    if args.log:
        check_output_file(args.log, ".log", reading=args.db or default_path())
    if args.plot:
        try:
            __import__("matplotlib")
        except ImportError:
            raise MatchdbError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
    return open(args.log, "w", buffering=1) if args.log else None


def _preflop_targets(args: argparse.Namespace) -> tuple[Any, str, Any]:
    """The targets of ``tune preflop``, their description, and the database's heads-up ranking (None without one)."""
    from matchdb.play.preflop_score import preflop_targets

    if args.critical is not None:
        reference = preflop_targets(open_db(args).preflop(show_progress=not args.quiet), 1) if args.db else None
        return args.critical, "critical hands", reference
    db = open_db(args)
    table = db.preflop(show_progress=not args.quiet)
    reference = preflop_targets(table, 1)
    if args.multiway:
        figure = "exact multiway equity"
        targets = preflop_targets(db.preflop_multiway(show_progress=not args.quiet), args.opponents, args.scale)
    else:
        figure = "heads-up equity" if args.opponents == 1 else "naive win rate"
        targets = preflop_targets(table, args.opponents, args.scale)
    description = (f"the database's {figure} against {args.opponents} "
                   f"opponent{'s' if args.opponents > 1 else ''}, scaled by {args.scale}")
    return targets, description, reference


def _tune_preflop(args: argparse.Namespace) -> int:
    from matchdb.play.preflop_score import fit_preflop_score

    if not 1 <= args.opponents <= 9:
        raise MatchdbError(f"--opponents is {args.opponents}; expected 1..9 (the preflop table covers 2..10 players).")
    check_numbers(args, _TUNE_PREFLOP_BOUNDS)
    log = _tune_outputs(args)
    try:
        targets, description, reference = _preflop_targets(args)
        on_step = None if log is None else _step_logger(log)
        fit = fit_preflop_score(targets, step=args.step, max_changes=args.changes, cycles=args.cycles,
                                target_error=args.target_error, patience=args.patience or None,
                                tolerance=args.tolerance, pinned=names(args.pin), seed=args.seed,
                                progress=not args.quiet, description=description, on_step=on_step)
    finally:
        if log is not None:
            log.close()
    if reference is not None:
        from matchdb.play.preflop_score import spearman

        fit.extra["rank_correlation_headsup"] = spearman(fit.score.scores(), reference)
    print(json.dumps(fit.to_dict()) if args.json else fit.to_text(reference, "the database's heads-up equity"))
    if args.out:
        print(f"wrote {fit.save(args.out)}")
    if args.log:
        print(f"wrote {len(fit.search.steps)} kept steps to {args.log}")
    if args.plot:
        print(f"drew {fit.plot(args.plot)}")
    return 0


def _step_logger(log: TextIO) -> Callable[[Any], None]:
    """A line in ``log`` for every kept step of the preflop fit."""

    def on_step(step: Any) -> None:
        log.write(f"cycle {step.evaluation}: rms {step.loss:.2f}: {step.describe()}\n")

    return on_step


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


def _table_source(args: argparse.Namespace) -> Any:
    """The :class:`matchdb.play.sources.TableSource` of ``--db`` and ``--tables`` (None when neither is given)."""
    if args.db is None and args.tables is None:
        return None
    from matchdb.play.sources import TableSource

    return TableSource(args.db, tables=args.tables)


def _tune_config(args: argparse.Namespace) -> Any:
    """The :class:`matchdb.play.tuning.TuningConfig` that the options of ``tune bot`` give."""
    from matchdb.play.tuning import SessionConfig, TuningConfig

    sessions = SessionConfig(games=args.games, seats=args.seats, mode=args.mode, hands=args.hands, chunks=args.chunks,
                             workers=args.workers)
    return TuningConfig(objective=args.objective, target=args.target,
                        method="walk" if args.method == "both" else args.method, cycles=args.cycles, step=args.step,
                        max_changes=args.changes, pinned=names(args.pin), bounds=_bounds(args.bound),
                        patience=args.patience, hone=not args.no_hone, parents=args.parents, children=args.children,
                        noise_sessions=args.noise_sessions, seed=args.seed, name=args.name, sessions=sessions)


def _tune_bot(args: argparse.Namespace) -> int:
    from matchdb.play.tuning import compare_methods, tune_bot

    check_numbers(args, _TUNE_BOT_BOUNDS)
    config = _tune_config(args)
    log = _tune_outputs(args)
    options: dict[str, Any] = {"source": _table_source(args), "progress": not args.quiet,
                               "log": None if log is None else (lambda line: log.write(line + "\n"))}
    try:
        if args.method == "both":
            comparison = compare_methods(args.bot, args.field, config, **options)
            result = max(comparison.results.values(), key=lambda r: r.improvement.mean)
            print(comparison.summary())
        else:
            result = tune_bot(args.bot, args.field, config, **options)
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


def _play_table(args: argparse.Namespace) -> Any:
    """The :class:`matchdb.human.TableConfig` of ``play``'s options (each refused in one sentence)."""
    from matchdb.human import TableConfig

    small, slash, big = args.blinds.partition("/")
    if not slash or not small.strip().isdigit() or not big.strip().isdigit():
        raise MatchdbError(f"--blinds is {args.blinds!r}; expected SMALL/BIG in whole chips, like 5/10.")
    return TableConfig(seats=args.seats, opponents=args.opponents, game=args.game, stack=args.stack,
                       small_blind=int(small), big_blind=int(big), ante=args.ante,
                       hands_per_level=args.hands_per_level, coach=args.coach, coach_model=args.coach_model,
                       seed=args.seed, name=args.name)


def _play(args: argparse.Namespace) -> int:
    from pathlib import Path

    from matchdb.human import Session

    check_numbers(args, (("pause", 0.0, 60.0),))
    try:
        from matchdb.cli.tui import PlayApp, SetupApp
    except ImportError:
        raise MatchdbError("matchdb play needs textual (the play extra); install it with "
                           "python3 -m pip install -e '.[play]' in matchdb's checkout, or pip install textual.") from None
    if args.dir:
        directory = Path(args.dir)
    else:
        from platformdirs import user_data_path

        directory = user_data_path("matchdb") / "sessions"
    if args.resume:
        session = Session.resume(args.resume, directory, db=args.db)
    else:
        config = _play_table(args)
        if args.setup:
            chosen = SetupApp(config).run()
            if chosen is None:
                print("no table chosen")
                return 0
            config = chosen
        directory.mkdir(parents=True, exist_ok=True)
        session = Session.new(config, db=args.db, directory=directory)
    summary = PlayApp(session, pause=args.pause).run()
    if summary is None:
        summary = session.summary()
    net = summary["net"][0]
    hands = summary["hands"]
    print(f"session {summary['id']}: {hands} hand{'' if hands == 1 else 's'}, you {net:+d} chips "
          f"({summary['net_big_blinds'][0]:+.1f} big blinds); hands in {summary['history']}")
    if session.config.coach and summary["hands"]:
        from matchdb.cli.tui import report_lines
        from matchdb.human.coach import session_report

        print("the session's players (all-in adjusted results, from its hand history):")
        print("\n".join(report_lines(session_report(session.history_path, session.source.db if session.source
                                                     else None))))
    if not summary["over"]:
        print(f"go on with: matchdb play --resume {summary['id']} --dir {directory}")
    return 0
