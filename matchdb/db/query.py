"""The query layer: open a database and answer at once, for one hand, every hand, or every table.

>>> import matchdb
>>> db = matchdb.open(path)
>>> round(db.win_rate("AhKh", "2c7dJh"), 6), round(db.equity("AhKh", "2c7dJh"), 6)
(0.580707, 0.572571)
>>> db.naive("ahkh", "2c 7d jh", players=3)
WinRate(hole='AhKh', board='2c7dJh', players=3, win_rate=0.3865834685168686)

Every question is carried to its canonical flop by one suit renaming
(:mod:`matchdb.core.canonical`); the answer depends only on the table of that flop,
read from the store's shards directly and kept in a bounded cache.

The whole database is public too: :meth:`MatchDB.built` says which tables
exist, :meth:`MatchDB.read_table` decodes one into a caller's buffer and
:meth:`MatchDB.tables` walks every built table with its canonical flop, orbit
size and the hands of its rows; the preflop table, ``matchdb verify``,
``matchdb export`` and the scripts use nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from matchdb.answers import (
    HandReport,
    HandTable,
    Multiway,
    Outcome,
    RangeEquity,
    WinRate,
)
from matchdb.core.canonical import (
    CANONICAL_FLOPS,
    CARD_MAP,
    N_FLOPS,
    ORBIT_SIZES,
    Canonical,
    canonicalize,
    local_cards,
    local_lookup,
)
from matchdb.core.cards import CardsLike, parse_cards
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, check_players, hand_order
from matchdb.core.pairs import N_PAIRS, PAIR_INDEX, PAIRS, board_columns
from matchdb.core.ranges import RangeLike, describe_range, range_weights
from matchdb.db.cache import TableCache
from matchdb.db.specs import as_range, check_known_hands, describe, is_preflop, one_hand, opponent_specs, text
from matchdb.equity.checks import check_possible
from matchdb.errors import (
    BoardError,
    CardError,
    DatabaseError,
    MatchdbError,
    NotReadyError,
    RangeError,
)
from matchdb.progress import logger, progress
from matchdb.storage import CHUNK_ROWS, ShardReader, default_path, open_database
from matchdb.storage.derived import decode_derived, derived_member, encode_derived, save_derived, tables_fingerprint
from matchdb.storage.files import is_url
from matchdb.storage.layout import check_index

if TYPE_CHECKING:
    from matchdb.answers.distributions import BoardDistributions, HandDistribution
    from matchdb.answers.preflop import PreflopMultiway, PreflopTable
    from matchdb.db.preflop import PreflopQuestions
    from matchdb.equity.heads_up import RangeResult
    from matchdb.equity.matchups import PreflopMatchups
    from matchdb.solver import Solution

__all__ = ["open", "MatchDB", "FlopTable", "opponent_list"]



@dataclass(frozen=True, kw_only=True)
class FlopTable:
    """One canonical flop's table and what a pass over the whole database needs to know of it.

    ``table`` is read-only and, during :meth:`MatchDB.tables`, lives in a buffer
    the next table reuses: copy it to keep it.
    """

    index: int  #: canonical index, 0..1754
    flop: tuple[int, ...]  #: the canonical flop's three card ids, ascending
    orbit: int  #: how many of the 22,100 flops it stands for (4, 12 or 24)
    cards: np.ndarray  #: (49,) card id of each local index
    hands: np.ndarray  #: (1176, 2) card ids of each row's hand (and each column's turn and river)
    table: np.ndarray  #: (1176, 1176) uint16 W


class MatchDB:
    """A read-only match-table database.

    Parameters
    ----------
    path : the store folder, a file written by ``matchdb pack``, or the http(s) URL of one.
    cache_tables : how many tables' worth of decoded chunks to keep (2.8 MB each).
    jit : answer single-hand questions with numba's compiled kernels (fastest once
        loaded, about 0.4 s to load); False answers them with numpy alone, what a
        process that asks one question wants. The answers are the same to the last bit.
    """

    def __init__(self, path: str | os.PathLike[str], cache_tables: int = 64, jit: bool = True) -> None:
        if isinstance(cache_tables, bool) or not isinstance(cache_tables, int) or cache_tables < 1:
            raise MatchdbError(f"cache_tables is {cache_tables!r}; expected a whole number of at least 1.")
        self.store = open_database(path)
        self.path = path if is_url(path) else Path(path)
        self.attrs = self.store.attrs
        self._reader = ShardReader(self.store)
        self._tables = TableCache(self._reader, cache_tables)
        self._lock = threading.Lock()
        self._kept: dict[str, object] = {}  # derived data read or computed once: kind -> answer
        self._preparing = threading.Lock()  # one computation of derived data at a time
        self._background = False  # derived data is being prepared in a thread (a server's start-up)
        self._tables_fingerprint: str | None = None
        self._jit = bool(jit)
        self._preflop: PreflopQuestions | None = None

    def __repr__(self) -> str:
        return f"MatchDB({str(self.path)!r})"

    @property
    def preflop_questions(self) -> PreflopQuestions:
        """The preflop half of this database: what answers a question whose board is empty
        (:class:`matchdb.db.preflop.PreflopQuestions`, made on first use)."""
        if self._preflop is None:
            from matchdb.db.preflop import PreflopQuestions

            with self._lock:
                if self._preflop is None:
                    self._preflop = PreflopQuestions(self)
        return self._preflop

    def info(self) -> dict[str, Any]:
        """Format, completeness and build provenance of the database."""
        return {
            "path": str(self.path),
            "packed": self.store.packed,
            "format": self.attrs["format"],
            "format_version": self.attrs["format_version"],
            "tables": N_FLOPS,
            "tables_built": len(self.built()),
            "chunk_rows": self.attrs["chunk_rows"],
            "codec": self.attrs["codec"],
            "provenance": self.attrs.get("provenance", {}),
        }

    # -- the whole database ---------------------------------------------------------

    def built(self) -> list[int]:
        """Canonical indices of the tables this database holds, ascending."""
        return self.store.built()

    def table(self, index: int) -> np.ndarray:
        """The whole W matrix of canonical flop ``index``, through the cache (read-only)."""
        return self._tables.table(check_index(index))

    def read_table(self, index: int, out: np.ndarray | None = None) -> np.ndarray:
        """Decode table ``index`` into ``out`` (a writable (1176, 1176) uint16 array) or a new array, bypassing the cache."""
        return self._reader.read_table(check_index(index), out=out)

    def tables(self, indices: Iterable[int] | None = None, show_progress: bool = False) -> Iterator[FlopTable]:
        """Every built table (or those of ``indices``), each decoded into one reused buffer, in index order.

        ``show_progress`` shows a bar on a terminal and logs a line every few
        seconds otherwise (see :mod:`matchdb.progress`).

        >>> from matchdb.core.cards import format_cards
        >>> [(t.index, t.orbit, format_cards(t.flop), format_cards(t.hands[768])) for t in db.tables([0, 326])]
        [(0, 4, '2c3c4c', 'KhAh'), (326, 24, '2c7dJh', 'KhAh')]
        """
        chosen = self.built() if indices is None else sorted({check_index(i) for i in indices})
        buffer = np.empty((N_PAIRS, N_PAIRS), dtype=np.uint16)
        view = buffer.view()
        view.flags.writeable = False
        for index in progress(chosen, len(chosen), "reading tables", unit="table", enabled=show_progress):
            self._reader.read_table(index, out=buffer)
            cards = local_cards(index)
            yield FlopTable(index=index, flop=tuple(int(c) for c in CANONICAL_FLOPS[index]),
                            orbit=int(ORBIT_SIZES[index]), cards=cards, hands=cards[PAIRS], table=view)

    # -- mapping cards into a table's frame -------------------------------------------

    @overload
    def _frame(self, hole: None, board: CardsLike) -> tuple[Canonical, np.ndarray, None]: ...
    @overload
    def _frame(self, hole: CardsLike, board: CardsLike) -> tuple[Canonical, np.ndarray, int]: ...
    def _frame(self, hole: CardsLike | None, board: CardsLike) -> tuple[Canonical, np.ndarray, int | None]:
        """(canonical form, board columns, row of the hole cards) of a question; no row when ``hole`` is None.

        Plain lists, not numpy, on this path: it runs on every query, and
        indexing numpy for one number costs more than the lookup itself.
        """
        canon = canonicalize(board, hole=() if hole is None else hole)
        local = local_lookup(canon.index)
        columns = board_columns([local[c] for c in canon.extra])
        if hole is None:
            return canon, columns, None
        if len(canon.hole) != 2:
            raise CardError(f"The hole cards {hole!r} are {len(canon.hole)} cards; expected 2.")
        a, b = canon.hole
        return canon, columns, _PAIR_ROW_LISTS[local[a]][local[b]]

    def _hand_frame(self, hole: CardsLike, board: CardsLike) -> tuple[Canonical, np.ndarray, int]:
        if hole is None:
            raise CardError("The hole cards are missing; expected two cards like 'AhKh'.")
        return self._frame(hole, board)

    def _weights(self, canon: Canonical, spec: object) -> np.ndarray:
        """Weight of each row in the canonical frame of a range in any form (see :func:`matchdb.core.ranges.range_weights`)."""
        hands = range_weights(spec)
        weights = np.zeros(N_PAIRS)
        rows = _hand_rows(canon.index, canon.perm)
        valid = rows >= 0
        weights[rows[valid]] = hands[valid]
        return weights

    # -- answers -------------------------------------------------------------------

    def naive(self, hole: CardsLike, board: CardsLike, players: int = 2) -> WinRate:
        """The naive win rate mean((1 - S) ** (players - 1)) of ``hole`` on a 3 to 5 card board (or preflop: ``""``), as an answer."""
        value = self.win_rate(hole, board, players)
        return WinRate(text(hole), text(board), int(players), value)

    def win_rate(self, hole: CardsLike, board: CardsLike, players: int = 2) -> float:
        """The naive win rate as a float: ``db.naive(...).win_rate``."""
        from matchdb.equity.heads_up import naive_win_rate

        if is_preflop(board):
            return self.preflop_questions.naive_win_rate(hole, check_players(players, high=10))
        canon, columns, row = self._hand_frame(hole, board)
        block = self._tables.chunk(canon.index, row // CHUNK_ROWS)
        value = naive_win_rate(block, row % CHUNK_ROWS, columns, players, jit=self._jit)
        if value != value:  # NaN
            raise BoardError("No turn and river are consistent with these hole cards and board.")
        return value

    def outcome(self, hole: CardsLike, board: CardsLike, villain: RangeLike = None) -> Outcome:
        """Exact heads-up win, tie and loss probabilities against a random hand or a range, card removal exact.

        ``villain`` is range text (``'QQ+,AKs'``), a list of hands, 1,326
        weights in :func:`matchdb.hand_order`, or None for any hand. An empty
        ``board`` asks before the flop (:mod:`matchdb.db.preflop`).

        >>> db.outcome("AcAd", "", "KhKs").equity
        0.8125548967940273
        """
        from matchdb.equity.heads_up import hand_vs_weights

        if is_preflop(board):
            return self.preflop_questions.outcome(hole, villain)

        canon, columns, row = self._hand_frame(hole, board)
        weights = check_possible(self._weights(canon, villain), f"range {describe_range(villain)!r}", text(board))
        table = self.table(canon.index)  # outside the try: a damaged table must say so, not blame the range
        try:
            win, tie, loss = hand_vs_weights(table, row, columns, weights, jit=self._jit)
        except MatchdbError:
            raise RangeError(
                f"No hand of the range {describe_range(villain)!r} can be dealt beside these hole cards and board."
            ) from None
        return Outcome.of(text(hole), text(board), describe_range(villain), win, tie, loss)

    def equity(self, hole: CardsLike, board: CardsLike, villain: RangeLike = None) -> float:
        """Exact heads-up equity (win + tie / 2) as a float: ``db.outcome(...).equity``."""
        return self.outcome(hole, board, villain).equity

    def report(self, hole: CardsLike, board: CardsLike, players: int = 2, villain: RangeLike = None) -> HandReport:
        """What ``matchdb query`` shows: the naive win rate for ``players`` and the exact heads-up outcome."""
        return HandReport.of(self.naive(hole, board, players), self.outcome(hole, board, villain))

    def range_equity(self, hero_range: RangeLike, villain_range: RangeLike, board: CardsLike) -> float:
        """Exact equity of a range against a range on a board: every consistent deal, weighted."""
        return self.range_outcome(hero_range, villain_range, board).equity

    def range_outcome(self, hero_range: RangeLike, villain_range: RangeLike, board: CardsLike) -> RangeEquity:
        """:meth:`range_equity` as an answer.

        Only the ranges' rows are compared (:func:`matchdb.equity.heads_up.range_vs_range`),
        so narrow ranges cost a fraction of a millisecond.
        """
        if is_preflop(board):
            return self.preflop_questions.range_outcome(hero_range, villain_range)
        canon, columns, _ = self._frame(None, board)
        hero = check_possible(self._weights(canon, hero_range), f"hero range {describe_range(hero_range)!r}", text(board))
        villain = check_possible(self._weights(canon, villain_range), f"villain range {describe_range(villain_range)!r}", text(board))
        result = _ranges_heads_up(self.table(canon.index), columns, hero, villain)
        return RangeEquity(hero=describe_range(hero_range), villain=describe_range(villain_range), board=text(board),
                           equity=result.equity, win=result.win, tie=result.tie, loss=result.loss)

    def multiway(
        self, hole: CardsLike, board: CardsLike, opponents: Any = 1, method: str = "auto", samples: int | None = None, seed: int | None = None
    ) -> Multiway:
        """Equity of a hand (or a hero range) against 1 to 9 opponents, card removal exact.

        ``opponents`` is a number of random opponents, or one entry per opponent:
        ``"random"``, a hand (``"QsQd"``), a range (text, a list of hands, 1,326
        weights, or :class:`matchdb.equity.opponents.ClassWeights`). ``method``: ``"auto"``
        (exact when affordable: up to three opponents that are not known hands on
        every street, four on the river, any number of known hands; else sampled),
        ``"exact"``, ``"sample"`` (``samples`` partial deals, ``seed`` reproduces
        them), or ``"independent"`` (the match-table article's formula: each
        opponent's beliefs combined as if independent, an approximation). An
        empty ``board`` asks before the flop (:mod:`matchdb.db.preflop`).

        >>> answer = db.multiway("AhKh", "2c7dJh", 2)
        >>> round(answer.equity, 12), answer.exact
        (0.375861338429, True)
        >>> [round(100 * e, 4) for e in db.multiway("KdQd", "AhKhQh", ["JcTc", "5h5s"]).player_equities]
        [18.9738, 47.3237, 33.7025]
        """
        from matchdb.equity.multiway import MultiwayResult, check_samples, multiway_outcome
        from matchdb.equity.opponents import independent_outcome

        samples = check_samples(samples)  # before any work: 10**30 is one sentence, not an OverflowError
        if is_preflop(board):
            return self.preflop_questions.multiway(hole, opponents, method, samples, seed)
        if method not in ("auto", "exact", "sample", "independent"):
            raise MatchdbError(f"The method {method!r} is unknown; expected 'auto', 'exact', 'sample' or 'independent'.")
        specs = opponent_specs(opponents)
        hand = one_hand(hole)
        hero: np.ndarray | int
        if hand is None:
            canon, columns, _ = self._frame(None, board)
            hero = check_possible(self._weights(canon, as_range(hole)), f"hero range {describe(hole)!r}", text(board))
        else:
            canon, columns, row = self._frame(hand, board)
            hero = row
        check_known_hands(specs, set(hand or ()) | set(parse_cards(board)), "the hero, the board or another opponent")
        weights, names = [], []
        for position, spec in enumerate(specs, start=1):
            name = f"range {describe(spec)!r} of opponent {position}"
            weights.append(check_possible(self._weights(canon, as_range(spec)), name, text(board)))
            names.append(describe(spec))
        table = self.table(canon.index)
        if method == "independent":
            if hand is None:
                raise MatchdbError("The independent-opponents formula takes one hand as the hero, not a range.")
            result = independent_outcome(table, columns, int(row), weights)
        elif isinstance(hero, np.ndarray) and len(weights) == 1 and method in ("auto", "exact"):  # a hero range (no hand):
            # the two ranges' rows compared
            counted = _ranges_heads_up(table, columns, hero, weights[0])
            result = MultiwayResult(win=counted.win, tie=counted.tie, loss=counted.loss, equity=counted.equity,
                                    players=(counted.equity, 1.0 - counted.equity), exact=True, standard_error=0.0,
                                    samples=0, seed=None, method="exact")
        else:
            result = multiway_outcome(table, columns, hero, weights, method=method, samples=samples, seed=seed)
        return Multiway.of(text(hole) if hand is not None else describe(hole), text(board), names, result)

    def distribution(self, hole: CardsLike, board: CardsLike, villain: RangeLike = None, bins: int = 50) -> HandDistribution:
        """How a hand's exact equity moves on the turn and river (:class:`matchdb.equity.distributions.HandDistribution`).

        On a flop or turn, against a random hand or a range: the equity after each
        turn card and on each runout (raw values and a histogram of ``bins``),
        EHS and EHS^2, the current hand strength and Billings' PPot and NPot.

        >>> d = db.distribution("AhKh", "2c7dJh")
        >>> round(d.ehs, 6), len(d.river_equities), int(d.river_counts.sum()), len(d.turn_cards)
        (0.572571, 1081, 1081, 47)
        """
        from matchdb.equity.distributions import hand_distribution

        canon, columns, row = self._hand_frame(hole, board)
        weights = None
        if villain is not None:
            weights = check_possible(self._weights(canon, villain), f"range {describe_range(villain)!r}", text(board))
        answer = hand_distribution(self.table(canon.index), canon.flop, row, columns, weights, bins)
        answer = answer.renamed(parse_cards(board), parse_cards(hole), canon.perm)
        return dataclasses.replace(answer, villain=describe_range(villain))

    def distributions(self, board: CardsLike, villain: RangeLike = None, bins: int = 50) -> BoardDistributions:
        """:meth:`distribution`'s figures for all 1,326 hands at once, in :func:`matchdb.hand_order` (NaN off the board).

        >>> every = db.distributions("2c7dJh")
        >>> round(float(every.ehs[matchdb.hand_index("AhKh")]), 6), every.grid("ppot").shape
        (0.572571, (13, 13))
        """
        from matchdb.equity.distributions import BoardDistributions, board_distributions

        canon, columns, _ = self._frame(None, board)
        weights = None
        if villain is not None:
            weights = check_possible(self._weights(canon, villain), f"range {describe_range(villain)!r}", text(board))
        frame = board_distributions(self.table(canon.index), canon.flop, columns, weights, bins)
        rows = _hand_rows(canon.index, canon.perm)
        on = rows >= 0
        take = np.where(on, rows, 0)

        def per_hand(values: np.ndarray, fill: float) -> np.ndarray:
            out = values[take]
            out[~on] = fill
            return out

        turn = frame.turn_equities
        if turn.shape[1]:
            turn = turn[:, CARD_MAP[canon.perm]]  # the column of real card c is that of its canonical card
        return BoardDistributions(
            board=parse_cards(board),
            hands=hand_order(),
            bins=frame.bins,
            valid=per_hand(frame.valid, False),
            ehs=per_hand(frame.ehs, np.nan),
            ehs2=per_hand(frame.ehs2, np.nan),
            hs=per_hand(frame.hs, np.nan),
            ppot=per_hand(frame.ppot, np.nan),
            npot=per_hand(frame.npot, np.nan),
            now=per_hand(frame.now, np.nan),
            river_counts=per_hand(frame.river_counts, 0),
            river_histogram=per_hand(frame.river_histogram, 0.0),
            turn_equities=per_hand(turn, np.nan),
            turn_counts=per_hand(frame.turn_counts, 0),
            turn_histogram=per_hand(frame.turn_histogram, 0.0),
            villain=describe_range(villain),
        )

    def drop_out(self, hole: CardsLike, board: CardsLike, players: int, stay: RangeLike, method: str = "auto", seed: int | None = None) -> Multiway:
        """Mick West's drop-out model: each of ``players - 1`` opponents stays in only with a hand in ``stay``.

        Each opponent stays with the chance p that a random hand (beside the hero's
        cards and the board) is in ``stay`` (weighted), independently of the others;
        the hero wins the pot when everyone folds, else shares it as
        :meth:`multiway` says against those who stayed, each holding ``stay``:
        equity = sum_m Binomial(m; players - 1, p) E_m. An approximation by design
        (staying is independent across opponents), labelled ``method="drop-out"``.

        >>> answer = db.drop_out("AhKh", "2c7dJh", 3, "66+")
        >>> answer.method, answer.exact, 0.5 < answer.equity < 1
        ('drop-out', False, True)
        """
        from math import comb

        players = check_players(players, high=10)
        hand = one_hand(hole)
        if hand is None:
            raise CardError(f"The hole cards {hole!r} are not two cards like 'AhKh'; expected the hero's hand.")
        dead = set(hand) | set(parse_cards(board))
        stay_weights = range_weights(as_range(stay))
        possible = [i for i in np.flatnonzero(stay_weights) if int(HAND_HIGH[i]) not in dead and int(HAND_LOW[i]) not in dead]
        left = 52 - len(dead)
        p = float(stay_weights[possible].sum()) / (left * (left - 1) / 2)
        if p == 0:
            raise RangeError(f"No hand of the range {describe(stay)!r} is possible beside these hole cards and board.")
        n = players - 1
        if seed is None:  # one seed for every sampled part, reported so the answer can be reproduced
            seed = int(np.random.default_rng().integers(2**31))
        win = equity = (1 - p) ** n  # everyone folds: the hero wins
        tie = variance = 0.0
        samples = 0
        for m in range(1, n + 1):
            chance = comb(n, m) * p**m * (1 - p) ** (n - m)
            answer = self.multiway(hole, board, [stay] * m, method=method, seed=seed)
            equity += chance * answer.equity
            win += chance * answer.win
            tie += chance * answer.tie
            variance += (chance * (answer.standard_error or 0.0)) ** 2
            samples += answer.samples
        return Multiway(
            hole=text(hole), board=text(board), opponents=tuple([describe(stay)] * n), equity=equity, win=win, tie=tie,
            loss=max(0.0, 1.0 - win - tie), exact=False, standard_error=float(np.sqrt(variance)) if samples else None,
            samples=samples, seed=seed if samples else None, method="drop-out",
        )

    def _per_hand(self, board: CardsLike, figure: str, per_row: np.ndarray, canon: Canonical) -> HandTable:
        rows = _hand_rows(canon.index, canon.perm)
        values = np.where(rows >= 0, per_row[rows], np.nan)
        values.flags.writeable = False
        return HandTable(board=text(board), figure=figure, hands=hand_order(), values=values)

    def win_rates(self, board: CardsLike, players: int = 2) -> HandTable:
        """The naive win rate of every private hand on a board at once."""
        from matchdb.equity.heads_up import naive_win_rates

        canon, columns, _ = self._frame(None, board)
        per_row = naive_win_rates(self.table(canon.index), columns, players)
        return self._per_hand(board, f"naive win rate, {players} players", per_row, canon)

    def equities(self, board: CardsLike, villain: RangeLike = None) -> HandTable:
        """Exact heads-up equity of every private hand on a board (or preflop: ``""``) against a random hand or a range."""
        from matchdb.equity.heads_up import all_hands_scores

        if is_preflop(board):
            return self.preflop_questions.equities(villain)

        canon, columns, _ = self._frame(None, board)
        weights = check_possible(self._weights(canon, villain), f"range {describe_range(villain)!r}", text(board))
        score, deals = all_hands_scores(self.table(canon.index), columns, weights)
        per_row = np.full(len(deals), np.nan)
        np.divide(score, deals, out=per_row, where=deals > 0)
        return self._per_hand(board, f"exact equity vs {describe_range(villain)}", per_row, canon)

    # -- derived data: the preflop tables and matchups ------------------------------------

    #: Whether a question may compute derived data this database lacks (once, about half a minute, with progress on a
    #: terminal): a store built before ``matchdb build`` computed it. A server answers from a database whose data it
    #: prepares at start-up instead (:meth:`prepare_in_background`), and its worker processes never compute it.
    compute_on_first_use = True

    def preflop_multiway(self, show_progress: bool | None = None) -> PreflopMultiway:
        """Every starting-hand class's equity against 1 to 9 random opponents (:class:`matchdb.answers.PreflopMultiway`).

        Exact against one and two opponents (counted from every table); against 3 to 9 sampled
        over every board and hero hand to a standard error of at most 0.0002 (shipped with the
        package, :mod:`matchdb.equity.preflop`). Derived data: ``matchdb build`` computes it
        after the tables and keeps it in the store (see :meth:`prepare`).
        """
        from matchdb.answers.preflop import PREFLOP_MULTIWAY_KIND

        table: PreflopMultiway = self._derived(PREFLOP_MULTIWAY_KIND, show_progress)
        return table

    def preflop_matchups(self, show_progress: bool | None = None) -> PreflopMatchups:
        """Every heads-up preflop matchup's wins and ties (:class:`matchdb.equity.matchups.PreflopMatchups`).

        What preflop range questions use (:mod:`matchdb.db.preflop`). Derived data:
        ``matchdb build`` computes it after the tables and keeps it in the store (see :meth:`prepare`).
        """
        from matchdb.equity.matchups import MATCHUPS_KIND

        matchups: PreflopMatchups = self._derived(MATCHUPS_KIND, show_progress)
        return matchups

    def preflop(self, players: int | Iterable[int] | None = None, show_progress: bool | None = None) -> PreflopTable:
        """Preflop figures of the 169 starting-hand classes (:class:`matchdb.answers.PreflopTable`).

        ``players`` (an int or several of 2..10; default all) picks the naive win
        rates the returned table holds; the equity is always there. Derived data:
        ``matchdb build`` computes it after the tables and keeps it in the store
        (see :meth:`prepare`).
        """
        from matchdb.answers.preflop import PLAYERS, PREFLOP_KIND

        asked = [players] if isinstance(players, (int, np.integer)) else players  # a bool is refused as a count
        wanted = [check_players(n, low=PLAYERS[0], high=PLAYERS[-1]) for n in (asked or PLAYERS)]
        table: PreflopTable = self._derived(PREFLOP_KIND, show_progress)
        return table.with_players(wanted)

    def solve(self, oop: RangeLike, ip: RangeLike, board: CardsLike, pot: int, stack: int, bet: Any = "",
              raise_: Any = "", **options: Any) -> Solution:
        """Solve a heads-up postflop spot exactly on the match tables: Discounted CFR to a target exploitability.

        ``oop`` and ``ip``: the two ranges (any form :func:`matchdb.core.ranges.range_weights`
        reads, weights included); ``board``: a flop, turn or river; ``pot`` and ``stack``:
        the starting pot and the effective stack in whole chips; ``bet`` and ``raise_``:
        sizes as solver users write them (``"33%, 75%, a"``, ``"2.5x"``, ``"e"``; one text
        for every street and player, or a mapping like ``{"flop": "33%", "ip river": "a"}``).
        Options (keywords): ``donk`` (OOP's donk sizes on the turn and river), ``rake``
        and ``rake_cap``, ``target`` (exploitability to reach, % of the pot, default 0.5),
        ``max_iterations`` (1000), ``add_allin`` (1.5), ``force_allin`` (0.15), ``merge``
        (0.1), ``compressed`` (16-bit numbers), ``max_memory`` (bytes; refused before
        allocating beyond it), ``threads``, ``locks`` (node locking), ``show_progress``,
        ``gamma`` (3). Returns a :class:`matchdb.solver.Solution`; see the
        [solver guide](../guide/solver.md).

        >>> solution = db.solve("AA,QQ", "KK", "2c7dJh3s8c", pot=100, stack=100, bet="a", target=0.1)
        >>> solution.root.actions
        ['Check', 'All-in 100']
        """
        from matchdb.solver import solve

        return solve(self, oop, ip, board, pot, stack, bet, raise_, **options)

    def load_solution(self, path: str | os.PathLike[str]) -> Solution:
        """A solution saved by :meth:`matchdb.solver.Solution.save`, checked against this database's table of its flop."""
        from matchdb.solver import load

        return load(path, self)

    def missing_derived(self) -> list[str]:
        """The kinds of derived data (:data:`matchdb.equity.derived.DERIVED`) a complete database lacks or holds stale;
        [] for a database lacking tables, whose questions never need them."""
        if len(self.built()) < N_FLOPS:
            return []
        from matchdb.equity.derived import DERIVED

        return [kind for kind in DERIVED if self.stored_derived(kind) is None]

    def prepare(self, kinds: Iterable[str] | None = None, show_progress: bool | None = None) -> list[str]:
        """Compute the derived data ``kinds`` (default all) this complete database lacks, in one pass over its tables,
        and keep it in the store; returns the kinds computed ([] when nothing was missing or tables are).

        ``matchdb build`` calls it after the tables, ``matchdb pack`` before packing; a question
        that needs a kind a store lacks calls it for that kind, unless :attr:`compute_on_first_use`
        is off. ``show_progress`` shows the tables done (default: on a terminal only, standard error).
        A store that cannot be written (a packed file) keeps the data in this object only.
        """
        from matchdb.equity.derived import DERIVED, compute_derived

        wanted = list(DERIVED) if kinds is None else list(kinds)
        if len(self.built()) < N_FLOPS:
            return []
        with self._preparing:
            missing = [kind for kind in wanted if self.stored_derived(kind) is None]
            if not missing:
                return []
            shown = sys.stderr.isatty() if show_progress is None else show_progress
            computed = compute_derived(self.tables(range(N_FLOPS)), missing, show_progress=shown)
            fingerprint = self._fingerprint()
            for kind, value in computed.items():
                save_derived(self.store, kind, DERIVED[kind].version, fingerprint, value.to_stored())
                with self._lock:
                    self._kept[kind] = value
            return missing

    def prepare_in_background(self, then: Callable[[list[str]], object] | None = None) -> threading.Thread | None:
        """Prepare the missing derived data in a thread (what a server does at start-up); None when none is missing.

        Until it is done, a question that needs it raises :class:`matchdb.errors.NotReadyError`
        (HTTP 503 with Retry-After) instead of computing it; :attr:`compute_on_first_use` is off
        from now on. ``then`` is called with the kinds computed once they are kept.
        """
        self.compute_on_first_use = False
        missing = self.missing_derived()
        if not missing:
            return None
        self._background = True
        logger.info("preparing the derived data this database lacks (%s), once: about a minute", ", ".join(missing))

        def run() -> None:
            try:
                done = self.prepare(missing, show_progress=False)
                logger.info("the derived data is ready")
                if then is not None:
                    then(done)
            except Exception:  # a damaged table, say: the questions that need the data say so when they are asked
                logger.exception("preparing the derived data of %s failed", self.path)
            finally:
                self._background = False

        thread = threading.Thread(target=run, name="matchdb-prepare", daemon=True)
        thread.start()
        return thread

    def stored_derived(self, kind: str) -> Any:
        """Derived data ``kind`` when this object holds it or the store does (intact and computed from these
        tables), else None; never computes it. Raises when the stored file was altered or damaged."""
        with self._lock:
            kept = self._kept.get(kind)
        if kept is not None:
            return kept
        member = derived_member(kind)
        data = self.store.read_member(member)
        if data is None or len(self.built()) < N_FLOPS:
            return None
        return self.adopt_derived(kind, data, member)

    def adopt_derived(self, kind: str, data: bytes, member: str | None = None) -> Any:
        """Keep derived data ``kind`` from the bytes of its file (checked against its digests and these tables); the
        answer, or None when the file is stale. How a server's worker processes get what the server prepared."""
        from matchdb.equity.derived import DERIVED

        entry = DERIVED[kind]
        content = decode_derived(data, member or derived_member(kind), kind, entry.version, self._fingerprint(), self.store.name)
        if content is None:
            return None
        value = entry.read(content)
        with self._lock:
            self._kept[kind] = value
        return value

    def derived_bytes(self, kind: str) -> bytes | None:
        """The file of derived data ``kind`` as this object holds it (computed or read), or None."""
        from matchdb.equity.derived import DERIVED

        with self._lock:
            kept: Any = self._kept.get(kind)
        if kept is None:
            return None
        return encode_derived(kind, DERIVED[kind].version, self._fingerprint(), kept.to_stored())

    def _fingerprint(self) -> str:
        """The fingerprint of all 1,755 tables (their manifests' digests), read once per open database."""
        with self._lock:
            if self._tables_fingerprint is not None:
                return self._tables_fingerprint
        fingerprint = tables_fingerprint(self.store, range(N_FLOPS))
        with self._lock:
            self._tables_fingerprint = fingerprint
        return fingerprint

    def _derived(self, kind: str, show_progress: bool | None) -> Any:
        """Derived data ``kind``: kept, read from the store, else computed (:meth:`prepare`) where allowed."""
        from matchdb.equity.matchups import MATCHUPS_KIND

        value = self.stored_derived(kind)
        if value is not None:
            return value
        if len(self.built()) < N_FLOPS:
            tables_fingerprint(self.store, range(N_FLOPS))  # names the first table missing, and how to build it
        if self._background or not self.compute_on_first_use:
            raise NotReadyError(
                f"The preflop data of this database ({derived_member(kind)}) is being prepared, once, at the server's "
                "start-up (about a minute); expected the question again shortly."
            )
        # the preflop table and the multiway table come from the same counts: both at once
        kinds = [kind] if kind == MATCHUPS_KIND else [kind] + [k for k in self.missing_derived() if k not in (kind, MATCHUPS_KIND)]
        self.prepare(kinds, show_progress)
        value = self.stored_derived(kind)
        assert value is not None
        return value






def opponent_list(villains: Iterable[object] | None = (), random: int | None = None) -> list[object]:
    """The opponents of a multiway question as the command line and the service take them.

    ``villains`` (ranges, hands or ``"random"``, one per opponent) then
    ``random`` more random hands; one random opponent when neither is given.
    What :meth:`MatchDB.multiway` takes as ``opponents``.

    >>> opponent_list(["QQ+"], 2), opponent_list(), opponent_list(["QQ+"], 0)
    (['QQ+', 'random', 'random'], ['random'], ['QQ+'])
    >>> opponent_list([], 0)
    Traceback (most recent call last):
    ...
    matchdb.errors.MatchdbError: The question has no opponents (0 random ones and no villain); expected 1..9 opponents.
    """
    if random is not None and (isinstance(random, bool) or not isinstance(random, (int, np.integer)) or not 0 <= random <= 9):
        raise MatchdbError(f"The number of opponents {random!r} is out of range; expected 0..9.")
    opponents = list(villains or ()) + ["random"] * int(random or 0)
    if not opponents and random is not None:  # 'opponents=0' alone asks for no opponent: not one random one
        raise MatchdbError("The question has no opponents (0 random ones and no villain); expected 1..9 opponents.")
    return opponents or ["random"]


def _ranges_heads_up(table: np.ndarray, columns: np.ndarray, hero: np.ndarray, villain: np.ndarray) -> RangeResult:
    """A hero range against a villain range on one table: the two ranges' rows compared
    (:func:`matchdb.equity.heads_up.range_vs_range`), what range_outcome and a hero range's multiway heads-up ask."""
    from matchdb.equity.heads_up import range_vs_range

    try:
        return range_vs_range(table, columns, hero, villain)
    except MatchdbError as error:
        if isinstance(error, DatabaseError):
            raise
        raise RangeError("No deal is possible: every hero hand collides with every villain hand.") from None





_PAIR_ROW = PAIR_INDEX.astype(np.int64)  # for many hands at once
_PAIR_ROW_LISTS = PAIR_INDEX.tolist()  # for one hand: a list lookup is cheaper than numpy's


@lru_cache(maxsize=4096)
def _hand_rows(index: int, perm: int) -> np.ndarray:
    """Row in canonical table ``index`` of each of the 1,326 hands after renaming suits by ``perm``; -1 off the table."""
    local = np.asarray(local_lookup(index))
    la = local[CARD_MAP[perm, HAND_HIGH]]
    lb = local[CARD_MAP[perm, HAND_LOW]]
    rows = np.where((la >= 0) & (lb >= 0), _PAIR_ROW[la, lb], -1)
    rows.flags.writeable = False
    return rows


def open(path: str | os.PathLike[str] | None = None, cache_tables: int = 64, jit: bool = True) -> MatchDB:
    """Open the database at ``path`` read-only (default ``$MATCHDB_PATH``, else :func:`matchdb.storage.default_path`)."""
    return MatchDB(path if path is not None else default_path(), cache_tables=cache_tables, jit=jit)
