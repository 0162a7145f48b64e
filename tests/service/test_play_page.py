"""The table page (/play) in a real browser: Chromium plays whole hands against several bots with a scripted policy.

A headless Chromium (selenium, chromedriver) plays through ``matchdb serve``
over the full database, against bots that read it (West's players, exact
equity) and the all-in bot, with short stacks so that all-ins and side pots
come up. After every step it compares the table the page shows (seats,
stacks, bets, cards, board, pot, hand number, the coach's figures) with the
session's state as ``GET /v1/play/{id}`` gives it, and checks that no bot's
cards show before a showdown. The time from a click on a flop to the drawn
answer is measured in the browser and printed. Skips, saying why, without
Chromium, chromedriver or selenium.
"""

from __future__ import annotations

import statistics
import time

import httpx
import pytest

from tests.helpers import running_server
from tests.service.test_page import STARLETTE_500, stand_in

#: What the page shows, read in one call: body state, seats, board, pot, coach figures.
_READ = """
const seats = [...document.querySelectorAll('#seats-ring .seat')].map((s) => ({
  seat: Number(s.dataset.seat), stack: Number(s.dataset.stack), bet: Number(s.dataset.bet),
  folded: s.dataset.folded === 'true', cards: s.querySelector('.cards').dataset.cards,
  backs: s.querySelectorAll('.card.back').length}));
const coach = {};
for (const dd of document.querySelectorAll('#coach-figures dd')) coach[dd.dataset.figure] = dd.dataset.value;
return {state: document.body.dataset.state, busy: document.body.dataset.busy || '0', hand: document.body.dataset.hand,
  id: location.hash.slice(1), seats, board: document.getElementById('board').dataset.cards,
  pot: Number(document.getElementById('pot').dataset.pot), coach, error: document.getElementById('error').hidden ? '' :
  document.getElementById('error').textContent, roundTrip: window.matchdbRoundTrip ?? null};
"""


@pytest.fixture(scope="module")
def server(full_store, tmp_path_factory):
    folder = tmp_path_factory.mktemp("play-page")
    with running_server(full_store, folder / "serve.log", "--play-dir", str(folder / "play")) as url:
        yield url


def settled(browser) -> dict:
    """The page once it waits for the person (their turn, a hand over, the session over)."""
    deadline = time.monotonic() + 60
    while True:
        shown = browser.execute_script(_READ)
        if shown["error"]:
            pytest.fail(f"the page shows an error: {shown['error']}")
        if shown["state"] in ("your-turn", "hand-over", "over", "left") and shown["busy"] == "0":
            return shown
        if time.monotonic() > deadline:
            pytest.fail(f"the page did not settle: {shown}")
        time.sleep(0.01)


def compare(shown: dict, view: dict) -> None:
    """The page's table against the session's state."""
    assert shown["hand"] == str(view["hand"])
    assert shown["board"] == " ".join(view["board"]) and shown["pot"] == view["pot"]
    for seat, state in zip(shown["seats"], view["seats"], strict=True):
        assert (seat["stack"], seat["bet"], seat["folded"]) == (state["stack"], state["bet"], state["folded"])
        assert seat["cards"] == " ".join(state["cards"] or [])
        if not state["human"] and not (view["hand_over"] and view["last"]["showdown"]):
            assert seat["cards"] == "", "a bot's cards show before a showdown"
    if view.get("coach"):
        assert float(shown["coach"]["equity"]) == view["coach"]["equity"]
        assert float(shown["coach"]["pot odds"]) == view["coach"]["pot_odds"]


def choose(browser, view: dict, step: int) -> str:
    """Click the scripted policy's action: all-in now and then, pot raises, calls, checks, some folds."""
    legal = view["legal"]
    if legal["raise"] and step % 6 == 5:
        browser.find_element("id", "all-in").click()
        browser.find_element("id", "raise").click()
        return "all-in"
    if legal["raise"] and step % 3 == 0:
        browser.find_element("id", "pot-size").click()
        browser.find_element("id", "raise").click()
        return "pot"
    if legal["check"]:
        browser.find_element("id", "check").click()
        return "check"
    if step % 7 == 0:
        browser.find_element("id", "fold").click()
        return "fold"
    browser.find_element("id", "call").click()
    return "call"


