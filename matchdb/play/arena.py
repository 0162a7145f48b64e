"""The arena: bots play many games against each other, reproducibly, and the results come with confidence intervals.

Python::

    result = run_arena(["west", "west-tight", "allin", "fives"], games=1200, seats=4,
                       seed=1, duplicate=True, db="data/matchdb.zarr")
    print(result.report())

Command line (``matchdb arena``; :mod:`matchdb.cli.main` defines its options)::

    matchdb arena --bots west,allin,fives --games 3000 --seats 3 --duplicate --out results.csv

**Seats.** ``bots`` fill the seats in order, repeated when there are fewer
bots than seats; results are pooled per bot name. Game g of a plain run seats
the bots rotated by ``g mod seats`` places.

**Seeds.** Game (or duplicate set) u deals from a Generator seeded with
``(seed, u)``; its bots draw from a seed derived from ``(seed, u, rotation)``.
The same seed gives the same cards, the same decisions and the same results,
whatever the number of workers.

**Duplicate mode.** A set replays one deal sequence ``seats`` times, the
seating rotated one place each time, so every bot plays every seat's cards;
the card luck largely cancels within a set. ``games`` is rounded up to whole
sets.

**Statistics.** The independent units are the games (plain) or the sets
(duplicate). For each bot and unit the arena takes the mean over the unit's
games of: wins (per game, all its seats together), finishing place (per
seat), big blinds won per 100 hands (per seat; each hand's result divided by
that hand's big blind) and chips won (per seat). The tables show the mean
over units with a 95 % confidence interval by the normal approximation, mean
+- 1.96 standard deviations / sqrt(units). Playing style pools every hand:
VPIP (hands with a voluntary preflop call or raise), PFR (preflop raises),
aggression factor (bets and raises / calls after the flop), flops seen,
showdowns and showdowns won.
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
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from matchdb.answers import plain, require_pandas
from matchdb.play.bots import Bot, make_bot
from matchdb.errors import MatchdbError
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
    _native,
    _needs_strength,
    play_game,
)

__all__ = [
    "ArenaError",
    "DEFAULT_FIELD",
    "BotResult",
    "ArenaResult",
    "run_arena",
    "open_source",
]


class ArenaError(MatchdbError):
    """An arena run was set up wrongly."""


#: The field when none is given: the articles' bots.
DEFAULT_FIELD = ("west", "west-tight", "income", "tomlinson", "fives", "allin")
_Z95 = 1.959963984540054


@dataclass
class Estimate:
    """A mean over independent units with its 95 % normal-approximation interval."""

    mean: float
    low: float
    high: float
    units: int

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        values = np.asarray(values, dtype=np.float64)
        n = len(values)
        mean = float(values.mean()) if n else math.nan
        half = _Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        return cls(mean, mean - half, mean + half, n)

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.mean:.4g} [{self.low:.4g}, {self.high:.4g}]"


@dataclass
class BotResult:
    """One bot's results over a run (see the module notes for what each figure is)."""

    name: str
    seats: int
    games: int
    hands: int
    wins: Estimate
    place: Estimate
    bb_per_100: Estimate
    chips: Estimate
    places: list[int]  # how often the bot's seats finished 1st, 2nd, ...
    vpip: float
    pfr: float
    aggression: float
    flops: float
    showdowns: float
    showdown_wins: float

    def row(self) -> dict:
        """A flat dict for CSV output."""
        out = {"bot": self.name, "seats": self.seats, "games": self.games, "hands": self.hands}
        for key in ("wins", "place", "bb_per_100", "chips"):
            e = getattr(self, key)
            out |= {key: e.mean, f"{key}_low": e.low, f"{key}_high": e.high}
        out |= {"vpip": self.vpip, "pfr": self.pfr, "aggression": self.aggression, "flops": self.flops,
                "showdowns": self.showdowns, "showdown_wins": self.showdown_wins}
        out |= {f"place_{k + 1}": v for k, v in enumerate(self.places)}
        return out


