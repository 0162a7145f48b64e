"""Hand strength for bots from the match-table database, fast enough for an arena.

A bot's *strength* is its estimated chance to win the hand. Three come from the
database:

- ``naive``: the article's naive win rate mean((1 - S) ** (n - 1)), n the
  players still in the hand (docs/contract.md);
- ``headsup``: the exact heads-up equity against one random hand, card removal
  exact;
- ``montecarlo``: Tomlinson's sampled win probability against the n - 1
  opponents: a few runouts and opponent hands drawn at random, winners read
  off the table's W levels (no evaluator calls), with an opponent model:
  uniform, West's drop-out (opponents who entered the pot voluntarily drop
  out when dealt a hand below a threshold) or Tomlinson's steering
  (preflop raisers' hands below the threshold are dealt again, up to a few
  times).

Preflop every kind reads the database's preflop table of the 169 classes
(``db.preflop()``): the naive win rate for n players, or the heads-up equity.

**Where the tables come from, and what it costs.** A strength after the flop
needs the W table of the hand's flop, and random flops hit random tables among
the 1,755. :func:`decode_tables` decodes every table once into one flat file
(4.85 GB, about half a minute here) that any number of processes map
read-only (:func:`open_decoded`: instant, pages shared through the page
cache). Without it, :class:`LazyTables` decodes tables on first use into a
few in-memory slots (2.8 MB and about 3 ms per table on this machine), which
suits tests and short runs. Everything else is small: the canonical-flop
lookups (0.6 MB, built in about 0.1 s) and the preflop table.

The kernels here are shared by the compiled arena loop and by Python bots
(through :class:`StrengthSource`), so both compute the same numbers. With a
database open, ``StrengthSource(db).naive("AhKh", "2c7dJh", players=2)`` is
0.580707, as ``db.win_rate`` says; the lookups alone need no database:

>>> flop_table, flop_perm, card_map, local, pair_index, turn_columns = frame()
>>> from matchdb.core.cards import parse_cards
>>> a, b, c = parse_cards("2c7dJh")
>>> int(flop_table[a, b, c]) == int(flop_table[c, a, b]), local.shape, turn_columns.shape
(True, (1755, 52), (49, 48))
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, N_FLOPS, canonical_index
from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import CLASSES, hand_class
from matchdb.core.pairs import (
    MAX_W,
    N_LEVELS,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    ROWS_OF_CARD,
    SENTINEL,
    local_index,
)
from matchdb.errors import BoardError, CardError, DatabaseError, MatchdbError
from matchdb.jit import jit

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = [
    "NAIVE",
    "HEADSUP",
    "MONTECARLO",
    "EXACT",
    "KINDS",
    "EXACT_OPPONENTS",
    "EXACT_SAMPLES",
    "UNIFORM",
    "DROPOUT",
    "STEERED",
    "MODELS",
    "StrengthError",
    "TableSet",
    "LazyTables",
    "decode_tables",
    "open_decoded",
    "StrengthSource",
    "frame",
    "class_of",
    "preflop_array",
    "seed_kernels",
    "kernel_arrays",
    # The kernel interface: compiled code elsewhere (matchdb.play.games) calls this kernel directly.
    "strength_kernel",
]

NAIVE = 0
HEADSUP = 1
MONTECARLO = 2
EXACT = 3
#: Strength kinds by name.
KINDS = {"naive": NAIVE, "headsup": HEADSUP, "montecarlo": MONTECARLO, "exact": EXACT}
#: Most live opponents the exact strength counts exactly; beyond, it samples (:data:`EXACT_SAMPLES` deals).
EXACT_OPPONENTS = 2
#: Deals the exact strength samples with more than :data:`EXACT_OPPONENTS` live opponents (s.e. at most 0.016).
EXACT_SAMPLES = 1000

UNIFORM = 0
DROPOUT = 1
STEERED = 2
#: Opponent models of the Monte Carlo strength by name.
MODELS = {"uniform": UNIFORM, "dropout": DROPOUT, "steered": STEERED}

_TABLE_SHAPE = (N_PAIRS, N_PAIRS)


class StrengthError(MatchdbError):
    """A strength was asked for with arguments it cannot take."""


# -- the canonical frame as arrays numba can read ---------------------------------------


@functools.cache
def frame() -> tuple[np.ndarray, ...]:
    """Lookup arrays that carry real cards into a canonical table's rows and columns.

    ``(flop_table, flop_perm, card_map, local, pair_index, turn_columns)``:
    the canonical index and renaming of every ordered flop (52 x 52 x 52),
    the 24 renamings, each canonical flop's local card indices (1755 x 52,
    -1 on the flop), the pair index of two local cards and the 48 columns
    holding each local card.
    """
    flop_table = np.full((52, 52, 52), -1, dtype=np.int16)
    flop_perm = np.full((52, 52, 52), -1, dtype=np.int8)
    from itertools import combinations, permutations

    for flop in combinations(range(52), 3):
        index, perm = canonical_index(flop)
        for a, b, c in permutations(flop):
            flop_table[a, b, c] = index
            flop_perm[a, b, c] = perm
    local = np.stack([local_index(CANONICAL_FLOPS[i]) for i in range(N_FLOPS)]).astype(np.int8)
    arrays = (
        flop_table,
        flop_perm,
        CARD_MAP.astype(np.int64),
        local,
        PAIR_INDEX.astype(np.int64),
        ROWS_OF_CARD.astype(np.int64),
    )
    for array in arrays:
        array.flags.writeable = False
    return arrays


@functools.cache
def _powers() -> np.ndarray:
    """``powers[e, w] = (w / MAX_W) ** e`` for exponents 0..9."""
    table = (np.arange(N_LEVELS) / MAX_W) ** np.arange(10)[:, None]
    table.flags.writeable = False
    return table


@functools.cache
def class_of() -> np.ndarray:
    """``class_of()[a, b]``: the starting-hand class (index into CLASSES) of card ids a and b."""
    table = np.full((52, 52), -1, dtype=np.int64)
    for a in range(52):
        for b in range(52):
            if a != b:
                table[a, b] = hand_class(a, b)
    table.flags.writeable = False
    return table


def preflop_array(db: MatchDB) -> np.ndarray:
    """(169, 11) preflop strengths: column 0 the heads-up equity, column n the naive win rate for n players."""
    table = db.preflop()
    if tuple(table.classes) != CLASSES:
        raise DatabaseError("The database's preflop table lists its classes in another order than matchdb.equity.preflop.CLASSES.")
    out = np.zeros((len(CLASSES), 11))
    out[:, 0] = table.equity
    out[:, 1] = 1.0
    for n, values in table.win_rate.items():
        out[:, n] = values
    out.flags.writeable = False
    return out


# -- kernels ----------------------------------------------------------------------------------


@jit
def _locate(frame_arrays, board):
    """(canonical index, renaming) of the flop ``board[:3]``."""
    flop_table, flop_perm = frame_arrays[0], frame_arrays[1]
    return np.int64(flop_table[board[0], board[1], board[2]]), np.int64(flop_perm[board[0], board[1], board[2]])


@jit
def _local_card(frame_arrays, index, perm, card):
    return np.int64(frame_arrays[3][index, frame_arrays[2][perm, card]])


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
def _headsup_post(table, row, columns, n_columns, pair_index, low, high):
    """Exact heads-up equity of ``row`` over the given columns against every row disjoint from it."""
    a = low[row]
    b = high[row]
    score = 0.0
    deals = 0.0
    hero = np.empty(n_columns, dtype=np.uint16)
    for k in range(n_columns):
        hero[k] = table[row, columns[k]]
    for k in range(table.shape[0]):
        if low[k] == a or low[k] == b or high[k] == a or high[k] == b:
            continue
        villain = table[k]
        twice = 0
        count = 0
        for c in range(n_columns):
            h = hero[c]
            v = villain[columns[c]]
            valid = (h != SENTINEL) & (v != SENTINEL)
            twice += valid * ((h > v) * 2 + (h == v))
            count += valid
        score += twice
        deals += 2 * count
    return score / deals if deals > 0 else 0.0


@jit
def _columns(frame_arrays, index, perm, board, n_board, out):
    """Fill ``out`` with the columns consistent with the board; return how many."""
    if n_board == 3:
        for j in range(N_PAIRS):
            out[j] = j
        return N_PAIRS
    turn = _local_card(frame_arrays, index, perm, board[3])
    if n_board == 4:
        turn_columns = frame_arrays[5][turn]
        for j in range(turn_columns.shape[0]):
            out[j] = turn_columns[j]
        return turn_columns.shape[0]
    river = _local_card(frame_arrays, index, perm, board[4])
    out[0] = frame_arrays[4][turn, river]
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
    pair_index = frame_arrays[4]
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
def _monte_carlo(table, frame_arrays, index, perm, hole0, hole1, board, n_board, opponents, samples, model,
                 threshold, redraws, flags, preflop, classes):
    """Sampled chance that the hero's hand beats ``opponents`` random hands (ties share); W levels decide."""
    deck, n_deck, hero_row, turn, river = _sampling_start(frame_arrays, index, perm, hole0, hole1, board, n_board)
    pair_index = frame_arrays[4]
    score = 0.0
    for _ in range(samples):
        t, r, pos = _draw_runout(frame_arrays, index, perm, deck, n_deck, turn, river)
        column = pair_index[t, r]
        hero = table[hero_row, column]
        best_other = -1
        tied = 0
        for o in range(opponents):
            tries = redraws + 1 if (model == STEERED and flags[o] != 0) else 1
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
            if model == DROPOUT and flags[o] != 0 and preflop[classes[a, b], 0] < threshold:
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
def _exact_rows(frame_arrays, index, hole_local0, hole_local1, classes, preflop, threshold, dropout, low, high,
                valid, in_range):
    """Rows of this flop's table an opponent may hold (disjoint from the hero) and those in the drop-out range."""
    local = frame_arrays[3][index]
    card_of = np.empty(49, dtype=np.int64)
    for c in range(52):
        if local[c] >= 0:
            card_of[local[c]] = c
    for k in range(low.shape[0]):
        a = low[k]
        b = high[k]
        valid[k] = not (a == hole_local0 or a == hole_local1 or b == hole_local0 or b == hole_local1)
        in_range[k] = valid[k] and (dropout == 0 or preflop[classes[card_of[a], card_of[b]], 0] >= threshold)


