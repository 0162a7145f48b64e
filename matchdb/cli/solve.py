"""``matchdb solve``: the exact heads-up postflop solver over the Python API (:meth:`matchdb.MatchDB.solve`).

The solver (numba) is imported inside the handler: building the parser stays
import-light.
"""

from __future__ import annotations

import argparse

from matchdb.cli.common import DB_HELP, check_numbers, check_suffix, open_db

__all__ = ["register"]

_SIZES = "sizes like '33%%, 75%%, a' (%% of the pot, Nx the last bet, Nc chips, e geometric, a all-in)"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``solve`` to the subcommands ``sub``."""
    p = sub.add_parser("solve", help="solve a heads-up postflop spot exactly (Discounted CFR on the match tables)")
    p.add_argument("--oop", required=True, help="the out-of-position player's range, like 'QQ+,AKs' or 'AA:0.5,KK'")
    p.add_argument("--ip", required=True, help="the in-position player's range")
    p.add_argument("--board", required=True, help="a flop, turn or river, like Td9d6h or Td9d6hQc")
    p.add_argument("--pot", required=True, type=int, help="the starting pot, in whole chips")
    p.add_argument("--stack", required=True, type=int, help="the effective stack, in whole chips")
    p.add_argument("--bet", default="", help=f"bet {_SIZES}, every street (default none)")
    p.add_argument("--raise", dest="raise_", default="", help="raise sizes, every street, like '2.5x' (default none)")
    for street in ("flop", "turn", "river"):
        p.add_argument(f"--{street}-bet", help=f"bet sizes on the {street} (default --bet)")
        p.add_argument(f"--{street}-raise", help=f"raise sizes on the {street} (default --raise)")
    p.add_argument("--donk", help="OOP's donk sizes on the turn and river after calling (default: OOP's bet sizes)")
    p.add_argument("--turn-donk", help="OOP's donk sizes on the turn (default --donk)")
    p.add_argument("--river-donk", help="OOP's donk sizes on the river (default --donk)")
    p.add_argument("--rake", type=float, default=0.0, help="rake as a share of the pot, 0..1 (default 0)")
    p.add_argument("--rake-cap", type=float, default=0.0, help="most rake per pot, in chips (0: no rake) (default 0)")
    p.add_argument("--target", type=float, default=0.5, help="exploitability to reach, in %% of the pot (default 0.5)")
    p.add_argument("--max-iterations", type=int, default=1000, help="most iterations (default 1000)")
    p.add_argument("--add-allin", type=float, default=1.5, help="add all-in when it is at most this many pots (default 1.5)")
    p.add_argument("--force-allin", type=float, default=0.15,
                   help="make a bet all-in when the stack-to-pot ratio after a call is at most this (default 0.15)")
    p.add_argument("--merge", type=float, default=0.1, help="merge bet sizes closer than this share (default 0.1)")
    p.add_argument("--compressed", action="store_true", help="keep the numbers in 16 bits (half the memory)")
    p.add_argument("--max-memory", type=float, help="refuse a tree over this many GB before allocating it "
                   "(default 80%% of the memory available)")
    p.add_argument("--threads", type=int, help="threads (default: numba's, every core)")
    p.add_argument("--save", help="write the solution to this .npz file (matchdb.solver.load reads it)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object: exploitability (chips), oop_equity, "
                   "oop_ev, ip_ev, iterations, seconds, root actions and OOP's frequencies, ...")
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_solve)


def _by_street(args: argparse.Namespace, what: str) -> str | dict[str, str]:
    everywhere = getattr(args, what) or ""
    streets = {s: getattr(args, f"{s}_{what.rstrip('_')}") for s in ("flop", "turn", "river")}
    if all(v is None for v in streets.values()):
        return everywhere
    return {s: everywhere if v is None else v for s, v in streets.items()}


def _solve(args: argparse.Namespace) -> int:
    import json

    check_numbers(args, (("target", 0.0, 100.0), ("max_iterations", 0, 1_000_000), ("rake", 0.0, 1.0),
                         ("rake_cap", 0.0, 1e12), ("max_memory", 1e-6, 1e6), ("threads", 1, 1024)))
    if args.save:
        check_suffix("--save", args.save, (".npz",))
    donk = None
    if args.donk is not None or args.turn_donk is not None or args.river_donk is not None:
        donk = {"turn": args.turn_donk if args.turn_donk is not None else args.donk,
                "river": args.river_donk if args.river_donk is not None else args.donk}
    db = open_db(args)
    solution = db.solve(
        args.oop, args.ip, args.board, args.pot, args.stack, _by_street(args, "bet"), _by_street(args, "raise_"),
        donk=donk, rake=args.rake, rake_cap=args.rake_cap, target=args.target, max_iterations=args.max_iterations,
        add_allin=args.add_allin, force_allin=args.force_allin, merge=args.merge, compressed=args.compressed,
        max_memory=None if args.max_memory is None else int(args.max_memory * 1e9), threads=args.threads,
        show_progress=not args.quiet,
    )
    if args.save:
        solution.save(args.save)
    print(json.dumps(solution.to_dict()) if args.json else solution.to_text())
    return 0
