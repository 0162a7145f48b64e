"""Preflop questions about hands and ranges: a hand or a range against 1 to 9 hands, ranges or random hands.

Every question here is before the flop, with its players' hands or ranges as
1,326 weights in :func:`matchdb.hand_order` (a known hand: one positive weight):

- heads-up: the matchups (:mod:`matchdb.equity.matchups`), exact: a lookup per
  pair of hands, or a weighted product for wide ranges;
- every player a known hand: every board enumerated (:mod:`matchdb.equity.enumeration`), exact;
- ranges or random hands among several players: every deal of the players' hands
  enumerated, each with every board, when that is affordable (deals that are the
  same up to renaming suits are counted once; ``method="auto"`` does so up to
  :data:`EXACT_AUTO_DEALS` distinct deals), else sampled: each player's hand drawn
  from his range, the board at random, with the standard error said.

Players whose ranges cannot all be dealt without a shared card are refused up
front in one sentence (:func:`check_dealable`); a sampled answer whose ranges
leave almost no deal stops after :data:`MAX_REJECTED_IN_A_ROW` rejected deals,
so no question draws forever.

>>> import numpy as np
>>> from matchdb.core.hole_cards import hand_index
>>> def hand(text):
...     w = np.zeros(1326)
...     w[hand_index(text)] = 1.0
...     return w
>>> r = preflop_multiway(None, hand("AhKh"), [hand("QsQd"), hand("JcTc")])
>>> round(r.equity, 12), r.exact, [round(p, 6) for p in r.players]
(0.402091841425, True, [0.402092, 0.410545, 0.187363])
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from matchdb.core.canonical import CARD_MAP
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS
from matchdb.equity.enumeration import THREADS, KnownHands, _pool, evaluator_tables, known_hands
from matchdb.equity.matchups import heads_up_counts
from matchdb.equity.multiway import MAX_OPPONENTS, MultiwayResult, check_samples
from matchdb.errors import MatchdbError, RangeError

__all__ = [
    "DEFAULT_PREFLOP_SAMPLES",
    "EXACT_AUTO_DEALS",
    "EXACT_MAX_DEALS",
    "MAX_COMBINATIONS",
    "MAX_REJECTED_IN_A_ROW",
    "MAX_REJECTED_PER_DEAL",
    "check_dealable",
    "deal_exists",
    "distinct_deals",
    "preflop_multiway",
    "sampled_deals",
]

#: Sampled deals of a sampled preflop answer unless told otherwise (a standard error of about 0.001).
DEFAULT_PREFLOP_SAMPLES = 262_144
#: Distinct deals of the players' hands (after renaming suits) up to which ``method="auto"`` counts exactly
#: (each about a millisecond, on every core); ``"exact"`` goes up to the second figure.
EXACT_AUTO_DEALS = 128
EXACT_MAX_DEALS = 4_000
#: Deals of the players' hands looked at, at most, to find the distinct ones.
MAX_COMBINATIONS = 200_000
_CHUNK = 8192  # sampled deals per stream: the answer depends on the seed only, not on the threads
#: A sampled answer draws a deal again when two players' hands share a card: after this many rejected deals in a row,
#: or this many per deal wanted in one stream, it stops with one sentence (ranges that leave almost no deal).
MAX_REJECTED_IN_A_ROW = 200_000
MAX_REJECTED_PER_DEAL = 1000

_HAND_CARDS = np.stack([HAND_HIGH, HAND_LOW], axis=1).astype(np.int64)
_HAND_BITS = (np.uint64(1) << HAND_HIGH.astype(np.uint64)) | (np.uint64(1) << HAND_LOW.astype(np.uint64))


def _renamed() -> np.ndarray:
    position = np.full((52, 52), -1, dtype=np.int64)
    position[HAND_HIGH, HAND_LOW] = np.arange(N_HANDS)
    position[HAND_LOW, HAND_HIGH] = np.arange(N_HANDS)
    return np.stack([position[CARD_MAP[p, HAND_HIGH], CARD_MAP[p, HAND_LOW]] for p in range(24)])


_RENAMED = _renamed()


def preflop_multiway(
    source: Any,
    hero: np.ndarray,
    opponents: Sequence[np.ndarray],
    method: str = "auto",
    samples: int | None = None,
    seed: int | None = None,
) -> MultiwayResult:
    """The hero's win, tie, loss and equity preflop against 1 to 9 opponents, each a range of 1,326 weights.

    ``source`` gives heads-up matchups (:class:`matchdb.equity.matchups.PreflopMatchups` or
    :class:`~matchdb.equity.matchups.EnumeratedMatchups`; only heads-up questions use it).
    ``method``: ``"auto"`` (exact when affordable, else sampled), ``"exact"`` or ``"sample"``;
    ``samples`` and ``seed`` as in :func:`matchdb.equity.multiway.multiway_outcome`.
    """
    if method not in ("auto", "exact", "sample"):
        raise MatchdbError(f"The method {method!r} is unknown; expected 'auto', 'exact' or 'sample'.")
    players = [hero, *opponents]
    if not 1 <= len(opponents) <= MAX_OPPONENTS:
        raise MatchdbError(f"The question has {len(opponents)} opponents; expected 1 to {MAX_OPPONENTS} (2 to 10 players).")
    known = [np.count_nonzero(w) == 1 for w in players]
    if method != "sample" and len(opponents) == 1:
        win, tie, loss = heads_up_counts(source, hero, opponents[0])
        total = win + tie + loss
        if total <= 0:
            raise RangeError("No deal is possible: every hero hand shares a card with every villain hand.")
        equity = (win + tie / 2) / total
        return _exact(win / total, tie / total, equity, (equity, 1.0 - equity))
    if method != "sample" and all(known):
        hands = [int(np.flatnonzero(w)[0]) for w in players]
        result = known_hands([(int(HAND_HIGH[h]), int(HAND_LOW[h])) for h in hands])
        return _exact(result.win[0], result.tie[0], result.equity[0], result.equity)
    check_dealable(players)
    if method != "sample":
        deals = distinct_deals(players, limit=EXACT_MAX_DEALS if method == "exact" else EXACT_AUTO_DEALS)
        if deals is not None:
            return _enumerated(deals, len(players))
        if method == "exact":
            raise MatchdbError(
                f"Exact counting of these ranges preflop would take more than {EXACT_MAX_DEALS:,} distinct deals of the "
                "players' hands, each with every board; ask for method='sample'."
            )
    return _sampled(players, samples, seed)


def _exact(win: float, tie: float, equity: float, players: Iterable[float]) -> MultiwayResult:
    return MultiwayResult(
        win=float(win), tie=float(tie), loss=float(max(0.0, 1.0 - win - tie)), equity=float(equity),
        players=tuple(float(p) for p in players), exact=True, standard_error=0.0, samples=0, seed=None, method="exact",
    )


def distinct_deals(players: Sequence[np.ndarray], limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(deals, weights): every deal of the players' hands, card-disjoint, the same up to renaming suits counted once
    with the weights added; None when there are more than ``limit`` distinct deals (or too many to look at)."""
    supports = [np.flatnonzero(w) for w in players]
    if np.prod([float(len(s)) for s in supports]) > MAX_COMBINATIONS:
        return None
    deals = np.array(list(itertools.product(*supports)), dtype=np.int64).reshape(-1, len(players))
    used = np.zeros(len(deals), dtype=np.uint64)
    disjoint = np.ones(len(deals), dtype=bool)
    for column in deals.T:
        bits = _HAND_BITS[column]
        disjoint &= (used & bits) == 0
        used |= bits
    deals = deals[disjoint]
    if len(deals) == 0:
        raise RangeError("No deal is possible: the players' ranges always share a card.")
    weights = np.prod([w[deals[:, i]] for i, w in enumerate(players)], axis=0)
    # the smallest renaming of each deal, compared player by player
    renamed = _RENAMED[:, deals]  # (24, deals, players)
    best = renamed[0].copy()
    for p in range(1, 24):
        smaller = np.zeros(len(deals), dtype=bool)
        decided = np.zeros(len(deals), dtype=bool)
        for i in range(len(players)):
            smaller |= ~decided & (renamed[p, :, i] < best[:, i])
            decided |= renamed[p, :, i] != best[:, i]
        best[smaller] = renamed[p, smaller]
    distinct, inverse = np.unique(best, axis=0, return_inverse=True)
    if len(distinct) > limit:
        return None
    return distinct, np.bincount(inverse.ravel(), weights=weights, minlength=len(distinct))