@jit
def _headsup_uniform(table, row, columns, n_columns, dense, hero_a, hero_b):
    """Exact equity of ``row`` against one random hand: W counts every other hand, so only card removal remains.

    ``W[row, j]`` is twice the hands below plus the hands tied among all hands
    on runout j; the hands that share a card with the hero (the 94 other rows
    holding one of its cards) are taken out by comparing them, and 990 hands
    remain on every runout (45 free cards).
    """
    rows_of_card = _ROWS_OF_CARD
    twice = 0
    count = 0
    for jj in range(n_columns):
        h = table[row, jj if dense else columns[jj]]
        if h != SENTINEL:
            twice += h
            count += 1
    for side in range(2):
        card = hero_a if side == 0 else hero_b
        for m in range(rows_of_card.shape[1]):
            k = rows_of_card[card, m]
            if k == row or (side == 1 and (_PAIR_LOW[k] == hero_a or _PAIR_HIGH[k] == hero_a)):
                continue  # the hero, and a hand holding both hero cards, counted once
            wk = table[k]
            for jj in range(n_columns):
                c = jj if dense else columns[jj]
                h = table[row, c]
                v = wk[c]
                if h != SENTINEL and v != SENTINEL:
                    twice -= 2 * (v < h) + (v == h)
    return twice / (2.0 * 990 * count) if count else 0.0


