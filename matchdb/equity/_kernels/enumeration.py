"""A 7-card evaluator built for enumeration, and the kernels that enumerate every board beside known hands.

Private: call :mod:`matchdb.equity.enumeration`.

**The evaluator.** A card adds a 64-bit key: its rank's multiplier in the low 32
bits and one in its suit's 4-bit counter above them. The rank multipliers are
those of OMPEval (zekyll/OMPEval, ISC licence): the sum of up to seven of them is
different for every multiset of ranks, so a hand's low 32 bits name its ranks
and a perfect hash (rows of 4,096 keys, each row moved by an offset chosen so
that no two keys of 7-card hands meet) turns them into a slot of a 51,355-entry
table of hand strengths. The suit counters start at 3, so a suit with five cards
or more sets its counter's top bit: one AND tells a flush, whose strength is then
looked up by the suit's 13-bit rank mask (a flush of 7 cards always beats every
non-flush hand they make). Strengths are dense ranks 1..7,462 of
:func:`matchdb.core.evaluator.evaluate`'s values, so the order is exactly the
project's evaluator's (the tests check every 7-card rank multiset and flush).

**The enumeration.** A 7-card hand without a flush is valued by its ranks
alone, so boards are dealt by rank: each of the (at most 6,175) multisets of
five board ranks is valued once for every player and weighted by the ways to
deal its cards. Then the boards that give someone a flush (three or more cards
of a suit that someone holds enough of) are dealt card by card in that suit
and by rank in the others, and each replaces its rank-only outcome by its true
one. Three known hands cost about 60,000 board valuations instead of 1.5
million boards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.equity._kernels.bits import MIX1, MIX2, below, high32, low32, splitmix
from matchdb.jit import jit

#: OMPEval's rank multipliers (2 to A): sums of up to 7 are unique per rank multiset.
RANK_KEYS = np.array(
    [0x2000, 0x8001, 0x11000, 0x3A000, 0x91000, 0x176005, 0x366000, 0x41A013, 0x47802E, 0x479068, 0x48C0E4,
     0x48F211, 0x494493],
    dtype=np.int64,
)
_ROW_SHIFT = 12
_COLUMN_MASK = (1 << _ROW_SHIFT) - 1
#: The key of no card: every suit counter at 3.
EMPTY_KEY = np.uint64(0x3333 << 32)
_S35 = np.uint64(35)
_M1111 = np.uint64(0x1111)
_LOW32 = np.uint64(0xFFFFFFFF)
_M13 = np.uint64(0x1FFF)

#: Key and suit mask (16 bits a suit) of each card id (suit x 13 + rank).
CARD_KEY = np.array([int(RANK_KEYS[c % 13]) | (1 << (32 + 4 * (c // 13))) for c in range(52)], dtype=np.uint64)
CARD_MASK = np.array([1 << (16 * (c // 13) + c % 13) for c in range(52)], dtype=np.uint64)
CARD_KEY.flags.writeable = False
CARD_MASK.flags.writeable = False


@jit
def _seven_card_multisets(straight_top, flush_value):
    """(key, evaluator value) of every multiset of 7 ranks with at most 4 of each (49,205 of them).

    Each is evaluated as real cards with suits dealt round robin, so no suit holds more than two.
    """
    keys = np.empty(49205, dtype=np.int64)
    values = np.empty(49205, dtype=np.int64)
    seq = np.zeros(7, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int32)
    cards = np.empty(7, dtype=np.int64)
    n = 0
    while True:
        counts[:] = 0
        for i in range(7):
            counts[seq[i]] += 1
        if counts.max() <= 4:
            key = 0
            for r in range(13):
                key += counts[r] * RANK_KEYS[r]
            for i in range(7):
                cards[i] = (i % 4) * 13 + seq[i]
            keys[n] = key
            values[n] = evaluate_with(cards, scratch, straight_top, flush_value)
            n += 1
        i = 6  # the next non-decreasing sequence of ranks
        while i >= 0 and seq[i] == 12:
            i -= 1
        if i < 0:
            break
        seq[i] += 1
        for j in range(i + 1, 7):
            seq[j] = seq[i]
    return keys, values


@jit
def _row_offsets(keys, shift):
    """Offsets that move each row of keys (``key >> shift``) so that no two keys share a slot; and the table size.

    Rows are placed largest first, each at the lowest offset where all its keys find free slots.
    """
    rows = keys >> shift
    n_rows = rows.max() + 1
    mask = (1 << shift) - 1
    order = np.argsort(rows)
    start = np.searchsorted(rows[order], np.arange(n_rows + 1))
    sizes = start[1:] - start[:-1]
    by_size = np.argsort(-sizes, kind="mergesort")
    used = np.zeros(4 * keys.shape[0] + (1 << shift), dtype=np.bool_)
    offsets = np.zeros(n_rows, dtype=np.int32)
    size = 0
    first_free = 0
    for row in by_size:
        if sizes[row] == 0:
            continue
        columns = keys[order[start[row]:start[row + 1]]] & mask
        while used[first_free]:
            first_free += 1
        offset = max(0, first_free - columns.min())
        while True:
            free = True
            for c in columns:
                if used[offset + c]:
                    free = False
                    break
            if free:
                break
            offset += 1
        for c in columns:
            used[offset + c] = True
        offsets[row] = offset
        size = max(size, offset + columns.max() + 1)
    return offsets, size


#: The tables as shipped (``matchdb/equity/data/evaluator7.npz``): finding the offsets takes about a second.
TABLES_FILE = Path(__file__).resolve().parents[1] / "data" / "evaluator7.npz"


def load_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(LOOKUP, OFFSETS, FLUSH_RANK) as shipped; :func:`build_tables` makes them (a test checks they agree)."""
    with np.load(TABLES_FILE) as data:
        tables = data["lookup"], data["offsets"], data["flush_rank"]
    for table in tables:
        table.flags.writeable = False
    return tables


