"""Built-in bots: parameters, each bot's decisions on worked cases, strengths through the view."""

from __future__ import annotations

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.play import bots as B
from matchdb.play.bots import (
    BOT_NAMES,
    HEADSUP_EQUITY,
    NAIVE,
    AllIn,
    Bot,
    BotError,
    CallingStation,
    IncomeBot,
    PairOfFives,
    RandomBot,
    TomlinsonBot,
    WestBot,
    make_bot,
    montecarlo,
    multiway,
    opponent_flags,
)
from matchdb.play.decisions import choose_raise_to, fcr_probabilities, fold_or_follow
from matchdb.play.engine import CALL, FOLD, RAISE, Table, View
from matchdb.play.strength import seed_kernels


def view(hole="AsKd", board="", to_call=0, pot=30, stack=1000, bet=0, max_bet=0, contributed=0, big_blind=20,
         players=2, can_raise=True, min_raise_to=None, max_raise_to=None, history=(), source=None) -> View:
    """A view of seat 0 in a made-up spot; only the fields bots read matter."""
    board_ids = parse_cards(board)
    min_to = min_raise_to if min_raise_to is not None else max_bet + big_blind
    max_to = max_raise_to if max_raise_to is not None else stack + bet
    return View(seat=0, hole=parse_cards(hole, count=2), board=board_ids, street=(0, 0, 0, 1, 2, 3)[len(board_ids)],
                pot=pot, to_call=to_call, can_raise=can_raise, min_raise_to=min_to if can_raise else 0,
                max_raise_to=max_to if can_raise else 0, stack=stack, bet=bet, contributed=contributed,
                max_bet=max_bet, stacks=(stack, 1000), bets=(bet, max_bet), contributions=(contributed, contributed),
                in_hand=(True,) * players, button=0, small_blind=big_blind // 2, big_blind=big_blind, ante=0,
                players=players, history=tuple(history), source=source)


def constant(value):
    return lambda v: value


# -- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_bot_has_a_flat_named_bounded_vector(name):
    bot = make_bot(name)
    names = bot.parameter_names()
    low, high = bot.bounds()
    vector = bot.vector()
    assert len(set(names)) == len(names) == len(vector) == len(low) == len(high)
    assert ((low <= vector) & (vector <= high)).all()
    again = bot.with_vector(vector)
    assert (again.vector() == vector).all() and again.name == bot.name and type(again) is type(bot)
    assert bot.native() is not None  # every built-in bot runs in the compiled loop


def test_personalities_differ_and_keywords_override_them():
    vectors = {p: WestBot(personality=p).vector() for p in B.PERSONALITIES}
    assert len({tuple(v) for v in vectors.values()}) == len(vectors)
    tight = WestBot(personality="tight", raise_fraction=2.0)
    assert tight.name == "west-tight" and tight.params[tight.parameter_names().index("raise_fraction")] == 2.0
    assert WestBot().vector()[:11].tolist() == [0.8, 1.0, 1.3, 0.95, 0.8, 0.0, 0.0, 0.05, 0.15, 0.4, 0.7]  # West's table


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: make_bot("bluffer"), "The bot 'bluffer' is unknown"),
        (lambda: make_bot("west:exactly"), "The bot 'west:exactly' is unknown"),
        (lambda: WestBot(rr_low=9.0), "The parameter rr_low = 9.0 is out of bounds; expected 0.0 to 5.0."),
        (lambda: WestBot(bluff=0.1), "The parameter 'bluff' is not one of WestBot's"),
        (lambda: WestBot(personality="shy"), "The personality 'shy' is unknown"),
        (lambda: WestBot().with_vector(np.zeros(3)), "The vector has shape (3,); WestBot takes (15,)."),
        (lambda: WestBot().with_vector(np.full(15, 7.0)), "leaves the bounds of WestBot"),
        (lambda: WestBot(strength=0.5), "The strength 0.5 is not callable"),
        (lambda: montecarlo(samples=0), "The sample count 0 is out of range; expected a whole number 1..100,000."),
    ],
)
def test_bot_errors_say_what_was_expected(make, message):
    with pytest.raises(BotError) as caught:
        make()
    assert message in str(caught.value)


