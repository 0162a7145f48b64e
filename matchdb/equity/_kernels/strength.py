"""Numba kernels of the bots' hand strength (private: the interface is :mod:`matchdb.equity.kernels`).

They read the decoded W tables ``tables[slot][row, column]`` of the canonical flops and the lookups of
:class:`matchdb.equity.kernels.Frame`; :func:`strength` is what the arena's compiled loop and
:class:`matchdb.play.strength.StrengthSource` call. The exact and heads-up kinds are counted by the equity
kernels (:func:`matchdb.equity.kernels.exact_hero` on the table's transpose); what is the bots' own here is the
naive win rate, the opponent models and the one sampler of the Monte Carlo strength and of the exact strength
beyond :data:`EXACT_OPPONENTS` opponents.
"""

from __future__ import annotations

import numpy as np

from matchdb.core.pairs import N_LOCAL, N_PAIRS, PAIR_INDEX, SENTINEL
from matchdb.equity._kernels.bits import BITS
from matchdb.equity._kernels.heads_up import ROW_MASKS
from matchdb.equity._kernels.multiway import exact_hero, heads_up_hero
from matchdb.equity._kernels.structures import ALL_CARDS, Cards, Opponents, Question
from matchdb.jit import as_read_only, jit, jit_inline

NAIVE = 0
HEADSUP = 1
MONTECARLO = 2
EXACT = 3
#: Most live opponents the exact strength counts exactly; beyond, it samples (:data:`EXACT_SAMPLES` deals).
EXACT_OPPONENTS = 2
#: Deals the exact strength samples with more than :data:`EXACT_OPPONENTS` live opponents (s.e. at most 0.016).
EXACT_SAMPLES = 1000

UNIFORM = 0
DROPOUT = 1
STEERED = 2

#: Draws of a hand of a drop-out range (by rejection) before the exact strength's sampler keeps the last.
_REJECTIONS = 1000


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.int64)
    array.flags.writeable = False
    return array


_ROW_OF = _readonly(PAIR_INDEX)
_ROW_MASKS = ROW_MASKS
_BITS = BITS


@jit
def _locate(frame_arrays, board):
    """(canonical index, renaming) of the flop ``board[:3]``."""
    flop_table, flop_perm = frame_arrays.flop_table, frame_arrays.flop_perm
    return np.int64(flop_table[board[0], board[1], board[2]]), np.int64(flop_perm[board[0], board[1], board[2]])


@jit
def _local_card(frame_arrays, index, perm, card):
    return np.int64(frame_arrays.local[index, frame_arrays.card_map[perm, card]])


@jit
def _naive_post(table, row, columns, n_columns, exponent, powers):
    total = 0.0
    count = 0
    power = powers[exponent]
    for k in range(n_columns):
        w = table[row, columns[k]]
        if w != SENTINEL:
            total += power[w]
            count += 1
    return total / count if count else 0.0


@jit
def _columns(frame_arrays, index, perm, board, n_board, out):
    """Fill ``out`` with the columns consistent with the board; return how many."""
    if n_board == 3:
        for j in range(N_PAIRS):
            out[j] = j
        return N_PAIRS
    turn = _local_card(frame_arrays, index, perm, board[3])
    if n_board == 4:
        turn_columns = frame_arrays.turn_columns[turn]
        for j in range(turn_columns.shape[0]):
            out[j] = turn_columns[j]
        return turn_columns.shape[0]
    river = _local_card(frame_arrays, index, perm, board[4])
    out[0] = frame_arrays.pair_index[turn, river]
    return 1


@jit
def _sampling_start(frame_arrays, index, perm, hole0, hole1, board, n_board):
    """What a sampler starts from: the cards left (deck, count), the hero's row and the turn and river in the
    flop's frame (-1 where still to deal)."""
    known = np.zeros(52, dtype=np.bool_)
    known[hole0] = True
    known[hole1] = True
    for k in range(n_board):
        known[board[k]] = True
    deck = np.empty(52, dtype=np.int64)
    n_deck = 0
    for c in range(52):
        if not known[c]:
            deck[n_deck] = c
            n_deck += 1
    pair_index = frame_arrays.pair_index
    hero_row = pair_index[_local_card(frame_arrays, index, perm, hole0), _local_card(frame_arrays, index, perm, hole1)]
    turn = _local_card(frame_arrays, index, perm, board[3]) if n_board >= 4 else -1
    river = _local_card(frame_arrays, index, perm, board[4]) if n_board == 5 else -1
    return deck, n_deck, hero_row, turn, river


