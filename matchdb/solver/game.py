"""The cards of a spot: both ranges' hands, the board, the showdown order on every runout, and suit isomorphism.

Everything here is made once per solve:

- each player's hands: the hands of their range with a positive weight that
  share no card with the board, in :func:`matchdb.hand_order` order, with their
  weights (the range as written: ``0.5(AA)`` weighs each AA hand 0.5);
- the showdown order of every runout the solver visits, read from the match
  table of the board's flop: the table holds, for every private hand and every
  (turn, river), its strength among all hands (W: a larger W wins, an equal W
  ties), so sorting each player's hands by W is the whole showdown; the
  flop's table is read once (:func:`showdown_order`);
- suit isomorphism: two suits that neither range nor the board so far tells
  apart (the same ranks of each on every street's board since the start, and
  each range's weights the same after swapping them) make their turn or river
  cards interchangeable; the solver deals one card of each such pair and takes
  the other's values with the suits swapped (:class:`Deal`).

>>> from matchdb.core.cards import format_cards
>>> hands = range_hands("AA,KK", (0, 1, 2))  # 2c3c4c
>>> len(hands.cards), float(hands.weights.sum())
(12, 12.0)
>>> deal = deals_of(parse_board("Td9d6h"), np.ones(1326), np.ones(1326))[0]
>>> len(deal.cards), len(deal.mapped)  # 49 turn cards: the 13 spades are the clubs with the suits swapped
(36, 13)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.canonical import CARD_MAP, canonicalize, local_lookup
from matchdb.core.cards import CardsLike, format_cards, parse_cards, rank_of, suit_of
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS, hand_positions
from matchdb.core.pairs import PAIR_INDEX, SENTINEL
from matchdb.core.ranges import RangeLike, describe_range, range_weights
from matchdb.errors import BoardError, RangeError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "Hands",
    "Deal",
    "Showdown",
    "parse_board",
    "range_hands",
    "same_hands",
    "num_combinations",
    "deals_of",
    "swap_permutation",
    "showdown_order",
    "canonical_frame",
    "canonical_rows",
    "card_masks",
    "SUIT_PAIRS",
]

#: The six pairs of suits a swap exchanges; a swap is named by its position here.
SUIT_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def parse_board(board: CardsLike) -> tuple[int, ...]:
    """The board's card ids (3 to 5 distinct cards), refused in one sentence otherwise.

    >>> parse_board("Td9d6hQc")
    (21, 20, 30, 10)
    """
    cards = parse_cards(board)
    if not 3 <= len(cards) <= 5:
        shown = board if isinstance(board, str) else format_cards(cards)
        raise BoardError(f"The board {shown!r} has {len(cards)} cards; expected 3 (flop), 4 (turn) or 5 (river).")
    return cards


@dataclass(frozen=True)
class Hands:
    """One player's hands: ``cards`` (n, 2) card ids (higher first), ``weights`` (n,) float32, ``index`` (n,)
    position of each in :func:`matchdb.hand_order`; in postflop-solver's order (by the lower card, then the
    higher, cards numbered 4 x rank + suit)."""

    cards: np.ndarray
    weights: np.ndarray
    index: np.ndarray

    def __len__(self) -> int:
        return len(self.index)


def card_masks(cards: np.ndarray) -> np.ndarray:
    """The 64-bit card mask (bit ``card id``) of each hand of ``cards`` (n, 2)."""
    one = np.uint64(1)
    return (one << cards[:, 0].astype(np.uint64)) | (one << cards[:, 1].astype(np.uint64))


def range_hands(weights: np.ndarray | RangeLike, board: tuple[int, ...], who: str = "range") -> Hands:
    """The hands of a range (any form :func:`matchdb.core.ranges.range_weights` reads, or 1,326 weights)
    that have a positive weight and share no card with ``board``; refused when none is left."""
    w = weights if isinstance(weights, np.ndarray) and weights.shape == (N_HANDS,) else range_weights(weights)
    on_board = np.asarray(board, dtype=np.int64)
    clear = ~(np.isin(HAND_HIGH, on_board) | np.isin(HAND_LOW, on_board))
    keep = np.flatnonzero((w > 0) & clear)
    if keep.size == 0:
        shown = describe_range(weights) if not isinstance(weights, np.ndarray) else "given as weights"
        raise RangeError(f"No hand of the {who} {shown!r} is possible beside the board {format_cards(board)!r}; "
                         "expected at least one hand that shares no card with it.")
    # postflop-solver's hand order (cards numbered 4 x rank + suit, pairs in lexicographic order), so that
    # sums over hands run in the same order and the two solvers' figures can agree to the last bit
    high, low = HAND_HIGH[keep] % 13 * 4 + HAND_HIGH[keep] // 13, HAND_LOW[keep] % 13 * 4 + HAND_LOW[keep] // 13
    keep = keep[np.lexsort((np.maximum(high, low), np.minimum(high, low)))]
    cards = np.stack([HAND_HIGH[keep], HAND_LOW[keep]], axis=1).astype(np.int64)
    return Hands(cards, np.asarray(w[keep], dtype=np.float32), keep.astype(np.int64))


def same_hands(mine: Hands, other: Hands) -> np.ndarray:
    """For each of ``mine``'s hands, the position of the same two cards among ``other``'s (-1 where absent)."""
    where = np.full(N_HANDS, -1, dtype=np.int64)
    where[other.index] = np.arange(len(other))
    same: NDArray[np.int32] = where[mine.index].astype(np.int32)
    return same


def num_combinations(oop: Hands, ip: Hands) -> float:
    """The weight of every deal of an OOP hand and an IP hand that share no card (what values are divided by)."""
    masks_oop = card_masks(oop.cards)
    masks_ip = card_masks(ip.cards)
    clash = (masks_oop[:, None] & masks_ip[None, :]) != 0
    weight = oop.weights.astype(np.float64)[:, None] * ip.weights.astype(np.float64)[None, :]
    return float(weight[~clash].sum())


@cache
def _swapped_hand_positions(pair: int) -> np.ndarray:
    """For each of the 1,326 hands, the position of the hand with the suits of ``SUIT_PAIRS[pair]`` swapped."""
    s1, s2 = SUIT_PAIRS[pair]
    perm = np.arange(4)
    perm[s1], perm[s2] = s2, s1
    card = np.array([perm[c // 13] * 13 + c % 13 for c in range(52)])
    return hand_positions(card[HAND_HIGH], card[HAND_LOW])


def swap_permutation(hands: Hands, pair: int) -> np.ndarray:
    """For each hand, the position among ``hands`` of the hand with the suits of ``SUIT_PAIRS[pair]`` swapped.

    Only asked where both ranges are the same after the swap, so every swapped hand is there.
    """
    where = np.full(N_HANDS, -1, dtype=np.int64)
    where[hands.index] = np.arange(len(hands))
    out: NDArray[np.int64] = where[_swapped_hand_positions(pair)[hands.index]]
    assert (out >= 0).all(), "a swapped hand is missing: the ranges are not symmetric in these suits"
    return out.astype(np.int32)


def _symmetric_pairs(weights: tuple[np.ndarray, ...]) -> set[int]:
    """The suit pairs that no range tells apart: each range's weights are the same after swapping them."""
    return {pair for pair in range(6) if all(np.array_equal(w, w[_swapped_hand_positions(pair)]) for w in weights)}


