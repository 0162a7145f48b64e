"""Node locking: a strategy fixed at a node, the rest of the game solved around it.

A lock names a node by its line (:mod:`matchdb.solver.navigate`) and gives the
strategy of the player to act there, in one of three forms:

- one mix for every hand: ``{"Check": 0.8, "Bet 120": 0.2}`` (actions as the node lists them);
- a mix per hand: ``{"AhAs": {"Bet 120": 1}, "KhKs": [0.5, 0.5, 0, 0]}`` (hands not named stay free);
- an array (actions, hands) in the order of :meth:`matchdb.solver.Solution.node`'s ``hands``.

Each locked hand's frequencies are normalised to sum 1; a hand whose
frequencies are all 0 (or negative) is not locked. As in postflop-solver, the
solver keeps playing the locked mix at that node in every iteration, so the
other player's strategy becomes a best response to it where it matters. A
lock on a turn or river node holds for the card named and for the cards whose
suits are interchangeable with it (they share its numbers).

>>> normalise_mix({"Check": 2, "Bet 120": 2}, ["Check", "Bet 120", "All-in 900"])
[0.5, 0.5, 0.0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.cards import parse_cards
from matchdb.errors import CardError
from matchdb.solver.layout import ACTION
from matchdb.solver.navigate import instance_entry, parse_line, walk
from matchdb.solver.sizes import SolverError
from matchdb.solver.tree import parse_action

if TYPE_CHECKING:
    from matchdb.solver.navigate import Place
    from matchdb.solver.solve import Spot

__all__ = ["LockLike", "normalise_mix", "lock_arrays"]

#: A lock's strategy: one mix for every hand, a mix per hand, or an (actions, hands) array.
LockLike = Mapping[str, Any] | np.ndarray | Sequence[Sequence[float]]


def normalise_mix(mix: Mapping[str, float] | Sequence[float], actions: list[str]) -> list[float]:
    """A mix (action -> frequency, or one frequency per action) as frequencies in the order of ``actions``,
    summing to 1; all zeros when nothing is positive."""
    if isinstance(mix, Mapping):
        values = [0.0] * len(actions)
        wanted = {str(parse_action(a)): a for a in actions}
        for name, frequency in mix.items():
            key = str(parse_action(str(name)))
            if key not in wanted:
                all_in = [a for a in actions if a.lower().startswith("all-in")] if key == "All-in -1" else []
                if not all_in:
                    raise SolverError(f"The lock names the action {name!r}; expected one of {', '.join(actions)}.")
                key = str(parse_action(all_in[0]))
            values[actions.index(wanted[key])] = _frequency(frequency, name)
    else:
        values = [_frequency(v, "a frequency") for v in mix]
        if len(values) != len(actions):
            raise SolverError(f"The lock gives {len(values)} frequencies; expected {len(actions)} ({', '.join(actions)}).")
    positive = [max(v, 0.0) for v in values]
    total = sum(positive)
    return [v / total for v in positive] if total > 0 else [0.0] * len(actions)


def _frequency(value: object, name: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value):
        raise SolverError(f"The lock's frequency {value!r} for {name!r} is not a number.")
    return float(value)


def _is_action(name: object) -> bool:
    try:
        parse_action(str(name))
    except SolverError:
        return False
    return True


def _lock_matrix(spot: Spot, place: Place, strategy: LockLike) -> np.ndarray:
    """The lock as (actions, hands) in real hand order, -1 for a free hand."""
    k = place.node
    node = spot.tree.nodes[k]
    actions = [str(a) for a in node.actions]
    player = int(spot.flat.player[k])
    hands = spot.hands[player]
    out = np.full((len(actions), len(hands)), -1.0)
    if isinstance(strategy, np.ndarray) or (isinstance(strategy, Sequence) and not isinstance(strategy, str)):
        array = np.asarray(strategy, dtype=np.float64)
        if array.shape != (len(actions), len(hands)):
            raise SolverError(f"The lock's array has shape {array.shape}; expected ({len(actions)}, {len(hands)}): "
                              "actions by the hands of the player to act.")
        for i in range(len(hands)):
            mix = normalise_mix(list(array[:, i]), actions)
            if any(mix):
                out[:, i] = mix
        return out
    if not isinstance(strategy, Mapping):
        raise SolverError(f"The lock {strategy!r} is neither a mix like {{'Check': 1}}, a mix per hand, nor an array.")
    if all(_is_action(k) for k in strategy):
        mix = normalise_mix(strategy, actions)  # one mix for every hand
        if any(mix):
            out[:, :] = np.array(mix)[:, None]
        return out
    where = {tuple(sorted(int(c) for c in hand)): i for i, hand in enumerate(hands.cards)}
    for hand, mix in strategy.items():
        try:
            key = tuple(sorted(parse_cards(hand, count=2)))
        except CardError:
            raise SolverError(f"The lock names {hand!r}, which is not a hand like 'AhKh'.") from None
        if key not in where:
            raise SolverError(f"The lock names the hand {hand!r}, which the player to act does not hold at this node.")
        values = normalise_mix(mix, actions)
        if any(values):
            out[:, where[key]] = values
    return out


def lock_arrays(spot: Spot, locks: Mapping[Any, LockLike] | None) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' lock table (``lock_of`` per action node instance) and the locked strategies (``locks``)."""
    lock_of = np.full(spot.layout.action_nodes, -1, dtype=np.int64)
    values: list[np.ndarray] = []
    size = 0
    for line, strategy in (locks or {}).items():
        place = walk(spot, parse_line(line))
        if int(spot.flat.kind[place.node]) != ACTION:
            raise SolverError(f"The lock's line {line!r} leads to no decision; expected a line to a node where a player acts.")
        matrix = _lock_matrix(spot, place, strategy)
        player = int(spot.flat.player[place.node])
        stored = np.full_like(matrix, -1.0)
        stored[:, place.perm[player]] = matrix
        entry = instance_entry(spot, int(spot.flat.sub[place.node]), place.t, place.r)
        index = int(spot.layout.klayout[2][entry]) + int(spot.flat.lnode[place.node])
        if lock_of[index] >= 0:
            raise SolverError(f"Two locks name the node of {line!r}; expected one lock per node.")
        lock_of[index] = size
        values.append(stored.astype(np.float32).ravel())
        size += stored.size
    flat = np.concatenate(values) if values else np.zeros(0, dtype=np.float32)
    return lock_of, flat
