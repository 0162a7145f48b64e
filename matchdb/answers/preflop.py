"""The preflop answers: the 169 starting-hand classes' figures, averaged over every board.

:class:`PreflopTable` (heads-up equity and naive win rates, from
:meth:`matchdb.MatchDB.preflop`) and :class:`PreflopMultiway` (equity against 1
to 9 random hands, from :meth:`matchdb.MatchDB.preflop_multiway`); both are
computed in :mod:`matchdb.equity.preflop` and kept in the store as derived
data through their ``to_stored`` and ``from_stored``.

>>> table = PreflopTable.from_stored({"classes": ["AA"], "equity": [0.852], "win_rate": {"2": [0.856]}})
>>> table.row("AA")
{'hand': 'AA', 'combos': 6, 'equity': 0.852, 'win_rate_2': 0.856}
>>> table
PreflopTable(1 classes: heads-up equity, naive win rates for 2 players)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchdb.answers.base import Answer, class_cell, grid_html, require_pandas
from matchdb.core.hole_cards import class_index, combos
from matchdb.errors import MatchdbError

__all__ = ["PreflopTable", "PreflopMultiway", "PLAYERS", "PREFLOP_KIND", "PREFLOP_VERSION", "PREFLOP_MULTIWAY_KIND",
           "PREFLOP_MULTIWAY_VERSION"]

#: Player counts the naive win rate is tabulated for.
PLAYERS = tuple(range(2, 11))

#: How a :class:`PreflopTable` is kept in a store (``derived/preflop.json``), and its layout's version.
PREFLOP_KIND = "preflop"
PREFLOP_VERSION = 2
#: How a :class:`PreflopMultiway` is kept in a store (``derived/preflop_multiway.json``), and its layout's version.
PREFLOP_MULTIWAY_KIND = "preflop_multiway"
PREFLOP_MULTIWAY_VERSION = 2


@dataclass(frozen=True)
class PreflopTable(Answer):
    """Preflop figures for the 169 classes, in :data:`matchdb.core.hole_cards.CLASSES` order."""

    classes: tuple[str, ...]
    equity: np.ndarray  # (169,) exact heads-up equity against a random hand
    win_rate: dict[int, np.ndarray]  # players -> (169,) naive win rate
    provenance: dict[str, Any] = field(default_factory=dict)

    def row(self, name: str) -> dict[str, Any]:
        """All figures of one class, like ``table.row("AKs")``."""
        if name not in self.classes:
            class_index(name)  # a name that is no class at all says so
            raise MatchdbError(f"The starting hand {name!r} is not in this table.")
        i = self.classes.index(name)
        return {"hand": name, "combos": combos(name), "equity": float(self.equity[i])} | {
            f"win_rate_{n}": float(values[i]) for n, values in self.win_rate.items()
        }

    def rows(self) -> list[dict[str, Any]]:
        """Every class's :meth:`row`, strongest-looking first."""
        return [self.row(name) for name in self.classes]

    def to_dict(self) -> dict[str, Any]:
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
        for name, value in zip(self.classes, values, strict=True):
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

    def to_stored(self) -> dict[str, Any]:
        """What the store keeps (see :mod:`matchdb.storage.derived`); :meth:`from_stored` reads it back."""
        return {
            "classes": list(self.classes),
            "equity": self.equity.tolist(),
            "win_rate": {str(n): v.tolist() for n, v in self.win_rate.items()},
            "provenance": self.provenance,
        }

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> PreflopTable:
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


