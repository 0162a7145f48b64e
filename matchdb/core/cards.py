"""Cards: parsing, formatting and card-id arithmetic.

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
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from matchdb.errors import CardError

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "CardsLike",
    "card_id",
    "rank_of",
    "suit_of",
    "parse_card",
    "parse_cards",
    "format_card",
    "format_cards",
    "MAX_CARD_TEXT",
    "read_only",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"

_SEPARATORS = re.compile(r"[\s,;]+")


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only and returned: the module-level tables of core are shared, never written."""
    array.flags.writeable = False
    return array


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
    """One playing card, made from text or a card id; ``str(Card("ah"))`` is ``'Ah'``.

    >>> Card("td"), Card(21), Card("Td").id
    (Td, Td, 21)
    >>> Card(True)
    Traceback (most recent call last):
    ...
    matchdb.errors.CardError: The card True is neither text like 'Ah' nor a card id 0..51.
    """

    id: int

    def __post_init__(self) -> None:
        value = self.id
        if isinstance(value, str):
            object.__setattr__(self, "id", parse_card(value))
        elif isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise CardError(f"The card {value!r} is neither text like 'Ah' nor a card id 0..51.")
        elif not 0 <= value < 52:
            raise CardError(f"Card id {value!r} is out of range; expected an integer 0..51.")
        else:
            object.__setattr__(self, "id", int(value))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card written as rank and suit, for example ``"Ah"`` (the same as ``Card("Ah")``)."""
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


#: Cards as every function takes them: text ('AhKh', 'ah kh'), or card ids, card texts or :class:`Card` objects.
CardsLike = str | Iterable[str | int | Card]


def parse_card(text: str, within: str | None = None) -> int:
    """Return the card id of one card written as ``"Ah"`` (any case).

    >>> parse_card("Ah")
    38
    >>> parse_card("1h")
    Traceback (most recent call last):
    ...
    matchdb.errors.CardError: The card '1h' has an unknown rank '1'; expected one of 23456789TJQKA (write T for ten).

    ``within`` names the larger text the card came from, for the message.
    """
    where = f" in {within!r}" if within is not None else ""
    if not isinstance(text, str) or len(text) != 2:
        raise CardError(f"The card {text!r}{where} is not two characters; expected a rank and a suit like 'Ah'.")
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0:
        hint = " (write T for ten)" if text[0] == "1" else ""
        raise CardError(f"The card {text!r}{where} has an unknown rank {text[0]!r}; expected one of {RANKS}{hint}.")
    if suit < 0:
        raise CardError(f"The card {text!r}{where} has an unknown suit {text[1]!r}; expected one of {SUITS}.")
    return card_id(rank, suit)


#: Longest card text accepted: seven cards with separators fit in far less.
MAX_CARD_TEXT = 64


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
        if len(cards) > MAX_CARD_TEXT:
            raise CardError(f"The cards text is {len(cards):,} characters long; expected at most {MAX_CARD_TEXT}.")
        ids = _parse_text(cards)
        if count is not None and len(ids) != count:
            raise CardError(f"The cards {cards!r} are {len(ids)} cards; expected {count}.")
        return ids
    if isinstance(cards, (Card, int, np.integer)):
        ids = (_card_from_item(cards),)
        shown = str(cards)
    elif isinstance(cards, (bytes, bytearray, memoryview, dict)) or not isinstance(cards, Iterable):
        raise CardError(f"The cards {cards!r} are neither text nor a sequence of cards.")
    else:
        items = list(cards)
        if len(items) > 7:
            raise CardError(f"The cards are {len(items)} items; expected at most 7.")
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
    if "10" in squeezed:
        raise CardError(f"The cards {cards!r} write a ten as '10'; expected a rank and a suit like 'Th' (write T for ten).")
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
