"""The PyPokerEngine adapter keeps PyPokerEngine's promises to a player over many games and seatings.

A PyPokerEngine player is told its uuid and a game start before every game
(``start_poker``), and each round's count restarts at 1 with the game. The
same player object plays every game of a matchdb arena run, seated anew for
each game; the player below checks, at every message, what PyPokerEngine's
own game loop guarantees, first in that loop and then in matchdb's arena.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pypokerengine", reason="PyPokerEngine is a test dependency: pip install PyPokerEngine")

from pypokerengine.api.game import setup_config, start_poker
from pypokerengine.players import BasePokerPlayer

from matchdb.play.adapters import PyPokerEngineBot
from matchdb.play.arena import run_arena


class SelfFinder(BasePokerPlayer):
    """Calls everything; finds itself by its uuid, as PyPokerEngine players do, and notes every broken promise."""

    def __init__(self) -> None:
        self.uuid = None
        self.games = 0
        self.asked = 0
        self.rounds_told = 0
        self.results = 0
        self.seats_seen: set[int] = set()
        self.broken: list[str] = []
        self._round = 0
        self._hole: list[str] | None = None
        self._streets: list[str] = []

    def _me(self, seats: list[dict]) -> dict | None:
        found = [seat for seat in seats if seat["uuid"] == self.uuid]
        return found[0] if len(found) == 1 else None

    def declare_action(self, valid_actions, hole_card, round_state):
        self.asked += 1
        position = round_state["next_player"]
        seat = round_state["seats"][position]
        if seat["uuid"] != self.uuid:
            self.broken.append(f"game {self.games}: asked at position {position}, whose uuid is {seat['uuid']}, "
                               f"not mine ({self.uuid})")
        self.seats_seen.add(position)
        if hole_card != self._hole:
            self.broken.append(f"game {self.games}: asked with {hole_card}, dealt {self._hole}")
        return valid_actions[1]["action"], valid_actions[1]["amount"]

    def receive_game_start_message(self, game_info):
        self.games += 1
        self._round = 0
        if self._me(game_info["seats"]) is None:
            self.broken.append(f"game {self.games}: my uuid {self.uuid} is not one seat of the game start")

    def receive_round_start_message(self, round_count, hole_card, seats):
        self.rounds_told += 1
        if round_count != self._round + 1:
            self.broken.append(f"game {self.games}: round {round_count} after round {self._round}")
        self._round = round_count
        self._hole = hole_card
        self._streets = []
        if self._me(seats) is None:
            self.broken.append(f"game {self.games}: my uuid {self.uuid} is not one seat of round {round_count}")

    def receive_street_start_message(self, street, round_state):
        order = ["preflop", "flop", "turn", "river"]
        if street in self._streets or (self._streets and order.index(street) < order.index(self._streets[-1])):
            self.broken.append(f"game {self.games}: street {street} after {self._streets}")
        self._streets.append(street)

    def receive_game_update_message(self, action, round_state):
        pass

    def receive_round_result_message(self, winners, hand_info, round_state):
        self.results += 1


class Caller(BasePokerPlayer):
    def declare_action(self, valid_actions, hole_card, round_state):
        return valid_actions[1]["action"], valid_actions[1]["amount"]

    def receive_game_start_message(self, game_info):
        pass

    def receive_round_start_message(self, round_count, hole_card, seats):
        pass

    def receive_street_start_message(self, street, round_state):
        pass

    def receive_game_update_message(self, action, round_state):
        pass

    def receive_round_result_message(self, winners, hand_info, round_state):
        pass


def test_the_self_finder_holds_pypokerengine_to_its_promises_in_its_own_loop():
    finder = SelfFinder()
    for position in range(3):  # three games, the finder registered in another position each time
        config = setup_config(max_round=4, initial_stack=200, small_blind_amount=5)
        players = [("a", Caller()), ("b", Caller())]
        players.insert(position, ("finder", finder))
        for name, player in players:
            config.register_player(name=name, algorithm=player)
        start_poker(config, verbose=0)
    assert finder.broken == [] and finder.games == 3 and finder.asked > 0
    assert finder.seats_seen == {0, 1, 2}


@pytest.mark.parametrize("mode", ["cash", "tournament"])
def test_a_pypokerengine_player_is_told_each_new_game_and_seat_in_matchdb_arena(mode):
    finder = SelfFinder()
    bot = PyPokerEngineBot(finder, name="finder")
    result = run_arena([bot, "station", "fives"], games=12, seed=3, duplicate=True, mode=mode, hands=6,
                       progress=False)
    assert finder.broken == []
    assert finder.games == result.settings["games"] == 12  # one game start per game, before its first hand
    assert finder.seats_seen == {0, 1, 2}  # seated anew: it found itself in every seat
    assert finder.results == finder.rounds_told > 0  # every hand it was dealt into begins and ends, asked or not
    if mode == "cash":
        assert finder.rounds_told == 12 * 6  # dealt into every hand of every game, round counts 1-6 each game
