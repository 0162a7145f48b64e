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

**The enumeration.** Boards are dealt card by card over the deck in rank order.
A card whose suit can no longer make a flush for anybody (its suit's count among
the board and any one player's cards, plus the cards still to come, stays under
five) gives the same strengths as every other such card of its rank: dealing one,
two, ... of them is done once and weighted by the ways to choose them (OMPEval's
"irrelevant suits"). Each board costs one addition and one or two table reads per
player.
"""

from __future__ import annotations

from pathlib import Path

import numba
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
_FLUSH_BITS = np.uint64(0x8888 << 32)
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
def strength(key, mask, lookup, offsets, flush_rank):
    """Strength (1..7,462, larger is stronger) of a 7-card hand given by its summed key and suit mask."""
    flush = (key >> _S35) & _M1111
    if flush:
        shift = np.uint64(16) * (np.uint64(flush > 0xF) + np.uint64(flush > 0xFF) + np.uint64(flush > 0xFFF))
        return np.int64(flush_rank[(mask >> shift) & _M13])
    k = np.int64(key & _LOW32)
    return np.int64(lookup[(k & _COLUMN_MASK) + offsets[k >> _ROW_SHIFT]])


_inline = numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")  # a call per board costs more than the board


@jit
def _turn_river(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank,
                values, counts):
    """Every turn and river from ``deck[start:]`` on a 3-card board (cards alike counted once)."""
    n = deck.shape[0]
    d = start
    while d < n - 1:
        card = deck[d]
        suit = card // 13
        alike = _gather_alike(deck, d, 2, suits)
        if alike == 0:
            alike = 1
        elif alike >= 2:  # two of them: the board is complete
            second = deck[d + 1]
            _score_board(key + CARD_KEY[card] + CARD_KEY[second], mask | CARD_MASK[card] | CARD_MASK[second],
                         hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts,
                         weight * (alike * (alike - 1) // 2))
        suits[suit] += 1
        _river(key + CARD_KEY[card], mask | CARD_MASK[card], d + alike, weight * alike, suits, deck, group_end,
               hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts)
        suits[suit] -= 1
        d += alike


@_inline
def _river(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank, values,
           counts):
    """Every river from ``deck[start:]`` on a 4-card board, a rank at a time (cards alike counted once)."""
    n = deck.shape[0]
    e = start
    while e < n:
        end = group_end[e]
        alike = 0
        stand_in = -1
        for f in range(e, end):
            card = deck[f]
            if suits[card // 13] <= 3:
                alike += 1
                stand_in = card
                continue
            _score_board(key + CARD_KEY[card], mask | CARD_MASK[card], hand_keys, hand_masks, lookup, offsets,
                         flush_rank, values, counts, weight)
        if alike:
            _score_board(key + CARD_KEY[stand_in], mask | CARD_MASK[stand_in], hand_keys, hand_masks, lookup, offsets,
                         flush_rank, values, counts, weight * alike)
        e = end


@_inline
def _score_board(board_key, board_mask, hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts, weight):
    """Add ``weight`` boards to the winners' counts (by how many tie) for one board's key and suit mask."""
    best = np.int64(0)
    winners = np.uint64(0)
    for i in range(hand_keys.shape[0]):
        key = board_key + hand_keys[i]
        flush = (key >> _S35) & _M1111
        if flush:
            shift = np.uint64(16) * (np.uint64(flush > 0xF) + np.uint64(flush > 0xFF) + np.uint64(flush > 0xFFF))
            v = np.int64(flush_rank[((board_mask | hand_masks[i]) >> shift) & _M13])
        else:
            k = np.int64(key & _LOW32)
            v = np.int64(lookup[(k & _COLUMN_MASK) + offsets[k >> _ROW_SHIFT]])
        if v > best:
            best = v
            winners = np.uint64(1) << np.uint64(i)
        elif v == best:
            winners |= np.uint64(1) << np.uint64(i)
    if winners & (winners - np.uint64(1)) == 0:  # one winner: its bit's index
        counts[_bit_of(winners), 0] += weight
        return
    tied = _count_bits(winners) - 1
    i = 0
    while winners:
        if winners & np.uint64(1):
            counts[i, tied] += weight
        winners >>= np.uint64(1)
        i += 1


@_inline
def _count_bits(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@_inline
def _bit_of(bit):
    i = 0
    while bit > np.uint64(1):
        bit >>= np.uint64(1)
        i += 1
    return i


_BINOMIAL = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]], dtype=np.int64)


@_inline
def _gather_alike(deck, i, left, suits):
    """Move the cards of ``deck[i]``'s rank whose suit cannot make a flush with ``left`` cards to come to
    the front of the rank (from ``i``); return how many there are (0 when ``deck[i]``'s suit still can)."""
    card = deck[i]
    if suits[card // 13] + left >= 5:
        return 0
    alike = 1
    j = i + 1
    while j < deck.shape[0] and deck[j] % 13 == card % 13:
        other = deck[j]
        if suits[other // 13] + left < 5:
            deck[j] = deck[i + alike]
            deck[i + alike] = other
            alike += 1
        j += 1
    return alike


@jit
def _river_call(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank,
                values, counts):
    """:func:`_river` as a call: the levels above reach it only for boards dealt two alike cards at a time."""
    _river(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank, values,
           counts)


@jit
def _score_call(key, mask, hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts, weight):
    """:func:`_score_board` as a call, for the few boards the levels above complete at once."""
    _score_board(key, mask, hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts, weight)


@jit
def _three_to_come(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank,
                   values, counts):
    """Every flop-third card, turn and river from ``deck[start:]`` on a 2-card board (cards alike counted once)."""
    n = deck.shape[0]
    i = start
    while i <= n - 3:
        alike = _gather_alike(deck, i, 3, suits)
        if alike == 0:
            card = deck[i]
            suits[card // 13] += 1
            _turn_river(key + CARD_KEY[card], mask | CARD_MASK[card], i + 1, weight, suits, deck, group_end, hand_keys,
                        hand_masks, lookup, offsets, flush_rank, values, counts)
            suits[card // 13] -= 1
            i += 1
            continue
        k = key
        m = mask
        for taken in range(1, min(alike, 3) + 1):
            chosen = deck[i + taken - 1]
            k += CARD_KEY[chosen]
            m |= CARD_MASK[chosen]
            suits[chosen // 13] += 1
            ways = weight * _BINOMIAL[alike, taken]
            if taken == 1:
                _turn_river(k, m, i + alike, ways, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets,
                            flush_rank, values, counts)
            elif taken == 2:
                _river_call(k, m, i + alike, ways, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets,
                            flush_rank, values, counts)
            else:
                _score_call(k, m, hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts, ways)
        for taken in range(1, min(alike, 3) + 1):
            suits[deck[i + taken - 1] // 13] -= 1
        i += alike


@jit
def _four_to_come(key, mask, start, weight, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets, flush_rank,
                  values, counts):
    """Every board of four more cards from ``deck[start:]`` beside one dealt card (cards alike counted once)."""
    n = deck.shape[0]
    i = start
    while i <= n - 4:
        alike = _gather_alike(deck, i, 4, suits)
        if alike == 0:
            card = deck[i]
            suits[card // 13] += 1
            _three_to_come(key + CARD_KEY[card], mask | CARD_MASK[card], i + 1, weight, suits, deck, group_end,
                           hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts)
            suits[card // 13] -= 1
            i += 1
            continue
        k = key
        m = mask
        for taken in range(1, min(alike, 4) + 1):
            chosen = deck[i + taken - 1]
            k += CARD_KEY[chosen]
            m |= CARD_MASK[chosen]
            suits[chosen // 13] += 1
            ways = weight * _BINOMIAL[alike, taken]
            if taken == 1:
                _three_to_come(k, m, i + alike, ways, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets,
                               flush_rank, values, counts)
            elif taken == 2:
                _turn_river(k, m, i + alike, ways, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets,
                            flush_rank, values, counts)
            elif taken == 3:
                _river_call(k, m, i + alike, ways, suits, deck, group_end, hand_keys, hand_masks, lookup, offsets,
                            flush_rank, values, counts)
            else:
                _score_call(k, m, hand_keys, hand_masks, lookup, offsets, flush_rank, values, counts, ways)
        for taken in range(1, min(alike, 4) + 1):
            suits[deck[i + taken - 1] // 13] -= 1
        i += alike


@jit
def _enumerate(hand_keys, hand_masks, suit_max, deck, group_end, lookup, offsets, flush_rank, block, n_blocks, counts):
    """Every 5-card board from ``deck`` beside the known hands, for the first cards ``block``, ``block + n_blocks``, ...:
    ``counts[i, t]`` gets the boards where player i has the best hand together with t others (t = 0: alone).

    ``deck`` is in rank order (the cards of a rank side by side; ``group_end[j]`` ends j's rank);
    ``suit_max[s]`` is the most cards of suit s any player holds. The counts are whole numbers,
    so threads that split the blocks add up to the same answer whatever their number.
    """
    n = deck.shape[0]
    values = np.empty(hand_keys.shape[0], dtype=np.int64)
    work = np.empty_like(deck)
    suits = np.empty(4, dtype=np.int64)
    for a in range(block, n - 4, n_blocks):
        work[:] = deck  # the deeper levels reorder cards within a rank: every first card starts from the same order
        suits[:] = suit_max
        card = work[a]
        suits[card // 13] += 1
        _four_to_come(EMPTY_KEY + CARD_KEY[card], CARD_MASK[card], a + 1, 1, suits, work, group_end, hand_keys,
                      hand_masks, lookup, offsets, flush_rank, values, counts)


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
def _sample_chunk(player_start, cumulative, hands, hand_cards, seed, chunk, samples, lookup, offsets, flush_rank, out):
    """``samples`` random deals of stream ``chunk``: each player's hand drawn from his range (a whole deal drawn again
    when two hands share a card, so deals come in proportion to the product of the weights), then a random board.

    Player i's hands are ``hands[player_start[i]:player_start[i + 1]]`` with cumulative weights alike;
    ``hand_cards[h]`` are hand h's two card ids. Adds to ``out[i]``: (win, tie, share, share^2) of player i.
    """
    n_players = player_start.shape[0] - 1
    state = np.uint64(seed) * MIX2 + np.uint64(chunk + 1) * MIX1
    dealt = np.zeros(n_players, dtype=np.int64)
    deck = np.empty(52, dtype=np.int64)
    values = np.empty(n_players, dtype=np.int64)
    for _ in range(samples):
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
