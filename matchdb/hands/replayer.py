"""Replaying recorded hands through matchdb's engine, action by action, and checking the outcome.

Each :class:`~matchdb.hands.reader.Record` becomes a hand at a
:class:`matchdb.play.engine.Table`: PHH player ``pK`` sits at engine seat
``K - 1`` with the button on the last seat (heads-up on the player posting
the smaller blind, as pokerkit seats them), the record's blinds and antes,
its stacks (an unlimited ``inf`` stack gets enough chips to cover every
bet), and a deck holding every card the record shows. Every betting action
must be legal for the engine when it comes (the right player, a fold only
facing a bet, a raise within the legal sizes); the hand must end where the
record ends; and the chips the engine pays must equal the record's
``winnings``. Where those fall short of the pot, the difference is *rake*
(every payment at most the engine's, and only to players it pays).

Hidden cards: a player who reaches a showdown with cards the record does
not show mucked them, and online sites give a mucked hand nothing; the
engine is dealt the weakest cards left for such a player (the strongest
ones for a hidden player whom the record pays), so its showdown pays what
the site paid. Folded players' hidden cards are any cards left.

Outcomes (:attr:`Replayed.status`): ``identical`` (the record's winnings
equal the engine's payments), ``raked`` (short of them by the rake) or
``unrecorded`` (the record has no winnings, or all zero as often on
PokerStars, so only the rules were checked). A hand the engine cannot play
as recorded raises :class:`ReplayError` naming the hand and the action;
:func:`replay` counts those by reason and goes on.

>>> from matchdb.hands.reader import read_text
>>> text = '''
... variant = 'NT'
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ['d dh p1 AsAd', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 6', 'p1 cc', 'p2 f',
...            'd db 2c7dJh', 'p1 cbr 10', 'p3 f']
... winnings = [13, 0, 0]
... '''
>>> hand = next(iter(read_text(text, "one.phh")))
>>> done = replay_hand(hand)
>>> done.status, done.won, done.rake, done.final
('raked', (14, 0, 0), 1, (107, 98, 94))
>>> [str(step) for step in done.steps[-2:]]
['p1 bets 10 (flop, pot 14)', 'p3 folds (flop, pot 24)']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.core.evaluator import evaluate_many
from matchdb.hands.reader import (
    BET_RAISE,
    CHECK_CALL,
    DB,
    DH,
    FOLD,
    SHOW,
    UNKNOWN,
    HandsError,
    HandStream,
    Record,
    Refusal,
    read,
)
from matchdb.play import engine as E
from matchdb.progress import progress as _progress

__all__ = [
    "STATUSES",
    "ReplayError",
    "ReplayReport",
    "Replayed",
    "Setup",
    "Step",
    "replay",
    "replay_files",
    "replay_hand",
    "short_big_blind_posted",
    "shown_holes",
    "table_parameters",
    "table_setup",
]

#: Outcomes of a replayed hand.
STATUSES = ("identical", "raked", "unrecorded")
_VERBS = {E.FOLD: "folds", E.CHECK: "checks", E.CALL: "calls", E.RAISE: "raises to"}


class ReplayError(HandsError):
    """A recorded hand the engine cannot play as recorded; ``reason`` is a :class:`Refusal` reason code."""

    def __init__(self, message: str, reason: str = "disagreement") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Setup:
    """How a record sits at the engine's table: seats are PHH players in order."""

    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    button: int
    deck: tuple[int, ...]
    unlimited: tuple[bool, ...]


@dataclass(frozen=True)
class Step:
    """One betting action as the engine played it, with what the player faced and the state after it.

    ``pot`` is every chip in the middle before the action (bets of the round
    included), ``to_call`` what the player had to add to call, ``stack`` the
    player's chips before it; ``amount`` is the raise-to total for a raise,
    else the chips added. ``board`` is the board when the action was taken;
    ``stacks``, ``bets`` and ``in_hand`` are per seat after it.
    """

    index: int
    seat: int
    street: int
    kind: int
    amount: int
    to_call: int
    pot: int
    stack: int
    bet: int
    max_bet: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    players: int
    board: tuple[int, ...]
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    in_hand: tuple[bool, ...]

    def __str__(self) -> str:
        return f"{self.words()} ({E.STREETS[self.street]}, pot {self.pot})"

    def words(self, amount: Callable[[int], object] = int) -> str:
        """The action in words, its chips written by ``amount`` (chips by default): ``'p2 raises to 12504'``."""
        if self.kind == E.RAISE:
            verb = "bets" if self.max_bet == 0 else "raises to"
            return f"p{self.seat + 1} {verb} {amount(self.amount)}"
        if self.kind == E.CALL:
            return f"p{self.seat + 1} calls {amount(self.amount)}"
        return f"p{self.seat + 1} {_VERBS[self.kind]}"


