"""Ranges of private hands: the usual notation, a list of hands, or 1,326 weights, turned into weights.

Notation (PokerStove's, as eval7 reads it): comma-separated tokens, each a
hand (``AhKh``), a class (``QQ``, ``AKs``, ``AKo``, ``AK`` for both), a class
and all above it with the same top card (``QQ+``, ``A9s+``), a span
(``JJ-99``, ``KTo-K8o``), a share of the strongest hands (``15%`` or
``top 15%``), or a group with a weight, ``0.5(AA,KK)`` or ``50%(AA,KK)``.
Ranges pasted from solvers read too: PioSOLVER's and GTO Wizard's weight after
an entry, as a fraction (``AA:0.5,KK,AKs:0.25``, ``AhKh:0.5``), and GTO+'s and
Flopzilla's brackets, in percent (``[50]AA,KK[/50]``). A weight is a hand's
frequency, between 0 and 1 (0 % and 100 %), and a positive one at least
:data:`MIN_WEIGHT`; unweighted hands weigh 1. Ranks and suits may be upper or lower case; spaces may follow a
comma or a parenthesis but not end a token (in a URL an unencoded ``+``
arrives as a space: write it ``%2B``).

Entries may overlap, as ranges pasted from other tools do (``AK,AKs``,
``A5s+,AK``, ``15%,AA``): a hand named twice with the same weight is one hand.
A hand given two different weights (``AA,0.5(AsAh)``) is an error that names
both entries, whatever their order, so no answer depends on how a range is
written (eval7 lets the later weight win; Equilab and PokerStove merge).

A share ``p%`` takes the starting-hand classes strongest first by
:data:`PREFLOP_ORDER` (matchdb's own exact heads-up equity against one random
hand, from the preflop table: AA 85.20 %, KK, QQ, JJ, TT, 99, 88, AKs 67.04 %,
...), a class when at least half of its hands fall within the first p % of the
1,326 hands (whole classes, as Equilab's and PokerStove's sliders take; their
orders differ from this one and from each other). ``10%`` is 134 hands,
``20%`` 264.

Answers echo a range in canonical form (:func:`canonical_range`): each entry
written the usual way (``qq+, aks`` becomes ``QQ+,AKs``, ``50%(AA)``,
``AA:0.5`` and ``[50]AA[/50]`` ``0.5(AA)``, ``top 15%`` ``15%``), in the
order given.

We parse the notation ourselves rather than through eval7's ``HandRange``:
that parser (pyparsing) takes about 0.2 ms per character, so a 57 kB range
kept a server worker busy for 51 s; this one is linear (a 10,000-character
range, the longest accepted, parses in a few milliseconds), and the tests
check it against eval7's parser on generated ranges.

>>> hands = parse_range("QQ+,AKs")
>>> len(hands), format_cards(hands[0][:2]), hands[0][2]
(22, 'AcKc', 1.0)
>>> float(range_weights("0.5(AA),KK").sum())
9.0
>>> len(parse_range("AK,AKs")), len(parse_range("10%")), canonical_range("top 10%, qq+")
(16, 134, '10%,QQ+')
>>> float(range_weights("AA:0.5,KK,AKs:0.25").sum()), canonical_range("AA:0.5,KK,AKs:0.25")
(10.0, '0.5(AA),KK,0.25(AKs)')
>>> float(range_weights("[50]AA,KK[/50],AhKh:0.5").sum()), describe_range("[50]AA,KK[/50],AhKh:0.5")
(6.5, '0.5(AA,KK),0.5(AhKh)')
>>> parse_range("AA,0.5(AsAh)")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The range 'AA,0.5(AsAh)' gives AsAh two weights, 1 in 'AA' and 0.5 in 'AsAh'; expected one weight per hand.
>>> parse_range("QQ ,AKs")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The range 'QQ ,AKs' has a space after 'QQ'; a token ends at a comma (in a URL, write '+' as %2B: an unencoded '+' arrives as a space).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from matchdb.core.cards import Card, format_cards, parse_cards
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS, hand_order, hand_position
from matchdb.errors import CardError, RangeError

__all__ = [
    "MAX_RANGE_TEXT",
    "MAX_VECTOR_WEIGHT",
    "MIN_WEIGHT",
    "PREFLOP_ORDER",
    "HandWeights",
    "RangeLike",
    "canonical_range",
    "describe_range",
    "parse_range",
    "percent_range",
    "range_weights",
]

class HandWeights(Protocol):
    """An opponent model that is a range: 1,326 weights in :func:`matchdb.core.hole_cards.hand_order` order."""

    def hand_weights(self) -> np.ndarray: ...


#: A range as every function takes it: text (``'QQ+,AKs'``, ``'15%'``, ``'random'``), a list of hands,
#: 1,326 weights, an opponent model (:class:`HandWeights`), or None for a random hand.
RangeLike = str | Sequence[object] | np.ndarray | HandWeights | None

#: Longest range text accepted (every one of the 1,326 hands written out takes about 6,600).
MAX_RANGE_TEXT = 10_000
#: Largest entry of a weight vector (weights are relative; this keeps every sum exact in float64).
MAX_VECTOR_WEIGHT = 1e6
#: Smallest positive weight, in text and in vectors: the product of ten such weights is still a normal float64,
#: so no sum of weighted deals underflows (a weight of 5e-324 made answers wrong in the sixth digit).
MIN_WEIGHT = 1e-12

#: The 169 starting-hand classes strongest first by matchdb's exact heads-up equity against one random hand
#: (:meth:`matchdb.MatchDB.preflop`; a test checks the order against the database's figures). Shares of
#: hands (``15%``) are taken in this order.
PREFLOP_ORDER = (
    'AA', 'KK', 'QQ', 'JJ', 'TT', '99', '88', 'AKs', '77', 'AQs', 'AJs', 'AKo', 'ATs', 'AQo', 'AJo', 'KQs', '66', 'A9s',
    'ATo', 'KJs', 'A8s', 'KTs', 'KQo', 'A7s', 'A9o', 'KJo', '55', 'QJs', 'K9s', 'A5s', 'A6s', 'A8o', 'KTo', 'QTs',
    'A4s', 'A7o', 'K8s', 'A3s', 'QJo', 'K9o', 'A5o', 'A6o', 'Q9s', 'K7s', 'JTs', 'A2s', 'QTo', '44', 'A4o', 'K6s',
    'K8o', 'Q8s', 'A3o', 'K5s', 'J9s', 'Q9o', 'JTo', 'K7o', 'A2o', 'K4s', 'Q7s', 'K6o', 'K3s', 'T9s', 'J8s', '33',
    'Q6s', 'Q8o', 'K5o', 'J9o', 'K2s', 'Q5s', 'T8s', 'K4o', 'J7s', 'Q4s', 'Q7o', 'T9o', 'J8o', 'K3o', 'Q6o', 'Q3s',
    '98s', 'T7s', 'J6s', 'K2o', '22', 'Q2s', 'Q5o', 'J5s', 'T8o', 'J7o', 'Q4o', '97s', 'J4s', 'T6s', 'J3s', 'Q3o',
    '98o', '87s', 'T7o', 'J6o', '96s', 'J2s', 'Q2o', 'T5s', 'J5o', 'T4s', '97o', '86s', 'J4o', 'T6o', '95s', 'T3s',
    '76s', 'J3o', '87o', 'T2s', '85s', '96o', 'J2o', 'T5o', '94s', '75s', 'T4o', '93s', '86o', '65s', '84s', '95o',
    'T3o', '92s', '76o', '74s', 'T2o', '54s', '85o', '64s', '83s', '94o', '75o', '82s', '73s', '93o', '65o', '53s',
    '63s', '84o', '92o', '43s', '74o', '72s', '54o', '64o', '52s', '62s', '83o', '42s', '82o', '73o', '53o', '63o',
    '32s', '43o', '72o', '52o', '62o', '42o', '32o'
)

_RANK = "23456789TJQKA"
_HANDTYPE = r"[2-9TJQKA]{2}[so]?"
_TOKEN = re.compile(
    rf"(?P<hand>[2-9TJQKA][CDHS][2-9TJQKA][CDHS])|(?P<low>{_HANDTYPE})(?:(?P<plus>\+)|-(?P<high>{_HANDTYPE}))?",
    re.IGNORECASE,
)
_WEIGHT = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(%?)\(")
_PERCENT = re.compile(r"(?:top ?)?(\d+(?:\.\d*)?|\.\d+)%", re.IGNORECASE)
_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_BRACKET = re.compile(rf"\[{_NUMBER}\]")
_CLOSE_BRACKET = re.compile(rf"\[/{_NUMBER}\]")
_SUFFIX = re.compile(rf":{_NUMBER}")
_DELIMITER = re.compile(r"[,()\[:]")
_EXPECTED = ("expected notation like 'QQ+,AKs,KTo-K8o', a hand like 'AhKh', a share like '15%' or a weight like "
             "'0.5(AA,KK)', 'AA:0.5' or '[50]AA,KK[/50]'")


def _fail(text: str, why: str) -> RangeError:
    return RangeError(f"The range {text!r} {why}.")


def _class_hands(high: int, low: int, suitedness: str) -> list[tuple[int, int]]:
    """Card-id pairs of one class: ranks ``high`` >= ``low``, suitedness 's', 'o', '' (both) or pair."""
    if high == low:
        return [(s2 * 13 + high, s1 * 13 + low) for s1 in range(4) for s2 in range(s1 + 1, 4)]
    return [(s1 * 13 + high, s2 * 13 + low) for s1 in range(4) for s2 in range(4)
            if (s1 == s2 and suitedness != "o") or (s1 != s2 and suitedness != "s")]


def _handtype(token: str) -> tuple[int, int, str]:
    high, low = sorted((_RANK.index(token[0].upper()), _RANK.index(token[1].upper())), reverse=True)
    suitedness = token[2:].lower()
    return high, low, suitedness


@lru_cache(maxsize=64)
def percent_range(percent: float) -> tuple[tuple[int, int], ...]:
    """The hands of the share ``percent`` % (0 < percent <= 100) of the strongest, by :data:`PREFLOP_ORDER`.

    Whole classes, strongest first: a class is in when at least half of its hands fall within the share.

    >>> len(percent_range(10)), len(percent_range(100))
    (134, 1326)
    """
    if not 0 < percent <= 100:
        raise RangeError(f"The share {percent:g}% is out of range; expected a percentage above 0 and at most 100.")
    hands: list[tuple[int, int]] = []
    above = 0
    for name in PREFLOP_ORDER:
        high, low, suitedness = _handtype(name)
        members = _class_hands(high, low, suitedness)
        if above + len(members) / 2 <= percent / 100 * N_HANDS:
            hands += members
        above += len(members)
    return tuple(hands)


def _expand(text: str, token: str) -> list[tuple[int, int]]:
    """The hands one token names, as card-id pairs."""
    share = _PERCENT.fullmatch(token)
    if share is not None:
        percent = float(share[1])
        if not 0 < percent <= 100:
            raise _fail(text, f"asks for the share {token!r}; expected a percentage above 0 and at most 100")
        return list(percent_range(percent))
    match = _TOKEN.fullmatch(token)
    if match is None:
        hint = " (write T for ten)" if "10" in token else ""
        raise _fail(text, f"cannot be parsed at {token!r}{hint}; {_EXPECTED}")
    if match["hand"]:
        try:
            a, b = parse_cards(token, count=2)
        except CardError:
            raise _fail(text, f"repeats a card in {token!r}; expected two distinct cards") from None
        return [(a, b)]
    high, low, suitedness = _handtype(match["low"])
    if high == low and suitedness:
        raise _fail(text, f"gives the pair {match['low']!r} a suitedness; pairs are written like 'QQ'")
    if match["plus"]:
        lows = range(low, 13) if high == low else range(low, high)
        return [hand for rank in lows for hand in _class_hands(rank if high == low else high, rank, suitedness)]
    if match["high"]:
        top, top_low, top_suitedness = _handtype(match["high"])
        pair, top_pair = high == low, top == top_low
        if pair != top_pair or suitedness != top_suitedness or (not pair and top != high):
            raise _fail(text, f"has the span {token!r} between different kinds of hands; expected like 'JJ-99' or 'KTo-K8o'")
        first, last = sorted((low, top_low))
        return [hand for rank in range(first, last + 1) for hand in _class_hands(rank if pair else high, rank, suitedness)]
    return _class_hands(high, low, suitedness)


def _weight(text: str, number: str, scale: float, written: str, expected: str) -> float:
    """A group's or an entry's weight: ``number`` / ``scale``, checked to be 0 or between MIN_WEIGHT and 1."""
    weight = float(number) / scale
    if not weight <= 1.0:
        raise _fail(text, f"gives the weight {_cut(written)!r}; expected {expected}")
    if 0.0 < weight < MIN_WEIGHT:  # products and sums of such weights underflow: answers off the exact value
        raise _fail(text, f"gives the weight {_cut(written)!r}; expected 0 or a weight of at least "
                          f"{MIN_WEIGHT:g} (smaller ones cannot be counted exactly)")
    return weight


def _tokens(text: str) -> Iterator[tuple[str, float, int | None]]:
    """Yield (token, weight, group) of a range text, in one pass; ``group`` numbers the weighted groups and entries
    (None for an entry without a weight)."""
    position, end = 0, len(text)
    groups = 0
    while True:
        while position < end and text[position] == " ":
            position += 1
        weight = 1.0
        closing = None
        group = None
        opened = ""
        match = _WEIGHT.match(text, position)
        bracket = None if match else _BRACKET.match(text, position)
        if match:
            weight = _weight(text, match[1], 100.0 if match[2] else 1.0, match[1] + match[2],
                             "a weight between 0 and 1 (or 0% and 100%)")
            closing, position = ")", match.end()
        elif bracket:  # GTO+'s and Flopzilla's '[50]AA,KK[/50]', in percent
            weight = _weight(text, bracket[1], 100.0, bracket[0],
                             "a percentage between 0 and 100 in a bracket like '[50]AA,KK[/50]'")
            closing, opened, position = "]", bracket[0], bracket.end()
        if closing is not None:
            group = groups
            groups += 1
        while True:
            while position < end and text[position] == " ":
                position += 1
            found = _DELIMITER.search(text, position)
            stop = found.start() if found else end
            token = text[position:stop]
            if token.rstrip(" ") != token and token.strip(" "):
                raise _fail(
                    text,
                    f"has a space after {token.strip(' ')!r}; a token ends at a comma "
                    "(in a URL, write '+' as %2B: an unencoded '+' arrives as a space)",
                )
            if not token or (" " in token and not _PERCENT.fullmatch(token)):
                raise _fail(text, f"cannot be parsed at {text[position:stop + 1]!r}; {_EXPECTED}")
            position = stop
            if position < end and text[position] == ":":  # PioSOLVER's and GTO Wizard's 'AA:0.5'
                suffix = _SUFFIX.match(text, position)
                if suffix is None:
                    raise _fail(text, f"cannot be parsed at {text[position - len(token):position + 6]!r}; expected a "
                                      f"weight between 0 and 1 after the colon, like 'AA:0.5'")
                if closing is not None:
                    raise _fail(text, f"gives {token + suffix[0]!r} a weight inside a weighted group; expected one "
                                      "weight per entry, like '0.5(AA,KK)' or 'AA:0.5,KK:0.5'")
                yield token, _weight(text, suffix[1], 1.0, token + suffix[0],
                                     "a weight between 0 and 1 after the colon, like 'AA:0.5'"), groups
                groups += 1
                position = suffix.end()
            else:
                yield token, weight, group
            if closing is None or position >= end or text[position] != ",":
                break
            position += 1
        if closing == ")":
            if position >= end or text[position] != ")":
                raise _fail(text, f"opens a weighted group that does not close; {_EXPECTED}")
            position += 1
        elif closing == "]":
            shut = _CLOSE_BRACKET.match(text, position)
            if shut is None:
                raise _fail(text, f"opens the bracket {opened!r} that does not close; expected "
                                  f"'[/{opened[1:-1]}]' after its hands, like '[50]AA,KK[/50]'")
            if float(shut[1]) != float(opened[1:-1]):
                raise _fail(text, f"closes the bracket {opened!r} with {shut[0]!r}; expected '[/{opened[1:-1]}]'")
            position = shut.end()
        while position < end and text[position] == " ":
            position += 1
        if position >= end:
            return
        if text[position] != ",":
            raise _fail(text, f"cannot be parsed at {text[position:position + 10]!r}; {_EXPECTED}")
        position += 1


@lru_cache(maxsize=512)  # services see the same few ranges again and again
def _parse(text: str) -> np.ndarray:
    if not text.strip():
        raise RangeError(f"The range {text!r} is empty; expected at least one hand, like 'QQ+,AKs,KQo'.")
    if len(text) > MAX_RANGE_TEXT:
        raise RangeError(f"The range text is {len(text):,} characters long; expected at most {MAX_RANGE_TEXT:,}.")
    weights = np.zeros(N_HANDS)
    listed = _listed_hands(text)
    if listed is not None:
        weights[listed] = 1.0
        weights.flags.writeable = False
        return weights
    named_by: dict[int, str] = {}
    for token, weight, _ in _tokens(text):
        for a, b in _expand(text, token):
            position = hand_position(a, b)
            if position in named_by:
                if weights[position] == weight:
                    continue  # the same hand again with the same weight: one hand
                first, second = sorted([(named_by[position], weights[position]), (token, weight)], key=lambda e: text.find(e[0]))
                raise _fail(
                    text, f"gives {format_cards(_high_first(a, b))} two weights, {first[1]:g} in {first[0]!r} and "
                    f"{second[1]:g} in {second[0]!r}; expected one weight per hand"
                )
            named_by[position] = token
            weights[position] = weight
    if not weights.any():
        raise RangeError(f"The range {text!r} holds no hand with a positive weight.")
    weights.flags.writeable = False
    return weights


@lru_cache(maxsize=1)
def _hand_texts() -> dict[str, int]:
    """Every hand written as two cards in upper case, in either order, with its position in hand_order()."""
    return {
        (format_cards([a]) + format_cards([b])).upper(): hand_position(a, b) for a in range(52) for b in range(52) if a != b
    }


def _listed_hands(text: str) -> list[int] | None:
    """The positions of a range written as distinct hands and commas only (``AhKh,QsQd``), else None.

    The fast path for the longest ranges a client sends, every hand written
    out: a dictionary lookup per hand instead of the general tokenizer (1,326
    hands in about 0.2 ms instead of 3). Anything else, errors included, takes
    the general path, which also words the error.
    """
    if "(" in text or " " in text:
        return None
    known = _hand_texts()
    positions = [known.get(token) for token in text.upper().split(",")]
    if None in positions or len(set(positions)) != len(positions):
        return None
    return [p for p in positions if p is not None]


def _high_first(a: int, b: int) -> tuple[int, int]:
    high, low = sorted((a, b), key=lambda c: (c % 13, c // 13), reverse=True)
    return high, low


def parse_range(text: str) -> list[tuple[int, int, float]]:
    """The hands of a range text as (card id, card id, weight), weights > 0, in :func:`matchdb.hand_order`.

    Each hand comes with its higher rank first (``QsQc``).
    """
    if not isinstance(text, str):
        raise RangeError(f"The range {text!r} is not text; expected notation like 'QQ+,AKs,KQo'.")
    weights = _parse(text)
    return [(*_high_first(int(HAND_HIGH[i]), int(HAND_LOW[i])), float(weights[i])) for i in np.flatnonzero(weights)]


def _from_hands(items: list[str | Iterable[str | int | Card]]) -> np.ndarray:
    weights = np.zeros(N_HANDS)
    for item in items:
        a, b = parse_cards(item, count=2)
        weights[hand_position(a, b)] = 1.0  # a hand listed twice is one hand
    return weights


def _from_vector(values: np.ndarray) -> np.ndarray:
    if values.shape != (N_HANDS,):
        raise RangeError(f"A weight vector must have 1,326 entries, one per hand in hand_order(); got shape {values.shape}.")
    if not np.isfinite(values).all() or (values < 0).any():
        raise RangeError("A weight vector must be finite and non-negative.")
    if values.max() > MAX_VECTOR_WEIGHT:
        raise RangeError(f"A weight vector holds {values.max():g}; expected weights of at most {MAX_VECTOR_WEIGHT:g}.")
    tiny = values[(values > 0) & (values < MIN_WEIGHT)]
    if tiny.size:
        raise RangeError(f"A weight vector holds {tiny[0]:g}; expected 0 or weights of at least {MIN_WEIGHT:g} "
                         "(smaller ones cannot be counted exactly).")
    return values


_EVERY_HAND = np.ones(N_HANDS)
_EVERY_HAND.flags.writeable = False


def range_weights(spec: object) -> np.ndarray:
    """The weight of every hand, in :func:`matchdb.hand_order`, of a range given in any accepted form.

    ``spec`` is range text (``"random"`` or ``None`` for any hand), a list of
    hands (text like ``"AhKh"`` or pairs of cards, weight 1 each), or 1,326
    weights. The result is read-only; it may be all zeros only for a vector.

    >>> float(range_weights(None).sum()), float(range_weights(["AhKh", "QsQd"]).sum())
    (1326.0, 2.0)
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "random"):
        return _EVERY_HAND
    if isinstance(spec, str):
        return _parse(spec)
    if hasattr(spec, "hand_weights"):  # an opponent model's class weights (matchdb.equity.opponents)
        weights = _from_vector(np.asarray(spec.hand_weights(), dtype=np.float64))
        weights.flags.writeable = False
        return weights
    if isinstance(spec, (bytes, bytearray, dict, Card, int, float, np.generic)) or not isinstance(spec, Iterable):
        raise RangeError(
            f"The range {_shown(spec)} is neither text like 'QQ+,AKs', a list of hands, 1,326 weights nor an opponent model."
        )
    items = list(spec)
    if not items:
        raise RangeError("The list of hands is empty; expected at least one hand like 'AhKh'.")
    if all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in items):
        weights = _from_vector(np.asarray(items, dtype=np.float64))
    else:
        weights = _from_hands(items)
    weights.flags.writeable = False
    return weights


