"""Bots: the articles' players and a small interface for your own.

A bot is any object with one method, ``act(view) -> (kind, amount)``: it sees
a :class:`matchdb.play.engine.View` (its cards, the board, pot, stacks, bets, the
legal actions and the history) and answers :data:`~matchdb.play.engine.FOLD`,
:data:`~matchdb.play.engine.CALL` (check or call) or :data:`~matchdb.play.engine.RAISE`
with the total to raise to. A ``name`` attribute labels it in results. An
optional ``on_hand_end(result)`` receives, after every hand the bot was dealt
into, a :class:`matchdb.play.engine.HandResult` (the actions, the cards shown,
each seat's result and name): what a bot needs to model its opponents
(:class:`matchdb.play.examples.Exploiter` does). :func:`make_bot` also makes
your own classes from ``"path/to/file.py:Class"`` or ``"module:Class"``, and
PyPokerEngine players through :mod:`matchdb.play.adapters`.

The built-in bots (all from the articles):

- :class:`AllIn` - always all-in (West's first simple opponent);
- :class:`PairOfFives` - raises with a pair of fives or better, else checks or
  folds (West's second);
- :class:`CallingStation` - always checks or calls;
- :class:`RandomBot` - folds, calls or raises at random;
- :class:`WestBot` - West's rate of return (hand strength / pot odds) mapped to
  fold, call or raise by four bands, with stack protection; personalities
  ``west``, ``tight``, ``loose``, ``aggressive`` and ``passive`` differ in
  their bands and raise size;
- :class:`IncomeBot` - the match-table article: fold or follow by expected
  income, then the draw with the largest expected income;
- :class:`TomlinsonBot` - West's decisions on Tomlinson's Monte Carlo hand
  strength (50-100 samples from the match table, steered opponents);
- ``"solver:spot.npz"`` - :class:`matchdb.play.solved.SolverBot`, heads-up
  from a saved solution of :mod:`matchdb.solver` (a simple rule outside it);
  ``"solver:NAME.zarr"`` - :class:`matchdb.play.solved.LibraryBot`, from a
  solution library on every flop.

Each built-in bot keeps its parameters as one flat vector of named, bounded
numbers (:meth:`BuiltinBot.vector`, :meth:`BuiltinBot.bounds`,
:meth:`BuiltinBot.with_vector`) for an optimiser to walk. Hand strength is a
callable ``strength(view) -> float``: the built-in ones (:data:`NAIVE`,
:data:`HEADSUP`, :func:`montecarlo`) read the database through
``view.source`` and also run in the compiled arena loop; any other callable
(:func:`multiway` wraps an exact multiway equity function) plugs in too, and
then the bot plays in the Python loop.

>>> bot = WestBot(personality="tight")
>>> bot.name, bot.vector()[:3].tolist()
('west-tight', [1.0, 1.2, 1.5])
>>> make_bot("fives").name
'fives'
>>> make_bot("bluffer")
Traceback (most recent call last):
...
matchdb.play.interface.BotError: The bot 'bluffer' is unknown; expected one of allin, fives, station, random, west, west-tight, west-loose, west-aggressive, west-passive, income, tomlinson (with an optional ':naive', ':headsup', ':exact', ':exact-dropout', ':montecarlo', ':dropout'), 'solver:spot.npz', a bot .json file, 'path/to/file.py:Class' or 'module:Class'.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np

from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.jit import jit
from matchdb.play.adapters import PyPokerEngineBot
from matchdb.play.decisions import (
    choose_raise_to_kernel,
    fold_call_raise_kernel,
    pot_raise_to_kernel,
    rate_of_return_kernel,
    stack_protection_kernel,
)
from matchdb.play.engine import CALL, FOLD, RAISE, View
from matchdb.play.interface import Bot, BotError
from matchdb.play.strength import DROPOUT, EXACT, KINDS, MODELS, MONTECARLO, STEERED, UNIFORM

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "BotError",
    "Bot",
    "Parameter",
    "BuiltinStrength",
    "NAIVE",
    "HEADSUP_EQUITY",
    "montecarlo",
    "multiway",
    "BuiltinBot",
    "AllIn",
    "PairOfFives",
    "CallingStation",
    "RandomBot",
    "WestBot",
    "IncomeBot",
    "TomlinsonBot",
    "PERSONALITIES",
    "BOT_NAMES",
    "PAIR_OF_SIXES",
    "make_bot",
    "save_bot",
    "load_bot",
    "opponent_flags",
    "UNIFORM",
    "DROPOUT",
    "STEERED",
    "MAX_PARAMS",
    # The kernel interface: what the compiled game loop (matchdb.play.games) calls and reads.
    "K_ALLIN", "K_PAIR", "K_STATION", "K_RANDOM", "K_WEST", "K_INCOME",
    "STRENGTH_KINDS",
    "decide_kernel",
]


# Kinds of built-in bots, as the compiled loop knows them.
K_ALLIN = 0
K_PAIR = 1
K_STATION = 2
K_RANDOM = 3
K_WEST = 4
K_INCOME = 5
#: Kinds that need a hand strength.
STRENGTH_KINDS = (K_WEST, K_INCOME)
#: Longest parameter vector of any built-in bot.
MAX_PARAMS = 16


@dataclass(frozen=True)
class Parameter:
    """One named, bounded number of a bot's parameter vector."""

    name: str
    default: float
    low: float
    high: float
    doc: str = ""