@dataclass(frozen=True)
class Replayed:
    """A hand replayed: the engine's payments (``won``), final stacks (None for an unlimited one), the rake.

    ``holes`` are the cards the record shows per player (None when hidden),
    ``board`` the board it deals; ``engine`` is the engine's
    :class:`~matchdb.play.engine.HandRecord` (its hidden cards are the
    stand-ins described in the module notes).
    """

    record: Record
    status: str
    won: tuple[int, ...]
    final: tuple[int | None, ...]
    rake: int
    showdown: bool
    holes: tuple[tuple[int, int] | None, ...]
    board: tuple[int, ...]
    steps: tuple[Step, ...]
    engine: E.HandRecord

    @property
    def net(self) -> tuple[int, ...]:
        """Chips won or lost by each player, after rake as the record says (``won - put in``)."""
        paid = self.record.winnings if self.status == "raked" and self.record.winnings is not None else self.won
        return tuple(p - c for p, c in zip(paid, self.contributions))

    @property
    def contributions(self) -> tuple[int, ...]:
        """Chips each player put in the pot (uncalled bets returned)."""
        start, stacks, won = self.engine.start, self.engine.stacks, self.engine.won
        return tuple(s - f + w for s, f, w in zip(start, stacks, won))


@dataclass
class ReplayReport:
    """Counts of a replay run; refused hands are listed with their one sentence each.

    ``read``: hands met; ``identical``, ``raked``, ``unrecorded``: hands
    replayed with each outcome; ``refused``: hands refused, by reason code;
    ``rake``: the rake found, in the records' currency.
    """

    read: int = 0
    identical: int = 0
    raked: int = 0
    unrecorded: int = 0
    refused: Counter = field(default_factory=Counter)
    refusals: list[Refusal] = field(default_factory=list)
    rake: float = 0.0
    seconds: float = 0.0

    @property
    def replayed(self) -> int:
        return self.identical + self.raked + self.unrecorded

    def to_dict(self) -> dict:
        return {"read": self.read, "replayed": self.replayed, "identical": self.identical, "raked": self.raked,
                "unrecorded": self.unrecorded, "refused": dict(sorted(self.refused.items())),
                "rake": round(self.rake, 6), "seconds": round(self.seconds, 3),
                "refusals": [r.message for r in self.refusals]}

    def to_text(self) -> str:
        refused = ", ".join(f"{n} {reason}" for reason, n in sorted(self.refused.items())) or "none"
        lines = [(f"read {self.read} hands: {self.identical} identical, {self.raked} raked "
                  f"(rake {self.rake:.2f} in all), {self.unrecorded} without recorded winnings, "
                  f"refused {sum(self.refused.values())} ({refused})")]
        lines += [f"  {r.message}" for r in self.refusals[:50]]
        if len(self.refusals) > 50:
            lines.append(f"  ... and {len(self.refusals) - 50} more")
        return "\n".join(lines)


def table_parameters(record: Record) -> tuple[int, int, int, int, tuple[int, ...]]:
    """(small blind, big blind, ante, button seat, stacks) of the engine's table for a record.

    Raises :class:`ReplayError` (reason ``table``) for set-ups the engine does
    not play: straddles or third blinds, unequal antes, no big blind, a
    minimum bet other than the big blind, a player without chips. An
    unlimited (``inf``) stack gets enough chips to cover every bet.
    """
    key = (record.blinds, record.antes, record.min_bet)
    rules = _TABLE_RULES.get(key)
    if rules is None:
        rules = _TABLE_RULES[key] = _table_rules(*key)
        if len(_TABLE_RULES) > 10_000:
            _TABLE_RULES.clear()
    if isinstance(rules, str):
        raise ReplayError(f"Hand {record.label} {rules}", "table")
    small, big, ante, button = rules
    stacks = record.stacks
    if 0 in stacks:
        raise ReplayError(f"Hand {record.label} deals in a player without chips.", "table")
    if None not in stacks:
        return small, big, ante, button, cast("tuple[int, ...]", stacks if type(stacks) is tuple else tuple(stacks))
    # what an unlimited stack gets: enough to cover every bet
    cover = sum(x for x in stacks if x is not None) + sum(v for k, _, v in record.ops if k == BET_RAISE)
    cover += len(stacks) * (ante + big) + 1
    return small, big, ante, button, tuple(cover if x is None else x for x in stacks)


