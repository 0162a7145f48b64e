"""``matchdb library``: build a solution library (one spot on every flop), verify it, show a stored decision, report.

The library and the solver are imported inside the handlers: building the
parser stays import-light.
"""

from __future__ import annotations

import argparse
import json
import sys

from matchdb.cli.common import DB_HELP, check_numbers, check_suffix, open_db

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``library build``, ``init``, ``verify``, ``pack``, ``show``, ``report`` and ``train`` to the subcommands
    ``sub``."""
    top = sub.add_parser("library", help="a solution library: one spot solved on every flop (build, init, verify, pack, "
                                         "show, report, train)")
    commands = top.add_subparsers(dest="library_command", required=True)

    p = commands.add_parser("build", help="solve a spec on every flop (or --flops) into a library folder; resumes")
    p.add_argument("--spec", required=True, help="the spot, a TOML file like data/library/srp-100bb.toml")
    p.add_argument("--out", required=True, help="the library folder (made, or resumed when it holds the same spec)")
    p.add_argument("--flops", help="flops to solve: indices, ranges like 0-39, flops like AhTcTh; default all 1,755")
    p.add_argument("--workers", type=int, help="local Dask worker processes, one solve each (default: one per core)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler to use instead of a local cluster")
    p.add_argument("--serial", action="store_true", help="solve in this process, every core on one flop at a time")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=_build)

    p = commands.add_parser("init", help="make an empty library folder for a spec (before a SLURM array fills it)")
    p.add_argument("--spec", required=True, help="the spot, a TOML file like data/library/srp-100bb.toml")
    p.add_argument("--out", required=True, help="the library folder (made, or checked to hold the same spec)")
    p.set_defaults(func=_init)

    p = commands.add_parser("verify", help="check every stored flop and solve a sample again; exit 1 on a problem")
    p.add_argument("library", help="the library: a folder, a packed file or its URL")
    p.add_argument("--sample", type=int, default=2, help="flops drawn at random and solved again, compared byte for byte")
    p.add_argument("--seed", type=int, help="seed of the draw (default: a fresh one each run)")
    p.add_argument("--db", help=DB_HELP)
    p.set_defaults(func=_verify)

    p = commands.add_parser("pack", help="write a library folder as one file (read in place, by path or URL)")
    p.add_argument("library", help="the library folder")
    p.add_argument("--out", required=True, help="the file to write, NAME.zip (and NAME.zip.sha256 beside it)")
    p.set_defaults(func=_pack)

    p = commands.add_parser("show", help="a stored decision on a flop or turn: the range's frequencies, or one hand's")
    p.add_argument("library", help="the library: a folder, a packed file or its URL")
    p.add_argument("--board", required=True, help="a flop, like Kd7h2s (any suits: isomorphic flops share a solution), "
                   "or a flop and a turn card: the stored turn decision after --line")
    p.add_argument("--line", default="", help="actions from the flop's first decision, like 'Check, Bet 30' (default: "
                   "it); on the turn, a flop line that closes the street and then the turn's actions")
    p.add_argument("--solve", action="store_true", help="with a flop and a turn card: solve the turn after --line "
                   "(a flop line that closes the street) again from the stored ranges, deeper than the library stores")
    p.add_argument("--hand", help="one hand's frequency and EV of each action")
    p.add_argument("--db", help=DB_HELP + "; its tables are checked against the library's")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_show)

    p = commands.add_parser("report", help="every stored flop's frequencies, EV and equity at a decision, or by texture")
    p.add_argument("library", help="the library: a folder, a packed file or its URL")
    p.add_argument("--line", default="", help="actions from the flop's first decision (default: it)")
    p.add_argument("--by", choices=("suits", "pairing", "high_card", "connectedness", "made", "draws", "turn"),
                   help="one row per flop texture, or per hand category (made hand, draws) over every flop; or, with "
                        "--board, one row per turn card (--line a flop line that closes the street)")
    p.add_argument("--board", help="with --by turn: the flop (its turn decision after --line and --turn-line on every card)")
    p.add_argument("--turn-line", default="", help="with --by turn: the turn's actions before the decision (default: none)")
    p.add_argument("--db", help=DB_HELP + "; with --by turn, the equities come from it")
    p.add_argument("--out", help="write the table as CSV to this file instead of printing it")
    p.add_argument("--plot", help="also draw the mix of actions by texture or category (--by, default suits) to this .png or .svg")
    p.set_defaults(func=_report)

    p = commands.add_parser("train", help="decisions dealt from a library: pick an action, see the solution's "
                                          "frequencies and the EV lost; a summary at the end")
    p.add_argument("library", help="the library: a folder, a packed file or its URL")
    p.add_argument("--hands", type=int, default=10, help="decisions to deal (default 10; the end of input stops early)")
    p.add_argument("--player", choices=("OOP", "IP"), help="train one side (default: either)")
    p.add_argument("--seed", type=int, help="seed of the deals (default: a fresh one each run)")
    p.add_argument("--db", help=DB_HELP + "; its tables are checked against the library's")
    p.set_defaults(func=_train)


def _build(args: argparse.Namespace) -> int:
    from matchdb.library import build_library, read_spec

    check_numbers(args, (("workers", 1, 1024),))
    spec = read_spec(args.spec)
    db = open_db(args)
    report = build_library(args.out, spec, db, flops=args.flops, workers=args.workers, scheduler=args.scheduler,
                           serial=args.serial, quiet=args.quiet)
    print(report.summary())
    return 0


def _init(args: argparse.Namespace) -> int:
    from pathlib import Path

    from matchdb.library import read_spec
    from matchdb.library.store import create_library

    spec = read_spec(args.spec)
    create_library(Path(args.out), spec)
    print(f"library {args.out} ready for the spec {spec.name!r}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from matchdb.library import verify_library

    check_numbers(args, (("sample", 0, 1755), ("seed", 0, 2**63 - 1)))
    report = verify_library(args.library, open_db(args), sample=args.sample, seed=args.seed)
    for problem in report.problems:
        print(f"  {problem}")
    print(report.summary())
    return 0 if report.ok else 1


def _pack(args: argparse.Namespace) -> int:
    from matchdb.library.packed import pack_library

    check_suffix("--out", args.out, (".zip",))
    out = pack_library(args.library, args.out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) and {out}.sha256")
    return 0


def _show(args: argparse.Namespace) -> int:
    from matchdb.core.cards import parse_cards
    from matchdb.library import LibraryError, open_library

    if args.solve:
        if len(parse_cards(args.board)) != 4:
            raise LibraryError(f"--solve solves a turn; expected a flop and a turn card as --board, not {args.board!r}.")
        return _show_turn(args)
    db = open_db(args) if args.db else None
    node = open_library(args.library, db).node(args.board, args.line)
    where = f"{node.player} on {node.board} after {', '.join(node.line) or 'nothing'} (pot {node.pot})"
    if args.hand:
        figures = node.hand(args.hand)
        if args.json:
            print(json.dumps({"board": node.board, "line": list(node.line), "player": node.player, "hand": args.hand,
                              "actions": {a: {"frequency": f, "ev": ev} for a, (f, ev) in figures.items()}}))
            return 0
        print(f"{args.hand}: {where}")
        _print_mix(node.actions, [f for f, _ in figures.values()], figures)
        return 0
    frequencies = node.frequencies()
    if args.json:
        print(json.dumps({"board": node.board, "line": list(node.line), "player": node.player, "pot": node.pot,
                          "actions": node.actions, "frequencies": frequencies}))
        return 0
    print(where)
    _print_mix(node.actions, frequencies)
    return 0


def _print_mix(actions: list[str], frequencies: list[float], figures: dict[str, tuple[float, float]] | None = None) -> None:
    """Each action's frequency, and with ``figures`` (one hand's frequency and EV per action) its EV too."""
    for action, freq in zip(actions, frequencies, strict=True):
        print(f"  {action:<14} {freq:7.1%}" + (f"  EV {figures[action][1]:9.2f}" if figures is not None else ""))


def _show_turn(args: argparse.Namespace) -> int:
    """The turn after a line that closes the flop, solved again from the library's stored ranges."""
    from matchdb.core.cards import format_cards, parse_cards
    from matchdb.library import LibraryError, open_library

    solution = open_library(args.library, open_db(args)).subgame(args.board, args.line)
    node = solution.root
    if node.player is None:
        raise LibraryError(f"The turn after {args.line!r} on {args.board} holds no decision; expected chips left to bet.")
    frequencies = node.frequencies()
    figures: dict[str, tuple[float, float]] | None = None
    if args.hand:
        frame = node.to_pandas().set_index("hand")
        cards = parse_cards(args.hand)
        names = [format_cards(cards), format_cards(cards[::-1])]
        found = next((name for name in names if name in frame.index), None)
        if found is None:
            raise LibraryError(f"{names[0]} is not in {node.player}'s range on the turn {args.board} after {args.line}.")
        row = frame.loc[found]
        figures = {a: (float(row[a]), float(row[f"ev {a}"])) for a in node.actions}
    if args.json:
        out = {"board": solution.board, "line": [part.strip() for part in args.line.split(",") if part.strip()],
               "player": node.player, "pot": node.pot, "actions": node.actions, "frequencies": frequencies,
               "exploitability_pct": solution.exploitability_pct, "iterations": solution.iterations}
        if figures is not None:
            out["hand"] = {"hand": args.hand, "actions": {a: {"frequency": f, "ev": ev} for a, (f, ev) in figures.items()}}
        print(json.dumps(out))
        return 0
    print(f"{node.player} on {solution.board} after {args.line} (pot {node.pot}): the turn solved again from the stored "
          f"ranges, {solution.iterations} iterations, exploitability {solution.exploitability_pct:.3f} % of the pot")
    if figures is not None:
        _print_mix(node.actions, [f for f, _ in figures.values()], figures)
    else:
        _print_mix(node.actions, frequencies)
    return 0


