"""``matchdb solve``: the Python API's answer as text or JSON, a saved file, and one sentence with exit status 2 for
every bad question."""

from __future__ import annotations

import json

import pytest

from matchdb.cli.main import main

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)


def test_solve_prints_the_summary_the_issue_asks_for(small_store, capsys):
    args = ["solve", "--oop", "AA,QQ", "--ip", "KK", "--board", "2c7dJh3s8c", "--pot", "100", "--stack", "100",
            "--bet", "a", "--target", "0.1", "--db", str(small_store), "--json", "--quiet"]
    assert main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(answer) >= {"exploitability", "oop_equity", "oop_ev", "ip_ev", "iterations", "seconds", "root"}
    assert answer["root"]["actions"] == ["Check", "All-in 100"]
    assert answer["root"]["frequencies"] == pytest.approx([0.25, 0.75], abs=0.01)
    assert answer["exploitability"] <= 0.1 and answer["oop_ev"] + answer["ip_ev"] == pytest.approx(100, abs=1e-3)


def test_solve_as_text_and_saved(small_store, capsys, tmp_path):
    import matchdb

    path = tmp_path / "spot.npz"
    args = ["solve", "--oop", "AA,QQ", "--ip", "KK", "--board", "2c7dJh3s8c", "--pot", "100", "--stack", "100",
            "--bet", "a", "--river-bet", "50%", "--target", "0.5", "--db", str(small_store), "--quiet", "--save", str(path)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("2c7dJh3s8c  pot 100  stack 100") and "OOP at the root: Check" in text
    solution = matchdb.open(small_store).load_solution(path)
    assert solution.root.actions == ["Check", "Bet 50", "All-in 100"]  # all-in added: at most 1.5 pots


@pytest.mark.parametrize(("change", "words"), [
    (["--stack", "0"], "effective stack 0 is not a positive whole number"),
    (["--bet", "75"], "The bet size '75' does not parse"),
    (["--oop", "8c8d"], "No hand of the OOP range '8d8c' is possible"),
    (["--max-memory", "0.000001"], "The tree needs about"),
    (["--target", "-1"], "--target is -1.0"),
    (["--save", "out.txt"], "--save is 'out.txt'; expected a file name ending in .npz"),
])
def test_bad_questions_exit_2_with_one_sentence(small_store, capsys, change, words):
    args = {"--oop": "AA,QQ", "--ip": "KK", "--board": "2c7dJh3s8c", "--pot": "100", "--stack": "100", "--bet": "a"}
    args.update(zip(change[::2], change[1::2], strict=True))
    flat = [x for pair in args.items() for x in pair]
    assert main(["solve", *flat, "--db", str(small_store), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
