"""The compiled interface (matchdb.equity.kernels): its structures, and its kernels called directly give what the
checked functions give (those are checked against independent references in test_multiway.py)."""

from __future__ import annotations

import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.core.pairs import N_PAIRS, PAIR_INDEX, board_columns, local_index, pair_row
from matchdb.core.table import match_table
from matchdb.equity import kernels
from matchdb.equity.kernels import CARDS, Opponents, Question, board_masks
from matchdb.equity.multiway import multiway_outcome

FLOP = parse_cards("KcQh5c")


@pytest.fixture(scope="module")
def table():
    return match_table(FLOP)


def test_cards_are_the_rows_of_the_frame():
    rows = np.arange(N_PAIRS)
    assert (CARDS.row_of[CARDS.low, CARDS.high] == rows).all()
    assert (CARDS.row_of == PAIR_INDEX).all()
    assert (CARDS.masks == CARDS.bits[CARDS.low] | CARDS.bits[CARDS.high]).all()
    assert not any(array.flags.writeable for array in CARDS)


def test_question_of_takes_the_known_hands_cards_out():
    hero = pair_row(FLOP, parse_cards("KdQd"))
    known = [pair_row(FLOP, parse_cards(h)) for h in ("JcTc", "5h5s")]
    q = Question.of(np.zeros((1, N_PAIRS), dtype=np.uint16), board_masks([0]), hero, known)
    assert q.n_free == 49 - 2 - 4
    assert bin(int(q.free)).count("1") == 49 - 6
    assert int(q.free) & int(CARDS.masks[hero]) == 0


@pytest.mark.parametrize("board", ["", "8d", "8d2s"])
def test_exact_hero_with_known_and_ranged_opponents_equals_multiway_outcome(table, board):
    """One known hand and two ranges (exact counts), on the flop, a turn and a river: the same figures, bit for bit."""
    local = local_index(FLOP)
    cols_index = board_columns([int(local[c]) for c in parse_cards(board)])
    hero = pair_row(FLOP, parse_cards("KdQd"))
    known = pair_row(FLOP, parse_cards("JcTc"))
    rng = np.random.default_rng(1)
    ranges = [np.where(rng.random(N_PAIRS) < 0.3, rng.random(N_PAIRS), 0.0) for _ in range(2)]
    opponents = [np.eye(N_PAIRS)[known], *ranges]
    expected = multiway_outcome(table, cols_index, hero, opponents, method="exact")
    cols = np.ascontiguousarray(table[:, cols_index].T)
    question = Question.of(cols, board_masks(cols_index), hero, [known])
    result = np.zeros(4)
    order = sorted(ranges, key=np.count_nonzero)  # the contract: the sparsest first
    kernels.exact_hero(question, Opponents.counted(2, np.array(order)), CARDS, result)
    assert result[2] / result[3] == expected.equity
    assert result[0] / result[3] == expected.win


@pytest.mark.parametrize("board", ["", "8d", "8d2s"])
def test_exact_hero_counts_the_same_on_either_memory_order(table, board):
    """One or two opponents, random or one 0/1 range (and a range beside a random hand): ``cols`` laid out rows
    first (a decoded table's transpose, the sweep over the rows) gives what the columns-first copy gives
    (the per-column counts), win, tie, equity and deals equal to the last bit; so does heads_up_hero's
    equity against one random hand."""
    local = local_index(FLOP)
    cols_index = board_columns([int(local[c]) for c in parse_cards(board)])
    rng = np.random.default_rng(2)
    in_range = (rng.random(N_PAIRS) < 0.4).astype(np.float64)
    ones = np.ones(N_PAIRS)
    cases = [Opponents.counted(1), Opponents.counted(2), Opponents.counted(1, in_range[None]),
             Opponents.counted(2, np.array([in_range, in_range])), Opponents.counted(2, np.array([in_range, ones]))]
    rows_first = np.ascontiguousarray(table[:, cols_index]).T  # a decoded table's columns, transposed: no copy
    columns_first = np.ascontiguousarray(rows_first)
    assert len(cols_index) == 1 or rows_first.strides[0] < rows_first.strides[1]  # (one column: either way)
    for hand in ("KdQd", "7s6s", "2h2d"):
        hero = pair_row(FLOP, parse_cards(hand))
        for opponents in cases:
            results = []
            for cols in (rows_first, columns_first):
                result = np.zeros(4)
                kernels.exact_hero(Question.of(cols, board_masks(cols_index), hero), opponents, CARDS, result)
                results.append(result)
            assert results[0].tolist() == results[1].tolist(), (hand, opponents.k_exact)
            assert results[0][3] > 0
            if opponents.k_exact == 1 and opponents.exact_random:  # from W levels alone: equity and deals
                for cols in (rows_first, columns_first):
                    alone = np.zeros(4)
                    kernels.heads_up_hero(Question.of(cols, board_masks(cols_index), hero), CARDS, alone)
                    assert alone.tolist() == [0.0, 0.0, *results[0][2:].tolist()]


def test_known_all_gives_every_players_equity(table):
    rows = np.array([pair_row(FLOP, parse_cards(h)) for h in ("KdQd", "JcTc", "5h5s")], dtype=np.int64)
    result = np.zeros((3, 4))
    kernels.known_all(np.ascontiguousarray(table.T), rows, result)
    expected = multiway_outcome(table, board_columns(()), int(rows[0]), [np.eye(N_PAIRS)[r] for r in rows[1:]])
    assert tuple(result[:, 2] / result[0, 3]) == expected.players
    assert [round(100 * p, 4) for p in expected.players] == [17.2757, 44.186, 38.5382]


def test_strength_arrays_bundle_what_the_strength_kernel_reads():
    """The strength kernel on one decoded table in one slot: its heads-up and exact kinds against the equity
    kernels' exact heads-up count (exact_hero with one random opponent)."""
    from matchdb.core.canonical import CANONICAL_FLOPS, canonical_index

    index = 700
    flop = tuple(int(c) for c in CANONICAL_FLOPS[index])  # 4c5c7c, its own frame: real cards are its table's
    assert canonical_index(flop) == (index, 0)
    table = match_table(flop)
    slot_of = np.full(1755, -1, dtype=np.int64)
    slot_of[index] = 0
    arrays = kernels.StrengthArrays.of(np.zeros((169, 11)), table[None], slot_of)
    board = np.zeros(5, dtype=np.int64)
    board[:3] = flop
    a, b = parse_cards("AhTd")
    columns = np.empty(N_PAIRS, dtype=np.int64)
    flags = np.zeros(10, dtype=np.int64)
    args = (a, b, board, 3, 2, 100, kernels.UNIFORM, 0.0, 0, flags, arrays, columns)
    headsup = kernels.strength(kernels.HEADSUP, *args)
    exact = kernels.strength(kernels.EXACT, *args)
    hero = pair_row(flop, (a, b))
    result = np.zeros(4)
    kernels.exact_hero(Question.of(np.ascontiguousarray(table.T), board_masks(board_columns(())), hero),
                       Opponents.counted(1), CARDS, result)
    assert headsup == pytest.approx(result[2] / result[3], abs=1e-14)
    assert exact == pytest.approx(headsup, abs=1e-14)
    slot_of[index] = -1  # the contract: -1.0 when the flop's table is not loaded
    assert kernels.strength(kernels.NAIVE, *args) == -1.0