@jit
def _draw_runout(frame_arrays, index, perm, deck, n_deck, turn, river):
    """One sample's turn and river (those not dealt drawn from the front of ``deck``), and the deck position after them."""
    pos = 0
    t = turn
    r = river
    if t < 0:
        j = pos + np.random.randint(n_deck - pos)
        deck[pos], deck[j] = deck[j], deck[pos]
        t = _local_card(frame_arrays, index, perm, deck[pos])
        pos += 1
    if r < 0:
        j = pos + np.random.randint(n_deck - pos)
        deck[pos], deck[j] = deck[j], deck[pos]
        r = _local_card(frame_arrays, index, perm, deck[pos])
        pos += 1
    return t, r, pos


@jit
def _sampled(table, frame_arrays, index, perm, hole0, hole1, board, n_board, opponents, samples, flags, preflop,
             classes, threshold, redraws, drop):
    """Sampled chance that the hero's hand beats ``opponents`` random hands (ties share); W levels decide.

    The one sampler of the Monte Carlo and the exact strengths. Each opponent's hand is drawn from the
    cards left; an opponent flagged in ``flags`` has it dealt again while its class's preflop heads-up
    equity is below ``threshold``, up to ``redraws`` times (Tomlinson's steering; the exact strength's
    drop-out range by rejection), and with ``drop`` a flagged opponent dealt a hand below the threshold
    leaves the deal (West's drop-out).
    """
    deck, n_deck, hero_row, turn, river = _sampling_start(frame_arrays, index, perm, hole0, hole1, board, n_board)
    pair_index = frame_arrays.pair_index
    score = 0.0
    for _ in range(samples):
        t, r, pos = _draw_runout(frame_arrays, index, perm, deck, n_deck, turn, river)
        column = pair_index[t, r]
        hero = table[hero_row, column]
        best_other = -1
        tied = 0
        for o in range(opponents):
            tries = redraws + 1 if flags[o] != 0 else 1
            for attempt in range(tries):
                i = pos + np.random.randint(n_deck - pos)
                deck[pos], deck[i] = deck[i], deck[pos]
                i = pos + 1 + np.random.randint(n_deck - pos - 1)
                deck[pos + 1], deck[i] = deck[i], deck[pos + 1]
                if attempt == tries - 1 or preflop[classes[deck[pos], deck[pos + 1]], 0] >= threshold:
                    break
            a = deck[pos]
            b = deck[pos + 1]
            pos += 2
            if drop and flags[o] != 0 and preflop[classes[a, b], 0] < threshold:
                continue  # this opponent would not be in the hand
            v = table[pair_index[_local_card(frame_arrays, index, perm, a), _local_card(frame_arrays, index, perm, b)], column]
            if v > best_other:
                best_other = v
                tied = 1 if v == hero else 0
            elif v == best_other and v == hero:
                tied += 1
        if hero > best_other:
            score += 1.0
        elif hero == best_other:
            score += 1.0 / (1 + tied)
    return score / samples


@jit
def _dropout_weights(frame_arrays, index, classes, preflop, threshold, low, high, out):
    """West's drop-out range on this flop's rows: 1.0 where the hand's class reaches ``threshold`` (preflop
    heads-up equity), else 0.0."""
    local = frame_arrays.local[index]
    card_of = np.empty(49, dtype=np.int64)
    for c in range(52):
        if local[c] >= 0:
            card_of[local[c]] = c
    for k in range(low.shape[0]):
        out[k] = 1.0 if preflop[classes[card_of[low[k]], card_of[high[k]]], 0] >= threshold else 0.0


@jit_inline
def _equity_on(cols, col_masks, row, opponents, cards):
    """The exact equity of ``row`` on ``cols`` against ``opponents`` (no known hands): :func:`exact_hero`, or
    :func:`heads_up_hero` against one random hand."""
    free = np.uint64(ALL_CARDS) & ~cards.masks[row]
    question = Question(cols, col_masks, row, np.zeros(0, dtype=np.int64), free, N_LOCAL - 2)
    result = np.zeros(4)
    if opponents.k_exact == 1 and opponents.exact_random:
        heads_up_hero(question, cards, result)
    else:
        exact_hero(question, opponents, cards, result)
    return result[2] / result[3] if result[3] > 0 else 0.0


