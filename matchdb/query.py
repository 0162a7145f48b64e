"""The query layer: open a database and answer equities at once.

>>> import matchdb
>>> db = matchdb.open(path)                                  # doctest: +SKIP
>>> round(db.win_rate("AhKh", "2c7dJh"), 6)                  # doctest: +SKIP
0.580707
>>> round(db.equity("AhKh", "2c7dJh"), 6)                    # doctest: +SKIP
0.572571

Every question is carried to its canonical flop by one suit renaming
(``matchdb.canonical``); the answer depends only on the table of that flop,
read from the store's shards directly and kept in a bounded cache.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from matchdb.cache import TableCache
from matchdb.canonical import CARD_MAP, N_FLOPS, canonicalize
from matchdb.cards import RANKS, Card, format_cards, parse_cards
from matchdb.errors import BoardError, CardError, MatchdbError, RangeError
from matchdb.formulas import all_hands_scores, hand_vs_weights, naive_win_rate, naive_win_rates
from matchdb.pairs import N_PAIRS, PAIR_INDEX, board_columns
from matchdb.ranges import parse_range
from matchdb.store import CHUNK_ROWS, ShardReader, default_path, flop_cards, open_database

__all__ = ["open", "MatchDB", "Outcome", "HandTable", "hand_order", "hand_index"]

CardsLike = str | Iterable[str | int | Card]


@dataclass(frozen=True)
class Outcome:
    """Exact heads-up result: probabilities of winning, tying and losing (they sum to 1)."""

    win: float
    tie: float
    loss: float

    @property
    def equity(self) -> float:
        """Win plus half the ties."""
        return self.win + self.tie / 2


@dataclass(frozen=True)
class HandTable:
    """A figure for every private hand on one board.

    ``hands`` are the 1,326 two-card hands as text (``"AhKh"``) and ``values``
    the figure of each, NaN where the hand shares a card with the board.
    """

    board: str
    hands: tuple[str, ...]
    values: np.ndarray

    def grid(self) -> np.ndarray:
        """13 x 13 mean by starting-hand class: row/column 0 is the ace; suited above the diagonal.

        ``grid[i, j]`` with i < j is the suited class of ranks (12 - i, 12 - j), with
        i > j the offsuit one, and the diagonal holds the pairs. NaN where no
        hand of a class is possible on the board.
        """
        totals = np.zeros((13, 13))
        counts = np.zeros((13, 13))
        for hand, value in zip(self.hands, self.values):
            if np.isnan(value):
                continue
            high, low = sorted((RANKS.index(hand[0]), RANKS.index(hand[2])), reverse=True)
            i, j = 12 - high, 12 - low
            if hand[1] != hand[3] and high != low:
                i, j = j, i  # offsuit below the diagonal
            totals[i, j] += value
            counts[i, j] += 1
        with np.errstate(invalid="ignore"):
            return totals / counts


class MatchDB:
    """A read-only match-table database.

    Parameters
    ----------
    path : the zarr store folder, or a file written by ``matchdb pack``.
    cache_tables : how many tables' worth of decoded chunks to keep (2.8 MB each).
    """

    def __init__(self, path: str | Path, cache_tables: int = 64) -> None:
        if isinstance(cache_tables, bool) or not isinstance(cache_tables, int) or cache_tables < 1:
            raise MatchdbError(f"cache_tables is {cache_tables!r}; expected a whole number of at least 1.")
        self.path = Path(path)
        self._store = open_database(self.path)
        self.attrs = self._store.attrs
        self._reader = ShardReader(self._store.shard, str(self.path))
        self._tables = TableCache(self._reader, cache_tables)
        self._local = _local_indices()
        self._local_lists = _local_lists()
        self._lock = threading.Lock()
        self._preflop = None

    def __repr__(self) -> str:
        return f"MatchDB({str(self.path)!r})"

    def info(self) -> dict:
        """Format, completeness and build provenance of the database."""
        return {
            "path": str(self.path),
            "packed": self._store.packed,
            "format": self.attrs["format"],
            "format_version": self.attrs["format_version"],
            "tables": N_FLOPS,
            "tables_built": len(self._store.built()),
            "chunk_rows": self.attrs["chunk_rows"],
            "codec": self.attrs["codec"],
            "provenance": self.attrs.get("provenance", {}),
        }

    # -- reading -------------------------------------------------------------

    def table(self, index: int) -> np.ndarray:
        """The whole W matrix of canonical flop ``index`` (read-only)."""
        if not 0 <= int(index) < N_FLOPS:
            raise MatchdbError(f"Table {index!r} is out of range; expected 0..{N_FLOPS - 1}.")
        return self._tables.table(int(index))

    # -- mapping cards into a table's frame ----------------------------------

    def _frame(self, hole: CardsLike | None, board: CardsLike):
        """(canonical form, board columns, row of the hole cards) of a question; no row when ``hole`` is None.

        Plain lists, not numpy, on this path: it runs on every query, and
        indexing numpy for one number costs more than the lookup itself.
        """
        canon = canonicalize(board, hole=() if hole is None else hole)
        local = self._local_lists[canon.index]
        columns = board_columns([local[c] for c in canon.extra])
        if hole is None:
            return canon, columns, None
        if len(canon.hole) != 2:
            raise CardError(f"The hole cards {hole!r} are {len(canon.hole)} cards; expected 2.")
        a, b = canon.hole
        return canon, columns, _PAIR_ROW_LISTS[local[a]][local[b]]

    def _hand_frame(self, hole: CardsLike, board: CardsLike):
        if hole is None:
            raise CardError("The hole cards are missing; expected two cards like 'AhKh'.")
        return self._frame(hole, board)

    def _rows_of(self, canon, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        """Rows of the real hands (high[i], low[i]) in the canonical table of ``canon``; -1 where a card is on the flop."""
        local = self._local[canon.index]
        la = local[CARD_MAP[canon.perm, high]]
        lb = local[CARD_MAP[canon.perm, low]]
        valid = (la >= 0) & (lb >= 0)
        return np.where(valid, _PAIR_ROW[la, lb], -1)

    def _weights(self, canon, villain) -> np.ndarray:
        """Opponent weight of each row in the canonical frame (see :func:`_range_hands` for the forms)."""
        if villain is None:
            return np.ones(N_PAIRS)
        high, low, values = _range_hands(villain)
        rows = self._rows_of(canon, high, low)
        weights = np.zeros(N_PAIRS)
        weights[rows[rows >= 0]] = values[rows >= 0]
        return weights

    # -- answers -------------------------------------------------------------

    def preflop(self, players=None, quiet: bool = True):
        """Preflop figures of the 169 starting-hand classes (:class:`matchdb.preflop.PreflopTable`).

        Computed once from every table (about half a minute) and cached in the
        store as ``preflop.json``; later calls read the cache. ``players`` (an
        int or several of 2..10; default all) picks the naive win rates the
        returned table holds; the equity is always there.
        """
        from matchdb.preflop import PLAYERS, PreflopTable, compute_preflop

        wanted = [players] if isinstance(players, int) else list(players or PLAYERS)
        for n in wanted:
            if isinstance(n, bool) or not isinstance(n, int) or n not in PLAYERS:
                raise MatchdbError(f"Preflop win rates cover 2..10 players; got {n!r}.")
        with self._lock:
            cached = self._preflop
        if cached is None:
            stored = self._store.read_preflop()
            if stored is not None:
                cached = PreflopTable.from_json(stored)
            else:
                cached = compute_preflop(self, quiet=quiet)
                self._store.write_preflop(cached.to_json())
            with self._lock:
                self._preflop = cached
        return dataclasses.replace(cached, win_rate={n: cached.win_rate[n] for n in wanted})

    def win_rate(self, hole: CardsLike, board: CardsLike, players: int = 2) -> float:
        """The naive win rate mean((1 - S) ** (players - 1)) of ``hole`` on a 3 to 5 card board.

        >>> db.win_rate("AhKh", "2c7dJh", players=3)     # doctest: +SKIP
        """
        canon, columns, row = self._hand_frame(hole, board)
        block = self._tables.chunk(canon.index, row // CHUNK_ROWS)
        value = naive_win_rate(block, row % CHUNK_ROWS, columns, players)
        if value != value:  # NaN
            raise BoardError("No turn and river are consistent with these hole cards and board.")
        return value

    def outcome(self, hole: CardsLike, board: CardsLike, villain=None) -> Outcome:
        """Exact heads-up win, tie and loss probabilities against a random hand or a range."""
        canon, columns, row = self._hand_frame(hole, board)
        weights = self._weights(canon, villain)
        if not weights.any():
            raise RangeError(f"No hand of the range {villain!r} is possible on the board {format_cards(canonicalize(board).flop)!r}.")
        table = self.table(canon.index)  # outside the try: a damaged table must say so, not blame the range
        try:
            win, tie, loss = hand_vs_weights(table, row, columns, weights)
        except MatchdbError:
            raise RangeError(f"No hand of the range {villain!r} can be dealt beside these hole cards and board.") from None
        return Outcome(win, tie, loss)

    def equity(self, hole: CardsLike, board: CardsLike, villain=None) -> float:
        """Exact heads-up equity (win + tie / 2) against a random hand or a range, card removal exact."""
        return self.outcome(hole, board, villain).equity

    def range_equity(self, hero_range: str, villain_range: str, board: CardsLike) -> float:
        """Exact equity of a range against a range on a board: every consistent deal, weighted."""
        canon, columns, _ = self._frame(None, board)
        hero = self._weights(canon, hero_range)
        villain = self._weights(canon, villain_range)
        for name, text, weights in (("hero", hero_range, hero), ("villain", villain_range, villain)):
            if not weights.any():
                raise RangeError(f"No hand of the {name} range {text!r} is possible on this board.")
        score, deals = all_hands_scores(self.table(canon.index), columns, villain)
        total = float(hero @ deals)
        if total == 0:
            raise RangeError("No deal is possible: every hero hand collides with every villain hand.")
        return float(hero @ score) / total

    def _per_hand(self, board: CardsLike, per_row: np.ndarray, canon) -> HandTable:
        rows = self._rows_of(canon, _HAND_HIGH, _HAND_LOW)
        values = np.where(rows >= 0, per_row[rows], np.nan)
        shown = board if isinstance(board, str) else format_cards(board)
        return HandTable(board=shown, hands=_HAND_NAMES, values=values)

    def win_rates(self, board: CardsLike, players: int = 2) -> HandTable:
        """The naive win rate of every private hand on a board at once."""
        canon, columns, _ = self._frame(None, board)
        return self._per_hand(board, naive_win_rates(self.table(canon.index), columns, players), canon)

    def equities(self, board: CardsLike, villain=None) -> HandTable:
        """Exact heads-up equity of every private hand on a board against a random hand or a range."""
        canon, columns, _ = self._frame(None, board)
        weights = self._weights(canon, villain)
        score, deals = all_hands_scores(self.table(canon.index), columns, weights)
        per_row = np.full(len(deals), np.nan)
        np.divide(score, deals, out=per_row, where=deals > 0)
        return self._per_hand(board, per_row, canon)


def _range_hands(villain) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(card, card, weight) arrays of a range: text like 'QQ+,AKs', a list of hands (text or
    card pairs, weight 1 each) or 1,326 weights in :func:`hand_order`."""
    if isinstance(villain, str):
        high, low, values = zip(*parse_range(villain))
        return np.array(high, dtype=np.int64), np.array(low, dtype=np.int64), np.array(values)
    try:
        items = list(villain)
    except TypeError:
        raise RangeError(f"The range {villain!r} is neither text like 'QQ+,AKs', a list of hands nor 1,326 weights.") from None
    if not items:
        raise RangeError("The list of hands is empty; expected at least one hand like 'AhKh'.")
    if not all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in items):
        high, low = zip(*(parse_cards(hand, count=2) for hand in items))
        return np.array(high, dtype=np.int64), np.array(low, dtype=np.int64), np.ones(len(items))
    values = np.asarray(items, dtype=np.float64)
    if values.shape != (1326,):
        raise RangeError(f"A weight vector must have 1,326 entries, one per hand in hand_order(); got shape {values.shape}.")
    if not np.isfinite(values).all() or (values < 0).any():
        raise RangeError("A weight vector must be finite and non-negative.")
    return _HAND_HIGH, _HAND_LOW, values


