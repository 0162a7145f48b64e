"""Whole games: the compiled loop against the Python loop, reproducibility, tournament and cash bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

from matchdb.play import games as G
from matchdb.play.bots import (
    HEADSUP_EQUITY,
    AllIn,
    Bot,
    CallingStation,
    IncomeBot,
    PairOfFives,
    RandomBot,
    TomlinsonBot,
    WestBot,
    montecarlo,
)
from matchdb.play.engine import (
    _G_FIELDS,
    _P_FIELDS,
    _P_STACK,
    _P_START,
    _P_STATE,
    CALL,
    MAX_SEATS,
)
from matchdb.play.games import GameError, GameSettings, blind_schedule, play_game

NO_DATABASE_FIELD = [AllIn(), PairOfFives(), CallingStation(), RandomBot(), PairOfFives(call_otherwise=1.0)]


def same(a, b) -> bool:
    return (a.places == b.places).all() and (a.stats == b.stats).all() and a.hands == b.hands and (a.net == b.net).all()


@pytest.mark.parametrize("mode", ["tournament", "cash"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compiled_and_python_loops_play_the_same_game_without_a_database(mode, seed):
    settings = GameSettings(mode=mode, hands=300)
    compiled = play_game(NO_DATABASE_FIELD, settings, deal_seed=seed, bot_seed=seed)
    python = play_game(NO_DATABASE_FIELD, settings, deal_seed=seed, bot_seed=seed, python=True)
    assert compiled.compiled and not python.compiled
    assert same(compiled, python)


FIELDS = {
    "articles": lambda: [WestBot(), IncomeBot(), TomlinsonBot(), PairOfFives(), AllIn(), RandomBot()],
    "personalities": lambda: [WestBot(personality=p) for p in ("tight", "loose", "aggressive", "passive")],
    "strengths": lambda: [WestBot(strength=HEADSUP_EQUITY), IncomeBot(strength=montecarlo(model="dropout", threshold=0.6)),
                          TomlinsonBot(), WestBot()],
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("mode", ["tournament", "cash"])
def test_compiled_and_python_loops_play_the_same_game(source, field, mode):
    bots = FIELDS[field]()
    settings = GameSettings(mode=mode, hands=120)
    for seed in (11, 12):
        compiled = play_game(bots, settings, deal_seed=seed, bot_seed=seed, source=source)
        python = play_game(bots, settings, deal_seed=seed, bot_seed=seed, source=source, python=True)
        assert same(compiled, python)


def test_the_same_seeds_give_the_same_game_and_other_seeds_another(source):
    bots = FIELDS["articles"]()
    first = play_game(bots, deal_seed=[5, 1], bot_seed=9, source=source)
    assert same(first, play_game(bots, deal_seed=[5, 1], bot_seed=9, source=source))
    assert not same(first, play_game(bots, deal_seed=[5, 2], bot_seed=9, source=source))


class Recorder(Bot):
    """Checks or calls and remembers its hole cards, one entry per hand."""

    name = "recorder"

    def __init__(self):
        self.holes = []

    def act(self, view):
        if not self.holes or self.holes[-1] != view.hole:
            self.holes.append(view.hole)
        return CALL, 0


def test_a_seed_deals_the_same_cards_whatever_the_other_bots_do():
    a, b = Recorder(), Recorder()
    play_game([a, CallingStation(), CallingStation()], GameSettings(mode="cash", hands=20), deal_seed=3)
    play_game([b, AllIn(), RandomBot()], GameSettings(mode="cash", hands=20), deal_seed=3, bot_seed=4)
    assert a.holes == b.holes and len(a.holes) == 20


def test_tournament_bookkeeping():
    for seed in range(20):
        result = play_game(NO_DATABASE_FIELD, deal_seed=seed, bot_seed=seed)
        n = len(NO_DATABASE_FIELD)
        assert sorted(result.places.tolist()) == list(range(1, n + 1))
        winner = int(np.argmin(result.places))
        assert result.net.sum() == 0 and result.net[winner] == (n - 1) * 1500  # the winner has every chip
        assert result.bust_hand[winner] == -1
        out = [s for s in range(n) if s != winner]
        # a later bust never places better than an earlier one
        for s in out:
            for t in out:
                if result.bust_hand[s] < result.bust_hand[t]:
                    assert result.places[s] > result.places[t]
        assert (result.stats[G.S_HANDS] <= result.hands).all() and result.stats[G.S_HANDS].max() == result.hands


def test_cash_bookkeeping():
    result = play_game(NO_DATABASE_FIELD, GameSettings(mode="cash", hands=250, stack=2000), deal_seed=1, bot_seed=1)
    assert result.hands == 250 and (result.stats[G.S_HANDS] == 250).all()  # everybody plays every hand
    assert result.net.sum() == 0
    assert result.big_blinds == pytest.approx(result.net / 20)  # the first level's big blind is 20
    assert sorted(result.places.tolist()) == sorted(1 + int((result.net > x).sum()) for x in result.net)


def test_players_out_in_the_same_hand_place_by_the_chips_they_started_it_with():
    g = np.zeros(_G_FIELDS, dtype=np.int64)
    p = np.zeros((_P_FIELDS, MAX_SEATS), dtype=np.int64)
    g[0] = 4  # seats
    g[3] = 20  # big blind
    p[_P_STATE, :4] = 1
    p[_P_START, :4] = [300, 500, 200, 1000]
    p[_P_STACK, :4] = [0, 0, 0, 2000]
    game = np.zeros(G.GM_FIELDS, dtype=np.int64)
    game[G.GM_ALIVE] = 4
    game[G.GM_MAXHANDS] = 1000
    places = np.zeros(MAX_SEATS, dtype=np.int64)
    bust = np.full(MAX_SEATS, -1, dtype=np.int64)
    stats = np.zeros((G.S_FIELDS, MAX_SEATS), dtype=np.int64)
    G._end_hand(g, p, np.zeros((4, 4), dtype=np.int64), game, places, bust, stats, np.zeros(MAX_SEATS))
    assert places[:4].tolist() == [3, 2, 4, 1] and game[G.GM_OVER] == 1


def test_blind_schedule_and_levels():
    schedule = blind_schedule()
    assert schedule[0].tolist() == [10, 20, 0] and schedule[12].tolist() == [1000, 2000, 100]
    assert schedule[13].tolist() == [2000, 4000, 200] and len(schedule) == 64
    # stations never fold: only rising blinds end their game, and sooner with faster levels
    slow = play_game([CallingStation()] * 3, GameSettings(hands_per_level=10), deal_seed=2)
    fast = play_game([CallingStation()] * 3, GameSettings(hands_per_level=2), deal_seed=2)
    assert fast.hands < slow.hands


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: play_game([AllIn()]), "A game needs 2 to 10 bots; got 1."),
        (lambda: play_game([AllIn(), object()]), "has no act(view) method."),
        (lambda: play_game([WestBot(), AllIn()]), "These bots need hand strengths; give a source"),
        (lambda: GameSettings(mode="sng"), "The mode 'sng' is unknown; expected 'tournament' or 'cash'."),
        (lambda: GameSettings(stack=0), "The setting stack = 0 is not a whole number of at least 1."),
        (lambda: blind_schedule(((20, 10, 0),)), "are not (small blind, big blind, ante) rows"),
        (lambda: play_game([AllIn(), AllIn()], button=5), "The first button 5 is not a seat 0..1."),
    ],
)
def test_game_errors_say_what_was_expected(call, message):
    with pytest.raises(GameError) as caught:
        call()
    assert message in str(caught.value)


class Nonsense(Bot):
    name = "nonsense"

    def act(self, view):
        return "fold"


def test_a_bot_that_answers_nonsense_is_named():
    with pytest.raises(GameError, match=r"The bot 'nonsense' \(seat 0, preflop of hand 0\) answered 'fold'; expected \(kind, amount\)"):
        play_game([Nonsense(), AllIn()], deal_seed=1)


def test_exact_bots_play_the_same_in_both_loops(source):
    """west:exact and west:exact-dropout: the compiled loop (with its per-street cache) equals the Python loop."""
    from matchdb.play.bots import make_bot

    bots = [make_bot("west:exact"), make_bot("west:exact-dropout"), make_bot("west"), make_bot("station")]
    settings = GameSettings(mode="cash", hands=60)
    compiled = play_game(bots, settings, deal_seed=2, bot_seed=2, source=source)
    python = play_game(bots, settings, deal_seed=2, bot_seed=2, source=source, python=True)
    assert compiled.compiled and not python.compiled
    assert (compiled.net == python.net).all() and (compiled.stats == python.stats).all()
