"""A no-limit Texas hold'em engine for 2 to 10 seats, written for speed.

The rules live in numba kernels that act on two integer arrays, so the same
code serves a Python loop (bots written in Python answer one method) and the
compiled loop of :mod:`matchdb.play.games` (the built-in bots, tens of thousands of
hands per second). The rules, checked against pokerkit in the tests:

- **Seats and button.** Physical seats 0..N-1; a seat with chips is dealt in.
  The button moves to the next seat still in each hand; :class:`Rules` offers
  the TDA's dead button instead (the big blind moves one player a hand). With
  three or more players the next two seats after the button post the small and
  the big blind; heads-up the button posts the small blind and acts first
  preflop, last afterwards. Short stacks post what they have; when the big
  blind is short, the others still owe the full big blind (card rooms; the
  ``"posted"`` option of :class:`Rules` charges only what it posted, as
  pokerkit does). Every rule choice is listed in ``docs/guide/rules.md``.
- **Antes** (optional) are posted by every player before the blinds and are
  dead money; an ante nobody else matched is returned, like an uncalled bet.
- **Betting.** Preflop the first player after the big blind acts first, later
  the first player after the button. A bet or raise must add at least the
  largest full bet or raise of the round and never less than the big blind
  (all-in excepted). An all-in wager smaller than that is *short*: it does not
  reopen the betting for a player who has already acted in the round unless
  the short all-ins since that player acted add up to a full raise (the TDA
  rule). Nobody may raise when every other player is all-in or folded, and a
  player whose chips in already cover everyone else's is not asked to act at
  the start of a round (pokerkit's effective stack). A fold
  with nothing to call is played as a check (West: "if fold and amount to call
  is zero, call"; the :data:`RULE_OPEN_FOLD` bit, which the replay of recorded
  hands sets, plays it as a fold); a raise that is not allowed is played as a
  call; a raise amount is clamped to the legal range.
- **Recorded hands** (:mod:`matchdb.hands`, through
  :mod:`matchdb.play.recorded`) may set :data:`RULE_POSTS`: every seat then
  posts its own forced bet (blinds, straddles, a newly seated player's post;
  a negative one is dead money), and at a
  showdown a seat whose hole cards are unknown (-1) plays the board with the
  cards it has (pokerkit's reading of cards a record does not show).
- **Pots.** At the end of each round the part of the largest bet that nobody
  matched goes back to its owner. At showdown the chips form a main pot and
  side pots by contribution level. Hands that cannot win any of them are out
  first, and consecutive pots the remaining hands share are merged (as
  pokerkit does; it decides where odd chips go). Each pot is split evenly
  among the best hands that can win it; the odd chips all go to the winner
  seated first after the button (pokerkit's rule).
- **Cards.** A seat's hole cards are ``deck[2 s], deck[2 s + 1]`` for physical
  seat ``s``, whoever is still in; the board is the five cards after the
  ``2 N`` hole cards. There are no burn cards: with a uniformly shuffled deck
  burning changes which cards come out, not how they are distributed.
  :func:`shuffled_decks` shuffles by Fisher-Yates with draws from a seeded
  numpy Generator, so a seed reproduces every card.

Where this engine and pokerkit 0.7.7 differ, on purpose: pokerkit measures a
short all-in against the largest *increment* so far in the round (0 before
the first wager) instead of against a full bet of at least the big blind, so
when a round opens with all-in wagers smaller than the big blind it lets
players who already acted re-raise; and it does not reopen the betting when
several short all-ins add up to a full raise. The tests pin both cases. (With
equal blinds heads-up pokerkit also lets the big blind act first; the tests
play small blinds below big blinds.) When no blind put a chip in (a zero small
blind and a big blind all-in on its ante, under the ``"posted"`` rule), the
round opens with the first player after the button, as in pokerkit.

>>> table = Table([100, 100, 100], small_blind=1, big_blind=2, seed=7)
>>> hand = table.start_hand()
>>> hand.actor, hand.legal()
(0, Legal(to_call=2, can_raise=True, min_raise_to=4, max_raise_to=100))
>>> while not hand.over:
...     _ = hand.act(CALL)
>>> sum(table.stacks), hand.over
(300, True)
>>> Table([100], 1, 2)
Traceback (most recent call last):
...
matchdb.play.engine.EngineError: A table needs 2 to 10 seats; got 1 stacks [100].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.errors import MatchdbError
from matchdb.jit import jit

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "EngineError",
    "MAX_SEATS",
    "FOLD",
    "CHECK",
    "CALL",
    "RAISE",
    "SMALL_BLIND",
    "BIG_BLIND",
    "ANTE",
    "ACTION_NAMES",
    "STREETS",
    "Rules",
    "RULE_POSTED_BLIND",
    "RULE_DEAD_BUTTON",
    "RULE_OPEN_FOLD",
    "RULE_POSTS",
    "Legal",
    "View",
    "HandRecord",
    "HandResult",
    "GameStart",
    "Hand",
    "Table",
    "TableState",
    "shuffled_decks",
    "log_capacity",
]


class EngineError(MatchdbError):
    """A table, a hand or an action was set up against the rules or the engine's limits."""


#: Most seats at one table.
MAX_SEATS = 10

# Action kinds, as bots give them and as the history records them.
FOLD = 0
CHECK = 1  # check, or call when there is something to call (bots may give either)
CALL = 2
RAISE = 3  # bet or raise *to* an amount
SMALL_BLIND = 4  # history only
BIG_BLIND = 5
ANTE = 6
ACTION_NAMES = ("fold", "check", "call", "raise", "small blind", "big blind", "ante")
STREETS = ("preflop", "flop", "turn", "river", "over")

# -- state layout (private: read the state through Hand and Table, TableState, or matchdb.play.recorded) -------------
# g: one int64 vector of table-wide scalars; p: (_P_FIELDS, MAX_SEATS) per-seat fields; log: (rows, 4) history rows.
# Only this package's compiled loops (matchdb.play.games, matchdb.play.recorded) index them.
_G_SEATS = 0  # physical seats N
_G_BUTTON = 1
_G_SB = 2  # blind and ante amounts
_G_BB = 3
_G_ANTE = 4
_G_STREET = 5  # 0 preflop .. 3 river, 4 the hand is over
_G_ACTOR = 6  # seat to act, -1 when none
_G_MAXBET = 7  # largest bet of the round
_G_LASTFULL = 8  # largest full bet or raise increment of the round (0 before one)
_G_POT = 9  # chips collected from finished rounds and antes
_G_SHORTOPEN = 10  # a short all-in wager came before any full one in this round (pokerkit differs)
_G_NLOG = 11  # entries used in the action log
_G_SB_SEAT = 12
_G_BB_SEAT = 13
_G_ACTIVE = 14  # players dealt in and not folded
_G_DEALT = 15  # players dealt in
_G_SHOWDOWN = 16  # 1 when the hand ended at a showdown
_G_REACHED = 17  # the last street dealt (0 preflop .. 3 river)
_G_NPOTS = 18  # pots paid at showdown
_G_SHORTSUM = 19  # short all-in raises since the last full one; reaching a full raise sets _G_SHORTFULL
_G_SHORTFULL = 20  # short all-ins added up to a full raise in this round (pokerkit differs)
_G_RULES = 21  # rule options as bits (RULE_POSTED_BLIND, RULE_DEAD_BUTTON; see Rules)
_G_HANDNO = 22  # hands dealt at this table so far
_G_POTS = 23  # from here, 3 entries per pot paid at showdown: amount, seats eligible, seats paid (bit masks)
_G_DEAD = _G_POTS + 3 * MAX_SEATS  # dead money in the pot this hand (posts under RULE_POSTS), in no seat's contribution
_G_FIELDS = _G_DEAD + 1

