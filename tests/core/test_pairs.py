"""The table frame: pairs, collision mask, local card order, board columns and their checks."""

import numpy as np
import pytest

from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.pairs import (
    COLLISION,
    MAX_W,
    N_LEVELS,
    N_PAIRS,
    PAIR_HIGH,
    PAIR_INDEX,
    PAIR_LOW,
    PAIRS,
    ROWS_OF_CARD,
    SENTINEL,
    board_columns,
    check_columns,
    local_index,
    pair_row,
    remaining_cards,
)
from matchdb.errors import BoardError, CardError, MatchdbError


def test_pairs_and_collision_mask():
    assert PAIRS.shape == (N_PAIRS, 2) == (1176, 2)
    assert (PAIRS[:, 0] < PAIRS[:, 1]).all()
    assert len({tuple(p) for p in PAIRS.tolist()}) == 1176
    assert (PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] == np.arange(1176)).all()
    assert (COLLISION.sum(axis=1) == 95).all()
    assert COLLISION.sum() == 111_720
    assert (COLLISION == COLLISION.T).all() and COLLISION.diagonal().all()


def test_remaining_cards_local_order():
    flop = parse_cards("2c7dJh")
    rest = remaining_cards(flop)
    assert len(rest) == 49 and not set(rest.tolist()) & set(flop)
    # rank-major, with the flop's ranks (2, 7, J) last
    assert format_cards(rest[:4]) == "3c3d3h3s"
    assert format_cards(rest[-9:]) == "2d2h2s7c7h7sJcJdJs"
    lookup = local_index(flop)
    assert (lookup[rest] == np.arange(49)).all() and (lookup[list(flop)] == -1).all()


def test_pair_row_checks_its_cards():
    flop = parse_cards("2c7dJh")
    row = pair_row(flop, parse_cards("AhKh"))
    assert sorted(remaining_cards(flop)[PAIRS[row]].tolist()) == sorted(parse_cards("AhKh"))
    with pytest.raises(CardError, match="off the flop"):
        pair_row(flop, parse_cards("2cKh"))


def test_contract_constants():
    assert (SENTINEL, MAX_W, N_LEVELS) == (65535, 2 * (1081 - 1), 2161)
    assert (PAIRS[:, 0] == PAIR_LOW).all() and (PAIRS[:, 1] == PAIR_HIGH).all() and PAIR_LOW.dtype == np.int64
    for card in (0, 17, 48):
        rows = ROWS_OF_CARD[card]
        assert len(rows) == 48 and all(card in PAIRS[row] for row in rows)


def test_board_columns_hold_the_turn_and_river():
    assert (board_columns(()) == np.arange(N_PAIRS)).all()
    turn = board_columns((5,))
    assert len(turn) == 48 and all(5 in PAIRS[c] for c in turn)
    river = board_columns((5, 9))
    assert len(river) == 1 and sorted(PAIRS[river[0]].tolist()) == [5, 9]
    for bad in ((1, 2, 3), (49,), (4, 4)):
        with pytest.raises(BoardError):
            board_columns(bad)


def test_check_columns():
    known = board_columns((7,))
    assert check_columns(known) is known  # the per-query path pays nothing
    assert check_columns(np.array([3, 1], dtype=np.uint16)).tolist() == [3, 1]
    for bad in ([], [0, 0], [-1], [1176], [[1, 2]], [0.5], "ab"):
        with pytest.raises(MatchdbError, match="are not distinct column indices 0..1175"):
            check_columns(bad)
