"""The interface a bot implements, and the error a wrong bot raises: what the built-in bots and the adapters share.

A bot is any object with ``act(view) -> (kind, amount)`` and a ``name``;
:class:`Bot` is the base class that gives a Python bot the optional
callbacks. :mod:`matchdb.play.bots` (the built-in bots, re-exported there)
and :mod:`matchdb.play.adapters` (other frameworks' players) both build on it.
"""

from __future__ import annotations

from typing import Any

from matchdb.errors import MatchdbError
from matchdb.play.engine import GameStart, HandResult, View

__all__ = ["Bot", "BotError"]


class BotError(MatchdbError):
    """A bot was named or configured wrongly."""


class Bot:
    """Base class for bots written in Python: give it a ``name`` and implement :meth:`act`.

    >>> from matchdb.play.engine import CALL
    >>> class Checker(Bot):
    ...     name = "checker"
    ...     def act(self, view):
    ...         return CALL, 0
    >>> Checker().native() is None
    True
    """

    name = "bot"

    def act(self, view: View) -> tuple[int, int]:
        """Answer ``(kind, amount)``: FOLD, CALL (check or call) or RAISE to ``amount``."""
        raise NotImplementedError

    def native(self) -> tuple[Any, ...] | None:
        """The compiled loop's description of this bot, or None when only Python can play it."""
        return None

    def on_game_start(self, start: GameStart) -> None:
        """Called before each game's first hand with its seat, the seats' names and the blinds (override it to reset
        what a bot keeps per game).

        ``start`` is a :class:`matchdb.play.engine.GameStart`. The same bot
        object plays every game of a run, seated anew for each, so a bot
        that keeps state per game resets it here. A bot that overrides this
        plays in the Python loop.
        """

    def on_hand_end(self, result: HandResult) -> None:
        """Called after every hand the bot was dealt into, with what it may learn (override it to model opponents).

        ``result`` (:class:`matchdb.play.engine.HandResult`) holds the
        actions, the cards shown at the showdown, each seat's result and the
        seats' names. A bot that overrides this plays in the Python loop.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
