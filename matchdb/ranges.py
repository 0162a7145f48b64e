"""Ranges of private hands: the usual notation, parsed by eval7's ``HandRange``.

We use eval7's parser rather than writing one: it is maintained, handles
``QQ+``, ``A2s+``, ``KTo-K8o``, explicit hands like ``AhKh`` and weights like
``0.5(AA)``, and is already an evaluator people trust.

>>> hands = parse_range("QQ+,AKs")
>>> len(hands), hands[0]
(22, (23, 10, 1.0))
>>> parse_range("AK,XX")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The range 'AK,XX' cannot be parsed; expected notation like 'QQ+,AKs,KQo' or '0.5(AA),KK'.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

from matchdb.cards import parse_card
from matchdb.errors import RangeError

__all__ = ["parse_range"]


def parse_range(text: str) -> list[tuple[int, int, float]]:
    """Return the hands of a range as (card id, card id, weight), weights > 0."""
    if not isinstance(text, str):
        raise RangeError(f"The range {text!r} is not text; expected notation like 'QQ+,AKs,KQo'.")
    return list(_parse(text))


@lru_cache(maxsize=512)  # a full range takes eval7 about 15 ms to parse; services see the same few again and again
def _parse(text: str) -> tuple[tuple[int, int, float], ...]:
    if not text.strip():
        raise RangeError(f"The range {text!r} is empty; expected at least one hand, like 'QQ+,AKs,KQo'.")
    with warnings.catch_warnings():  # eval7 builds its grammar with names pyparsing now deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7

        try:
            parsed = eval7.HandRange(text.replace(" ", "")).hands
        except Exception:  # eval7 raises its own RangeStringError
            raise RangeError(
                f"The range {text!r} cannot be parsed; expected notation like 'QQ+,AKs,KQo' or '0.5(AA),KK'."
            ) from None
    hands = [(parse_card(str(a)), parse_card(str(b)), float(w)) for (a, b), w in parsed if w > 0]
    if not hands:
        raise RangeError(f"The range {text!r} holds no hand with a positive weight.")
    return tuple(hands)
