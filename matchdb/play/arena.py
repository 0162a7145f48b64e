"""The arena: bots play many games against each other, reproducibly, and claims come with paired intervals.

Python::

    result = run_arena(["west", "west-tight", "allin", "fives"], games=1200, seeds=range(1, 6),
                       duplicate=True, db="data/matchdb.zarr")
    print(result.report())

Command line (``matchdb arena``; :mod:`matchdb.cli.play` defines its options)::

    matchdb arena --bots west,allin,fives --games 3000 --seeds 1-5 --duplicate --out results.csv

**Seats.** ``bots`` fill the seats, repeated in turn when there are fewer
bots than seats; results are pooled per bot name. Who sits where is drawn
anew for every game (plain) or set (duplicate), so no bot keeps the same
neighbours through a run and the order of the listing decides nothing
(``permute=False`` keeps the old cyclic seating of the listing, for
comparison).

**Duplicate mode.** A set replays one deal sequence under several seatings,
so every bot plays every seat's cards and the card luck largely cancels:
with at most four seats every order of the seated bots (2, 6 or 24 games a
set), beyond that every rotation of one random seating (``seats`` games).
``games`` is rounded up to whole sets.

**Seeds.** ``seeds`` (say ``range(1, 6)``) pools several seeds: each plays
the ``games`` and the sets of all of them are the units. Unit u of seed s
deals from a Generator seeded with ``(s, u)``, draws its seatings from
``(s, u, 2)`` and its bots' random numbers from ``(s, u, game, 1)``. The same
seeds give the same cards, decisions and results, whatever the number of
workers.

**Statistics.** The independent units are the games (plain) or the sets
(duplicate), of every seed. For each bot and unit the arena takes, over the
unit's games: wins per game (all its seats together; the win share),
finishing place (per seat), chips won per game (per seat; in tournaments in
starting stacks), big blinds won per 100 hands (per seat; each hand's result
divided by that hand's big blind) and chips invested. The tables show the
mean over units with a 95 % confidence interval (mean +- t x standard
deviation / sqrt(units), Student's t with units - 1 degrees of freedom: 1.96
for many units). **Paired differences:**
for every two bots, the per-unit difference of the main figure (bb/100 in
cash games; in tournaments the win share, since with rising blinds bb/100
can be negative for every bot at once), with its interval: the same cards
and seatings enter both sides, so the pairing removes most of the noise. The
report says "A beats B by x [lo, hi]" only where the interval excludes zero,
else "no difference shown". (With many pairs a few 95 % intervals exclude
zero by chance: a claim worth keeping holds on other seeds too, see
``docs/guide/bots-claims.md``.) Playing style pools every hand: VPIP (hands
with a voluntary preflop call or raise), PFR (preflop raises), aggression
factor (bets and raises / calls after the flop), flops seen, showdowns and
showdowns won.

**Results.** :class:`ArenaResult` is the result of a run, not an answer of
the database (:mod:`matchdb.answers` holds those): it renders the same way,
``to_text()`` for the terminal and ``to_dict()`` as JSON, and also saves
(CSV, JSON: per bot, per pair and per unit) and plots itself.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from matchdb.answers import plain, require_pandas
from matchdb.errors import MatchdbError
from matchdb.outputs import save_figure, save_text
from matchdb.play.bots import Bot, make_bot
from matchdb.play.games import (
    S_AGG,
    S_CALLS,
    S_FIELDS,
    S_FLOPS,
    S_HANDS,
    S_INVESTED,
    S_PFR,
    S_SHOWDOWN_WINS,
    S_SHOWDOWNS,
    S_VPIP,
    GameSettings,
    PlayedHand,
    bot_name,
    loop_compiled,
    native_spec,
    needs_strength,
    play_game,
)
from matchdb.play.sources import TableSource, source_of
from matchdb.play.strength import TABLE_CAPACITY

if TYPE_CHECKING:
    from tqdm import tqdm

    from matchdb.db.query import MatchDB
    from matchdb.play.strength import StrengthSource

__all__ = [
    "ArenaError",
    "GameHands",
    "HandsOut",
    "DEFAULT_FIELD",
    "Estimate",
    "t_quantile",
    "BotResult",
    "Pair",
    "ArenaResult",
    "run_arena",
    "open_source",
    "parse_seeds",
    "resolve_bots",
    "seatings",
]


class ArenaError(MatchdbError):
    """An arena run was set up wrongly."""


class GameHands(Protocol):
    """Where one game's hands go: :meth:`add` gets each finished hand, :meth:`close` comes after the game."""

    def add(self, hand: PlayedHand) -> None: ...

    def close(self) -> None: ...


