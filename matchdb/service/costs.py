"""What a question will cost, estimated before any work starts from what it will do: refused beyond a bound, heavy ones set apart.

Each estimate is the seconds of one core the question's work takes, counted
from what its computation will do (issue 30: "the cost estimate is the
cost"): a sampled multiway answer's visits to the runouts and its partial
deals (:func:`matchdb.equity.multiway.sampled_work`, the sampler's own
arithmetic: ``samples`` is rounded up to whole visits per runout, at least two,
for each hero hand), a sampled preflop answer's deals
(:func:`matchdb.equity.preflop_hands.sampled_deals`) and the deals it draws
again, exact counts per hero hand, the matchup classes a preflop question
enumerates on a database lacking tables, and derived data (the preflop
matchups and table) that a complete database would compute first (a
server's database, which prepares it at start-up, says at once that it is not
ready: 503). Each unit
was measured on a 2-core machine (``scripts/bench_costs.py`` prints every
route's estimate beside its measured CPU; the HTTP guide, docs/guide/http.md,
has the table). A question estimated over
:data:`MAX_WORK_SECONDS` is refused with :class:`matchdb.errors.WorkLimitError`
(HTTP 413) naming the estimate; one at :data:`HEAVY_SECONDS` or more is heavy:
the service answers it in a small pool of worker processes that is stopped
when its deadline passes or its client goes away (:mod:`matchdb.service.pool`).

>>> multiway_cost(db, "AhKh", "2c7dJh", ["random"] * 6, "sample", 1_000_000).heavy
True
>>> multiway_cost(db, "AhKh", "2c7dJh", ["random"] * 3, "auto", None).heavy
False
>>> check(multiway_cost(db, "random", "2c7dJh", ["random"] * 6, "sample", 100_000))
Traceback (most recent call last):
...
matchdb.errors.WorkLimitError: The question would take about 478 s of work (1,176 hero hands x 43 visits to each of 1,081 runouts, 2 partial deals each, 3 of 6 opponents drawn); expected at most 30 s: ask for fewer samples, opponents or hands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import N_FLOPS
from matchdb.core.cards import parse_cards
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS
from matchdb.core.ranges import range_weights
from matchdb.equity.multiway import (
    EXACT_AUTO_LEAVES,
    EXACT_MAX_LEAVES,
    MAX_EXACT_UNKNOWN,
    check_samples,
    sampled_work,
)
from matchdb.equity.preflop_hands import EXACT_AUTO_DEALS, EXACT_MAX_DEALS, sampled_deals
from matchdb.errors import MatchdbError, WorkLimitError

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = [
    "CHEAP",
    "HEAVY_SECONDS",
    "MAX_WORK_SECONDS",
    "Cost",
    "check",
    "distribution_cost",
    "equity_cost",
    "hands_cost",
    "multiway_cost",
    "report_cost",
    "total_cost",
    "win_rate_cost",
]

#: Most estimated work one request may ask for (a batch: all its queries together), in seconds of one core.
MAX_WORK_SECONDS = 30.0
#: Questions estimated at this much work or more are heavy: answered in the pool of worker processes, where they
#: can be stopped; a lighter one is answered in a server thread, which cannot (so it costs at most this if abandoned).
HEAVY_SECONDS = 0.1


@dataclass(frozen=True)
class Cost:
    """A question's estimated work in seconds of one core, what it is made of, and how to ask for less (for the message).

    ``most`` is the most it can take where that differs from the estimate (a sampled answer for one hand adds
    visits only while its standard error is above its target: it usually stops far below its bound); ``draws``
    the most partial deals (or deals) a sampled answer draws, what its ``samples`` says (0 when it samples none).
    """

    seconds: float
    what: str
    advice: str = "ask for fewer samples, opponents or hands"
    most: float | None = None
    draws: int = 0

    @property
    def bound(self) -> float:
        """The most the question can take: the budget and the heavy threshold apply to this."""
        return self.seconds if self.most is None else max(self.seconds, self.most)

    @property
    def heavy(self) -> bool:
        """True when the question goes to the pool of worker processes (a bound of :data:`HEAVY_SECONDS` or more)."""
        return self.bound >= HEAVY_SECONDS


#: A question answered from one table in well under a millisecond (a win rate, an equity).
CHEAP = Cost(0.0001, "one table")


def check(cost: Cost, what: str = "question") -> Cost:
    """``cost`` itself, or :class:`~matchdb.errors.WorkLimitError` when its bound is over :data:`MAX_WORK_SECONDS`."""
    if cost.bound > MAX_WORK_SECONDS:
        raise WorkLimitError(
            f"The {what} would take {'up to' if cost.bound > cost.seconds else 'about'} {cost.bound:,.0f} s of work "
            f"({cost.what}); expected at most {MAX_WORK_SECONDS:.0f} s: {cost.advice}."
        )
    return cost


def total_cost(costs: Iterable[Cost], what: str) -> Cost:
    """The work of several questions answered together (a batch).

    >>> total = total_cost([CHEAP] * 1000, "1,000 queries")
    >>> round(total.seconds, 6), total.heavy
    (0.1, True)
    """
    costs = list(costs)
    seconds = sum(cost.seconds for cost in costs)
    most = sum(cost.bound for cost in costs)
    return Cost(seconds, what, most=most if most > seconds else None, draws=sum(cost.draws for cost in costs))


# -- measured unit costs: seconds of one core on a 2-core machine (scripts/bench_costs.py) -------------------------

#: A sampled multiway answer: building one runout's lists of hands for one hero hand (about 1,200 rows scanned).
SETUP_SECONDS = 10e-6
#: One sampled partial deal, its last (up to three) opponents counted exactly, against random opponents; each
#: opponent drawn; more when an opponent is a range (drawn from its hands, the runout's deals estimated too).
DRAW_SECONDS = 3.5e-6
DRAWN_SECONDS = 1.2e-6
DRAW_RANGE_SECONDS = 20e-6
#: An exact count on one runout for one hero hand: against random opponents (1, 2 or 3), or one or two ranges;
#: three ranges add their triangle term, per hand of the ranges together and per hand of the sparsest (x 49 cards).
COUNT_RANDOM_SECONDS = (3e-6, 6e-6, 9e-6)
COUNT_RANGES_SECONDS = 6e-6
TRIANGLE_HAND_SECONDS = 0.02e-6
TRIANGLE_SPARSE_SECONDS = 0.05e-6
#: Partial deals a visit draws on average when it may draw two (the second only where a drawn opponent can tie the
#: hero, and not always there): measured 1.06 to 1.11.
DRAWS_PER_VISIT = 1.2
#: A sampled answer for one hand (no ``samples``) visits each runout group in a first phase, then more only while
#: its standard error is above the target: measured over random hands, its partial deals are 1.1 to 3.4 times the
#: first phase's visits at the median (up to 30 at most, 9 opponents on a flop); the estimate takes this multiple.
ADAPTIVE_GROWTH = 3.0
#: One partial deal of the enumerated opponents beyond three (the last three counted exactly for each).
LEAF_SECONDS = 4e-6
#: A hero range against one range on a board: the two ranges' rows compared.
RANGES_HEADS_UP_SECONDS = 0.015
#: Every player a known hand: each runout compared.
KNOWN_SECONDS = 0.002
#: Before the flop: one sampled deal (a board and the players' hands drawn), in all, per player drawn from a range
#: and per known hand (not drawn: 1,000,000 deals of three known hands measured 0.28 s); a deal drawn again because
#: two hands shared a card, per player.
PREFLOP_DEAL_SECONDS = 0.25e-6
PREFLOP_PLAYER_SECONDS = 0.2e-6
PREFLOP_KNOWN_HAND_SECONDS = 0.01e-6
PREFLOP_REJECTED_SECONDS = 0.035e-6
#: Every board beside known hands (before the flop), per deal and per player; a deal of hands looked at for the
#: distinct ones, per player.
PREFLOP_KNOWN_SECONDS = 0.0005
PREFLOP_KNOWN_PLAYER_SECONDS = 0.0003
PREFLOP_COMBINATION_SECONDS = 1e-6
#: A preflop matchup class counted by enumeration (a database lacking tables); a pair of hands looked up.
MATCHUP_CLASS_SECONDS = 0.0012
MATCHUP_PAIR_SECONDS = 5e-8
#: Derived data a complete database computes from every table once, when a question first needs it.
MATCHUPS_SECONDS = 75.0
PREFLOP_TABLE_SECONDS = 45.0
#: Every hand's exact equity on a board (the grid) against a random hand or a range; every naive win rate.
GRID_EQUITY_SECONDS = 0.05
GRID_WIN_RATE_SECONDS = 0.01
#: One hand's distribution over the runouts.
DISTRIBUTION_SECONDS = 0.002
#: A report: a pass over every table, plus its hero range's hands.
REPORT_SECONDS = 7.0
REPORT_RANGE_SECONDS = 2.0

_DERIVED_ADVICE = ("this server's database has not computed its preflop {} yet (a database packed after "
                   "computing them ships them; see matchdb.MatchDB.{})")


# -- reading a question's players ---------------------------------------------------------------------------------

_HAND_BITS = (np.uint64(1) << HAND_HIGH.astype(np.uint64)) | (np.uint64(1) << HAND_LOW.astype(np.uint64))


def _weights(spec: Any) -> np.ndarray | None:
    """A hand, a range or 'random' as 1,326 weights; None when it cannot be read (the question itself says why)."""
    try:
        return range_weights(spec.hand_weights() if hasattr(spec, "hand_weights") else spec)
    except MatchdbError:
        return None


def _board(board: Any) -> list[int] | None:
    """The board's cards, [] before the flop; None when it cannot be read."""
    if board is None or (isinstance(board, str) and not board.strip()) or (isinstance(board, (list, tuple)) and not board):
        return []
    try:
        return list(parse_cards(board))
    except MatchdbError:
        return None