@jit
def _exact_post(table, row, columns, n_columns, opponents, flags, valid, in_range, low, high, hero_a, hero_b):
    """Exact equity (ties split) of ``row`` against 1 or 2 opponents over the given runout columns.

    Opponent o holds any hand disjoint from the known cards (``flags[o] == 0``)
    or one of the drop-out range (``in_range``). On each runout the weighted
    count of opponents' deals (ordered, card-disjoint) is a polynomial in x,
    the tie marker: with f(e) = 1 below the hero, x tied, 0 above (times the
    range indicator), two opponents give F1 F2 - sum_c F1_c F2_c +
    sum_e f1(e) f2(e), F = sum f, F_c its sum over the hands holding card c
    (inclusion-exclusion over shared cards: the counting identity of docs/guide/multiway.md). Only
    the hands that tie or beat the hero change f from its count, so one pass
    over the rows collects what differs. Runouts are weighted by the number
    of deals they allow (card removal with ranges).
    """
    two = opponents == 2
    dense = n_columns == table.shape[1]
    if not two and flags[0] == 0:
        return _headsup_uniform(table, row, columns, n_columns, dense, hero_a, hero_b)
    need_all = flags[0] == 0 or (two and flags[1] == 0)
    need_range = flags[0] != 0 or (two and flags[1] != 0)
    n_cards = 49 if two else 1
    # what the hands at or above the hero add on each runout: beats and ties, all hands and the range's
    beats = np.zeros(n_columns, dtype=np.int32)
    ties = np.zeros(n_columns, dtype=np.int32)
    card_beats = np.zeros((n_cards if need_all else 1, n_columns), dtype=np.int32)
    card_ties = np.zeros((n_cards if need_all else 1, n_columns), dtype=np.int32)
    beats_r = np.zeros(n_columns, dtype=np.int32)
    ties_r = np.zeros(n_columns, dtype=np.int32)
    card_beats_r = np.zeros((n_cards if need_range else 1, n_columns), dtype=np.int32)
    card_ties_r = np.zeros((n_cards if need_range else 1, n_columns), dtype=np.int32)
    hero = np.empty(n_columns, dtype=np.uint16)
    for jj in range(n_columns):
        hero[jj] = table[row, jj if dense else columns[jj]]
    wk = np.empty(n_columns, dtype=np.uint16)
    # the drop-out range's rows disjoint from the hero: count, per card, pairs (card removal on each runout)
    base = 0
    base_card = np.zeros(49, dtype=np.int64)
    member = np.zeros((49, 49), dtype=np.int64)
    for k in range(table.shape[0]):
        if in_range[k]:
            base += 1
            base_card[low[k]] += 1
            base_card[high[k]] += 1
            member[low[k], high[k]] = 1
            member[high[k], low[k]] = 1
    for k in range(table.shape[0]):
        if not valid[k]:
            continue
        r = in_range[k]
        if not need_all and not r:
            continue
        if dense:
            wk[:] = table[k]
        else:
            for jj in range(n_columns):
                wk[jj] = table[k, columns[jj]]
        a = low[k]
        b = high[k]
        if need_all:
            _accumulate(wk, hero, n_columns, beats, ties, card_beats, card_ties, a, b, two)
        if need_range and r:
            _accumulate(wk, hero, n_columns, beats_r, ties_r, card_beats_r, card_ties_r, a, b, two)
    numerator = 0.0
    denominator = 0.0
    n_all = 45 * 44 // 2
    for jj in range(n_columns):
        if hero[jj] == SENTINEL:
            continue
        column = jj if dense else columns[jj]
        t = low[column]  # the runout's two local cards (this column's turn and river)
        u = high[column]
        n_range = base - base_card[t] - base_card[u] + member[t, u]
        n1 = n_range if flags[0] != 0 else n_all
        b1 = beats_r[jj] if flags[0] != 0 else beats[jj]
        t1 = ties_r[jj] if flags[0] != 0 else ties[jj]
        f1_0 = n1 - b1 - t1  # hands below the hero (coefficient of x^0)
        f1_1 = t1  # hands tied (coefficient of x^1)
        if not two:
            numerator += f1_0 + 0.5 * f1_1
            denominator += n1
            continue
        n2 = n_range if flags[1] != 0 else n_all
        b2 = beats_r[jj] if flags[1] != 0 else beats[jj]
        t2 = ties_r[jj] if flags[1] != 0 else ties[jj]
        f2_0 = n2 - b2 - t2
        f2_1 = t2
        c0 = f1_0 * f2_0
        c1 = f1_0 * f2_1 + f1_1 * f2_0
        c2 = f1_1 * f2_1
        den = n1 * n2
        # minus the pairs of hands that share one card: sum over cards of F1_c F2_c
        for c in range(49):
            if c == hero_a or c == hero_b or c == t or c == u:
                continue
            m_range = base_card[c] - member[c, t] - member[c, u]
            if flags[0] != 0:
                m1, q1b, q1t = m_range, card_beats_r[c, jj], card_ties_r[c, jj]
            else:
                m1, q1b, q1t = 44, card_beats[c, jj], card_ties[c, jj]
            if flags[1] != 0:
                m2, q2b, q2t = m_range, card_beats_r[c, jj], card_ties_r[c, jj]
            else:
                m2, q2b, q2t = 44, card_beats[c, jj], card_ties[c, jj]
            g1_0 = m1 - q1b - q1t
            g2_0 = m2 - q2b - q2t
            c0 -= g1_0 * g2_0
            c1 -= g1_0 * q2t + q1t * g2_0
            c2 -= q1t * q2t
            den -= m1 * m2
        # plus the same hand taken by both (it shares both cards, subtracted twice above): sum over hands of f1 f2
        if need_range:
            c0 += n_range - beats_r[jj] - ties_r[jj]
            c2 += ties_r[jj]
            den += n_range
        else:
            c0 += n_all - beats[jj] - ties[jj]
            c2 += ties[jj]
            den += n_all
        numerator += c0 + c1 / 2.0 + c2 / 3.0
        denominator += den
    return numerator / denominator if denominator > 0 else 0.0


