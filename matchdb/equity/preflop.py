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

:meth:`matchdb.MatchDB.preflop` computes the table once from every table
(reading each once, about half a minute) and keeps it in the store as
derived data bound to the tables (:mod:`matchdb.storage.derived`).

>>> table = PreflopTable.from_stored({"classes": ["AA"], "equity": [0.852], "win_rate": {"2": [0.856]}})
>>> table.row("AA")
{'hand': 'AA', 'combos': 6, 'equity': 0.852, 'win_rate_2': 0.856}
>>> table
PreflopTable(1 classes: heads-up equity, naive win rates for 2 players)
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchdb.jit import jit
from matchdb.answers import Answer, class_cell, grid_html, require_pandas
from matchdb.errors import MatchdbError
from matchdb.equity.heads_up import all_hands_scores
from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, class_index, combos, hand_positions
from matchdb.core.pairs import MAX_W, N_LEVELS, N_PAIRS, SENTINEL, board_columns

__all__ = ["PreflopTable", "compute_preflop", "PLAYERS", "PREFLOP_KIND", "PREFLOP_VERSION"]

#: Player counts the naive win rate is tabulated for.
PLAYERS = tuple(range(2, 11))
#: How the table is kept in a store (``derived/preflop.json``), and its layout's version.
PREFLOP_KIND = "preflop"
PREFLOP_VERSION = 2


@dataclass(frozen=True)
class PreflopTable(Answer):
    """Preflop figures for the 169 classes, in :data:`matchdb.core.hole_cards.CLASSES` order."""

    classes: tuple[str, ...]
    equity: np.ndarray  # (169,) exact heads-up equity against a random hand
    win_rate: dict[int, np.ndarray]  # players -> (169,) naive win rate
    provenance: dict = field(default_factory=dict)

    def row(self, name: str) -> dict:
        """All figures of one class, like ``table.row("AKs")``."""
        if name not in self.classes:
            class_index(name)  # a name that is no class at all says so
            raise MatchdbError(f"The starting hand {name!r} is not in this table.")
        i = self.classes.index(name)
        return {"hand": name, "combos": combos(name), "equity": float(self.equity[i])} | {
            f"win_rate_{n}": float(values[i]) for n, values in self.win_rate.items()
        }

    def rows(self) -> list[dict]:
        """Every class's :meth:`row`, strongest-looking first."""
        return [self.row(name) for name in self.classes]

    def to_dict(self) -> dict:
        return {"rows": self.rows(), "provenance": self.provenance}

    def __repr__(self) -> str:
        players = list(self.win_rate)
        shown = f"{players[0]}..{players[-1]}" if len(players) > 1 else str(players[0]) if players else "no"
        return f"PreflopTable({len(self.classes)} classes: heads-up equity, naive win rates for {shown} players)"

    def to_pandas(self) -> Any:
        """One row per class (hand, combos, equity, win_rate_N), indexed by the class.

        >>> frame = PreflopTable.from_stored({"classes": ["AA"], "equity": [0.852], "win_rate": {"3": [0.735]}}).to_pandas()
        >>> list(frame.columns), frame.loc["AA"].tolist()
        (['combos', 'equity', 'win_rate_3'], [6.0, 0.852, 0.735])
        """
        return require_pandas().DataFrame(self.rows()).set_index("hand")

    def grid(self, figure: str = "equity") -> np.ndarray:
        """13 x 13 grid of ``figure`` (``'equity'`` or ``'win_rate_N'``), laid out like :meth:`matchdb.HandTable.grid`."""
        values = self.equity if figure == "equity" else self.win_rate.get(int(figure.removeprefix("win_rate_"))) \
            if figure.removeprefix("win_rate_").isdigit() else None
        if values is None:
            names = ", ".join(["equity"] + [f"win_rate_{n}" for n in self.win_rate])
            raise MatchdbError(f"The figure {figure!r} is not in this table; expected one of {names}.")
        grid = np.full((13, 13), np.nan)
        for name, value in zip(self.classes, values):
            grid[class_cell(name)] = value
        return grid

    def _repr_html_(self) -> str:
        return grid_html(self.grid(), "exact heads-up equity of each starting hand against a random hand, preflop")

    def to_text(self) -> str:
        players = list(self.win_rate)
        header = ["hand", "equity"] + [f"win{n}" for n in players]
        lines = ["  ".join(f"{h:>7}" for h in header)]
        for row in self.rows():
            values = [row["equity"]] + [row[f"win_rate_{n}"] for n in players]
            lines.append("  ".join([f"{row['hand']:>7}"] + [f"{v:7.4f}" for v in values]))
        return "\n".join(lines)

    def to_stored(self) -> dict:
        """What the store keeps (see :mod:`matchdb.storage.derived`); :meth:`from_stored` reads it back."""
        return {
            "classes": list(self.classes),
            "equity": self.equity.tolist(),
            "win_rate": {str(n): v.tolist() for n, v in self.win_rate.items()},
            "provenance": self.provenance,
        }

    @classmethod
    def from_stored(cls, data: dict) -> PreflopTable:
        """The table :meth:`to_stored` wrote."""
        return cls(
            classes=tuple(data["classes"]),
            equity=np.array(data["equity"]),
            win_rate={int(n): np.array(v) for n, v in data["win_rate"].items()},
            provenance=data.get("provenance", {}),
        )

    def with_players(self, players: Iterable[int]) -> PreflopTable:
        """The same table holding only the naive win rates for ``players``."""
        return PreflopTable(self.classes, self.equity, {n: self.win_rate[n] for n in players}, self.provenance)


@jit
def _level_histogram(table, row_class, weight, histogram):
    """Add ``weight`` x the count of each W level per class, over every valid entry."""
    for row in range(table.shape[0]):
        target = histogram[row_class[row]]
        for column in range(table.shape[1]):
            v = table[row, column]
            if v != SENTINEL:
                target[v] += weight


def compute_preflop(tables: Iterable) -> PreflopTable:
    """Compute the preflop table from every canonical table.

    ``tables`` yields objects with ``hands`` (the (1176, 2) card ids of the
    rows), ``orbit`` (the orbit size) and ``table`` (the decoded W), one per
    canonical flop, all 1,755 of them: :meth:`matchdb.MatchDB.tables` does.
    """
    started = time.perf_counter()
    columns = board_columns(())
    ones = np.ones(N_PAIRS)
    score = np.zeros(len(CLASSES))  # orbit-weighted wins + ties / 2
    deals = np.zeros(len(CLASSES))
    histogram = np.zeros((len(CLASSES), N_LEVELS), dtype=np.int64)
    for flop in tables:
        row_class = CLASS_OF_HAND[hand_positions(flop.hands[:, 0], flop.hands[:, 1])]
        table_score, table_deals = all_hands_scores(flop.table, columns, ones)
        np.add.at(score, row_class, flop.orbit * table_score)
        np.add.at(deals, row_class, flop.orbit * table_deals)
        _level_histogram(flop.table, row_class, flop.orbit, histogram)
    levels = np.arange(N_LEVELS) / MAX_W
    entries = histogram.sum(axis=1)
    win_rate = {n: (histogram * levels ** (n - 1)).sum(axis=1) / entries for n in PLAYERS}
    return PreflopTable(
        classes=CLASSES,
        equity=score / deals,
        win_rate=win_rate,
        provenance={"seconds": round(time.perf_counter() - started, 1)},
    )
