"""Exact expected payments of an all-in: every remaining board enumerated, every pot and side pot paid.

When the betting ends before the river with the hands still in shown, a
player's *all-in adjusted* result replaces the chips the runout happened to
pay by their expectation over every runout (the usual "all-in EV"). Here the
remaining board cards are enumerated exhaustively (no sampling): 1,712,304
boards preflop heads-up (each pot's contenders through
:func:`matchdb.equity.enumeration.known_hands`, about a millisecond a pot, the
other live hands as dead cards), 990 on the flop, 44 on the turn; each
runout pays the main pot and the side pots by contribution level to the best
hands eligible for them, a tie splitting evenly (fractions of a chip, so the
expectation carries no odd-chip rule). Folded players' chips are dead money
in the pots; their cards, unknown to the others, are not removed from the
deck. Heads-up after the flop :mod:`matchdb.hands.analysis` asks the database
instead (the same figure, from the match tables); the tests check both
against eval7's enumeration.

>>> from matchdb.core.cards import parse_cards
>>> pays = expected_payments([parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2c7dJh"), [100, 100])
>>> [round(x, 6) for x in pays]
[57.979798, 142.020202]
>>> expected_payments([parse_cards("AhKh"), parse_cards("AhQd")], (), [100, 100])
Traceback (most recent call last):
...
matchdb.hands.reader.HandsError: The all-in hands and board repeat a card; expected distinct cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.equity.enumeration import known_hands
from matchdb.hands.reader import HandsError
from matchdb.jit import jit

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["expected_payments", "pot_levels"]


def pot_levels(contributions: Sequence[int], alive: Sequence[bool]) -> list[tuple[int, tuple[int, ...]]]:
    """The pots by contribution level: ``(amount, seats that may win it)``, main pot first.

    >>> pot_levels([50, 100, 100, 30], [True, True, True, False])
    [(180, (0, 1, 2)), (100, (1, 2))]
    """
    out: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for level in sorted({c for c in contributions if c > 0}):
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        seats = tuple(s for s, c in enumerate(contributions) if alive[s] and c >= level)
        if seats and out and out[-1][1] == seats:
            out[-1] = (out[-1][0] + amount, seats)
        elif seats:
            out.append((amount, seats))
        elif out:  # chips nobody alive matched (cannot happen after uncalled bets are returned): the last pot
            out[-1] = (out[-1][0] + amount, out[-1][1])
        previous = level
    return out


def expected_payments(holes: Sequence[Any], board: Sequence[int], contributions: Sequence[int],
                      alive: Sequence[bool] | None = None) -> list[float]:
    """Each seat's exact expected payment from the pots, over every runout of the board.

    Parameters
    ----------
    holes : per seat two card ids (None or anything for a folded seat).
    board : the board cards dealt when the betting ended (0, 3, 4 or 5).
    contributions : chips each seat put in the pot (uncalled bets returned).
    alive : seats still in the hand (default: every seat).
    """
    n = len(contributions)
    alive = [True] * n if alive is None else [bool(a) for a in alive]
    if len(holes) != n or len(alive) != n:
        raise HandsError(f"The all-in has {len(holes)} hands and {len(alive)} flags for {n} contributions; "
                         "expected one of each per seat.")
    if len(board) not in (0, 3, 4, 5):
        raise HandsError(f"The board {list(board)!r} has {len(board)} cards; expected 0, 3, 4 or 5.")
    seats = [s for s in range(n) if alive[s]]
    cards = [int(c) for s in seats for c in holes[s]] + [int(c) for c in board]
    if any(not 0 <= c <= 51 for c in cards) or any(len(holes[s]) != 2 for s in seats):
        raise HandsError("The all-in hands and board must be card ids 0..51, two per live seat.")
    if len(set(cards)) != len(cards):
        raise HandsError("The all-in hands and board repeat a card; expected distinct cards.")
    levels = pot_levels(list(contributions), alive)
    key = (tuple(tuple(sorted(int(c) for c in holes[s])) for s in seats), tuple(sorted(int(c) for c in board)),
           tuple((a, tuple(seats.index(s) for s in who)) for a, who in levels))
    shares = _shares(key)
    out = [0.0] * n
    for k, s in enumerate(seats):
        out[s] = shares[k]
    return out


#: What :func:`_shares` is cached by: the live seats' hands, the board and the pots (amount, contenders), sorted.
_SharesKey = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[tuple[int, tuple[int, ...]], ...]]


@lru_cache(maxsize=4096)
def _shares(key: _SharesKey) -> tuple[float, ...]:
    holes, board, levels = key
    k = len(holes)
    if not board:
        # preflop: each pot's contenders' exact equity over every board (matchdb.equity.enumeration, about a
        # millisecond), the other live hands out of the deck as dead cards, pays that pot
        shares = [0.0] * k
        for amount, who in levels:
            if len(who) == 1:
                shares[who[0]] += amount
                continue
            dead = [c for s in range(k) if s not in who for c in holes[s]]
            equity = known_hands([holes[s] for s in who], dead=dead).equity
            for s, e in zip(who, equity, strict=True):
                shares[s] += amount * e
        return tuple(shares)
    hole_array = np.array(holes, dtype=np.int64).reshape(k, 2)
    board_array = np.array(board, dtype=np.int64)
    used = {c for h in holes for c in h} | set(board)
    rest = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    amounts = np.array([a for a, _ in levels], dtype=np.float64)
    masks = np.zeros((len(levels), k), dtype=np.bool_)
    for i, (_, who) in enumerate(levels):
        masks[i, list(who)] = True
    totals = _enumerate(hole_array, board_array, rest, 5 - len(board), amounts, masks, STRAIGHT_TOP, FLUSH_VALUE)
    return tuple(float(x) for x in totals)


@jit
def _enumerate(
    holes: NDArray[np.int64],
    board: NDArray[np.int64],
    rest: NDArray[np.int64],
    missing: int,
    amounts: NDArray[np.float64],
    masks: NDArray[np.bool_],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> NDArray[np.float64]:
    """Average payment per live seat over every ``missing``-card completion of ``board`` from ``rest``."""
    k = holes.shape[0]
    counts = np.zeros(13, dtype=np.int32)
    cards = np.empty((k, 7), dtype=np.int64)
    for s in range(k):
        cards[s, 0] = holes[s, 0]
        cards[s, 1] = holes[s, 1]
        for j in range(board.shape[0]):
            cards[s, 2 + j] = board[j]
    values = np.empty(k, dtype=np.int64)
    totals = np.zeros(k, dtype=np.float64)
    m = rest.shape[0]
    idx = np.zeros(5, dtype=np.int64)
    for j in range(missing):
        idx[j] = j
    runouts = 0
    b = board.shape[0]
    while True:
        for s in range(k):
            for j in range(missing):
                cards[s, 2 + b + j] = rest[idx[j]]
            values[s] = evaluate_with(cards[s], counts, straight_top, flush_value)
        for p in range(amounts.shape[0]):
            best = -1
            for s in range(k):
                if masks[p, s] and values[s] > best:
                    best = values[s]
            winners = 0
            for s in range(k):
                if masks[p, s] and values[s] == best:
                    winners += 1
            share = amounts[p] / winners
            for s in range(k):
                if masks[p, s] and values[s] == best:
                    totals[s] += share
        runouts += 1
        # next combination of ``missing`` indices out of m
        j = missing - 1
        while j >= 0 and idx[j] == m - missing + j:
            j -= 1
        if j < 0:
            break
        idx[j] += 1
        for t in range(j + 1, missing):
            idx[t] = idx[t - 1] + 1
    for s in range(k):
        totals[s] /= runouts
    return totals