@jit
def _accumulate(wk, hero, n_columns, beats, ties, card_beats, card_ties, a, b, per_card):
    """Add one opponent hand (local cards a, b) where it beats or ties the hero, per runout (no branches)."""
    if per_card:
        ba = card_beats[a]
        bb = card_beats[b]
        ta = card_ties[a]
        tb = card_ties[b]
        for jj in range(n_columns):
            v = wk[jj]
            ok = v != SENTINEL
            gt = np.int32(ok & (v > hero[jj]))
            eq = np.int32(ok & (v == hero[jj]))
            beats[jj] += gt
            ties[jj] += eq
            ba[jj] += gt
            bb[jj] += gt
            ta[jj] += eq
            tb[jj] += eq
    else:
        for jj in range(n_columns):
            v = wk[jj]
            ok = v != SENTINEL
            beats[jj] += np.int32(ok & (v > hero[jj]))
            ties[jj] += np.int32(ok & (v == hero[jj]))


@jit
def _exact_sampled(table, frame_arrays, index, perm, hole0, hole1, board, n_board, opponents, samples, flags,
                   preflop, classes, threshold):
    """Sampled equity against ``opponents`` (more than the exact count takes), drop-out ranges by rejection."""
    deck, n_deck, hero_row, turn, river = _sampling_start(frame_arrays, index, perm, hole0, hole1, board, n_board)
    pair_index = frame_arrays[4]
    score = 0.0
    for _ in range(samples):
        t, r, pos = _draw_runout(frame_arrays, index, perm, deck, n_deck, turn, river)
        column = pair_index[t, r]
        hero = table[hero_row, column]
        best_other = -1
        tied = 0
        for o in range(opponents):
            for _attempt in range(1000):  # a hand of the opponent's range, by rejection
                i = pos + np.random.randint(n_deck - pos)
                deck[pos], deck[i] = deck[i], deck[pos]
                i = pos + 1 + np.random.randint(n_deck - pos - 1)
                deck[pos + 1], deck[i] = deck[i], deck[pos + 1]
                if flags[o] == 0 or preflop[classes[deck[pos], deck[pos + 1]], 0] >= threshold:
                    break
            a = deck[pos]
            b = deck[pos + 1]
            pos += 2
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
def strength_kernel(kind, hole0, hole1, board, n_board, players, samples, model, threshold, redraws, flags, arrays,
              columns):
    """Strength of hole cards on a board of 0, 3, 4 or 5 cards with ``players`` in the hand (hero included).

    ``arrays`` is :func:`kernel_arrays`'s tuple; ``columns`` scratch of 1,176.
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
        return _monte_carlo(table, frame_arrays, index, perm, hole0, hole1, board, n_board, players - 1, samples,
                            model, threshold, redraws, flags, preflop, classes)
    pair_index = frame_arrays[4]
    if kind == EXACT and players - 1 > EXACT_OPPONENTS:
        return _exact_sampled(table, frame_arrays, index, perm, hole0, hole1, board, n_board, players - 1,
                              max(samples, EXACT_SAMPLES), flags, preflop, classes, threshold)
    hero_a = _local_card(frame_arrays, index, perm, hole0)
    hero_b = _local_card(frame_arrays, index, perm, hole1)
    row = pair_index[hero_a, hero_b]
    n_columns = _columns(frame_arrays, index, perm, board, n_board, columns)
    if kind == EXACT:
        valid = np.empty(low.shape[0], dtype=np.bool_)
        in_range = np.empty(low.shape[0], dtype=np.bool_)
        dropout = model == DROPOUT
        _exact_rows(frame_arrays, index, hero_a, hero_b, classes, preflop, threshold, dropout, low, high, valid,
                    in_range)
        if not dropout:
            for o in range(players - 1):
                flags[o] = 0
        return _exact_post(table, row, columns, n_columns, players - 1, flags, valid, in_range, low, high, hero_a,
                           hero_b)
    if kind == HEADSUP:
        return _headsup_post(table, row, columns, n_columns, pair_index, low, high)
    return _naive_post(table, row, columns, n_columns, min(players - 1, 9), powers)


@jit
def _seed(seed):
    """Seed numba's random generator (the one the kernels draw from) in this thread."""
    np.random.seed(seed)


