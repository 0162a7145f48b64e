import itertools

import numba
import numpy as np
import pytest

from matchdb.core import reference
from matchdb.core.evaluator import (
    FLUSH_VALUE,
    HAND_TYPES,
    STRAIGHT_TOP,
    _evaluate,
    evaluate,
    evaluate_many,
    hand_type,
)
from matchdb.errors import CardError


@pytest.mark.parametrize(
    ("hand", "value"),
    [
        ("AH QD 4S KH 8C", 0x000CBA62),
        ("4D JD 3D 4C AD", 0x0012C910),
        ("7C 6C 5C 4C 3D", 0x00450000),
        ("Ah 2c 3d 4s 5h", 0x00430000),  # the wheel is 5-high
        ("Ah 2h 3h 4h 5h", 0x00830000),  # steel wheel
        ("Ah Kh Qh Jh Th 9h 8h", 0x008C0000),
        ("2c 2d 2h 3c 3d 3h Ac", 0x00610000),  # two trips: the lower plays as the pair
        ("Ac Ad Kc Kd Qc Qd Jh", 0x002CBA00),  # three pairs: the third pair's rank is the kicker
        ("9c 9d 9h 9s Ac Ad Ah", 0x0077C000),
    ],
)
def test_contract_values(hand, value):
    assert evaluate(hand) == value
    assert reference.value(reference.cards(hand)) == value


def test_bad_hands():
    with pytest.raises(CardError, match="expected 5, 6 or 7"):
        evaluate("AhKh")
    with pytest.raises(CardError, match="repeat"):
        evaluate("AhAhKhQhJh")
    with pytest.raises(CardError, match="shape"):
        evaluate_many(np.zeros((3, 4), dtype=int))
    with pytest.raises(CardError, match="repeats a card"):
        evaluate_many(np.array([[0, 1, 2, 3, 3]]))


@numba.njit
def _category_counts_5(straight_top, flush_value):
    counts = np.zeros(9, dtype=np.int64)
    seen = np.zeros(1 << 24, dtype=np.bool_)
    hand = np.empty(5, dtype=np.int64)
    for a in range(52):
        hand[0] = a
        for b in range(a + 1, 52):
            hand[1] = b
            for c in range(b + 1, 52):
                hand[2] = c
                for d in range(c + 1, 52):
                    hand[3] = d
                    for e in range(d + 1, 52):
                        hand[4] = e
                        v = _evaluate(hand, straight_top, flush_value)
                        counts[v >> 20] += 1
                        seen[v] = True
    return counts, seen.sum()


@numba.njit
def _category_counts_of_suit_counts(suit_counts, weights, masks, first, straight_top, flush_value):
    """Counts by category of every 7-card hand holding ``suit_counts[v, s]`` cards of suit ``s``, times ``weights[v]``.

    ``masks[first[k]:first[k + 1]]`` are the 13-bit rank sets of ``k`` ranks. Every hand of a count vector is
    evaluated, its cards in ascending order (card = 13 * suit + rank).
    """
    counts = np.zeros(9, dtype=np.int64)
    hand = np.empty(7, dtype=np.int64)
    for v in range(suit_counts.shape[0]):
        n0, n1, n2, n3 = suit_counts[v, 0], suit_counts[v, 1], suit_counts[v, 2], suit_counts[v, 3]
        for i0 in range(first[n0], first[n0 + 1]):
            for i1 in range(first[n1], first[n1 + 1]):
                for i2 in range(first[n2], first[n2 + 1]):
                    for i3 in range(first[n3], first[n3 + 1]):
                        k = 0
                        for suit, mask in enumerate((masks[i0], masks[i1], masks[i2], masks[i3])):
                            for rank in range(13):
                                if mask >> rank & 1:
                                    hand[k] = 13 * suit + rank
                                    k += 1
                        counts[_evaluate(hand, straight_top, flush_value) >> 20] += weights[v]
    return counts


