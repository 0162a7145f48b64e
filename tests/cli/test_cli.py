"""The command line: the same answers as the Python API, and the same one-sentence errors with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from matchdb.cli.main import main
from matchdb.errors import MatchdbError


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


# -- the CLI ----------------------------------------------------------------------


def test_cli_query_json_equals_the_api(db, small_store, capsys):
    assert main(["query", "AhKh", "2c7dJh", "--players", "3", "--db", str(small_store), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    outcome = db.outcome("AhKh", "2c7dJh")
    assert answer == {
        "hole": "AhKh",
        "board": "2c7dJh",
        "players": 3,
        "villain": "random",
        "win_rate": db.win_rate("AhKh", "2c7dJh", 3),
        "equity": outcome.equity,
        "win": outcome.win,
        "tie": outcome.tie,
        "loss": outcome.loss,
    }
    assert round(answer["win_rate"], 6) == 0.386583 and round(answer["equity"], 6) == 0.572571


def test_cli_query_text_and_a_real_process(small_store):
    done = subprocess.run(
        [sys.executable, "-m", "matchdb", "query", "ahkh", "2c 7d jh", "--villain", "QQ+,AKs", "--db", str(small_store)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "AhKh on 2c7dJh"
    assert "exact heads-up equity vs QQ+,AKs: 0.266566" in done.stdout
    failed = subprocess.run(
        [sys.executable, "-m", "matchdb", "query", "AhKh", "2c7dJh2c", "--db", str(small_store)],
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr == "matchdb: The cards '2c7dJh2c' repeat '2c'; expected distinct cards.\n"


# -- bad input: one table of cases, three interfaces --------------------------------

#: (hole, board, players, villain, part of the message)
BAD_QUERIES = [
    ("AhKx", "2c7dJh", 2, None, "unknown suit 'x'"),
    ("1hKh", "2c7dJh", 2, None, "unknown rank '1'"),
    ("AhK", "2c7dJh", 2, None, "odd number of characters"),
    ("Ah", "2c7dJh", 2, None, "are 1 cards; expected 2"),
    ("AhKhQh", "2c7dJh", 2, None, "are 3 cards; expected 2"),
    ("AhAh", "2c7dJh", 2, None, "repeat 'Ah'"),
    ("AhKh", "", 2, None, "naive win rate before the flop averages over every flop"),  # preflop: needs every table
    ("AhKh", "2c", 2, None, "has 1 cards; expected 3, 4 or 5"),
    ("AhKh", "2c7d", 2, None, "has 2 cards; expected 3, 4 or 5"),
    ("AhKh", "2c7dJh5s9hTd", 2, None, "has 6 cards; expected 3, 4 or 5"),
    ("AhKh", "2c7dZh", 2, None, "unknown rank 'Z'"),
    ("AhKh", "2c2c7d", 2, None, "repeat '2c'"),
    ("AhKh", "Ah7dJh", 2, None, "share 'Ah'; expected distinct cards"),
    ("AhKh", "2c7dJh", 1, None, "players 1 is out of range; expected an integer 2..23"),
    ("AhKh", "2c7dJh", 24, None, "players 24 is out of range"),
    ("AhKh", "2c7dJh", 0, None, "players 0 is out of range"),
    ("AhKh", "2c7dJh", 2, "XX", "cannot be parsed"),
    ("AhKh", "2c7dJh", 2, "QQ+,,AK", "cannot be parsed"),
    ("AhKh", "2c7dJh", 2, "  ", "is empty"),
    ("AhKh", "2c7dJh", 2, "AhQh", "can be dealt beside these hole cards and board"),
    ("AhKh", "2c7dJh", 2, "2c2d", "is possible on the board"),
]


def _api_call(db, hole, board, players, villain):
    db.win_rate(hole, board, players)
    db.outcome(hole, board, villain=villain)


@pytest.mark.parametrize(("hole", "board", "players", "villain", "message"), BAD_QUERIES)
def test_bad_input_python_api(db, hole, board, players, villain, message):
    with pytest.raises(MatchdbError, match=message.replace("(", r"\(").replace("+", r"\+")) as caught:
        _api_call(db, hole, board, players, villain)
    text = str(caught.value)
    assert text.endswith(".") and "\n" not in text


@pytest.mark.parametrize(("hole", "board", "players", "villain", "message"), BAD_QUERIES)
def test_bad_input_cli(db, small_store, capsys, hole, board, players, villain, message):
    argv = ["query", hole, board, "--players", str(players), "--db", str(small_store)]
    if villain is not None:
        argv += ["--villain", villain]
    assert main(argv) == 2
    captured = capsys.readouterr()
    with pytest.raises(MatchdbError) as caught:
        _api_call(db, hole, board, players, villain)
    assert captured.err == f"matchdb: {caught.value}\n" and captured.out == ""


def test_bad_input_cli_database_and_arguments(tmp_path, capsys):
    assert main(["query", "AhKh", "2c7dJh", "--db", str(tmp_path / "none.zarr")]) == 2
    assert capsys.readouterr().err.startswith("matchdb: No database at ")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "file").write_text("x")
    assert main(["info", "--db", str(tmp_path / "junk")]) == 2
    assert "is not a matchdb database" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["query", "AhKh", "2c7dJh", "--players", "two"])
    assert exited.value.code == 2  # argparse's own one-line usage error




# -- every failure one sentence, exit 2 (issue 16) -------------------------------------------


def _matchdb(*argv, timeout=120, **kwargs):
    return subprocess.run([sys.executable, "-m", "matchdb", *argv], capture_output=True, text=True, timeout=timeout, **kwargs)


def _one_sentence(done, start: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"matchdb: {start}") and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_builds_that_cannot_write_say_so_in_one_sentence(tmp_path):
    (tmp_path / "file").write_text("x")
    _one_sentence(_matchdb("build", "--out", str(tmp_path / "file"), "--flops", "0", "--serial", "--quiet"), f"The path '{tmp_path / 'file'}' is a file")
    _one_sentence(_matchdb("build", "--out", "/proc/matchdb.zarr", "--flops", "0", "--serial", "--quiet"), "The store '/proc/matchdb.zarr' cannot be created")


def test_a_file_size_limit_during_a_build_is_one_sentence(tmp_path):
    """ulimit -f: writes fail with EFBIG (Python ignores SIGXFSZ), the finished tables stay."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))  # a shard is about 120 kB

    done = _matchdb("build", "--out", str(tmp_path / "db.zarr"), "--flops", "0-3", "--serial", "--quiet", preexec_fn=limit)
    _one_sentence(done, "Writing table ")
    assert "File too large" in done.stderr and "run the same command again to resume" in done.stderr


