"""The articles' decision rules as tables of worked cases."""

from __future__ import annotations

import math

import pytest

from matchdb.play.decisions import (
    CALL,
    FOLD,
    RAISE,
    WEST_BANDS,
    Bands,
    DecisionError,
    bet_odds,
    choose_raise_to,
    fcr_probabilities,
    fold_call_raise,
    fold_or_follow,
    follow_probability,
    pot_odds,
    pot_raise_to,
    raise_income,
    rate_of_return,
    stack_protection,
)

# -- West's worked example: AD 2D on QC KC 2C, pot 500, a bet of 100 with the last 100 chips, two opponents


def test_wests_example_pot_odds_rate_of_return_and_stack_protection():
    odds = pot_odds(100, 500)
    assert odds == pytest.approx(100 / 600)
    assert f"{odds:.4f}" == "0.1667"  # West writes 0.1666
    # his simulated hand strength 0.297: "your rate of return is about 1.8"
    assert rate_of_return(0.297, odds) == pytest.approx(1.782)
    assert round(rate_of_return(0.297, odds), 1) == 1.8
    # the exact three-player equity of the hand (the multiway work's number): 1.68
    assert rate_of_return(0.2797, odds) == pytest.approx(1.6782)
    assert round(rate_of_return(0.2797, odds), 2) == 1.68
    # a rate of return that high calls or raises...
    assert fcr_probabilities(1.782)[0] == 0 and fcr_probabilities(1.6782)[0] == 0
    # ...but the call leaves nothing, under four big blinds, with strength below 0.5: fold either way
    for strength in (0.297, 0.2797):
        for big_blind in (1, 10, 25, 100):
            assert stack_protection(stack=100, chips=100, big_blind=big_blind, strength=strength)


@pytest.mark.parametrize(
    ("to_call", "pot", "expected"),
    [
        (20, 40, 1 / 3),  # West: "if the bet is $20, and there is $40 in the pot, then the pot odds are 20/(20+40) = 0.333"
        (100, 500, 1 / 6),  # West's stack-protection example
        (0, 100, 0.0),  # nothing to call
        (50, 0, 1.0),
    ],
)
def test_pot_odds(to_call, pot, expected):
    assert pot_odds(to_call, pot) == pytest.approx(expected)


def test_bet_odds_price_the_bet_a_player_checked_to_would_make():
    assert bet_odds(50, 100) == pytest.approx(50 / 150)
    assert bet_odds(0, 100) == 0.0


@pytest.mark.parametrize(
    ("strength", "odds", "expected"),
    [(0.5, 0.25, 2.0), (0.297, 1 / 6, 1.782), (0.2797, 1 / 6, 1.6782), (0.0, 0.3, 0.0), (0.4, 0.0, math.inf)],
)
def test_rate_of_return(strength, odds, expected):
    assert rate_of_return(strength, odds) == pytest.approx(expected)


# West's table: RR < 0.8: 95 % fold, 0 % call, 5 % raise; < 1.0: 80/5/15; < 1.3: 0/60/40; else 0/30/70
@pytest.mark.parametrize(
    ("rr", "expected"),
    [
        (0.0, (0.95, 0.0, 0.05)),
        (0.79, (0.95, 0.0, 0.05)),
        (0.8, (0.80, 0.05, 0.15)),
        (0.99, (0.80, 0.05, 0.15)),
        (1.0, (0.0, 0.60, 0.40)),
        (1.29, (0.0, 0.60, 0.40)),
        (1.3, (0.0, 0.30, 0.70)),
        (25.0, (0.0, 0.30, 0.70)),
        (math.inf, (0.0, 0.30, 0.70)),
    ],
)
def test_wests_fold_call_raise_bands(rr, expected):
    assert fcr_probabilities(rr) == pytest.approx(expected)


def test_bands_that_overshoot_keep_their_ratio():
    bands = Bands((0.8, 1.0, 1.3), (0.9, 0.8, 0.0, 0.0), (0.3, 0.15, 0.4, 0.7))
    assert fcr_probabilities(0.5, bands) == pytest.approx((0.75, 0.0, 0.25))


