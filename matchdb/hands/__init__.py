"""Real hands: read PHH and site histories, replay them through matchdb's engine, analyse and learn from them.

``matchdb.hands.read(path)`` reads, :func:`replay` replays every hand exactly
through :mod:`matchdb.play.engine`, :func:`analyse` gives each player's
statistics and every decision's exact equity with the database, :func:`fit`
fits a bot that plays like a chosen player, and :func:`write` writes hands
(an arena's, say) as PHH with pokerkit's writer. The guide is
``docs/guide/hands.md``.
"""

from __future__ import annotations

from matchdb.hands.analysis import (
    Analysis,
    Decision,
    PlayerStats,
    analyse,
    plot_winnings,
)
from matchdb.hands.fitting import FitResult, fit
from matchdb.hands.reader import (
    SITES,
    HandsError,
    HandStream,
    Record,
    Refusal,
    read,
    read_text,
)
from matchdb.hands.replayer import (
    Replayed,
    ReplayError,
    ReplayReport,
    Step,
    replay,
    replay_files,
    replay_hand,
)
from matchdb.hands.writer import ArenaWriter, HandWriter, history_of, play_hands, write

__all__ = [
    "SITES",
    "Analysis",
    "ArenaWriter",
    "Decision",
    "FitResult",
    "HandStream",
    "HandWriter",
    "HandsError",
    "PlayerStats",
    "Record",
    "Refusal",
    "ReplayError",
    "ReplayReport",
    "Replayed",
    "Step",
    "analyse",
    "fit",
    "history_of",
    "play_hands",
    "plot_winnings",
    "read",
    "read_text",
    "replay",
    "replay_files",
    "replay_hand",
    "write",
]
