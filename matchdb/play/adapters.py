"""Players of other poker frameworks in matchdb's arena, unchanged: PyPokerEngine's through :class:`PyPokerEngineBot`.

A PyPokerEngine player (a ``pypokerengine.players.BasePokerPlayer`` with
``declare_action`` and the six ``receive_*`` callbacks, such as the
tutorial's HonestPlayer) plays as it is::

    matchdb arena --bots honest_player.py:HonestPlayer,west,fives --games 60 --db ...

(:func:`matchdb.play.bots.make_bot` wraps any class with ``declare_action``
and no ``act``), or in Python ``run_arena([PyPokerEngineBot(HonestPlayer()),
"west"], ...)``. The adapter speaks PyPokerEngine's messages from what the
player's seat may see: the game start (``player_num``, the rule, the seats),
each round start with its hole cards, each street start, every other
player's action as a game update (sent before the player's next decision and
at the end of the hand), ``declare_action`` with PyPokerEngine's valid
actions (fold; call with the amount to match this street; raise to a total
between min and max, -1 when no raise is allowed) and the round result with
the winners and the hands shown (ranked by PyPokerEngine's own evaluator).
Cards are PyPokerEngine's strings (``"SA"``: suit then rank), seats have
uuids ``seat0``, ``seat1``, ... and the names of the arena's bots.

**Another framework** plugs in the same way: a :class:`matchdb.play.bots.Bot`
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

from typing import Any

from matchdb.core.cards import format_cards
from matchdb.play.bots import Bot, BotError
from matchdb.play.engine import (
    ANTE,
    BIG_BLIND,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    SMALL_BLIND,
    HandResult,
    View,
)

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

    def _seat_dicts(self, names, stacks, in_hand, bets_left) -> list[dict]:
        out = []
        for s, name in enumerate(names):
            state = "participating" if in_hand[s] else "folded"
            if in_hand[s] and bets_left[s] == 0:
                state = "allin"
            out.append({"name": name, "uuid": f"seat{s}", "stack": int(stacks[s]), "state": state})
        return out

    def _round_state(self, street: int, pot: int, board, button: int, next_player: int, history, names, stacks,
                     in_hand, hand: int, small_blind: int) -> dict:
        histories: dict[str, list[dict]] = {name: [] for name in _STREETS}
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
    def _update(entry) -> dict | None:
        st, seat, kind, amount = entry
        if kind in (ANTE, SMALL_BLIND, BIG_BLIND):
            return None
        name = {FOLD: "fold", CALL: "call", CHECK: "call", RAISE: "raise"}[kind]
        return {"player_uuid": f"seat{seat}", "action": name, "amount": int(amount)}

    def _tell(self, history, state: dict, upto: int | None = None) -> None:
        """Send the actions not yet told as game updates."""
        end = len(history) if upto is None else upto
        for entry in history[self._sent:end]:
            update = self._update(entry)
            if update is not None:
                self.player.receive_game_update_message(update, state)
        self._sent = max(self._sent, end)

    def act(self, view: View) -> tuple[int, int]:
        names = view.names or tuple(f"seat{s}" for s in range(len(view.stacks)))
        state = self._round_state(view.street, view.pot, view.board, view.button, view.seat, view.history, names,
                                  view.stacks, view.in_hand, view.hand, view.small_blind)
        if not self._started:
            self._started = True
            if hasattr(self.player, "set_uuid"):
                self.player.set_uuid(f"seat{view.seat}")
            total = sum(view.stacks) + view.pot
            self.player.receive_game_start_message({
                "player_num": len(names),
                "rule": {"initial_stack": total // max(len(names), 1), "max_round": None,
                         "small_blind_amount": view.small_blind, "ante": view.ante, "blind_structure": {}},
                "seats": state["seats"],
            })
        if view.hand != self._hand:
            self._hand, self._street, self._sent = view.hand, -1, 0
            self.player.receive_round_start_message(view.hand + 1, to_pypokerengine(view.hole), state["seats"])
        if view.street != self._street:
            # actions of the streets before, then the new street
            first_of_street = next((i for i, e in enumerate(view.history) if e[0] == view.street), len(view.history))
            self._tell(view.history, state, first_of_street)
            self._street = view.street
            self.player.receive_street_start_message(_STREETS[view.street], state)
        self._tell(view.history, state)
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
        if not self._started or result.hand != self._hand:
            return  # the player was never asked in this hand (PyPokerEngine still tells it; matchdb keeps it simple)
        folded = {seat for _, seat, kind, _ in result.history if kind == FOLD}
        at_showdown = {s for s in range(len(result.names)) if result.showdown and s not in folded and result.start[s] > 0}
        in_hand = tuple(s not in folded for s in range(len(result.names)))
        state = self._round_state(4, sum(result.won), result.board, result.button, -1, result.history, result.names,
                                  result.stacks, in_hand, result.hand, result.small_blind)
        self._tell(result.history, state)
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