def _dealable(weights: np.ndarray, dead: Sequence[int]) -> np.ndarray:
    """``weights`` without the hands that hold a dead card."""
    mask = np.uint64(0)
    for card in dead:
        mask |= np.uint64(1) << np.uint64(card)
    return np.where((_HAND_BITS & mask) == 0, weights, 0.0)


def _count(weights: np.ndarray) -> int:
    return int(np.count_nonzero(weights))


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


# -- multiway ------------------------------------------------------------------------------------------------------


def multiway_cost(db: MatchDB, hole: Any, board: Any, opponents: Iterable[Any], method: str, samples: Any) -> Cost:
    """The work of :meth:`matchdb.MatchDB.multiway`, from the path it will take and the work that path does.

    ``samples`` beyond :data:`matchdb.equity.multiway.MAX_SAMPLES` is refused here, before anything else.
    """
    samples = check_samples(samples)
    cards = _board(board)
    hero = _weights(hole)
    players = [_weights(spec) for spec in opponents]
    if cards is None or hero is None or not 1 <= len(players) <= 9:
        return CHEAP  # the question is refused in one sentence, at once
    given = [w for w in players if w is not None]
    if len(given) < len(players):
        return CHEAP
    if not cards:
        return _preflop_multiway_cost(db, hero, given, method, samples)
    hero_range = _count(hero) > 1
    random = [_is_random(w, cards[:3]) for w in given]
    dealt = [_dealable(w, cards) for w in given]
    counts = [_count(w) for w in dealt]
    known = [w for w, n in zip(dealt, counts, strict=True) if n == 1]
    hero_hands = _count(_dealable(hero, [*cards, *(c for w in known for c in _cards_of(w))]))
    unknown = [(n, r) for n, r in zip(counts, random, strict=True) if n > 1]
    k = len(unknown)
    rows = _plural(hero_hands, "hero hand")
    if hero_hands == 0 or min(counts) == 0:
        return CHEAP  # refused: no hand can be dealt
    if hero_range and len(given) == 1 and method in ("auto", "exact"):
        return Cost(RANGES_HEADS_UP_SECONDS, "a hero range against one range, the two ranges' rows compared")
    if method == "independent" or k == 0:
        return Cost(KNOWN_SECONDS * hero_hands, f"{_plural(len(known), 'known hand')} on every runout x {rows}")
    street = len(cards)
    runouts = _runouts(street, len(known))
    if method == "sample" or (method == "auto" and k > MAX_EXACT_UNKNOWN + 2):
        return _sampled_cost(hero_hands, street, len(known), unknown, forced=method == "sample" and k <= MAX_EXACT_UNKNOWN,
                             samples=samples)
    if k <= MAX_EXACT_UNKNOWN:
        each = runouts * _count_seconds(unknown)
        everyone = hero_range and not known and max(counts) <= 200 and hero_hands <= 200
        times = (k + 1) if everyone else 1  # every player's equity: one count with each player as the hero
        return Cost(hero_hands * each * times, f"exact counts against {_plural(k, 'opponent')} on {runouts:,} runouts x "
                    f"{rows}" + (f", for each of the {k + 1} players" if times > 1 else ""))
    # four or five unknown opponents: those beyond three enumerated, each partial deal with the last three counted
    # exactly, up to the method's bound on partial deals (beyond: sampled, or refused); at most each runout's hands
    # that do not beat the hero (all of them, here) for each enumerated opponent
    enumerated_sizes = [n for n, _ in unknown[MAX_EXACT_UNKNOWN:]]
    leaves = float(hero_hands * runouts) * float(min(min(enumerated_sizes), 1176)) ** (k - MAX_EXACT_UNKNOWN)
    if not all(random for _, random in unknown):
        leaves *= 2  # the deals are enumerated too
    limit = EXACT_AUTO_LEAVES if method == "auto" else EXACT_MAX_LEAVES
    leaves = min(leaves, limit)
    enumerated = Cost(leaves * LEAF_SECONDS + hero_hands * runouts * 0.1e-6,
                      f"up to {leaves:,.0f} partial deals of {_plural(k - MAX_EXACT_UNKNOWN, 'opponent')} beyond 3, "
                      "the last 3 counted exactly for each")
    if method == "exact":
        return enumerated
    sampled = _sampled_cost(hero_hands, street, len(known), unknown, forced=False, samples=samples)
    return sampled if sampled.bound > enumerated.bound else enumerated


