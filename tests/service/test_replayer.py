"""The hand replayer over HTTP (POST /v1/replayer) and in a real browser (/replayer): the real sample hands read, one
replayed frame by frame, every equity the page shows equal to the Python API's, bad input in one sentence."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from matchdb.hands import read, replay_hand
from matchdb.hands.walkthrough import walk
from tests.helpers import running_server
from tests.service.test_page import Page

ABS = Path(__file__).resolve().parents[1] / "data" / "hands" / "abs-100nl.phhs"


@pytest.fixture(scope="module")
def server(full_store, tmp_path_factory):
    with running_server(full_store, tmp_path_factory.mktemp("replayer") / "serve.log") as url:
        yield url


def _showdown_hand() -> int:
    """The number of the first sample hand that ends at a showdown with two hands shown."""
    for number, record in enumerate(read(ABS)):
        done = replay_hand(record)
        if done.showdown and sum(h is not None for h in done.holes) >= 2:
            return number
    raise AssertionError("the sample file has no showdown")


def test_replayer_answers_the_walk_of_the_chosen_hand(server, full_db):
    number = _showdown_hand()
    answer = httpx.post(f"{server}/v1/replayer", json={"text": ABS.read_text(), "hand": number, "name": ABS.name},
                        timeout=120).json()
    records = list(read(ABS))
    assert answer["count"] == len(records) and answer["labels"][number] == records[number].label
    assert answer["refused"] == 0
    expected = walk(replay_hand(records[number]), full_db)
    assert answer["replay"] == expected


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"text": "nonsense"}, 400, "is neither PHH nor a site history"),
    ({"text": "variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [9, 9]\n"
              "actions = []\n"}, 400, "fixed-limit"),
    ({"text": ABS.read_text(), "hand": 10_000}, 400, "beyond the 83 hands read"),
    ({"text": ABS.read_text(), "hands": 1}, 422, "'hands'"),
    ({"text": ABS.read_text(), "hand": -1}, 422, "'hand'"),
    ({"text": ABS.read_text().split("\n\n[2]")[0].replace("[200.30,", "[92233720368547758.08,")}, 400,
     "has an amount of 9,223,372,036,854,775,808 chips; matchdb reads amounts of at most 10^15 chips"),
    ({"text": ABS.read_text().split("\n\n[2]")[0].replace("actions = [", "actions = [" + "'p1 cc', " * 20_001)},
     400, "has 20,007 actions; matchdb reads hands of at most 20,000 actions"),
    ({"text": ABS.read_text().split("\n\n[2]")[0].replace("[1]", "[[1]]")}, 400, "is headed [[1]], a TOML array"),
])
def test_replayer_refuses_bad_input_in_one_sentence(server, body, status, words):
    response = httpx.post(f"{server}/v1/replayer", json=body, timeout=60)
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert words in detail and detail.count(". ") <= 1


def test_a_hand_past_the_limits_is_refused_and_the_others_served(server):
    """A stack of 2^63 beside good hands: the good ones are read and replayed, the bad one listed, never a 500."""
    text = ABS.read_text()
    second = text.index("\n\n[2]")
    bad = text[:second].replace("[1]", "[0]").replace("[200.30,", "[92233720368547758.08,")
    response = httpx.post(f"{server}/v1/replayer", json={"text": bad + "\n" + text, "hand": 0, "name": "x.phhs"},
                          timeout=120)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["count"] == 83 and answer["refused"] == 1 and answer["labels"][0] == "x.phhs [1]"
    assert answer["refusals"] == ["Hand [0] of x.phhs has an amount of 9,223,372,036,854,775,808 chips; matchdb reads "
                                  "amounts of at most 10^15 chips (10,000,000,000,000.00 in this hand's currency)."]


def test_the_page_steps_through_a_hand_showing_the_apis_figures(server, browser, full_db):
    page = Page(browser, server)
    browser.get(f"{server}/replayer")
    page.wait(lambda: page.body("state") == "ready")
    browser.execute_script("document.getElementById('text').value = arguments[0];", ABS.read_text())
    page.element("go").click()
    page.wait(lambda: page.body("state") in ("done", "error"))
    assert page.body("state") == "done", page.text("error")
    number = _showdown_hand()
    from selenium.webdriver.support.ui import Select

    Select(page.element("hand-choice")).select_by_value(str(number))
    page.wait(lambda: page.body("state") == "done" and page.element("hand-choice").get_attribute("value") == str(number))
    expected = walk(replay_hand(list(read(ABS))[number]), full_db)["frames"]
    for k, frame in enumerate(expected):
        page.wait(lambda k=k: page.body("frame") == str(k))
        assert page.text("frame-text") == f"{frame['street']}: {frame['text']}"
        assert float(page.element("pot").get_attribute("data-value")) == frame["pot"]
        rows = browser.find_elements("css selector", "#seats tbody tr")
        assert len(rows) == len(frame["stacks"])
        for seat, row in enumerate(rows):
            cells = row.find_elements("tag name", "td")
            assert float(cells[2].get_attribute("data-value")) == frame["stacks"][seat]
            shown = cells[4].get_attribute("data-value")
            equity = frame["equity"][seat]
            assert (shown is None) == (equity is None)
            if equity is not None:
                assert float(shown) == equity
                assert cells[4].text.startswith(f"{100 * equity:.2f} %")
            assert ("folded" in row.get_attribute("class")) == (not frame["in_hand"][seat])
        if k + 1 < len(expected):
            page.element("next").click()
    assert not page.element("next").is_enabled()
    page.element("first").click()
    page.wait(lambda: page.body("frame") == "0")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