def _enumerated(deals: tuple[np.ndarray, np.ndarray], n_players: int) -> MultiwayResult:
    hands, weights = deals
    total = weights.sum()

    def count(deal: np.ndarray) -> KnownHands:
        return known_hands([(int(HAND_HIGH[h]), int(HAND_LOW[h])) for h in deal])

    results = [count(hands[0])]  # the first call compiles or loads the kernel: never from two threads
    results += list(_pool().map(count, hands[1:])) if THREADS > 1 else [count(deal) for deal in hands[1:]]
    win = tie = 0.0
    equities = np.zeros(n_players)
    for result, weight in zip(results, weights, strict=True):
        win += weight * result.win[0]
        tie += weight * result.tie[0]
        equities += weight * np.array(result.equity)
    equities /= total
    return _exact(win / total, tie / total, equities[0], equities)


def _sampled(players: list[np.ndarray], samples: int | None, seed: int | None) -> MultiwayResult:
    from matchdb.equity._kernels.enumeration import _sample_chunk

    samples = check_samples(samples)
    if samples is None:
        samples = DEFAULT_PREFLOP_SAMPLES
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MatchdbError(f"The seed {seed!r} is not a non-negative whole number.")
    supports = [np.flatnonzero(w) for w in players]
    if any(len(s) == 0 for s in supports):
        raise RangeError("A player's range holds no hand.")
    player_start = np.concatenate([[0], np.cumsum([len(s) for s in supports])]).astype(np.int64)
    hands = np.concatenate(supports).astype(np.int64)
    cumulative = np.concatenate([np.cumsum(w[s]) for w, s in zip(players, supports, strict=True)])
    lookup, offsets, flush_rank = evaluator_tables()
    chunks = sampled_deals(samples) // _CHUNK
    out = np.zeros((chunks, len(players), 4))
    rejected = np.zeros(chunks, dtype=np.int64)

    def work(chunk: int) -> None:
        rejected[chunk] = _sample_chunk(player_start, cumulative, hands, _HAND_CARDS, int(seed), chunk, _CHUNK,
                                        MAX_REJECTED_IN_A_ROW, MAX_REJECTED_PER_DEAL * _CHUNK, lookup, offsets,
                                        flush_rank, out[chunk])

    work(0)  # alone first: the first call compiles or loads (never from two threads), and ranges that leave almost
    _check_rejected(rejected[:1])  # no deal stop here, after MAX_REJECTED_IN_A_ROW rejected deals (a few tenths of a second)
    rest = range(1, chunks)
    if THREADS > 1:
        list(_pool().map(work, rest))
    else:
        for chunk in rest:
            work(chunk)
    _check_rejected(rejected)
    totals = out.sum(axis=0)
    n = chunks * _CHUNK
    win, tie, share, squares = totals[0] / n
    standard_error = float(np.sqrt(max(squares - share * share, 0.0) / n))
    return MultiwayResult(
        win=float(win), tie=float(tie), loss=float(max(0.0, 1.0 - win - tie)), equity=float(share), players=None,
        exact=False, standard_error=standard_error, samples=n, seed=int(seed), method="sample",
    )


