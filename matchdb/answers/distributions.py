"""The distribution answers: how one hand's equity moves on the turn and river, and the same figures for every hand.

Computed by :mod:`matchdb.equity.distributions` (definitions there) and
returned by :meth:`matchdb.MatchDB.distribution` and
:meth:`matchdb.MatchDB.distributions`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from matchdb.answers.base import Answer, _share, class_grid, format_grid, plain, plural, require_pandas
from matchdb.core.canonical import unrename_array
from matchdb.core.cards import format_card, format_cards
from matchdb.errors import CardError, MatchdbError

__all__ = ["HandDistribution", "BoardDistributions"]


@dataclass(frozen=True, eq=False)
class HandDistribution(Answer):
    """How one hand's strength moves on the turn and river: raw values and figures.

    Cards are card ids in the frame the distribution was computed in (the
    canonical flop's for :func:`hand_distribution`, the real cards for
    :func:`distribution`). Arrays are read-only.

    Attributes
    ----------
    board, hole : the board as dealt (3 to 5 card ids) and the hero's two cards.
    bins : number of histogram bins.
    equity : exact equity on the board against the opponent (= ``ehs``).
    ehs, ehs2 : probability-weighted mean of the river equity and of its square.
    hs : current hand strength on the board as dealt, ahead plus half of tied.
    ppot, npot : Billings' positive and negative potential.
    now : (3,) opponent weight ahead of which, tied with which, behind which the hero is now
        (hands: 1,033 / 6 / 42 for KQ on K72).
    potential : (3, 3) Billings' HP[now][river], states ahead, tied, behind.
    runouts : (n, k) the cards each runout adds (k = 2 on a flop, 1 on a turn, 0 on a river).
    river_equities, river_probabilities : (n,) per runout.
    river_counts, river_histogram : (bins,) runouts per bin, and their probability.
    turn_cards, turn_equities, turn_probabilities : (m,) per turn card (flop only; empty otherwise).
    turn_counts, turn_histogram : (bins,) turn cards per bin, and their probability.
    """

    board: tuple[int, ...]
    hole: tuple[int, int]
    bins: int
    equity: float
    ehs: float
    ehs2: float
    hs: float
    ppot: float
    npot: float
    now: np.ndarray
    potential: np.ndarray
    runouts: np.ndarray
    river_equities: np.ndarray
    river_probabilities: np.ndarray
    river_counts: np.ndarray
    river_histogram: np.ndarray
    turn_cards: np.ndarray
    turn_equities: np.ndarray
    turn_probabilities: np.ndarray
    turn_counts: np.ndarray
    turn_histogram: np.ndarray
    villain: str = "random"

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("now", "potential", "runouts", "river_equities", "river_probabilities", "river_counts",
                     "river_histogram", "turn_cards", "turn_equities", "turn_probabilities", "turn_counts",
                     "turn_histogram"):
            getattr(self, name).flags.writeable = False

    def renamed(self, board: Sequence[int], hole: Sequence[int], perm: int) -> HandDistribution:
        """The same distribution with the real cards of a question the canonical table answered (renamed by ``perm``)."""
        return dataclasses.replace(
            self,
            board=tuple(int(c) for c in board),
            hole=(int(hole[0]), int(hole[1])),
            runouts=unrename_array(self.runouts, perm),
            turn_cards=unrename_array(self.turn_cards, perm),
        )

    def to_dict(self) -> dict[str, Any]:
        return self.figures() | {
            "villain": self.villain,
            "river_histogram": self.river_histogram.tolist(),
            "turn_counts": self.turn_counts.tolist(),
            "now": self.now.tolist(),
            "potential": self.potential.tolist(),
        }

    def to_text(self, percent: bool = False) -> str:
        """The answer as the command line prints it (``percent``: the equities and potentials as percentages;
        EHS^2, a mean of squares, stays a number)."""
        lines = [
            f"{format_cards(self.hole)} on {format_cards(self.board)} against {self.villain}: "
            f"{plural(len(self.river_equities), 'runout')}, {plural(self.bins, 'bin')}",
            f"  equity (EHS) {_share(self.ehs, percent)}  EHS^2 {self.ehs2:.6f}  now (HS) {_share(self.hs, percent)}  "
            f"PPot {_share(self.ppot, percent)}  NPot {_share(self.npot, percent)}",
            "  river equity histogram, runouts per tenth: "
            + " ".join(str(int(c)) for c in self.river_counts.reshape(10, -1).sum(axis=1))
            if self.bins % 10 == 0
            else "  river equity histogram, runouts per bin: " + " ".join(str(int(c)) for c in self.river_counts),
        ]
        if len(self.turn_cards):
            def turn(value: float) -> str:
                return f"{100 * value:.1f} %" if percent else f"{value:.3f}"

            best = np.argsort(-self.turn_equities)
            lines.append(
                "  after the turn: best "
                + ", ".join(f"{format_card(int(self.turn_cards[i]))} {turn(self.turn_equities[i])}" for i in best[:3])
                + "; worst "
                + ", ".join(f"{format_card(int(self.turn_cards[i]))} {turn(self.turn_equities[i])}" for i in best[-3:])
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"HandDistribution({format_cards(self.hole)} on {format_cards(self.board)}: ehs={self.ehs:.4f}, "
            f"ehs2={self.ehs2:.4f}, hs={self.hs:.4f}, ppot={self.ppot:.4f}, npot={self.npot:.4f}, "
            f"{plural(len(self.river_equities), 'runout')})"
        )

    def to_pandas(self) -> Any:
        """The figures (:meth:`figures`) as a one-row DataFrame (the ``notebook`` extra)."""
        return require_pandas().DataFrame([self.figures()])

    def summary(self) -> dict[str, Any]:
        """Deprecated: :meth:`figures`. (A ``summary()`` is one line of text everywhere else; this one returned the dict
        of figures, and still does, with a :class:`DeprecationWarning`, for one release.)"""
        warnings.warn("HandDistribution.summary() is deprecated: use figures() for the dict of figures (summary() is "
                      "one line of text everywhere else).", DeprecationWarning, stacklevel=2)
        return self.figures()

    def figures(self) -> dict[str, Any]:
        """The figures as a plain dict (JSON-ready)."""
        return {
            "hole": format_cards(self.hole),
            "board": format_cards(self.board),
            "equity": self.equity,
            "ehs": self.ehs,
            "ehs2": self.ehs2,
            "hs": self.hs,
            "ppot": self.ppot,
            "npot": self.npot,
            "runouts": len(self.river_equities),
            "bins": self.bins,
            "river_counts": self.river_counts.tolist(),
            "turn": {format_card(int(c)): float(e) for c, e in zip(self.turn_cards, self.turn_equities, strict=True)},
        }


@dataclass(frozen=True, eq=False)
class BoardDistributions(Answer):
    """The distribution figures of every hand on one board.

    Rows are the hands named in ``hands`` (the table's 1,176 rows for
    :func:`board_distributions`, the 1,326 hands of
    :func:`matchdb.hand_order` for :meth:`matchdb.MatchDB.distributions`); figures are
    NaN, counts 0, for hands that share a card with the board. Card axes are
    indexed by card id (52) in the same frame as ``hands``. Arrays are read-only.

    Attributes
    ----------
    board : the board as dealt (card ids).
    hands : name of each row's hand.
    bins : number of histogram bins.
    valid : (n,) bool, the hand can be dealt on the board.
    ehs, ehs2, hs, ppot, npot : (n,) as in :class:`HandDistribution` (``ehs`` is the exact equity).
    now : (n, 3) opponent weight ahead of, tied with and behind each hand now.
    river_counts, river_histogram : (n, bins) runouts per bin, and their probability.
    turn_equities : (n, 52) equity after each turn card (flop only, else an empty (n, 0)).
    turn_counts, turn_histogram : (n, bins) turn cards per bin, and their probability (flop only, else zeros).
    river_equities, river_probabilities : (n, 1176) per hand and column, NaN / 0 where impossible;
        ``None`` unless asked for (``raw=True``; frame functions only).
    """

    board: tuple[int, ...]
    hands: tuple[str, ...]
    bins: int
    valid: np.ndarray
    ehs: np.ndarray
    ehs2: np.ndarray
    hs: np.ndarray
    ppot: np.ndarray
    npot: np.ndarray
    now: np.ndarray
    river_counts: np.ndarray
    river_histogram: np.ndarray
    turn_equities: np.ndarray
    turn_counts: np.ndarray
    turn_histogram: np.ndarray
    river_equities: np.ndarray | None = field(default=None, repr=False)
    river_probabilities: np.ndarray | None = field(default=None, repr=False)
    villain: str = "random"

    def to_dict(self) -> dict[str, Any]:
        out = {
            "board": format_cards(self.board),
            "villain": self.villain,
            "bins": self.bins,
            "hands": list(self.hands),
        } | {name: getattr(self, name) for name in ("ehs", "ehs2", "hs", "ppot", "npot", "river_counts")}
        out["grid"] = {figure: self.grid(figure) for figure in ("ehs", "ehs2", "hs", "ppot", "npot")}
        return {key: plain(value) for key, value in out.items()}

    def to_text(self) -> str:
        return "\n\n".join(
            format_grid(f"{title} of every hand on {format_cards(self.board)} against {self.villain}", self.grid(figure))
            for figure, title in (("ehs", "EHS (equity)"), ("ppot", "PPot"), ("npot", "NPot"))
        )

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("valid", "ehs", "ehs2", "hs", "ppot", "npot", "now", "river_counts", "river_histogram",
                     "turn_equities", "turn_counts", "turn_histogram", "river_equities", "river_probabilities"):
            array = getattr(self, name)
            if array is not None:
                array.flags.writeable = False

    @property
    def equity(self) -> np.ndarray:
        """Exact equity of each hand on the board (the same as ``ehs``)."""
        return self.ehs

    def __repr__(self) -> str:
        return f"BoardDistributions({format_cards(self.board)}: {int(self.valid.sum())} hands, {self.bins} bins)"

    def to_pandas(self) -> Any:
        """One row per hand: ehs, ehs2, hs, ppot, npot (NaN where it touches the board), indexed by the hand."""
        pandas = require_pandas()
        columns = {name: np.asarray(getattr(self, name)) for name in ("ehs", "ehs2", "hs", "ppot", "npot")}
        return pandas.DataFrame(columns, index=pandas.Index(self.hands, name="hand"))

    def grid(self, figure: str = "ehs") -> np.ndarray:
        """13 x 13 mean of a per-hand figure by starting-hand class, laid out like :meth:`matchdb.HandTable.grid`.

        Row/column 0 is the ace; suited classes above the diagonal, offsuit
        below, pairs on it; NaN where no hand of a class can be dealt.
        """
        if figure not in ("ehs", "ehs2", "hs", "ppot", "npot"):
            raise MatchdbError(f"The figure {figure!r} has no grid; expected one of ehs, ehs2, hs, ppot, npot.")
        return class_grid(self.hands, getattr(self, figure), self.valid)

    def hand(self, name: str) -> dict[str, Any]:
        """The figures of one hand by its name in ``hands`` (JSON-ready)."""
        try:
            i = self.hands.index(name)
        except ValueError:
            raise CardError(f"The hand {name!r} is not one of this table's hands; expected a name like {self.hands[0]!r}.") from None
        out: dict[str, Any] = {key: float(getattr(self, key)[i]) for key in ("ehs", "ehs2", "hs", "ppot", "npot")}
        out["river_counts"] = self.river_counts[i].tolist()
        if self.turn_equities.shape[1]:
            out["turn"] = {format_card(c): float(e) for c, e in enumerate(self.turn_equities[i]) if e == e}
        return {"hand": name, **out}
