"""Progress of long work: a bar on a terminal, a log line every few seconds otherwise.

``progress(items, total, "building", unit="table")`` wraps an iterable. On a
terminal (standard error is a TTY) it draws a tqdm bar with rate and ETA;
otherwise, as in a pipe, a log file or a batch job, it logs a line through
the ``matchdb`` logger every ``every`` seconds and at the end, which the
command line sends to standard error. ``enabled=False`` shows nothing.

>>> list(progress(range(3), 3, "counting", enabled=False))
[0, 1, 2]
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Generator, Iterable
from typing import TypeVar

__all__ = ["progress", "logger"]

logger = logging.getLogger("matchdb")
T = TypeVar("T")


def progress(items: Iterable[T], total: int, what: str, unit: str = "item", enabled: bool = True, every: float = 5.0) -> Generator[T, None, None]:
    """Yield ``items``, showing progress as described in the module docstring."""
    if not enabled:
        yield from items
        return
    if sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(items, total=total, desc=what, unit=unit, file=sys.stderr)
        return
    started = last = time.monotonic()
    done = 0
    for item in items:
        yield item
        done += 1
        now = time.monotonic()
        if now - last >= every and done < total:
            rate = done / (now - started)
            logger.info("%s: %d/%d %ss, %.1f/s, about %.0f s left", what, done, total, unit, rate, (total - done) / rate)
            last = now
    logger.info("%s: %d/%d %ss in %.1f s", what, done, total, unit, time.monotonic() - started)
