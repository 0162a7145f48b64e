"""The checks every equity function makes of its input, each written once with one error type and one message.

The equity modules work in one table's frame (:mod:`matchdb.core.pairs`): a
decoded (1176, 1176) uint16 W matrix, a hero row, and weights on the 1,176
rows. Each is checked here and nowhere else, so the same mistake always gets
the same sentence, whichever function it reaches:

- a table: :func:`check_table` (:class:`~matchdb.errors.MatchdbError`: a table is
  the caller's data, not a question's);
- a row: :func:`check_row` (:class:`~matchdb.errors.MatchdbError`);
- weights on the rows: :func:`check_weights` (:class:`~matchdb.errors.RangeError`:
  weights are a range);
- a range with no possible hand, in the words of the question that gave it:
  :func:`check_possible` (:class:`~matchdb.errors.RangeError`), which the query
  layer calls with the range as the user wrote it.

Tables and weights come back read-only (:func:`read_only`: the kernels never write
them, and numba compiles a kernel once per combination of writable and
read-only arrays it meets, so one kind means one compilation).

>>> check_weights(np.zeros(1176), "villain range")
Traceback (most recent call last):
...
matchdb.errors.RangeError: The villain range has no hand with a positive weight; expected at least one possible hand.
>>> check_possible(np.zeros(1326), "range 'AA'", "AhAdAc")
Traceback (most recent call last):
...
matchdb.errors.RangeError: No hand of the range 'AA' is possible on the board 'AhAdAc'.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from matchdb.core.pairs import N_PAIRS
from matchdb.errors import MatchdbError, RangeError

__all__ = ["MAX_SAMPLES", "SAMPLES_HELP", "read_only", "check_table", "check_row", "check_weights", "check_possible", "check_samples", "is_uniform"]


def read_only(array: np.ndarray) -> np.ndarray:
    """``array`` as a read-only view (no copy); an array already read-only as it is.

    >>> read_only(np.zeros(2)).flags.writeable
    False
    """
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


def check_table(table: object) -> np.ndarray:
    """Return ``table`` as a read-only view (:func:`read_only`) after checking it is a decoded match table: a
    (1176, 1176) uint16 array.

    >>> check_table(np.zeros((3, 3)))
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: A match table must be a (1176, 1176) uint16 array; got (3, 3) float64.
    """
    if not isinstance(table, np.ndarray) or table.shape != (N_PAIRS, N_PAIRS) or table.dtype != np.uint16:
        shape = getattr(table, "shape", None)
        dtype = getattr(table, "dtype", type(table).__name__)
        raise MatchdbError(f"A match table must be a ({N_PAIRS}, {N_PAIRS}) uint16 array; got {shape} {dtype}.")
    return read_only(table)


def check_row(row: object, rows: int = N_PAIRS) -> int:
    """Return ``row`` as an int after checking it is a row index 0..``rows`` - 1.

    >>> check_row(1176)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: Row 1176 is out of range; expected an integer 0..1175.
    """
    if isinstance(row, bool) or not hasattr(row, "__index__") or not 0 <= row.__index__() < rows:
        raise MatchdbError(f"Row {row!r} is out of range; expected an integer 0..{rows - 1}.")
    index: int = row.__index__()
    return index


def check_weights(weights: object, what: str = "opponent weights", empty: bool = False) -> np.ndarray:
    """Return weights on the 1,176 rows as a contiguous, read-only float64 array after checking them.

    They must be 1,176 finite, non-negative numbers, at least one positive
    unless ``empty`` allows none (a range that no hand of a board can hold);
    ``what`` names them in the message (``"villain range"``, ``"range of opponent 2"``).

    >>> check_weights([1.0, 2.0])
    Traceback (most recent call last):
    ...
    matchdb.errors.RangeError: The opponent weights must be 1176 row weights; got shape (2,).
    """
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (N_PAIRS,):
        raise RangeError(f"The {what} must be {N_PAIRS} row weights; got shape {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise RangeError(f"The {what} must have finite, non-negative weights; got a negative or non-finite entry.")
    if not empty and not w.any():
        raise RangeError(f"The {what} has no hand with a positive weight; expected at least one possible hand.")
    return read_only(w)


def is_uniform(weights: np.ndarray) -> bool:
    """True when every row has the same weight: a uniformly random hand."""
    return bool(weights.min() == weights.max())


def check_possible(weights: np.ndarray, name: str, board: str | None = None) -> np.ndarray:
    """Return ``weights`` (a range's weights in any frame) after checking that one of its hands can be dealt.

    ``name`` says which range, as the question wrote it (``"range 'QQ+'"``,
    ``"hero range 'JJ-99'"``, ``"range 'AA' of opponent 2"``); ``board`` the
    board it must fit beside.
    """
    if not np.any(weights):
        where = f" on the board {board!r}" if board is not None else ""
        raise RangeError(f"No hand of the {name} is possible{where}.")
    return weights


#: Most sampled partial deals a question may ask for (per hero hand): ten million take seconds to a minute.
MAX_SAMPLES = 10_000_000
#: What ``samples`` means and its defaults, as the command line's help and the HTTP reference say it.
SAMPLES_HELP = ("sampled partial deals per hero hand, rounded up to whole visits to every runout, two at least (so "
                "at least 2,162 on a flop); default for a hand: as many as a standard error of 0.0005 needs; 2,352 per "
                "hand of a hero range; before the flop 262,144 deals, rounded up to a multiple of 8,192")


def check_samples(samples: Any) -> int | None:
    """``samples`` as an int, None kept (the default); anything but a whole number 1..:data:`MAX_SAMPLES` refused.

    >>> check_samples(10_000), check_samples(None)
    (10000, None)
    >>> check_samples(10**30)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The number of samples 1000000000000000000000000000000 is out of range; expected 1..10,000,000.
    """
    if samples is None:
        return None
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise MatchdbError(f"The number of samples {samples!r} is not a positive whole number.")
    if not 1 <= samples <= MAX_SAMPLES:
        shown = str(int(samples)) if len(str(int(samples))) <= 40 else f"{str(int(samples))[:37]}..."
        raise MatchdbError(f"The number of samples {shown} is out of range; expected 1..{MAX_SAMPLES:,}.")
    return int(samples)
