"""Commands that ask the database a question: ``query``, ``grid``, ``distribution``, ``report`` and ``preflop``.

Heavy modules are imported inside the handlers: ``matchdb query`` answers one
question through numpy before numba would have loaded.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from matchdb.cli.common import DB_HELP, PERCENT_HELP, check_numbers, check_output, check_percent, open_db, render
from matchdb.equity.checks import MAX_SAMPLES, SAMPLES_HELP
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from matchdb.answers.preflop import PreflopMultiway, PreflopTable

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``query``, ``grid``, ``distribution``, ``report`` and ``preflop`` to the subcommands ``sub``."""
    p = sub.add_parser("query", help="win rate and exact equity of a hand or a range on a board, or preflop")
    p.add_argument("hole", help="two hole cards, like AhKh, or the hero's range, like 'QQ+,AKs' or '15%%' (its exact win, "
                   "tie and loss)")
    p.add_argument("board", nargs="?", default="",
                   help="three to five board cards, like 2c7dJh; none (or '') asks before the flop")
    p.add_argument("--players", type=int, default=2, help="players for the naive win rate of a hand, 2..23 (default 2)")
    p.add_argument("--villain", action="append", help="an opponent's range, hand or 'random', like 'QQ+,AKs' "
                   "(default: one random opponent); repeat it for more opponents")
    p.add_argument("--opponents", type=int, help="this many random opponents (beside any --villain): a multiway answer "
                   "(default none beside the villains)")
    p.add_argument("--method", choices=("auto", "exact", "sample", "independent"), default="auto",
                   help="multiway: exact when affordable (auto), exact, sampled, or the article's independent formula")
    p.add_argument("--samples", type=int, help=f"multiway: {SAMPLES_HELP}")
    p.add_argument("--seed", type=int, help="multiway: seed of a sampled answer (default: a fresh one, printed with the answer)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--percent", action="store_true", help=PERCENT_HELP)
    p.set_defaults(func=_query)

    p = sub.add_parser("grid", help="every starting hand's exact equity (or naive win rate) on a board, as a 13 x 13 grid")
    p.add_argument("board", help="three to five board cards, like 2c7dJh")
    p.add_argument("--villain", help="opponent range for the exact equity, like 'QQ+,AKs' (default: any hand)")
    p.add_argument("--players", type=int, help="players for the naive win rate, 2..23 (default: the exact heads-up equity)")
    p.add_argument("--colour", choices=("auto", "always", "never"), default="auto",
                   help="colour the cells, red below the fair share and green above (auto: on a terminal, unless NO_COLOR is set)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object: board, figure and the grid (null where no hand is possible)")
    p.set_defaults(func=_grid)

    p = sub.add_parser("distribution", help="how a hand's equity moves on the turn and river: EHS, EHS^2, potential")
    p.add_argument("hole", help="two hole cards, like AhKh")
    p.add_argument("board", help="a flop or turn, like 2c7dJh")
    p.add_argument("--villain", help="opponent range (default: any hand)")
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--percent", action="store_true", help=PERCENT_HELP)
    p.set_defaults(func=_distribution)

    p = sub.add_parser("report", help="a range's equity and hits over all 22,100 flops, by texture")
    p.add_argument("hero", help="the hero's range, like 'QQ+,AKs'")
    p.add_argument("--villain", help="the villain's range (default: any hand)")
    p.add_argument("--sort", default="equity", help="sort the flops by this column (default equity)")
    p.add_argument("--out", help="write every flop and the texture aggregates to a .csv or .json file")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_report)

    p = sub.add_parser("preflop", help="equity and win rates of the 169 starting hands, from the database")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--players", default="2..10", help="naive win rates to show: a number or a span like 2..10")
    p.add_argument("--multiway", action="store_true", help="equity against 1 to 9 random opponents instead "
                   "(computed once, about 4 minutes on 2 cores, then kept in the store)")
    p.add_argument("--out", help="write a .csv or .json file instead of printing")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_preflop)