_P_STACK = 0
_P_BET = 1  # chips put in during this round
_P_CONTRIB = 2  # chips put in during this hand (antes and every round)
_P_STATE = 3  # 0 not dealt in, 1 in the hand, 2 folded
_P_TOACT = 4  # still to act in this round
_P_ACTED = 5  # acted since the last full bet or raise of this round
_P_START = 6  # stack at the start of the hand
_P_WON = 7  # chips received at the end of the hand
_P_HOLE0 = 8
_P_HOLE1 = 9
_P_VALUE = 10  # hand value at showdown
_P_POST = 11  # under RULE_POSTS: the chips this seat posts before the cards (blinds, straddles, posts); < 0: dead
_P_BACK = 12  # chips given back this hand: the part of a bet (or an ante) that nobody matched
_P_FIELDS = 13

_LOG_STREET = 0
_LOG_SEAT = 1
_LOG_KIND = 2
_LOG_AMOUNT = 3  # raise-to amount for raises, chips added otherwise

#: Rule bit: callers owe only what a short big blind posted (pokerkit 0.7.7), not the full big blind.
RULE_POSTED_BLIND = 1
#: Rule bit: a dead button (TDA): the big blind moves one seat a hand, the button may sit on an empty seat.
RULE_DEAD_BUTTON = 2
#: Rule bit: a fold with nothing to call is a fold (card rooms allow it; pokerkit replays it), not a check.
RULE_OPEN_FOLD = 4
#: Rule bit: every seat posts its own forced bet (a recorded hand's blinds, straddles and posts of newly seated
#: players; a negative amount is dead money, logged as an ante) instead of a small and a big blind after the button;
#: the preflop action starts after a given seat and the big blind stays the smallest full bet or raise
#: (:func:`matchdb.play.recorded.recorded_table` seats such a hand).
RULE_POSTS = 8


@dataclass(frozen=True)
class Rules:
    """The engine's rule options; the defaults are the card rooms' and the TDA's choices (see the module notes).

    ``short_big_blind``: ``"full"`` (default): when the big blind is short
    (all-in for less), the others still owe the full big blind and a raise
    goes to at least two big blinds, as card rooms rule; ``"posted"``: they
    owe only what the short big blind posted (pokerkit 0.7.7's rule, which
    the pokerkit oracle test plays). ``button``: ``"moving"`` (default): the
    button moves to the next seat with chips; ``"dead"``: the TDA's dead
    button: the big blind moves to the next player after the last big blind,
    the small blind sits where the big blind was (no small blind when that
    player is out) and the button where the small blind was (perhaps an
    empty seat), so nobody posts the big blind twice in a row or skips it;
    heads-up the button posts the small blind.

    >>> Rules().code, Rules("posted", "dead").code
    (0, 3)
    >>> Rules(button="rotating")
    Traceback (most recent call last):
    ...
    matchdb.play.engine.EngineError: The button rule 'rotating' is unknown; expected 'moving' or 'dead'.
    """

    short_big_blind: str = "full"
    button: str = "moving"

    def __post_init__(self) -> None:
        if self.short_big_blind not in ("full", "posted"):
            raise EngineError(f"The short big blind rule {self.short_big_blind!r} is unknown; expected 'full' or 'posted'.")
        if self.button not in ("moving", "dead"):
            raise EngineError(f"The button rule {self.button!r} is unknown; expected 'moving' or 'dead'.")

    @property
    def code(self) -> int:
        """The rule bits the kernels read (:data:`RULE_POSTED_BLIND`, :data:`RULE_DEAD_BUTTON`)."""
        return (RULE_POSTED_BLIND if self.short_big_blind == "posted" else 0) | (
            RULE_DEAD_BUTTON if self.button == "dead" else 0)


class Legal(NamedTuple):
    """What the player to act may do: fold when ``to_call > 0``, check or call, raise to ``min..max``."""

    to_call: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int


@dataclass(frozen=True)
class View:
    """What the player to act may see, and nothing more: the one object a bot gets.

    Cards are card ids (:mod:`matchdb.core.cards`); per-seat tuples are indexed by
    physical seat. ``in_hand`` marks seats dealt in and not folded,
    ``players`` counts them (the player to act included). ``history`` holds
    ``(street, seat, kind, amount)`` of every post and action of the hand
    (kinds index :data:`ACTION_NAMES`). ``source`` is what the table offers
    for hand strengths (a :class:`matchdb.play.strength.StrengthSource` in the
    arena), or None. ``hand`` is the hand's number in the game (0 first) and
    ``names`` the name of the bot in each seat (empty outside a game).
    """

    seat: int
    hole: tuple[int, int]
    board: tuple[int, ...]
    street: int
    pot: int
    to_call: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    stack: int
    bet: int
    contributed: int
    max_bet: int
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    contributions: tuple[int, ...]
    in_hand: tuple[bool, ...]
    button: int
    small_blind: int
    big_blind: int
    ante: int
    players: int
    history: tuple[tuple[int, int, int, int], ...]
    source: object = None
    hand: int = 0
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class HandResult:
    """What a bot learns when a hand ends (a bot's ``on_hand_end(result)`` gets one, its own ``seat`` set).

    ``hand`` is the hand's number in the game (0 first), ``names`` the bot in
    each seat, ``board`` the cards dealt, ``history`` every post and action
    (``(street, seat, kind, amount)``, kinds index :data:`ACTION_NAMES`),
    ``shown`` each seat's hole cards where they were shown (the players at a
    showdown, and always the receiving seat's own), else None; ``start`` and
    ``stacks`` the stacks before and after, ``won`` what each seat received,
    ``net`` its result (``stacks - start``), ``pots`` the pots paid at a
    showdown as ``(amount, seats that could win it, seats paid)``.
    """

    hand: int
    seat: int
    names: tuple[str, ...]
    button: int
    small_blind: int
    big_blind: int
    ante: int
    board: tuple[int, ...]
    history: tuple[tuple[int, int, int, int], ...]
    shown: tuple[tuple[int, int] | None, ...]
    start: tuple[int, ...]
    stacks: tuple[int, ...]
    won: tuple[int, ...]
    net: tuple[int, ...]
    showdown: bool
    pots: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class GameStart:
    """What a bot learns when a game starts (a bot's ``on_game_start(start)`` gets one, its own ``seat`` set).

    A bot object may play many games in a run, in another seat each time
    (the arena seats the bots anew for each game); this is where it learns
    which. ``names`` is the bot in each seat, ``stacks`` the starting
    stacks, ``button`` the first hand's button, ``small_blind``,
    ``big_blind`` and ``ante`` the first hand's blinds, ``mode``
    ``"tournament"``, ``"cash"`` or ``"sng"`` (a person's sit-and-go), and
    ``hands`` the game's length in hands (a cash session's; a tournament's
    safety cap), None when it has none.
    """

    seat: int
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int
    small_blind: int
    big_blind: int
    ante: int
    mode: str
    hands: int | None = None


