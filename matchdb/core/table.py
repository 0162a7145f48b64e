"""The match-table kernel: one flop -> the 1,176 x 1,176 strength matrix W.

For column j (a turn and river) the board is the flop plus those two cards.
For a row i (a private hand) that shares no card with the board,

    W[i, j] = 2 * #{valid k: value(k) < value(i)} + #{valid k != i: value(k) == value(i)}

an integer in 0..MAX_W (2,160); colliding entries hold SENTINEL (65,535),
both defined in :mod:`matchdb.core.pairs`.

How it is fast: with the flop fixed, a 7-card hand that makes no flush is
decided by the ranks of the four other cards alone, so the kernel evaluates the
1,820 rank multisets once per flop and the flushes once per suit mask, and
turns every value into a dense per-flop *code* whose order is the hand order.
Each column then ranks its 1,081 hands by a counting sort over the codes
instead of sorting values.

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.pairs import pair_row
>>> flop = parse_cards("2c7dJh")
>>> table = match_table(flop)
>>> table.shape, table.dtype
((1176, 1176), dtype('uint16'))
>>> int(table[pair_row(flop, parse_cards("AhKh")), pair_row(flop, parse_cards("Ad9s"))])
1907
>>> match_table(parse_cards("2c2c7d"))
Traceback (most recent call last):
...
matchdb.errors.CardError: The cards '2c2c7d' repeat '2c'; expected distinct cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import permutations
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.cards import Card, parse_cards
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, _value_from_ranks
from matchdb.core.pairs import COLLISION, PAIR_HIGH, PAIR_LOW, SENTINEL, remaining_cards
from matchdb.jit import jit

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["match_table", "collision_mask"]

_PERM4 = np.array(list(permutations(range(4))), dtype=np.int64)


@jit
def _flop_codes(
    flop_ranks: NDArray[np.int64],
    flop_suit_count: NDArray[np.int64],
    flop_suit_mask: NDArray[np.int64],
    perm4: NDArray[np.int64],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> tuple[NDArray[np.int32], NDArray[np.int32], int]:
    """Dense per-flop codes for every reachable 7-card hand.

    Returns (nf_code, fl_code, n_codes): ``nf_code[r1*2197 + r2*169 + r3*13 + r4]``
    is the code of the best non-flush hand of the flop plus four cards of those
    ranks (any order); ``fl_code[mask]`` the code of a flush of that rank mask.
    """
    nf_value = np.zeros(13**4, dtype=np.int32)
    counts = np.zeros(13, dtype=np.int32)
    for r in flop_ranks:
        counts[r] += 1
    candidates = np.empty(1820 + 3 * 8192, dtype=np.int32)
    n = 0
    extra = np.empty(4, dtype=np.int64)
    for r1 in range(13):
        for r2 in range(r1, 13):
            for r3 in range(r2, 13):
                for r4 in range(r3, 13):
                    extra[0] = r1
                    extra[1] = r2
                    extra[2] = r3
                    extra[3] = r4
                    feasible = True
                    for k in range(4):
                        counts[extra[k]] += 1
                    for k in range(4):
                        if counts[extra[k]] > 4:
                            feasible = False
                    if feasible:
                        value = _value_from_ranks(counts, straight_top)
                        candidates[n] = value
                        n += 1
                        for p in range(24):
                            idx = (
                                extra[perm4[p, 0]] * 2197
                                + extra[perm4[p, 1]] * 169
                                + extra[perm4[p, 2]] * 13
                                + extra[perm4[p, 3]]
                            )
                            nf_value[idx] = value
                    for k in range(4):
                        counts[extra[k]] -= 1
    for suit in range(4):
        have = flop_suit_count[suit]
        if have == 0:
            continue
        base = flop_suit_mask[suit]
        for mask in range(8192):
            if mask & base != base:
                continue
            bits = 0
            m = mask
            while m:
                m &= m - 1
                bits += 1
            if 5 <= bits <= have + 4:
                candidates[n] = flush_value[mask]
                n += 1
    codes = np.unique(candidates[:n])
    nf_code = np.searchsorted(codes, nf_value).astype(np.int32)
    fl_code = np.searchsorted(codes, flush_value).astype(np.int32)
    return nf_code, fl_code, codes.shape[0]


@jit
def _match_table(
    flop: NDArray[np.int64],
    rest: NDArray[np.int64],
    pair_a: NDArray[np.int64],
    pair_b: NDArray[np.int64],
    perm4: NDArray[np.int64],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> NDArray[np.uint16]:
    """W for one flop (three card ids) given its 49 remaining cards in local order."""
    flop_ranks = np.empty(3, dtype=np.int64)
    flop_suit_count = np.zeros(4, dtype=np.int64)
    flop_suit_mask = np.zeros(4, dtype=np.int64)
    for k in range(3):
        flop_ranks[k] = flop[k] % 13
        flop_suit_count[flop[k] // 13] += 1
        flop_suit_mask[flop[k] // 13] |= 1 << (flop[k] % 13)
    nf_code, fl_code, n_codes = _flop_codes(
        flop_ranks, flop_suit_count, flop_suit_mask, perm4, straight_top, flush_value
    )

    n_pairs = pair_a.shape[0]
    rank = np.empty(49, dtype=np.int64)
    suit = np.empty(49, dtype=np.int64)
    for local in range(49):
        rank[local] = rest[local] % 13
        suit[local] = rest[local] // 13
    row_rank_index = np.empty(n_pairs, dtype=np.int64)
    for i in range(n_pairs):
        row_rank_index[i] = rank[pair_a[i]] * 13 + rank[pair_b[i]]

    table_t = np.empty((n_pairs, n_pairs), dtype=np.uint16)  # [column, row]; transposed at the end
    codes = np.empty(n_pairs, dtype=np.int64)
    below = np.zeros(n_codes + 1, dtype=np.int64)
    count = np.zeros(n_codes + 1, dtype=np.int64)
    for j in range(n_pairs):
        t = pair_a[j]
        r = pair_b[j]
        flush_suit = -1
        board_count = 0
        board_mask = 0
        for s in range(4):
            c = flop_suit_count[s] + (suit[t] == s) + (suit[r] == s)
            if c >= 3:
                flush_suit = s
                board_count = c
                board_mask = flop_suit_mask[s]
                if suit[t] == s:
                    board_mask |= 1 << rank[t]
                if suit[r] == s:
                    board_mask |= 1 << rank[r]
        base = rank[t] * 2197 + rank[r] * 169
        lo = n_codes
        hi = 0
        for i in range(n_pairs):
            a = pair_a[i]
            b = pair_b[i]
            if a == t or a == r or b == t or b == r:
                codes[i] = -1
                continue
            code = nf_code[base + row_rank_index[i]]
            if flush_suit >= 0:
                a_in = suit[a] == flush_suit
                b_in = suit[b] == flush_suit
                if board_count + a_in + b_in >= 5:
                    mask = board_mask
                    if a_in:
                        mask |= 1 << rank[a]
                    if b_in:
                        mask |= 1 << rank[b]
                    code = fl_code[mask]
            codes[i] = code
            count[code] += 1
            lo = min(lo, code)
            hi = max(hi, code)
        running = 0
        for code in range(lo, hi + 1):
            below[code] = running
            running += count[code]
        for i in range(n_pairs):
            code = codes[i]
            if code < 0:
                table_t[j, i] = SENTINEL
            else:
                table_t[j, i] = 2 * below[code] + count[code] - 1
        for code in range(lo, hi + 1):
            count[code] = 0
    return np.ascontiguousarray(table_t.T)


def match_table(flop: str | Iterable[str | int | Card]) -> np.ndarray:
    """Return the W matrix (1,176 x 1,176, uint16) of a flop, canonical or not.

    Rows are private hands and columns (turn, river) pairs, both in
    :data:`matchdb.core.pairs.PAIRS` order over the flop's remaining cards.
    """
    cards = parse_cards(flop, count=3)
    rest = remaining_cards(cards).astype(np.int64)
    table: NDArray[np.uint16] = _match_table(
        np.array(cards, dtype=np.int64), rest, PAIR_LOW, PAIR_HIGH, _PERM4, STRAIGHT_TOP, FLUSH_VALUE
    )
    return table


def collision_mask() -> np.ndarray:
    """Return the collision mask, the same for every flop: True where row and column share a card.

    >>> int(collision_mask().sum(axis=1)[0]), int(collision_mask().sum())
    (95, 111720)
    """
    return COLLISION.copy()