# -- hand strength -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BuiltinStrength:
    """A strength from the database that the compiled loop can also compute.

    ``kind`` is ``"naive"``, ``"headsup"`` or ``"montecarlo"``; the Monte
    Carlo one draws ``samples`` runouts and opponent hands with an opponent
    ``model`` (``"uniform"``, ``"dropout"``: opponents who entered the pot
    voluntarily drop out below ``threshold``; ``"steered"``: preflop raisers'
    hands below ``threshold`` are dealt again up to ``redraws`` times), the
    threshold being a preflop heads-up equity (a pair of sixes is 0.633).
    """

    kind: str = "naive"
    samples: int = 100
    model: str = "uniform"
    threshold: float = 0.0
    redraws: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise BotError(f"The strength {self.kind!r} is unknown; expected one of {', '.join(KINDS)}.")
        if not isinstance(self.model, str) or self.model not in MODELS:
            raise BotError(f"The opponent model {self.model!r} is unknown; expected one of {', '.join(MODELS)}.")
        for name, value, low, high in (("sample count", self.samples, 1, 100_000), ("redraw count", self.redraws, 0, 100)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
                raise BotError(f"The {name} {value!r} is out of range; expected a whole number {low}..{high:,}.")
        threshold = self.threshold
        if (isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number))
                or not math.isfinite(threshold) or not 0 <= threshold <= 1):
            raise BotError(f"The threshold {threshold!r} is not a number 0..1 (a preflop heads-up equity).")

    @property
    def code(self) -> tuple[int, int, int, int, float]:
        """(kind, samples, model, redraws, threshold) as the kernels take them."""
        return KINDS[self.kind], int(self.samples), MODELS[self.model], int(self.redraws), float(self.threshold)

    def __call__(self, view: View) -> float:
        source: Any = view.source  # a StrengthSource (the engine below does not know its type)
        if source is None:
            raise BotError("This table offers no strength source; the arena gives one (StrengthSource).")
        kind, samples, model, redraws, threshold = self.code
        board = np.zeros(5, dtype=np.int64)
        board[: len(view.board)] = view.board
        if view.board:
            source.tables.ensure(int(source.frame[0][view.board[0], view.board[1], view.board[2]]))
        flags = np.zeros(10, dtype=np.int64)
        if model != UNIFORM and kind in (MONTECARLO, EXACT):
            flags[:] = _opponent_flags_py(view, model)
        strength: float = source._compute(kind, view.hole[0], view.hole[1], board, len(view.board), view.players, samples,
                               model, threshold, redraws, flags)
        return strength


#: The naive win rate with n = players still in the hand.
NAIVE = BuiltinStrength("naive")
#: Exact heads-up equity against one random hand.
HEADSUP_EQUITY = BuiltinStrength("headsup")


def montecarlo(samples: int = 75, model: str = "steered", threshold: float = 0.55, redraws: int = 3) -> BuiltinStrength:
    """Tomlinson's sampled win probability (50-100 samples is his advice).

    >>> montecarlo().code
    (2, 75, 2, 3, 0.55)
    """
    return BuiltinStrength("montecarlo", samples, model, threshold, redraws)


def multiway(equity: Callable[[tuple[int, int], tuple[int, ...], int], float]) -> Callable[[View], float]:
    """Wrap ``equity(hole, board, players)`` (for example an exact multiway equity) as a strength.

    >>> from types import SimpleNamespace
    >>> strength = multiway(lambda hole, board, players: 1 / players)
    >>> strength(SimpleNamespace(hole=(38, 37), board=(0, 18, 35), players=4))   # it reads these three
    0.25
    """

    def strength(view: View) -> float:
        return float(equity(view.hole, view.board, view.players))

    strength.__name__ = getattr(equity, "__name__", "multiway")
    return strength