@dataclass(frozen=True)
class PreflopMultiway(Answer):
    """Preflop equity of the 169 starting-hand classes against 1 to 9 random hands.

    ``equity[c, k - 1]`` is class ``classes[c]`` against k random opponents, averaged over
    every deal; ``standard_error`` is 0 where ``exact[k - 1]`` (k = 1 and 2: counted from
    every table), else the standard error of the sampled figure. ``win`` and ``tie`` are the
    chances to win alone and to split the pot, where exact (NaN elsewhere). ``sampled_heads_up``
    is the sampled k = 1 figure, kept as a check on the sampler against the exact one.
    """

    classes: tuple[str, ...]
    opponents: tuple[int, ...]
    equity: np.ndarray
    standard_error: np.ndarray
    exact: tuple[bool, ...]
    sampled_heads_up: np.ndarray
    provenance: dict[str, Any]
    win: np.ndarray
    tie: np.ndarray

    def row(self, name: str) -> dict[str, Any]:
        """Figures of one class, like ``table.row("AA")``: equity and standard error per opponent count."""
        if name not in self.classes:
            raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
        i = self.classes.index(name)
        return {
            "hand": name,
            "equity": {k: float(self.equity[i, j]) for j, k in enumerate(self.opponents)},
            "standard_error": {k: float(self.standard_error[i, j]) for j, k in enumerate(self.opponents)},
        }

    def rows(self) -> list[dict[str, Any]]:
        """One row per class: its equity and standard error against each number of opponents (flat keys)."""
        return [
            {"hand": name}
            | {f"equity_{k}": float(self.equity[i, j]) for j, k in enumerate(self.opponents)}
            | {f"standard_error_{k}": float(self.standard_error[i, j]) for j, k in enumerate(self.opponents)}
            for i, name in enumerate(self.classes)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows(), "exact": list(self.exact), "provenance": self.provenance}

    def __repr__(self) -> str:
        return (f"PreflopMultiway({len(self.classes)} classes against {self.opponents[0]}..{self.opponents[-1]} random "
                f"opponents, standard errors at most {float(self.standard_error.max()):.5f})")

    def to_pandas(self) -> Any:
        """One row per class (equity_K and standard_error_K for K opponents), indexed by the class."""
        return require_pandas().DataFrame(self.rows()).set_index("hand")

    def to_text(self) -> str:
        header = ["hand"] + [f"vs{k}" for k in self.opponents]
        lines = ["  ".join(f"{h:>7}" for h in header)]
        for i, name in enumerate(self.classes):
            lines.append("  ".join([f"{name:>7}"] + [f"{v:7.4f}" for v in self.equity[i]]))
        lines.append(f"({self._how()})")
        return "\n".join(lines)

    def _how(self) -> str:
        """Which columns are exact and which sampled, in words: 'against 1-2 opponents exact; against 3-9 sampled, ...'."""
        def span(ks: list[int]) -> str:
            return f"{ks[0]}-{ks[-1]}" if len(ks) > 1 else str(ks[0])

        exact = [k for k, x in zip(self.opponents, self.exact, strict=True) if x]
        sampled = [k for k, x in zip(self.opponents, self.exact, strict=True) if not x]
        parts = [f"against {span(exact)} opponent{'s' if exact != [1] else ''} exact"] if exact else []
        if sampled:
            worst = float(self.standard_error.max())
            parts.append(f"against {span(sampled)} sampled, standard errors at most {worst:.5f}")
        return "; ".join(parts)

    def to_stored(self) -> dict[str, Any]:
        """What the store keeps (see :mod:`matchdb.storage.derived`); :meth:`from_stored` reads it back."""
        return {
            "version": PREFLOP_MULTIWAY_VERSION,
            "classes": list(self.classes),
            "opponents": list(self.opponents),
            "equity": self.equity.tolist(),
            "standard_error": self.standard_error.tolist(),
            "exact": list(self.exact),
            "sampled_heads_up": self.sampled_heads_up.tolist(),
            "win": {str(k): self.win[:, j].tolist() for j, k in enumerate(self.opponents) if self.exact[j]},
            "tie": {str(k): self.tie[:, j].tolist() for j, k in enumerate(self.opponents) if self.exact[j]},
            "provenance": self.provenance,
        }

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> PreflopMultiway:
        """The table :meth:`to_stored` wrote."""
        if data.get("version") != PREFLOP_MULTIWAY_VERSION:
            raise MatchdbError(
                f"The multiway preflop table has version {data.get('version')!r}; expected {PREFLOP_MULTIWAY_VERSION}."
            )
        opponents = tuple(int(k) for k in data["opponents"])
        equity = np.array(data["equity"], dtype=np.float64)
        win, tie = np.full(equity.shape, np.nan), np.full(equity.shape, np.nan)
        for j, k in enumerate(opponents):
            if str(k) in data["win"]:
                win[:, j] = data["win"][str(k)]
                tie[:, j] = data["tie"][str(k)]
        return cls(
            classes=tuple(data["classes"]),
            opponents=opponents,
            equity=equity,
            standard_error=np.array(data["standard_error"], dtype=np.float64),
            exact=tuple(bool(x) for x in data["exact"]),
            sampled_heads_up=np.array(data["sampled_heads_up"], dtype=np.float64),
            provenance=dict(data.get("provenance", {})),
            win=win,
            tie=tie,
        )
