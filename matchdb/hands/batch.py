"""The compiled replay: many records at once through the engine's rule kernels, for counts and statistics.

:func:`matchdb.hands.replay` and :func:`matchdb.hands.analyse` send records
here in blocks when they need no per-action log: one numba function builds
each hand's deck (the same stand-ins for hidden cards as
:func:`matchdb.hands.single.table_setup`), seats and plays it with the
compiled kernels of :mod:`matchdb.play.recorded` (the engine's own rules, as
the Python :class:`~matchdb.play.engine.Hand` plays them, and the same
seating and count of chips as the Python replay), compares the payments
with the record and counts each seat's statistics. A hand it refuses, or
whose all-in is adjusted, is replayed again by
:func:`~matchdb.hands.single.replay_hand` for its sentence or its exact
expectation, so both paths give the same answers (the tests compare them
hand by hand).

>>> from matchdb.hands.reader import read_text
>>> text = '''
... variant = 'NT'
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 6', 'p1 f', 'p2 f']
... winnings = [0, 0, 5]
... '''
>>> block = Block.of(list(read_text(text, "b.phh")))
>>> block.run()
>>> STATUS_NAMES[int(block.status[0])], block.won[0, :3].tolist()
('identical', [0, 0, 5])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import chain, compress, count, repeat
from operator import add, is_, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.hands.reader import (
    BET_RAISE,
    CHECK_CALL,
    DB,
    DH,
    FOLD,
    SHOW,
    Record,
    Refusal,
)
from matchdb.hands.single import (
    NOTE_DEAD_POST,
    NOTE_FINISHING,
    NOTE_HIDDEN_SPLIT,
    NOTE_OPEN_FOLD,
    NOTE_SPLIT_RAKED,
    NOTE_UNCALLED,
    NOTES,
    ReplayError,
    ReplayReport,
    TableParameters,
    replay_hand,
    table_parameters,
)
from matchdb.jit import jit
from matchdb.play.engine import MAX_SEATS
from matchdb.play.recorded import (
    ACTION_FACTS,
    PLAYED,
    action_facts_kernel,
    new_state,
    play_kernel,
    seat_kernel,
    settle_kernel,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["BLOCK", "FACT_NAMES", "STATUS_NAMES", "Block", "replay_blocks"]

#: Hands per compiled block.
BLOCK = 256

MAX = MAX_SEATS
IDENTICAL, RAKED, UNRECORDED = 0, 1, 2
REFUSED = 10  # any refusal: the Python replay gives its reason and sentence
#: Status codes of :attr:`Block.status`.
STATUS_NAMES = {IDENTICAL: "identical", RAKED: "raked", UNRECORDED: "unrecorded", REFUSED: "refused"}
#: Columns of :attr:`Block.facts`, per seat.
FACT_NAMES = (*ACTION_FACTS, "flop", "showdown", "showdown_win", "alive")
_KINDS = (DB, FOLD, CHECK_CALL, BET_RAISE)  # the record's kinds that play_kernel plays: board, fold, check/call, raise
_OP_COLUMNS = 7  # kind, player, amount, card count, three cards
_META = ("seats", "small_blind", "big_blind", "ante", "button", "first", "end", "paid", "finishing", "rules", "opener",
         "party", "notes", "post_seats")


def _op_row(op: tuple[int, int, Any]) -> tuple[int, ...]:
    kind, who, value = op
    if kind in (DH, DB, SHOW):
        cards = tuple(value[:3])
        return (kind, who, 0, len(value), *cards, *(-1,) * (3 - len(cards)))
    return (kind, who, int(value), 0, -1, -1, -1)


_ROWS: dict[tuple[int, int, Any], bytes] = {}  # op -> its row's bytes


@dataclass
class Block:
    """Records as arrays for :meth:`run`, and after it, per hand: status, payments, final stacks and facts."""

    records: list[Record]
    meta: np.ndarray
    stacks: np.ndarray
    posts: np.ndarray
    winnings: np.ndarray
    finishing: np.ndarray
    ops: np.ndarray
    status: np.ndarray
    won: np.ndarray
    final: np.ndarray
    contributions: np.ndarray
    rake: np.ndarray
    adjust: np.ndarray  # board cards dealt when the betting ended, where the all-in is adjusted; else -1
    facts: np.ndarray
    notes: np.ndarray  # per hand, the NOTES bits of what the replay noted
    paid: np.ndarray  # per hand and seat, what the record pays from the pot (the engine's payment when unrecorded)

    @classmethod
    def of(cls, records: Sequence[Record], tables: Sequence[TableParameters] | None = None) -> Block:
        """Encode records whose table the engine plays (others are refused: check with ``table_parameters`` first).

        ``tables`` holds each record's ``table_parameters`` when the caller has them already.
        """
        h = len(records)
        if tables is None:
            tables = [table_parameters(record) for record in records]
        # the ops: one cached row of bytes per distinct op, joined
        ops_of = [record.ops for record in records]
        every_op = list(chain.from_iterable(ops_of))
        rows: list[Any] = list(map(_ROWS.get, every_op))
        try:
            joined = b"".join(rows)
        except TypeError:  # ops not met before (None): their rows made and cached
            if len(_ROWS) > 200_000:
                _ROWS.clear()
            for k in compress(count(), map(is_, rows, repeat(None))):
                rows[k] = _ROWS[every_op[k]] = np.array(_op_row(every_op[k]), dtype=np.int64).tobytes()
            joined = b"".join(rows)
        ops = np.frombuffer(joined, dtype=np.int64).reshape(-1, _OP_COLUMNS).copy()
        lengths = np.fromiter(map(len, ops_of), dtype=np.int64, count=h)
        ends = np.cumsum(lengths)
        # the table of each hand, then its seats' amounts scattered into rows of MAX
        table_stacks = list(map(itemgetter(4), tables))
        sizes = np.fromiter(map(len, table_stacks), dtype=np.int64, count=h)
        meta = np.zeros((h, len(_META)), dtype=np.int64)
        if h:
            meta[:, 0] = sizes
            meta[:, 1:5] = np.fromiter(chain.from_iterable(map(itemgetter(0, 1, 2, 3), tables)), dtype=np.int64,
                                       count=4 * h).reshape(h, 4)
        meta[:, 5] = ends - lengths
        meta[:, 6] = ends
        paid = [record.winnings for record in records]
        finishing = [record.finishing_stacks for record in records]
        meta[:, 7] = [x is not None for x in paid]
        meta[:, 8] = [x is not None for x in finishing]
        if h:
            meta[:, 9:] = np.array(list(map(itemgetter(7, 6, 9, 8, 10), tables)), dtype=np.int64)
        total = int(sizes.sum())
        hand_of = np.repeat(np.arange(h), sizes)
        seat_of = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)

        def seats(values: Iterable[Any]) -> np.ndarray:  # rows of seat amounts; a None row raises TypeError
            out = np.zeros((h, MAX), dtype=np.int64)
            out[hand_of, seat_of] = np.fromiter(chain.from_iterable(values), dtype=np.int64, count=total)
            return out

        pad = (0,) * MAX
        stacks = seats(table_stacks)
        posts = np.zeros((h, MAX), dtype=np.int64)
        for k, t in enumerate(tables):
            if t.posts is not None:
                posts[k, :len(t.posts)] = t.posts
        try:
            winnings = seats(paid)
        except TypeError:  # hands without recorded winnings (None): zeros
            winnings = seats(pad[:len(record.stacks)] if x is None else x for record, x in zip(records, paid, strict=True))
        if finishing.count(None) == h:
            finishing_array = np.zeros((h, MAX), dtype=np.int64)
        else:
            finishing_array = seats(
                pad[:len(record.stacks)] if x is None
                else x if None not in record.stacks
                else [-1 if a is None or s is None else a for a, s in zip(x, record.stacks, strict=True)]
                for record, x in zip(records, finishing, strict=True))
        return cls(list(records), meta, stacks, posts, winnings, finishing_array, ops, np.zeros(h, dtype=np.int64),
                   np.zeros((h, MAX), dtype=np.int64), np.zeros((h, MAX), dtype=np.int64),
                   np.zeros((h, MAX), dtype=np.int64), np.zeros(h, dtype=np.int64), np.full(h, -1, dtype=np.int64),
                   np.zeros((h, MAX, len(FACT_NAMES)), dtype=np.int64), np.zeros(h, dtype=np.int64),
                   np.zeros((h, MAX), dtype=np.int64))

    def run(self) -> None:
        """Replay every hand of the block (fills the result arrays)."""
        longest = int((self.meta[:, 6] - self.meta[:, 5]).max()) if len(self.meta) else 0
        g, p, log = new_state(longest + 3 * MAX + 8)
        _replay_block(self.meta, self.stacks, self.posts, self.winnings, self.finishing, self.ops, g, p, log, self.status,
                      self.won, self.final, self.contributions, self.rake, self.adjust, self.facts, self.notes, self.paid,
                      STRAIGHT_TOP, FLUSH_VALUE)

    def refusal(self, k: int) -> ReplayError:
        """The refusal of hand ``k`` (status REFUSED), as the Python replay words it."""
        try:
            replay_hand(self.records[k], steps=False)
        except ReplayError as error:
            # a fresh error: the caught one's traceback reaches the caller's frame, which holds the error (and
            # this block) in a reference cycle only the garbage collector would free
            return ReplayError(str(error), error.reason)
        return ReplayError(f"Hand {self.records[k].label} was refused by the compiled replay but not by the "
                           "Python one; please report it.", "disagreement")


@jit
def _extreme(
    hole0: int,
    hole1: int,
    board: NDArray[np.int64],
    left: NDArray[np.int64],
    nleft: int,
    strongest: bool,
    cards: NDArray[np.int64],
    counts: NDArray[np.int32],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> tuple[int, int]:
    """The weakest (or strongest) completion of a hidden hand from ``left[:nleft]``, as the Python replay picks."""
    for j in range(5):
        cards[2 + j] = board[j]
    best_value = -1
    best_a = -1
    best_b = -1
    if hole0 >= 0 or hole1 >= 0:
        known = hole0 if hole0 >= 0 else hole1
        for i in range(nleft):
            cards[0] = known
            cards[1] = left[i]
            v = evaluate_with(cards, counts, straight_top, flush_value)
            if best_a < 0 or (strongest and v > best_value) or (not strongest and v < best_value):
                best_value, best_a, best_b = v, known, left[i]
        return best_a, best_b
    # Both cards hidden: a pair's value is the flush's where the board's suit of three or more and the pair
    # make five of it, else it depends on the seven ranks alone (valued once per pair of ranks, on stand-in
    # cards of those ranks whose suits make no flush): the same values as evaluating every pair, far faster.
    suit_count = np.zeros(4, dtype=np.int64)
    suit_mask = np.zeros(4, dtype=np.int64)
    for j in range(5):
        suit_count[board[j] // 13] += 1
        suit_mask[board[j] // 13] |= 1 << (board[j] % 13)
    flush_suit = -1
    for suit in range(4):
        if suit_count[suit] >= 3:
            flush_suit = suit
    by_ranks = np.full((13, 13), -1, dtype=np.int64)
    for i in range(nleft):
        a = left[i]
        rank_a = a % 13
        for j in range(i + 1, nleft):
            b = left[j]
            rank_b = b % 13
            v = -1
            if flush_suit >= 0:
                in_suit = suit_count[flush_suit]
                mask = suit_mask[flush_suit]
                if a // 13 == flush_suit:
                    in_suit += 1
                    mask |= 1 << rank_a
                if b // 13 == flush_suit:
                    in_suit += 1
                    mask |= 1 << rank_b
                if in_suit >= 5:
                    v = flush_value[mask]
            if v < 0:
                v = by_ranks[rank_a, rank_b]
                if v < 0:
                    cards[0] = rank_a
                    cards[1] = 13 + rank_b
                    for k in range(5):
                        cards[2 + k] = 13 * ((k + 2) % 4) + board[k] % 13
                    v = evaluate_with(cards, counts, straight_top, flush_value)
                    by_ranks[rank_a, rank_b] = v
            if best_a < 0 or (strongest and v > best_value) or (not strongest and v < best_value):
                best_value, best_a, best_b = v, a, b
    return best_a, best_b


@jit
def _remove(left: NDArray[np.int64], nleft: int, card: int) -> int:
    for i in range(nleft):
        if left[i] == card:
            for j in range(i, nleft - 1):
                left[j] = left[j + 1]
            return nleft - 1
    return nleft


@jit
def _replay_block(
    meta: NDArray[np.int64],
    stacks: NDArray[np.int64],
    posts: NDArray[np.int64],
    winnings: NDArray[np.int64],
    finishing: NDArray[np.int64],
    ops: NDArray[np.int64],
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    log: NDArray[np.int64],
    status: NDArray[np.int64],
    won: NDArray[np.int64],
    final: NDArray[np.int64],
    contributions: NDArray[np.int64],
    rake: NDArray[np.int64],
    adjust: NDArray[np.int64],
    facts: NDArray[np.int64],
    notes: NDArray[np.int64],
    paid: NDArray[np.int64],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
) -> None:
    holes = np.full((MAX, 2), -1, dtype=np.int64)
    shown = np.zeros(MAX, dtype=np.int64)
    known = np.zeros(MAX, dtype=np.int64)
    hidden = np.zeros(MAX, dtype=np.int64)
    folded = np.zeros(MAX, dtype=np.int64)
    board = np.full(5, -1, dtype=np.int64)
    used = np.zeros(52, dtype=np.int64)
    left = np.zeros(52, dtype=np.int64)
    deck = np.zeros(52, dtype=np.int64)
    dealt_board = np.zeros(5, dtype=np.int64)
    cards = np.zeros(7, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int32)
    returned = np.zeros(MAX, dtype=np.int64)
    before = np.zeros(MAX, dtype=np.int64)
    less = np.zeros(MAX, dtype=np.int64)
    folded_at = np.zeros(MAX, dtype=np.int64)
    for h in range(meta.shape[0]):
        _replay_hand(h, False, meta, stacks, posts, winnings, finishing, ops, log, status, won, final, contributions,
                     rake, adjust, facts, notes, paid, straight_top, flush_value, g, p, holes, shown, known,
                     hidden, folded, board, used, left, deck, dealt_board, cards, counts, returned, before, less,
                     folded_at)
        if status[h] == REFUSED and meta[h, 13] != 0:
            # a post the record counts as dead money (Ongame's dead small blind): the second reading
            _replay_hand(h, True, meta, stacks, posts, winnings, finishing, ops, log, status, won, final,
                         contributions, rake, adjust, facts, notes, paid, straight_top, flush_value, g, p, holes, shown,
                         known, hidden, folded, board, used, left, deck, dealt_board, cards, counts, returned,
                         before, less, folded_at)
            if status[h] != REFUSED:
                notes[h] |= NOTE_DEAD_POST


@jit
def _replay_hand(
    h: int,
    dead: bool,
    meta: NDArray[np.int64],
    stacks: NDArray[np.int64],
    posts: NDArray[np.int64],
    winnings: NDArray[np.int64],
    finishing: NDArray[np.int64],
    ops: NDArray[np.int64],
    log: NDArray[np.int64],
    status: NDArray[np.int64],
    won: NDArray[np.int64],
    final: NDArray[np.int64],
    contributions: NDArray[np.int64],
    rake: NDArray[np.int64],
    adjust: NDArray[np.int64],
    facts: NDArray[np.int64],
    notes: NDArray[np.int64],
    paid: NDArray[np.int64],
    straight_top: NDArray[np.int8],
    flush_value: NDArray[np.int32],
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    holes: NDArray[np.int64],
    shown: NDArray[np.int64],
    known: NDArray[np.int64],
    hidden: NDArray[np.int64],
    folded: NDArray[np.int64],
    board: NDArray[np.int64],
    used: NDArray[np.int64],
    left: NDArray[np.int64],
    deck: NDArray[np.int64],
    dealt_board: NDArray[np.int64],
    cards: NDArray[np.int64],
    counts: NDArray[np.int32],
    returned: NDArray[np.int64],
    before: NDArray[np.int64],
    less: NDArray[np.int64],
    folded_at: NDArray[np.int64],
) -> None:
    """Replay hand ``h`` of the block (posts in seats ``meta[h, 13]`` as dead money when ``dead``)."""
    n = meta[h, 0]
    first = meta[h, 5]
    end = meta[h, 6]
    status[h] = IDENTICAL
    notes[h] = meta[h, 12]
    # -- the deck: shown cards in place; which hands a showdown knows (single.showdown_hands)
    holes[:] = -1
    shown[:] = 0
    known[:] = 0
    hidden[:] = 0
    folded[:] = 0
    board[:] = -1
    used[:] = 0
    nb = 0
    for o in range(first, end):
        kind = ops[o, 0]
        who = ops[o, 1]
        if kind == DH or kind == SHOW:
            for j in range(min(ops[o, 3], 2)):
                if ops[o, 4 + j] >= 0:
                    holes[who, j] = ops[o, 4 + j]
            if ops[o, 3] == 2 and ops[o, 4] >= 0 and ops[o, 5] >= 0:
                shown[who] = 1
                if kind == SHOW:  # single.showdown_hands: shown at a showdown
                    known[who] = 1
        elif kind == DB:
            for j in range(ops[o, 3]):
                if nb < 5:
                    board[nb] = ops[o, 4 + j]
                nb += 1
        elif kind == FOLD:
            folded[who] = 1
    if nb > 5:
        status[h] = REFUSED
        return
    duplicate = False
    for s in range(n):
        for j in range(2):
            if holes[s, j] >= 0:
                used[holes[s, j]] += 1
    for j in range(min(nb, 5)):
        if board[j] >= 0:
            used[board[j]] += 1
    nleft = 0
    for c in range(52):
        if used[c] > 1:
            duplicate = True
        if used[c] == 0:
            left[nleft] = c
            nleft += 1
    if duplicate:
        status[h] = REFUSED
        return
    board_known = nb == 5
    for j in range(5):
        if board[j] < 0:
            board_known = False
    live = 0
    for s in range(n):
        if folded[s] == 0:
            live += 1
    if board_known and live >= 2:
        for s in range(n):
            if folded[s] != 0 or known[s] != 0:
                continue
            if meta[h, 7] != 0 and winnings[h, s] > 0:  # paid though hidden: the strongest cards left
                a, b = _extreme(holes[s, 0], holes[s, 1], board, left, nleft, True, cards, counts,
                                straight_top, flush_value)
                holes[s, 0] = a
                holes[s, 1] = b
                nleft = _remove(left, nleft, a)
                nleft = _remove(left, nleft, b)
            else:
                hidden[s] = 1
    fill = 0
    for s in range(n):
        for j in range(2):
            if holes[s, j] < 0 and fill < nleft:
                holes[s, j] = left[fill]
                fill += 1
            deck[2 * s + j] = holes[s, j]
    for j in range(5):
        if board[j] < 0:
            board[j] = left[fill]
            fill += 1
        deck[2 * n + j] = board[j]
    position = 2 * n + 5
    while fill < nleft:
        deck[position] = left[fill]
        position += 1
        fill += 1
    for j in range(5):
        dealt_board[j] = board[j]
    # -- the engine: deal, then every recorded action checked and played (matchdb.play.recorded)
    seat_kernel(g, p, log, n, stacks[h], posts[h], meta[h, 13] if dead else 0, meta[h, 1], meta[h, 2], meta[h, 3],
                meta[h, 9], meta[h, 10], deck, meta[h, 4], hidden)
    played, open_fold, last_street = play_kernel(g, p, log, dealt_board, ops, first, end, _KINDS)
    if open_fold:
        notes[h] |= NOTE_OPEN_FOLD
    if played != PLAYED:
        status[h] = REFUSED
        return
    showdown = settle_kernel(g, p, n, won[h], final[h], before, contributions[h], returned)
    if showdown and not _board_known_record(ops, first, end):
        status[h] = REFUSED
        return
    # -- payments against the record (single._compare)
    pot = 0
    for s in range(n):
        pot += won[h, s]
        if showdown and hidden[s] != 0 and won[h, s] > 0:
            notes[h] |= NOTE_HIDDEN_SPLIT
    rake[h] = 0
    recorded = meta[h, 7] != 0
    if recorded:
        paid_any = False
        for s in range(n):
            if winnings[h, s] != 0:
                paid_any = True
        recorded = paid_any or pot == 0
    if recorded:
        for s in range(n):
            paid[h, s] = winnings[h, s]
    elif meta[h, 8] != 0:  # the finishing stacks say what was paid (unlimited stacks: -1, not used)
        usable = False
        for s in range(n):
            if finishing[h, s] < 0:
                usable = False
                break
            if finishing[h, s] > before[s]:
                usable = True
        if usable:
            recorded = True
            notes[h] |= NOTE_FINISHING
            for s in range(n):
                paid[h, s] = finishing[h, s] - before[s]
    if not recorded:
        status[h] = UNRECORDED
        for s in range(n):
            paid[h, s] = won[h, s]
    else:
        differs = False
        for s in range(n):
            r = returned[s]
            less[s] = paid[h, s] - r if 0 < r <= paid[h, s] else paid[h, s]
            if less[s] != paid[h, s]:
                differs = True
        party = meta[h, 11] != 0
        decided = False
        for attempt in range(2):  # identical: as written, or less an uncalled bet (Party's reading first)
            use_less = (attempt == 0) == party
            if use_less and not differs:
                continue
            same = True
            for s in range(n):
                q = less[s] if use_less else paid[h, s]
                if q != won[h, s]:
                    same = False
            if same:
                status[h] = IDENTICAL
                if use_less:
                    notes[h] |= NOTE_UNCALLED
                    for s in range(n):
                        paid[h, s] = less[s]
                decided = True
                break
        if not decided:
            for attempt in range(2):  # raked: as written; Party's records less an uncalled bet first
                use_less = (attempt == 0) == party
                if use_less and (not differs or not party):
                    continue
                total = 0
                ok = True
                winners = 0
                for s in range(n):
                    q = less[s] if use_less else paid[h, s]
                    w = won[h, s]
                    total += q
                    if w > 0:
                        winners += 1
                    if not (0 <= q <= w and (w > 0 or q == 0)):
                        ok = False
                if ok and total < pot:
                    status[h] = RAKED
                    rake[h] = pot - total
                    if winners >= 2:
                        notes[h] |= NOTE_SPLIT_RAKED
                    if use_less:
                        notes[h] |= NOTE_UNCALLED
                        for s in range(n):
                            paid[h, s] = less[s]
                    decided = True
                    break
        if not decided:
            status[h] = REFUSED
            return
    if meta[h, 8] != 0:
        for s in range(n):
            expected = finishing[h, s]
            if expected < 0:
                continue
            mine = final[h, s] if status[h] == UNRECORDED else before[s] + paid[h, s]
            if expected != mine:
                status[h] = REFUSED
        if status[h] == REFUSED:
            return
    # -- what each seat did
    action_facts_kernel(g, log, n, facts[h], folded_at)
    all_shown = True
    for s in range(n):
        alive = folded_at[s] == 5
        facts[h, s, 6] = 1 if nb >= 3 and folded_at[s] > 0 else 0
        facts[h, s, 7] = 1 if showdown and alive else 0
        facts[h, s, 8] = 1 if showdown and alive and won[h, s] > 0 else 0
        facts[h, s, 9] = 1 if alive else 0
        if alive and shown[s] == 0:
            all_shown = False
    dealt = (0, 3, 4, 5)[last_street]
    adjust[h] = dealt if showdown and dealt < 5 and all_shown else -1


@jit
def _board_known_record(ops: NDArray[np.int64], first: int, end: int) -> bool:
    """The record deals five board cards, all known (a showdown needs them)."""
    count = 0
    for o in range(first, end):
        if ops[o, 0] == DB:
            for j in range(ops[o, 3]):
                if ops[o, 4 + j] < 0:
                    return False
                count += 1
    return count >= 5


def replay_blocks(records: Iterable[Any], report: ReplayReport, numbered: list[tuple[int, Refusal]], on_block: Callable[..., Any] | None = None, size: int = BLOCK) -> None:
    """Replay ``records`` block by block into ``report`` (refusals into ``numbered`` as (hand number, Refusal))."""
    pending: list[Record] = []
    places: list[int] = []
    tables: list[TableParameters] = []
    for record in records:
        report.read += 1
        try:
            tables.append(table_parameters(record))
        except ReplayError as error:
            report.refused[error.reason] += 1
            numbered.append((report.read, Refusal(record.file, record.number, record.index, error.reason,
                                                  str(error))))
            continue
        pending.append(record)
        places.append(report.read)
        if len(pending) >= size:
            _flush(pending, places, tables, report, numbered, on_block)
            pending, places, tables = [], [], []
    if pending:
        _flush(pending, places, tables, report, numbered, on_block)


def _flush(records: list[Record], places: list[int], tables: list[TableParameters], report: ReplayReport,
           numbered: list[tuple[int, Refusal]], on_block: Callable[..., Any] | None) -> None:
    block = Block.of(records, tables)
    block.run()
    counts = np.bincount(block.status, minlength=REFUSED + 1)
    report.identical += int(counts[IDENTICAL])
    report.raked += int(counts[RAKED])
    report.unrecorded += int(counts[UNRECORDED])
    raked = np.flatnonzero(block.status == RAKED)
    if len(raked):  # added one hand at a time, as the Python replay adds them (the same sum whatever the blocks)
        units = np.array([records[k].unit for k in raked.tolist()], dtype=np.int64)
        report.rake = float(reduce(add, (block.rake[raked] / units).tolist(), report.rake))
    noted = block.notes[block.status != REFUSED]
    for bit, name in enumerate(NOTES):
        count = int(np.count_nonzero(noted >> bit & 1))
        if count:
            report.noted[name] += count
    for k in np.flatnonzero(block.status == REFUSED):
        error = block.refusal(int(k))
        record = records[k]
        report.refused[error.reason] += 1
        numbered.append((places[k], Refusal(record.file, record.number, record.index, error.reason, str(error))))
    if on_block is not None:
        on_block(block)
