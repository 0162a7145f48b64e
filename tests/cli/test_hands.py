"""``matchdb hands read|replay|analyse|fit`` as a user runs them: output, files written, exit status 2 on mistakes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pokerkit", reason="the hands commands read through pokerkit")

DATA = Path(__file__).resolve().parents[1] / "data" / "hands"


def run(*args: str, db: str | None = None) -> subprocess.CompletedProcess:
    env = None
    if db is not None:
        import os

        env = dict(os.environ, MATCHDB_PATH=db)
    return subprocess.run([sys.executable, "-m", "matchdb", "hands", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_read_counts_and_shows_hands():
    done = run("read", str(DATA / "abs-100nl.phhs"), "--show", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "read 83 hands: 83 no-limit hold'em records, refused 0 (none)",
        "abs-100nl.phhs [1]: 3 players, blinds ['0.50', '1.00', '0.00'], 6 actions",
    ]


def test_replay_prints_the_counts_as_text_and_json():
    done = run("replay", str(DATA), "--quiet")
    assert done.returncode == 0
    assert done.stdout.splitlines()[:2] == [
        "read 191 hands: 45 identical, 50 raked (rake 44.40 in all), 95 without recorded winnings, refused 1 "
        "(1 disagreement)",
        "noted: 14 uncalled bet counted as won, 1 winnings from finishing stacks, 1 split pot raked, 2 post of a new "
        "player, 1 no big blind, 2 hidden hand paid on the board, 1 post counted as dead money"]
    data = json.loads(run("replay", str(DATA), "--json", "--quiet").stdout)
    assert (data["identical"], data["raked"], data["unrecorded"], data["refused"]) == (45, 50, 95, {"disagreement": 1})
    assert data["noted"]["post counted as dead money"] == 1


def test_a_hand_past_the_limits_is_one_line_and_the_others_are_counted(tmp_path):
    """A stack of 2^63 among real hands: replay and analyse go on, naming the hand and the bound."""
    text = (DATA / "abs-100nl.phhs").read_text()
    first = text[:text.index("\n\n[2]")]
    path = tmp_path / "huge.phhs"
    path.write_text(first.replace("[1]", "[0]").replace("[200.30,", "[92233720368547758.08,") + "\n\n" + text)
    sentence = ("Hand [0] of huge.phhs has an amount of 9,223,372,036,854,775,808 chips; matchdb reads amounts of at "
                "most 10^15 chips (10,000,000,000,000.00 in this hand's currency).")
    done = run("replay", str(path), "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("read 84 hands: ") and "refused 2 (1 disagreement, 1 limit)" in done.stdout
    assert f"  {sentence}" in done.stdout.splitlines()
    done = run("analyse", str(path), "--no-db", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "refused 2 (1 disagreement, 1 limit)" in done.stdout


def test_analyse_writes_csv_and_a_plot(full_store, tmp_path):
    player = "zaogaltCDFVsIASEnrXs2w"
    done = run("analyse", str(DATA), "--csv", str(tmp_path / "p.csv"), "--plot", str(tmp_path / "p.png"),
               "--player", player, "--min-hands", "20", "--quiet", db=str(full_store))
    assert done.returncode == 0, done.stderr
    assert "adj bb/100" in done.stdout
    assert (tmp_path / "p.csv").read_text().startswith("player,hands,vpip")
    assert (tmp_path / "p.png").stat().st_size > 1000


@pytest.mark.parametrize(("args", "message"), [
    (("read", "nowhere.phhs"), "matchdb: The hand history 'nowhere.phhs' does not exist or is not a file"),
    (("analyse", str(DATA), "--plot", "x.png", "--no-db"), "matchdb: --plot draws one player's winnings; name them"),
    (("analyse", str(DATA), "--csv", "x.txt", "--no-db"), "matchdb: --csv is 'x.txt'; expected a file name ending"),
    (("fit", str(DATA), "--player", "nobody", "--out", "bot.txt"), "matchdb: --out is 'bot.txt'; expected"),
])
def test_mistakes_exit_2_with_one_line(args, message):
    done = run(*args)
    assert done.returncode == 2
    assert done.stderr.startswith(message) and len(done.stderr.strip().splitlines()) == 1
