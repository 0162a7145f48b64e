"""Tuning a bot's character in the arena: Tomlinson's Monte Carlo random walk (or his genetic variant) over its parameters.

A candidate is the bot with another parameter vector (:meth:`BuiltinBot.with_vector`:
West's fold/call/raise bands, stack protection, raise size, whatever the bot
exposes), scored over a **session**: ``games`` duplicate games (whole sets,
the seats rotated so card luck cancels) against a fixed ``field``, with a
fixed seed, so every candidate meets the same cards. The **objective**
(:class:`Objective`) is the article's choice of metric: big blinds won per
100 hands (the best player), chips won per chip invested (a tight player),
or a target loss rate for a weak character (minimise (rate - target)^2),
or tournament wins per game.

**Noise first.** Before searching, the start parameters play
``noise_sessions`` sessions with other seeds; the spread of their objective
(the sample standard deviation) is the session-to-session noise. The search
then uses one training seed; at the end the best parameters replay the
noise sessions' seeds (held out from the search), and the improvement is
the mean paired difference over those sessions with a 95 % Student-t
interval. It counts as real (``beyond_noise``) only when the interval
excludes zero and the mean exceeds the session noise: "if the optimizer is
making improvements only of the order of the session to session
inconsistency, it is working 'in the noise'".

**Seeds.** The training session has seed ``seed`` (with ``chunks=1`` it is
exactly ``run_arena([candidate, *field], games, seats, seed=seed,
duplicate=True, mode=..., hands=...)``, what ``matchdb arena --bots
tuned.json,... --duplicate --seed SEED`` plays); the noise sessions' seeds,
the chunks' seeds and the proposals are derived from it, so the same seed
gives the same trajectory, whatever the number of workers.

**Parallel.** A session is split into ``chunks`` parts (their seeds derived
from the session's) that ``workers`` Dask worker processes play at once (a
genetic generation's children all at once); results do not depend on the
number of workers. Threads would not do: more than half of a game's time is
Python around the compiled loop, which holds the GIL.

**Results.** :class:`TuningResult` and :class:`Comparison` are the results of a
run, not answers of the database (:mod:`matchdb.answers` holds those): they
render the same way, ``to_text()`` for the terminal and ``to_dict()`` as JSON,
and also save and plot themselves.

**Settings.** :class:`TuningConfig` holds what the search does (objective,
method, budget, steps, the noise check, the seed) and, as its ``sessions``, a
:class:`SessionConfig` (how each candidate is scored); a
:class:`matchdb.play.sources.TableSource` says where hand strengths come from.

>>> config = TuningConfig(cycles=6, noise_sessions=3, seed=1, sessions=SessionConfig(games=20, mode="cash", hands=20))
>>> result = tune_bot("fives", ["station"], config)
>>> result.search.evaluations, result.bot.name, result.noise.values.shape
(6, 'fives-tuned', (3,))
>>> TuningConfig(objective="target")
Traceback (most recent call last):
...
matchdb.play.tuning.TuningError: The objective 'target' needs a target rate (big blinds per 100 hands); give target=.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers import plain
from matchdb.errors import MatchdbError
from matchdb.play.arena import Estimate, run_arena, seatings, t_quantile
from matchdb.play.bots import Bot, BuiltinBot, make_bot, save_bot
from matchdb.play.games import GameSettings, needs_strength
from matchdb.play.optimise import OptimiseError, Search, Space, Step, genetic, random_walk
from matchdb.play.sources import TableSource, source_of

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from matchdb.play.strength import StrengthSource

__all__ = [
    "TuningError",
    "OBJECTIVES",
    "METHODS",
    "Objective",
    "SessionConfig",
    "TuningConfig",
    "Session",
    "SessionPlayer",
    "Noise",
    "TuningResult",
    "Comparison",
    "Tuner",
    "tune_bot",
    "compare_methods",
    "t_quantile",
]


class TuningError(MatchdbError):
    """A tuning run was set up wrongly."""


#: Objective kinds and what they measure.
OBJECTIVES = {
    "bb_per_100": "big blinds won per 100 hands (maximised)",
    "invested": "chips won per chip invested (maximised; the article's tight player)",
    "target": "big blinds per 100 hands near a target rate (minimises (rate - target)^2; a weak character)",
    "wins": "tournament wins per game (maximised)",
}
#: Search methods by name.
METHODS = {"walk": "random walk", "genetic": "genetic"}

def _interval(values: np.ndarray) -> Estimate:
    """Mean with a 95 % Student-t interval."""
    return Estimate.of(values)


# -- what is measured ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Session:
    """The tuned bot's figures over one session: means over its duplicate sets (per seat-game for chips)."""

    seed: int
    units: int
    games: int
    hands: int
    bb_per_100: float
    chips: float  # chips won per game
    invested: float  # chips put into pots per game
    wins: float  # games won per game (tournaments)


