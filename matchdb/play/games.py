"""Whole games: single-table tournaments to one winner and fixed-length cash sessions.

Two loops play them with the same rules (:mod:`matchdb.play.engine`), the same
bookkeeping kernels and the same decks:

- the **compiled loop** (:func:`play_game` when every bot is a built-in one
  with a built-in strength): decisions, strengths and the engine all run in
  one numba function, thousands of hands per second;
- the **Python loop** for any bots: each decision is ``bot.act(view)`` (the
  view carries the hand number and the seats' names), each bot with an
  ``on_game_start`` learns its seat before the first hand, each bot with an
  ``on_hand_end`` gets the hand's result; an answer that is not an action,
  or an exception in a bot's method, stops the game with a
  :class:`GameError` of one sentence naming the bot, and so does an illegal
  action (a raise where none is allowed or to an amount off the legal range),
  unless ``lenient``: then it is corrected and counted.

Given the same seeds both give the same game, card for card and chip for chip
(the tests check it): the decks come from a numpy Generator seeded with the
deal seed, the bots' random draws from numba's generator seeded with the bot
seed.

**Tournament.** Every seat starts with the same stack; the blinds rise every
``hands_per_level`` hands along :data:`DEFAULT_SCHEDULE` (10/20 to start with
1,500 chips, as a common single-table sit-and-go; levels past the schedule
double). A player without chips is out; players out in the same hand finish
in the order of the chips they started it with (the larger stack places
higher; equal stacks by seat order after the button). The last player with
chips wins. A safety cap on the number of hands ends a game that will not
finish, placing the players left by their chips.

**Cash session.** A fixed number of hands at fixed blinds; every hand starts
with every seat at the buy-in (the computer-poker competitions' "Doyle's
game"), so hands are independent and results are chips won per hand.

>>> from matchdb.play.bots import AllIn, CallingStation
>>> result = play_game([AllIn(), CallingStation(), CallingStation()], deal_seed=1, bot_seed=1)
>>> sorted(result.places.tolist()), result.hands > 0
([1, 2, 3], True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.equity.kernels import (
    EXACT,
    EXACT_OPPONENTS,
    HEADSUP,
    MONTECARLO,
    STEERED,
    UNIFORM,
    StrengthArrays,
    frame,
)
from matchdb.equity.kernels import strength as strength_kernel
from matchdb.errors import MatchdbError
from matchdb.jit import compiled_before, jit
from matchdb.play.bots import STRENGTH_KINDS, Bot, decide_kernel
from matchdb.play.engine import (
    _G_ACTIVE,
    _G_ACTOR,
    _G_ANTE,
    _G_BB,
    _G_BUTTON,
    _G_FIELDS,
    _G_MAXBET,
    _G_NLOG,
    _G_POT,
    _G_REACHED,
    _G_RULES,
    _G_SB,
    _G_SEATS,
    _G_SHOWDOWN,
    _G_STREET,
    _LOG_KIND,
    _LOG_SEAT,
    _LOG_STREET,
    _P_BET,
    _P_CONTRIB,
    _P_FIELDS,
    _P_HOLE0,
    _P_HOLE1,
    _P_STACK,
    _P_START,
    _P_STATE,
    _P_WON,
    CALL,
    CHECK,
    FOLD,
    MAX_SEATS,
    RAISE,
    RULE_POSTED_BLIND,
    GameStart,
    Hand,
    HandRecord,
    Rules,
    Table,
    _act_kernel,
    _legal_kernel,
    _start_hand_kernel,
    log_capacity,
    shuffled_decks,
)
from matchdb.play.strength import kernel_arrays, seed_kernels

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "GameError",
    "TOURNAMENT",
    "CASH",
    "DEFAULT_SCHEDULE",
    "STAT_NAMES",
    "GameSettings",
    "GameResult",
    "PlayedHand",
    "play_game",
    "blind_schedule",
    "native_spec",
    "needs_strength",
    "wants_results",
    "bot_name",
    "loop_compiled",
]


class GameError(MatchdbError):
    """A game was set up wrongly."""


TOURNAMENT = 0
CASH = 1
_MODES = {"tournament": TOURNAMENT, "cash": CASH}

#: Small blind, big blind and ante of each level of a tournament (a common sit-and-go structure).
DEFAULT_SCHEDULE = (
    (10, 20, 0), (15, 30, 0), (25, 50, 0), (50, 100, 0), (75, 150, 0), (100, 200, 0), (100, 200, 25),
    (200, 400, 25), (300, 600, 50), (400, 800, 50), (600, 1200, 75), (800, 1600, 100), (1000, 2000, 100),
)

# game vector
GM_MODE = 0
GM_HANDS = 1
GM_MAXHANDS = 2
GM_LEVELHANDS = 3
GM_ALIVE = 4
GM_BUTTON = 5
GM_NEED = 6
GM_DECK = 7
GM_BUYIN = 8
GM_OVER = 9
GM_FIELDS = 12

# per-seat statistics
S_HANDS = 0
S_VPIP = 1
S_PFR = 2
S_AGG = 3  # bets and raises after the flop
S_CALLS = 4  # calls after the flop
S_FLOPS = 5  # flops seen
S_SHOWDOWNS = 6
S_SHOWDOWN_WINS = 7
S_WON = 8  # hands that paid the seat something
S_NET = 9  # chips won minus chips lost
S_INVESTED = 10  # chips put into pots (blinds and antes included, uncalled bets not)
S_FIELDS = 11
#: Names of the statistics rows of :attr:`GameResult.stats`.
STAT_NAMES = ("hands", "vpip", "pfr", "postflop_raises", "postflop_calls", "flops", "showdowns", "showdown_wins",
              "hands_won", "net_chips", "invested_chips")

_DONE = 0
_NEED_DECKS = 1
_NEED_TABLE = 2
_HAND_OVER = 3  # a hand ended and the caller asked to see each one (``stop``)
_DECK_BLOCK = 64


def blind_schedule(levels: Sequence[Sequence[int]] = DEFAULT_SCHEDULE, total: int = 64) -> np.ndarray:
    """(total, 3) small blind, big blind, ante per level: ``levels`` and then the last one doubling.

    The doubling stops at a big blind of 2**50 chips (far beyond any stack
    in play), so the levels always fit 64-bit integers.

    >>> blind_schedule(((1, 2, 0),), total=3).tolist()
    [[1, 2, 0], [2, 4, 0], [4, 8, 0]]
    >>> int(blind_schedule(((30, 60, 10),)).max()) <= 2**50
    True
    """
    refused = (f"The blind levels {str(levels)[:200]} are not (small blind, big blind, ante) rows of whole numbers with "
               f"0 <= sb <= bb, 1 <= bb <= 2**50 and 0 <= ante <= 2**50.")
    try:
        rows = [tuple(int(x) for x in level) for level in levels]
    except (TypeError, ValueError, OverflowError):  # not numbers, not rows, or an infinite number
        raise GameError(refused) from None
    if not rows or any(len(r) != 3 or r[0] < 0 or r[1] < 1 or r[0] > r[1] or r[2] < 0 or max(r) > 2**50 for r in rows):
        raise GameError(refused)
    while len(rows) < total:
        sb, bb, ante = rows[-1]
        rows.append((2 * sb, 2 * bb, 2 * ante) if 2 * bb <= 2**50 else (sb, bb, ante))
    return np.array(rows[:total], dtype=np.int64)


@dataclass(frozen=True)
class GameSettings:
    """How a game is played: ``mode`` ``"tournament"`` or ``"cash"``, chips, blinds, length.

    ``stack`` is every seat's starting stack (tournament) or buy-in (cash);
    ``schedule`` the blind levels (cash games play the first level);
    ``hands`` the session length (cash) or the safety cap (tournament);
    ``rules`` the engine's rule options (:class:`matchdb.play.engine.Rules`).
    """

    mode: str = "tournament"
    stack: int = 1500
    schedule: tuple[tuple[int, int, int], ...] = DEFAULT_SCHEDULE
    hands_per_level: int = 10
    hands: int = 5000
    rules: Rules = Rules()  # noqa: RUF009  (Rules is a frozen dataclass: one shared default is safe)

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            raise GameError(f"The mode {self.mode!r} is unknown; expected 'tournament' or 'cash'.")
        for name in ("stack", "hands_per_level", "hands"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise GameError(f"The setting {name} = {value!r} is not a whole number of at least 1.")
        blind_schedule(self.schedule, 1)
        if not isinstance(self.rules, Rules):
            raise GameError(f"The rules {self.rules!r} are not a matchdb.play.engine.Rules.")

    @property
    def big_blind(self) -> int:
        """The first level's big blind (the unit of big blinds per 100 hands in cash games)."""
        return int(self.schedule[0][1])


