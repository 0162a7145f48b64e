"""Players of other poker frameworks in matchdb's arena, unchanged: PyPokerEngine's through :class:`PyPokerEngineBot`.

A PyPokerEngine player (a ``pypokerengine.players.BasePokerPlayer`` with
``declare_action`` and the six ``receive_*`` callbacks, such as the
tutorial's HonestPlayer) plays as it is::

    matchdb arena --bots honest_player.py:HonestPlayer,west,fives --games 60 --db ...

(:func:`matchdb.play.bots.make_bot` wraps any class with ``declare_action``
and no ``act``), or in Python ``run_arena([PyPokerEngineBot(HonestPlayer()),
"west"], ...)``. The adapter speaks PyPokerEngine's messages from what the
player's seat may see: at the start of every game (the arena seats the bots
anew for each game, so one player object plays many games in many seats)
its uuid for that game's seat and the game start (``player_num``, the rule,
the seats), then for each hand it is dealt into the round start with its
hole cards, each street start, every other player's action as a game update
(sent before the player's next decision and at the end of the hand),
``declare_action`` with PyPokerEngine's valid actions (fold; call with the
amount to match this street; raise to a total between min and max, -1 when
no raise is allowed) and the round result with the winners and the hands
shown (ranked by PyPokerEngine's own evaluator). Each game starts afresh, as
a new ``start_poker`` does: the round count restarts at 1 and the messages of
the last game are never mixed into the new one. Cards are PyPokerEngine's
strings (``"SA"``: suit then rank), seats have uuids ``seat0``, ``seat1``,
... and the names of the arena's bots. (The messages at the end of a game,
PyPokerEngine's game result, have no counterpart.)

**Another framework** plugs in the same way: a :class:`matchdb.play.interface.Bot`
whose ``act(view)`` translates the :class:`matchdb.play.engine.View` into that
framework's question and its answer back into ``(kind, amount)``, and whose
``on_hand_end(result)`` feeds the framework's end-of-hand callback from the
:class:`matchdb.play.engine.HandResult` (the actions, the cards shown, each
seat's result).

>>> from matchdb.core.cards import parse_cards
>>> to_pypokerengine(parse_cards("AsAc"))
['SA', 'CA']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matchdb.core.cards import format_cards
from matchdb.play.engine import (
    ANTE,
    BIG_BLIND,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    SMALL_BLIND,
    GameStart,
    HandResult,
    View,
)
from matchdb.play.interface import Bot, BotError

__all__ = ["PyPokerEngineBot", "to_pypokerengine"]

_STREETS = ("preflop", "flop", "turn", "river")


def to_pypokerengine(cards: Any) -> list[str]:
    """matchdb card ids as PyPokerEngine's card strings (suit letter, then rank)."""
    text = format_cards(list(cards))
    return [text[i + 1].upper() + text[i] for i in range(0, len(text), 2)]


