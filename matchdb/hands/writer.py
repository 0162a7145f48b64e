"""Writing hands the engine played (an arena's, a bot's) as PHH with pokerkit's writer.

:func:`history_of` turns one :class:`matchdb.play.engine.HandRecord` into a
:class:`pokerkit.notation.HandHistory`: the seats dealt in, in PHH order
(from the seat after the button round to the button; heads-up the big blind
first), the blinds and ante, every hole card (or ``????`` with
``hidden=True``, except hands shown at a showdown), the board as it was
dealt and every action. :func:`write` writes many as a ``.phhs`` file (one
section per hand, written as they come, so memory stays flat) or one as a
``.phh`` file; pokerkit reads them back, and :func:`matchdb.hands.read`
replays them. :func:`play_hands` plays bots at a table through the engine's
Python loop and gives each finished hand, for a quick set of known-bot hands.

>>> from matchdb.play.bots import CallingStation, AllIn
>>> hands = list(play_hands([CallingStation(), AllIn(), CallingStation()], 2, seed=3))
>>> history = history_of(hands[0], 1, 2, players=["station", "allin", "station-2"])
>>> history.blinds_or_straddles, history.actions[:4]
([1, 2, 0], ['d dh p1 8cTh', 'd dh p2 9hJc', 'd dh p3 4sQd', 'p3 cc'])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.cards import format_cards
from matchdb.hands.reader import HandsError, _pokerkit
from matchdb.play import engine as E

if TYPE_CHECKING:
    from pokerkit.notation import HandHistory

    from matchdb.play.interface import Bot

__all__ = ["ArenaWriter", "HandWriter", "history_of", "phh_order", "play_hands", "seat_names", "write"]


def phh_order(hand: E.HandRecord) -> list[int]:
    """Engine seats dealt in, in PHH order: from the seat after the button round to the button."""
    n = len(hand.start)
    return [(hand.button + 1 + k) % n for k in range(n) if hand.start[(hand.button + 1 + k) % n] > 0]


def history_of(hand: E.HandRecord, small_blind: int, big_blind: int, ante: int = 0, /,
               players: Sequence[str] | None = None, hidden: bool = False, short_big_blind: str | None = None,
               **fields: Any) -> Any:
    """One engine hand as a pokerkit ``HandHistory`` (amounts in chips; ``fields`` adds PHH fields like ``venue``).

    ``players`` names the engine's seats (all of them, by seat); the PHH
    lists those dealt in. ``hidden=True`` writes hole cards as ``????``
    except for hands shown at a showdown. ``short_big_blind`` (``"full"`` or
    ``"posted"``, :class:`matchdb.play.engine.Rules`) is written as the
    user-defined field ``_short_big_blind``, so :func:`matchdb.hands.replay`
    replays the hand under the rule it was played by.
    """
    if short_big_blind not in (None, "full", "posted"):
        raise HandsError(f"The short big blind rule {short_big_blind!r} is unknown; expected 'full' or 'posted'.")
    HandHistory = _pokerkit().HandHistory
    order = phh_order(hand)
    label = {seat: f"p{k + 1}" for k, seat in enumerate(order)}
    k = len(order)
    if k < 2:
        raise HandsError("The hand has fewer than two players dealt in; nothing to write.")
    posts = {kind: seat for _, seat, kind, _ in hand.history if kind in (E.SMALL_BLIND, E.BIG_BLIND)}
    expected = (order[1], order[0]) if k == 2 else (order[0], order[1])  # heads-up the button posts the small blind
    if (posts.get(E.SMALL_BLIND), posts.get(E.BIG_BLIND)) != expected:
        raise HandsError(f"The hand's blinds (small blind seat {posts.get(E.SMALL_BLIND)}, big blind seat "
                         f"{posts.get(E.BIG_BLIND)}, button seat {hand.button}) are not on the players after the "
                         "button, where PHH puts them (a dead-button hand); it cannot be written as PHH.")
    actions: list[str] = []
    alive = set(order)
    for seat, k_label in label.items():
        cards = hand.holes[seat]
        shown = hand.showdown and seat in _showdown_seats(hand)
        actions.append(f"d dh {k_label} {'????' if hidden and not shown or cards is None else format_cards(cards)}")
    street = 0
    dealt = 0
    streets_seen = [0]
    for st, seat, kind, amount in hand.history:
        if kind in (E.SMALL_BLIND, E.BIG_BLIND, E.ANTE):
            continue
        while st > street:
            street += 1
            dealt = _deal(actions, hand.board, street, dealt)
        streets_seen.append(st)
        if kind == E.FOLD:
            actions.append(f"{label[seat]} f")
            alive.discard(seat)
        elif kind in (E.CHECK, E.CALL):
            actions.append(f"{label[seat]} cc")
        else:
            actions.append(f"{label[seat]} cbr {amount}")
    if hand.showdown:
        # the hands still in are shown when the betting ends (before an all-in's runout, as pokerkit asks)
        actions += [f"{label[seat]} sm {format_cards(hole)}" for seat in order
                    if seat in alive and (hole := hand.holes[seat]) is not None]
        while street < 3:
            street += 1
            dealt = _deal(actions, hand.board, street, dealt)
    names = [str(players[s]) for s in order] if players is not None else None
    return HandHistory(
        variant="NT",
        ante_trimming_status=True,  # the engine returns the part of an ante nobody matched, like an uncalled bet
        antes=[ante] * k,
        blinds_or_straddles=[small_blind, big_blind] + [0] * (k - 2),
        min_bet=big_blind,
        starting_stacks=[int(hand.start[s]) for s in order],
        actions=actions,
        players=names,
        finishing_stacks=[int(hand.stacks[s]) for s in order],
        winnings=[int(hand.won[s]) for s in order],
        user_defined_fields={} if short_big_blind is None else {"_short_big_blind": short_big_blind},
        **fields,
    )


def _showdown_seats(hand: E.HandRecord) -> set[int]:
    folded = {seat for _, seat, kind, _ in hand.history if kind == E.FOLD}
    return {s for s in range(len(hand.start)) if hand.start[s] > 0 and s not in folded}


def _deal(actions: list[str], board: Sequence[int], street: int, dealt: int) -> int:
    upto = (0, 3, 4, 5)[street]
    actions.append(f"d db {format_cards(board[dealt:upto])}")
    return upto


def write(histories: Iterable[HandHistory], path: str | os.PathLike[str]) -> Path:
    """Write pokerkit ``HandHistory`` objects as PHH: a ``.phhs`` file of sections, or one hand as ``.phh``.

    Hands are written one at a time, so any number can be written with flat memory.
    """
    with HandWriter(path) as out:
        for history in histories:
            out.add(history)
    return out.path


class HandWriter:
    """A PHH file written one hand at a time: :meth:`add` each ``HandHistory`` as it comes, then :meth:`close`.

    A ``.phhs`` file takes any number of hands (sections ``[1]``, ``[2]``,
    ...), a ``.phh`` file one. Each hand is written when it is added, so a
    game loop that finds a hand finished at a time keeps flat memory; use it
    as a context manager to close the file.

    >>> import tempfile, pathlib
    >>> from matchdb.play.bots import CallingStation
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with HandWriter(folder / "two.phhs") as out:
    ...     for hand in play_hands([CallingStation(), CallingStation()], 2, seed=1):
    ...         out.add(history_of(hand, 1, 2))
    >>> out.written, (folder / "two.phhs").read_text().count("variant = ")
    (2, 2)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.suffix.lower() not in (".phh", ".phhs"):
            raise HandsError(f"The file {str(self.path)!r} does not end in .phh or .phhs; expected a PHH file name.")
        self.many = self.path.suffix.lower() == ".phhs"
        self.written = 0
        self._out: Any = open(self.path, "w", encoding="utf-8")  # noqa: SIM115  (closed by close())

    def add(self, history: Any) -> None:
        """Write one pokerkit ``HandHistory``."""
        if self.many:
            self._out.write(f"{'' if not self.written else chr(10)}[{self.written + 1}]\n{history.dumps()}\n")
        elif self.written:
            raise HandsError(f"A .phh file holds one hand; write several to a .phhs file, not {str(self.path)!r}.")
        else:
            self._out.write(history.dumps() + "\n")
        self.written += 1

    def close(self) -> None:
        """Close the file (every hand added is on disk)."""
        self._out.close()

    def __enter__(self) -> HandWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def seat_names(names: Sequence[str]) -> list[str]:
    """Distinct player names for the seats: a name met again gets ``-2``, ``-3``, ... (PHH names one player once).

    >>> seat_names(["west", "allin", "west", "west"])
    ['west', 'allin', 'west-2', 'west-3']
    """
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return out