# -- kernels -----------------------------------------------------------------------


@jit
def _next_seat(p: NDArray[np.int64], n: int, seat: int, field: int) -> int:
    """First seat after ``seat`` (clockwise) whose ``field`` is non-zero, or -1."""
    for k in range(1, n + 1):
        s = (seat + k) % n
        if p[field, s] != 0:
            return s
    return -1


@jit
def _next_dealt(p: NDArray[np.int64], n: int, seat: int) -> int:
    for k in range(1, n + 1):
        s = (seat + k) % n
        if p[_P_STATE, s] != 0:
            return s
    return -1


@jit
def _log(g: NDArray[np.int64], log: NDArray[np.int64], street: int, seat: int, kind: int, amount: int) -> None:
    i = g[_G_NLOG]
    if i < log.shape[0]:
        log[i, _LOG_STREET] = street
        log[i, _LOG_SEAT] = seat
        log[i, _LOG_KIND] = kind
        log[i, _LOG_AMOUNT] = amount
    g[_G_NLOG] = i + 1


@jit
def _legal_kernel(g: NDArray[np.int64], p: NDArray[np.int64]) -> tuple[int, bool, int, int]:
    """(to_call, can_raise, min_raise_to, max_raise_to) of the player to act; to_call -1 when nobody is to act."""
    seat = g[_G_ACTOR]
    if seat < 0:
        return -1, False, 0, 0
    n = g[_G_SEATS]
    stack = p[_P_STACK, seat]
    bet = p[_P_BET, seat]
    maxbet = g[_G_MAXBET]
    to_call = min(stack, maxbet - bet)
    full = max(g[_G_LASTFULL], g[_G_BB])
    can_raise = stack > maxbet - bet
    if can_raise and p[_P_ACTED, seat] != 0 and maxbet - bet < full:
        can_raise = False  # facing less than a full raise since this player acted
    if can_raise:
        other = False
        for s in range(n):
            if s != seat and p[_P_STATE, s] == 1 and p[_P_STACK, s] + p[_P_BET, s] > maxbet:
                other = True
                break
        can_raise = other
    max_to = stack + bet
    min_to = min(max_to, maxbet + full)
    if not can_raise:
        min_to = 0
        max_to = 0
    return to_call, can_raise, min_to, max_to


@jit
def _pokerkit_differs(g: NDArray[np.int64]) -> tuple[bool, bool]:
    """(pokerkit may allow raises these rules do not, pokerkit may refuse raises these rules allow) in this round.

    pokerkit 0.7.7 measures short all-ins against the largest increment so far
    (0 before the round's first wager), so it reopens the betting after a short
    all-in that opened the round; and it does not reopen it when short all-ins
    add up to a full raise (see the module notes).
    """
    return g[_G_SHORTOPEN] != 0, g[_G_SHORTFULL] != 0


@jit
def _begin_round(g: NDArray[np.int64], p: NDArray[np.int64]) -> bool:
    """Set the players to act in a new round; return True when the round needs no action."""
    n = g[_G_SEATS]
    # a player who already covers every other player's chips has nothing to decide (pokerkit's effective stack)
    first_total = 0
    second_total = 0
    for s in range(n):
        if p[_P_STATE, s] == 1:
            total = p[_P_STACK, s] + p[_P_BET, s]
            if total > first_total:
                second_total = first_total
                first_total = total
            elif total > second_total:
                second_total = total
    count = 0
    for s in range(n):
        t = 1 if (p[_P_STATE, s] == 1 and min(p[_P_STACK, s], second_total - p[_P_BET, s]) > 0) else 0
        p[_P_TOACT, s] = t
        p[_P_ACTED, s] = 0
        count += t
    g[_G_LASTFULL] = 0
    g[_G_SHORTOPEN] = 0
    g[_G_SHORTSUM] = 0
    g[_G_SHORTFULL] = 0
    if g[_G_STREET] == 0 and g[_G_MAXBET] > 0:
        first = _next_seat(p, n, g[_G_BB_SEAT], _P_TOACT)
    else:
        first = _next_seat(p, n, g[_G_BUTTON], _P_TOACT)
    if count == 0:
        return True
    if count == 1 and p[_P_BET, first] >= g[_G_MAXBET]:
        return True
    g[_G_ACTOR] = first
    return False


@jit
def _collect(g: NDArray[np.int64], p: NDArray[np.int64]) -> None:
    """End a betting round: return the unmatched part of the largest bet, move bets into the pot."""
    n = g[_G_SEATS]
    top = -1
    first = 0
    second = 0
    for s in range(n):
        b = p[_P_BET, s]
        if b > first:
            second = first
            first = b
            top = s
        elif b > second:
            second = b
    if top >= 0 and first > second:
        back = first - second
        p[_P_STACK, top] += back
        p[_P_BET, top] -= back
        p[_P_CONTRIB, top] -= back
        p[_P_BACK, top] += back
    total = 0
    for s in range(n):
        total += p[_P_BET, s]
        p[_P_BET, s] = 0
        p[_P_TOACT, s] = 0
        p[_P_ACTED, s] = 0
    g[_G_POT] += total
    g[_G_MAXBET] = 0
    g[_G_ACTOR] = -1


