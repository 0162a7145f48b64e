"""The ``solver`` bot: heads-up play from a saved solution (:meth:`matchdb.solver.Solution.save`) or a solution library.

``make_bot("solver:spot.npz")`` (or ``SolverBot("spot.npz", seed=0)``) reads
the solution on its first decision, through the database the table offers
(``view.source.db`` in the arena and at ``/play``, or the ``db`` it was given).
At each decision it finds where the hand stands in the solved spot and, when
it is in it, samples its action from the solution's strategy for its hand
with its own seeded random generator. A hand is *in the solved spot* when:

- two players are in the hand and the board's first cards are the solution's
  board (the flop in any order, the turn and river cards as dealt);
- the pot when the solved street began, scaled to the solution's pot (the
  scale is the pot's ratio), leaves an effective stack within 5 % of the
  solution's stack (the same stack-to-pot ratio);
- the button is the solution's IP player (heads-up, it acts last after the flop);
- every action since the solved street began is one of the tree's: a check,
  call or fold as such, a bet or raise to the tree's amount (scaled) nearest
  to it, within 10 % of the pot there (at least a chip);
- the bot's hand is in its range of the solution.

Everywhere else (before the flop, on another board, an action off the tree)
it plays a simple rule: check when it can, call when the price is at most a
third of the pot after calling (``to_call / (pot + to_call) <= 1/3``), else
fold. :meth:`SolverBot.advice` gives the solution's figures for any player's
hand at a decision in the spot (the coach shows them).

``make_bot("solver:NAME.zarr")`` (a library folder, a packed ``.zip`` or its
URL; :class:`LibraryBot`) plays from a solution library (:mod:`matchdb.library`)
the same way on *every* flop: a hand is in the spot on the flop when it is
heads-up at the spec's pot and stack-to-pot ratio, the button is IP and every
flop action so far is a stored decision's (sizes matched as above). The library
stores the flop's decisions and the turn's: the bot plays the turn from them when
the flop's line closed the street and every turn action so far is a stored
decision's, and the river by the simple rule; with ``"solver:NAME.zarr:deeper"``
(``LibraryBot(path, deeper=True)``) it plays the turn and the river from the
turn solved again after the flop's line from the stored ranges
(:meth:`matchdb.library.LibraryFlop.subgame`: seconds to minutes for each flop
line and turn card the bot meets, the last few kept).

>>> from matchdb.play.bots import make_bot
>>> bot = make_bot("solver:spot.npz")
>>> bot.name, bot.seed
('solver', 0)
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from matchdb.core.cards import format_card
from matchdb.play.engine import CALL, CHECK, FOLD, RAISE, View
from matchdb.play.interface import Bot, BotError

__all__ = ["SolverBot", "LibraryBot", "SPR_TOLERANCE", "SUBGAMES_KEPT", "SIZE_TOLERANCE", "FALLBACK_PRICE", "fallback", "is_library"]

#: The effective stack may differ from the solution's (scaled by the pot) by this share.
SPR_TOLERANCE = 0.05
#: A bet or raise maps to the tree's nearest size when it is within this share of the pot there.
SIZE_TOLERANCE = 0.10
#: Turns solved again that a deeper library bot keeps (each a solution in memory).
SUBGAMES_KEPT = 8
#: Outside the solved spot: call when ``to_call / (pot + to_call)`` is at most this, else fold (check when free).
FALLBACK_PRICE = 1.0 / 3.0

_AMOUNT = re.compile(r"(\d+)$")


def fallback(view: View) -> tuple[int, int]:
    """The simple rule outside the solved spot: check when free, call at a price of at most a third, else fold.

    >>> from matchdb.play.engine import Table
    >>> hand = Table([100, 100], 1, 2, seed=1).start_hand()
    >>> fallback(hand.view())     # the small blind's 1 to call into a pot of 3
    (2, 0)
    """
    if view.to_call <= 0:
        return CALL, 0
    return (CALL, 0) if view.to_call / (view.pot + view.to_call) <= FALLBACK_PRICE else (FOLD, 0)


def _amount(action: str) -> int | None:
    match = _AMOUNT.search(action)
    return int(match[1]) if match and not action.startswith(("Fold", "Check", "Call")) else None


def _scale(view: View, street0: int, pot: int, stack: int) -> tuple[float, int] | None:
    """(chip scale, IP's seat) when ``view``'s hand is heads-up at the solved spot's pot and stack-to-pot ratio from
    the engine's street ``street0`` on (see the module's text), else None."""
    seats = [s for s, live in enumerate(view.in_hand) if live]
    before = dict.fromkeys(range(len(view.stacks)), 0)
    since = dict.fromkeys(range(len(view.stacks)), 0)
    bets: dict[tuple[int, int], int] = {}
    for street, seat, kind, amount in view.history:
        key = (street, seat)
        added = amount - bets.get(key, 0) if kind == RAISE else amount if kind != FOLD else 0
        if kind == RAISE:
            bets[key] = amount
        elif kind != FOLD:
            bets[key] = bets.get(key, 0) + amount
        (before if street < street0 else since)[seat] += added
    pot0 = sum(before.values())
    if pot0 <= 0:
        return None
    ratio = pot0 / pot
    effective = min(view.stacks[s] + since[s] for s in seats) / ratio
    if abs(effective - stack) > SPR_TOLERANCE * stack or view.button not in seats:
        return None
    return ratio, view.button


def _tree_action(actions: list[str], pot: float, kind: int, amount: int, ratio: float) -> str | None:
    """The tree's action (of ``actions``, at a node of ``pot`` chips) for the engine's action, or None when the
    tree has none near it."""
    if kind == FOLD:
        wanted = "Fold"
    elif kind in (CHECK, CALL):
        wanted = "Check" if "Check" in actions else "Call"
    else:
        sized = [(abs(size * ratio - amount), a) for a in actions if (size := _amount(a)) is not None]
        if not sized:
            return None
        gap, wanted = min(sized)
        if gap > max(1.0, SIZE_TOLERANCE * pot * ratio):
            return None
    return wanted if wanted in actions else None


class _PlaysSolved(Bot):
    """What both solver bots share: their settings, a source of solved decisions opened on first use (never sent
    to arena workers, each opens its own), and sampling an action from the strategy where :meth:`locate` finds the
    decision, the simple rule elsewhere."""

    def __init__(self, path: str | os.PathLike[str], seed: int = 0, db: Any = None, name: str = "solver") -> None:
        self.path = os.fspath(path)
        self.seed = seed
        self.db = db
        self.name = name
        self._rng = np.random.default_rng(seed)
        self._opened: Any = None  # the solution or library, once read
        self.in_spot = 0  # decisions taken from the solution
        self.outside = 0  # decisions taken by the simple rule

    def __getstate__(self) -> dict[str, Any]:  # sent to arena workers without what was read (each reads its own)
        state = dict(self.__dict__)
        state["_opened"] = None
        return state

    def _table_db(self, view: View | None) -> Any:
        """The bot's database, else the one the table offers (``view.source``), else None."""
        if self.db is None and view is not None and view.source is not None:
            return getattr(view.source, "db", view.source)
        return self.db

    def locate(self, view: View) -> tuple[Any, float, int] | None:
        """(node, chip scale, hand's index in the node's strategy) of the decision ``view`` shows, or None."""
        raise NotImplementedError

    def advice(self, view: View) -> dict[str, Any] | None:
        """The solution's figures for ``view``'s player and hand when :meth:`locate` finds the decision, else None:
        the node's line, the actions, the hand's frequencies and each action's EV (in the table's chips), and the
        range's frequencies (the coach shows them)."""
        found = self.locate(view)
        if found is None:
            return None
        node, ratio, hand = found
        values = node.action_ev()[:, hand] if hasattr(node, "action_ev") else node.ev[:, hand]  # a solve's, a library's
        return {"line": list(node.line), "actions": node.actions,
                "frequencies": [float(x) for x in node.strategy[:, hand]],
                "ev": [float(x) * ratio for x in values], "range_frequencies": [float(x) for x in node.frequencies()]}

    def act(self, view: View) -> tuple[int, int]:
        found = self.locate(view)
        if found is None:
            self.outside += 1
            return fallback(view)
        node, ratio, hand = found
        strategy = np.asarray(node.strategy[:, hand], dtype=np.float64)
        total = strategy.sum()
        if not total > 0:
            self.outside += 1
            return fallback(view)
        self.in_spot += 1
        choice = int(self._rng.choice(len(strategy), p=strategy / total))
        return self._to_engine(node.actions[choice], ratio, view)

    @staticmethod
    def _to_engine(action: str, ratio: float, view: View) -> tuple[int, int]:
        if action == "Fold":
            return FOLD, 0
        if action in ("Check", "Call"):
            return CALL, 0
        if action.startswith("All-in"):
            return RAISE, view.max_raise_to
        amount = _amount(action)
        return RAISE, int(round((amount or 0) * ratio))


