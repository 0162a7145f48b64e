"""The solution library (issue 33): built on local Dask workers and in this process, killed and resumed to the same
bytes, answering as a fresh solve of the same flop does, reporting as a plain loop over the flops does, and refusing
bad specs, other specs and other tables in one sentence."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import matchdb
from matchdb.core.canonical import ORBIT_SIZES, flop_index
from matchdb.core.hole_cards import hand_index
from matchdb.db.build import parse_flop_spec
from matchdb.errors import IncompleteDatabaseError
from matchdb.library import LibraryError, LibrarySpec, build_library, open_library, read_spec, verify_library
from matchdb.solver import SolverError

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)

ROOT = Path(__file__).resolve().parents[2]
TOY = 'name = "toy"\noop = "AA,KK,AK"\nip = "QQ,JJ,AQs,T9s"\npot = 100\nstack = 100\nbet = "50%, a"\ntarget = 3.0\n'
#: Five of the small store's flops: four monotone, one two-tone (cheap to solve: suit isomorphism).
FLOPS = "0-2,AhKhQh,AsTs9h"


@pytest.fixture(scope="module")
def toy_spec() -> LibrarySpec:
    return LibrarySpec.from_toml(TOY)


@pytest.fixture(scope="module")
def library(small_store, toy_spec, tmp_path_factory):
    """A library of five of the small store's flops, built on two local Dask workers."""
    out = tmp_path_factory.mktemp("library") / "toy.zarr"
    report = build_library(out, toy_spec, matchdb.open(small_store), flops=FLOPS, workers=2, quiet=True)
    assert sorted(report.built) == parse_flop_spec(FLOPS) and report.skipped == 0
    return out


@pytest.fixture(scope="module")
def lib_flops() -> list[int]:
    return parse_flop_spec(FLOPS)


@pytest.fixture(scope="module")
def fresh(small_db, toy_spec):
    """The toy spot solved on AhTh9c (AsTs9h with its suits renamed) in this process."""
    return small_db.solve(toy_spec.oop, toy_spec.ip, "AhTh9c", toy_spec.pot, toy_spec.stack, toy_spec.bet,
                          target=toy_spec.target)


def test_a_stored_decision_is_a_fresh_solve_of_that_flop_renamed(library, small_db, fresh):
    """AhTh9c is AsTs9h with its suits renamed: the library answers it from AsTs9h's solution, as a solve of AhTh9c
    answers, to the stored precision (frequencies 1/65,535, EVs 1/32,767 of the decision's largest)."""
    lib = open_library(library, small_db)
    for line in ((), ("Check",), ("Bet 50",)):
        stored = lib.node("AhTh9c", line)
        node = fresh.node(list(line))
        assert stored.actions == node.actions and stored.player == node.player and stored.pot == node.pot
        p = 0 if node.player == "OOP" else 1
        hands = node.hands(p)
        assert sorted(stored.hands()) == sorted(h for h, c in zip(hands, node.combos(p), strict=True) if c > 0)
        strategy, action_ev, combos = node.strategy, node.action_ev(), node.combos(p)
        scale = np.nanmax(np.abs(action_ev))
        for i, hand in enumerate(hands):
            if combos[i] <= 0:
                continue
            figures = stored.hand(hand)
            for a, action in enumerate(node.actions):
                assert figures[action][0] == pytest.approx(strategy[a, i], abs=1 / 65535)
                assert figures[action][1] == pytest.approx(action_ev[a, i], abs=scale / 32767 + 1e-9)
        assert stored.frequencies() == pytest.approx(node.frequencies(), abs=1e-4)
        # each hand's made hand and draws are the solver's (on the renamed flop), and so are the categories' figures
        mine = stored.to_pandas().set_index("hand")
        theirs = node.to_pandas(p).set_index("hand")
        assert (mine["made"] == theirs.loc[mine.index, "made"]).all() and (mine["draws"] == theirs.loc[mine.index, "draws"]).all()
        for by in ("made", "draws"):
            got, want = stored.categories(by), node.categories(p, by=by)
            assert list(got[by]) == list(want[by])
            for column in ("combos", "share", "equity", "ev", *node.actions):
                assert got[column].to_numpy() == pytest.approx(want[column].to_numpy(), abs=1e-3 * scale + 1e-4), (by, column)