@dataclass(frozen=True, kw_only=True)
class PlayedHand:
    """One finished hand of a game, as :func:`play_game` gives it to ``on_hand``.

    ``number`` counts the game's hands from 0; ``record`` is the engine's
    :class:`matchdb.play.engine.HandRecord` (cards, actions, stacks before
    and after, by physical seat); the blinds and ante are the hand's level.
    """

    number: int
    record: HandRecord
    small_blind: int
    big_blind: int
    ante: int
    short_big_blind: str = "full"  # the game's rule (matchdb.play.engine.Rules): "full" or "posted"


@dataclass
class GameResult:
    """One game's outcome, per seat.

    ``places`` (1 = winner; cash games rank by chips won), ``net`` chips won
    (cash) or final stack minus start (tournament), ``big_blinds`` the sum
    over hands of chips won divided by that hand's big blind, ``stats`` the
    (:data:`STAT_NAMES`, seats) counters, ``hands`` the hands played,
    ``bust_hand`` the hand each player went out in (-1 if never),
    ``tables_decoded`` how many tables lazy loading decoded for the game and
    ``compiled`` which loop played it.
    """

    places: np.ndarray
    net: np.ndarray
    big_blinds: np.ndarray
    stats: np.ndarray
    hands: int
    bust_hand: np.ndarray
    tables_decoded: int = 0
    compiled: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


