"""The compiled interface: the numba kernels that count equity, their arguments as a few named structures.

Every equity in matchdb is computed by the kernels listed here (the public
functions of :mod:`matchdb.equity` and :mod:`matchdb.play` check their input
and call them). Compiled code elsewhere (the arena's loop in
:mod:`matchdb.play.games`) calls them directly; Python may too, on arrays it
built as described below.

**The contract.** A kernel checks nothing: its caller owns arrays of the
stated dtype, shape and order, indices in range and cards disjoint, as the
checked functions of :mod:`matchdb.equity.multiway` build them. A kernel
writes only into the output arrays it is given (``result``, ``out``,
``sums``, ``taken``), never into its inputs, so read-only arrays (as the
database hands out) are welcome. Kernels are compiled on first use and cached
on disk (:mod:`matchdb.jit`), release the GIL, and draw random numbers only
from the streams they are given (``seed``), so a seeded answer is the same
on any number of threads. Wrong arrays give wrong numbers or a crash, not an
error message: that is what the checked functions are for.

**One table layout.** Every kernel reads W levels *columns first*:
``cols[c, r]`` is the W level of row ``r`` (a pair of local cards, 1,176 of
them) on the board's column ``c`` (a runout: :func:`matchdb.core.pairs.board_columns`),
a uint16 array, ``SENTINEL`` where the row or runout collides. A decoded table
``table[r, j]`` gives it as ``np.ascontiguousarray(table[:, columns].T)``
(C-contiguous: what the checked functions build, and what every kernel scans
column by column), or as the transpose ``table.T`` with no copy (laid out rows
first in memory, as the bots' strength hands it: :func:`exact_hero` then counts
one or two opponents by one sweep over the rows, the same numbers to the last
bit). Cards are local indices 0..48 of the table's flop; a set of cards is a
uint64 bit mask.

**The structures** are named tuples of arrays and numbers, which numba passes
into compiled code and caches without a cost (measured: ``scripts/bench_multiway.py``
before and after, the same medians within the machine's noise):

- :class:`Cards`: the rows as cards (constant: :data:`CARDS`);
- :class:`Question`: one hero row on one board, the known opponents' rows and
  the cards left to the others, its arrays read-only (:func:`read_only`: numba
  compiles a kernel once per combination of writable and read-only arrays);
- :class:`Opponents`: the unknown opponents, the last (up to three) counted
  exactly and the others drawn or enumerated;
- :class:`Frame`: lookups from real cards into a canonical table's rows and
  columns (:func:`frame`);
- :class:`StrengthArrays`: everything the bots' strength reads (the frame,
  the preflop table, the decoded tables and their slots).

The bots' strength (:func:`strength`: naive, heads-up, Monte Carlo and exact
kinds, on the decoded tables ``tables[slot][row, column]`` as the arena maps
them) is called once per decision from the arena's compiled loop; its heads-up
and exact kinds are :func:`exact_hero` on the table's transpose (one or two
opponents; more are sampled), or :func:`heads_up_hero` against one random hand.

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.pairs import board_columns, pair_row
>>> from matchdb.core.table import match_table
>>> flop = parse_cards("2c7dJh")
>>> cols = np.ascontiguousarray(match_table(flop).T)  # a flop: every column
>>> hero = pair_row(flop, parse_cards("AhKh"))
>>> question = Question.of(cols, board_masks(board_columns(())), hero)
>>> result = np.zeros(4)
>>> exact_hero(question, Opponents.counted(2), CARDS, result)
>>> float(round(result[2] / result[3], 12))  # AhKh against two random hands: the equity
0.375861338429
"""

from __future__ import annotations

import functools
from itertools import combinations, permutations
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, N_FLOPS, canonical_index
from matchdb.core.hole_cards import hand_class
from matchdb.core.pairs import (
    MAX_W,
    N_LEVELS,
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    ROWS_OF_CARD,
    local_index,
)
from matchdb.equity._kernels.bits import BITS
from matchdb.equity._kernels.heads_up import ROW_MASKS
from matchdb.equity._kernels.multiway import enumerate_hero, exact_hero, heads_up_hero, known_all, sample_columns
from matchdb.equity._kernels.strength import (
    DROPOUT,
    EXACT,
    EXACT_OPPONENTS,
    EXACT_SAMPLES,
    HEADSUP,
    MONTECARLO,
    NAIVE,
    STEERED,
    UNIFORM,
    seed_random,
    strength,
)
from matchdb.equity._kernels.structures import Cards, Opponents, Question
from matchdb.equity.checks import read_only

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "Cards",
    "CARDS",
    "Question",
    "read_only",
    "Opponents",
    "board_masks",
    "exact_hero",
    "heads_up_hero",
    "enumerate_hero",
    "sample_columns",
    "known_all",
    "Frame",
    "frame",
    "class_of",
    "powers",
    "StrengthArrays",
    "strength",
    "seed_random",
    "NAIVE",
    "HEADSUP",
    "MONTECARLO",
    "EXACT",
    "EXACT_OPPONENTS",
    "EXACT_SAMPLES",
    "UNIFORM",
    "DROPOUT",
    "STEERED",
]


