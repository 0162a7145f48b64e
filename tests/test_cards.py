import numpy as np
import pytest

from matchdb.cards import Card, format_cards, parse_card, parse_cards
from matchdb.pairs import COLLISION, N_PAIRS, PAIR_INDEX, PAIRS, local_index, pair_row, remaining_cards
from matchdb.errors import CardError, MatchdbError


@pytest.mark.parametrize("text", ["AhKh", "Ah Kh", "AH KH", "ah,kh", "aH, kH", " Ah;Kh "])
def test_parse_accepts_the_contract_forms(text):
    assert parse_cards(text) == (51 - 13, 50 - 13)  # Ah = 2*13+12, Kh = 2*13+11
    assert format_cards(parse_cards(text)) == "AhKh"


def test_card_ids_follow_the_contract():
    assert parse_card("2c") == 0
    assert parse_card("Ac") == 12
    assert parse_card("2d") == 13
    assert parse_card("As") == 51
    assert [format_cards([c]) for c in range(0, 52, 13)] == ["2c", "2d", "2h", "2s"]
    assert str(Card.parse("tD")) == "Td" and repr(Card(21)) == "Td"


def test_mixed_inputs():
    assert parse_cards([Card.parse("Ah"), "Kh", 0]) == (38, 37, 0)
    assert parse_cards(np.array([1, 2])) == (1, 2)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("AhK", "odd number of characters"),
        ("1hKh", "unknown rank '1'"),
        ("AxKh", "unknown suit 'x'"),
        ("AhAh", "repeat 'Ah'"),
        ("Ah ah", "repeat 'Ah'"),
    ],
)
def test_bad_cards_raise_clear_errors(text, fragment):
    with pytest.raises(CardError, match=fragment) as caught:
        parse_cards(text)
    assert isinstance(caught.value, MatchdbError) and isinstance(caught.value, ValueError)
    assert repr(text) in str(caught.value)


def test_bad_items_and_counts():
    with pytest.raises(CardError, match="out of range"):
        parse_cards([52])
    with pytest.raises(CardError, match="neither"):
        parse_cards([1.5])
    with pytest.raises(CardError, match="expected 3"):
        parse_cards("AhKh", count=3)
    with pytest.raises(CardError, match="not two characters"):
        parse_card("Ahh")


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
