"""Heads-up preflop matchups: every hand against every hand over all 1,712,304 boards.

Renaming suits maps a matchup onto one that wins and ties as often, so the
1,624,350 ordered pairs of card-disjoint hands fall into 93,769 classes
(46,885 unordered: OMPEval's "about 47,000"); :func:`matchup_classes` finds
them. :class:`PreflopMatchups` holds each class's wins and ties; a matchup is
then a lookup and range against range a weighted sum.

**From the match tables** (:func:`add_table_counts` for every table, what
``matchdb build`` computes through :func:`matchdb.equity.derived.compute_derived`). A 5-card board splits into a flop and a turn and river in ten ways,
and every split is an entry of some table: on flop F, rows h and v, column
(turn, river). Counting every entry would count each board ten times, so a
column counts with a weight that depends on ranks only: 12 / N when the flop
holds the board's three lowest ranks (none of the turn and river is lower)
and N of the board's ten splits do, else 0. Each board's weights sum to 12,
renaming suits keeps them, and only about one column in nine has one. Per
canonical table every pair of rows is compared on those columns (16 rows per
vector instruction), and the counts, times the orbit size, go to the classes
of the rows' hands; a class's total is then 12 times its orbit times the
count of every matchup in it (a whole number: :func:`matchups_from_counts`
checks it). About a minute for all 1,755 tables on 2 cores.

**By enumeration** (:func:`matchdb.equity.enumeration.known_hands`): a class
at a time, what a database without every table can still answer (a few
milliseconds a matchup).

>>> classes = matchup_classes()
>>> len(classes.orbit), int(classes.orbit.sum())
(93769, 1624350)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import CARD_MAP
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS, hand_positions
from matchdb.core.pairs import (
    N_LOCAL,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_LOW,
    PAIRS,
    remaining_cards,
)
from matchdb.errors import CorruptDatabaseError, MatchdbError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "BOARDS",
    "EnumeratedMatchups",
    "HandCounts",
    "MATCHUPS_KIND",
    "MATCHUPS_VERSION",
    "MatchupClasses",
    "PreflopMatchups",
    "add_table_counts",
    "column_weights",
    "disjoint_weight",
    "enumerate_classes",
    "hands_against",
    "hand_vs_hand",
    "heads_up_counts",
    "heads_up_score",
    "heads_up_result",
    "matchup_classes",
    "matchups_from_counts",
]

#: Boards beside two card-disjoint hands: C(48, 5).
BOARDS = comb(48, 5)
#: How the matchups are kept in a store (``derived/preflop_matchups.json``), and their layout's version.
MATCHUPS_KIND = "preflop_matchups"
MATCHUPS_VERSION = 1
#: The weights of a board's splits add up to this (the least common multiple of the split counts N).
_WHOLE = 12


@dataclass(frozen=True, eq=False)
class MatchupClasses:
    """The ordered matchups of card-disjoint hands, grouped by suit renaming.

    ``class_of[h, v]`` is the class of hand h against hand v (positions in
    :func:`matchdb.hand_order`), -1 where they share a card; ``hands[k]`` is
    class k's first matchup (the smallest after renaming), ``orbit[k]`` how many
    ordered matchups it holds.
    """

    class_of: np.ndarray
    class_of_t: np.ndarray
    hands: np.ndarray
    orbit: np.ndarray


@functools.cache
def matchup_classes() -> MatchupClasses:
    """The 93,769 classes of ordered matchups (a tenth of a second, once per process).

    A class is named by its smallest renaming, compared hand by hand: the first hand's smallest
    renaming, then the second hand's smallest under the renamings that take the first one there
    (6 for a suited hand, 4 for a pair, 2 for an offsuit one); classes are numbered in that order.
    """
    position = np.full((52, 52), -1, dtype=np.int64)
    position[HAND_HIGH, HAND_LOW] = np.arange(N_HANDS)
    position[HAND_LOW, HAND_HIGH] = np.arange(N_HANDS)
    renamed = np.stack([position[CARD_MAP[p, HAND_HIGH], CARD_MAP[p, HAND_LOW]] for p in range(24)])  # (24, hands)
    first = renamed.min(axis=0)
    best = np.empty((N_HANDS, 6), dtype=np.int64)  # the renamings taking each hand to its smallest, repeated to 6
    for hand in range(N_HANDS):
        best[hand] = np.resize(np.flatnonzero(renamed[:, hand] == first[hand]), 6)
    second = renamed[best[:, 0]]  # row h: every hand v renamed as h's first such renaming renames it
    for j in range(1, 6):
        np.minimum(second, renamed[best[:, j]], out=second)
    disjoint = (
        (HAND_HIGH[:, None] != HAND_HIGH[None, :]) & (HAND_HIGH[:, None] != HAND_LOW[None, :])
        & (HAND_LOW[:, None] != HAND_HIGH[None, :]) & (HAND_LOW[:, None] != HAND_LOW[None, :])
    )
    key = first[:, None] * N_HANDS + second
    present = np.zeros(N_HANDS * N_HANDS, dtype=bool)
    present[key[disjoint]] = True
    number = np.cumsum(present) - 1  # each class's number: its key's rank among the keys present
    class_of = np.where(disjoint, number[key], -1).astype(np.int32)
    keys = np.flatnonzero(present)
    orbit = np.bincount(class_of[disjoint], minlength=len(keys)).astype(np.int64)
    out = MatchupClasses(class_of, np.ascontiguousarray(class_of.T), np.stack([keys // N_HANDS, keys % N_HANDS], axis=1),
                         orbit)
    for array in (out.class_of, out.class_of_t, out.hands, out.orbit):
        array.flags.writeable = False
    return out


def column_weights(flop: Iterable[int]) -> np.ndarray:
    """Each column's weight on ``flop`` (3 card ids): 12 / N when the flop holds its board's three lowest ranks, else 0.

    N is the number of the board's ten flop-and-runout splits whose flop holds the three
    lowest ranks; over the ten splits of any board the weights add up to 12.

    >>> w = column_weights([0, 1, 2])    # 2c3c4c: almost every runout is higher
    >>> int((w > 0).sum()), sorted(set(w.tolist()))
    (903, [0, 4, 6, 12])
    """
    flop = [int(c) for c in flop]
    rest = remaining_cards(flop).astype(np.int64)
    ranks = np.sort(np.concatenate([np.tile(np.array(flop) % 13, (N_PAIRS, 1)), rest[PAIRS] % 13], axis=1), axis=1)
    top_of_flop = max(c % 13 for c in flop)
    runout_low = np.minimum(rest[PAIR_LOW] % 13, rest[PAIR_HIGH] % 13)
    third = ranks[:, 2]
    tied = (ranks == third[:, None]).sum(axis=1)
    below = (ranks < third[:, None]).sum(axis=1)
    splits = np.array([comb(int(m), int(3 - b)) for m, b in zip(tied, below, strict=True)], dtype=np.int64)
    return np.where(runout_low >= top_of_flop, _WHOLE // splits, 0)


@dataclass(frozen=True, eq=False)
class PreflopMatchups:
    """Wins and ties of every matchup class over the 1,712,304 boards (:func:`matchup_classes` order).

    ``win[k]`` counts the boards on which class k's first hand beats the second, ``tie[k]`` those
    they tie; the second hand wins the rest. :meth:`matrices` spreads them over every pair of hands.
    """

    win: np.ndarray
    tie: np.ndarray
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(matchup_classes().orbit)
        if self.win.shape != (n,) or self.tie.shape != (n,):
            raise MatchdbError(f"Preflop matchups need {n} wins and ties, one per class; got {self.win.shape}.")

    def to_stored(self) -> dict[str, Any]:
        """What the store keeps (see :mod:`matchdb.storage.derived`)."""
        return {"win": self.win.tolist(), "tie": self.tie.tolist(), "provenance": self.provenance}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> PreflopMatchups:
        try:
            return cls(np.array(data["win"], dtype=np.int64), np.array(data["tie"], dtype=np.int64),
                       dict(data.get("provenance", {})))
        except (KeyError, TypeError, ValueError, MatchdbError):
            raise CorruptDatabaseError("The stored preflop matchups do not have one win and tie count per class.") from None

    @functools.cached_property
    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """(win, tie): (1326, 1326) int32 boards won and tied by hand h against hand v (0 where they share a card)."""
        classes = matchup_classes()
        on = classes.class_of >= 0
        win = np.where(on, self.win[classes.class_of], 0).astype(np.int32)
        tie = np.where(on, self.tie[classes.class_of], 0).astype(np.int32)
        win.flags.writeable = False
        tie.flags.writeable = False
        return win, tie

    @functools.cached_property
    def twice_score(self) -> np.ndarray:
        """(1326, 1326) float64: 2 x wins + ties of hand h against hand v, for weighted sums over ranges."""
        win, tie = self.matrices
        out: NDArray[np.float64] = 2.0 * win + tie
        out.flags.writeable = False
        return out


def enumerate_classes(classes: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
    """(win, tie) of the given matchup classes by enumerating every board (:mod:`matchdb.equity.enumeration`)."""
    from matchdb.equity.enumeration import known_hands

    reps = matchup_classes().hands
    wins, ties = [], []
    for k in classes:
        h, v = reps[int(k)]
        result = known_hands([(int(HAND_HIGH[h]), int(HAND_LOW[h])), (int(HAND_HIGH[v]), int(HAND_LOW[v]))])
        wins.append(int(result.counts[0, 0]))
        ties.append(int(result.counts[0, 1]))
    return np.array(wins, dtype=np.int64), np.array(ties, dtype=np.int64)


class HandCounts:
    """What :func:`add_table_counts` adds up, per thread: wins, losses and ties of every ordered pair of real hands.

    ``win[H, V]`` and ``lose[H, V]`` count the boards (times 12 and the orbit sizes) on which
    hand H beats / loses to hand V as the lower row of some table, ``tie[H, V]`` those they
    tie; int32 is enough (a pair's total is at most 22,100 flops x 903 runouts x 12).
    :func:`matchups_from_counts` gathers them into the classes.
    """

    def __init__(self) -> None:
        self.win = np.zeros((N_HANDS, N_HANDS), dtype=np.int32)
        self.lose = np.zeros((N_HANDS, N_HANDS), dtype=np.int32)
        self.tie = np.zeros((N_HANDS, N_HANDS), dtype=np.int32)
        self.scratch = (np.zeros((N_PAIRS, N_PAIRS), dtype=np.int32), np.zeros((N_PAIRS, N_PAIRS), dtype=np.int32))


def add_table_counts(columns: np.ndarray, weights: np.ndarray, flop: tuple[int, ...], column_weight: np.ndarray, orbit: int,
                     totals: HandCounts) -> None:
    """Add one canonical table's wins and ties, times its orbit size, to the real hands of its rows.

    ``columns`` are the table's weighted columns (:func:`column_weights`, those of weight 0 left
    out) as rows of W levels, sorted by weight, and ``weights`` their weights; ``column_weight``
    is the weight of every column of the flop. Releases the GIL (the kernels do not hold it), so
    tables can be counted on several threads, each into its own totals. What
    :func:`matchdb.equity.derived.compute_derived` does for every table.
    """
    from matchdb.equity._kernels import matchups as kernels

    groups, starts = np.unique(weights, return_index=True)
    rest = remaining_cards(flop).astype(np.int64)
    row_hand = hand_positions(rest[PAIR_LOW], rest[PAIR_HIGH])
    by_cards = np.zeros((N_LOCAL, N_LOCAL), dtype=np.int32)
    by_cards[PAIR_LOW, PAIR_HIGH] = column_weight
    by_cards[PAIR_HIGH, PAIR_LOW] = column_weight
    win, tie = totals.scratch
    win[:] = 0
    tie[:] = 0
    kernels._pair_counts(columns, np.append(starts, len(weights)).astype(np.int64), groups.astype(np.int64), win, tie)
    kernels._add_to_hands(win, tie, row_hand, _ROW_CARDS, by_cards, by_cards.sum(axis=1, dtype=np.int32),
                          np.int32(column_weight.sum()), np.int32(orbit), totals.win, totals.lose, totals.tie)


def matchups_from_counts(totals: Iterable[HandCounts], provenance: dict[str, Any]) -> PreflopMatchups:
    """The matchups from every table's :func:`add_table_counts` (one :class:`HandCounts` per thread): each class's
    totals are 12 x its orbit x its boards (checked: a whole number)."""
    classes = matchup_classes()
    on = classes.class_of >= 0
    win = np.zeros((N_HANDS, N_HANDS), dtype=np.int64)
    tie = np.zeros((N_HANDS, N_HANDS), dtype=np.int64)
    for part in totals:
        win += part.win
        win += part.lose.T  # V's wins over H, counted where H was the lower row
        tie += part.tie
        tie += part.tie.T
    class_win = np.bincount(classes.class_of[on], weights=win[on], minlength=len(classes.orbit))  # sums below 2^53: exact
    class_tie = np.bincount(classes.class_of[on], weights=tie[on], minlength=len(classes.orbit))
    class_win, class_tie = np.rint(class_win).astype(np.int64), np.rint(class_tie).astype(np.int64)
    scale = _WHOLE * classes.orbit
    if (class_win % scale).any() or (class_tie % scale).any():
        raise MatchdbError("The preflop matchups did not come out as whole numbers of boards; a table is wrong.")
    return PreflopMatchups(class_win // scale, class_tie // scale, provenance)


_ROW_CARDS = np.stack([PAIR_LOW, PAIR_HIGH], axis=1).astype(np.int64)


class EnumeratedMatchups:
    """Matchup classes counted when first asked, by enumeration, and kept: what a database lacking tables answers with.

    ``limit`` bounds the classes one question may have counted (about a millisecond each).
    """

    def __init__(self, limit: int = 400) -> None:
        self.limit = limit
        self._win = np.full(len(matchup_classes().orbit), -1, dtype=np.int64)
        self._tie = np.zeros_like(self._win)
        self._lock = threading.Lock()

    def counts(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(win, tie) of each of ``classes``."""
        with self._lock:
            missing = np.unique(classes[self._win[classes] < 0])
            if len(missing) > self.limit:
                raise MatchdbError(
                    f"This preflop question needs {len(missing):,} matchups this database has not counted (at most "
                    f"{self.limit:,} are enumerated for one question); expected a complete database, whose preflop "
                    "matchups are computed once from its tables (matchdb build)."
                )
            if len(missing):
                self._win[missing], self._tie[missing] = enumerate_classes(missing)
            return self._win[classes], self._tie[classes]


