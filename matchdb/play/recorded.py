"""Recorded hands through the engine: one seating, one play of the recorded betting, one count of the chips.

:mod:`matchdb.hands` replays real hand histories two ways: in Python, one
hand at a time with every step (:func:`matchdb.hands.replay_hand`), and
compiled, in blocks of hands (:mod:`matchdb.hands.batch`). Both seat a hand
with :func:`seat_kernel` and read its chips with :func:`settle_kernel`, so
the two replays keep one bookkeeping: what each seat put in, got back (an
uncalled bet or ante), won, and holds at the end. The Python replay plays the
recorded betting through :class:`~matchdb.play.engine.Hand`; the compiled one
through :func:`play_kernel`, which checks each action as the Python replay
does and plays it with the same rule kernels.

The engine's state (three integer arrays) keeps its layout private: a
compiled caller makes one with :func:`new_state` and hands it to these
kernels, which check nothing (the caller owns the arrays and their sizes);
:func:`recorded_table` and :func:`settlement` are the checked Python side.

>>> table, hand = recorded_table(stacks=(100, 100, 100), small_blind=1, big_blind=2, ante=0, button=2,
...                              deck=tuple(range(52)))
>>> hand.actor, hand.state().bets
(2, (1, 2, 0))
>>> for kind, amount in [(RAISE, 6), (FOLD, 0), (FOLD, 0)]:
...     _ = hand.act(kind, amount)
>>> settlement(hand)
Settlement(won=(0, 0, 5), final=(99, 98, 103), before=(99, 98, 98), contributions=(1, 2, 2), returned=(0, 0, 4), showdown=False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from matchdb.jit import jit
from matchdb.play.engine import (
    _G_ACTOR,
    _G_ANTE,
    _G_BB,
    _G_BB_SEAT,
    _G_FIELDS,
    _G_NLOG,
    _G_REACHED,
    _G_RULES,
    _G_SB,
    _G_SEATS,
    _G_SHOWDOWN,
    _G_STREET,
    _LOG_KIND,
    _LOG_SEAT,
    _LOG_STREET,
    _P_BACK,
    _P_FIELDS,
    _P_HOLE0,
    _P_HOLE1,
    _P_POST,
    _P_STACK,
    _P_START,
    _P_WON,
    ANTE,
    BIG_BLIND,
    CALL,
    CHECK,
    FOLD,
    MAX_SEATS,
    RAISE,
    RULE_OPEN_FOLD,
    SMALL_BLIND,
    EngineError,
    Hand,
    Table,
    _act_kernel,
    _legal_kernel,
    _start_hand_kernel,
    log_capacity,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "ACTION_FACTS",
    "PLAYED",
    "REFUSED",
    "Settlement",
    "new_state",
    "play_kernel",
    "action_facts_kernel",
    "recorded_table",
    "seat_kernel",
    "settle_kernel",
    "settlement",
]

#: :func:`play_kernel`'s answers: the record's betting played to the end of the hand, or not playable as recorded.
PLAYED, REFUSED = 0, 1
#: What :func:`action_facts_kernel` counts per seat, in its columns: voluntarily put chips in preflop, raised
#: preflop, re-raised a single preflop raise, faced one (could have re-raised), bets and raises after the flop,
#: calls after the flop.
ACTION_FACTS = ("vpip", "pfr", "three_bet", "three_bet_chance", "postflop_aggressive", "postflop_calls")


class Settlement(NamedTuple):
    """A settled hand's chips per seat (:func:`settlement`; :func:`settle_kernel` for compiled callers).

    ``won``: paid from the pots; ``final``: the stacks at the end;
    ``before``: the stacks once the bets were in, before the pots were paid
    (``final - won``); ``contributions``: chips left in the pots (``start -
    final + won``); ``returned``: chips given back, the part of a bet or an
    ante that nobody matched; ``showdown``: the hand ended at a showdown.
    """

    won: tuple[int, ...]
    final: tuple[int, ...]
    before: tuple[int, ...]
    contributions: tuple[int, ...]
    returned: tuple[int, ...]
    showdown: bool


def new_state(log_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrays for one hand at a time of the compiled kernels here: (table, seats, history of ``log_rows`` rows).

    A hand's history holds one row per post and action; a record with ``k``
    ops needs at most ``k + 3 * MAX_SEATS + 8``.
    """
    return (np.zeros(_G_FIELDS, dtype=np.int64), np.zeros((_P_FIELDS, MAX_SEATS), dtype=np.int64),
            np.zeros((int(log_rows), 4), dtype=np.int64))