def test_make_bot_with_a_strength():
    bot = make_bot("west-loose:headsup")
    assert bot.strength == HEADSUP_EQUITY and bot.name == "west-loose:headsup"
    assert make_bot("tomlinson").strength == montecarlo()
    assert make_bot("west").strength == NAIVE
    dropout = make_bot("west:dropout").strength
    assert (dropout.model, dropout.threshold) == ("dropout", B.PAIR_OF_SIXES)


def test_wests_pair_of_sixes_threshold_is_the_preflop_table(db):
    table = db.preflop()
    assert round(float(table.equity[table.classes.index("66")]), 4) == B.PAIR_OF_SIXES


# -- decisions of each bot -------------------------------------------------------------------------


def test_all_in_and_calling_station():
    assert AllIn().act(view(to_call=20, max_raise_to=500)) == (RAISE, 500)
    assert AllIn().act(view(to_call=20, can_raise=False)) == (CALL, 0)
    assert CallingStation().act(view(to_call=400)) == (CALL, 0)


@pytest.mark.parametrize(
    ("hole", "board", "to_call", "expected"),
    [
        ("5c5d", "", 20, RAISE),  # a pair of fives
        ("AcAd", "", 20, RAISE),
        ("4c4d", "", 20, FOLD),  # fours are not enough
        ("4c4d", "", 0, CALL),  # ... but a free check is taken
        ("AcKd", "", 20, FOLD),
        ("9h2c", "9dKs3c", 20, RAISE),  # a pair of nines with the board
        ("Ah2c", "5d5sKc", 20, RAISE),  # the board's pair of fives counts ("a hand better than a pair of fives")
        ("Ah2c", "4d4sKc", 20, FOLD),  # fours on the board do not
        ("Ah2c", "3d4sKc7h", 20, FOLD),
        ("Ah2c", "3d4s5c", 20, RAISE),  # a straight beats any pair
    ],
)
def test_pair_of_fives(hole, board, to_call, expected):
    assert PairOfFives().act(view(hole, board, to_call=to_call))[0] == expected


def test_pair_of_fives_raises_the_pot_and_can_call_instead_of_folding():
    assert PairOfFives().act(view("5c5d", to_call=20, pot=30, max_bet=20)) == (RAISE, 20 + 50)
    assert PairOfFives(call_otherwise=1.0).act(view("4c4d", to_call=20)) == (CALL, 0)


def test_west_folds_his_example_whichever_the_strength():
    # AD 2D on QC KC 2C: 500 in the pot, 100 to call with the last 100 chips
    for strength in (0.297, 0.2797):
        bot = WestBot(strength=constant(strength))
        seed_kernels(1)
        answers = {bot.act(view("Ad2d", "QcKc2c", to_call=100, pot=500, stack=100, max_bet=100,
                                can_raise=False, players=3))[0] for _ in range(300)}
        assert answers == {FOLD}
        # with a deep stack the same rate of return (about 1.8) calls or raises, never folds
        seed_kernels(1)
        deep = {bot.act(view("Ad2d", "QcKc2c", to_call=100, pot=500, stack=5000, max_bet=100))[0] for _ in range(300)}
        assert deep == {CALL, RAISE}


@pytest.mark.parametrize("strength", [0.05, 0.09, 0.115, 0.2])
def test_west_decides_with_the_band_probabilities(strength):
    # 10 to call into 90: pot odds 0.1, rate of return 10 x strength; deep stacks, so no stack protection
    bot = WestBot(strength=constant(strength))
    seed_kernels(2)
    draws = 6000
    counts = {FOLD: 0, CALL: 0, RAISE: 0}
    for _ in range(draws):
        counts[bot.act(view(to_call=10, pot=90, max_bet=10, stack=5000))[0]] += 1
    expected = fcr_probabilities(strength / 0.1)
    for kind, p in zip((FOLD, CALL, RAISE), expected, strict=True):
        assert abs(counts[kind] / draws - p) <= 4 * (p * (1 - p) / draws) ** 0.5 + 1e-12


def test_west_never_folds_for_free_and_prices_its_own_bet():
    bot = WestBot(strength=constant(0.05))
    seed_kernels(3)
    answers = [bot.act(view(to_call=0, pot=100)) for _ in range(500)]
    assert {a[0] for a in answers} == {CALL, RAISE}  # checks, and bluffs about 5 % of the time
    assert 0.01 < sum(a[0] == RAISE for a in answers) / 500 < 0.10
    raise_to = next(a[1] for a in answers if a[0] == RAISE)
    assert raise_to == 75  # 0.75 of the pot


