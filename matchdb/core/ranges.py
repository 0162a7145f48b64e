"""Ranges of private hands: the usual notation, a list of hands, or 1,326 weights, turned into weights.

Notation (PokerStove's, as eval7 reads it): comma-separated tokens, each a
hand (``AhKh``), a class (``QQ``, ``AKs``, ``AKo``, ``AK`` for both), a class
and all above it with the same top card (``QQ+``, ``A9s+``), a span
(``JJ-99``, ``KTo-K8o``), or a group with a weight, ``0.5(AA,KK)`` or
``50%(AA,KK)``. A weight is a hand's frequency, between 0 and 1 (0 % and
100 %); unweighted hands weigh 1. Ranks and suits may be upper or lower case;
spaces may follow a comma or a parenthesis but not end a token (in a URL an
unencoded ``+`` arrives as a space: write it ``%2B``). A hand named twice is
an error, whatever the order, so no answer depends on how a range is written.

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
>>> parse_range("AA,AsAh")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The range 'AA,AsAh' names AsAh twice ('AA' and 'AsAh'); expected each hand once.
>>> parse_range("QQ ,AKs")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The range 'QQ ,AKs' has a space after 'QQ'; a token ends at a comma (in a URL, write '+' as %2B: an unencoded '+' arrives as a space).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from matchdb.core.cards import Card, format_cards, parse_cards
from matchdb.errors import CardError, RangeError
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS, hand_order, hand_position

__all__ = ["MAX_RANGE_TEXT", "MAX_VECTOR_WEIGHT", "canonical_range_text", "parse_range", "range_weights", "describe_range"]

#: Longest range text accepted (every one of the 1,326 hands written out takes about 6,600).
MAX_RANGE_TEXT = 10_000
#: Largest entry of a weight vector (weights are relative; this keeps every sum exact in float64).
MAX_VECTOR_WEIGHT = 1e6

_RANK = "23456789TJQKA"
_HANDTYPE = r"[2-9TJQKA]{2}[so]?"
_TOKEN = re.compile(
    rf"(?P<hand>[2-9TJQKA][CDHS][2-9TJQKA][CDHS])|(?P<low>{_HANDTYPE})(?:(?P<plus>\+)|-(?P<high>{_HANDTYPE}))?",
    re.IGNORECASE,
)
_WEIGHT = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(%?)\(")
_DELIMITER = re.compile(r"[,()]")
_EXPECTED = "expected notation like 'QQ+,AKs,KTo-K8o', a hand like 'AhKh' or a weight like '0.5(AA,KK)'"


def _fail(text: str, why: str) -> RangeError:
    return RangeError(f"The range {text!r} {why}.")


def _class_hands(high: int, low: int, suitedness: str) -> list[tuple[int, int]]:
    """Card-id pairs of one class: ranks ``high`` >= ``low``, suitedness 's', 'o', '' (both) or pair."""
    if high == low:
        return [(s2 * 13 + high, s1 * 13 + low) for s1 in range(4) for s2 in range(s1 + 1, 4)]
    pairs = []
    for s1 in range(4):
        for s2 in range(4):
            if (s1 == s2 and suitedness != "o") or (s1 != s2 and suitedness != "s"):
                pairs.append((s1 * 13 + high, s2 * 13 + low))
    return pairs


def _handtype(token: str) -> tuple[int, int, str]:
    high, low = sorted((_RANK.index(token[0].upper()), _RANK.index(token[1].upper())), reverse=True)
    suitedness = token[2:].lower()
    return high, low, suitedness


def _expand(text: str, token: str) -> list[tuple[int, int]]:
    """The hands one token names, as card-id pairs."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        raise _fail(text, f"cannot be parsed at {token!r}; {_EXPECTED}")
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