_TABLE_RULES: dict = {}
_POSTED = E.Rules(short_big_blind="posted")


def short_big_blind_posted(record: Record) -> bool:
    """Whether the record says it was played under pokerkit's short-big-blind rule (``_short_big_blind = 'posted'``).

    matchdb writes the field (:func:`matchdb.hands.writer.history_of`); a
    record without it is replayed under the engine's default, the card
    rooms' rule (the others owe the full big blind).
    """
    return record.fields.get("_short_big_blind") == "posted"


def _table_rules(blinds: tuple[int, ...], antes: tuple[int, ...], min_bet: int) -> tuple[int, int, int, int] | str:
    """(small blind, big blind, ante, button) for blinds, antes and minimum bet, or why the engine does not play them."""
    n = len(blinds)
    if any(blinds[2:]):
        return f"posts blinds {list(blinds)}: a straddle or third blind, which the engine does not play."
    if n == 2:
        # pokerkit seats heads-up players as p1 big blind, p2 small blind and button (posts reversed)
        posts = (blinds[1], blinds[0])
        button = 1 if posts[1] <= posts[0] else 0
        small, big = min(posts), max(posts)
    else:
        small, big = blinds[0], blinds[1]
        button = n - 1
        if small > big:
            return f"has a small blind {small} larger than the big blind {big}."
    if big < 1:
        return "posts no big blind; the engine needs one."
    if min_bet != big:
        return (f"has a minimum bet {min_bet} other than the big blind {big} (in chips); the engine's minimum bet is "
                "the big blind.")
    if len(set(antes)) > 1:
        return f"has unequal antes {list(antes)}; the engine posts one ante for every player."
    return small, big, antes[0], button


def table_setup(record: Record) -> Setup:
    """The engine's table for a record (:func:`table_parameters`) and a deck with every card the record shows."""
    small, big, ante, button, stacks = table_parameters(record)
    return Setup(stacks, small, big, ante, button, _deck(record), tuple(x is None for x in record.stacks))


def _deck(record: Record) -> tuple[int, ...]:
    """52 card ids: seat s holds deck[2s], deck[2s+1], the board follows; hidden cards as the module notes say."""
    n = record.size
    holes: list[list[int]] = [[UNKNOWN, UNKNOWN] for _ in range(n)]
    board: list[int] = []
    folded = [False] * n
    for kind, who, value in record.ops:
        if kind == DH or kind == SHOW:
            for k, card in enumerate(value[:2]):
                if card != UNKNOWN:
                    holes[who][k] = card
        elif kind == DB:
            board += value
        elif kind == FOLD:
            folded[who] = True
    used = [c for hole in holes for c in hole if c != UNKNOWN] + [c for c in board if c != UNKNOWN]
    if len(set(used)) != len(used):
        twice = next(c for c in used if used.count(c) > 1)  # at most 23 cards
        raise ReplayError(f"Hand {record.label} deals {format_cards([twice])} twice.", "malformed")
    if len(board) > 5:
        raise ReplayError(f"Hand {record.label} deals {len(board)} board cards; hold'em has 5.", "malformed")
    left = [c for c in range(52) if c not in set(used)]
    hidden = [s for s in range(n) if UNKNOWN in holes[s]]
    if len(board) == 5 and UNKNOWN not in board:
        live = [s for s in hidden if not folded[s]]
        if live and sum(not f for f in folded) >= 2:
            paid = record.winnings or ()
            strong = [s for s in live if paid and paid[s] > 0]
            for s in strong + [s for s in live if s not in strong]:
                pair = _extreme_pair(holes[s], board, left, strongest=s in strong)
                holes[s] = list(pair)
                left = [c for c in left if c not in pair]
    fill = iter(left)
    for s in range(n):
        holes[s] = [c if c != UNKNOWN else next(fill) for c in holes[s]]
    board = [c if c != UNKNOWN else next(fill) for c in board]
    deck = [c for hole in holes for c in hole] + board
    deck += list(fill)
    return tuple(deck)


