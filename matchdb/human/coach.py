"""The coach: a person's decision with the figures the articles' bots decide by, a review after each hand, a report after a session.

For the person's decision (:meth:`Coach.advise`):

- ``equity``: the exact equity of the person's cards against the live
  opponents as the bots model them, from the database through
  :meth:`matchdb.play.strength.StrengthSource.strength` with kind
  ``"exact"``: ``"uniform"`` (every opponent holds any two cards) or
  ``"dropout"`` (West's drop-out ranges: an opponent who entered the pot of
  their own will holds a pair of sixes or better by preflop equity,
  :data:`matchdb.play.bots.PAIR_OF_SIXES`). Exact after the flop against
  one or two opponents; against more, 1,000 sampled deals
  (:data:`matchdb.play.strength.EXACT_SAMPLES`); preflop the database's
  preflop table (heads-up equity, or the naive win rate with more players).
  ``method`` says which.
- ``pot_odds``: the call over the pot after the call
  (:func:`matchdb.play.decisions.pot_odds`); with nothing to call, the odds
  of a pot-sized bet (:func:`matchdb.play.decisions.bet_odds`), as West's
  bots value a bet; ``odds_for`` says which.
- ``rate_of_return``: equity over pot odds
  (:func:`matchdb.play.decisions.rate_of_return`; None when infinite);
- ``band``: West's band (1 to 4: below 0.8, 1.0, 1.3, and above) and its
  fold, call and raise chances (:func:`matchdb.play.decisions.fcr_probabilities`
  with :data:`matchdb.play.decisions.WEST_BANDS`);
- ``bots``: what each built-in bot (:data:`matchdb.play.bots.BOT_NAMES`)
  answers in the person's seat (one draw: the West bots and ``random`` choose
  at random within their band).

After each hand :meth:`Coach.review` lists the person's decisions with those
figures and whether West's likeliest choice agrees; after a session
:func:`session_report` replays the session's PHH file
(:func:`matchdb.hands.analysis.analyse`) for every player's VPIP, PFR,
aggression and results, all-in adjusted.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from matchdb.play.bots import BOT_NAMES, DROPOUT, PAIR_OF_SIXES, UNIFORM, make_bot, opponent_flags
from matchdb.play.decisions import WEST_BANDS, bet_odds, fcr_probabilities, pot_odds, rate_of_return
from matchdb.play.engine import STREETS, HandRecord, View
from matchdb.play.strength import EXACT_OPPONENTS, EXACT_SAMPLES

__all__ = ["Coach", "band_of", "session_report"]

_CHOICES = ("fold", "call", "raise")


def band_of(rr: float) -> int:
    """West's band (1..4) of a rate of return: below 0.8, 1.0, 1.3, or above.

    >>> band_of(0.5), band_of(0.9), band_of(1.2), band_of(math.inf)
    (1, 2, 3, 4)
    """
    for k, threshold in enumerate(WEST_BANDS.thresholds):
        if rr < threshold:
            return k + 1
    return 4


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


class Coach:
    """The coach's figures for one session; ``source`` a StrengthSource, ``model`` ``"uniform"`` or ``"dropout"``."""

    def __init__(self, source: Any, model: str = "uniform") -> None:
        self.source = source
        self.model = model
        self.bots = [make_bot(name) for name in BOT_NAMES]
        self._cache: dict[tuple[int, int, int], dict[str, Any]] = {}

    def equity(self, view: View) -> tuple[float, str]:
        """The exact equity of ``view``'s hole cards against its live opponents under the coach's model, and how."""
        players = view.players
        dropout = self.model == "dropout"
        flags = opponent_flags(view.history, view.in_hand, view.seat, DROPOUT if dropout else UNIFORM) if dropout else None
        value = self.source.strength("exact", view.hole, view.board, players, model="dropout" if dropout else "uniform",
                                     threshold=PAIR_OF_SIXES if dropout else 0.0, flags=flags)
        if not view.board:
            method = "preflop table: heads-up equity" if players == 2 else f"preflop table: naive win rate, {players} players"
        elif players - 1 <= EXACT_OPPONENTS:
            method = "exact"
        else:
            method = f"sampled, {EXACT_SAMPLES} deals"
        return float(value), method

    def advise(self, view: View, names: Sequence[str] = ()) -> dict[str, Any]:
        """The figures of the decision ``view`` shows (JSON-safe; computed once per decision)."""
        key = (view.hand, len(view.history), view.seat)
        if key in self._cache:
            return self._cache[key]
        equity, method = self.equity(view)
        if view.to_call > 0:
            odds, odds_for = pot_odds(view.to_call, view.pot), "call"
        else:
            odds, odds_for = bet_odds(view.pot, view.pot), "pot-sized bet"
        rr = rate_of_return(equity, odds)
        fold, call, raise_ = fcr_probabilities(rr)
        bots = {}
        for bot in self.bots:
            try:
                kind, amount = bot.act(view)
            except Exception as error:  # a bot that cannot decide here says so instead of failing the page
                bots[bot.name] = f"(no answer: {type(error).__name__})"
                continue
            bots[bot.name] = _describe(int(kind), int(amount), view)
        figures = {
            "hand": view.hand + 1, "street": STREETS[view.street], "players": view.players, "equity": equity,
            "method": method, "model": self.model, "pot": view.pot, "to_call": view.to_call, "pot_odds": odds,
            "odds_for": odds_for, "rate_of_return": _number(rr), "band": band_of(rr),
            "west": {"fold": fold, "call": call, "raise": raise_},
            "west_likeliest": _CHOICES[max(range(3), key=lambda k: (fold, call, raise_)[k])], "bots": bots,
        }
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[key] = figures
        return figures

    def review(self, decisions: Sequence[Any], record: HandRecord, names: Sequence[str] = ()) -> dict[str, Any]:
        """The person's decisions of a finished hand with the coach's figures (``decisions`` carry view, action, amount)."""
        rows = []
        for decision in decisions:
            figures = self.advise(decision.view, names)
            choice = {"fold": "fold", "check": "call", "call": "call", "bet": "raise", "raise": "raise"}[decision.action]
            rows.append({"street": figures["street"], "action": decision.action, "amount": decision.amount,
                         "equity": figures["equity"], "method": figures["method"], "pot_odds": figures["pot_odds"],
                         "rate_of_return": figures["rate_of_return"], "band": figures["band"],
                         "west_likeliest": figures["west_likeliest"], "west_agrees": choice == figures["west_likeliest"],
                         "west_chance_of_yours": figures["west"][choice]})
        seat = decisions[0].view.seat if decisions else 0
        return {"decisions": rows, "net": int(record.stacks[seat] - record.start[seat]), "showdown": record.showdown}


