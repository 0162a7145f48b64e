"""Bet sizes written as solver users write them: the same meanings as postflop-solver's ``bet_size.rs``, one sentence
for each size that does not parse."""

from __future__ import annotations

import math

import pytest

from matchdb.errors import MatchdbError
from matchdb.solver.sizes import SolverError, parse_sizes


@pytest.mark.parametrize(
    ("text", "kind", "value", "extra"),
    [  # postflop-solver's own table (bet_size.rs, test_bet_size_from_str), as raise sizes
        ("0%", "pot", 0.0, 0.0), ("75%", "pot", 0.75, 0.0), ("112.5%", "pot", 1.125, 0.0),
        ("1.001x", "prev", 1.001, 0.0), ("3.5X", "prev", 3.5, 0.0), ("0c", "chips", 0, 0), ("123C", "chips", 123, 0),
        ("0c1r", "chips", 0, 1), ("100C100R", "chips", 100, 100), ("e", "geometric", 0, math.inf),
        ("E", "geometric", 0, math.inf), ("2e", "geometric", 2, math.inf), ("E37.5%", "geometric", 0, 0.375),
        ("100e.5%", "geometric", 100, 0.005), ("a", "allin", 0, 0), ("A", "allin", 0, 0),
    ],
)
def test_sizes_parse_as_the_peer_parses_them(text, kind, value, extra):
    (size,) = parse_sizes(text, raise_=True)
    assert (size.kind, size.value, size.extra) == (kind, value, extra)


@pytest.mark.parametrize(
    "text",
    ["", "0", "1.23", "%", "+42%", "-30%", "x", "0x", "1x", "c", "12.3c", "10c10", "42cr", "c3r", "0c0r", "123c101r",
     "1c2r3", "12c3.4r", "0e", "2.7e", "101e", "3e7", "E%", "1e2e3", "bet", "1a", "a1"],
)
def test_sizes_the_peer_refuses_are_refused_in_one_sentence(text):
    with pytest.raises(SolverError) as caught:
        parse_sizes([text], raise_=True)
    message = str(caught.value)
    assert repr(text) in message and message.endswith(".") and "\n" not in message
    assert isinstance(caught.value, MatchdbError)


def test_lists_sort_as_the_peer_sorts_them_and_a_trailing_comma_is_allowed():
    assert [str(s) for s in parse_sizes("50c, e, a,")] == ["50c", "e", "a"]
    assert [str(s) for s in parse_sizes("25%, 2.5x, e200%", raise_=True)] == ["25%", "2.5x", "e200%"]
    assert parse_sizes(None) == () == parse_sizes("")


@pytest.mark.parametrize(("text", "words"), [
    ("2.5x", "multiple of the last bet, which only a raise can be"),
    ("20c3r", "caps raises, which only a raise size can"),
    (",", "does not parse"),
    ("75", "does not parse"),
])
def test_bets_refuse_what_only_raises_may_be(text, words):
    with pytest.raises(SolverError, match=words):
        parse_sizes(text)
