"""How a question names its cards, hands, ranges and opponents: what the flop and the preflop answers share.

:class:`matchdb.MatchDB` answers a question on a board itself and hands one
whose board is empty to :mod:`matchdb.db.preflop`; both read the question's
parts with the functions here, so the two halves name hands, ranges and
opponents alike and refuse the same impossible ones in the same words.

>>> is_preflop(""), is_preflop("2c7dJh"), is_preflop([])
(True, False, True)
>>> one_hand("QsQd"), one_hand("QQ+"), describe("qdqs"), describe("random")
((49, 23), None, 'QsQd', 'random')
>>> opponent_specs(2), opponent_specs("QQ+")
(['random', 'random'], ['QQ+'])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import hand_index, hand_order
from matchdb.core.ranges import describe_range
from matchdb.errors import CardError, MatchdbError

__all__ = ["is_preflop", "one_hand", "as_range", "describe", "text", "opponent_specs", "check_known_hands"]


def is_preflop(board: object) -> bool:
    """True when ``board`` holds no card (``""``, blanks, an empty list): a question before the flop."""
    if isinstance(board, str):
        return not board.strip()
    if board is None:
        return False
    try:
        return len(board) == 0  # type: ignore[arg-type]  # anything with a length; others are no board
    except TypeError:
        return False


def one_hand(spec: Any) -> tuple[int, ...] | None:
    """The two card ids of ``spec`` when it names one hand ('QsQd', two cards), else None (a range or 'random')."""
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "random"):
        return None
    if not isinstance(spec, (str, list, tuple)):
        return None
    try:
        return parse_cards(spec, count=2)
    except MatchdbError:
        return None


def as_range(spec: Any) -> Any:
    """A range in a form :func:`matchdb.core.ranges.range_weights` reads (class weights become 1,326 weights)."""
    return spec.hand_weights() if hasattr(spec, "hand_weights") else spec


def describe(spec: Any) -> str:
    """How an answer names an opponent or a hero range: one hand in :func:`matchdb.hand_order`'s spelling."""
    if hasattr(spec, "hand_weights"):
        return describe_range(spec)
    hand = one_hand(spec)
    return hand_order()[hand_index(hand)] if hand is not None else describe_range(spec)


def text(cards: CardsLike) -> str:
    """Cards written the contract's way (``AhKh``), for answers."""
    return format_cards(parse_cards(cards))


def opponent_specs(opponents: Any) -> list[Any]:
    """One entry per opponent: a number of random opponents, one range or hand, or a list of them."""
    if isinstance(opponents, (int, np.integer)) and not isinstance(opponents, bool):
        if not 1 <= opponents <= 9:
            raise MatchdbError(f"The number of opponents {int(opponents)} is out of range; expected 1..9 (2 to 10 players).")
        return ["random"] * int(opponents)
    if isinstance(opponents, str) or hasattr(opponents, "hand_weights") or opponents is None:
        return [opponents]
    try:
        specs = list(opponents)
    except TypeError:
        raise MatchdbError(f"The opponents {opponents!r} are neither a number nor a list of ranges or hands.") from None
    if not 1 <= len(specs) <= 9:
        raise MatchdbError(f"The question has {len(specs)} opponents; expected 1..9 (2 to 10 players).")
    return specs


def check_known_hands(specs: Iterable[object], taken: set[int], others: str) -> None:
    """Refuse an opponent's known hand that shares a card with ``taken`` (the hero's and the board's cards) or
    with another opponent's; ``others`` words what it may not share a card with."""
    for position, spec in enumerate(specs, start=1):
        known = one_hand(spec)
        if known is not None:
            if taken & set(known):
                raise CardError(
                    f"The hand {format_cards(known)!r} of opponent {position} shares a card with {others}; "
                    "expected a possible hand."
                )
            taken |= set(known)