def seed_kernels(seed: int) -> None:
    """Seed the random numbers the compiled bots and the Monte Carlo strength draw (per thread).

    >>> seed_kernels(5)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise StrengthError(f"The seed {seed!r} is not a whole number 0..2**32-1.")
    _seed(np.int64(seed))


def kernel_arrays(frame_arrays: Any, preflop: Any, tables: Any) -> tuple:
    """(frame, preflop, classes, powers, tables, slots, pair low cards, pair high cards) for the kernels."""
    return (frame_arrays, preflop, class_of(), _powers(), tables.array_view, tables.slot_view, _PAIR_LOW, _PAIR_HIGH)


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.int64)
    array.flags.writeable = False
    return array


_PAIR_LOW = _readonly(PAIR_LOW)
_PAIR_HIGH = _readonly(PAIR_HIGH)
_ROWS_OF_CARD = _readonly(ROWS_OF_CARD)


# -- where tables come from ------------------------------------------------------------------


class TableSet:
    """Decoded match tables as one array ``array[slot]`` and ``slot_of[index]`` (-1 when absent).

    The base class holds every table (a decoded file); :class:`LazyTables`
    loads them on demand.
    """

    def __init__(self, array: np.ndarray, slot_of: np.ndarray, description: str) -> None:
        self.array = array
        self.slot_of = slot_of
        self.description = description
        # what kernels get: read-only views (one compiled variant whatever the owner), updated in place
        self.array_view = array.view()
        self.array_view.flags.writeable = False
        self.slot_view = slot_of.view()
        self.slot_view.flags.writeable = False

    def ensure(self, index: int) -> None:
        """Make sure table ``index`` is loaded (nothing to do when every table is)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description})"