def save_tables(path: Path = TABLES_FILE) -> None:
    """Write :func:`build_tables`' tables to ``path`` (what ships in the package)."""
    lookup, offsets, flush_rank = build_tables()
    np.savez_compressed(path, lookup=lookup, offsets=offsets, flush_rank=flush_rank)


def build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(LOOKUP, OFFSETS, FLUSH_RANK): the evaluator's tables, strengths as dense ranks of the evaluator's values."""
    keys, values = _seven_card_multisets(STRAIGHT_TOP, FLUSH_VALUE)
    offsets, size = _row_offsets(keys, _ROW_SHIFT)
    flushes = FLUSH_VALUE > 0
    every = np.unique(np.concatenate([values, FLUSH_VALUE[flushes]]))
    lookup = np.zeros(size, dtype=np.uint16)
    lookup[(keys & _COLUMN_MASK) + offsets[keys >> _ROW_SHIFT]] = np.searchsorted(every, values) + 1
    flush_rank = np.zeros(1 << 13, dtype=np.uint16)
    flush_rank[flushes] = np.searchsorted(every, FLUSH_VALUE[flushes]) + 1
    for table in (lookup, offsets, flush_rank):
        table.flags.writeable = False
    return lookup, offsets, flush_rank


@jit
def _rank_strength(key, lookup, offsets):
    """Strength of a hand without a flush from its summed rank keys (the perfect hash)."""
    return np.int64(lookup[(key & _COLUMN_MASK) + offsets[key >> _ROW_SHIFT]])


@jit
def strength(key, mask, lookup, offsets, flush_rank):
    """Strength (1..7,462, larger is stronger) of a 7-card hand given by its summed key and suit mask."""
    flush = (key >> _S35) & _M1111
    if flush:
        shift = np.uint64(16) * (np.uint64(flush > 0xF) + np.uint64(flush > 0xFF) + np.uint64(flush > 0xFFF))
        return np.int64(flush_rank[(mask >> shift) & _M13])
    return _rank_strength(np.int64(key & _LOW32), lookup, offsets)


_BINOMIAL = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]], dtype=np.int64)
#: The most multisets of up to 5 ranks (C(17, 5)).
_MOST_MULTISETS = 6188


@jit
def _rank_multisets(size, available):
    """(keys, ways) of every multiset of ``size`` ranks with at most ``available[r]`` cards of rank r:
    the summed rank keys and the ways to choose its cards (the product of C(available[r], count of r))."""
    keys = np.empty(_MOST_MULTISETS, dtype=np.int64)
    ways = np.empty(_MOST_MULTISETS, dtype=np.int64)
    if size == 0:
        keys[0] = 0
        ways[0] = 1
        return keys[:1], ways[:1]
    seq = np.zeros(size, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    n = 0
    while True:
        counts[:] = 0
        for i in range(size):
            counts[seq[i]] += 1
        key = 0
        w = 1
        for r in range(13):
            if counts[r] > available[r]:
                w = 0
                break
            w *= _BINOMIAL[available[r], counts[r]]
            key += counts[r] * RANK_KEYS[r]
        if w:
            keys[n] = key
            ways[n] = w
            n += 1
        i = size - 1  # the next non-decreasing sequence of ranks
        while i >= 0 and seq[i] == 12:
            i -= 1
        if i < 0:
            break
        seq[i] += 1
        for j in range(i + 1, size):
            seq[j] = seq[i]
    return keys[:n], ways[:n]


@jit
def _among_best(value, player, best, winners):
    """(best, winners) once ``player`` shows ``value``: the best strength so far and the bit mask of who holds it."""
    if value > best:
        return value, 1 << player
    if value == best:
        return best, winners | (1 << player)
    return best, winners


@jit
def _enumerate(hand_ranks, hand_suits, hand_flush, available, lookup, offsets, flush_rank, by_winners):
    """Every 5-card board of the ``available`` cards beside known hands: ``by_winners[m]`` gets the boards whose best
    hand is held by exactly the players of bit mask m.

    ``hand_ranks[i]`` is player i's summed rank keys, ``hand_suits[i, s]`` his cards of suit s and
    ``hand_flush[i, s]`` their 13-bit rank mask; ``available[s, r]`` is 1 for a card that may fall.
    Two passes, both over ranks rather than cards:

    1. every multiset of board ranks, weighted by the ways to deal it, valued as if no one had a flush;
    2. for each suit, the boards with enough cards of it (k = 3, 4, 5 of 5) to give someone a flush, its cards
       dealt one by one and the others by rank: each adds its true outcome and takes away pass 1's.

    A board holds at most one suit three times, and nobody makes a flush in a suit the board holds twice or less
    (nobody holds more than two cards of a suit), so pass 2 corrects each board at most once, and exactly those
    whose value pass 1 got wrong.
    """
    n = hand_ranks.shape[0]
    count = np.zeros(13, dtype=np.int64)
    for s in range(4):
        for r in range(13):
            count[r] += available[s, r]
    keys, ways = _rank_multisets(5, count)
    for j in range(keys.shape[0]):
        best = np.int64(0)
        winners = 0
        for i in range(n):
            best, winners = _among_best(_rank_strength(keys[j] + hand_ranks[i], lookup, offsets), i, best, winners)
        by_winners[winners] += ways[j]
    others = np.empty(13, dtype=np.int64)
    for s in range(4):
        most = 0
        suited = 0
        for i in range(n):
            most = max(most, hand_suits[i, s])
        for r in range(13):
            others[r] = count[r] - available[s, r]
            suited |= available[s, r] << r
        for k in range(max(3, 5 - most), 6):
            rest, rest_ways = _rank_multisets(5 - k, others)
            sub = (1 << k) - 1
            while sub < 8192:  # every k-card subset of the suit's ranks (Gosper's hack), those still in the deck
                if sub & suited == sub:
                    key = 0
                    for r in range(13):
                        if (sub >> r) & 1:
                            key += RANK_KEYS[r]
                    for j in range(rest.shape[0]):
                        true_best = np.int64(0)
                        true_winners = 0
                        best = np.int64(0)
                        winners = 0
                        for i in range(n):
                            v = _rank_strength(key + rest[j] + hand_ranks[i], lookup, offsets)
                            best, winners = _among_best(v, i, best, winners)
                            if hand_suits[i, s] + k >= 5:
                                v = np.int64(flush_rank[sub | hand_flush[i, s]])
                            true_best, true_winners = _among_best(v, i, true_best, true_winners)
                        if true_winners != winners:
                            by_winners[true_winners] += rest_ways[j]
                            by_winners[winners] -= rest_ways[j]
                lowest = sub & -sub
                ripple = sub + lowest
                sub = (((ripple ^ sub) >> 2) // lowest) | ripple


@jit
def _draw_hand(cumulative, hands, u):
    """The hand whose cumulative weight first exceeds ``u`` (binary search)."""
    lo = 0
    hi = cumulative.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return hands[lo]


@jit
def _sample_chunk(
    player_start, cumulative, hands, hand_cards, seed, chunk, samples, max_in_a_row, max_rejected, lookup, offsets,
    flush_rank, out,
):
    """``samples`` random deals of stream ``chunk``: each player's hand drawn from his range (a whole deal drawn again
    when two hands share a card, so deals come in proportion to the product of the weights), then a random board.

    Player i's hands are ``hands[player_start[i]:player_start[i + 1]]`` with cumulative weights alike;
    ``hand_cards[h]`` are hand h's two card ids. Adds to ``out[i]``: (win, tie, share, share^2) of player i.
    Returns the deals drawn again; -1 as soon as more than ``max_in_a_row`` were in a row, or more than
    ``max_rejected`` in all (ranges that leave almost no deal: the chunk stops there, its sums unfinished).
    """
    n_players = player_start.shape[0] - 1
    state = np.uint64(seed) * MIX2 + np.uint64(chunk + 1) * MIX1
    dealt = np.zeros(n_players, dtype=np.int64)
    deck = np.empty(52, dtype=np.int64)
    values = np.empty(n_players, dtype=np.int64)
    rejected = 0
    for _ in range(samples):
        in_a_row = 0
        while True:  # the players' hands
            used = np.uint64(0)
            ok = True
            for i in range(n_players):
                state, z = splitmix(state)
                lo = player_start[i]
                hi = player_start[i + 1]
                u = (high32(z) * np.float64(1.0 / 4294967296.0)) * cumulative[hi - 1]
                h = _draw_hand(cumulative[lo:hi], hands[lo:hi], u)
                bits = (np.uint64(1) << np.uint64(hand_cards[h, 0])) | (np.uint64(1) << np.uint64(hand_cards[h, 1]))
                if used & bits:
                    ok = False
                    break
                used |= bits
                dealt[i] = h
            if ok:
                break
            rejected += 1
            in_a_row += 1
            if in_a_row > max_in_a_row or rejected > max_rejected:
                return -1
        n = 0
        for c in range(52):
            if not (used >> np.uint64(c)) & np.uint64(1):
                deck[n] = c
                n += 1
        key = EMPTY_KEY
        mask = np.uint64(0)
        for j in range(5):  # the board: a partial shuffle
            state, z = splitmix(state)
            k = j + below(low32(z), n - j)
            card = deck[k]
            deck[k] = deck[j]
            deck[j] = card
            key += CARD_KEY[card]
            mask |= CARD_MASK[card]
        best = 0
        for i in range(n_players):
            h = dealt[i]
            a = hand_cards[h, 0]
            b = hand_cards[h, 1]
            v = strength(key + CARD_KEY[a] + CARD_KEY[b], mask | CARD_MASK[a] | CARD_MASK[b], lookup, offsets, flush_rank)
            values[i] = v
            best = max(best, v)
        tied = 0
        for i in range(n_players):
            tied += values[i] == best
        for i in range(n_players):
            if values[i] == best:
                share = 1.0 / tied
                if tied == 1:
                    out[i, 0] += 1.0
                else:
                    out[i, 1] += 1.0
                out[i, 2] += share
                out[i, 3] += share * share
    return rejected