class ArenaWriter:
    """Where ``matchdb arena --hands-out DIR`` writes its games: one ``.phhs`` file per game, every hand as played.

    Give it to :func:`matchdb.play.arena.run_arena` as ``hands_out``. The
    folder is made when missing and checked at once: a folder that already
    holds ``.phhs`` files, a file in its place or one this user cannot write
    to is refused before any game is played. Game ``g`` of unit ``u`` of seed
    ``s`` goes to ``seed<s>-unit<u>-game<g>.phhs``, each hand written as soon
    as it ends (flat memory, and the Dask workers write their own games).
    Players are the seats' bot names (:func:`seat_names`); each hand carries
    ``event = 'matchdb arena'``, ``table`` (the game's file stem), ``hand``
    (1, 2, ... in the game), ``seats`` (the physical seats, 1-based) and
    ``seat_count`` and the game's short-big-blind rule (``_short_big_blind``);
    every hole card is written.

    >>> import tempfile
    >>> from matchdb.play.arena import run_arena
    >>> folder = tempfile.mkdtemp()
    >>> result = run_arena(["allin", "station"], games=2, seed=1, hands_out=ArenaWriter(folder), progress=False)
    >>> sorted(p.name for p in Path(folder).iterdir())
    ['seed1-unit0-game0.phhs', 'seed1-unit1-game0.phhs']
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = str(folder)
        path = Path(folder)
        if path.exists() and not path.is_dir():
            raise HandsError(f"The hands folder {self.folder!r} is a file; expected a folder (made when missing).")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise HandsError(f"The hands folder {self.folder!r} cannot be made ({error.strerror}); expected a "
                             "folder this user can write to.") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise HandsError(f"The hands folder {self.folder!r} is not writable by this user; expected a folder "
                             "this user can write to.")
        if next(path.glob("*.phhs"), None) is not None:
            raise HandsError(f"The hands folder {self.folder!r} already holds .phhs files; expected an empty or new "
                             "folder, so no earlier run's hands are overwritten or mixed in.")

    def game(self, label: str, names: Sequence[str]) -> _GameHands:
        """The writer of one game's hands (``label`` names the file; ``names`` the bot of each seat)."""
        return _GameHands(Path(self.folder) / f"{label}.phhs", seat_names(names), label)