@dataclass
class ArenaResult:
    """Per-bot results of a run, the settings that reproduce it, and per-unit figures for further statistics."""

    bots: list[BotResult]
    settings: dict
    seconds: float
    unit_values: dict = field(default_factory=dict)  # bot -> {"wins": [...], "bb_per_100": [...], "invested": [...], ...}

    def bot(self, name: str) -> BotResult:
        """The result of the bot called ``name``."""
        for b in self.bots:
            if b.name == name:
                return b
        raise ArenaError(f"No bot {name!r} played; the bots were {', '.join(b.name for b in self.bots)}.")

    def report(self) -> str:
        """A plain-text table."""
        s = self.settings
        mode = s["mode"]
        head = (f"{s['games']} {mode} games, {s['seats']} seats, seed {s['seed']}"
                f"{', duplicate (' + str(s['units']) + ' sets)' if s['duplicate'] else ''}, {self.seconds:.1f} s")
        lines = [head, "95 % intervals over independent " + ("sets" if s["duplicate"] else "games")
                 + " (normal approximation)"]
        lines.append(f"{'bot':18} {'wins/game':>26} {'place':>24} {'bb/100':>30} {'VPIP':>6} {'PFR':>6} {'AF':>6}")
        for b in self.bots:
            lines.append(f"{b.name:18} {str(b.wins):>26} {str(b.place):>24} {str(b.bb_per_100):>30} "
                         f"{b.vpip:6.3f} {b.pfr:6.3f} {b.aggression:6.2f}")
        return "\n".join(lines)

    def to_csv(self) -> str:
        """One row per bot."""
        rows = [b.row() for b in self.bots]
        keys = list(dict.fromkeys(k for r in rows for k in r))
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()

    def __repr__(self) -> str:
        s = self.settings
        return (f"ArenaResult({len(self.bots)} bots, {s.get('games')} {s.get('mode')} games, {s.get('seats')} seats, "
                f"seed {s.get('seed')}: {', '.join(b.name for b in self.bots)})")

    def to_dict(self) -> dict:
        """Settings, timing and every bot's figures as plain JSON types (infinite or undefined figures as None)."""
        return plain({"settings": self.settings, "seconds": self.seconds, "bots": [asdict(b) for b in self.bots]})

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def to_pandas(self) -> Any:
        """One row per bot (the CSV's columns: each estimate with its 95 % interval), indexed by the bot (the ``notebook`` extra)."""
        return require_pandas().DataFrame([b.row() for b in self.bots]).set_index("bot")

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.report())}</pre>"

    def save(self, path: str | os.PathLike) -> Path:
        """Write CSV (``.csv``) or JSON (``.json``)."""
        path = Path(path)
        if path.suffix == ".csv":
            path.write_text(self.to_csv())
        elif path.suffix == ".json":
            path.write_text(json.dumps(self.to_dict(), indent=1, allow_nan=False))
        else:
            raise ArenaError(f"The output file {str(path)!r} ends neither in .csv nor in .json.")
        return path

    def plot(self, path: str | os.PathLike) -> Path:
        """Bar charts of wins per game and big blinds per 100 hands with their intervals (needs matplotlib)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ArenaError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
        names = [b.name for b in self.bots]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        for ax, key, title in zip(axes, ("wins", "bb_per_100"), ("wins per game", "big blinds per 100 hands")):
            est = [getattr(b, key) for b in self.bots]
            ax.bar(names, [e.mean for e in est], yerr=[[e.mean - e.low for e in est], [e.high - e.mean for e in est]],
                   capsize=4, color="tab:blue")
            ax.set_title(title + " (95 % CI)")
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
        path = Path(path)
        fig.savefig(path)
        plt.close(fig)
        return path


# -- running -----------------------------------------------------------------------------


def open_source(db=None, tables: str | os.PathLike | None = None, capacity: int = 64):
    """A :class:`matchdb.play.strength.StrengthSource` over ``db`` (a MatchDB or a path; None: the default).

    ``tables`` names a folder of decoded tables (:func:`matchdb.play.strength.decode_tables`),
    else tables are decoded lazily into ``capacity`` slots.
    """
    from matchdb.db.query import open as open_database
    from matchdb.play.strength import StrengthSource, open_decoded

    if db is None or isinstance(db, (str, os.PathLike)):
        db = open_database(db)
    return StrengthSource(db, tables=open_decoded(tables) if tables is not None else None, capacity=capacity)


def _seating(bots: Sequence[Bot], seats: int, rotation: int) -> list[int]:
    """Index into ``bots`` of the bot in each seat."""
    return [((s - rotation) % seats) % len(bots) for s in range(seats)]


def _bot_seed(seed: int, unit: int, rotation: int) -> int:
    return int(np.random.SeedSequence([seed, unit, rotation, 1]).generate_state(1)[0])


def _play_units(bots, settings: GameSettings, seats: int, seed: int, units: Sequence[int], duplicate: bool,
                source, python: bool = False) -> list[dict]:
    """Play the games of some units; one record per game."""
    records = []
    for unit in units:
        rotations = range(seats) if duplicate else [unit % seats]
        for rotation in rotations:
            seating = _seating(bots, seats, rotation)
            result = play_game([bots[i] for i in seating], settings, deal_seed=[seed, unit],
                               bot_seed=_bot_seed(seed, unit, rotation), source=source, python=python)
            records.append({"unit": unit, "rotation": rotation, "seating": seating, "places": result.places,
                            "big_blinds": result.big_blinds, "net": result.net, "stats": result.stats,
                            "hands": result.hands})
    return records


_WORKER_SOURCES: dict = {}


def _worker_task(bots, settings, seats, seed, units, duplicate, db_path, tables, capacity, needs):
    """One Dask task: open (once per worker) the strength source and play some units."""
    source = None
    if needs:
        key = (db_path, tables, capacity)
        if key not in _WORKER_SOURCES:
            _WORKER_SOURCES[key] = open_source(db_path, tables, capacity)
        source = _WORKER_SOURCES[key]
    return _play_units(bots, settings, seats, seed, units, duplicate, source)


def _resolve_bots(bots) -> list[Bot]:
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


def run_arena(bots=None, games: int = 100, seats: int | None = None, seed: int = 0, duplicate: bool = False,
              mode: str = "tournament", hands: int | None = None, workers: int = 1, db=None,
              tables: str | os.PathLike | None = None, capacity: int = 64, source=None,
              progress: bool | None = None, python: bool = False, settings: GameSettings | None = None) -> ArenaResult:
    """Play ``games`` games of ``bots`` (names like ``"west"`` or bot objects) and summarise them per bot.

    ``seats`` defaults to the number of bots (at least 2). ``mode`` is
    ``"tournament"`` or ``"cash"``; ``hands`` is a cash session's length
    (default 200) or a tournament's safety cap. ``workers`` above 1 plays on
    a Dask LocalCluster on 127.0.0.1 (each worker opens ``db`` and
    ``tables`` itself). ``source`` is a ready strength source for the
    in-process run. ``progress`` shows a bar (default: on a terminal).
    """
    started = time.perf_counter()
    bots = _resolve_bots(bots)
    if tables is not None:
        from matchdb.play.strength import open_decoded

        open_decoded(tables)  # says so at once when the folder holds no decoded tables
    seats = seats if seats is not None else max(2, len(bots))
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 10:
        raise ArenaError(f"The number of seats {seats!r} is out of range; expected 2..10.")
    if len(bots) > seats:
        raise ArenaError(f"{len(bots)} bots do not fit {seats} seats; give at most {seats} bots or more seats.")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ArenaError(f"The number of games {games!r} is not a whole number of at least 1.")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ArenaError(f"The number of workers {workers!r} is not a whole number of at least 1.")
    if settings is None:
        if mode not in ("tournament", "cash"):
            raise ArenaError(f"The mode {mode!r} is unknown; expected 'tournament' or 'cash'.")
        settings = GameSettings(mode=mode, hands=hands if hands is not None else (200 if mode == "cash" else 5000),
                                stack=1500 if mode == "tournament" else 2000)
    units = math.ceil(games / seats) if duplicate else games
    needs = _needs_strength(bots) or (db is not None and any(_native(bot) is None for bot in bots))
    if needs and source is None:  # Python bots see the database through view.source when a db is given
        source = open_source(db, tables, capacity)
    db_path = str(db) if isinstance(db, (str, os.PathLike)) else str(getattr(source.db if source is not None else db, "path", "")) or None
    if workers == 1:
        records = []
        bar = _bar(units, progress)
        for unit in range(units):
            records += _play_units(bots, settings, seats, seed, [unit], duplicate, source, python)
            bar.update(1)
        bar.close()
    else:
        records = _run_dask(bots, settings, seats, seed, units, duplicate, workers, db_path, tables, capacity, needs,
                            source, progress)
    result = _summarise(bots, records, seats, units, duplicate, settings)
    result.settings |= {"games": len(records), "seed": seed, "mode": settings.mode, "hands": settings.hands,
                        "stack": settings.stack, "workers": workers,
                        "tables": "decoded" if tables is not None else "lazy"}
    result.seconds = time.perf_counter() - started
    return result


def _bar(total: int, progress: bool | None):
    from tqdm import tqdm

    return tqdm(total=total, unit="unit", desc="arena", file=sys.stderr,
                disable=None if progress is None else not progress)


def _run_dask(bots, settings, seats, seed, units, duplicate, workers, db_path, tables, capacity, needs, source,
              progress) -> list[dict]:
    import logging

    from distributed import Client, LocalCluster, as_completed

    # compile (or load) every kernel here first: numba's cache races when many processes compile at once
    _play_units(bots, settings, seats, seed, [0], duplicate, source)
    chunk = max(1, min(200, units // (8 * workers) or 1))
    pieces = [list(range(start, min(units, start + chunk))) for start in range(0, units, chunk)]
    records: list[dict] = []
    saved = dict(os.environ)  # the nanny writes its pre-spawn variables into this process's environment
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,  # numba's random generator is per thread: one thread per worker keeps runs exact
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # a free port
        silence_logs=logging.ERROR,
    )
    client = Client(cluster)
    try:
        futures = [client.submit(_worker_task, bots, settings, seats, seed, piece, duplicate, db_path,
                                 None if tables is None else str(tables), capacity, needs, pure=False)
                   for piece in pieces]
        bar = _bar(units, progress)
        for future, piece in zip(as_completed(futures), pieces):
            part = future.result()
            records += part
            bar.update(len({r["unit"] for r in part}))
        bar.close()
    finally:
        client.close()
        cluster.close()
        os.environ.clear()  # ...where later clusters would take them over their own configuration
        os.environ.update(saved)
    records.sort(key=lambda r: (r["unit"], r["rotation"]))
    return records


def _summarise(bots, records, seats, units, duplicate, settings) -> ArenaResult:
    names = list(dict.fromkeys(b.name for b in bots))
    index = {name: k for k, name in enumerate(names)}
    label = [index[b.name] for b in bots]
    k = len(names)
    # per unit sums
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
    unit_pos = {u: i for i, u in enumerate(sorted({r["unit"] for r in records}))}
    for r in records:
        u = unit_pos[r["unit"]]
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
    out = []
    values = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name, j in index.items():
            per_unit = {
                "wins": wins[:, j] / games_in,
                "place": place[:, j] / seat_games[:, j],
                "bb_per_100": 100 * bb[:, j] / np.maximum(seat_hands[:, j], 1),
                "chips": chips[:, j] / seat_games[:, j],
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
                places=places[j].tolist(), vpip=st[S_VPIP] / hands, pfr=st[S_PFR] / hands,
                aggression=st[S_AGG] / st[S_CALLS] if st[S_CALLS] else math.inf, flops=st[S_FLOPS] / hands,
                showdowns=st[S_SHOWDOWNS] / hands,
                showdown_wins=st[S_SHOWDOWN_WINS] / st[S_SHOWDOWNS] if st[S_SHOWDOWNS] else math.nan,
            ))
    settings_out = {"bots": [b.name for b in bots], "seats": seats, "duplicate": duplicate, "units": units}
    return ArenaResult(out, settings_out, 0.0, values)


# -- command line ---------------------------------------------------------------------------------
