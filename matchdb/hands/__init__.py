"""Real hands: read PHH and site histories, replay them through matchdb's engine, analyse and learn from them.

``matchdb.hands.read(path)`` reads, :func:`replay` replays every hand exactly
through :mod:`matchdb.play.engine`, :func:`analyse` gives each player's
statistics and every decision's exact equity with the database, :func:`fit`
fits a bot that plays like a chosen player, and :func:`write` writes hands
(an arena's, say) as PHH with pokerkit's writer. The guide is
``docs/guide/hands.md``.
"""

from __future__ import annotations

from matchdb.hands.reader import HandsError, HandStream, Record, Refusal, read, read_text

__all__ = ["HandsError", "HandStream", "Record", "Refusal", "read", "read_text"]
