"""What a hand has on a board, the way Flopzilla and GTO Wizard group hands: one made hand and its draws.

Made hands, the best that applies (hole cards counted only where they play:
a hand that only plays the board's pair is no pair):

- ``straight flush``, ``quads``, ``full house``, ``flush``, ``straight``: the
  five best cards are of that kind and beat the board alone;
- ``set``: a pocket pair matching a board card; ``trips``: one hole card
  matching a board pair;
- ``two pair``: two pair made with at least one hole card (both hole cards
  pairing the board, or a pair with the hand beside the board's own pair);
- ``overpair``: a pocket pair above every board card; ``top pair``: a hole card
  pairing the highest board rank; ``underpair``: a pocket pair below the top
  board card; ``middle pair``: a hole card pairing the second highest board rank;
  ``weak pair``: pairing a lower board rank;
- ``ace high``, ``nothing``.

Draws (on the flop and the turn; a hand may have several):

- ``flush draw``: exactly four cards of a suit with at least one in the hand, no flush yet;
- ``open-ended``: no straight yet, and two or more ranks that would complete one with a hole card
  (open-ended and double gutshots: 8 outs before blockers);
- ``gutshot``: exactly one such rank;
- ``backdoor flush``: on the flop, three cards of a suit, at least one in the hand, and no flush draw.

>>> from matchdb.core.cards import parse_cards
>>> board = parse_cards("Td9d6h")
>>> [made_hand(parse_cards(h), board) for h in ("TcTs", "AdTc", "QcQs", "7d8d", "Ad2d", "Tc9c", "5c5d")]
['set', 'top pair', 'overpair', 'straight', 'ace high', 'two pair', 'underpair']
>>> draws(parse_cards("Ad2d"), board), draws(parse_cards("QcJc"), board), draws(parse_cards("Kh8h"), board)
(('flush draw',), ('open-ended',), ('gutshot', 'backdoor flush'))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from matchdb.core.cards import rank_of, suit_of
from matchdb.core.evaluator import STRAIGHT_TOP, evaluate, hand_type

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = ["MADE_HANDS", "DRAWS", "made_hand", "draws", "category", "group_hands"]

#: The made-hand categories, best first.
MADE_HANDS = (
    "straight flush", "quads", "full house", "flush", "straight", "set", "trips", "two pair", "overpair",
    "top pair", "underpair", "middle pair", "weak pair", "ace high", "nothing",
)
#: The draws, in the order they are listed.
DRAWS = ("flush draw", "open-ended", "gutshot", "backdoor flush")

_BIG = ("straight flush", "quads", "full house", "flush", "straight")  # hand types 8..4


def _ranks(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << rank_of(card)
    return mask


def _value(cards: Sequence[int]) -> int:
    """The value of the best five of 5 to 7 cards; of 3 or 4 cards, 0 (they make no five-card hand alone)."""
    return evaluate(list(cards)) if len(cards) >= 5 else 0


def made_hand(hole: Sequence[int], board: Sequence[int]) -> str:
    """The made-hand category of two hole cards on a board of 3 to 5 cards (see the module's docstring)."""
    value = evaluate(list(hole) + list(board))
    kind = hand_type(value)
    if kind >= 4 and value > _value(board):
        return _BIG[8 - kind]
    h1, h2 = rank_of(hole[0]), rank_of(hole[1])
    board_ranks = [rank_of(c) for c in board]
    counts = {r: board_ranks.count(r) for r in set(board_ranks)}
    distinct = sorted(counts, reverse=True)
    if h1 == h2:
        if counts.get(h1, 0) >= 1:
            return "full house" if counts[h1] >= 2 else ("set" if kind <= 3 else _BIG[8 - kind])
        if any(c >= 2 for c in counts.values()):
            return "two pair"
        return "overpair" if h1 > distinct[0] else "underpair"
    paired = [r for r in (h1, h2) if r in counts]
    if any(counts[r] >= 2 for r in paired):
        return "trips"
    if len(paired) == 2 or (paired and any(c >= 2 for c in counts.values())):
        return "two pair"
    if paired:
        position = distinct.index(paired[0])
        return "top pair" if position == 0 else "middle pair" if position == 1 else "weak pair"
    return "ace high" if 12 in (h1, h2) else "nothing"


def draws(hole: Sequence[int], board: Sequence[int]) -> tuple[str, ...]:
    """The draws of two hole cards on a flop or turn (none on a river; see the module's docstring)."""
    if len(board) >= 5:
        return ()
    cards = list(hole) + list(board)
    found = []
    suits = [suit_of(c) for c in cards]
    flush_draw = any(suits.count(s) == 4 and s in (suit_of(hole[0]), suit_of(hole[1])) for s in range(4))
    made_flush = any(suits.count(s) >= 5 for s in range(4))
    if flush_draw and not made_flush:
        found.append("flush draw")
    mine, theirs = _ranks(cards), _ranks(board)
    if STRAIGHT_TOP[mine] < 0:
        outs = sum(1 for r in range(13) if STRAIGHT_TOP[mine | 1 << r] >= 0 and STRAIGHT_TOP[mine | 1 << r] > STRAIGHT_TOP[theirs | 1 << r])
        if outs >= 2:
            found.append("open-ended")
        elif outs == 1:
            found.append("gutshot")
    three = any(suits.count(s) == 3 and s in (suit_of(hole[0]), suit_of(hole[1])) for s in range(4))
    if len(board) == 3 and three and not flush_draw and not made_flush:
        found.append("backdoor flush")
    return tuple(found)


def category(hole: Sequence[int], board: Sequence[int]) -> tuple[str, tuple[str, ...]]:
    """(made hand, draws) of two hole cards on a board."""
    return made_hand(hole, board), draws(hole, board)


def group_hands(frame: DataFrame, actions: Sequence[str], by: str = "made") -> DataFrame:
    """A table of hands grouped by made hand (``by="made"``) or by draw (``by="draws"``, a hand counted under each
    of its draws, ``no draw`` when none): combos, share of the range, equity, EV and each action of ``actions``
    found among the columns, each a mean weighted by combos; rows in the order of the categories.

    ``frame`` has a row per hand with ``combos``, ``equity``, ``ev``, ``made``, ``draws`` (names joined by ", ")
    and a frequency column per action (a node's ``to_pandas()``, of the solver or of a library).

    >>> import pandas as pd
    >>> hands = pd.DataFrame({"combos": [1.0, 3.0], "equity": [0.9, 0.5], "ev": [80.0, 20.0],
    ...                       "made": ["set", "set"], "draws": ["", "flush draw"], "Check": [0.0, 1.0]})
    >>> group_hands(hands, ["Check"]).to_dict(orient="records")
    [{'made': 'set', 'combos': 4.0, 'share': 1.0, 'equity': 0.6, 'ev': 35.0, 'Check': 0.75}]
    """
    import pandas as pd

    if by not in ("made", "draws"):
        raise ValueError(f"by is {by!r}; expected 'made' or 'draws'.")
    if by == "draws":
        frame = frame.assign(draws=frame["draws"].map(lambda d: d.split(", ") if d else ["no draw"])).explode("draws")
    order = list(MADE_HANDS) if by == "made" else [*DRAWS, "no draw"]
    present = [c for c in actions if c in frame.columns]
    rows = []
    total = frame["combos"].sum()
    for name in order:
        part = frame[frame[by] == name]
        combos = part["combos"].sum()
        if combos <= 0:
            continue
        row = {by: name, "combos": combos, "share": combos / total if total > 0 else math.nan,
               "equity": float((part["equity"] * part["combos"]).sum() / combos),
               "ev": float((part["ev"] * part["combos"]).sum() / combos)}
        for action in present:
            row[action] = float((part[action] * part["combos"]).sum() / combos)
        rows.append(row)
    return pd.DataFrame(rows)