class LazyTables(TableSet):
    """Tables decoded from ``db`` on first use into ``capacity`` in-memory slots (least recently used out).

    Memory: ``capacity`` x 2.8 MB. Each first use costs one table decode
    (about 3 ms here).

    >>> LazyTables(None, capacity=0)
    Traceback (most recent call last):
    ...
    matchdb.play.strength.StrengthError: The table capacity 0 is not a whole number of at least 1.
    """

    def __init__(self, db: MatchDB, capacity: int = 16) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise StrengthError(f"The table capacity {capacity!r} is not a whole number of at least 1.")
        super().__init__(np.zeros((capacity,) + _TABLE_SHAPE, dtype=np.uint16), np.full(N_FLOPS, -1, dtype=np.int64),
                         f"{db!r}, {capacity} slots")
        self._db = db
        self._order: OrderedDict[int, int] = OrderedDict()  # table index -> slot, oldest first
        self._lock = threading.Lock()
        self.decoded = 0

    def ensure(self, index: int) -> None:
        with self._lock:
            if index in self._order:
                self._order.move_to_end(index)
                return
            if len(self._order) < len(self.array):
                slot = len(self._order)
            else:
                old, slot = self._order.popitem(last=False)
                self.slot_of[old] = -1
            self.array[slot] = self._db.table(index)
            self.slot_of[index] = slot
            self._order[index] = slot
            self.decoded += 1


