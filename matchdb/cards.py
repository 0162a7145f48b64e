"""Cards: parsing, formatting, card-id arithmetic and the 1,176-pair indexing.

A card id is ``suit * 13 + rank``: rank 0..12 is ``2 3 4 5 6 7 8 9 T J Q K A``
and suit 0..3 is clubs, diamonds, hearts, spades. Text form is a rank character
followed by a suit character, ``"Ah"``; parsing accepts either case and any of
``" ,;"`` between cards.

>>> parse_cards("AhKh")
(38, 37)
>>> parse_cards("AH ks,2c")
(38, 50, 0)
>>> format_cards((38, 37))
'AhKh'
>>> parse_cards("AhAh")
Traceback (most recent call last):
...
matchdb.errors.CardError: The cards 'AhAh' repeat 'Ah'; expected distinct cards.

Rows and columns of a match table index the 1,176 unordered pairs of the 49
cards left after a flop. The 49 cards get *local indices* 0..48 in rank-major
order (by rank, then suit) with the ranks that are on the flop moved last, and
the pairs are listed in :data:`PAIRS` order; both orders are written into the
store. Together they put the suit variants of one rank pair (AcKd, AdKc, ...)
side by side in rows and columns, which is what makes the tables compress
(see the README's data-format section for the measurements).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from matchdb.errors import CardError

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "card_id",
    "rank_of",
    "suit_of",
    "parse_card",
    "parse_cards",
    "format_card",
    "format_cards",
    "N_LOCAL",
    "N_PAIRS",
    "PAIRS",
    "PAIR_INDEX",
    "COLLISION",
    "remaining_cards",
    "local_index",
    "pair_row",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"

_SEPARATORS = re.compile(r"[\s,;]+")


def card_id(rank: int, suit: int) -> int:
    """Return the card id of a rank (0..12) and a suit (0..3).

    >>> card_id(12, 2)  # Ah
    38
    """
    return suit * 13 + rank


def rank_of(card: int) -> int:
    """Return the rank 0..12 of a card id.

    >>> rank_of(38)
    12
    """
    return card % 13


def suit_of(card: int) -> int:
    """Return the suit 0..3 of a card id.

    >>> suit_of(38)
    2
    """
    return card // 13


@dataclass(frozen=True, order=True)
class Card:
    """One playing card; ``str(Card.parse("ah"))`` is ``'Ah'``.

    >>> Card.parse("td")
    Td
    >>> Card.parse("td").id
    21
    """

    id: int

    def __post_init__(self) -> None:
        if not isinstance(self.id, (int, np.integer)) or not 0 <= self.id < 52:
            raise CardError(f"Card id {self.id!r} is out of range; expected an integer 0..51.")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card written as rank and suit, for example ``"Ah"``."""
        return cls(parse_card(text))

    @property
    def rank(self) -> int:
        """Rank 0..12 (2 to ace)."""
        return rank_of(self.id)

    @property
    def suit(self) -> int:
        """Suit 0..3 (clubs, diamonds, hearts, spades)."""
        return suit_of(self.id)

    def __str__(self) -> str:
        return format_card(self.id)

    __repr__ = __str__


def parse_card(text: str, within: str | None = None) -> int:
    """Return the card id of one card written as ``"Ah"`` (any case).

    >>> parse_card("Ah")
    38
    >>> parse_card("1h")
    Traceback (most recent call last):
    ...
    matchdb.errors.CardError: The card '1h' has an unknown rank '1'; expected one of 23456789TJQKA.

    ``within`` names the larger text the card came from, for the message.
    """
    where = f" in {within!r}" if within is not None else ""
    if not isinstance(text, str) or len(text) != 2:
        raise CardError(f"The card {text!r}{where} is not two characters; expected a rank and a suit like 'Ah'.")
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0:
        raise CardError(f"The card {text!r}{where} has an unknown rank {text[0]!r}; expected one of {RANKS}.")
    if suit < 0:
        raise CardError(f"The card {text!r}{where} has an unknown suit {text[1]!r}; expected one of {SUITS}.")
    return card_id(rank, suit)


def _card_from_item(item: object) -> int:
    if isinstance(item, Card):
        return item.id
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        return Card(int(item)).id
    if isinstance(item, str):
        return parse_card(item.strip())
    raise CardError(f"The card {item!r} is neither text like 'Ah', a Card nor a card id.")


def parse_cards(cards: str | Iterable[str | int | Card], count: int | None = None) -> tuple[int, ...]:
    """Return card ids of several cards; text, Card objects or ids are accepted.

    Text may separate cards with spaces, commas or semicolons, or not at all.
    Repeated cards are an error; ``count`` demands an exact number of cards.

    >>> parse_cards("ah kh")
    (38, 37)
    >>> parse_cards([Card.parse("2c"), "3c"])
    (0, 1)
    >>> parse_cards("AhK")
    Traceback (most recent call last):
    ...
    matchdb.errors.CardError: The cards 'AhK' have an odd number of characters; expected pairs of rank and suit like 'AhKh'.
    """
    if isinstance(cards, str):
        ids = _parse_text(cards)
        if count is not None and len(ids) != count:
            raise CardError(f"The cards {cards!r} are {len(ids)} cards; expected {count}.")
        return ids
    if isinstance(cards, (Card, int, np.integer)):
        ids = (_card_from_item(cards),)
        shown = str(cards)
    else:
        try:
            items = list(cards)
        except TypeError:
            raise CardError(f"The cards {cards!r} are neither text nor a sequence of cards.") from None
        ids = tuple(_card_from_item(item) for item in items)
        shown = format_cards(ids)
    _check_distinct(ids, shown)
    if count is not None and len(ids) != count:
        raise CardError(f"The cards {shown!r} are {len(ids)} cards; expected {count}.")
    return ids


