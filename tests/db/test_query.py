"""The query layer against independent enumeration (eval7), invariants, and the store's guard rails."""

from __future__ import annotations

import json
import shutil
import warnings
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import matchdb
from matchdb.core.canonical import CARD_MAP
from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.ranges import parse_range
from matchdb.errors import (
    DatabaseNotFoundError,
    FormatVersionError,
    IncompleteDatabaseError,
)
from tests.helpers import random_position

with warnings.catch_warnings():  # eval7 builds its range grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

EVAL7_CARDS = [eval7.Card(format_cards([c])) for c in range(52)]


@pytest.fixture(scope="module")
def db(small_store):
    return matchdb.open(small_store)


@pytest.fixture(scope="module")
def stored_flops(small_flops):
    return small_flops


def eval7_outcome(hole, board, villain=None):
    """(win, tie, loss) of ``hole`` by enumerating every runout and opponent hand with eval7."""
    hole, board = parse_cards(hole), parse_cards(board)
    weight = None
    if villain is not None:
        weight = {frozenset((a, b)): w for a, b, w in parse_range(villain)}
    rest = [c for c in range(52) if c not in hole and c not in board]
    win = tie = loss = 0.0
    for runout in combinations(rest, 5 - len(board)):
        cards = [EVAL7_CARDS[c] for c in board + runout]
        hero = eval7.evaluate([EVAL7_CARDS[c] for c in hole] + cards)
        left = [c for c in rest if c not in runout]
        for a, b in combinations(left, 2):
            w = 1.0 if weight is None else weight.get(frozenset((a, b)), 0.0)
            if not w:
                continue
            other = eval7.evaluate([EVAL7_CARDS[a], EVAL7_CARDS[b]] + cards)
            if hero > other:
                win += w
            elif hero == other:
                tie += w
            else:
                loss += w
    total = win + tie + loss
    return win / total, tie / total, loss / total


# -- reference values ---------------------------------------------------------


def test_published_references_through_the_api(db):
    assert db.win_rate("AhKh", "2c7dJh") == pytest.approx(0.580707, abs=5e-7)
    assert db.equity("AhKh", "2c7dJh") == pytest.approx(0.572571, abs=5e-7)
    assert db.equity("AcAd", "AhTcTh") == pytest.approx(0.994682, abs=5e-7)
    assert db.equity("AhTh", "AsTs9h") == pytest.approx(0.893639, abs=5e-7)


def test_naive_win_rate_equals_the_formula_over_eval7_percentiles(db):
    """mean((1 - S) ** (n - 1)) with S computed from eval7 ranks of every valid hand."""
    hole, board = parse_cards("AhKh"), parse_cards("2c7dJh")
    rest = [c for c in range(52) if c not in hole + board]
    per_runout = []
    for runout in combinations(rest, 2):
        cards = [EVAL7_CARDS[c] for c in board + runout]
        hero = eval7.evaluate([EVAL7_CARDS[c] for c in hole] + cards)
        others = [
            eval7.evaluate([EVAL7_CARDS[a], EVAL7_CARDS[b]] + cards)
            for a, b in combinations([c for c in range(52) if c not in board + runout], 2)
            if (a, b) != tuple(sorted(hole))
        ]
        beaten = sum(o < hero for o in others) + sum(o == hero for o in others) / 2
        per_runout.append(beaten / len(others))
    per_runout = np.array(per_runout)
    for players in (2, 3, 6, 23):
        assert db.win_rate("AhKh", "2c7dJh", players) == pytest.approx(np.mean(per_runout ** (players - 1)), abs=1e-12)


# -- exact equity against independent enumeration -------------------------------


@pytest.mark.parametrize(("street", "count", "extra"), [("flop", 12, 0), ("turn", 88, 1), ("river", 100, 2)])
def test_exact_equity_equals_eval7_enumeration(db, stored_flops, street, count, extra):
    """200 random positions in all: every runout and opponent hand enumerated with eval7."""
    rng = np.random.default_rng({"flop": 1, "turn": 2, "river": 3}[street])
    for _ in range(count):
        hole, board = random_position(rng, stored_flops, extra)
        outcome = db.outcome(hole, board)
        expected = eval7_outcome(hole, board)
        assert (outcome.win, outcome.tie, outcome.loss) == pytest.approx(expected, abs=1e-9), (hole, board)


