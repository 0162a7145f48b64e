"""Plots: the 13 x 13 grid of starting-hand classes as a heat map, and a hand's exact equity after each turn card.

The drawing functions take plain numbers (a 13 x 13 grid; cards and their
values), draw them with matplotlib (the ``plot`` extra: ``pip install
'matchdb[plot]'``), save a PNG when given ``out`` and return the Axes, whose
artists hold exactly the numbers drawn (``ax.images[0].get_array()``, the bar
heights of ``ax.patches``), so a test or a notebook can check them. Without
``ax`` or ``out`` they draw on a new pyplot figure, which a notebook shows.

The numbers come from the query layer: :func:`grid_table` picks the
:class:`matchdb.HandTable` a grid shows (``matchdb plot grid`` and the page's
``/v1/hands`` both use it) and :func:`turn_equities` asks a database for the
equity on every turn board. This module imports no database code: it takes the
database as an argument, so it sits low in the layers and
:meth:`matchdb.HandTable.plot` can use it.

>>> class_name(0, 1), class_name(1, 0), class_name(12, 12)
('AKs', 'AKo', '22')
>>> grid_table(db, "2c7dJh", figure="win-rate", villain="QQ+")
Traceback (most recent call last):
...
matchdb.errors.MatchdbError: The naive win rate is against random hands; the villain range 'QQ+' goes with the figure 'equity'.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import check_players
from matchdb.core.ranges import RangeLike
from matchdb.errors import MatchdbError, RangeError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "FIGURES",
    "GRID_RANKS",
    "class_name",
    "grid_colour",
    "grid_table",
    "text_colour",
    "TurnEquities",
    "turn_equities",
    "require_matplotlib",
    "plot_grid",
    "plot_turns",
    "plot_distribution",
    "plot_action_mix",
]

#: What a grid can show: exact heads-up equity (against a villain range) or the naive win rate (for N players).
FIGURES = ("equity", "win-rate")
#: Row and column labels of a grid: row and column 0 is the ace.
GRID_RANKS = "AKQJT98765432"
#: The grid's colour scale (matplotlib's RdYlGn at 0, 0.5 and 1): red below the fair share, yellow at it, green above.
_STOPS = ((215, 48, 39), (255, 255, 191), (26, 152, 80))
#: Bar colours of the four suits (a four-colour deck).
_SUIT_COLOURS = {"s": "#222222", "h": "#c62828", "d": "#1565c0", "c": "#2e7d32"}


def class_name(i: int, j: int) -> str:
    """The starting-hand class of grid cell (i, j): pairs on the diagonal, suited above it, offsuit below."""
    if i == j:
        return GRID_RANKS[i] * 2
    high, low = min(i, j), max(i, j)
    return GRID_RANKS[high] + GRID_RANKS[low] + ("s" if i < j else "o")


def grid_colour(value: float, center: float = 0.5) -> tuple[str, str]:
    """Background and text colour of a grid cell: red below ``center``, yellow at it, green above; grey for NaN.

    The text is black or white, whichever contrasts more with the background
    (WCAG relative luminance), so a cell reads on every colour.

    >>> grid_colour(0.5), grid_colour(0.0), grid_colour(1.0), grid_colour(float("nan"))
    (('#ffffbf', '#000000'), ('#d73027', '#ffffff'), ('#1a9850', '#000000'), ('#d0d0d0', '#000000'))
    """
    if math.isnan(value):
        return "#d0d0d0", "#000000"
    t = 0.5 * value / center if value < center else 0.5 + 0.5 * (value - center) / (1 - center)
    t = min(max(t, 0.0), 1.0)
    a, b, s = (_STOPS[0], _STOPS[1], t / 0.5) if t < 0.5 else (_STOPS[1], _STOPS[2], (t - 0.5) / 0.5)
    rgb = [round(x + (y - x) * s) for x, y in zip(a, b, strict=True)]
    return "#" + "".join(f"{c:02x}" for c in rgb), text_colour(rgb)


def text_colour(rgb: Sequence[float]) -> str:
    """Black or white, whichever has the higher contrast ratio with the colour ``rgb`` (0..255 each)."""
    linear = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "#000000" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#ffffff"


def grid_table(db: Any, board: CardsLike, figure: str = "equity", villain: RangeLike = None, players: int = 2) -> Any:
    """The :class:`matchdb.HandTable` a grid shows: ``db.equities(board, villain)`` or ``db.win_rates(board, players)``.

    The exact equity is heads-up (``players`` 2) against ``villain`` (default
    any hand); the naive win rate is against ``players - 1`` random hands, so
    it takes no villain range.

    >>> grid_table(db, "2c7dJh").value("AhKh") == db.equity("AhKh", "2c7dJh")
    True
    >>> grid_table(db, "2c7dJh", players=3)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The exact equity is heads-up, for 2 players, not 3; the figure 'win-rate' gives the naive win rate for 3 players.
    """
    if figure not in FIGURES:
        raise MatchdbError(f"The figure {figure!r} is not one of {', '.join(map(repr, FIGURES))}.")
    players = check_players(players)
    if figure == "equity":
        if players != 2:
            raise MatchdbError(
                f"The exact equity is heads-up, for 2 players, not {players}; the figure 'win-rate' gives the naive win rate for {players} players."
            )
        return db.equities(board, villain)
    if villain is not None:
        raise MatchdbError(f"The naive win rate is against random hands; the villain range {villain!r} goes with the figure 'equity'.")
    return db.win_rates(board, players)


class TurnEquities(NamedTuple):
    """A hand's exact equity on the flop and after each possible turn card (NaN where the villain range has no hand left)."""

    flop_equity: float
    cards: tuple[str, ...]  #: the turn cards, aces first, spades, hearts, diamonds, clubs within a rank
    values: np.ndarray  #: the equity on each turn board, ``db.equity(hole, flop + card, villain)``


