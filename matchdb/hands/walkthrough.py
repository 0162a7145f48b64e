"""A replayed hand street by street with every player's exact equity: what the page's hand replayer steps through.

:func:`walk` turns a :class:`~matchdb.hands.replayer.Replayed` hand into
frames, one before the first action and one after each action, plus one per
board card dealt and a last one with the result. Each frame holds the board,
the pot, the stacks and bets, who is still in, and the equity of each player
still in whose cards the record shows:

- when every player still in shows their cards, the exact share of the pot
  each can expect over every runout of the board (an enumeration of the
  runouts, as the all-in adjustment does: :func:`matchdb.hands.allin.expected_payments`
  with one chip from each);
- otherwise each shown hand's equity from the database against the shown
  hands and ``opponent_range`` for each hidden one
  (:meth:`matchdb.MatchDB.multiway`: exact where it can be counted, else
  sampled with seed 0, its standard error in ``standard_error``); a hidden hand's equity
  is None.

Amounts are in the record's currency, as numbers.

>>> from matchdb.hands import read_text, replay_hand
>>> text = '''variant = 'NT'
... antes = [0, 0]
... blinds_or_straddles = [1, 2]
... min_bet = 2
... starting_stacks = [200, 200]
... actions = ['d dh p1 AhKh', 'd dh p2 QsQd', 'p2 cbr 6', 'p1 cc', 'd db 2c7dJh',
...            'p1 cbr 194', 'p2 cc', 'p1 sm AhKh', 'p2 sm QsQd', 'd db 3s', 'd db 4d']
... '''
>>> done = replay_hand(next(iter(read_text(text, "ak-vs-qq.phh"))))
>>> frames = walk(done)["frames"]
>>> [(f["street"], f["board"], f["text"]) for f in frames[:3]]
[('preflop', '', 'dealt'), ('preflop', '', 'p2 raises to 6'), ('preflop', '', 'p1 calls 4')]
>>> [round(e, 6) for e in frames[0]["equity"]]
[0.462145, 0.537855]
>>> frames[-1]["text"], frames[-1]["stacks"]
('p2 wins 400', [0, 400])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from matchdb.core.cards import format_cards
from matchdb.hands.allin import expected_payments
from matchdb.hands.replayer import Replayed
from matchdb.play import engine as E

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = ["walk"]

def walk(done: Replayed, db: MatchDB | None = None, opponent_range: str = "random") -> dict[str, Any]:
    """The frames of ``done`` (see the module notes) as JSON-safe data: the hand's label, players and blinds, and the frames.

    ``db`` answers the equities where a player still in hides their cards
    (without one those equities are None); ``opponent_range`` stands for each
    hidden hand.
    """
    record = done.record
    n = record.size
    amount = _amounts(record)
    holes = done.holes
    total = sum(done.engine.start)
    cache: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[list[float | None], list[float]]] = {}
    frames: list[dict[str, Any]] = []

    def add(street: int, board: Sequence[int], text: str, seat: int | None) -> None:
        key = (tuple(board), tuple(in_hand))
        if key not in cache:
            cache[key] = _equities(holes, board, in_hand, db, opponent_range)
        frames.append({
            "street": E.STREETS[street], "board": format_cards(board), "text": text, "seat": seat,
            "pot": amount(pot), "stacks": [amount(s) for s in stacks], "bets": [amount(b) for b in bets],
            "in_hand": list(in_hand), "equity": cache[key][0], "standard_error": cache[key][1],
        })

    # the table before the first action: the antes and blinds the engine posted
    stacks, bets = list(done.engine.start), [0] * n
    for _, seat, kind, chips in done.engine.history:
        if kind in (E.SMALL_BLIND, E.BIG_BLIND, E.ANTE):
            stacks[seat] -= chips
            if kind != E.ANTE:
                bets[seat] += chips
    pot = total - sum(stacks)
    in_hand = [True] * n
    board: tuple[int, ...] = ()
    add(0, board, "dealt", None)
    for step in done.steps:
        if step.board != board:  # cards dealt since the last action
            board = step.board
            bets = [0] * n
            add(step.street, board, f"the {E.STREETS[step.street]}: {format_cards(board)}", None)
        stacks, bets, in_hand = list(step.stacks), list(step.bets), list(step.in_hand)
        if step is done.steps[-1]:  # the engine pays the pot at the action that ends the betting: shown unpaid until
            stacks = [s - w for s, w in zip(stacks, done.won, strict=True)]  # the result (an all-in's runout is still to come)
        pot = total - sum(stacks)  # the chips in the middle
        add(step.street, board, step.words(amount), step.seat)
    for size in (3, 4, 5):  # the rest of the board, dealt after the last action (an all-in runout), street by street
        if len(board) < size <= len(done.board):
            board = done.board[:size]
            bets = [0] * n
            add(size - 2, board, f"the {E.STREETS[size - 2]}: {format_cards(board)}", None)
    stacks, bets, pot = list(done.engine.stacks), [0] * n, 0
    winners = [k for k in range(n) if done.won[k] > 0]
    add(4, board, "; ".join(f"p{k + 1} wins {amount(done.won[k])}" for k in winners) or "no pot", None)
    frames[-1]["won"] = [amount(w) for w in done.won]
    return {
        "hand": record.label,
        "players": list(record.players),
        "holes": [None if h is None else format_cards(h) for h in holes],
        "blinds": [amount(b) for b in record.blinds],
        "status": done.status,
        "rake": amount(done.rake),
        "frames": frames,
    }


def _amounts(record: Any) -> Any:
    def amount(chips: int) -> float | int:
        value = record.amount(chips)
        return int(value) if value == value.to_integral_value() else float(value)

    return amount


def _equities(holes: Sequence[tuple[int, int] | None], board: Sequence[int], in_hand: Sequence[bool],
              db: MatchDB | None, opponent_range: str) -> tuple[list[float | None], list[float]]:
    """Each seat's equity (None for a folded seat or a hidden hand) and its standard error (0 where exact)."""
    n = len(holes)
    live = [k for k in range(n) if in_hand[k]]
    errors = [0.0] * n
    if len(live) == 1:
        return [1.0 if in_hand[k] else None for k in range(n)], errors
    if all(holes[k] is not None for k in live):
        pays = expected_payments(holes, board, [1 if in_hand[k] else 0 for k in range(n)], in_hand)
        return [pays[k] / len(live) if in_hand[k] else None for k in range(n)], errors
    out: list[float | None] = [None] * n
    if db is None:
        return out, errors
    for k in live:
        hole = holes[k]
        if hole is None:
            continue
        specs = [opponent_range if (cards := holes[j]) is None else format_cards(cards) for j in live if j != k]
        answer = db.multiway(format_cards(hole), format_cards(board), specs, seed=0)  # the same figures each time
        out[k] = float(answer.equity)
        errors[k] = float(answer.standard_error or 0.0)
    return out, errors