def test_a_read_only_disk_is_one_sentence(tmp_path):
    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here to make a read-only disk")
    try:
        assert _matchdb("init", "--out", str(mount / "db.zarr")).returncode == 0
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        _one_sentence(_matchdb("build", "--out", str(mount / "db.zarr"), "--flops", "0", "--serial", "--quiet"), "Writing table 0 to")
    finally:
        subprocess.run(["umount", str(mount)], check=False)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "not an address"])
def test_an_unreachable_or_garbage_scheduler_is_one_sentence(tmp_path, address):
    done = _matchdb("build", "--out", str(tmp_path / "db.zarr"), "--flops", "0", "--scheduler", address, "--quiet", timeout=120)
    _one_sentence(done, f"The Dask scheduler {address!r} cannot be reached")


def test_outputs_into_missing_folders_are_one_sentence(small_store, tmp_path):
    missing = tmp_path / "missing"
    for argv in (
        ["pack", "--db", str(small_store), "--out", str(missing / "x.zip"), "--no-preflop"],
        ["export", "--db", str(small_store), "--out", str(missing / "x.h5")],
        ["preflop", "--db", str(small_store), "--out", str(missing / "x.csv")],
    ):
        _one_sentence(_matchdb(*argv), f"The output '{missing}")
    assert not missing.exists()


def test_verify_and_query_do_not_hang_on_a_fifo(small_store, tmp_path):
    import shutil

    from matchdb.core.canonical import flop_index
    from matchdb.storage.layout import shard_member

    store = tmp_path / "fifo.zarr"
    shutil.copytree(small_store, store)
    index = flop_index("2c7dJh")
    (store / shard_member(index)).unlink()
    os.mkfifo(store / shard_member(index))
    _one_sentence(_matchdb("query", "AhKh", "2c7dJh", "--db", str(store), timeout=30), f"The shard of table {index}")
    done = _matchdb("verify", str(store), "--sample", "0", "--quiet", timeout=60)
    assert done.returncode == 1 and f"bad table {index}: The shard of table {index}" in done.stdout


def test_a_very_long_range_is_refused_at_once(small_store):
    _one_sentence(_matchdb("query", "AhKh", "2c7dJh", "--villain", "AA," * 20_000 + "KK", "--db", str(small_store)), "The range text is 60,002 characters long")