def sit_down(browser, server: str, hands_settings: dict) -> None:
    browser.get(f"{server}/play?pause=20")
    for key, value in hands_settings.items():
        element = browser.find_element("id", key)
        if element.get_attribute("type") == "checkbox":
            if element.is_selected() != value:
                element.click()
        elif element.tag_name == "select":
            from selenium.webdriver.support.ui import Select

            Select(element).select_by_value(value)
        else:
            element.clear()
            element.send_keys(str(value))
    browser.find_element("id", "start").click()


def play_hands(browser, server: str, hands: int) -> dict:
    """Play ``hands`` hands through the page, comparing the table after every settle; figures collected."""
    out: dict = {"round_trips": [], "side_pots": 0, "showdowns": 0, "all_ins": 0, "compared": 0, "actions": 0}
    step = 0
    client = httpx.Client(timeout=60)
    try:
        while True:
            shown = settled(browser)
            view = client.get(f"{server}/v1/play/{shown['id']}").json()
            compare(shown, view)
            out["compared"] += 1
            if view["hand_over"]:
                last = view["last"]
                out["side_pots"] += len(last["pots"]) > 1
                out["showdowns"] += last["showdown"]
                if view["hands_played"] >= hands or view["over"]:
                    return out | {"view": view}
                browser.find_element("id", "next").click()
                continue
            flop = view["street"] == "flop"
            browser.execute_script("window.matchdbRoundTrip = null;")
            kind = choose(browser, view, step)
            out["all_ins"] += kind == "all-in"
            out["actions"] += 1
            step += 1
            if flop:
                deadline = time.monotonic() + 30
                while (trip := browser.execute_script("return window.matchdbRoundTrip;")) is None:
                    assert time.monotonic() < deadline
                    time.sleep(0.002)
                out["round_trips"].append(trip)
    finally:
        client.close()


def test_a_few_hands_in_the_browser_match_the_session(browser, server):
    sit_down(browser, server, {"seats": 4, "opponents": "allin,west,station", "stack": 200, "small-blind": 5,
                               "big-blind": 10, "seed": 3, "coach": True})
    figures = play_hands(browser, server, 3)
    assert figures["compared"] >= 3 and figures["view"]["hands_played"] == 3
    assert browser.find_element("id", "coach-panel").is_displayed()


def test_thirty_hands_in_the_browser_against_several_bots(browser, server):
    sit_down(browser, server, {"seats": 6, "opponents": "station,west,west:exact,west-loose,allin", "stack": 150,
                               "small-blind": 5, "big-blind": 10, "seed": 12})
    figures = play_hands(browser, server, 30)
    view = figures["view"]
    print({key: value for key, value in figures.items() if key not in ("view", "round_trips")})
    assert view["hands_played"] == 30
    assert figures["all_ins"] > 0 and figures["side_pots"] > 0 and figures["showdowns"] > 0
    if figures["round_trips"]:
        trips = figures["round_trips"]
        print(f"\nclick on a flop to drawn answer: median {statistics.median(trips):.1f} ms, max {max(trips):.1f} ms "
              f"over {len(trips)} clicks")
    browser.find_element("id", "leave").click()
    deadline = time.monotonic() + 30
    while not browser.find_element("id", "summary").is_displayed():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "Session over: 30 hands" in browser.find_element("id", "summary").text


def test_a_click_on_a_flop_is_answered_and_drawn_quickly(browser, server):
    """Heads-up against the calling station with the coach on, checking and calling: every hand sees a flop."""
    sit_down(browser, server, {"seats": 2, "opponents": "station", "stack": 1000, "small-blind": 5, "big-blind": 10,
                               "seed": 4, "coach": True})
    trips: list[float] = []
    for _ in range(40):
        shown = settled(browser)
        view = httpx.get(f"{server}/v1/play/{shown['id']}", timeout=60).json()
        compare(shown, view)
        if view["hand_over"]:
            browser.find_element("id", "next").click()
            continue
        browser.execute_script("window.matchdbRoundTrip = null;")
        browser.find_element("id", "check" if view["legal"]["check"] else "call").click()
        if view["street"] == "flop":
            deadline = time.monotonic() + 30
            while (trip := browser.execute_script("return window.matchdbRoundTrip;")) is None:
                assert time.monotonic() < deadline
                time.sleep(0.002)
            trips.append(trip)
    assert len(trips) >= 5
    print(f"\nclick on a flop to drawn answer (coach on): median {statistics.median(trips):.1f} ms, "
          f"max {max(trips):.1f} ms over {len(trips)} clicks")
    assert statistics.median(trips) < 1000  # the target is 100 ms; a loaded CI machine gets slack, the figure is printed


