"""What a question will cost, estimated before any work starts: refused beyond a bound, heavy ones set apart.

Each estimate is the seconds of one core that the question's parts take on
a 2-core machine (measured: a sampled partial deal costs about a microsecond
per opponent, an exact count against up to three random opponents (or one
or two ranges) 8 ms per hero hand, against three ranges 0.15 s, a report a few seconds plus up to 20 s for a
range of every hand). A question estimated over :data:`MAX_WORK_SECONDS` is
refused with :class:`matchdb.errors.WorkLimitError` (HTTP 413) naming the bound;
one over :data:`HEAVY_SECONDS` is heavy: the service answers it in a small
pool of worker processes that is stopped when its deadline passes or its
client goes away (:mod:`matchdb.service.pool`).

>>> multiway_cost("AhKh", "2c7dJh", ["random"] * 6, "sample", 1_000_000)
Cost(seconds=6.0, what='1,000,000 samples x 6 opponents x 1 hero hand')
>>> multiway_cost("AhKh", "2c7dJh", ["random"] * 3, "auto", None).heavy
False
>>> check(multiway_cost("random", "2c7dJh", ["random"] * 6, "sample", 100_000))
Traceback (most recent call last):
...
matchdb.errors.WorkLimitError: The question would take about 796 s of work (100,000 samples x 6 opponents x 1,326 hero hands); expected at most 30 s: ask for fewer samples, opponents or hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from matchdb.core.hole_cards import N_HANDS
from matchdb.core.ranges import range_weights
from matchdb.equity.multiway import DEFAULT_SAMPLES, MAX_EXACT_UNKNOWN, check_samples
from matchdb.errors import MatchdbError, WorkLimitError

__all__ = [
    "CHEAP",
    "HEAVY_SECONDS",
    "MAX_WORK_SECONDS",
    "Cost",
    "check",
    "multiway_cost",
    "report_cost",
    "total_cost",
]

#: Most estimated work one request may ask for (a batch: all its queries together), in seconds of one core.
MAX_WORK_SECONDS = 30.0
#: Questions estimated at this much work or more are heavy: answered in the pool of worker processes.
HEAVY_SECONDS = 0.05

#: One sampled partial deal against one opponent.
SAMPLE_SECONDS = 1e-6
#: An exact count against up to three random opponents (or one or two ranges), per hero hand; against three ranges.
EXACT_SECONDS = 0.008
#: A hero range against one ranged opponent: the two ranges' rows compared (``range_vs_range``, as ``db.multiway``
#: answers it: about 10 ms for any two ranges on a flop).
RANGES_HEADS_UP_SECONDS = 0.04
EXACT_RANGE_SECONDS = 0.15
#: Four or five opponents that are not known hands, per hero hand: ``auto`` (enumerates at most
#: 20,000 partial deals, else samples) and ``exact`` (up to 3,000,000).
ENUMERATED_AUTO_SECONDS = 0.1
ENUMERATED_EXACT_SECONDS = 10.0
#: A report: a pass over every table, plus its hero range's hands.
REPORT_SECONDS = 3.0
REPORT_RANGE_SECONDS = 20.0


@dataclass(frozen=True)
class Cost:
    """A question's estimated work in seconds of one core, and what it is made of (for the message)."""

    seconds: float
    what: str

    @property
    def heavy(self) -> bool:
        """True when the question goes to the pool of worker processes (:data:`HEAVY_SECONDS` or more)."""
        return self.seconds >= HEAVY_SECONDS


#: A question answered from one table in well under a millisecond (a win rate, an equity, a grid).
CHEAP = Cost(0.0001, "one table")


def check(cost: Cost, what: str = "question") -> Cost:
    """``cost`` itself, or :class:`~matchdb.errors.WorkLimitError` when it is over :data:`MAX_WORK_SECONDS`."""
    if cost.seconds > MAX_WORK_SECONDS:
        raise WorkLimitError(
            f"The {what} would take about {cost.seconds:,.0f} s of work ({cost.what}); expected at most "
            f"{MAX_WORK_SECONDS:.0f} s: ask for fewer samples, opponents or hands."
        )
    return cost


def _hands(spec: Any) -> int:
    """How many hands a hand, a range or 'random' holds; 1 when it cannot be read (the question itself then says why)."""
    try:
        return int(np.count_nonzero(range_weights(spec)))
    except MatchdbError:
        return 1


def multiway_cost(hole: Any, board: Any, opponents: Iterable[Any], method: str, samples: Any) -> Cost:
    """The work of :meth:`matchdb.MatchDB.multiway`: hero hands x (samples x opponents, or an exact count each).

    ``samples`` beyond :data:`matchdb.equity.multiway.MAX_SAMPLES` is refused here, before anything else.
    """
    samples = check_samples(samples)
    hero = _hands(hole)
    counts = [_hands(opponent) for opponent in opponents]
    unknown = [n for n in counts if n > 1]
    k = len(unknown)
    rows = f"{hero:,} hero hand{'s' if hero != 1 else ''}"
    if method == "independent" or k == 0:
        return Cost(0.001 * hero, f"known hands x {rows}")
    if not str(board).strip():  # before the flop: a precomputed table, or the matchups of every pair of hands
        return Cost(0.001 * hero if hero == 1 and all(n == N_HANDS for n in unknown) else 1.0 + 0.01 * hero * k,
                    f"{k} preflop opponents x {rows}")
    if method == "sample" or (method == "auto" and k > MAX_EXACT_UNKNOWN + 2):
        per_hand = samples if samples is not None else 2 * DEFAULT_SAMPLES if hero == 1 else DEFAULT_SAMPLES
        return Cost(hero * per_hand * k * SAMPLE_SECONDS, f"{per_hand:,} samples x {k} opponents x {rows}")
    if k == 1 and len(counts) == 1 and hero > 1:  # a hero range heads-up: one pass over the runouts
        return Cost(RANGES_HEADS_UP_SECONDS, "a hero range against one range, the two ranges' rows compared")
    if k <= MAX_EXACT_UNKNOWN:
        each = EXACT_RANGE_SECONDS if k == MAX_EXACT_UNKNOWN and any(n != N_HANDS for n in unknown) else EXACT_SECONDS
        return Cost(hero * each, f"exact counts against {k} opponents x {rows}")
    each = ENUMERATED_AUTO_SECONDS if method == "auto" else ENUMERATED_EXACT_SECONDS
    return Cost(hero * each, f"exact counts against {k} opponents, {k - MAX_EXACT_UNKNOWN} enumerated, x {rows}")


def report_cost(hero: Any, villain: Any) -> Cost:
    """The work of a report: a pass over every table, longer for a wide hero range.

    >>> report_cost("QQ+", None).heavy
    True
    """
    hands = _hands(hero)
    return Cost(REPORT_SECONDS + REPORT_RANGE_SECONDS * hands / N_HANDS, f"a report over every flop for {hands:,} hero hands")


def total_cost(costs: Iterable[Cost], what: str) -> Cost:
    """The work of several questions answered together (a batch).

    >>> total_cost([CHEAP] * 1000, "1,000 queries")
    Cost(seconds=0.1, what='1,000 queries')
    """
    return Cost(round(sum(cost.seconds for cost in costs), 9), what)