def _cards_of(weights: np.ndarray) -> list[int]:
    hand = int(np.flatnonzero(weights)[0])
    return [int(HAND_HIGH[hand]), int(HAND_LOW[hand])]


def _is_random(weights: np.ndarray, flop: Sequence[int]) -> bool:
    """True when every hand the flop leaves has the same weight (what the engine, in the flop's frame, treats as a
    random hand)."""
    dealt = weights[_dealable(np.ones(N_HANDS), flop) > 0]
    return bool(dealt.min() == dealt.max() > 0)


def _runouts(street: int, known: int) -> int:
    """The runouts a hero hand can be dealt on beside ``known`` known hands."""
    free = 52 - street - 2 - 2 * known
    return comb(free, 2) if street == 3 else free if street == 4 else 1


def _count_seconds(exact: Sequence[tuple[int, bool]]) -> float:
    """One exact count of the opponents ``exact`` ((hands, random) each) on one runout."""
    if not exact:
        return 0.0
    if all(random for _, random in exact):
        return COUNT_RANDOM_SECONDS[len(exact) - 1]
    seconds = COUNT_RANGES_SECONDS
    if len(exact) == 3:  # the triangle term
        sizes = sorted(n for n, _ in exact)
        seconds += 5 * (min(sum(sizes), 1176) * TRIANGLE_HAND_SECONDS + sizes[0] * TRIANGLE_SPARSE_SECONDS)
    return seconds