def _ranksets(cards: tuple[int, ...]) -> list[int]:
    sets = [0, 0, 0, 0]
    for card in cards:
        sets[suit_of(card)] |= 1 << rank_of(card)
    return sets


@dataclass(frozen=True)
class Deal:
    """A turn or river being dealt: the cards dealt for themselves (``cards``) and the others (``mapped``),
    each (card, position in ``cards`` of the card whose values it takes, suit pair swapped)."""

    cards: tuple[int, ...]
    mapped: tuple[tuple[int, int, int], ...]


def _deal(boards: list[tuple[int, ...]], symmetric: set[int]) -> Deal:
    """The deal of one card after ``boards[-1]``: two suits are interchangeable when no range tells them apart
    and every board since the start (``boards``) holds the same ranks in both."""
    board = boards[-1]
    sets = [_ranksets(b) for b in boards]
    same = {pair for pair in symmetric if all(s[SUIT_PAIRS[pair][0]] == s[SUIT_PAIRS[pair][1]] for s in sets)}
    replace: dict[int, tuple[int, int]] = {}
    for s2 in range(1, 4):
        for s1 in range(s2):
            pair = SUIT_PAIRS.index((s1, s2))
            if pair in same:
                replace[s2] = (s1, pair)
                break
    cards: list[int] = []
    position: dict[int, int] = {}
    mapped = []
    for card in sorted(range(52), key=lambda c: (rank_of(c), suit_of(c))):  # postflop-solver's card order
        if card in board:
            continue
        suit = suit_of(card)
        if suit in replace:
            s1, pair = replace[suit]
            mapped.append((card, s1 * 13 + rank_of(card), pair))
        else:
            position[card] = len(cards)
            cards.append(card)
    return Deal(tuple(cards), tuple((card, position[rep], pair) for card, rep, pair in mapped))


