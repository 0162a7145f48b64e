"""What a bot builder needs: the hand number and names in the view, on_hand_end, illegal actions refused or
counted, bots from files and modules, PyPokerEngine players, checked bot files and arguments (issues 20, 22)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

from matchdb.cli.main import main
from matchdb.play.arena import ArenaError, parse_seeds, run_arena, seatings
from matchdb.play.bots import Bot, BotError, CallingStation, WestBot, load_bot, make_bot, save_bot
from matchdb.play.engine import CALL, FOLD, RAISE
from matchdb.play.games import GameError, GameSettings, play_game

DATA = Path(__file__).parent / "data"


class Recorder(Bot):
    """Checks or calls, and keeps what it saw and what it was told."""

    name = "recorder"

    def __init__(self):
        self.views = []
        self.results = []

    def act(self, view):
        self.views.append((view.hand, view.names, view.seat))
        return CALL, 0

    def on_hand_end(self, result):
        self.results.append(result)


def test_views_carry_the_hand_number_and_names_and_every_hand_ends_with_a_result():
    bot = Recorder()
    play_game([bot, CallingStation(), make_bot("fives")], GameSettings(mode="cash", hands=30), deal_seed=4)
    assert {names for _, names, _ in bot.views} == {("recorder", "station", "fives")}
    assert [r.hand for r in bot.results] == list(range(30))
    for r in bot.results:
        assert r.seat == 0 and sum(r.net) == 0 and r.shown[0] is not None
        assert all(n == b - a for n, a, b in zip(r.net, r.start, r.stacks, strict=True))
        folded = {seat for _, seat, kind, _ in r.history if kind == FOLD}
        for s in (1, 2):  # opponents' cards only when they reached a showdown
            assert (r.shown[s] is not None) == (r.showdown and s not in folded)
    assert all(r.showdown for r in bot.results)  # two players always call: every hand reaches a showdown


class Raiser(Bot):
    """Raises to 1 chip, then 10**9, then a fraction: each illegal."""

    name = "raiser"

    def __init__(self):
        self.amounts = iter([1, 10**9, 60.5] * 1000)

    def act(self, view):
        return (RAISE, next(self.amounts)) if view.can_raise else (RAISE, 50)


def test_illegal_actions_are_refused_naming_the_bot_or_corrected_and_counted():
    with pytest.raises(GameError) as caught:
        play_game([Raiser(), CallingStation()], GameSettings(mode="cash", hands=5), deal_seed=1)
    assert str(caught.value) == ("The bot 'raiser' (seat 0, preflop of hand 0) raised to 1; expected a raise to 40..1500, "
                                 "a call or a fold (lenient=True, or --lenient, corrects and counts it).")
    result = run_arena([Raiser(), "station"], games=4, seed=1, mode="cash", hands=10, lenient=True, progress=False)
    assert result.bot("raiser").corrections > 0 and result.bot("station").corrections == 0
    assert "corrected" in result.report()


def test_lenient_corrects_and_counts_illegal_actions_and_refuses_answers_that_are_no_action():
    """What the docs say --lenient does: a raise where none is allowed becomes a call, an amount off the range or
    not whole is truncated and clamped, each counted; an answer that is not an action stops the run either way."""

    class Odd(Bot):
        def __init__(self, answer):
            self.name, self.answer = "odd", answer

        def act(self, view):
            return self.answer

    raiser = Raiser()
    kept = []
    result = play_game([raiser, CallingStation()], GameSettings(mode="cash", hands=6), deal_seed=1, lenient=True,
                       on_hand=kept.append)
    corrected = int(result.extra["corrections"][0])
    assert corrected > 0 and result.extra["corrections"][1] == 0
    raises = [amount for hand in kept for _, seat, kind, amount in hand.record.history if seat == 0 and kind == RAISE]
    assert raises and all(isinstance(a, int) for a in raises) and int(result.net.sum()) == 0  # played as legal raises
    for answer, said in (((RAISE, float("nan")), "raised to nan; expected a whole number of chips"),
                         ((RAISE, "50"), "raised to '50'; expected a whole number of chips"),
                         (("raise", 50), "answered the action 'raise'; expected FOLD (0)"),
                         (None, "answered None; expected (kind, amount)")):
        with pytest.raises(GameError, match=re.escape(f"The bot 'odd' (seat 0, preflop of hand 0) {said}")):
            play_game([Odd(answer), CallingStation()], GameSettings(mode="cash", hands=2), deal_seed=1, lenient=True)


BOOM_FILE = '''
class Boom:
    """Fails on its first decision, as a bot with a bug does."""

    name = "boom"

    def act(self, view):
        return {}["no such key"]
'''


def test_a_bot_that_fails_in_act_is_named_in_one_sentence_by_the_arena_the_cli_and_tuning(tmp_path, capsys):
    path = tmp_path / "boom.py"
    path.write_text(BOOM_FILE)
    with pytest.raises(GameError) as caught:
        run_arena([f"{path}:Boom", "station"], games=2, seed=1, progress=False)
    message = str(caught.value)
    assert message.startswith("The bot 'boom' (seat ") and message.endswith("failed in act: KeyError: 'no such key'.")
    assert isinstance(caught.value.__cause__, KeyError)  # the bot's own traceback stays with the error in Python
    for argv in (["arena", "--bots", f"{path}:Boom,station", "--games", "2", "--quiet"],
                 ["arena", "--bots", f"{path}:Boom,station", "--games", "2", "--quiet", "--lenient"],
                 ["tune", "bot", "fives", "--field", f"{path}:Boom", "--cycles", "1", "--games", "2",
                  "--noise-sessions", "2", "--chunks", "1", "--quiet"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("matchdb: The bot 'boom' (seat ") and err.count("\n") == 1, (argv, err)
        assert "failed in act: KeyError: 'no such key'." in err


def test_a_bot_that_fails_when_told_of_a_game_or_a_hand_is_named():
    class Forgetful(Bot):
        name = "forgetful"

        def __init__(self, where):
            self.where = where

        def act(self, view):
            return CALL, 0

        def on_game_start(self, start):
            if self.where == "start":
                raise RuntimeError("no memory")

        def on_hand_end(self, result):
            if self.where == "end":
                raise RuntimeError("no memory")

    for where, said in (("start", "before the game's first hand) failed in on_game_start"),
                        ("end", "at the end of hand 0) failed in on_hand_end")):
        with pytest.raises(GameError, match=re.escape(f"The bot 'forgetful' (seat 1, {said}: RuntimeError: no memory.")):
            play_game([CallingStation(), Forgetful(where)], GameSettings(mode="cash", hands=2), deal_seed=1)


def test_a_bot_without_a_pair_answer_is_named_by_its_name():
    class Mute(Bot):
        name = "mute"

        def act(self, view):
            return None

    with pytest.raises(GameError, match="The bot 'mute' \\(seat 0, preflop of hand 0\\) answered None; expected"):
        play_game([Mute(), CallingStation()], GameSettings(mode="cash", hands=2), deal_seed=1)


BOT_FILE = '''
from matchdb.play.engine import CALL, FOLD, RAISE


class Pairs:
    """All in with any pair, else check or fold."""

    def act(self, view):
        high, low = (card % 13 for card in view.hole)
        if high == low and view.can_raise:
            return RAISE, view.max_raise_to
        return (CALL, 0) if view.to_call == 0 else (FOLD, 0)
'''


def test_a_bot_written_in_a_file_plays_in_matchdb_arena(tmp_path, capsys):
    path = tmp_path / "mybot.py"
    path.write_text(BOT_FILE)
    bot = make_bot(f"{path}:Pairs")
    assert bot.name == "Pairs"  # named after its class when it has no name
    assert main(["arena", "--bots", f"{path}:Pairs,station,fives", "--games", "12", "--seed", "2", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "\nPairs " in printed and "paired differences of win share per set" not in printed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("missing_file.py:Pairs", "The bot file 'missing_file.py' of 'missing_file.py:Pairs' does not exist"),
        ("no_such_module_xyz:Bot", "The bot module 'no_such_module_xyz' of 'no_such_module_xyz:Bot' cannot be imported"),
        ("matchdb.play.examples:Nothing", "'matchdb.play.examples' has no class 'Nothing'"),
        ("matchdb.play.engine:Rules", "The class Rules of 'matchdb.play.engine' has no act(view) method"),
    ],
)
def test_bad_bot_specs_say_what_was_expected(spec, message):
    with pytest.raises(BotError) as caught:
        make_bot(spec)
    assert str(caught.value).startswith(message)


def test_the_opponent_modelling_bot_learns_from_hand_results(source):
    from matchdb.play.examples import Exploiter

    bot = Exploiter()
    run_arena([bot, "station", "fives"], games=60, seed=3, mode="cash", hands=40, source=source, progress=False)
    assert bot.fold_rate("station") == 0.0  # a calling station never folds
    assert bot.fold_rate("fives") > 0.6  # fives folds everything but pairs


def test_module_and_pypokerengine_bots_play_in_matchdb_arena(db, capsys):
    pytest.importorskip("pypokerengine", reason="PyPokerEngine is a test dependency: pip install PyPokerEngine")
    honest = DATA / "honest_player.py"
    argv = ["arena", "--bots", f"{honest}:HonestPlayer,matchdb.play.examples:Exploiter,west,fives", "--games", "8",
            "--seed", "1", "--mode", "cash", "--hands", "20", "--db", str(db.path), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "\nHonestPlayer " in printed and "\nexploiter " in printed


def test_the_pypokerengine_adapter_speaks_its_messages():
    pytest.importorskip("pypokerengine", reason="PyPokerEngine is a test dependency: pip install PyPokerEngine")
    from pypokerengine.players import BasePokerPlayer

    from matchdb.play.adapters import PyPokerEngineBot

    class Logger(BasePokerPlayer):
        def __init__(self):
            self.seen = []

        def declare_action(self, valid_actions, hole_card, round_state):
            self.seen.append(("ask", valid_actions, hole_card, round_state["street"]))
            return valid_actions[1]["action"], valid_actions[1]["amount"]

        def receive_game_start_message(self, game_info):
            self.seen.append(("start", game_info["player_num"]))

        def receive_round_start_message(self, round_count, hole_card, seats):
            self.seen.append(("round", round_count, hole_card))

        def receive_street_start_message(self, street, round_state):
            self.seen.append(("street", street))

        def receive_game_update_message(self, action, round_state):
            self.seen.append(("update", action["action"]))

        def receive_round_result_message(self, winners, hand_info, round_state):
            self.seen.append(("result", [w["uuid"] for w in winners], len(hand_info)))

    player = Logger()
    play_game([PyPokerEngineBot(player), CallingStation()], GameSettings(mode="cash", hands=3), deal_seed=5)
    kinds = [entry[0] for entry in player.seen]
    assert kinds[0] == "start" and player.seen[0][1] == 2 and kinds.count("round") == 3 and kinds.count("result") == 3
    ask = next(entry for entry in player.seen if entry[0] == "ask")
    assert [a["action"] for a in ask[1]] == ["fold", "call", "raise"] and len(ask[2]) == 2 and ask[2][0][0] in "CDHS"
    results = [entry for entry in player.seen if entry[0] == "result"]
    assert all(r[2] == 2 for r in results)  # two calling players reach every showdown: both hands shown


# -- issue 20: bot files and arguments checked before any work ----------------------------------------------


def write_bot(tmp_path, text: str) -> Path:
    path = tmp_path / "bot.json"
    path.write_text(text)
    return path


def test_bot_files_are_checked_against_their_schema(tmp_path):
    good = json.loads(save_bot(WestBot(), tmp_path / "west.json").read_text())
    cases = {
        "threshold text": (good | {"strength": good["strength"] | {"threshold": "x"}},
                           "has the strength threshold 'x'; expected a number."),
        "threshold NaN": (None, "cannot be read as JSON (NaN is not a JSON number)."),
        "parameter text": (good | {"parameters": {"rr_low": "high"}}, "has the parameter rr_low = 'high'; expected a finite number."),
        "unknown field": (good | {"strength": {"kind": "naive", "colour": 1}}, "has a strength field 'colour'"),
    }
    for label, (data, message) in cases.items():
        nan = json.dumps(good).replace('"threshold": 0.0', '"threshold": NaN')
        text = json.dumps(data) if data is not None else nan
        with pytest.raises(BotError) as caught:
            load_bot(write_bot(tmp_path, text))
        assert message in str(caught.value), label
    deep = write_bot(tmp_path, '{"kind": "matchdb-bot", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(BotError, match="nests arrays or objects 100001 deep; expected at most 16."):
        load_bot(deep)
    assert load_bot(write_bot(tmp_path, json.dumps(good))).name == "west"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "matchdb: --seed is -1; expected 0..4,294,967,295."),
        (["--games", "0"], "matchdb: --games is 0; expected 1..100,000,000."),
        (["--hands", "0"], "matchdb: --hands is 0; expected 1..1,000,000."),
        (["--seeds", "5-1"], "matchdb: The seeds '5-1' are not seeds like 1-5 or 1,3,7"),
        (["--out", "missing/dir/r.csv"], "matchdb: The output 'missing/dir/r.csv' is in a folder that does not exist"),
        (["--plot", "o.csv"], "matchdb: --plot is 'o.csv'; expected a file name ending in .png, .svg or .pdf."),
        (["--out", "r.txt"], "matchdb: --out is 'r.txt'; expected a file name ending in .csv or .json."),
    ],
)
def test_arena_arguments_and_outputs_are_checked_before_any_game(argv, message, capsys):
    started = time.perf_counter()
    full = ["arena", "--bots", "fives,station", "--games", "100000000", *argv]
    if "--games" in argv:
        full = ["arena", "--bots", "fives,station", *argv]
    assert main(full) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert time.perf_counter() - started < 5  # refused before the 100 million games


# -- seeds, seatings, pairs -------------------------------------------------------------------------------


def test_pooled_seeds_are_the_seeds_played_one_by_one():
    pooled = run_arena(["fives", "station", "random"], games=12, seeds="1-3", duplicate=True, progress=False)
    alone = run_arena(["fives", "station", "random"], games=12, seed=2, duplicate=True, progress=False)
    rows = [k for k, (seed, _) in enumerate(pooled.units) if seed == 2]
    for name in ("fives", "station", "random"):
        assert np.array_equal(pooled.unit_values[name]["wins"][rows], alone.unit_values[name]["wins"])
    assert pooled.settings["units"] == 3 * alone.settings["units"] and "seeds 1-3 pooled" in pooled.report()
    assert parse_seeds("1-3,7") == [1, 2, 3, 7]


def test_seatings_cover_every_order_or_every_rotation_of_a_random_one():
    three = seatings(3, 3, seed=1, unit=0, duplicate=True)
    assert sorted(map(tuple, three)) == sorted(__import__("itertools").permutations(range(3)))
    six = seatings(6, 6, seed=1, unit=4, duplicate=True)
    assert len(six) == 6 and all(sorted(column) == list(range(6)) for column in zip(*six, strict=True))  # every bot every seat
    assert six != seatings(6, 6, seed=1, unit=5, duplicate=True)  # a new seating each set
    assert seatings(6, 6, 1, 0, True, permute=False)[0] == list(range(6))


def test_paired_differences_speak_only_where_the_interval_supports_it(tmp_path):
    result = run_arena(["fives", "station", "random"], games=300, seed=1, duplicate=True, progress=False)
    pair = result.pair("fives", "station")
    assert pair.difference.low > 0 and pair.statement().startswith("fives beats station by ")
    a, b = (np.asarray(result.unit_values[n]["wins"]) for n in ("fives", "station"))
    assert pair.difference.mean == pytest.approx(float((a - b).mean()))
    tiny = run_arena(["station", CallingStation(name="station-2")], games=4, seed=1, duplicate=True, progress=False)
    assert tiny.pair("station", "station-2").statement().startswith("no difference shown between station and station-2")
    assert "bb/100" not in result.report() and "win share" in result.report()
    cash = run_arena(["fives", "station"], games=8, seed=1, mode="cash", hands=20, duplicate=True, progress=False)
    assert "bb/100" in cash.report() and "win share" not in cash.report().splitlines()[2]
    path = result.save(tmp_path / "r.csv")
    units = path.with_suffix(".units.csv").read_text().splitlines()
    assert units[0].startswith("seed,unit,bot,wins,place") and len(units) == 1 + 3 * result.settings["units"]
    assert "fives beats station" in path.with_suffix(".pairs.csv").read_text()
    data = result.to_dict()
    assert len(data["units"]["values"]["fives"]["wins"]) == result.settings["units"] and data["pairs"]


def test_bad_seeds_are_refused():
    for seeds, message in (([], "are not 1 to 1000 different seeds"), ([1, 1], "are not 1 to 1000 different seeds"),
                           ([-1], "The seed -1 is not a whole number of at least 0.")):
        with pytest.raises(ArenaError, match=message.replace("(", "\\(")):
            run_arena(["fives", "station"], games=2, seeds=seeds)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bot", "fives", "--field", "station", "--seed", "-1"], "matchdb: --seed is -1; expected 0..9,223,372,036,854,775,807."),
        (["bot", "fives", "--field", "station", "--cycles", "0"], "matchdb: --cycles is 0; expected 1..1,000,000."),
        (["bot", "fives", "--field", "station", "--step", "nan"], "matchdb: --step is nan; expected 1e-06..1."),
        (["bot", "fives", "--field", "station", "--noise-sessions", "1"], "matchdb: --noise-sessions is 1; expected 2..1,000."),
        (["preflop", "--critical", "AA:900,KK:800", "--changes", "0"], "matchdb: --changes is 0; expected 1..11."),
    ],
)
def test_tune_numbers_are_checked_before_any_work(argv, message, capsys):
    assert main(["tune", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
