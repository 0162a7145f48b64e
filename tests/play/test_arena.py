"""The arena: claims about bots with confidence intervals and fixed seeds, reproducibility, duplicate mode, CLI."""

from __future__ import annotations

import builtins
import csv
import io
import json
import statistics

import numpy as np
import pytest

from matchdb.cli.main import main
from matchdb.play.arena import DEFAULT_FIELD, ArenaError, Estimate, run_arena
from matchdb.play.bots import Bot, CallingStation
from matchdb.play.engine import CALL

NO_DATABASE = ["fives", "station", "random"]


# -- claims about the articles' bots -------------------------------------------------------------


@pytest.mark.parametrize(("opponent", "games"), [("allin", 1000), ("fives", 600)])
def test_west_beats_wests_simple_opponents(source, opponent, games):
    """West's bot wins more than half of the heads-up tournaments against always-all-in and pair-of-fives:
    seed 7, duplicate sets, the 95 % interval of its win rate minus one half excludes zero.

    Measured here: against allin 0.585 [0.560, 0.610] over 500 sets, against fives 0.623 [0.585, 0.662] over 300.
    """
    result = run_arena(["west", opponent], games=games, seed=7, duplicate=True, source=source, progress=False)
    west = result.bot("west")
    assert west.wins.low > 0.5, west.wins
    assert result.bot(opponent).wins.high < 0.5


def test_the_same_seed_gives_the_same_results(source):
    runs = [run_arena(["west", "income", "tomlinson", "allin"], games=24, seed=3, duplicate=True, source=source,
                      progress=False) for _ in range(2)]
    assert runs[0].to_dict()["bots"] == runs[1].to_dict()["bots"]
    other = run_arena(["west", "income", "tomlinson", "allin"], games=24, seed=4, duplicate=True, source=source,
                      progress=False)
    assert other.to_dict()["bots"] != runs[0].to_dict()["bots"]


@pytest.mark.parametrize(("mode", "figure", "ratio"), [("cash", "bb_per_100", 0.9), ("tournament", "place", 0.95)])
def test_duplicate_mode_has_lower_variance_than_plain_mode(mode, figure, ratio):
    """The same bots, games and seed: duplicate sets narrow the intervals of the bots whose luck is the cards'.

    (Three seats: a set plays all six orders of the bots, so 600 games are 100 sets; tournaments, where the
    order of busting matters more than the cards, narrow less: 0.90 of the plain width for random.)
    """
    kwargs = dict(games=600, seats=3, seed=5, mode=mode, hands=100, progress=False)
    plain = run_arena(NO_DATABASE, duplicate=False, **kwargs)
    duplicate = run_arena(NO_DATABASE, duplicate=True, **kwargs)
    for name in ("station", "random"):
        wide = getattr(plain.bot(name), figure).half_width
        narrow = getattr(duplicate.bot(name), figure).half_width
        assert narrow < ratio * wide, (name, narrow, wide)


def test_personalities_play_visibly_different_styles(source):
    result = run_arena(["west-tight", "west-loose", "west-aggressive", "west-passive"], games=40, seats=4, seed=2,
                       mode="cash", hands=50, source=source, progress=False)
    tight, loose, aggressive, passive = (result.bot(f"west-{p}") for p in ("tight", "loose", "aggressive", "passive"))
    assert loose.vpip > tight.vpip + 0.2  # about 0.74 against 0.34
    assert aggressive.pfr > passive.pfr + 0.2  # about 0.48 against 0.12
    assert aggressive.aggression > 2 * passive.aggression
    assert min(b.hands for b in result.bots) == 2000


# -- the run's mechanics -------------------------------------------------------------------------------


def test_bots_fill_the_seats_in_turn_and_results_are_pooled_by_name():
    result = run_arena(["fives", "station"], games=6, seats=5, seed=1, progress=False)
    assert [b.name for b in result.bots] == ["fives", "station"]
    assert [b.seats for b in result.bots] == [3, 2]
    assert sum(sum(b.places) for b in result.bots) == 6 * 5
    assert sum(b.wins.mean for b in result.bots) == pytest.approx(1.0)  # one winner per game
    duplicate = run_arena(["fives", "station"], games=7, seats=5, seed=1, duplicate=True, progress=False)
    assert duplicate.settings["games"] == 10 and duplicate.settings["units"] == 2  # whole sets


class Checker(Bot):
    """A bot written in Python: checks or calls."""

    name = "checker"

    def act(self, view):
        return CALL, 0


def test_python_bots_play_in_the_arena():
    result = run_arena([Checker(), "fives", CallingStation(name="other station")], games=9, seed=2, progress=False)
    assert [b.name for b in result.bots] == ["checker", "fives", "other station"]
    checker = result.bot("checker")
    assert checker.pfr == 0 and checker.aggression == 0 and checker.hands > 50


