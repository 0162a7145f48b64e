"""Every bad question to the solver gets one sentence that says what was expected and what arrived (a MatchdbError:
exit status 2 on the command line), before any work or allocation."""

from __future__ import annotations

import pytest

from matchdb.errors import BoardError, CardError, MatchdbError, RangeError, WorkLimitError
from matchdb.solver import SolverError

BOARD = "2c7dJh3s8c"


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"oop": "8c8d"}, RangeError, "No hand of the OOP range '8d8c' is possible beside the board"),
    ({"ip": "2c2d"}, RangeError, "No hand of the IP range '2d2c' is possible beside the board"),
    ({"oop": "AhAd", "ip": "AhAd"}, RangeError, "shares a card with every IP hand"),
    ({"oop": "QQ++"}, RangeError, "QQ++"),
    ({"board": "2c7d"}, BoardError, "has 2 cards; expected 3 (flop), 4 (turn) or 5 (river)"),
    ({"board": "2c7d2c"}, CardError, "2c"),
    ({"stack": 0}, SolverError, "effective stack 0 is not a positive whole number"),
    ({"stack": -5}, SolverError, "effective stack -5"),
    ({"pot": 10.5}, SolverError, "starting pot 10.5 is not a positive whole number"),
    ({"bet": "75"}, SolverError, "The bet size '75' does not parse"),
    ({"bet": "2.5x"}, SolverError, "only a raise can be"),
    ({"raise_": "1x"}, SolverError, "not more than the last bet"),
    ({"bet": {"preflop": "50%"}}, SolverError, "expected keys like 'flop'"),
    ({"donk": 3}, SolverError, "donk sizes 3"),
    ({"rake": 2.0, "rake_cap": 1.0}, SolverError, "rake rate 2.0 is not a share 0..1"),
    ({"target": -1}, SolverError, "target is -1; expected a number 0..100"),
    ({"max_iterations": -1}, SolverError, "max_iterations is -1"),
    ({"max_memory": 1000}, WorkLimitError, "The tree needs about"),
    ({"threads": 0}, SolverError, "threads is 0"),
    ({"compressed": "yes"}, SolverError, "compressed is 'yes'"),
    ({"merge": -0.1}, SolverError, "merging threshold -0.1"),
])
def test_bad_questions_are_refused_in_one_sentence(small_db, kwargs, error, words):
    question = {"oop": "AA,QQ", "ip": "KK", "board": BOARD, "pot": 100, "stack": 100, "bet": "a"} | kwargs
    with pytest.raises(error) as caught:
        small_db.solve(**question)
    message = str(caught.value)
    assert words in message, message
    assert isinstance(caught.value, MatchdbError) and message.endswith(".") and "\n" not in message


def test_the_memory_bound_is_checked_before_anything_is_allocated(small_db, monkeypatch):
    import matchdb.solver.api as api

    allocated = []
    monkeypatch.setattr(api, "allocate", lambda *args: allocated.append(args))
    with pytest.raises(WorkLimitError, match=r"expected at most 0\.00 GB"):
        small_db.solve("AA,QQ,JJ", "KK,TT", "2c7dJh", pot=100, stack=1000, bet="33%, 75%, a", raise_="3x", max_memory=10**6)
    assert allocated == []