def _tokens(text: str):
    """Yield (token, weight) pairs of a range text, in one pass."""
    position, end = 0, len(text)
    while True:
        while position < end and text[position] == " ":
            position += 1
        weight = 1.0
        closing = None
        match = _WEIGHT.match(text, position)
        if match:
            weight = float(match[1]) / (100.0 if match[2] else 1.0)
            if not weight <= 1.0:
                raise _fail(text, f"gives the weight {match[1] + match[2]!r}; expected a weight between 0 and 1 (or 0% and 100%)")
            position = match.end()
            closing = ")"
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
            if not token or " " in token:
                raise _fail(text, f"cannot be parsed at {text[position:stop + 1]!r}; {_EXPECTED}")
            yield token, weight
            position = stop
            if closing is None or position >= end or text[position] != ",":
                break
            position += 1
        if closing is not None:
            if position >= end or text[position] != ")":
                raise _fail(text, f"opens a weighted group that does not close; {_EXPECTED}")
            position += 1
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
    for token, weight in _tokens(text):
        for a, b in _expand(text, token):
            position = hand_position(a, b)
            if position in named_by:
                raise _fail(
                    text, f"names {format_cards(_high_first(a, b))} twice ({named_by[position]!r} and {token!r}); expected each hand once"
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
    return positions


def _high_first(a: int, b: int) -> tuple[int, int]:
    return tuple(sorted((a, b), key=lambda c: (c % 13, c // 13), reverse=True))


def parse_range(text: str) -> list[tuple[int, int, float]]:
    """The hands of a range text as (card id, card id, weight), weights > 0, in :func:`matchdb.hand_order`.

    Each hand comes with its higher rank first (``QsQc``).
    """
    if not isinstance(text, str):
        raise RangeError(f"The range {text!r} is not text; expected notation like 'QQ+,AKs,KQo'.")
    weights = _parse(text)
    return [(*_high_first(int(HAND_HIGH[i]), int(HAND_LOW[i])), float(weights[i])) for i in np.flatnonzero(weights)]


def _from_hands(items: list) -> np.ndarray:
    weights = np.zeros(N_HANDS)
    for item in items:
        a, b = parse_cards(item, count=2)
        position = hand_position(a, b)
        if weights[position]:
            raise RangeError(f"The list of hands names {format_cards(_high_first(a, b))} twice; expected each hand once.")
        weights[position] = 1.0
    return weights


def _from_vector(values: np.ndarray) -> np.ndarray:
    if values.shape != (N_HANDS,):
        raise RangeError(f"A weight vector must have 1,326 entries, one per hand in hand_order(); got shape {values.shape}.")
    if not np.isfinite(values).all() or (values < 0).any():
        raise RangeError("A weight vector must be finite and non-negative.")
    if values.max() > MAX_VECTOR_WEIGHT:
        raise RangeError(f"A weight vector holds {values.max():g}; expected weights of at most {MAX_VECTOR_WEIGHT:g}.")
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
    if isinstance(spec, (bytes, bytearray, dict, Card, int, float, np.generic)) or not isinstance(spec, Iterable):
        raise RangeError(f"The range {spec!r} is neither text like 'QQ+,AKs', a list of hands nor 1,326 weights.")
    items = list(spec)
    if not items:
        raise RangeError("The list of hands is empty; expected at least one hand like 'AhKh'.")
    if all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in items):
        weights = _from_vector(np.asarray(items, dtype=np.float64))
    else:
        weights = _from_hands(items)
    weights.flags.writeable = False
    return weights


def _canonical_token(token: str) -> str:
    """One token written the usual way (``kas`` -> ``AKs``, ``ahkh`` -> ``AhKh``, a hand's cards kept in order); anything else unchanged."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return token
    if match["hand"]:
        return token[0].upper() + token[1].lower() + token[2].upper() + token[3].lower()
    parts = [match["low"]] + ([match["high"]] if match["high"] else [])
    written = []
    for part in parts:
        high, low, suitedness = _handtype(part)
        written.append(_RANK[high] + _RANK[low] + suitedness)
    return written[0] + ("+" if match["plus"] else "") + ("-" + written[1] if match["high"] else "")


def canonical_range_text(text: str) -> str:
    """Range text as answers echo it: ranks upper case, suits and ``s``/``o`` lower case, a class's high rank first, no spaces.

    Only the case, the order of a class's two ranks and the spaces change;
    every token and weight stays as written.

    >>> canonical_range_text("qq+, kas, 0.5(t9S,99-jj), khah")
    'QQ+,AKs,0.5(T9s,99-JJ),KhAh'
    """
    pieces = re.split(r"([,()])", text)
    return "".join(piece if piece in ",()" else _canonical_token(piece.strip()) for piece in pieces)


def describe_range(spec: object) -> str:
    """How an answer names a range: its text in canonical form, ``'random'``, the hands of a list, or ``'1326 weights'``.

    Range text is echoed as it is usually written (:func:`canonical_range_text`),
    whatever the case and spacing it was typed in.

    >>> describe_range(None), describe_range("qq+, aks"), describe_range(["AhKh", "QsQd"])
    ('random', 'QQ+,AKs', 'AhKh,QsQd')
    """
    if spec is None:
        return "random"
    if isinstance(spec, str):
        return canonical_range_text(spec) if spec.strip().lower() != "random" else "random"
    items = list(spec)
    if items and all(isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool) for w in items):
        return f"{len(items)} weights"
    return ",".join(hand_order()[hand_position(*parse_cards(item, count=2))] for item in items)