def _sampled_cost(hero_hands: int, street: int, known: int, unknown: list[tuple[int, bool]], forced: bool,
                  samples: int | None) -> Cost:
    """A sampled multiway answer: for each hero hand, its visits to the runouts (each a partial deal or two) and the
    runouts' set-ups, as :func:`matchdb.equity.multiway.sampled_work` counts them."""
    k = len(unknown)
    k_exact = min(MAX_EXACT_UNKNOWN, k - 1) if forced else min(MAX_EXACT_UNKNOWN, k)
    order = sorted(unknown, key=lambda opponent: not opponent[1])  # the random ones are counted exactly first
    exact, drawn = order[:k_exact], order[k_exact:]
    per_visit = 2 if drawn and all(random for _, random in drawn) else 1
    columns = {3: 1176, 4: 48, 5: 1}[street]
    runouts = _runouts(street, known)
    adaptive = samples is None and hero_hands == 1
    first, visits, setups = sampled_work(columns, runouts, samples, per_visit, adaptive, known > 0)
    per_draw = DRAW_SECONDS + DRAWN_SECONDS * len(drawn)  # random opponents counted exactly: in DRAW_SECONDS
    if not all(random for _, random in unknown):
        per_draw += DRAW_RANGE_SECONDS + (_count_seconds(exact) if not all(random for _, random in exact) else 0.0)
    each = DRAWS_PER_VISIT if per_visit == 2 else 1.0
    most = hero_hands * (setups * SETUP_SECONDS + visits * each * per_draw)
    draws = hero_hands * visits * per_visit
    if not adaptive:
        return Cost(most, f"{_plural(hero_hands, 'hero hand')} x {visits // runouts:,} visits to each of {runouts:,} "
                          f"runouts, {_plural(per_visit, 'partial deal')} each, {len(drawn)} of {k} opponents drawn",
                    draws=draws)
    typical = ADAPTIVE_GROWTH * first * per_draw + 2 * min(first, runouts) * SETUP_SECONDS  # growth counts draws
    return Cost(typical, f"one hand, {first:,} visits to {runouts:,} runouts first, up to {visits:,} in all, "
                         f"{len(drawn)} of {k} opponents drawn", most=most, draws=draws)