class SolverBot(_PlaysSolved):
    """Plays heads-up from the saved solution at ``path`` (see the module's docstring); ``seed`` seeds its sampling,
    ``db`` is the database to check the solution against (default: the one the table offers)."""

    def solution(self, view: View | None = None) -> Any:
        """The solution, read on first use from the bot's database or the table's (``view.source``)."""
        if self._opened is None:
            db = self._table_db(view)
            if db is None or not hasattr(db, "table"):
                raise BotError(f"The solver bot of {self.path!r} needs the database to read its solution; expected "
                               "a table that offers one (the arena with a database, /play) or SolverBot(path, db=db).")
            from matchdb.solver import load

            self._opened = load(self.path, db)
        return self._opened

    def locate(self, view: View) -> tuple[Any, float, int] | None:
        """(node, chip scale, hand's index) of the decision ``view`` shows in the solved spot, or None outside it."""
        if len(view.board) < 3 or sum(view.in_hand) != 2:
            return None
        solution = self.solution(view)
        root = solution.root
        start = root.board
        first = [start[i:i + 2] for i in range(0, len(start), 2)]
        board = [format_card(c) for c in view.board]
        if len(board) < len(first) or sorted(board[:3]) != sorted(first[:3]) or board[3:len(first)] != first[3:]:
            return None
        street0 = len(first) - 2  # the engine's street (1 flop, 2 turn, 3 river) where the solve starts
        question = solution.question
        scaled = _scale(view, street0, question["pot"], question["stack"])
        if scaled is None:
            return None
        ratio, ip_seat = scaled
        found = _walk(root, view, board, street0, ratio, ip_seat)
        return None if found is None else (found[0], ratio, found[1])


