"""Slow pure-Python twins of the numba kernels, written independently of them.

They import nothing from the rest of ``matchdb`` and share only the data
contract (card ids, hand values, local and pair order), so a bug in a kernel
does not hide in its twin. The tests compare the kernels with them entry by
entry, and ``matchdb verify`` recomputes sampled stored entries with them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def card(text: str) -> int:
    return SUITS.index(text[1].lower()) * 13 + RANKS.index(text[0].upper())


def cards(text: str) -> list[int]:
    text = text.replace(" ", "").replace(",", "")
    return [card(text[i : i + 2]) for i in range(0, len(text), 2)]


def _pack(hand_type: int, ranks: list[int]) -> int:
    value = hand_type << 20
    for position, rank in enumerate(ranks):
        value |= rank << (16 - 4 * position)
    return value


def _straight_top(ranks: set[int]) -> int | None:
    for top in range(12, 3, -1):
        if all(top - k in ranks for k in range(5)):
            return top
    if {12, 0, 1, 2, 3} <= ranks:
        return 3
    return None


def value(hand: list[int]) -> int:
    """Contract value of a 5 to 7 card hand, computed the plain way."""
    ranks = [c % 13 for c in hand]
    suits = [c // 13 for c in hand]
    for suit, n in Counter(suits).items():
        if n >= 5:
            suited = sorted({r for r, s in zip(ranks, suits, strict=True) if s == suit}, reverse=True)
            top = _straight_top(set(suited))
            return _pack(8, [top]) if top is not None else _pack(5, suited[:5])
    count = Counter(ranks)
    by_rank = sorted(count, reverse=True)
    quads = [r for r in by_rank if count[r] == 4]
    trips = [r for r in by_rank if count[r] == 3]
    pairs = [r for r in by_rank if count[r] == 2]
    if quads:
        return _pack(7, [quads[0], max(r for r in by_rank if r != quads[0])])
    if trips:
        partners = [r for r in by_rank if r != trips[0] and count[r] >= 2]
        if partners:
            return _pack(6, [trips[0], partners[0]])
    top = _straight_top(set(ranks))
    if top is not None:
        return _pack(4, [top])
    if trips:
        return _pack(3, [trips[0]] + [r for r in by_rank if r != trips[0]][:2])
    if len(pairs) >= 2:
        high, low = pairs[0], pairs[1]
        return _pack(2, [high, low] + [r for r in by_rank if r not in (high, low)][:1])
    if pairs:
        return _pack(1, [pairs[0]] + [r for r in by_rank if r != pairs[0]][:3])
    return _pack(0, by_rank[:5])


def remaining(flop: list[int]) -> list[int]:
    """The 49 cards off the flop in local order: by rank then suit, the flop's ranks last."""
    flop_ranks = {c % 13 for c in flop}
    return sorted((c for c in range(52) if c not in flop), key=lambda c: (c % 13 in flop_ranks, c % 13, c // 13))


def pairs_in_order(flop: list[int]) -> list[tuple[int, int]]:
    """The 1,176 pairs of remaining cards as card ids, in row/column order.

    Pairs of local indices (low, high) sorted by (high // 4, low // 4, low, high).
    """
    rest = remaining(flop)
    local_pairs = sorted(combinations(range(49), 2), key=lambda p: (p[1] // 4, p[0] // 4, p[0], p[1]))
    return [(rest[a], rest[b]) for a, b in local_pairs]


def match_table(flop: list[int]) -> list[list[int]]:
    """W[i][j] by the contract's definition; 65535 where row and column share a card."""
    pairs = pairs_in_order(flop)
    memo: dict[frozenset[int], int] = {}

    def hand_value(hole: tuple[int, int], runout: tuple[int, int]) -> int:
        key = frozenset(hole + runout)
        if key not in memo:
            memo[key] = value(list(flop) + list(hole) + list(runout))
        return memo[key]

    table = [[65535] * len(pairs) for _ in pairs]
    for j, runout in enumerate(pairs):
        valid = [i for i, hole in enumerate(pairs) if not set(hole) & set(runout)]
        values = {i: hand_value(pairs[i], runout) for i in valid}
        ordered = sorted(values.values())
        for i in valid:
            less = bisect_left(ordered, values[i])
            equal = bisect_right(ordered, values[i]) - less
            table[i][j] = 2 * less + equal - 1
    return table


def exact_equity(hole: list[int], board: list[int]) -> float:
    """Heads-up equity against a uniformly random hand, by enumerating every runout and opponent."""
    dead = set(hole) | set(board)
    deck = [c for c in range(52) if c not in dead]
    total = 0.0
    deals = 0
    for runout in combinations(deck, 5 - len(board)):
        full = list(board) + list(runout)
        mine = value(list(hole) + full)
        rest = [c for c in deck if c not in runout]
        for opponent in combinations(rest, 2):
            theirs = value(list(opponent) + full)
            total += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            deals += 1
    return total / deals


def entry(flop: list[int], hole: tuple[int, int], runout: tuple[int, int]) -> int:
    """One W entry by the definition: hole against every hand left on flop + runout."""
    board = list(flop) + list(runout)
    if set(hole) & set(board) or len(set(board)) != 5:
        return 65535
    mine = value(board + list(hole))
    deck = [c for c in range(52) if c not in board]
    less = equal = 0
    for other in combinations(deck, 2):
        if set(other) == set(hole):
            continue
        theirs = value(board + list(other))
        less += theirs < mine
        equal += theirs == mine
    return 2 * less + equal
