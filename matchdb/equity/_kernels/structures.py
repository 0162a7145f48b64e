"""The named structures the equity kernels take (public through :mod:`matchdb.equity.kernels`, which documents them).

They live here, beside the kernels, so that compiled code (the bots' strength) can build them too.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from matchdb.core.pairs import N_LOCAL, N_PAIRS
from matchdb.equity._kernels.heads_up import ROW_MASKS
from matchdb.equity.checks import read_only

__all__ = ["Cards", "Question", "Opponents", "ALL_CARDS", "NO_ROWS"]

#: Every local card of a frame as a mask.
ALL_CARDS = (1 << N_LOCAL) - 1
#: No known hands (read-only).
NO_ROWS = np.zeros(0, dtype=np.int64)
NO_ROWS.flags.writeable = False


class Cards(NamedTuple):
    """The 1,176 rows of a table's frame as cards (the one instance is :data:`CARDS`).

    Attributes
    ----------
    low, high : int64 (1176,): each row's lower and higher local card.
    row_of : int64 (49, 49): the row of two local cards (either order).
    masks : uint64 (1176,): each row's two cards as bits.
    bits : uint64 (49,): ``1 << card``.
    """

    low: np.ndarray
    high: np.ndarray
    row_of: np.ndarray
    masks: np.ndarray
    bits: np.ndarray




class Question(NamedTuple):
    """One hero row's question on one board, columns first.

    Attributes
    ----------
    cols : uint16 (columns, 1176), C-contiguous: ``cols[c, r]``, the W level of row ``r`` on column ``c``.
        :meth:`of` makes every array read-only (:func:`read_only`): the kernels then compile once.
    col_masks : uint64 (columns,): each column's two cards (:func:`board_masks`).
    hero : the hero's row.
    known_rows : int64 (m,): the known opponents' rows (card-disjoint, from the hero too).
    free : uint64: the cards the unknown opponents may hold: all 49 less the hero's and the
        known hands' (a column's own two are taken out per column).
    n_free : how many cards ``free`` holds.
    """

    cols: np.ndarray
    col_masks: np.ndarray
    hero: int
    known_rows: np.ndarray
    free: np.uint64
    n_free: int

    @classmethod
    def of(cls, cols: np.ndarray, col_masks: np.ndarray, hero: int, known_rows: np.ndarray | None = None) -> Question:
        """The question of ``hero`` beside the known hands ``known_rows`` (none by default): ``free`` made here."""
        known = NO_ROWS if known_rows is None else np.asarray(known_rows, dtype=np.int64)
        taken = int(ROW_MASKS[hero])
        for row in known:
            taken |= int(ROW_MASKS[row])
        return cls(read_only(cols), read_only(col_masks), int(hero), read_only(known), np.uint64(ALL_CARDS & ~taken),
                   N_LOCAL - 2 - 2 * len(known))


class Opponents(NamedTuple):
    """The unknown opponents (not known hands): some drawn or enumerated, the last ones counted exactly.

    Attributes
    ----------
    drawn : float64 (d, 1176): the weights of the opponents drawn (sampled) or enumerated, one row each.
    drawn_random : bool (d,): which of them are random hands (all weights equal).
    k_exact : the opponents counted exactly (at most 3).
    exact_random : whether those are all random hands (then ``exact`` is not read).
    exact : float64 (3, 1176): their weights, the sparsest first, in rows ``0..k_exact - 1``.
    all_random : whether every unknown opponent is a random hand.
    """

    drawn: np.ndarray
    drawn_random: np.ndarray
    k_exact: int
    exact_random: bool
    exact: np.ndarray
    all_random: bool

    @classmethod
    def counted(cls, k: int, weights: np.ndarray | None = None) -> Opponents:
        """``k`` (<= 3) opponents all counted exactly: random hands, or the rows of ``weights`` (sparsest first)."""
        exact = np.zeros((3, N_PAIRS))
        if weights is not None:
            exact[: len(weights)] = weights
        random = weights is None
        return cls(np.zeros((0, N_PAIRS)), np.zeros(0, dtype=np.bool_), int(k), random, exact, random)
