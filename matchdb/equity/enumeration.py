"""Exact preflop equity of known hands: every board enumerated with a 7-card evaluator built for it.

:func:`known_hands` deals every 5-card board beside two to ten known hands and
counts, for each player, the boards won alone and those shared with 1, 2, ...
others (the kernels are in :mod:`matchdb.equity._kernels.enumeration`: a perfect
hash over rank multisets, boards dealt by rank and only those that make
someone a flush dealt card by card). The counts are whole numbers.

>>> from matchdb.core.cards import parse_cards
>>> r = known_hands([parse_cards("AhKh"), parse_cards("QsQd")])
>>> r.boards, r.equity[0]    # 197833/428076 exactly; OMPEval's floating sum gives 0.4621445724590958
(1712304, 0.46214457245909607)
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.errors import CardError, MatchdbError

__all__ = ["KnownHands", "known_hands", "evaluator_tables", "THREADS"]

#: Threads an enumeration is split over: one per core, at most 8.
THREADS = max(1, min(os.cpu_count() or 1, 8))
_POOL: ThreadPoolExecutor | None = None
_LOCK = threading.Lock()
_TABLES: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def evaluator_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The enumeration evaluator's tables (read from the package on first use, then kept)."""
    global _TABLES
    with _LOCK:
        if _TABLES is None:
            from matchdb.equity._kernels.enumeration import load_tables

            _TABLES = load_tables()
        return _TABLES


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="matchdb-enumeration")
        return _POOL


@dataclass(frozen=True)
class KnownHands:
    """Every player's result over every board beside known hands (preflop).

    ``counts[i, t]`` is the number of boards on which player i has the best hand
    together with t others (t = 0: alone), out of ``boards``.
    """

    counts: np.ndarray
    boards: int

    @property
    def win(self) -> tuple[float, ...]:
        """Each player's chance to win alone."""
        return tuple(float(c) for c in self.counts[:, 0] / self.boards)

    @property
    def tie(self) -> tuple[float, ...]:
        """Each player's chance to share the best hand."""
        return tuple(float(c) for c in self.counts[:, 1:].sum(axis=1) / self.boards)

    @property
    def equity(self) -> tuple[float, ...]:
        """Each player's share of the pot: wins plus each tie split equally among those tied.

        Counted in whole numbers (each share times the least common multiple of 1..players)
        and divided once, so every figure is the exact fraction correctly rounded.
        """
        players = self.counts.shape[1]
        common = math.lcm(*range(1, players + 1))
        numerators = self.counts @ np.array([common // (t + 1) for t in range(players)], dtype=np.int64)
        return tuple(int(x) / (common * self.boards) for x in numerators)


def known_hands(hands: Sequence[Sequence[int]], dead: Sequence[int] = ()) -> KnownHands:
    """Every board beside 2 to 10 known hands (pairs of card ids), none sharing a card, ``dead`` cards out too.

    >>> from matchdb.core.cards import parse_cards
    >>> r = known_hands([parse_cards("AhKh"), parse_cards("QsQd"), parse_cards("JcTc")])
    >>> [round(e, 6) for e in r.equity]
    [0.402092, 0.410545, 0.187363]
    >>> known_hands([parse_cards("AhKh"), parse_cards("AhQd")])
    Traceback (most recent call last):
    ...
    matchdb.errors.CardError: The hands 'AhKh' and 'AhQd' share a card; expected card-disjoint hands.
    """
    from matchdb.equity._kernels import enumeration as kernels

    hands = [tuple(int(c) for c in hand) for hand in hands]
    if not 2 <= len(hands) <= 10 or any(len(hand) != 2 for hand in hands):
        raise MatchdbError(f"Enumeration takes 2 to 10 hands of two cards; got {len(hands)} hands.")
    used: dict[int, Sequence[int]] = {}
    for hand in hands:
        for card in hand:
            if card in used or hand[0] == hand[1]:
                raise CardError(
                    f"The hands {format_cards(used.get(card, hand))!r} and {format_cards(hand)!r} share a card; "
                    "expected card-disjoint hands."
                )
            used[card] = hand
    available = np.ones((4, 13), dtype=np.int64)
    for card in set(used) | {int(c) for c in dead}:
        available[card // 13, card % 13] = 0
    hand_ranks = np.array([kernels.RANK_KEYS[a % 13] + kernels.RANK_KEYS[b % 13] for a, b in hands], dtype=np.int64)
    hand_suits = np.zeros((len(hands), 4), dtype=np.int64)
    hand_flush = np.zeros((len(hands), 4), dtype=np.int64)
    for i, hand in enumerate(hands):
        for card in hand:
            hand_suits[i, card // 13] += 1
            hand_flush[i, card // 13] |= 1 << (card % 13)
    lookup, offsets, flush_rank = evaluator_tables()
    by_winners = np.zeros(1 << len(hands), dtype=np.int64)
    kernels._enumerate(hand_ranks, hand_suits, hand_flush, available, lookup, offsets, flush_rank, by_winners)
    counts = np.zeros((len(hands), len(hands)), dtype=np.int64)
    for winners in np.flatnonzero(by_winners):
        players = [i for i in range(len(hands)) if winners >> i & 1]
        counts[players, len(players) - 1] += by_winners[winners]
    n = int(available.sum())
    return KnownHands(counts, math.comb(n, 5))