_DECODED_NAME = "tables.npy"
_DECODED_META = "tables.json"


def decode_tables(db: MatchDB, folder: str | os.PathLike, quiet: bool = True) -> Path:
    """Decode every table of ``db`` once into ``folder/tables.npy`` (4.85 GB) for :func:`open_decoded`.

    Written under a temporary name and renamed when complete, with a small
    JSON file naming the database it came from. Returns the folder.
    """
    from tqdm import tqdm

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / _DECODED_NAME
    partial = folder / (_DECODED_NAME + ".partial")
    out = np.lib.format.open_memmap(partial, mode="w+", dtype=np.uint16, shape=(N_FLOPS,) + _TABLE_SHAPE)
    try:
        for index in tqdm(range(N_FLOPS), desc="decoding", unit="table", disable=True if quiet else None):
            out[index] = db.table(index)
        out.flush()
    finally:
        del out
    os.replace(partial, target)
    (folder / _DECODED_META).write_text(json.dumps({"database": str(getattr(db, "path", "")), "tables": N_FLOPS}, indent=1))
    return folder


def open_decoded(folder: str | os.PathLike) -> TableSet:
    """Map the tables :func:`decode_tables` wrote, read-only (no start-up cost; pages load on first touch).

    >>> open_decoded("/nonexistent")
    Traceback (most recent call last):
    ...
    matchdb.play.strength.StrengthError: No decoded tables at '/nonexistent/tables.npy'; expected a folder written by decode_tables.
    """
    path = Path(folder) / _DECODED_NAME
    if not path.is_file():
        raise StrengthError(f"No decoded tables at '{path}'; expected a folder written by decode_tables.")
    array = np.load(path, mmap_mode="r")
    if array.shape != (N_FLOPS,) + _TABLE_SHAPE or array.dtype != np.uint16:
        raise StrengthError(f"The decoded tables at '{path}' have shape {array.shape} {array.dtype}; expected {(N_FLOPS,) + _TABLE_SHAPE} uint16.")
    slot_of = np.arange(N_FLOPS, dtype=np.int64)
    slot_of.flags.writeable = False
    return TableSet(np.asarray(array), slot_of, f"'{folder}'")


# -- the Python face ----------------------------------------------------------------------