@functools.cache
def _local_lists() -> list[list[int]]:
    """:func:`_local_indices` as plain lists, for lookups of one card at a time."""
    return _local_indices().tolist()


@functools.cache
def _local_indices() -> np.ndarray:
    """(1755, 52): the local index of each card id on each canonical flop, -1 for the flop's own cards."""
    local = np.full((N_FLOPS, 52), -1, dtype=np.int16)
    local[np.arange(N_FLOPS)[:, None], flop_cards()] = np.arange(49)
    local.flags.writeable = False
    return local


_PAIR_ROW = PAIR_INDEX.astype(np.int64)  # for many hands at once
_PAIR_ROW_LISTS = PAIR_INDEX.tolist()  # for one hand: a list lookup is cheaper than numpy's
#: The 1,326 two-card hands as (higher id, lower id), the order of HandTable.hands and weight vectors.
_ALL_HANDS = [(b, a) for b in range(52) for a in range(b)]
_HAND_NAMES = tuple(format_cards(sorted(hand, key=lambda c: (c % 13, c // 13), reverse=True)) for hand in _ALL_HANDS)
_HAND_POSITION = {frozenset(hand): position for position, hand in enumerate(_ALL_HANDS)}
_HAND_HIGH = np.array([b for b, _ in _ALL_HANDS], dtype=np.int64)
_HAND_LOW = np.array([a for _, a in _ALL_HANDS], dtype=np.int64)


def hand_order() -> tuple[str, ...]:
    """The 1,326 hands in the order used by weight vectors and :class:`HandTable`, written high rank first.

    >>> hand_order()[:2], hand_order()[hand_index("KdAc")]
    (('3c2c', '4c2c'), 'AcKd')
    """
    return _HAND_NAMES


def hand_index(hand: CardsLike) -> int:
    """Position of a two-card hand in :func:`hand_order`, whatever the order its cards are given in."""
    cards = parse_cards(hand, count=2)
    return _HAND_POSITION[frozenset(cards)]


def open(path: str | Path | None = None, cache_tables: int = 64) -> MatchDB:  # noqa: A001 - mirrors zarr.open
    """Open the database at ``path`` (default ``$MATCHDB_PATH`` or ``data/matchdb.zarr``) read-only."""
    return MatchDB(path if path is not None else default_path(), cache_tables=cache_tables)

