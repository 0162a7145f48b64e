"""A solution library on a real server (issue 33): the trainer's API and page, and the /solver page browsing a
library without solving, in a real browser (headless Chromium), every figure checked against the Python API.

The library is two flops of a toy spot (a monotone flop and a two-tone one): the run's ``toy_library``.
"""

from __future__ import annotations

import json
import time

import httpx
import numpy as np
import pytest

from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES
from matchdb.library import Drill, Trainer, open_library
from matchdb.library.trainer import grade, summarize
from tests.helpers import running_server

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)

@pytest.fixture(scope="module")
def library(toy_library):
    return toy_library


@pytest.fixture(scope="module")
def server(small_store, library, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("library-pages") / "serve.log", "--library", str(library)) as url:
        yield url


def _state(browser, wanted: tuple[str, ...]) -> str:
    """Wait (a generous bound only against a hung test) until the page's state is one of ``wanted``."""
    deadline = time.monotonic() + 120
    while (state := browser.execute_script("return document.body.dataset.state;")) not in wanted:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return state


def test_deal_grade_and_summary_are_the_trainers(server, library, small_db):
    """A deal shows what a player sees and never the solution; a grade is :func:`grade`'s; the summary grades the
    session's picks again on the server and is :func:`summarize`'s; bad picks are one sentence."""
    lib = open_library(library, small_db)
    picks, grades = [], []
    for seed in range(6):
        drill = httpx.get(f"{server}/v1/library/toy/deal", params={"seed": seed}, timeout=30).json()
        assert set(drill) == {"board", "line", "player", "hand", "pot", "actions"}
        node = lib.node(drill["board"], drill["line"])
        assert (drill["player"], drill["actions"], drill["pot"]) == (node.player, node.actions, node.pot)
        assert drill["hand"] in node.hands()
        action = drill["actions"][seed % len(drill["actions"])]
        graded = httpx.get(f"{server}/v1/library/toy/grade", params={
            "board": drill["board"], "line": ", ".join(drill["line"]), "hand": drill["hand"], "action": action},
            timeout=30).json()
        want = grade(lib, Drill(drill["board"], tuple(drill["line"]), node.player, drill["hand"], node.pot, node.actions), action)
        assert graded == json.loads(json.dumps(want.to_dict()))
        assert graded["ev_lost"] == pytest.approx(max(want.ev.values()) - want.ev[action], abs=1e-12) and graded["ev_lost"] >= 0
        picks.append({"board": drill["board"], "line": drill["line"], "hand": drill["hand"], "action": action})
        grades.append(want)
    summary = httpx.post(f"{server}/v1/library/toy/summary", json={"picks": picks}, timeout=30).json()
    assert summary == json.loads(json.dumps(summarize(grades).to_dict()))
    assert summary["hands"] == 6 and summary["ev_lost"] == pytest.approx(sum(g.ev_lost for g in grades), abs=1e-9)
    # the same seed deals the same decision as the Python trainer's first deal with that seed
    first = Trainer(lib, seed=11).deal()
    assert httpx.get(f"{server}/v1/library/toy/deal", params={"seed": 11}, timeout=30).json() == first.to_dict()
    answer = httpx.get(f"{server}/v1/library/toy/deal", params={"player": "BTN"}, timeout=30)
    assert answer.status_code == 400 and answer.json()["detail"] == "The player to train is 'BTN'; expected OOP or IP."
    bad = httpx.get(f"{server}/v1/library/toy/grade", params={"board": "AhTh9c", "hand": "AsAd", "action": "Raise"}, timeout=30)
    assert bad.status_code == 400 and bad.json()["detail"] == "The action 'Raise' is not one of Check, Bet 50, All-in 100 after the root on AhTh9c."
    outside = httpx.get(f"{server}/v1/library/toy/grade", params={"board": "AhTh9c", "hand": "7c2d", "action": "Check"}, timeout=30)
    assert outside.status_code == 400 and outside.json()["detail"] == "7c2d is not in OOP's range after the root on AhTh9c."
    assert httpx.get(f"{server}/v1/library/nope/deal", timeout=30).status_code == 404


