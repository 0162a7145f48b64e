r"""Training on a library: a spot dealt from the stored decisions, an action picked, graded by the solution.

A *drill* is dealt as the game reaches it: a flop drawn as often as it is
dealt (each canonical flop by its orbit, its suits renamed at random), the
flop's first decision onwards played by the solution's mix over the range of
whoever acts (each action drawn by its frequency) and, when the flop closes
with chips left, a turn card drawn and the turn's decisions played the same
way; one of the trainee's decisions met on the way drawn at random, and the
trainee's hand drawn by how often the range holds it there (its combos). The
drill shows what a player at the table sees: board (the turn card with it),
line (the actions), pot, hand and the actions; not the solution.

:func:`grade` answers a pick: the solution's frequency of each action for that
hand, each action's EV (chips, as the solver gives them), the best action
(highest EV) and the *EV lost*, the best action's EV less the picked one's
(zero for the best; at an equilibrium every action the solution plays has the
same EV, to the solve's exploitability). A pick the solution plays at least
:data:`IN_MIX` of the time is *in the mix*. :class:`Trainer` deals, grades and
keeps the session's tally (:class:`TrainerSummary`).

>>> from matchdb.library import LibrarySpec, Trainer, build_library, open_library
>>> spec = LibrarySpec.from_toml('name = "toy"\noop = "AA,KK,AK"\nip = "QQ,JJ,AQs,T9s"\npot = 100\nstack = 100\n'
...                              'bet = "50%, a"\ntarget = 3.0\n')
>>> _ = build_library("toy.zarr", spec, db, flops="AhKhQh", serial=True, quiet=True)
>>> trainer = Trainer(open_library("toy.zarr"), seed=7)
>>> drill = trainer.deal()
>>> drill.board, drill.line, drill.player, drill.hand, drill.actions
('AhKhQh', ('All-in 100',), 'IP', 'QdQc', ['Fold', 'Call'])
>>> graded = trainer.answer(drill, "Call")
>>> graded.best, round(graded.ev_lost, 2), graded.in_mix
('Call', 0.0, True)
>>> trainer.summary().hands
1
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES, rename
from matchdb.core.cards import format_cards, rank_of, suit_of
from matchdb.core.hole_cards import hand_order
from matchdb.library.spec import LibraryError

if TYPE_CHECKING:
    from matchdb.library.query import Library

__all__ = ["IN_MIX", "Drill", "Grade", "TrainerSummary", "Trainer", "deal", "grade", "grade_pick", "summarize"]

#: A pick the solution plays at least this often for the hand counts as in its mix.
IN_MIX = 0.05
_PLAYERS = ("OOP", "IP")


@dataclass(frozen=True)
class Drill:
    """A decision to make: the board, the line from the flop's first decision, the player to act and their hand,
    the pot and the actions (what a player at the table sees; not the solution)."""

    board: str
    line: tuple[str, ...]
    player: str
    hand: str
    pot: int
    actions: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"board": self.board, "line": list(self.line), "player": self.player, "hand": self.hand,
                "pot": self.pot, "actions": list(self.actions)}

    def text(self) -> str:
        """The drill as the command line shows it."""
        before = ", ".join(self.line) or "nothing yet"
        choices = "  ".join(f"[{k + 1}] {a}" for k, a in enumerate(self.actions))
        return f"{self.board}, pot {self.pot}; before you: {before}\nyou are {self.player} with {self.hand}: {choices}"


@dataclass(frozen=True)
class Grade:
    """The solution's answer to a pick: each action's frequency for the hand and EV (chips), the best action,
    the EV lost (chips and % of the pot) and whether the pick is in the solution's mix."""

    drill: Drill
    action: str
    frequencies: dict[str, float]
    ev: dict[str, float]
    best: str
    ev_lost: float
    ev_lost_pct: float
    in_mix: bool

    def to_dict(self) -> dict[str, Any]:
        return {"drill": self.drill.to_dict(), "action": self.action, "frequencies": self.frequencies, "ev": self.ev,
                "best": self.best, "ev_lost": self.ev_lost, "ev_lost_pct": self.ev_lost_pct, "in_mix": self.in_mix}

    def text(self) -> str:
        mix = ", ".join(f"{a} {100 * f:.1f} % (EV {self.ev[a]:.2f})" for a, f in self.frequencies.items())
        verdict = "in the solution's mix" if self.in_mix else f"the solution plays it {100 * self.frequencies[self.action]:.1f} %"
        return (f"you: {self.action}, {verdict}; EV lost {self.ev_lost:.2f} chips ({self.ev_lost_pct:.2f} % of the pot)\n"
                f"solution: {mix}")


@dataclass(frozen=True)
class TrainerSummary:
    """A session's tally: hands, EV lost in all (chips) and per hand (% of the pot), the share of picks in the
    solution's mix and of best picks, and the costliest picks (up to three)."""

    hands: int
    ev_lost: float
    ev_lost_pct: float
    in_mix: float
    best: float
    worst: list[Grade] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"hands": self.hands, "ev_lost": self.ev_lost, "ev_lost_pct": self.ev_lost_pct, "in_mix": self.in_mix,
                "best": self.best, "worst": [g.to_dict() for g in self.worst]}

    def text(self) -> str:
        if self.hands == 0:
            return "no hands played"
        lines = [f"{self.hands} hands: EV lost {self.ev_lost:.2f} chips, {self.ev_lost_pct:.2f} % of the pot a hand; "
                 f"{100 * self.in_mix:.0f} % of picks in the solution's mix, {100 * self.best:.0f} % the best"]
        lines.extend(f"  {g.drill.hand} on {g.drill.board} after {', '.join(g.drill.line) or 'nothing'}: "
                     f"{g.action} lost {g.ev_lost:.2f} ({g.best} was best)" for g in self.worst if g.ev_lost > 0)
        return "\n".join(lines)