# -- bookkeeping kernels shared by both loops ----------------------------------------------------


@jit
def _next_live(p: NDArray[np.int64], n: int, seat: int) -> int:
    for k in range(1, n + 1):
        s = (seat + k) % n
        if p[_P_STACK, s] > 0:
            return s
    return -1


@jit
def _begin_hand(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    game: NDArray[np.int64],
    schedule: NDArray[np.int64],
    deck: NDArray[np.int64],
) -> bool:
    """Blinds of the level, cash stacks, button; deal. Returns False when the game is over instead."""
    n = g[_G_SEATS]
    if game[GM_OVER] != 0:
        return False
    if game[GM_MODE] == CASH:
        if game[GM_HANDS] >= game[GM_MAXHANDS]:
            game[GM_OVER] = 1
            return False
        for s in range(n):
            p[_P_STACK, s] = game[GM_BUYIN]
        level = 0
    else:
        level = min(game[GM_HANDS] // game[GM_LEVELHANDS], schedule.shape[0] - 1)
    g[_G_SB] = schedule[level, 0]
    g[_G_BB] = schedule[level, 1]
    g[_G_ANTE] = schedule[level, 2]
    button = _next_live(p, n, game[GM_BUTTON])
    _start_hand_kernel(g, p, log, deck, button)
    game[GM_BUTTON] = g[_G_BUTTON]  # the dead-button rule may have placed it elsewhere
    return True


@jit
def _end_hand(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    game: NDArray[np.int64],
    places: NDArray[np.int64],
    bust_hand: NDArray[np.int64],
    stats: NDArray[np.int64],
    big_blinds: NDArray[np.float64],
) -> None:
    """Statistics of the finished hand, players out, places; marks the game over when it is."""
    n = g[_G_SEATS]
    hand = game[GM_HANDS]
    vpip = np.zeros(MAX_SEATS, dtype=np.int64)
    pfr = np.zeros(MAX_SEATS, dtype=np.int64)
    used = min(g[_G_NLOG], log.shape[0])
    for i in range(used):
        seat = log[i, _LOG_SEAT]
        kind = log[i, _LOG_KIND]
        if log[i, _LOG_STREET] == 0:
            if kind == CALL or kind == RAISE:
                vpip[seat] = 1
            if kind == RAISE:
                pfr[seat] = 1
        else:
            if kind == RAISE:
                stats[S_AGG, seat] += 1
            elif kind == CALL:
                stats[S_CALLS, seat] += 1
    bb = g[_G_BB]
    for s in range(n):
        if p[_P_STATE, s] == 0:
            continue
        stats[S_HANDS, s] += 1
        stats[S_VPIP, s] += vpip[s]
        stats[S_PFR, s] += pfr[s]
        folded_preflop = False
        for i in range(used):
            if log[i, _LOG_SEAT] == s and log[i, _LOG_STREET] == 0 and log[i, _LOG_KIND] == FOLD:
                folded_preflop = True
        if g[_G_REACHED] >= 1 and not folded_preflop:
            stats[S_FLOPS, s] += 1
        if g[_G_SHOWDOWN] != 0 and p[_P_STATE, s] == 1:
            stats[S_SHOWDOWNS, s] += 1
            if p[_P_WON, s] > 0:
                stats[S_SHOWDOWN_WINS, s] += 1
        if p[_P_WON, s] > 0:
            stats[S_WON, s] += 1
        net = p[_P_STACK, s] - p[_P_START, s]
        stats[S_NET, s] += net
        stats[S_INVESTED, s] += p[_P_CONTRIB, s]
        big_blinds[s] += net / bb
    game[GM_HANDS] = hand + 1
    if game[GM_MODE] == CASH:
        if game[GM_HANDS] >= game[GM_MAXHANDS]:
            game[GM_OVER] = 1
        return
    # players out this hand: worst place to the smallest starting stack
    alive = 0
    for s in range(n):
        if p[_P_STACK, s] > 0:
            alive += 1
    out = game[GM_ALIVE] - alive
    while out > 0:
        worst = -1
        for k in range(n):
            s = (g[_G_BUTTON] + 1 + k) % n
            if p[_P_START, s] > 0 and p[_P_STACK, s] == 0 and places[s] == 0:
                if worst < 0 or p[_P_START, s] < p[_P_START, worst]:
                    worst = s
                elif p[_P_START, s] == p[_P_START, worst]:
                    worst = s  # equal stacks: the later seat after the button places lower
        places[worst] = game[GM_ALIVE]
        bust_hand[worst] = hand
        game[GM_ALIVE] -= 1
        out -= 1
    if game[GM_ALIVE] <= 1 or game[GM_HANDS] >= game[GM_MAXHANDS]:
        _place_by_chips(p, n, game, places)
        game[GM_OVER] = 1


@jit
def _place_by_chips(p: NDArray[np.int64], n: int, game: NDArray[np.int64], places: NDArray[np.int64]) -> None:
    """Give the players still in the remaining places, most chips first."""
    while game[GM_ALIVE] > 0:
        worst = -1
        for s in range(n):
            if places[s] == 0 and p[_P_STACK, s] > 0 and (worst < 0 or p[_P_STACK, s] < p[_P_STACK, worst]):
                worst = s
        if worst < 0:
            break
        places[worst] = game[GM_ALIVE]
        game[GM_ALIVE] -= 1


@jit
def _opponent_flags(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    seat: int,
    model: int,
    flags: NDArray[np.int64],
) -> None:
    """The Monte Carlo opponent model's flag per opponent in hand, in seat order (as bots.opponent_flags)."""
    n = g[_G_SEATS]
    used = min(g[_G_NLOG], log.shape[0])
    k = 0
    for s in range(n):
        if s == seat or p[_P_STATE, s] != 1:
            continue
        flag = 0
        for i in range(used):
            if log[i, _LOG_SEAT] == s and log[i, _LOG_STREET] == 0:
                kind = log[i, _LOG_KIND]
                if kind == RAISE or (model != STEERED and kind == CALL):
                    flag = 1
        flags[k] = flag
        k += 1


@jit
def _run(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    game: NDArray[np.int64],
    schedule: NDArray[np.int64],
    decks: NDArray[np.int64],
    places: NDArray[np.int64],
    bust_hand: NDArray[np.int64],
    stats: NDArray[np.int64],
    big_blinds: NDArray[np.float64],
    kinds: NDArray[np.int64],
    params: NDArray[np.float64],
    scodes: NDArray[np.int64],
    sthresholds: NDArray[np.float64],
    arrays: StrengthArrays,
    columns: NDArray[np.int64],
    board5: NDArray[np.int64],
    flags: NDArray[np.int64],
    counts: NDArray[np.int64],
    cards: NDArray[np.int64],
    stop: bool,
) -> int:
    """The compiled loop: play until the game ends, the decks run out, a table must be loaded or (``stop``) a hand ends."""
    frame_arrays, preflop, classes, powers, tables, slot_of, low, high = arrays
    n = g[_G_SEATS]
    # a deterministic strength (headsup, exact) is computed once per seat, street and live opponents
    cache_key = np.full(MAX_SEATS, -1, dtype=np.int64)
    cache_value = np.zeros(MAX_SEATS)
    while True:
        if g[_G_STREET] == 4:
            if game[GM_OVER] != 0:
                return _DONE
            if game[GM_DECK] >= decks.shape[0]:
                return _NEED_DECKS
            deck = decks[game[GM_DECK]]
            game[GM_DECK] += 1
            if not _begin_hand(g, p, log, game, schedule, deck):
                return _DONE
            for k in range(5):
                board5[k] = deck[2 * n + k]
            if g[_G_STREET] == 4:
                _end_hand(g, p, log, game, places, bust_hand, stats, big_blinds)
                if stop:
                    return _HAND_OVER
            continue
        seat = g[_G_ACTOR]
        kind = kinds[seat]
        street = g[_G_STREET]
        n_board = 0 if street == 0 else street + 2
        strength = 0.0
        needs = False
        for k in range(len(STRENGTH_KINDS)):
            if kind == STRENGTH_KINDS[k]:
                needs = True
        if needs:
            if n_board > 0:
                index = frame_arrays[0][board5[0], board5[1], board5[2]]
                if slot_of[index] < 0:
                    game[GM_NEED] = index
                    return _NEED_TABLE
            skind = scodes[seat, 0]
            model = scodes[seat, 2]
            if model != UNIFORM and (skind == MONTECARLO or skind == EXACT):
                _opponent_flags(g, p, log, seat, model, flags)
            key = -1
            if skind == HEADSUP or (skind == EXACT and g[_G_ACTIVE] - 1 <= EXACT_OPPONENTS):
                key = (game[GM_HANDS] * 4 + street) * 16 + g[_G_ACTIVE]
                if model != UNIFORM:
                    for o in range(g[_G_ACTIVE] - 1):
                        key = key * 2 + flags[o]
            if key >= 0 and cache_key[seat] == key:
                strength = cache_value[seat]
            else:
                strength = strength_kernel(skind, p[_P_HOLE0, seat], p[_P_HOLE1, seat], board5, n_board, g[_G_ACTIVE],
                                           scodes[seat, 1], model, sthresholds[seat], scodes[seat, 3], flags, arrays,
                                           columns)
                cache_key[seat] = key
                cache_value[seat] = strength
        to_call, can_raise, min_to, max_to = _legal_kernel(g, p)
        pot = g[_G_POT]
        for s in range(n):
            pot += p[_P_BET, s]
        action, amount = decide_kernel(kind, params[seat], strength, to_call, can_raise, min_to, max_to, pot,
                                 p[_P_STACK, seat], p[_P_BET, seat], g[_G_MAXBET], p[_P_CONTRIB, seat], g[_G_BB],
                                 g[_G_ACTIVE], p[_P_HOLE0, seat], p[_P_HOLE1, seat], board5, n_board, counts, cards)
        _act_kernel(g, p, log, board5, action, amount)
        if g[_G_STREET] == 4:
            _end_hand(g, p, log, game, places, bust_hand, stats, big_blinds)
            if stop:
                return _HAND_OVER


# -- driving a game ---------------------------------------------------------------------------------------


class _Game:
    """The arrays of one game and the deck stream."""

    def __init__(self, seats: int, settings: GameSettings, deal_seed: int | Sequence[int] | None, button: int) -> None:
        mode = _MODES[settings.mode]
        self.schedule = blind_schedule(settings.schedule)
        self.g = np.zeros(_G_FIELDS, dtype=np.int64)
        self.p = np.zeros((_P_FIELDS, MAX_SEATS), dtype=np.int64)
        self.p[_P_STACK, :seats] = settings.stack
        self.g[_G_SEATS] = seats
        self.g[_G_STREET] = 4
        self.g[_G_RULES] = settings.rules.code
        smallest_bb = int(self.schedule[:, 1].min())
        self.log = np.empty((log_capacity(seats * settings.stack, smallest_bb, seats), 4), dtype=np.int64)
        self.game = np.zeros(GM_FIELDS, dtype=np.int64)
        self.game[GM_MODE] = mode
        self.game[GM_MAXHANDS] = settings.hands
        self.game[GM_LEVELHANDS] = settings.hands_per_level
        self.game[GM_ALIVE] = seats
        self.game[GM_BUTTON] = (button - 1) % seats
        self.game[GM_BUYIN] = settings.stack
        self.places = np.zeros(MAX_SEATS, dtype=np.int64)
        self.bust_hand = np.full(MAX_SEATS, -1, dtype=np.int64)
        self.stats = np.zeros((S_FIELDS, MAX_SEATS), dtype=np.int64)
        self.big_blinds = np.zeros(MAX_SEATS)
        self.rng = np.random.default_rng(deal_seed)
        self.decks = np.zeros((0, 52), dtype=np.int64)
        self.seats = seats
        self.settings = settings

    def start(self, seat: int, names: tuple[str, ...]) -> GameStart:
        """What the bot in ``seat`` learns before the first hand (the first hand's blinds and button)."""
        level = self.schedule[0]
        return GameStart(seat=seat, names=names, stacks=tuple(int(x) for x in self.p[_P_STACK, :self.seats]),
                         button=int((self.game[GM_BUTTON] + 1) % self.seats), small_blind=int(level[0]),
                         big_blind=int(level[1]), ante=int(level[2]), mode=self.settings.mode,
                         hands=self.settings.hands)

    def played(self) -> PlayedHand:
        """The hand that just ended (between ``_end_hand`` and the next deal)."""
        deck = self.decks[self.game[GM_DECK] - 1]
        record = Hand(Table._over_arrays(self.g, self.p, self.log), deck).record()
        return PlayedHand(number=int(self.game[GM_HANDS]) - 1, record=record, small_blind=int(self.g[_G_SB]),
                          big_blind=int(self.g[_G_BB]), ante=int(self.g[_G_ANTE]),
                          short_big_blind="posted" if self.g[_G_RULES] & RULE_POSTED_BLIND else "full")

    def more_decks(self) -> None:
        self.decks = shuffled_decks(self.rng, _DECK_BLOCK)
        self.game[GM_DECK] = 0

    def result(self, tables_decoded: int, compiled: bool) -> GameResult:
        n = self.seats
        places = self.places[:n].copy()
        net = self.stats[S_NET, :n].copy()
        if self.game[GM_MODE] == CASH:  # rank by chips won; ties share the better place
            order = np.argsort(-net, kind="stable")
            places = np.empty(n, dtype=np.int64)
            for s in order:
                places[s] = 1 + int((net > net[s]).sum())
        return GameResult(places=places, net=net, big_blinds=self.big_blinds[:n].copy(),
                          stats=self.stats[:, :n].copy(), hands=int(self.game[GM_HANDS]),
                          bust_hand=self.bust_hand[:n].copy(), tables_decoded=tables_decoded, compiled=compiled)


_EMPTY_SOURCE: StrengthArrays | None = None


def _empty_arrays() -> StrengthArrays:
    """Kernel arrays for games whose bots need no strength (no database)."""
    global _EMPTY_SOURCE
    if _EMPTY_SOURCE is None:
        from matchdb.play.strength import TableSet

        tables = TableSet(np.zeros((1, 1, 1), dtype=np.uint16), np.full(1755, -1, dtype=np.int64), "none")
        preflop = np.zeros((169, 11))
        preflop.flags.writeable = False
        _EMPTY_SOURCE = kernel_arrays(frame(), preflop, tables)
    return _EMPTY_SOURCE


def native_spec(bot: Any) -> tuple[Any, ...] | None:
    """The compiled loop's description of ``bot``, or None for a bot only Python plays (any object with ``act``)."""
    native = getattr(bot, "native", None)
    return native() if callable(native) else None


def needs_strength(bots: Sequence[Bot]) -> bool:
    """Whether a built-in bot will read strengths from the database (Python bots bring their own)."""
    for bot in bots:
        spec = native_spec(bot)
        if spec is not None and spec[0] in STRENGTH_KINDS:
            return True
    return False


def play_game(bots: Sequence[Bot], settings: GameSettings = GameSettings(), deal_seed: int | Sequence[int] | None = 0, bot_seed: int = 0,
              source: Any = None, button: int = 0, python: bool = False, lenient: bool = False,
              on_hand: Callable[[PlayedHand], None] | None = None) -> GameResult:
    """Play one game with ``bots[s]`` in seat ``s`` and return its :class:`GameResult`.

    ``deal_seed`` seeds the numpy Generator of the decks (any SeedSequence
    entropy), ``bot_seed`` numba's generator that the built-in bots draw
    from. ``source`` (a :class:`matchdb.play.strength.StrengthSource`) is needed
    when a bot uses a hand strength. The compiled loop plays when every bot is
    a built-in one with a built-in strength (and none wants ``on_game_start``
    or ``on_hand_end``), unless ``python`` asks for the Python loop. There an
    illegal action (a raise where none is allowed, to an amount outside the
    legal range or not a whole number of chips) is refused with a
    :class:`GameError` naming the bot, or with ``lenient`` corrected (a call;
    the amount truncated and clamped to the range) and counted per seat in
    ``result.extra["corrections"]``. ``lenient`` corrects actions only: an
    answer that is not an action (not ``(kind, amount)``, an unknown kind, an
    amount that is not a number or is NaN) and an exception raised in the
    bot's ``act``, ``on_game_start`` or ``on_hand_end`` stop the game with a
    :class:`GameError` naming the bot either way (its exception chained as
    the cause). ``on_hand``
    gets every finished hand as a :class:`PlayedHand` before the next is
    dealt (both loops; the compiled one stops after each hand to hand it over).

    >>> from matchdb.play.bots import AllIn, CallingStation
    >>> hands = []
    >>> result = play_game([AllIn(), CallingStation()], deal_seed=1, on_hand=hands.append)
    >>> len(hands) == result.hands, hands[-1].record.stacks[0] + hands[-1].record.stacks[1]
    (True, 3000)
    """
    seats = len(bots)
    if not 2 <= seats <= MAX_SEATS:
        raise GameError(f"A game needs 2 to {MAX_SEATS} bots; got {seats}.")
    for bot in bots:
        if not callable(getattr(bot, "act", None)):
            raise GameError(f"The bot {bot_name(bot)!r} has no act(view) method.")
    if not 0 <= button < seats:
        raise GameError(f"The first button {button!r} is not a seat 0..{seats - 1}.")
    if source is None and needs_strength(bots):
        raise GameError("These bots need hand strengths; give a source (matchdb.play.strength.StrengthSource(db)).")
    state = _Game(seats, settings, deal_seed, button)
    seed_kernels(int(bot_seed) % 2**32)
    found = [native_spec(bot) for bot in bots]
    specs = [spec for spec in found if spec is not None]
    if python or len(specs) < len(found) or any(wants_results(bot) or wants_game_start(bot) for bot in bots):
        return _play_python(state, bots, source, lenient, on_hand)
    kinds = np.array([spec[0] for spec in specs], dtype=np.int64)
    params = np.stack([spec[1] for spec in specs]).astype(np.float64)
    scodes = np.array([spec[2][:4] for spec in specs], dtype=np.int64)
    thresholds = np.array([spec[2][4] for spec in specs], dtype=np.float64)
    arrays = source.arrays() if source is not None else _empty_arrays()
    columns = np.empty(1176, dtype=np.int64)
    board5 = np.zeros(5, dtype=np.int64)
    flags = np.zeros(10, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    cards = np.zeros(7, dtype=np.int64)
    decoded = 0
    while True:
        status = _run(state.g, state.p, state.log, state.game, state.schedule, state.decks, state.places,
                      state.bust_hand, state.stats, state.big_blinds, kinds, params, scodes, thresholds, arrays,
                      columns, board5, flags, counts, cards, on_hand is not None)
        if status == _DONE:
            break
        if status == _HAND_OVER:
            assert on_hand is not None
            on_hand(state.played())
        elif status == _NEED_DECKS:
            state.more_decks()
        else:
            source.tables.ensure(int(state.game[GM_NEED]))
            decoded += 1
    return state.result(decoded, compiled=True)


def wants_results(bot: Any) -> bool:
    """Whether ``bot`` has an ``on_hand_end(result)`` of its own (then only the Python loop can play it)."""
    method = getattr(type(bot), "on_hand_end", None)
    return callable(method) and method is not Bot.on_hand_end


def wants_game_start(bot: Any) -> bool:
    """Whether ``bot`` has an ``on_game_start(start)`` of its own (then only the Python loop can play it)."""
    method = getattr(type(bot), "on_game_start", None)
    return callable(method) and method is not Bot.on_game_start


def bot_name(bot: Any) -> str:
    """A bot's ``name`` as results and messages show it (its type's name when it has none)."""
    name = getattr(bot, "name", None)
    return name if isinstance(name, str) and name else type(bot).__name__


def _ask(bot: Any, seat: int, method: str, where: str, argument: Any) -> Any:
    """``bot.method(argument)``; an exception in it stops the game with one sentence naming the bot.

    The bot's own exception stays chained as the cause, for a Python user
    who wants its traceback; the command line prints the sentence alone.
    """
    try:
        return getattr(bot, method)(argument)
    except Exception as error:
        text = str(error).strip().splitlines()[0][:200].rstrip(".") if str(error).strip() else ""
        raise GameError(f"The bot {bot_name(bot)!r} (seat {seat}, {where}) failed in {method}: "
                        f"{type(error).__name__}{': ' + text if text else ''}.") from error


def _checked_action(answer: Any, legal: tuple[int, bool, int, int], bot: Bot, seat: int, street: int, hand: int, lenient: bool) -> tuple[int, int, bool]:
    """The bot's answer as (kind, amount, corrected); an illegal one refused in one sentence, or corrected when lenient.

    Legal: FOLD (a check when nothing is to be called, West's rule), CHECK or
    CALL (either checks or calls), RAISE to a whole number of chips within
    the legal range when a raise is allowed.
    """
    name = bot_name(bot)
    where = f"(seat {seat}, {('preflop', 'flop', 'turn', 'river')[street]} of hand {hand})"
    try:
        kind, amount = answer
    except (TypeError, ValueError):
        raise GameError(f"The bot {name!r} {where} answered {answer!r}; expected (kind, amount) like (CALL, 0).") from None
    if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)) or int(kind) not in (FOLD, CHECK, CALL, RAISE):
        raise GameError(f"The bot {name!r} {where} answered the action {kind!r}; expected FOLD (0), CHECK (1), CALL (2) "
                        "or RAISE (3).")
    kind = int(kind)
    to_call, can_raise, min_to, max_to = legal
    if kind != RAISE:
        return kind, 0, False
    if isinstance(amount, bool) or not isinstance(amount, (int, np.integer, float, np.floating)) or amount != amount:
        raise GameError(f"The bot {name!r} {where} raised to {amount!r}; expected a whole number of chips.")
    problem = None
    if not can_raise:
        problem = f"raised to {amount!r} where it may not raise; expected a call (to call: {to_call}) or a fold"
    elif amount != int(amount) or not isinstance(amount, (int, np.integer)):
        problem = f"raised to {amount!r}; expected a whole number of chips {min_to}..{max_to}"
    elif not min_to <= amount <= max_to:
        problem = f"raised to {amount!r}; expected a raise to {min_to}..{max_to}, a call or a fold"
    if problem is None:
        return RAISE, int(amount), False
    if not lenient:
        raise GameError(f"The bot {name!r} {where} {problem} (lenient=True, or --lenient, corrects and counts it).")
    if not can_raise:
        return CALL, 0, True
    if amount in (math.inf, -math.inf):
        return RAISE, max_to if amount > 0 else min_to, True
    return RAISE, min(max(int(amount), min_to), max_to), True


