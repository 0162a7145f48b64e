"""Heads-up preflop matchups (matchdb.equity.matchups): the column weights, the classes, the table from the match tables."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP, canonical_index
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, hand_index
from matchdb.core.pairs import PAIR_INDEX, local_index
from matchdb.core.ranges import range_weights
from matchdb.equity.matchups import (
    BOARDS,
    EnumeratedMatchups,
    column_weights,
    disjoint_weight,
    enumerate_classes,
    heads_up_counts,
    heads_up_result,
    heads_up_score,
    matchup_classes,
)
from tests.equity.test_enumeration import reference_counts


def test_every_board_counts_twelve_times_over_its_splits():
    """For random 5-card boards, the weights of the ten (flop, turn and river) splits, each read on its canonical table, add to 12."""
    rng = np.random.default_rng(3)
    weights = {}
    for _ in range(400):
        board = [int(c) for c in rng.choice(52, size=5, replace=False)]
        total = 0
        for flop in combinations(board, 3):
            index, perm = canonical_index(sorted(flop))
            if index not in weights:
                weights[index] = column_weights(CANONICAL_FLOPS[index])
            local = local_index(CANONICAL_FLOPS[index])
            t, r = (CARD_MAP[perm, c] for c in board if c not in flop)
            total += weights[index][PAIR_INDEX[local[t], local[r]]]
        assert total == 12, board


def test_classes_cover_every_ordered_matchup_once():
    classes = matchup_classes()
    assert len(classes.orbit) == 93769 and classes.orbit.sum() == 1326 * 1225  # ordered card-disjoint pairs
    assert (classes.class_of[np.arange(1326), np.arange(1326)] == -1).all()
    # a class's members are renamings of one another
    h, v = hand_index("AhKh"), hand_index("QsQd")
    k = classes.class_of[h, v]
    assert classes.class_of[hand_index("AcKc"), hand_index("QdQh")] == k
    assert classes.class_of[hand_index("AcKc"), hand_index("QdQc")] != k  # the queen of the ace's suit: another class
    assert disjoint_weight(np.ones(1326), np.ones(1326)) == 1326 * 1225


def test_enumerated_classes_equal_the_reference():
    classes = matchup_classes()
    rng = np.random.default_rng(5)
    chosen = rng.choice(len(classes.orbit), size=3, replace=False)
    win, tie = enumerate_classes(chosen)
    for k, w, t in zip(chosen, win, tie, strict=True):
        h, v = classes.hands[k]
        want = reference_counts([(int(HAND_HIGH[h]), int(HAND_LOW[h])), (int(HAND_HIGH[v]), int(HAND_LOW[v]))])
        assert (w, t) == (want[0, 0], want[0, 1])


def test_the_table_from_the_match_tables(full_matchups):
    """Every class from the tables equals its enumeration on a sample; both orders of a matchup add up to every board."""
    classes = matchup_classes()
    rng = np.random.default_rng(11)
    chosen = rng.choice(len(classes.orbit), size=60, replace=False)
    win, tie = enumerate_classes(chosen)
    assert np.array_equal(full_matchups.win[chosen], win) and np.array_equal(full_matchups.tie[chosen], tie)
    wins, ties = full_matchups.matrices
    on = classes.class_of >= 0
    assert ((wins + wins.T + ties)[on] == BOARDS).all() and (ties == ties.T).all()
    assert full_matchups.provenance["method"] == "match tables"


def test_range_sums_dense_and_pair_by_pair_agree(full_matchups):
    for hero, villain in (("QQ+,AKs", "JJ,TT,99"), ("22+,A2+,K9+", "random"), ("random", "random"), ("0.5(AA),KK", "AKs,0.25(QQ)")):
        h, v = range_weights(hero), range_weights(villain)
        win, tie, loss = heads_up_counts(full_matchups, h, v)
        score, deals = heads_up_score(full_matchups, h, v)
        assert win + tie + loss == pytest.approx(deals, rel=1e-12)
        assert score / deals == pytest.approx((win + tie / 2) / (win + tie + loss), abs=1e-12)
        counted_score, ties, counted_deals = heads_up_result(full_matchups, h, v)
        assert (counted_score, counted_deals) == (score, deals)  # the same numbers, to the last bit
        assert ties / deals == pytest.approx(tie / (win + tie + loss), abs=1e-12)
    # an enumerated source gives the same figures
    h, v = range_weights("AKs"), range_weights("QQ")
    assert heads_up_counts(EnumeratedMatchups(), h, v) == pytest.approx(heads_up_counts(full_matchups, h, v), abs=0)