def opponent_flags(history: Any, in_hand: Any, seat: int, model: int) -> list[int]:
    """Which opponents (seats in hand other than ``seat``, in seat order) an opponent model applies to.

    Drop-out (West): players who put chips in preflop of their own will (a
    call or a raise, not a blind). Steered (Tomlinson): preflop raisers.

    >>> opponent_flags([(0, 1, 4, 1), (0, 2, 5, 2), (0, 0, 3, 6), (0, 1, 2, 5)], (True, True, True), 2, DROPOUT)
    [1, 1]
    >>> opponent_flags([(0, 1, 4, 1), (0, 2, 5, 2), (0, 0, 3, 6), (0, 1, 2, 5)], (True, True, True), 2, STEERED)
    [1, 0]
    """
    raised = set()
    entered = set()
    for street, who, kind, _ in history:
        if street == 0 and kind == RAISE:
            raised.add(who)
            entered.add(who)
        elif street == 0 and kind == CALL:
            entered.add(who)
    chosen = raised if model == STEERED else entered
    return [int(s in chosen) for s in range(len(in_hand)) if in_hand[s] and s != seat]


def _opponent_flags_py(view: View, model: int) -> np.ndarray:
    flags = np.zeros(10, dtype=np.int64)
    values = opponent_flags(view.history, view.in_hand, view.seat, model)
    flags[: len(values)] = values
    return flags


# -- the decision kernel ----------------------------------------------------------------------------


@jit
def _made_pair_rank_at_least(
    hole0: int,
    hole1: int,
    board: NDArray[np.int64],
    n_board: int,
    rank: int,
    counts: NDArray[np.int64],
    cards: NDArray[np.int64],
) -> bool:
    """True when hole cards and board make a pair of ``rank`` or better (any better hand type counts)."""
    if n_board == 0:
        return hole0 % 13 == hole1 % 13 and hole0 % 13 >= rank
    cards[0] = hole0
    cards[1] = hole1
    for k in range(n_board):
        cards[2 + k] = board[k]
    value = evaluate_with(cards[: 2 + n_board], counts, STRAIGHT_TOP, FLUSH_VALUE)
    return value >= (1 << 20 | rank << 16)


@jit
def decide_kernel(
    kind: int,
    params: NDArray[np.float64],
    strength: float,
    to_call: int,
    can_raise: bool,
    min_to: int,
    max_to: int,
    pot: int,
    stack: int,
    bet: int,
    max_bet: int,
    contrib: int,
    big_blind: int,
    players: int,
    hole0: int,
    hole1: int,
    board: NDArray[np.int64],
    n_board: int,
    counts: NDArray[np.int64],
    cards: NDArray[np.int64],
) -> tuple[int, int]:
    """One decision of a built-in bot: (engine kind, raise-to amount). Draws from numba's random generator."""
    if kind == K_ALLIN:
        if can_raise:
            return RAISE, max_to
        return CALL, 0
    if kind == K_STATION:
        return CALL, 0
    if kind == K_PAIR:
        if _made_pair_rank_at_least(hole0, hole1, board, n_board, int(params[0]), counts, cards):
            if can_raise:
                return RAISE, pot_raise_to_kernel(params[1], pot, to_call, max_bet, min_to, max_to, 1.0)
            return CALL, 0
        if params[2] >= 0.5 or to_call == 0:
            return CALL, 0
        return FOLD, 0
    if kind == K_RANDOM:
        u = np.random.random()
        if u < params[0]:
            return (FOLD, 0) if to_call > 0 else (CALL, 0)
        if u < params[0] + params[1] and can_raise:
            return RAISE, min_to + np.random.randint(max_to - min_to + 1)
        return CALL, 0
    if kind == K_WEST:
        # params: t1 t2 t3, fold1..4, raise1..4, stack-protection blinds and strength, raise fraction, shove
        raise_to = 0
        if can_raise:
            raise_to = pot_raise_to_kernel(params[13], pot, to_call, max_bet, min_to, max_to, params[14])
        if to_call > 0:
            odds = to_call / (pot + to_call)
        elif can_raise:
            chips = raise_to - bet
            odds = chips / (pot + chips)
        else:
            return CALL, 0
        rr = rate_of_return_kernel(strength, odds)
        u = np.random.random()
        choice = fold_call_raise_kernel(rr, u, to_call, params[0], params[1], params[2], params[3], params[4], params[5],
                                  params[6], params[7], params[8], params[9], params[10])
        if choice == 2 and not can_raise:
            choice = 1
        if choice == 2 and stack_protection_kernel(stack, raise_to - bet, big_blind, strength, params[11], params[12]):
            choice = 1
        if choice == 1 and stack_protection_kernel(stack, to_call, big_blind, strength, params[11], params[12]):
            choice = 0
        if choice == 0:
            return (FOLD, 0) if to_call > 0 else (CALL, 0)
        if choice == 1:
            return CALL, 0
        return RAISE, raise_to
    if kind == K_INCOME:
        # params: follower decay, three pot fractions
        follow = strength * (pot + to_call) - (contrib + to_call)
        if to_call > 0 and follow <= -contrib:
            return FOLD, 0
        if can_raise:
            x = choose_raise_to_kernel(strength, pot, to_call, contrib, bet, max_bet, min_to, max_to, players - 1,
                                 params[0], params[1], params[2], params[3])
            if x >= 0:
                return RAISE, x
        return CALL, 0
    return CALL, 0


