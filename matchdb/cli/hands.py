"""``matchdb hands read|replay|analyse|fit``: real hand histories from the command line.

:func:`register` adds the commands to the ``matchdb`` parser; each handler
calls :mod:`matchdb.hands` and prints its answer as text or, with
``--json``, JSON. Errors are :class:`matchdb.errors.MatchdbError` sentences
(exit status 2, printed by ``matchdb``'s main).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchdb.cli.common import IMAGE_SUFFIXES, check_numbers, check_output
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from matchdb.hands.reader import Record

__all__ = ["register"]

_DB_HELP = "database path (default $MATCHDB_PATH, else matchdb.zarr in the user's data folder)"
_SOURCES_HELP = ".phh/.phhs files, folders of them, or raw site histories"
_SITES = ("pokerstars", "fulltilt", "absolute", "ipoker", "ongame", "partypoker")


def register(subparsers: Any) -> None:
    """Add ``hands`` and its commands to the ``matchdb`` subparsers."""
    p = subparsers.add_parser("hands", help="real hand histories (PHH, site logs): read, replay, analyse, fit a bot")
    kinds = p.add_subparsers(dest="hands_command", required=True)

    r = kinds.add_parser("read", help="read hand histories and say what was read and what was refused, and why")
    _sources(r)
    r.add_argument("--show", type=int, default=0, help="print the first SHOW hands read (default 0)")
    r.set_defaults(func=_cmd_read)

    r = kinds.add_parser("replay", help="replay every hand through matchdb's engine: identical, raked or refused")
    _sources(r)
    r.add_argument("--workers", type=int, default=1, help="Dask worker processes, one file at a time each (default 1)")
    r.set_defaults(func=_cmd_replay)

    a = kinds.add_parser("analyse", help="players' statistics, all-in adjusted results, decisions with exact equity")
    _sources(a)
    a.add_argument("--db", help=_DB_HELP + "; used for heads-up post-flop all-ins and --decisions")
    a.add_argument("--no-db", action="store_true", help="do not open the database (all-ins enumerated, no decisions)")
    a.add_argument("--decisions", action="store_true", help="every decision of players with shown cards: equity, "
                   "pot odds, rate of return (needs the database)")
    a.add_argument("--range", default="random", help="range assumed for opponents whose cards are not shown "
                   "(default random)")
    a.add_argument("--min-hands", type=int, default=1, help="list players with at least this many hands (default 1)")
    a.add_argument("--csv", help="write the players (or with --decisions also DECISIONS.csv) to this .csv file")
    a.add_argument("--plot", help="draw --player's cumulative winnings and the all-in adjusted line to this image")
    a.add_argument("--player", help="the player --plot draws")
    a.set_defaults(func=_cmd_analyse)

    f = kinds.add_parser("fit", help="fit West's bot to play like a player; save it as a bot file the arena plays")
    _sources(f)
    f.add_argument("--player", required=True, help="the player's name as the histories give it")
    f.add_argument("--db", help=_DB_HELP)
    f.add_argument("--holdout", type=int, default=4, help="every HOLDOUT-th hand is held out (default 4; 0: none)")
    f.add_argument("--candidates", type=int, default=64, help="hidden-card hands averaged over (default 64)")
    f.add_argument("--cycles", type=int, default=600, help="random-walk candidates (default 600)")
    f.add_argument("--seed", type=int, default=0, help="seed of the candidates and the walk (default 0)")
    f.add_argument("--name", help="the fitted bot's name (default fitted-PLAYER)")
    f.add_argument("--out", help="write the bot to this .json file (matchdb arena --bots FILE.json,... plays it)")
    f.set_defaults(func=_cmd_fit)


def _sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="+", help=_SOURCES_HELP)
    p.add_argument("--site", choices=_SITES, help="read the files as raw histories of this site")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _cmd_read(args: argparse.Namespace) -> int:
    from matchdb.hands import read

    stream = read(args.sources, site=args.site)
    shown: list[Record] = []
    count = 0
    for record in stream:
        count += 1
        if len(shown) < args.show:
            shown.append(record)
    refused: dict[str, int] = {}
    for refusal in stream.refused:
        refused[refusal.reason] = refused.get(refusal.reason, 0) + 1
    if args.json:
        print(json.dumps({"read": stream.read, "records": count, "refused": refused,
                          "refusals": [r.message for r in stream.refused],
                          "hands": [{"hand": r.label, "players": list(r.players), "actions": list(r.actions)}
                                    for r in shown]}))
        return 0
    summary = ", ".join(f"{n} {reason}" for reason, n in sorted(refused.items())) or "none"
    print(f"read {stream.read} hands: {count} no-limit hold'em records, refused {len(stream.refused)} ({summary})")
    for refusal in stream.refused[:50]:
        print(f"  {refusal.message}")
    for record in shown:
        print(f"{record.label}: {record.size} players, blinds {[str(record.amount(b)) for b in record.blinds]}, "
              f"{len(record.actions)} actions")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from matchdb.hands import replay, replay_files

    if args.workers > 1:
        report = replay_files(args.sources, site=args.site, workers=args.workers, show_progress=not args.quiet)
    else:
        report = replay(args.sources, site=args.site, show_progress=not args.quiet)
    print(json.dumps(report.to_dict()) if args.json else report.to_text())
    return 0


def _cmd_analyse(args: argparse.Namespace) -> int:
    from matchdb.hands import analyse

    if args.plot and not args.player:
        raise MatchdbError("--plot draws one player's winnings; name them with --player.")
    check_output(args, "plot", IMAGE_SUFFIXES)
    check_output(args, "csv", (".csv",))
    db = None
    if not args.no_db:
        from matchdb.db.query import open as open_database

        try:
            db = open_database(args.db)
        except MatchdbError:
            if args.decisions or args.db:
                raise
            db = None  # no database: all-ins are enumerated instead
    result = analyse(args.sources, db, decisions=args.decisions, opponent_range=args.range,
                     track=[args.player] if args.player else (), site=args.site, show_progress=not args.quiet)
    if args.csv:
        from matchdb.outputs import save_text

        save_text(args.csv, result.to_csv(args.min_hands))
        if args.decisions:
            save_text(Path(args.csv).with_name(Path(args.csv).stem + "-decisions.csv"), result.to_csv(decisions=True))
    if args.plot:
        result.plot(args.player, out=args.plot)
    print(result.to_json(args.min_hands) if args.json else result.to_text(args.min_hands))
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    from matchdb.db.query import open as open_database
    from matchdb.hands import fit

    check_numbers(args, (("candidates", 1, 100_000), ("cycles", 1, 10**7), ("holdout", 0, 10**9), ("seed", 0, 2**63 - 1)))
    check_output(args, "out", (".json",))
    result = fit(args.sources, args.player, open_database(args.db), holdout=args.holdout, candidates=args.candidates,
                 cycles=args.cycles, seed=args.seed, name=args.name, show_progress=not args.quiet)
    if args.out:
        result.save(args.out)
    print(json.dumps(result.to_dict()) if args.json else result.to_text())
    return 0