def _category_counts_7():
    """Counts by category of all 133,784,560 seven-card hands, each evaluated or stood for by a suit permutation.

    Permuting the suits maps hands to hands of the same category, one to one, and maps the hands with suit
    counts (n0, n1, n2, n3) onto those with the permuted counts. So every hand whose suit counts are in
    non-increasing order is evaluated and counted once for each distinct ordering of its counts (about 11 million
    hands evaluated instead of 134 million, the same counts to the last hand).
    """
    vectors = sorted({tuple(sorted(c, reverse=True)) for c in itertools.product(range(8), repeat=4) if sum(c) == 7})
    orderings = [len(set(itertools.permutations(v))) for v in vectors]
    by_size = [[sum(1 << r for r in ranks) for ranks in itertools.combinations(range(13), k)] for k in range(8)]
    masks = np.array([m for size in by_size for m in size], dtype=np.int64)
    first = np.cumsum([0] + [len(size) for size in by_size]).astype(np.int64)
    counts = _category_counts_of_suit_counts(np.array(vectors, dtype=np.int64), np.array(orderings, dtype=np.int64),
                                             masks, first, STRAIGHT_TOP, FLUSH_VALUE)
    assert sum(w * np.prod([len(by_size[n]) for n in v]) for v, w in zip(vectors, orderings, strict=True)) == 133_784_560
    return counts


def test_all_five_card_hands():
    counts, distinct = _category_counts_5(STRAIGHT_TOP, FLUSH_VALUE)
    assert distinct == 7462
    assert counts.tolist() == [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    assert counts.sum() == 2_598_960


def test_all_seven_card_hands():
    counts = _category_counts_7()
    assert counts.tolist() == [
        23_294_460,
        58_627_800,
        31_433_400,
        6_461_620,
        6_180_020,
        4_047_644,
        3_473_184,
        224_848,
        41_584,
    ]
    assert counts.sum() == 133_784_560


def test_hand_type_names():
    assert HAND_TYPES[hand_type(evaluate("9c 9d 9h 9s Ac"))] == "quads"
    assert len(HAND_TYPES) == 9


def test_orders_million_random_pairs_like_eval7():
    """One million random pairs of 7-card hands are ordered exactly as eval7 orders them."""
    eval7 = pytest.importorskip("eval7")
    rng = np.random.default_rng(20261121)
    n = 1_000_000
    deck = np.argsort(rng.random((2 * n, 52)), axis=1)[:, :7]
    ours = evaluate_many(deck)
    names = [reference.RANKS[c % 13] + reference.SUITS[c // 13] for c in range(52)]
    cards = [eval7.Card(name) for name in names]
    theirs = np.fromiter((eval7.evaluate([cards[c] for c in hand]) for hand in deck.tolist()), dtype=np.int64, count=2 * n)
    ours_order = np.sign(ours[0::2].astype(np.int64) - ours[1::2])
    theirs_order = np.sign(theirs[0::2] - theirs[1::2])
    assert (ours_order == theirs_order).all()
    # and the hand types agree
    type_names = {name.lower(): i for i, name in enumerate(HAND_TYPES)}
    sample = deck[:20_000].tolist()
    for hand, value in zip(sample, ours[:20_000].tolist(), strict=True):
        assert type_names[eval7.handtype(eval7.evaluate([cards[c] for c in hand])).lower()] == value >> 20


def test_matches_the_pure_python_twin_on_random_hands():
    rng = np.random.default_rng(5)
    for size in (5, 6, 7):
        hands = np.argsort(rng.random((3000, 52)), axis=1)[:, :size]
        ours = evaluate_many(hands)
        assert ours.tolist() == [reference.value(h) for h in hands.tolist()]


def test_every_pair_of_ranks_kicker_rules_against_twin():
    # all 6-card rank patterns with a fixed suit spread, exhaustive over a small space
    for ranks in itertools.combinations_with_replacement(range(13), 6):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        used = {}
        hand = []
        for r in ranks:
            suit = used.get(r, 0)
            used[r] = suit + 1
            hand.append(((suit + r) % 4) * 13 + r)
        assert evaluate(hand) == reference.value(hand)