def _query(args: argparse.Namespace) -> int:
    from matchdb.db.query import open as open_database
    from matchdb.db.query import opponent_list

    check_numbers(args, (("opponents", 0, 9), ("samples", 1, MAX_SAMPLES), ("seed", 0, 2**63 - 1)))
    check_percent(args)
    villains = args.villain or []
    if args.opponents == 0 and not villains:
        raise MatchdbError("--opponents is 0 and no --villain is given; expected at least one opponent.")
    if args.opponents is None and len(villains) <= 1 and not _is_hand(args.hole):
        if args.players != 2:
            raise MatchdbError(f"--players {args.players} sets the naive win rate of one hand; a hero range has its exact "
                               "heads-up equity only (or ask several --villain for a multiway answer).")
        render(open_database(args.db).range_outcome(args.hole, villains[0] if villains else None, args.board), args.json,
               args.percent)
        return 0
    if args.opponents is None and len(villains) <= 1:
        db = open_database(args.db, jit=False)  # one question: numpy answers it before numba would have loaded
        render(db.report(args.hole, args.board, players=args.players, villain=villains[0] if villains else None), args.json,
               args.percent)
        return 0
    answer = open_database(args.db).multiway(
        args.hole, args.board, opponent_list(villains, args.opponents), method=args.method, samples=args.samples, seed=args.seed
    )
    render(answer, args.json, args.percent)
    return 0


def _is_hand(text: str) -> bool:
    """Whether the hero goes the way of a hand (two cards, or a mistyped hand, whose error names the cards) rather
    than of a range (text with range syntax, or that reads as a range)."""
    from matchdb.core.cards import parse_cards
    from matchdb.core.ranges import range_weights

    try:
        parse_cards(text)
        return True
    except MatchdbError:
        pass
    if any(c in text for c in ",+-%()"):
        return False
    try:
        range_weights(text)
        return False
    except MatchdbError:
        return True


def _grid(args: argparse.Namespace) -> int:
    import os
    import sys

    from matchdb.answers import grid_text, plain
    from matchdb.plots import grid_table

    figure = "equity" if args.players is None else "win-rate"
    table = grid_table(open_db(args), args.board, figure=figure, villain=args.villain,
                       players=2 if args.players is None else args.players)
    if args.json:
        print(json.dumps({"board": table.board, "figure": table.figure, "grid": plain(table.grid())}))
        return 0
    colour = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    print(grid_text(table.grid(), f"{table.figure} of every hand on {table.board}", table.center(), colour=colour))
    return 0


def _distribution(args: argparse.Namespace) -> int:
    check_percent(args)
    render(open_db(args).distribution(args.hole, args.board, villain=args.villain, bins=args.bins), args.json, args.percent)
    return 0


def _report(args: argparse.Namespace) -> int:
    from matchdb.equity.reports import report

    check_output(args, "out", (".csv", ".json"))
    _check_sort(args.sort)
    result = report(open_db(args), args.hero, args.villain, quiet=args.quiet)
    if args.out:
        result.to_json(args.out) if args.out.endswith(".json") else result.to_csv(args.out, sort=args.sort)
        print(result.summary())
        print(f"wrote {result.total_flops:,} flops' figures to {args.out}")
        return 0
    render(result, args.json)
    return 0


def _check_sort(column: str) -> None:
    """Refuse a ``report --sort`` column that the flops' rows do not have, before the report's work starts."""
    import difflib

    from matchdb.equity.reports import HITS, TEXTURES

    columns = ("flop", "index", "count", "equity", "frequency", *HITS, *TEXTURES)
    if column not in columns:
        close = difflib.get_close_matches(column, columns, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise MatchdbError(f"--sort is {column!r}; {hint}expected one of {', '.join(columns)}.")


def _parse_players(text: str) -> list[int]:
    from matchdb.equity.preflop import PLAYERS

    low, _, high = text.partition("..")
    try:
        first, last = int(low), int(high or low)
    except ValueError:
        raise MatchdbError(f"--players is {text[:40]!r}; expected a number or a span like 2..10.") from None
    if first not in PLAYERS or last not in PLAYERS or first > last:  # checked before a list is made of the span
        raise MatchdbError(f"--players is {text[:40]!r}; preflop win rates cover 2..10 players, expected a span inside it.")
    return list(range(first, last + 1))


def _preflop(args: argparse.Namespace) -> int:
    import csv
    import io

    players = _parse_players(args.players)
    out = check_output(args, "out", (".csv", ".json"))
    table: PreflopTable | PreflopMultiway
    if args.multiway:
        table = open_db(args).preflop_multiway(show_progress=not args.quiet)
    else:
        table = open_db(args).preflop(players=players, show_progress=not args.quiet)
    if out is None:
        render(table, args.json)
        return 0
    from matchdb.outputs import save_text

    rows = table.rows()
    if out.suffix == ".json":
        save_text(out, json.dumps(rows, indent=1))
    else:
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        save_text(out, buffer.getvalue())
    print(f"wrote {len(rows)} starting hands to {out}")
    return 0
