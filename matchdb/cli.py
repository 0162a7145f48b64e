"""The ``matchdb`` command line: a thin layer over the Python API.

Errors print one line to stderr and exit with status 2; a failed verify exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from matchdb.errors import MatchdbError

__all__ = ["main"]


def _cmd_build(args: argparse.Namespace) -> int:
    from matchdb.build import build

    report = build(
        root=args.out, flops=args.flops, workers=args.workers, scheduler=args.scheduler, serial=args.serial, quiet=args.quiet
    )
    print(report.summary())
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from matchdb.store import create_store, default_path

    path = args.out or default_path()
    create_store(path)
    print(f"store ready at {path}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from matchdb.build import parse_flop_spec
    from matchdb.store import default_path
    from matchdb.verify import verify

    path = args.path or args.db or default_path()
    report = verify(path, sample=args.sample, seed=args.seed, expected=parse_flop_spec(args.flops))
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _cmd_query(args: argparse.Namespace) -> int:
    import matchdb
    from matchdb.cards import format_cards, parse_cards

    db = matchdb.open(args.db)
    hole = format_cards(parse_cards(args.hole))
    board = format_cards(parse_cards(args.board))
    win_rate = db.win_rate(hole, board, players=args.players)
    outcome = db.outcome(hole, board, villain=args.villain)
    result = {
        "hole": hole,
        "board": board,
        "players": args.players,
        "villain": args.villain or "random",
        "win_rate": win_rate,
        "equity": outcome.equity,
        "win": outcome.win,
        "tie": outcome.tie,
        "loss": outcome.loss,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{hole} on {board}")
        print(f"  naive win rate, {args.players} players: {win_rate:.6f}")
        print(f"  exact heads-up equity vs {result['villain']}: {outcome.equity:.6f}")
        print(f"  win {outcome.win:.6f}  tie {outcome.tie:.6f}  loss {outcome.loss:.6f}")
    return 0


def _cmd_pack(args: argparse.Namespace) -> int:
    from matchdb.pack import pack
    from matchdb.store import default_path

    db = args.db or default_path()
    out = args.out or str(db).removesuffix(".zarr") + ".zip"
    print(pack(db, out, quiet=args.quiet, preflop=not args.no_preflop).summary())
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from matchdb.export import export_hdf5
    from matchdb.store import default_path

    print(export_hdf5(args.db or default_path(), args.out, quiet=args.quiet).summary())
    return 0


def _parse_players(text: str) -> list[int]:
    from matchdb.preflop import PLAYERS

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

    import matchdb

    players = _parse_players(args.players)
    rows = matchdb.open(args.db).preflop(quiet=args.quiet).rows(players)
    if args.out:
        if args.out.endswith(".json"):
            with open(args.out, "w") as handle:
                json.dump(rows, handle, indent=1)
        elif args.out.endswith(".csv"):
            with open(args.out, "w", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        else:
            raise MatchdbError(f"--out is {args.out!r}; expected a file name ending in .csv or .json.")
        print(f"wrote {len(rows)} starting hands to {args.out}")
        return 0
    header = ["hand", "equity"] + [f"win{n}" for n in players]
    print("  ".join(f"{h:>7}" for h in header))
    for row in rows:
        values = [row["equity"]] + [row[f"win_rate_{n}"] for n in players]
        print("  ".join([f"{row['hand']:>7}"] + [f"{v:7.4f}" for v in values]))
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    import matchdb
    from matchdb.service import serve

    db = matchdb.open(args.db)  # a missing or damaged database fails here, before the port opens
    print(f"matchdb: serving {db.path} ({db.info()['tables_built']} tables) on http://{args.host}:{args.port}", flush=True)
    serve(db, host=args.host, port=args.port)
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    import matchdb

    print(json.dumps(matchdb.open(args.db).info(), indent=2))
    return 0


def _parser() -> argparse.ArgumentParser:
    from importlib.metadata import version

    parser = argparse.ArgumentParser(prog="matchdb", description="The Texas Hold'em match-table database.")
    parser.add_argument("--version", action="version", version=f"matchdb {version('matchdb')}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="compute tables into a zarr store (resumes a partial build)")
    p.add_argument("--out", help="store path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--flops", help="tables to build: indices, ranges like 0-39, flops like AhTcTh; default all")
    p.add_argument("--workers", type=int, help="local Dask worker processes (default: one per core)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler to use instead of a local cluster")
    p.add_argument("--serial", action="store_true", help="compute in this process, without Dask")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_build)

    p = sub.add_parser("verify", help="check metadata, checksums and sampled entries of a database")
    p.add_argument("path", nargs="?", help="database path (same as --db)")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--sample", type=int, default=100, help="entries to recompute with the pure-Python twin")
    p.add_argument("--seed", type=int, help="seed for the sampled entries")
    p.add_argument("--flops", help="tables that must be present (same forms as build --flops); default all")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("init", help="create an empty store (what a cluster build does before its array)")
    p.add_argument("--out", help="store path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.set_defaults(func=_cmd_init)

    p = sub.add_parser("query", help="win rate and exact equity of a hand on a board")
    p.add_argument("hole", help="two hole cards, like AhKh")
    p.add_argument("board", help="three to five board cards, like 2c7dJh")
    p.add_argument("--players", type=int, default=2, help="players for the naive win rate, 2..23 (default 2)")
    p.add_argument("--villain", help="opponent range for the exact equity, like 'QQ+,AKs' (default: any hand)")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_query)

    p = sub.add_parser("pack", help="write the database as one checksummed file that opens directly")
    p.add_argument("--db", help="store folder (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--out", help="file to write (default: the store's name with .zip)")
    p.add_argument("--no-preflop", action="store_true", help="do not compute the preflop table first")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_pack)

    p = sub.add_parser("export", help="export the database to another format (HDF5)")
    p.add_argument("--format", choices=["hdf5"], default="hdf5", help="output format (hdf5)")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--out", required=True, help="file to write, like data/matchdb.h5")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("preflop", help="equity and win rates of the 169 starting hands, from the database")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--players", default="2..10", help="naive win rates to show: a number or a span like 2..10")
    p.add_argument("--out", help="write a .csv or .json file instead of printing")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_preflop)

    p = sub.add_parser("serve", help="answer queries over HTTP (needs the service extra)")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("info", help="format, provenance and completeness of a database")
    p.add_argument("--db", help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    p.set_defaults(func=_cmd_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
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
