"""The base of every answer (:class:`Answer`), the one-hand, heads-up and multiway answers, and the grid helpers.

Import them from :mod:`matchdb.answers`, which re-exports every name here
beside the answers of its other modules (they build on this one).
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, overload

import numpy as np

from matchdb.core.cards import RANKS, CardsLike
from matchdb.core.hole_cards import hand_index
from matchdb.errors import MatchdbError
from matchdb.plots import grid_colour

__all__ = [
    "Answer",
    "WinRate",
    "Outcome",
    "HandReport",
    "RangeEquity",
    "HandTable",
    "Multiway",
    "class_cell",
    "class_grid",
    "format_grid",
    "grid_html",
    "grid_text",
    "plain",
    "plural",
    "require_pandas",
    "write_json",
]

#: Row and column labels of a class grid: row and column 0 is the ace.
_GRID_RANKS = "AKQJT98765432"


def _share(value: float, percent: bool) -> str:
    """A probability or equity as the text answers print it: six decimals, or with ``percent`` four decimals of a percent."""
    return f"{100 * value:.4f} %" if percent else f"{value:.6f}"


def _where(board: str) -> str:
    """``'on 2c7dJh'``, or ``'preflop'`` for an empty board."""
    return f"on {board}" if board else "preflop"


@overload
def plain(value: dict[Any, Any]) -> dict[str, Any]: ...
@overload
def plain(value: Any) -> Any: ...
def plain(value: Any) -> Any:
    """``value`` as plain JSON types: lists for arrays, None for NaN and infinities, dicts of answers."""
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, Answer):
        return value.to_dict()
    return value


def require_pandas() -> Any:
    """The pandas module, or a one-sentence :class:`MatchdbError` when it (the ``notebook`` extra) is not installed."""
    try:
        import pandas
    except ImportError:
        raise MatchdbError("to_pandas() needs pandas (the notebook extra); install it with: pip install 'matchdb[notebook]'.") from None
    return pandas


def write_json(data: Any, path: str | os.PathLike[str] | None = None) -> str:
    """``data`` as JSON text (:func:`plain` first: NaN becomes null), also written to ``path`` when given.

    >>> write_json({"equity": np.float64(0.5), "values": np.array([1.0, np.nan])})
    '{"equity": 0.5, "values": [1.0, null]}'
    """
    text = json.dumps(_plain(data), allow_nan=False)
    if path is not None:
        from matchdb.outputs import save_text

        save_text(path, text)
    return text


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """An answer class's field names, found once (every answer checks its fields when made)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(item.name for item in fields(cls))
    return names


@dataclass(frozen=True)
class Answer:
    """Base of every answer: JSON and text renderings, notebook displays, and no NaN in scalar fields.

    Numpy scalars given to an answer are kept as plain Python numbers, so its
    ``repr`` reads ``0.5``, never ``np.float64(0.5)``.
    """

    def __post_init__(self) -> None:
        for name in _field_names(type(self)):
            values = getattr(self, name)
            if isinstance(values, (np.floating, np.integer, np.bool_)):
                values = values.item()
                object.__setattr__(self, name, values)
            for value in values if isinstance(values, tuple) else (values,):
                if isinstance(value, (float, np.floating)) and not math.isfinite(value):
                    raise MatchdbError(f"The answer's {name} would be {value}; no finite answer exists for this question.")

    def to_dict(self) -> dict[str, Any]:
        """The answer as plain JSON types (lists for arrays, None where an array holds NaN): ``json.dumps`` takes it."""
        return {item.name: _plain(getattr(self, item.name)) for item in fields(self)}

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """:meth:`to_dict` as JSON text, always a str; also written to ``path`` when given."""
        return write_json(self.to_dict(), path)

    def to_text(self) -> str:
        """The answer as the command line prints it."""
        return "\n".join(f"{key}: {value}" for key, value in self.to_dict().items())

    def to_pandas(self) -> Any:
        """The answer as a pandas DataFrame (the ``notebook`` extra): one row of its fields, for a plain answer.

        Answers with many rows (a :class:`HandTable`, a report, a preflop
        table) give one row per hand, flop or class instead.
        """
        pandas = require_pandas()
        return pandas.DataFrame([self.to_dict()])

    def _repr_html_(self) -> str:
        """What a notebook shows: the answer's text."""
        return f"<pre>{html.escape(self.to_text())}</pre>"