@pytest.mark.parametrize(
    ("hole", "board", "villain"),
    [
        ("AhKh", "2c7dJh", "QQ+,AKs"),
        ("9s8s", "AsTs9h", "0.5(AA),TT,99,AKs,KQo"),
        ("AcAd", "AhTcTh5d", "JJ+,AT,KTs"),
        ("7h6h", "2c7dJh5s9h", "22+,A2s+,KTo+"),
    ],
)
def test_equity_against_ranges_equals_eval7_enumeration(db, hole, board, villain):
    outcome = db.outcome(hole, board, villain=villain)
    assert (outcome.win, outcome.tie, outcome.loss) == pytest.approx(eval7_outcome(hole, board, villain), abs=1e-9)


def test_range_against_range_equals_weighted_hand_equities(db):
    """Hero's range equity is the deal-weighted mean of its hands' equities (each checked above)."""
    board, hero_range, villain_range = "AsTs9h", "QQ+,AKs,JTs", "TT+,AQ+"
    numerator = denominator = 0.0
    for a, b, w in parse_range(hero_range):
        hole = format_cards((a, b))
        if {a, b} & set(parse_cards(board)):
            continue
        outcome = eval7_outcome(hole, board, villain_range)
        deals = sum(
            wv for x, y, wv in parse_range(villain_range) if not {x, y} & set((a, b) + parse_cards(board))
        )
        numerator += w * deals * (outcome[0] + outcome[1] / 2)
        denominator += w * deals
    # each (hero, villain) deal has the same number of runouts, so weighting by villain hands is exact
    assert db.range_equity(hero_range, villain_range, board) == pytest.approx(numerator / denominator, abs=1e-9)


def test_every_hand_at_once_equals_one_at_a_time(db):
    board = "AhTcTh4c"
    equities = db.equities(board)
    win_rates = db.win_rates(board, players=4)
    names = matchdb.hand_order()
    rng = np.random.default_rng(5)
    for position in rng.choice(len(names), size=60, replace=False):
        hand = names[position]
        if set(parse_cards(hand)) & set(parse_cards(board)):
            assert np.isnan(equities.values[position]) and np.isnan(win_rates.values[position])
            continue
        assert equities.values[position] == pytest.approx(db.equity(hand, board), abs=1e-12)
        assert win_rates.values[position] == pytest.approx(db.win_rate(hand, board, players=4), abs=1e-12)
    assert np.isnan(equities.values).sum() == 1326 - 48 * 47 // 2  # hands touching the 4 board cards


def test_grid_orientation(db):
    table = db.equities("AhTcTh")
    grid = table.grid()

    def mean(hands):
        return np.nanmean([table.values[matchdb.hand_index(h)] for h in hands])

    suits = "cdhs"
    assert grid[0, 1] == pytest.approx(mean([f"A{s}K{s}" for s in suits]))  # AKs above the diagonal
    assert grid[1, 0] == pytest.approx(mean([f"A{s}K{t}" for s in suits for t in suits if s != t]))  # AKo below
    assert grid[0, 0] == pytest.approx(mean([f"A{s}A{t}" for s, t in combinations("cds", 2)]))  # Ah is on the board
    assert grid[12, 12] == pytest.approx(mean([f"2{s}2{t}" for s, t in combinations(suits, 2)]))


# -- invariants -----------------------------------------------------------------

_PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1), extra=st.sampled_from([0, 1, 2]))
def test_suit_renaming_and_card_order_do_not_change_answers(db, stored_flops, seed, extra):
    rng = np.random.default_rng(seed)
    hole, board = random_position(rng, stored_flops, extra)
    expected = (db.win_rate(hole, board, 3), db.outcome(hole, board))
    for perm in rng.choice(24, size=6, replace=False):
        renamed_hole = [int(CARD_MAP[perm, c]) for c in parse_cards(hole)]
        renamed_board = [int(CARD_MAP[perm, c]) for c in parse_cards(board)]
        flop, later = renamed_board[:3], renamed_board[3:]
        rng.shuffle(flop)  # the first three board cards are the flop; its order and the later cards' are free
        renamed_board = flop + later[::-1]
        got = (db.win_rate(renamed_hole[::-1], renamed_board, 3), db.outcome(renamed_hole, renamed_board))
        assert got[0] == pytest.approx(expected[0], abs=1e-12)
        assert (got[1].win, got[1].tie) == pytest.approx((expected[1].win, expected[1].tie), abs=1e-12)