@jit
def seat_kernel(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    n: int,
    stacks: NDArray[np.int64],
    posts: NDArray[np.int64],
    dead: int,
    small_blind: int,
    big_blind: int,
    ante: int,
    rules: int,
    opener: int,
    deck: NDArray[np.int64],
    button: int,
    hidden: NDArray[np.int64],
) -> None:
    """Seat a recorded hand and deal it from ``deck``: the first ``n`` seats, ``stacks[:n]``, the blinds, the button.

    ``posts[:n]`` are the seats' own forced bets under
    :data:`~matchdb.play.engine.RULE_POSTS` (else zeros), a post of a seat in
    the bits of ``dead`` played as dead money; ``opener`` is the seat the
    preflop action starts after under that rule. A seat with ``hidden[s]``
    nonzero reaches a showdown with its cards unknown (it plays the board).
    """
    g[:] = 0
    p[:] = 0
    for s in range(n):
        p[_P_STACK, s] = stacks[s]
        p[_P_POST, s] = -posts[s] if dead >> s & 1 else posts[s]
    g[_G_SEATS] = n
    g[_G_SB] = small_blind
    g[_G_BB] = big_blind
    g[_G_ANTE] = ante
    g[_G_RULES] = rules
    g[_G_BB_SEAT] = opener
    g[_G_STREET] = 4
    _start_hand_kernel(g, p, log, deck, button)
    for s in range(n):
        if hidden[s] != 0:
            p[_P_HOLE0, s] = -1
            p[_P_HOLE1, s] = -1


@jit
def play_kernel(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    board: NDArray[np.int64],
    ops: NDArray[np.int64],
    first: int,
    end: int,
    kinds: tuple[int, int, int, int],
) -> tuple[int, bool, int]:
    """Play the recorded ops ``ops[first:end]`` on a seated hand; returns (PLAYED or REFUSED, open fold, last street).

    Each op is a row ``(kind, player, amount, cards dealt, ...)``; ``kinds``
    names the four kinds that matter, ``(board dealt, fold, check or call,
    bet or raise)``, and every other op (hole cards, a show) is passed over.
    An action must come from the player to act, a bet or raise within the
    legal sizes, board cards only once the round's betting is done, and the
    engine must play each action as recorded; else the hand is REFUSED (the
    Python replay words why). ``open fold`` is True when a player folded with
    nothing to call; ``last street`` the street of the last action.
    """
    deal, fold, check_call, bet_raise = kinds
    seen = 0
    last_street = 0
    open_fold = False
    for o in range(first, end):
        kind = ops[o, 0]
        who = ops[o, 1]
        if kind == deal:
            seen += ops[o, 3]
            shown_now = (0, 3, 4, 5)[g[_G_REACHED]] if g[_G_REACHED] <= 3 else 5
            if g[_G_STREET] != 4 and g[_G_ACTOR] >= 0 and shown_now < seen:
                return REFUSED, open_fold, last_street
            continue
        if kind != fold and kind != check_call and kind != bet_raise:
            continue
        if g[_G_STREET] == 4 or who != g[_G_ACTOR]:
            return REFUSED, open_fold, last_street
        to_call, can_raise, min_to, max_to = _legal_kernel(g, p)
        amount = 0
        if kind == fold:
            if to_call <= 0:
                open_fold = True
            engine_kind = FOLD
        elif kind == check_call:
            engine_kind = CALL if to_call > 0 else CHECK
        else:
            amount = ops[o, 2]
            if not can_raise or amount < min_to or amount > max_to:
                return REFUSED, open_fold, last_street
            engine_kind = RAISE
        last_street = g[_G_STREET]
        if _act_kernel(g, p, log, board, engine_kind, amount) != engine_kind:
            return REFUSED, open_fold, last_street
    if g[_G_STREET] != 4:
        return REFUSED, open_fold, last_street
    return PLAYED, open_fold, last_street