# -- built-in bots -----------------------------------------------------------------------------------


class BuiltinBot(Bot):
    """A bot of the articles: a kind, a flat vector of named bounded parameters and (maybe) a strength.

    Parameters are given by name (``WestBot(raise_fraction=1.0)``); bounds
    are checked. ``strength`` is a :class:`BuiltinStrength` (compiled loop
    and Python) or any ``callable(view) -> float`` (Python only).
    """

    KIND: ClassVar[int] = K_STATION
    PARAMETERS: ClassVar[tuple[Parameter, ...]] = ()
    DEFAULT_NAME: ClassVar[str] = "bot"

    def __init__(self, name: str | None = None, strength: Callable[[View], float] = NAIVE, **params: float) -> None:
        self.name = name or self.DEFAULT_NAME
        if not callable(strength):
            raise BotError(f"The strength {strength!r} is not callable; expected a function of the view.")
        self.strength = strength
        self.params = np.array([p.default for p in self.PARAMETERS], dtype=np.float64)
        self.set(**params)
        self._counts = np.zeros(13, dtype=np.int64)
        self._cards = np.zeros(7, dtype=np.int64)
        self._board = np.zeros(5, dtype=np.int64)
        self._padded: np.ndarray | None = None

    def set(self, **params: float) -> None:
        """Set parameters by name, within their bounds."""
        names = self.parameter_names()
        for key, value in params.items():
            if key not in names:
                raise BotError(f"The parameter {key!r} is not one of {type(self).__name__}'s: {', '.join(names) or 'none'}.")
            spec = self.PARAMETERS[names.index(key)]
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not spec.low <= value <= spec.high:
                raise BotError(f"The parameter {key} = {value!r} is out of bounds; expected {spec.low} to {spec.high}.")
            self.params[names.index(key)] = float(value)

    @classmethod
    def parameter_names(cls) -> tuple[str, ...]:
        """Names of the parameter vector's entries, in order."""
        return tuple(p.name for p in cls.PARAMETERS)

    @classmethod
    def bounds(cls) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the parameter vector."""
        return (np.array([p.low for p in cls.PARAMETERS]), np.array([p.high for p in cls.PARAMETERS]))

    def vector(self) -> np.ndarray:
        """A copy of the parameter vector."""
        return self.params.copy()

    def with_vector(self, vector: Sequence[float] | np.ndarray, name: str | None = None) -> BuiltinBot:
        """The same bot with another parameter vector (checked against the bounds)."""
        vector = np.asarray(vector, dtype=np.float64)
        if vector.shape != self.params.shape:
            raise BotError(f"The vector has shape {vector.shape}; {type(self).__name__} takes {self.params.shape}.")
        low, high = self.bounds()
        if not ((vector >= low) & (vector <= high)).all():
            raise BotError(f"The vector {vector.tolist()!r} leaves the bounds of {type(self).__name__}.")
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.name = name or self.name
        other.params = vector.copy()
        other._counts = np.zeros(13, dtype=np.int64)
        other._cards = np.zeros(7, dtype=np.int64)
        other._board = np.zeros(5, dtype=np.int64)
        other._padded = None
        return other

    def native(self) -> tuple[Any, ...] | None:
        """(kind, parameters, strength code) for the compiled loop, or None with a Python strength."""
        if self.KIND in STRENGTH_KINDS and not isinstance(self.strength, BuiltinStrength):
            return None
        code = self.strength.code if isinstance(self.strength, BuiltinStrength) else NAIVE.code
        params = np.zeros(MAX_PARAMS)
        params[: len(self.params)] = self.params
        return self.KIND, params, code

    def act(self, view: View) -> tuple[int, int]:
        value = float(self.strength(view)) if self.KIND in STRENGTH_KINDS else 0.0
        board = self._board
        board[: len(view.board)] = view.board
        params = self._padded
        if params is None or not np.array_equal(params[: len(self.params)], self.params):
            params = self._padded = np.zeros(MAX_PARAMS)
            params[: len(self.params)] = self.params
        kind, amount = decide_kernel(self.KIND, params, value, view.to_call, view.can_raise, view.min_raise_to,
                               view.max_raise_to, view.pot, view.stack, view.bet, view.max_bet, view.contributed,
                               view.big_blind, view.players, view.hole[0], view.hole[1], board, len(view.board),
                               self._counts, self._cards)
        return int(kind), int(amount)


class AllIn(BuiltinBot):
    """Always all-in (or a call when it cannot raise)."""

    KIND = K_ALLIN
    DEFAULT_NAME = "allin"


class CallingStation(BuiltinBot):
    """Always checks or calls."""

    KIND = K_STATION
    DEFAULT_NAME = "station"


class PairOfFives(BuiltinBot):
    """Raises with a pair of fives or better (hole cards and board together), else checks or folds."""

    KIND = K_PAIR
    DEFAULT_NAME = "fives"
    PARAMETERS = (
        Parameter("min_pair_rank", 3, 0, 12, "lowest pair that raises: rank 0 (deuces) .. 12 (aces); 3 is fives"),
        Parameter("raise_fraction", 1.0, 0.0, 10.0, "raise size as a fraction of the pot after calling"),
        Parameter("call_otherwise", 0.0, 0.0, 1.0, "at least 0.5: call without the pair instead of folding"),
    )


class RandomBot(BuiltinBot):
    """Folds (checks when that is free), raises (to a uniform amount in the legal range) or calls at random."""

    KIND = K_RANDOM
    DEFAULT_NAME = "random"
    PARAMETERS = (
        Parameter("fold_chance", 1 / 3, 0.0, 1.0, "chance to fold when facing a bet"),
        Parameter("raise_chance", 1 / 3, 0.0, 1.0, "chance to raise (the rest calls)"),
    )


_WEST_PARAMETERS = (
    Parameter("rr_low", 0.8, 0.0, 5.0, "rate of return below which the first band applies"),
    Parameter("rr_mid", 1.0, 0.0, 5.0, "upper end of the second band"),
    Parameter("rr_high", 1.3, 0.0, 5.0, "upper end of the third band"),
    Parameter("fold_1", 0.95, 0.0, 1.0, "fold chance, first band"),
    Parameter("fold_2", 0.80, 0.0, 1.0, "fold chance, second band"),
    Parameter("fold_3", 0.0, 0.0, 1.0, "fold chance, third band"),
    Parameter("fold_4", 0.0, 0.0, 1.0, "fold chance, fourth band"),
    Parameter("raise_1", 0.05, 0.0, 1.0, "raise (bluff) chance, first band"),
    Parameter("raise_2", 0.15, 0.0, 1.0, "raise chance, second band"),
    Parameter("raise_3", 0.40, 0.0, 1.0, "raise chance, third band"),
    Parameter("raise_4", 0.70, 0.0, 1.0, "raise chance, fourth band"),
    Parameter("protect_blinds", 4.0, 0.0, 50.0, "stack protection: big blinds that must remain"),
    Parameter("protect_strength", 0.5, 0.0, 1.0, "stack protection: strength needed to commit anyway"),
    Parameter("raise_fraction", 0.75, 0.0, 10.0, "raise size as a fraction of the pot after calling"),
    Parameter("shove", 0.6, 0.0, 1.0, "a raise above this fraction of the stack goes all-in"),
)

#: West's personalities as parameter overrides (his numbers are ``west``).
PERSONALITIES: dict[str, dict[str, float]] = {
    "west": {},
    "tight": dict(rr_low=1.0, rr_mid=1.2, rr_high=1.5, fold_1=0.98, fold_2=0.90, fold_3=0.10,
                  raise_1=0.02, raise_2=0.05),
    "loose": dict(rr_low=0.6, rr_mid=0.8, rr_high=1.1, fold_1=0.75, fold_2=0.50, raise_1=0.05, raise_2=0.15,
                  raise_3=0.35, raise_4=0.60),
    "aggressive": dict(fold_1=0.85, fold_2=0.65, raise_1=0.12, raise_2=0.30, raise_3=0.70, raise_4=0.90,
                       raise_fraction=1.0),
    "passive": dict(raise_1=0.01, raise_2=0.02, raise_3=0.10, raise_4=0.30, raise_fraction=0.5),
}


class WestBot(BuiltinBot):
    """Mick West's player: rate of return -> fold/call/raise bands, stack protection, a pot-fraction raise.

    ``personality`` picks a preset of :data:`PERSONALITIES`; keyword
    parameters override it.
    """

    KIND = K_WEST
    DEFAULT_NAME = "west"
    PARAMETERS = _WEST_PARAMETERS

    def __init__(self, name: str | None = None, strength: Callable[[View], float] = NAIVE,
                 personality: str = "west", **params: float) -> None:
        if personality not in PERSONALITIES:
            raise BotError(f"The personality {personality!r} is unknown; expected one of {', '.join(PERSONALITIES)}.")
        default = "west" if personality == "west" else f"west-{personality}"
        super().__init__(name or default, strength, **(PERSONALITIES[personality] | params))


class TomlinsonBot(WestBot):
    """West's decisions on Tomlinson's Monte Carlo strength: 75 samples, preflop raisers steered."""

    DEFAULT_NAME = "tomlinson"

    def __init__(self, name: str | None = None, strength: Callable[[View], float] | None = None,
                 personality: str = "west", **params: float) -> None:
        super().__init__(name or "tomlinson", strength if strength is not None else montecarlo(), personality, **params)


class IncomeBot(BuiltinBot):
    """The match-table article's player: fold or follow by expected income, then the best draw."""

    KIND = K_INCOME
    DEFAULT_NAME = "income"
    PARAMETERS = (
        Parameter("decay", 1.0, 0.0, 20.0, "how fast opponents stop following a raise: exp(-decay * raise / pot)"),
        Parameter("fraction_1", 0.5, 0.0, 10.0, "candidate raise, fraction of the pot"),
        Parameter("fraction_2", 1.0, 0.0, 10.0, "candidate raise, fraction of the pot"),
        Parameter("fraction_3", 2.0, 0.0, 10.0, "candidate raise, fraction of the pot"),
    )