class _GameHands:
    """One game's ``.phhs`` file: :meth:`add` each :class:`matchdb.play.games.PlayedHand`."""

    def __init__(self, path: Path, names: list[str], label: str) -> None:
        self.writer = HandWriter(path)
        self.names = names
        self.label = label

    def add(self, played: Any) -> None:
        record = played.record
        order = phh_order(record)
        self.writer.add(history_of(record, played.small_blind, played.big_blind, played.ante, players=self.names,
                                   short_big_blind=played.short_big_blind, event="matchdb arena", table=self.label,
                                   hand=played.number + 1, seats=[s + 1 for s in order],
                                   seat_count=len(record.start)))

    def close(self) -> None:
        self.writer.close()


def play_hands(bots: Sequence[Bot], hands: int, seed: int = 0, stack: int = 200, small_blind: int = 1,
               big_blind: int = 2, ante: int = 0, source: Any = None, bot_seed: int | None = None) -> Iterator[E.HandRecord]:
    """Play ``hands`` hands of ``bots`` (one per seat) through the engine's Python loop; yield each finished hand.

    Every hand starts with every seat at ``stack`` chips (a cash game's
    independent hands); the button moves one seat per hand; ``source`` is
    the strength source bots with a database strength need
    (:class:`matchdb.play.strength.StrengthSource`); ``bot_seed`` seeds the
    bots' random draws (numba's generator; default ``seed``), so the same
    seeds give the same hands.
    """
    from matchdb.play.strength import seed_kernels

    n = len(bots)
    if not 2 <= n <= E.MAX_SEATS:
        raise HandsError(f"{n} bots do not make a table; expected 2 to {E.MAX_SEATS}.")
    rng = np.random.default_rng(seed)
    seed_kernels(seed if bot_seed is None else bot_seed)
    for number in range(hands):
        table = E.Table([stack] * n, small_blind, big_blind, ante, rng=rng, button=number % n)
        hand = table.start_hand()
        while not hand.over:
            view = hand.view(source)
            kind, amount = bots[view.seat].act(view)
            hand.act(int(kind), int(amount))
        yield hand.record()
