"""The equity explorer page: /v1/hands and the page's files over HTTP, then the page itself in a real browser.

The browser test drives Debian's Chromium through chromedriver (selenium),
headless, against ``matchdb serve`` on 127.0.0.1 over the small store: it picks
a board and a hero hand, reads the numbers the page shows and compares them
with the Python API's answers, shows the API's one-sentence errors, and saves
a screenshot that must not be blank (copied to ``$MATCHDB_PAGE_SCREENSHOT``
when that is set). It skips, saying why, when Chromium, chromedriver or
selenium is missing; CI installs them (``.ci/run``).
"""

from __future__ import annotations

import json
import os
import re
import shutil

import httpx
import numpy as np
import pytest

from matchdb.errors import MatchdbError
from matchdb.core.hole_cards import hand_index
from matchdb.plots import class_name
from tests.helpers import running_server


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


@pytest.fixture(scope="module")
def server(small_store, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("page") / "serve.log") as url:
        yield url


def _expected_hands(table) -> dict:
    return table.to_dict() | {"grid": [[None if np.isnan(v) else float(v) for v in row] for row in table.grid()]}


# -- over HTTP -----------------------------------------------------------------------------------------------


def test_hands_answers_the_apis_tables_and_grids(db, server):
    body = httpx.get(f"{server}/v1/hands", params={"board": "2c7dJh", "villain": "QQ+,AKs"}, timeout=60).json()
    table = db.equities("2c7dJh", villain="QQ+,AKs")
    assert body == _expected_hands(table) | {"hero": None}
    assert body["figure"] == "exact equity vs QQ+,AKs" and body["hands"][hand_index("AhKh")] == "AhKh"
    assert body["values"].count(None) == 1326 - 1176  # hands touching the flop are null, never NaN
    assert body["grid"][0][1] == table.grid()[0, 1]

    body = httpx.get(f"{server}/v1/hands", params={"board": "7c7d2s7h", "figure": "win-rate", "players": 4}, timeout=60).json()
    table = db.win_rates("7c7d2s7h", players=4)
    assert body == _expected_hands(table) | {"hero": None} and body["grid"][7][7] is None  # no 77 left

    body = httpx.get(f"{server}/v1/hands", params={"board": "2c7dJh", "villain": "QQ+,AKs", "hero": "JJ-99"}, timeout=60).json()
    assert body["hero"] == db.range_outcome("JJ-99", "QQ+,AKs", "2c7dJh").to_dict()
    assert round(body["hero"]["equity"], 6) == round(1 - db.range_equity("QQ+,AKs", "JJ-99", "2c7dJh"), 6)


def test_hands_refuses_bad_questions_in_one_sentence(db, server):
    with pytest.raises(MatchdbError) as caught:
        db.equities("2c7dJh", villain="QQ ,AKs")
    cases = [
        ("board=2c7dJh&figure=odds", 422, "The parameter 'figure' is 'odds'; input should be 'equity' or 'win-rate'."),
        ("board=2c7dJh&figure=win-rate&villain=AA", 400, "The naive win rate is against random hands; the villain range 'AA' goes with the figure 'equity'."),
        ("board=2c7dJh&players=3", 400, "The exact equity is heads-up, for 2 players, not 3; the figure 'win-rate' gives the naive win rate for 3 players."),
        ("board=2c7dJh&figure=win-rate&hero=AA", 400, "A hero range is answered with its exact heads-up equity, not the figure 'win-rate'; ask /v1/win-rate for one hand's naive win rate."),
        ("board=2c7dJh&villain=QQ+,AKs", 400, str(caught.value)),  # an unencoded '+'
        ("board=2c7dJh&player=3", 400, "The parameter 'player' is not one of this endpoint's; expected board, figure, hero, players, villain."),
        ("villain=AA", 422, "The parameter 'board' is missing; it is required."),
        ("board=2c7d", 400, "The board '2c7d' has 2 cards"),
        ("board=3c8d9s", 404, "lacks table"),
    ]
    for search, status, message in cases:
        answer = httpx.get(f"{server}/v1/hands?{search}", timeout=60)
        assert answer.status_code == status, (search, answer.text)
        assert message in answer.json()["detail"] and "\n" not in answer.json()["detail"], (search, answer.text)