# -- issue 31: the table's words, and its errors through the pages' one error path ------------------------------

_LINES = "return [...document.querySelectorAll(arguments[0])].map((p) => p.textContent);"


def test_the_table_says_who_did_what_as_the_terminal_table_does(browser, server):
    """The log said "station bet 10" and the result "you shows Ah Kd": now each line reads as the terminal table's
    (matchdb.cli.tui: "fives bets 10", "you call 10", "you show Ah Kd", "you held 7c 2d"), compared line by line after
    every step of seeded hands played heads-up against Pair of Fives (cheap: no database read), checking and calling:
    the bot bets its pairs, folds to the big blind without one (the person held cards nobody saw), and every other
    hand reaches its showdown."""
    from matchdb.cli.tui import log_line, result_line

    sit_down(browser, server, {"seats": 2, "opponents": "fives", "stack": 1000, "small-blind": 5, "big-blind": 10,
                               "seed": 7})
    seen: set[tuple[bool, str]] = set()
    results: set[str] = set()
    wanted = {(False, "bet"), (False, "fold"), (True, "call"), (True, "check"), (True, "small blind"),
              (False, "big blind")}
    with httpx.Client(timeout=60) as client:
        for _ in range(300):
            shown = settled(browser)
            view = client.get(f"{server}/v1/play/{shown['id']}").json()
            lines = browser.execute_script(_LINES, "#log li")
            said = [log_line(view, entry).split(None, 1) for entry in view["log"]]  # the street, then who did what
            assert lines == [f"{street}: {words}" for street, words in said]
            seen |= {(entry["seat"] == view["human_seat"], entry["action"]) for entry in view["log"]}
            if not view["hand_over"]:
                browser.find_element("id", "check" if view["legal"]["check"] else "call").click()
                continue
            last = view["last"]
            result = browser.execute_script(_LINES, "#result p")
            assert not any("you shows" in line for line in result), result
            for seat, cards in last["shown"].items():
                if int(seat) == view["human_seat"]:  # the person never folds: shown at every showdown
                    name = "you show" if last["showdown"] else "you held"
                else:
                    assert last["showdown"], last  # a bot's cards are sent only when shown down
                    name = f"{view['names'][int(seat)]} shows"
                line = f"{name} {' '.join(cards)}"
                assert line in result and line in result_line(view), (line, result, result_line(view))
                results.add(name)
            if wanted <= seen and {"you show", "you held", "fives shows"} <= results:
                break
            browser.find_element("id", "next").click()
    assert wanted <= seen, seen
    assert results == {"you show", "you held", "fives shows"}, results


def test_the_table_shows_what_a_failing_server_answered(browser):
    """Sitting down answered with a plain-text 500 (Starlette's, for an exception nothing handled): the page says what
    the server answered, through the pages' one error path (why a stand-in: tests/service/test_page.py, ``stand_in``)."""
    with stand_in({"/v1/play": STARLETTE_500}) as url:
        sit_down(browser, url, {"seats": 2, "opponents": "station", "stack": 1000})
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 90, poll_frequency=0.02).until(
            lambda _: browser.find_element("id", "error").is_displayed()
            and browser.execute_script("return document.body.dataset.busy;") == "0")
        assert browser.find_element("id", "error").text == (
            "The server answered /v1/play with 500 Internal Server Error; the fault is the server's, not the question's.")
        assert browser.find_element("id", "setup").is_displayed() and not browser.find_element("id", "table").is_displayed()
        assert browser.execute_script("return document.body.dataset.busy;") == "0"