def test_income_bot_follows_the_articles_rule_and_chooses_its_draw():
    spots = [  # (strength, pot, to_call, contributed)
        (0.1, 600, 100, 100), (0.3, 600, 100, 100), (0.2, 150, 50, 20), (0.6, 200, 0, 50), (0.05, 300, 0, 100),
    ]
    for strength, pot, to_call, contributed in spots:
        bot = IncomeBot(strength=constant(strength))
        kind, amount = bot.act(view(to_call=to_call, pot=pot, max_bet=to_call, contributed=contributed,
                                    players=3, stack=2000))
        follows = fold_or_follow(strength, pot, contributed, contributed + to_call).follows or to_call == 0
        if not follows:
            assert kind == FOLD
            continue
        best = choose_raise_to(strength, pot, to_call, contributed, 0, to_call, to_call + 20, 2000, opponents=2,
                               decay=1.0)
        assert (kind, amount) == ((CALL, 0) if best is None else (RAISE, best))


def test_random_bot_frequencies():
    bot = RandomBot(fold_chance=0.2, raise_chance=0.3)
    seed_kernels(4)
    draws = 6000
    answers = [bot.act(view(to_call=20, max_bet=20, min_raise_to=40, max_raise_to=1000)) for _ in range(draws)]
    kinds = np.array([a[0] for a in answers])
    for kind, p in ((FOLD, 0.2), (RAISE, 0.3), (CALL, 0.5)):
        assert abs((kinds == kind).mean() - p) <= 4 * (p * (1 - p) / draws) ** 0.5
    amounts = np.array([a[1] for a in answers if a[0] == RAISE])
    assert amounts.min() >= 40 and amounts.max() <= 1000 and abs(amounts.mean() - 520) < 4 * 277 / len(amounts) ** 0.5


# -- strengths through the view -----------------------------------------------------------------------


def test_builtin_strengths_read_the_database_through_the_view(db, source):
    v = view("AhKh", "2c7dJh", players=3, source=source)
    assert NAIVE(v) == pytest.approx(db.win_rate("AhKh", "2c7dJh", 3), abs=1e-12)
    assert HEADSUP_EQUITY(v) == pytest.approx(db.equity("AhKh", "2c7dJh"), abs=1e-12)
    seed_kernels(5)
    estimate = montecarlo(samples=20_000, model="uniform")(v)
    assert abs(estimate - 0.3758613384290151) < 4 * (0.25 / 20_000) ** 0.5
    with pytest.raises(BotError, match="offers no strength source"):
        NAIVE(view("AhKh", "2c7dJh"))


def test_a_python_strength_makes_a_python_bot():
    exact = multiway(lambda hole, board, players: 0.9)
    bot = WestBot(strength=exact)
    assert bot.native() is None
    seed_kernels(6)
    assert {bot.act(view(to_call=10, pot=90, max_bet=10))[0] for _ in range(100)} <= {CALL, RAISE}
    assert TomlinsonBot(strength=exact).native() is None
    assert AllIn(strength=exact).native() is not None  # a bot that reads no strength stays compiled


def test_opponent_flags_agree_between_python_and_the_compiled_loop():
    from matchdb.play.games import _opponent_flags

    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(200):
        n = int(rng.integers(3, 8))
        table = Table([int(x) for x in rng.integers(20, 300, size=n)], 1, 2, seed=int(rng.integers(1 << 30)))
        hand = table.start_hand()
        while not hand.over:
            v = hand.view()
            for model in (B.DROPOUT, B.STEERED):
                flags = np.zeros(10, dtype=np.int64)
                _opponent_flags(table._g, table._p, table._log, v.seat, model, flags)
                python = opponent_flags(v.history, v.in_hand, v.seat, model)
                assert flags[: len(python)].tolist() == python
                checked += 1
            legal = hand.legal()
            r = rng.random()
            hand.act(FOLD if r < 0.3 else RAISE if r < 0.5 and legal.can_raise else CALL, legal.min_raise_to)
    assert checked > 1000


def test_a_bot_needs_to_implement_act():
    with pytest.raises(NotImplementedError):
        Bot().act(view())