@jit
def _showdown(g: NDArray[np.int64], p: NDArray[np.int64], board: NDArray[np.int64]) -> None:
    """Evaluate the hands still in and pay every pot; the odd chips go to the first winner after the button."""
    n = g[_G_SEATS]
    counts = np.zeros(13, dtype=np.int64)
    cards = np.empty(7, dtype=np.int64)
    for k in range(5):
        cards[2 + k] = board[k]
    for s in range(n):
        if p[_P_STATE, s] == 1:
            cards[0] = p[_P_HOLE0, s]
            cards[1] = p[_P_HOLE1, s]
            if cards[0] >= 0 and cards[1] >= 0:
                p[_P_VALUE, s] = evaluate_with(cards, counts, STRAIGHT_TOP, FLUSH_VALUE)
            elif cards[0] < 0 and cards[1] < 0:  # cards unknown (a replayed record's hidden hand): the board plays
                p[_P_VALUE, s] = evaluate_with(cards[2:], counts, STRAIGHT_TOP, FLUSH_VALUE)
            else:
                cards[1] = max(cards[0], cards[1])
                p[_P_VALUE, s] = evaluate_with(cards[1:], counts, STRAIGHT_TOP, FLUSH_VALUE)
        else:
            p[_P_VALUE, s] = -1
    # seats in odd-chip order: first after the button
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        order[k] = (g[_G_BUTTON] + 1 + k) % n
    # Hands that cannot win any pot are out first (pokerkit kills them before pushing chips), so
    # that pots the remaining hands share are merged, which decides where odd chips go.
    alive = 0
    previous = 0
    while True:
        level = -1
        for s in range(n):
            c = p[_P_CONTRIB, s]
            if c > previous and (level < 0 or c < level):
                level = c
        if level < 0:
            break
        best = -1
        for s in range(n):
            if p[_P_STATE, s] == 1 and p[_P_CONTRIB, s] >= level and p[_P_VALUE, s] > best:
                best = p[_P_VALUE, s]
        for s in range(n):
            if p[_P_STATE, s] == 1 and p[_P_CONTRIB, s] >= level and p[_P_VALUE, s] == best:
                alive |= 1 << s
        previous = level
    previous = 0
    pending = 0  # chips of levels not yet paid (merged while the winners' set stays the same)
    pending_mask = -1
    while True:
        level = -1
        for s in range(n):
            c = p[_P_CONTRIB, s]
            if c > previous and (level < 0 or c < level):
                level = c
        if level < 0:
            break
        amount = g[_G_DEAD] if previous == 0 else 0  # dead money is in the main pot
        for s in range(n):
            amount += min(p[_P_CONTRIB, s], level) - min(p[_P_CONTRIB, s], previous)
        mask = 0
        for s in range(n):
            if alive >> s & 1 and p[_P_CONTRIB, s] >= level:
                mask |= 1 << s
        if pending_mask >= 0 and mask != pending_mask and pending > 0:
            _pay(g, p, n, order, pending, pending_mask)
            pending = 0
        pending += amount
        pending_mask = mask
        previous = level
    if pending > 0:
        _pay(g, p, n, order, pending, pending_mask)


@jit
def _pay(g: NDArray[np.int64], p: NDArray[np.int64], n: int, order: NDArray[np.int64], amount: int, mask: int) -> None:
    best = -1
    for s in range(n):
        if mask >> s & 1 and p[_P_VALUE, s] > best:
            best = p[_P_VALUE, s]
    winners = 0
    for s in range(n):
        if mask >> s & 1 and p[_P_VALUE, s] == best:
            winners += 1
    if winners == 0:  # nobody can win these chips (cannot happen in a played hand)
        return
    share = amount // winners
    odd = amount - share * winners
    paid = 0
    for k in range(n):
        s = order[k]
        if mask >> s & 1 and p[_P_VALUE, s] == best:
            p[_P_WON, s] += share + odd
            p[_P_STACK, s] += share + odd
            odd = 0
            paid |= 1 << s
    k = g[_G_NPOTS]
    if k < MAX_SEATS:
        g[_G_POTS + 3 * k] = amount
        g[_G_POTS + 3 * k + 1] = mask
        g[_G_POTS + 3 * k + 2] = paid
        g[_G_NPOTS] = k + 1


@jit
def _finish_round(g: NDArray[np.int64], p: NDArray[np.int64], board: NDArray[np.int64]) -> None:
    """Collect the bets, then deal on (skipping rounds nobody can bet in) or settle the hand."""
    while True:
        _collect(g, p)
        if g[_G_ACTIVE] <= 1:
            for s in range(g[_G_SEATS]):
                if p[_P_STATE, s] == 1:
                    p[_P_WON, s] += g[_G_POT]
                    p[_P_STACK, s] += g[_G_POT]
            g[_G_STREET] = 4
            return
        if g[_G_STREET] == 3:
            _showdown(g, p, board)
            g[_G_SHOWDOWN] = 1
            g[_G_STREET] = 4
            return
        g[_G_STREET] += 1
        g[_G_REACHED] = g[_G_STREET]
        if not _begin_round(g, p):
            return


@jit
def _post(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    seat: int,
    amount: int,
    kind: int,
) -> None:
    a = min(amount, p[_P_STACK, seat])
    p[_P_STACK, seat] -= a
    p[_P_BET, seat] += a
    p[_P_CONTRIB, seat] += a
    _log(g, log, 0, seat, kind, a)


