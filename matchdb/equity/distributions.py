"""Hand-strength distributions, EHS, EHS^2 and Billings' hand potential from one match table.

A match table holds every runout of every hand on its flop, so the whole
distribution of a hand's strength is a pass over it. Everything here works in
one table's frame (:mod:`matchdb.core.pairs`): ``table`` is a decoded
(1176, 1176) uint16 W matrix, ``flop`` the flop's three card ids (the
canonical flop when the table comes from the store), ``columns`` the board's
columns (:func:`matchdb.core.pairs.board_columns`: all 1,176 on the flop, the 48
holding the turn card on the turn, one on the river), ``row`` the hero's row
and ``weights`` the opponent's weight on each of the 1,176 rows (``None``: a
uniformly random hand). The query layer maps real cards into that frame:
:meth:`matchdb.MatchDB.distribution` and :meth:`matchdb.MatchDB.distributions`.

Definitions (every deal counts, card removal exact: the opponent's hand never
shares a card with the hero, the board or the runout):

- A *runout* is a column consistent with the board and the hero: 1,081 on a
  flop (every turn and river), 46 on a turn (every river), 1 on a river. Its
  *river equity* is the hero's exact equity against the opponent on that full
  board, wins plus half the ties, over the opponent hands left. Its
  *probability* is the chance that it is dealt with the opponent's hand drawn
  from the range: the weight of the opponent hands left on it, normalised.
  Against a random hand every runout has 990 opponent hands and the same
  probability; against a range, a runout that leaves no hand of the range
  has probability 0 and is left out.
- The *turn equity* of a turn card (flop only) is the exact equity over every
  river and opponent hand after that turn.
- ``ehs`` is the probability-weighted mean river equity: the exact equity on
  the board. ``ehs2`` is the mean of its square (Johanson et al. 2013).
- A histogram of ``bins`` equal bins over [0, 1] puts equity e in bin
  floor(e x bins), 1 in the last; the bin is computed exactly from the
  integer counts (for integer weights), so equities on a bin edge never fall
  the wrong way. ``river_counts`` counts runouts per bin (they sum to the
  number of runouts), ``river_histogram`` holds their probabilities (sum 1).
- ``hs`` is the current hand strength (Billings 2006): the hero's best hand
  made of its hole cards and the board as dealt (5 cards on a flop) against
  every opponent hand on that board, ahead plus half of tied. It needs
  evaluations the table does not hold; the numba evaluator makes them.
- Potential (Billings' thesis, section 5.3): over every opponent hand and
  every runout, ``HP[now][river]`` adds the opponent's weight, ``now`` and
  ``river`` being ahead (0), tied (1) or behind (2) on the board as dealt and
  on the final board. With ``HPTotal[now]`` the row sums,

      PPot = (HP[behind][ahead] + HP[behind][tied]/2 + HP[tied][ahead]/2)
             / (HPTotal[behind] + HPTotal[tied]/2)
      NPot = (HP[ahead][behind] + HP[tied][behind]/2 + HP[ahead][tied]/2)
             / (HPTotal[ahead] + HPTotal[tied]/2)

  (0 where the denominator is 0). HPTotal counts (opponent, runout) cases
  like HP, so both are probabilities; the pseudo-code of Billings et al.
  (2002) adds 1 to HPTotal once per opponent, which makes the ratio a count
  of runouts. On a river no card is to come: PPot = NPot = 0.

How it is counted. One hand (:func:`hand_distribution`, about 0.6 ms on a
flop): against a random hand, W already holds twice the wins plus the ties
against every valid row of a column, so only the 94 rows sharing a hero card
are compared again (16-bit counters, 16 columns per vector instruction); a
range takes one pass over its rows. Billings' counts take one pass over the
opponent rows, each compared on every column at once. Every hand
(:func:`board_distributions`): each column's rows are counting-sorted by W
level and walked from the weakest with running weights in all and per card,
which gives every row's score against the opponents left on that board with
card removal exact; a Fenwick tree over the current-strength ranks, filled
in the same walk, gives the 2-D counts (ahead now and below on the river)
the potential needs; the rows sharing a card, which those counts still hold,
are taken away afterwards from one 16-bit comparison per pair of such rows.
A second pass over the rows turns the scores into the histograms, EHS,
EHS^2 and the turn equities.

>>> from matchdb.core.cards import parse_cards
>>> from matchdb.core.table import match_table
>>> from matchdb.core.pairs import board_columns, pair_row
>>> flop = parse_cards("Kc7d2h")
>>> table = match_table(flop)
>>> d = hand_distribution(table, flop, pair_row(flop, parse_cards("KsQs")), board_columns(()))
>>> d.now.tolist(), round(d.hs, 3)
([1033.0, 6.0, 42.0], 0.958)
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchdb.equity._kernels.heads_up import _row_counts
from matchdb.jit import jit
from matchdb.answers import Answer, format_grid, plain, plural, require_pandas
from matchdb.core.canonical import unrename_array
from matchdb.core.cards import RANKS, format_card, format_cards, parse_cards
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.core.pairs import (
    COLLISION,
    N_LEVELS,
    N_LOCAL,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_LOW,
    PAIRS,
    ROWS_OF_CARD,
    SENTINEL,
    board_columns,
    remaining_cards,
)

__all__ = [
    "DEFAULT_BINS",
    "HandDistribution",
    "BoardDistributions",
    "hand_distribution",
    "board_distributions",
    "histogram_bins",
    "check_bins",
]

#: Bins of a histogram unless told otherwise (the literature's 50).
DEFAULT_BINS = 50
#: Opponent hands on a full board beside a hero hand: C(45, 2). Every valid
#: entry of a row stands for as many deals against a random hand.
_OPPONENTS = 990
#: Runouts beside a hero and an opponent holding four distinct cards, by board size.
_RUNOUTS_PER_OPPONENT = {3: 990, 4: 44, 5: 1}
#: Runouts beside two hands that share one card (three distinct cards), by board size.
_SHARED_RUNOUTS = {3: 1035, 4: 45, 5: 1}


# -- checks ----------------------------------------------------------------------


def _check_table(table) -> np.ndarray:
    if not isinstance(table, np.ndarray) or table.shape != (N_PAIRS, N_PAIRS) or table.dtype != np.uint16:
        shape = getattr(table, "shape", None)
        dtype = getattr(table, "dtype", type(table).__name__)
        raise MatchdbError(f"A match table must be a ({N_PAIRS}, {N_PAIRS}) uint16 array; got {shape} {dtype}.")
    return table


def _check_flop(flop) -> tuple[int, int, int]:
    cards = parse_cards(flop, count=3)
    return tuple(int(c) for c in cards)


def check_bins(bins) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 10_000:
        raise MatchdbError(f"The number of bins {bins!r} is out of range; expected an integer 1..10000.")
    return int(bins)


def _check_weights(weights) -> tuple[np.ndarray, bool]:
    """(weights as float64, uniform): ``None`` and equal weights are a random opponent, weight 1 each."""
    if weights is None:
        return _ONES, True
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (N_PAIRS,):
        raise RangeError(f"Opponent weights must be a vector of {N_PAIRS} entries, one per row; got shape {weights.shape}.")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RangeError("Opponent weights must be finite and non-negative; got a negative or non-finite entry.")
    if weights.min() == weights.max():
        if weights[0] == 0:
            raise RangeError("Opponent weights are all zero; expected at least one hand with a positive weight.")
        return _ONES, True
    return np.ascontiguousarray(weights), False


_ONES = np.ones(N_PAIRS)
_ONES.flags.writeable = False


def _debruijn_table() -> np.ndarray:
    """Position of the one set bit of a 64-bit word, looked up by the word times a de Bruijn constant."""
    table = np.zeros(64, dtype=np.int64)
    for i in range(64):
        table[((1 << i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = i
    return table


_DEBRUIJN = _debruijn_table()


def _board_extra(columns) -> tuple[int, ...]:
    """The turn and river (local indices) whose board ``columns`` are; raises unless they are a board's columns."""
    columns = np.asarray(columns)
    if columns.ndim != 1 or columns.dtype.kind not in "iu":
        raise BoardError(f"Board columns must be a 1-D integer array from board_columns(); got {columns.dtype} of shape {columns.shape}.")
    n = len(columns)
    extra: tuple[int, ...] | None = None
    if n == N_PAIRS:
        extra = ()
    elif n == N_LOCAL - 1 and columns.min() >= 0 and columns.max() < N_PAIRS:
        counts = np.bincount(PAIRS[columns].ravel(), minlength=N_LOCAL)
        turn = int(counts.argmax())
        if counts[turn] == n:
            extra = (turn,)
    elif n == 1 and 0 <= columns[0] < N_PAIRS:
        extra = tuple(int(c) for c in PAIRS[columns[0]])
    if extra is None or not np.array_equal(board_columns(extra), columns):
        raise BoardError(
            f"The {n} columns are not a board's columns; expected board_columns() of a flop (1176), a turn (48) or a river (1)."
        )
    return extra


