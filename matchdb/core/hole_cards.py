"""Hands: the 1,326 two-card hands in one fixed order, the 169 starting-hand classes, and player counts.

Weight vectors (a range as 1,326 numbers), :class:`matchdb.HandTable` and
every per-hand answer use :func:`hand_order`: hands sorted by their higher
card id, then their lower one, each written high rank first.

>>> hand_order()[:2], hand_order()[hand_index("KdAc")], len(hand_order())
(('3c2c', '4c2c'), 'AcKd', 1326)
>>> CLASSES[:4], CLASSES[hand_class(38, 37)], combos("AKo")
(('AA', 'AKs', 'AKo', 'AQs'), 'AKs', 12)
>>> check_players(11, high=10)
Traceback (most recent call last):
...
matchdb.errors.MatchdbError: The number of players 11 is out of range; expected an integer 2..10.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.cards import RANKS, Card, format_cards, parse_cards, read_only
from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "N_HANDS",
    "HAND_HIGH",
    "HAND_LOW",
    "hand_order",
    "hand_index",
    "hand_position",
    "hand_positions",
    "CLASSES",
    "CLASS_OF_HAND",
    "hand_class",
    "class_index",
    "combos",
    "MAX_PLAYERS",
    "check_players",
]

N_HANDS = 1326


_ALL_HANDS = [(high, low) for high in range(52) for low in range(high)]
#: Higher and lower card id of each hand, in :func:`hand_order`.
HAND_HIGH = read_only(np.array([high for high, _ in _ALL_HANDS], dtype=np.int64))
HAND_LOW = read_only(np.array([low for _, low in _ALL_HANDS], dtype=np.int64))
#: ``_POSITION[a, b]``: position of the hand {a, b} in hand_order (-1 when a == b).
_POSITION = np.full((52, 52), -1, dtype=np.int64)
_POSITION[HAND_HIGH, HAND_LOW] = np.arange(N_HANDS)
_POSITION[HAND_LOW, HAND_HIGH] = np.arange(N_HANDS)
read_only(_POSITION)


@cache
def hand_order() -> tuple[str, ...]:
    """The 1,326 hands in the order of weight vectors and per-hand answers, written high rank first (written out on
    first use: a question about one hand never needs the others' names)."""
    return tuple(format_cards(sorted(hand, key=lambda c: (c % 13, c // 13), reverse=True)) for hand in _ALL_HANDS)


def hand_position(a: int, b: int) -> int:
    """Position in :func:`hand_order` of the hand of card ids ``a`` and ``b`` (no checks: a kernel helper)."""
    return int(_POSITION[a, b])


def hand_positions(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Positions in :func:`hand_order` of many hands given as two arrays of card ids (-1 where the cards are equal)."""
    positions: NDArray[np.int64] = _POSITION[first, second]
    return positions


def hand_index(hand: str | Iterable[str | int | Card]) -> int:
    """Position of a two-card hand in :func:`hand_order`, whatever the order its cards are given in."""
    a, b = parse_cards(hand, count=2)
    return int(_POSITION[a, b])


def _classes() -> tuple[str, ...]:
    names = []
    for high in range(12, -1, -1):
        names.append(RANKS[high] * 2)
        for low in range(high - 1, -1, -1):
            names += [RANKS[high] + RANKS[low] + "s", RANKS[high] + RANKS[low] + "o"]
    return tuple(names)


#: The 169 starting-hand classes, strongest-looking first: AA, AKs, AKo, AQs, ...
CLASSES = _classes()
_CLASS_INDEX = {name: i for i, name in enumerate(CLASSES)}


def hand_class(a: int, b: int) -> int:
    """Class index (into :data:`CLASSES`) of the hand of card ids ``a`` and ``b``."""
    high, low = sorted((a % 13, b % 13), reverse=True)
    if high == low:
        return _CLASS_INDEX[RANKS[high] * 2]
    return _CLASS_INDEX[RANKS[high] + RANKS[low] + ("s" if a // 13 == b // 13 else "o")]


#: Class index of every hand, in :func:`hand_order`.
CLASS_OF_HAND = read_only(np.array([hand_class(high, low) for high, low in _ALL_HANDS], dtype=np.int64))


def class_index(name: str) -> int:
    """Index into :data:`CLASSES` of a class written like ``'AA'``, ``'AKs'`` or ``'AKo'``."""
    if not isinstance(name, str) or name not in _CLASS_INDEX:
        raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
    return _CLASS_INDEX[name]


def combos(name: str) -> int:
    """How many two-card hands a class holds: 6 pairs, 4 suited, 12 offsuit."""
    class_index(name)
    return 6 if len(name) == 2 else 4 if name.endswith("s") else 12


#: Most players at a table (ten seats).
MAX_PLAYERS = 10


def check_players(players: object, low: int = 2, high: int = 23) -> int:
    """Return ``players`` as an int after checking it is a whole number in ``low..high``.

    The naive win rate takes 2..23 players (every player needs two cards and
    the board five); exact answers and preflop tables take 2..10 seats.
    """
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not low <= players <= high:
        shown = int(players) if isinstance(players, np.integer) else repr(players)
        raise MatchdbError(f"The number of players {shown} is out of range; expected an integer {low}..{high}.")
    return int(players)
