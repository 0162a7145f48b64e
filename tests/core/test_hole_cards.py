"""Hand order, starting-hand classes and player counts: one definition each."""

import numpy as np
import pytest

from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.hole_cards import (
    CLASS_OF_HAND,
    CLASSES,
    HAND_HIGH,
    HAND_LOW,
    N_HANDS,
    check_players,
    class_index,
    combos,
    hand_class,
    hand_index,
    hand_order,
    hand_positions,
)
from matchdb.errors import CardError, MatchdbError


def test_hand_order_lists_every_hand_once_high_rank_first():
    names = hand_order()
    assert len(names) == len(set(names)) == N_HANDS == 52 * 51 // 2
    assert all("23456789TJQKA".index(n[0]) >= "23456789TJQKA".index(n[2]) for n in names)
    assert (HAND_HIGH > HAND_LOW).all()
    for position in (0, 700, 1325):
        assert hand_index(names[position]) == position == hand_index(names[position][2:] + names[position][:2])
    assert (hand_positions(HAND_LOW, HAND_HIGH) == np.arange(N_HANDS)).all()
    with pytest.raises(CardError, match="expected 2"):
        hand_index("AhKhQh")


def test_classes_hold_their_combinations():
    assert len(CLASSES) == 169 and CLASSES[:3] == ("AA", "AKs", "AKo")
    counts = np.bincount(CLASS_OF_HAND, minlength=169)
    assert [int(counts[class_index(name)]) for name in CLASSES] == [combos(name) for name in CLASSES]
    assert sum(combos(name) for name in CLASSES) == N_HANDS
    assert CLASSES[hand_class(*parse_cards("7c2d"))] == "72o" and CLASSES[hand_class(*parse_cards("2s7s"))] == "72s"
    assert format_cards((HAND_HIGH[0], HAND_LOW[0])) == "3c2c"
    with pytest.raises(MatchdbError, match="not a class like"):
        class_index("AKx")


@pytest.mark.parametrize("bad", [1, 24, True, 2.0, "3", None])
def test_player_counts_are_whole_numbers_in_range(bad):
    with pytest.raises(MatchdbError, match=r"is out of range; expected an integer 2\.\.23"):
        check_players(bad)


def test_player_counts_accept_numpy_integers():
    assert check_players(np.int64(3)) == 3 and check_players(10, high=10) == 10