def _preflop_multiway_cost(db: MatchDB, hero: np.ndarray, opponents: list[np.ndarray], method: str, samples: int | None) -> Cost:
    """Before the flop (:func:`matchdb.equity.preflop_hands.preflop_multiway`): heads-up from the matchups, known
    hands by enumerating every board, ranges by their distinct deals when few, else sampled."""
    from matchdb.equity.preflop_hands import MAX_COMBINATIONS, deal_exists, distinct_deals

    players = [hero, *opponents]
    supports = [np.flatnonzero(w) for w in players]
    if method != "sample" and len(opponents) == 2 and all(len(s) == N_HANDS and np.all(w == w[0]) for s, w in
                                                          zip(supports[1:], opponents, strict=True)):
        from matchdb.answers.preflop import PREFLOP_MULTIWAY_KIND

        # two random hands: the multiway preflop table's figures (matchdb.db.preflop), where it can be had
        if _stored(db, PREFLOP_MULTIWAY_KIND):
            return Cost(CHEAP.seconds * len(supports[0]), "the multiway preflop table's figures of the hero's hands")
        if len(db.built()) == N_FLOPS and (db.compute_on_first_use or method == "exact"):
            return _derived(db, "multiway table", "preflop_multiway()", MATCHUPS_SECONDS)
        if method == "exact":
            return CHEAP  # refused at once: a database lacking tables has no such table
    if method != "sample" and len(opponents) == 1:
        return _matchups_cost(db, hero, opponents[0], build=len(supports[0]) * len(supports[1]) > 1)
    if method != "sample" and all(len(s) == 1 for s in supports):
        return Cost(_known_deal(len(players)), f"every board beside {len(players)} known hands")
    if deal_exists(supports) is False:
        return CHEAP  # refused in one sentence
    combinations = float(np.prod([float(len(s)) for s in supports]))
    looked = 0.0
    if method != "sample" and combinations <= MAX_COMBINATIONS:
        # the question looks at every deal of the players' hands for the distinct ones first; at least one in 24 is
        # distinct (24 renamings of the suits), about one in 16 measured: counted here where they are few
        limit = EXACT_MAX_DEALS if method == "exact" else EXACT_AUTO_DEALS
        looked = combinations * len(players) * PREFLOP_COMBINATION_SECONDS
        distinct: float | None = min(combinations / 16, limit) if combinations / 24 <= limit else None
        if distinct is not None and combinations <= _COUNTED_COMBINATIONS:
            found = distinct_deals(players, limit)  # milliseconds
            distinct = len(found[0]) if found is not None else None
        if distinct is not None:
            return Cost(looked + distinct * _known_deal(len(players)),
                        f"{'about ' if combinations > _COUNTED_COMBINATIONS else ''}{distinct:,.0f} distinct deals of "
                        f"{len(players)} players' hands, every board each")
        if method == "exact":
            return Cost(looked, f"{combinations:,.0f} deals of the players' hands looked at, then refused")
    elif method == "exact":
        return CHEAP  # refused: too many deals to look at
    deals = sampled_deals(samples)
    drawn = deals / _acceptance(players)
    ranges = sum(len(s) > 1 for s in supports)
    seconds = looked + deals * (PREFLOP_DEAL_SECONDS + PREFLOP_PLAYER_SECONDS * ranges
                                + PREFLOP_KNOWN_HAND_SECONDS * (len(players) - ranges))
    seconds += (drawn - deals) * PREFLOP_REJECTED_SECONDS * len(players)
    return Cost(seconds, f"{deals:,} sampled deals of {len(players)} players"
                + (f", about {drawn:,.0f} drawn (some give two players a card in common)" if drawn > 1.01 * deals else ""),
                draws=deals)


