"""The command line's manners (issue 21 item 5), each papercut with a test that failed before.

Suggestions for a mistyped command, choice or option (given by the command it
belongs to, not the top-level usage); every option's default in its help;
``report --sort`` checked before any work; counts in the singular where one;
ranges echoed in their usual form; ``matchdb grid BOARD`` printing the 13 x 13
grid in the terminal, its numbers the Python API's.
"""

from __future__ import annotations

import argparse
import json
import math
import re

import pytest

from matchdb.cli.main import main, parser


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


def _refused(argv: list[str], capsys) -> str:
    """What argparse writes when it refuses ``argv`` (exit status 2)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err


def test_a_mistyped_command_gets_a_suggestion(capsys):
    err = _refused(["qurey", "AhKh", "2c7dJh"], capsys)
    assert err.splitlines()[-1].endswith("invalid choice: 'qurey' (choose from 'build', 'verify', 'init', 'pack', 'export', "
                                         "'abstraction', 'info', 'query', 'grid', 'distribution', 'report', 'preflop', 'solve', 'library', 'plot', "
                                         "'arena', 'tune', 'play', 'hands', 'serve'); did you mean 'query'?")
    assert "did you mean 'grid'?" in _refused(["gird", "2c7dJh"], capsys)
    assert "did you mean" not in _refused(["xyzzy"], capsys)  # nothing close: no guess


def test_a_mistyped_option_is_refused_by_its_command_with_a_suggestion(capsys):
    err = _refused(["query", "AhKh", "2c7dJh", "--villian", "QQ+"], capsys)
    assert err.startswith("usage: matchdb query ")  # the command's usage, not the top-level one
    assert err.splitlines()[-1] == "matchdb query: error: unrecognized arguments: --villian QQ+; did you mean '--villain'?"
    err = _refused(["plot", "grid", "2c7dJh", "--out", "grid.png", "--vilain=AA"], capsys)
    assert err.startswith("usage: matchdb plot grid ") and err.endswith("did you mean '--villain'?\n")
    err = _refused(["query", "AhKh", "2c7dJh", "--method", "exac"], capsys)
    assert err.splitlines()[-1].endswith("invalid choice: 'exac' (choose from 'auto', 'exact', 'sample', 'independent'); did you mean 'exact'?")


def _parsers(top: argparse.ArgumentParser, name: str = "matchdb"):
    """Every (sub)command parser with its full name."""
    yield name, top
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def test_every_help_names_every_default():
    checked = 0
    for name, command in _parsers(parser()):
        formatter = command._get_formatter()
        for action in command._actions:
            if not action.option_strings or action.default in (None, False, argparse.SUPPRESS) or action.nargs == 0:
                continue
            shown = formatter._get_help_string(action) % {"default": action.default, "prog": name}
            assert "default" in shown, (name, action.option_strings, shown)
            checked += 1
    assert checked > 30
    helps = {name: command.format_help() for name, command in _parsers(parser())}
    assert re.search(r"--players PLAYERS\s+naive win rates to show: a number or a span like 2\.\.10\s+\(default 2\.\.10\)", helps["matchdb preflop"])
    assert re.search(r"--mode \{tournament,cash\}\s+one of tournament, cash \(default tournament\)", helps["matchdb arena"])
    assert re.search(r"entries to recompute with the pure-Python twin \(default\s+100\)", helps["matchdb verify"])
    assert "(default none beside the villains)" in re.sub(r"\s+", " ", helps["matchdb query"])
    assert "(default: a fresh one, printed with the answer)" in re.sub(r"\s+", " ", helps["matchdb query"])


def test_report_sort_is_checked_before_any_work(small_store, capsys):
    assert main(["report", "QQ+", "--sort", "equty", "--db", str(small_store)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("matchdb: --sort is 'equty'; did you mean 'equity'? expected one of flop, index, count, equity, frequency, ")
    assert err.count("\n") == 1
    assert main(["report", "QQ+", "--sort", "bogus", "--db", str(small_store)]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_counts_in_the_singular(db, small_store, capsys):
    assert main(["query", "AhKh", "2c7dJh", "--opponents", "1", "--db", str(small_store)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "AhKh on 2c7dJh against 1 opponent (random)"
    assert main(["distribution", "AhKh", "2c7dJhAs5c", "--db", str(small_store)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "AhKh on 2c7dJhAs5c against random: 1 runout, 50 bins"


def test_ranges_are_echoed_as_usually_written(db, small_store, capsys):
    assert main(["query", "AhKh", "2c7dJh", "--villain", "qq+, kas", "--db", str(small_store)]) == 0
    out = capsys.readouterr().out
    assert "exact heads-up equity vs QQ+,AKs: 0.266566" in out
    assert db.outcome("AhKh", "2c7dJh", "qq+,aks") == db.outcome("AhKh", "2c7dJh", "QQ+,AKs")
    assert db.multiway("AhKh", "2c7dJh", ["jj-99", "random"]).opponents == ("JJ-99", "random")


def _grid_rows(text: str) -> list[list[str]]:
    return [line.split()[1:] for line in text.splitlines()[2:]]


@pytest.mark.parametrize("extra", [[], ["--villain", "qq+,AKs"], ["--players", "4"]])
def test_grid_prints_the_apis_grid(db, small_store, capsys, extra):
    assert main(["grid", "2c7dJh", *extra, "--db", str(small_store)]) == 0
    out = capsys.readouterr().out
    if "--players" in extra:
        table, title = db.win_rates("2c7dJh", players=4), "naive win rate, 4 players of every hand on 2c7dJh"
    else:
        villain = "QQ+,AKs" if extra else None
        table, title = db.equities("2c7dJh", villain), f"exact equity vs {villain or 'random'} of every hand on 2c7dJh"
    lines = out.splitlines()
    assert lines[0].startswith(title + ", in % (suited above the diagonal, offsuit below; neutral at ")
    assert lines[1].split() == list("AKQJT98765432") and len(lines) == 15
    assert max(len(line) for line in lines[1:]) <= 81 and "\x1b" not in out  # fits a terminal; no colour in a pipe
    grid = table.grid()
    for i, row in enumerate(_grid_rows(out)):
        assert len(row) == 13
        for j, shown in enumerate(row):
            assert shown == ("-" if math.isnan(grid[i, j]) else f"{100 * grid[i, j]:.1f}"), (i, j)


def test_grid_in_colour_and_as_json(db, small_store, capsys):
    assert main(["grid", "7c7d2s7h", "--colour", "always", "--db", str(small_store)]) == 0
    out = capsys.readouterr().out
    assert out.count("\x1b[48;2;") == 169 and "\x1b[0m" in out
    plain_rows = _grid_rows(re.sub(r"\x1b\[[0-9;]*m", "", out))
    assert plain_rows[7][7] == "-"  # no 77 is left on this board
    assert main(["grid", "7c7d2s7h", "--json", "--db", str(small_store)]) == 0
    answer = json.loads(capsys.readouterr().out)
    table = db.equities("7c7d2s7h")
    assert answer["board"] == "7c7d2s7h" and answer["figure"] == "exact equity vs random"
    assert answer["grid"] == [[None if math.isnan(v) else v for v in row] for row in table.grid().tolist()]


def test_grid_refuses_bad_input_in_one_sentence(small_store, capsys):
    assert main(["grid", "2c7d", "--db", str(small_store)]) == 2
    assert capsys.readouterr().err == "matchdb: The board '2c7d' has 2 cards; expected 3, 4 or 5.\n"
    assert main(["grid", "2c7dJh", "--players", "30", "--db", str(small_store)]) == 2
    assert "players 30 is out of range" in capsys.readouterr().err