def _extreme_pair(hole: list[int], board: list[int], left: list[int], strongest: bool) -> tuple[int, int]:
    """The weakest (or strongest) completion of a partly or wholly hidden hand with cards from ``left``."""
    known = [c for c in hole if c != UNKNOWN]
    if len(known) == 1:
        candidates = np.array([[known[0], c] for c in left], dtype=np.int64)
    else:
        a, b = np.triu_indices(len(left), 1)
        cards = np.array(left, dtype=np.int64)
        candidates = np.stack([cards[a], cards[b]], axis=1)
    values = evaluate_many(np.concatenate([candidates, np.tile(np.array(board, dtype=np.int64), (len(candidates), 1))],
                                          axis=1))
    pick = int(np.argmax(values) if strongest else np.argmin(values))
    return int(candidates[pick, 0]), int(candidates[pick, 1])


def replay_hand(record: Record, steps: bool = True) -> Replayed:
    """Replay one record through the engine (see the module notes); ``steps=False`` skips the per-action log.

    Raises
    ------
    ReplayError
        When an action is illegal for the engine, the hand ends elsewhere than
        the record, or the payments disagree; the sentence names the hand and
        the action.
    """
    setup = table_setup(record)
    n = record.size
    table = E.Table(list(setup.stacks), setup.small_blind, setup.big_blind, setup.ante, button=setup.button,
                    rules=_POSTED if short_big_blind_posted(record) else None)
    hand = table.start_hand(setup.deck)
    label = record.label
    log: list[Step] = []
    board_seen = 0
    for position, (kind, who, value) in enumerate(record.ops):
        if kind == DH or kind == SHOW:
            continue
        action = record.actions[record.op_actions[position]]
        where = f"Hand {label}, action {record.op_actions[position] + 1} {action!r}"
        if kind == DB:
            board_seen += len(value)
            if not hand.over and hand.actor >= 0 and len(hand.board) < board_seen:
                raise ReplayError(f"{where} deals while p{hand.actor + 1} is still to act on the "
                                  f"{E.STREETS[hand.street]}.", "illegal")
            continue
        if hand.over:
            raise ReplayError(f"{where} comes after the hand is over.", "illegal")
        actor = hand.actor
        if who != actor:
            raise ReplayError(f"{where} comes when p{actor + 1} is to act.", "illegal")
        legal = hand.legal()
        if kind == FOLD:
            if legal.to_call <= 0:
                raise ReplayError(f"{where} folds with nothing to call; the rules allow a check.", "illegal")
            engine_kind, amount = E.FOLD, 0
        elif kind == CHECK_CALL:
            engine_kind, amount = (E.CALL if legal.to_call > 0 else E.CHECK), 0
        else:
            if not legal.can_raise:
                raise ReplayError(f"{where} raises where the rules allow no raise.", "illegal")
            if not legal.min_raise_to <= value <= legal.max_raise_to:
                raise ReplayError(f"{where} bets or raises to {record.amount(value)}; the rules allow "
                                  f"{record.amount(legal.min_raise_to)} to {record.amount(legal.max_raise_to)}.",
                                  "illegal")
            engine_kind, amount = E.RAISE, value
        if steps:
            view = hand.view()
        played = hand.act(engine_kind, amount)
        if played != engine_kind:
            raise ReplayError(f"{where} was played as {E.ACTION_NAMES[played]} by the engine.", "disagreement")
        if steps:
            t = table
            log.append(Step(
                index=record.op_actions[position], seat=who, street=view.street, kind=engine_kind,
                amount=amount if engine_kind == E.RAISE else min(legal.to_call, view.stack),
                to_call=legal.to_call, pot=view.pot, stack=view.stack, bet=view.bet, max_bet=view.max_bet,
                can_raise=legal.can_raise, min_raise_to=legal.min_raise_to, max_raise_to=legal.max_raise_to,
                players=view.players, board=view.board, stacks=tuple(t._p[E.P_STACK, :n].tolist()),
                bets=tuple(t._p[E.P_BET, :n].tolist()), in_hand=tuple((t._p[E.P_STATE, :n] == 1).tolist()),
            ))
    if not hand.over:
        raise ReplayError(f"Hand {label}: the record stops while p{hand.actor + 1} is to act on the "
                          f"{E.STREETS[hand.street]}.", "incomplete")
    engine = hand.record()
    shown_board = [c for k, _, v in record.ops if k == DB for c in v]
    if engine.showdown and (len(shown_board) < 5 or UNKNOWN in shown_board):
        raise ReplayError(f"Hand {label} goes to a showdown but the record deals only {len(shown_board)} board "
                          "cards.", "incomplete")
    won = engine.won
    status, rake = _compare(record, won, _returned(engine))
    final = tuple(None if u else x for u, x in zip(setup.unlimited, engine.stacks))
    if status == "raked" and record.winnings is not None:
        final = tuple(None if f is None else f - (w - r) for f, w, r in zip(final, won, record.winnings))
    if record.finishing_stacks is not None:
        expected = record.finishing_stacks
        if any(e is not None and f is not None and e != f for e, f in zip(expected, final)):
            raise ReplayError(f"Hand {label} ends with stacks {_amounts(record, expected)} in the record but "
                              f"{_amounts(record, final)} in the engine.", "disagreement")
    holes = shown_holes(record)
    return Replayed(record, status, won, final, rake, engine.showdown, holes, tuple(shown_board), tuple(log), engine)