class StrengthSource:
    """Strengths of any hand on any board from one database: preflop table plus decoded W tables.

    Parameters
    ----------
    db : an open :class:`matchdb.MatchDB` (its preflop table is read once).
    tables : where W tables come from: a :class:`TableSet` (``open_decoded``)
        or None for :class:`LazyTables` of ``capacity`` slots.
    """

    def __init__(self, db: MatchDB, tables: TableSet | None = None, capacity: int = 16) -> None:
        self.db = db
        self.tables = tables if tables is not None else LazyTables(db, capacity)
        self.preflop = preflop_array(db)
        self.frame = frame()
        self.classes = class_of()
        self.powers = _powers()
        self._columns = np.empty(N_PAIRS, dtype=np.int64)
        self._lock = threading.Lock()

    def arrays(self) -> tuple:
        """Everything the strength kernel reads, as one tuple (see :func:`kernel_arrays`)."""
        return kernel_arrays(self.frame, self.preflop, self.tables)

    def __repr__(self) -> str:
        return f"StrengthSource({self.db!r}, {self.tables!r})"

    def table_index(self, board: CardsLike) -> int:
        """Canonical index of a board's flop (its first three cards)."""
        ids = parse_cards(board)
        if len(ids) < 3:
            raise BoardError(f"The board {format_cards(ids)!r} has no flop.")
        return int(self.frame[0][ids[0], ids[1], ids[2]])

    def strength(self, kind: int | str, hole: CardsLike, board: CardsLike = (), players: int = 2, samples: int = 100,
                 model: int | str = UNIFORM, threshold: float = 0.0, redraws: int = 0, flags: Any = None) -> float:
        """Strength of ``hole`` on ``board`` (0, 3, 4 or 5 cards) with ``players`` in the hand, hero included.

        ``kind`` is ``"naive"``, ``"headsup"`` or ``"montecarlo"`` (or its
        number); the Monte Carlo options are the sample count, the opponent
        model (``"uniform"``, ``"dropout"``, ``"steered"``), its preflop-equity
        threshold, the redraws of the steered model and one flag per opponent
        saying whether the model applies to it (default: to all).
        """
        kind = _pick(kind, KINDS, "strength kind")
        model = _pick(model, MODELS, "opponent model")
        hole_ids = parse_cards(hole, count=2)
        board_ids = parse_cards(board)
        if len(board_ids) not in (0, 3, 4, 5):
            raise BoardError(f"The board {format_cards(board_ids)!r} has {len(board_ids)} cards; expected 0, 3, 4 or 5.")
        if set(hole_ids) & set(board_ids):
            raise CardError(f"The hole cards {format_cards(hole_ids)!r} share a card with the board {format_cards(board_ids)!r}.")
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 1 <= players <= 10:
            raise StrengthError(f"The number of players {players!r} is out of range; expected 1..10.")
        if kind == MONTECARLO and (isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or not 1 <= samples <= 10**7):
            raise StrengthError(f"The sample count {samples!r} is not a whole number 1..10,000,000.")
        if flags is None:
            flags_array = np.ones(10, dtype=np.int64)
        else:
            flags_array = np.zeros(10, dtype=np.int64)
            given = [int(bool(f)) for f in flags]
            if len(given) != players - 1:
                raise StrengthError(f"The opponent flags {flags!r} are {len(given)}; expected one per opponent ({players - 1}).")
            flags_array[: len(given)] = given
        board_array = np.zeros(5, dtype=np.int64)
        board_array[: len(board_ids)] = board_ids
        if board_ids:
            self.tables.ensure(int(self.frame[0][board_ids[0], board_ids[1], board_ids[2]]))
        return self._compute(kind, hole_ids[0], hole_ids[1], board_array, len(board_ids), int(players), int(samples),
                             model, float(threshold), int(redraws), flags_array)

    def _compute(self, kind, hole0, hole1, board_array, n_board, players, samples, model, threshold, redraws, flags) -> float:
        """The kernel call, without checks (the board's table must be loaded)."""
        with self._lock:  # the columns buffer is shared
            return float(strength_kernel(kind, hole0, hole1, board_array, n_board, players, samples, model, threshold,
                                   redraws, flags, self.arrays(), self._columns))

    def naive(self, hole: CardsLike, board: CardsLike = (), players: int = 2) -> float:
        """The naive win rate (preflop: the preflop table's)."""
        return self.strength(NAIVE, hole, board, players)

    def headsup(self, hole: CardsLike, board: CardsLike = ()) -> float:
        """Exact heads-up equity against a random hand (preflop: the preflop table's)."""
        return self.strength(HEADSUP, hole, board, 2)

    def montecarlo(self, hole: CardsLike, board: CardsLike = (), players: int = 2, samples: int = 100, model: int | str = "uniform",
                   threshold: float = 0.0, redraws: int = 0, flags: Any = None) -> float:
        """Tomlinson's sampled win probability (preflop: the preflop table's naive win rate)."""
        return self.strength(MONTECARLO, hole, board, players, samples, model, threshold, redraws, flags)


def _pick(value, names: dict, what: str) -> int:
    if isinstance(value, str):
        if value not in names:
            raise StrengthError(f"The {what} {value!r} is unknown; expected one of {', '.join(names)}.")
        return names[value]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in names.values():
        raise StrengthError(f"The {what} {value!r} is unknown; expected one of {', '.join(names)}.")
    return int(value)
