"""West's loop, end to end on small numbers: a player's hands -> a fitted bot -> the arena -> a tuned bot.

West: "try to get them to find an exploit of the AI, then you can codify this exploit into a temporary AI
opponent to include in your test suite". The "person" here is a known bot (West's tight player, which beats
West's default heads-up) whose arena hands are written as PHH; and a person's own session files, the
player's name as the session recorded it.
"""

from __future__ import annotations

import json

import pytest

from matchdb.cli.main import main
from matchdb.hands import read
from matchdb.human import Session, TableConfig
from matchdb.play.arena import run_arena
from matchdb.play.bots import load_bot
from matchdb.play.sources import TableSource

pytest.importorskip("pokerkit")


def test_wests_loop_runs_from_arena_hands_to_a_tuned_bot(full_store, tmp_path, capsys):
    """The docs' commands, smaller: every step exits 0 and hands its file to the next."""
    db = ["--db", str(full_store)]
    person, bot, tuned = tmp_path / "person", tmp_path / "person.json", tmp_path / "tuned.json"
    assert main(["arena", "--bots", "west,west-tight", "--mode", "cash", "--hands", "50", "--games", "4",
                 "--seed", "1", "--hands-out", str(person), "--quiet", *db]) == 0
    assert len(list(read(person))) == 200
    assert main(["hands", "fit", str(person), "--player", "west-tight", "--cycles", "20", "--out", str(bot),
                 "--quiet", *db]) == 0
    assert load_bot(bot).name == "fitted-westtight"
    assert main(["tune", "bot", "west", "--field", str(bot), "--cycles", "3", "--games", "8", "--hands", "30",
                 "--noise-sessions", "2", "--chunks", "1", "--out", str(tuned), "--quiet", *db]) == 0
    assert main(["arena", "--bots", f"{tuned},{bot}", "--mode", "cash", "--hands", "30", "--games", "6",
                 "--duplicate", "--seed", "2", "--out", str(tmp_path / "final.json"), "--quiet", *db]) == 0
    final = json.loads((tmp_path / "final.json").read_text())
    assert [b["name"] for b in final["bots"]] == ["west-tuned", "fitted-westtight"]
    assert capsys.readouterr().out.count("wrote") >= 3


def test_a_persons_session_files_fit_a_bot_the_arena_plays(full_store, full_db, tmp_path, capsys):
    """Sessions kept by matchdb.human (the person called 'ann'): the folder of sessions fits a bot by her name."""
    sessions = tmp_path / "sessions"
    config = TableConfig(seats=3, opponents="station,fives", stack=200, small_blind=1, big_blind=2, seed=4,
                         name="ann")
    kept = 0
    for k in range(2):  # two sessions of 40 hands: a tight-aggressive person, pairs and aces raised, else out
        session = Session.new(TableConfig.from_dict(config.to_dict() | {"seed": 4 + k}), directory=sessions)
        for _ in range(40):
            while not session.hand_over:
                view = session.view()
                if not view["your_turn"]:
                    session.step()
                    continue
                legal = view["legal"]
                ranks = [card[0] for card in view["hole"]]
                strong = ranks[0] == ranks[1] or "A" in ranks
                if strong and legal["raise"]:
                    session.act("bet" if legal["bet"] else "raise", legal["presets"]["pot"])
                else:
                    session.act("check" if legal["check"] else "fold")
            if session.view()["over"]:
                break
            session.next_hand()
        kept += session.leave()["hands"]
    assert sum("ann" in record.players for record in read(sessions)) == kept >= 80
    out = tmp_path / "ann.json"
    assert main(["hands", "fit", str(sessions), "--player", "ann", "--cycles", "20", "--holdout", "0",
                 "--out", str(out), "--quiet", "--db", str(full_store)]) == 0
    assert "fitted fitted-ann to 'ann'" in capsys.readouterr().out
    fitted = load_bot(out)
    result = run_arena([str(out), "station"], games=2, mode="cash", hands=20, seed=1, source=TableSource(full_db),
                       progress=False)
    assert {b.name for b in result.bots} == {fitted.name, "station"} and result.bot(fitted.name).hands == 40