@dataclass(frozen=True)
class WinRate(Answer):
    """The article's naive win rate mean((1 - S) ** (players - 1)) of a hand on a board."""

    hole: str
    board: str
    players: int
    win_rate: float

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: as percentages, as ``matchdb query --percent``)."""
        return f"{self.hole} {_where(self.board)}\n  naive win rate, {self.players} players: {_share(self.win_rate, percent)}"


@dataclass(frozen=True, kw_only=True)
class Outcome(Answer):
    """Exact heads-up result against a random hand or a range: win, tie and loss sum to 1; equity = win + tie / 2."""

    hole: str
    board: str
    villain: str
    equity: float
    win: float
    tie: float
    loss: float

    @classmethod
    def of(cls, hole: str, board: str, villain: str, win: float, tie: float, loss: float) -> Outcome:
        """The outcome with its equity computed from win and tie."""
        return cls(hole=hole, board=board, villain=villain, equity=win + tie / 2, win=win, tie=tie, loss=loss)

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: as percentages, as ``matchdb query --percent``)."""
        return (
            f"{self.hole} {_where(self.board)}\n"
            f"  exact heads-up equity vs {self.villain}: {_share(self.equity, percent)}\n"
            f"  win {_share(self.win, percent)}  tie {_share(self.tie, percent)}  loss {_share(self.loss, percent)}"
        )


@dataclass(frozen=True)
class HandReport(Answer):
    """What ``matchdb query`` shows of a hand: the naive win rate and the exact heads-up outcome."""

    hole: str
    board: str
    players: int
    villain: str
    win_rate: float
    equity: float
    win: float
    tie: float
    loss: float

    @classmethod
    def of(cls, naive: WinRate, exact: Outcome) -> HandReport:
        """Both answers about one hand in one."""
        return cls(naive.hole, naive.board, naive.players, exact.villain, naive.win_rate, exact.equity, exact.win, exact.tie, exact.loss)

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: as percentages, as ``matchdb query --percent``)."""
        return (
            f"{self.hole} {_where(self.board)}\n"
            f"  naive win rate, {self.players} players: {_share(self.win_rate, percent)}\n"
            f"  exact heads-up equity vs {self.villain}: {_share(self.equity, percent)}\n"
            f"  win {_share(self.win, percent)}  tie {_share(self.tie, percent)}  loss {_share(self.loss, percent)}"
        )


@dataclass(frozen=True, kw_only=True)
class RangeEquity(Answer):
    """Exact heads-up result of a hero range against a villain range on a board (every consistent deal, weighted).

    ``win``, ``tie`` and ``loss`` are the hero range's shares of the weighted
    deals; they sum to 1 and ``equity = win + tie / 2``.

    >>> answer = RangeEquity(hero="QQ+", villain="JJ-99", board="", equity=0.81, win=0.8, tie=0.02, loss=0.18)
    >>> print(answer.to_text())
    QQ+ vs JJ-99 preflop
      exact equity of the hero range: 0.810000
      win 0.800000  tie 0.020000  loss 0.180000
    """

    hero: str
    villain: str
    board: str
    equity: float
    win: float
    tie: float
    loss: float

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: as percentages, as ``matchdb query --percent``)."""
        return (
            f"{self.hero} vs {self.villain} {_where(self.board)}\n"
            f"  exact equity of the hero range: {_share(self.equity, percent)}\n"
            f"  win {_share(self.win, percent)}  tie {_share(self.tie, percent)}  loss {_share(self.loss, percent)}"
        )


