"""Tomlinson's Monte Carlo optimisation of a flat vector of bounded parameters, and its genetic variant.

Both minimise ``loss(vector) -> float`` over a box ``low <= vector <= high``
(Tomlinson's capping), with some parameters *pinned* (never moved), and know
nothing about poker: :mod:`matchdb.play.preflop_score` fits a preflop score with
them, :mod:`matchdb.play.tuning` tunes bots in the arena.

**Pre-scaling.** Every change is a uniform random number in
``[-step, +step]`` times the parameter's ``scale`` (default: the width of its
bounds), so one ``step`` suits parameters of any magnitude, as the article
advises. A changed value is clipped to its bounds.

**Random walk** (:func:`random_walk`, the article's "Monte Carlo technique"):
each cycle changes 1 to ``max_changes`` free parameters (how many and which
at random) and keeps the candidate when its loss is lower than the best so
far. With ``hone`` a change that helped is tried again at once, and again,
until it stops helping (the article's refinement).

**Genetic search** (:func:`genetic`): ``parents`` vectors (the start and
mutants of it); each generation makes ``children`` children, each mixing two
random parents parameter by parameter and then mutated like a random-walk
step; the best ``parents`` of parents and children are kept (elitism).
``batch`` evaluates a whole generation at once (in parallel, say).

**Stopping.** ``"target"``: the loss is at most ``target``; ``"cycles"``:
``cycles`` candidates were evaluated (the start is not counted); ``"stalled"``:
``patience`` candidates in a row brought no progress (the article's emergency
exit; with a ``tolerance``, improvements smaller than it are kept but are no
progress). The same ``seed`` gives the same proposals, so a
deterministic loss gives the same trajectory.

>>> result = random_walk(lambda x: float(((x - 3.0) ** 2).sum()), [0.0, 0.0], [-10, -10], [10, 10],
...                      step=0.05, cycles=2000, target=1e-4, seed=1)
>>> result.reason, bool(abs(result.best - 3.0).max() < 0.01)
('target', True)
>>> random_walk(lambda x: 0.0, [5.0], [0.0], [1.0])
Traceback (most recent call last):
...
matchdb.play.optimise.OptimiseError: The start value x0 = 5.0 is outside its bounds 0.0 to 1.0.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchdb.errors import MatchdbError
from matchdb.progress import progress as _progress

__all__ = [
    "OptimiseError",
    "Space",
    "Step",
    "Search",
    "random_walk",
    "genetic",
    "STOP_REASONS",
    "plot_trajectories",
]

#: Why a search stopped.
STOP_REASONS = ("target", "cycles", "stalled")


class OptimiseError(MatchdbError):
    """An optimiser was given a problem it cannot take."""


@dataclass(frozen=True)
class Space:
    """The searched box: names, bounds, pre-scaling and which parameters are pinned.

    >>> space = Space.of([1.0, 2.0], [0, 0], [4, 8], names=["a", "b"], pinned=["b"])
    >>> space.free.tolist(), space.scale.tolist()
    ([0], [4.0, 8.0])
    """

    names: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    scale: np.ndarray
    free: np.ndarray  # indices of the parameters that move
    start: np.ndarray

    @classmethod
    def of(cls, start: Sequence[float] | np.ndarray, low: Sequence[float] | np.ndarray, high: Sequence[float] | np.ndarray, names: Sequence[str] | None = None, scale: Sequence[float] | np.ndarray | None = None,
           pinned: Sequence[str | int] = ()) -> Space:
        """Check and gather a problem's description (errors quote the offending value)."""
        start = _vector(start, "start vector")
        n = len(start)
        low = _vector(low, "lower bounds", n)
        high = _vector(high, "upper bounds", n)
        names = tuple(f"x{i}" for i in range(n)) if names is None else tuple(str(x) for x in names)
        if len(names) != n or len(set(names)) != n:
            raise OptimiseError(f"The names {list(names)!r} are not {n} distinct names, one per parameter.")
        for i in range(n):
            if not low[i] <= high[i]:
                raise OptimiseError(f"The bounds of {names[i]} are {float(low[i])} to {float(high[i])}; expected low <= high.")
            if not low[i] <= start[i] <= high[i]:
                raise OptimiseError(f"The start value {names[i]} = {float(start[i])} is outside its bounds {float(low[i])} to {float(high[i])}.")
        scale = high - low if scale is None else _vector(scale, "scales", n)
        if (scale < 0).any():
            raise OptimiseError(f"The scales {scale.tolist()!r} include a negative one; expected sizes of changes.")
        pinned_index = set()
        for p in pinned:
            if isinstance(p, str):
                if p not in names:
                    raise OptimiseError(f"The pinned parameter {p!r} is not one of {', '.join(names)}.")
                pinned_index.add(names.index(p))
            elif isinstance(p, (int, np.integer)) and not isinstance(p, bool) and 0 <= p < n:
                pinned_index.add(int(p))
            else:
                raise OptimiseError(f"The pinned parameter {p!r} is neither a name nor an index 0..{n - 1}.")
        free = np.array([i for i in range(n) if i not in pinned_index and high[i] > low[i] and scale[i] > 0],
                        dtype=np.int64)
        if len(free) == 0:
            raise OptimiseError("Every parameter is pinned or has equal bounds; nothing is left to optimise.")
        for array in (low, high, scale, free, start):
            array.flags.writeable = False
        return cls(names, low, high, scale, free, start)

    def mutate(self, rng: np.random.Generator, x: np.ndarray, step: float, max_changes: int) -> tuple[np.ndarray, np.ndarray]:
        """A random change of 1 to ``max_changes`` free parameters: (candidate, the change before clipping)."""
        k = int(rng.integers(1, min(max_changes, len(self.free)) + 1))
        chosen = rng.choice(self.free, size=k, replace=False)
        delta = np.zeros(len(x))
        delta[chosen] = rng.uniform(-step, step, size=k) * self.scale[chosen]
        return np.clip(x + delta, self.low, self.high), delta


