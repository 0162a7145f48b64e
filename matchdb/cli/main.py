"""The ``matchdb`` command line: it parses arguments, calls the Python API and renders its answers.

Each command group is a module of this package with a ``register(subparsers)``
function that adds its commands and their handlers: :mod:`~matchdb.cli.database`
(build, init, verify, pack, export, abstraction, info), :mod:`~matchdb.cli.questions`
(query, distribution, report, preflop), :mod:`~matchdb.cli.plots` (plot),
:mod:`~matchdb.cli.play` (arena, tune) and :mod:`~matchdb.cli.serve` (serve).

Every answer prints as its ``to_text()`` or, with ``--json``, its ``to_dict()``.
Errors print one line to stderr and exit with status 2; a failed verify exits 1.
Long work shows a progress bar on a terminal and a log line every few
seconds otherwise.

>>> main(["query", "AhKh", "2c7dJh", "--villain", "QQ+,AKs"])
AhKh on 2c7dJh
  naive win rate, 2 players: 0.580707
  exact heads-up equity vs QQ+,AKs: 0.266566
  win 0.174141  tie 0.184848  loss 0.641010
0
>>> main(["query", "AhKh", "2c7dJh2c"])  # bad input: one line on stderr, exit status 2
2
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from matchdb.cli import database, play, plots, questions, serve
from matchdb.errors import MatchdbError

__all__ = ["main", "parser"]

#: The command groups, in the order ``matchdb --help`` lists their commands.
_GROUPS = (database, questions, plots, play, serve)


class _Version(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata costs 15 ms a start)."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import version

        parser.exit(message=f"matchdb {version('matchdb')}\n")


def parser() -> argparse.ArgumentParser:
    """The ``matchdb`` argument parser, its subcommands added by each command group.

    >>> parser().parse_args(["query", "AhKh", "2c7dJh", "--players", "3"]).players
    3
    """
    top = argparse.ArgumentParser(prog="matchdb", description="The Texas Hold'em match-table database.")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True)
    for group in _GROUPS:
        group.register(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit status.

    0 on success, 1 when ``verify`` finds a fault, 2 on bad input (one line on
    stderr), 130 when interrupted.
    """
    args = parser().parse_args(argv)
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