_FACTORIES: dict[str, Callable[[], BuiltinBot]] = {
    "allin": AllIn,
    "fives": PairOfFives,
    "station": CallingStation,
    "random": RandomBot,
    "west": WestBot,
    "west-tight": lambda: WestBot(personality="tight"),
    "west-loose": lambda: WestBot(personality="loose"),
    "west-aggressive": lambda: WestBot(personality="aggressive"),
    "west-passive": lambda: WestBot(personality="passive"),
    "income": IncomeBot,
    "tomlinson": TomlinsonBot,
}
#: Names :func:`make_bot` knows.
BOT_NAMES = tuple(_FACTORIES)
#: West's drop-out threshold: "hole cards worse than, say, a pair of sixes" (66's heads-up equity).
PAIR_OF_SIXES = 0.6328
_STRENGTHS = {"naive": NAIVE, "headsup": HEADSUP_EQUITY, "exact": BuiltinStrength("exact"),
              "exact-dropout": BuiltinStrength("exact", model="dropout", threshold=PAIR_OF_SIXES),
              "montecarlo": montecarlo(), "dropout": montecarlo(model="dropout", threshold=PAIR_OF_SIXES)}


def make_bot(spec: str) -> Bot:
    """A bot from a spec: a built-in name with an optional strength, a bot file, or your own class.

    ``"west"``, ``"west-tight:headsup"``, ``"west:exact"`` (exact equity
    against the live opponents, uniform), ``"west:exact-dropout"`` (against
    West's drop-out ranges: opponents who entered the pot voluntarily hold a
    pair of sixes or better by preflop equity), ``"income:montecarlo"``
    (Tomlinson's steered samples), ``"west:dropout"`` (samples with West's
    drop-out model). ``"solver:spot.npz"`` plays from a saved solution
    (:class:`matchdb.play.solved.SolverBot`), ``"solver:NAME.zarr"`` (a library folder, ``.zip`` or URL) from a
    solution library (:class:`matchdb.play.solved.LibraryBot`; ``"solver:NAME.zarr:deeper"`` also on the turn and
    river, solving the turn again). A name ending in ``.json`` is a file :func:`save_bot`
    wrote (``matchdb tune bot --out``), read by :func:`load_bot`.
    ``"path/to/file.py:Class"`` and ``"module:Class"`` make an instance of
    your class (called without arguments): a bot with ``act(view)``, or a
    PyPokerEngine player (``declare_action``), which plays through
    :class:`matchdb.play.adapters.PyPokerEngineBot`. A bot without a name of
    its own is named after its class.

    >>> make_bot("west:dropout").strength.model
    'dropout'
    >>> make_bot("matchdb.play.examples:Exploiter").name
    'exploiter'
    """
    if not isinstance(spec, str):
        raise BotError(f"The bot spec {spec!r} is not text; expected a name like 'west' or 'file.py:Class'.")
    if spec.endswith(".json"):
        return load_bot(spec)
    if spec.startswith("solver:"):
        from matchdb.play.solved import LibraryBot, SolverBot, is_library  # they build on this module's Bot

        path = spec[len("solver:"):]
        if path.endswith(":deeper") and is_library(path[:-len(":deeper")]):
            return LibraryBot(path[:-len(":deeper")], deeper=True)
        return LibraryBot(path) if is_library(path) else SolverBot(path)
    name, _, strength = spec.partition(":")
    if name in _FACTORIES and (not strength or strength in _STRENGTHS):
        bot = _FACTORIES[name]()
        if strength:
            bot.strength = _STRENGTHS[strength]
            bot.name = spec
        return bot
    where, colon, cls_name = spec.rpartition(":")
    if colon and (where.endswith(".py") or _MODULE.fullmatch(where)) and name not in _FACTORIES:
        return _load_class(where, cls_name, spec)
    raise BotError(
        f"The bot {spec!r} is unknown; expected one of {', '.join(BOT_NAMES)} "
        f"(with an optional {', '.join(repr(':' + k) for k in _STRENGTHS)}), 'solver:spot.npz', a bot .json file, "
        "'path/to/file.py:Class' or 'module:Class'."
    )