@dataclass(frozen=True)
class Objective:
    """What a tuning run optimises: ``kind`` one of :data:`OBJECTIVES`, ``target`` the rate for ``"target"``.

    >>> o = Objective("target", target=-15.0)
    >>> o.loss(-5.0), o.gain(-5.0, -12.0)
    (100.0, 7.0)
    """

    kind: str = "bb_per_100"
    target: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in OBJECTIVES:
            raise TuningError(f"The objective {self.kind!r} is unknown; expected one of {', '.join(OBJECTIVES)}.")
        if self.kind == "target":
            if self.target is None:
                raise TuningError("The objective 'target' needs a target rate (big blinds per 100 hands); give target=.")
            if isinstance(self.target, bool) or not isinstance(self.target, (int, float)) or not math.isfinite(self.target):
                raise TuningError(f"The target rate {self.target!r} is not a finite number.")
        elif self.target is not None:
            raise TuningError(f"The objective {self.kind!r} takes no target (got {self.target!r}); only 'target' does.")

    @property
    def maximise(self) -> bool:
        """True when larger values are better (all but ``"target"``)."""
        return self.kind != "target"

    @property
    def label(self) -> str:
        """What the value is, for reports and plots."""
        if self.kind == "target":
            return f"bb/100 (target {self.target:g})"
        return {"bb_per_100": "bb/100", "invested": "won per chip invested", "wins": "wins per game"}[self.kind]

    def value(self, session: Session) -> float:
        """The session's figure this objective looks at."""
        if self.kind == "invested":
            return session.chips / session.invested if session.invested > 0 else 0.0
        if self.kind == "wins":
            return session.wins
        return session.bb_per_100

    def loss(self, value: float) -> float:
        """What the optimiser minimises: the negated value, or the squared distance to the target."""
        return -value if self.maximise else (value - self._target()) ** 2

    def gain(self, before: float, after: float) -> float:
        """How much better ``after`` is than ``before`` in the value's units (distance to the target for ``"target"``)."""
        if self.maximise:
            return after - before
        return abs(before - self._target()) - abs(after - self._target())

    def _target(self) -> float:
        """The target of a ``"target"`` objective (set whenever ``maximise`` is false: checked when it is built)."""
        assert self.target is not None
        return self.target


