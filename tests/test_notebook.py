"""Answers in a notebook (issue 21 item 4): short reprs, ``_repr_html_``, ``to_pandas()``, JSON-ready ``to_dict()``, ``to_json()`` a str.

Every kind of answer the Python API gives is asked of the small store (or
made from its parts where it needs the whole database) and checked: its repr
fits a line or two and holds no ``np.float64(...)``, ``json.dumps`` takes its
``to_dict()`` with NaN refused, ``to_json()`` is that text, and its DataFrame
holds the API's numbers exactly.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from matchdb.answers import class_cell, grid_html, plural, require_pandas
from matchdb.core.hole_cards import CLASSES, hand_index
from matchdb.equity.preflop import PreflopTable
from matchdb.errors import MatchdbError
from matchdb.plots import class_name, grid_colour, text_colour

pandas = pytest.importorskip("pandas", reason="pandas is not installed; pip install 'matchdb[notebook]' installs it.")


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


@pytest.fixture(scope="module")
def preflop_table():
    """A preflop table with every class, its figures made up (the real one needs all 1,755 tables)."""
    rng = np.random.default_rng(3)
    data = {"classes": list(CLASSES), "equity": rng.random(169).tolist(),
            "win_rate": {"2": rng.random(169).tolist(), "3": rng.random(169).tolist()}}
    return PreflopTable.from_stored(data)


def _answers(db) -> dict:
    """One answer of every kind the small store can give."""
    return {
        "naive": db.naive("AhKh", "2c7dJh", 3),
        "outcome": db.outcome("AhKh", "2c7dJh", "QQ+,AKs"),
        "report": db.report("AhKh", "2c7dJh"),
        "range": db.range_outcome("JJ-99", "QQ+", "2c7dJh"),
        "table": db.equities("2c7dJh"),
        "win rates": db.win_rates("2c7dJh", players=4),
        "multiway": db.multiway("AhKh", "2c7dJh", ["JcTc", "random"]),
        "sampled": db.multiway("AhKh", "2c7dJh", 5, seed=1),
        "distribution": db.distribution("AhKh", "2c7dJh"),
        "distributions": db.distributions("2c7dJhAs"),
    }


def test_every_answer_has_a_short_repr_and_json_ready_fields(db, preflop_table):
    answers = _answers(db) | {"preflop": preflop_table}
    for name, answer in answers.items():
        shown = repr(answer)
        assert len(shown) <= 300 and "\n" not in shown, (name, shown)
        assert "np." not in shown and "array(" not in shown, (name, shown)
        data = answer.to_dict()
        text = answer.to_json()
        assert isinstance(text, str), name
        assert json.loads(text) == json.loads(json.dumps(data, allow_nan=False)), name
    assert repr(answers["table"]) == "HandTable(exact equity vs random on 2c7dJh: 1176 of 1326 hands possible)"
    assert repr(answers["outcome"]).startswith("Outcome(hole='AhKh', board='2c7dJh', villain='QQ+,AKs', equity=0.26656565")
    assert type(answers["outcome"].equity) is float and type(answers["multiway"].samples) is int


def test_to_json_writes_a_file_too(db, tmp_path):
    answer = db.outcome("AhKh", "2c7dJh")
    text = answer.to_json(tmp_path / "answer.json")
    assert (tmp_path / "answer.json").read_text() == text and json.loads(text)["equity"] == answer.equity


def test_a_hand_table_as_a_data_frame_and_a_coloured_grid(db):
    table = db.equities("2c7dJh", villain="QQ+,AKs")
    frame = table.to_pandas()
    assert list(frame.index) == list(table.hands) and frame.index.name == "hand"
    assert frame.loc["AhKh", "value"] == table.value("AhKh") == db.equity("AhKh", "2c7dJh", "QQ+,AKs")
    assert frame.loc["AhKh", "class"] == "AKs" and frame.loc["7c2d", "class"] == "72o" and frame.loc["9s9h", "class"] == "99"
    assert frame["value"].isna().sum() == 1326 - 1176  # hands touching the flop
    grid = table.to_pandas(grid=True)
    assert list(grid.index) == list("AKQJT98765432") == list(grid.columns)
    np.testing.assert_array_equal(grid.to_numpy(), table.grid())

    page = table._repr_html_()
    cells = re.findall(r'<td style="background:(#[0-9a-f]{6});color:(#[0-9a-f]{6})[^"]*">([^<]+)<br>([^<]+)</td>', page)
    assert len(cells) == 169
    values = table.grid()
    for k, (background, ink, name, shown) in enumerate(cells):
        i, j = divmod(k, 13)
        assert name == class_name(i, j)
        assert (background, ink) == grid_colour(values[i, j], 0.5)
        assert shown == ("-" if math.isnan(values[i, j]) else f"{100 * values[i, j]:.1f}")
    assert "exact equity vs QQ+,AKs of every hand on 2c7dJh" in page


def test_a_win_rate_table_is_neutral_at_its_fair_share(db):
    table = db.win_rates("2c7dJh", players=4)
    assert table.center() == 0.25
    assert "neutral at 25.0 %" in table._repr_html_()


def test_the_grid_colours_read_on_every_background():
    """Black or white text, whichever contrasts more: at least 4.5:1 (WCAG AA) on every colour of the scale."""

    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    for center in (0.5, 0.25, 1 / 10):
        for value in np.linspace(0, 1, 201):
            background, ink = grid_colour(value, center)
            a, b = sorted((luminance(background), luminance(ink)), reverse=True)
            assert (a + 0.05) / (b + 0.05) >= 4.5, (value, center, background, ink)
    assert text_colour((215, 48, 39)) == "#ffffff" and text_colour((255, 255, 191)) == "#000000"


def test_class_cells_are_the_grids_layout():
    for i in range(13):
        for j in range(13):
            assert class_cell(class_name(i, j)) == (i, j)
    for bad in ("AKx", "AAs", "AK", "1K", 5):
        with pytest.raises(MatchdbError, match="is not a class like 'AA', 'AKs' or 'AKo'"):
            class_cell(bad)


def test_preflop_tables_as_data_frames_and_grids(preflop_table):
    frame = preflop_table.to_pandas()
    assert list(frame.index) == list(CLASSES) and list(frame.columns) == ["combos", "equity", "win_rate_2", "win_rate_3"]
    assert frame.loc["AKs", "equity"] == preflop_table.row("AKs")["equity"] and frame.loc["AKo", "combos"] == 12
    grid = preflop_table.grid()
    for name, value in zip(CLASSES, preflop_table.equity, strict=True):
        assert grid[class_cell(name)] == value
    assert preflop_table.grid("win_rate_3")[class_cell("T9s")] == preflop_table.row("T9s")["win_rate_3"]
    with pytest.raises(MatchdbError, match="The figure 'win_rate_9' is not in this table; expected one of equity, win_rate_2, win_rate_3."):
        preflop_table.grid("win_rate_9")
    assert preflop_table._repr_html_().count("<td") == 169
    assert repr(preflop_table) == "PreflopTable(169 classes: heads-up equity, naive win rates for 2..3 players)"


def test_other_answers_as_data_frames(db):
    outcome = db.outcome("AhKh", "2c7dJh")
    assert outcome.to_pandas().to_dict("records") == [outcome.to_dict()]
    every = db.distributions("2c7dJh")
    frame = every.to_pandas()
    assert frame.loc["AhKh", "ehs"] == every.ehs[hand_index("AhKh")] and list(frame.columns) == ["ehs", "ehs2", "hs", "ppot", "npot"]
    one = db.distribution("AhKh", "2c7dJh")
    assert one.to_pandas().loc[0, "ppot"] == one.ppot


def test_a_report_as_a_data_frame(table_cache):
    from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES, canonicalize
    from matchdb.core.cards import format_cards
    from matchdb.equity.reports import flop_report

    index = canonicalize("2c7dJh").index
    flop = tuple(int(c) for c in CANONICAL_FLOPS[index])
    items = [(index, flop, int(ORBIT_SIZES[index]), table_cache(format_cards(flop)))]
    report = flop_report(items, "QQ+,AKs", "JJ-99")
    frame = report.to_pandas()
    assert frame.to_dict("records") == report.rows()
    assert report.to_pandas(by="suits").to_dict("records") == report.by_texture("suits")
    assert isinstance(report.to_json(), str) and len(repr(report)) < 200


def test_an_arena_result_in_a_notebook():
    from matchdb.play.arena import run_arena

    result = run_arena(["fives", "station", "random"], games=6, seats=3, seed=1, progress=False)
    assert repr(result) == "ArenaResult(3 bots, 6 tournament games, 3 seats, seed 1: fives, station, random)"
    text = result.to_json()
    assert isinstance(text, str) and json.loads(text) == result.to_dict()
    json.dumps(result.to_dict(), allow_nan=False)
    frame = result.to_pandas()
    assert list(frame.index) == ["fives", "station", "random"]
    assert frame.loc["station", "bb_per_100"] == result.bot("station").bb_per_100.mean
    assert "<pre>" in result._repr_html_()


def test_to_json_is_a_str_everywhere():
    from matchdb.play.preflop_score import PreflopScore

    score = PreflopScore()
    assert isinstance(score.to_json(), str) and PreflopScore.from_json(score.to_json()).parameters() == score.parameters()
    assert PreflopScore.from_json(score.to_dict()).parameters() == score.parameters()


def test_without_pandas_one_sentence(monkeypatch, db):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    message = "to_pandas() needs pandas (the notebook extra); install it with: pip install 'matchdb[notebook]'."
    with pytest.raises(MatchdbError) as caught:
        require_pandas()
    assert str(caught.value) == message
    with pytest.raises(MatchdbError, match=re.escape(message)):
        db.equities("2c7dJh").to_pandas()
    assert grid_html(db.equities("2c7dJh").grid(), "equity").count("<td") == 169  # the HTML needs no pandas


def test_counts_read_in_the_singular_and_the_plural(db):
    assert plural(1, "runout") == "1 runout" and plural(2, "entry", "entries") == "2 entries"
    assert "against 1 opponent (JcTc)" in db.multiway("AhKh", "2c7dJh", ["JcTc"]).to_text()
    assert ": 1 runout, 50 bins" in db.distribution("AhKh", "2c7dJhAs5c").to_text()
    assert "1 runout)" in repr(db.distribution("AhKh", "2c7dJhAs5c"))