def deals_of(board: tuple[int, ...], oop_weights: np.ndarray, ip_weights: np.ndarray) -> list[Deal]:
    """The deals of a spot, given both ranges as 1,326 weights: on a flop the turn's deal, then the river's
    after each turn card dealt for itself (in the order of the turn's ``cards``); on a turn the river's; on a
    river none."""
    symmetric = _symmetric_pairs((np.asarray(oop_weights), np.asarray(ip_weights)))
    if len(board) == 5:
        return []
    if len(board) == 4:
        return [_deal([board], symmetric)]
    turn = _deal([board], symmetric)
    return [turn] + [_deal([board, board + (card,)], symmetric) for card in turn.cards]


@dataclass(frozen=True)
class Showdown:
    """Each player's hands sorted by strength on each runout: runout ``r`` of player ``p`` lists
    ``order[p][start[p][r]:start[p][r + 1]]`` (positions among the player's hands, weakest first; hands that
    share a card with the runout are left out), with their W in ``strength``."""

    order: tuple[np.ndarray, np.ndarray]
    strength: tuple[np.ndarray, np.ndarray]
    start: tuple[np.ndarray, np.ndarray]


def canonical_frame(board: tuple[int, ...]) -> tuple[int, np.ndarray]:
    """(canonical flop index, local index of every real card id) of a board's flop: where its cards sit in the
    flop's match table (a hand's row is ``PAIR_INDEX[local[a], local[b]]``; -1 for the flop's own cards)."""
    canon = canonicalize(board[:3])
    return canon.index, np.asarray(local_lookup(canon.index))[CARD_MAP[canon.perm]]


def canonical_rows(board: tuple[int, ...], hands: Hands) -> np.ndarray:
    """Each hand's row in the match table of the board's flop."""
    _, local = canonical_frame(board)
    rows: NDArray[np.int64] = PAIR_INDEX[local[hands.cards[:, 0]], local[hands.cards[:, 1]]].astype(np.int64)
    return rows


def showdown_order(table: Callable[[int], np.ndarray], board: tuple[int, ...], players: tuple[Hands, Hands],
                   runouts: list[tuple[int, int]]) -> Showdown:
    """Sort both players' hands by W on each runout (turn, river) of ``runouts``, reading the flop's table once.

    ``table(index)`` returns the (1176, 1176) W table of canonical flop ``index``
    (:meth:`matchdb.MatchDB.table`). A real card becomes its local index in the
    canonical flop's frame by the board's suit renaming; a hand's row and a
    runout's column are then the positions of those pairs (:data:`matchdb.core.pairs.PAIR_INDEX`).
    """
    index, local = canonical_frame(board)  # real card id -> local index (-1 on the flop)
    w = table(index)
    columns = np.array([PAIR_INDEX[local[t], local[r]] for t, r in runouts], dtype=np.int64)
    orders, strengths, starts = [], [], []
    for hands in players:
        rows = canonical_rows(board, hands)
        values = w[rows][:, columns]  # (hands, runouts) uint16, SENTINEL where the hand holds a runout card
        order = np.argsort(values, axis=0, kind="stable")
        sorted_values = np.take_along_axis(values, order, axis=0)
        counts = (values != SENTINEL).sum(axis=0)
        start = np.zeros(len(runouts) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        take = np.arange(len(hands))[:, None] < counts[None, :]  # the first counts[r] of each column
        orders.append(order.T[take.T].astype(np.int32))
        strengths.append(sorted_values.T[take.T].astype(np.uint16))
        starts.append(start)
    return Showdown((orders[0], orders[1]), (strengths[0], strengths[1]), (starts[0], starts[1]))