def _vector(values: object, what: str, n: int | None = None) -> np.ndarray:
    try:
        array = np.array(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise OptimiseError(f"The {what} {values!r} is not a list of numbers.") from None
    if n is not None and len(array) != n:
        raise OptimiseError(f"The {what} {array.tolist()!r} has {len(array)} entries; expected {n}.")
    if len(array) == 0 or not np.isfinite(array).all():
        raise OptimiseError(f"The {what} {array.tolist()!r} is empty or not finite.")
    return array


@dataclass(frozen=True)
class Step:
    """A new best vector: the evaluation that found it, its loss and the changed parameters (name, old, new)."""

    evaluation: int
    loss: float
    changes: tuple[tuple[str, float, float], ...]

    def describe(self, digits: int = 4) -> str:
        """``name old -> new`` for each change."""
        return ", ".join(f"{name} {old:.{digits}g} -> {new:.{digits}g}" for name, old, new in self.changes)


@dataclass(kw_only=True)
class Search:
    """What a search did: the best vector, every candidate's loss, the improvements and why it stopped."""

    method: str
    names: tuple[str, ...]
    start: np.ndarray
    start_loss: float
    best: np.ndarray
    best_loss: float
    reason: str
    losses: np.ndarray  # loss of each evaluated candidate, in order
    steps: list[Step] = field(default_factory=list)
    seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def evaluations(self) -> int:
        """Candidates evaluated (the start not counted)."""
        return len(self.losses)

    def trajectory(self) -> np.ndarray:
        """The best loss after each evaluation (entry 0: the start)."""
        return np.minimum.accumulate(np.concatenate([[self.start_loss], self.losses]))

    def best_dict(self) -> dict[str, float]:
        """The best vector by name."""
        return {name: float(v) for name, v in zip(self.names, self.best, strict=True)}

    def summary(self) -> str:
        """One line: method, evaluations, stop reason, losses."""
        return (f"{self.method}: {self.evaluations} candidates, stopped ({self.reason}), loss {self.start_loss:.6g} -> "
                f"{self.best_loss:.6g}, {len(self.steps)} improvements, {self.seconds:.2f} s")


def _changes(names: tuple[str, ...], old: np.ndarray, new: np.ndarray) -> tuple[tuple[str, float, float], ...]:
    return tuple((names[i], float(old[i]), float(new[i])) for i in np.flatnonzero(old != new))


def _check_loss(value: Any, vector: np.ndarray) -> float:  # whatever the loss returned
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise OptimiseError(f"The loss returned {value!r} for {vector.tolist()!r}; expected a number.") from None
    if math.isnan(value):
        raise OptimiseError(f"The loss returned NaN for {vector.tolist()!r}; expected a number.")
    loss: float = value
    return loss


def _check_settings(step: object, max_changes: object, cycles: object, target: object, patience: object, tolerance: object) -> None:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.number)) or not tolerance >= 0:
        raise OptimiseError(f"The tolerance {tolerance!r} is not a number of at least 0.")
    if isinstance(step, bool) or not isinstance(step, (int, float, np.number)) or not step > 0 or not math.isfinite(step):
        raise OptimiseError(f"The step {step!r} is not a positive number.")
    for name, value, low in (("maximum number of changes", max_changes, 1), ("number of cycles", cycles, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise OptimiseError(f"The {name} {value!r} is not a whole number of at least {low}.")
    if patience is not None and (isinstance(patience, bool) or not isinstance(patience, (int, np.integer)) or patience < 1):
        raise OptimiseError(f"The patience {patience!r} is not a whole number of at least 1.")
    if target is not None and (isinstance(target, bool) or not isinstance(target, (int, float, np.number)) or math.isnan(target)):
        raise OptimiseError(f"The target loss {target!r} is not a number.")


def random_walk(loss: Callable[[np.ndarray], float], start: Sequence[float] | np.ndarray, low: Sequence[float] | np.ndarray, high: Sequence[float] | np.ndarray, *, names: Sequence[str] | None = None,
                scale: Sequence[float] | np.ndarray | None = None, step: float = 0.05, max_changes: int = 3, pinned: Sequence[str | int] = (),
                cycles: int = 1000, target: float | None = None, patience: int | None = None,
                tolerance: float = 0.0, hone: bool = True, seed: int = 0, progress: bool = False, what: str = "searching", unit: str = "candidate",
                on_step: Callable[[Step], None] | None = None) -> Search:
    """Minimise ``loss`` by Tomlinson's Monte Carlo random walk (see the module notes).

    Parameters
    ----------
    loss : function of a parameter vector (a fresh array) returning a number.
    start, low, high : the first vector and the bounds.
    names : parameter names (for steps and pinning); default ``x0, x1, ...``.
    scale : per-parameter size of a unit change (default ``high - low``).
    step : a change is uniform in ``[-step, step] * scale``.
    max_changes : 1 to this many parameters change per cycle.
    pinned : names or indices of parameters that never move.
    cycles, target, patience : the stopping rules.
    tolerance : an improvement counts as progress for ``patience`` only when
        the best loss has fallen by more than this since the last progress.
    hone : repeat a change that helped until it stops helping.
    seed : seed of the proposals.
    progress, what, unit : show progress (``what``: its label, ``unit``: what is counted).
    on_step : called with every :class:`Step` that improves the best.

    >>> r = random_walk(lambda x: float(abs(x).sum()), [5.0, 5.0], [-9, -9], [9, 9], pinned=["x1"],
    ...                 cycles=50, seed=0)
    >>> r.reason, r.evaluations, float(r.best[1])
    ('cycles', 50, 5.0)
    """
    space = Space.of(start, low, high, names, scale, pinned)
    _check_settings(step, max_changes, cycles, target, patience, tolerance)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    x = space.start.copy()
    fx = _check_loss(loss(x.copy()), x)
    start_loss = fx
    losses: list[float] = []
    steps: list[Step] = []
    last_progress, progress_mark = 0, fx
    pending = None  # a change to repeat (honing)
    reason = None
    for evaluation in _progress(range(1, cycles + 1), cycles, what, unit=unit, enabled=progress):
        if target is not None and fx <= target:
            reason = "target"
            break
        if patience is not None and evaluation - 1 - last_progress >= patience:
            reason = "stalled"
            break
        candidate = None
        if pending is not None:
            candidate = np.clip(x + pending, space.low, space.high)
            if np.array_equal(candidate, x):  # the repeat ran into a bound
                candidate = pending = None
        if candidate is None:
            candidate, pending = space.mutate(rng, x, step, max_changes)
        value = _check_loss(loss(candidate.copy()), candidate)
        losses.append(value)
        if value < fx:
            found = Step(evaluation, value, _changes(space.names, x, candidate))
            steps.append(found)
            x, fx = candidate, value
            if value < progress_mark - tolerance:
                last_progress, progress_mark = evaluation, value
            pending = pending if hone else None
            if on_step is not None:
                on_step(found)
        else:
            pending = None
    if reason is None:
        reason = "target" if target is not None and fx <= target else "cycles"
    return Search(method="random walk", names=space.names, start=space.start.copy(), start_loss=start_loss, best=x,
                  best_loss=fx, reason=reason, losses=np.array(losses), steps=steps,
                  seconds=time.perf_counter() - started,
                  settings=dict(step=step, max_changes=max_changes, cycles=cycles, target=target, patience=patience, hone=hone, tolerance=tolerance, seed=seed, pinned=[space.names[i] for i in range(len(space.names)) if i not in set(space.free)]))


def genetic(loss: Callable[[np.ndarray], float], start: Sequence[float] | np.ndarray, low: Sequence[float] | np.ndarray, high: Sequence[float] | np.ndarray, *, names: Sequence[str] | None = None,
            scale: Sequence[float] | np.ndarray | None = None, step: float = 0.05, max_changes: int = 3, pinned: Sequence[str | int] = (),
            parents: int = 4, children: int = 8, cycles: int = 1000, target: float | None = None,
            patience: int | None = None, tolerance: float = 0.0, seed: int = 0, progress: bool = False, what: str = "searching",
            unit: str = "candidate", batch: Callable[[list[np.ndarray]], Sequence[float]] | None = None,
            on_step: Callable[[Step], None] | None = None) -> Search:
    """Minimise ``loss`` by the genetic variant: parents, mixed and mutated children, the best kept.

    The first generation is ``parents - 1`` mutants of ``start``; each later
    one ``children`` children (the last one cut to the budget). A child takes
    each free parameter from one of two random parents (even odds) and then
    changes 1 to ``max_changes`` of them as :func:`random_walk` does. The
    stopping rules are checked after each generation; ``cycles`` counts
    candidates, as in the random walk. ``batch(vectors) -> losses``, when
    given, evaluates a generation in one call. Other parameters as
    :func:`random_walk`.

    >>> r = genetic(lambda x: float(((x - 1) ** 2).sum()), [0.0] * 3, [-2] * 3, [2] * 3, cycles=400, seed=2)
    >>> r.reason, r.evaluations, bool(r.best_loss < 0.01)
    ('cycles', 400, True)
    """
    space = Space.of(start, low, high, names, scale, pinned)
    _check_settings(step, max_changes, cycles, target, patience, tolerance)
    for name, count in (("number of parents", parents), ("number of children", children)):
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise OptimiseError(f"The {name} {count!r} is not a whole number of at least 1.")
    rng = np.random.default_rng(seed)
    started = time.perf_counter()

    def evaluate(vectors: list[np.ndarray]) -> list[float]:
        if batch is not None:
            values = list(batch([v.copy() for v in vectors]))
            if len(values) != len(vectors):
                raise OptimiseError(f"The batch loss returned {len(values)} values for {len(vectors)} vectors.")
        else:
            values = [loss(v.copy()) for v in vectors]
        return [_check_loss(value, v) for value, v in zip(values, vectors, strict=True)]

    start_vector = space.start.copy()
    start_loss = evaluate([start_vector])[0]
    population = [(start_loss, 0, start_vector)]  # (loss, birth, vector)
    best_loss, best = start_loss, start_vector
    losses: list[float] = []
    steps: list[Step] = []
    last_progress, progress_mark = 0, start_loss
    reason = None
    bar = _progress(range(cycles), cycles, what, unit=unit, enabled=progress)
    generation = 0
    while reason is None:
        if target is not None and best_loss <= target:
            reason = "target"
            break
        if patience is not None and len(losses) - last_progress >= patience:
            reason = "stalled"
            break
        room = cycles - len(losses)
        if room <= 0:
            reason = "cycles"
            break
        count = min(room, parents - 1 if generation == 0 and parents > 1 else children)
        brood = []
        for _ in range(count):
            if len(population) >= 2:
                i, j = rng.choice(len(population), size=2, replace=False)
                mix = rng.random(len(start_vector)) < 0.5
                child = np.where(mix, population[i][2], population[j][2])
            else:
                child = population[0][2].copy()
            child, _ = space.mutate(rng, child, step, max_changes)
            brood.append(child)
        values = evaluate(brood)
        for child, value in zip(brood, values, strict=True):
            losses.append(value)
            next(bar, None)
            if value < best_loss:
                found = Step(len(losses), value, _changes(space.names, best, child))
                steps.append(found)
                best_loss, best = value, child
                if value < progress_mark - tolerance:
                    last_progress, progress_mark = len(losses), value
                if on_step is not None:
                    on_step(found)
            population.append((value, len(losses), child))
        population.sort(key=lambda item: (item[0], item[1]))
        population = population[:parents]
        generation += 1
    bar.close()
    return Search(method="genetic", names=space.names, start=space.start.copy(), start_loss=start_loss, best=best,
                  best_loss=best_loss, reason=reason, losses=np.array(losses), steps=steps,
                  seconds=time.perf_counter() - started,
                  settings=dict(step=step, max_changes=max_changes, cycles=cycles, target=target, patience=patience, tolerance=tolerance, parents=parents, children=children, seed=seed, generations=generation, pinned=[space.names[i] for i in range(len(space.names)) if i not in set(space.free)]))


def plot_trajectories(searches: Sequence[Search], path: str | os.PathLike[str], ylabel: str = "loss",
                      xlabel: str = "candidates evaluated",
                      transform: Callable[[np.ndarray], np.ndarray] | None = None, title: str = "",
                      bands: Sequence[tuple[float, float, str]] = ()) -> str:
    """Draw each search's best value after each evaluation into an image file (needs matplotlib).

    ``transform`` maps losses to what is shown (a negated objective, a square
    root); ``bands`` are horizontal (low, high, label) bands, like the noise.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise OptimiseError("Plotting needs matplotlib; install it with 'pip install matplotlib'.") from None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for low, high, label in bands:
        ax.axhspan(low, high, color="0.85", label=label)
    for search in searches:
        curve = search.trajectory()
        shown = transform(curve) if transform is not None else curve
        ax.plot(np.arange(len(curve)), shown, label=search.method)
        points = [s.evaluation for s in search.steps]
        ax.plot(points, shown[points], "o", ms=3, color=ax.lines[-1].get_color())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        from matchdb.outputs import save_figure

        return str(save_figure(fig, path))
    finally:
        plt.close(fig)