@dataclass(frozen=True)
class HandTable(Answer):
    """A figure for every private hand on one board.

    ``hands`` are the 1,326 two-card hands as text in :func:`matchdb.hand_order`
    and ``values`` the figure of each, NaN where the hand shares a card with
    the board (``null`` in JSON).
    """

    board: str
    figure: str
    hands: tuple[str, ...]
    values: np.ndarray

    def __repr__(self) -> str:
        possible = int(np.isfinite(self.values).sum())
        return f"HandTable({self.figure} on {self.board}: {possible} of {len(self.hands)} hands possible)"

    def value(self, hand: CardsLike) -> float:
        """The figure of one hand (text like ``'AhKh'`` or two cards); NaN when it touches the board."""
        return float(self.values[hand_index(hand)])

    def grid(self) -> np.ndarray:
        """13 x 13 mean by starting-hand class: row/column 0 is the ace; suited above the diagonal.

        ``grid[i, j]`` with i < j is the suited class of ranks (12 - i, 12 - j), with
        i > j the offsuit one, and the diagonal holds the pairs. NaN where no
        hand of a class is possible on the board.
        """
        return class_grid(self.hands, self.values, ~np.isnan(self.values))

    def plot(self, ax: Any = None, out: str | os.PathLike[str] | None = None) -> Any:
        """Draw :meth:`grid` as a heat map with each class's value (needs matplotlib, the ``plot`` extra); return the Axes.

        Neutral colour at the fair share: 0.5 for an equity, 1 / players for a
        naive win rate. ``out`` saves a PNG; without ``ax`` or ``out`` it draws
        on a new pyplot figure (a notebook shows it).

        >>> ax = db.equities("2c7dJh").plot(out="grid.png")
        >>> ax.get_title(), bool((ax.images[0].get_array() == db.equities("2c7dJh").grid()).all())
        ('exact equity vs random on 2c7dJh', True)
        """
        from matchdb.plots import plot_grid

        return plot_grid(self.grid(), title=f"{self.figure} on {self.board}", center=self.center(), ax=ax, out=out,
                         label=self.figure)

    def center(self) -> float:
        """The fair share, drawn neutral: 0.5 for a heads-up equity, 1 / players for a naive win rate."""
        players = re.search(r"(\d+) players", self.figure)
        return 1 / int(players.group(1)) if players else 0.5

    def to_text(self) -> str:
        return format_grid(f"{self.figure} of every hand {_where(self.board)}", self.grid())


    def to_pandas(self, grid: bool = False) -> Any:
        """One row per hand (hand, class, value; NaN where it touches the board), or with ``grid`` the 13 x 13 class grid.

        >>> frame = db.equities("2c7dJh").to_pandas()
        >>> frame.loc["AhKh", "class"], round(float(frame.loc["AhKh", "value"]), 6), len(frame)
        ('AKs', 0.572571, 1326)
        >>> db.equities("2c7dJh").to_pandas(grid=True).loc["A", "K"] == db.equities("2c7dJh").grid()[0, 1]
        np.True_
        """
        pandas = require_pandas()
        if grid:
            labels = list(_GRID_RANKS)
            return pandas.DataFrame(self.grid(), index=pandas.Index(labels, name="row"), columns=labels)
        return pandas.DataFrame({"class": [_class_of(hand) for hand in self.hands], "value": np.asarray(self.values)},
                                index=pandas.Index(self.hands, name="hand"))

    def _repr_html_(self) -> str:
        """The coloured 13 x 13 grid, as on the page."""
        return grid_html(self.grid(), f"{self.figure} of every hand {_where(self.board)}", self.center())


def class_grid(hands: Sequence[str], values: Sequence[float] | np.ndarray, valid: Sequence[bool] | np.ndarray) -> np.ndarray:
    """13 x 13 mean of per-hand ``values`` by starting-hand class, over the hands where ``valid``.

    ``hands`` are hands written high rank first (``'AhKh'``). Row/column 0 is
    the ace; ``grid[i, j]`` with i < j is the suited class of ranks
    (12 - i, 12 - j), with i > j the offsuit one, pairs on the diagonal. NaN
    where no valid hand of a class is given.

    >>> grid = class_grid(["AhKh", "AsKh", "AdAc"], [0.5, 0.25, 1.0], [True, True, True])
    >>> float(grid[0, 1]), float(grid[1, 0]), float(grid[0, 0])
    (0.5, 0.25, 1.0)
    """
    totals = np.zeros((13, 13))
    counts = np.zeros((13, 13))
    for hand, value, ok in zip(hands, values, valid, strict=True):
        if not ok:
            continue
        high, low = sorted((RANKS.index(hand[0]), RANKS.index(hand[2])), reverse=True)
        i, j = 12 - high, 12 - low
        if hand[1] != hand[3] and high != low:
            i, j = j, i  # offsuit below the diagonal
        totals[i, j] += value
        counts[i, j] += 1
    with np.errstate(invalid="ignore"):
        return totals / counts


