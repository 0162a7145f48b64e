"""Hand evaluator for 5, 6 and 7 cards, compiled with numba.

The value is the contract's 24-bit code: hand type in bits 20..23 (0 high card
... 8 straight flush), then the deciding ranks, most significant first, one
nibble each. Larger is stronger; equal values tie.

>>> hex(evaluate("AH QD 4S KH 8C"))
'0xcba62'
>>> hex(evaluate("4D JD 3D 4C AD"))
'0x12c910'
>>> hex(evaluate("Ah 2c 3d 4s 5h"))
'0x430000'
>>> HAND_TYPES[hand_type(evaluate("7c6c5c4c3c"))]
'straight flush'
>>> evaluate("AhKh")
Traceback (most recent call last):
...
matchdb.errors.CardError: The hand 'AhKh' has 2 cards; expected 5, 6 or 7.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.cards import Card, format_cards, parse_cards
from matchdb.errors import CardError
from matchdb.jit import jit

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: ``evaluate_with`` and its two tables are the kernel interface for other packages' numba code (bots, the
#: engine, distributions, reports): compiled callers cannot go through ``evaluate``'s checks.
__all__ = ["HAND_TYPES", "evaluate", "evaluate_many", "hand_type", "evaluate_with", "STRAIGHT_TOP", "FLUSH_VALUE"]

HAND_TYPES = (
    "high card",
    "pair",
    "two pair",
    "trips",
    "straight",
    "flush",
    "full house",
    "quads",
    "straight flush",
)

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)

def _straight_top_table() -> np.ndarray:
    """``STRAIGHT_TOP[mask]``: top rank of the best straight in a 13-bit rank mask, or -1."""
    table = np.full(1 << 13, -1, dtype=np.int8)
    windows = [(top, sum(1 << r for r in range(top - 4, top + 1))) for top in range(4, 13)]
    windows.append((3, 0b1000000001111))  # the wheel A-2-3-4-5 is 5-high
    masks = np.arange(1 << 13)
    for top, window in sorted(windows):  # ascending, so the best straight wins
        table[(masks & window) == window] = top
    return table


def _pack_top(mask: int, count: int) -> int:
    """Pack the ``count`` highest ranks set in ``mask`` as nibbles, most significant first."""
    value = 0
    taken = 0
    for rank in range(12, -1, -1):
        if taken == count:
            break
        if mask >> rank & 1:
            value |= rank << (16 - 4 * taken)
            taken += 1
    return value


def _flush_value_table(straight_top: np.ndarray) -> np.ndarray:
    """``FLUSH_VALUE[mask]``: value of the best hand among >= 5 cards of one suit, else 0."""
    table = np.zeros(1 << 13, dtype=np.int32)
    for mask in range(1 << 13):
        if mask.bit_count() < 5:
            continue
        top = int(straight_top[mask])
        if top >= 0:
            table[mask] = STRAIGHT_FLUSH << 20 | top << 16
        else:
            table[mask] = FLUSH << 20 | _pack_top(mask, 5)
    return table


STRAIGHT_TOP = _straight_top_table()
FLUSH_VALUE = _flush_value_table(STRAIGHT_TOP)
STRAIGHT_TOP.flags.writeable = False
FLUSH_VALUE.flags.writeable = False


@jit
def _kickers(counts: NDArray[np.integer[Any]], skip1: int, skip2: int, how_many: int, shift: int) -> int:
    """Pack the ``how_many`` highest ranks present, other than skip1/skip2, from bit ``shift`` down."""
    value = 0
    for rank in range(12, -1, -1):
        if how_many == 0:
            break
        if counts[rank] > 0 and rank != skip1 and rank != skip2:
            value |= rank << shift
            shift -= 4
            how_many -= 1
    return value


@jit
def _value_from_ranks(counts: NDArray[np.integer[Any]], straight_top: NDArray[np.int8]) -> int:
    """Value of the best non-flush hand given the count of each rank (5 to 7 cards)."""
    quads = -1
    trips1 = -1
    trips2 = -1
    pair1 = -1
    pair2 = -1
    rank_mask = 0
    for rank in range(12, -1, -1):
        c = counts[rank]
        if c == 0:
            continue
        rank_mask |= 1 << rank
        if c == 4:
            quads = rank
        elif c == 3:
            if trips1 < 0:
                trips1 = rank
            elif trips2 < 0:
                trips2 = rank
        elif c == 2:
            if pair1 < 0:
                pair1 = rank
            elif pair2 < 0:
                pair2 = rank
    if quads >= 0:
        return QUADS << 20 | quads << 16 | _kickers(counts, quads, -1, 1, 12)
    if trips1 >= 0 and (trips2 >= 0 or pair1 >= 0):
        return FULL_HOUSE << 20 | trips1 << 16 | max(trips2, pair1) << 12
    top: int = straight_top[rank_mask]
    if top >= 0:
        return STRAIGHT << 20 | top << 16
    if trips1 >= 0:
        return TRIPS << 20 | trips1 << 16 | _kickers(counts, trips1, -1, 2, 12)
    if pair2 >= 0:
        return TWO_PAIR << 20 | pair1 << 16 | pair2 << 12 | _kickers(counts, pair1, pair2, 1, 8)
    if pair1 >= 0:
        return PAIR << 20 | pair1 << 16 | _kickers(counts, pair1, -1, 3, 12)
    return HIGH_CARD << 20 | _kickers(counts, -1, -1, 5, 16)


@jit
def evaluate_with(
    cards: NDArray[np.integer[Any]],
    counts: NDArray[np.integer[Any]],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> int:
    """Value of 5 to 7 card ids, for numba callers: no checks; ``counts`` is 13 zeros of scratch, left zeroed.

    Call it from compiled code with ``STRAIGHT_TOP`` and ``FLUSH_VALUE``; from Python, use :func:`evaluate`.
    """
    suit_masks = 0  # four 16-bit fields: the ranks held in each suit
    suit_counts = 0  # four 4-bit fields
    for card in cards:
        rank = card % 13
        suit = card // 13
        counts[rank] += 1
        suit_masks |= 1 << (16 * suit + rank)
        suit_counts += 1 << (4 * suit)
    value = -1
    for suit in range(4):
        if (suit_counts >> (4 * suit)) & 15 >= 5:
            value = flush_value[(suit_masks >> (16 * suit)) & 0x1FFF]
    if value < 0:
        value = _value_from_ranks(counts, straight_top)
    for card in cards:
        counts[card % 13] = 0
    return value


@jit
def _evaluate(cards: NDArray[np.int64], straight_top: NDArray[np.int8], flush_value: NDArray[np.int32]) -> int:
    """Value of 5 to 7 card ids (no checks)."""
    return evaluate_with(cards, np.zeros(13, dtype=np.int32), straight_top, flush_value)


@jit
def _evaluate_rows(
    hands: NDArray[np.int64], straight_top: NDArray[np.int8], flush_value: NDArray[np.int32]
) -> NDArray[np.int32]:
    out = np.empty(hands.shape[0], dtype=np.int32)
    counts = np.zeros(13, dtype=np.int32)
    for i in range(hands.shape[0]):
        out[i] = evaluate_with(hands[i], counts, straight_top, flush_value)
    return out


def evaluate(cards: str | Iterable[str | int | Card]) -> int:
    """Return the value of a 5, 6 or 7 card hand (the best five cards count).

    >>> hex(evaluate("7C 6C 5C 4C 3D"))
    '0x450000'
    """
    ids = parse_cards(cards)
    if not 5 <= len(ids) <= 7:
        shown = cards if isinstance(cards, str) else format_cards(ids)
        raise CardError(f"The hand {shown!r} has {len(ids)} cards; expected 5, 6 or 7.")
    return int(_evaluate(np.array(ids, dtype=np.int64), STRAIGHT_TOP, FLUSH_VALUE))


def evaluate_many(hands: np.ndarray) -> np.ndarray:
    """Return the values of many hands given as an (N, k) array of card ids, k in 5..7.

    >>> evaluate_many(np.array([[51, 50, 49, 48, 47], [0, 1, 2, 3, 4]])).tolist()
    [9175040, 8650752]
    """
    hands = np.asarray(hands)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7:
        raise CardError(f"The hands array has shape {hands.shape}; expected (N, 5), (N, 6) or (N, 7).")
    if hands.size and (hands.min() < 0 or hands.max() > 51):
        raise CardError("The hands array holds card ids outside 0..51.")
    ordered = np.sort(hands, axis=1)
    if hands.shape[0] and (np.diff(ordered, axis=1) == 0).any():
        raise CardError("The hands array has a row that repeats a card; expected distinct cards in each row.")
    values: NDArray[np.int32] = _evaluate_rows(hands.astype(np.int64), STRAIGHT_TOP, FLUSH_VALUE)
    return values


def hand_type(value: int) -> int:
    """Return the hand type (0 high card ... 8 straight flush) of a value.

    >>> hand_type(0x450000)
    4
    """
    return int(value) >> 20