_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _load_class(where: str, cls_name: str, spec: str) -> Bot:
    """An instance of class ``cls_name`` from a Python file or an importable module, as a bot."""
    if not cls_name.isidentifier():
        raise BotError(f"The bot {spec!r} names the class {cls_name!r}; expected a Python class name after the colon.")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise BotError(f"The bot file {where!r} of {spec!r} does not exist; expected a Python file defining {cls_name}.")
        module_name = "matchdb_bot_" + re.sub(r"\W", "_", str(path.resolve()))
        spec_of_file = importlib.util.spec_from_file_location(module_name, path)
        if spec_of_file is None or spec_of_file.loader is None:
            raise BotError(f"The bot file {where!r} of {spec!r} cannot be loaded as Python; expected a .py file.")
        module = importlib.util.module_from_spec(spec_of_file)
        try:
            spec_of_file.loader.exec_module(module)
        except Exception as error:  # the user's code: say what failed, in one sentence
            raise BotError(f"The bot file {where!r} failed to run ({type(error).__name__}: {error}).") from None
    else:
        try:
            module = importlib.import_module(where)
        except Exception as error:
            raise BotError(f"The bot module {where!r} of {spec!r} cannot be imported ({type(error).__name__}: {error}).") from None
    cls = getattr(module, cls_name, None)
    if not isinstance(cls, type):
        raise BotError(f"{where!r} has no class {cls_name!r}; expected the class of a bot (act) or of a PyPokerEngine player.")
    try:
        obj = cls()
    except Exception as error:
        raise BotError(f"The class {cls_name} of {where!r} cannot be made without arguments ({type(error).__name__}: {error}).") from None
    if not callable(getattr(obj, "act", None)):
        if callable(getattr(obj, "declare_action", None)):
            return PyPokerEngineBot(obj)
        raise BotError(f"The class {cls_name} of {where!r} has no act(view) method (nor PyPokerEngine's declare_action).")
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name or name == Bot.name:
        obj.name = cls_name
    bot: Bot = obj
    return bot