class HandsOut(Protocol):
    """What ``run_arena(hands_out=...)`` takes: :meth:`game` opens the hands of one game.

    ``label`` is ``seed<s>-unit<u>-game<g>``, ``names`` the bot of each
    physical seat. It travels to the Dask workers, so it must pickle
    (:class:`matchdb.hands.ArenaWriter` keeps only its folder's name).
    """

    def game(self, label: str, names: Sequence[str]) -> GameHands: ...


#: The field when none is given: the articles' bots.
DEFAULT_FIELD = ("west", "west-tight", "income", "tomlinson", "fives", "allin")
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (a 95 % two-sided interval).

    >>> t_quantile(4), round(t_quantile(100), 3)
    (2.776, 1.984)
    """
    if isinstance(df, bool) or not isinstance(df, (int, np.integer)) or df < 1:
        raise ArenaError(f"The degrees of freedom {df!r} are not a whole number of at least 1.")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054  # Cornish-Fisher expansion beyond the table (error < 1e-4)
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


@dataclass
class Estimate:
    """A mean over independent units with its 95 % Student-t interval (the normal approximation for many units)."""

    mean: float
    low: float
    high: float
    units: int

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        values = np.asarray(values, dtype=np.float64)
        n = len(values)
        mean = float(values.mean()) if n else math.nan
        half = t_quantile(n - 1) * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        return cls(mean, mean - half, mean + half, n)

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.mean:.4g} [{self.low:.4g}, {self.high:.4g}]"


@dataclass
class BotResult:
    """One bot's results over a run (see the module notes for what each figure is).

    ``stacks`` is chips won per game in starting stacks (tournaments'
    measure; in cash games in buy-ins); ``corrections`` how many of its
    actions a lenient run corrected.
    """

    name: str
    seats: int
    games: int
    hands: int
    wins: Estimate
    place: Estimate
    bb_per_100: Estimate
    chips: Estimate
    stacks: Estimate
    places: list[int]  # how often the bot's seats finished 1st, 2nd, ...
    vpip: float
    pfr: float
    aggression: float
    flops: float
    showdowns: float
    showdown_wins: float
    corrections: int = 0

    def row(self) -> dict[str, Any]:
        """A flat dict for CSV output."""
        out = {"bot": self.name, "seats": self.seats, "games": self.games, "hands": self.hands}
        for key in _FIGURES:
            e = getattr(self, key)
            out |= {key: e.mean, f"{key}_low": e.low, f"{key}_high": e.high}
        out |= {"vpip": self.vpip, "pfr": self.pfr, "aggression": self.aggression, "flops": self.flops,
                "showdowns": self.showdowns, "showdown_wins": self.showdown_wins, "corrections": self.corrections}
        out |= {f"place_{k + 1}": v for k, v in enumerate(self.places)}
        return out


#: The figures measured per bot and unit, and what they are.
_FIGURES = {"wins": "win share", "place": "mean place", "bb_per_100": "bb/100", "chips": "chips/game",
            "stacks": "stacks/game"}


@dataclass
class Pair:
    """The paired difference ``first - second`` of one figure over the units, and what it supports in words."""

    first: str
    second: str
    figure: str
    difference: Estimate

    @property
    def shown(self) -> bool:
        """Whether the interval excludes zero."""
        return self.difference.low > 0 or self.difference.high < 0

    def statement(self) -> str:
        """"A beats B by x [lo, hi] FIGURE" where the interval excludes zero, else "no difference shown ...".

        A difference without a winner is written with its sign as ``first -
        second``, so the same pair reads the same whichever bot was listed first.
        """
        d = self.difference
        label = _FIGURES[self.figure]
        if not self.shown:
            return (f"no difference shown between {self.first} and {self.second}: {label} {self.first} - "
                    f"{self.second} {d.mean:+.4g} [{d.low:.4g}, {d.high:.4g}]")
        if self.figure == "place":  # a lower place is better: the bot with the lower mean place beats the other
            if d.mean < 0:
                return f"{self.first} beats {self.second} by {-d.mean:.4g} [{-d.high:.4g}, {-d.low:.4g}] places"
            return f"{self.second} beats {self.first} by {d.mean:.4g} [{d.low:.4g}, {d.high:.4g}] places"
        if d.mean > 0:
            return f"{self.first} beats {self.second} by {d.mean:.4g} [{d.low:.4g}, {d.high:.4g}] {label}"
        return f"{self.second} beats {self.first} by {-d.mean:.4g} [{-d.high:.4g}, {-d.low:.4g}] {label}"


@dataclass
class ArenaResult:
    """Per-bot results of a run, paired comparisons, the settings that reproduce it, and per-unit figures."""

    bots: list[BotResult]
    settings: dict[str, Any]
    seconds: float
    unit_values: dict[str, dict[str, Any]] = field(default_factory=dict)  # bot -> {"wins": [...], "bb_per_100": [...], "invested": [...], ...}
    units: list[tuple[int, int]] = field(default_factory=list)  # (seed, unit) of each row of unit_values

    def bot(self, name: str) -> BotResult:
        """The result of the bot called ``name``."""
        for b in self.bots:
            if b.name == name:
                return b
        raise ArenaError(f"No bot {name!r} played; the bots were {', '.join(b.name for b in self.bots)}.")

    @property
    def figure(self) -> str:
        """The main figure of the run: ``"bb_per_100"`` in cash games, ``"wins"`` (the win share) in tournaments."""
        return "bb_per_100" if self.settings.get("mode") == "cash" else "wins"

    def pair(self, first: str, second: str, figure: str | None = None) -> Pair:
        """The paired difference ``first - second`` of ``figure`` (default :attr:`figure`) over the units."""
        figure = figure or self.figure
        for name in (first, second):
            self.bot(name)
        if figure not in _FIGURES:
            raise ArenaError(f"The figure {figure!r} is unknown; expected one of {', '.join(_FIGURES)}.")
        a, b = (np.asarray(self.unit_values[name][figure]) for name in (first, second))
        return Pair(first, second, figure, Estimate.of(a - b))

    def pairs(self, figure: str | None = None) -> list[Pair]:
        """Every two bots' paired difference of ``figure`` (default :attr:`figure`), in the order of the listing."""
        names = [b.name for b in self.bots]
        return [self.pair(a, b, figure) for i, a in enumerate(names) for b in names[i + 1:]]

    def report(self) -> str:
        """A plain-text table and the paired comparisons in words."""
        s = self.settings
        mode = s["mode"]
        seeds = s["seeds"]
        seed_text = _seeds_text(seeds)
        sets = ""
        if s["duplicate"]:
            sets = f", duplicate ({s['units']} sets of {s['set_games']} seatings)"
        head = f"{s['games']} {mode} games, {s['seats']} seats, {seed_text}{sets}, {self.seconds:.1f} s"
        lines = [head, f"95 % intervals over {s['units']} independent {'sets' if s['duplicate'] else 'games'} "
                       "(Student t)"]
        if mode == "cash":
            columns = [("bb_per_100", "bb/100"), ("chips", "chips/game")]
        else:
            columns = [("wins", "win share"), ("place", "mean place"), ("stacks", "stacks/game")]
        lines.append(f"{'bot':18} " + " ".join(f"{title:>28}" for _, title in columns)
                     + f" {'VPIP':>6} {'PFR':>6} {'AF':>6}" + (" corrected" if s.get("lenient") else ""))
        lines.extend(f"{b.name:18} " + " ".join(f"{getattr(b, key)!s:>28}" for key, _ in columns)
                     + f" {b.vpip:6.3f} {b.pfr:6.3f} {b.aggression:6.2f}"
                     + (f" {b.corrections:9d}" if s.get("lenient") else "") for b in self.bots)
        if len(self.bots) > 1:
            lines.append(f"paired differences of {_FIGURES[self.figure]} per {'set' if s['duplicate'] else 'game'}:")
            lines += ["  " + pair.statement() for pair in self.pairs()]
        return "\n".join(lines)

    def to_text(self) -> str:
        """What the command line prints (:meth:`report`)."""
        return self.report()

    def to_csv(self) -> str:
        """One row per bot."""
        return _csv([b.row() for b in self.bots])

    def pairs_csv(self) -> str:
        """One row per pair of bots and figure: the paired difference with its interval and the statement."""
        return _csv([_pair_row(pair) for figure in _FIGURES for pair in self.pairs(figure)])

    def units_csv(self) -> str:
        """One row per unit and bot: the per-unit figures the intervals are computed from."""
        rows = []
        for k, (seed, unit) in enumerate(self.units):
            for name, values in self.unit_values.items():
                rows.append({"seed": seed, "unit": unit, "bot": name} | {key: float(values[key][k]) for key in values})
        return _csv(rows)

    def __repr__(self) -> str:
        s = self.settings
        return (f"ArenaResult({len(self.bots)} bots, {s.get('games')} {s.get('mode')} games, {s.get('seats')} seats, "
                f"{_seeds_text(s['seeds'])}: {', '.join(b.name for b in self.bots)})")

    def to_dict(self) -> dict[str, Any]:
        """Settings, timing, every bot's figures, every pair's differences and the per-unit figures (None for inf/NaN)."""
        return plain({"settings": self.settings, "seconds": self.seconds, "bots": [asdict(b) for b in self.bots],
                      "pairs": [_pair_row(pair) for figure in _FIGURES for pair in self.pairs(figure)],
                      "units": {"seed": [u[0] for u in self.units], "unit": [u[1] for u in self.units],
                                "values": self.unit_values}})

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def to_pandas(self) -> Any:
        """One row per bot (the CSV's columns: each estimate with its 95 % interval), indexed by the bot (the ``notebook`` extra)."""
        return require_pandas().DataFrame([b.row() for b in self.bots]).set_index("bot")

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.report())}</pre>"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write JSON (``.json``: everything) or CSV (``.csv`` per bot, with ``.pairs.csv`` and ``.units.csv`` beside it)."""
        path = Path(path)
        if path.suffix == ".csv":
            save_text(path, self.to_csv())
            save_text(path.with_suffix(".pairs.csv"), self.pairs_csv())
            save_text(path.with_suffix(".units.csv"), self.units_csv())
        elif path.suffix == ".json":
            save_text(path, json.dumps(self.to_dict(), indent=1, allow_nan=False))
        else:
            raise ArenaError(f"The output file {str(path)!r} ends neither in .csv nor in .json.")
        return path

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """Bar charts of the main figure and the mean place with their intervals, and the finishing places (needs matplotlib)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ArenaError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
        names = [b.name for b in self.bots]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        second = "chips" if self.figure == "bb_per_100" else "place"
        for ax, key in zip(axes[:2], (self.figure, second), strict=True):  # the third shows the places
            est = [getattr(b, key) for b in self.bots]
            ax.bar(names, [e.mean for e in est], yerr=[[e.mean - e.low for e in est], [e.high - e.mean for e in est]],
                   capsize=4, color="tab:blue")
            ax.set_title(_FIGURES[key] + " (95 % CI)")
            ax.tick_params(axis="x", rotation=45)
        width = 0.8 / max(len(self.bots), 1)
        for k, b in enumerate(self.bots):
            total = max(sum(b.places), 1)
            offset = (k - (len(self.bots) - 1) / 2) * width
            axes[2].bar(np.arange(1, len(b.places) + 1) + offset, np.array(b.places) / total, width, label=b.name)
        axes[2].set_xticks(np.arange(1, len(self.bots[0].places) + 1) if self.bots else [])
        axes[2].set_title("finishing places")
        axes[2].legend(fontsize="small")
        fig.tight_layout()
        try:
            return save_figure(fig, path)
        finally:
            plt.close(fig)


def _pair_row(pair: Pair) -> dict[str, Any]:
    d = pair.difference
    return {"first": pair.first, "second": pair.second, "figure": pair.figure, "difference": d.mean, "low": d.low,
            "high": d.high, "units": d.units, "shown": pair.shown, "statement": pair.statement()}


def _csv(rows: list[dict[str, Any]]) -> str:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _seeds_text(seeds: Sequence[int]) -> str:
    """``seed 1`` or ``seeds 1-5 pooled``."""
    return f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {_seed_span(seeds)} pooled"


def _seed_span(seeds: Sequence[int]) -> str:
    """``1-5`` for consecutive seeds, else ``1,3,7``."""
    seeds = list(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(str(x) for x in seeds)


def parse_seeds(text: str) -> list[int]:
    """Seeds from text: ``"1-5"``, ``"1,3,7"`` or ``"7"`` (each 0..2**32-1, at most 1,000 of them).

    >>> parse_seeds("1-3,7")
    [1, 2, 3, 7]
    >>> parse_seeds("5-1")
    Traceback (most recent call last):
    ...
    matchdb.play.arena.ArenaError: The seeds '5-1' are not seeds like 1-5 or 1,3,7 (each 0..4294967295, at most 1000, ranges low-high).
    """
    error = ArenaError(f"The seeds {text!r} are not seeds like 1-5 or 1,3,7 (each 0..{_MAX_SEED - 1}, at most "
                       f"{_MAX_SEEDS}, ranges low-high).")
    seeds: list[int] = []
    for token in str(text).split(","):
        low, dash, high = token.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise error
        a, b = int(low), int(high) if dash else int(low)
        if a > b or b >= _MAX_SEED or b - a >= _MAX_SEEDS or len(seeds) + b - a + 1 > _MAX_SEEDS:
            raise error
        seeds.extend(range(a, b + 1))
    if len(set(seeds)) != len(seeds):
        raise error
    return seeds


_MAX_SEED = 2**32
_MAX_SEEDS = 1000
_MAX_GAMES = 10**8


# -- running -----------------------------------------------------------------------------


def open_source(db: MatchDB | str | os.PathLike[str] | None = None, tables: str | os.PathLike[str] | None = None,
                capacity: int | None = None) -> StrengthSource:
    """Deprecated: ``TableSource(db, tables=tables, capacity=capacity).open()`` (:class:`matchdb.play.sources.TableSource`).

    A :class:`matchdb.play.strength.StrengthSource` over ``db`` (a MatchDB or a
    path; None: the default), its tables decoded in ``tables`` or decoded on
    first use.
    """
    warnings.warn("open_source is deprecated; use matchdb.play.sources.TableSource(db, tables=..., capacity=...).open().",
                  DeprecationWarning, stacklevel=2)
    return TableSource(db, tables=tables, capacity=capacity if capacity is not None else TABLE_CAPACITY).open()


def _slots(bots: Sequence[Bot], seats: int) -> list[int]:
    """Index into ``bots`` of the bot of each seat slot: the listing repeated in turn."""
    return [s % len(bots) for s in range(seats)]


def seatings(n_bots: int, seats: int, seed: int, unit: int, duplicate: bool, permute: bool = True) -> list[list[int]]:
    """The seatings of one unit: for each game, the index into the bots of the bot in each seat.

    Duplicate: every order of the seated bots when there are at most four
    seats, else every rotation of one random seating; plain: one random
    seating (``permute=False``: the listing's cyclic order, rotated by
    ``unit``, or every rotation of it in duplicate mode).

    >>> seatings(2, 2, seed=1, unit=0, duplicate=True)
    [[0, 1], [1, 0]]
    >>> len(seatings(3, 3, 1, 0, True)), len(seatings(6, 6, 1, 0, True)), len(seatings(6, 6, 1, 0, False))
    (6, 6, 1)
    """
    from itertools import permutations

    slots = [s % n_bots for s in range(seats)]
    if not permute:
        rotations = range(seats) if duplicate else [unit % seats]
        return [[slots[(s - r) % seats] for s in range(seats)] for r in rotations]
    if duplicate and seats <= 4:
        return [[slots[i] for i in order] for order in permutations(range(seats))]
    rng = np.random.default_rng([seed, unit, 2])
    order = rng.permutation(seats).tolist()
    if not duplicate:
        return [[slots[i] for i in order]]
    return [[slots[order[(s - r) % seats]] for s in range(seats)] for r in range(seats)]


def _bot_seed(seed: int, unit: int, game: int) -> int:
    return int(np.random.SeedSequence([seed, unit, game, 1]).generate_state(1)[0])


def _play_units(bots: Sequence[Bot], settings: GameSettings, seats: int, pieces: Sequence[tuple[int, int]], duplicate: bool,
                source: Any, python: bool = False, lenient: bool = False, permute: bool = True,
                hands_out: HandsOut | None = None) -> list[dict[str, Any]]:
    """Play the games of some units ``(seed, unit)``; one record per game (each game's hands to ``hands_out``)."""
    records = []
    for seed, unit in pieces:
        for game, seating in enumerate(seatings(len(bots), seats, seed, unit, duplicate, permute)):
            seated = [bots[i] for i in seating]
            recorder = None
            if hands_out is not None:
                recorder = hands_out.game(f"seed{seed}-unit{unit}-game{game}", [bot_name(b) for b in seated])
            try:
                result = play_game(seated, settings, deal_seed=[seed, unit], bot_seed=_bot_seed(seed, unit, game),
                                   source=source, python=python, lenient=lenient,
                                   on_hand=None if recorder is None else recorder.add)
            finally:
                if recorder is not None:
                    recorder.close()
            corrections = result.extra.get("corrections")
            records.append({"seed": seed, "unit": unit, "game": game, "seating": seating, "places": result.places,
                            "big_blinds": result.big_blinds, "net": result.net, "stats": result.stats,
                            "hands": result.hands,
                            "corrections": np.zeros(seats, dtype=np.int64) if corrections is None else corrections})
    return records


_WORKER_SOURCES: dict[tuple[str | None, str | None, int], TableSource] = {}


def _worker_task(bots: Sequence[Bot], settings: GameSettings, seats: int, pieces: Sequence[tuple[int, int]], duplicate: bool,
                 where: TableSource | None, python: bool, lenient: bool, permute: bool, hands_out: HandsOut | None
                 ) -> list[dict[str, Any]]:
    """One Dask task: open (once per worker) the strength source ``where`` names, and play some units."""
    source = None
    if where is not None:
        source = _WORKER_SOURCES.setdefault(where.key(), where).open()
    return _play_units(bots, settings, seats, pieces, duplicate, source, python, lenient, permute, hands_out)


def resolve_bots(bots: Any) -> list[Bot]:
    """The bots of ``bots``: None (the default field), names separated by commas, or a list of names and bot objects.

    Names are :func:`matchdb.play.bots.make_bot` specs (built-in names, bot
    files, ``file.py:Class``), as ``matchdb arena --bots`` takes them.

    >>> [bot.name for bot in resolve_bots("west, allin")]
    ['west', 'allin']
    >>> resolve_bots("")
    Traceback (most recent call last):
    ...
    matchdb.play.arena.ArenaError: No bots were given; expected at least one, like 'west,allin'.
    """
    if bots is None:
        bots = DEFAULT_FIELD
    if isinstance(bots, str):
        bots = [b.strip() for b in bots.split(",") if b.strip()]
    out = []
    for bot in bots:
        if not isinstance(bot, str) and not (callable(getattr(bot, "act", None)) and isinstance(getattr(bot, "name", None), str)):
            raise ArenaError(f"The bot {bot!r} has no act(view) method or no name; expected a bot name or an object with both.")
        out.append(make_bot(bot) if isinstance(bot, str) else bot)
    if not out:
        raise ArenaError("No bots were given; expected at least one, like 'west,allin'.")
    return out


def _whole(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > high:
            raise ArenaError(f"The {name} {value!r} is out of range; expected {low}..{high:,}.")
        raise ArenaError(f"The {name} {value!r} is not a whole number of at least {low}.")
    return int(value)


def run_arena(bots: Any = None, games: int = 100, seats: int | None = None, seed: int = 0, duplicate: bool = False,
              mode: str = "tournament", hands: int | None = None, workers: int = 1,
              db: MatchDB | str | os.PathLike[str] | None = None, tables: str | os.PathLike[str] | None = None,
              capacity: int | None = None, source: TableSource | StrengthSource | None = None,
              progress: bool | None = None, python: bool = False, settings: GameSettings | None = None,
              seeds: Sequence[int] | str | None = None, lenient: bool = False, permute: bool = True,
              hands_out: HandsOut | None = None) -> ArenaResult:
    """Play ``games`` games of ``bots`` (names like ``"west"`` or bot objects) per seed and summarise them per bot.

    ``seats`` defaults to the number of bots (at least 2). ``mode`` is
    ``"tournament"`` or ``"cash"``; ``hands`` is a cash session's length
    (default 200) or a tournament's safety cap. ``seeds`` (a list, a range or
    text like ``"1-5"``) pools several seeds, each playing ``games`` games;
    else ``seed`` is the one seed. ``workers`` above 1 plays on a local Dask
    cluster (:func:`matchdb.cluster.local_cluster`; each worker opens the
    source's database and tables itself). ``source`` says where hand
    strengths come from (:class:`matchdb.play.sources.TableSource`, or an open
    :class:`matchdb.play.strength.StrengthSource`); without one, bots that
    need strengths read the default database, tables decoded on first use,
    and Python bots see ``view.source`` only when a source is given. ``db``,
    ``tables`` and ``capacity`` are deprecated (a :class:`DeprecationWarning`):
    ``source=TableSource(db=..., tables=..., capacity=...)`` says the same.
    ``progress`` shows a bar (default: on a terminal).
    ``lenient`` corrects and counts Python bots' illegal actions instead of
    refusing them (answers that are no action, and bots that fail, are
    refused either way: :func:`matchdb.play.games.play_game`); ``permute=False`` seats the bots in the listing's cyclic
    order (see the module notes). ``hands_out`` receives every hand of
    every game as it ends (:class:`HandsOut`; ``matchdb.hands.ArenaWriter(folder)``
    writes each game as a PHH file).
    """
    started = time.perf_counter()
    table_source = source_of(source, db, tables, capacity, where="run_arena")
    if hands_out is not None and not callable(getattr(hands_out, "game", None)):
        raise ArenaError(f"hands_out {hands_out!r} has no game(label, names) method; expected a HandsOut like "
                         "matchdb.hands.ArenaWriter(folder).")
    bots = resolve_bots(bots)
    if seeds is None:
        seeds = [_whole(seed, "seed", 0, _MAX_SEED - 1)]
    elif isinstance(seeds, str):
        seeds = parse_seeds(seeds)
    else:
        seeds = [_whole(x, "seed", 0, _MAX_SEED - 1) for x in seeds]
        if not seeds or len(seeds) > _MAX_SEEDS or len(set(seeds)) != len(seeds):
            raise ArenaError(f"The seeds {seeds!r} are not 1 to {_MAX_SEEDS} different seeds.")
    if table_source is not None:
        table_source.check()  # says so at once when the folder holds no decoded tables
    seats = seats if seats is not None else max(2, len(bots))
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 10:
        raise ArenaError(f"The number of seats {seats!r} is out of range; expected 2..10.")
    if len(bots) > seats:
        raise ArenaError(f"{len(bots)} bots do not fit {seats} seats; give at most {seats} bots or more seats.")
    games = _whole(games, "number of games", 1, _MAX_GAMES)
    workers = _whole(workers, "number of workers", 1, 256)
    if settings is None:
        if mode not in ("tournament", "cash"):
            raise ArenaError(f"The mode {mode!r} is unknown; expected 'tournament' or 'cash'.")
        if hands is not None:
            hands = _whole(hands, "number of hands", 1, 10**6)
        settings = GameSettings(mode=mode, hands=hands if hands is not None else (200 if mode == "cash" else 5000),
                                stack=1500 if mode == "tournament" else 2000)
    set_games = len(seatings(len(bots), seats, 0, 0, duplicate, permute))
    per_seed = math.ceil(games / set_games) if duplicate else games
    if per_seed * len(seeds) > _MAX_GAMES:
        raise ArenaError(f"{per_seed * len(seeds):,} units are too many; expected at most {_MAX_GAMES:,}.")
    pieces = [(s, u) for s in seeds for u in range(per_seed)]
    # Python bots see the database through view.source when a source is given
    needs = needs_strength(bots) or (table_source is not None and any(native_spec(bot) is None for bot in bots))
    if needs and table_source is None:
        table_source = TableSource()
    strengths = table_source.open() if needs and table_source is not None else None
    if workers == 1:
        records = []
        bar = _bar(len(pieces), progress)
        if not bar.disable and not python and not loop_compiled():
            bar.write("matchdb: compiling the arena's game loop: once per machine, about half a minute", file=sys.stderr)
        for piece in pieces:
            records += _play_units(bots, settings, seats, [piece], duplicate, strengths, python, lenient, permute,
                                   hands_out)
            bar.update(1)
        bar.close()
    else:
        where = table_source.for_workers() if needs and table_source is not None else None
        records = _run_dask(bots, settings, seats, pieces, duplicate, workers, where, strengths, progress, python,
                            lenient, permute, hands_out)
    result = _summarise(bots, records, seats, pieces, duplicate, settings)
    result.settings |= {"games": len(records), "seed": seeds[0], "seeds": seeds, "mode": settings.mode,
                        "hands": settings.hands, "stack": settings.stack, "workers": workers, "set_games": set_games,
                        "tables": "decoded" if table_source is not None and table_source.decoded else "lazy", "lenient": lenient, "permute": permute,
                        "rules": asdict(settings.rules)}
    result.seconds = time.perf_counter() - started
    return result


def _bar(total: int, progress: bool | None) -> tqdm:
    from tqdm import tqdm

    return tqdm(total=total, unit="unit", desc="arena", file=sys.stderr,
                disable=None if progress is None else not progress)


def _run_dask(bots: Sequence[Bot], settings: GameSettings, seats: int, pieces: Sequence[tuple[int, int]], duplicate: bool,
              workers: int, where: TableSource | None, source: StrengthSource | None, progress: bool | None, python: bool,
              lenient: bool, permute: bool, hands_out: HandsOut | None) -> list[dict[str, Any]]:
    from distributed import as_completed

    from matchdb.cluster import local_cluster

    # compile (or load) every kernel here first: numba's cache races when many processes compile at once
    # (its games' hands are written here; the workers play every unit again and write them anew, identically)
    _play_units(bots, settings, seats, pieces[:1], duplicate, source, python, lenient, permute, hands_out)
    chunk = max(1, min(200, len(pieces) // (8 * workers) or 1))
    parts = [pieces[start:start + chunk] for start in range(0, len(pieces), chunk)]
    records: list[dict[str, Any]] = []
    with local_cluster(workers) as client:
        futures = [client.submit(_worker_task, bots, settings, seats, part, duplicate, where, python, lenient,
                                 permute, hands_out, pure=False)
                   for part in parts]
        bar = _bar(len(pieces), progress)
        for future in as_completed(futures):  # type: ignore[no-untyped-call]  # distributed leaves it unannotated
            part = future.result()
            records += part
            bar.update(len({(r["seed"], r["unit"]) for r in part}))
        bar.close()
    records.sort(key=lambda r: (r["seed"], r["unit"], r["game"]))
    return records


def _summarise(bots: Sequence[Bot], records: list[dict[str, Any]], seats: int, pieces: Sequence[tuple[int, int]],
               duplicate: bool, settings: GameSettings) -> ArenaResult:
    names = list(dict.fromkeys(b.name for b in bots))
    index = {name: k for k, name in enumerate(names)}
    label = [index[b.name] for b in bots]
    k = len(names)
    units = len(pieces)
    wins = np.zeros((units, k))
    place = np.zeros((units, k))
    bb = np.zeros((units, k))
    chips = np.zeros((units, k))
    seat_games = np.zeros((units, k))  # seat-games
    seat_hands = np.zeros((units, k))
    games_in = np.zeros(units)
    invested = np.zeros((units, k))
    style = np.zeros((len(names), S_FIELDS))
    places = np.zeros((k, seats), dtype=np.int64)
    hands_total = np.zeros(k, dtype=np.int64)
    corrections = np.zeros(k, dtype=np.int64)
    unit_pos = {piece: i for i, piece in enumerate(pieces)}
    for r in records:
        u = unit_pos[(r["seed"], r["unit"])]
        games_in[u] += 1
        for s, bot_index in enumerate(r["seating"]):
            j = label[bot_index]
            p = int(r["places"][s])
            wins[u, j] += p == 1
            place[u, j] += p
            bb[u, j] += r["big_blinds"][s]
            chips[u, j] += r["net"][s]
            invested[u, j] += r["stats"][S_INVESTED, s]
            seat_games[u, j] += 1
            seat_hands[u, j] += r["stats"][S_HANDS, s]
            style[j] += r["stats"][:, s]
            places[j, p - 1] += 1
            hands_total[j] += r["stats"][S_HANDS, s]
            corrections[j] += r["corrections"][s]
    out = []
    values = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, j in index.items():
            per_unit = {
                "wins": wins[:, j] / games_in,
                "place": place[:, j] / seat_games[:, j],
                "bb_per_100": 100 * bb[:, j] / np.maximum(seat_hands[:, j], 1),
                "chips": chips[:, j] / seat_games[:, j],
                "stacks": chips[:, j] / seat_games[:, j] / settings.stack,
                "invested": invested[:, j] / seat_games[:, j],
            }
            values[name] = per_unit
            st = style[j]
            hands = max(st[S_HANDS], 1)
            out.append(BotResult(
                name=name, seats=int(seat_games[0, j] / games_in[0]) if units else 0,
                games=int(games_in.sum()), hands=int(hands_total[j]),
                wins=Estimate.of(per_unit["wins"]), place=Estimate.of(per_unit["place"]),
                bb_per_100=Estimate.of(per_unit["bb_per_100"]), chips=Estimate.of(per_unit["chips"]),
                stacks=Estimate.of(per_unit["stacks"]),
                places=places[j].tolist(), vpip=st[S_VPIP] / hands, pfr=st[S_PFR] / hands,
                aggression=st[S_AGG] / st[S_CALLS] if st[S_CALLS] else math.inf, flops=st[S_FLOPS] / hands,
                showdowns=st[S_SHOWDOWNS] / hands,
                showdown_wins=st[S_SHOWDOWN_WINS] / st[S_SHOWDOWNS] if st[S_SHOWDOWNS] else math.nan,
                corrections=int(corrections[j]),
            ))
    settings_out = {"bots": [b.name for b in bots], "seats": seats, "duplicate": duplicate, "units": units}
    return ArenaResult(out, settings_out, 0.0, values, list(pieces))