def _counts(source: PreflopMatchups | EnumeratedMatchups, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(source, PreflopMatchups):
        return source.win[classes], source.tie[classes]
    return source.counts(classes)


_CARDS_OF_HAND = np.stack([HAND_HIGH, HAND_LOW], axis=1)


def disjoint_weight(hero: np.ndarray, villain: np.ndarray) -> float:
    """The weight of the (hero hand, villain hand) pairs that share no card, both given as 1,326 weights.

    All pairs, less those sharing a card: by card, every pair sharing one counted once and a hand
    with itself twice, so the same hand is added back once.

    >>> round(disjoint_weight(np.ones(1326), np.ones(1326)))
    1624350
    """
    hero_cards = np.bincount(_CARDS_OF_HAND.ravel(), np.repeat(hero, 2), minlength=52)
    villain_cards = np.bincount(_CARDS_OF_HAND.ravel(), np.repeat(villain, 2), minlength=52)
    return float(hero.sum() * villain.sum() - hero_cards @ villain_cards + hero @ villain)


#: Pairs of hands above which range against range takes the dense product instead of looking pairs up.
_DENSE_PAIRS = 20_000


def hand_vs_hand(source: Any, hero: int, villain: int) -> tuple[int, int, int]:
    """(win, tie, loss) boards of one hand against another (positions in :func:`matchdb.hand_order`), a lookup.

    >>> from matchdb.core.hole_cards import hand_index
    >>> hand_vs_hand(EnumeratedMatchups(), hand_index("AhKh"), hand_index("QsQd"))
    (787966, 6732, 917606)
    """
    k = int(matchup_classes().class_of[hero, villain])
    if k < 0:
        raise MatchdbError("The two hands share a card; expected card-disjoint hands.")
    if isinstance(source, PreflopMatchups):
        win, tie = int(source.win[k]), int(source.tie[k])
    else:
        wins, ties = source.counts(np.array([k]))
        win, tie = int(wins[0]), int(ties[0])
    return win, tie, BOARDS - win - tie


def heads_up_score(source: Any, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float]:
    """(score, deals) of a hero range against a villain range preflop, both 1,326 weights: Σ weights x (wins + ties / 2)
    and Σ weights x boards, over every card-disjoint pair of hands and every board."""
    h = np.flatnonzero(hero)
    v = np.flatnonzero(villain)
    if isinstance(source, PreflopMatchups) and len(h) * len(v) > _DENSE_PAIRS:
        from matchdb.equity._kernels.matchups import _row_sums

        twice = _row_sums(source.twice_score, h, np.ascontiguousarray(villain, dtype=np.float64))
        return float(hero[h] @ twice) / 2, disjoint_weight(hero, villain) * BOARDS
    win, tie, loss = heads_up_counts(source, hero, villain)
    return win + tie / 2, win + tie + loss


def heads_up_result(source: Any, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float, float]:
    """(score, ties, deals): :func:`heads_up_score` (the same numbers, to the last bit) and Σ weights x boards tied.

    >>> from matchdb.core.ranges import range_weights
    >>> score, ties, deals = heads_up_result(EnumeratedMatchups(), range_weights("AhKh"), range_weights("QsQd"))
    >>> round(score / deals, 12), int(ties), int(deals)
    (0.462144572459, 6732, 1712304)
    """
    h = np.flatnonzero(hero)
    v = np.flatnonzero(villain)
    if isinstance(source, PreflopMatchups) and len(h) * len(v) > _DENSE_PAIRS:
        from matchdb.equity._kernels.matchups import _row_sums_and_ties

        twice, tied = _row_sums_and_ties(source.twice_score, source.matrices[1], h, np.ascontiguousarray(villain, dtype=np.float64))
        return float(hero[h] @ twice) / 2, float(hero[h] @ tied), disjoint_weight(hero, villain) * BOARDS
    win, tie, loss = heads_up_counts(source, hero, villain)
    return win + tie / 2, tie, win + tie + loss


def heads_up_counts(source: Any, hero: np.ndarray, villain: np.ndarray) -> tuple[float, float, float]:
    """(win, tie, loss) weighted board counts of a hero range against a villain range preflop, pair by pair."""
    h = np.flatnonzero(hero)
    v = np.flatnonzero(villain)
    classes = matchup_classes().class_of[h[:, None], v[None, :]]
    on = classes >= 0
    weight = (hero[h][:, None] * villain[v][None, :])[on]
    win, tie = _counts(source, classes[on])
    wins = float(weight @ win)
    ties = float(weight @ tie)
    return wins, ties, float(weight.sum()) * BOARDS - wins - ties


def hands_against(source: Any, villain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(score, deals) of every hand (1,326, :func:`matchdb.hand_order`) against a villain range preflop."""
    if isinstance(source, PreflopMatchups):
        from matchdb.equity._kernels.matchups import _row_sums

        score = _row_sums(source.twice_score, np.arange(N_HANDS), np.ascontiguousarray(villain, dtype=np.float64)) / 2
    else:
        score = np.array([heads_up_score(source, np.eye(1, N_HANDS, i)[0], villain)[0] for i in range(N_HANDS)])
    villain_cards = np.bincount(_CARDS_OF_HAND.ravel(), np.repeat(villain, 2), minlength=52)
    deals = (villain.sum() - villain_cards[HAND_HIGH] - villain_cards[HAND_LOW] + villain) * BOARDS
    return score, deals
