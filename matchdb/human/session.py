"""A session of one person against bots: deal, act, let the bots act, keep every hand, resume later.

The person sits in seat 0 (:data:`HUMAN_SEAT`); the other seats hold bots
made from :func:`matchdb.play.arena.resolve_bots` specs (built-in names and
personalities, ``name:strength``, saved bot files, ``file.py:Class``), the
list repeated in turn to fill the table, as the arena fills its seats. Hands
are played by :mod:`matchdb.play.engine`; nothing moves on its own:

- :meth:`Session.act` plays the person's action (``"fold"``, ``"check"``,
  ``"call"``, ``"bet"`` or ``"raise"`` to an amount); an action out of turn
  or against the rules is refused in one sentence and changes nothing;
- :meth:`Session.step` lets the next bot act (one action, so a page or a
  terminal can pause visibly between bot actions), :meth:`Session.run_bots`
  until it is the person's turn or the hand is over;
- :meth:`Session.next_hand` deals the next hand, :meth:`Session.leave`
  folds the hand in play, lets the bots finish it and closes the session
  (:meth:`Session.resume` opens it again).

**Games.** ``"cash"``: fixed blinds, stacks carried from hand to hand, a
player who goes broke buys in again for ``stack`` (counted in ``buyins``).
``"sng"``: a sit-and-go: every seat starts with ``stack``, the blinds rise
every ``hands_per_level`` hands along ``schedule``
(:data:`matchdb.play.games.DEFAULT_SCHEDULE` by default, levels past it
doubling, :func:`matchdb.play.games.blind_schedule`), a player without chips
is out, and the session is over when the person is out or has every chip.

**What is kept.** Each finished hand is appended to ``hands.phhs`` in the
session's folder (``directory/<id>/``, readable by its owner only: the
folder 0700, its files 0600) by pokerkit's writer
(:func:`matchdb.hands.writer.history_of`, every hole card written), then the
state (the configuration, stacks, button, hands played, buy-ins and the last
hand's result) is written atomically to ``state.json``; both happen before
the next hand can be dealt, so a crash loses at most the hand in play and
:meth:`Session.resume` continues with the stacks. (A bot's memory of earlier
hands, such as :class:`matchdb.play.examples.Exploiter`'s, starts afresh on
resume.) Names a hand history cannot carry (control characters, three
single quotes in a row: :func:`check_name`) are refused, so every kept hand
reads back with pokerkit and :func:`matchdb.hands.read`.

**What is shown.** :meth:`Session.view` is a JSON-safe dict of what the
person may see: the person's hole cards, the board dealt so far, each seat's
name, stack, bet and state, whose turn it is, the legal actions with the
raise range and presets (half pot, pot, all-in), the hand's actions and the
last hand's result. A bot's hole cards appear only when the hand ended at a
showdown the bot reached; the undealt cards never.

**Rules.** The engine's (:mod:`matchdb.play.engine`), with pokerkit's
short big blind (the others owe what a short big blind posted), so pokerkit
replays every kept hand.

**Decks.** With ``seed`` set, hand k deals from a Generator seeded with
``(seed, k)`` (reproducible, for tests and practice: a hand lost to a crash
is dealt again the same); without, each deck comes from the operating
system's randomness. Whoever knows the seed can predict every card, so the
view says ``seeded``. Session ids come from :func:`secrets.token_urlsafe`.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> session = Session.new(TableConfig(seats=3, opponents=("station", "allin"), stack=200,
...                                   small_blind=1, big_blind=2, seed=5), directory=folder)
>>> view = session.view()
>>> view["hand"], [seat["name"] for seat in view["seats"]], len(view["hole"])
(1, ['you', 'station', 'allin'], 2)
>>> view["seats"][1]["cards"] is None     # a bot's cards are never shown before a showdown
True
>>> while not session.view()["hand_over"]:
...     if session.view()["your_turn"]:
...         _ = session.act("fold")
...     else:
...         _ = session.step()
>>> session.act("call")
Traceback (most recent call last):
...
matchdb.human.session.SessionError: The hand is over; deal the next hand before acting.
>>> sum(session.view()["stacks"]) == 600, Session.resume(session.id, folder).hands
(True, 1)
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import shutil
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.errors import MatchdbError
from matchdb.play.arena import resolve_bots
from matchdb.play.bots import Bot
from matchdb.play.decisions import pot_raise_to
from matchdb.play.engine import (
    ACTION_NAMES,
    ANTE,
    CALL,
    CHECK,
    FOLD,
    MAX_SEATS,
    RAISE,
    STREETS,
    GameStart,
    Hand,
    HandRecord,
    Rules,
    Table,
    shuffled_decks,
)
from matchdb.play.games import (
    DEFAULT_SCHEDULE,
    blind_schedule,
    bot_name,
    needs_strength,
    wants_game_start,
    wants_results,
)

__all__ = ["GAMES", "HUMAN_SEAT", "ACTIONS", "SessionError", "TableConfig", "Session", "card_names", "check_name"]

#: The games a table offers.
GAMES = ("cash", "sng")
#: The person's seat.
HUMAN_SEAT = 0
#: The actions :meth:`Session.act` takes.
ACTIONS = ("fold", "check", "call", "bet", "raise")

_STATE = "state.json"
_HANDS = "hands.phhs"
_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_MAX_CHIPS = 10**9
_STATE_VERSION = 1
#: A short big blind is owed only what it posted: pokerkit's rule, so every kept hand replays in pokerkit.
_RULES = Rules(short_big_blind="posted")


class SessionError(MatchdbError):
    """A table was set up wrongly, or an action or a session id was refused."""


def card_names(cards: Sequence[int] | None) -> list[str] | None:
    """Card ids as two-character names (``[38, 37] -> ['Ah', 'Kh']``), None stays None.

    >>> card_names((38, 37)), card_names(None)
    (['Ah', 'Kh'], None)
    """
    if cards is None:
        return None
    return [format_cards([int(c)]) for c in cards]


def check_name(name: str, what: str = "name") -> str:
    r"""``name`` when a hand history can carry it, else a one-sentence refusal.

    PHH is TOML: pokerkit writes a name as a literal string, which cannot hold
    a control character (a tab, a newline, NUL, DEL: Unicode's category Cc)
    or three single quotes in a row, and a lone surrogate cannot be written
    as UTF-8 at all. Such a name would leave the session's whole history
    unreadable, so it is refused.

    >>> check_name("Ann O'Neil")
    "Ann O'Neil"
    >>> check_name("a" + chr(10) + "b", "player's name")
    Traceback (most recent call last):
    ...
    matchdb.human.session.SessionError: The player's name 'a\nb' holds the character '\n'; expected printable characters and no three single quotes in a row.
    """
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Cs")), None)
    if bad is not None or "'''" in name:
        holds = f"the character {bad!r}" if bad is not None else "three single quotes in a row"
        raise SessionError(f"The {what} {name[:60]!r} holds {holds}; expected printable characters and no three "
                           "single quotes in a row.")
    return name


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise SessionError(f"The {name} {value!r} is not a whole number {low}..{high:,}.")
    return int(value)


@dataclass(frozen=True)
class TableConfig:
    """A table for a person: seats, opponents, game, chips, blinds, coach and seed.

    ``opponents`` are bot specs (:func:`matchdb.play.arena.resolve_bots`: a
    list, or names separated by commas) filling seats 1.. in turn; ``game``
    ``"cash"`` plays ``small_blind``/``big_blind``/``ante`` throughout,
    ``"sng"`` the blind ``schedule`` ((small blind, big blind, ante) rows),
    rising every ``hands_per_level`` hands; ``stack`` is every seat's
    starting stack (and a cash game's buy-in); ``coach`` switches the coach
    on, ``coach_model`` says how it models the opponents (``"uniform"``:
    random hands, ``"dropout"``: West's drop-out ranges); ``seed`` makes the
    decks reproducible; ``name`` is the person's name in the hand histories.

    >>> TableConfig(seats=2, opponents="west").opponents
    ('west',)
    >>> TableConfig(seats=11)
    Traceback (most recent call last):
    ...
    matchdb.human.session.SessionError: The seat count 11 is not a whole number 2..10.
    """

    seats: int = 6
    opponents: tuple[str, ...] = ("west", "west-tight", "west-loose", "income", "fives")
    game: str = "cash"
    stack: int = 1000
    small_blind: int = 5
    big_blind: int = 10
    ante: int = 0
    schedule: tuple[tuple[int, int, int], ...] = DEFAULT_SCHEDULE
    hands_per_level: int = 10
    coach: bool = False
    coach_model: str = "uniform"
    seed: int | None = None
    name: str = "you"

    def __post_init__(self) -> None:
        _whole(self.seats, "seat count", 2, MAX_SEATS)
        opponents = self.opponents
        if isinstance(opponents, str):
            opponents = tuple(b.strip() for b in opponents.split(",") if b.strip())
        if not isinstance(opponents, (list, tuple)) or not opponents or not all(isinstance(b, str) for b in opponents):
            raise SessionError(f"The opponents {self.opponents!r} are not bot names; expected names like 'west,allin'.")
        object.__setattr__(self, "opponents", tuple(opponents))
        if self.game not in GAMES:
            raise SessionError(f"The game {self.game!r} is unknown; expected 'cash' or 'sng'.")
        _whole(self.stack, "stack", 1, _MAX_CHIPS)
        _whole(self.small_blind, "small blind", 0, _MAX_CHIPS)
        _whole(self.big_blind, "big blind", 1, _MAX_CHIPS)
        _whole(self.ante, "ante", 0, _MAX_CHIPS)
        if self.small_blind > self.big_blind:
            raise SessionError(f"The small blind {self.small_blind} is larger than the big blind {self.big_blind}.")
        _whole(self.hands_per_level, "hands per level", 1, 10**6)
        try:
            rows = tuple(tuple(int(x) for x in row) for row in self.schedule)
            blind_schedule(rows, 1)
        except (TypeError, ValueError):
            raise SessionError(f"The blind schedule {self.schedule!r} is not (small blind, big blind, ante) rows "
                               "with 0 <= sb <= bb and bb >= 1.") from None
        object.__setattr__(self, "schedule", rows)
        if not isinstance(self.coach, bool):
            raise SessionError(f"The coach switch {self.coach!r} is not true or false.")
        if self.coach_model not in ("uniform", "dropout"):
            raise SessionError(f"The coach's opponent model {self.coach_model!r} is unknown; expected 'uniform' or 'dropout'.")
        if self.seed is not None:
            _whole(self.seed, "seed", 0, 2**63 - 1)
        if not isinstance(self.name, str) or not 1 <= len(self.name.strip()) <= 40:
            raise SessionError(f"The player's name {str(self.name)[:60]!r} is not a text of 1 to 40 characters.")
        check_name(self.name, "player's name")

    def to_dict(self) -> dict[str, Any]:
        """The configuration as JSON-safe data (:meth:`from_dict` reads it back)."""
        data = asdict(self)
        data["opponents"] = list(self.opponents)
        data["schedule"] = [list(row) for row in self.schedule]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> TableConfig:
        """A configuration from :meth:`to_dict`'s data or a request; unknown keys are refused.

        >>> TableConfig.from_dict({"seats": 2, "colour": "red"})
        Traceback (most recent call last):
        ...
        matchdb.human.session.SessionError: The table setting 'colour' is unknown; expected some of seats, opponents, game, stack, small_blind, big_blind, ante, schedule, hands_per_level, coach, coach_model, seed, name.
        """
        if not isinstance(data, Mapping):
            raise SessionError(f"The table settings {data!r} are not an object of settings.")
        names = [f.name for f in fields(cls)]
        for key in data:
            if key not in names:
                raise SessionError(f"The table setting {key!r} is unknown; expected some of {', '.join(names)}.")
        values = dict(data)
        if isinstance(values.get("opponents"), list):
            values["opponents"] = tuple(values["opponents"])
        if isinstance(values.get("schedule"), list):
            values["schedule"] = tuple(tuple(row) if isinstance(row, list) else row for row in values["schedule"])
        return cls(**values)

    def blinds(self, hand: int) -> tuple[int, int, int]:
        """(small blind, big blind, ante) of hand number ``hand`` (0 first).

        >>> TableConfig(game="sng", hands_per_level=2).blinds(5)
        (25, 50, 0)
        """
        if self.game == "cash":
            return self.small_blind, self.big_blind, self.ante
        level = hand // self.hands_per_level
        row = blind_schedule(self.schedule, level + 1)[level]
        return int(row[0]), int(row[1]), int(row[2])

    def make_bots(self) -> list[Bot]:
        """One fresh bot per seat after the person's, the opponents repeated in turn."""
        specs = [self.opponents[k % len(self.opponents)] for k in range(self.seats - 1)]
        try:
            return resolve_bots(specs)
        except MatchdbError as error:
            raise SessionError(str(error)) from None


@dataclass
class _Decision:
    """The person's decision point: for the coach (what was known, what was done)."""

    hand: int
    street: int
    view: Any
    action: str = ""
    amount: int = 0


@dataclass
class _Live:
    """The hand in play."""

    number: int
    table: Table
    hand: Hand
    blinds: tuple[int, int, int]
    decisions: list[_Decision] = field(default_factory=list)


class Session:
    """One person's session at a table of bots; make one with :meth:`new` or :meth:`resume`.

    Attributes: ``id``, ``config`` (:class:`TableConfig`), ``folder`` (where
    its hands and state are kept), ``names`` (by seat), ``stacks`` (between
    hands; during a hand, the stacks it started with), ``hands`` (hands
    finished), ``buyins`` (chips each seat brought, cash rebuys included),
    ``over`` (a sit-and-go that ended) and ``left``.
    """

    def __init__(self, session_id: str, config: TableConfig, folder: Path, source: Any = None) -> None:
        self.id = session_id
        self.config = config
        self.folder = folder
        self.bots: list[Bot] = config.make_bots()
        names = [config.name.strip()]
        for bot in self.bots:
            base = check_name(bot_name(bot), "bot name")
            name, k = base, 2
            while name in names:
                name, k = f"{base}-{k}", k + 1
            names.append(name)
        self.names: tuple[str, ...] = tuple(names)
        self.source = source
        self.stacks: list[int] = [config.stack] * config.seats
        self.buyins: list[int] = [config.stack] * config.seats
        self.button = -1
        self.hands = 0
        self.over = False
        self.left = False
        self.last: dict[str, Any] | None = None
        self.reviews: list[dict[str, Any]] = []
        self.bot_errors: list[dict[str, Any]] = []
        self._live: _Live | None = None
        self._started = False  # whether the bots were told their game started (on_game_start)
        self._phh_size = 0
        self._lock = threading.RLock()
        self.coach: Any = None

    # -- making and resuming --------------------------------------------------------------------

    @classmethod
    def new(cls, config: TableConfig, db: Any = None, directory: str | os.PathLike[str] = ".", source: Any = None) -> Session:
        """A new session in ``directory/<id>/``, its first hand dealt (bots before the person have not acted yet).

        ``source`` is a :class:`matchdb.play.strength.StrengthSource` for bots
        and a coach that read the database (shared between sessions by a
        server); without one it is opened over ``db`` (a MatchDB, a path or
        None for the default database) when a bot or the coach needs it.
        """
        if not isinstance(config, TableConfig):
            raise SessionError(f"The table {config!r} is not a matchdb.human.TableConfig.")
        session_id = secrets.token_urlsafe(18)
        folder = Path(directory) / session_id
        session = cls(session_id, config, folder, source)
        session._open_source(db)
        Path(directory).mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
        folder.chmod(0o700)  # whatever the umask: a session's folder is its owner's alone
        os.close(os.open(folder / _HANDS, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        session._save()
        session._deal()
        return session

    @classmethod
    def resume(cls, session_id: str, directory: str | os.PathLike[str] = ".", db: Any = None, source: Any = None,
               check: Callable[[Any], TableConfig] | None = None) -> Session:
        """The session ``session_id`` of ``directory`` as its state file left it, the next hand dealt.

        A hand appended to the history after the last state was written (a
        crash between the two) is cut off, so the history and the stacks agree.
        ``check`` turns the kept table settings into a :class:`TableConfig`
        (default :meth:`TableConfig.from_dict`): a server passes its own, which
        takes built-in bots only, so a state file edited to name a file or a
        class loads no code. A state file that is not what this class wrote
        (wrong types, numbers out of range, a history size the file does not
        have) is refused in one sentence.
        """
        if not isinstance(session_id, str) or not _ID.fullmatch(session_id):
            raise SessionError(f"The session id {str(session_id)[:80]!r} is not a session id; expected 16 to 64 "
                               "letters, digits, '-' or '_'.")
        folder = Path(directory) / session_id
        try:
            data = json.loads((folder / _STATE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SessionError(f"No session {session_id!r} is kept in {str(directory)!r}.") from None
        except (OSError, ValueError) as error:
            raise SessionError(f"The state of session {session_id!r} cannot be read ({error}).") from None
        if not isinstance(data, dict) or data.get("version") != _STATE_VERSION:
            raise SessionError(f"The state of session {session_id!r} is not a version {_STATE_VERSION} session state.")
        config = (check or TableConfig.from_dict)(data.get("config"))
        session = cls(session_id, config, folder, source)
        try:
            session._restore(data)
            with open(folder / _HANDS, "r+b") as phh:  # a hand written after the last state is cut off
                if session._phh_size > os.fstat(phh.fileno()).st_size:
                    raise ValueError(f"its history is shorter than the {session._phh_size:,} bytes the state counts")
                phh.truncate(session._phh_size)
        except (KeyError, TypeError, ValueError, OSError) as error:
            raise SessionError(f"The state of session {session_id!r} is damaged ({str(error)[:120]}).") from None
        session._open_source(db)
        if not session.over:
            session._deal()
        return session

    def _restore(self, data: dict[str, Any]) -> None:
        """The kept numbers of ``state.json``, each checked (KeyError, TypeError or ValueError when one is wrong)."""
        seats = self.config.seats

        def chips(values: Any, what: str) -> list[int]:
            if not isinstance(values, list) or len(values) != seats:
                raise ValueError(f"{what} are not {seats} numbers")
            return [_whole(x, what, 0, 10 * _MAX_CHIPS) for x in values]

        self.stacks = chips(data["stacks"], "stacks")
        self.buyins = chips(data["buyins"], "buy-ins")
        self.button = _whole(data["button"], "button", -1, seats - 1)
        self.hands = _whole(data["hands"], "hands played", 0, 10**12)
        self._phh_size = _whole(data["phh_size"], "history size", 0, 2**62)
        if not isinstance(data["over"], bool):
            raise TypeError("its 'over' is not true or false")
        self.over = data["over"]
        alive = [s for s in range(seats) if self.stacks[s] > 0]
        if self.config.game == "sng" and (self.stacks[HUMAN_SEAT] == 0 or alive == [HUMAN_SEAT]):
            self.over = True
        if self.config.game == "cash" and sum(self.stacks) == 0:
            raise ValueError("no seat has chips")
        last, reviews = data.get("last"), data.get("reviews", [])
        if not (last is None or isinstance(last, dict)) or not isinstance(reviews, list):
            raise TypeError("its last hand or its reviews are not what a session writes")
        self.last, self.reviews = last, list(reviews)

    def _open_source(self, db: Any) -> None:
        if self.source is None and (needs_strength(self.bots) or self.config.coach):
            from matchdb.play.sources import TableSource

            self.source = TableSource(db).open()
        if self.config.coach and self.coach is None:
            from matchdb.human.coach import Coach

            self.coach = Coach(self.source, self.config.coach_model,
                               solved=[bot for bot in self.bots if callable(getattr(bot, "advice", None))])

    # -- the view ---------------------------------------------------------------------------------

    @property
    def hand_over(self) -> bool:
        """True between hands (and once the session is over)."""
        return self._live is None or self._live.hand.over

    def view(self) -> dict[str, Any]:
        """What the person may see now, as JSON-safe data (see the module notes)."""
        with self._lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        live = self._live
        n = self.config.seats
        sb, bb, ante = live.blinds if live is not None else self.config.blinds(self.hands)
        out: dict[str, Any] = {
            "id": self.id, "game": self.config.game, "hand": self.hands + (0 if self.hand_over else 1),
            "hands_played": self.hands, "blinds": {"small_blind": sb, "big_blind": bb, "ante": ante},
            "human_seat": HUMAN_SEAT, "names": list(self.names), "over": self.over, "left": self.left,
            "coach_on": self.config.coach, "last": self.last, "buyins": list(self.buyins),
            "bot_errors": self.bot_errors, "seeded": self.config.seed is not None,
        }
        if live is None:
            out.update(hand_over=True, your_turn=False, actor=None, board=[], pot=0, street="over", hole=None,
                       legal=None, log=[], stacks=list(self.stacks), button=self.button,
                       seats=[self._seat(s, None, None) for s in range(n)])
            return out
        hand = live.hand
        record = hand.record()
        history = record.history
        folded = {seat for _, seat, kind, _ in history if kind == FOLD}
        bets = self._bets(history, hand.street)
        shown = self._shown(record) if hand.over else set()
        stacks = [int(x) for x in live.table.stacks]
        actor = hand.actor if not hand.over else -1
        out.update(
            hand_over=hand.over, actor=actor if actor >= 0 else None, your_turn=actor == HUMAN_SEAT,
            board=card_names(hand.board), pot=0 if hand.over else hand.pot, street=STREETS[hand.street],
            hole=card_names(record.holes[HUMAN_SEAT]), stacks=stacks, button=record.button,
            seats=[self._seat(s, record, (stacks[s], bets[s], s in folded, s in shown)) for s in range(n)],
            log=[self._log_entry(entry, history[:k]) for k, entry in enumerate(history)],
            legal=self._legal(hand) if actor == HUMAN_SEAT else None,
        )
        if actor == HUMAN_SEAT and self.coach is not None:
            out["coach"] = self.coach.advise(self._human_view(), self.names)
        return out

    def _seat(self, s: int, record: HandRecord | None, state: tuple[int, int, bool, bool] | None) -> dict[str, Any]:
        if record is None or state is None:
            return {"seat": s, "name": self.names[s], "stack": self.stacks[s], "bet": 0, "dealt": False,
                    "folded": False, "all_in": False, "button": s == self.button, "cards": None,
                    "human": s == HUMAN_SEAT, "out": self.stacks[s] == 0}
        stack, bet, folded, shown = state
        dealt = record.start[s] > 0
        cards = record.holes[s] if dealt and (s == HUMAN_SEAT or shown) else None
        return {"seat": s, "name": self.names[s], "stack": stack, "bet": bet, "dealt": dealt, "folded": folded,
                "all_in": dealt and not folded and stack == 0, "button": s == record.button,
                "cards": card_names(cards), "human": s == HUMAN_SEAT, "out": not dealt}

    @staticmethod
    def _bets(history: Sequence[tuple[int, int, int, int]], street: int) -> list[int]:
        """Chips each seat put in during the current round (from the hand's log)."""
        bets = [0] * MAX_SEATS
        for st, seat, kind, amount in history:
            if st != street or kind == ANTE:
                continue
            if kind == RAISE:
                bets[seat] = amount
            else:
                bets[seat] += amount
        return bets

    @staticmethod
    def _shown(record: HandRecord) -> set[int]:
        """Seats whose cards were shown: those still in at a showdown."""
        if not record.showdown:
            return set()
        folded = {seat for _, seat, kind, _ in record.history if kind == FOLD}
        return {s for s in range(len(record.start)) if record.start[s] > 0 and s not in folded}

    def _log_entry(self, entry: tuple[int, int, int, int], earlier: Sequence[tuple[int, int, int, int]] = ()) -> dict[str, Any]:
        """One action of the hand's log (``earlier``: the actions before it); the first wager of a street after the
        flop is a ``"bet"`` (preflop the big blind is the bet, so every wager there is a ``"raise"``)."""
        street, seat, kind, amount = entry
        action = ACTION_NAMES[kind]
        if kind == RAISE and street > 0 and not any(s == street and k == RAISE for s, _, k, _ in earlier):
            action = "bet"
        return {"street": STREETS[street], "seat": seat, "name": self.names[seat], "action": action, "amount": amount}

    def _legal(self, hand: Hand) -> dict[str, Any]:
        legal = hand.legal()
        view = hand.view()
        presets: dict[str, int] = {}
        if legal.can_raise:
            for key, fraction in (("half_pot", 0.5), ("pot", 1.0)):
                presets[key] = pot_raise_to(fraction, view.pot, legal.to_call, view.max_bet, legal.min_raise_to,
                                            legal.max_raise_to)
            presets["all_in"] = legal.max_raise_to
        return {"fold": legal.to_call > 0, "check": legal.to_call == 0, "call": legal.to_call,
                "raise": legal.can_raise, "bet": legal.can_raise and view.max_bet == 0,
                "min_raise_to": legal.min_raise_to, "max_raise_to": legal.max_raise_to, "presets": presets,
                "pot": view.pot, "to_call": legal.to_call, "stack": view.stack, "bet_now": view.bet}

    def _human_view(self) -> Any:
        assert self._live is not None
        return self._live.hand.view(self.source, self._live.number, self.names)

    # -- playing ------------------------------------------------------------------------------------

    def act(self, kind: str, amount: int | None = None) -> dict[str, Any]:
        """Play the person's action: ``"fold"``, ``"check"``, ``"call"``, or ``"bet"``/``"raise"`` to ``amount``.

        ``amount`` is the total the bet or raise goes to this round (as the
        engine and PHH count it). Refused, in one sentence and without any
        change: an unknown action, an action out of turn, a fold or call
        with nothing to call, a check facing a bet, a raise where none is
        allowed or to an amount outside ``min_raise_to..max_raise_to``.
        Returns :meth:`view`.
        """
        with self._lock:
            live = self._check_turn()
            if not isinstance(kind, str) or kind not in ACTIONS:
                raise SessionError(f"The action {str(kind)[:40]!r} is unknown; expected one of {', '.join(ACTIONS)}.")
            legal = live.hand.legal()
            if kind == "fold" and legal.to_call == 0:
                raise SessionError("There is nothing to call; check instead of folding.")
            if kind == "call" and legal.to_call == 0:
                raise SessionError("There is nothing to call; check instead.")
            if kind == "check" and legal.to_call > 0:
                raise SessionError(f"A check is not possible facing {legal.to_call} to call; call, raise or fold.")
            if kind in ("bet", "raise"):
                if not legal.can_raise:
                    raise SessionError(f"A {kind} is not possible now; call {legal.to_call} or fold.")
                if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)):
                    raise SessionError(f"The {kind} amount {str(amount)[:40]!r} is not a whole number of chips; "
                                       f"expected {legal.min_raise_to}..{legal.max_raise_to}.")
                if not legal.min_raise_to <= amount <= legal.max_raise_to:
                    raise SessionError(f"A {kind} to {amount} is outside the legal range "
                                       f"{legal.min_raise_to}..{legal.max_raise_to}.")
            elif amount not in (None, 0):
                raise SessionError(f"A {kind} takes no amount; got {str(amount)[:40]!r}.")
            decision = _Decision(live.number, live.hand.street, self._human_view(), kind,
                                 int(amount) if kind in ("bet", "raise") and amount is not None else 0)
            engine_kind = {"fold": FOLD, "check": CHECK, "call": CALL, "bet": RAISE, "raise": RAISE}[kind]
            live.hand.act(engine_kind, decision.amount)
            live.decisions.append(decision)
            self._after_action()
            return self._view()

    def step(self) -> dict[str, Any] | None:
        """Let the bot whose turn it is act once; its action as a log entry, or None when it is not a bot's turn.

        A bot that fails (raises, or answers something that is not an
        action) checks or folds, and the view's ``bot_errors`` says so (the
        last ten); an illegal raise is corrected by the engine (a call, or
        clamped to the legal range).
        """
        with self._lock:
            live = self._live
            if live is None or live.hand.over or live.hand.actor == HUMAN_SEAT:
                return None
            seat = live.hand.actor
            bot = self.bots[seat - 1]
            view = live.hand.view(self.source, live.number, self.names)
            try:
                kind, amount = bot.act(view)
                kind, amount = int(kind), int(amount)
                if kind not in (FOLD, CHECK, CALL, RAISE):
                    kind, amount = FOLD, 0
            except Exception as error:  # a user's bot, a partial database: it folds (or checks), play goes on, it is said
                kind, amount = FOLD, 0
                self._bot_error(live.number + 1, seat, error)
            before = len(live.hand.history)
            live.hand.act(kind, amount)
            entry = self._log_entry(live.hand.history[before], live.hand.history[:before])
            self._after_action()
            return entry

    def run_bots(self) -> list[dict[str, Any]]:
        """Let bots act until it is the person's turn or the hand is over; their actions as log entries."""
        with self._lock:
            out = []
            while (entry := self.step()) is not None:
                out.append(entry)
            return out

    def next_hand(self) -> dict[str, Any]:
        """Deal the next hand (the last one must be over); returns :meth:`view`."""
        with self._lock:
            if self.left:
                raise SessionError("The session was left; resume it to play on.")
            if self.over:
                raise SessionError("The sit-and-go is over; start a new session to play again.")
            if not self.hand_over:
                raise SessionError("The hand is still in play; finish it before dealing the next.")
            self._deal()
            return self._view()

    def leave(self) -> dict[str, Any]:
        """Fold the person's hand in play (bots finish it), keep it, close the session; returns :meth:`summary`."""
        with self._lock:
            self._settle()
            self.left = True
            self._save()
            return self.summary()

    def put_away(self) -> None:
        """Settle the hand in play as :meth:`leave` does (the person folds, or checks when nothing is to call; the
        bots finish it) and keep it, so a session put away (a server's idle session) resumes after that hand: waiting
        never takes back a hand in play."""
        with self._lock:
            self._settle()

    @property
    def unplayed(self) -> bool:
        """True while the person has finished no hand and made no decision in this one: nothing worth keeping."""
        return self.hands == 0 and (self._live is None or not self._live.decisions)

    def discard(self) -> None:
        """Remove the session's folder (its state and history) for good; the session is closed."""
        with self._lock:
            self.left = True
            self._live = None
            shutil.rmtree(self.folder, ignore_errors=True)

    def _settle(self) -> None:
        live = self._live
        while live is not None and not live.hand.over:
            if live.hand.actor == HUMAN_SEAT:
                legal = live.hand.legal()
                live.hand.act(FOLD if legal.to_call > 0 else CHECK)
                self._after_action()
            else:
                self.step()

    def summary(self) -> dict[str, Any]:
        """Hands played, stacks, buy-ins and each seat's result in chips and big blinds (JSON-safe)."""
        with self._lock:
            bb = self.config.blinds(max(self.hands - 1, 0))[1]
            net = [s - b for s, b in zip(self.stacks, self.buyins, strict=True)]
            return {"id": self.id, "hands": self.hands, "names": list(self.names), "stacks": list(self.stacks),
                    "buyins": list(self.buyins), "net": net, "net_big_blinds": [x / bb for x in net],
                    "over": self.over, "left": self.left, "history": str(self.folder / _HANDS)}

    @property
    def history_path(self) -> Path:
        """The session's PHH file (a ``.phhs`` file of one section per finished hand)."""
        return self.folder / _HANDS

    # -- internals ----------------------------------------------------------------------------------

    def _check_turn(self) -> _Live:
        live = self._live
        if self.left:
            raise SessionError("The session was left; resume it to play on.")
        if live is None or live.hand.over:
            raise SessionError("The hand is over; deal the next hand before acting.")
        if live.hand.actor != HUMAN_SEAT:
            raise SessionError(f"It is {self.names[live.hand.actor]}'s turn (seat {live.hand.actor}), not yours.")
        return live

    def _deal(self) -> None:
        config = self.config
        number = self.hands
        if config.game == "cash":
            for s in range(config.seats):
                if self.stacks[s] == 0:
                    self.stacks[s] = config.stack
                    self.buyins[s] += config.stack
        sb, bb, ante = config.blinds(number)
        if config.seed is not None:
            rng = np.random.default_rng([config.seed, number])
        else:
            rng = np.random.default_rng(secrets.randbits(128))
        button = None if self.button < 0 else (self.button + 1) % config.seats
        table = Table(self.stacks, sb, bb, ante, button=button, rules=_RULES)
        hand = table.start_hand(shuffled_decks(rng, 1)[0])
        self._live = _Live(number, table, hand, (sb, bb, ante))
        if not self._started:  # the bots' game begins with this object's first hand (new, or resumed)
            self._started = True
            self._start_bots(hand.record().button, (sb, bb, ante))
        if hand.over:
            self._finish()

    def _start_bots(self, button: int, blinds: tuple[int, int, int]) -> None:
        """Tell the bots with an ``on_game_start`` their seat (a failure is said in ``bot_errors``, play goes on)."""
        for seat in range(1, self.config.seats):
            bot = self.bots[seat - 1]
            if not wants_game_start(bot):
                continue
            start = GameStart(seat=seat, names=self.names, stacks=tuple(self.stacks), button=button,
                              small_blind=blinds[0], big_blind=blinds[1], ante=blinds[2], mode=self.config.game)
            try:
                bot.on_game_start(start)
            except Exception as error:  # a user's bot must not stop the table
                self._bot_error(self.hands + 1, seat, error)

    def _bot_error(self, hand: int, seat: int, error: Exception) -> None:
        self.bot_errors = [*self.bot_errors[-9:], {"hand": hand, "seat": seat, "name": self.names[seat],
                                                  "error": f"{type(error).__name__}: {str(error)[:200]}"}]

    def _after_action(self) -> None:
        live = self._live
        if live is not None and live.hand.over:
            self._finish()

    def _finish(self) -> None:
        """The hand is over: tell the bots, append it to the history, keep the state."""
        live = self._live
        assert live is not None
        hand = live.hand
        record = hand.record()
        listeners = [seat for seat in range(1, self.config.seats) if wants_results(self.bots[seat - 1])]
        if listeners:
            results = hand.results(live.number, self.names)
            for seat in listeners:
                if record.start[seat] > 0:
                    with contextlib.suppress(Exception):  # a user's bot's bookkeeping must not stop the table
                        self.bots[seat - 1].on_hand_end(results[seat])
        self._append(record, live)
        self.stacks = [int(x) for x in record.stacks]
        self.button = record.button
        self.hands = live.number + 1
        shown = self._shown(record)
        n_board = len(hand.board)
        self.last = {
            "hand": live.number + 1, "board": card_names(record.board[:n_board]), "showdown": record.showdown,
            "shown": {str(s): card_names(record.holes[s]) for s in sorted(shown | {HUMAN_SEAT})
                      if record.holes[s] is not None},
            "net": [b - a for a, b in zip(record.start, record.stacks, strict=True)], "won": list(record.won),
            "stacks": list(record.stacks),
            "pots": [{"amount": a, "eligible": list(e), "paid": list(p)} for a, e, p in record.pots],
            "winners": [s for s in range(self.config.seats) if record.won[s] > 0],
        }
        if self.coach is not None:
            review = self.coach.review(live.decisions, record, self.names)
            self.last["review"] = review
            self.reviews.append(review)
        if self.config.game == "sng":
            alive = [s for s in range(self.config.seats) if self.stacks[s] > 0]
            self.over = self.stacks[HUMAN_SEAT] == 0 or alive == [HUMAN_SEAT]
        self._save()

    def _append(self, record: HandRecord, live: _Live) -> None:
        from matchdb.hands.writer import history_of, phh_order

        sb, bb, ante = live.blinds
        order = phh_order(record)
        history = history_of(record, sb, bb, ante, players=list(self.names), seats=[s + 1 for s in order],
                             seat_count=self.config.seats, event="matchdb play",
                             short_big_blind=_RULES.short_big_blind)  # matchdb's replay plays the session's rule
        history = replace(history, hand=live.number + 1)  # ``hand`` is history_of's own first argument
        text = f"{'' if self._phh_size == 0 else chr(10)}[{live.number + 1}]\n{history.dumps()}\n".encode()
        with open(self.folder / _HANDS, "ab") as phh:
            phh.write(text)
            phh.flush()
            os.fsync(phh.fileno())
        self._phh_size += len(text)

    def _save(self) -> None:
        data = {"version": _STATE_VERSION, "id": self.id, "config": self.config.to_dict(), "stacks": self.stacks,
                "buyins": self.buyins, "button": self.button, "hands": self.hands, "over": self.over,
                "last": self.last, "reviews": self.reviews[-50:], "phh_size": self._phh_size}
        text = json.dumps(data, allow_nan=False, default=_plain)
        temporary = self.folder / f".{_STATE}.{secrets.token_hex(4)}"
        with open(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.folder / _STATE)


def _plain(value: Any) -> Any:
    """JSON for numpy numbers (and NaN-free floats) in the state."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        number = float(value)
        return number if math.isfinite(number) else None
    raise TypeError(f"{type(value).__name__} is not JSON data")

