import numpy as np
import pytest

from matchdb.core.cards import Card, format_cards, parse_card, parse_cards
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


def test_card_from_text_or_id_and_bad_cards():
    assert Card("ah") == Card(38) == Card.parse("Ah") and Card(np.int64(0)).id == 0
    for bad, fragment in [(True, "neither text"), (1.5, "neither text"), (52, "out of range"), ("Ax", "unknown suit")]:
        with pytest.raises(CardError, match=fragment):
            Card(bad)


def test_odd_containers_and_long_text_are_refused():
    """bytes, dicts and other iterables of ints are not cards, however they iterate (issue 16)."""
    for bad in (b"&%", bytearray(b"&%"), {38: 1, 37: 2}, 3.5):
        with pytest.raises(CardError, match="neither text nor a sequence of cards"):
            parse_cards(bad)
    with pytest.raises(CardError, match="characters long; expected at most 64"):
        parse_cards("Ah" * 40)
    with pytest.raises(CardError, match="expected at most 7"):
        parse_cards(list(range(8)))
