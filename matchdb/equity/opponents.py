"""The articles' opponent models: beliefs combined as if independent, and opponents' ranges from a preflop strength.

- :func:`independent_outcome`: the match-table article's formula, each
  opponent's beliefs combined as if independent (an approximation by design);
- :func:`top_percent`, :func:`at_least`: Mick West's drop-out opponent, who stays
  in with the strongest share of hands or those at least as strong as a class;
- :func:`steered`: Tomlinson's steered opponent, whose weights fall smoothly
  with a class's preflop rank.

Each range is a :class:`ClassWeights`, usable wherever a range is (the drop-out
mixture over how many opponents stay is :meth:`matchdb.MatchDB.drop_out`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, combos, hand_class
from matchdb.core.pairs import N_PAIRS, check_columns
from matchdb.core.ranges import MIN_WEIGHT
from matchdb.equity._kernels import opponents as _k
from matchdb.equity.checks import check_table, check_weights
from matchdb.equity.multiway import MAX_OPPONENTS, MultiwayResult
from matchdb.errors import MatchdbError, RangeError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["ClassWeights", "at_least", "independent_outcome", "steered", "top_percent"]


def independent_outcome(table: np.ndarray, columns: np.ndarray, hero: int, opponents: Sequence[np.ndarray]) -> MultiwayResult:
    """The match-table article's first formula with beliefs: opponents combined as if independent.

    On each column every opponent's hands (weighted by his belief weights) are split into
    below, level with and above the hero, and the chances multiply across opponents:
    equity = mean over columns of prod_i (below_i + tied_i / 2) / all_i. An
    approximation (``method="independent"``, ``exact=False``, no standard error): it
    ignores that opponents cannot hold the same cards, nor the hero's. A runout on which
    some opponent can hold no hand of his range (a known hand sharing a card with the
    turn or river) cannot happen and is left out, so against one known hand the
    formula is the exact equity. With random
    opponents it is the naive win rate ``mean((W / MAX_W) ** (players - 1))``.

    >>> from matchdb.core.cards import parse_cards
    >>> from matchdb.equity.heads_up import naive_win_rate
    >>> from matchdb.core.table import match_table
    >>> from matchdb.core.pairs import board_columns, pair_row
    >>> table = match_table("2c7dJh")
    >>> hero = pair_row(parse_cards("2c7dJh"), parse_cards("AhKh"))
    >>> r = independent_outcome(table, board_columns(()), hero, [np.ones(1176)] * 2)
    >>> round(r.equity, 6), round(naive_win_rate(table, hero, board_columns(()), players=3), 6), r.method
    (0.386583, 0.386583, 'independent')
    """
    table = check_table(table)
    cols_idx = check_columns(columns)
    if isinstance(hero, bool) or not isinstance(hero, (int, np.integer)) or not 0 <= int(hero) < N_PAIRS:
        raise MatchdbError(f"The hero row {hero!r} is out of range; expected a row 0..{N_PAIRS - 1}.")
    opponents = list(opponents)
    if not 1 <= len(opponents) <= MAX_OPPONENTS:
        raise MatchdbError(
            f"The question has {len(opponents)} opponents; expected 1 to {MAX_OPPONENTS} (2 to 10 players)."
        )
    weights = np.array([check_weights(w, f"range of opponent {i + 1}") for i, w in enumerate(opponents)])
    cols = np.ascontiguousarray(table[:, cols_idx].T)
    out = np.zeros(4)
    _k._independent(cols, int(hero), weights, out)
    if out[3] == 0 or not np.isfinite(out[0]):
        raise RangeError(
            "No turn and river leave every opponent a hand of his range on this board; "
            "expected ranges that can be dealt on at least one turn and river."
        )
    win, noloss, equity = out[:3] / out[3]
    return MultiwayResult(
        win=float(win),
        tie=float(noloss - win),
        loss=float(1.0 - noloss),
        equity=float(equity),
        players=None,
        exact=False,
        standard_error=float("nan"),
        samples=0,
        seed=None,
        method="independent",
    )


@dataclass(frozen=True)
class ClassWeights:
    """A range as a weight per starting-hand class (169 of them, :data:`matchdb.core.hole_cards.CLASSES`).

    Usable wherever a range is (:meth:`matchdb.MatchDB.equity`, :meth:`~matchdb.MatchDB.multiway` and the
    rest take it as a villain, an opponent or a hero), ``name`` is how answers call it, and
    :meth:`to_range` writes it in the usual notation ('1(AA),0.5(KK)').
    """

    weights: tuple[float, ...]
    name: str = ""

    def hand_weights(self) -> np.ndarray:
        """The weight of every hand in :func:`matchdb.hand_order` (its class's weight): a range as 1,326 weights."""
        weights: NDArray[np.float64] = np.asarray(self.weights, dtype=np.float64)[CLASS_OF_HAND]
        return weights

    def hands(self) -> list[tuple[int, int, float]]:
        """Every two-card hand with its class's weight (card id, card id, weight), weight > 0."""

        out = []
        for b in range(52):
            for a in range(b):
                w = self.weights[hand_class(a, b)]
                if w > 0:
                    out.append((b, a, float(w)))
        return out

    def to_range(self) -> str:
        """The range in eval7's notation, weights to six decimals."""

        return ",".join(f"{w:.6f}({name})" for name, w in zip(CLASSES, self.weights, strict=True) if w > 0)

    def fraction(self) -> float:
        """The weighted share of the 1,326 hands it holds."""

        return sum(w * combos(name) for name, w in zip(CLASSES, self.weights, strict=True)) / 1326


def _strength(strength: object) -> np.ndarray:

    if strength is None:
        raise MatchdbError("A preflop strength score is needed: pass db.preflop().equity or 169 numbers.")
    if hasattr(strength, "equity") and hasattr(strength, "classes"):  # a PreflopTable or PreflopMultiway
        values = np.asarray(strength.equity, dtype=np.float64)
        strength = values if values.ndim == 1 else values[:, 0]
    values = np.asarray(strength, dtype=np.float64)
    if values.shape != (len(CLASSES),) or not np.isfinite(values).all():
        raise MatchdbError(f"A preflop strength score must be {len(CLASSES)} finite numbers; got shape {values.shape}.")
    return values


def _percentiles(strength: np.ndarray) -> np.ndarray:
    """Each class's position from the top: the share of hands in stronger classes plus half its own."""

    sizes = np.array([combos(name) for name in CLASSES], dtype=np.float64) / 1326
    order = np.argsort(-strength, kind="stable")
    above = np.zeros(len(CLASSES))
    above[order] = np.concatenate([[0.0], np.cumsum(sizes[order])[:-1]])
    return above + sizes / 2


def top_percent(percent: float, strength: Any) -> ClassWeights:
    """Mick West's drop-out by share: the strongest ``percent`` % of starting hands by a preflop score.

    Classes are taken strongest first until they hold ``percent`` % of the 1,326
    hands; the class on the boundary gets the fractional weight that makes it exact.
    ``strength``: 169 scores, or a preflop table (``db.preflop()``; its heads-up equity).

    >>> from matchdb.core.hole_cards import CLASSES
    >>> r = top_percent(10, np.arange(169.0)[::-1])   # CLASSES order as the score
    >>> round(r.fraction(), 6), [CLASSES[i] for i in range(169) if r.weights[i] > 0][-1]
    (0.1, 'A6o')
    """
    values = _strength(strength)
    if (
        isinstance(percent, bool)
        or not isinstance(percent, (int, float, np.integer, np.floating))
        or not 0 < percent <= 100
    ):
        raise MatchdbError(f"The share of hands {percent!r} is out of range; expected a percentage in (0, 100].")

    target = percent / 100 * 1326
    weights = np.zeros(len(CLASSES))
    held = 0.0
    for i in np.argsort(-values, kind="stable"):
        if held >= target - 1e-9:
            break
        size = combos(CLASSES[i])
        weights[i] = min(1.0, (target - held) / size)
        held += weights[i] * size
    return ClassWeights(tuple(float(w) for w in weights), f"top_percent({percent:g})")


def at_least(threshold: str, strength: Any) -> ClassWeights:
    """Mick West's drop-out by threshold: every class scoring at least as high as ``threshold`` ('66').

    >>> from matchdb.core.hole_cards import CLASSES
    >>> r = at_least("AKo", np.arange(169.0)[::-1])
    >>> [CLASSES[i] for i in range(169) if r.weights[i] > 0]
    ['AA', 'AKs', 'AKo']
    """

    values = _strength(strength)
    if threshold not in CLASSES:
        raise MatchdbError(f"The threshold {threshold!r} is not a class like 'AA', 'AKs' or '66'.")
    bar = values[CLASSES.index(threshold)]
    return ClassWeights(tuple(float(v >= bar) for v in values), f"at_least({threshold!r})")


def steered(strength: Any, top: float = 0.15, softness: float = 0.05) -> ClassWeights:
    """Tomlinson's steered opponent: class weights falling smoothly with the class's preflop rank.

    A class whose position from the top (share of hands in stronger classes, plus
    half its own) is q gets weight 1 / (1 + exp((q - top) / softness)): a player
    who raised preflop holds mostly the top ``top`` share of hands, ``softness``
    says how sharp the edge is. An approximation of a player's range, by design.
    Weights below :data:`matchdb.core.ranges.MIN_WEIGHT` (1e-12) are 0: ranges
    refuse such weights, which sums cannot count exactly.

    >>> r = steered(np.arange(169.0)[::-1], top=0.1, softness=0.02)
    >>> r.weights[0] > 0.99, r.weights[-1] < 1e-9, 0.08 < r.fraction() < 0.12
    (True, True, True)
    """
    values = _strength(strength)
    for name, value in (("top", top), ("softness", softness)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0:
            raise MatchdbError(f"The {name} {value!r} of a steered range must be a positive number.")
    q = _percentiles(values)
    with np.errstate(over="ignore"):
        weights = 1.0 / (1.0 + np.exp((q - top) / softness))
    weights[weights < MIN_WEIGHT] = 0.0  # the far tail: weights no answer can count exactly, each under 1e-12
    return ClassWeights(tuple(float(w) for w in weights), f"steered(top={top:g}, softness={softness:g})")
