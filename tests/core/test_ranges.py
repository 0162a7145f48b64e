"""Range notation: the same hands and weights as eval7's parser, one rule for overlaps, bounded input."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchdb.core.cards import parse_card
from matchdb.core.hole_cards import N_HANDS, hand_index, hand_order
from matchdb.core.ranges import MAX_RANGE_TEXT, canonical_range, describe_range, parse_range, range_weights
from matchdb.errors import MatchdbError, RangeError

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


def eval7_merged(text: str) -> dict[frozenset, float] | None:
    """eval7's hands with a hand named twice counted once, as matchdb merges them; None when its weights differ."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        hands = eval7.HandRange(text).hands
    out: dict[frozenset, float] = {}
    for (a, b), weight in hands:
        key = frozenset((parse_card(str(a)), parse_card(str(b))))
        if key in out and out[key] != weight:
            return None
        out[key] = weight
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
    merged = eval7_merged(text)  # eval7 adds overlapping weights; matchdb merges equal ones and refuses others
    if merged is None:
        with pytest.raises(RangeError, match="two weights"):
            ours(text)
        return
    assert ours(text) == merged


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
    assert range_weights(text + ",KcAc").sum() == N_HANDS  # a hand named again with the same weight is one hand


def _as_solver(text: str, form: str) -> str:
    """``text`` with each weighted group ``w(a,b)`` written as PioSOLVER/GTO Wizard write it (``a:w,b:w``, a fraction)
    or as GTO+/Flopzilla write it (``[p]a,b[/p]``, in percent)."""

    def rewrite(match: re.Match) -> str:
        number, percent, tokens = match[1], match[2], [t.strip() for t in match[3].split(",")]
        fraction = float(number) / (100 if percent else 1)
        if form == "pio":
            return ",".join(f"{token}:{fraction!r}" for token in tokens)
        share = f"{100 * fraction:g}"
        return f"[{share}]{','.join(tokens)}[/{share}]"

    return re.sub(r"(\d*\.?\d*)(%?)\(([^)]*)\)", rewrite, text)


@pytest.mark.parametrize(
    ("solver", "usual"),
    [
        ("AA:0.5,KK,AKs:0.25", "0.5(AA),KK,0.25(AKs)"),
        ("AA:0.5, KK:1, AKs:0.25, AhKd:0.5", "0.5(AA),KK,0.25(AKs),0.5(AhKd)"),
        ("AhKh:0.5,QsQd:.75", "0.5(AhKh),.75(QsQd)"),
        ("QQ+:0.5,A5s-A2s:0.125,KTo-K8o", "0.5(QQ+),0.125(A5s-A2s),KTo-K8o"),
        ("[50]AA,KK[/50]", "0.5(AA,KK)"),
        ("[50.0]AA, KK[/50.0],[25]AKs[/25],QQ", "0.5(AA,KK),0.25(AKs),QQ"),
        ("[100]AA[/100],[75]JJ-99,AhKh[/75]", "AA,0.75(JJ-99,AhKh)"),
        ("[50]AA[/50],KK:0.5,0.5(QQ)", "0.5(AA),0.5(KK),0.5(QQ)"),
    ],
)
def test_solver_weights_and_brackets_equal_eval7_on_the_usual_notation(solver, usual):
    """PioSOLVER / GTO Wizard ``hand:weight`` and GTO+ / Flopzilla ``[50]...[/50]``: the hands and weights eval7 reads
    from the same range in the usual notation, the same weights and one canonical echo."""
    assert ours(solver) == eval7_weights(usual)
    assert np.array_equal(range_weights(solver), range_weights(usual))
    assert describe_range(solver) == canonical_range(usual)
    assert np.array_equal(range_weights(canonical_range(solver)), range_weights(solver))


@settings(max_examples=150, deadline=None)
@given(ranges(), st.sampled_from(["pio", "brackets"]))
def test_generated_solver_ranges_equal_eval7(text, form):
    """The generated ranges with their weights written as solvers write them read as eval7 reads the usual notation."""
    merged = eval7_merged(text)
    pasted = _as_solver(text, form)
    if merged is None:
        with pytest.raises(RangeError, match="two weights"):
            ours(pasted)
        return
    assert ours(pasted) == merged, pasted
    assert np.array_equal(range_weights(describe_range(pasted)), range_weights(pasted))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("AA:1.5", "gives the weight 'AA:1.5'; expected a weight between 0 and 1 after the colon"),
        ("AA:50", "gives the weight 'AA:50'; expected a weight between 0 and 1 after the colon"),
        ("AA:", "cannot be parsed at 'AA:'; expected a weight between 0 and 1 after the colon"),
        ("AA:0.5,AsAh", "gives AsAh two weights, 0.5 in 'AA' and 1 in 'AsAh'"),
        ("AA:0.5,AA:0.25", "gives AdAc two weights"),
        ("0.5(AA:0.5)", "gives 'AA:0.5' a weight inside a weighted group"),
        ("[50]AA,KK", "opens the bracket '\\[50\\]' that does not close; expected '\\[/50\\]'"),
        ("[50]AA[/60]", "closes the bracket '\\[50\\]' with '\\[/60\\]'"),
        ("[150]AA[/150]", "gives the weight '\\[150\\]'; expected a percentage between 0 and 100"),
        ("[50]AA:0.5[/50]", "a weight inside a weighted group"),
        ("AA:0", "holds no hand with a positive weight"),
        ("AA:1e-13", "cannot be parsed at 'e-13'"),
        ("AA:0.0000000000001", "expected 0 or a weight of at least 1e-12"),
    ],
)
def test_bad_solver_weights_get_one_sentence(text, fragment):
    with pytest.raises(RangeError, match=fragment) as caught:
        parse_range(text)
    message = str(caught.value)
    assert message.endswith(".") and "\n" not in message and message.count(". ") == 0, message