@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1), extra=st.sampled_from([0, 1, 2]))
def test_outcomes_sum_to_one_and_hand_against_hand_is_antisymmetric(db, stored_flops, seed, extra):
    rng = np.random.default_rng(seed)
    hole, board = random_position(rng, stored_flops, extra)
    used = parse_cards(hole) + parse_cards(board)
    other = format_cards(rng.choice([c for c in range(52) if c not in used], size=2, replace=False))
    outcome = db.outcome(hole, board)
    assert outcome.win + outcome.tie + outcome.loss == pytest.approx(1.0, abs=1e-12)
    a_vs_b = db.equity(hole, board, villain=other)
    b_vs_a = db.equity(other, board, villain=hole)
    assert a_vs_b + b_vs_a == pytest.approx(1.0, abs=1e-12)
    # a range of one hand, a one-hot weight vector and range-against-range all agree
    one_hot = np.zeros(1326)
    one_hot[matchdb.hand_index(other)] = 1.0
    assert db.equity(hole, board, villain=one_hot) == pytest.approx(a_vs_b, abs=1e-12)
    assert db.range_equity(hole, other, board) == pytest.approx(a_vs_b, abs=1e-12)


# -- the database's guard rails ---------------------------------------------------


def test_missing_database(tmp_path):
    with pytest.raises(DatabaseNotFoundError, match="No database at"):
        matchdb.open(tmp_path / "nothing.zarr")