def sampled_deals(samples: int | None) -> int:
    """The deals a sampled preflop answer draws for ``samples`` (None: the default): rounded up to whole streams of
    8,192 deals, so that the answer depends on the seed only.

    >>> sampled_deals(1), sampled_deals(10_000), sampled_deals(None)
    (8192, 16384, 262144)
    """
    wanted = DEFAULT_PREFLOP_SAMPLES if samples is None else int(samples)
    return -(-wanted // _CHUNK) * _CHUNK


def _check_rejected(rejected: np.ndarray) -> None:
    if (rejected < 0).any():
        raise RangeError(
            f"The players' ranges leave almost no deal: {MAX_REJECTED_IN_A_ROW:,} deals drawn in a row (or "
            f"{MAX_REJECTED_PER_DEAL:,} per deal kept) gave two players a shared card; expected ranges that can be "
            "dealt together."
        )


def check_dealable(players: Sequence[np.ndarray]) -> None:
    """Refuse, in one sentence, players (1,326 weights each, the hero first) of whom no card-disjoint deal exists.

    Without this a sampler drawing deals until one fits would draw forever (the hero's AA against AA, AA and a
    random hand needs six aces).

    >>> from matchdb.core.ranges import range_weights
    >>> check_dealable([range_weights(r) for r in ("AA", "AA", "AA", "random")])
    Traceback (most recent call last):
    ...
    matchdb.errors.RangeError: No deal is possible: the hero and opponents 1 and 2 cannot all be dealt a hand of their ranges without sharing a card.
    """
    supports = [np.flatnonzero(w) for w in players]
    if deal_exists(supports) is False:
        stuck = _narrow(supports)
        opponents = [str(i) for i in stuck if i > 0]
        words = ["the hero"] if 0 in stuck else []
        if opponents:
            listed = opponents[0] if len(opponents) == 1 else ", ".join(opponents[:-1]) + " and " + opponents[-1]
            words.append(f"opponent{'s' if len(opponents) > 1 else ''} {listed}")
        raise RangeError(
            f"No deal is possible: {' and '.join(words)} cannot all be dealt a hand of their ranges without sharing a card."
        )


#: Hands a search for one card-disjoint deal tries before it leaves the question to the sampler (whose bound on
#: rejected deals then decides): a few hundredths of a second.
_SEARCH_NODES = 50_000


def deal_exists(supports: Sequence[np.ndarray]) -> bool | None:
    """Whether one hand of each support (positions in :func:`matchdb.hand_order`) can be dealt without a shared card;
    None when the search would take too long.

    A player with more than ``2 (n - 1)`` card-disjoint hands always has one the others' at most ``2 (n - 1)``
    cards leave free, so only the narrow players are searched, the sparsest first.

    >>> from matchdb.core.ranges import range_weights
    >>> def supports(*ranges):
    ...     return [np.flatnonzero(range_weights(r)) for r in ranges]
    >>> deal_exists(supports("AA", "AA", "random")), deal_exists(supports("AA", "AA", "AA"))
    (True, False)
    """
    narrow = sorted(_narrow(supports), key=lambda i: len(supports[i]))
    masks = [sorted({int(bits) for bits in _HAND_BITS[supports[i]]}) for i in narrow]
    left = _SEARCH_NODES

    def search(depth: int, used: int) -> bool | None:
        nonlocal left
        if depth == len(masks):
            return True
        undecided = False
        for bits in masks[depth]:
            left -= 1
            if left < 0:
                return None
            if bits & used:
                continue
            found = search(depth + 1, used | bits)
            if found:
                return True
            undecided = undecided or found is None
        return None if undecided else False

    return search(0, 0)


def _narrow(supports: Sequence[np.ndarray]) -> list[int]:
    """The players holding at most ``2 (n - 1)`` card-disjoint hands (counted greedily: at least that many)."""
    most = 2 * (len(supports) - 1)
    narrow = []
    for i, support in enumerate(supports):
        used = np.uint64(0)
        disjoint = 0
        for bits in _HAND_BITS[support]:
            if not used & bits:
                used |= bits
                disjoint += 1
                if disjoint > most:
                    break
        if disjoint <= most:
            narrow.append(i)
    return narrow