def test_the_page_and_its_files_come_from_the_package(server):
    from importlib.resources import files

    page = httpx.get(f"{server}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text == (files("matchdb.service") / "web" / "index.html").read_text()
    assert "default-src 'self'" in page.headers["content-security-policy"]
    linked = re.findall(r'(?:src|href)="([^"]*)"', page.text)
    assert "/web/page.js" in linked and "/web/page.css" in linked
    assert all(link.startswith(("/", "data:")) for link in linked), linked  # nothing from elsewhere: no CDN
    for name, media in (("page.js", "text/javascript"), ("page.css", "text/css")):
        answer = httpx.get(f"{server}/web/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(media)
        assert answer.text == (files("matchdb.service") / "web" / name).read_text()
    missing = httpx.get(f"{server}/web/query.py")
    assert missing.status_code == 404
    assert missing.json()["detail"] == "The page has no file 'query.py'; expected one of index.html, page.js, page.css."
    assert httpx.get(f"{server}/web/..%2Fquery.py").status_code == 404  # only the page's files, by name
    paths = httpx.get(f"{server}/openapi.json").json()["paths"]
    assert "/v1/hands" in paths and "/" not in paths


# -- in a real browser ---------------------------------------------------------------------------------------

_CHROMIUM_FLAGS = (
    # headless on a machine with a closed network: without the background-networking flags
    # Chromium's own connections are refused and slow everything down
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1200,1300",
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium driven by selenium, with a fresh profile; skips, saying why, when something is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed; pip install 'matchdb[test]' installs it.")
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if chromium is None:
        pytest.skip("Chromium is not installed; apt-get install chromium chromium-driver (CI does, as root).")
    driver_path = shutil.which("chromedriver")
    if driver_path is None:
        pytest.skip("chromedriver is not installed; apt-get install chromium-driver (CI does, as root).")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in _CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    """The explorer page as a test sees it."""

    def __init__(self, driver, url: str) -> None:
        self.driver, self.url = driver, url

    def open(self, fragment: str = "") -> None:
        self.driver.get(f"{self.url}/{fragment}")
        if fragment:
            self.driver.refresh()  # going to another fragment of the same page does not load it again
        self.wait(lambda: self.body("state") in ("ready", "done", "error"))

    def body(self, name: str) -> str:
        return self.driver.find_element("tag name", "body").get_attribute(f"data-{name}")

    def wait(self, condition, seconds: float = 60) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(lambda _: condition())

    def element(self, id_: str):
        return self.driver.find_element("id", id_)

    def text(self, id_: str) -> str:
        return self.element(id_).text

    def shown(self, id_: str) -> bool:
        return self.element(id_).is_displayed()

    def type(self, id_: str, text: str) -> None:
        field = self.element(id_)
        field.clear()
        field.send_keys(text)

    def pick(self, card: str) -> None:
        self.driver.find_element("css selector", f'#picker button[data-card="{card}"]').click()

    def show(self) -> str:
        """Press Show, wait for the answers; the page's state afterwards (done or error)."""
        before = int(self.body("shown"))
        self.element("go").click()
        self.wait(lambda: int(self.body("shown")) > before)
        return self.body("state")

    def cells(self) -> list[tuple[str, str, str]]:
        """(class, full value, value shown) of every grid cell, row by row."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#grid td.cell')]"
            ".map(td => [td.dataset.class, td.dataset.value, td.querySelector('.value').textContent]);"
        )

    def severe_logs(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]


def _assert_grid(page: Page, grid: np.ndarray) -> None:
    cells = page.cells()
    assert len(cells) == 169
    for k, (name, value, shown) in enumerate(cells):
        i, j = divmod(k, 13)
        assert name == class_name(i, j)
        if np.isnan(grid[i, j]):
            assert (value, shown) == ("", "-")
        else:
            assert float(value) == grid[i, j], (name, value, grid[i, j])  # the API's float, exactly
            assert abs(float(shown) - 100 * grid[i, j]) <= 0.05 + 1e-9, (name, shown)


def _assert_not_blank(path) -> None:
    from matplotlib.image import imread

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(path)[:, :, :3]
    assert pixels.shape[0] > 500 and pixels.shape[1] > 500
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 100  # not one colour: text, cards and a coloured grid
    red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    assert ((green > red + 0.2) & (green > blue + 0.1)).sum() > 1000  # green cells (above the fair share) ...
    assert ((red > green + 0.2) & (red > blue + 0.2)).sum() > 1000  # ... and red ones were drawn


def test_the_page_in_a_real_browser(browser, db, server, tmp_path):
    page = Page(browser, server)
    page.open()
    info = db.info()
    assert page.text("db-info") == f"format {info['format_version']}, {info['tables_built']} of {info['tables']} tables"
    assert not page.shown("multiway") and not page.shown("distribution")  # nothing asked yet

    # a board from the card picker, a hero hand picked too, against any hand
    for card in ("2c", "7d", "Jh"):
        page.pick(card)
    browser.find_element("css selector", 'input[name="pick"][value="hero"]').click()
    for card in ("Ah", "Kh"):
        page.pick(card)
    assert page.element("board").get_attribute("value") == "2c7dJh"
    assert page.element("hero").get_attribute("value") == "AhKh"
    assert page.show() == "done"
    outcome = db.outcome("AhKh", "2c7dJh")
    assert page.text("hero-equity") == f"{outcome.equity:.6f}" == "0.572571"
    assert (page.text("hero-win"), page.text("hero-tie"), page.text("hero-loss")) == tuple(
        f"{v:.6f}" for v in (outcome.win, outcome.tie, outcome.loss)
    )
    assert not page.shown("stat-win-rate") and page.text("hero-title") == "AhKh on 2c7dJh against random"
    assert not page.shown("multiway")  # heads-up against a villain: the multiway view waits for opponents
    distribution = db.distribution("AhKh", "2c7dJh")  # the hand's distribution over runouts, from /v1/distribution
    page.wait(lambda: page.shown("distribution") and page.text("dist-ehs") != "")
    assert [page.text(f"dist-{name}") for name in ("ehs", "ehs2", "hs", "ppot", "npot")] == [
        f"{getattr(distribution, name):.6f}" for name in ("ehs", "ehs2", "hs", "ppot", "npot")
    ]
    bars = browser.find_elements("css selector", "#dist-histogram .bar")
    assert [float(bar.get_attribute("data-probability")) for bar in bars] == distribution.river_histogram.tolist()
    table = db.equities("2c7dJh")
    _assert_grid(page, table.grid())
    assert page.text("grid-title") == "exact equity vs random of every hand on 2c7dJh"
    hero_cell = browser.find_element("css selector", "#grid td.hero")
    assert hero_cell.get_attribute("data-class") == "AKs"

    # hovering a class shows its value and each of its hands' values
    from selenium.webdriver import ActionChains

    ActionChains(browser).move_to_element(hero_cell).perform()
    page.wait(lambda: page.shown("tip"))
    tip = page.text("tip")
    assert tip.startswith(f"AKs: {table.grid()[0, 1]:.6f}")
    for hand in ("AhKh", "AsKs", "AdKd"):
        assert f"{hand} {table.value(hand):.6f}" in tip
    assert "AcKc" in tip  # 2c is on the board: listed, with no number
    assert page.severe_logs() == []  # no script error, nothing refused by the content security policy

    # a villain range with '+': the page must encode it (an unencoded '+' is refused by the server)
    page.type("villain", "QQ+,AKs")
    assert page.show() == "done"
    assert page.text("hero-equity") == f"{db.equity('AhKh', '2c7dJh', villain='QQ+,AKs'):.6f}" == "0.266566"
    assert page.text("hero-title") == "AhKh on 2c7dJh against QQ+,AKs"
    _assert_grid(page, db.equities("2c7dJh", villain="QQ+,AKs").grid())

    # a hero range: its exact equity against the villain range, from /v1/hands
    page.type("hero", "JJ-99")
    assert page.show() == "done"
    assert page.text("hero-equity") == f"{db.range_equity('JJ-99', 'QQ+,AKs', '2c7dJh'):.6f}"
    assert not page.shown("stat-win") and page.text("hero-title") == "JJ-99 against QQ+,AKs on 2c7dJh"

    # errors are the API's one sentence, and no stale numbers stay on the page
    page.type("hero", "AhKh")
    page.type("board", "2c7dJhAh")
    assert page.show() == "error"
    with pytest.raises(MatchdbError) as caught:
        db.outcome("AhKh", "2c7dJhAh", "QQ+,AKs")
    assert page.text("error") == str(caught.value) == "The hole cards 'AhKh' and the board '2c7dJhAh' share 'Ah'; expected distinct cards."
    assert not page.shown("grid-section") and not page.shown("hero-summary")
    page.type("board", "2c7dJh")
    page.type("villain", "QQ+,AKx")
    assert page.show() == "error"
    with pytest.raises(MatchdbError) as caught:
        db.equities("2c7dJh", villain="QQ+,AKx")
    assert page.text("error") == str(caught.value)

    # random opponents: the naive win rate for opponents + 1 players
    page.type("villain", "")
    browser.find_element("id", "against-opponents").click()
    page.type("opponents", "2")
    assert page.show() == "done" and not page.shown("error")
    assert page.text("hero-win-rate") == f"{db.win_rate('AhKh', '2c7dJh', players=3):.6f}" == "0.386583"
    assert not page.shown("stat-equity") and page.text("hero-title") == "AhKh on 2c7dJh, 3 players"
    _assert_grid(page, db.win_rates("2c7dJh", players=3).grid())
    multiway = db.multiway("AhKh", "2c7dJh", 2)  # beside it, /v1/multiway's exact equity against both opponents
    assert page.shown("multiway") and page.text("mw-title") == "AhKh on 2c7dJh against random, random"
    assert [page.text(f"mw-{name}") for name in ("equity", "win", "tie", "loss")] == [
        f"{getattr(multiway, name):.6f}" for name in ("equity", "win", "tie", "loss")
    ]
    assert multiway.exact and page.text("mw-how") == "exact: every deal counted" and page.text("mw-equity") == "0.375861"
    page.type("opponents", "12")  # the naive win rate takes 13 players, the multiway equity at most 9 opponents
    assert page.show() == "done" and page.text("hero-win-rate") == f"{db.win_rate('AhKh', '2c7dJh', players=13):.6f}"
    refused = httpx.get(f"{server}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "opponents": 12}, timeout=60)
    assert refused.status_code == 400 and page.shown("mw-error") and page.text("mw-error") == refused.json()["detail"]
    page.type("opponents", "30")
    assert page.show() == "error" and page.text("error") == 'The number of opponents "30" is out of range; expected a whole number 1..22.'
    assert not page.shown("multiway")

    # a question in the address opens with its answers: the published AcAd on AhTcTh, 99.4682 %
    page.open("#board=AhTcTh&hero=AcAd")
    page.wait(lambda: page.body("state") == "done")
    assert page.text("hero-equity") == f"{db.equity('AcAd', 'AhTcTh'):.6f}" == "0.994682"
    _assert_grid(page, db.equities("AhTcTh").grid())
    requested = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert requested and all(name.startswith(server + "/") for name in requested), requested

    ActionChains(browser).move_to_element(browser.find_element("css selector", "#grid td.hero")).perform()
    page.wait(lambda: page.text("tip").startswith(f"AA: {db.equities('AhTcTh').grid()[0, 0]:.6f}"))
    screenshot = tmp_path / "page.png"
    assert browser.save_screenshot(str(screenshot))
    _assert_not_blank(screenshot)
    if os.environ.get("MATCHDB_PAGE_SCREENSHOT"):
        shutil.copyfile(screenshot, os.environ["MATCHDB_PAGE_SCREENSHOT"])
    refused = [m for m in page.severe_logs() if "status of 400" not in m]  # the refused questions above
    assert refused == [], json.dumps(refused)
