"""The numba kernel behind :mod:`matchdb.equity.reports` (private: call the public functions there)."""

from __future__ import annotations

import numpy as np

from matchdb.core.evaluator import evaluate_with
from matchdb.jit import jit

TYPE_PAIR, TYPE_TWO_PAIR, TYPE_TRIPS, TYPE_STRAIGHT, TYPE_FLUSH, TYPE_FULL_HOUSE = 1, 2, 3, 4, 5, 6


@jit
def _hit_flags(hole_a, hole_b, flop, straight_top, flush_value):
    """Bit i of ``out[h]`` is set when hand h (cards hole_a[h], hole_b[h]) makes :data:`HITS` [i] on the flop."""
    n = hole_a.shape[0]
    out = np.zeros(n, dtype=np.int64)
    cards = np.empty(5, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int32)
    flop_counts = np.zeros(13, dtype=np.int64)
    for c in flop:
        flop_counts[c % 13] += 1
    flop_type = 0
    for r in range(13):
        if flop_counts[r] == 3:
            flop_type = TYPE_TRIPS
        elif flop_counts[r] == 2:
            flop_type = TYPE_PAIR
    cards[2] = flop[0]
    cards[3] = flop[1]
    cards[4] = flop[2]
    for h in range(n):
        a = hole_a[h]
        b = hole_b[h]
        cards[0] = a
        cards[1] = b
        kind = evaluate_with(cards, counts, straight_top, flush_value) >> 20
        pocket = a % 13 == b % 13
        flags = 0
        if kind > flop_type:
            flags |= 1 << 0
            if kind == TYPE_TWO_PAIR:
                flags |= 1 << 1
            elif kind == TYPE_TRIPS:
                flags |= 1 << (2 if pocket else 3)
            elif kind == TYPE_STRAIGHT:
                flags |= 1 << 4
            elif kind == TYPE_FLUSH:
                flags |= 1 << 5
            elif kind >= TYPE_FULL_HOUSE:
                flags |= 1 << 6
        suit_count = np.zeros(4, dtype=np.int64)
        mask = 0
        for c in cards:
            suit_count[c // 13] += 1
            mask |= 1 << (c % 13)  # type: ignore[assignment]  # numba: int64 card ids
        if suit_count.max() == 4:
            flags |= 1 << 7
        if straight_top[mask] < 0:
            outs = 0
            for r in range(13):
                if not (mask >> r) & 1 and straight_top[mask | (1 << r)] >= 0:
                    outs += 1
            if outs >= 2:
                flags |= 1 << 8
            elif outs == 1:
                flags |= 1 << 9
        out[h] = flags
    return out
