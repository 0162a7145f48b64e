"""Preflop questions through the database: an empty board asks about hands and ranges before the flop.

:class:`matchdb.MatchDB`'s question methods (``outcome``, ``equity``,
``range_outcome``, ``multiway``, ``equities``, ``naive``, ``report``) hand a
question whose board is empty (``""`` or no cards) to its
:class:`PreflopQuestions` (:attr:`matchdb.MatchDB.preflop_questions`), the
preflop half of the database in one place: it reads the database through its
public methods only (:class:`PreflopSource`) and answers with the same answer
objects, their board ``""``:

- heads-up, a hand or range against a hand or range: the preflop matchups
  (:mod:`matchdb.equity.matchups`), exact, read from the store (derived data
  ``matchdb build`` computes after the tables, ``matchdb pack`` ships and
  ``matchdb verify`` checks); on a database lacking tables a matchup is
  counted by enumerating every board (about a millisecond each, kept for the
  next question);
- a hand or range against two random hands: the multiway preflop table's
  exact three-player figures of its classes (also derived data);
- several known hands: every board enumerated, exact, every player's equity;
- ranges or random hands among three or more players: exact when affordable,
  else sampled with its standard error (:mod:`matchdb.equity.preflop_hands`);
- the naive win rate: the starting hand's class in the preflop table
  (:meth:`matchdb.MatchDB.preflop`).

A complete store built before ``matchdb build`` computed the derived data
computes what a question needs on first use, once, and keeps it (about half a
minute on 2 cores, a bar on a terminal); a server prepares it at start-up
instead (:meth:`matchdb.MatchDB.prepare_in_background`).

>>> db.equity("AhKh", "", villain="QsQd")
0.46214457245909607
>>> print(db.multiway("AhKh", "", ["QsQd", "JcTc"]).to_text())
AhKh preflop against 2 opponents (QsQd, JcTc)
  equity 0.402092 (exact)
  win 0.401330  tie 0.002285  loss 0.596385
  every player: AhKh 0.402092  QsQd 0.410545  JcTc 0.187363
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from matchdb.answers import HandTable, Multiway, Outcome, RangeEquity
from matchdb.core.canonical import N_FLOPS
from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import (
    CLASS_OF_HAND,
    CLASSES,
    hand_index,
    hand_order,
    hand_position,
)
from matchdb.core.ranges import RangeLike, describe_range, range_weights
from matchdb.db.specs import as_range, check_known_hands, describe, is_preflop, one_hand, opponent_specs, text
from matchdb.errors import CardError, MatchdbError, RangeError

if TYPE_CHECKING:
    from matchdb.answers.preflop import PreflopMultiway, PreflopTable
    from matchdb.equity.matchups import EnumeratedMatchups, PreflopMatchups
    from matchdb.equity.multiway import MultiwayResult

__all__ = ["PreflopSource", "PreflopQuestions", "is_preflop", "matchups", "outcome", "range_outcome", "multiway",
           "equities", "naive_win_rate"]


class PreflopSource(Protocol):
    """What the preflop questions read of a database: its public methods (:class:`matchdb.MatchDB` is one)."""

    compute_on_first_use: bool

    def built(self) -> list[int]: ...
    def stored_derived(self, kind: str) -> Any: ...
    def preflop_matchups(self, show_progress: bool | None = None) -> PreflopMatchups: ...
    def preflop_multiway(self, show_progress: bool | None = None) -> PreflopMultiway: ...
    def preflop(self, players: Any = None, show_progress: bool | None = None) -> PreflopTable: ...


class PreflopQuestions:
    """The questions of one database whose board is empty (what :attr:`matchdb.MatchDB.preflop_questions` holds).

    It keeps what it counts for later questions (the matchups enumerated on a
    database lacking tables); everything else it reads through ``db``'s public
    methods.

    >>> questions = PreflopQuestions(db)
    >>> questions.outcome("AcAd", "KhKs").equity
    0.8125548967940273
    """

    def __init__(self, db: PreflopSource) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._enumerated: EnumeratedMatchups | None = None

    def matchups(self, build: bool) -> PreflopMatchups | EnumeratedMatchups:
        """The heads-up matchups of the database: stored ones when present (a database ``matchdb build`` completed);
        on a complete database lacking them, computed and stored when ``build`` (:meth:`matchdb.MatchDB.prepare`);
        else matchups counted by enumeration as they are asked for (a database lacking tables), kept here."""
        from matchdb.equity.matchups import MATCHUPS_KIND, EnumeratedMatchups

        stored: PreflopMatchups | None = self.db.stored_derived(MATCHUPS_KIND)
        if stored is not None:
            return stored
        if build and len(self.db.built()) == N_FLOPS:
            return self.db.preflop_matchups()
        with self._lock:
            if self._enumerated is None:
                self._enumerated = EnumeratedMatchups()
            return self._enumerated

    def outcome(self, hole: CardsLike, villain: RangeLike = None) -> Outcome:
        """Exact heads-up win, tie and loss of a hand against a hand, a range or a random hand, before the flop."""
        from matchdb.equity.matchups import BOARDS, hand_vs_hand, heads_up_counts

        if hole is None:
            raise CardError("The hole cards are missing; expected two cards like 'AhKh'.")
        hand = parse_cards(hole, count=2)
        known = one_hand(villain)
        if known is not None and not set(known) & set(hand):  # one hand against one hand: a lookup
            villain_at = hand_position(*known)
            won, tied, lost = hand_vs_hand(self.matchups(build=False), hand_position(*hand), villain_at)
            return Outcome(hole=format_cards(hand), board="", villain=hand_order()[villain_at],
                           equity=(won + tied / 2) / BOARDS, win=won / BOARDS, tie=tied / BOARDS, loss=lost / BOARDS)
        spec = as_range(villain)
        weights = range_weights(spec)
        source = self.matchups(build=bool(np.count_nonzero(weights) > 1))
        win, tie, loss = heads_up_counts(source, _hand_weights(hand), weights)
        total = win + tie + loss
        if total <= 0:
            raise RangeError(f"No hand of the range {describe_range(spec)!r} can be dealt beside the hole cards {text(hole)!r}.")
        # the equity from the counts, one division: the exact fraction correctly rounded
        return Outcome(hole=text(hole), board="", villain=describe(villain), equity=(win + tie / 2) / total,
                       win=win / total, tie=tie / total, loss=loss / total)

    def range_outcome(self, hero_range: RangeLike, villain_range: RangeLike) -> RangeEquity:
        """Exact win, tie and loss of a range against a range before the flop: every card-disjoint pair of hands,
        every board."""
        from matchdb.equity.matchups import heads_up_result

        hero = range_weights(as_range(hero_range))
        villain = range_weights(as_range(villain_range))
        score, ties, deals = heads_up_result(self.matchups(build=True), hero, villain)
        if deals <= 0:
            raise RangeError("No deal is possible: every hero hand shares a card with every villain hand.")
        # win and loss never below 0 by a rounding error (the score and the ties are summed apart)
        return RangeEquity(hero=describe(hero_range), villain=describe(villain_range), board="", equity=score / deals,
                           win=max(0.0, (score - ties / 2) / deals), tie=ties / deals,
                           loss=max(0.0, (deals - score - ties / 2) / deals))

    def multiway(self, hole: CardsLike, opponents: Any = 1, method: str = "auto", samples: int | None = None,
                 seed: int | None = None) -> Multiway:
        """A hand or hero range against 1 to 9 hands, ranges or random hands, before the flop."""
        from matchdb.equity.preflop_hands import preflop_multiway

        if method not in ("auto", "exact", "sample"):
            raise MatchdbError(f"The method {method!r} is unknown preflop; expected 'auto', 'exact' or 'sample'.")
        specs = opponent_specs(opponents)
        hand, hero, hero_name = _hero(hole)
        check_known_hands(specs, set(hand or ()), "the hero or another opponent")
        weights, names = [], []
        for spec in specs:
            weights.append(range_weights(as_range(spec)))
            names.append(describe(spec))
        if method != "sample" and len(weights) == 2 and all(_is_random(w) for w in weights):
            counted = self._against_two_random(hero, method)
            if counted is not None:
                return Multiway.of(hero_name, "", names, counted)
        source = self.matchups(build=len(specs) == 1 and bool(np.count_nonzero(hero) * np.count_nonzero(weights[0]) > 1))
        result = preflop_multiway(source, hero, weights, method=method, samples=samples, seed=seed)
        return Multiway.of(hero_name, "", names, result)

    def _against_two_random(self, hero: np.ndarray, method: str) -> MultiwayResult | None:
        """A hand or hero range against two random hands, exact: the multiway preflop table's figures of the hero's
        classes (every flop's exact three-player counts, summed when the database was built). None where that table
        cannot be had and ``method`` is ``"auto"`` (then sampled, as before)."""
        from matchdb.answers.preflop import PREFLOP_MULTIWAY_KIND
        from matchdb.equity.multiway import MultiwayResult

        table: Any = self.db.stored_derived(PREFLOP_MULTIWAY_KIND)
        if table is None:
            built = len(self.db.built())
            if built < N_FLOPS:
                if method == "exact":
                    raise MatchdbError(
                        "Exact equity against two random hands before the flop sums every flop's exact three-player "
                        f"count; this database lacks tables ({built} of {N_FLOPS}): build them all (matchdb build), or "
                        "ask for method='sample'."
                    )
                return None
            if not self.db.compute_on_first_use and method == "auto":
                return None  # a server preparing its data answers by sampling meanwhile
            table = self.db.preflop_multiway()
        hands = np.flatnonzero(hero)
        weights = hero[hands] / hero[hands].sum()
        rows = CLASS_OF_HAND[hands]
        equity, win, tie = (float(weights @ figure[rows, 1]) for figure in (table.equity, table.win, table.tie))
        return MultiwayResult(win=win, tie=tie, loss=max(0.0, 1.0 - win - tie), equity=equity,
                              players=(equity, (1.0 - equity) / 2, (1.0 - equity) / 2), exact=True, standard_error=0.0,
                              samples=0, seed=None, method="exact")

    def equities(self, villain: RangeLike = None) -> HandTable:
        """Exact heads-up equity of every hand before the flop against a random hand or a range."""
        from matchdb.equity.matchups import hands_against

        weights = range_weights(as_range(villain))
        score, deals = hands_against(self.matchups(build=True), weights)
        values = np.full(len(deals), np.nan)
        np.divide(score, deals, out=values, where=deals > 0)
        values.flags.writeable = False
        return HandTable(board="", figure=f"exact equity vs {describe(villain)}", hands=hand_order(), values=values)

    def naive_win_rate(self, hole: CardsLike, players: int) -> float:
        """The article's naive win rate before the flop: the hand's class in the preflop table (every board averaged)."""
        hand = parse_cards(hole, count=2)
        built = len(self.db.built())
        if built < N_FLOPS:
            raise MatchdbError(
                "The naive win rate before the flop averages over every flop; this database lacks tables "
                f"({built} of {N_FLOPS}): build them all (matchdb build)."
            )
        name = CLASSES[CLASS_OF_HAND[hand_index(hand)]]
        rate: float = self.db.preflop(players).row(name)[f"win_rate_{players}"]
        return rate


def _hand_weights(hand: tuple[int, ...]) -> np.ndarray:
    weights = np.zeros(1326)
    weights[hand_index(hand)] = 1.0
    return weights


def _hero(hole: Any) -> tuple[tuple[int, ...] | None, np.ndarray, str]:
    """(the hero's hand or None, its weights, its name) of a hand or a hero range."""
    hand = one_hand(hole)
    if hand is not None:
        return hand, _hand_weights(hand), hand_order()[hand_index(hand)]
    return None, range_weights(as_range(hole)), describe(hole)


def _is_random(weights: np.ndarray) -> bool:
    """True when a range holds every hand with the same weight: a random hand."""
    return bool(np.count_nonzero(weights) == len(weights) and np.all(weights == weights[0]))


# -- the functions of earlier releases: a database's preflop questions, by the database --------------------------


class _HasPreflopQuestions(Protocol):
    @property
    def preflop_questions(self) -> PreflopQuestions: ...


def matchups(db: _HasPreflopQuestions, build: bool) -> PreflopMatchups | EnumeratedMatchups:
    """``db.preflop_questions.matchups(build)`` (:meth:`PreflopQuestions.matchups`)."""
    return db.preflop_questions.matchups(build)


def outcome(db: _HasPreflopQuestions, hole: CardsLike, villain: RangeLike = None) -> Outcome:
    """``db.preflop_questions.outcome(hole, villain)`` (:meth:`PreflopQuestions.outcome`)."""
    return db.preflop_questions.outcome(hole, villain)


def range_outcome(db: _HasPreflopQuestions, hero_range: RangeLike, villain_range: RangeLike) -> RangeEquity:
    """``db.preflop_questions.range_outcome(...)`` (:meth:`PreflopQuestions.range_outcome`)."""
    return db.preflop_questions.range_outcome(hero_range, villain_range)


def multiway(db: _HasPreflopQuestions, hole: CardsLike, opponents: Any = 1, method: str = "auto",
             samples: int | None = None, seed: int | None = None) -> Multiway:
    """``db.preflop_questions.multiway(...)`` (:meth:`PreflopQuestions.multiway`)."""
    return db.preflop_questions.multiway(hole, opponents, method, samples, seed)


def equities(db: _HasPreflopQuestions, villain: RangeLike = None) -> HandTable:
    """``db.preflop_questions.equities(villain)`` (:meth:`PreflopQuestions.equities`)."""
    return db.preflop_questions.equities(villain)


def naive_win_rate(db: _HasPreflopQuestions, hole: CardsLike, players: int) -> float:
    """``db.preflop_questions.naive_win_rate(hole, players)`` (:meth:`PreflopQuestions.naive_win_rate`)."""
    return db.preflop_questions.naive_win_rate(hole, players)