@jit
def settle_kernel(
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    n: int,
    won: NDArray[np.int64],
    final: NDArray[np.int64],
    before: NDArray[np.int64],
    contributions: NDArray[np.int64],
    returned: NDArray[np.int64],
) -> bool:
    """The chips of a settled hand per seat into the first ``n`` entries of each array (see :class:`Settlement`).

    Returns True when the hand ended at a showdown.
    """
    for s in range(n):
        won[s] = p[_P_WON, s]
        final[s] = p[_P_STACK, s]
        before[s] = p[_P_STACK, s] - p[_P_WON, s]
        contributions[s] = p[_P_START, s] - p[_P_STACK, s] + p[_P_WON, s]
        returned[s] = p[_P_BACK, s]
    showdown: bool = g[_G_SHOWDOWN] != 0
    return showdown


@jit
def action_facts_kernel(
    g: NDArray[np.int64],
    log: NDArray[np.int64],
    n: int,
    facts: NDArray[np.int64],
    folded_at: NDArray[np.int64],
) -> None:
    """Count each seat's :data:`ACTION_FACTS` in ``facts[s, :6]``; ``folded_at[s]`` the street it folded on, else 5."""
    for s in range(n):
        for j in range(len(ACTION_FACTS)):
            facts[s, j] = 0
        folded_at[s] = 5
    raises = 0
    for i in range(min(g[_G_NLOG], log.shape[0])):
        st = log[i, _LOG_STREET]
        seat = log[i, _LOG_SEAT]
        kind = log[i, _LOG_KIND]
        if kind == SMALL_BLIND or kind == BIG_BLIND or kind == ANTE:
            continue
        if st == 0:
            if raises == 1:
                facts[seat, 3] = 1
                if kind == RAISE:
                    facts[seat, 2] = 1
            if kind == CALL or kind == RAISE:
                facts[seat, 0] = 1
            if kind == RAISE:
                facts[seat, 1] = 1
                raises += 1
        elif kind == RAISE:
            facts[seat, 4] += 1
        elif kind == CALL:
            facts[seat, 5] += 1
        if kind == FOLD:
            folded_at[seat] = st


def recorded_table(stacks: Sequence[int], small_blind: int, big_blind: int, ante: int, button: int,
                   deck: Sequence[int], posts: Sequence[int] | None = None, opener: int = -1,
                   rules: int = RULE_OPEN_FOLD, hidden: Sequence[bool] = (), log_rows: int = 0) -> tuple[Table, Hand]:
    """A table seating a recorded hand, and the hand dealt from ``deck`` (seat ``s`` holds ``deck[2 s]``,
    ``deck[2 s + 1]``, the board follows; see :func:`seat_kernel`).

    ``log_rows`` sizes the history (0: enough for any hand of these stacks).
    Raises :class:`~matchdb.play.engine.EngineError` for seats, a deck or
    posts the engine cannot seat.
    """
    n = len(stacks)
    if not 2 <= n <= MAX_SEATS:
        raise EngineError(f"A table needs 2 to {MAX_SEATS} seats; got {n} stacks.")
    cards = np.asarray(deck, dtype=np.int64)
    if cards.ndim != 1 or len(cards) < 2 * n + 5:
        raise EngineError(f"A deck for {n} seats holds at least {2 * n + 5} card ids (two a seat, then the board); "
                          f"got {cards.shape}.")
    if posts is not None and len(posts) != n:
        raise EngineError(f"The posts {list(posts)!r} do not name one forced bet per seat of {n}.")
    g, p, log = new_state(int(log_rows) or log_capacity(sum(stacks), big_blind, n))
    hidden_seats = np.zeros(MAX_SEATS, dtype=np.int64)
    hidden_seats[:len(hidden)] = hidden
    seat_kernel(g, p, log, n, np.asarray(stacks, dtype=np.int64),
                np.zeros(n, dtype=np.int64) if posts is None else np.asarray(posts, dtype=np.int64), 0, small_blind,
                big_blind, ante, rules, opener, cards, button, hidden_seats)
    table = Table._over_arrays(g, p, log)
    return table, Hand(table, cards)


def settlement(hand: Hand) -> Settlement:
    """The chips of a settled hand per seat (the compiled replay reads the same with :func:`settle_kernel`)."""
    if not hand.over:
        raise EngineError("The hand is not over: nothing is settled yet.")
    table = hand._table
    n = table.seats
    rows = np.zeros((5, n), dtype=np.int64)
    showdown = settle_kernel(table._g, table._p, n, rows[0], rows[1], rows[2], rows[3], rows[4])
    won, final, before, contributions, returned = (tuple(row) for row in rows.tolist())
    return Settlement(won, final, before, contributions, returned, bool(showdown))