def _readonly(array: np.ndarray, dtype: type) -> np.ndarray:
    out: np.ndarray = np.array(array, dtype=dtype)
    out.flags.writeable = False
    return out


#: The rows of every table's frame as cards (read-only).
CARDS = Cards(
    _readonly(PAIR_LOW, np.int64),
    _readonly(PAIR_HIGH, np.int64),
    _readonly(PAIR_INDEX, np.int64),
    _readonly(ROW_MASKS, np.uint64),
    _readonly(BITS, np.uint64),
)



def board_masks(columns: np.ndarray) -> np.ndarray:
    """Each board column's two cards (its runout's turn and river) as a uint64 mask: :attr:`Question.col_masks`."""
    masks: NDArray[np.uint64] = ROW_MASKS[np.asarray(columns, dtype=np.int64)]
    return masks


# -- the bots' strength ------------------------------------------------------------------------


class Frame(NamedTuple):
    """Lookups that carry real cards into a canonical table's rows and columns (the one instance: :func:`frame`).

    Attributes
    ----------
    flop_table : int16 (52, 52, 52): the canonical index of every ordered flop.
    flop_perm : int8 (52, 52, 52): the renaming (0..23) that carries it there.
    card_map : int64 (24, 52): the 24 renamings of the cards.
    local : int8 (1755, 52): each canonical flop's local card indices (-1 on the flop).
    pair_index : int64 (49, 49): the row of two local cards.
    turn_columns : int64 (49, 48): the columns (runouts) holding each local card.
    """

    flop_table: np.ndarray
    flop_perm: np.ndarray
    card_map: np.ndarray
    local: np.ndarray
    pair_index: np.ndarray
    turn_columns: np.ndarray


@functools.cache
def frame() -> Frame:
    """The :class:`Frame` (read-only; built once, in about 0.1 s)."""
    flop_table = np.full((52, 52, 52), -1, dtype=np.int16)
    flop_perm = np.full((52, 52, 52), -1, dtype=np.int8)
    for flop in combinations(range(52), 3):
        index, perm = canonical_index(flop)
        for a, b, c in permutations(flop):
            flop_table[a, b, c] = index
            flop_perm[a, b, c] = perm
    local = np.stack([local_index(CANONICAL_FLOPS[i]) for i in range(N_FLOPS)]).astype(np.int8)
    arrays = Frame(
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
def powers() -> np.ndarray:
    """``powers()[e, w] = (w / MAX_W) ** e`` for exponents 0..9 (the naive win rate's terms), read-only."""
    table = (np.arange(N_LEVELS) / MAX_W) ** np.arange(10)[:, None]
    table.flags.writeable = False
    return table


@functools.cache
def class_of() -> np.ndarray:
    """``class_of()[a, b]``: the starting-hand class (index into CLASSES) of card ids a and b, read-only."""
    table = np.full((52, 52), -1, dtype=np.int64)
    for a in range(52):
        for b in range(52):
            if a != b:
                table[a, b] = hand_class(a, b)
    table.flags.writeable = False
    return table


class StrengthArrays(NamedTuple):
    """Everything :func:`strength` reads (``matchdb.play.strength.StrengthSource.arrays()`` makes one).

    Attributes
    ----------
    frame : the :class:`Frame`.
    preflop : float64 (169, 11): per starting-hand class, column 0 the heads-up equity, column n the
        naive win rate for n players (``matchdb.play.strength.preflop_array``).
    classes : :func:`class_of`.
    powers : :func:`powers`.
    tables : uint16 (slots, 1176, 1176): decoded W tables, ``tables[slot][row, column]``.
    slot_of : int64 (1755,): the slot of each canonical flop's table, -1 when not loaded.
    low, high : int64 (1176,): each row's local cards (:attr:`Cards.low`, :attr:`Cards.high`).
    """

    frame: Frame
    preflop: np.ndarray
    classes: np.ndarray
    powers: np.ndarray
    tables: np.ndarray
    slot_of: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, preflop: np.ndarray, tables: np.ndarray, slot_of: np.ndarray) -> StrengthArrays:
        """The arrays for this preflop table and these tables, the constants filled in."""
        return cls(frame(), preflop, class_of(), powers(), tables, slot_of, CARDS.low, CARDS.high)
