"""The frame of a match table: local card order, the 1,176 pairs, the collision mask and W's values.

Rows (private hands) and columns (turn, river) of a match table index the
1,176 unordered pairs of the 49 cards left after a flop. The 49 cards get
*local indices* 0..48 in rank-major order (by rank, then suit) with the ranks
that are on the flop moved last, and the pairs are listed in :data:`PAIRS`
order; both orders are written into the store. Together they put the suit
variants of one rank pair (AcKd, AdKc, ...) side by side in rows and columns,
which is what makes the tables compress (see docs/data-format.md).

This module is the one place that knows the frame; it needs numpy only, so
the per-query path can use it without loading numba.

>>> from matchdb.core.cards import format_cards, parse_cards
>>> from matchdb.core.pairs import COLLISION  # made on first use
>>> flop = parse_cards("2c7dJh")
>>> pair_row(flop, parse_cards("AhKh")), len(board_columns(())), int(COLLISION[0].sum())
(768, 1176, 95)
>>> SENTINEL, MAX_W, N_LEVELS
(65535, 2160, 2161)
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.cards import format_cards, rank_of, read_only, suit_of
from matchdb.errors import BoardError, CardError, MatchdbError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "SENTINEL",
    "MAX_W",
    "N_LEVELS",
    "N_LOCAL",
    "N_PAIRS",
    "PAIRS",
    "PAIR_LOW",
    "PAIR_HIGH",
    "PAIR_INDEX",
    "COLLISION",
    "ROWS_OF_CARD",
    "remaining_cards",
    "local_index",
    "pair_row",
    "board_columns",
    "check_columns",
]

#: Value W holds where the row and the column share a card.
SENTINEL = 65535
#: The largest strength entry: 2 x (1,081 - 1).
MAX_W = 2160
#: How many levels W takes: 0..MAX_W.
N_LEVELS = MAX_W + 1

N_LOCAL = 49
N_PAIRS = N_LOCAL * (N_LOCAL - 1) // 2


def _pair_order() -> np.ndarray:
    """The 1,176 local pairs (low, high) ordered by (high // 4, low // 4, low, high).

    Local indices come in groups of four cards of one rank (the flop's ranks,
    which have fewer cards left, come last), so ``index // 4`` is the rank
    group for every rank not on the flop and this order lists a rank pair's
    suit variants together.
    """
    pairs = np.array(list(combinations(range(N_LOCAL), 2)), dtype=np.int64)
    low, high = pairs[:, 0], pairs[:, 1]
    return pairs[np.lexsort((high, low, low // 4, high // 4))].astype(np.uint8)


#: The 1,176 pairs of local card indices (0..48), in row/column order.
PAIRS = read_only(_pair_order())
#: The lower and the higher local index of each pair, as int64 (what kernels index with).
PAIR_LOW = read_only(PAIRS[:, 0].astype(np.int64))
PAIR_HIGH = read_only(PAIRS[:, 1].astype(np.int64))

#: ``PAIR_INDEX[a, b]`` is the position of local pair {a, b} in :data:`PAIRS`; -1 when a == b.
PAIR_INDEX = np.full((N_LOCAL, N_LOCAL), -1, dtype=np.int16)
PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] = np.arange(N_PAIRS)
PAIR_INDEX[PAIRS[:, 1], PAIRS[:, 0]] = np.arange(N_PAIRS)
read_only(PAIR_INDEX)


def _collision_mask() -> np.ndarray:
    low, high = PAIRS[:, 0], PAIRS[:, 1]
    mask: NDArray[np.bool_] = (low[:, None] == low) | (low[:, None] == high) | (high[:, None] == low) | (high[:, None] == high)
    return mask


def __getattr__(name: str) -> np.ndarray:
    # COLLISION (1.4 MB) is made on first use: a one-off query never needs it.
    if name == "COLLISION":
        value = read_only(_collision_mask())
        globals()[name] = value
        return value
    raise AttributeError(f"module 'matchdb.core.pairs' has no attribute {name!r}")


#: ``COLLISION[i, j]`` (made on first use) is True when row pair i and column pair j
#: share a card. It is the same for every flop: 95 colliding columns in every row.
COLLISION: np.ndarray

#: ``ROWS_OF_CARD[a]`` are the 48 pairs holding local card ``a``: the rows of
#: the hands holding it, and the columns of the runouts whose turn it is.
ROWS_OF_CARD = read_only(
    np.array([[PAIR_INDEX[a, x] for x in range(N_LOCAL) if x != a] for a in range(N_LOCAL)], dtype=np.int64)
)
_ALL_COLUMNS = read_only(np.arange(N_PAIRS, dtype=np.int64))
_RIVER_COLUMNS = read_only(PAIR_INDEX.astype(np.int64)[:, :, None])
# the same as lists of views: indexing a list is cheaper than numpy, and this runs on every query
_TURN_LIST: list[NDArray[np.int64]] = list(ROWS_OF_CARD)
_RIVER_LISTS: list[list[NDArray[np.int64]]] = [list(by_turn) for by_turn in _RIVER_COLUMNS]
#: The arrays board_columns hands out, by identity: they need no checking (they live as long as the module).
_KNOWN_COLUMNS = {id(_ALL_COLUMNS)} | {id(c) for c in _TURN_LIST} | {id(c) for row in _RIVER_LISTS for c in row}


def board_columns(extra: Iterable[int]) -> np.ndarray:
    """Columns consistent with the turn and river given as local indices (0, 1 or 2 of them).

    All 1,176 on the flop, the 48 holding the turn card on the turn, the one
    holding both cards on the river. Columns that share a card with a hand
    hold :data:`SENTINEL` in that hand's row.

    >>> len(board_columns(())), len(board_columns((5,))), board_columns((5, 9)).tolist()
    (1176, 48, [49])
    """
    extra = tuple(extra)
    if len(extra) == 0:
        return _ALL_COLUMNS
    if len(extra) > 2 or any(not 0 <= int(c) < N_LOCAL for c in extra) or len(set(extra)) != len(extra):
        raise BoardError(f"The turn and river {extra!r} are not 1 or 2 distinct local indices 0..48.")
    if len(extra) == 1:
        return _TURN_LIST[int(extra[0])]
    return _RIVER_LISTS[int(extra[0])][int(extra[1])]


def check_columns(columns: object) -> np.ndarray:
    """Return ``columns`` as int64 after checking they are distinct column indices 0..1175 (at least one).

    Arrays from :func:`board_columns` pass at once (the per-query path); any
    other sequence is checked entry by entry.

    >>> check_columns([3, 5]).tolist()
    [3, 5]
    >>> check_columns([1176])
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The columns [1176] are not distinct column indices 0..1175; expected at least one, like board_columns() gives.
    """
    if id(columns) in _KNOWN_COLUMNS:
        return columns  # type: ignore[return-value]  # one of board_columns()'s own arrays, by identity
    array = np.asarray(columns)
    if (
        array.ndim != 1
        or array.size == 0
        or array.dtype.kind not in "iu"
        or array.min() < 0
        or array.max() >= N_PAIRS
        or np.unique(array).size != array.size
    ):
        shown = repr(columns) if len(repr(columns)) < 60 else f"{repr(columns)[:57]}..."
        raise MatchdbError(
            f"The columns {shown} are not distinct column indices 0..{N_PAIRS - 1}; expected at least one, like board_columns() gives."
        )
    return array.astype(np.int64)


def remaining_cards(flop: Iterable[int]) -> np.ndarray:
    """Return the 49 card ids not in ``flop`` in local order.

    Local order is by rank, then suit, except that cards of a rank on the flop
    come after all others. Position in this array is the card's *local index*
    used by :data:`PAIRS`.

    >>> from matchdb.core.cards import parse_cards
    >>> format_cards(remaining_cards(parse_cards("2c2d2h"))[:3])
    '3c3d3h'
    >>> format_cards(remaining_cards(parse_cards("2c2d2h"))[-1:])
    '2s'
    """
    flop = [int(c) for c in flop]
    flop_set = set(flop)
    if len(flop_set) != 3 or not flop_set <= set(range(52)):
        raise CardError(f"The flop {flop!r} is not three distinct card ids; expected three of 0..51.")
    flop_ranks = {rank_of(c) for c in flop}
    order = sorted(
        (c for c in range(52) if c not in flop_set),
        key=lambda c: (rank_of(c) in flop_ranks, rank_of(c), suit_of(c)),
    )
    return np.array(order, dtype=np.uint8)


def local_index(flop: Iterable[int]) -> np.ndarray:
    """Return a 52-entry array mapping card id to local index (-1 for flop cards).

    >>> from matchdb.core.cards import parse_cards
    >>> int(local_index(parse_cards("2c2d2h"))[parse_cards("2s")[0]])
    48
    """
    lookup = np.full(52, -1, dtype=np.int8)
    lookup[remaining_cards(flop)] = np.arange(N_LOCAL)
    return lookup


def pair_row(flop: Iterable[int], cards: Iterable[int]) -> int:
    """Return the row (or column) index of two cards on a flop.

    >>> from matchdb.core.cards import parse_cards
    >>> flop = parse_cards("2c7dJh")
    >>> int(pair_row(flop, parse_cards("AhKh")))
    768
    """
    flop = tuple(int(c) for c in flop)
    a, b = (int(c) for c in cards)
    lookup = local_index(flop)
    la, lb = int(lookup[a]), int(lookup[b])
    if la < 0 or lb < 0 or la == lb:
        raise CardError(
            f"The pair {format_cards((a, b))!r} is not two distinct cards off the flop {format_cards(flop)!r}."
        )
    return int(PAIR_INDEX[la, lb])