def deal(library: Library, rng: np.random.Generator, player: str | None = None) -> Drill:
    """A drill from ``library`` (see the module's text), for ``player`` (``"OOP"``, ``"IP"``, or either)."""
    if player is not None and player not in _PLAYERS:
        raise LibraryError(f"The player to train is {player!r}; expected OOP or IP.")
    flops = library.flops()
    if not flops:
        raise LibraryError(f"The library '{library.files.name}' holds no flop yet; expected at least one solved flop.")
    weights = ORBIT_SIZES[flops].astype(np.float64)
    for _ in range(100):  # a walk that meets none of the player's decisions (an early fold) is dealt again
        index = int(rng.choice(flops, p=weights / weights.sum()))
        cards = rename([int(c) for c in CANONICAL_FLOPS[index]], int(rng.integers(24)))
        board = format_cards(sorted(cards, key=lambda c: (-rank_of(c), suit_of(c))))  # high card first
        flop = library.flop(board)
        stored = set(flop.lines)
        met = []
        line: tuple[str, ...] = ()
        while line in stored or line in flop.turn_lines() or (line and _is_turn(line)):
            if line in flop.turn_lines():  # the flop closed: a turn card, then the turn's decisions
                line = (*line, flop.turn_cards()[int(rng.integers(49))])
            try:
                node = flop.node(line)
            except LibraryError:
                break  # the turn's end (a call, a fold, two checks): the river is not stored
            if node.combos.sum() <= 0:
                break
            if player in (None, node.player):
                met.append(node)
            mix = np.nan_to_num(np.asarray(node.frequencies()))
            line = (*line, node.actions[int(rng.choice(len(node.actions), p=mix / mix.sum()))])
        if not met:
            continue
        node = met[int(rng.integers(len(met)))]
        combos = node.combos / node.combos.sum()
        hand = hand_order()[int(rng.choice(len(combos), p=combos))]
        return Drill(node.board, _without_cards(node.line), node.player, hand, node.pot, list(node.actions))
    raise LibraryError(f"No decision of {player} was met in 100 deals of the library '{library.files.name}'; "
                       "expected a spec where that player acts on the flop.")


def grade(library: Library, drill: Drill, action: str) -> Grade:
    """The solution's answer to ``action`` picked at ``drill`` (any drill: board, line and hand as the library
    stores them)."""
    return _graded(library.node(drill.board, drill.line), drill, action)


def grade_pick(library: Library, board: str, line: str | tuple[str, ...] | list[str] | None, hand: str,
               action: str) -> Grade:
    """:func:`grade` for a pick named by its flop, line and hand (as a client sends it): the drill is the stored
    decision's, the decision read once."""
    node = library.node(board, line)
    return _graded(node, Drill(node.board, _without_cards(node.line), node.player, hand, node.pot, list(node.actions)),
                   action)


def _is_turn(line: tuple[str, ...]) -> bool:
    """Whether a line has reached the turn (a card dealt in it)."""
    return any(len(step) == 2 and step[0] in "23456789TJQKA" and step[1] in "cdhs" for step in line)


def _without_cards(line: tuple[str, ...]) -> tuple[str, ...]:
    """A line's actions, without the turn card (a drill's board shows it)."""
    return tuple(step for step in line if not _is_turn((step,)))


def _graded(node: Any, drill: Drill, action: str) -> Grade:
    """The grade of ``action`` at the stored decision ``node`` for ``drill``'s hand."""
    if action not in node.actions:
        raise LibraryError(f"The action {action!r} is not one of {', '.join(node.actions)} after "
                           f"{', '.join(drill.line) or 'the root'} on {drill.board}.")
    figures = node.hand(drill.hand)
    frequencies = {a: f for a, (f, _) in figures.items()}
    ev = {a: e for a, (_, e) in figures.items()}
    best = max(ev, key=lambda a: ev[a] if math.isfinite(ev[a]) else -math.inf)
    lost = max(0.0, ev[best] - ev[action]) if math.isfinite(ev[action]) else math.nan
    return Grade(drill, action, frequencies, ev, best, lost, 100 * lost / node.pot, frequencies[action] >= IN_MIX)


class Trainer:
    """Deals drills from a library, grades picks and keeps the session's tally.

    ``player`` trains one side (``"OOP"`` or ``"IP"``; either by default); ``seed`` makes the deals repeatable.
    """

    def __init__(self, library: Library, seed: int | None = None, player: str | None = None) -> None:
        if player is not None and player not in _PLAYERS:
            raise LibraryError(f"The player to train is {player!r}; expected OOP or IP.")
        self.library = library
        self.player = player
        self.rng = np.random.default_rng(seed)
        self.grades: list[Grade] = []

    def deal(self) -> Drill:
        return deal(self.library, self.rng, self.player)

    def answer(self, drill: Drill, action: str) -> Grade:
        """Grade ``action`` at ``drill`` and count it in the session."""
        graded = grade(self.library, drill, action)
        self.grades.append(graded)
        return graded

    def summary(self) -> TrainerSummary:
        return summarize(self.grades)


def summarize(grades: list[Grade]) -> TrainerSummary:
    """The tally of ``grades`` (a session's picks)."""
    n = len(grades)
    if n == 0:
        return TrainerSummary(0, 0.0, 0.0, math.nan, math.nan)
    lost = [g.ev_lost for g in grades]
    worst = sorted(grades, key=lambda g: -g.ev_lost)[:3]
    return TrainerSummary(n, float(np.nansum(lost)), float(np.nanmean([g.ev_lost_pct for g in grades])),
                          sum(g.in_mix for g in grades) / n, sum(g.action == g.best for g in grades) / n, worst)