@pytest.mark.parametrize(
    ("rr", "u", "to_call", "expected"),
    [
        (0.5, 0.0, 10, FOLD),
        (0.5, 0.9499, 10, FOLD),
        (0.5, 0.95, 10, RAISE),  # the 5 % bluff; band one never calls
        (0.5, 0.5, 0, CALL),  # "if fold and amount to call is zero, then call"
        (0.9, 0.79, 10, FOLD),
        (0.9, 0.82, 10, CALL),
        (0.9, 0.86, 10, RAISE),
        (1.1, 0.0, 10, CALL),
        (1.1, 0.6, 10, RAISE),
        (2.0, 0.29, 10, CALL),
        (2.0, 0.31, 10, RAISE),
    ],
)
def test_fold_call_raise_draws(rr, u, to_call, expected):
    assert fold_call_raise(rr, u, to_call) == expected


@pytest.mark.parametrize(
    ("stack", "chips", "big_blind", "strength", "expected"),
    [
        (100, 100, 20, 0.297, True),  # West's example
        (100, 100, 20, 0.6, False),  # a strong hand commits anyway
        (1000, 100, 20, 0.297, False),  # plenty left
        (180, 100, 20, 0.297, False),  # 80 left: exactly four big blinds, not fewer
        (179, 100, 20, 0.297, True),  # 79 left: fewer than four big blinds
        (100, 0, 20, 0.1, False),  # putting nothing in never folds
        (100, 100, 20, 0.5, False),  # "unless I have a greater than 50% chance": 0.5 is not below 0.5
    ],
)
def test_stack_protection(stack, chips, big_blind, strength, expected):
    assert stack_protection(stack, chips, big_blind, strength) is expected


def test_stack_protection_parameters():
    assert stack_protection(300, 100, 20, 0.4, min_blinds=12) is True
    assert stack_protection(300, 100, 20, 0.4, min_blinds=4) is False
    assert stack_protection(100, 100, 20, 0.4, min_strength=0.3) is False


# -- the match-table article: fold loses d_i; follow wins p E[income | win] - max draw


@pytest.mark.parametrize(
    ("p", "money", "own", "top", "fold", "follow", "follows"),
    [
        (0.3, 600, 100, 200, -100, 0.3 * 700 - 200, True),  # E >= 600 + 200 - 100
        (0.1, 600, 100, 200, -100, 0.1 * 700 - 200, False),
        (0.5, 100, 50, 50, -50, 0.5 * 100 - 50, True),  # nothing to call: follow never loses more than folding
        (0.0, 100, 50, 50, -50, -50, False),  # a sure loser is indifferent; ties do not follow
        (1.0, 300, 0, 300, 0, 300, True),
    ],
)
def test_fold_or_follow(p, money, own, top, fold, follow, follows):
    decision = fold_or_follow(p, money, own, top)
    assert decision.fold == pytest.approx(fold)
    assert decision.follow == pytest.approx(follow)
    assert decision.follows is follows


def test_follow_with_the_lower_bound_is_the_pot_odds_rule():
    # p E - D > -d  with E = M + D - d  <=>  p > (D - d) / (M + D - d): West's pot odds, independently
    for p in (0.05, 0.15, 0.25, 0.4, 0.7):
        for money, own, top in ((600, 100, 200), (150, 50, 100), (1000, 400, 900), (30, 10, 25)):
            to_call = top - own
            assert fold_or_follow(p, money, own, top).follows is (p > pot_odds(to_call, money))


def test_a_larger_expected_income_can_turn_a_fold_into_a_follow():
    assert not fold_or_follow(0.1, 600, 100, 200).follows
    assert fold_or_follow(0.1, 600, 100, 200, income=2000).follows  # 0.1 * 2000 - 200 = 0 > -100
    with pytest.raises(DecisionError, match="expected income 500.0 is out of range; expected 700.0 to inf"):
        fold_or_follow(0.1, 600, 100, 200, income=500)


@pytest.mark.parametrize(("raise_by", "pot", "decay", "expected"), [(100, 100, 1.0, math.exp(-1)), (0, 100, 3.0, 1.0),
                                                            (50, 100, 2.0, math.exp(-1)), (100, 100, 0.0, 1.0)])