def shown_holes(record: Record) -> tuple[tuple[int, int] | None, ...]:
    """Each player's two cards where the record shows both (dealt face up or shown), else None."""
    holes: list[tuple[int, int] | None] = [None] * record.size
    for kind, who, value in record.ops:
        if (kind == DH or kind == SHOW) and len(value) == 2 and UNKNOWN not in value:
            holes[who] = (value[0], value[1])
    return tuple(holes)


def _amounts(record: Record, chips) -> str:
    return "[" + ", ".join("inf" if c is None else str(record.amount(c)) for c in chips) + "]"


def _returned(engine: E.HandRecord) -> tuple[int, ...]:
    """Chips each seat got back as an uncalled bet: what it put in minus what stayed in the pot."""
    n = len(engine.start)
    put = [0] * n
    bet = [0] * n
    street = 0
    for st, seat, kind, amount in engine.history:
        if st != street:
            street, bet = st, [0] * n
        if kind == E.RAISE:
            put[seat] += amount - bet[seat]
            bet[seat] = amount
        elif kind != E.ANTE:
            put[seat] += amount
            bet[seat] += amount
        else:
            put[seat] += amount
    contributed = [s - f + w for s, f, w in zip(engine.start, engine.stacks, engine.won)]
    return tuple(p - c for p, c in zip(put, contributed))


def _compare(record: Record, won: tuple[int, ...], returned: tuple[int, ...]) -> tuple[str, int]:
    paid = record.winnings
    if paid is None or (not any(paid) and any(won)):
        return "unrecorded", 0
    if tuple(paid) == tuple(won):
        return "identical", 0
    # some sites count an uncalled bet given back (a walk's big blind, say) as collected: the same stacks
    if all(p == w or (r > 0 and p == w + r) for p, w, r in zip(paid, won, returned)):
        return "identical", 0
    pot = sum(won)
    if sum(paid) < pot and all(0 <= p <= w and (w > 0 or p == 0) for p, w in zip(paid, won)):
        return "raked", pot - sum(paid)
    worst = max(range(len(won)), key=lambda s: abs(paid[s] - won[s]))
    raise ReplayError(f"Hand {record.label} pays p{worst + 1} {record.amount(paid[worst])} in the record but "
                      f"{record.amount(won[worst])} in the engine (record {_amounts(record, paid)}, engine "
                      f"{_amounts(record, won)}).", "disagreement")


