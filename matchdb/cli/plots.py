"""``matchdb plot grid|turns|distribution``: figures drawn into an image file (needs matplotlib)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from matchdb.cli.common import DB_HELP, IMAGE_SUFFIXES, check_output, open_db

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``plot`` and its kinds ``grid``, ``turns`` and ``distribution`` to the subcommands ``sub``."""
    p = sub.add_parser("plot", help="draw every hand's equity as a grid, or a hand's equity by turn card (needs matplotlib)")
    kinds = p.add_subparsers(dest="kind", required=True)
    g = kinds.add_parser("grid", help="the 13 x 13 starting-hand classes on a board as a heat map with their values")
    g.add_argument("board", help="three to five board cards, like 2c7dJh")
    g.add_argument("--villain", help="opponent range for the exact equity, like 'QQ+,AKs' (default: any hand)")
    g.add_argument("--players", type=int, help="players for the naive win rate, 2..23 (implies --figure win-rate)")
    g.add_argument("--figure", choices=("equity", "win-rate"), help="exact heads-up equity (default) or naive win rate")
    g.add_argument("--db", help=DB_HELP)
    g.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    g.set_defaults(func=_grid)
    t = kinds.add_parser("turns", help="a hand's exact equity after each possible turn card")
    t.add_argument("hole", help="two hole cards, like AhKh")
    t.add_argument("flop", help="three flop cards, like 2c7dJh")
    t.add_argument("--villain", help="opponent range, like 'QQ+,AKs' (default: any hand)")
    t.add_argument("--db", help=DB_HELP)
    t.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    t.set_defaults(func=_turns)
    d = kinds.add_parser("distribution", help="a hand's exact equity over every runout, as a histogram")
    d.add_argument("hole", help="two hole cards, like AhKh")
    d.add_argument("board", help="a flop or turn, like 2c7dJh")
    d.add_argument("--villain", help="opponent range, like 'QQ+,AKs' (default: any hand)")
    d.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    d.add_argument("--db", help=DB_HELP)
    d.add_argument("--out", required=True, help="image to write: .png, .svg or .pdf")
    d.set_defaults(func=_distribution)


def _image(args: argparse.Namespace) -> Path:
    """``--out`` checked (an image file in a writable folder that exists, outside the database), and matplotlib present."""
    from matchdb.plots import require_matplotlib

    out = check_output(args, "out", IMAGE_SUFFIXES)
    assert out is not None  # --out is required
    require_matplotlib()
    return out


def _grid(args: argparse.Namespace) -> int:
    from matchdb.plots import grid_table

    out = _image(args)
    figure = args.figure or ("win-rate" if args.players is not None else "equity")
    players = 2 if args.players is None else args.players
    table = grid_table(open_db(args), args.board, figure=figure, villain=args.villain, players=players)
    table.plot(out=out)
    print(f"drew {table.figure} of every hand on {table.board} into {out}")
    return 0


def _turns(args: argparse.Namespace) -> int:
    from matchdb.plots import plot_turns, turn_equities

    out = _image(args)
    turns = turn_equities(open_db(args), args.hole, args.flop, villain=args.villain)
    against = "random" if args.villain is None else args.villain
    title = f"{args.hole} on {args.flop} against {against}: exact equity after each turn card"
    plot_turns(turns.cards, turns.values, title=title, reference=turns.flop_equity, out=out)
    print(f"drew the exact equity of {args.hole} after each of {len(turns.cards)} turn cards into {out}")
    return 0


def _distribution(args: argparse.Namespace) -> int:
    from matchdb.answers import plural
    from matchdb.plots import plot_distribution

    out = _image(args)
    d = open_db(args).distribution(args.hole, args.board, villain=args.villain, bins=args.bins)
    title = f"{args.hole} on {args.board} against {d.villain}: exact equity over {plural(len(d.river_equities), 'runout')}"
    plot_distribution(d.river_histogram, ehs=d.ehs, title=title, out=out)
    print(f"drew the equity distribution of {args.hole} on {args.board} ({d.bins} bins) into {out}")
    return 0