@jit
def _start_hand_kernel(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    deck: NDArray[np.int64],
    button: int,
) -> int:
    """Deal a hand from ``deck`` with the button on ``button``: antes, blinds, first actor.

    Players with chips (``p[_P_STACK] > 0``) are dealt in. Returns the number
    of players dealt in; fewer than two means no hand was started.
    """
    n = g[_G_SEATS]
    dealt = 0
    for s in range(n):
        p[_P_BET, s] = 0
        p[_P_CONTRIB, s] = 0
        p[_P_TOACT, s] = 0
        p[_P_ACTED, s] = 0
        p[_P_WON, s] = 0
        p[_P_BACK, s] = 0
        p[_P_VALUE, s] = -1
        p[_P_START, s] = p[_P_STACK, s]
        if p[_P_STACK, s] > 0:
            p[_P_STATE, s] = 1
            p[_P_HOLE0, s] = deck[2 * s]
            p[_P_HOLE1, s] = deck[2 * s + 1]
            dealt += 1
        else:
            p[_P_STATE, s] = 0
            p[_P_HOLE0, s] = -1
            p[_P_HOLE1, s] = -1
    g[_G_DEALT] = dealt
    g[_G_ACTIVE] = dealt
    g[_G_NLOG] = 0
    g[_G_POT] = 0
    g[_G_MAXBET] = 0
    g[_G_LASTFULL] = 0
    g[_G_SHORTOPEN] = 0
    g[_G_SHOWDOWN] = 0
    g[_G_NPOTS] = 0
    g[_G_DEAD] = 0
    g[_G_ACTOR] = -1
    g[_G_STREET] = 0
    g[_G_REACHED] = 0
    if dealt < 2:
        g[_G_STREET] = 4
        return dealt
    if g[_G_RULES] & RULE_DEAD_BUTTON and g[_G_HANDNO] > 0:
        # TDA dead button: the big blind moves to the next player after the last one, the small blind sits
        # where the big blind was (posted only by a player still in) and the button where the small blind was
        bb_seat = _next_dealt(p, n, g[_G_BB_SEAT])
        if dealt == 2:  # heads-up the button posts the small blind: the other player
            sb_seat = _next_dealt(p, n, bb_seat)
            button = sb_seat
        else:
            sb_seat = g[_G_BB_SEAT]
            button = g[_G_SB_SEAT]
    elif dealt == 2:
        sb_seat = button
        bb_seat = _next_dealt(p, n, sb_seat)
    else:
        sb_seat = _next_dealt(p, n, button)
        bb_seat = _next_dealt(p, n, sb_seat)
    g[_G_BUTTON] = button
    # antes: dead money; the part of the largest that nobody matched goes back
    ante = g[_G_ANTE]
    if ante > 0:
        for k in range(n):
            s = (button + 1 + k) % n
            if p[_P_STATE, s] == 1:
                a = min(ante, p[_P_STACK, s])
                p[_P_STACK, s] -= a
                p[_P_BET, s] = a
                p[_P_CONTRIB, s] = a
                _log(g, log, 0, s, ANTE, a)
        _collect(g, p)
    g[_G_HANDNO] += 1
    posted = 0
    if g[_G_RULES] & RULE_POSTS:
        # each seat posts its own forced bet (the largest logged as a big blind, the others as small blinds)
        due = 0
        for s in range(n):
            if p[_P_STATE, s] == 1 and p[_P_POST, s] > due:
                due = p[_P_POST, s]
        for k in range(n):
            s = (button + 1 + k) % n
            if p[_P_STATE, s] == 1 and p[_P_POST, s] > 0:
                _post(g, p, log, s, p[_P_POST, s], BIG_BLIND if p[_P_POST, s] == due else SMALL_BLIND)
                posted = max(posted, p[_P_BET, s])
            elif p[_P_STATE, s] == 1 and p[_P_POST, s] < 0:  # dead money: into the main pot, not this seat's bet
                a = min(-p[_P_POST, s], p[_P_STACK, s])
                p[_P_STACK, s] -= a
                g[_G_POT] += a
                g[_G_DEAD] += a
                _log(g, log, 0, s, ANTE, a)
    else:
        g[_G_SB_SEAT] = sb_seat
        g[_G_BB_SEAT] = bb_seat
        due = g[_G_BB]
        if p[_P_STATE, sb_seat] == 1:
            _post(g, p, log, sb_seat, g[_G_SB], SMALL_BLIND)
            posted = p[_P_BET, sb_seat]
        _post(g, p, log, bb_seat, g[_G_BB], BIG_BLIND)
        posted = max(posted, p[_P_BET, bb_seat])
    # callers owe the full big blind even when the big blind is short (card rooms), or only what was posted
    g[_G_MAXBET] = posted if g[_G_RULES] & RULE_POSTED_BLIND else max(posted, due)
    if _begin_round(g, p):
        _finish_round(g, p, deck[2 * n : 2 * n + 5])
    return dealt


@jit
def _act_kernel(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    board: NDArray[np.int64],
    kind: int,
    amount: int,
) -> int:
    """Play ``kind`` (FOLD, CHECK/CALL or RAISE to ``amount``) for the player to act; returns the kind played."""
    seat = g[_G_ACTOR]
    n = g[_G_SEATS]
    to_call, can_raise, min_to, max_to = _legal_kernel(g, p)
    if kind == FOLD and to_call <= 0 and not g[_G_RULES] & RULE_OPEN_FOLD:
        kind = CHECK
    if kind == RAISE and not can_raise:
        kind = CALL
    if kind == CHECK or kind == CALL:
        kind = CALL if to_call > 0 else CHECK
    street = g[_G_STREET]
    if kind == FOLD:
        p[_P_STATE, seat] = 2
        g[_G_ACTIVE] -= 1
        _log(g, log, street, seat, FOLD, 0)
    elif kind == CALL or kind == CHECK:
        p[_P_STACK, seat] -= to_call
        p[_P_BET, seat] += to_call
        p[_P_CONTRIB, seat] += to_call
        _log(g, log, street, seat, kind, to_call)
    else:
        x = min(max(amount, min_to), max_to)
        maxbet = g[_G_MAXBET]
        increment = x - maxbet
        delta = x - p[_P_BET, seat]
        p[_P_STACK, seat] -= delta
        p[_P_BET, seat] = x
        p[_P_CONTRIB, seat] += delta
        full = max(g[_G_LASTFULL], g[_G_BB])
        if increment >= full:
            g[_G_LASTFULL] = increment
            g[_G_SHORTSUM] = 0
            for s in range(n):
                p[_P_ACTED, s] = 0
        else:
            if g[_G_LASTFULL] == 0:
                g[_G_SHORTOPEN] = 1
            g[_G_SHORTSUM] += increment
            if g[_G_SHORTSUM] >= full:
                g[_G_SHORTFULL] = 1
        g[_G_MAXBET] = x
        for s in range(n):
            p[_P_TOACT, s] = 1 if (p[_P_STATE, s] == 1 and p[_P_STACK, s] > 0 and s != seat) else 0
        _log(g, log, street, seat, RAISE, x)
    p[_P_TOACT, seat] = 0
    p[_P_ACTED, seat] = 1
    nxt = -1
    if g[_G_ACTIVE] > 1:
        nxt = _next_seat(p, n, seat, _P_TOACT)
    g[_G_ACTOR] = nxt
    if nxt < 0:
        _finish_round(g, p, board)
    return kind


@jit
def _shuffle(decks: NDArray[np.int64], draws: NDArray[np.int64]) -> None:
    """Fisher-Yates: ``draws[h, k]`` (uniform in 0..51-k) picks the card swapped into place 51-k of deck h."""
    for h in range(decks.shape[0]):
        deck = decks[h]
        for c in range(52):
            deck[c] = c
        for k in range(51):
            i = 51 - k
            j = draws[h, k]
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t


_HIGHS = np.arange(52, 1, -1)  # Fisher-Yates draws j in 0..i for i = 51 down to 1