def test_a_trainer_in_python_trains_one_side(library):
    lib = open_library(library)
    trainer = Trainer(lib, seed=5, player="IP")
    drills = [trainer.deal() for _ in range(12)]
    assert {d.player for d in drills} == {"IP"} and all(d.line for d in drills)  # IP acts after OOP's first move
    assert len({(d.board, d.line, d.hand) for d in drills}) > 6
    for d in drills:
        trainer.answer(d, d.actions[0])
    summary = trainer.summary()
    assert summary.hands == 12 and 0 <= summary.in_mix <= 1 and summary.ev_lost >= 0
    assert summary.worst == sorted(trainer.grades, key=lambda g: -g.ev_lost)[:3]
    # the turn's decisions are dealt too: the board with its turn card, the line without it, graded as stored
    turns = [d for d in (trainer.deal() for _ in range(60)) if len(d.board) == 8]
    assert turns, "no turn decision dealt in 60 deals"
    for d in turns[:5]:
        node = lib.node(d.board, d.line)
        assert node.street == "turn" and (d.player, d.actions, d.pot) == (node.player, node.actions, node.pot)
        graded = trainer.answer(d, d.actions[-1])
        assert graded.frequencies == {a: f for a, (f, _) in node.hand(d.hand).items()}
        assert d.text().startswith(f"{d.board}, pot {d.pot}; before you: {', '.join(d.line)}")


def test_the_command_line_trains_from_the_input(library, tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "matchdb", "library", "train", str(library), "--seed", "3", "--hands", "2"],
                          input="2\nnonsense\n1\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    trainer = Trainer(open_library(library), seed=3)
    first = trainer.deal()
    assert f"1. {first.text()}" in done.stdout
    graded = trainer.answer(first, first.actions[1])
    second = trainer.deal()
    assert f"2. {second.text()}" in done.stdout and graded.text() in done.stdout
    assert "expected 1 to " in done.stdout and "got 'nonsense'" in done.stdout
    trainer.answer(second, second.actions[0])
    assert done.stdout.rstrip().endswith(trainer.summary().text())


def test_the_trainer_page_deals_grades_and_tallies(browser, server, library):
    from selenium.webdriver.common.by import By

    lib = open_library(library)
    browser.get(f"{server}/trainer")
    assert _state(browser, ("ready", "error")) == "ready"
    assert browser.find_element(By.ID, "library").get_attribute("value") == "toy"
    grades = []
    for round_ in range(2):
        button = browser.find_element(By.ID, "deal" if round_ == 0 else "next")
        button.click()
        assert _state(browser, ("asking", "error")) == "asking", browser.find_element(By.ID, "error").text
        shown = browser.find_element(By.ID, "spot").text
        hand = browser.find_element(By.CSS_SELECTOR, "#you .cards").text
        board = browser.find_element(By.CSS_SELECTOR, "#spot .cards").text
        line_text = shown.split("before you: ")[1]
        line = () if line_text == "nothing yet" else tuple(line_text.split(", "))
        node = lib.node(board, line)
        picks = browser.find_elements(By.CSS_SELECTOR, "#picks button")
        assert [b.get_attribute("data-action") for b in picks] == node.actions
        assert not browser.find_element(By.ID, "verdict").is_displayed()  # nothing of the solution before the pick
        picks[-1].click()
        assert _state(browser, ("graded", "error")) == "graded", browser.find_element(By.ID, "error").text
        want = grade(lib, Drill(board, line, node.player, hand, node.pot, node.actions), node.actions[-1])
        grades.append(want)
        rows = browser.find_elements(By.CSS_SELECTOR, "#solution tr[data-action]")
        assert [r.get_attribute("data-action") for r in rows] == node.actions
        for row in rows:
            action = row.get_attribute("data-action")
            assert float(row.get_attribute("data-frequency")) == want.frequencies[action]
            assert float(row.get_attribute("data-ev")) == want.ev[action]
        assert float(browser.find_element(By.ID, "said").get_attribute("data-ev-lost")) == want.ev_lost
    summary = json.loads(browser.find_element(By.ID, "tally").get_attribute("data-summary"))
    assert summary == json.loads(json.dumps(summarize(grades).to_dict()))
    assert browser.find_element(By.ID, "tally").text.startswith("2 hands: EV lost ")


def _mix(node, name: str) -> list[float]:
    """The combos-weighted mix of actions of hand class ``name`` at a library ``node``."""
    keep = [i for i in np.flatnonzero(node.combos > 0) if CLASS_OF_HAND[i] == CLASSES.index(name)]
    weights = node.combos[keep]
    return (node.strategy[:, keep] @ weights / weights.sum()).tolist()


