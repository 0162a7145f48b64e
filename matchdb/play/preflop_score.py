"""Tomlinson's preflop decision score: a parametric score 0..1000 of the 169 starting hands, fitted by least squares.

The score of a class is a sum of terms, each a parameter in score points
(so every parameter has the same magnitude: the article's pre-scaling),
clipped to 0..1000:

- a pair: ``pair_base + pair_step * r / 12`` (r = 0 for deuces .. 12 for aces);
- any other hand: ``base + high_card * hi / 12 + kicker * lo / 12`` plus the
  discontinuous bonuses ``ace`` (the higher card is an ace), ``broadway``
  (both cards ten or higher), ``suited``, and one of ``connected``,
  ``one_gap``, ``two_gap`` (no, one or two ranks between the cards).

:func:`fit_preflop_score` fits the parameters by the article's Monte Carlo
least squares (:func:`matchdb.play.optimise.random_walk`: 1-3 parameters changed
by up to +-10 points per cycle, kept when the weighted squared error falls)
to targets from the database (:func:`preflop_targets`: the 169 classes'
equity against 1..9 opponents scaled to 0..1000) or to a user's critical
hands with weights (:func:`critical_hands`), and :func:`spearman` compares
the fitted ranking of the 169 classes with the database's.

>>> score = PreflopScore()
>>> score.score("AA"), score.score("AhKh") > score.score("AKo"), score.ranking()[:3]
(900.0, True, ('AA', 'KK', 'QQ'))
>>> fit = fit_preflop_score({"AA": 950, "KK": 900, "AKs": 700, "72o": 50}, target_error=5.0, seed=1)
>>> fit.search.reason, fit.rms <= 5.0, fit.start_rms > 50
('target', True, True)
>>> PreflopScore(suited=-5)
Traceback (most recent call last):
...
matchdb.play.preflop_score.ScoreError: The parameter suited = -5 is out of bounds; expected 0.0 to 1000.0.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.cards import RANKS, parse_cards
from matchdb.core.hole_cards import CLASSES, class_index, hand_class
from matchdb.errors import MatchdbError
from matchdb.play.optimise import OptimiseError, Search, Step, plot_trajectories, random_walk

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from matchdb.core.cards import CardsLike

__all__ = [
    "ScoreError",
    "ScoreParameter",
    "PreflopScore",
    "MAX_SCORE",
    "preflop_targets",
    "critical_hands",
    "fit_preflop_score",
    "PreflopFit",
    "spearman",
    "rank_differences",
]

#: The score's range is 0..MAX_SCORE.
MAX_SCORE = 1000.0


class ScoreError(MatchdbError):
    """A preflop score, its targets or its fit was given something it cannot take."""


@dataclass(frozen=True)
class ScoreParameter:
    """One named, bounded term of the score, in score points."""

    name: str
    default: float
    low: float
    high: float
    doc: str = ""


#: The score's parameters with their first estimates and bounds.
PARAMETERS = (
    ScoreParameter("base", 0.0, -500.0, 500.0, "points of every unpaired hand"),
    ScoreParameter("high_card", 400.0, 0.0, 1000.0, "the higher card's points at an ace, scaled by rank (none for a deuce)"),
    ScoreParameter("kicker", 200.0, 0.0, 1000.0, "the lower card's points at an ace, scaled by rank"),
    ScoreParameter("pair_base", 300.0, 0.0, 1000.0, "points of a pair of deuces"),
    ScoreParameter("pair_step", 600.0, 0.0, 1000.0, "points a pair gains from deuces to aces, linear in rank"),
    ScoreParameter("ace", 50.0, 0.0, 1000.0, "bonus: the higher card is an ace"),
    ScoreParameter("broadway", 50.0, 0.0, 1000.0, "bonus: both cards ten or higher"),
    ScoreParameter("suited", 50.0, 0.0, 1000.0, "bonus: both cards of one suit"),
    ScoreParameter("connected", 50.0, 0.0, 1000.0, "bonus: consecutive ranks"),
    ScoreParameter("one_gap", 30.0, 0.0, 1000.0, "bonus: one rank between the cards"),
    ScoreParameter("two_gap", 15.0, 0.0, 1000.0, "bonus: two ranks between the cards"),
)
_NAMES = tuple(p.name for p in PARAMETERS)


def _features() -> np.ndarray:
    """(169, parameters): each class's multiplier of each parameter, so that score = clip(F @ vector)."""
    rows = []
    for name in CLASSES:
        hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
        row = dict.fromkeys(_NAMES, 0.0)
        if hi == lo:
            row |= {"pair_base": 1.0, "pair_step": hi / 12}
        else:
            gap = hi - lo - 1
            row |= {"base": 1.0, "high_card": hi / 12, "kicker": lo / 12, "ace": float(hi == 12),
                    "broadway": float(lo >= RANKS.index("T")), "suited": float(name.endswith("s")),
                    "connected": float(gap == 0), "one_gap": float(gap == 1), "two_gap": float(gap == 2)}
        rows.append([row[n] for n in _NAMES])
    array = np.array(rows)
    array.flags.writeable = False
    return array