def _known_deal(players: int) -> float:
    """Every board beside ``players`` known hands, before the flop."""
    return PREFLOP_KNOWN_SECONDS + PREFLOP_KNOWN_PLAYER_SECONDS * players


#: Deals of the players' hands up to which the estimate counts the distinct ones itself (the question does it again).
_COUNTED_COMBINATIONS = 20_000


def _acceptance(players: list[np.ndarray], draws: int = 4096) -> float:
    """About what share of deals drawn from the players' ranges give no two players a card in common (a fixed
    seed: the same estimate every time), at least one in 200,000 (the sampler stops beyond)."""
    rng = np.random.default_rng(0)
    used = np.zeros(draws, dtype=np.uint64)
    fits = np.ones(draws, dtype=bool)
    for weights in players:
        hands = rng.choice(N_HANDS, size=draws, p=weights / weights.sum())
        bits = _HAND_BITS[hands]
        fits &= (used & bits) == 0
        used |= bits
    return max(float(fits.mean()), 1 / 200_000)


def _matchups_cost(db: MatchDB, hero: np.ndarray, villain: np.ndarray, build: bool) -> Cost:
    """A heads-up question before the flop: its pairs of hands looked up in the matchups, which a complete database
    computes first when they are not stored yet, and a database lacking tables counts class by class."""
    from matchdb.db.preflop import matchups
    from matchdb.equity.matchups import PreflopMatchups, matchup_classes

    h, v = np.flatnonzero(hero), np.flatnonzero(villain)
    pairs = Cost(len(h) * len(v) * MATCHUP_PAIR_SECONDS, f"{len(h) * len(v):,} pairs of hands")
    source = matchups(db, build=False)  # stored matchups are read (once), never computed here
    if isinstance(source, PreflopMatchups):
        return pairs
    if build and len(db.built()) == N_FLOPS:
        return _derived(db, "matchups", "preflop_matchups()", MATCHUPS_SECONDS)
    if len(v) > 2 * source.limit:
        return pairs  # refused at the first hand: more classes than one question may count
    classes = matchup_classes().class_of[h[:, None], v[None, :]]
    distinct = len(np.unique(classes[classes >= 0]))
    if distinct > source.limit and len(h) == 1:
        return pairs  # refused: more classes than one question may count
    return Cost(pairs.seconds + distinct * MATCHUP_CLASS_SECONDS,
                f"{distinct:,} matchup classes counted by enumeration (this database lacks tables)")


