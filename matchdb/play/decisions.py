"""Betting decisions of the articles, as pure functions of what a player knows.

No I/O and no database here: every function takes numbers (a hand strength,
chips) and returns numbers or a decision. The ``*_kernel`` versions take
plain scalars without checks and are compiled by :mod:`matchdb.play.bots` for
the arena's fast loop, so Python bots and compiled bots decide with the same code.

**Mick West, "Programming Poker AI" (2005).** Pot odds are the call over the
pot after the call; the rate of return is hand strength over pot odds; it maps
to fold, call or raise through four bands whose probabilities make a
personality; a fold with nothing to call is a call (a check); and stack
protection folds when the chips put in would leave fewer than four big blinds
and the hand strength is below one half. His worked example: AD 2D on QC KC
2C, 500 in the pot, a bet of 100 with the last 100 chips, two opponents:

>>> odds = pot_odds(100, 500)
>>> round(odds, 4), round(rate_of_return(0.297, odds), 2), round(rate_of_return(0.2797, odds), 2)
(0.1667, 1.78, 1.68)
>>> stack_protection(stack=100, chips=100, big_blind=20, strength=0.297)
True

West leaves open what the rate of return is when there is nothing to call;
here it is computed for the bet the player would make (``bet_odds``), so a
player checked to bets strong hands and sometimes bluffs, as with a call.

**The match-table article.** Folding loses the current draw d_i; following
wins p x E[income | win] - max draw, and E[income | win] is at least the money
on the table plus the max draw minus one's own draw:

>>> fold_or_follow(p_win=0.3, money_on_table=600, own_draw=100, max_draw=200)
Follow(fold=-100.0, follow=10.0, follows=True)

The amount to draw is then the candidate with the largest expected income
(:func:`raise_income`, :func:`choose_raise_to`).

The ``*_kernel`` versions are plain Python that numba can also compile
(``register_jitable``): the compiled bots call them from their kernels (a
kernel interface: listed in ``__all__``, no checks).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from numba.extending import register_jitable

from matchdb.errors import MatchdbError

__all__ = [
    "DecisionError",
    "FOLD",
    "CALL",
    "RAISE",
    "WEST_BANDS",
    "Bands",
    "pot_odds",
    "bet_odds",
    "rate_of_return",
    "fcr_probabilities",
    "fold_call_raise",
    "stack_protection",
    "Follow",
    "fold_or_follow",
    "follow_probability",
    "raise_income",
    "choose_raise_to",
    "pot_raise_to",
    # The kernel interface: plain-scalar versions without checks (register_jitable), which the
    # compiled bots of matchdb.play.bots call from their kernels.
    "rate_of_return_kernel",
    "fold_call_raise_kernel",
    "stack_protection_kernel",
    "pot_raise_to_kernel",
    "choose_raise_to_kernel",
]


class DecisionError(MatchdbError):
    """A decision was asked for with numbers outside their range."""


FOLD = 0
CALL = 1
RAISE = 2


class Bands(NamedTuple):
    """West's fold/call/raise mapping: three rate-of-return thresholds and, per band, fold and raise chances.

    Band k holds rates of return below ``thresholds[k]`` (the last band the
    rest); its call chance is what fold and raise leave.
    """

    thresholds: tuple[float, float, float]
    fold: tuple[float, float, float, float]
    raise_: tuple[float, float, float, float]


#: The article's numbers: below 0.8 fold 95 % (raise 5 %, a bluff), below 1.0 fold 80 %,
#: call 5 %, raise 15 %; below 1.3 call 60 %, raise 40 %; else call 30 %, raise 70 %.
WEST_BANDS = Bands((0.8, 1.0, 1.3), (0.95, 0.80, 0.0, 0.0), (0.05, 0.15, 0.40, 0.70))


def _number(value: object, name: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise DecisionError(f"The {name} {value!r} is not a number.")
    value = float(value)
    if not (low <= value <= high) or value != value:
        raise DecisionError(f"The {name} {value!r} is out of range; expected {low} to {high}.")
    return value


# -- West ---------------------------------------------------------------------------------


@register_jitable
def _pot_odds(chips: float, pot: float) -> float:
    return chips / (pot + chips) if chips > 0 else 0.0


def pot_odds(to_call: float, pot: float) -> float:
    """The call over the pot after the call: ``to_call / (pot + to_call)`` (0 with nothing to call).

    ``pot`` is every chip in the middle before the call. West: a bet of 20
    into 40 gives 20 / 60.

    >>> round(pot_odds(20, 40), 3)
    0.333
    >>> pot_odds(-1, 40)
    Traceback (most recent call last):
    ...
    matchdb.play.decisions.DecisionError: The amount to call -1.0 is out of range; expected 0 to inf.
    """
    return _pot_odds(_number(to_call, "amount to call", 0), _number(pot, "pot", 0))


def bet_odds(bet: float, pot: float) -> float:
    """Pot odds of a bet into ``pot`` when there is nothing to call: ``bet / (pot + bet)``.

    >>> bet_odds(50, 100)
    0.3333333333333333
    """
    return _pot_odds(_number(bet, "bet", 0), _number(pot, "pot", 0))


@register_jitable
def rate_of_return_kernel(strength: float, odds: float) -> float:
    return strength / odds if odds > 0 else math.inf


def rate_of_return(strength: float, odds: float) -> float:
    """West's rate of return: hand strength over pot odds (infinite when the odds are 0).

    >>> rate_of_return(0.5, 0.25)
    2.0
    """
    return rate_of_return_kernel(_number(strength, "hand strength", 0, 1), _number(odds, "pot odds", 0, 1))


@register_jitable
def _fcr_probabilities(
    rr: float, t1: float, t2: float, t3: float, f1: float, f2: float, f3: float, f4: float, r1: float, r2: float, r3: float,
    r4: float,
) -> tuple[float, float, float]:
    if rr < t1:
        fold, raise_ = f1, r1
    elif rr < t2:
        fold, raise_ = f2, r2
    elif rr < t3:
        fold, raise_ = f3, r3
    else:
        fold, raise_ = f4, r4
    total = fold + raise_
    if total > 1.0:  # a walk over the parameters may overshoot: keep the ratio
        fold /= total
        raise_ /= total
    return fold, 1.0 - fold - raise_, raise_


def _check_bands(bands: Bands) -> Bands:
    thresholds, fold, raise_ = bands
    if len(thresholds) != 3 or len(fold) != 4 or len(raise_) != 4:
        raise DecisionError(f"The bands {bands!r} need 3 thresholds and 4 fold and 4 raise chances.")
    if list(thresholds) != sorted(thresholds):
        raise DecisionError(f"The thresholds {thresholds!r} are not in increasing order.")
    for p in (*fold, *raise_):
        _number(p, "band chance", 0, 1)
    return bands


def fcr_probabilities(rr: float, bands: Bands = WEST_BANDS) -> tuple[float, float, float]:
    """(fold, call, raise) chances of a rate of return under ``bands``.

    >>> [round(p, 4) for p in fcr_probabilities(0.9)]
    [0.8, 0.05, 0.15]
    """
    thresholds, fold, raise_ = _check_bands(bands)
    return _fcr_probabilities(_number(rr, "rate of return", 0), *thresholds, *fold, *raise_)


@register_jitable
def fold_call_raise_kernel(
    rr: float, u: float, to_call: float, t1: float, t2: float, t3: float, f1: float, f2: float, f3: float, f4: float,
    r1: float, r2: float, r3: float, r4: float,
) -> int:
    fold, call, _ = _fcr_probabilities(rr, t1, t2, t3, f1, f2, f3, f4, r1, r2, r3, r4)
    if u < fold:
        return CALL if to_call <= 0 else FOLD  # "if fold and amount to call is zero, then call"
    if u < fold + call:
        return CALL
    return RAISE


def fold_call_raise(rr: float, u: float, to_call: float, bands: Bands = WEST_BANDS) -> int:
    """West's decision for a uniform draw ``u`` in [0, 1): FOLD, CALL or RAISE; a free fold is a call.

    >>> fold_call_raise(0.5, u=0.5, to_call=10), fold_call_raise(0.5, u=0.5, to_call=0)
    (0, 1)
    """
    thresholds, fold, raise_ = _check_bands(bands)
    return fold_call_raise_kernel(_number(rr, "rate of return", 0), _number(u, "uniform draw", 0, 1),
                            _number(to_call, "amount to call", 0), *thresholds, *fold, *raise_)


@register_jitable
def stack_protection_kernel(
    stack: float, chips: float, big_blind: float, strength: float, min_blinds: float, min_strength: float
) -> bool:
    return chips > 0 and stack - chips < big_blind * min_blinds and strength < min_strength


def stack_protection(stack: float, chips: float, big_blind: float, strength: float,
                     min_blinds: float = 4.0, min_strength: float = 0.5) -> bool:
    """West's stack protection: True (fold) when putting in ``chips`` leaves fewer than
    ``min_blinds`` big blinds and the hand strength is below ``min_strength``.

    Putting in nothing never folds.

    >>> stack_protection(1000, 100, 20, 0.3), stack_protection(100, 100, 20, 0.6)
    (False, False)
    """
    return bool(stack_protection_kernel(_number(stack, "stack", 0), _number(chips, "chips put in", 0),
                                  _number(big_blind, "big blind", 0), _number(strength, "hand strength", 0, 1),
                                  _number(min_blinds, "big blinds kept", 0), _number(min_strength, "strength needed", 0, 1)))


# -- the match-table article ------------------------------------------------------------------


class Follow(NamedTuple):
    """The two values the match-table article compares: fold loses the draw, follow wins the expected income."""

    fold: float
    follow: float
    follows: bool


@register_jitable
def _follow_value(p_win: float, income: float, max_draw: float) -> float:
    return p_win * income - max_draw


def fold_or_follow(p_win: float, money_on_table: float, own_draw: float, max_draw: float,
                   income: float | None = None) -> Follow:
    """Fold (value ``-own_draw``) or follow (``p_win * income - max_draw``), whichever is larger.

    ``money_on_table`` is every chip in the pot now (own draw included);
    ``income``, the expected pot when winning, defaults to the article's lower
    bound ``money_on_table + max_draw - own_draw`` and may not be below it.

    >>> fold_or_follow(0.1, 600, 100, 200).follows
    False
    """
    p_win = _number(p_win, "win probability", 0, 1)
    money = _number(money_on_table, "money on the table", 0)
    own = _number(own_draw, "own draw", 0)
    top = _number(max_draw, "max draw", own)
    bound = money + top - own
    income = bound if income is None else _number(income, "expected income", bound)
    follow = _follow_value(p_win, income, top)
    return Follow(-own, follow, follow > -own)


@register_jitable
def _follow_probability(raise_by: float, pot: float, decay: float) -> float:
    return math.exp(-decay * raise_by / pot) if pot > 0 else 0.0


def follow_probability(raise_by: float, pot: float, decay: float) -> float:
    """Chance that one opponent follows a raise of ``raise_by`` over the current bet: exp(-decay * raise / pot).

    ``pot`` is the pot after one's call. The article leaves the expected
    income open; this simple follower model prices it.

    >>> round(follow_probability(100, 100, 1.0), 4)
    0.3679
    """
    return _follow_probability(_number(raise_by, "raise", 0), _number(pot, "pot", 0), _number(decay, "decay", 0))


@register_jitable
def _raise_income(
    p_win: float, pot: float, to_call: float, own_draw: float, raise_by: float, opponents: int, decay: float
) -> float:
    """Expected result (chips, relative to the start of the hand) of calling and raising by ``raise_by``."""
    after_call = pot + to_call
    if raise_by <= 0:
        return p_win * after_call - own_draw - to_call
    c = _follow_probability(raise_by, after_call, decay)
    nobody = (1.0 - c) ** opponents
    put_in = to_call + raise_by
    called = p_win * (pot + put_in) - own_draw - put_in
    return nobody * (pot - own_draw) + (1.0 - nobody) * called + p_win * opponents * c * raise_by


def raise_income(p_win: float, pot: float, to_call: float, own_draw: float, raise_by: float,
                 opponents: int, decay: float) -> float:
    """Expected result of following and raising by ``raise_by`` (0: just follow), in chips from the hand's start.

    Each of the ``opponents`` follows the raise with :func:`follow_probability`;
    when nobody does the pot is won as it stands (``pot - own_draw`` gained);
    otherwise the hand is won with ``p_win`` and every follower adds the
    raise. With ``raise_by = 0`` this is the article's follow value with its
    lower bound on the income.

    >>> raise_income(0.5, 100, 0, 50, 0, 1, 1.0)
    0.0
    >>> raise_income(0.5, 100, 0, 50, 100, 1, 0.0)    # always followed: 0.5 * 300 - 150
    0.0
    """
    return _raise_income(_number(p_win, "win probability", 0, 1), _number(pot, "pot", 0),
                         _number(to_call, "amount to call", 0), _number(own_draw, "own draw", 0),
                         _number(raise_by, "raise", 0), int(_number(opponents, "opponents", 0, 22)),
                         _number(decay, "decay", 0))


@register_jitable
def pot_raise_to_kernel(
    fraction: float, pot: float, to_call: float, max_bet: float, min_to: int, max_to: int, shove: float
) -> int:
    """Raise-to amount of a raise of ``fraction`` x the pot after the call, clamped; all-in past ``shove`` x max."""
    target = max_bet + fraction * (pot + to_call)
    amount = int(round(target))
    if amount < min_to:
        amount = min_to
    if amount > max_to or amount >= shove * max_to:
        amount = max_to
    return amount


def pot_raise_to(fraction: float, pot: int, to_call: int, max_bet: int, min_raise_to: int, max_raise_to: int,
                 shove: float = 1.0) -> int:
    """The raise-to amount for a raise of ``fraction`` times the pot after calling, within the legal range.

    Past ``shove`` times the all-in amount the raise is all-in (a raise that
    commits most of a stack might as well commit all of it).

    >>> pot_raise_to(1.0, pot=30, to_call=10, max_bet=10, min_raise_to=20, max_raise_to=1000)
    50
    >>> pot_raise_to(1.0, 30, 10, 10, 20, 60, shove=0.8)
    60
    """
    return pot_raise_to_kernel(_number(fraction, "pot fraction", 0), _number(pot, "pot", 0), _number(to_call, "amount to call", 0),
                         _number(max_bet, "largest bet", 0), int(min_raise_to), int(max_raise_to),
                         _number(shove, "all-in fraction", 0, 1))


@register_jitable
def choose_raise_to_kernel(
    p_win: float, pot: float, to_call: float, own_draw: float, bet: float, max_bet: float, min_to: int, max_to: int,
    opponents: int, decay: float, f1: float, f2: float, f3: float,
) -> int:
    """The raise-to amount (min raise, three pot fractions, all-in) with the largest expected income, or -1
    when following without a raise is worth more than any."""
    best = _raise_income(p_win, pot, to_call, own_draw, 0.0, opponents, decay)
    choice = -1
    for k in range(5):
        if k == 0:
            x = min_to
        elif k == 4:
            x = max_to
        else:
            fraction = f1 if k == 1 else (f2 if k == 2 else f3)
            x = pot_raise_to_kernel(fraction, pot, to_call, max_bet, min_to, max_to, 1.0)
        value = _raise_income(p_win, pot, to_call, own_draw, x - max_bet, opponents, decay)
        if value > best + 1e-9:
            best = value
            choice = x
    return choice


def choose_raise_to(p_win: float, pot: int, to_call: int, own_draw: int, bet: int, max_bet: int,
                    min_raise_to: int, max_raise_to: int, opponents: int, decay: float = 1.0,
                    fractions: tuple[float, float, float] = (0.5, 1.0, 2.0)) -> int | None:
    """The article's second stage: the draw with the largest expected income, or None to just follow.

    Candidates are the minimum raise, raises of ``fractions`` of the pot and
    all-in, each valued by :func:`raise_income`.

    >>> choose_raise_to(0.9, pot=100, to_call=0, own_draw=50, bet=0, max_bet=0,
    ...                 min_raise_to=10, max_raise_to=500, opponents=1, decay=0.0)
    500
    >>> choose_raise_to(0.2, 100, 0, 50, 0, 0, 10, 500, 1, decay=0.0) is None
    True
    """
    if len(fractions) != 3:
        raise DecisionError(f"The pot fractions {fractions!r} are not three numbers.")
    if not 0 < min_raise_to <= max_raise_to or max_raise_to <= max_bet:
        raise DecisionError(f"The raise range {min_raise_to}..{max_raise_to} is empty or not above the bet {max_bet}.")
    x = choose_raise_to_kernel(_number(p_win, "win probability", 0, 1), _number(pot, "pot", 0), _number(to_call, "amount to call", 0),
                         _number(own_draw, "own draw", 0), _number(bet, "own bet", 0), _number(max_bet, "largest bet", 0),
                         int(min_raise_to), int(max_raise_to), int(_number(opponents, "opponents", 0, 22)),
                         _number(decay, "decay", 0), *(_number(f, "pot fraction", 0) for f in fractions))
    return None if x < 0 else int(x)
