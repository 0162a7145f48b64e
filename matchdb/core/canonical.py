"""Canonical flops and suit renamings.

Two flops are equivalent when one becomes the other by renaming suits. The
canonical representative of a flop is the lexicographically smallest sorted
triple of card ids over the 24 renamings; the canonical index is its position
in the ascending list of the 1,755 representatives.

>>> len(CANONICAL_FLOPS)
1755
>>> c = canonicalize("Ah Tc Th", hole="AcAd")
>>> format_cards(c.flop), format_cards(c.hole), c.index == flop_index("AcTdTc")
('TcAcTd', 'AdAh', True)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from itertools import chain, combinations, permutations
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from matchdb.core.cards import Card, format_cards, parse_cards
from matchdb.core.pairs import remaining_cards
from matchdb.errors import BoardError, CardError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "PERMUTATIONS",
    "CARD_MAP",
    "CANONICAL_FLOPS",
    "ORBIT_SIZES",
    "N_FLOPS",
    "flop_index",
    "canonical_index",
    "flop_orbits",
    "rename",
    "unrename_array",
    "INVERSE_PERMUTATIONS",
    "Canonical",
    "canonicalize",
    "local_cards",
    "local_lookup",
    "flop_cards",
]

#: The 24 suit renamings; ``PERMUTATIONS[p][s]`` is the new suit of suit ``s``.
PERMUTATIONS = np.array(list(permutations(range(4))), dtype=np.uint8)

#: ``CARD_MAP[p, card]`` is the card id after renaming suits by permutation ``p``.
CARD_MAP = (PERMUTATIONS[:, np.arange(52) // 13] * 13 + np.arange(52, dtype=np.uint8) % 13).astype(np.uint8)


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Representatives, orbit sizes, and the index and renaming of every ordered triple (52 x 52 x 52 lookups).

    Vectorised throughout and in place where it can be (about 15 ms): a
    three-card triple is sorted by its minimum, maximum and middle, not by
    ``np.sort`` on an axis of three. What the package's copy of the flops
    (:func:`_read_flops`) and :func:`canonical_index` are checked against.
    """
    flops = np.fromiter(chain.from_iterable(combinations(range(52), 3)), dtype=np.intp, count=22100 * 3).reshape(-1, 3)
    card_map = CARD_MAP.astype(np.int32)
    first, second, third = (card_map[:, flops[:, k]] for k in range(3))  # (24, 22100) each
    low, high = np.minimum(first, second), np.maximum(first, second)
    middle = np.maximum(low, np.minimum(high, third))
    np.minimum(low, third, out=low)
    np.maximum(high, third, out=high)
    keys = low  # the sorted renamed triple as one number, low * 52 * 52 + middle * 52 + high, made in place
    keys *= 52
    keys += middle
    keys *= 52
    keys += high
    best_perm = keys.argmin(axis=0)  # the first renaming that reaches the representative
    best_key = keys[best_perm, np.arange(len(flops))]
    representatives, index_of_flop, orbit_sizes = np.unique(best_key, return_inverse=True, return_counts=True)
    canonical = np.stack([representatives // 2704, representatives // 52 % 52, representatives % 52], axis=1)
    index_lookup = np.full(52**3, -1, dtype=np.int16)
    perm_lookup = np.full(52**3, -1, dtype=np.int8)
    for order in permutations(range(3)):
        ordered = flops[:, order[0]] * 2704 + flops[:, order[1]] * 52 + flops[:, order[2]]
        index_lookup[ordered] = index_of_flop
        perm_lookup[ordered] = best_perm
    shape = (52, 52, 52)
    return canonical.astype(np.uint8), orbit_sizes.astype(np.int32), index_lookup.reshape(shape), perm_lookup.reshape(shape)


def _read_flops() -> tuple[np.ndarray, np.ndarray]:
    """The representatives and orbit sizes as :func:`_build_tables` computes them, read from the package's copy
    (``data/canonical_flops.bin``: each flop's three card ids and its orbit size, one byte each; a test checks the
    copy against the computation). Reading 7 kB costs a twentieth of computing the tables at every start."""
    stored = np.frombuffer((Path(__file__).parent / "data" / "canonical_flops.bin").read_bytes(), dtype=np.uint8)
    stored = stored.reshape(-1, 4)
    return stored[:, :3].copy(), stored[:, 3].astype(np.int32)


CANONICAL_FLOPS, ORBIT_SIZES = _read_flops()
N_FLOPS = len(CANONICAL_FLOPS)
for _table in (CARD_MAP, PERMUTATIONS, CANONICAL_FLOPS, ORBIT_SIZES):
    _table.flags.writeable = False


# Plain-Python views for the per-query path, where numpy scalar indexing costs more than the work.
_CARD_MAP_ROWS = CARD_MAP.tolist()
_FLOP_TUPLES = [tuple(flop) for flop in CANONICAL_FLOPS.tolist()]
_INDEX_OF_FLOP = {flop: index for index, flop in enumerate(_FLOP_TUPLES)}


@cache
def _canonical_of(a: int, b: int, c: int) -> tuple[int, int]:
    """(canonical index, first renaming that reaches it) of the flop ``a, b, c``: the smallest sorted renamed triple
    over the 24 renamings, what :func:`_build_tables` computes for every flop at once; computed per flop when first
    asked, so a process that asks about one flop never builds the 140,608-entry tables."""
    best, perm = (52, 52, 52), 0
    for position, renamed in enumerate(_CARD_MAP_ROWS):
        x, y, z = renamed[a], renamed[b], renamed[c]
        if x > y:
            x, y = y, x
        if y > z:
            y, z = z, y
            if x > y:
                x, y = y, x
        if (x, y, z) < best:
            best, perm = (x, y, z), position
    return _INDEX_OF_FLOP[best], perm


def canonical_index(flop: Iterable[int]) -> tuple[int, int]:
    """Return (canonical index, renaming) of a flop given as three card ids (computed once per flop, then a lookup).

    The renaming is the index into :data:`PERMUTATIONS` that turns the flop into
    ``CANONICAL_FLOPS[index]``.

    >>> canonical_index([0, 1, 2])  # 2c3c4c
    (0, 0)
    """
    a, b, c = flop
    return _canonical_of(int(a), int(b), int(c))


def flop_index(flop: str | Iterable[str | int | Card]) -> int:
    """Return the canonical index of any flop, written as text or cards.

    >>> flop_index("2c3c4c") == flop_index("2s3s4s")
    True
    """
    cards = parse_cards(flop)
    if len(cards) != 3:
        raise BoardError(f"The flop {flop!r} has {len(cards)} cards; expected 3.")
    return canonical_index(cards)[0]


@lru_cache(maxsize=1)
def flop_orbits() -> tuple[tuple[tuple[tuple[int, int, int], int], ...], ...]:
    """For each canonical index, the flops of its orbit (sorted card ids) and the renaming carrying each onto the canonical flop.

    >>> orbits = flop_orbits()
    >>> len(orbits[0]), orbits[0][0], sum(len(o) for o in orbits)
    (4, ((0, 1, 2), 0), 22100)
    """
    members: list[list[tuple[tuple[int, int, int], int]]] = [[] for _ in range(N_FLOPS)]
    for flop in combinations(range(52), 3):
        index, perm = canonical_index(flop)
        members[index].append((flop, perm))
    return tuple(tuple(m) for m in members)


#: ``INVERSE_PERMUTATIONS[p]`` undoes renaming ``p``: ``CARD_MAP[INVERSE_PERMUTATIONS[p], CARD_MAP[p, c]] == c``.
INVERSE_PERMUTATIONS = np.array([int(np.flatnonzero((PERMUTATIONS[:, PERMUTATIONS[p]] == np.arange(4)).all(axis=1))[0]) for p in range(24)])
INVERSE_PERMUTATIONS.flags.writeable = False


def unrename_array(cards: np.ndarray, perm: int) -> np.ndarray:
    """Card ids renamed by ``perm`` back to the original ones (any shape; read-only result).

    >>> unrename_array(np.array(rename(parse_cards("Ah2c"), 5)), 5).tolist() == list(parse_cards("Ah2c"))
    True
    """
    out: NDArray[np.int64] = CARD_MAP[INVERSE_PERMUTATIONS[perm]][np.asarray(cards, dtype=np.int64)].astype(np.int64)
    out.flags.writeable = False
    return out


def rename(cards: Iterable[int], perm: int) -> tuple[int, ...]:
    """Rename the suits of card ids by permutation ``perm`` (0..23).

    >>> format_cards(rename(parse_cards("Ah2c"), 23))  # reverses the suits
    'Ad2s'
    """
    renamed = _CARD_MAP_ROWS[perm]
    return tuple([renamed[int(c)] for c in cards])


class Canonical(NamedTuple):
    """A board and hole cards carried to the canonical flop by one renaming.

    ``flop`` is the canonical flop, ``extra`` the renamed turn and river (0 to
    2 cards), ``hole`` the renamed hole cards, ``perm`` the renaming used.
    (A named tuple: every query makes one, and it is built 4x faster than a frozen dataclass.)
    """

    index: int  # type: ignore[assignment]  # the canonical flop's index; shadows tuple.index, which nobody calls
    perm: int
    flop: tuple[int, int, int]
    extra: tuple[int, ...]
    hole: tuple[int, ...]


def canonicalize(
    board: str | Iterable[str | int | Card], hole: str | Iterable[str | int | Card] = ()
) -> Canonical:
    """Carry a board of 3 to 5 cards, and optional hole cards, to the canonical flop.

    The first three board cards are taken as the flop; answers do not depend on
    which three are taken. Cards must all be distinct.

    >>> c = canonicalize("2s 3s 4s 5s")
    >>> c.index, format_cards(c.flop), format_cards(c.extra)
    (0, '2c3c4c', '5c')
    >>> canonicalize("AhKh")
    Traceback (most recent call last):
    ...
    matchdb.errors.BoardError: The board 'AhKh' has 2 cards; expected 3, 4 or 5.
    """
    board_ids = parse_cards(board)
    if not 3 <= len(board_ids) <= 5:
        shown = board if isinstance(board, str) else format_cards(board_ids)
        raise BoardError(f"The board {shown!r} has {len(board_ids)} cards; expected 3, 4 or 5.")
    hole_ids = parse_cards(hole)
    if not set(board_ids).isdisjoint(hole_ids):
        shared = set(board_ids) & set(hole_ids)
        raise CardError(
            f"The hole cards {format_cards(hole_ids)!r} and the board {format_cards(board_ids)!r} "
            f"share {format_cards(sorted(shared))!r}; expected distinct cards."
        )
    index, perm = canonical_index(board_ids[:3])
    return Canonical(index, perm, _FLOP_TUPLES[index], rename(board_ids[3:], perm), rename(hole_ids, perm))


@cache
def local_cards(index: int) -> np.ndarray:
    """The 49 card ids of canonical flop ``index``'s local indices (its rows' and columns' cards), read-only.

    >>> format_cards(local_cards(0)[:4])
    '5c5d5h5s'
    """
    cards = remaining_cards(_FLOP_TUPLES[index])
    cards.flags.writeable = False
    return cards


@cache
def local_lookup(index: int) -> list[int]:
    """For canonical flop ``index``, the local index of every card id (a plain 52-entry list; -1 on the flop).

    >>> local_lookup(0)[:5]  # 2c3c4c is on the flop; 5c is local card 0, 6c local card 4
    [-1, -1, -1, 0, 4]
    """
    lookup = [-1] * 52
    for position, card in enumerate(local_cards(index).tolist()):
        lookup[card] = position
    return lookup


@cache
def flop_cards() -> np.ndarray:
    """(1755, 49): :func:`local_cards` of every canonical flop, as written into the store (read-only).

    >>> bool((flop_cards()[677] == local_cards(677)).all())
    True
    """
    cards = np.stack([local_cards(index) for index in range(N_FLOPS)])
    cards.flags.writeable = False
    return cards
