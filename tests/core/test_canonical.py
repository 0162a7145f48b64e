from collections import Counter
from itertools import combinations, permutations

import numpy as np
import pytest

from matchdb.core.canonical import (
    CANONICAL_FLOPS,
    CARD_MAP,
    N_FLOPS,
    ORBIT_SIZES,
    PERMUTATIONS,
    canonical_index,
    canonicalize,
    flop_index,
    rename,
)
from matchdb.core.cards import format_cards, parse_cards
from matchdb.errors import BoardError, CardError


def _brute_canonical(flop):
    return min(tuple(sorted(p[c // 13] * 13 + c % 13 for c in flop)) for p in permutations(range(4)))


def test_there_are_1755_canonical_flops_in_contract_order():
    assert N_FLOPS == 1755 == len(CANONICAL_FLOPS)
    keys = [tuple(f) for f in CANONICAL_FLOPS.tolist()]
    assert keys == sorted(keys) and all(a < b < c for a, b, c in keys)
    assert Counter(ORBIT_SIZES.tolist()) == {4: 299, 12: 1170, 24: 286}
    assert ORBIT_SIZES.sum() == 22_100


def test_every_flop_maps_to_its_brute_force_representative():
    representatives = {tuple(f): i for i, f in enumerate(CANONICAL_FLOPS.tolist())}
    seen = Counter()
    for flop in combinations(range(52), 3):
        index, perm = canonical_index(flop)
        expected = _brute_canonical(flop)
        assert representatives[expected] == index
        assert tuple(sorted(rename(flop, perm))) == expected
        seen[index] += 1
    assert [seen[i] for i in range(N_FLOPS)] == ORBIT_SIZES.tolist()


def test_the_shipped_flops_and_the_per_flop_renaming_match_the_vectorised_tables():
    """The flops the package reads at import (``core/data/canonical_flops.bin``) are what ``_build_tables`` computes,
    and the renaming computed per flop is the tables' first one, for flops in every card order."""
    from matchdb.core.canonical import _build_tables

    flops, orbits, index_lookup, perm_lookup = _build_tables()
    assert np.array_equal(flops, CANONICAL_FLOPS) and np.array_equal(orbits, ORBIT_SIZES)
    for flop in list(combinations(range(52), 3))[::7]:
        for ordered in permutations(flop):
            assert canonical_index(ordered) == (index_lookup[ordered], perm_lookup[ordered])


def test_lookup_ignores_card_order():
    for flop in [(0, 14, 40), (51, 3, 17)]:
        results = {canonical_index(p) for p in permutations(flop)}
        assert len({r[0] for r in results}) == 1


def test_card_map_is_a_suit_renaming():
    assert PERMUTATIONS.shape == (24, 4) and CARD_MAP.shape == (24, 52)
    for p in range(24):
        assert sorted(CARD_MAP[p].tolist()) == list(range(52))
        assert (CARD_MAP[p] % 13 == np.arange(52) % 13).all()


def test_canonicalize_carries_every_card_through_one_renaming():
    c = canonicalize("Ah Tc Th 2s 3d", hole="AcAd")
    assert c.index == flop_index("AhTcTh")
    assert tuple(sorted(c.flop)) == tuple(CANONICAL_FLOPS[c.index].tolist())
    original = parse_cards("AhTcTh") + parse_cards("2s3d") + parse_cards("AcAd")
    assert c.extra == rename(parse_cards("2s3d"), c.perm)
    assert c.hole == rename(parse_cards("AcAd"), c.perm)
    assert format_cards(sorted(c.flop)) == format_cards(sorted(rename(parse_cards("AhTcTh"), c.perm)))
    assert len(set(rename(original, c.perm))) == 7


@pytest.mark.parametrize(
    ("board", "hole", "error", "fragment"),
    [
        ("AhKh", "", BoardError, "expected 3, 4 or 5"),
        ("AhKhQhJhTh9h", "", BoardError, "expected 3, 4 or 5"),
        ("", "", BoardError, "expected 3, 4 or 5"),
        ("AhKhQh", "AhKd", CardError, "share 'Ah'"),
        ("AhKhQhAh", "", CardError, "repeat 'Ah'"),
    ],
)
def test_canonicalize_rejects_impossible_boards(board, hole, error, fragment):
    with pytest.raises(error, match=fragment):
        canonicalize(board, hole=hole)
