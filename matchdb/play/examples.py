"""Example bots for bot builders: opponent modelling with ``on_hand_end``.

:class:`Exploiter` plays West's bot (the naive win rate from the database) and
keeps, from every hand's result, how often each opponent (by name) folds when
someone bets or raises into it. It bluffs (a pot-sized bet when checked to)
when every live opponent has folded to at least 60 % of at least 10 bets,
and never bluffs against an opponent who folds to fewer than 30 %: a calling
station pays off value bets and punishes bluffs. It plays in the arena like
any bot (``matchdb arena --bots matchdb.play.examples:Exploiter,station,fives
--db ...``); ``folds`` shows what it learned.

>>> bot = Exploiter()
>>> bot.name, bot.fold_rate("station")
('exploiter', None)
"""

from __future__ import annotations

from collections import defaultdict

from matchdb.play.bots import NAIVE, Bot, WestBot
from matchdb.play.engine import ANTE, BIG_BLIND, CALL, FOLD, RAISE, SMALL_BLIND, HandResult, View

__all__ = ["Exploiter"]


class Exploiter(Bot):
    """West's bot plus a model of each opponent's folding, learnt from the results of the hands (see the module)."""

    name = "exploiter"
    #: Bets an opponent must have faced before the model is trusted.
    MIN_FACED = 10

    def __init__(self, name: str = "exploiter") -> None:
        self.name = name
        self.west = WestBot(name=name, strength=NAIVE)
        self.folds: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # name -> [bets faced, folds]

    def fold_rate(self, opponent: str) -> float | None:
        """How often ``opponent`` folded to a bet or raise, or None before :attr:`MIN_FACED` of them."""
        faced, folded = self.folds.get(opponent, (0, 0))
        return folded / faced if faced >= self.MIN_FACED else None

    def on_hand_end(self, result: HandResult) -> None:
        """Count, for every opponent, the bets and raises it faced and how often it folded to them."""
        facing: set[int] = set()
        street = -1
        for st, seat, kind, _ in result.history:
            if st != street:
                street, facing = st, set()
            if kind in (ANTE, SMALL_BLIND, BIG_BLIND):
                continue
            if seat in facing and seat != result.seat:
                record = self.folds[result.names[seat]]
                record[0] += 1
                record[1] += kind == FOLD
                facing.discard(seat)
            if kind == RAISE:
                facing = {s for s in range(len(result.names)) if s != seat}

    def act(self, view: View) -> tuple[int, int]:
        live = [view.names[s] for s in range(len(view.in_hand)) if view.in_hand[s] and s != view.seat]
        rates = [self.fold_rate(name) for name in live]
        kind, amount = self.west.act(view)
        if view.to_call == 0 and view.can_raise and rates and all(r is not None and r >= 0.6 for r in rates):
            return RAISE, min(view.max_raise_to, max(view.min_raise_to, view.pot))  # they fold: bet the pot
        if kind == RAISE and any(r is not None and r < 0.3 for r in rates) and NAIVE(view) < 0.5:
            return (CALL, 0) if view.to_call == 0 else (FOLD, 0)  # no bluffing a calling station
        return kind, amount