def replay(source: Any, *, site: str | None = None, show_progress: bool | None = None, on_hand: Callable[..., Any] | None = None,
           on_block: Callable[..., Any] | None = None) -> ReplayReport:
    """Replay every hand of ``source`` (paths, a folder, a :class:`HandStream` or records) and count the outcomes.

    ``on_hand(replayed)`` is called with each :class:`Replayed` hand (to
    analyse it, say: the Python replay, one hand at a time, with every
    step). Without it the compiled replay (:mod:`matchdb.hands.batch`) plays
    the hands in blocks, calling ``on_block(block)`` with each replayed
    :class:`~matchdb.hands.batch.Block`; the counts are the same. Refused
    hands are counted by reason with their sentence in ``refusals``, in the
    order of the hands, and the run goes on.
    """
    import time

    started = time.perf_counter()
    stream = source if isinstance(source, HandStream) else None
    records: Iterable[Record]
    total = 0
    if stream is None and isinstance(source, Record):
        records = [source]
    elif stream is None and isinstance(source, (list, tuple)) and source and isinstance(source[0], Record):
        records = source
    else:
        stream = stream or read(source, site=site)
        records = stream
        if show_progress:
            total = _count_sections(stream.sources)
    report = ReplayReport()
    bar = _progress(records, total, "replaying", unit="hand", enabled=bool(show_progress))
    numbered: list[tuple[int, Refusal]] = []
    if on_hand is None:
        from matchdb.hands.batch import replay_blocks

        replay_blocks(bar, report, numbered, on_block)
    else:
        for record in bar:
            report.read += 1
            try:
                done = replay_hand(record)
            except ReplayError as error:
                report.refused[error.reason] += 1
                numbered.append((report.read, Refusal(record.file, record.number, record.index, error.reason,
                                                      str(error))))
                continue
            setattr(report, done.status, getattr(report, done.status) + 1)
            report.rake += float(record.amount(done.rake))
            on_hand(done)
    report.refusals = [r for _, r in sorted(numbered, key=lambda pair: pair[0])]
    if stream is not None:
        report.read += len(stream.refused)
        for refusal in stream.refused:
            report.refused[refusal.reason] += 1
        report.refusals = list(stream.refused) + report.refusals
    report.seconds = time.perf_counter() - started
    return report


def _count_sections(sources) -> int:
    """Hands in PHH files, counted by their section lines (for a progress bar's total; 0 when unknown)."""
    total = 0
    for source in sources:
        if isinstance(source, tuple):
            return 0
        try:
            with open(source, "rb") as handle:
                total += sum(1 for line in handle if line.startswith(b"[") and not line.startswith(b"[["))
        except OSError:
            return 0
    return total


def _replay_one(path: str, site: str | None) -> ReplayReport:
    report = replay([path], site=site)
    report.refusals = report.refusals[:1000]
    return report


def replay_files(sources: Any, *, site: str | None = None, workers: int = 2, show_progress: bool | None = None) -> ReplayReport:
    """Replay many files at once on a Dask LocalCluster of ``workers`` processes (one file per task), and add up.

    The counts equal :func:`replay`'s over the same files; each worker keeps
    at most 1,000 refusal sentences per file.
    """
    import logging
    import os
    import time

    from matchdb.hands.reader import _paths

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise HandsError(f"The number of workers {workers!r} is not a whole number of at least 1.")
    paths = [str(p) for p in _paths(sources)]
    started = time.perf_counter()
    total = ReplayReport()
    if workers == 1:
        parts = (_replay_one(p, site) for p in paths)
        for part in _progress(parts, len(paths), "replaying files", unit="file", enabled=bool(show_progress)):
            _merge(total, part)
    else:
        from distributed import Client, LocalCluster, as_completed

        saved = dict(os.environ)  # the nanny writes its pre-spawn variables into this process's environment
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
        client = Client(cluster)
        try:
            futures = [client.submit(_replay_one, p, site, pure=False) for p in paths]
            done = _progress(as_completed(futures), len(futures), "replaying files", unit="file",
                             enabled=bool(show_progress))
            for future in done:
                _merge(total, future.result())
        finally:
            client.close()
            cluster.close()
            os.environ.clear()
            os.environ.update(saved)
        total.refusals.sort(key=lambda r: (r.file, r.index))
    total.seconds = time.perf_counter() - started
    return total


def _merge(total: ReplayReport, part: ReplayReport) -> None:
    total.read += part.read
    total.identical += part.identical
    total.raked += part.raked
    total.unrecorded += part.unrecorded
    total.refused.update(part.refused)
    total.refusals += part.refusals
    total.rake += part.rake