def _describe(kind: int, amount: int, view: View) -> str:
    if kind == 3 and view.can_raise:
        amount = min(max(amount, view.min_raise_to), view.max_raise_to)
        return f"{'bet' if view.max_bet == 0 else 'raise'} to {amount}"
    if kind == 0 and view.to_call > 0:
        return "fold"
    return f"call {view.to_call}" if view.to_call > 0 else "check"


def session_report(history: str | os.PathLike, db: Any = None) -> dict[str, Any]:
    """Every player's statistics over a session's PHH file: VPIP, PFR, aggression, bb/100, all-in adjusted bb/100.

    Replays the file through :func:`matchdb.hands.analysis.analyse` (``db``
    makes heads-up all-ins after the flop exact from the database; without
    it they are enumerated). Rates are None where nothing was counted.
    """
    from matchdb.hands.analysis import analyse

    analysis = analyse(history, db)
    players: dict[str, dict[str, Any]] = {}
    for name, stats in analysis.players.items():
        players[name] = {"hands": stats.hands, "vpip": _number(stats.vpip_rate), "pfr": _number(stats.pfr_rate),
                         "aggression": _number(stats.aggression), "net": stats.net, "adjusted": stats.adjusted,
                         "bb_per_100": _number(stats.bb_per_100), "adjusted_bb_per_100": _number(stats.adjusted_bb_per_100),
                         "allins_adjusted": stats.allins}
    return {"players": players, "hands": max((int(p["hands"]) for p in players.values()), default=0)}

