"""The coach: a person's decision with the figures the articles' bots decide by, a review after each hand, a report after a session.

For the person's decision (:meth:`Coach.advise`):

- ``equity``: the equity of the person's cards against the live opponents
  as the bots model them: ``"uniform"`` (every opponent holds any two
  cards) or ``"dropout"`` (West's drop-out ranges: an opponent who entered
  the pot of their own will holds a pair of sixes or better by preflop
  equity, :data:`matchdb.play.bots.PAIR_OF_SIXES`), with ``method`` saying
  how it was found and ``standard_error`` (0 where exact). After the flop it
  is :meth:`matchdb.MatchDB.multiway`'s answer: exact against up to three
  opponents (four on the river), beyond that sampled to a standard error of
  about 0.0005; against four or more with drop-out ranges, 1,000 deals
  sampled by the bots' own strength (:data:`matchdb.play.strength.EXACT_SAMPLES`),
  its standard error bounded by sqrt(e (1 - e) / 1000). Before the flop:
  against one random hand the preflop table's exact heads-up equity, else
  :meth:`matchdb.MatchDB.multiway`'s preflop answer: exact against one
  drop-out range (counted over every board) and against two random hands
  (the database's preflop multiway table), else :data:`PREFLOP_SAMPLES`
  deals sampled (a standard error of about 0.0008). Sampled figures use a fixed seed, so the
  same decision shows the same figure.
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
  at random within their band);
- ``solver``: when a ``solver`` bot sits at the table and the decision is in
  the spot it solved, the solution's actions, the frequencies of the
  person's hand and each action's EV (in the table's chips), and the
  range's frequencies (:meth:`matchdb.play.solved.SolverBot.advice`); else None.

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

import numpy as np

from matchdb.equity.multiway import MAX_EXACT_UNKNOWN
from matchdb.errors import MatchdbError
from matchdb.play.bots import BOT_NAMES, DROPOUT, PAIR_OF_SIXES, make_bot, opponent_flags
from matchdb.play.decisions import WEST_BANDS, bet_odds, fcr_probabilities, pot_odds, rate_of_return
from matchdb.play.engine import STREETS, HandRecord, View
from matchdb.play.strength import EXACT_SAMPLES

__all__ = ["PREFLOP_SAMPLES", "Coach", "band_of", "session_report"]

#: Deals the coach samples before the flop against two or more opponents (a standard error of about 0.0008).
PREFLOP_SAMPLES = 262_144
_SEED = 0  # sampled figures are reproducible: the same decision, the same figure

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

    def __init__(self, source: Any, model: str = "uniform", solved: Sequence[Any] = ()) -> None:
        self.source = source
        self.model = model
        self.solved = list(solved)  # bots with advice(view): the solver bots at the table (matchdb.play.solved)
        self.bots = [make_bot(name) for name in BOT_NAMES]
        self._cache: dict[tuple[int, int, int], dict[str, Any]] = {}
        self._dropout: np.ndarray | None = None

    def equity(self, view: View) -> tuple[float, str, float]:
        """The equity of ``view``'s hole cards against its live opponents under the coach's model, how it was found
        (``"exact"``, or ``"sampled, N deals, s.e. X"``), and its standard error (0 when exact)."""
        opponents = view.players - 1
        if opponents < 1:
            return 1.0, "exact", 0.0
        flags = (opponent_flags(view.history, view.in_hand, view.seat, DROPOUT) if self.model == "dropout"
                 else [0] * opponents)
        if not view.board:
            return self._preflop(view, flags)
        if any(flags) and opponents > MAX_EXACT_UNKNOWN:  # the database samples ranges slowly: the bots' sampler
            value = float(self.source.strength("exact", view.hole, view.board, view.players, model="dropout",
                                               threshold=PAIR_OF_SIXES, flags=flags))
            bound = math.sqrt(max(value * (1.0 - value), 0.0) / EXACT_SAMPLES)
            return value, f"sampled, {EXACT_SAMPLES:,} deals, s.e. at most {bound:.4f}", bound
        specs = [self._dropout_weights() if flag else "random" for flag in flags]
        answer = self.source.db.multiway(view.hole, view.board, specs, seed=_SEED)
        return _labelled(answer.equity, answer.exact, answer.standard_error, answer.samples)

    def _preflop(self, view: View, flags: Sequence[int]) -> tuple[float, str, float]:
        if len(flags) == 1 and not flags[0]:  # the preflop table's exact heads-up equity
            classes = self.source.classes
            return float(self.source.preflop[classes[view.hole[0], view.hole[1]], 0]), "exact", 0.0
        # The database's preflop answer: exact against two random hands (its multiway table), else sampled.
        specs = [self._dropout_weights() if flag else "random" for flag in flags]
        answer = self.source.db.multiway(view.hole, "", specs, samples=PREFLOP_SAMPLES, seed=_SEED)
        return _labelled(answer.equity, answer.exact, answer.standard_error, answer.samples)

    def _dropout_weights(self) -> np.ndarray:
        """West's drop-out range as 1,326 weights: the hands whose class's preflop heads-up equity reaches a pair of
        sixes' (the bots' own test, :func:`matchdb.play.strength.strength_kernel`)."""
        if self._dropout is None:
            from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW

            equity = self.source.preflop[self.source.classes[HAND_HIGH, HAND_LOW], 0]
            self._dropout = (equity >= PAIR_OF_SIXES).astype(np.float64)
        return self._dropout

    def advise(self, view: View, names: Sequence[str] = ()) -> dict[str, Any]:
        """The figures of the decision ``view`` shows (JSON-safe; computed once per decision)."""
        key = (view.hand, len(view.history), view.seat)
        if key in self._cache:
            return self._cache[key]
        equity, method, standard_error = self.equity(view)
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
            "method": method, "standard_error": standard_error, "model": self.model, "pot": view.pot, "to_call": view.to_call, "pot_odds": odds,
            "odds_for": odds_for, "rate_of_return": _number(rr), "band": band_of(rr),
            "west": {"fold": fold, "call": call, "raise": raise_},
            "west_likeliest": _CHOICES[max(range(3), key=lambda k: (fold, call, raise_)[k])], "bots": bots,
        }
        figures["solver"] = self.solution_advice(view)
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[key] = figures
        return figures

    def solution_advice(self, view: View) -> dict[str, Any] | None:
        """When the decision is in a spot a solver bot at the table solved: the solution's actions, this hand's
        frequencies and each action's EV, and the range's frequencies (:meth:`matchdb.play.solved.SolverBot.advice`);
        else None."""
        for bot in self.solved:
            try:
                advice: dict[str, Any] | None = bot.advice(view)
            except MatchdbError:  # a solution that cannot be read here: no advice from it
                continue
            if advice is not None:
                return advice
        return None

    def review(self, decisions: Sequence[Any], record: HandRecord, names: Sequence[str] = ()) -> dict[str, Any]:
        """The person's decisions of a finished hand with the coach's figures (``decisions`` carry view, action, amount)."""
        rows = []
        for decision in decisions:
            figures = self.advise(decision.view, names)
            choice = {"fold": "fold", "check": "call", "call": "call", "bet": "raise", "raise": "raise"}[decision.action]
            rows.append({"street": figures["street"], "action": decision.action, "amount": decision.amount,
                         "equity": figures["equity"], "method": figures["method"],
                         "standard_error": figures["standard_error"], "pot_odds": figures["pot_odds"],
                         "rate_of_return": figures["rate_of_return"], "band": figures["band"],
                         "west_likeliest": figures["west_likeliest"], "west_agrees": choice == figures["west_likeliest"],
                         "west_chance_of_yours": figures["west"][choice]})
        seat = decisions[0].view.seat if decisions else 0
        return {"decisions": rows, "net": int(record.stacks[seat] - record.start[seat]), "showdown": record.showdown}


def _labelled(equity: float, exact: bool, standard_error: float, samples: int) -> tuple[float, str, float]:
    """(equity, method, standard error) of an answer: ``"exact"``, or the deals sampled and the standard error."""
    if exact:
        return float(equity), "exact", 0.0
    return float(equity), f"sampled, {samples:,} deals, s.e. {standard_error:.4f}", float(standard_error)


def _describe(kind: int, amount: int, view: View) -> str:
    if kind == 3 and view.can_raise:
        amount = min(max(amount, view.min_raise_to), view.max_raise_to)
        return f"{'bet' if view.max_bet == 0 else 'raise'} to {amount}"
    if kind == 0 and view.to_call > 0:
        return "fold"
    return f"call {view.to_call}" if view.to_call > 0 else "check"


def session_report(history: str | os.PathLike[str], db: Any = None) -> dict[str, Any]:
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