@jit
def _exact(table, row, columns, n_columns, opponents, random, weights, low, high):
    """Exact equity of ``row`` against ``opponents`` (1 or 2) over the given columns of a decoded table (rows
    first): random hands, or the rows of ``weights``, counted by the equity kernels on the table's transpose.

    On a turn or a river the columns are taken out first, from the rows the count reads: against one random
    hand the hero's and those sharing a card with it (:func:`heads_up_hero` reads no other), against ranges
    only the hero and the ranges' hands (the others left colliding, ``SENTINEL``).
    """
    cards = Cards(low, high, _ROW_OF, _ROW_MASKS, _BITS)
    counted = Opponents(np.zeros((0, N_PAIRS)), np.zeros(0, dtype=np.bool_), opponents, random, weights, random)
    if n_columns == table.shape[1]:
        return _equity_on(as_read_only(table.T), cards.masks, row, counted, cards)
    sub = np.empty((table.shape[0], n_columns), dtype=np.uint16)
    col_masks = np.empty(n_columns, dtype=np.uint64)
    for jj in range(n_columns):
        col_masks[jj] = cards.masks[columns[jj]]
    hero_mask = cards.masks[row]
    for r in range(table.shape[0]):
        if random and opponents == 1:
            needed = (cards.masks[r] & hero_mask) != 0
        elif random:
            needed = True
        else:
            needed = r == row
            for o in range(opponents):
                needed = needed or weights[o, r] != 0.0
        if needed:
            for jj in range(n_columns):
                sub[r, jj] = table[r, columns[jj]]
        elif not (random and opponents == 1):  # heads_up_hero reads no other row
            for jj in range(n_columns):
                sub[r, jj] = SENTINEL
    # read-only (as the caller's tables may be, and the row masks are), so that the kernels below compile once
    return _equity_on(as_read_only(sub.T), as_read_only(col_masks), row, counted, cards)


@jit
def strength(kind, hole0, hole1, board, n_board, players, samples, model, threshold, redraws, flags, arrays, columns):
    """Strength of hole cards on a board of 0, 3, 4 or 5 cards with ``players`` in the hand (hero included).

    ``arrays`` is a :class:`matchdb.equity.kernels.StrengthArrays`; ``columns`` int64 scratch of 1,176.
    Returns -1.0 when the flop's table is not loaded (``slot_of[index] < 0``).
    """
    frame_arrays, preflop, classes, powers, tables, slot_of, low, high = arrays
    if players < 2:
        return 1.0
    n = min(players, 10)
    if n_board == 0:
        cls = classes[hole0, hole1]
        if kind == HEADSUP or (kind == EXACT and players == 2):
            return preflop[cls, 0]
        return preflop[cls, n]
    index, perm = _locate(frame_arrays, board)
    slot = slot_of[index]
    if slot < 0:
        return -1.0
    table = tables[slot]
    if kind == MONTECARLO:
        return _sampled(table, frame_arrays, index, perm, hole0, hole1, board, n_board, players - 1, samples,
                        flags, preflop, classes, threshold, redraws if model == STEERED else 0, model == DROPOUT)
    pair_index = frame_arrays.pair_index
    if kind == EXACT and players - 1 > EXACT_OPPONENTS:
        return _sampled(table, frame_arrays, index, perm, hole0, hole1, board, n_board, players - 1,
                        max(samples, EXACT_SAMPLES), flags, preflop, classes, threshold, _REJECTIONS - 1, False)
    hero_a = _local_card(frame_arrays, index, perm, hole0)
    hero_b = _local_card(frame_arrays, index, perm, hole1)
    row = pair_index[hero_a, hero_b]
    n_columns = _columns(frame_arrays, index, perm, board, n_board, columns)
    if kind == EXACT or kind == HEADSUP:
        opponents = players - 1 if kind == EXACT else 1
        dropout = kind == EXACT and model == DROPOUT
        random = True
        if dropout:
            for o in range(opponents):
                if flags[o] != 0:
                    random = False
        elif kind == EXACT:
            for o in range(opponents):
                flags[o] = 0  # as the arena's loop has always seen them
        weights = np.zeros((3, 0 if random else N_PAIRS))  # random hands: not read
        if not random:
            in_range = np.empty(N_PAIRS)
            _dropout_weights(frame_arrays, index, classes, preflop, threshold, low, high, in_range)
            for o in range(opponents):  # loops, not weights[o] = in_range: seconds of compiling error text
                for r in range(N_PAIRS):
                    weights[o, r] = in_range[r] if flags[o] != 0 else 1.0
        return _exact(table, row, columns, n_columns, opponents, random, weights, low, high)
    return _naive_post(table, row, columns, n_columns, min(players - 1, 9), powers)


@jit
def seed_random(seed):
    """Seed numba's random generator (the one the kernels draw from) in this thread."""
    np.random.seed(seed)