def test_other_format_version_is_refused(small_store, tmp_path):
    copy = tmp_path / "old.zarr"
    shutil.copytree(small_store, copy)
    meta = json.loads((copy / "zarr.json").read_text())
    meta["attributes"]["format_version"] = 0
    (copy / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(FormatVersionError, match="has format version 0; this matchdb reads version 2. Rebuild it"):
        matchdb.open(copy)


def test_flop_not_built_is_named_not_guessed(db):
    with pytest.raises(IncompleteDatabaseError, match=r"lacks table \d+ \(flop .*\); build it with"):
        db.win_rate("AhKh", "3c8d9s")


def test_cache_is_bounded(small_store, stored_flops):
    small = matchdb.open(small_store, cache_tables=1)
    for index in stored_flops:
        small.table(index)
    assert small._tables.chunks_held == 7 and len(small._tables) == 1
    for index in stored_flops:
        small.win_rate(*random_position(np.random.default_rng(index), [index], 0))
    assert small._tables.chunks_held <= 7 and len(small._tables) == 7
    with pytest.raises(matchdb.MatchdbError, match="cache_tables is 0"):
        matchdb.open(small_store, cache_tables=0)


def test_info_names_format_and_provenance(db):
    info = db.info()
    assert info["format_version"] == 2 and info["tables_built"] == 8 and info["tables"] == 1755
    assert {"created", "host", "numba", "zarr"} <= set(info["provenance"])


def test_villain_forms_agree(db):
    """Range text, a list of hands (text or Card pairs) and a weight vector name the same opponents."""
    text = db.equity("AhKh", "2c7dJh", villain="QsQd,AcKd")
    listed = db.equity("AhKh", "2c7dJh", villain=["QsQd", (matchdb.Card.parse("Ac"), matchdb.Card.parse("Kd"))])
    vector = np.zeros(1326)
    vector[[matchdb.hand_index("QsQd"), matchdb.hand_index("KdAc")]] = 1.0
    assert text == listed == db.equity("AhKh", "2c7dJh", villain=vector)
    assert db.range_equity(["AhKh"], "QsQd,AcKd", "2c7dJh") == pytest.approx(text, abs=1e-12)
    assert text == pytest.approx(eval7_outcome("AhKh", "2c7dJh", "QsQd,AcKd")[0] + eval7_outcome("AhKh", "2c7dJh", "QsQd,AcKd")[1] / 2, abs=1e-9)


@pytest.mark.parametrize(
    ("villain", "message"),
    [
        ([], "list of hands is empty"),
        (["Qs"], "are 1 cards; expected 2"),
        (["AhAh"], "repeat 'Ah'"),
        ([1.0, 2.0], "must have 1,326 entries"),
        (np.full(1326, -1.0), "finite and non-negative"),
        (np.full(1326, np.nan), "finite and non-negative"),
        (5, "neither text like 'QQ\\+,AKs', a list of hands, 1,326 weights nor an opponent model"),
        (np.zeros(1326), "No hand of the range"),
    ],
)
def test_bad_villains_in_the_api(db, villain, message):
    with pytest.raises(matchdb.MatchdbError, match=message):
        db.equity("AhKh", "2c7dJh", villain=villain)


def test_bad_arguments_in_the_api(db, small_store):
    for call, message in [
        (lambda: db.win_rate("AhKh", "2c7dJh", players="3"), "players '3' is out of range"),
        (lambda: db.win_rate("AhKh", "2c7dJh", players=True), "players True is out of range"),
        (lambda: db.win_rate(None, "2c7dJh"), "hole cards are missing"),
        (lambda: db.equity(None, "2c7dJh"), "hole cards are missing"),
        (lambda: db.win_rate("AhKh", None), "neither text nor a sequence"),
        (lambda: db.win_rate(["Ah", 99], "2c7dJh"), "Card id 99 is out of range"),
        (lambda: db.table(1755), "table index 1755 is out of range"),
        (lambda: db.range_equity("AA", "", "2c7dJh"), "is empty"),
        (lambda: db.range_equity("2c2d", "AA", "2c7dJh"), "No hand of the hero range"),
        (lambda: db.preflop(players=11), "players 11 is out of range; expected an integer 2..10"),
        (lambda: db.preflop(players=np.int64(12)), "players 12 is out of range"),
        (lambda: db.table(1.5), "table index 1.5 is not a whole number"),
        (lambda: db.table("3"), "table index .3. is not a whole number"),
        (lambda: db.table(None), "table index None is not a whole number"),
        (lambda: matchdb.open(123), "database path 123 is not a path"),
        (lambda: matchdb.open(small_store, cache_tables=-1), "cache_tables is -1"),
    ]:
        with pytest.raises(matchdb.MatchdbError, match=message):
            call()


def test_every_hand_against_an_impossible_range_is_an_error_not_nans(db):
    """equities() answered 1,326 NaNs where outcome() raised (issue 16)."""
    with pytest.raises(matchdb.RangeError, match="No hand of the range '2d2c' is possible on the board"):
        db.equities("2c7dJh", villain="2c2d")


@pytest.mark.parametrize("board", ["2c7dJh", "2c7dJh7s", "2c7dJhKs3d"])
def test_a_hero_range_against_one_range_is_the_heads_up_count(full_db, board):
    """Issue 21: a wide hero range against one range took seconds through the multiway enumeration; it is now the two
    ranges' rows compared, the same counts to the last bit."""
    from matchdb.equity.multiway import multiway_outcome

    for hero, villain in [("QQ+,AKs", "JJ-99"), ("50%", "QQ+"), ("AK,AQ", "AK,KQ")]:
        answer = full_db.multiway(hero, board, [villain])
        canon, columns, _ = full_db._frame(None, board)
        enumerated = multiway_outcome(full_db.table(canon.index), columns, full_db._weights(canon, hero),
                                      [full_db._weights(canon, villain)], method="exact")
        assert (answer.win, answer.tie, answer.loss, answer.equity) == pytest.approx(
            (enumerated.win, enumerated.tie, enumerated.loss, enumerated.equity), abs=1e-14)
        assert answer.exact and answer.player_equities == pytest.approx((answer.equity, 1 - answer.equity), abs=0)
        assert answer.equity == full_db.range_outcome(hero, villain, board).equity