class PyPokerEngineBot(Bot):
    """A PyPokerEngine player in matchdb's arena (see the module notes); ``name`` defaults to its class's name."""

    def __init__(self, player: Any, name: str | None = None) -> None:
        if not callable(getattr(player, "declare_action", None)):
            raise BotError(f"The player {player!r} has no declare_action; expected a PyPokerEngine BasePokerPlayer.")
        self.player = player
        self.name = name or type(player).__name__
        self._hand = -1
        self._street = -1
        self._sent = 0  # history entries already told to the player
        self._started = False

    def _seat_dicts(self, names: Sequence[str], stacks: Sequence[int], in_hand: Sequence[bool], bets_left: Sequence[int]
                    ) -> list[dict[str, Any]]:
        out = []
        for s, name in enumerate(names):
            state = "participating" if in_hand[s] else "folded"
            if in_hand[s] and bets_left[s] == 0:
                state = "allin"
            out.append({"name": name, "uuid": f"seat{s}", "stack": int(stacks[s]), "state": state})
        return out

    def _round_state(self, street: int, pot: int, board: Sequence[int], button: int, next_player: int,
                     history: Sequence[tuple[int, int, int, int]], names: Sequence[str], stacks: Sequence[int],
                     in_hand: Sequence[bool], hand: int, small_blind: int) -> dict[str, Any]:
        histories: dict[str, list[dict[str, Any]]] = {name: [] for name in _STREETS}
        paid: dict[tuple[int, int], int] = {}
        sb_pos = bb_pos = -1
        for st, seat, kind, amount in history:
            key = (st, seat)
            if kind == ANTE:
                continue
            uuid = f"seat{seat}"
            if kind in (SMALL_BLIND, BIG_BLIND):
                paid[key] = paid.get(key, 0) + amount
                if kind == SMALL_BLIND:
                    sb_pos = seat
                else:
                    bb_pos = seat
                action = {"action": "SMALLBLIND" if kind == SMALL_BLIND else "BIGBLIND", "amount": paid[key],
                          "add_amount": amount, "uuid": uuid}
            elif kind == FOLD:
                action = {"action": "FOLD", "uuid": uuid}
            elif kind in (CALL, CHECK):
                paid[key] = paid.get(key, 0) + amount
                action = {"action": "CALL", "amount": paid[key], "paid": amount, "uuid": uuid}
            else:
                before = paid.get(key, 0)
                paid[key] = amount
                action = {"action": "RAISE", "amount": amount, "paid": amount - before, "add_amount": amount - before,
                          "uuid": uuid}
            histories[_STREETS[st]].append(action)
        return {
            "street": _STREETS[min(street, 3)] if street < 4 else "showdown",
            "pot": {"main": {"amount": int(pot)}, "side": []},
            "community_card": to_pypokerengine(board),
            "dealer_btn": int(button),
            "next_player": int(next_player),
            "small_blind_pos": sb_pos,
            "big_blind_pos": bb_pos,
            "round_count": hand + 1,
            "small_blind_amount": int(small_blind),
            "seats": self._seat_dicts(names, stacks, in_hand, stacks),
            "action_histories": {k: v for k, v in histories.items() if v},
        }

    @staticmethod
    def _update(entry: tuple[int, int, int, int]) -> dict[str, Any] | None:
        st, seat, kind, amount = entry
        if kind in (ANTE, SMALL_BLIND, BIG_BLIND):
            return None
        name = {FOLD: "fold", CALL: "call", CHECK: "call", RAISE: "raise"}[kind]
        return {"player_uuid": f"seat{seat}", "action": name, "amount": int(amount)}

    def _catch_up(self, history: Sequence[tuple[int, int, int, int]], state: dict[str, Any], street: int) -> None:
        """Tell the actions not yet told as game updates, each street's start before its first action, up to ``street``."""
        for entry in history[self._sent:]:
            self._start_streets(entry[0], state)
            update = self._update(entry)
            if update is not None:
                self.player.receive_game_update_message(update, state)
        self._sent = len(history)
        self._start_streets(street, state)

    def _start_streets(self, street: int, state: dict[str, Any]) -> None:
        while self._street < min(street, 3):
            self._street += 1
            self.player.receive_street_start_message(_STREETS[self._street], state)

    def _new_round(self, hand: int, hole: Sequence[int], seats: list[dict[str, Any]]) -> None:
        self._hand, self._street, self._sent = hand, -1, 0
        self.player.receive_round_start_message(hand + 1, to_pypokerengine(hole), seats)

    def _start_game(self, seat: int, names: Sequence[str], stacks: Sequence[int], small_blind: int, ante: int, hands: int | None) -> None:
        """A new game: the uuid of this game's seat, the game start message, nothing kept from the last game."""
        self._hand, self._street, self._sent = -1, -1, 0
        self._started = True
        if hasattr(self.player, "set_uuid"):
            self.player.set_uuid(f"seat{seat}")
        in_hand = tuple(stack > 0 for stack in stacks)
        self.player.receive_game_start_message({
            "player_num": len(names),
            "rule": {"initial_stack": int(stacks[seat]), "max_round": hands, "small_blind_amount": int(small_blind),
                     "ante": int(ante), "blind_structure": {}},
            "seats": self._seat_dicts(names, stacks, in_hand, stacks),
        })

    def on_game_start(self, start: GameStart) -> None:
        names = start.names or tuple(f"seat{s}" for s in range(len(start.stacks)))
        self._start_game(start.seat, names, start.stacks, start.small_blind, start.ante, start.hands)

    def act(self, view: View) -> tuple[int, int]:
        names = view.names or tuple(f"seat{s}" for s in range(len(view.stacks)))
        state = self._round_state(view.street, view.pot, view.board, view.button, view.seat, view.history, names,
                                  view.stacks, view.in_hand, view.hand, view.small_blind)
        if not self._started:  # a loop that does not announce games: the first decision starts the one game
            stacks = tuple(int(x) + int(c) for x, c in zip(view.stacks, view.contributions, strict=True))
            self._start_game(view.seat, names, stacks, view.small_blind, view.ante, None)
        if view.hand != self._hand:
            self._new_round(view.hand, view.hole, state["seats"])
        self._catch_up(view.history, state, view.street)
        call_total = view.bet + view.to_call
        valid = [
            {"action": "fold", "amount": 0},
            {"action": "call", "amount": call_total},
            {"action": "raise", "amount": {"min": view.min_raise_to if view.can_raise else -1,
                                           "max": view.max_raise_to if view.can_raise else -1}},
        ]
        action, amount = self.player.declare_action(valid, to_pypokerengine(view.hole), state)
        if action == "fold":
            return FOLD, 0
        if action == "call":
            return CALL, 0
        if action == "raise":
            return RAISE, amount
        raise BotError(f"The PyPokerEngine player {self.name!r} declared {action!r}; expected 'fold', 'call' or 'raise'.")

    def on_hand_end(self, result: HandResult) -> None:
        if not self._started:
            return  # never asked in a loop that does not announce games: it has no game to be told about
        folded = {seat for _, seat, kind, _ in result.history if kind == FOLD}
        at_showdown = {s for s in range(len(result.names)) if result.showdown and s not in folded and result.start[s] > 0}
        in_hand = tuple(s not in folded for s in range(len(result.names)))
        state = self._round_state(4, sum(result.won), result.board, result.button, -1, result.history, result.names,
                                  result.stacks, in_hand, result.hand, result.small_blind)
        if result.hand != self._hand:  # dealt in but never asked (everyone folded to its big blind): told all the same
            hole = result.shown[result.seat]
            if hole is None:
                return
            self._new_round(result.hand, hole, state["seats"])
        self._catch_up(result.history, state, {0: 0, 3: 1, 4: 2, 5: 3}.get(len(result.board), 3))
        winners = [seat for s, seat in enumerate(state["seats"]) if result.won[s] > 0]
        hand_info = []
        if result.showdown and len(result.board) == 5:
            from pypokerengine.engine.hand_evaluator import HandEvaluator
            from pypokerengine.utils.card_utils import gen_cards

            community = gen_cards(to_pypokerengine(result.board))
            for s, hole in enumerate(result.shown):
                if hole is not None and s in at_showdown:
                    hand_info.append({"uuid": f"seat{s}",
                                      "hand": HandEvaluator.gen_hand_rank_info(gen_cards(to_pypokerengine(hole)),
                                                                               community)})
        self.player.receive_round_result_message(winners, hand_info, state)
