"""Range notation: the same hands and weights as eval7's parser, one rule for overlaps, bounded input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchdb.core.cards import parse_card
from matchdb.errors import MatchdbError, RangeError
from matchdb.core.hole_cards import N_HANDS, hand_index, hand_order
from matchdb.core.ranges import MAX_RANGE_TEXT, describe_range, parse_range, range_weights

with warnings.catch_warnings():  # eval7 builds its grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

RANKS = "23456789TJQKA"


def eval7_weights(text: str) -> dict[frozenset, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        hands = eval7.HandRange(text).hands
    out: dict[frozenset, float] = {}
    for (a, b), weight in hands:
        key = frozenset((parse_card(str(a)), parse_card(str(b))))
        out[key] = out.get(key, 0.0) + weight
    return {k: v for k, v in out.items() if v > 0}


def ours(text: str) -> dict[frozenset, float]:
    return {frozenset((a, b)): w for a, b, w in parse_range(text)}


@pytest.mark.parametrize(
    "text",
    [
        "QQ+,AKs",
        "JJ-99",
        "99-JJ",
        "KTo-K8o",
        "AT+",
        "A2s+",
        "AKs+",
        "KA",
        "ak",
        "T9s+",
        "0.5(AA),KK",
        "50%(AKs, AQs), 30%(JJ)",
        ".5(AA)",
        "1.(KK)",
        "AhKh, QsQd",
        "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32",
    ],
)
def test_same_hands_and_weights_as_eval7(text):
    assert ours(text) == eval7_weights(text)


@st.composite
def ranges(draw):
    """Range text of distinct classes and hands, spans and groups, in the notation eval7 reads."""
    tokens, used = [], set()
    for _ in range(draw(st.integers(1, 6))):
        high = draw(st.integers(0, 12))
        low = draw(st.integers(0, high))
        kind = draw(st.sampled_from(["plain", "plus", "span", "hand"]))
        suited = "" if high == low else draw(st.sampled_from(["", "s", "o"]))
        if kind == "hand":
            suits = draw(st.permutations("cdhs"))
            token = f"{RANKS[high]}{suits[0]}{RANKS[low]}{suits[1]}"
            key = ("hand", high, low)
        elif kind == "plus":
            token, key = f"{RANKS[high]}{RANKS[low]}{suited}+", ("row", high, suited)
        elif kind == "span" and low < high - 1:
            other = draw(st.integers(low, high - 1 if high != low else 12))
            token = f"{RANKS[high]}{RANKS[low]}{suited}-{RANKS[high]}{RANKS[other]}{suited}"
            key = ("row", high, suited)
        else:
            token, key = f"{RANKS[high]}{RANKS[low]}{suited}", ("row", high, suited)
        if key in used or ("row", high, "") in used or (key[0] == "row" and ("row", high, "") in {k[:2] + ("",) for k in used}):
            continue
        used.add(key)
        if draw(st.booleans()) and kind != "hand":
            token = f"{draw(st.sampled_from(['0.25', '0.5', '75%', '.1']))}({token})"
        tokens.append(token)
    return ", ".join(tokens) if tokens else "AA"


@settings(max_examples=200, deadline=None)
@given(ranges())
def test_generated_ranges_equal_eval7(text):
    try:
        mine = ours(text)
    except RangeError as error:
        assert "twice" in str(error)  # our rule: overlaps are refused; eval7 adds their weights
        return
    assert mine == eval7_weights(text)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_hands_written_out_equal_eval7(data):
    """A range of hands only (the fast path: either card order, any case) reads as eval7 reads it."""
    count = data.draw(st.integers(1, 60))
    positions = data.draw(st.lists(st.integers(0, N_HANDS - 1), min_size=count, max_size=count, unique=True))
    tokens, cased = [], []
    for position in positions:
        name = hand_order()[position]
        if data.draw(st.booleans()):
            name = name[2:] + name[:2]
        tokens.append(name)
        cased.append(name.lower() if data.draw(st.booleans()) else name)  # eval7 reads upper-case ranks only
    text = ",".join(cased)
    assert ours(text) == eval7_weights(",".join(tokens))
    assert np.array_equal(np.flatnonzero(range_weights(text)), np.sort(positions))


def test_every_hand_written_out_and_a_repeat():
    text = ",".join(hand_order())
    assert range_weights(text).sum() == N_HANDS
    with pytest.raises(RangeError, match="names AcKc twice"):
        range_weights(text + ",KcAc")


def test_overlapping_entries_are_refused_whatever_their_order():
    for text in ("AA,AsAh", "AsAh,AA", "0.5(AA),AsAh", "AsAh,0.5(AA)", "QQ+,KK", "AK,AKs"):
        with pytest.raises(RangeError, match="twice"):
            parse_range(text)
    with pytest.raises(RangeError, match="names AhKh twice"):
        range_weights(["AhKh", "KhAh"])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("QQ ,AKs", "has a space after 'QQ'.*write '\\+' as %2B"),  # 'QQ+' with an unencoded '+' in a URL
        ("22 ", "has a space after '22'"),
        ("Q Q+", "cannot be parsed at 'Q Q\\+'"),
        ("A K s", "cannot be parsed"),
        ("XX", "cannot be parsed at 'XX'"),
        ("QQ+,,AK", "cannot be parsed"),
        ("AAs", "gives the pair 'AAs' a suitedness"),
        ("KTo-Q8o", "between different kinds of hands"),
        ("AKs-AQo", "between different kinds of hands"),
        ("0.5(AA", "does not close"),
        ("1.5(AA)", "weight '1.5'; expected a weight between 0 and 1"),
        ("150%(AA)", "weight '150%'"),
        ("1" + "0" * 308 + "(AA)", "expected a weight between 0 and 1"),
        ("0(AA)", "holds no hand with a positive weight"),
        ("AhAh", "repeats a card"),
        ("  ", "is empty"),
    ],
)
def test_bad_ranges_get_one_sentence(text, fragment):
    with pytest.raises(RangeError, match=fragment) as caught:
        parse_range(text)
    message = str(caught.value)
    assert message.endswith(".") and "\n" not in message


def test_length_is_bounded():
    everything = ",".join(hand_order())
    assert len(everything) < MAX_RANGE_TEXT and len(parse_range(everything)) == N_HANDS
    with pytest.raises(RangeError, match="characters long; expected at most 10,000"):
        parse_range("AA," * 4000)


def test_every_form_gives_weights_in_hand_order():
    text = range_weights("QsQd,AcKd")
    listed = range_weights(["QsQd", "KdAc"])
    vector = np.zeros(N_HANDS)
    vector[[hand_index("QsQd"), hand_index("AcKd")]] = 1.0
    assert (text == listed).all() and (range_weights(vector) == text).all()
    assert (range_weights(None) == 1).all() and (range_weights("random") == 1).all()
    assert not text.flags.writeable
    assert describe_range(vector) == "1326 weights" and describe_range(["QsQd", "KdAc"]) == "QsQd,AcKd"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ([], "list of hands is empty"),
        (["Qs"], "are 1 cards; expected 2"),
        ([1.0, 2.0], "must have 1,326 entries"),
        (np.full(N_HANDS, -1.0), "finite and non-negative"),
        (np.full(N_HANDS, np.inf), "finite and non-negative"),
        (np.full(N_HANDS, 1e308), "at most 1e\\+06"),
        (5, "neither text"),
        (b"AhKh", "neither text"),
        ({"AhKh": 1}, "neither text"),
        (123, "neither text"),
    ],
)
def test_bad_range_forms(spec, fragment):
    with pytest.raises(MatchdbError, match=fragment):
        range_weights(spec)
