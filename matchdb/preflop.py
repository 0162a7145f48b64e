"""Preflop tables derived from the database: every starting-hand class, averaged over all boards.

For each of the 169 classes (``AA``, ``AKs``, ``AKo``, ...): the exact heads-up
equity against a uniformly random hand, and the naive win rate
mean((1 - S) ** (n - 1)) for 2 to 10 players, both averaged over every flop,
turn and river. Every flop is reached through its canonical table weighted by
its orbit size (how many of the 22,100 flops it stands for): renaming suits
maps the hands of one class onto the same class, so the sums over an orbit
equal the canonical flop's sums times the orbit size. Every (hand, flop)
pair holds the same number of runouts and opponent hands, so plain sums of
win and tie counts give the exact average.

>>> table = matchdb.open().preflop()                        # doctest: +SKIP
>>> round(table.equity[table.classes.index("AA")], 4)       # doctest: +SKIP
0.852
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from matchdb.canonical import N_FLOPS, ORBIT_SIZES
from matchdb._jit import jit
from matchdb.cards import RANKS
from matchdb.errors import IncompleteDatabaseError, MatchdbError
from matchdb.formulas import all_hands_scores
from matchdb.pairs import MAX_W, N_LEVELS, PAIRS, SENTINEL, board_columns
from matchdb.store import PREFLOP_VERSION, flop_cards

__all__ = ["PreflopTable", "CLASSES", "hand_class", "compute_preflop", "PLAYERS"]

#: Player counts the naive win rate is tabulated for.
PLAYERS = tuple(range(2, 11))


def _classes() -> list[str]:
    names = []
    for high in range(12, -1, -1):
        names.append(RANKS[high] * 2)
        for low in range(high - 1, -1, -1):
            names += [RANKS[high] + RANKS[low] + "s", RANKS[high] + RANKS[low] + "o"]
    return names


#: The 169 starting-hand classes, strongest-looking first: AA, AKs, AKo, AQs, ...
CLASSES = tuple(_classes())
_CLASS_INDEX = {name: i for i, name in enumerate(CLASSES)}


def hand_class(a: int, b: int) -> int:
    """Class index (into :data:`CLASSES`) of the hand of card ids ``a`` and ``b``.

    >>> CLASSES[hand_class(38, 37)], CLASSES[hand_class(38, 36)], CLASSES[hand_class(12, 25)]
    ('AKs', 'AQs', 'AA')
    """
    high, low = sorted((a % 13, b % 13), reverse=True)
    if high == low:
        return _CLASS_INDEX[RANKS[high] * 2]
    return _CLASS_INDEX[RANKS[high] + RANKS[low] + ("s" if a // 13 == b // 13 else "o")]


def combos(name: str) -> int:
    """How many two-card hands a class holds: 6 pairs, 4 suited, 12 offsuit."""
    return 6 if len(name) == 2 else 4 if name.endswith("s") else 12


@dataclass
class PreflopTable:
    """Preflop figures for the 169 classes, in :data:`CLASSES` order."""

    classes: tuple[str, ...]
    equity: np.ndarray  # (169,) exact heads-up equity against a random hand
    win_rate: dict[int, np.ndarray]  # players -> (169,) naive win rate
    provenance: dict = field(default_factory=dict)

    def row(self, name: str) -> dict:
        """All figures of one class, like ``table.row("AKs")``."""
        if name not in _CLASS_INDEX:
            raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
        i = _CLASS_INDEX[name]
        return {"hand": name, "combos": combos(name), "equity": float(self.equity[i])} | {
            f"win_rate_{n}": float(values[i]) for n, values in self.win_rate.items()
        }

    def rows(self, players=None) -> list[dict]:
        wanted = set(players or self.win_rate)
        return [
            {k: v for k, v in self.row(name).items() if not k.startswith("win_rate_") or int(k[9:]) in wanted}
            for name in self.classes
        ]

    def to_json(self) -> dict:
        return {
            "version": PREFLOP_VERSION,
            "classes": list(self.classes),
            "equity": self.equity.tolist(),
            "win_rate": {str(n): v.tolist() for n, v in self.win_rate.items()},
            "provenance": self.provenance,
        }

    @classmethod
    def from_json(cls, data: dict) -> PreflopTable:
        return cls(
            classes=tuple(data["classes"]),
            equity=np.array(data["equity"]),
            win_rate={int(n): np.array(v) for n, v in data["win_rate"].items()},
            provenance=data.get("provenance", {}),
        )


@jit
def _level_histogram(table, row_class, weight, histogram):
    """Add ``weight`` x the count of each W level per class, over every valid entry."""
    for row in range(table.shape[0]):
        target = histogram[row_class[row]]
        for column in range(table.shape[1]):
            v = table[row, column]
            if v != SENTINEL:
                target[v] += weight


def tables_digest(manifests: list[dict]) -> str:
    """SHA-256 over every table's digest: names the data a preflop table was computed from."""
    digest = hashlib.sha256()
    for entry in manifests:
        digest.update(entry["table_sha256"].encode())
    return digest.hexdigest()


def compute_preflop(db, quiet: bool = True) -> PreflopTable:
    """Compute the preflop table from every table of ``db`` (a :class:`matchdb.MatchDB`)."""
    from tqdm import tqdm

    built = db._store.built()
    if len(built) != N_FLOPS:
        raise IncompleteDatabaseError(
            f"Preflop tables need all {N_FLOPS} tables; the database '{db.path}' has {len(built)}. Finish it with 'matchdb build'."
        )
    started = time.perf_counter()
    cards = flop_cards()
    columns = board_columns(())
    ones = np.ones(len(PAIRS))
    score = np.zeros(len(CLASSES))  # orbit-weighted wins + ties / 2
    deals = np.zeros(len(CLASSES))
    histogram = np.zeros((len(CLASSES), N_LEVELS), dtype=np.int64)
    table = np.empty((len(PAIRS), len(PAIRS)), dtype=np.uint16)
    for index in tqdm(range(N_FLOPS), desc="preflop", unit="flop", disable=True if quiet else None):
        db._reader.read_table(index, out=table)  # not through the cache: every table is read once, into one buffer
        hands = cards[index][PAIRS]  # (1176, 2) card ids of each row
        row_class = np.array([hand_class(int(a), int(b)) for a, b in hands], dtype=np.int64)
        orbit = int(ORBIT_SIZES[index])
        table_score, table_deals = all_hands_scores(table, columns, ones)
        np.add.at(score, row_class, orbit * table_score)
        np.add.at(deals, row_class, orbit * table_deals)
        _level_histogram(table, row_class, orbit, histogram)
    levels = np.arange(N_LEVELS) / MAX_W
    entries = histogram.sum(axis=1)
    win_rate = {n: (histogram * levels ** (n - 1)).sum(axis=1) / entries for n in PLAYERS}
    return PreflopTable(
        classes=CLASSES,
        equity=score / deals,
        win_rate=win_rate,
        provenance={
            "tables_sha256": tables_digest([db._store.manifest(i) for i in range(N_FLOPS)]),
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