def shuffled_decks(rng: np.random.Generator, hands: int) -> np.ndarray:
    """``hands`` decks shuffled by Fisher-Yates with draws from ``rng`` (one row of 52 card ids each).

    The same Generator state gives the same decks, whatever the block size
    callers ask for: the draws are taken deck by deck.

    >>> decks = shuffled_decks(np.random.default_rng(1), 3)
    >>> decks.shape, sorted(decks[0].tolist()) == list(range(52))
    ((3, 52), True)
    >>> (decks == shuffled_decks(np.random.default_rng(1), 3)).all()
    np.True_
    """
    if isinstance(hands, bool) or not isinstance(hands, (int, np.integer)) or hands < 0:
        raise EngineError(f"The number of decks {hands!r} is not a whole number of at least 0.")
    draws = rng.integers(0, _HIGHS, size=(int(hands), 51))
    decks = np.empty((int(hands), 52), dtype=np.int64)
    _shuffle(decks, draws)
    return decks


# -- Python API ------------------------------------------------------------------------


@dataclass(frozen=True)
class HandRecord:
    """What happened in one finished hand, for logs and tests.

    ``history`` holds ``(street, seat, kind, amount)`` tuples (kinds index
    :data:`ACTION_NAMES`; for raises the amount is the raise-to total, else
    the chips added). ``won`` is what each seat received; ``start`` and
    ``stacks`` the stacks before and after; ``pots`` the pots paid at a
    showdown as ``(amount, seats that could win it, seats paid)``.
    """

    button: int
    holes: tuple[tuple[int, int] | None, ...]
    board: tuple[int, ...]
    history: tuple[tuple[int, int, int, int], ...]
    start: tuple[int, ...]
    stacks: tuple[int, ...]
    won: tuple[int, ...]
    showdown: bool
    pots: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...] = ()

    def __str__(self) -> str:
        lines = [f"button {self.button}, board {format_cards(self.board)}"]
        for street, seat, kind, amount in self.history:
            lines.append(f"  {STREETS[street]:7} seat {seat}: {ACTION_NAMES[kind]} {amount}")
        lines.append(f"  stacks {list(self.start)} -> {list(self.stacks)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class TableState:
    """The engine's state at one moment, read with :meth:`Hand.state`: what replays, pages and analyses read.

    Table-wide: ``street`` (0 preflop .. 3 river, 4 once the hand is over),
    ``actor`` (the seat to act, -1 when nobody is), this hand's ``button``,
    ``small_blind``, ``big_blind`` and ``ante``, the ``board`` dealt so far,
    ``pot`` (every chip in the middle: the pots of earlier rounds, antes and
    dead money, and this round's bets), ``max_bet`` (the largest bet of this
    round), ``players`` (seats still in the hand), ``showdown`` (the hand
    ended at a showdown) and ``history`` (``(street, seat, kind, amount)`` of
    every post and action; kinds index :data:`ACTION_NAMES`, a raise's
    amount is the total raised to, any other the chips added).

    Per seat, as tuples indexed by physical seat: ``start`` (the stack when
    the hand began), ``stacks`` (chips behind now), ``bets`` (put in during
    this round), ``contributions`` (put in during this hand, antes and blinds
    included, less what came back; dead money is in no seat's
    contribution), ``returned`` (given back: the part of a bet or an ante
    that nobody matched), ``won`` (paid from the pots; 0 until the hand is
    settled), ``dealt`` (dealt in), ``in_hand`` (dealt in and not folded),
    ``folded`` and ``all_in`` (in the hand with no chips behind). Chips are
    kept: ``start[s] - stacks[s] + won[s]`` is what seat ``s`` put in and left
    in the pots.

    >>> hand = Table([100, 100, 100], 1, 2, seed=1).start_hand()
    >>> state = hand.state()
    >>> state.actor, state.pot, state.bets, state.in_hand
    (0, 3, (0, 1, 2), (True, True, True))
    >>> _ = hand.act(RAISE, 100)
    >>> hand.state().all_in, hand.state().max_bet
    ((True, False, False), 100)
    """

    street: int
    actor: int
    button: int
    small_blind: int
    big_blind: int
    ante: int
    board: tuple[int, ...]
    pot: int
    max_bet: int
    players: int
    showdown: bool
    history: tuple[tuple[int, int, int, int], ...]
    start: tuple[int, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    contributions: tuple[int, ...]
    returned: tuple[int, ...]
    won: tuple[int, ...]
    dealt: tuple[bool, ...]
    in_hand: tuple[bool, ...]
    folded: tuple[bool, ...]
    all_in: tuple[bool, ...]


def _check_chips(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise EngineError(f"The {name} {value!r} is not a whole number of chips of at least {minimum}.")
    return int(value)


class Hand:
    """One hand in play at a :class:`Table`; act with :meth:`act` until :attr:`over`."""

    def __init__(self, table: Table, deck: np.ndarray) -> None:
        self._table = table
        self._deck = deck
        n = table.seats
        self._board = deck[2 * n : 2 * n + 5].copy()

    @property
    def over(self) -> bool:
        """True once the hand is settled."""
        return int(self._table._g[_G_STREET]) == 4

    @property
    def full_board(self) -> np.ndarray:
        """All five board cards of the deck, dealt or not (for game loops and tests; never show it to a bot)."""
        return self._board

    @property
    def street(self) -> int:
        """0 preflop, 1 flop, 2 turn, 3 river, 4 over."""
        return int(self._table._g[_G_STREET])

    @property
    def actor(self) -> int:
        """Seat to act, -1 when nobody is."""
        return int(self._table._g[_G_ACTOR])

    @property
    def board(self) -> tuple[int, ...]:
        """Community cards dealt so far."""
        shown = (0, 3, 4, 5)[int(self._table._g[_G_REACHED])]
        return tuple(self._board[:shown].tolist())

    def hole(self, seat: int) -> tuple[int, int] | None:
        """Hole cards of ``seat`` (None when not dealt in)."""
        p = self._table._p
        if p[_P_STATE, seat] == 0:
            return None
        return int(p[_P_HOLE0, seat]), int(p[_P_HOLE1, seat])

    @property
    def pot(self) -> int:
        """Every chip in the middle: the pot plus the bets of this round."""
        t = self._table
        return int(t._g[_G_POT] + t._p[_P_BET, : t.seats].sum())

    @property
    def history(self) -> tuple[tuple[int, int, int, int], ...]:
        """``(street, seat, kind, amount)`` of every post and action so far."""
        t = self._table
        used = min(int(t._g[_G_NLOG]), len(t._log))
        return tuple(map(tuple, t._log[:used].tolist()))

    def legal(self) -> Legal:
        """What the player to act may do."""
        to_call, can_raise, min_to, max_to = _legal_kernel(self._table._g, self._table._p)
        if to_call < 0:
            raise EngineError("Nobody is to act: the hand is over.")
        return Legal(int(to_call), bool(can_raise), int(min_to), int(max_to))

    def view(self, source: object = None, hand: int = 0, names: tuple[str, ...] = ()) -> View:
        """What the player to act may see (see :class:`View`); ``hand`` and ``names`` are passed into it."""
        t = self._table
        g, n = t._g, t.seats
        seat = int(g[_G_ACTOR])
        if seat < 0:
            raise EngineError("Nobody is to act: the hand is over.")
        to_call, can_raise, min_to, max_to = _legal_kernel(g, t._p)
        gl = g[:_G_POTS].tolist()  # plain lists: indexing numpy one number at a time costs more than the view
        stacks, bets, contributions, state, hole0, hole1 = t._p[
            [_P_STACK, _P_BET, _P_CONTRIB, _P_STATE, _P_HOLE0, _P_HOLE1], :n
        ].tolist()
        used = min(gl[_G_NLOG], len(t._log))
        return View(
            seat=seat,
            hole=(hole0[seat], hole1[seat]),
            board=tuple(self._board[: (0, 3, 4, 5)[gl[_G_REACHED]]].tolist()),
            street=gl[_G_STREET],
            pot=gl[_G_POT] + sum(bets),
            to_call=int(to_call),
            can_raise=bool(can_raise),
            min_raise_to=int(min_to),
            max_raise_to=int(max_to),
            stack=stacks[seat],
            bet=bets[seat],
            contributed=contributions[seat],
            max_bet=gl[_G_MAXBET],
            stacks=tuple(stacks),
            bets=tuple(bets),
            contributions=tuple(contributions),
            in_hand=tuple(s == 1 for s in state),
            button=gl[_G_BUTTON],
            small_blind=gl[_G_SB],
            big_blind=gl[_G_BB],
            ante=gl[_G_ANTE],
            players=gl[_G_ACTIVE],
            history=tuple(map(tuple, t._log[:used].tolist())),
            source=source,
            hand=hand,
            names=tuple(names),
        )

    def act(self, kind: int, amount: int = 0) -> int:
        """Play an action for the player to act and return the kind actually played.

        ``kind`` is :data:`FOLD`, :data:`CHECK` or :data:`CALL` (either means
        check or call), or :data:`RAISE` with ``amount`` the total to raise to.
        A fold with nothing to call becomes a check (unless the table's rule
        bits hold :data:`RULE_OPEN_FOLD`), a raise that is not allowed a call,
        and raise amounts are clamped to the legal range.
        """
        t = self._table
        if t._g[_G_ACTOR] < 0:
            raise EngineError(f"Action {kind!r} comes when nobody is to act: the hand is over.")
        if isinstance(kind, bool) or kind not in (FOLD, CHECK, CALL, RAISE):
            raise EngineError(f"The action {kind!r} is not one of FOLD (0), CHECK (1), CALL (2) or RAISE (3).")
        if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)):
            raise EngineError(f"The raise amount {amount!r} is not a whole number of chips.")
        played = int(_act_kernel(t._g, t._p, t._log, self._board, int(kind), int(amount)))
        if self.over:
            t._finish()
        return played

    def state(self) -> TableState:
        """The table's state now (see :class:`TableState`)."""
        t = self._table
        g, n = t._g, t.seats
        gl = g[:_G_POTS].tolist()
        stacks, bets, contributions, returned, won, start, state = t._p[
            [_P_STACK, _P_BET, _P_CONTRIB, _P_BACK, _P_WON, _P_START, _P_STATE], :n
        ].tolist()
        return TableState(
            street=gl[_G_STREET], actor=gl[_G_ACTOR], button=gl[_G_BUTTON], small_blind=gl[_G_SB],
            big_blind=gl[_G_BB], ante=gl[_G_ANTE], board=self.board, pot=gl[_G_POT] + sum(bets),
            max_bet=gl[_G_MAXBET], players=gl[_G_ACTIVE], showdown=bool(gl[_G_SHOWDOWN]), history=self.history,
            start=tuple(start), stacks=tuple(stacks), bets=tuple(bets), contributions=tuple(contributions),
            returned=tuple(returned), won=tuple(won), dealt=tuple(x != 0 for x in state),
            in_hand=tuple(x == 1 for x in state), folded=tuple(x == 2 for x in state),
            all_in=tuple(x == 1 and c == 0 for x, c in zip(state, stacks, strict=True)),
        )

    def record(self) -> HandRecord:
        """The hand so far as a :class:`HandRecord`."""
        t = self._table
        p = t._p
        n = t.seats
        return HandRecord(
            button=int(t._g[_G_BUTTON]),
            holes=tuple(self.hole(s) for s in range(n)),
            board=tuple(int(c) for c in self._board),
            history=self.history,
            start=tuple(int(x) for x in p[_P_START, :n]),
            stacks=tuple(int(x) for x in p[_P_STACK, :n]),
            won=tuple(int(x) for x in p[_P_WON, :n]),
            showdown=bool(t._g[_G_SHOWDOWN]),
            pots=tuple(_pot_record(t._g, k, n) for k in range(int(t._g[_G_NPOTS]))),
        )


    def results(self, number: int = 0, names: tuple[str, ...] = ()) -> list[HandResult]:
        """One :class:`HandResult` per seat of the finished hand (what ``on_hand_end`` receives)."""
        if not self.over:
            raise EngineError("The hand is still in play; results come when it is over.")
        record = self.record()
        t = self._table
        g, p, n = t._g, t._p, t.seats
        board = record.board[: (0, 3, 4, 5)[int(g[_G_REACHED])]]
        at_showdown = [bool(record.showdown and p[_P_STATE, s] == 1) for s in range(n)]
        common: dict[str, Any] = dict(hand=int(number), names=tuple(names), button=record.button, small_blind=int(g[_G_SB]),
                      big_blind=int(g[_G_BB]), ante=int(g[_G_ANTE]), board=tuple(board), history=record.history,
                      start=record.start, stacks=record.stacks, won=record.won,
                      net=tuple(b - a for a, b in zip(record.start, record.stacks, strict=True)), showdown=record.showdown,
                      pots=record.pots)
        out = []
        for seat in range(n):
            shown = tuple(record.holes[s] if (at_showdown[s] or s == seat) else None for s in range(n))
            out.append(HandResult(seat=seat, shown=shown, **common))
        return out


def _pot_record(g: np.ndarray, k: int, n: int) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    amount, eligible, paid = (int(x) for x in g[_G_POTS + 3 * k : _G_POTS + 3 * k + 3])
    return amount, tuple(s for s in range(n) if eligible >> s & 1), tuple(s for s in range(n) if paid >> s & 1)


class Table:
    """Stacks at a table of 2 to 10 seats, carried from hand to hand.

    Parameters
    ----------
    stacks : starting chips of each seat (0 for an empty seat).
    small_blind, big_blind, ante : the forced bets; change them between hands.
    seed : seeds the numpy Generator that shuffles the decks (or give ``rng``).
    button : seat of the first hand's button (default seat 0); it moves to the
        next seat with chips before every later hand (or by the dead-button
        rule of ``rules``).
    rules : the rule options (:class:`Rules`; default the card rooms' choices).

    >>> t = Table([50, 50], 1, 2, seed=3)
    >>> h = t.start_hand()
    >>> h.actor == t.button, h.legal().to_call      # heads-up the button acts first preflop
    (True, 1)
    """

    def __init__(
        self,
        stacks: Sequence[int],
        small_blind: int,
        big_blind: int,
        ante: int = 0,
        seed: int | None = None,
        rng: np.random.Generator | None = None,
        button: int | None = None,
        rules: Rules | None = None,
    ) -> None:
        stacks = list(stacks)
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise EngineError(f"The rules {rules!r} are not a matchdb.play.engine.Rules.")
        if not 2 <= len(stacks) <= MAX_SEATS:
            raise EngineError(f"A table needs 2 to {MAX_SEATS} seats; got {len(stacks)} stacks {stacks!r}.")
        for s in stacks:
            _check_chips(s, "stack", 0)
        self.seats = len(stacks)
        self._g = np.zeros(_G_FIELDS, dtype=np.int64)
        self._p = np.zeros((_P_FIELDS, MAX_SEATS), dtype=np.int64)
        self._p[_P_STACK, : self.seats] = stacks
        self._g[_G_SEATS] = self.seats
        self._g[_G_RULES] = rules.code
        self.rules = rules
        self.set_blinds(small_blind, big_blind, ante)
        self._log = np.zeros((log_capacity(sum(stacks), self._g[_G_BB], self.seats), 4), dtype=np.int64)
        self._rng = rng if rng is not None else np.random.default_rng(seed)
        self._button = self.seats - 1 if button is None else int(button) - 1
        self._g[_G_STREET] = 4
        self.hands_played = 0

    @classmethod
    def over_arrays(cls, g: np.ndarray, p: np.ndarray, log: np.ndarray) -> Table:
        """Deprecated (the state's layout is the engine's own): a Table over a compiled loop's state arrays."""
        _deprecated("Table.over_arrays", "a Table over a compiled loop's arrays is matchdb.play's own business; read a "
                    "hand through Hand.state() or matchdb.play.recorded")
        return cls._over_arrays(g, p, log)

    @classmethod
    def _over_arrays(cls, g: np.ndarray, p: np.ndarray, log: np.ndarray) -> Table:
        """A Table over state arrays that a game loop owns (this package's compiled loops: no checks, no deck stream)."""
        table = cls.__new__(cls)
        table.seats = int(g[_G_SEATS])
        table.rules = Rules("posted" if g[_G_RULES] & RULE_POSTED_BLIND else "full",
                            "dead" if g[_G_RULES] & RULE_DEAD_BUTTON else "moving")
        table._g, table._p, table._log = g, p, log
        table._rng = None  # type: ignore[assignment]  # a kernel-owned table deals no cards itself
        table._button = int(g[_G_BUTTON])
        table.hands_played = 0
        return table

    def set_blinds(self, small_blind: int, big_blind: int, ante: int = 0) -> None:
        """Set the forced bets of the next hands."""
        sb = _check_chips(small_blind, "small blind", 0)
        bb = _check_chips(big_blind, "big blind", 1)
        if sb > bb:
            raise EngineError(f"The small blind {sb} is larger than the big blind {bb}.")
        self._g[_G_SB] = sb
        self._g[_G_BB] = bb
        self._g[_G_ANTE] = _check_chips(ante, "ante", 0)
        if hasattr(self, "_log"):
            need = log_capacity(int(self._p[_P_STACK].sum()), bb, self.seats)
            if need > len(self._log):
                self._log = np.zeros((need, 4), dtype=np.int64)

    @property
    def stacks(self) -> list[int]:
        """Chips of each seat now (bets of a hand in play excluded)."""
        return [int(x) for x in self._p[_P_STACK, : self.seats]]

    @property
    def button(self) -> int:
        """Seat of the current (or last) button."""
        return int(self._g[_G_BUTTON])

    @property
    def players(self) -> int:
        """Seats with chips."""
        return int((self._p[_P_STACK, : self.seats] > 0).sum())

    def start_hand(self, deck: Iterable[int] | None = None) -> Hand:
        """Move the button and deal a hand (from ``deck``, 52 card ids, or a fresh shuffle)."""
        if self._g[_G_STREET] != 4:
            raise EngineError("A hand is still in play; finish it before starting another.")
        if self.players < 2:
            raise EngineError(f"A hand needs 2 players with chips; the stacks are {self.stacks!r}.")
        if deck is None:
            cards = shuffled_decks(self._rng, 1)[0]
        else:
            cards = np.asarray(list(deck), dtype=np.int64)
            if cards.shape != (52,) or sorted(cards.tolist()) != list(range(52)):
                raise EngineError("A deck must hold each card id 0..51 exactly once.")
        self._button = _next_button(self._p[_P_STACK, : self.seats], self._button)
        hand = Hand(self, cards)
        _start_hand_kernel(self._g, self._p, self._log, cards, self._button)
        self._button = int(self._g[_G_BUTTON])  # the dead-button rule may have placed it elsewhere
        if hand.over:
            self._finish()
        return hand

    def _finish(self) -> None:
        self.hands_played += 1


def _next_button(stacks: np.ndarray, button: int) -> int:
    n = len(stacks)
    for k in range(1, n + 1):
        s = (button + k) % n
        if stacks[s] > 0:
            return s
    raise EngineError("No seat has chips.")


def log_capacity(chips: int, big_blind: int, seats: int) -> int:
    """Enough history rows for any hand: each full raise adds a big blind, each short one empties a stack."""
    raises = chips // max(big_blind, 1) + seats
    return int((raises + 4) * (seats + 1) + 3 * seats + 8)


# -- names of the state layout and kernels that were public before, kept for one release ------------------------------

_DEPRECATED = {name[1:]: name for name in list(globals()) if name.startswith(("_G_", "_P_", "_LOG_")) and name != "_P_BACK"} | {
    "legal_kernel": "_legal_kernel", "start_hand_kernel": "_start_hand_kernel", "act_kernel": "_act_kernel"}


def _deprecated(name: str, instead: str) -> None:
    import warnings

    warnings.warn(f"matchdb.play.engine.{name} is deprecated and goes in the next release: {instead}.",
                  DeprecationWarning, stacklevel=3)


def __getattr__(name: str) -> Any:
    private = _DEPRECATED.get(name)
    if private is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _deprecated(name, "the engine's state layout and kernels are private; read the state through Hand.state() "
                "(TableState) or matchdb.play.recorded")
    return globals()[private]