def test_the_solver_page_browses_a_library_without_solving(browser, server, library):
    from selenium.webdriver.common.by import By

    lib = open_library(library)
    browser.get(f"{server}/solver")
    assert _state(browser, ("ready", "error")) == "ready"
    assert browser.find_element(By.ID, "browse").is_displayed()
    flop = browser.find_element(By.ID, "flop")
    flop.clear()
    flop.send_keys("AhTh9c")
    browser.find_element(By.ID, "open").click()
    assert _state(browser, ("done", "error")) == "done", browser.find_element(By.ID, "error").text
    root = lib.node("AhTh9c")
    assert browser.find_element(By.ID, "summary").text.startswith("AhTh9c: library toy, exploitability ")
    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
    assert [b.get_attribute("data-action") for b in buttons] == root.actions
    for name in ("AA", "KK", "AKs", "AKo"):
        cell = browser.execute_script(f"return document.querySelector('#grid td[data-class=\"{name}\"]').dataset.mix;")
        assert json.loads(cell) == pytest.approx(_mix(root, name), abs=1e-12)
    made = [r.find_elements(By.TAG_NAME, "td")[0].text for r in browser.find_elements(By.CSS_SELECTOR, "#categories tr")[1:]]
    assert made == list(root.categories("made")["made"])
    # a step down: OOP checks, IP to act
    next(b for b in buttons if b.get_attribute("data-action") == "Check").click()
    deadline = time.monotonic() + 60
    while "IP to act" not in browser.find_element(By.ID, "where").text and time.monotonic() < deadline:
        time.sleep(0.1)
    there = lib.node("AhTh9c", "Check")
    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
    assert [b.get_attribute("data-action") for b in buttons] == there.actions
    assert all(b.is_enabled() for b in buttons)  # checking back closes the flop: the turn's decisions are stored
    for name in ("QQ", "AQs", "T9s"):
        cell = browser.execute_script(f"return document.querySelector('#grid td[data-class=\"{name}\"]').dataset.mix;")
        assert json.loads(cell) == pytest.approx(_mix(there, name), abs=1e-12)
    # IP checks back: a turn card to deal, then the stored turn decision on it
    next(b for b in buttons if b.get_attribute("data-action") == "Check").click()
    deadline = time.monotonic() + 60
    while "a card to deal" not in browser.find_element(By.ID, "where").text and time.monotonic() < deadline:
        time.sleep(0.1)
    cards = [b.get_attribute("data-card") for b in browser.find_elements(By.CSS_SELECTOR, "#cards button")]
    assert cards == lib.flop("AhTh9c").turn_cards() and len(cards) == 49
    deadline = time.monotonic() + 60  # each card's button shows the turn's first decision's mix there (a turn report)
    while browser.execute_script("return document.getElementById('cards').dataset.report;") != "done":
        assert time.monotonic() < deadline, browser.find_element(By.ID, "error").text
        time.sleep(0.1)
    report = lib.flop("AhTh9c").turn_report("Check, Check").set_index("turn")
    for card in ("2s", "Tc", "Qd"):
        mix = browser.execute_script(f"return document.querySelector('#cards button[data-card=\"{card}\"]').dataset.mix;")
        node = lib.node("AhTh9c", f"Check, Check, {card}")
        assert json.loads(mix) == pytest.approx([report.loc[card, a] for a in node.actions], abs=1e-12)
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#cards button") if b.get_attribute("data-card") == "2s").click()
    deadline = time.monotonic() + 60
    while "(turn)" not in browser.find_element(By.ID, "where").text and time.monotonic() < deadline:
        time.sleep(0.1)
    turn = lib.node("AhTh9c", "Check, Check, 2s")
    assert browser.find_element(By.ID, "where").text.startswith(f"AhTh9c2s (turn), pot {turn.pot}: {turn.player} to act")
    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
    assert [b.get_attribute("data-action") for b in buttons] == turn.actions
    for name in ("AA", "KK", "AKs"):
        cell = browser.execute_script(f"return document.querySelector('#grid td[data-class=\"{name}\"]').dataset.mix;")
        assert json.loads(cell) == pytest.approx(_mix(turn, name), abs=1e-12)
