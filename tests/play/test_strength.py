"""Hand strengths for bots, each checked against the query layer or a published figure."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from matchdb.core.cards import format_cards
from matchdb.errors import MatchdbError
from matchdb.play.strength import (
    LazyTables,
    StrengthError,
    StrengthSource,
    decode_tables,
    frame,
    open_decoded,
    seed_kernels,
)

#: A folder of every table decoded (``matchdb arena --decode --tables DIR``, 4.85 GB), named by the environment.
DECODED = Path(os.environ.get("MATCHDB_ARENA_TABLES", "")) if os.environ.get("MATCHDB_ARENA_TABLES") else None


def random_cases(count: int, seed: int, boards=(3, 4, 5)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        cards = rng.choice(52, size=7, replace=False)
        yield format_cards(cards[:2]), format_cards(cards[2 : 2 + int(rng.choice(boards))]), int(rng.integers(2, 11))


def test_naive_win_rate_matches_the_query_layer(db, source):
    for hole, board, players in random_cases(90, seed=1):
        assert source.naive(hole, board, players) == pytest.approx(db.win_rate(hole, board, players), abs=1e-12)


def test_headsup_equity_matches_the_query_layer(db, source):
    for hole, board, _ in random_cases(24, seed=2):
        assert source.headsup(hole, board) == pytest.approx(db.equity(hole, board), abs=1e-12)


def test_preflop_strengths_are_the_preflop_table(db, source):
    table = db.preflop()
    ranks = "23456789TJQKA"
    assert len(table.classes) == 169
    for i, name in enumerate(table.classes):
        high, low = ranks.index(name[0]), ranks.index(name[1])
        hole = [high + 13 * 0, low + 13 * (0 if name.endswith("s") else 1)]
        assert source.headsup(hole) == table.equity[i]
        for n in (2, 6, 10):
            assert source.naive(hole, (), n) == table.win_rate[n][i]
    assert round(source.headsup("AhAd"), 4) == 0.8520  # AA against a random hand: 85.2 % (PokerStove)


def test_monte_carlo_converges_to_the_exact_three_player_equity(source):
    # AhKh against two random hands on 2c7dJh: 0.3758613384290151 exactly (OMPEval; docs/testing.md)
    seed_kernels(3)
    samples = 40_000
    estimate = source.montecarlo("AhKh", "2c7dJh", players=3, samples=samples, model="uniform")
    se = (0.3759 * 0.6241 / samples) ** 0.5
    assert abs(estimate - 0.3758613384290151) < 4 * se


def test_monte_carlo_heads_up_converges_to_the_exact_equity(db, source):
    seed_kernels(4)
    samples = 40_000
    for hole, board in (("AhKh", "2c7dJh5s"), ("9c9d", "Ts8s2h"), ("7h2c", "AsKdQh4c9d")):
        exact = db.equity(hole, board)
        estimate = source.montecarlo(hole, board, players=2, samples=samples, model="uniform")
        assert abs(estimate - exact) < 4 * (exact * (1 - exact) / samples) ** 0.5 + 1e-9


def test_opponent_models(source):
    args = ("8h8d", "Kc7s2d", 3)
    seed_kernels(5)
    uniform = source.montecarlo(*args, samples=20_000, model="uniform")
    for model in ("dropout", "steered"):  # a threshold of 0 changes nothing, draw for draw
        seed_kernels(5)
        assert source.montecarlo(*args, samples=20_000, model=model, threshold=0.0, redraws=3) == uniform
    seed_kernels(6)
    steered = source.montecarlo(*args, samples=20_000, model="steered", threshold=0.6, redraws=5)
    seed_kernels(7)
    dropout = source.montecarlo(*args, samples=20_000, model="dropout", threshold=0.6)
    se = 0.5 / 20_000**0.5
    assert steered < uniform - 10 * se  # opponents steered to strong hands beat 88 more often
    assert dropout > uniform + 10 * se  # opponents who drop out with weak hands leave 88 fewer to beat
    seed_kernels(8)
    flagged_none = source.montecarlo(*args, samples=20_000, model="steered", threshold=0.6, redraws=5, flags=[0, 0])
    assert abs(flagged_none - uniform) < 6 * se  # the model applies only to flagged opponents


def test_lazy_tables_evict_the_least_recently_used(db):
    source = StrengthSource(db, capacity=2)
    boards = ["2c7dJh", "AhKhQh", "5s5d9c"]
    expected = [db.win_rate("AsAd" if i != 1 else "2s2d", b) for i, b in enumerate(boards)]
    for _ in range(2):
        for i, board in enumerate(boards):
            assert source.naive("AsAd" if i != 1 else "2s2d", board) == pytest.approx(expected[i], abs=1e-12)
    assert source.tables.decoded == 6  # three tables cycling through two slots: every use decodes
    assert (source.tables.slot_of >= 0).sum() == 2


def test_decoded_tables_round_trip(tmp_path, monkeypatch, db):
    import matchdb.play.strength as strength

    monkeypatch.setattr(strength, "N_FLOPS", 3)  # three tables (8.3 MB) stand for all 1,755
    folder = decode_tables(db, tmp_path / "decoded")
    tables = open_decoded(folder)
    assert tables.array.shape == (3, 1176, 1176) and not tables.array_view.flags.writeable
    for index in range(3):
        assert (tables.array[index] == db.table(index)).all()
    assert json.loads((folder / "tables.json").read_text())["tables"] == 3
    assert not (folder / "tables.npy.partial").exists()


@pytest.mark.skipif(DECODED is None or not (DECODED / "tables.npy").is_file(),
                    reason="needs every table decoded (4.85 GB): set MATCHDB_ARENA_TABLES to a folder made by "
                    "'matchdb arena --decode --tables DIR'; the three-table test above covers the format")
def test_decoded_and_lazy_tables_agree(db, source):
    decoded = StrengthSource(db, tables=open_decoded(DECODED))
    for hole, board, players in random_cases(40, seed=9):
        assert decoded.naive(hole, board, players) == source.naive(hole, board, players)


def test_frame_lookups_are_consistent():
    flop_table, flop_perm, card_map, local, pair_index, turn_columns = frame()
    assert flop_table.max() == 1754 and (flop_table >= 0).sum() == 22_100 * 6
    assert (local >= 0).sum(axis=1).tolist() == [49] * 1755
    assert not flop_table.flags.writeable


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.strength("exactly", "AhKh"), "The strength kind 'exactly' is unknown; expected one of naive, headsup, montecarlo, exact."),
        (lambda s: s.naive("AhKh", "2c7d"), "The board '2c7d' has 2 cards; expected 0, 3, 4 or 5."),
        (lambda s: s.naive("AhKh", "AhQd2c"), "The hole cards 'AhKh' share a card with the board 'AhQd2c'."),
        (lambda s: s.naive("AhKh", "", 11), "The number of players 11 is out of range; expected 1..10."),
        (lambda s: s.montecarlo("AhKh", "2c7dJh", 3, samples=0), "The sample count 0 is not a whole number 1..10,000,000."),
        (lambda s: s.montecarlo("AhKh", "2c7dJh", 3, flags=[1]), "The opponent flags [1] are 1; expected one per opponent (2)."),
        (lambda s: s.montecarlo("AhKh", "2c7dJh", 3, model="sticky"), "The opponent model 'sticky' is unknown; expected one of uniform, dropout, steered."),
    ],
)
def test_strength_errors_say_what_was_expected(source, call, message):
    with pytest.raises(MatchdbError) as caught:
        call(source)
    assert str(caught.value) == message


def test_lazy_capacity_and_missing_decoded_tables():
    with pytest.raises(StrengthError, match="The table capacity 0 is not a whole number of at least 1."):
        LazyTables(None, capacity=0)
    with pytest.raises(StrengthError, match="No decoded tables at"):
        open_decoded("/nonexistent")
    with pytest.raises(StrengthError, match=r"The seed -1 is not a whole number 0..2\*\*32-1."):
        seed_kernels(-1)


# -- the exact strength: equal to the equity package's exact multiway counts (an independent implementation) --


def dropout_weights(source, threshold=0.6328):
    """West's drop-out range as 1,326 weights: hands whose class's preflop heads-up equity reaches ``threshold``."""
    from matchdb.core.cards import parse_cards
    from matchdb.core.hole_cards import hand_order
    from matchdb.play.strength import class_of

    classes = class_of()
    return np.array([float(source.preflop[classes[a, b], 0] >= threshold)
                     for a, b in (parse_cards(h) for h in hand_order())])


def test_exact_strength_equals_exact_multiway_equity(db, source):
    """Uniform opponents and drop-out ranges, one and two opponents, flop, turn and river: equal to db.multiway."""
    weights = dropout_weights(source)
    cases = list(random_cases(18, seed=5))
    for k, (hole, board, _) in enumerate(cases):
        players = 2 + k % 2
        mine = source.strength("exact", hole, board, players)
        assert mine == pytest.approx(db.multiway(hole, board, players - 1, method="exact").equity, abs=1e-12)
        ranged = source.strength("exact", hole, board, players, model="dropout", threshold=0.6328)
        reference = db.multiway(hole, board, [weights] * (players - 1), method="exact").equity
        assert ranged == pytest.approx(reference, abs=1e-12), (hole, board, players)
    # one opponent from the range, one uniform (the flags say which entered the pot voluntarily)
    hole, board = "KhJd", "4cJh6hQd"
    mixed = source.strength("exact", hole, board, 3, model="dropout", threshold=0.6328, flags=[1, 0])
    reference = db.multiway(hole, board, [weights, "random"], method="exact").equity
    assert mixed == pytest.approx(reference, abs=1e-12)


def test_exact_strength_samples_beyond_two_opponents(db, source):
    """Three opponents: sampled (EXACT_SAMPLES deals), within four standard errors of the exact count."""
    from matchdb.play.strength import EXACT_SAMPLES

    seed_kernels(3)
    for hole, board in (("AhKh", "2c7dJh"), ("9s8s", "7h6d2cKs")):
        exact = db.multiway(hole, board, 3, method="exact").equity
        sampled = source.strength("exact", hole, board, 4)
        assert abs(sampled - exact) < 4 * (exact * (1 - exact) / EXACT_SAMPLES) ** 0.5 + 1e-3


def test_exact_strength_preflop_reads_the_preflop_table(source):
    assert source.strength("exact", "AsAd", "", 2) == source.headsup("AsAd")  # 0.852, exact heads-up
    assert source.strength("exact", "AsAd", "", 4) == source.naive("AsAd", "", 4)


def test_exact_strength_is_the_bots_old_count_to_the_last_bit(source):
    """The heads-up and exact kinds (1-2 opponents, random, drop-out ranges, mixed) now count on the equity kernels;
    the bots' decisions compare them with thresholds, so they must equal the old own count bit for bit
    (tests/play/strength_oracle.py, the kernels as they were)."""
    from matchdb.equity import kernels
    from tests.play.strength_oracle import exact_strength

    arrays_columns = np.empty(1176, dtype=np.int64)
    flags = np.zeros(10, dtype=np.int64)
    cases = [(kernels.HEADSUP, 2, kernels.UNIFORM, (0, 0)), (kernels.EXACT, 2, kernels.UNIFORM, (0, 0)),
             (kernels.EXACT, 3, kernels.UNIFORM, (0, 0)), (kernels.EXACT, 2, kernels.DROPOUT, (1, 0)),
             (kernels.EXACT, 3, kernels.DROPOUT, (1, 1)), (kernels.EXACT, 3, kernels.DROPOUT, (0, 1)),
             (kernels.EXACT, 3, kernels.DROPOUT, (0, 0))]
    rng = np.random.default_rng(31)
    for k in range(21):
        cards = rng.choice(52, size=7, replace=False)
        n_board = 3 + k % 3
        board = np.zeros(5, dtype=np.int64)
        board[:n_board] = cards[2 : 2 + n_board]
        source.tables.ensure(source.table_index(format_cards(cards[2:5])))
        for kind, players, model, case_flags in cases:
            values = []
            for count in (kernels.strength, exact_strength):
                flags[:2] = case_flags
                arrays = source.arrays()
                if count is exact_strength:
                    values.append(count(kind, cards[0], cards[1], board, n_board, players, model, 0.6328, flags,
                                        arrays, arrays_columns))
                else:
                    values.append(count(kind, cards[0], cards[1], board, n_board, players, 1, model, 0.6328, 0, flags,
                                        arrays, arrays_columns))
            assert values[0] == values[1], (format_cards(cards[:2]), format_cards(board[:n_board]), kind, players,
                                            case_flags)