def _deal_to(node: Any, board: list[str], street: int) -> Any:
    """The node after dealing the board's cards up to the engine's ``street``; None when the tree ends first."""
    while node.kind == "chance" and len(node.board) // 2 < street + 2:
        card = board[len(node.board) // 2]
        if card not in node.cards():
            return None
        node = node.play(card)
    return node if len(node.board) // 2 == street + 2 else None


def _walk(root: Any, view: View, board: list[str], street0: int, ratio: float, ip_seat: int) -> tuple[Any, int] | None:
    """(node, hand's index there) of ``view``'s decision in a solution whose ``root`` is the engine's street
    ``street0``: the actions since then followed in the tree (sizes matched within :data:`SIZE_TOLERANCE`), the cards
    dealt; None where the hand leaves the tree or the player's hand is not in its range there."""
    node = root
    for street, seat, kind, amount in view.history:
        if street < street0:
            continue
        node = _deal_to(node, board, street)
        if node is None or node.kind != "action" or (seat == ip_seat) != (node.player == "IP"):
            return None
        wanted = _tree_action(node.actions, node.pot, kind, amount, ratio)
        if wanted is None:
            return None
        node = node.play(wanted)
    node = _deal_to(node, board, view.street)
    if node is None or node.kind != "action" or (view.seat == ip_seat) != (node.player == "IP"):
        return None
    player = 1 if view.seat == ip_seat else 0
    names = node.hands(player)
    a, b = (format_card(c) for c in view.hole)
    for name in (a + b, b + a):
        if name in names:
            hand = names.index(name)
            return (node, hand) if node.weights(player)[hand] > 0 else None
    return None


def _stored_line(view: View, street: int, at: Callable[[tuple[str, ...]], Any], ratio: float,
                 ip_seat: int) -> tuple[str, ...] | None:
    """The stored actions ``view``'s history took on ``street`` (1 the flop, 2 the turn), each matched to the stored
    decision ``at(steps so far)`` gives (None off the stored tree); None where one is not stored or not matched."""
    steps: tuple[str, ...] = ()
    for on, seat, kind, amount in view.history:
        if on != street:
            continue
        node = at(steps)
        if node is None or (seat == ip_seat) != (node.player == "IP"):
            return None
        wanted = _tree_action(node.actions, node.pot, kind, amount, ratio)
        if wanted is None:
            return None
        steps = (*steps, wanted)
    return steps


def _stored_node(flop: Any, line: tuple[str, ...]) -> Any:
    """The library flop's stored decision after ``line``, or None where none is stored."""
    from matchdb.library import LibraryError

    try:
        return flop.node(line)
    except LibraryError:
        return None


def _stored_decision(node: Any, view: View, ip_seat: int, ratio: float) -> tuple[Any, float, int] | None:
    """(node, chip scale, hand's index) where the stored ``node`` is the decision of ``view``'s player and holds
    its hand, else None."""
    from matchdb.core.hole_cards import hand_index

    if node is None or (view.seat == ip_seat) != (node.player == "IP"):
        return None
    hand = hand_index([format_card(c) for c in view.hole])
    return (node, ratio, hand) if node.combos[hand] > 0 else None


def is_library(path: str) -> bool:
    """Whether a ``solver:`` bot's path names a solution library (a folder, a ``.zip`` or a URL) rather than a saved
    solution (``.npz``)."""
    return not path.endswith(".npz")


class LibraryBot(_PlaysSolved):
    """Plays heads-up from the solution library at ``path`` on every flop and turn it stores (see the module's
    docstring); ``seed`` seeds its sampling, ``db`` is the database the library's tables are checked against
    (default: the table's). With ``deeper`` it plays the turn and the river from the turn solved again after the
    flop's line
    (:meth:`matchdb.library.LibraryFlop.subgame`, seconds to minutes per flop line and turn card, the last
    :data:`SUBGAMES_KEPT` kept)."""

    def __init__(self, path: str | os.PathLike[str], seed: int = 0, db: Any = None, name: str = "solver",
                 deeper: bool = False) -> None:
        super().__init__(path, seed, db, name)
        self.deeper = deeper
        self._subgames: OrderedDict[tuple[str, tuple[str, ...], str], Any] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_subgames"] = OrderedDict()
        return state

    def library(self, view: View | None = None) -> Any:
        """The library, opened on first use (checked against the bot's database or the table's when there is one)."""
        if self._opened is None:
            from matchdb.library import open_library

            db = self._table_db(view)
            self._opened = open_library(self.path, db if hasattr(db, "store") else None)
        return self._opened

    def locate(self, view: View) -> tuple[Any, float, int] | None:
        """(node, chip scale, hand's index) of the decision ``view`` shows: a stored flop or turn decision (the
        hand's index in the 1,326-hand order), with ``deeper`` a decision of the turn solved again (a solver node,
        the index in its hands), or None outside the library (not heads-up, another pot or stack-to-pot ratio, an
        action off the tree, a hand outside the range; without ``deeper`` the river)."""
        from matchdb.library import FlopNotStoredError

        if len(view.board) < 3 or sum(view.in_hand) != 2 or (view.street not in (1, 2) and not self.deeper):
            return None
        library = self.library(view)
        spec = library.spec
        scaled = _scale(view, 1, spec.pot, spec.stack)
        if scaled is None:
            return None
        ratio, ip_seat = scaled
        board = [format_card(c) for c in view.board]
        try:
            flop = library.flop(board[:3])
        except FlopNotStoredError:
            return None
        stored = set(flop.lines)
        line = _stored_line(view, 1, lambda steps: flop.node(steps) if steps in stored else None, ratio, ip_seat)
        if line is None:
            return None
        if view.street == 1:
            return _stored_decision(flop.node(line) if line in stored else None, view, ip_seat, ratio)
        if not self.deeper:
            if line not in flop.turn_lines():
                return None
            at = (*line, board[3])
            turn = _stored_line(view, 2, lambda steps: _stored_node(flop, (*at, *steps)), ratio, ip_seat)
            return None if turn is None else _stored_decision(_stored_node(flop, (*at, *turn)), view, ip_seat, ratio)
        solution = self._subgame(flop, line, board[3], view)
        if solution is None:
            return None
        found = _walk(solution.root, view, board, 2, ratio, ip_seat)
        return None if found is None else (found[0], ratio, found[1])

    def _subgame(self, flop: Any, line: tuple[str, ...], turn: str, view: View) -> Any:
        """The turn after ``line`` solved again (kept for the next hands that reach it), or None where the line
        does not close the flop or leaves nothing to play (a line the solution never plays, both players all-in)."""
        from matchdb.library import LibraryError

        key = (flop.board, line, turn)
        if key not in self._subgames:
            db = self._table_db(view)
            try:
                solution = flop.subgame(line, turn, db if hasattr(db, "store") else None)
            except LibraryError:
                solution = None
            self._subgames[key] = solution
            while len(self._subgames) > SUBGAMES_KEPT:
                self._subgames.popitem(last=False)
        self._subgames.move_to_end(key)
        return self._subgames[key]