def _derived(db: MatchDB, what: str, method: str, seconds: float) -> Cost:
    """Derived data a complete database lacks: computed first where the database computes it on first use; a server's
    database (which prepares it at start-up, :meth:`matchdb.MatchDB.prepare_in_background`) says at once that it is
    not ready yet (503 with Retry-After)."""
    if not db.compute_on_first_use:
        return Cost(CHEAP.seconds, f"the preflop {what}, being prepared: not ready yet")
    return Cost(seconds, f"computing the preflop {what} from all {N_FLOPS:,} tables, once",
                _DERIVED_ADVICE.format(what, method))


def _stored(db: MatchDB, kind: str) -> bool:
    """Whether ``db`` holds derived data ``kind`` (kept or stored; read once, as the question would); True when its
    file cannot be read (the question then says so at once)."""
    try:
        return db.stored_derived(kind) is not None
    except MatchdbError:
        return True


# -- the other routes ----------------------------------------------------------------------------------------------


def win_rate_cost(db: MatchDB, hole: Any, board: Any, players: Any) -> Cost:
    """A naive win rate: one table, or before the flop the preflop table (computed first where not stored)."""
    from matchdb.equity.preflop import PREFLOP_KIND

    if _board(board) == [] and len(db.built()) == N_FLOPS and not _stored(db, PREFLOP_KIND):
        return _derived(db, "table", "preflop()", PREFLOP_TABLE_SECONDS)
    return CHEAP


def equity_cost(db: MatchDB, hole: Any, board: Any, villain: Any) -> Cost:
    """A heads-up equity: one table, or before the flop the matchups of the hand against the villain's hands."""
    if _board(board) != []:
        return CHEAP
    hero, enemy = _weights(hole), _weights(villain)
    if hero is None or enemy is None or _count(hero) != 1:
        return CHEAP
    return _matchups_cost(db, hero, enemy, build=_count(enemy) > 1)


def hands_cost(db: MatchDB, board: Any, figure: str, villain: Any, players: Any, hero: Any) -> Cost:
    """The grid of ``/v1/hands``: every hand's equity (or naive win rate) on a board, and a hero range's equity."""
    cards = _board(board)
    enemy = _weights(villain)
    if cards is None or enemy is None:
        return CHEAP
    if cards:
        seconds = GRID_WIN_RATE_SECONDS if figure == "win-rate" else GRID_EQUITY_SECONDS
        if hero is not None:
            seconds += RANGES_HEADS_UP_SECONDS
        return Cost(seconds, "every hand's figure on the board")
    if figure == "win-rate":
        return win_rate_cost(db, "AhKh", "", players)
    grid = _matchups_cost(db, np.ones(N_HANDS), enemy, build=True)
    mine = _weights(hero) if hero is not None else None
    if mine is not None:
        return Cost(grid.seconds + _matchups_cost(db, mine, enemy, build=True).seconds, grid.what, grid.advice)
    return grid


def distribution_cost(db: MatchDB, hole: Any, board: Any, villain: Any, bins: Any) -> Cost:
    """One hand's distribution over the runouts of one table."""
    return Cost(DISTRIBUTION_SECONDS, "one hand over every runout")


def report_cost(hero: Any, villain: Any) -> Cost:
    """The work of a report: a pass over every table, longer for a wide hero range.

    >>> report_cost("QQ+", None).heavy
    True
    """
    weights = _weights(hero)
    hands = _count(weights) if weights is not None else 1
    return Cost(REPORT_SECONDS + REPORT_RANGE_SECONDS * hands / N_HANDS, f"a report over every flop for {hands:,} hero hands")
