"""The articles' opponent models (matchdb.equity.opponents) against their definitions and direct sums."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from tests.equity.test_multiway import _range_cards, frame_weights


@pytest.fixture(scope="module")
def db(full_store):
    """The full database with its preflop table."""
    import matchdb

    database = matchdb.open(full_store)
    database.preflop()
    return database


def test_independent_model_with_random_opponents_is_the_naive_rate(table_cache):
    from matchdb.core.pairs import board_columns, local_index, pair_row
    from matchdb.equity.heads_up import naive_win_rate
    from matchdb.equity.opponents import independent_outcome

    flop = parse_cards("As8d3c")
    table = table_cache("As8d3c")
    local = local_index(flop)
    for hand in ("KsKd", "8c7c", "2h2d"):
        row = pair_row(flop, parse_cards(hand))
        for columns in (board_columns(()), board_columns([int(local[parse_cards("9h")[0]])])):
            for players in (2, 4, 7, 10):
                r = independent_outcome(table, columns, row, [np.ones(1176)] * (players - 1))
                assert r.equity == pytest.approx(naive_win_rate(table, row, columns, players), abs=1e-12)
                assert r.method == "independent" and not r.exact


def test_independent_model_with_beliefs_against_a_direct_sum(table_cache):
    """Beliefs: per column, each opponent's below/tied weight over valid rows (not the hero's), multiplied."""
    from matchdb.core.pairs import SENTINEL, board_columns, pair_row
    from matchdb.equity.opponents import independent_outcome

    flop = parse_cards("Jc7h7d")
    table = table_cache("Jc7h7d")
    hero = pair_row(flop, parse_cards("AcJd"))
    beliefs = [frame_weights(flop, 0, t) for t in ("77,JJ,AJ,KJ", "22+,A2s+", "T9s,98s,QJ")]
    got = independent_outcome(table, board_columns(()), hero, beliefs)
    total = 0.0
    count = 0
    for j in range(1176):
        level = int(table[hero, j])
        if level == SENTINEL:
            continue
        product = 1.0
        for w in beliefs:
            valid = (table[:, j] != SENTINEL) & (np.arange(1176) != hero)
            below = w[valid & (table[:, j] < level)].sum()
            tied = w[valid & (table[:, j] == level)].sum()
            product *= (below + tied / 2) / w[valid].sum()
        total += product
        count += 1
    assert got.equity == pytest.approx(total / count, abs=1e-12)


def test_west_and_tomlinson_ranges(db):
    from matchdb.core.hole_cards import CLASSES, combos
    from matchdb.equity.opponents import at_least, steered, top_percent

    pre = db.preflop()
    sixes = at_least("66", pre)
    chosen = {CLASSES[i] for i, w in enumerate(sixes.weights) if w}
    assert {"66", "77", "AA", "AKs"} <= chosen and "55" not in chosen
    # every chosen class scores at least 66's heads-up equity, every other one below it
    bar = pre.equity[CLASSES.index("66")]
    assert all((pre.equity[i] >= bar) == bool(w) for i, w in enumerate(sixes.weights))
    for percent in (5, 12.5, 40):
        top = top_percent(percent, pre)
        assert top.fraction() == pytest.approx(percent / 100, abs=1e-12)
        # strongest first: no class left out scores above a class taken in
        taken = [pre.equity[i] for i, w in enumerate(top.weights) if w > 0]
        left = [pre.equity[i] for i, w in enumerate(top.weights) if w == 0]
        assert min(taken) >= max(left)
    raiser = steered(pre, top=0.1, softness=0.03)
    order = np.argsort(-pre.equity)
    assert all(raiser.weights[a] >= raiser.weights[b] for a, b in itertools.pairwise(order))
    assert sum(combos(c) for c in CLASSES) == 1326
    # the drop-out rule: the binomial mixture of exact answers
    r = db.drop_out("AhKh", "2c7dJh", 4, "66+")
    stay = _range_cards("66+")
    dead = set(parse_cards("AhKh2c7dJh"))
    p = sum(1 for a, b, _ in stay if a not in dead and b not in dead) / (47 * 46 / 2)
    parts = [1.0] + [db.multiway("AhKh", "2c7dJh", ["66+"] * m).equity for m in (1, 2, 3)]
    want = sum(math.comb(3, m) * p**m * (1 - p) ** (3 - m) * parts[m] for m in range(4))
    assert r.equity == pytest.approx(want, abs=1e-12) and r.method == "drop-out"
    # a steered range is a range: usable as an opponent
    assert 0 < db.multiway("AhKh", "2c7dJh", [raiser, "random"]).equity < 1


def test_independent_model_with_a_known_opponent_hand_is_the_exact_equity(small_db):
    """A known hand is possible on every runout that spares its cards: the formula is then the exact enumeration.

    It used to refuse with a false "no hand possible" (a turn or river taking one of
    the known hand's cards left that opponent no hand on that column).
    """
    from tests.equity.test_multiway import _eval7

    eval7 = _eval7()
    cards = [eval7.Card(c) for c in ("Ah", "Kh", "Qs", "Qd", "2c", "7d", "Jh")]
    hero, villain, board = cards[:2], cards[2:4], cards[4:]
    rest = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs" if eval7.Card(r + s) not in cards]
    won = tied = count = 0
    for turn, river in itertools.combinations(rest, 2):
        mine = eval7.evaluate(hero + board + [turn, river])
        theirs = eval7.evaluate(villain + board + [turn, river])
        won += mine > theirs
        tied += mine == theirs
        count += 1
    got = small_db.multiway("AhKh", "2c7dJh", ["QsQd"], method="independent")
    assert count == math.comb(45, 2)
    assert got.equity == pytest.approx((won + tied / 2) / count, abs=1e-12)
    assert got.win == pytest.approx(won / count, abs=1e-12) and got.tie == pytest.approx(tied / count, abs=1e-12)
    assert got.equity == pytest.approx(small_db.equity("AhKh", "2c7dJh", "QsQd"), abs=1e-12)
    beside = small_db.multiway("AhKh", "2c7dJh", ["QsQd", "random"], method="independent")  # an approximation, but an answer
    assert 0 < beside.equity < got.equity
