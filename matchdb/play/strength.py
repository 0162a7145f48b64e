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
  times);
- ``exact``: the exact equity against the live opponents (uniform, or West's
  drop-out range for those who entered the pot), sampled beyond
  :data:`EXACT_OPPONENTS` opponents.

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

The kernel (:func:`matchdb.equity.kernels.strength`, on the arrays this module
gathers: :func:`kernel_arrays`) is shared by the compiled arena loop and by
Python bots (through :class:`StrengthSource`), so both compute the same numbers; its
heads-up and exact kinds are the equity kernels' exact count
(:func:`matchdb.equity.kernels.exact_hero`, which answers ``db.multiway`` too). With a
database open, ``StrengthSource(db).naive("AhKh", "2c7dJh", players=2)`` is
0.580707, as ``db.win_rate`` says; the lookups alone need no database:

>>> flop_table, flop_perm, card_map, local, pair_index, turn_columns = frame()
>>> from matchdb.core.cards import parse_cards
>>> a, b, c = parse_cards("2c7dJh")
>>> int(flop_table[a, b, c]) == int(flop_table[c, a, b]), local.shape, turn_columns.shape
(True, (1755, 52), (49, 48))
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import N_FLOPS
from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import CLASSES
from matchdb.core.pairs import N_PAIRS
from matchdb.equity.kernels import (
    CARDS,
    DROPOUT,
    EXACT,
    EXACT_OPPONENTS,
    EXACT_SAMPLES,
    HEADSUP,
    MONTECARLO,
    NAIVE,
    STEERED,
    UNIFORM,
    StrengthArrays,
    class_of,
    frame,
    powers,
    seed_random,
)
from matchdb.equity.kernels import strength as strength_kernel
from matchdb.errors import BoardError, CardError, DatabaseError, MatchdbError

if TYPE_CHECKING:
    from numpy.typing import NDArray

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
    "TABLE_CAPACITY",
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
    # kept for callers of the names they had: the kernel is matchdb.equity.kernels.strength
    "strength_kernel",
]

#: Strength kinds by name (their numbers: :data:`matchdb.equity.kernels.NAIVE` ...).
KINDS = {"naive": NAIVE, "headsup": HEADSUP, "montecarlo": MONTECARLO, "exact": EXACT}
#: Opponent models of the Monte Carlo strength by name.
MODELS = {"uniform": UNIFORM, "dropout": DROPOUT, "steered": STEERED}

_TABLE_SHAPE = (N_PAIRS, N_PAIRS)
#: How many decoded tables a source keeps when it decodes them on first use (:class:`LazyTables`),
#: unless told otherwise: 64 x 2.8 MB = 180 MB; a table pushed out is decoded again (about 3 ms).
TABLE_CAPACITY = 64


class StrengthError(MatchdbError):
    """A strength was asked for with arguments it cannot take."""


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



def seed_kernels(seed: int) -> None:
    """Seed the random numbers the compiled bots and the Monte Carlo strength draw (per thread).

    >>> seed_kernels(5)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise StrengthError(f"The seed {seed!r} is not a whole number 0..2**32-1.")
    seed_random(np.int64(seed))


def kernel_arrays(frame_arrays: Any, preflop: Any, tables: Any) -> StrengthArrays:
    """The :class:`matchdb.equity.kernels.StrengthArrays` of a preflop table and a :class:`TableSet`."""
    return StrengthArrays(frame_arrays, preflop, class_of(), powers(), tables.array_view, tables.slot_view, CARDS.low,
                          CARDS.high)



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

    def __init__(self, db: MatchDB, capacity: int = TABLE_CAPACITY) -> None:
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


def decode_tables(db: MatchDB, folder: str | os.PathLike[str], quiet: bool = True) -> Path:
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


def open_decoded(folder: str | os.PathLike[str]) -> TableSet:
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

    :class:`matchdb.play.sources.TableSource` names a source without opening it
    (what the arena and tuning take as ``source=``).

    Parameters
    ----------
    db : an open :class:`matchdb.MatchDB` (its preflop table is read once).
    tables : where W tables come from: a :class:`TableSet` (``open_decoded``)
        or None for :class:`LazyTables` of ``capacity`` slots (default :data:`TABLE_CAPACITY`).
    """

    def __init__(self, db: MatchDB, tables: TableSet | None = None, capacity: int = TABLE_CAPACITY) -> None:
        self.db = db
        self.tables = tables if tables is not None else LazyTables(db, capacity)
        self.preflop = preflop_array(db)
        self.frame = frame()
        self.classes = class_of()
        self.powers = powers()
        self._columns = np.empty(N_PAIRS, dtype=np.int64)
        self._lock = threading.Lock()

    def arrays(self) -> StrengthArrays:
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

    def _compute(self, kind: int, hole0: int, hole1: int, board_array: NDArray[np.int64], n_board: int, players: int,
                 samples: int, model: int, threshold: float, redraws: int, flags: NDArray[np.int64]) -> float:
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


def _pick(value: object, names: dict[str, int], what: str) -> int:
    if isinstance(value, str):
        if value not in names:
            raise StrengthError(f"The {what} {value!r} is unknown; expected one of {', '.join(names)}.")
        return names[value]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in names.values():
        raise StrengthError(f"The {what} {value!r} is unknown; expected one of {', '.join(names)}.")
    return int(value)
