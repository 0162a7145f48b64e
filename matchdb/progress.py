"""Progress of long work: a bar on a terminal, a log line every few seconds otherwise.

``progress(items, total, "building", unit="table")`` wraps an iterable. On a
terminal (standard error is a TTY) it draws a tqdm bar with rate and ETA;
otherwise, as in a pipe, a log file or a batch job, it logs a line through
the ``matchdb`` logger every ``every`` seconds and at the end, which the
command line sends to standard error. ``enabled=False`` shows nothing.

The time left (:func:`time_left`) is the pace of the work since the first
item was done: the seconds before it (a Dask cluster starting, kernels
loading) are not the pace of the work. Counted from the start, a full
build's first line said "about 10282 s left" for about 80 s of work.

>>> list(progress(range(3), 3, "counting", enabled=False))
[0, 1, 2]
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Generator, Iterable
from typing import TypeVar

__all__ = ["LEAST_FOR_ESTIMATE", "logger", "progress", "time_left"]

logger = logging.getLogger("matchdb")
T = TypeVar("T")

#: Items done after the first one before the time left is estimated.
LEAST_FOR_ESTIMATE = 3


def time_left(done: int, total: int, first_at: float, now: float, least: int = LEAST_FOR_ESTIMATE) -> float | None:
    """Seconds left for ``total`` items when ``done`` are done, the first at time ``first_at``, now ``now``; None
    until ``least`` items are done after the first (a pace needs them) or when no time has passed.

    >>> time_left(101, 1755, first_at=6.0, now=11.0)     # 100 items in the 5 s since the first: 20 a second
    82.7
    >>> time_left(2, 1755, first_at=6.0, now=6.5) is None
    True
    """
    after_first = done - 1
    elapsed = now - first_at
    if after_first < least or elapsed <= 0:
        return None
    return (total - done) * elapsed / after_first


def progress(items: Iterable[T], total: int, what: str, unit: str = "item", enabled: bool = True, every: float = 5.0,
             clock: Callable[[], float] = time.monotonic) -> Generator[T, None, None]:
    """Yield ``items``, showing progress as described in the module docstring (``clock`` gives the time in seconds)."""
    if not enabled:
        yield from items
        return
    if sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(items, total=total, desc=what, unit=unit, file=sys.stderr)
        return
    started = last = clock()
    first_at: float | None = None
    done = 0
    for item in items:
        yield item
        done += 1
        now = clock()
        if first_at is None:
            first_at = now
        if now - last >= every and done < total:
            left = time_left(done, total, first_at, now)
            if left is None:
                logger.info("%s: %d/%d %ss, the first after %.1f s; the time left comes with the next ones",
                            what, done, total, unit, first_at - started)
            else:
                logger.info("%s: %d/%d %ss, %.3g/s, about %.0f s left", what, done, total, unit,
                            (done - 1) / (now - first_at), left)
            last = now
    logger.info("%s: %d/%d %ss in %.1f s", what, done, total, unit, clock() - started)
