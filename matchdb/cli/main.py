"""The ``matchdb`` command line: it parses arguments, calls the Python API and renders its answers.

Each command group is a module of this package with a ``register(subparsers)``
function that adds its commands and their handlers: :mod:`~matchdb.cli.database`
(build, init, verify, pack, export, abstraction, info), :mod:`~matchdb.cli.questions`
(query, distribution, report, preflop), :mod:`~matchdb.cli.solve` (solve),
:mod:`~matchdb.cli.library` (library build, verify, pack, show, report), :mod:`~matchdb.cli.plots` (plot),
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

A mistyped command or option is refused by argparse (exit status 2) with a
suggestion: ``matchdb qurey`` says "did you mean 'query'?", ``matchdb query
AhKh 2c7dJh --villian QQ+`` shows the usage of ``query`` and "did you mean
'--villain'?". Every option's help names its default.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from matchdb.cli import database, hands, library, play, plots, questions, serve, solve
from matchdb.errors import MatchdbError

__all__ = ["main", "parser"]

#: The command groups, in the order ``matchdb --help`` lists their commands.
_GROUPS = (database, questions, solve, library, plots, play, hands, serve)


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help names its default: " (default X)" is added where the help does not already say it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        default = action.default
        if (
            "default" in help_text
            or default in (None, False, argparse.SUPPRESS)
            or not action.option_strings
            or action.nargs == 0
        ):
            return action.help
        shown = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        return f"{help_text} (default {shown.replace('%', '%%')})"


class _Parser(argparse.ArgumentParser):
    """argparse with suggestions: a mistyped command, choice or option gets "did you mean ...?" (difflib)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """argparse's, but an option with a default and no help gets one (its choices), so its default is shown."""
        if kwargs.get("help") is None and kwargs.get("default") not in (None, False) and args and args[0].startswith("-"):
            choices = kwargs.get("choices")
            kwargs["help"] = f"one of {', '.join(map(str, choices))}" if choices else "the value"
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            known = re.findall(r"'([^']*)'", choice.group(2)) or [c.strip() for c in choice.group(2).split(",")]
            message += _suggestion(choice.group(1), known)
        super().error(message)

    def parse_args(  # type: ignore[override]  # one signature for typeshed's overloads: this parser never takes a namespace
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Like argparse's, but an unknown option is refused by the (sub)command it was given to, with a suggestion."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = _innermost(self, parsed)
            unknown = next((e for e in extras if e.startswith("-")), extras[0])
            options = [o for action in command._actions for o in action.option_strings if o.startswith("--")]
            command.error(f"unrecognized arguments: {' '.join(extras)}" + _suggestion(unknown.split("=")[0], options))
        return parsed


def _suggestion(wrong: str, known: list[str]) -> str:
    """'; did you mean X?' for the closest of ``known`` to ``wrong`` (empty when none is close)."""
    close = difflib.get_close_matches(wrong, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _innermost(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser that ``parsed`` reached: ``matchdb plot grid`` is the ``grid`` parser."""
    while True:
        chosen = None
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
        if chosen is None:
            return parser
        parser = chosen


class _Version(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata costs 15 ms a start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: str | Sequence[Any] | None,
                 option_string: str | None = None) -> None:
        from importlib.metadata import version

        parser.exit(message=f"matchdb {version('matchdb')}\n")


def parser() -> argparse.ArgumentParser:
    """The ``matchdb`` argument parser, its subcommands added by each command group.

    >>> parser().parse_args(["query", "AhKh", "2c7dJh", "--players", "3"]).players
    3
    """
    top = _Parser(prog="matchdb", description="The Texas Hold'em match-table database.")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True)
    for group in _GROUPS:
        group.register(sub)
    return top


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes each record to whatever ``sys.stderr`` is when it is logged (as logging's own last-resort handler
    does), so a handler set up by one call of :func:`main` never writes into a stream that was replaced since."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("matchdb: %(message)s"))

    @property
    def stream(self) -> TextIO:  # a property over StreamHandler's attribute
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # StreamHandler's __init__ sets it; ignored
        pass


def _log_to_stderr() -> None:
    """Send matchdb's own progress and notes to stderr, each line ``matchdb: ...``.

    Only the ``matchdb`` logger is set to INFO: the root logger keeps Python's default (warnings only), so
    libraries' informational messages (matplotlib's "generated new fontManager" on its first use in a new
    HOME, say) are not printed as if they were matchdb's. The logger still propagates, so whatever a caller
    set up on the root logger (pytest's log capture, say) keeps seeing matchdb's records after a call.
    """
    logger = logging.getLogger("matchdb")
    if not any(isinstance(handler, _StderrHandler) for handler in logger.handlers):
        logger.addHandler(_StderrHandler())
    logger.setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit status.

    0 on success, 1 when ``verify`` finds a fault, 2 on bad input (one line on
    stderr), 130 when interrupted.
    """
    args = parser().parse_args(argv)
    _log_to_stderr()
    try:
        status: int = args.func(args)
        return status
    except MatchdbError as error:
        print(f"matchdb: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head and the like
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps Python's exit-time flush quiet
        return 0
    except OSError as error:
        import errno

        if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        where = f" writing '{error.filename}'" if error.filename else ""
        print(f"matchdb: the disk is full or the file too large ({error.strerror}){where}; free space and run again.",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("matchdb: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
