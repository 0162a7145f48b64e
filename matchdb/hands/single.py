"""One recorded hand replayed through matchdb's engine, action by action, and its outcome checked.

Each :class:`~matchdb.hands.reader.Record` becomes a hand at a
:class:`matchdb.play.engine.Table`: PHH player ``pK`` sits at engine seat
``K - 1`` with the button on the last seat (heads-up on the player posting
the smaller blind, as pokerkit seats them), the record's blinds and antes,
its stacks (an unlimited ``inf`` stack gets enough chips to cover every
bet), and a deck holding every card the record shows. Forced bets other
than a small and a big blind (a newly seated player's post, written as a
negative blind, a small blind alone, straddles) are posted seat by seat as
pokerkit posts them. Every betting action must be legal for the engine when
it comes (the right player, a raise within the legal sizes; a fold with
nothing to call is a fold, as card rooms allow); the hand must end where the
record ends; and the chips the engine pays must equal the record's
``winnings``. Where those fall short of the pot, the difference is *rake*
(every payment at most the engine's, and only to players it pays).

Hidden cards, as pokerkit reads them: at a showdown a player's cards count
only where the record shows both (``sm`` with the cards); otherwise
(``sm ????``, a muck, no ``sm`` at all) the player plays the board alone,
so a shown hand beats it unless the board plays, and a pot only hidden
hands contend is split among them. A hidden hand that the record pays is
dealt the strongest cards left, so the engine pays what the site paid.
Folded players' hidden cards are any cards left.

Outcomes (:attr:`Replayed.status`): ``identical`` (the record's winnings
equal the engine's payments), ``raked`` (short of them by the rake) or
``unrecorded`` (the record has no winnings, or all zero as often on
PokerStars, so only the rules were checked). A hand the engine cannot play
as recorded raises :class:`ReplayError` naming the hand and the action;
:func:`matchdb.hands.replay` counts those by reason and goes on. What a replay notes of
a hand (site conventions such as Party Poker counting an uncalled bet as
won, uncommon rules such as a post) is named in :attr:`Replayed.notes`
and counted in :attr:`ReplayReport.noted` (:data:`NOTES`).

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

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.core.evaluator import evaluate_many
from matchdb.hands.reader import (
    BET_RAISE,
    CHECK_CALL,
    DB,
    DH,
    FOLD,
    MAX_CHIPS,
    SHOW,
    UNKNOWN,
    HandsError,
    Record,
    Refusal,
)
from matchdb.play import engine as E
from matchdb.play.recorded import recorded_table, settlement

__all__ = [
    "MAX_CHIPS",
    "NOTES",
    "STATUSES",
    "ReplayError",
    "ReplayReport",
    "Replayed",
    "Setup",
    "Step",
    "TableParameters",
    "engine_table",
    "note_names",
    "post_seats",
    "replay_hand",
    "short_big_blind_posted",
    "showdown_hands",
    "shown_holes",
    "table_parameters",
    "table_setup",
]

#: Outcomes of a replayed hand.
STATUSES = ("identical", "raked", "unrecorded")
#: What a replay notes about a hand it plays (site conventions and uncommon rules), by bit: the report counts them.
NOTES = (
    "uncalled bet counted as won",
    "winnings from finishing stacks",
    "split pot raked",
    "fold with a check possible",
    "post of a new player",
    "no big blind",
    "straddle or other forced bets",
    "hidden hand paid on the board",
    "post counted as dead money",
)
NOTE_UNCALLED, NOTE_FINISHING, NOTE_SPLIT_RAKED, NOTE_OPEN_FOLD, NOTE_POST, NOTE_NO_BIG_BLIND, NOTE_FORCED, \
    NOTE_HIDDEN_SPLIT, NOTE_DEAD_POST = (1 << k for k in range(len(NOTES)))
_VERBS = {E.FOLD: "folds", E.CHECK: "checks", E.CALL: "calls", E.RAISE: "raises to"}


def note_names(bits: int) -> tuple[str, ...]:
    """The :data:`NOTES` named by ``bits``, in their order."""
    return tuple(name for k, name in enumerate(NOTES) if bits >> k & 1)


class ReplayError(HandsError):
    """A recorded hand the engine cannot play as recorded; ``reason`` is a :class:`Refusal` reason code."""

    def __init__(self, message: str, reason: str = "disagreement") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, kw_only=True)
class Setup:
    """How a record sits at the engine's table: seats are PHH players in order.

    ``posts`` holds each seat's forced bet where the record's are not a
    small and a big blind after the button (posts, a missing big blind,
    straddles; else None), ``hidden`` the seats that reach a showdown with
    no hand (cards the record does not show there), ``rules`` the engine's
    rule bits.
    """

    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    button: int
    deck: tuple[int, ...]
    unlimited: tuple[bool, ...]
    posts: tuple[int, ...] | None = None
    opener: int = -1
    rules: int = E.RULE_OPEN_FOLD
    hidden: tuple[bool, ...] = ()
    notes: int = 0


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


@dataclass(frozen=True, kw_only=True)
class Replayed:
    """A hand replayed: the engine's payments (``won``), final stacks (None for an unlimited one), the rake.

    ``holes`` are the cards the record shows per player (None when hidden),
    ``board`` the board it deals; ``engine`` is the engine's
    :class:`~matchdb.play.engine.HandRecord` (its hidden cards are the
    stand-ins described in the module notes). ``notes`` names what the
    replay noted (:data:`NOTES`), ``paid`` what the record pays each player
    from the pot (after rake; the engine's payments when it records none).
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
    notes: tuple[str, ...] = ()
    paid: tuple[int, ...] | None = None

    @property
    def net(self) -> tuple[int, ...]:
        """Chips won or lost by each player, after rake as the record says (``won - put in``)."""
        paid = self.paid if self.paid is not None else self.won
        return tuple(p - c for p, c in zip(paid, self.contributions, strict=True))

    @property
    def contributions(self) -> tuple[int, ...]:
        """Chips each player put in the pot (uncalled bets returned)."""
        start, stacks, won = self.engine.start, self.engine.stacks, self.engine.won
        return tuple(s - f + w for s, f, w in zip(start, stacks, won, strict=True))


@dataclass
class ReplayReport:
    """Counts of a replay run; refused hands are listed with their one sentence each.

    ``read``: hands met; ``identical``, ``raked``, ``unrecorded``: hands
    replayed with each outcome; ``refused``: hands refused, by reason code;
    ``noted``: replayed hands by what the replay noted of them
    (:data:`NOTES`: site conventions and uncommon rules; a hand may have
    several); ``rake``: the rake found, in the records' currency.
    """

    read: int = 0
    identical: int = 0
    raked: int = 0
    unrecorded: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    refusals: list[Refusal] = field(default_factory=list)
    noted: Counter[str] = field(default_factory=Counter)
    rake: float = 0.0
    seconds: float = 0.0

    @property
    def replayed(self) -> int:
        return self.identical + self.raked + self.unrecorded

    def to_dict(self) -> dict[str, Any]:
        return {"read": self.read, "replayed": self.replayed, "identical": self.identical, "raked": self.raked,
                "unrecorded": self.unrecorded, "refused": dict(sorted(self.refused.items())),
                "noted": {name: self.noted[name] for name in NOTES if self.noted[name]},
                "rake": round(self.rake, 6), "seconds": round(self.seconds, 3),
                "refusals": [r.message for r in self.refusals]}

    def to_text(self) -> str:
        refused = ", ".join(f"{n} {reason}" for reason, n in sorted(self.refused.items())) or "none"
        lines = [(f"read {self.read} hands: {self.identical} identical, {self.raked} raked "
                  f"(rake {self.rake:.2f} in all), {self.unrecorded} without recorded winnings, "
                  f"refused {sum(self.refused.values())} ({refused})")]
        if sum(self.noted.values()):
            lines.append("noted: " + ", ".join(f"{self.noted[name]} {name}" for name in NOTES if self.noted[name]))
        lines += [f"  {r.message}" for r in self.refusals[:50]]
        if len(self.refusals) > 50:
            lines.append(f"  ... and {len(self.refusals) - 50} more")
        return "\n".join(lines)


class TableParameters(NamedTuple):
    """How the engine seats a record (:func:`table_parameters`)."""

    small_blind: int
    big_blind: int  # the smallest full bet or raise (the record's minimum bet)
    ante: int
    button: int
    stacks: tuple[int, ...]
    posts: tuple[int, ...] | None  # each seat's forced bet where they are not a small and a big blind, else None
    opener: int  # the seat the preflop action starts after (under posts; else -1)
    rules: int  # engine rule bits
    notes: int  # NOTES bits of the set-up
    party: bool  # the record's site counts an uncalled bet given back as won (Party Poker)
    dead: int  # the seats (bits) whose post may be dead money (posts written as negative blinds)


def table_parameters(record: Record) -> TableParameters:
    """How the engine seats a record: blinds, ante, button, stacks, per-seat forced bets, rule bits.

    The usual blinds (a small and a big blind on ``p1`` and ``p2``, the
    minimum bet the big blind) play as the engine's blinds; any other forced
    bets (a newly seated player's post, written as a negative blind, a small
    blind without a big blind, straddles, a minimum bet other than the big
    blind) are posted seat by seat as pokerkit posts them
    (:data:`~matchdb.play.engine.RULE_POSTS`). Raises :class:`ReplayError`
    (reason ``table``) for set-ups the engine does not play: unequal antes,
    no forced bet at all, a player without chips. An unlimited (``inf``)
    stack gets enough chips to cover every bet.
    """
    key = (record.blinds, record.antes, record.min_bet)
    rules = _TABLE_RULES.get(key)
    if rules is None:
        rules = _TABLE_RULES[key] = _table_rules(*key)
        if len(_TABLE_RULES) > 10_000:
            _TABLE_RULES.clear()
    if isinstance(rules, str):
        raise ReplayError(f"Hand {record.label} {rules}", "table")
    small, big, ante, button, posts, notes = rules
    stacks = record.stacks
    if 0 in stacks:
        raise ReplayError(f"Hand {record.label} deals in a player without chips.", "table")
    if None in stacks:  # what an unlimited stack gets: enough to cover every bet
        most = max([v for k, _, v in record.ops if k == BET_RAISE] + [big, *(posts or (small,))])
        cover = sum(x for x in stacks if x is not None) + 4 * most + ante + 1
        stacks = tuple(cover if x is None else x for x in stacks)
    elif type(stacks) is not tuple:
        stacks = tuple(stacks)
    fields = record.fields  # short_big_blind_posted and _counts_uncalled, read here without two more calls
    code = _OPEN_FOLD_POSTED if fields.get("_short_big_blind") == "posted" else E.RULE_OPEN_FOLD
    party = fields.get("venue") == "PartyPoker"
    if posts is None:  # tuple.__new__: the named tuple without its Python-level __new__ (once per hand)
        return _new_tuple(TableParameters, (small, big, ante, button, stacks, None, -1, code, notes, party, 0))
    chips = cast("tuple[int, ...]", stacks)
    return TableParameters(small, big, ante, button, chips, posts, _opener(record, posts, chips, ante),
                           code | E.RULE_POSTS, notes, party, post_seats(record))


_TABLE_RULES: dict[
    tuple[tuple[int, ...], tuple[int, ...], int], tuple[int, int, int, int, tuple[int, ...] | None, int] | str
] = {}
_OPEN_FOLD_POSTED = E.RULE_OPEN_FOLD | E.RULE_POSTED_BLIND
_new_tuple = tuple.__new__


def short_big_blind_posted(record: Record) -> bool:
    """Whether the record says it was played under pokerkit's short-big-blind rule (``_short_big_blind = 'posted'``).

    matchdb writes the field (:func:`matchdb.hands.writer.history_of`); a
    record without it is replayed under the engine's default, the card
    rooms' rule (the others owe the full big blind).
    """
    return record.fields.get("_short_big_blind") == "posted"


def _table_rules(blinds: tuple[int, ...], antes: tuple[int, ...], min_bet: int
                 ) -> tuple[int, int, int, int, tuple[int, ...] | None, int] | str:
    """(small blind, big blind, ante, button, per-seat posts or None, NOTES bits), or why the engine does not play them."""
    n = len(blinds)
    seat_posts: tuple[int, ...]
    if len(set(antes)) > 1:
        return f"has unequal antes {list(antes)}; the engine posts one ante for every player."
    ante = antes[0]
    if n == 2:
        # pokerkit seats heads-up players as p1 big blind, p2 small blind and button (posts reversed)
        seat_posts = (blinds[1], blinds[0])
        if min(seat_posts) >= 0 and max(seat_posts) >= 1 and min_bet == max(seat_posts):
            small, big = min(seat_posts), max(seat_posts)
            return small, big, ante, (1 if seat_posts[1] <= seat_posts[0] else 0), None, 0
        button = 1
    else:
        seat_posts = blinds
        if not any(blinds[2:]) and 0 <= blinds[0] <= blinds[1] and blinds[1] >= 1 and min_bet == blinds[1]:
            return blinds[0], blinds[1], ante, n - 1, None, 0
        button = n - 1
    if not any(seat_posts) and not ante:
        return "posts no blind, straddle or ante; pokerkit and the engine need one."
    if min_bet < 1:
        return f"has a minimum bet of {min_bet} chips; the engine needs a minimum bet of at least one chip."
    notes = NOTE_POST if min(seat_posts) < 0 else 0
    positive = [b for b in blinds if b > 0]
    if n > 2 and blinds[1] <= 0 or n == 2 and len(positive) < 2:
        notes |= NOTE_NO_BIG_BLIND
    if any(b > 0 for b in blinds[2:]) or min_bet != max([abs(b) for b in blinds] + [0]) or (
            n > 2 and blinds[0] > blinds[1] > 0):
        notes |= NOTE_FORCED
    posts = tuple(abs(b) for b in seat_posts)
    return min(positive) if positive else 0, min_bet, ante, button, posts, notes


def _opener(record: Record, posts: tuple[int, ...], stacks: tuple[int, ...], ante: int) -> int:
    """The seat preflop action starts after: pokerkit's largest live forced bet (a post counts below every blind)."""
    signed = (record.blinds[1], record.blinds[0]) if len(posts) == 2 else record.blinds
    return max(range(len(posts)),
               key=lambda s: (min(posts[s], max(stacks[s] - ante, 0)) * ((signed[s] > 0) - (signed[s] < 0)), s))


def table_setup(record: Record) -> Setup:
    """The engine's table for a record (:func:`table_parameters`) and a deck with every card the record shows."""
    small, big, ante, button, stacks, posts, opener, rules, notes = table_parameters(record)[:9]
    deck, hidden = _deck(record)
    return Setup(stacks=stacks, small_blind=small, big_blind=big, ante=ante, button=button, deck=deck,
                 unlimited=tuple(x is None for x in record.stacks), posts=posts, opener=opener, rules=rules,
                 hidden=hidden, notes=notes)


def showdown_hands(record: Record) -> tuple[bool, ...]:
    """Per player, whether the record shows the player's cards at a showdown: an ``sm`` with both cards known.

    This is pokerkit's reading: at a showdown each player whose cards are
    not shown is asked to show them (again on every street an all-in runs
    out), and the last asking replaces cards that ``sm ????``, or no ``sm``
    at all, leaves unknown, even cards dealt face up.
    """
    known = [False] * record.size
    for kind, who, value in record.ops:
        if kind == SHOW and len(value) == 2 and UNKNOWN not in value:
            known[who] = True
    return tuple(known)


def _deck(record: Record) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """52 card ids (seat s holds deck[2s], deck[2s+1], the board follows) and the seats with no hand at a showdown.

    Hidden cards are any cards left, except that a hidden player whom the
    record pays at a showdown is dealt the strongest cards left.
    """
    n = record.size
    holes: list[list[int]] = [[UNKNOWN, UNKNOWN] for _ in range(n)]
    board: list[int] = []
    folded = [False] * n
    for kind, who, value in record.ops:
        if kind in (DH, SHOW):
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
    hidden = [False] * n
    if len(board) == 5 and UNKNOWN not in board and sum(not f for f in folded) >= 2:
        shows = showdown_hands(record)
        paid = record.winnings or ()
        for s in range(n):
            if folded[s] or shows[s]:
                continue
            if paid and paid[s] > 0:  # the record pays a hand it does not show: the strongest cards left
                pair = _strongest_pair(holes[s], board, left)
                holes[s] = list(pair)
                left = [c for c in left if c not in pair]
            else:
                hidden[s] = True
    fill = iter(left)
    for s in range(n):
        holes[s] = [c if c != UNKNOWN else next(fill) for c in holes[s]]
    board = [c if c != UNKNOWN else next(fill) for c in board]
    deck = [c for hole in holes for c in hole] + board
    deck += list(fill)
    return tuple(deck), tuple(hidden)


def _strongest_pair(hole: list[int], board: list[int], left: list[int]) -> tuple[int, int]:
    """The strongest completion of a partly or wholly hidden hand with cards from ``left``."""
    known = [c for c in hole if c != UNKNOWN]
    if len(known) == 1:
        candidates = np.array([[known[0], c] for c in left], dtype=np.int64)
    else:
        a, b = np.triu_indices(len(left), 1)
        cards = np.array(left, dtype=np.int64)
        candidates = np.stack([cards[a], cards[b]], axis=1)
    values = evaluate_many(np.concatenate([candidates, np.tile(np.array(board, dtype=np.int64), (len(candidates), 1))],
                                          axis=1))
    pick = int(np.argmax(values))
    return int(candidates[pick, 0]), int(candidates[pick, 1])


def engine_table(record: Record, setup: Setup) -> tuple[E.Table, E.Hand]:
    """A table seating the record (:func:`table_setup`) and its hand, dealt: arrays sized by the record's actions.

    The action log holds one row per post and action, so memory follows the
    record's length whatever its amounts. The compiled replay seats its hands
    with the same kernel (:func:`matchdb.play.recorded.seat_kernel`).
    """
    return recorded_table(setup.stacks, setup.small_blind, setup.big_blind, setup.ante, setup.button, setup.deck,
                          setup.posts, setup.opener, setup.rules, setup.hidden,
                          log_rows=len(record.ops) + 3 * E.MAX_SEATS + 8)


def replay_hand(record: Record, steps: bool = True) -> Replayed:
    """Replay one record through the engine (see the module notes); ``steps=False`` skips the per-action log.

    A post (a negative blind) is live, as pokerkit posts it; where that
    reading is refused and the record reads right with the posts as dead
    money (Ongame's dead small blind), that reading is kept and noted.

    Raises
    ------
    ReplayError
        When an action is illegal for the engine, the hand ends elsewhere than
        the record, or the payments disagree; the sentence names the hand and
        the action.
    """
    setup = table_setup(record)
    try:
        return _replay(record, setup, steps)
    except ReplayError:
        dead = post_seats(record)
        if not dead or setup.posts is None:
            raise
        posts = tuple(-x if dead >> s & 1 else x for s, x in enumerate(setup.posts))
        try:
            done = _replay(record, dataclasses.replace(setup, posts=posts), steps)
        except ReplayError:
            pass
        else:
            return dataclasses.replace(done, notes=note_names(_note_bits(done.notes) | NOTE_DEAD_POST))
        raise


def post_seats(record: Record) -> int:
    """The seats (bits) whose forced bet the record writes as a post (a negative blind)."""
    blinds = (record.blinds[1], record.blinds[0]) if record.size == 2 else record.blinds
    return sum(1 << s for s, b in enumerate(blinds) if b < 0)


def _note_bits(names: tuple[str, ...]) -> int:
    return sum(1 << NOTES.index(name) for name in names)


def _replay(record: Record, setup: Setup, steps: bool) -> Replayed:
    _, hand = engine_table(record, setup)
    label = record.label
    notes = setup.notes
    log: list[Step] = []
    board_seen = 0
    for position, (kind, who, value) in enumerate(record.ops):
        if kind in (DH, SHOW):
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
                notes |= NOTE_OPEN_FOLD  # card rooms let a player fold rather than check; pokerkit replays it
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
            after = hand.state()
            log.append(Step(
                index=record.op_actions[position], seat=who, street=view.street, kind=engine_kind,
                amount=amount if engine_kind == E.RAISE else min(legal.to_call, view.stack),
                to_call=legal.to_call, pot=view.pot, stack=view.stack, bet=view.bet, max_bet=view.max_bet,
                can_raise=legal.can_raise, min_raise_to=legal.min_raise_to, max_raise_to=legal.max_raise_to,
                players=view.players, board=view.board, stacks=after.stacks, bets=after.bets, in_hand=after.in_hand,
            ))
    if not hand.over:
        raise ReplayError(f"Hand {label}: the record stops while p{hand.actor + 1} is to act on the "
                          f"{E.STREETS[hand.street]}.", "incomplete")
    engine = hand.record()
    chips = settlement(hand)
    shown_board = [c for k, _, v in record.ops if k == DB for c in v]
    if engine.showdown and (len(shown_board) < 5 or UNKNOWN in shown_board):
        raise ReplayError(f"Hand {label} goes to a showdown but the record deals only {len(shown_board)} board "
                          "cards.", "incomplete")
    won, before = chips.won, chips.before  # before: each stack once the bets are in, before the pot
    if chips.showdown and any(h and w > 0 for h, w in zip(setup.hidden, won, strict=True)):
        notes |= NOTE_HIDDEN_SPLIT
    status, rake, paid, more = _compare(record, won, chips.returned, before, setup.unlimited)
    notes |= more
    final = tuple(None if u else x for u, x in zip(setup.unlimited, chips.final, strict=True))
    if status != "unrecorded":
        final = tuple(None if f is None else b + q for f, b, q in zip(final, before, paid, strict=True))
    if record.finishing_stacks is not None:
        expected = record.finishing_stacks
        if any(e is not None and f is not None and e != f for e, f in zip(expected, final, strict=True)):
            raise ReplayError(f"Hand {label} ends with stacks {_amounts(record, expected)} in the record but "
                              f"{_amounts(record, final)} in the engine.", "disagreement")
    holes = shown_holes(record)
    return Replayed(record=record, status=status, won=won, final=final, rake=rake, showdown=engine.showdown,
                    holes=holes, board=tuple(shown_board), steps=tuple(log), engine=engine, notes=note_names(notes),
                    paid=paid)


def shown_holes(record: Record) -> tuple[tuple[int, int] | None, ...]:
    """Each player's two cards where the record shows both (dealt face up or shown), else None."""
    holes: list[tuple[int, int] | None] = [None] * record.size
    for kind, who, value in record.ops:
        if (kind in (DH, SHOW)) and len(value) == 2 and UNKNOWN not in value:
            holes[who] = (value[0], value[1])
    return tuple(holes)


def _amounts(record: Record, chips: Iterable[int | None]) -> str:
    return "[" + ", ".join("inf" if c is None else str(record.amount(c)) for c in chips) + "]"


def _compare(record: Record, won: tuple[int, ...], returned: tuple[int, ...], before: tuple[int, ...],
             unlimited: tuple[bool, ...]) -> tuple[str, int, tuple[int, ...], int]:
    """(status, rake, what the record pays each seat from the pot, NOTES bits) of the record's payments.

    The record's ``winnings`` are compared as written and less an uncalled
    bet given back, which some sites count as won (a walk's big blind); a
    raked pot is read that way only in Party Poker's records (``venue =
    'PartyPoker'``), which count every uncalled bet given back as won.
    Without winnings (or with all zero) the finishing stacks, where the record
    has them, say what each seat was paid (Ongame leaves a split pot's
    winnings at zero).
    """
    paid = record.winnings
    notes = 0
    if paid is None or (not any(paid) and any(won)):
        finishing = record.finishing_stacks
        if finishing is None or any(unlimited) or not any(f > b for f, b in zip(finishing, before, strict=True)):
            return "unrecorded", 0, won, 0
        paid = tuple(f - b for f, b in zip(finishing, before, strict=True))
        notes |= NOTE_FINISHING
    plain = tuple(paid)
    less = tuple(p - r if 0 < r <= p else p for p, r in zip(plain, returned, strict=True))
    party = _counts_uncalled(record)
    readings = [plain] if less == plain else [less, plain] if party else [plain, less]
    pot = sum(won)
    for reading in readings:
        if reading == won:
            return "identical", 0, reading, notes | (NOTE_UNCALLED if reading is less else 0)
    for reading in readings if party else [plain]:
        if sum(reading) < pot and all(0 <= q <= w and (w > 0 or q == 0) for q, w in zip(reading, won, strict=True)):
            notes |= NOTE_UNCALLED if reading is less else 0
            if sum(w > 0 for w in won) >= 2:
                notes |= NOTE_SPLIT_RAKED
            return "raked", pot - sum(reading), reading, notes
    worst = max(range(len(won)), key=lambda s: abs(plain[s] - won[s]))
    where = "finishing stacks pay" if notes & NOTE_FINISHING else "pays"
    raise ReplayError(f"Hand {record.label} {where} p{worst + 1} {record.amount(plain[worst])} in the record but "
                      f"{record.amount(won[worst])} in the engine (record {_amounts(record, plain)}, engine "
                      f"{_amounts(record, won)}).", "disagreement")


def _counts_uncalled(record: Record) -> bool:
    """Whether the record's site counts an uncalled bet given back in a player's winnings (Party Poker's records)."""
    return record.fields.get("venue") == "PartyPoker"