# -- bot files ---------------------------------------------------------------------------------------

_BOT_CLASSES: dict[str, type[BuiltinBot]] = {cls.__name__: cls for cls in (
    AllIn, PairOfFives, CallingStation, RandomBot, WestBot, TomlinsonBot, IncomeBot)}
_BOT_FILE_KIND = "matchdb-bot"


def save_bot(bot: BuiltinBot, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None) -> Path:
    """Write a built-in bot (class, name, strength, every parameter by name) as JSON for :func:`load_bot`.

    ``extra`` adds keys (a tuning run's figures, say); loading ignores them.
    """
    if type(bot).__name__ not in _BOT_CLASSES or not isinstance(bot, BuiltinBot):
        raise BotError(f"The bot {bot!r} is not a built-in bot; only those can be saved.")
    if not isinstance(bot.strength, BuiltinStrength):
        raise BotError(f"The bot {bot.name!r} uses a Python strength {bot.strength!r}; only built-in strengths can be saved.")
    data = {"kind": _BOT_FILE_KIND, "version": 1, "class": type(bot).__name__, "name": bot.name,
            "strength": asdict(bot.strength),
            "parameters": {name: float(v) for name, v in zip(bot.parameter_names(), bot.params, strict=True)}}
    from matchdb.outputs import save_text

    return save_text(path, json.dumps(data | dict(extra or {}), indent=1, allow_nan=False) + "\n")