def _whole(value: Any, what: str, low: int, high: int | None = None) -> None:
    """Refuse ``value`` unless it is a whole number ``low``..``high``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise TuningError(f"The {what} {value!r} is not a whole number of at least {low}.")
    if high is not None and value > high:
        raise TuningError(f"The {what} {value!r} is out of range; expected {low}..{high:,}.")


@dataclass(frozen=True, kw_only=True)
class SessionConfig:
    """How each candidate is scored: the sessions it plays against the field (see :class:`SessionPlayer`).

    ``games`` duplicate games a session (rounded up to whole sets), ``seats``
    at the table (default: the field plus the candidate), ``mode`` ``"cash"``
    (``hands`` a game, default 200) or ``"tournament"`` (``hands`` a cap,
    default 5000), ``chunks`` parts a session is split into (each its own
    seed derived from the session's), ``workers`` Dask worker processes
    playing them (1: here).

    >>> SessionConfig(games=20, hands=20).mode
    'cash'
    >>> SessionConfig(mode="sng")
    Traceback (most recent call last):
    ...
    matchdb.play.tuning.TuningError: The mode 'sng' is unknown; expected 'cash' or 'tournament'.
    """

    games: int = 200
    seats: int | None = None
    mode: str = "cash"
    hands: int | None = None
    chunks: int = 4
    workers: int = 1

    def __post_init__(self) -> None:
        _whole(self.games, "number of games", 1)
        if self.seats is not None and (isinstance(self.seats, bool) or not isinstance(self.seats, (int, np.integer))
                                       or not 2 <= self.seats <= 10):
            raise TuningError(f"The number of seats {self.seats!r} is out of range; expected 2..10.")
        if self.mode not in ("cash", "tournament"):
            raise TuningError(f"The mode {self.mode!r} is unknown; expected 'cash' or 'tournament'.")
        if self.hands is not None:
            _whole(self.hands, "number of hands", 1)
        _whole(self.chunks, "number of chunks", 1)
        _whole(self.workers, "number of workers", 1)


@dataclass(frozen=True, kw_only=True)
class TuningConfig:
    """What a tuning run searches for and how: the objective, the search, the noise check and the sessions.

    ``objective`` and ``target``: see :class:`Objective`. ``method``:
    ``"walk"`` (the random walk) or ``"genetic"``. ``cycles``: candidates to
    evaluate (the budget); ``patience`` stops earlier after that many without
    improvement. ``step``, ``max_changes``: each change is uniform in
    +-``step`` times the parameter's bounded range, 1 to ``max_changes``
    parameters at a time. ``pinned``, ``bounds``: parameters that keep their
    start value; narrower bounds (``{"raise_fraction": (0.25, 2.0)}``).
    ``hone``: the walk repeats a change that helped
    (:func:`matchdb.play.optimise.random_walk`). ``parents``, ``children``: the
    genetic search's population and brood. ``noise_sessions``: sessions
    measuring the noise (and checking the result). ``seed``: seed of the
    training session, the noise sessions and the proposals. ``name``: the
    tuned bot's name (default ``NAME-tuned``). ``sessions``: how each
    candidate is scored (:class:`SessionConfig`).

    >>> TuningConfig(objective="invested", pinned=["rr_low"], sessions=SessionConfig(games=60)).sessions.games
    60
    >>> TuningConfig(method="annealing")
    Traceback (most recent call last):
    ...
    matchdb.play.tuning.TuningError: The method 'annealing' is unknown; expected one of walk, genetic.
    """

    objective: str | Objective = "bb_per_100"
    target: float | None = None
    method: str = "walk"
    cycles: int = 200
    step: float = 0.05
    max_changes: int = 3
    patience: int | None = None
    hone: bool = True
    parents: int = 4
    children: int = 8
    pinned: Sequence[str] = ()
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    noise_sessions: int = 5
    seed: int = 0
    name: str | None = None
    sessions: SessionConfig = field(default_factory=SessionConfig)

    def __post_init__(self) -> None:
        if isinstance(self.objective, Objective):
            if self.target is not None:
                raise TuningError("Give the target inside the Objective, not also as target=.")
        else:
            Objective(self.objective, self.target)  # refuses an unknown objective or a missing target
        if self.method not in METHODS:
            raise TuningError(f"The method {self.method!r} is unknown; expected one of {', '.join(METHODS)}.")
        _whole(self.cycles, "number of cycles", 1)
        if isinstance(self.step, bool) or not isinstance(self.step, (int, float)) or not 0 < self.step <= 1:
            raise TuningError(f"The step {self.step!r} is not a number above 0 and at most 1 (a share of each "
                              "parameter's range).")
        _whole(self.max_changes, "maximum number of changes", 1)
        if self.patience is not None:
            _whole(self.patience, "patience", 1)
        if not isinstance(self.hone, bool):
            raise TuningError(f"hone is {self.hone!r}; expected True or False.")
        _whole(self.parents, "number of parents", 1)
        _whole(self.children, "number of children", 1)
        _whole(self.noise_sessions, "number of noise sessions", 2)
        _whole(self.seed, "seed", 0, 2**63 - 1)
        if self.name is not None and (not isinstance(self.name, str) or not self.name.strip()):
            raise TuningError(f"The name {self.name!r} is not a bot name; expected some text, or None.")
        if isinstance(self.pinned, str) or not all(isinstance(p, str) for p in self.pinned):
            raise TuningError(f"The pinned parameters {self.pinned!r} are not a list of parameter names.")
        if not isinstance(self.bounds, Mapping):
            raise TuningError(f"The bounds {self.bounds!r} are not a mapping of parameter names to (low, high).")
        if not isinstance(self.sessions, SessionConfig):
            raise TuningError(f"The sessions {self.sessions!r} are not a SessionConfig.")
        object.__setattr__(self, "pinned", tuple(self.pinned))
        object.__setattr__(self, "bounds", dict(self.bounds))

    @property
    def goal(self) -> Objective:
        """The :class:`Objective` of ``objective`` and ``target``."""
        return self.objective if isinstance(self.objective, Objective) else Objective(self.objective, self.target)


_SEARCH_KEYS = frozenset(f.name for f in fields(TuningConfig)) - {"sessions"}
_SESSION_KEYS = frozenset(f.name for f in fields(SessionConfig))
_SOURCE_KEYS = frozenset({"db", "tables", "capacity"})


def _settle(where: str, config: TuningConfig | None, source: Any, old: dict[str, Any],
            search_keys: frozenset[str] = _SEARCH_KEYS) -> tuple[TuningConfig, TableSource | None]:
    """The configuration and table source of a call, from ``config=`` and ``source=`` or the deprecated keywords ``old``."""
    unknown = sorted(set(old) - search_keys - _SESSION_KEYS - _SOURCE_KEYS)
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    table_source = source_of(source, old.pop("db", None), old.pop("tables", None), old.pop("capacity", None),
                             where=where, stacklevel=4)
    if old:
        warnings.warn(f"{where}'s keywords {', '.join(f'{k}=' for k in sorted(old))} are deprecated; give "
                      "config=TuningConfig(..., sessions=SessionConfig(...)) (matchdb.play.tuning).", DeprecationWarning,
                      stacklevel=3)
        if config is not None:
            raise TuningError(f"{where} was given config= and also {', '.join(f'{k}=' for k in sorted(old))}; give "
                              "only config=TuningConfig(...).")
        sessions = SessionConfig(**{k: v for k, v in old.items() if k in _SESSION_KEYS})
        config = TuningConfig(**{k: v for k, v in old.items() if k in search_keys}, sessions=sessions)
    if config is None:
        return TuningConfig(), table_source
    if not isinstance(config, TuningConfig):
        raise TuningError(f"The config {config!r} is not a TuningConfig.")
    return config, table_source


def _derive(*entropy: int) -> int:
    return int(np.random.SeedSequence([int(e) for e in entropy]).generate_state(1)[0])


# -- playing sessions -------------------------------------------------------------------------------


_WORKER_SOURCES: dict[tuple[str | None, str | None, int], TableSource] = {}


def _play_chunk(bots: Sequence[Bot], settings: GameSettings, seats: int, seed: int, units: int, source: Any
                ) -> tuple[dict[str, Any], int]:
    """One chunk: ``units`` duplicate sets of ``bots`` (the candidate first); its per-set figures and hands."""
    set_games = len(seatings(len(bots), seats, 0, 0, True))
    result = run_arena(list(bots), games=units * set_games, seats=seats, seed=seed, duplicate=True, settings=settings,
                       source=source, progress=False)
    name = bots[0].name
    return result.unit_values[name], result.bot(name).hands


def _worker_chunk(bots: Sequence[Bot], settings: GameSettings, seats: int, seed: int, units: int,
                  where: TableSource | None) -> tuple[dict[str, Any], int]:
    """A Dask task: the worker opens (once) its own strength source, then plays a chunk."""
    source = None
    if where is not None:
        source = _WORKER_SOURCES.setdefault(where.key(), where).open()
    return _play_chunk(bots, settings, seats, seed, units, source)


class SessionPlayer:
    """Plays sessions of candidate bots against a fixed field, split into chunks, in parallel on Dask workers.

    The session settings as keywords (``games=``, ``seats=``, ``mode=``,
    ``hands=``, ``chunks=``, ``workers=``) and ``db=``, ``tables=``,
    ``capacity=`` are deprecated (a :class:`DeprecationWarning`).

    Parameters
    ----------
    field : the opponents (names like ``"west-tight"``, bot files or bot objects).
    sessions : how a session is played (:class:`SessionConfig`): games per session (rounded up to whole
        duplicate sets: every order of the seated bots up to four seats, else every rotation of a random
        seating; see :func:`matchdb.play.arena.seatings`), seats, mode and hands, chunks, and workers (more
        than 1 start a Dask LocalCluster of that many single-threaded worker processes on 127.0.0.1 at the
        first session, each opening the source's database and tables itself).
    source : where hand strengths come from (:class:`matchdb.play.sources.TableSource`, or an open
        :class:`matchdb.play.strength.StrengthSource`); only opened when a bot needs them.
    """

    def __init__(self, field: Sequence[Bot | str] | str, sessions: SessionConfig | None = None, *,
                 source: TableSource | StrengthSource | None = None, **deprecated: Any) -> None:
        unknown = sorted(set(deprecated) - _SESSION_KEYS - _SOURCE_KEYS)
        if unknown:
            raise TypeError(f"SessionPlayer() got an unexpected keyword argument {unknown[0]!r}")
        self.source = source_of(source, deprecated.pop("db", None), deprecated.pop("tables", None),
                                deprecated.pop("capacity", None), where="SessionPlayer")
        if deprecated:
            warnings.warn(f"SessionPlayer's keywords {', '.join(f'{k}=' for k in sorted(deprecated))} are deprecated; "
                          "give sessions=SessionConfig(...) (matchdb.play.tuning).", DeprecationWarning, stacklevel=2)
            if sessions is not None:
                raise TuningError("SessionPlayer was given sessions= and also session keywords; give only "
                                  "sessions=SessionConfig(...).")
            sessions = SessionConfig(**deprecated)
        sessions = sessions if sessions is not None else SessionConfig()
        if not isinstance(sessions, SessionConfig):
            raise TuningError(f"The sessions {sessions!r} are not a SessionConfig.")
        self.config = sessions
        if isinstance(field, str):
            field = [b.strip() for b in field.split(",") if b.strip()]
        self.field = [make_bot(b) if isinstance(b, str) else b for b in field]
        if not self.field or not all(callable(getattr(b, "act", None)) for b in self.field):
            raise TuningError(f"The field {field!r} names no bot; expected opponents like 'west-tight,allin'.")
        if sessions.seats is None and len(self.field) + 1 > 10:
            raise TuningError(f"The candidate and {len(self.field)} opponents need {len(self.field) + 1} seats; a table "
                              "has at most 10.")
        self.seats = sessions.seats if sessions.seats is not None else len(self.field) + 1
        if len(self.field) + 1 > self.seats:
            raise TuningError(f"The candidate and {len(self.field)} opponents do not fit {self.seats} seats.")
        mode, hands = sessions.mode, sessions.hands
        self.settings = GameSettings(mode=mode, hands=hands if hands is not None else (200 if mode == "cash" else 5000),
                                     stack=2000 if mode == "cash" else 1500)
        self.set_games = len(seatings(len(self.field) + 1, self.seats, 0, 0, True))  # games a duplicate set plays
        self.units = math.ceil(sessions.games / self.set_games)
        self.chunk_units = [len(part) for part in np.array_split(np.arange(self.units), sessions.chunks) if len(part)]
        self.workers = int(sessions.workers)
        if self.source is not None:
            self.source.check()  # says so at once when the folder holds no decoded tables
        self._strengths: StrengthSource | None = None
        self._needs: bool | None = None
        self._cluster: contextlib.ExitStack | None = None
        self._client = None

    @property
    def games(self) -> int:
        """Games per session (whole duplicate sets)."""
        return self.units * self.set_games

    def _where(self) -> TableSource | None:
        """What the workers open for their own strength sources, or None when no bot needs one."""
        if not self._needs or self.source is None:
            return None
        return self.source.for_workers()

    def _start(self, bots: Sequence[Bot]) -> None:
        """Open the strength source when some bot needs one; start the workers (once)."""
        if self._needs is None:
            self._needs = needs_strength(list(bots) + self.field)
            if self._needs:
                self.source = self.source or TableSource()
                self._strengths = self.source.open()
        if self.workers > 1 and self._client is None:
            from matchdb.cluster import local_cluster

            # compile (or load) every kernel here first: numba's cache races when many processes compile at once
            _play_chunk([bots[0], *self.field], self.settings, self.seats, 0, 1, self._strengths)
            cluster = self._cluster = contextlib.ExitStack()
            self._client = cluster.enter_context(local_cluster(self.workers))

    def chunk_seeds(self, seed: int) -> list[int]:
        """The seeds of a session's chunks (the session's own seed when it is one chunk)."""
        if len(self.chunk_units) == 1:
            return [int(seed)]
        return [_derive(seed, 0x63, c) for c in range(len(self.chunk_units))]

    def play(self, pairs: Sequence[tuple[Bot, int]]) -> list[Session]:
        """Play one session per ``(bot, seed)``; every chunk of all of them is a task for the workers."""
        bots = [bot for bot, _ in pairs]
        names = {b.name for b in self.field}
        for bot in bots:
            if bot.name in names:
                raise TuningError(f"The candidate's name {bot.name!r} is also an opponent's; results would be pooled.")
        if not bots:
            return []
        self._start(bots)
        tasks = [(k, [bot, *self.field], chunk_seed, units) for k, (bot, seed) in enumerate(pairs)
                 for chunk_seed, units in zip(self.chunk_seeds(seed), self.chunk_units, strict=True)]
        if self._client is None:
            done = [_play_chunk(b, self.settings, self.seats, s, u, self._strengths) for _, b, s, u in tasks]
        else:
            where = self._where()
            futures = [self._client.submit(_worker_chunk, b, self.settings, self.seats, s, u, where, pure=False)
                       for _, b, s, u in tasks]
            done = self._client.gather(futures)
        sessions = []
        for k, (_bot, seed) in enumerate(pairs):
            parts = [d for (j, *_), d in zip(tasks, done, strict=True) if j == k]
            values = {key: np.concatenate([p[0][key] for p in parts]) for key in ("bb_per_100", "chips", "invested", "wins")}
            units = len(values["wins"])
            sessions.append(Session(seed=int(seed), units=units, games=units * self.set_games,
                                    hands=int(sum(p[1] for p in parts)), bb_per_100=float(values["bb_per_100"].mean()),
                                    chips=float(values["chips"].mean()), invested=float(values["invested"].mean()),
                                    wins=float(values["wins"].mean())))
        return sessions

    def close(self) -> None:
        """Stop the workers, if any were started."""
        if self._client is not None:
            cluster, self._cluster, self._client = self._cluster, None, None
            cluster.close()

    def __enter__(self) -> SessionPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- results ----------------------------------------------------------------------------------------


@dataclass
class Noise:
    """The start parameters' objective over sessions with different seeds, and its spread."""

    seeds: list[int]
    values: np.ndarray
    mean: float
    sd: float  # sample standard deviation between sessions

    def __str__(self) -> str:
        return f"{self.mean:.4g} +- {self.sd:.3g} (sd over {len(self.values)} sessions)"


@dataclass(kw_only=True)
class TuningResult:
    """A tuning run: the tuned bot, the search, the noise, and the improvement on held-out sessions.

    ``train_start`` and ``train_best`` are the objective's values on the
    training session; ``validation`` the best parameters' values on the
    noise sessions' seeds (paired with ``noise.values``), ``improvement``
    their mean paired gain with a 95 % Student-t interval, ``beyond_noise``
    whether it is real by the module's rule.
    """

    method: str
    objective: Objective
    bot: BuiltinBot
    start_bot: BuiltinBot
    search: Search
    values: NDArray[np.float64]  # the objective's value of the start (entry 0) and of each candidate on the training session
    noise: Noise
    validation: np.ndarray
    improvement: Estimate
    beyond_noise: bool
    settings: dict[str, Any]
    seconds: float
    log: list[str] = field(default_factory=list)

    @property
    def train_start(self) -> float:
        """The start's value on the training session."""
        return float(self.values[0])

    @property
    def train_best(self) -> float:
        """The best candidate's value on the training session."""
        return float(self.values[self._best_index()[-1]])

    def _best_index(self) -> NDArray[np.int64]:
        """Index into ``values`` of the best so far after each evaluation."""
        losses = np.concatenate([[self.search.start_loss], self.search.losses])
        best = np.zeros(len(losses), dtype=np.int64)
        for i in range(1, len(losses)):
            best[i] = i if losses[i] < losses[best[i - 1]] else best[i - 1]
        return best

    def best_values(self) -> np.ndarray:
        """The best candidate's training value after each evaluation (entry 0: the start)."""
        return self.values[self._best_index()]

    def summary(self) -> str:
        """What happened, in a few lines."""
        s = self.settings
        verdict = "beyond the noise" if self.beyond_noise else "NOT beyond the noise (working in the noise)"
        lines = [
            f"tuned {self.start_bot.name} by {self.method} against {', '.join(s['field'])}: {s['games']} duplicate "
            f"{s['mode']} games a session, seed {s['seed']}; objective {self.objective.label}",
            f"noise: start parameters over {len(self.noise.values)} sessions: {self.noise}",
            f"search: {self.search.evaluations} candidates, {len(self.search.steps)} improvements, stopped "
            f"({self.search.reason}); training session {self.train_start:.4g} -> {self.train_best:.4g}",
            f"held-out sessions: start {self.noise.mean:.4g}, tuned {float(self.validation.mean()):.4g}; "
            f"improvement {self.improvement} (95 % t interval over {self.improvement.units} paired sessions), {verdict}",
            f"{self.seconds:.1f} s",
        ]
        return "\n".join(lines)

    def changed(self) -> dict[str, tuple[float, float]]:
        """Parameters that moved: name -> (start, tuned)."""
        search = self.search
        return {n: (float(a), float(b)) for n, a, b in zip(search.names, search.start, search.best, strict=True) if a != b}

    def to_text(self) -> str:
        """What the command line prints (:meth:`summary`)."""
        return self.summary()

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def to_dict(self) -> dict[str, Any]:
        """The run's figures as plain JSON types (kept in the saved bot file under ``"tuning"``)."""
        # numpy's tolist() is typed Any: as dict[str, object] the figures pick plain()'s dict overload, not the Any one
        figures: dict[str, object] = {
            "method": self.method, "objective": self.objective.kind, "target": self.objective.target,
            "settings": self.settings, "start": dict(zip(self.search.names, self.search.start.tolist(), strict=True)),
            "noise": {"seeds": self.noise.seeds, "values": self.noise.values.tolist(), "mean": self.noise.mean,
                      "sd": self.noise.sd},
            "train": {"start": self.train_start, "best": self.train_best, "candidates": self.search.evaluations,
                      "improvements": len(self.search.steps), "stopped": self.search.reason},
            "validation": self.validation.tolist(),
            "improvement": {"mean": self.improvement.mean, "low": self.improvement.low, "high": self.improvement.high,
                            "sessions": self.improvement.units},
            "beyond_noise": self.beyond_noise, "seconds": self.seconds,
        }
        return plain(figures)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the tuned bot as a file :func:`matchdb.play.bots.load_bot` (and ``--bots FILE.json``) reads."""
        return save_bot(self.bot, path, {"tuning": self.to_dict()})

    def plot(self, path: str | os.PathLike[str]) -> str:
        """The best value over the candidates, the noise band and the held-out check (needs matplotlib)."""
        return _plot([self], path)


@dataclass
class Comparison:
    """The random walk and the genetic search on the same budget, noise, training and held-out sessions."""

    results: dict[str, TuningResult]

    def summary(self) -> str:
        """A table: each method's training gain, held-out improvement with its interval, verdict and time."""
        first = next(iter(self.results.values()))
        lines = [f"same budget: {first.settings['cycles']} candidates x {first.settings['games']} duplicate games, "
                 f"seed {first.settings['seed']}; noise {first.noise}",
                 f"{'method':12} {'training':>22} {'held-out improvement (95 % t)':>36} {'real':>5} {'kept':>5} {'s':>7}"]
        for name, r in self.results.items():
            lines.append(f"{name:12} {r.train_start:>10.4g} -> {r.train_best:<9.4g} {r.improvement!s:>36} "
                         f"{'yes' if r.beyond_noise else 'no':>5} {len(r.search.steps):>5} {r.seconds:>7.1f}")
        return "\n".join(lines)

    def to_text(self) -> str:
        """What the command line prints (:meth:`summary`)."""
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """Each method's figures (:meth:`TuningResult.to_dict`) by method name."""
        return {name: result.to_dict() for name, result in self.results.items()}

    def plot(self, path: str | os.PathLike[str]) -> str:
        """Both trajectories in one figure (needs matplotlib)."""
        return _plot(list(self.results.values()), path)


def _plot(results: Sequence[TuningResult], path: str | os.PathLike[str]) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TuningError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
    first = results[0]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.axhspan(first.train_start - first.noise.sd, first.train_start + first.noise.sd, color="0.88",
               label="start +- session noise (1 sd)")
    for r in results:
        curve = r.best_values()
        line, = ax.plot(np.arange(len(curve)), curve, label=f"{r.method}: best on the training session")
        steps = [s.evaluation for s in r.search.steps]
        ax.plot(steps, curve[steps], "o", ms=3, color=line.get_color())
        x = len(curve) - 1
        ax.errorbar([x], [float(r.validation.mean())], yerr=[[r.improvement.mean - r.improvement.low],
                    [r.improvement.high - r.improvement.mean]], fmt="s", color=line.get_color(), capsize=4,
                    label=f"{r.method}: held-out mean (improvement's 95 % t interval)")
    ax.axhline(first.noise.mean, color="0.5", ls="--", lw=1, label="start: held-out mean")
    if not first.objective.maximise:
        ax.axhline(first.objective._target(), color="tab:red", ls=":", lw=1, label="target")
    ax.set_xlabel("candidates evaluated")
    ax.set_ylabel(first.objective.label)
    ax.set_title(f"tuning {first.start_bot.name} against {', '.join(first.settings['field'])}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        from matchdb.outputs import save_figure

        return str(save_figure(fig, path))
    finally:
        plt.close(fig)


# -- the tuner -----------------------------------------------------------------------------------------


class Tuner:
    """One tuning problem: a bot, its searchable box, an objective and a :class:`SessionPlayer`; noise measured once.

    :meth:`run` may be called several times (both methods, say): they share
    the noise measurement, the training session and the held-out sessions.

    ``bounds`` narrows parameters (``{"raise_fraction": (0.25, 2.0)}``)
    within the bot's own bounds; ``pinned`` parameters keep their start
    value; ``name`` is the tuned bot's (default ``NAME-tuned``). Session and
    search settings as :func:`tune_bot`.
    """

    def __init__(self, bot: Any, player: SessionPlayer, *, objective: str | Objective = "bb_per_100",
                 target: float | None = None, bounds: Mapping[str, tuple[float, float]] | None = None,
                 pinned: Sequence[str] = (), noise_sessions: int = 5, seed: int = 0, name: str | None = None,
                 progress: bool = False, log: Callable[[str], None] | None = None) -> None:
        made = make_bot(bot) if isinstance(bot, str) else bot
        if not isinstance(made, BuiltinBot):
            raise TuningError(f"The bot {bot!r} is not a built-in bot; only those have a parameter vector to tune.")
        self.bot: BuiltinBot = made
        self.objective = objective if isinstance(objective, Objective) else Objective(objective, target)
        if isinstance(objective, Objective) and target is not None:
            raise TuningError("Give the target inside the Objective, not also as target=.")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise TuningError(f"The seed {seed!r} is not a whole number of at least 0.")
        if isinstance(noise_sessions, bool) or not isinstance(noise_sessions, (int, np.integer)) or noise_sessions < 2:
            raise TuningError(f"The number of noise sessions {noise_sessions!r} is not a whole number of at least 2.")
        if not self.bot.parameter_names():
            raise TuningError(f"The bot {self.bot.name!r} has no parameters to tune.")
        self.seed = int(seed)
        self.name = name or f"{self.bot.name}-tuned"
        low, high = self.bot.bounds()
        names = self.bot.parameter_names()
        for key, pair in dict(bounds or {}).items():
            if key not in names:
                raise TuningError(f"The bounded parameter {key!r} is not one of {type(self.bot).__name__}'s: "
                                  f"{', '.join(names) or 'none'}.")
            i = names.index(key)
            try:
                lo, hi = (float(v) for v in pair)
            except (TypeError, ValueError):
                raise TuningError(f"The bounds of {key} are {pair!r}; expected two numbers (low, high).") from None
            if not low[i] <= lo <= hi <= high[i]:
                raise TuningError(f"The bounds of {key} are {lo:g} to {hi:g}; expected low <= high within the bot's "
                                  f"{low[i]:g} to {high[i]:g}.")
            low[i], high[i] = lo, hi
        try:
            self.space = Space.of(self.bot.vector(), low, high, names, pinned=pinned)
        except OptimiseError as error:
            raise TuningError(str(error)) from None
        self.progress = progress
        self._log = log
        self.lines: list[str] = []
        if not isinstance(player, SessionPlayer):
            raise TuningError(f"The player {player!r} is not a SessionPlayer.")
        self.player = player
        self.noise_seeds = [_derive(self.seed, 0x6E, i) for i in range(noise_sessions)]
        self._noise: Noise | None = None

    def say(self, line: str) -> None:
        """Add a line to the log (and hand it to the log callback)."""
        self.lines.append(line)
        if self._log is not None:
            self._log(line)

    def candidate(self, vector: Sequence[float] | np.ndarray) -> BuiltinBot:
        """The bot with a parameter vector, under the tuned name."""
        return self.bot.with_vector(np.asarray(vector, dtype=np.float64), name=self.name)

    def values(self, vectors: Sequence[Sequence[float] | np.ndarray], seeds: Sequence[int]) -> list[float]:
        """The objective's value of each vector on the session of the matching seed."""
        sessions = self.player.play([(self.candidate(v), s) for v, s in zip(vectors, seeds, strict=True)])
        return [self.objective.value(s) for s in sessions]

    def noise(self) -> Noise:
        """The start parameters over ``noise_sessions`` sessions with other seeds (measured once)."""
        if self._noise is None:
            values = np.array(self.values([self.space.start] * len(self.noise_seeds), self.noise_seeds))
            self._noise = Noise(list(self.noise_seeds), values, float(values.mean()), float(values.std(ddof=1)))
            self.say(f"noise: the start parameters over {len(values)} sessions of {self.player.games} games: "
                     f"{self.objective.label} {self._noise}")
        return self._noise

    def run(self, method: str = "walk", *, cycles: int = 200, step: float = 0.05, max_changes: int = 3,
            patience: int | None = None, hone: bool = True, parents: int = 4, children: int = 8) -> TuningResult:
        """Measure the noise (once), search, and check the best parameters on the held-out sessions."""
        if method not in METHODS:
            raise TuningError(f"The method {method!r} is unknown; expected one of {', '.join(METHODS)}.")
        started = time.perf_counter()
        noise = self.noise()
        first_line = len(self.lines)
        objective = self.objective
        values: list[float] = []
        cache: dict[bytes, float] = {}

        def batch(vectors: list[np.ndarray]) -> list[float]:
            todo = [v for v in vectors if v.tobytes() not in cache]
            for v, value in zip(todo, self.values(todo, [self.seed] * len(todo)), strict=True):
                cache[v.tobytes()] = value
            out = [cache[v.tobytes()] for v in vectors]
            values.extend(out)
            return [objective.loss(x) for x in out]

        def on_step(found: Step) -> None:
            value = values[found.evaluation]
            self.say(f"{METHODS[method]} candidate {found.evaluation}: {objective.label} {value:.4g} "
                     f"({objective.gain(values[0], value):+.4g} over the start; session noise sd {noise.sd:.3g}): "
                     f"{found.describe()}")

        common: dict[str, Any] = dict(names=self.space.names, step=step, max_changes=max_changes,
                      pinned=[n for i, n in enumerate(self.space.names) if i not in set(self.space.free.tolist())],
                      cycles=cycles, patience=patience, seed=self.seed, progress=self.progress,
                      what=f"tuning ({METHODS[method]})", on_step=on_step)
        try:
            if method == "walk":
                search = random_walk(lambda v: batch([v])[0], self.space.start, self.space.low, self.space.high,
                                     hone=hone, **common)
            else:
                search = genetic(lambda v: batch([v])[0], self.space.start, self.space.low, self.space.high,
                                 parents=parents, children=children, batch=batch, **common)
        except OptimiseError as error:
            raise TuningError(str(error)) from None
        validation = np.array(self.values([search.best] * len(noise.seeds), noise.seeds))
        gains = np.array([objective.gain(a, b) for a, b in zip(noise.values, validation, strict=True)])
        improvement = _interval(gains)
        beyond = bool(improvement.low > 0 and improvement.mean > noise.sd)
        self.say(f"held-out: the best of {METHODS[method]} over the {len(gains)} noise sessions: {objective.label} "
                 f"{float(validation.mean()):.4g} against the start's {noise.mean:.4g}: improvement {improvement} "
                 f"(session noise sd {noise.sd:.3g}): {'beyond' if beyond else 'NOT beyond'} the noise")
        settings = dict(field=[b.name for b in self.player.field], seats=self.player.seats, games=self.player.games,
                        mode=self.player.settings.mode, hands=self.player.settings.hands,
                        chunks=len(self.player.chunk_units), workers=self.player.workers, seed=self.seed,
                        cycles=cycles, step=step, max_changes=max_changes, patience=patience,
                        pinned=common["pinned"], low=self.space.low.tolist(), high=self.space.high.tolist())
        settings |= dict(hone=hone) if method == "walk" else dict(parents=parents, children=children)
        return TuningResult(method=METHODS[method], objective=objective, bot=self.candidate(search.best), start_bot=self.bot,
                            search=search, values=np.array(values), noise=noise, validation=validation,
                            improvement=improvement, beyond_noise=beyond, settings=settings,
                            seconds=time.perf_counter() - started, log=self.lines[:1] + self.lines[first_line:])


def tune_bot(bot: Any, field: Sequence[Any], config: TuningConfig | None = None, *,
             source: TableSource | StrengthSource | None = None, progress: bool = False,
             log: Callable[[str], None] | None = None, **deprecated: Any) -> TuningResult:
    """Tune ``bot`` against ``field`` in the arena and check the result against the session noise.

    The settings as keywords (``cycles=``, ``games=``, ...: the fields of
    :class:`TuningConfig` and :class:`SessionConfig`) and ``db=``,
    ``tables=``, ``capacity=`` are deprecated (a :class:`DeprecationWarning`)
    and still taken for one release.

    Parameters
    ----------
    bot : a built-in bot, its name (``"west"``, ``"west-loose:headsup"``) or a bot file.
    field : the opponents, a list or a comma-separated text.
    config : what is searched for and how, and the sessions (:class:`TuningConfig`; default ``TuningConfig()``).
    source : where hand strengths come from (:class:`matchdb.play.sources.TableSource`, or an open
        :class:`matchdb.play.strength.StrengthSource`; default: the default database, tables decoded on first use).
    progress : show a progress bar; ``log`` receives each line of the log
        (noise, every improvement, the held-out check) as it happens.

    Examples
    --------
    >>> config = TuningConfig(cycles=4, noise_sessions=2, seed=2, sessions=SessionConfig(games=10, hands=10, chunks=1))
    >>> tune_bot("fives", "station", config).settings["cycles"]
    4
    """
    config, table_source = _settle("tune_bot", config, source, deprecated)
    player = SessionPlayer(field, config.sessions, source=table_source)
    try:
        return _tuner(bot, player, config, progress, log).run(config.method, **_search(config))
    finally:
        player.close()


def _tuner(bot: Any, player: SessionPlayer, config: TuningConfig, progress: bool,
           log: Callable[[str], None] | None) -> Tuner:
    return Tuner(bot, player, objective=config.objective, target=config.target, bounds=config.bounds,
                 pinned=config.pinned, noise_sessions=config.noise_sessions, seed=config.seed, name=config.name,
                 progress=progress, log=log)


def _search(config: TuningConfig) -> dict[str, Any]:
    """The keywords of :meth:`Tuner.run` that ``config`` gives."""
    return dict(cycles=config.cycles, step=config.step, max_changes=config.max_changes, patience=config.patience,
                hone=config.hone, parents=config.parents, children=config.children)


def compare_methods(bot: Any, field: Sequence[Any], config: TuningConfig | None = None, *,
                    source: TableSource | StrengthSource | None = None, progress: bool = False,
                    log: Callable[[str], None] | None = None, **deprecated: Any) -> Comparison:
    """The random walk and the genetic search on the same budget of ``config.cycles`` candidates.

    Both start from the same parameters, share one noise measurement, train
    on the same session and are checked on the same held-out sessions.
    ``config.method`` is not read (both run). Other arguments, and the
    deprecated keywords, as :func:`tune_bot`.
    """
    config, table_source = _settle("compare_methods", config, source, deprecated,
                                   search_keys=_SEARCH_KEYS - {"method"})
    player = SessionPlayer(field, config.sessions, source=table_source)
    try:
        tuner = _tuner(bot, player, config, progress, log)
        results = {}
        for method in METHODS:
            results[METHODS[method]] = tuner.run(method, **_search(config))
        return Comparison(results)
    finally:
        player.close()
