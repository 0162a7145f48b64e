"""Walking the solved game from the root: actions and dealt cards, and where each node's numbers are.

A *line* is a list of steps from the root: actions as :class:`matchdb.solver.tree.Action`
prints them (``"Check"``, ``"Bet 120"``, ``"All-in"``; any case) or their
positions among the node's actions, and cards (``"Qs"``) where a card is dealt.
Walking it keeps what answers need: the node, the board, each player's range
reaching the node (their starting weights times their own strategy on the
way), the chips each has bet on the street, and how a dealt card maps onto the
card the solver stored (a card whose suit is interchangeable with another's
is read from that card's numbers with the suits swapped: :class:`Place`'s
``perm`` maps each real hand to the hand whose numbers it reads).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from matchdb.core.cards import format_card, format_cards, parse_card
from matchdb.errors import CardError
from matchdb.solver.game import SUIT_PAIRS
from matchdb.solver.layout import ACTION, CHANCE, FOLD, MAX_RIVERS
from matchdb.solver.sizes import SolverError
from matchdb.solver.tree import ALLIN, BET, CALL, RAISE, Action, parse_action

if TYPE_CHECKING:
    from matchdb.solver.solve import Spot

__all__ = ["Place", "root_place", "walk", "step", "instance_entry", "node_strategy", "parse_line", "swap_card"]


def swap_card(pair: int, card: int) -> int:
    """``card`` with the suits of ``SUIT_PAIRS[pair]`` exchanged."""
    s1, s2 = SUIT_PAIRS[pair]
    suit = card // 13
    return (s2 if suit == s1 else s1 if suit == s2 else suit) * 13 + card % 13


@dataclass(frozen=True, kw_only=True)
class Place:
    """A node reached by a line: template ``node``, instance (``t``, ``r``), ``board`` (real cards), ``weights``
    (each player's range reaching it, real hand order), ``base_weights`` (the same at the root of its street's
    subtree), ``bets`` (chips each has put in on this street), ``perm`` (real hand -> stored hand, per player),
    ``cards`` (real card -> stored card) and the ``line`` walked."""

    node: int
    t: int
    r: int
    board: tuple[int, ...]
    weights: tuple[np.ndarray, np.ndarray]
    base_weights: tuple[np.ndarray, np.ndarray]
    bets: tuple[int, int]
    perm: tuple[np.ndarray, np.ndarray]
    cards: np.ndarray
    line: tuple[str, ...]


def root_place(spot: Spot) -> Place:
    """The root: the starting ranges, nothing bet."""
    oop, ip = spot.hands
    weights = (oop.weights.astype(np.float64), ip.weights.astype(np.float64))
    perms = (np.arange(len(oop), dtype=np.int64), np.arange(len(ip), dtype=np.int64))
    return Place(node=0, t=0, r=0, board=spot.board, weights=weights, base_weights=weights, bets=(0, 0),
                 perm=perms, cards=np.arange(52), line=())


def instance_entry(spot: Spot, sub: int, t: int, r: int) -> int:
    """Entry of instance (``sub``, ``t``, ``r``) in the layout's tables (the kernels' ``instance_entry``)."""
    street = spot.flat.sub_street[sub]
    first = int(spot.layout.klayout[0][sub])
    if street == spot.street:
        return first
    if street == 1:
        return first + t
    return first + t * MAX_RIVERS + r


def node_strategy(spot: Spot, place: Place) -> np.ndarray:
    """The average strategy at an action node, (actions, hands of the player to act) in real hand order, locks kept."""
    flat = spot.flat
    k = place.node
    player = int(flat.player[k])
    count = int(flat.nact[k])
    n = len(spot.hands[player])
    entry = instance_entry(spot, int(flat.sub[k]), place.t, place.r)
    _, inst_base, inst_node = spot.layout.klayout
    offset = int(inst_base[entry]) + int(spot.layout.offsets[k])
    bufs = spot.bufs
    stored = bufs.strategy16 if bufs.compressed else bufs.strategy
    summed = stored[offset: offset + count * n].astype(np.float64).reshape(count, n)
    total = summed.sum(axis=0)
    strategy = np.where(total > 0, summed / np.where(total > 0, total, 1), 1 / count)
    lock = int(bufs.lock_of[int(inst_node[entry]) + int(flat.lnode[k])])
    if lock >= 0:
        locked = bufs.locks[lock: lock + count * n].astype(np.float64).reshape(count, n)
        strategy = np.where(locked >= 0, locked, strategy)
    return strategy[:, place.perm[player]]


def parse_line(line: str | Iterable[object] | None) -> list[object]:
    """A line as a list of steps: text is split at commas (``"Check, Check, Qs, Bet 120"``)."""
    if line is None:
        return []
    if isinstance(line, str):
        return [part.strip() for part in line.split(",") if part.strip()]
    try:
        return list(line)
    except TypeError:
        raise SolverError(f"The line {line!r} is neither text like 'Check, Bet 120' nor a list of actions and cards.") from None


def _action_index(spot: Spot, place: Place, spec: object) -> int:
    node = spot.tree.nodes[place.node]
    actions = node.actions
    shown = ", ".join(str(a) for a in actions)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not 0 <= spec < len(actions):
            raise SolverError(f"The action {int(spec)} is out of range at this node; expected 0..{len(actions) - 1} ({shown}).")
        return int(spec)
    if not isinstance(spec, Action):
        try:
            parse_card(str(spec))
        except CardError:
            pass
        else:
            who = ("OOP", "IP")[node.player]
            raise SolverError(f"The line deals {str(spec)!r} where {who} acts; expected one of {shown} (a card comes after a street ends).")
    wanted = spec if isinstance(spec, Action) else parse_action(str(spec))
    for position, action in enumerate(actions):
        if action == wanted or (wanted.kind == ALLIN and wanted.amount == -1 and action.kind == ALLIN):
            return position
    raise SolverError(f"The action {str(spec)!r} is not available at this node; expected one of {shown}.")


def step(spot: Spot, place: Place, spec: object) -> Place:
    """The place one step further: an action at an action node, a card at a deal."""
    flat = spot.flat
    k = place.node
    kind = int(flat.kind[k])
    if kind == CHANCE:
        return _deal(spot, place, spec)
    if kind != ACTION:
        what = "a fold" if kind == FOLD else "a showdown"
        raise SolverError(f"The line ends at {what} after {', '.join(place.line) or 'the root'}; nothing follows {spec!r}.")
    a = _action_index(spot, place, spec)
    node = spot.tree.nodes[k]
    player = int(flat.player[k])
    weights = list(place.weights)
    weights[player] = weights[player] * node_strategy(spot, place)[a]
    action = node.actions[a]
    bets = list(place.bets)
    if action.kind == CALL:
        bets[player] = bets[player ^ 1]
    elif action.kind in (BET, RAISE, ALLIN):
        bets[player] = action.amount
    child = int(flat.child[k, a])
    return replace(place, node=child, weights=(weights[0], weights[1]), bets=(bets[0], bets[1]), line=place.line + (str(action),))


def _deal(spot: Spot, place: Place, spec: object) -> Place:
    flat = spot.flat
    k = place.node
    try:
        card = parse_card(str(spec)) if not isinstance(spec, (int, np.integer)) or isinstance(spec, bool) else int(spec)
    except CardError:
        raise SolverError(f"A card is dealt after {', '.join(place.line) or 'the root'}; {spec!r} is not a card like 'Qs'.") from None
    if not 0 <= card < 52:
        raise SolverError(f"The card {spec!r} is not a card id 0..51 nor a card like 'Qs'.")
    if card in place.board:
        raise SolverError(f"The card {format_card(card)} is on the board {format_cards(place.board)!r} already; expected another card.")
    stored = int(place.cards[card])
    street = int(flat.street[k])  # the street being left: 0 deals the turn, 1 the river
    deal = spot.deals[0] if street == 0 else spot.deals[1 + place.t] if spot.street == 0 else spot.deals[0]
    perm = list(place.perm)
    cards = place.cards
    if stored in deal.cards:
        index = deal.cards.index(stored)
    else:
        _, rep, pair = next(m for m in deal.mapped if m[0] == stored)
        index = rep
        swaps = spot.kspot[1].swaps
        perm = [swaps[pair, p][perm[p]].astype(np.int64) for p in (0, 1)]
        cards = np.array([swap_card(pair, int(c)) for c in cards])
    weights = []
    for p in (0, 1):
        hold = (spot.hands[p].cards == card).any(axis=1)
        weights.append(np.where(hold, 0.0, place.weights[p]))
    if not (weights[0].any() and weights[1].any()):
        raise SolverError(f"No hand of {'OOP' if not weights[0].any() else 'IP'} can reach the {format_card(card)} after "
                          f"{', '.join(place.line)}; expected a card that leaves both ranges a hand.")
    t, r = (index, 0) if street == 0 else (place.t, index)
    child = int(flat.child[k, 0])
    pair_weights = (weights[0], weights[1])
    return Place(node=child, t=t, r=r, board=place.board + (card,), weights=pair_weights, base_weights=pair_weights,
                 bets=(0, 0), perm=(perm[0], perm[1]), cards=cards, line=place.line + (format_card(card),))


def walk(spot: Spot, line: str | Sequence[object] | None) -> Place:
    """The place a line leads to from the root."""
    place = root_place(spot)
    for spec in parse_line(line):
        place = step(spot, place, spec)
    return place
