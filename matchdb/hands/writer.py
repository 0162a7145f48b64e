"""Writing hands the engine played (an arena's, a bot's) as PHH with pokerkit's writer.

:func:`history_of` turns one :class:`matchdb.play.engine.HandRecord` into a
:class:`pokerkit.notation.HandHistory`: the seats dealt in, in PHH order
(from the seat after the button round to the button; heads-up the big blind
first), the blinds and ante, every hole card (or ``????`` with
``hidden=True``, except hands shown at a showdown), the board as it was
dealt and every action. :func:`write` writes many as a ``.phhs`` file (one
section per hand, written as they come, so memory stays flat) or one as a
``.phh`` file; pokerkit reads them back, and :func:`matchdb.hands.read`
replays them. :func:`play_hands` plays bots at a table through the engine's
Python loop and gives each finished hand, for a quick set of known-bot hands.

>>> from matchdb.play.bots import CallingStation, AllIn
>>> hands = list(play_hands([CallingStation(), AllIn(), CallingStation()], 2, seed=3))
>>> history = history_of(hands[0], 1, 2, players=["station", "allin", "station-2"])
>>> history.blinds_or_straddles, history.actions[:4]
([1, 2, 0], ['d dh p1 8cTh', 'd dh p2 9hJc', 'd dh p3 4sQd', 'p3 cc'])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.hands.reader import HandsError, _pokerkit
from matchdb.play import engine as E

__all__ = ["history_of", "phh_order", "play_hands", "write"]


def phh_order(hand: E.HandRecord) -> list[int]:
    """Engine seats dealt in, in PHH order: from the seat after the button round to the button."""
    n = len(hand.start)
    return [(hand.button + 1 + k) % n for k in range(n) if hand.start[(hand.button + 1 + k) % n] > 0]


def history_of(hand: E.HandRecord, small_blind: int, big_blind: int, ante: int = 0,
               players: Sequence[str] | None = None, hidden: bool = False, **fields: Any) -> Any:
    """One engine hand as a pokerkit ``HandHistory`` (amounts in chips; ``fields`` adds PHH fields like ``venue``).

    ``players`` names the engine's seats (all of them, by seat); the PHH
    lists those dealt in. ``hidden=True`` writes hole cards as ``????``
    except for hands shown at a showdown.
    """
    HandHistory = _pokerkit().HandHistory
    order = phh_order(hand)
    label = {seat: f"p{k + 1}" for k, seat in enumerate(order)}
    k = len(order)
    if k < 2:
        raise HandsError("The hand has fewer than two players dealt in; nothing to write.")
    actions: list[str] = []
    alive = set(order)
    for seat, k_label in label.items():
        cards = hand.holes[seat]
        shown = hand.showdown and seat in _showdown_seats(hand)
        actions.append(f"d dh {k_label} {'????' if hidden and not shown or cards is None else format_cards(cards)}")
    street = 0
    dealt = 0
    streets_seen = [0]
    for st, seat, kind, amount in hand.history:
        if kind in (E.SMALL_BLIND, E.BIG_BLIND, E.ANTE):
            continue
        while st > street:
            street += 1
            dealt = _deal(actions, hand.board, street, dealt)
        streets_seen.append(st)
        if kind == E.FOLD:
            actions.append(f"{label[seat]} f")
            alive.discard(seat)
        elif kind in (E.CHECK, E.CALL):
            actions.append(f"{label[seat]} cc")
        else:
            actions.append(f"{label[seat]} cbr {amount}")
    if hand.showdown:
        # the hands still in are shown when the betting ends (before an all-in's runout, as pokerkit asks)
        actions += [f"{label[seat]} sm {format_cards(hole)}" for seat in order
                    if seat in alive and (hole := hand.holes[seat]) is not None]
        while street < 3:
            street += 1
            dealt = _deal(actions, hand.board, street, dealt)
    names = [str(players[s]) for s in order] if players is not None else None
    return HandHistory(
        variant="NT",
        antes=[ante] * k,
        blinds_or_straddles=[small_blind, big_blind] + [0] * (k - 2),
        min_bet=big_blind,
        starting_stacks=[int(hand.start[s]) for s in order],
        actions=actions,
        players=names,
        finishing_stacks=[int(hand.stacks[s]) for s in order],
        winnings=[int(hand.won[s]) for s in order],
        **fields,
    )


def _showdown_seats(hand: E.HandRecord) -> set[int]:
    folded = {seat for _, seat, kind, _ in hand.history if kind == E.FOLD}
    return {s for s in range(len(hand.start)) if hand.start[s] > 0 and s not in folded}


def _deal(actions: list[str], board: Sequence[int], street: int, dealt: int) -> int:
    upto = (0, 3, 4, 5)[street]
    actions.append(f"d db {format_cards(board[dealt:upto])}")
    return upto


def write(histories: Iterable, path: str | os.PathLike) -> Path:
    """Write pokerkit ``HandHistory`` objects as PHH: a ``.phhs`` file of sections, or one hand as ``.phh``.

    Hands are written one at a time, so any number can be written with flat memory.
    """
    path = Path(path)
    if path.suffix.lower() not in (".phh", ".phhs"):
        raise HandsError(f"The file {str(path)!r} does not end in .phh or .phhs; expected a PHH file name.")
    many = path.suffix.lower() == ".phhs"
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for history in histories:
            if many:
                out.write(f"{'' if not written else chr(10)}[{written + 1}]\n{history.dumps()}\n")
            elif written:
                raise HandsError(f"A .phh file holds one hand; write several to a .phhs file, not {str(path)!r}.")
            else:
                out.write(history.dumps() + "\n")
            written += 1
    return path


def play_hands(bots: Sequence, hands: int, seed: int = 0, stack: int = 200, small_blind: int = 1,
               big_blind: int = 2, ante: int = 0, source: Any = None, bot_seed: int | None = None) -> Iterator[E.HandRecord]:
    """Play ``hands`` hands of ``bots`` (one per seat) through the engine's Python loop; yield each finished hand.

    Every hand starts with every seat at ``stack`` chips (a cash game's
    independent hands); the button moves one seat per hand; ``source`` is
    the strength source bots with a database strength need
    (:class:`matchdb.play.strength.StrengthSource`); ``bot_seed`` seeds the
    bots' random draws (numba's generator; default ``seed``), so the same
    seeds give the same hands.
    """
    from matchdb.play.strength import seed_kernels

    n = len(bots)
    if not 2 <= n <= E.MAX_SEATS:
        raise HandsError(f"{n} bots do not make a table; expected 2 to {E.MAX_SEATS}.")
    rng = np.random.default_rng(seed)
    seed_kernels(seed if bot_seed is None else bot_seed)
    for number in range(hands):
        table = E.Table([stack] * n, small_blind, big_blind, ante, rng=rng, button=number % n)
        hand = table.start_hand()
        while not hand.over:
            view = hand.view(source)
            kind, amount = bots[view.seat].act(view)
            hand.act(int(kind), int(amount))
        yield hand.record()
