"""A person at the table: sessions against the articles' bots, kept as PHH, with a coach.

:class:`Session` deals hands through :mod:`matchdb.play.engine` between one
person (seat 0) and bots (any :func:`matchdb.play.bots.make_bot` spec), keeps
every finished hand in the session's PHH file and a small JSON state so a
session resumes where it was left, and shows the person only what a player at
a real table sees (:meth:`Session.view`). :mod:`matchdb.human.coach` gives
the coach's figures. The guide is ``docs/guide/play.md``.
"""

from __future__ import annotations

from matchdb.human.session import GAMES, HUMAN_SEAT, Session, SessionError, TableConfig

__all__ = ["GAMES", "HUMAN_SEAT", "Session", "SessionError", "TableConfig"]
