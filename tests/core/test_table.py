import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchdb.core import reference
from matchdb.core.canonical import CARD_MAP, canonical_index
from matchdb.core.pairs import COLLISION, MAX_W, SENTINEL, board_columns, pair_row
from matchdb.core.table import match_table
from matchdb.equity.heads_up import hand_vs_weights
from matchdb.errors import CardError


@pytest.mark.parametrize("flop", ["AhKhQh", "7c7d2s", "2c7dJh"])  # monotone, paired, rainbow
def test_kernel_equals_pure_python_twin(flop, table_cache):
    twin = np.array(reference.match_table(reference.cards(flop)), dtype=np.uint16)
    assert (table_cache(flop) == twin).all()


@pytest.mark.parametrize("flop", ["AhKhQh", "7c7d2s", "2c7dJh", "5s5h5d"])
def test_table_invariants(flop, table_cache):
    table = table_cache(flop)
    assert table.shape == (1176, 1176) and table.dtype == np.uint16
    assert ((table == SENTINEL) == COLLISION).all()
    valid = table[~COLLISION]
    assert valid.max() <= MAX_W
    # each column is a ranking of its 1,081 hands: the entries sum to 1081 * 1080
    sums = np.where(COLLISION, 0, table.astype(np.int64)).sum(axis=0)
    assert (sums == 1081 * 1080).all()


def test_kernel_rejects_bad_flops():
    with pytest.raises(CardError, match="expected 3"):
        match_table("AhKh")
    with pytest.raises(CardError, match="repeat"):
        match_table("AhAhKh")


# --- suit renaming -----------------------------------------------------------

TEXTURES = ["monotone", "two-tone", "rainbow", "paired", "trips"]


@st.composite
def flops(draw, texture):
    if texture == "trips":
        rank = draw(st.integers(0, 12))
        suits = draw(st.permutations(range(4)))[:3]
        return tuple(s * 13 + rank for s in suits)
    if texture == "paired":
        pair, kicker = draw(st.lists(st.integers(0, 12), min_size=2, max_size=2, unique=True))
        suits = draw(st.permutations(range(4)))[:2]
        return (suits[0] * 13 + pair, suits[1] * 13 + pair, draw(st.integers(0, 3)) * 13 + kicker)
    ranks = draw(st.lists(st.integers(0, 12), min_size=3, max_size=3, unique=True))
    order = draw(st.permutations(range(4)))
    suits = {"monotone": [order[0]] * 3, "two-tone": [order[0], order[0], order[1]], "rainbow": order[:3]}[texture]
    return tuple(s * 13 + r for s, r in zip(suits, ranks, strict=True))


@pytest.mark.parametrize("texture", TEXTURES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_renaming_suits_preserves_every_entry(texture, data, table_cache):
    flop = data.draw(flops(texture))
    rest = [c for c in range(52) if c not in flop]
    hole = data.draw(st.lists(st.sampled_from(rest), min_size=4, max_size=4, unique=True))
    perm = data.draw(st.integers(0, 23))
    table = match_table(flop)
    renamed_flop = tuple(int(CARD_MAP[perm, c]) for c in flop)
    renamed = match_table(renamed_flop)

    def entry(tab, f, cards):
        return tab[pair_row(f, cards[:2]), pair_row(f, cards[2:])]

    moved = [int(CARD_MAP[perm, c]) for c in hole]
    assert entry(table, flop, hole) == entry(renamed, renamed_flop, moved)
    # and through the canonical flop, as queries will read it
    index, canon_perm = canonical_index(flop)
    canon_flop = tuple(int(CARD_MAP[canon_perm, c]) for c in flop)
    canon_cards = [int(CARD_MAP[canon_perm, c]) for c in hole]
    assert entry(table, flop, hole) == entry(table_cache(tuple(sorted(canon_flop))), canon_flop, canon_cards)
    # the whole equity is unchanged as well
    row = pair_row(flop, hole[:2])
    renamed_row = pair_row(renamed_flop, moved[:2])
    ones = np.ones(1176)
    assert hand_vs_weights(table, row, board_columns(()), ones) == pytest.approx(
        hand_vs_weights(renamed, renamed_row, board_columns(()), ones), abs=1e-12
    )
