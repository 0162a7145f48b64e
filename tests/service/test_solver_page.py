"""The solver page at /solver in a real browser (headless Chromium): a river spot solved, its grid and a step down the tree.

The grid's colours are its classes' mixes of actions, weighted by combos; each cell keeps its mix in ``data-mix``,
compared here with the Python API's solution of the same spot.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from tests.helpers import running_server

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)

SPOT = {"oop": "AA-88,AJs+,KJs+", "ip": "TT-55,A9s+,KTs+,QTs+", "board": "2c7dJh5s8d", "pot": 60, "stack": 200,
        "bet": "50%, a", "raise": "3x", "target": 1}


@pytest.fixture(scope="module")
def server(small_store, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("solver-page") / "serve.log") as url:
        yield url


def _state(browser, wanted: tuple[str, ...]) -> str:
    """Wait (a generous bound only against a hung test) until the page's state is one of ``wanted``."""
    deadline = time.monotonic() + 600
    while (state := browser.execute_script("return document.body.dataset.state;")) not in wanted:
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return state


def _mix(node, player: int, name: str) -> list[float]:
    """The combos-weighted mix of actions of the hand class ``name`` (like 'AKs') at ``node``."""
    from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, hand_index

    hands = node.hands(player)
    combos = node.combos(player)
    target = CLASSES.index(name) if name in CLASSES else None
    keep = [i for i, h in enumerate(hands) if CLASS_OF_HAND[hand_index(h)] == target and node.weights(player)[i] > 0]
    weights = combos[keep]
    return (node.strategy[:, keep] @ weights / weights.sum()).tolist()


def _cell(browser, name: str) -> list[float]:
    text = browser.execute_script(f"return document.querySelector('#grid td[data-class=\"{name}\"]').dataset.mix;")
    return json.loads(text)


def test_the_page_solves_a_river_draws_the_grid_and_walks_the_tree(browser, server, small_db):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/solver")
    for field in ("oop", "ip", "board", "pot", "stack", "bet", "raise", "target"):
        box = browser.find_element(By.ID, field)
        box.clear()
        box.send_keys(str(SPOT[field]))
    browser.find_element(By.ID, "go").click()
    assert _state(browser, ("done", "error")) == "done", browser.find_element(By.ID, "error").text
    solution = small_db.solve(SPOT["oop"], SPOT["ip"], SPOT["board"], SPOT["pot"], SPOT["stack"], SPOT["bet"],
                              SPOT["raise"], target=SPOT["target"])
    root = solution.root
    assert len(browser.find_elements(By.CSS_SELECTOR, "#grid td")) == 169
    buttons = browser.find_elements(By.CSS_SELECTOR, "#actions button")
    assert [b.get_attribute("data-action") for b in buttons] == root.actions
    for name in ("AA", "AKs", "88"):
        assert _cell(browser, name) == pytest.approx(_mix(root, 0, name), abs=1e-5)
    assert "empty" in browser.find_element(By.CSS_SELECTOR, '#grid td[data-class="72o"]').get_attribute("class")
    # hovering a class lists its hands with their strategies
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, '#grid td[data-class="AA"]')).perform()
    rows = browser.find_elements(By.CSS_SELECTOR, "#details tr[data-hand]")
    assert sorted(r.get_attribute("data-hand") for r in rows) == sorted(
        h for h, w in zip(root.hands("oop"), root.weights("oop"), strict=True) if h[0] == h[2] == "A" and w > 0)

    # one step down the tree: OOP checks, IP to act
    next(b for b in buttons if b.get_attribute("data-action") == "Check").click()
    assert _state(browser, ("done", "error")) == "done"
    deadline = time.monotonic() + 60
    while "IP to act" not in browser.find_element(By.ID, "where").text and time.monotonic() < deadline:
        time.sleep(0.1)
    there = solution.node("Check")
    assert "IP to act" in browser.find_element(By.ID, "where").text
    assert [b.get_attribute("data-action") for b in browser.find_elements(By.CSS_SELECTOR, "#actions button")] == there.actions
    for name in ("TT", "A9s", "KTs"):
        assert _cell(browser, name) == pytest.approx(_mix(there, 1, name), abs=1e-5)
    assert np.isclose(sum(_cell(browser, "TT")), 1.0)
    crumbs = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#line button")]
    assert crumbs == ["root", "Check"]