def test_follow_probability(raise_by, pot, decay, expected):
    assert follow_probability(raise_by, pot, decay) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("p", "pot", "to_call", "own", "raise_by", "opponents", "decay", "expected"),
    [
        (0.5, 100, 0, 50, 0, 1, 1.0, 0.5 * 100 - 50),  # following costs nothing more: p x pot - own draw
        (0.5, 100, 20, 50, 0, 1, 1.0, 0.5 * 120 - 70),  # the article's follow value with its lower bound
        (0.5, 100, 0, 50, 100, 1, 0.0, 0.5 * 300 - 150),  # always followed: the pot grows by two raises
        (0.5, 100, 0, 50, 100, 3, 0.0, 0.5 * 500 - 150),  # three followers
        (0.2, 100, 0, 50, 100, 2, 1e9, 100 - 50),  # never followed: the pot as it stands
        # one opponent follows with e^-1: nobody 1 - e^-1 wins 50; followed: 0.6 * 300 - 150 = 30
        (0.6, 100, 0, 50, 100, 1, 1.0, (1 - math.exp(-1)) * 50 + math.exp(-1) * 30),
    ],
)
def test_raise_income(p, pot, to_call, own, raise_by, opponents, decay, expected):
    assert raise_income(p, pot, to_call, own, raise_by, opponents, decay) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("p", "decay", "opponents", "expected"),
    [
        (0.9, 0.0, 1, 500),  # always followed and ahead: the largest draw (all-in)
        (0.6, 0.0, 1, 500),  # p > 1 / (1 + followers): every chip raised gains
        (0.4, 0.0, 1, None),  # p < 1 / 2: every raise loses to following
        (0.4, 0.0, 2, 500),  # ... unless two follow: p > 1 / 3
        (0.2, 1e9, 1, 10),  # nobody ever follows: any raise takes the pot; the smallest does
    ],
)
def test_choose_raise_to(p, decay, opponents, expected):
    choice = choose_raise_to(p, pot=100, to_call=0, own_draw=50, bet=0, max_bet=0, min_raise_to=10,
                             max_raise_to=500, opponents=opponents, decay=decay)
    assert choice == expected


def test_choose_raise_to_is_the_best_candidate():
    # with followers fading, the best draw is in between: compare with every candidate's own value
    kwargs = dict(p_win=0.7, pot=100, to_call=0, own_draw=50)
    candidates = [10, 50, 100, 200, 500]  # min raise, 0.5, 1 and 2 pots, all-in
    values = {x: raise_income(**kwargs, raise_by=x, opponents=2, decay=1.0) for x in candidates}
    best = max(values, key=values.get)
    assert choose_raise_to(**kwargs, bet=0, max_bet=0, min_raise_to=10, max_raise_to=500, opponents=2, decay=1.0) == best
    assert best not in (10, 500)


@pytest.mark.parametrize(
    ("fraction", "pot", "to_call", "max_bet", "low", "high", "shove", "expected"),
    [
        (1.0, 30, 10, 10, 20, 1000, 1.0, 50),  # pot-sized raise: 10 + (30 + 10)
        (0.5, 30, 10, 10, 20, 1000, 1.0, 30),
        (0.1, 30, 10, 10, 20, 1000, 1.0, 20),  # below the minimum raise: the minimum
        (5.0, 30, 10, 10, 20, 100, 1.0, 100),  # above the stack: all-in
        (1.0, 30, 10, 10, 20, 60, 0.8, 60),  # 50 is more than 0.8 x 60: all-in
        (0.75, 100, 0, 0, 2, 1000, 0.6, 75),
    ],
)
def test_pot_raise_to(fraction, pot, to_call, max_bet, low, high, shove, expected):
    assert pot_raise_to(fraction, pot, to_call, max_bet, low, high, shove) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pot_odds(-1, 40), "The amount to call -1.0 is out of range; expected 0 to inf."),
        (lambda: rate_of_return(1.5, 0.2), "The hand strength 1.5 is out of range; expected 0 to 1."),
        (lambda: fold_call_raise(1.0, 1.5, 0), "The uniform draw 1.5 is out of range; expected 0 to 1."),
        (lambda: fcr_probabilities(1.0, Bands((1.0, 0.8, 1.3), (0, 0, 0, 0), (0, 0, 0, 0))),
         "The thresholds (1.0, 0.8, 1.3) are not in increasing order."),
        (lambda: fold_or_follow(0.5, 100, 60, 50), "The max draw 50.0 is out of range; expected 60.0 to inf."),
        (lambda: pot_odds("ten", 40), "The amount to call 'ten' is not a number."),
        (lambda: choose_raise_to(0.5, 100, 0, 0, 0, 50, 10, 40, 1), "The raise range 10..40 is empty or not above the bet 50."),
    ],
)
def test_decision_errors_say_what_was_expected(call, message):
    with pytest.raises(DecisionError) as caught:
        call()
    assert str(caught.value) == message


def test_west_bands_are_the_articles():
    assert Bands((0.8, 1.0, 1.3), (0.95, 0.80, 0.0, 0.0), (0.05, 0.15, 0.40, 0.70)) == WEST_BANDS