def test_the_turn_is_solved_again_from_the_stored_ranges(library, small_db, fresh, toy_spec, capsys):
    """Deeper on demand: after a flop line that closes the street, the turn is solved again with both ranges taken
    from the stored strategies; they are the full solve's ranges at that turn (to the stored precision), with its
    pot and stacks, and the subgame is solved to the spec's target."""
    lib = open_library(library, small_db)
    line = ("Bet 50", "Call")
    sub = lib.subgame("AhTh9c2s", line)
    there = fresh.node([*line, "2s"])
    assert sub.board == "AhTh9c2s" and sub.root.pot == there.pot == 200 and sub.question["stack"] == 50
    assert sub.exploitability_pct <= toy_spec.target
    for p in (0, 1):
        full = dict(zip(there.hands(p), there.weights(p), strict=True))
        mine = dict(zip(sub.root.hands(p), sub.root.weights(p), strict=True))
        assert set(mine) == {h for h, w in full.items() if w > 1e-9}
        for hand, weight in mine.items():
            assert weight == pytest.approx(full[hand], abs=2 / 65535), (p, hand)
    from matchdb.cli.main import main

    assert main(["library", "show", str(library), "--board", "AhTh9c2s", "--line", "Bet 50, Call", "--db",
                 str(small_db.path), "--hand", "AsAd", "--json", "--solve"]) == 0
    shown = json.loads(capsys.readouterr().out)
    row = sub.root.to_pandas().set_index("hand").loc["AsAd"]
    assert shown["actions"] == sub.root.actions and shown["frequencies"] == sub.root.frequencies()
    assert shown["hand"]["actions"] == {a: {"frequency": float(row[a]), "ev": float(row[f"ev {a}"])} for a in sub.root.actions}
    checked = lib.subgame("AhTh9c2s", "Check, Check")
    assert checked.root.pot == 100 and checked.question["stack"] == 100
    for bad, message in ((("Check",), "does not end the flop"), (("Bet 50", "Fold"), "ends with 'Fold'"),
                         (("All-in 100", "Call"), "puts both players all-in"),
                         (("Check", "Bet 50", "Call"), "is never played on AhTh9c")):  # IP never bets 50 there
        with pytest.raises(LibraryError, match=message):
            lib.subgame("AhTh9c2s", bad)