def _check_distinct(ids: tuple[int, ...], shown: str) -> None:
    seen: set[int] = set()
    for card in ids:
        if card in seen:
            raise CardError(f"The cards {shown!r} repeat {format_card(card)!r}; expected distinct cards.")
        seen.add(card)


@lru_cache(maxsize=8192)  # queries repeat the same few strings; parsing them again costs more than the lookup
def _parse_text(cards: str) -> tuple[int, ...]:
    squeezed = _SEPARATORS.sub("", cards)
    if len(squeezed) % 2:
        raise CardError(
            f"The cards {cards!r} have an odd number of characters; expected pairs of rank and suit like 'AhKh'."
        )
    ids = tuple(parse_card(squeezed[i : i + 2], within=cards) for i in range(0, len(squeezed), 2))
    _check_distinct(ids, cards)
    return ids


def format_card(card: int) -> str:
    """Return the text form of a card id.

    >>> format_card(38)
    'Ah'
    """
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """Return the text form of several card ids.

    >>> format_cards([38, 37], sep=" ")
    'Ah Kh'
    """
    return sep.join(format_card(int(c)) for c in cards)


# ---------------------------------------------------------------------------
# Pair indexing shared by rows (private hands) and columns (turn, river).

N_LOCAL = 49
N_PAIRS = N_LOCAL * (N_LOCAL - 1) // 2


def _pair_order() -> np.ndarray:
    """The 1,176 local pairs (low, high) ordered by (high // 4, low // 4, low, high).

    Local indices come in groups of four cards of one rank (the flop's ranks,
    which have fewer cards left, come last), so ``index // 4`` is the rank
    group for every rank not on the flop and this order lists a rank pair's
    suit variants together.
    """
    pairs = np.array(list(combinations(range(N_LOCAL), 2)), dtype=np.int64)
    low, high = pairs[:, 0], pairs[:, 1]
    return pairs[np.lexsort((high, low, low // 4, high // 4))].astype(np.uint8)


#: The 1,176 pairs of local card indices (0..48), in row/column order.
PAIRS = _pair_order()
PAIRS.flags.writeable = False

#: ``PAIR_INDEX[a, b]`` is the position of local pair {a, b} in :data:`PAIRS`; -1 when a == b.
PAIR_INDEX = np.full((N_LOCAL, N_LOCAL), -1, dtype=np.int16)
PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] = np.arange(N_PAIRS)
PAIR_INDEX[PAIRS[:, 1], PAIRS[:, 0]] = np.arange(N_PAIRS)
PAIR_INDEX.flags.writeable = False


def _collision_mask() -> np.ndarray:
    members = np.zeros((N_PAIRS, N_LOCAL), dtype=np.uint8)
    members[np.arange(N_PAIRS), PAIRS[:, 0]] = 1
    members[np.arange(N_PAIRS), PAIRS[:, 1]] = 1
    shared = members.astype(np.int32) @ members.T.astype(np.int32)
    return shared > 0


#: ``COLLISION[i, j]`` is True when row pair i and column pair j share a card.
#: It is the same for every flop: 95 colliding columns in every row.
COLLISION = _collision_mask()
COLLISION.flags.writeable = False


def remaining_cards(flop: Iterable[int]) -> np.ndarray:
    """Return the 49 card ids not in ``flop`` in local order.

    Local order is by rank, then suit, except that cards of a rank on the flop
    come after all others. Position in this array is the card's *local index*
    used by :data:`PAIRS`.

    >>> format_cards(remaining_cards(parse_cards("2c2d2h"))[:3])
    '3c3d3h'
    >>> format_cards(remaining_cards(parse_cards("2c2d2h"))[-1:])
    '2s'
    """
    flop = [int(c) for c in flop]
    flop_set = set(flop)
    if len(flop_set) != 3 or not flop_set <= set(range(52)):
        raise CardError(f"The flop {flop!r} is not three distinct card ids; expected three of 0..51.")
    flop_ranks = {rank_of(c) for c in flop}
    order = sorted(
        (c for c in range(52) if c not in flop_set),
        key=lambda c: (rank_of(c) in flop_ranks, rank_of(c), suit_of(c)),
    )
    return np.array(order, dtype=np.uint8)


def local_index(flop: Iterable[int]) -> np.ndarray:
    """Return a 52-entry array mapping card id to local index (-1 for flop cards).

    >>> int(local_index(parse_cards("2c2d2h"))[parse_cards("2s")[0]])
    48
    """
    lookup = np.full(52, -1, dtype=np.int8)
    lookup[remaining_cards(flop)] = np.arange(N_LOCAL)
    return lookup


def pair_row(flop: Iterable[int], cards: Iterable[int]) -> int:
    """Return the row (or column) index of two cards on a flop.

    >>> flop = parse_cards("2c7dJh")
    >>> int(pair_row(flop, parse_cards("AhKh")))
    768
    """
    flop = tuple(int(c) for c in flop)
    a, b = (int(c) for c in cards)
    lookup = local_index(flop)
    la, lb = int(lookup[a]), int(lookup[b])
    if la < 0 or lb < 0 or la == lb:
        raise CardError(
            f"The pair {format_cards((a, b))!r} is not two distinct cards off the flop {format_cards(flop)!r}."
        )
    return int(PAIR_INDEX[la, lb])