# -- current hand strength: the evaluator on the board as dealt ----------------------


@jit
def _row_values(low_cards, high_cards, board, straight_top, flush_value):
    """Value of each row's two cards with the board (3 to 5 card ids); -1 where a card repeats the board."""
    n = low_cards.shape[0]
    out = np.empty(n, dtype=np.int64)
    cards = np.empty(board.shape[0] + 2, dtype=np.int64)
    cards[2:] = board
    counts = np.zeros(13, dtype=np.int32)
    for i in range(n):
        a = low_cards[i]
        b = high_cards[i]
        clash = False
        for c in board:
            if c == a or c == b:
                clash = True
        if clash:
            out[i] = -1
            continue
        cards[0] = a
        cards[1] = b
        out[i] = evaluate_with(cards, counts, straight_top, flush_value)
    return out


def _now_ranks(rest: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Dense rank (0 = weakest) of each row's hand on the board as dealt; -1 for rows holding a board card."""
    values = _row_values(rest[PAIR_LOW], rest[PAIR_HIGH], board, STRAIGHT_TOP, FLUSH_VALUE)
    valid = values >= 0
    ranks = np.full(N_PAIRS, -1, dtype=np.int64)
    ranks[valid] = np.unique(values[valid], return_inverse=True)[1]
    return ranks


# -- one hand ----------------------------------------------------------------------


@jit
def _hand_kernel(table, row, weights, uniform, rank, rows_of_card, pair_low, pair_high, collides):
    """Per-column (score, deals) of hand ``row`` and its potential counts, over ``table``'s columns.

    ``score[c]`` is the weighted wins plus half ties against the opponent
    hands left on column c, ``deals[c]`` their weight (0 where the column
    collides with the hero). ``hp[now, river]`` and ``now[state]`` are
    Billings' counts (0 ahead, 1 tied, 2 behind).
    """
    n_rows, n_cols = table.shape
    hero = table[row]
    score = np.zeros(n_cols)
    deals = np.zeros(n_cols)
    hp = np.zeros((3, 3))
    now = np.zeros(3)
    if uniform:
        # W already counts wins twice and ties once against every valid row; take away
        # the rows sharing a hero card (16-bit counters: vectorised, at most 2 x 94).
        shared = np.zeros(n_cols, dtype=np.uint16)
        for side in range(2):
            card = pair_low[row] if side == 0 else pair_high[row]
            for i in range(rows_of_card.shape[1]):
                k = rows_of_card[card, i]
                if k == row:
                    continue
                other = table[k]
                for c in range(n_cols):
                    h = hero[c]
                    v = other[c]
                    valid = h != SENTINEL  # v == SENTINEL makes both comparisons false
                    shared[c] = np.uint16(shared[c] + np.uint16(valid & (h > v)) + np.uint16(valid & (h >= v)))
        for c in range(n_cols):
            if hero[c] != SENTINEL:
                score[c] = (np.int64(hero[c]) - np.int64(shared[c])) / 2
                deals[c] = _OPPONENTS
    rh = rank[row]
    for k in range(n_rows):
        w = weights[k]
        if w == 0.0 or collides[k] or rank[k] < 0:
            continue
        other = table[k]
        n_win, n_tie, n_loss = _row_counts(hero, other)
        state = 0 if rh > rank[k] else (1 if rh == rank[k] else 2)
        now[state] += w
        hp[state, 0] += w * n_win
        hp[state, 1] += w * n_tie
        hp[state, 2] += w * n_loss
        if not uniform:
            for c in range(n_cols):
                h = hero[c]
                v = other[c]
                valid = (h != SENTINEL) & (v != SENTINEL)
                score[c] += w * (np.float64(valid & (h > v)) + 0.5 * np.float64(valid & (h == v)))
                deals[c] += w * np.float64(valid)
    return score, deals, hp, now


@jit
def _exact_bin(score, deals, bins):
    """floor(score / deals x bins) clamped to the last bin, exact when score x 2 and deals are whole numbers."""
    x = 2.0 * score * bins
    y = 2.0 * deals
    b = np.int64(x / y)
    if (b + 1) * y <= x:
        b += 1
    elif b * y > x:
        b -= 1
    return min(max(b, 0), bins - 1)


@jit
def _bins_of(score, deals, bins):
    out = np.empty(score.shape[0], dtype=np.int64)
    for i in range(score.shape[0]):
        out[i] = _exact_bin(score[i], deals[i], bins)
    return out


def histogram_bins(equities: np.ndarray, bins: int = DEFAULT_BINS) -> np.ndarray:
    """The bin of each equity: floor(e x bins), with 1 in the last bin.

    The distributions compute bins from exact counts instead; this is the same
    rule for equities given as numbers.

    >>> histogram_bins(np.array([0.0, 0.019, 0.02, 0.5, 1.0])).tolist()
    [0, 0, 1, 25, 49]
    """
    bins = check_bins(bins)
    equities = np.asarray(equities, dtype=np.float64)
    if not ((equities >= 0) & (equities <= 1)).all():
        raise MatchdbError("Equities must lie in [0, 1]; got a value outside it.")
    return _bins_of(equities, np.ones_like(equities), bins)


def _potential(hp: np.ndarray, now_total: np.ndarray) -> tuple[float, float]:
    """(PPot, NPot) from Billings' HP matrix and its row sums."""
    behind = now_total[2] + now_total[1] / 2
    ahead = now_total[0] + now_total[1] / 2
    ppot = (hp[2, 0] + hp[2, 1] / 2 + hp[1, 0] / 2) / behind if behind > 0 else 0.0
    npot = (hp[0, 2] + hp[1, 2] / 2 + hp[0, 1] / 2) / ahead if ahead > 0 else 0.0
    return float(ppot), float(npot)


@dataclass(frozen=True, eq=False)
class HandDistribution(Answer):
    """How one hand's strength moves on the turn and river: raw values and figures.

    Cards are card ids in the frame the distribution was computed in (the
    canonical flop's for :func:`hand_distribution`, the real cards for
    :func:`distribution`). Arrays are read-only.

    Attributes
    ----------
    board, hole : the board as dealt (3 to 5 card ids) and the hero's two cards.
    bins : number of histogram bins.
    equity : exact equity on the board against the opponent (= ``ehs``).
    ehs, ehs2 : probability-weighted mean of the river equity and of its square.
    hs : current hand strength on the board as dealt, ahead plus half of tied.
    ppot, npot : Billings' positive and negative potential.
    now : (3,) opponent weight ahead of which, tied with which, behind which the hero is now
        (hands: 1,033 / 6 / 42 for KQ on K72).
    potential : (3, 3) Billings' HP[now][river], states ahead, tied, behind.
    runouts : (n, k) the cards each runout adds (k = 2 on a flop, 1 on a turn, 0 on a river).
    river_equities, river_probabilities : (n,) per runout.
    river_counts, river_histogram : (bins,) runouts per bin, and their probability.
    turn_cards, turn_equities, turn_probabilities : (m,) per turn card (flop only; empty otherwise).
    turn_counts, turn_histogram : (bins,) turn cards per bin, and their probability.
    """

    board: tuple[int, ...]
    hole: tuple[int, int]
    bins: int
    equity: float
    ehs: float
    ehs2: float
    hs: float
    ppot: float
    npot: float
    now: np.ndarray
    potential: np.ndarray
    runouts: np.ndarray
    river_equities: np.ndarray
    river_probabilities: np.ndarray
    river_counts: np.ndarray
    river_histogram: np.ndarray
    turn_cards: np.ndarray
    turn_equities: np.ndarray
    turn_probabilities: np.ndarray
    turn_counts: np.ndarray
    turn_histogram: np.ndarray
    villain: str = "random"

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("now", "potential", "runouts", "river_equities", "river_probabilities", "river_counts",
                     "river_histogram", "turn_cards", "turn_equities", "turn_probabilities", "turn_counts",
                     "turn_histogram"):
            getattr(self, name).flags.writeable = False

    def renamed(self, board, hole, perm: int) -> HandDistribution:
        """The same distribution with the real cards of a question the canonical table answered (renamed by ``perm``)."""
        import dataclasses

        return dataclasses.replace(
            self,
            board=tuple(int(c) for c in board),
            hole=tuple(int(c) for c in hole),
            runouts=unrename_array(self.runouts, perm),
            turn_cards=unrename_array(self.turn_cards, perm),
        )

    def to_dict(self) -> dict:
        return self.summary() | {
            "villain": self.villain,
            "river_histogram": self.river_histogram.tolist(),
            "turn_counts": self.turn_counts.tolist(),
            "now": self.now.tolist(),
            "potential": self.potential.tolist(),
        }

    def to_text(self) -> str:
        lines = [
            f"{format_cards(self.hole)} on {format_cards(self.board)} against {self.villain}: "
            f"{plural(len(self.river_equities), 'runout')}, {plural(self.bins, 'bin')}",
            f"  equity (EHS) {self.ehs:.6f}  EHS^2 {self.ehs2:.6f}  now (HS) {self.hs:.6f}  "
            f"PPot {self.ppot:.6f}  NPot {self.npot:.6f}",
            "  river equity histogram, runouts per tenth: "
            + " ".join(str(int(c)) for c in self.river_counts.reshape(10, -1).sum(axis=1))
            if self.bins % 10 == 0
            else "  river equity histogram, runouts per bin: " + " ".join(str(int(c)) for c in self.river_counts),
        ]
        if len(self.turn_cards):
            best = np.argsort(-self.turn_equities)
            lines.append(
                "  after the turn: best "
                + ", ".join(f"{format_card(int(self.turn_cards[i]))} {self.turn_equities[i]:.3f}" for i in best[:3])
                + "; worst "
                + ", ".join(f"{format_card(int(self.turn_cards[i]))} {self.turn_equities[i]:.3f}" for i in best[-3:])
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"HandDistribution({format_cards(self.hole)} on {format_cards(self.board)}: ehs={self.ehs:.4f}, "
            f"ehs2={self.ehs2:.4f}, hs={self.hs:.4f}, ppot={self.ppot:.4f}, npot={self.npot:.4f}, "
            f"{plural(len(self.river_equities), 'runout')})"
        )

    def to_pandas(self) -> Any:
        """The figures (:meth:`summary`) as a one-row DataFrame (the ``notebook`` extra)."""
        return require_pandas().DataFrame([self.summary()])

    def summary(self) -> dict:
        """The figures as a plain dict (JSON-ready)."""
        return {
            "hole": format_cards(self.hole),
            "board": format_cards(self.board),
            "equity": self.equity,
            "ehs": self.ehs,
            "ehs2": self.ehs2,
            "hs": self.hs,
            "ppot": self.ppot,
            "npot": self.npot,
            "runouts": len(self.river_equities),
            "bins": self.bins,
            "river_counts": self.river_counts.tolist(),
            "turn": {format_card(int(c)): float(e) for c, e in zip(self.turn_cards, self.turn_equities)},
        }


def _distribution_parts(score, deals, bins):
    """(valid, equities, probabilities, counts, histogram, bin of each) over entries with deals > 0."""
    valid = deals > 0
    s, d = score[valid], deals[valid]
    which = _bins_of(s, d, bins)
    probabilities = d / d.sum() if len(d) else d
    counts = np.bincount(which, minlength=bins).astype(np.int64)
    histogram = np.bincount(which, weights=probabilities, minlength=bins)
    return valid, s / d, probabilities, counts, histogram


def hand_distribution(
    table: np.ndarray,
    flop: Iterable[int],
    row: int,
    columns: np.ndarray,
    weights: np.ndarray | None = None,
    bins: int = DEFAULT_BINS,
) -> HandDistribution:
    """The distribution and potential of the hand in ``row`` on the board of ``columns``.

    Parameters
    ----------
    table : the flop's decoded W matrix, (1176, 1176) uint16.
    flop : the flop's three card ids (the frame's flop; with a stored table, the canonical flop).
    row : the hero's row (:func:`matchdb.core.pairs.pair_row`).
    columns : :func:`matchdb.core.pairs.board_columns` of the turn and river dealt (none, one or both).
    weights : the opponent's weight on each of the 1,176 rows; ``None`` for a random hand (equal
        weights count as a random hand too, weight 1 each, in ``now`` and ``potential``).
    bins : histogram bins over [0, 1].

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> flop = parse_cards("7h9hQh")
    >>> d = hand_distribution(match_table(flop), flop, pair_row(flop, parse_cards("TcQd")), board_columns(()))
    >>> round(d.ehs, 3), int(d.river_counts.sum()), len(d.turn_cards)
    (0.683, 1081, 47)
    >>> hand_distribution(match_table(flop), flop, 1176, board_columns(()))
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: Row 1176 is out of range; expected 0..1175.
    """
    table = _check_table(table)
    flop = _check_flop(flop)
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < N_PAIRS:
        raise MatchdbError(f"Row {row!r} is out of range; expected 0..{N_PAIRS - 1}.")
    row = int(row)
    extra = _board_extra(columns)
    weights, uniform = _check_weights(weights)
    bins = check_bins(bins)
    rest = remaining_cards(flop).astype(np.int64)
    hole = (int(rest[PAIR_LOW[row]]), int(rest[PAIR_HIGH[row]]))
    if set(PAIRS[row].tolist()) & set(extra):
        raise CardError(
            f"The hole cards {format_cards(hole)!r} share a card with the board "
            f"{format_cards(flop + tuple(int(rest[e]) for e in extra))!r}; expected distinct cards."
        )
    board = np.array(flop + tuple(int(rest[e]) for e in extra), dtype=np.int64)
    ranks = _now_ranks(rest, board)
    columns = np.asarray(columns, dtype=np.int64)
    sub = table if len(columns) == N_PAIRS else np.ascontiguousarray(table[:, columns])
    score, deals, hp, now = _hand_kernel(
        sub, row, weights, uniform, ranks, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH, COLLISION[row]
    )
    if deals.sum() == 0:
        raise RangeError("No opponent hand with a positive weight can be dealt beside these hole cards and board.")
    valid, equities, probabilities, counts, histogram = _distribution_parts(score, deals, bins)
    total = deals[valid].sum()
    ehs = float(score[valid].sum() / total)
    ehs2 = float((score[valid] ** 2 / deals[valid]).sum() / total)
    added = PAIRS[columns[valid]].astype(np.int64)
    if len(extra) == 0:
        runouts = rest[added]
        turn_score = np.bincount(added[:, 0], score[valid], N_LOCAL) + np.bincount(added[:, 1], score[valid], N_LOCAL)
        turn_deals = np.bincount(added[:, 0], deals[valid], N_LOCAL) + np.bincount(added[:, 1], deals[valid], N_LOCAL)
        t_valid, turn_equities, turn_probabilities, turn_counts, turn_histogram = _distribution_parts(
            turn_score, turn_deals, bins
        )
        turn_cards = rest[np.flatnonzero(t_valid)]
    else:
        if len(extra) == 1:  # each column holds the turn and one river: the runout is the river
            runouts = rest[np.where(added[:, 0] == extra[0], added[:, 1], added[:, 0])][:, None]
        else:
            runouts = np.zeros((len(added), 0), dtype=np.int64)
        turn_cards = np.zeros(0, dtype=np.int64)
        turn_equities = turn_probabilities = np.zeros(0)
        turn_counts = np.zeros(bins, dtype=np.int64)
        turn_histogram = np.zeros(bins)
    ppot, npot = _potential(hp, hp.sum(axis=1))
    if len(extra) == 2:
        ppot = npot = 0.0
    ahead, tied, behind = now
    hs = float((ahead + tied / 2) / now.sum()) if now.sum() > 0 else float("nan")
    return HandDistribution(
        board=tuple(int(c) for c in board),
        hole=hole,
        bins=bins,
        equity=ehs,
        ehs=ehs,
        ehs2=ehs2,
        hs=hs,
        ppot=ppot,
        npot=npot,
        now=now,
        potential=hp,
        runouts=np.ascontiguousarray(runouts, dtype=np.int64),
        river_equities=equities,
        river_probabilities=probabilities,
        river_counts=counts,
        river_histogram=histogram,
        turn_cards=np.asarray(turn_cards, dtype=np.int64),
        turn_equities=turn_equities,
        turn_probabilities=turn_probabilities,
        turn_counts=turn_counts,
        turn_histogram=turn_histogram,
    )


# -- every hand at once ---------------------------------------------------------------


@jit
def _bit_prefix(tree, r):
    """Sum of the Fenwick tree's entries at ranks 0..r."""
    total = 0.0
    i = r + 1
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total


@jit
def _bit_add(tree, r, w):
    i = r + 1
    while i < tree.shape[0]:
        tree[i] += w
        i += i & -i


@jit
def _column_range(tt, weights, uniform, rank, n_ranks, pair_low, pair_high, col_low, col_high, start, end, score_out, deals_out, debruijn, sums):
    """Every row's score and deals on columns ``start`` to ``end``, and the potential's 2-D counts (added to ``sums``).

    ``tt`` is the board's columns of W, transposed (one column a row). Each
    column's valid rows are counting-sorted by W level and walked from the
    weakest, a level (the rows tied on that river) at a time: the weight
    below and level with a row, less what holds one of its cards (running
    sums per card), is its score against the opponents left on that board
    (card removal exact), and the deals are the column's weight less the
    weight holding one of its cards. They go to ``score_out[h, j]`` and
    ``deals_out[h, j]`` (score -1 where impossible; against a random hand,
    ``uniform``, every possible entry has 990 deals and ``deals_out`` is not
    written, else deals 0 where impossible).

    A Fenwick tree over the rows' current-strength ranks, filled in the same
    walk, gives the weight below (and level) on the river that is ahead (or
    tied) now. Rows of one level mostly share one rank (the suit variants of
    one hand), so a run of equal ranks asks the tree once.
    Rows are sorted and walked as runs of neighbours on one level. Added to ``sums``
    over the columns, per row: the score against the opponents the row is behind
    now, the score against those it is tied with now, and the ties with
    those; still counting the opponents that share one of its cards
    (``_remove_shared_potential`` takes them away).
    """
    n_rows = tt.shape[1]
    with_card = np.zeros(N_LOCAL)  # weight of the rows holding each card
    pair_weight = np.zeros((N_LOCAL, N_LOCAL))
    for k in range(n_rows):
        with_card[pair_low[k]] += weights[k]
        with_card[pair_high[k]] += weights[k]
        pair_weight[pair_low[k], pair_high[k]] = weights[k]
        pair_weight[pair_high[k], pair_low[k]] = weights[k]
    everything = weights.sum()
    level_count = np.zeros(N_LEVELS, dtype=np.int64)
    present = np.zeros((N_LEVELS + 63) // 64, dtype=np.uint64)
    order = np.empty(n_rows, dtype=np.int64)
    run_start = np.empty(n_rows, dtype=np.int64)
    run_end = np.empty(n_rows, dtype=np.int64)
    # a column's results go to block buffers first, eight columns to a block, then to the outputs a
    # row at a time: whole cache lines instead of one scattered store per row and column
    block_score = np.zeros((8, n_rows))
    block_deals = np.zeros((8, n_rows))
    card_total = np.zeros(N_LOCAL)
    card_upto = np.zeros(N_LOCAL)  # weight of the rows holding each card, up to the level being walked
    shared_below = np.empty(n_rows)
    tree = np.zeros(n_ranks + 1)
    point = np.zeros(n_ranks)
    ahead_before = np.empty(n_rows)
    tied_before = np.empty(n_rows)
    for j in range(start, end):
        col = tt[j]
        t = col_low[j]
        u = col_high[j]
        slot = (j - start) % 8
        col_score = block_score[slot]
        col_deals = block_deals[slot]
        # the weight of the rows left on this board, in all and holding each card
        total = everything - with_card[t] - with_card[u] + pair_weight[t, u]
        for a in range(N_LOCAL):
            card_total[a] = with_card[a] - pair_weight[a, t] - pair_weight[a, u]
        card_total[t] = 0.0
        card_total[u] = 0.0
        # counting sort by level of the runs of rows on one level (the suit variants of a hand lie side
        # by side: 150-420 runs a column); the levels present (about 75 of 2,161) come from a bitmap
        n_runs = 0
        k = 0
        while k < n_rows:
            v = np.int64(col[k])
            if v == SENTINEL:
                col_score[k] = -1.0
                col_deals[k] = 0.0
                k += 1
                continue
            first = k
            k += 1
            while k < n_rows and col[k] == v:
                k += 1
            run_start[n_runs] = first
            run_end[n_runs] = k
            n_runs += 1
            level_count[v] += 1
            present[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        n = 0
        for word_index in range(present.shape[0]):
            word = present[word_index]
            present[word_index] = 0
            while word:
                low = word & (np.uint64(0) - word)
                word ^= low
                v = word_index * 64 + debruijn[(low * np.uint64(0x03F79D71B4CB0A89)) >> np.uint64(58)]
                c = level_count[v]
                level_count[v] = n
                n += c
        for q in range(n_runs):
            v = col[run_start[q]]
            order[level_count[v]] = q
            level_count[v] += 1
        for q in range(n_runs):
            level_count[col[run_start[q]]] = 0
        card_upto[:] = 0.0
        tree[:] = 0.0
        point[:] = 0.0
        below = 0.0
        i = 0
        while i < n_runs:  # a level (its runs order[i:e]) at a time
            v = col[run_start[order[i]]]
            e = i + 1
            while e < n_runs and col[run_start[order[e]]] == v:
                e += 1
            # before the level joins: what holds each row's cards below it, and what is below and ahead / tied now
            level = 0.0
            last = -1
            ahead = 0.0
            tied_now = 0.0
            for q in range(i, e):
                for k in range(run_start[order[q]], run_end[order[q]]):
                    level += weights[k]
                    shared_below[k] = card_upto[pair_low[k]] + card_upto[pair_high[k]]
                    r = rank[k]
                    if r != last:
                        last = r
                        ahead = below - _bit_prefix(tree, r)
                        tied_now = point[r]
                    ahead_before[k] = ahead
                    tied_before[k] = tied_now
            # the level joins the running sums per card and the tree (a run of equal ranks at a time)
            last = rank[run_start[order[i]]]
            run = 0.0
            for q in range(i, e):
                for k in range(run_start[order[q]], run_end[order[q]]):
                    w = weights[k]
                    card_upto[pair_low[k]] += w
                    card_upto[pair_high[k]] += w
                    if rank[k] != last:
                        _bit_add(tree, last, run)
                        point[last] += run
                        last = rank[k]
                        run = 0.0
                    run += w
            _bit_add(tree, last, run)
            point[last] += run
            filled = below + level
            last = -1
            ahead = 0.0
            for q in range(i, e):
                for h in range(run_start[order[q]], run_end[order[q]]):
                    a = pair_low[h]
                    b = pair_high[h]
                    wh = weights[h]
                    r = rank[h]
                    if r != last:
                        last = r
                        ahead = filled - _bit_prefix(tree, r)
                    # below and half of level, less what holds a or b (the row itself counts in both)
                    shared_upto = card_upto[a] + card_upto[b]
                    col_score[h] = below + 0.5 * (level + wh - shared_below[h] - shared_upto)
                    if not uniform:
                        col_deals[h] = total - card_total[a] - card_total[b] + wh
                    tied_after = point[r] - wh
                    sums[h, 0] += 0.5 * (ahead_before[h] + ahead)
                    sums[h, 1] += 0.5 * (tied_before[h] + tied_after)
                    sums[h, 2] += tied_after - tied_before[h]
            below = filled
            i = e
        if slot == 7 or j == end - 1:
            first_column = j - slot
            for h in range(n_rows):
                for m in range(slot + 1):
                    score_out[h, first_column + m] = block_score[m, h]
                if not uniform:
                    for m in range(slot + 1):
                        deals_out[h, first_column + m] = block_deals[m, h]


@jit
def _row_range(score, deals, uniform, col_low, col_high, bins, by_turn, start, end, sums, counts, mass, turn):
    """Rows ``start`` to ``end``, over their possible columns: sums (score, deals, score^2 / deals), the
    histogram of river equities (runouts and deals per bin) and, when ``by_turn``, score and deals by
    turn card. Against a random hand (``uniform``) every possible entry has 990 deals, and the bin of
    each score is looked up (twice the score is a whole number 0..1980)."""
    n_cols = score.shape[1]
    lookup = np.empty(2 * _OPPONENTS + 1, dtype=np.int64)
    for twice in range(2 * _OPPONENTS + 1):
        lookup[twice] = min(twice * bins // (2 * _OPPONENTS), bins - 1)
    for h in range(start, end):
        s_sum = 0.0
        d_sum = 0.0
        q_sum = 0.0
        for j in range(n_cols):
            s = score[h, j]
            if s < 0.0:
                continue
            if uniform:
                d = np.float64(_OPPONENTS)
                which = lookup[np.int64(2.0 * s)]
                q_sum += s * s
            else:
                d = deals[h, j]
                if d <= 0.0:
                    continue
                e = s / d
                q_sum += s * e
                # the bin, floor(e x bins), made exact against the integer counts (see _exact_bin)
                which = np.int64(e * bins)
                x = 2.0 * s * bins
                y = 2.0 * d
                if (which + 1) * y <= x:
                    which += 1
                elif which * y > x:
                    which -= 1
                which = min(max(which, 0), bins - 1)
            s_sum += s
            d_sum += d
            counts[h, which] += 1
            mass[h, which] += d
            if by_turn:
                turn[h, col_low[j], 0] += s
                turn[h, col_low[j], 1] += d
                turn[h, col_high[j], 0] += s
                turn[h, col_high[j], 1] += d
        sums[h, 0] = s_sum
        sums[h, 1] = d_sum
        sums[h, 2] = q_sum / _OPPONENTS if uniform else q_sum


@jit
def _shared_card(table, rows_of_card, rank, a, twice, ties):
    """For every two rows holding card ``a``, both valid on the board, over the columns valid for both:
    ``twice[a, i, j]`` = 2 x wins + ties of the first against the second, and ``ties[a, i, j]`` the
    ties, counted only where the two are tied now (16-bit counters: vectorised). The card's rows are
    copied together first, so the comparisons run from cache."""
    n_cols = table.shape[1]
    m = rows_of_card.shape[1]
    block = np.empty((m, n_cols), dtype=np.uint16)
    for i in range(m):
        block[i] = table[rows_of_card[a, i]]
    for i in range(m):
        if rank[rows_of_card[a, i]] < 0:
            continue
        first = block[i]
        for j in range(i + 1, m):
            if rank[rows_of_card[a, j]] < 0:
                continue
            second = block[j]
            t2 = np.uint16(0)
            for c in range(n_cols):
                u = first[c]
                v = second[c]
                valid = u != SENTINEL  # v == SENTINEL makes both comparisons false
                t2 = np.uint16(t2 + np.uint16(valid & (u > v)) + np.uint16(valid & (u >= v)))
            twice[a, i, j] = t2
            if rank[rows_of_card[a, i]] == rank[rows_of_card[a, j]]:
                nt = np.uint16(0)
                for c in range(n_cols):
                    u = first[c]
                    nt = np.uint16(nt + np.uint16((u == second[c]) & (u != SENTINEL)))
                ties[a, i, j] = nt


@jit
def _shared_cards(table, rows_of_card, rank, start, end, twice, ties):
    """:func:`_shared_card` for cards ``start`` to ``end``."""
    for a in range(start, end):
        _shared_card(table, rows_of_card, rank, a, twice, ties)


@jit
def _remove_shared_potential(twice, both, ties, rows_of_card, rank, weights, behind_score, tied_score, tied_ties):
    """Take the opponents sharing one of a row's cards out of its potential sums.

    ``both`` is the number of columns valid for two rows that share one card (the same for every such pair).
    """
    m = rows_of_card.shape[1]
    for a in range(N_LOCAL):
        for i in range(m):
            r1 = rows_of_card[a, i]
            if rank[r1] < 0:
                continue
            for j in range(i + 1, m):
                r2 = rows_of_card[a, j]
                if rank[r2] < 0:
                    continue
                first = twice[a, i, j] / 2  # r1's score against r2
                second = both - first  # r2's against r1
                if rank[r2] > rank[r1]:
                    behind_score[r1] -= weights[r2] * first
                elif rank[r2] < rank[r1]:
                    behind_score[r2] -= weights[r1] * second
                else:
                    tied_score[r1] -= weights[r2] * first
                    tied_score[r2] -= weights[r1] * second
                    tied_ties[r1] -= weights[r2] * ties[a, i, j]
                    tied_ties[r2] -= weights[r1] * ties[a, i, j]


@jit
def _now_counts(rank, n_ranks, weights, rows_of_card, pair_low, pair_high):
    """(n_rows, 3): opponent weight each row is ahead of, tied with, behind now, card removal exact."""
    n_rows = rank.shape[0]
    by_rank = np.zeros(n_ranks + 1)
    for k in range(n_rows):
        if rank[k] >= 0:
            by_rank[rank[k] + 1] += weights[k]
    below = np.cumsum(by_rank)  # below[r] = weight of ranks < r
    total = below[n_ranks]
    out = np.full((n_rows, 3), np.nan)
    for h in range(n_rows):
        r = rank[h]
        if r < 0:
            continue
        ahead = below[r]
        tied = below[r + 1] - below[r] - weights[h]
        behind = total - below[r + 1]
        for side in range(2):
            card = pair_low[h] if side == 0 else pair_high[h]
            for i in range(rows_of_card.shape[1]):
                k = rows_of_card[card, i]
                if k == h or rank[k] < 0:
                    continue
                if rank[k] < r:
                    ahead -= weights[k]
                elif rank[k] == r:
                    tied -= weights[k]
                else:
                    behind -= weights[k]
        out[h, 0] = ahead
        out[h, 1] = tied
        out[h, 2] = behind
    return out


@dataclass(frozen=True, eq=False)
class BoardDistributions(Answer):
    """The distribution figures of every hand on one board.

    Rows are the hands named in ``hands`` (the table's 1,176 rows for
    :func:`board_distributions`, the 1,326 hands of
    :func:`matchdb.db.query.hand_order` for :func:`distributions`); figures are
    NaN, counts 0, for hands that share a card with the board. Card axes are
    indexed by card id (52) in the same frame as ``hands``. Arrays are read-only.

    Attributes
    ----------
    board : the board as dealt (card ids).
    hands : name of each row's hand.
    bins : number of histogram bins.
    valid : (n,) bool, the hand can be dealt on the board.
    ehs, ehs2, hs, ppot, npot : (n,) as in :class:`HandDistribution` (``ehs`` is the exact equity).
    now : (n, 3) opponent weight ahead of, tied with and behind each hand now.
    river_counts, river_histogram : (n, bins) runouts per bin, and their probability.
    turn_equities : (n, 52) equity after each turn card (flop only, else an empty (n, 0)).
    turn_counts, turn_histogram : (n, bins) turn cards per bin, and their probability (flop only, else zeros).
    river_equities, river_probabilities : (n, 1176) per hand and column, NaN / 0 where impossible;
        ``None`` unless asked for (``raw=True``; frame functions only).
    """

    board: tuple[int, ...]
    hands: tuple[str, ...]
    bins: int
    valid: np.ndarray
    ehs: np.ndarray
    ehs2: np.ndarray
    hs: np.ndarray
    ppot: np.ndarray
    npot: np.ndarray
    now: np.ndarray
    river_counts: np.ndarray
    river_histogram: np.ndarray
    turn_equities: np.ndarray
    turn_counts: np.ndarray
    turn_histogram: np.ndarray
    river_equities: np.ndarray | None = field(default=None, repr=False)
    river_probabilities: np.ndarray | None = field(default=None, repr=False)
    villain: str = "random"

    def to_dict(self) -> dict:
        out = {
            "board": format_cards(self.board),
            "villain": self.villain,
            "bins": self.bins,
            "hands": list(self.hands),
        } | {name: getattr(self, name) for name in ("ehs", "ehs2", "hs", "ppot", "npot", "river_counts")}
        out["grid"] = {figure: self.grid(figure) for figure in ("ehs", "ehs2", "hs", "ppot", "npot")}
        return {key: plain(value) for key, value in out.items()}

    def to_text(self) -> str:
        return "\n\n".join(
            format_grid(f"{title} of every hand on {format_cards(self.board)} against {self.villain}", self.grid(figure))
            for figure, title in (("ehs", "EHS (equity)"), ("ppot", "PPot"), ("npot", "NPot"))
        )

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("valid", "ehs", "ehs2", "hs", "ppot", "npot", "now", "river_counts", "river_histogram",
                     "turn_equities", "turn_counts", "turn_histogram", "river_equities", "river_probabilities"):
            array = getattr(self, name)
            if array is not None:
                array.flags.writeable = False

    @property
    def equity(self) -> np.ndarray:
        """Exact equity of each hand on the board (the same as ``ehs``)."""
        return self.ehs

    def __repr__(self) -> str:
        return f"BoardDistributions({format_cards(self.board)}: {int(self.valid.sum())} hands, {self.bins} bins)"

    def to_pandas(self) -> Any:
        """One row per hand: ehs, ehs2, hs, ppot, npot (NaN where it touches the board), indexed by the hand."""
        pandas = require_pandas()
        columns = {name: np.asarray(getattr(self, name)) for name in ("ehs", "ehs2", "hs", "ppot", "npot")}
        return pandas.DataFrame(columns, index=pandas.Index(self.hands, name="hand"))

    def grid(self, figure: str = "ehs") -> np.ndarray:
        """13 x 13 mean of a per-hand figure by starting-hand class, laid out like :meth:`matchdb.HandTable.grid`.

        Row/column 0 is the ace; suited classes above the diagonal, offsuit
        below, pairs on it; NaN where no hand of a class can be dealt.
        """
        if figure not in ("ehs", "ehs2", "hs", "ppot", "npot"):
            raise MatchdbError(f"The figure {figure!r} has no grid; expected one of ehs, ehs2, hs, ppot, npot.")
        values = getattr(self, figure)
        totals = np.zeros((13, 13))
        counts = np.zeros((13, 13))
        for name, value, ok in zip(self.hands, values, self.valid):
            if not ok:
                continue
            high, low = sorted((RANKS.index(name[0]), RANKS.index(name[2])), reverse=True)
            i, j = 12 - high, 12 - low
            if name[1] != name[3] and high != low:
                i, j = j, i
            totals[i, j] += value
            counts[i, j] += 1
        with np.errstate(invalid="ignore"):
            return totals / counts

    def hand(self, name: str) -> dict:
        """The figures of one hand by its name in ``hands`` (JSON-ready)."""
        try:
            i = self.hands.index(name)
        except ValueError:
            raise CardError(f"The hand {name!r} is not one of this table's hands; expected a name like {self.hands[0]!r}.") from None
        out = {key: float(getattr(self, key)[i]) for key in ("ehs", "ehs2", "hs", "ppot", "npot")}
        out["river_counts"] = self.river_counts[i].tolist()
        if self.turn_equities.shape[1]:
            out["turn"] = {format_card(c): float(e) for c, e in enumerate(self.turn_equities[i]) if e == e}
        return {"hand": name, **out}


def board_distributions(
    table: np.ndarray,
    flop: Iterable[int],
    columns: np.ndarray,
    weights: np.ndarray | None = None,
    bins: int = DEFAULT_BINS,
    raw: bool = False,
    parallel: bool = True,
) -> BoardDistributions:
    """The distribution figures of every row of the table on the board of ``columns`` at once.

    The same figures as :func:`hand_distribution` for each of the 1,176 rows,
    in one pass over the board's columns (see ``_board_kernel``): about
    20-30 ms for a flop here, where row by row would take half a second.
    ``raw=True`` also returns every row's river equity and probability on
    every column (two (1176, 1176) float64 arrays). The kernels run in a
    small thread pool, one part of the columns (rows, cards) per core;
    ``parallel=False`` keeps them on the calling thread, for callers that
    compute several boards at once in their own threads.

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> flop = parse_cards("Kc7d2h")
    >>> every = board_distributions(match_table(flop), flop, board_columns(()))
    >>> row = pair_row(flop, parse_cards("KsQs"))
    >>> round(float(every.hs[row]), 3), round(float(every.ehs[row]), 4), int(every.river_counts[row].sum())
    (0.958, 0.874, 1081)
    """
    table = _check_table(table)
    flop = _check_flop(flop)
    extra = _board_extra(columns)
    weights, uniform = _check_weights(weights)
    bins = check_bins(bins)
    rest = remaining_cards(flop).astype(np.int64)
    board = np.array(flop + tuple(int(rest[e]) for e in extra), dtype=np.int64)
    ranks = _now_ranks(rest, board)
    n_ranks = int(ranks.max()) + 1
    columns = np.asarray(columns, dtype=np.int64)
    by_turn = len(extra) == 0
    n_cols = len(columns)
    col_low, col_high = PAIR_LOW[columns], PAIR_HIGH[columns]
    sub = table if n_cols == N_PAIRS else np.ascontiguousarray(table[:, columns])
    tt = np.ascontiguousarray(sub.T)
    if raw:
        score_hj, deals_hj = np.empty((N_PAIRS, n_cols)), np.empty((N_PAIRS, n_cols))
    else:
        score_hj, deals_hj = _thread_scratch(n_cols)
    parts = _PARTS if parallel else 1
    potential = np.zeros((parts, N_PAIRS, 3))
    _split(n_cols, parts, lambda lo, hi, p: _column_range(
        tt, weights, uniform, ranks, n_ranks, PAIR_LOW, PAIR_HIGH, col_low, col_high, lo, hi, score_hj, deals_hj, _DEBRUIJN,
        potential[p],
    ))
    potential = potential.sum(axis=0)
    sums, mass = np.zeros((N_PAIRS, 3)), np.zeros((N_PAIRS, bins))
    counts = np.zeros((N_PAIRS, bins), dtype=np.int64)
    turn = np.zeros((N_PAIRS, N_LOCAL if by_turn else 1, 2))
    _split(N_PAIRS, parts, lambda lo, hi, p: _row_range(
        score_hj, deals_hj, uniform, col_low, col_high, bins, by_turn, lo, hi, sums, counts, mass, turn
    ))
    twice = np.zeros((N_LOCAL, N_LOCAL - 1, N_LOCAL - 1), dtype=np.int64)
    ties = np.zeros_like(twice)
    _split(N_LOCAL, parts, lambda lo, hi, p: _shared_cards(sub, ROWS_OF_CARD, ranks, lo, hi, twice, ties))
    if raw:
        if uniform:
            deals_hj = np.where(score_hj >= 0, float(_OPPONENTS), 0.0)
        river_eq, river_deals = _river_arrays(score_hj, deals_hj)
    score, deals, squares = sums[:, 0], sums[:, 1], sums[:, 2]
    behind_score, tied_score, tied_ties = potential[:, 0].copy(), potential[:, 1].copy(), potential[:, 2].copy()
    both = _SHARED_RUNOUTS[len(board)]
    _remove_shared_potential(twice, both, ties, ROWS_OF_CARD, ranks, weights, behind_score, tied_score, tied_ties)
    now = _now_counts(ranks, n_ranks, weights, ROWS_OF_CARD, PAIR_LOW, PAIR_HIGH)
    valid = (ranks >= 0) & (deals > 0)
    if not valid.any():
        raise RangeError("No opponent hand with a positive weight can be dealt on this board.")
    with np.errstate(invalid="ignore", divide="ignore"):
        ehs = np.where(valid, score / deals, np.nan)
        ehs2 = np.where(valid, squares / deals, np.nan)
        ahead_w, tied_w, behind_w = now[:, 0], now[:, 1], now[:, 2]
        hs = np.where(valid, (ahead_w + tied_w / 2) / now.sum(axis=1), np.nan)
        if len(extra) == 2:
            ppot = npot = np.where(valid, 0.0, np.nan)
        else:
            m = _RUNOUTS_PER_OPPONENT[len(board)]
            d_ahead, d_tied, d_behind = m * ahead_w, m * tied_w, m * behind_w
            ahead_score = score - behind_score - tied_score
            p_den = d_behind + d_tied / 2
            n_den = d_ahead + d_tied / 2
            p_num = behind_score + (tied_score - tied_ties / 2) / 2
            n_num = (d_ahead - ahead_score) + (d_tied - tied_score - tied_ties / 2) / 2
            ppot = np.where(valid, np.where(p_den > 0, p_num / np.where(p_den > 0, p_den, 1), 0.0), np.nan)
            npot = np.where(valid, np.where(n_den > 0, n_num / np.where(n_den > 0, n_den, 1), 0.0), np.nan)
        river_histogram = mass / np.where(deals > 0, deals, 1)[:, None]
    counts[~valid] = 0
    river_histogram[~valid] = 0.0
    if by_turn:
        turn_score, turn_deals = turn[:, :, 0], turn[:, :, 1]
        live = turn_deals > 0
        turn_local = np.where(live, turn_score / np.where(live, turn_deals, 1), np.nan)
        which = _bins_of(turn_score[live], turn_deals[live], bins)
        rows_of = np.nonzero(live)[0]
        turn_counts = np.bincount(rows_of * bins + which, minlength=N_PAIRS * bins).reshape(N_PAIRS, bins)
        turn_probability = np.where(live, turn_deals / np.where(deals > 0, deals, 1)[:, None] / 2, 0.0)
        turn_histogram = np.bincount(
            rows_of * bins + which, weights=turn_probability[live], minlength=N_PAIRS * bins
        ).reshape(N_PAIRS, bins)
        turn_equities = np.full((N_PAIRS, 52), np.nan)
        turn_equities[:, rest] = turn_local
    else:
        turn_equities = np.zeros((N_PAIRS, 0))
        turn_counts = np.zeros((N_PAIRS, bins), dtype=np.int64)
        turn_histogram = np.zeros((N_PAIRS, bins))
    if raw:
        total = np.where(deals > 0, deals, 1)[:, None]
        river_probabilities = river_deals / total
    return BoardDistributions(
        board=tuple(int(c) for c in board),
        hands=_frame_hand_names(flop),
        bins=bins,
        valid=valid,
        ehs=ehs,
        ehs2=ehs2,
        hs=hs,
        ppot=ppot,
        npot=npot,
        now=np.where(valid[:, None], now, np.nan),
        river_counts=counts,
        river_histogram=river_histogram,
        turn_equities=turn_equities,
        turn_counts=turn_counts,
        turn_histogram=turn_histogram,
        river_equities=river_eq if raw else None,
        river_probabilities=river_probabilities if raw else None,
    )


def _river_arrays(score: np.ndarray, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    live = deals > 0
    return np.where(live, score / np.where(live, deals, 1), np.nan), deals


_LOCAL = threading.local()
#: Parts each pass of :func:`board_distributions` is split into: one per core, at most 8 (a pass is ~30 ms of work).
_PARTS = max(1, min(os.cpu_count() or 1, 8))
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _split(n: int, parts: int, work) -> None:
    """Run ``work(lo, hi, part)`` over ``parts`` equal slices of range(n), on the pool when more than one.

    The kernels release the GIL; threads that wait block instead of spinning,
    which matters on machines shared with other work.
    """
    if parts == 1:
        work(0, n, 0)
        return
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_PARTS, thread_name_prefix="matchdb-distributions")
    futures = [_POOL.submit(work, p * n // parts, (p + 1) * n // parts, p) for p in range(1, parts)]
    work(0, n // parts, 0)  # the caller takes the first part
    for future in futures:
        future.result()


def _thread_scratch(n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Reused (1176, n_cols) score and deals buffers, one set per calling thread (fresh memory costs a page fault per 4 KiB)."""
    buffers = getattr(_LOCAL, "buffers", None)
    if buffers is None:
        buffers = _LOCAL.buffers = {}
    if n_cols not in buffers:
        buffers[n_cols] = (np.empty((N_PAIRS, n_cols)), np.empty((N_PAIRS, n_cols)))
    return buffers[n_cols]


@functools.lru_cache(maxsize=64)
def _frame_hand_names(flop: tuple[int, int, int]) -> tuple[str, ...]:
    """Names of the table's 1,176 rows on ``flop``, higher rank first like :func:`matchdb.db.query.hand_order`."""
    rest = remaining_cards(flop)
    return tuple(_hand_name(int(rest[a]), int(rest[b])) for a, b in PAIRS)


def _hand_name(a: int, b: int) -> str:
    return format_cards(sorted((a, b), key=lambda c: (c % 13, c // 13), reverse=True))


# -- real cards through a database (to be replaced by the query layer's mapping at merge) ----------
