"""Bet and raise sizes written the way solver users write them, parsed into :class:`BetSize`.

A list of sizes is comma-separated text; each size ends in one of these
characters (upper or lower case):

- ``%``: a share of the pot, ``"75%"`` (for a raise: the pot after calling, added to the last bet);
- ``x``: a multiple of the last bet, raises only, ``"2.5x"`` (more than 1);
- ``c``: a number of chips, ``"100c"``; for a raise ``"20c3r"`` also caps the raises at 3 (limit poker);
- ``e``: the geometric size that gets all-in in equal shares of the pot by the river: ``"e"``
  (as many streets as are left: 3 on the flop, 2 on the turn, 1 on the river), ``"2e"``
  (over two streets), ``"e150%"`` (at most 150 % of the pot); for a raise, the raises
  already made on the street count as streets used;
- ``a``: all-in.

These are the meanings of postflop-solver's ``BetSizeOptions`` (``bet_size.rs``),
so trees built from the same text compare size for size.

>>> parse_sizes("33%, 75%, a")
(BetSize('33%'), BetSize('75%'), BetSize('a'))
>>> [str(s) for s in parse_sizes("2.5x, e, 20c3r", raise_=True)]
['2.5x', '20c3r', 'e']
>>> parse_sizes("2.5x")
Traceback (most recent call last):
...
matchdb.solver.sizes.SolverError: The bet size '2.5x' is a multiple of the last bet, which only a raise can be; expected a bet like '75%', 'e' or 'a'.
>>> parse_sizes("75")
Traceback (most recent call last):
...
matchdb.solver.sizes.SolverError: The bet size '75' does not parse; expected a share of the pot like '75%', a multiple of the last bet like '2.5x' (raises), chips like '100c', a geometric size like 'e' or '2e', or 'a' for all-in.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from matchdb.errors import MatchdbError

__all__ = ["SolverError", "BetSize", "parse_sizes", "sizes_text", "KINDS"]


class SolverError(MatchdbError):
    """A solver question is malformed: a bet size, a tree option, a node, a lock or a saved solution."""


#: The kinds of size, in the order a list of sizes is sorted (postflop-solver's order).
KINDS = ("pot", "prev", "chips", "geometric", "allin")

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_PATTERNS = {
    "pot": re.compile(rf"({_NUMBER})%"),
    "prev": re.compile(rf"({_NUMBER})x"),
    "chips": re.compile(rf"({_NUMBER})c(?:({_NUMBER})r)?"),
    "geometric": re.compile(rf"({_NUMBER})?e(?:({_NUMBER})%)?"),
    "allin": re.compile(r"a"),
}
_EXPECTED = (
    "expected a share of the pot like '75%', a multiple of the last bet like '2.5x' (raises), chips like '100c', "
    "a geometric size like 'e' or '2e', or 'a' for all-in"
)


@dataclass(frozen=True, order=True)
class BetSize:
    """One size: ``kind`` (one of :data:`KINDS`), ``value`` and, for some kinds, ``extra``.

    - ``pot``: ``value`` is the share of the pot (0.75 for ``75%``);
    - ``prev``: ``value`` is the multiple of the last bet;
    - ``chips``: ``value`` the chips, ``extra`` the raise cap (0: none);
    - ``geometric``: ``value`` the streets (0: those left), ``extra`` the largest share of the pot (inf: none);
    - ``allin``: no value.

    ``str()`` writes it back as text.
    """

    order: int
    value: float = 0.0
    extra: float = 0.0
    text: str = ""

    @property
    def kind(self) -> str:
        return KINDS[self.order]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"BetSize({self.text!r})"


def _plain(number: str) -> str:
    """A number as the text form writes it: no trailing zeros (``0.50`` is ``0.5``, ``3.0`` is ``3``)."""
    value = float(number)
    return str(int(value)) if value == int(value) else repr(value)


def _parse_one(text: str, raise_: bool) -> BetSize:
    what = "raise size" if raise_ else "bet size"
    s = text.strip().lower()
    found = next(((kind, m) for kind, pattern in _PATTERNS.items() if (m := pattern.fullmatch(s))), None)
    if found is None:
        raise SolverError(f"The {what} {text!r} does not parse; {_EXPECTED}.")
    kind, match = found
    if kind == "pot":
        share = float(match.group(1))
        if not math.isfinite(share):
            raise SolverError(f"The {what} {text!r} is not a finite share of the pot; {_EXPECTED}.")
        return BetSize(0, share / 100, 0.0, f"{_plain(match.group(1))}%")
    if kind == "prev":
        if not raise_:
            raise SolverError(
                f"The bet size {text!r} is a multiple of the last bet, which only a raise can be; expected a bet like '75%', 'e' or 'a'."
            )
        multiple = float(match.group(1))
        if not multiple > 1:
            raise SolverError(f"The raise size {text!r} is not more than the last bet; expected a multiple over 1, like '2.5x'.")
        return BetSize(1, multiple, 0.0, f"{_plain(match.group(1))}x")
    if kind == "chips":
        chips = float(match.group(1))
        if chips != int(chips) or chips >= 2**31:
            raise SolverError(f"The {what} {text!r} is not a whole number of chips below 2^31; expected one like '100c'.")
        cap = 0
        if match.group(2) is not None:
            if not raise_:
                raise SolverError(f"The bet size {text!r} caps raises, which only a raise size can; expected chips like '100c'.")
            cap_value = float(match.group(2))
            if cap_value != int(cap_value) or not 1 <= cap_value <= 100:
                raise SolverError(f"The raise size {text!r} caps raises at {match.group(2)}; expected a whole number 1..100, like '20c3r'.")
            cap = int(cap_value)
        shown = f"{int(chips)}c" + (f"{cap}r" if cap else "")
        return BetSize(2, float(int(chips)), float(cap), shown)
    if kind == "geometric":
        streets = 0
        if match.group(1) is not None:
            value = float(match.group(1))
            if value != int(value) or not 1 <= value <= 100:
                raise SolverError(f"The {what} {text!r} spreads over {match.group(1)} streets; expected a whole number 1..100, like '2e'.")
            streets = int(value)
        largest = math.inf if match.group(2) is None else float(match.group(2)) / 100
        shown = (str(streets) if streets else "") + "e" + ("" if match.group(2) is None else f"{_plain(match.group(2))}%")
        return BetSize(3, float(streets), largest, shown)
    return BetSize(4, 0.0, 0.0, "a")


def parse_sizes(sizes: str | Iterable[str] | None, raise_: bool = False) -> tuple[BetSize, ...]:
    """The sizes of comma-separated text (or a list of texts), sorted as postflop-solver sorts them.

    ``raise_`` says the sizes are raises (``x`` and a raise cap allowed). An
    empty text or None is no size at all. Each bad size raises
    :class:`SolverError` with one sentence that quotes it.

    >>> parse_sizes(" 75%, 33% ,")
    (BetSize('33%'), BetSize('75%'))
    >>> parse_sizes("")
    ()
    """
    if sizes is None:
        return ()
    if isinstance(sizes, str):
        parts = sizes.split(",")
        if parts and not parts[-1].strip():
            parts.pop()  # a trailing comma, as postflop-solver allows
    else:
        try:
            parts = [str(p) if isinstance(p, str) else p for p in sizes]
        except TypeError:
            raise SolverError(f"The sizes {sizes!r} are neither text like '33%, 75%, a' nor a list of such texts.") from None
        if not all(isinstance(p, str) for p in parts):
            raise SolverError(f"The sizes {sizes!r} are neither text like '33%, 75%, a' nor a list of such texts.")
    parsed = [_parse_one(p, raise_) for p in parts]
    return tuple(sorted(set(parsed)))


def sizes_text(sizes: Iterable[BetSize]) -> str:
    """Sizes written back as text, as :func:`parse_sizes` reads them.

    >>> sizes_text(parse_sizes("a, 50%"))
    '50%, a'
    """
    return ", ".join(str(s) for s in sizes)