@pytest.mark.parametrize("turn", ["2s", "2d"])  # of AhTh9c's free suits, one turn card stored, the other renamed
def test_the_turn_decisions_stored_are_a_fresh_solve_of_that_turn(library, small_db, fresh, toy_spec, turn, capsys):
    """Every turn decision after a flop line that closes the street is stored on every turn card: on AhTh9c (the
    stored AsTs9h renamed) each equals the fresh solve's to the stored precision (frequencies as 8-bit square roots, to a few 1/255, EVs in
    steps of 0.5 % of the pot); the combos come from the stored frequencies, the equities from those ranges."""
    lib = open_library(library, small_db)
    flop = lib.flop("AhTh9c")
    assert flop.turn_lines() == [("Check", "Check"), ("Bet 50", "Call")]  # the all-in calls leave nothing to decide
    step = 0.005 * toy_spec.pot
    checked = 0
    for end in flop.turn_lines():
        deal = fresh.node([*end, turn])
        stack = [deal]
        while stack:
            node = stack.pop()
            if node.kind != "action" or node.street != "turn":
                continue
            stack.extend(node.play(a) for a in node.actions)
            if not any(node.weights(0)) or not any(node.weights(1)):
                continue
            stored = lib.node("AhTh9c", list(node.line))
            assert stored.street == "turn" and stored.board == "AhTh9c" + turn and stored.line == node.line
            assert (stored.player, stored.actions, stored.pot) == (node.player, node.actions, node.pot)
            p = 0 if node.player == "OOP" else 1
            combos = dict(zip(node.hands(p), node.combos(p), strict=True))
            equity = dict(zip(node.hands(p), node.equity(p), strict=True))
            assert set(stored.hands()) <= set(combos)
            for hand, figures in ((h, stored.hand(h)) for h in stored.hands()):
                i = node.hands(p).index(hand)
                for a, action in enumerate(node.actions):
                    assert figures[action][0] == pytest.approx(node.strategy[a, i], abs=3 / 255)
                    assert figures[action][1] == pytest.approx(node.action_ev()[a, i], abs=step / 2 + 1e-6)
                k = hand_index(hand)
                assert stored.combos[k] == pytest.approx(combos[hand], rel=3e-2, abs=1e-3), hand
                assert stored.equity[k] == pytest.approx(equity[hand], abs=1e-2), hand
            assert stored.frequencies() == pytest.approx(node.frequencies(), abs=1e-2)
            checked += 1
    assert checked >= 6
    # the flop and the turn card as the board, or the card in the line, and on the command line
    first = lib.node("AhTh9c" + turn, "Bet 50, Call")
    assert first.line == ("Bet 50", "Call", turn) and first.actions == lib.node("AhTh9c", f"Bet 50, Call, {turn}").actions
    assert first.next_stored() == ["Check", "All-in 50"] and first.made[first.combos > 0].tolist()
    from matchdb.cli.main import main

    assert main(["library", "show", str(library), "--board", "AhTh9c" + turn, "--line", "Bet 50, Call", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["actions"] == first.actions and shown["frequencies"] == pytest.approx(first.frequencies())
    for line, message in (("Check", "does not begin with a flop line that closes the street"),
                          ("Bet 50, Call, Bet 40", "stores no turn decision after 'Bet 40'")):
        with pytest.raises(LibraryError, match=message):
            lib.node("AhTh9c" + turn, line)
    with pytest.raises(LibraryError, match="is a card of the flop"):
        lib.node("AhTh9c", "Bet 50, Call, Ah")
    # the turn report: the same decision on every turn card, one row each
    report = flop.turn_report("Bet 50, Call").set_index("turn")
    assert list(report.index) == flop.turn_cards() and len(report) == 49
    row = report.loc[turn]
    assert row["player"] == first.player and row["combos"] == pytest.approx(first.combos.sum())
    assert [row[a] for a in first.actions] == pytest.approx(first.frequencies())
    weight = first.combos
    assert row["equity"] == pytest.approx(np.nansum(first.equity * weight) / weight.sum())
    out = library.parent / f"turn-{turn}.csv"
    assert main(["library", "report", str(library), "--by", "turn", "--board", "AhTh9c", "--line", "Bet 50, Call",
                 "--db", str(small_db.path), "--out", str(out)]) == 0
    capsys.readouterr()
    import pandas as pd

    assert pd.read_csv(out).set_index("turn").loc[turn, first.actions].tolist() == pytest.approx(first.frequencies())
    assert main(["library", "report", str(library), "--by", "turn", "--line", "Bet 50, Call"]) == 2
    assert "--by turn and --board go together" in capsys.readouterr().err


def test_the_report_is_a_plain_loop_over_the_flops(library, lib_flops):
    lib = open_library(library)
    frame = lib.report()
    assert list(frame["index"]) == lib_flops and list(frame["weight"]) == [int(ORBIT_SIZES[i]) for i in lib_flops]
    by_suits = lib.report(by="suits")
    sums: dict[str, list[float]] = {}
    for index, board in zip(frame["index"], frame["flop"], strict=True):
        node = lib.node(board)
        assert flop_index(board) == index
        weights = node.combos
        check = (node.strategy @ weights / weights.sum())[0]
        suits = {1: "monotone", 2: "two-tone", 3: "rainbow"}[len({c[1] for c in (board[:2], board[2:4], board[4:])})]
        totals = sums.setdefault(suits, [0.0, 0.0])
        totals[0] += ORBIT_SIZES[index] * check
        totals[1] += ORBIT_SIZES[index]
    assert sorted(by_suits.index) == sorted(sums)
    for suits, (weighted, count) in sums.items():
        assert by_suits.loc[suits, "flops"] == count
        assert by_suits.loc[suits, "Check"] == pytest.approx(weighted / count, abs=1e-12)
    # by hand category over every flop: each hand counted by its combos times its flop's weight
    by_made = lib.report("Check", by="made")
    mass: dict[str, float] = {}
    bets: dict[str, float] = {}
    everything = 0.0
    for index, board in zip(frame["index"], frame["flop"], strict=True):
        node = lib.node(board, "Check")
        for made, combos, bet in zip(node.made, node.combos, node.strategy[node.actions.index("Bet 50")], strict=True):
            if combos > 0:
                mass[made] = mass.get(made, 0.0) + ORBIT_SIZES[index] * combos
                bets[made] = bets.get(made, 0.0) + ORBIT_SIZES[index] * combos * bet
                everything += ORBIT_SIZES[index] * combos
    assert set(by_made.index) == set(mass)
    for made, weighted in mass.items():
        assert by_made.loc[made, "share"] == pytest.approx(weighted / everything, rel=1e-9)
        assert by_made.loc[made, "Bet 50"] == pytest.approx(bets[made] / weighted, rel=1e-9, abs=1e-12)


def test_a_killed_build_resumes_to_the_same_bytes(library, small_store, lib_flops, toy_spec, tmp_path):
    """A serial build killed (SIGKILL) after its first flops, then resumed, stores every flop's arrays to the same
    SHA-256 as the Dask build (one thread there, every core here: the solver's sums do not depend on the threads)."""
    spec = tmp_path / "toy.toml"
    spec.write_text(TOY)
    out = tmp_path / "resumed.zarr"
    command = [sys.executable, "-m", "matchdb", "library", "build", "--spec", str(spec), "--out", str(out),
               "--flops", FLOPS, "--serial", "--db", str(small_store), "--quiet"]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and child.poll() is None and len(list((out / "manifest").glob("*.json"))) < 2:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    kept = len(list((out / "manifest").glob("*.json")))
    assert 0 < kept < len(lib_flops)  # killed half-way
    report = build_library(out, toy_spec, matchdb.open(small_store), flops=FLOPS, serial=True, quiet=True)  # resumed
    assert report.skipped == kept and len(report.built) == len(lib_flops) - kept
    assert not [p.name for p in (out / "flops").iterdir() if p.name.startswith(".")]
    for index in lib_flops:
        first = json.loads((library / "manifest" / f"{index:04d}.json").read_text())
        again = json.loads((out / "manifest" / f"{index:04d}.json").read_text())
        assert again["digests"] == first["digests"], index
        assert again["exploitability"] == first["exploitability"] and again["iterations"] == first["iterations"]


def test_verify_checks_every_flop_and_solves_a_sample_again(library, lib_flops, toy_spec, small_db, tmp_path):
    lib = open_library(library)
    for index in lib_flops:
        entry = json.loads((library / "manifest" / f"{index:04d}.json").read_text())
        assert entry["exploitability_pct"] <= toy_spec.target
    assert lib.flops() == lib_flops
    check = verify_library(library, small_db, sample=2, seed=1)
    assert check.ok and check.checked == len(lib_flops) and len(check.resolved) == 2, check.problems
    import shutil

    copy = tmp_path / "copy.zarr"
    shutil.copytree(library, copy)
    index = check.resolved[0]
    entry_path = copy / "manifest" / f"{index:04d}.json"
    entry = json.loads(entry_path.read_text())
    entry["digests"]["ev"] = "0" * 64  # as if the stored EVs were other numbers than the solve's
    entry["exploitability_pct"] = 2 * toy_spec.target
    entry_path.write_text(json.dumps(entry))
    check = verify_library(copy, small_db, sample=2, seed=1)
    assert not check.ok
    assert check.problems == [f"Flop {index} of the library '{copy}' has its ev altered or damaged (SHA-256 differs from "
                              "the manifest); rebuild it.", f"flop {index} solved again differs from the stored one in ev"]


@pytest.mark.parametrize(("text", "message"), [
    (TOY + 'bets = "a"\n', "The spec has an unknown key 'bets'; expected some of: name, description, oop, ip, pot,"),
    (TOY.replace("pot = 100\n", ""), "The spec lacks pot; a spec names at least name, oop, ip, pot, stack."),
    (TOY.replace("pot = 100", 'pot = "100"'), "The spec's pot is '100'; expected a whole number."),
    (TOY.replace("target = 3.0", "target = 0"), "The spec's target is 0; expected 0.001..100."),
    (TOY + "[oops\n", "The spec is not TOML ("),
    (TOY.replace('name = "toy"', 'name = "a/b"'), "The spec's name 'a/b' is not one line of text without slashes."),
    (TOY.replace('oop = "AA,KK,AK"', 'oop = "AA,ZZ"'), "The spec's oop range is not a range: "),
    (TOY.replace('ip = "QQ,JJ,AQs,T9s"', 'ip = "QQ,JJ,AhQh:0.5,AsQs,AdQd,AcQc"'),
     "The spec's ip range weighs AhQh at 0.5 but AsQs, in other suits, at 1; expected every suit renaming of a hand "
     "at one weight"),
])
def test_a_bad_spec_is_one_sentence(text, message):
    with pytest.raises(LibraryError) as error:
        LibrarySpec.from_toml(text)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_sizes_that_do_not_parse_are_the_solvers_sentence(small_db, tmp_path):
    spec = LibrarySpec.from_toml(TOY.replace('bet = "50%, a"', 'bet = "50 percent"'))
    with pytest.raises(SolverError, match="50 percent"):
        build_library(tmp_path / "bad.zarr", spec, small_db, flops="2c7dJh", serial=True, quiet=True)


def test_another_spec_or_other_tables_or_a_damaged_flop_are_refused(library, small_db, toy_spec, tmp_path):
    other = LibrarySpec.from_toml(TOY.replace("stack = 100", "stack = 200"))
    with pytest.raises(LibraryError, match=r"was begun for the spec 'toy' \(SHA-256 [0-9a-f]{12}\.\.\.\), not this one"):
        build_library(library, other, small_db, flops="AhKhQh", serial=True, quiet=True)
    with pytest.raises(IncompleteDatabaseError, match="lacks 1 of the 1 tables the library needs"):
        build_library(tmp_path / "x.zarr", toy_spec, small_db, flops="KdQc2s", serial=True, quiet=True)
    with pytest.raises(LibraryError, match=f"holds no solution of flop {flop_index('AhAdAc')}; build it with"):
        open_library(library).flop("AhAdAc")
    copy = tmp_path / "copy.zarr"
    import shutil

    shutil.copytree(library, copy)
    index = flop_index("AhKhQh")
    entry_path = copy / "manifest" / f"{index:04d}.json"
    entry = json.loads(entry_path.read_text())
    entry["table_sha256"] = "0" * 64
    entry_path.write_text(json.dumps(entry))
    with pytest.raises(LibraryError, match=r"was solved on a table with SHA-256 000000000000\.\.\., but this database's"):
        open_library(copy, small_db).flop("AhKhQh")
    assert open_library(copy).flop("AhKhQh").index == index  # without a database, nothing to compare
    chunk = next(p for p in (copy / "flops" / f"{index:04d}" / "strategy").rglob("*") if p.is_file() and p.name != "zarr.json")
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0x40
    chunk.write_bytes(bytes(data))
    with pytest.raises(LibraryError, match=f"Flop {index} of the library '.*' (cannot be read|has its strategy altered)"):
        open_library(copy).flop("AhKhQh")
    with pytest.raises(LibraryError, match="No library exists at '.*'; expected a folder made by 'matchdb library build'"):
        open_library(tmp_path)
    (tmp_path / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    with pytest.raises(LibraryError, match="is not a matchdb library"):
        open_library(tmp_path)


def test_the_command_line_builds_shows_and_reports(library, small_store, tmp_path, capsys):
    from matchdb.cli.main import main

    assert main(["library", "show", str(library), "--board", "AhTh9c", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    node = open_library(library).node("AhTh9c")
    assert shown["actions"] == node.actions and shown["frequencies"] == node.frequencies() and shown["player"] == "OOP"
    assert main(["library", "show", str(library), "--board", "AhTh9c", "--line", "Check", "--hand", "QsQd"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("QsQd: IP on AhTh9c after Check (pot 100)\n") and "Bet 50" in text
    assert main(["library", "report", str(library), "--by", "pairing", "--out", str(tmp_path / "r.csv"),
                 "--plot", str(tmp_path / "r.png")]) == 0
    assert (tmp_path / "r.csv").read_text().startswith("pairing,flops,Check,")
    assert (tmp_path / "r.png").stat().st_size > 1000
    capsys.readouterr()
    assert main(["library", "report", str(library), "--by", "draws"]) == 0
    assert capsys.readouterr().out.split()[:4] == ["share", "equity", "ev", "eqr"]
    by_suits = open_library(library).report(by="suits")
    ax = open_library(library).plot(by="suits", out=tmp_path / "s.svg")  # the bars are the report's shares
    widths = [p.get_width() for p in ax.patches]
    assert widths == pytest.approx(by_suits[["Check", "Bet 50", "All-in 100"]].to_numpy().T.ravel().tolist(), abs=1e-12)
    assert main(["library", "verify", str(library), "--db", str(small_store), "--sample", "0"]) == 0
    assert capsys.readouterr().out.endswith(": 5 flops checked: OK\n")
    assert main(["library", "show", str(library), "--board", "AhTh9c", "--line", "Raise"]) == 2
    assert "stores no decision after 'Raise' on AhTh9c" in capsys.readouterr().err
    assert main(["library", "build", "--spec", str(tmp_path / "none.toml"), "--out", str(tmp_path / "l"),
                 "--db", str(small_store)]) == 2
    assert "The spec '" in capsys.readouterr().err


def test_the_shipped_specs_read(small_db):
    for name in ("srp-100bb", "3bet-100bb"):
        spec = read_spec(ROOT / "data" / "library" / f"{name}.toml")
        assert spec.name == name and spec.target == 1.0
        assert os.path.exists(ROOT / "data" / "library" / f"{name}.toml")


def test_a_server_answers_stored_decisions_and_names_no_folder(library, small_store, small_db, tmp_path):
    """``matchdb serve --library DIR``: a real server lists the library, answers a stored decision of a renamed
    flop as the Python API does, a flop it lacks is 404 and an unknown library 404, never naming the folder; a
    subgame's spot, solved by POST /v1/solve, is the Python API's subgame."""
    import httpx

    from tests.helpers import running_server

    lib = open_library(library, small_db)
    node = lib.node("AhTh9c", "Check")
    sub = lib.subgame("AhTh9c2s", "Bet 50, Call")
    with running_server(small_store, tmp_path / "serve.log", "--library", str(library)) as url:
        listed = httpx.get(f"{url}/v1/library", timeout=30).json()
        assert listed == {"libraries": [{"name": "toy", "spec": LibrarySpec.from_toml(TOY).to_dict(), "flops": 5}]}
        body = httpx.get(f"{url}/v1/library/toy/node", params={"board": "AhTh9c", "line": "Check", "hand": "QsQd"},
                         timeout=30).json()
        assert (body["player"], body["actions"], body["frequencies"]) == (node.player, node.actions, node.frequencies())
        assert body["hand"]["actions"] == {a: {"frequency": f, "ev": ev} for a, (f, ev) in node.hand("QsQd").items()}
        turn = lib.node("AhTh9c2s", "Bet 50, Call")
        body = httpx.get(f"{url}/v1/library/toy/node", params={"board": "AhTh9c2s", "line": "Bet 50, Call", "hands": "true"},
                         timeout=30).json()
        assert (body["street"], body["line"], body["actions"], body["next"]) == ("turn", ["Bet 50", "Call", "2s"],
                                                                                 turn.actions, turn.next_stored())
        assert body["frequencies"] == pytest.approx(turn.frequencies()) and body["hands"]["oop"]
        report = httpx.get(f"{url}/v1/library/toy/turns", params={"board": "AhTh9c", "line": "Bet 50, Call"},
                           timeout=30).json()
        want = lib.flop("AhTh9c").turn_report("Bet 50, Call")
        assert report["actions"] == turn.actions and [r["turn"] for r in report["rows"]] == list(want["turn"])
        row = next(r for r in report["rows"] if r["turn"] == "2s")
        assert row["frequencies"] == pytest.approx(turn.frequencies()) and row["player"] == turn.player
        refused = httpx.get(f"{url}/v1/library/toy/turns", params={"board": "AhTh9c2s", "line": "Bet 50, Call"}, timeout=30)
        assert refused.status_code == 400 and refused.json()["detail"].startswith("The board is 'AhTh9c2s'; expected a flop")
        lacking = httpx.get(f"{url}/v1/library/toy/node", params={"board": "AhAdAc"}, timeout=30)
        assert lacking.status_code == 404 and str(library) not in lacking.text
        assert lacking.json()["detail"].startswith(f"The library 'toy' holds no solution of flop {flop_index('AhAdAc')};")
        unknown = httpx.get(f"{url}/v1/library/other/node", params={"board": "AhTh9c"}, timeout=30)
        assert unknown.status_code == 404 and unknown.json()["detail"] == "No library is named 'other'; this server has 'toy'."
        bad = httpx.get(f"{url}/v1/library/toy/node", params={"board": "AhTh9c", "line": "Raise"}, timeout=30)
        assert bad.status_code == 400 and "stores no decision after 'Raise' on AhTh9c" in bad.json()["detail"]
        spot = httpx.get(f"{url}/v1/library/toy/subgame", params={"board": "AhTh9c2s", "line": "Bet 50, Call"},
                         timeout=30).json()["spot"]
        assert [spot["oop"], spot["ip"]] == [np.asarray(w).tolist() for w in sub.question_weights]
        assert (spot["board"], spot["pot"], spot["stack"]) == ("AhTh9c2s", 200, 50)
        job = httpx.post(f"{url}/v1/solve", json=spot, timeout=60).json()
        deadline = time.monotonic() + 300
        while job["state"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.2)
            job = httpx.get(f"{url}/v1/solve/{job['id']}", timeout=30).json()
        assert job["state"] == "done", job
        root = httpx.get(f"{url}/v1/solve/{job['id']}/node", timeout=60).json()
        assert (root["actions"], root["frequencies"]) == (sub.root.actions, sub.root.frequencies())
        for params, status, words in ((("AhTh9c", "Bet 50, Call"), 400, "expected 4"),
                                      (("AhTh9c2s", "Check"), 400, "does not end the flop"),
                                      (("AhTh9cAh", "Check, Check"), 400, "repeat")):
            refused = httpx.get(f"{url}/v1/library/toy/subgame", params=dict(zip(("board", "line"), params, strict=True)),
                                timeout=30)
            assert refused.status_code == status and words in refused.json()["detail"], refused.text


def test_a_packed_library_answers_from_its_file_and_by_url(library, small_db, tmp_path, monkeypatch):
    """``matchdb library pack``: one file (and its .sha256) that answers as the folder does, read in place or over
    HTTP by range requests; a flipped byte in a member is refused."""
    from matchdb.cli.main import main
    from tests.helpers import file_server

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the remote file's range cache
    hosted = tmp_path / "hosted"
    hosted.mkdir()
    packed = hosted / "toy.zip"
    assert main(["library", "pack", str(library), "--out", str(packed)]) == 0
    assert (hosted / "toy.zip.sha256").read_text().split()[0] == __import__("hashlib").sha256(packed.read_bytes()).hexdigest()
    folder = open_library(library, small_db)
    want = folder.node("AhTh9c", "Check")
    with file_server(hosted) as (url, server):
        for where in (packed, f"{url}/toy.zip"):
            lib = open_library(where, small_db)
            assert lib.spec == folder.spec and lib.flops() == folder.flops()
            node = lib.node("AhTh9c", "Check")
            assert node.hand("QsQd") == want.hand("QsQd") and node.frequencies() == want.frequencies()
            turn = lib.node("AhTh9c2d", "Bet 50, Call")  # the turn's decisions come with the flop
            assert turn.hand("AsAd") == folder.node("AhTh9c2d", "Bet 50, Call").hand("AsAd")
            assert lib.report().equals(folder.report())
        assert verify_library(f"{url}/toy.zip", small_db).ok
    data = bytearray(packed.read_bytes())
    member = data.index(b"manifest/")  # a byte inside the first manifest entry's local header's name
    data[member + 3] ^= 0x01
    broken = tmp_path / "broken.zip"
    broken.write_bytes(bytes(data))
    with pytest.raises(LibraryError, match="The packed library '.*' (is damaged|is truncated or damaged|names)"):
        open_library(broken).report()