def test_the_default_database_is_found_from_any_folder(tmp_path):
    """The default was data/matchdb.zarr relative to the working directory (issue 15): now the user's data folder."""
    env = {k: v for k, v in os.environ.items() if k != "MATCHDB_PATH"} | {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    (tmp_path / "a").mkdir()
    built = _matchdb("build", "--flops", "2c7dJh", "--serial", "--quiet", cwd=tmp_path / "a", env=env)
    assert built.returncode == 0 and f"into {tmp_path / 'xdg' / 'matchdb' / 'matchdb.zarr'}" in built.stdout
    answered = _matchdb("query", "AhKh", "2c7dJh", "--json", cwd="/", env=env)
    assert answered.returncode == 0 and round(json.loads(answered.stdout)["equity"], 6) == 0.572571
    missing = _matchdb("query", "KsKd", "AhTcTh", cwd="/", env=env)
    _one_sentence(missing, f"The database '{tmp_path / 'xdg' / 'matchdb' / 'matchdb.zarr'}' lacks table")
    assert f"--out {tmp_path / 'xdg' / 'matchdb' / 'matchdb.zarr'}'" in missing.stderr  # the hint names the database


def test_a_one_off_query_loads_no_compiler_and_no_server_stack(small_store):
    """One-shot speed (issue 15): 'matchdb query' answers through numpy; numba, dask, zarr, numcodecs and FastAPI stay unloaded."""
    code = (
        "import sys\n"
        "from matchdb.cli.main import main\n"
        f"main(['query', 'AhKh', '2c7dJh', '--villain', 'QQ+,AKs', '--db', {str(small_store)!r}, '--json'])\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'dask', 'distributed', 'zarr', 'numcodecs', 'fastapi', 'uvicorn', 'llvmlite'})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    answer, loaded = done.stdout.splitlines()
    assert done.returncode == 0 and loaded == "", loaded
    assert round(json.loads(answer)["equity"], 6) == 0.266566


def test_query_without_a_board_is_a_preflop_question(full_db, capsys):
    """Issue 21: 'matchdb query AhKh --villain QsQd', PokerStove's first question, needed a board."""
    from matchdb.cli.main import main

    assert main(["query", "AhKh", "--villain", "QsQd", "--db", str(full_db.path), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["board"] == "" and answer["equity"] == full_db.equity("AhKh", "", villain="QsQd")
    assert abs(answer["equity"] - 0.4621445724590958) < 1e-12  # OMPEval's exact figure


@pytest.mark.parametrize("board", ["2c7dJh", ""])
def test_query_takes_a_hero_range(full_db, capsys, board):
    """A PokerStove user's range against a range from the terminal, on a flop and preflop, equals the API's answer;
    with more opponents it is a multiway question."""
    assert main(["query", "QQ+,AKs", board, "--villain", "JJ-99", "--db", str(full_db.path), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["equity"] == full_db.range_outcome("QQ+,AKs", "JJ-99", board).equity
    assert main(["query", "15%", board, "--db", str(full_db.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["equity"] == full_db.range_outcome("15%", "random", board).equity
    assert main(["query", "QQ+", board, "--villain", "JJ", "--villain", "random", "--seed", "3", "--db",
                 str(full_db.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["equity"] == full_db.multiway("QQ+", board, ["JJ", "random"], seed=3).equity


def test_a_hero_that_is_neither_a_hand_nor_a_range_is_refused(full_db, capsys):
    assert main(["query", "QQ+,,AK", "2c7dJh", "--db", str(full_db.path)]) == 2
    err = capsys.readouterr().err
    assert "The range 'QQ+,,AK' cannot be parsed" in err and "a hand like 'AhKh'" in err
    assert main(["query", "AhK", "2c7dJh", "--db", str(full_db.path)]) == 2  # a mistyped hand keeps the hand's error
    assert "The cards 'AhK' have an odd number of characters" in capsys.readouterr().err


def test_query_a_range_against_a_range_shows_win_tie_and_loss(full_db, capsys):
    """Issue 21: a range in place of the hole cards answers its exact win, tie and loss, on a board and preflop."""
    from matchdb.cli.main import main

    path = str(full_db.path)
    for board in (["2c7dJh"], ["2c7dJh7s"], []):
        assert main(["query", "AK,AQ", *board, "--villain", "AK,KQ", "--db", path, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer == full_db.range_outcome("AK,AQ", "AK,KQ", "".join(board)).to_dict()
        assert answer["tie"] > 0.01 and answer["win"] + answer["tie"] + answer["loss"] == pytest.approx(1.0, abs=1e-15)
    assert main(["query", "ak, aq", "2c7dJh", "--villain", "AK,KQ", "--db", path]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "AK,AQ vs AK,KQ on 2c7dJh",
        "  exact equity of the hero range: 0.594360",
        "  win 0.492479  tie 0.203763  loss 0.303758",
    ]
    assert main(["query", "QQ+", "2c7dJh", "--db", path]) == 0  # no villain: a random hand
    assert capsys.readouterr().out.splitlines()[0] == "QQ+ vs random on 2c7dJh"
    assert main(["query", "QQ+", "2c7dJh", "--players", "3", "--db", path]) == 2
    assert "--players 3 sets the naive win rate of one hand" in capsys.readouterr().err
    assert main(["query", "AhKx", "2c7dJh", "--db", path]) == 2  # neither two cards nor a range: the card's own error
    assert "unknown suit 'x'" in capsys.readouterr().err


def test_percent_prints_the_answers_figures_as_percentages(db, small_store, capsys):
    """Issue 29: ``--percent`` prints every equity and probability as a percentage (four decimals, the six digits of the
    fraction), for a hand, several opponents, a hero range and a distribution; with ``--json`` it is refused."""
    store = str(small_store)
    assert main(["query", "AhKh", "2c7dJh", "--players", "3", "--db", store, "--percent"]) == 0
    report = db.report("AhKh", "2c7dJh", players=3)
    assert capsys.readouterr().out.splitlines() == [
        "AhKh on 2c7dJh",
        f"  naive win rate, 3 players: {100 * report.win_rate:.4f} %",
        f"  exact heads-up equity vs random: {100 * report.equity:.4f} %",
        f"  win {100 * report.win:.4f} %  tie {100 * report.tie:.4f} %  loss {100 * report.loss:.4f} %",
    ]
    assert f"{100 * report.equity:.4f} %" == "57.2571 %"
    assert main(["query", "AhKh", "2c7dJh", "--opponents", "2", "--db", store, "--percent"]) == 0
    multiway = db.multiway("AhKh", "2c7dJh", 2)
    assert capsys.readouterr().out.splitlines()[1] == f"  equity {100 * multiway.equity:.4f} % (exact)" == "  equity 37.5861 % (exact)"
    assert main(["query", "AK,AQ", "2c7dJh", "--villain", "AK,KQ", "--db", store, "--percent"]) == 0
    ranged = db.range_outcome("AK,AQ", "AK,KQ", "2c7dJh")
    assert capsys.readouterr().out.splitlines()[1] == f"  exact equity of the hero range: {100 * ranged.equity:.4f} %"
    assert main(["distribution", "AhKh", "2c7dJh", "--db", store, "--percent"]) == 0
    spread = db.distribution("AhKh", "2c7dJh")
    assert capsys.readouterr().out.splitlines()[1] == (
        f"  equity (EHS) {100 * spread.ehs:.4f} %  EHS^2 {spread.ehs2:.6f}  now (HS) {100 * spread.hs:.4f} %  "
        f"PPot {100 * spread.ppot:.4f} %  NPot {100 * spread.npot:.4f} %")
    assert main(["query", "AhKh", "2c7dJh", "--db", store]) == 0  # without it, fractions as before
    assert "exact heads-up equity vs random: 0.572571" in capsys.readouterr().out
    assert main(["query", "AhKh", "2c7dJh", "--db", store, "--percent", "--json"]) == 2
    assert capsys.readouterr().err == ("matchdb: --percent changes the printed text; --json gives every figure as a "
                                       "fraction: leave one out.\n")


@pytest.mark.parametrize(("pasted", "usual"), [("AA:0.5,KK,AKs:0.25", "0.5(AA),KK,0.25(AKs)"),
                                               ("[50]QQ+,AhKd[/50],JJ", "0.5(QQ+,AhKd),JJ")])
def test_solver_ranges_on_the_command_line(db, small_store, capsys, pasted, usual):
    """Ranges as PioSOLVER / GTO Wizard and GTO+ / Flopzilla write them, as villain and as hero: the API's answers to the
    same range in the usual notation, echoed in it."""
    assert main(["query", "AsKs", "2c7dJh", "--villain", pasted, "--db", str(small_store), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["villain"] == usual and answer["equity"] == db.outcome("AsKs", "2c7dJh", usual).equity
    assert main(["query", pasted, "2c7dJh", "--villain", "T9s", "--db", str(small_store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == db.range_outcome(usual, "T9s", "2c7dJh").to_dict()