_FEATURES = _features()


def _scores(vector: np.ndarray, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
    scores: NDArray[np.float64] = np.clip(_FEATURES[rows] @ vector, 0.0, MAX_SCORE)
    return scores


class PreflopScore:
    """A preflop decision score: one value 0..1000 per starting-hand class from named, bounded parameters.

    Parameters are given by name (``PreflopScore(suited=80)``); the rest keep
    their first estimates (:data:`PARAMETERS`).

    >>> PreflopScore().with_vector(PreflopScore().vector()).parameters() == PreflopScore().parameters()
    True
    """

    def __init__(self, **params: float) -> None:
        self._vector = np.array([p.default for p in PARAMETERS])
        for key, value in params.items():
            if key not in _NAMES:
                raise ScoreError(f"The parameter {key!r} is not one of the score's: {', '.join(_NAMES)}.")
            spec = PARAMETERS[_NAMES.index(key)]
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not spec.low <= value <= spec.high:
                raise ScoreError(f"The parameter {key} = {value!r} is out of bounds; expected {spec.low} to {spec.high}.")
            self._vector[_NAMES.index(key)] = float(value)
        self._vector.flags.writeable = False

    @staticmethod
    def parameter_names() -> tuple[str, ...]:
        """Names of the parameter vector's entries, in order."""
        return _NAMES

    @staticmethod
    def bounds() -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the parameter vector."""
        return np.array([p.low for p in PARAMETERS]), np.array([p.high for p in PARAMETERS])

    def vector(self) -> np.ndarray:
        """A copy of the parameter vector."""
        return self._vector.copy()

    def parameters(self) -> dict[str, float]:
        """The parameters by name."""
        return {name: float(v) for name, v in zip(_NAMES, self._vector, strict=True)}

    def with_vector(self, vector: Sequence[float] | np.ndarray) -> PreflopScore:
        """A score with another parameter vector (checked against the bounds)."""
        vector = np.asarray(vector, dtype=np.float64)
        if vector.shape != (len(_NAMES),):
            raise ScoreError(f"The vector has shape {vector.shape}; the score takes ({len(_NAMES)},).")
        return PreflopScore(**{name: float(v) for name, v in zip(_NAMES, vector, strict=True)})

    def scores(self) -> np.ndarray:
        """The 169 classes' scores, in :data:`matchdb.core.hole_cards.CLASSES` order."""
        return _scores(self._vector)

    def score(self, hand: str) -> float:
        """The score of a class (``"AKs"``) or of two cards (``"AhKh"``)."""
        return float(self.scores()[_class_of(hand)])

    def ranking(self) -> tuple[str, ...]:
        """The classes, highest score first (ties in :data:`CLASSES` order)."""
        order = np.argsort(-self.scores(), kind="stable")
        return tuple(CLASSES[i] for i in order)

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "preflop-score", "version": 1, "parameters": {...}}``."""
        return {"kind": "preflop-score", "version": 1, "parameters": self.parameters()}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text; :meth:`from_json` reads it back."""
        return json.dumps(self.to_dict(), allow_nan=False)

    @classmethod
    def from_json(cls, data: Any) -> PreflopScore:  # a JSON text or mapping, checked here
        """The score that :meth:`to_json`'s text (or :meth:`to_dict`'s dict) describes."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError as error:
                raise ScoreError(f"The text {data[:60]!r} is not JSON ({error}); expected a preflop score.") from None
        if not isinstance(data, Mapping) or data.get("kind") != "preflop-score" or not isinstance(data.get("parameters"), Mapping):
            raise ScoreError(f"The data {str(data)[:60]!r} is not a preflop score; expected kind 'preflop-score' and parameters.")
        return cls(**data["parameters"])

    def save(self, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None) -> Path:
        """Write :meth:`to_json` (plus ``extra`` keys, like the fit's figures) to a JSON file."""
        from matchdb.outputs import save_text

        return save_text(path, json.dumps(self.to_dict() | dict(extra or {}), indent=1, allow_nan=False) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PreflopScore:
        """Read a file :meth:`save` wrote."""
        try:
            data = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise ScoreError(f"The score file {str(path)!r} does not exist.") from None
        except (OSError, ValueError) as error:
            raise ScoreError(f"The score file {str(path)!r} cannot be read as JSON ({error}).") from None
        return cls.from_json(data)

    def __repr__(self) -> str:
        return "PreflopScore(" + ", ".join(f"{k}={v:.4g}" for k, v in self.parameters().items()) + ")"


def _class_of(hand: CardsLike) -> int:
    if isinstance(hand, str) and hand in CLASSES:
        return CLASSES.index(hand)
    if isinstance(hand, str) and len(hand) <= 3 and hand[:1].isalnum() and not hand[1:2].islower():
        return class_index(hand)  # a class name that is not one says so
    a, b = parse_cards(hand, count=2)
    return hand_class(a, b)


# -- targets -----------------------------------------------------------------------------------


def preflop_targets(table: Any, opponents: int = 1, scale: str = "range") -> np.ndarray:
    """Targets for the 169 classes from a preflop table, in :data:`CLASSES` order.

    From ``db.preflop()``: ``opponents`` 1 takes the exact equity against one
    random hand, 2..9 the naive win rate with that many opponents. From a
    table of equities against 1..9 opponents (``equity[class, k - 1]`` with
    an ``opponents`` tuple, like main's exact multiway preflop table
    ``db.preflop_multiway()``): that equity. ``scale`` ``"range"`` maps the
    weakest class to 0 and the strongest to 1000; ``"equity"`` multiplies
    by 1000.

    >>> from types import SimpleNamespace
    >>> table = SimpleNamespace(classes=CLASSES, equity=np.linspace(0.85, 0.3, 169), win_rate={})
    >>> targets = preflop_targets(table)
    >>> float(targets[0]), float(targets[-1])
    (1000.0, 0.0)
    """
    if isinstance(opponents, bool) or not isinstance(opponents, (int, np.integer)) or not 1 <= opponents <= 9:
        raise ScoreError(f"The number of opponents {opponents!r} is out of range; expected 1..9.")
    if scale not in ("range", "equity"):
        raise ScoreError(f"The scale {scale!r} is unknown; expected 'range' or 'equity'.")
    if tuple(table.classes) != CLASSES:
        raise ScoreError("The preflop table lists its classes in another order than matchdb.core.hole_cards.CLASSES.")
    if np.ndim(table.equity) == 2:  # equity against 1..9 opponents, one column each
        columns = tuple(getattr(table, "opponents", ()))
        if opponents not in columns:
            raise ScoreError(f"The multiway table has no equity against {opponents} opponents; it has {list(columns)}.")
        values = np.asarray(table.equity, dtype=np.float64)[:, columns.index(opponents)]
    elif opponents == 1:
        values = np.asarray(table.equity, dtype=np.float64)
    else:
        if opponents + 1 not in table.win_rate:
            raise ScoreError(f"The preflop table has no win rate for {opponents + 1} players; it has {sorted(table.win_rate)}.")
        values = np.asarray(table.win_rate[opponents + 1], dtype=np.float64)
    if scale == "equity":
        return MAX_SCORE * values
    low, high = values.min(), values.max()
    scores: NDArray[np.float64] = np.clip((values - low) / (high - low) * MAX_SCORE, 0.0, MAX_SCORE)
    return scores


def critical_hands(spec: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A user's critical hands as (class indices, targets, weights).

    ``spec`` is a mapping ``{"AA": 950, "AKs": (800, 2.0)}``, a list of
    ``(hand, target[, weight])``, a text ``"AA:950,AKs:800:2"`` or the path of
    a ``.csv`` (columns hand, target and optionally weight) or ``.json`` file
    (a mapping or list as above). Targets are 0..1000, weights positive
    (default 1); a class named twice is an error.

    >>> index, targets, weights = critical_hands("AA:950,AKs:800:2")
    >>> index.tolist(), targets.tolist(), weights.tolist()
    ([0, 1], [950.0, 800.0], [1.0, 2.0])
    >>> critical_hands("AA:950,AKx:800")
    Traceback (most recent call last):
    ...
    matchdb.play.preflop_score.ScoreError: The critical hand 'AKx' is not a class like 'AA', 'AKs' or 'AKo'.
    """
    entries = _entries(spec)
    if not entries:
        raise ScoreError(f"The critical hands {str(spec)[:60]!r} name no hand; expected at least one, like 'AA:950'.")
    index, targets, weights = [], [], []
    for entry in entries:
        if not isinstance(entry, (tuple, list)) or len(entry) not in (2, 3):
            raise ScoreError(f"The critical hand {entry!r} is not (hand, target) or (hand, target, weight).")
        hand, target, *rest = entry
        if not isinstance(hand, str) or hand not in CLASSES:
            raise ScoreError(f"The critical hand {hand!r} is not a class like 'AA', 'AKs' or 'AKo'.")
        i = CLASSES.index(hand)
        if i in index:
            raise ScoreError(f"The critical hand {hand!r} is named twice; expected each class at most once.")
        target = _number(target, f"target of {hand}", 0.0, MAX_SCORE)
        weight = _number(rest[0], f"weight of {hand}", 0.0, math.inf) if rest else 1.0
        if weight <= 0:
            raise ScoreError(f"The weight of {hand} is {weight!r}; expected a positive number.")
        index.append(i)
        targets.append(target)
        weights.append(weight)
    return np.array(index, dtype=np.int64), np.array(targets), np.array(weights)


def _number(value: Any, what: str, low: float, high: float) -> float:  # a target or weight as given
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScoreError(f"The {what} is {value!r}; expected a number.") from None
    if not low <= number <= high:
        raise ScoreError(f"The {what} is {value!r}; expected a number {low:g}..{high:g}.")
    return number


def _entries(spec: object) -> list[Any]:  # entries as given, checked by the caller
    if isinstance(spec, (str, os.PathLike)) and str(spec).endswith((".csv", ".json")):
        path = Path(spec)
        try:
            text = path.read_text()
        except FileNotFoundError:
            raise ScoreError(f"The critical-hands file {str(spec)!r} does not exist.") from None
        except OSError as error:
            raise ScoreError(f"The critical-hands file {str(spec)!r} cannot be read ({error.strerror}).") from None
        if path.suffix == ".json":
            try:
                spec = json.loads(text)
            except ValueError:
                raise ScoreError(f"The critical-hands file {str(spec)!r} is not valid JSON.") from None
        else:
            rows = list(csv.DictReader(text.splitlines()))
            if not rows or not {"hand", "target"} <= set(rows[0]):
                raise ScoreError(f"The critical-hands file {str(spec)!r} lacks the columns hand and target.")
            return [(r["hand"].strip(), r["target"]) + ((r["weight"],) if r.get("weight") not in (None, "") else ())
                    for r in rows]
    if isinstance(spec, str):
        return [tuple(part.strip().split(":")) for part in spec.split(",") if part.strip()]
    if isinstance(spec, Mapping):
        return [(k, *v) if isinstance(v, (tuple, list)) else (k, v) for k, v in spec.items()]
    if isinstance(spec, Sequence):
        return list(spec)
    raise ScoreError(f"The critical hands {spec!r} are neither a mapping, a list, a text like 'AA:950' nor a file.")


# -- rank correlation -------------------------------------------------------------------------------


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], len(values)]
    ranks = np.empty(len(values))
    for s, e in zip(starts, ends, strict=True):
        ranks[order[s:e]] = (s + e + 1) / 2
    return ranks


def spearman(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Spearman's rank correlation of two equally long sequences (ties take average ranks).

    >>> spearman([1, 2, 3, 4], [10, 20, 30, 45]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    if len(a) != len(b) or len(a) < 2:
        raise ScoreError(f"Rank correlation needs two sequences of one length, at least 2; got {len(a)} and {len(b)}.")
    ra, rb = _ranks(a), _ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denominator = math.sqrt(float((ra * ra).sum() * (rb * rb).sum()))
    if denominator == 0:
        raise ScoreError("Rank correlation is undefined when one sequence is constant.")
    return float((ra * rb).sum() / denominator)


def rank_differences(scores: Sequence[float] | np.ndarray, reference: Sequence[float] | np.ndarray, count: int = 5) -> list[tuple[str, int, int]]:
    """The ``count`` classes whose places (1 = best) differ most: (class, place by ``scores``, place by ``reference``)."""
    place_a = len(CLASSES) + 1 - _ranks(np.asarray(scores, dtype=np.float64))
    place_b = len(CLASSES) + 1 - _ranks(np.asarray(reference, dtype=np.float64))
    order = np.argsort(-np.abs(place_a - place_b), kind="stable")[:count]
    return [(CLASSES[i], int(round(place_a[i])), int(round(place_b[i]))) for i in order]


# -- the fit ------------------------------------------------------------------------------------


@dataclass(kw_only=True)
class PreflopFit:
    """A fitted score, the search that found it and how well it matches its targets.

    ``targets`` holds a target per class (NaN where none was given),
    ``weights`` the weight of each given one (0 elsewhere); ``rms`` is the
    weighted root-mean-square error in score points and ``correlation``
    the rank correlation with the targets over the classes that have one.
    """

    score: PreflopScore
    start: PreflopScore
    search: Search
    targets: np.ndarray
    weights: np.ndarray
    rms: float
    start_rms: float
    correlation: float
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_text(self, reference: np.ndarray | None = None, reference_name: str = "the targets") -> str:
        """The fit in a few lines: error, rank correlation, the parameters and the most misplaced classes."""
        given = ~np.isnan(self.targets)
        lines = [f"preflop score fitted to {self.description or f'{int(given.sum())} hands'}: "
                 f"rms error {self.start_rms:.1f} -> {self.rms:.1f} points in {self.search.evaluations} cycles "
                 f"({len(self.search.steps)} kept, stopped: {self.search.reason}), {self.search.seconds:.2f} s"]
        if given.sum() >= 2:
            lines.append(f"rank correlation with the targets over {int(given.sum())} classes: {self.correlation:.4f}")
        if reference is not None:
            lines.append(f"rank correlation with {reference_name} over 169 classes: "
                         f"{spearman(self.score.scores(), reference):.4f}")
            lines.append("most misplaced (class: place by score / by " + reference_name + "): " + ", ".join(
                f"{c} {a}/{b}" for c, a, b in rank_differences(self.score.scores(), reference)))
        lines.append("parameters: " + ", ".join(f"{k} {v:.1f}" for k, v in self.score.parameters().items()))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The fitted parameters and figures (what ``matchdb tune preflop --json`` prints)."""
        return {"parameters": self.score.parameters(), "rms": self.rms, "start_rms": self.start_rms,
                "rank_correlation": self.correlation, "cycles": self.search.evaluations,
                "kept": len(self.search.steps), "stopped": self.search.reason, "seconds": self.search.seconds,
                "targets": self.description} | self.extra

    def log_lines(self) -> list[str]:
        """One line per kept step: cycle, rms error, the changed parameters."""
        return [f"cycle {s.evaluation}: rms {s.loss:.2f}: {s.describe()}" for s in self.search.steps]

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fitted score with its figures (loadable with :meth:`PreflopScore.load`)."""
        figures = self.to_dict()
        del figures["parameters"]
        return self.score.save(path, {"fit": figures})

    def plot(self, path: str | os.PathLike[str]) -> str:
        """The rms error of the best parameters over the cycles (needs matplotlib)."""
        try:
            return plot_trajectories([self.search], path, ylabel="rms error (score points)", xlabel="cycles",
                                     title=f"preflop score fit: {self.description}")
        except OptimiseError as error:
            raise ScoreError(str(error)) from None


def fit_preflop_score(targets: Any, *, weights: Sequence[float] | np.ndarray | None = None, start: PreflopScore | None = None, step: float = 10.0,
                      max_changes: int = 3, cycles: int = 30_000, target_error: float | None = None,
                      patience: int | None = 2000, tolerance: float = 0.05, pinned: Sequence[str] = (), hone: bool = True, seed: int = 0,
                      progress: bool = False, description: str = "",
                      on_step: Callable[[Step], None] | None = None) -> PreflopFit:
    """Fit a :class:`PreflopScore` to targets by the article's Monte Carlo least squares.

    Parameters
    ----------
    targets : 169 targets 0..1000 in :data:`CLASSES` order (:func:`preflop_targets`;
        NaN leaves a class out), or critical hands as :func:`critical_hands` takes them.
    weights : 169 weights for an array of targets (default 1 each).
    start : the first estimate (default :class:`PreflopScore`'s).
    step : a change is uniform in +-``step`` points (the article: +-10 of 1000).
    max_changes : 1 to this many parameters change per cycle (the article: 1-3).
    cycles, target_error, patience : stop after ``cycles`` cycles, when the
        rms error reaches ``target_error`` points, or after ``patience``
        cycles without progress: the rms error falling by more than
        ``tolerance`` points (smaller improvements are kept all the same).
    pinned : parameters that keep their start value.
    hone : repeat a change that helped until it stops helping.
    seed : seed of the random changes (the same seed, the same fit).
    """
    if isinstance(targets, np.ndarray) and targets.dtype.kind in "fiu" or (
            isinstance(targets, (list, tuple)) and len(targets) == len(CLASSES)
            and all(isinstance(t, (int, float, np.number)) for t in targets)):
        full = np.asarray(targets, dtype=np.float64).reshape(-1)
        if full.shape != (len(CLASSES),):
            raise ScoreError(f"The targets have shape {full.shape}; expected one per class, (169,).")
        given = ~np.isnan(full)
        if not given.any() or (full[given] < 0).any() or (full[given] > MAX_SCORE).any():
            raise ScoreError("The targets are not numbers 0..1000 (NaN to leave a class out), at least one given.")
        w = np.ones(len(CLASSES)) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.shape != (len(CLASSES),) or not np.isfinite(w).all() or (w[given] <= 0).any():
            raise ScoreError(f"The weights have shape {w.shape} or are not positive; expected 169 positive numbers.")
        index = np.flatnonzero(given)
        values, w = full[index], w[index]
    else:
        if weights is not None:
            raise ScoreError("Weights go with the critical hands themselves, like 'AKs:800:2', not as weights=.")
        index, values, w = critical_hands(targets)
        full = np.full(len(CLASSES), np.nan)
        full[index] = values
    start = start if start is not None else PreflopScore()
    if not isinstance(start, PreflopScore):
        raise ScoreError(f"The start {start!r} is not a PreflopScore.")
    if target_error is not None and (not isinstance(target_error, (int, float)) or target_error < 0):
        raise ScoreError(f"The target error {target_error!r} is not a number of points >= 0.")
    features = np.ascontiguousarray(_FEATURES[index])
    total = float(w.sum())

    def loss(vector: np.ndarray) -> float:  # the rms error: it falls exactly when the squared error does
        error = np.clip(features @ vector, 0.0, MAX_SCORE) - values
        return math.sqrt(float(w @ (error * error)) / total)

    low, high = PreflopScore.bounds()
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0:
        raise ScoreError(f"The tolerance {tolerance!r} is not a number of points >= 0.")
    try:
        search = random_walk(loss, start.vector(), low, high, names=_NAMES, scale=np.ones(len(_NAMES)), step=step,
                             max_changes=max_changes, pinned=pinned, cycles=cycles,
                             target=target_error, patience=patience, tolerance=tolerance, hone=hone, seed=seed, progress=progress, what="fitting", unit="cycle", on_step=on_step)
    except OptimiseError as error:
        raise ScoreError(str(error)) from None
    fitted = start.with_vector(search.best)
    weights_full = np.zeros(len(CLASSES))
    weights_full[index] = w
    fitted_scores = fitted.scores()[index]
    correlation = (spearman(fitted_scores, values) if len(index) >= 2 and np.ptp(values) > 0 and np.ptp(fitted_scores) > 0
                   else math.nan)
    return PreflopFit(score=fitted, start=start, search=search, targets=full, weights=weights_full,
                      rms=search.best_loss, start_rms=search.start_loss, correlation=correlation,
                      description=description)