def turn_equities(db: Any, hole: CardsLike, flop: CardsLike, villain: RangeLike = None) -> TurnEquities:
    """The exact heads-up equity of ``hole`` on ``flop`` and on each of the 47 turn boards, from ``db.outcome``.

    >>> turns = turn_equities(db, "AhKh", "2c7dJh")
    >>> len(turns.cards), turns.cards[:3], bool(turns.values[0] == db.equity("AhKh", "2c7dJhAs"))
    (47, ('As', 'Ad', 'Ac'), True)
    """
    flop_equity = db.outcome(hole, flop, villain).equity  # every check of the question, with the API's messages
    flop_ids = parse_cards(flop)
    if len(flop_ids) != 3:
        raise MatchdbError(f"The flop {flop!r} is {len(flop_ids)} cards; expected 3 (each turn card is dealt to it).")
    used = set(flop_ids) | set(parse_cards(hole))
    turns = sorted((c for c in range(52) if c not in used), key=lambda c: (-(c % 13), -(c // 13)))
    values = np.empty(len(turns))
    for k, card in enumerate(turns):
        try:
            values[k] = db.outcome(hole, format_cards((*flop_ids, card)), villain).equity
        except RangeError:  # the turn card takes the range's last hands: no equity on that board
            values[k] = np.nan
    values.flags.writeable = False
    return TurnEquities(float(flop_equity), tuple(format_cards((c,)) for c in turns), values)


def require_matplotlib() -> None:
    """Raise a one-sentence :class:`MatchdbError` when matplotlib (the ``plot`` extra) is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MatchdbError("Plotting needs matplotlib (the plot extra); install it with: pip install 'matchdb[plot]'.") from None


def _new_axes(ax: Axes | None, out: str | os.PathLike[str] | None, size: tuple[float, float]) -> Axes:
    """``ax``, or a new figure's Axes: a bare Figure when saving to ``out`` (no pyplot state), else pyplot's (a notebook shows it)."""
    require_matplotlib()
    if ax is not None:
        return ax
    if out is not None:
        from matplotlib.figure import Figure

        return Figure(figsize=size, layout="constrained").add_subplot()
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, layout="constrained")[1]


def _save(ax: Axes, out: str | os.PathLike[str] | None) -> None:
    if out is not None:
        from matchdb.outputs import save_figure

        save_figure(ax.figure, out, dpi=110)


def plot_grid(
    grid: np.ndarray,
    title: str | None = None,
    center: float = 0.5,
    ax: Any = None,
    out: str | os.PathLike[str] | None = None,
    label: str = "value",
) -> Any:
    """Draw a 13 x 13 grid of values in 0..1 as a heat map with each class's name and value (in %); return the Axes.

    ``center`` is the value drawn neutral (0.5 for heads-up equity, 1 / players
    for a naive win rate); NaN cells (no hand of the class is possible) are grey.
    The colour bar is in % like the cells, labelled ``label`` and marked at
    ``center``; each cell's text is black or white, whichever reads better on
    its colour (:func:`text_colour`).

    >>> ax = plot_grid(db.equities("2c7dJh").grid(), title="equity", out="grid.png")
    >>> ax.images[0].get_array().shape, ax.texts[1].get_text()
    ((13, 13), 'AKs\\n56.6')
    """
    grid = np.asarray(grid, dtype=float)
    if grid.shape != (13, 13):
        raise MatchdbError(f"The grid has shape {grid.shape}; expected (13, 13).")
    if not 0 < center < 1:
        raise MatchdbError(f"The neutral value {center!r} is out of range; expected a number strictly between 0 and 1.")
    ax = _new_axes(ax, out, (9.0, 8.2))
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.ticker import PercentFormatter

    cmap = colormaps["RdYlGn"].with_extremes(bad="#d0d0d0")
    norm = TwoSlopeNorm(vmin=0.0, vcenter=center, vmax=1.0)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm)
    for i in range(13):
        for j in range(13):
            value = grid[i, j]
            shown = "-" if np.isnan(value) else f"{100 * value:.1f}"
            rgba = cmap.get_bad() if np.isnan(value) else cmap(norm(value))
            ink = text_colour([round(255 * c) for c in rgba[:3]])
            ax.text(j, i, f"{class_name(i, j)}\n{shown}", ha="center", va="center", fontsize=6.5, color=ink)
    ax.set_xticks(range(13), list(GRID_RANKS))
    ax.set_yticks(range(13), list(GRID_RANKS))
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_xlabel("values in %; suited above the diagonal, offsuit below; grey: no hand possible")
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(xmax=1.0, decimals=0))
    bar.set_ticks(sorted({0.0, 0.25, 0.5, 0.75, 1.0, center}))
    bar.set_label(f"{label} in % (neutral at {100 * center:.1f} %)")
    if title:
        ax.set_title(title)
    _save(ax, out)
    return ax


def plot_turns(
    cards: Sequence[str],
    values: Sequence[float] | np.ndarray,
    title: str | None = None,
    reference: float | None = None,
    ax: Any = None,
    out: str | os.PathLike[str] | None = None,
) -> Any:
    """Draw one bar per turn card (its value; none where NaN), coloured by suit, and ``reference`` as a line; return the Axes.

    >>> turns = turn_equities(db, "AhKh", "2c7dJh")
    >>> ax = plot_turns(turns.cards, turns.values, reference=turns.flop_equity, out="turns.png")
    >>> len(ax.patches), bool(ax.patches[0].get_height() == turns.values[0])
    (47, True)
    """
    values = np.asarray(values, dtype=float)
    if len(cards) != len(values):
        raise MatchdbError(f"There are {len(cards)} cards and {len(values)} values; expected one value per card.")
    ax = _new_axes(ax, out, (11.0, 4.5))
    drawn = [k for k in range(len(values)) if np.isfinite(values[k])]
    ax.bar(drawn, values[drawn], color=[_SUIT_COLOURS.get(cards[k][-1:], "grey") for k in drawn], width=0.8)
    if reference is not None:
        ax.axhline(reference, color="#555555", linestyle="--", linewidth=1, label=f"on the flop: {reference:.4f}")
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xticks(range(len(cards)), list(cards), rotation=90, fontsize=7)
    ax.set_xlim(-0.7, len(cards) - 0.3)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("exact equity on the turn")
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    _save(ax, out)
    return ax


def plot_distribution(
    histogram: np.ndarray,
    ehs: float | None = None,
    title: str | None = None,
    ax: Any = None,
    out: str | os.PathLike[str] | None = None,
) -> Any:
    """Draw a hand's river-equity histogram (probability per equal bin over [0, 1]) with its mean; return the Axes.

    ``histogram`` is :attr:`matchdb.equity.distributions.HandDistribution.river_histogram`.

    >>> d = db.distribution("AhKh", "2c7dJh")
    >>> ax = plot_distribution(d.river_histogram, ehs=d.ehs, out="distribution.png")
    >>> len(ax.patches), bool(ax.patches[10].get_height() == d.river_histogram[10])
    (50, True)
    """
    values = np.asarray(histogram, dtype=float)
    if values.ndim != 1 or not len(values) or not np.isfinite(values).all():
        raise MatchdbError(f"A histogram must be a list of finite numbers, one per bin; got shape {values.shape}.")
    ax = _new_axes(ax, out, (9.0, 4.0))
    width = 1.0 / len(values)
    ax.bar(np.arange(len(values)) * width, values, width=width * 0.92, align="edge", color="#4c72b0")
    if ehs is not None:
        ax.axvline(ehs, color="#555555", linestyle="--", linewidth=1, label=f"EHS (the mean): {ehs:.4f}")
        ax.legend(loc="upper left", fontsize="small")
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("exact equity on the river")
    ax.set_ylabel("probability")
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    _save(ax, out)
    return ax


def plot_action_mix(
    frequencies: Any,
    title: str | None = None,
    ax: Any = None,
    out: str | os.PathLike[str] | None = None,
) -> Any:
    """Draw each row's mix of actions as one horizontal bar of stacked shares (a solution library's report by
    texture: rows are textures, columns the actions); return the Axes.

    ``frequencies`` is a pandas DataFrame of shares (each row summing to 1), rows labelled by its index.

    >>> import pandas as pd
    >>> mix = pd.DataFrame({"Check": [0.6, 0.2], "Bet 30": [0.4, 0.8]}, index=["paired", "unpaired"])
    >>> ax = plot_action_mix(mix, out="mix.png")
    >>> [round(float(p.get_width()), 2) for p in ax.patches]
    [0.6, 0.2, 0.4, 0.8]
    """
    values = np.asarray(frequencies, dtype=float)
    if values.ndim != 2 or not values.size or not np.isfinite(values).all():
        raise MatchdbError(f"An action mix must be a table of finite shares, a row per group; got shape {values.shape}.")
    labels = [str(label) for label in frequencies.index]
    ax = _new_axes(ax, out, (9.0, 0.5 * len(labels) + 1.5))
    left = np.zeros(len(labels))
    colours = ("#4c72b0", "#dd8452", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")
    for k, action in enumerate(frequencies.columns):
        ax.barh(labels, values[:, k], left=left, color=colours[k % len(colours)], label=str(action))
        left += values[:, k]
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("share of the range, weighted by combos")
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize="small")
    if title:
        ax.set_title(title)
    _save(ax, out)
    return ax