def _cut(text: str) -> str:
    """A long number as a message quotes it: its first and last digits."""
    return text if len(text) <= 24 else f"{text[:12]}...{text[-8:]}"


def _shown(spec: object) -> str:
    """``repr(spec)``, cut short: a message quotes what arrived, not all of it."""
    text = repr(spec)
    return text if len(text) <= 60 else f"{text[:57]}..."


def describe_range(spec: object) -> str:
    """How an answer names a range: its canonical text, ``'random'``, the hands of a list, an opponent model's name,
    or ``'1326 weights'``.

    >>> describe_range(None), describe_range("qq+, aks"), describe_range(["AhKh", "QsQd"])
    ('random', 'QQ+,AKs', 'AhKh,QsQd')
    """
    if spec is None:
        return "random"
    if isinstance(spec, str):
        return canonical_range(spec)
    if hasattr(spec, "hand_weights"):
        return getattr(spec, "name", "") or "class weights"
    items = list(spec)  # type: ignore[call-overload]  # a list of hands or of weights, as range_weights takes
    if items and all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in items):
        return f"{len(items)} weights"
    return ",".join(hand_order()[hand_position(*parse_cards(item, count=2))] for item in items)



def _canonical_token(token: str) -> str:
    """One entry written the usual way: ranks upper case, suits and 's'/'o' lower, the higher card or class first."""
    share = _PERCENT.fullmatch(token)
    if share is not None:
        return f"{float(share[1]):g}%"
    match = _TOKEN.fullmatch(token)
    assert match is not None, token  # only tokens that parsed come here
    if match["hand"]:
        return format_cards(_high_first(*parse_cards(token, count=2)))

    def handtype(part: str) -> str:
        high, low, suitedness = _handtype(part)
        return _RANK[high] + _RANK[low] + suitedness

    low = handtype(match["low"])
    if match["plus"]:
        return low + "+"
    if match["high"]:
        high = handtype(match["high"])
        first, second = sorted((low, high), key=lambda t: (_RANK.index(t[0]), _RANK.index(t[1])), reverse=True)
        return f"{first}-{second}"
    return low


@lru_cache(maxsize=512)
def canonical_range(text: str) -> str:
    """A valid range text written the usual way, entry by entry, in the order given (see the module docstring).

    >>> canonical_range(" ak, 99-jj, 50%(54s,5h4d), Top 3.5%")
    'AK,JJ-99,0.5(54s,5h4d),3.5%'
    """
    if text.strip().lower() == "random":
        return "random"
    listed = _listed_hands(text)
    if listed is not None:  # hands written out (the longest ranges clients send): a lookup per hand
        names = hand_order()
        return ",".join(names[position] for position in listed)
    _parse(text)  # checks it
    parts: list[str] = []
    open_group = None
    for token, weight, group in _tokens(text):
        entry = _canonical_token(token)
        if weight == 1.0:
            group = None  # '1(AA,KK)' is 'AA,KK'
        if group is not None and group == open_group:
            parts[-1] = parts[-1][:-1] + "," + entry + ")"
        elif group is not None and weight != 1.0:
            parts.append(f"{weight:.15g}({entry})")  # as given, to 15 digits (a solver's weights have many)
        else:
            parts.append(entry)
        open_group = group
    return ",".join(parts)