_MAX_BOT_FILE = 1 << 20  # bytes
_MAX_DEPTH = 16
_TOP_KEYS = {"kind", "version", "class", "name", "strength", "parameters"}


def _depth(text: str) -> int:
    """The deepest nesting of JSON arrays and objects in ``text``, strings skipped (no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def load_bot(path: str | os.PathLike[str]) -> BuiltinBot:
    """The bot a file of :func:`save_bot` describes; parameters it leaves out keep their defaults.

    The file is checked against its schema before anything is built: at most
    1 MB, nested at most 16 deep, ``kind``, ``class`` and ``name`` texts,
    ``strength`` an object of the strength's fields with values of their
    types, ``parameters`` an object of finite numbers (NaN and infinities are
    refused); other top-level keys (a tuning run's figures) are kept out.
    Each problem is said in one sentence.

    >>> load_bot("missing.json")
    Traceback (most recent call last):
    ...
    matchdb.play.interface.BotError: The bot file 'missing.json' does not exist; expected a file written by save_bot or 'matchdb tune bot --out'.
    """
    shown = repr(str(path))
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise BotError(f"The bot file {shown} does not exist; expected a file written by save_bot or "
                       "'matchdb tune bot --out'.") from None
    except OSError as error:
        raise BotError(f"The bot file {shown} cannot be read ({error.strerror or error}).") from None
    if len(raw) > _MAX_BOT_FILE:
        raise BotError(f"The bot file {shown} has {len(raw):,} bytes; expected at most {_MAX_BOT_FILE:,}.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BotError(f"The bot file {shown} is not UTF-8 text.") from None
    if _depth(text) > _MAX_DEPTH:
        raise BotError(f"The bot file {shown} nests arrays or objects {_depth(text)} deep; expected at most {_MAX_DEPTH}.")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise BotError(f"The bot file {shown} cannot be read as JSON ({error}).") from None
    if not isinstance(data, dict) or data.get("kind") != _BOT_FILE_KIND or data.get("class") not in _BOT_CLASSES:
        raise BotError(f"The file {shown} does not describe a bot; expected kind {_BOT_FILE_KIND!r} and a class "
                       f"among {', '.join(_BOT_CLASSES)}.")
    parameters = data.get("parameters", {})
    strength = data.get("strength", {})
    if not isinstance(parameters, dict) or not isinstance(strength, dict):
        raise BotError(f"The bot file {shown} holds parameters or a strength that are not JSON objects.")
    fields: dict[str, type | tuple[type, ...]] = {"kind": str, "samples": int, "model": str, "threshold": (int, float),
                                                  "redraws": int}
    for key, value in strength.items():
        if key not in fields:
            raise BotError(f"The bot file {shown} has a strength field {key!r}; expected only {', '.join(fields)}.")
        if isinstance(value, bool) or not isinstance(value, fields[key]):
            raise BotError(f"The bot file {shown} has the strength {key} {value!r}; expected a "
                           f"{'text' if fields[key] is str else 'number'}.")
    for key, value in parameters.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BotError(f"The bot file {shown} has the parameter {key} = {value!r}; expected a finite number.")
    built_strength = BuiltinStrength(**strength)
    name = data.get("name")
    if not isinstance(name, str) or not name or len(name) > 100:
        raise BotError(f"The bot file {shown} has the name {name!r}; expected a non-empty text of at most 100 characters.")
    cls = _BOT_CLASSES[data["class"]]
    bot = cls(name=name, strength=built_strength)
    bot.set(**parameters)
    return bot
