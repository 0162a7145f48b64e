"""Answer objects: fields, JSON, text, no NaN; what the API, the CLI and the service share."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from matchdb.answers import HandReport, HandTable, Outcome, RangeEquity, WinRate
from matchdb.core.hole_cards import hand_order
from matchdb.errors import MatchdbError


def test_outcome_computes_its_equity_and_renders():
    answer = Outcome.of("AhKh", "2c7dJh", "QQ+,AKs", 0.25, 0.5, 0.25)
    assert answer.equity == 0.5 and answer.to_dict() == {
        "hole": "AhKh", "board": "2c7dJh", "villain": "QQ+,AKs", "equity": 0.5, "win": 0.25, "tie": 0.5, "loss": 0.25,
    }
    assert answer.to_text().splitlines()[1] == "  exact heads-up equity vs QQ+,AKs: 0.500000"
    assert json.loads(json.dumps(answer.to_dict())) == answer.to_dict()


def test_report_joins_the_naive_and_the_exact_answer():
    report = HandReport.of(WinRate("AhKh", "2c7dJh", 3, 0.4), Outcome.of("AhKh", "2c7dJh", "random", 0.5, 0.1, 0.4))
    assert report.players == 3 and report.win_rate == 0.4 and report.equity == pytest.approx(0.55)
    assert report.to_text().splitlines()[1] == "  naive win rate, 3 players: 0.400000"


@pytest.mark.parametrize("value", [math.nan, math.inf, np.float64("nan")])
def test_no_answer_holds_nan_or_infinity(value):
    with pytest.raises(MatchdbError, match="no finite answer exists"):
        WinRate("AhKh", "2c7dJh", 2, value)
    with pytest.raises(MatchdbError, match="no finite answer exists"):
        RangeEquity(hero="AA", villain="KK", board="2c7dJh", equity=0.5, win=value, tie=0.0, loss=0.5)


def test_a_range_against_a_range_shows_win_tie_and_loss():
    answer = RangeEquity(hero="QQ+", villain="JJ-99", board="2c7dJh", equity=np.float64(0.75), win=0.7, tie=0.1,
                         loss=0.2)
    assert answer.to_text().splitlines() == [
        "QQ+ vs JJ-99 on 2c7dJh",
        "  exact equity of the hero range: 0.750000",
        "  win 0.700000  tie 0.100000  loss 0.200000",
    ]
    assert answer.to_dict() == {"hero": "QQ+", "villain": "JJ-99", "board": "2c7dJh", "equity": 0.75, "win": 0.7, "tie": 0.1, "loss": 0.2}
    assert repr(answer) == "RangeEquity(hero='QQ+', villain='JJ-99', board='2c7dJh', equity=0.75, win=0.7, tie=0.1, loss=0.2)"
    assert answer.to_pandas().to_dict("records") == [answer.to_dict()]


def test_hand_table_marks_impossible_hands_as_null_in_json():
    values = np.linspace(0, 1, 1326)
    values[5] = np.nan
    table = HandTable("2c7dJh", "exact equity vs random", hand_order(), values)
    data = table.to_dict()
    assert data["values"][5] is None and data["values"][6] == values[6] and len(data["hands"]) == 1326
    assert math.isnan(table.value(hand_order()[5])) and table.value(hand_order()[6]) == values[6]
    assert table.to_text().splitlines()[0].startswith("exact equity vs random of every hand on 2c7dJh")
    assert table.grid().shape == (13, 13)


def test_plain_sends_no_nan_or_infinity():
    from matchdb.answers import plain

    data = {"a": [math.inf, np.float64(-math.inf), math.nan, 1.5], "b": (np.int64(3), np.arange(2))}
    assert plain(data) == {"a": [None, None, None, 1.5], "b": [3, [0, 1]]}
    json.dumps(plain(data), allow_nan=False)  # valid JSON


def test_a_distribution_gives_its_figures_and_its_old_summary_warns(db):
    """``summary()`` is one line of text everywhere; a distribution's dict of figures is ``figures()``, and the old
    ``summary()`` that returned it still does, with a DeprecationWarning."""
    answer = db.distribution("AhKh", "2c7dJh")
    figures = answer.figures()
    assert figures["hole"] == "AhKh" and figures["runouts"] == 1081 and answer.to_dict()["ehs"] == figures["ehs"]
    with pytest.warns(DeprecationWarning, match="figures"):
        assert answer.summary() == figures