def class_cell(name: str) -> tuple[int, int]:
    """The grid cell (row, column) of a starting-hand class: pairs on the diagonal, suited above it, offsuit below.

    >>> class_cell("AA"), class_cell("AKs"), class_cell("AKo"), class_cell("32o")
    ((0, 0), (0, 1), (1, 0), (12, 11))
    """
    if not isinstance(name, str) or len(name) not in (2, 3) or any(r not in _GRID_RANKS for r in name[:2]):
        raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
    i, j = sorted((_GRID_RANKS.index(name[0]), _GRID_RANKS.index(name[1])))
    if i == j and len(name) == 2:
        return i, i
    if i == j or name[2:] not in ("s", "o"):
        raise MatchdbError(f"The starting hand {name!r} is not a class like 'AA', 'AKs' or 'AKo'.")
    return (i, j) if name[2:] == "s" else (j, i)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, in the plural unless ``count`` is 1: ``plural(1, "runout")`` is '1 runout'.

    >>> plural(1, "opponent"), plural(2, "opponent"), plural(1755, "table"), plural(0, "class", "classes")
    ('1 opponent', '2 opponents', '1755 tables', '0 classes')
    """
    return f"{count} {word if count == 1 else many or word + 's'}"


def _class_of(hand: str) -> str:
    """The starting-hand class of a hand written high rank first: AhKh -> AKs."""
    if hand[0] == hand[2]:
        return hand[0] + hand[2]
    return hand[0] + hand[2] + ("s" if hand[1] == hand[3] else "o")


def grid_text(grid: np.ndarray, title: str, center: float = 0.5, colour: bool = False) -> str:
    """A 13 x 13 class grid for a terminal, values in % (one decimal), ``-`` where no hand is possible.

    With ``colour`` each cell is painted as :func:`grid_colour` says (24-bit
    ANSI colours: red below ``center``, green above, the text black or white).

    >>> print(grid_text(db.equities("2c7dJh").grid(), "exact equity vs random on 2c7dJh").splitlines()[2])
      A  87.7  56.6  55.7  85.6  54.5  52.8  51.9  74.0  48.5  49.0  48.6  48.4  60.7
    """
    lines = [f"{title}, in % (suited above the diagonal, offsuit below; neutral at {100 * center:.1f} %)",
             "   " + "".join(f"{rank:>6}" for rank in _GRID_RANKS)]
    for i, rank in enumerate(_GRID_RANKS):
        cells = []
        for j in range(13):
            value = float(grid[i, j])
            cell = "     -" if math.isnan(value) else f"{100 * value:6.1f}"
            if colour:
                background, ink = grid_colour(value, center)
                rgb = ";".join(str(int(background[k:k + 2], 16)) for k in (1, 3, 5))
                cell = f"\x1b[48;2;{rgb}m\x1b[{'30' if ink == '#000000' else '97'}m{cell}\x1b[0m"
            cells.append(cell)
        lines.append(f"{rank:>3}" + "".join(cells))
    return "\n".join(lines)


def grid_html(grid: np.ndarray, title: str, center: float = 0.5) -> str:
    """A 13 x 13 class grid as an HTML table: each cell its class and value in %, coloured as :func:`grid_colour` says.

    >>> page = grid_html(db.equities("2c7dJh").grid(), "equity")
    >>> page.count("<td"), "AKs<br>56.6" in page
    (169, True)
    """
    rows = [(f"<caption>{html.escape(title)} (in %; suited above the diagonal, offsuit below; "
             f"neutral at {100 * center:.1f} %)</caption>"),
            "<tr><th></th>" + "".join(f"<th>{r}</th>" for r in _GRID_RANKS) + "</tr>"]
    for i, rank in enumerate(_GRID_RANKS):
        cells = []
        for j in range(13):
            value = float(grid[i, j])
            background, ink = grid_colour(value, center)
            shown = "-" if math.isnan(value) else f"{100 * value:.1f}"
            name = rank * 2 if i == j else _GRID_RANKS[min(i, j)] + _GRID_RANKS[max(i, j)] + ("s" if i < j else "o")
            cells.append(f'<td style="background:{background};color:{ink};text-align:center;padding:2px 4px">{name}<br>{shown}</td>')
        rows.append(f"<tr><th>{rank}</th>{''.join(cells)}</tr>")
    return '<table style="border-collapse:collapse;font-size:11px">' + "".join(rows) + "</table>"


def format_grid(title: str, grid: np.ndarray) -> str:
    """A 13 x 13 class grid as text: ranks on both sides, suited above the diagonal, '-' where no hand is possible."""
    header = "      " + "".join(f"{rank:>7}" for rank in reversed(RANKS))
    lines = [f"{title} (suited above the diagonal, offsuit below)", header]
    for i, rank in enumerate(reversed(RANKS)):
        cells = "".join("      -" if np.isnan(v) else f"{v:7.3f}" for v in grid[i])
        lines.append(f"{rank:>6}{cells}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Multiway(Answer):
    """A hand (or range) against several opponents: win, tie and loss probabilities and the pot share.

    ``equity`` splits each tie equally among those tied. ``exact`` says whether the
    figures are counted; else they are sampled and ``standard_error`` is that of the
    equity (``seed`` reproduces it). An approximation by design (the article's
    independent-opponents formula, West's drop-out) says so in ``method`` and has
    no standard error. ``player_equities`` lists every player's equity, hero first,
    where the question makes it cheap (known hands; exact all-range questions).
    """

    hole: str
    board: str
    opponents: tuple[str, ...]
    equity: float
    win: float
    tie: float
    loss: float
    exact: bool
    standard_error: float | None
    samples: int
    seed: int | None
    method: str
    player_equities: tuple[float, ...] | None = None

    @classmethod
    def of(cls, hole: str, board: str, opponents: Any, result: Any) -> Multiway:
        """The answer of a multiway result (:class:`matchdb.equity.multiway.MultiwayResult`)."""
        se = result.standard_error
        return cls(
            hole, board, tuple(opponents), result.equity, result.win, result.tie, result.loss, result.exact,
            None if se != se else float(se), result.samples, result.seed, result.method,
            None if result.players is None else tuple(float(p) for p in result.players),
        )

    def __repr__(self) -> str:
        how = "exact=True" if self.exact else f"exact=False, method={self.method!r}"
        if self.standard_error is not None:
            how += f", standard_error={self.standard_error!r}, samples={self.samples}, seed={self.seed}"
        return f"Multiway({self.hole} on {self.board} against {', '.join(self.opponents)}: equity={self.equity!r}, {how})"

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: as percentages, as ``matchdb query --percent``)."""
        how = "exact" if self.exact else f"{self.method}, an approximation" if self.method != "sample" else "sampled"
        if not self.exact and self.samples and self.standard_error is not None:
            how += f", standard error {_share(self.standard_error, percent)} from {self.samples} sampled deals, seed {self.seed}"
        lines = [
            f"{self.hole} {_where(self.board)} against {plural(len(self.opponents), 'opponent')} ({', '.join(self.opponents)})",
            f"  equity {_share(self.equity, percent)} ({how})",
            f"  win {_share(self.win, percent)}  tie {_share(self.tie, percent)}  loss {_share(self.loss, percent)}",
        ]
        if self.player_equities is not None:
            names = (self.hole, *self.opponents)
            shares = (f"{n} {_share(e, percent)}" for n, e in zip(names, self.player_equities, strict=True))
            lines.append("  every player: " + "  ".join(shares))
        return "\n".join(lines)