def test_any_object_with_act_and_a_name_plays():
    class Folder:  # not a Bot subclass: the interface is act(view) and a name
        name = "folder"

        def act(self, view):
            return CALL, 0

    result = run_arena([Folder(), "station"], games=4, seed=1, progress=False)
    assert result.bot("folder").pfr == 0 and result.bot("folder").hands > 0
    with pytest.raises(ArenaError, match="has no act\\(view\\) method or no name"):
        run_arena([object(), "station"], games=2)


def test_the_default_field_is_the_articles(source):
    result = run_arena(None, games=6, seed=1, source=source, progress=False)
    assert tuple(b.name for b in result.bots) == DEFAULT_FIELD and result.settings["seats"] == 6


def test_dask_workers_give_the_same_results():
    one = run_arena(NO_DATABASE, games=30, seed=4, duplicate=True, workers=1, progress=False)
    two = run_arena(NO_DATABASE, games=30, seed=4, duplicate=True, workers=2, progress=False)
    assert one.to_dict()["bots"] == two.to_dict()["bots"]


def test_intervals_are_student_t():
    scipy_stats = pytest.importorskip("scipy.stats")
    values = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.5, 0.25])
    estimate = Estimate.of(values)
    half = scipy_stats.t.ppf(0.975, 9) * statistics.stdev(values.tolist()) / len(values) ** 0.5
    assert estimate.mean == pytest.approx(statistics.fmean(values.tolist()))
    assert (estimate.low, estimate.high) == pytest.approx((estimate.mean - half, estimate.mean + half), abs=1e-3)
    assert estimate.units == 10


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(bots=["fives"] * 4, seats=3), "4 bots do not fit 3 seats; give at most 3 bots or more seats."),
        (dict(bots="fives,station", games=0), "The number of games 0 is not a whole number of at least 1."),
        (dict(bots="fives,station", seats=11), "The number of seats 11 is out of range; expected 2..10."),
        (dict(bots="fives,station", mode="sng"), "The mode 'sng' is unknown; expected 'tournament' or 'cash'."),
        (dict(bots="fives,station", workers=0), "The number of workers 0 is not a whole number of at least 1."),
        (dict(bots=[]), "No bots were given; expected at least one, like 'west,allin'."),
    ],
)
def test_arena_errors_say_what_was_expected(kwargs, message):
    with pytest.raises(ArenaError) as caught:
        run_arena(**{"games": 2, **kwargs})
    assert str(caught.value) == message


# -- command line -----------------------------------------------------------------------------------


def run_cli(argv: list[str]) -> int:
    """``matchdb arena ARGV`` through the real command line's entry point."""
    return main(["arena", *argv])


def cli(*argv: str) -> list[str]:
    return list(argv)


def test_cli_prints_results_and_writes_csv_and_json(tmp_path, capsys):
    out_csv = tmp_path / "results.csv"
    assert run_cli(cli("--bots", "fives,station,random", "--games", "12", "--seed", "3", "--out", str(out_csv), "--quiet")) == 0
    printed = capsys.readouterr().out
    assert "12 tournament games, 3 seats, seed 3" in printed and f"wrote {out_csv}" in printed
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    assert [r["bot"] for r in rows] == ["fives", "station", "random"]
    assert sum(float(r["wins"]) for r in rows) == pytest.approx(1.0)
    out_json = tmp_path / "results.json"
    assert run_cli(cli("--bots", "fives,station,random", "--games", "12", "--seed", "3", "--duplicate", "--mode",
                       "cash", "--hands", "30", "--out", str(out_json), "--quiet")) == 0
    data = json.loads(out_json.read_text())
    assert data["settings"]["duplicate"] is True and data["settings"]["hands"] == 30
    assert [b["name"] for b in data["bots"]] == ["fives", "station", "random"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--bots", "fives,bluffer", "--games", "2"), "matchdb: The bot 'bluffer' is unknown"),
        (("--bots", "fives,station", "--games", "2", "--out", "results.txt"), "expected a file name ending in .csv or .json."),
        (("--bots", "fives,station", "--games", "2", "--decode"), "--decode needs --tables"),
        (("--bots", "fives,station", "--games", "2", "--tables", "/nonexistent"), "No decoded tables at"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(capsys, argv, message):
    assert run_cli(cli(*argv)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_draws_a_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the plot is an optional extra: pip install matplotlib")
    image = tmp_path / "results.png"
    assert run_cli(cli("--bots", "fives,station", "--games", "4", "--plot", str(image), "--quiet")) == 0
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_says_in_one_sentence_when_matplotlib_is_missing(tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert run_cli(cli("--bots", "fives,station", "--games", "2", "--plot", str(tmp_path / "x.png"), "--quiet")) == 2
    assert capsys.readouterr().err.startswith("matchdb: Plotting needs matplotlib")


def test_cli_runs_the_default_field_on_a_database(db, capsys):
    assert run_cli(cli("--games", "6", "--db", str(db.path), "--quiet")) == 0
    printed = capsys.readouterr().out
    assert all(f"\n{name} " in printed for name in DEFAULT_FIELD)