def _report(args: argparse.Namespace) -> int:
    from matchdb.library import LibraryError, open_library
    from matchdb.outputs import save_text

    if args.out:
        check_suffix("--out", args.out, (".csv",))
    if args.plot:
        check_suffix("--plot", args.plot, (".png", ".svg", ".pdf"), ignore_case=True)
    if (args.by == "turn") != (args.board is not None):
        raise LibraryError("--by turn and --board go together: the turn report is of one flop; expected both or "
                           "neither.")
    if args.by == "turn":
        if args.plot:
            raise LibraryError("--plot draws a report by texture or category; the turn report (--by turn) is a table.")
        frame = open_library(args.library, open_db(args) if args.db else None).flop(args.board).turn_report(
            args.line, args.turn_line)
        if args.out:
            save_text(args.out, frame.to_csv(index=False))
            print(f"wrote {len(frame)} rows to {args.out}")
            return 0
        sys.stdout.write(frame.to_string(index=False, float_format=lambda x: f"{x:.4f}") + "\n")
        return 0
    library = open_library(args.library)
    frame = library.report(args.line, by=args.by)
    if args.plot:
        library.plot(args.line, by=args.by or "suits", out=args.plot, table=frame if args.by else None)
        print(f"drew {args.plot}")
    if args.out:
        save_text(args.out, frame.to_csv(index=args.by is not None))
        print(f"wrote {len(frame)} rows to {args.out}")
        return 0
    sys.stdout.write(frame.to_string(float_format=lambda x: f"{x:.4f}") + "\n")
    return 0


def _train(args: argparse.Namespace) -> int:
    """Deal, read a pick from the input (its number or its name; q stops), grade it; the session's summary last."""
    from matchdb.library import Trainer, open_library

    check_numbers(args, (("hands", 1, 10_000), ("seed", 0, 2**63 - 1)))
    trainer = Trainer(open_library(args.library, open_db(args) if args.db else None), seed=args.seed,
                      player=args.player)
    for k in range(args.hands):
        drill = trainer.deal()
        print(f"\n{k + 1}. {drill.text()}")
        action = None
        while action is None:
            try:
                answer = input("your pick: ").strip()
            except EOFError:
                answer = "q"
            if answer.lower() in ("q", "quit"):
                print(f"\n{trainer.summary().text()}")
                return 0
            names = {a.lower(): a for a in drill.actions}
            if answer.isdigit() and 1 <= int(answer) <= len(drill.actions):
                action = drill.actions[int(answer) - 1]
            elif answer.lower() in names:
                action = names[answer.lower()]
            else:
                print(f"expected 1 to {len(drill.actions)}, an action's name or q; got {answer[:40]!r}")
        print(trainer.answer(drill, action).text())
    print(f"\n{trainer.summary().text()}")
    return 0
