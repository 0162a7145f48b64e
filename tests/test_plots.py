"""Plots: written, non-empty images whose drawn numbers are the API's answers; ``matchdb plot`` and its errors."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from matchdb.cli.main import main
from matchdb.errors import MatchdbError
from matchdb.plots import class_name, grid_table, plot_grid, plot_turns, turn_equities

pytest.importorskip("matplotlib", reason="plots need matplotlib, the plot extra: pip install 'matchdb[plot]'")


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


def _image(path):
    """The pixels of a written PNG, after checking it is one and is not blank."""
    from matplotlib.image import imread

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 300 and pixels.shape[1] > 300
    assert len(np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)) > 50  # many colours, not a blank canvas
    return pixels


def _drawn_grid(ax) -> np.ndarray:
    drawn = ax.images[0].get_array()
    return np.where(np.ma.getmaskarray(drawn), np.nan, np.ma.getdata(drawn))


def test_the_grid_drawn_is_the_hand_tables_grid(db, tmp_path):
    table = db.equities("2c7dJh", villain="QQ+,AKs")
    ax = table.plot(out=tmp_path / "grid.png")
    _image(tmp_path / "grid.png")
    assert np.array_equal(_drawn_grid(ax), table.grid())
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert len(texts) == 169
    for (i, j), text in texts.items():
        assert text == f"{class_name(i, j)}\n{100 * table.grid()[i, j]:.1f}"
    assert texts[(0, 1)].startswith("AKs\n") and texts[(1, 0)].startswith("AKo\n")
    assert ax.get_title() == "exact equity vs QQ+,AKs on 2c7dJh" and ax.images[0].norm.vcenter == 0.5


def test_impossible_classes_are_grey_and_win_rates_centre_on_the_fair_share(db, tmp_path):
    table = db.win_rates("7c7d2s7h", players=4)  # no 77 is left on this board
    ax = table.plot(out=tmp_path / "win-rates.png")
    _image(tmp_path / "win-rates.png")
    drawn = _drawn_grid(ax)
    assert np.isnan(drawn[7, 7]) and np.isnan(table.grid()[7, 7])
    assert np.array_equal(drawn, table.grid(), equal_nan=True)
    assert ax.images[0].norm.vcenter == 0.25
    assert "77\n-" in [t.get_text() for t in ax.texts]


def test_a_notebook_plot_draws_on_pyplot_and_on_given_axes(db):
    import matplotlib.pyplot as plt

    table = db.equities("AhTcTh")
    ax = table.plot()
    try:
        assert ax.figure.number in plt.get_fignums()
        _, mine = plt.subplots()
        assert table.plot(ax=mine) is mine and np.array_equal(_drawn_grid(mine), table.grid(), equal_nan=True)
    finally:
        plt.close("all")


def test_turn_equities_are_the_apis_on_every_turn_board(db, tmp_path):
    turns = turn_equities(db, "AhKh", "2c7dJh", villain="QQ+,AKs")
    assert turns.flop_equity == db.equity("AhKh", "2c7dJh", villain="QQ+,AKs")
    assert len(turns.cards) == 47 and not {"Ah", "Kh", "2c", "7d", "Jh"} & set(turns.cards)
    for card, value in zip(turns.cards, turns.values, strict=True):
        assert value == db.equity("AhKh", "2c7dJh" + card, villain="QQ+,AKs")
    ax = plot_turns(turns.cards, turns.values, reference=turns.flop_equity, out=tmp_path / "turns.png")
    _image(tmp_path / "turns.png")
    assert [p.get_height() for p in ax.patches] == list(turns.values)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(turns.cards)
    assert ax.lines[0].get_ydata()[0] == turns.flop_equity


def test_a_turn_that_empties_the_range_draws_no_bar(db, tmp_path):
    turns = turn_equities(db, "AhKh", "2c7dJh", villain=["AsAd"])
    empty = [card for card, value in zip(turns.cards, turns.values, strict=True) if np.isnan(value)]
    assert empty == ["As", "Ad"]
    ax = plot_turns(turns.cards, turns.values, out=tmp_path / "turns.png")
    assert len(ax.patches) == 45 and [p.get_height() for p in ax.patches] == [v for v in turns.values if not np.isnan(v)]


def test_plotting_refuses_bad_input_in_one_sentence(db):
    cases = [
        (lambda: grid_table(db, "2c7dJh", figure="odds"), "The figure 'odds' is not one of 'equity', 'win-rate'."),
        (lambda: grid_table(db, "2c7dJh", players=30), "The number of players 30 is out of range; expected an integer 2..23."),
        (lambda: turn_equities(db, "AhKh", "2c7dJhQs"), "The flop '2c7dJhQs' is 4 cards; expected 3 (each turn card is dealt to it)."),
        (lambda: turn_equities(db, "AhKh", "2c7dAh"), "The hole cards 'AhKh' and the board '2c7dAh' share 'Ah'; expected distinct cards."),
        (lambda: plot_grid(np.zeros((13, 12))), "The grid has shape (13, 12); expected (13, 13)."),
        (lambda: plot_grid(np.zeros((13, 13)), center=1.0), "The neutral value 1.0 is out of range; expected a number strictly between 0 and 1."),
        (lambda: plot_turns(["As"], [0.1, 0.2]), "There are 1 cards and 2 values; expected one value per card."),
    ]
    for call, message in cases:
        with pytest.raises(MatchdbError) as caught:
            call()
        assert str(caught.value) == message


# -- matchdb plot ---------------------------------------------------------------------------------------


def test_cli_plot_grid_and_turns(db, small_store, tmp_path, capsys):
    grid = tmp_path / "grid.png"
    assert main(["plot", "grid", "2c7dJh", "--villain", "QQ+,AKs", "--db", str(small_store), "--out", str(grid)]) == 0
    assert capsys.readouterr().out == f"drew exact equity vs QQ+,AKs of every hand on 2c7dJh into {grid}\n"
    _image(grid)
    players = tmp_path / "players.png"
    assert main(["plot", "grid", "2c7dJh", "--players", "3", "--db", str(small_store), "--out", str(players)]) == 0
    assert capsys.readouterr().out == f"drew naive win rate, 3 players of every hand on 2c7dJh into {players}\n"
    _image(players)
    turns = tmp_path / "turns.png"
    assert main(["plot", "turns", "AhKh", "2c7dJh", "--db", str(small_store), "--out", str(turns)]) == 0
    assert capsys.readouterr().out == f"drew the exact equity of AhKh after each of 47 turn cards into {turns}\n"
    _image(turns)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["grid", "2c7dJh", "--out", "grid.txt"], "--out is 'grid.txt'; expected a file name ending in .png, .svg or .pdf."),
        (["grid", "2c7dJh", "--out", "no/such/folder/grid.png"], "The output 'no/such/folder/grid.png' is in a folder that does not exist ('no/such/folder'); create it first."),
        (["grid", "2c7dJh", "--figure", "win-rate", "--villain", "AA", "--out", "g.png"], "The naive win rate is against random hands; the villain range 'AA' goes with the figure 'equity'."),
        (["grid", "2c7dJh", "--figure", "equity", "--players", "3", "--out", "g.png"], "The exact equity is heads-up, for 2 players, not 3; the figure 'win-rate' gives the naive win rate for 3 players."),
        (["grid", "3c8d9s", "--out", "g.png"], "lacks table"),
        (["turns", "AhKh", "2c7dJhQs", "--out", "t.png"], "The flop '2c7dJhQs' is 4 cards; expected 3 (each turn card is dealt to it)."),
    ],
)
def test_cli_plot_errors_are_one_line(small_store, tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["plot", *argv, "--db", str(small_store)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("matchdb: ") and err.count("\n") == 1 and message in err
    assert not list(tmp_path.iterdir())  # nothing written


def test_cli_plot_says_in_one_sentence_when_matplotlib_is_missing(small_store, tmp_path, monkeypatch, capsys):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["plot", "grid", "2c7dJh", "--db", str(small_store), "--out", str(tmp_path / "g.png")]) == 2
    assert capsys.readouterr().err == "matchdb: Plotting needs matplotlib (the plot extra); install it with: pip install 'matchdb[plot]'.\n"
    assert not (tmp_path / "g.png").exists()


def _contrast(a, b) -> float:
    """WCAG contrast ratio of two RGB colours (0..1 each)."""

    def luminance(rgb) -> float:
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(("board", "players"), [("2c7dJh", 2), ("7c7d2s7h", 6)])
def test_the_colour_bar_is_in_percent_and_every_cell_reads(db, tmp_path, board, players):
    """Issue 21: the bar ran 0-1 unlabelled while the cells show %, and black text on dark red was hard to read."""
    from matplotlib.colors import to_rgba

    table = db.equities(board) if players == 2 else db.win_rates(board, players=players)
    ax = table.plot(out=tmp_path / "grid.png")
    bar = ax.figure.axes[-1]
    center = 0.5 if players == 2 else 1 / players
    assert bar.get_ylabel() == f"{table.figure} in % (neutral at {100 * center:.1f} %)"
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert labels[0] == "0%" and labels[-1] == "100%" and f"{100 * center:.0f}%" in labels, labels
    image = ax.images[0]
    grid = table.grid()
    worst = 21.0
    for text in ax.texts:
        j, i = (round(v) for v in text.get_position())
        cell = to_rgba(image.cmap.get_bad()) if np.isnan(grid[i, j]) else image.cmap(image.norm(grid[i, j]))
        worst = min(worst, _contrast(cell, to_rgba(text.get_color())))
    assert worst >= 4.5, worst  # WCAG AA for normal text, on every cell


def test_a_first_plot_in_a_new_home_prints_no_library_notes(small_store, tmp_path):
    """In a new HOME matplotlib builds its font cache and logs "generated new fontManager" at INFO; the command
    line used to set the root logger to INFO and printed it as "matchdb: generated new fontManager"."""
    import os
    import subprocess
    import sys

    fresh = {"HOME": str(tmp_path / "home"), "MPLCONFIGDIR": str(tmp_path / "mpl"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = tmp_path / "grid.png"
    done = subprocess.run([sys.executable, "-m", "matchdb", "plot", "grid", "2c7dJh", "--db", str(small_store), "--out", str(out)],
                          capture_output=True, text=True, env={**os.environ, **fresh}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mpl").is_dir()  # matplotlib did start from nothing
    assert "fontManager" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    _image(out)