@pytest.mark.parametrize(
    ("overlapping", "plain"),
    [
        ("AK,AKs", "AK"),
        ("A5s+,AK", "AKs,AQs,AJs,ATs,A9s,A8s,A7s,A6s,A5s,AKo"),
        ("QQ+,KK", "QQ+"),
        ("AA,AsAh", "AA"),
        ("0.5(AA),0.5(AsAh)", "0.5(AA)"),
        ("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32,AK,A2s+", "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"),
        ("15%,AA,KK", "15%"),
    ],
)
def test_overlaps_of_equal_weight_merge(overlapping, plain):
    """Ranges pasted from other tools overlap: the merged range equals the same range written without overlaps."""
    assert np.array_equal(range_weights(overlapping), range_weights(plain))
    assert np.array_equal(range_weights(["AhKh", "KhAh", "QsQd"]), range_weights("AhKh,QsQd"))


def test_different_weights_for_one_hand_are_refused_naming_both_entries_whatever_their_order():
    for text in ("AA,0.5(AsAh)", "0.5(AsAh),AA", "0.5(AA),AsAh", "AsAh,0.5(AA)", "0.25(AK),0.5(AKs)", "10%,0.5(AA)"):
        with pytest.raises(RangeError, match="two weights") as caught:
            parse_range(text)
        message = str(caught.value)
        first, second = [t.strip() for t in text.split(",")]
        entries = [e.split("(")[-1].rstrip(")") for e in (first, second)]
        assert all(repr(e) in message for e in entries), message


def test_percent_ranges_follow_the_documented_ranking(db):
    """'p%' takes whole classes by PREFLOP_ORDER, which is the database's own exact equity against one random hand."""
    from matchdb.core.hole_cards import CLASSES, combos, hand_class
    from matchdb.core.ranges import PREFLOP_ORDER, percent_range

    preflop = db.preflop()
    assert tuple(CLASSES[i] for i in np.argsort(-preflop.equity, kind="stable")) == PREFLOP_ORDER
    for percent in (0.5, 3, 10, 15, 33.3, 100):
        hands = percent_range(percent)
        classes = {CLASSES[hand_class(a, b)] for a, b in hands}
        taken = [name for name in PREFLOP_ORDER if name in classes]
        assert taken == list(PREFLOP_ORDER[: len(taken)])  # the strongest first, none skipped
        above = sum(combos(name) for name in taken)
        assert above - combos(taken[-1]) / 2 <= percent / 100 * 1326  # the last class taken is half in at least
        if len(taken) < 169:
            assert above + combos(PREFLOP_ORDER[len(taken)]) / 2 > percent / 100 * 1326  # the next one is not
    assert np.array_equal(range_weights("top 15%"), range_weights("15%"))
    assert np.array_equal(range_weights("0.5(10%)"), 0.5 * range_weights("10%"))
    assert range_weights("100%").sum() == 1326


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("qq+, aks", "QQ+,AKs"),
        ("ka,kqO", "AK,KQo"),
        ("99-jj", "JJ-99"),
        ("k8o-kto", "KTo-K8o"),
        ("50%(AA, kk),qq", "0.5(AA,KK),QQ"),
        ("1(AA,KK)", "AA,KK"),
        ("top 15%", "15%"),
        ("kHaH", "AhKh"),
        (" Random ", "random"),
    ],
)
def test_ranges_are_echoed_in_canonical_form(text, canonical):
    assert describe_range(text) == canonical
    if canonical != "random":
        assert np.array_equal(range_weights(canonical), range_weights(text))


def test_opponent_models_are_ranges_with_short_names(db):
    from matchdb.equity.opponents import at_least, steered, top_percent

    model = top_percent(15, db.preflop())
    answer = db.outcome("AhKh", "2c7dJh", villain=model)
    assert answer.villain == "top_percent(15)" and 0 < answer.equity < 1
    assert db.equity("AhKh", "2c7dJh", villain=at_least("66", db.preflop())) > 0
    assert db.multiway("AhKh", "2c7dJh", [steered(db.preflop()), "random"]).opponents[0].startswith("steered(")
    with pytest.raises(RangeError) as caught:
        range_weights(object())
    assert len(str(caught.value)) < 200


def test_a_ten_written_10_gets_a_hint():
    from matchdb.core.cards import parse_cards

    with pytest.raises(MatchdbError, match="write T for ten"):
        parse_cards("10hKh")
    with pytest.raises(RangeError, match="write T for ten"):
        parse_range("A10s")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("QQ ,AKs", "has a space after 'QQ'.*write '\\+' as %2B"),  # 'QQ+' with an unencoded '+' in a URL
        ("22 ", "has a space after '22'"),
        ("Q Q+", "cannot be parsed at 'Q Q\\+'"),
        ("A K s", "cannot be parsed"),
        ("XX", "cannot be parsed at 'XX'"),
        ("150%", "share '150%'; expected a percentage above 0 and at most 100"),
        ("0%", "share '0%'"),
        ("top15 %", "cannot be parsed"),
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