def _play_python(state: _Game, bots: Sequence[Bot], source: Any, lenient: bool = False,
                 on_hand: Callable[[PlayedHand], None] | None = None) -> GameResult:
    """The same game as the compiled loop, with each decision asked of ``bot.act(view)`` in Python.

    Each bot sees the hand number and the seats' names in its view, gets
    ``on_hand_end(result)`` after every hand it was dealt into (when it has
    that method), and its illegal actions are refused (or, ``lenient``,
    corrected and counted in ``GameResult.extra["corrections"]``).
    """
    table = Table._over_arrays(state.g, state.p, state.log)  # for Hand's views
    decoded_before = getattr(source.tables, "decoded", 0) if source is not None else 0
    names = tuple(bot_name(bot) for bot in bots)
    for seat, bot in enumerate(bots):
        if wants_game_start(bot):
            start = state.start(seat, names)
            _ask(bot, seat, "on_game_start", "before the game's first hand", start)
    listeners = [seat for seat, bot in enumerate(bots) if wants_results(bot)]
    corrections = np.zeros(state.seats, dtype=np.int64)
    hand: Hand | None = None  # the hand being played, once the first is dealt
    number = 0

    def finished() -> None:
        if listeners and hand is not None:
            results = hand.results(number, names)
            for seat in listeners:
                if state.p[_P_STATE, seat] != 0:
                    _ask(bots[seat], seat, "on_hand_end", f"at the end of hand {number}", results[seat])
        _end_hand(g, state.p, state.log, state.game, state.places, state.bust_hand, state.stats, state.big_blinds)
        if on_hand is not None:
            on_hand(state.played())

    while True:
        g = state.g
        if g[_G_STREET] == 4:
            if state.game[GM_OVER]:
                break
            if state.game[GM_DECK] >= len(state.decks):
                state.more_decks()
            deck = state.decks[state.game[GM_DECK]]
            state.game[GM_DECK] += 1
            number = int(state.game[GM_HANDS])
            hand = Hand(table, deck)
            if not _begin_hand(g, state.p, state.log, state.game, state.schedule, deck):
                break
            if g[_G_STREET] == 4:
                finished()
            continue
        seat = int(g[_G_ACTOR])
        assert hand is not None  # a street below 4 means a hand was dealt
        view = hand.view(source, number, names)
        legal = (view.to_call, view.can_raise, view.min_raise_to, view.max_raise_to)
        where = f"{('preflop', 'flop', 'turn', 'river')[view.street]} of hand {number}"
        answer = _ask(bots[seat], seat, "act", where, view)
        kind, amount, corrected = _checked_action(answer, legal, bots[seat], seat, view.street, number, lenient)
        corrections[seat] += corrected
        _act_kernel(g, state.p, state.log, hand.full_board, kind, amount)
        if g[_G_STREET] == 4:
            finished()
    decoded = getattr(source.tables, "decoded", 0) - decoded_before if source is not None else 0
    result = state.result(decoded, compiled=False)
    result.extra["corrections"] = corrections
    return result


def loop_compiled() -> bool:
    """Whether the compiled game loop loads from numba's cache (or is loaded) rather than compiling on its first
    use (about half a minute of processor time, once per machine): what the arena says before its first game."""
    return compiled_before(_run)
