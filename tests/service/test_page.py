"""The equity explorer page: /v1/hands, /v1/range, /docs and the page's files over HTTP, then the page itself in a real browser.

The browser tests drive Debian's Chromium through chromedriver (selenium),
headless, against ``matchdb serve`` on 127.0.0.1 over the small store: they
pick a board and hands, build ranges by clicking and dragging the grid, ask
for up to ten players, and compare every number the page shows with the
Python API's answer (the floats the page keeps in ``data-value``, and the
percentages it prints); they check the grid's colours and legend, the one-sentence
errors, ``hashchange``, and that ``/docs`` draws with the network closed. The
time from a click on the grid to its answers on a flop is measured in the
browser and printed. A screenshot must not be blank (copied to
``$MATCHDB_PAGE_SCREENSHOT`` when that is set). They skip, saying why, when
Chromium, chromedriver or selenium is missing; CI installs them (``.ci/run``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import threading
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pytest

from matchdb.core.hole_cards import CLASS_OF_HAND, CLASSES, hand_index
from matchdb.core.ranges import range_weights
from matchdb.errors import MatchdbError
from matchdb.plots import class_name, grid_colour
from matchdb.service.page import PAGE_FILES, PAGE_HEADERS, PAGES, page_html, range_answer
from tests.helpers import running_server, serving


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


def test_the_pages_and_their_files_come_from_the_package(server):
    """Each page is base.html's shell around its own body (issue 31: one base for the pages), with its own script (an
    ES module importing base.js) and stylesheet beside base.css, and the navigation between the pages."""
    from importlib.resources import files

    web = files("matchdb.service") / "web"
    base = (web / "base.html").read_text()
    for path, (title, name) in PAGES.items():
        page = httpx.get(f"{server}{path}")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in page.headers["content-security-policy"]
        head, tail = base.split("{{body}}")
        assert page.text.startswith(head[:head.index("{{")]) and page.text.endswith(tail)  # the one shell
        assert (web / f"{name}.html").read_text().rstrip() in page.text  # the page's own body
        assert f"<title>matchdb: {title}</title>" in page.text and f'<h1>matchdb <span>{title}</span></h1>' in page.text
        linked = re.findall(r'(?:src|href)="([^"]*)"', page.text)
        assert linked[:4] == ["data:,", "/web/base.css", f"/web/{name}.css", f"/web/{name}.js"], linked
        assert f'<script type="module" src="/web/{name}.js"></script>' in page.text
        assert all(link.startswith(("/", "data:")) for link in linked), linked  # nothing from elsewhere: no CDN
        nav = re.search(r"<nav [^>]*>(.*?)</nav>", page.text)[1]
        assert re.findall(r'<a href="([^"]*)"', nav) == list(PAGES)
        assert re.findall(r'<a href="([^"]*)" aria-current="page">', nav) == [path]
        assert page.text.count('id="error"') == 1 and "{{" not in page.text
        script = (web / f"{name}.js").read_text()
        assert 'from "./base.js";' in script and "fetch(" not in script  # every request goes through the base
        assert "const $ =" not in script and "function showError" not in script
    for name, media in PAGE_FILES.items():
        answer = httpx.get(f"{server}/web/{name}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(media)
        assert answer.text == (web / name).read_text() and "default-src 'self'" in answer.headers["content-security-policy"]
    assert list(PAGE_FILES) == ["base.js", "base.css", "explorer.js", "explorer.css", "play.js", "play.css",
                                "replayer.js", "replayer.css", "solver.js", "solver.css", "trainer.js", "trainer.css"]
    missing = httpx.get(f"{server}/web/query.py")
    assert missing.status_code == 404
    assert missing.json()["detail"] == ("The page has no file 'query.py'; expected one of base.js, base.css, explorer.js, "
                                        "explorer.css, play.js, play.css, replayer.js, replayer.css, "
                                        "solver.js, solver.css, trainer.js, trainer.css.")
    assert httpx.get(f"{server}/web/base.html").status_code == 404  # the shell is served filled in, never bare
    assert httpx.get(f"{server}/web/..%2Fquery.py").status_code == 404  # only the page's files, by name
    paths = httpx.get(f"{server}/openapi.json").json()["paths"]
    assert "/v1/hands" in paths and "/v1/range" in paths and "/" not in paths and "/docs" not in paths


def _class_weights(text) -> dict[str, float]:
    """Each class's mean weight in a range, from the Python API's weights (an independent grouping)."""
    weights = range_weights(text)
    totals: dict[str, float] = {}
    for position in np.flatnonzero(weights):
        name = CLASSES[CLASS_OF_HAND[position]]
        totals[name] = totals.get(name, 0.0) + float(weights[position])
    return {name: total / (6 if len(name) == 2 else 4 if name.endswith("s") else 12) for name, total in totals.items()}


def test_range_answers_each_classes_weight(server):
    for text in ("QQ+,AKs", "qq+, 0.5(aks),AhQh", "random", "JJ-99,0.25(KTo-K8o),AsQs"):
        body = httpx.get(f"{server}/v1/range", params={"range": text}, timeout=60).json()
        expected = _class_weights(text)
        assert {name: entry["weight"] for name, entry in body["classes"].items()} == pytest.approx(expected, abs=1e-12)
        assert body["combos"] == float(range_weights(text).sum()) and body["fraction"] == body["combos"] / 1326
        for name, entry in body["classes"].items():
            assert entry["combos"] == (6 if len(name) == 2 else 4 if name.endswith("s") else 12)
    body = httpx.get(f"{server}/v1/range", params={"range": "qq+, 0.5(aks),AhQh"}, timeout=60).json()
    assert body["range"] == "QQ+,0.5(AKs),AhQh"
    with pytest.raises(MatchdbError) as caught:
        range_weights("0.5(AKs),AhKh")
    answer = httpx.get(f"{server}/v1/range", params={"range": "0.5(AKs),AhKh"}, timeout=60)
    assert answer.status_code == 400 and answer.json()["detail"] == str(caught.value)  # the same hand twice, whatever its weight
    answer = httpx.get(f"{server}/v1/range", params={"range": "AK,XX"}, timeout=60)
    assert answer.status_code == 400 and "cannot be parsed at 'XX'" in answer.json()["detail"]


def test_the_api_documentation_loads_nothing_from_elsewhere(server):
    from fastapi_offline import __file__ as offline

    for path in ("/docs", "/redoc"):
        page = httpx.get(f"{server}{path}", timeout=60)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        linked = re.findall(r'(?:src|href)="([^"]*)"', page.text)
        assert linked and all(link.startswith("/docs/assets/") for link in linked), linked
        assert "cdn." not in page.text and "fonts.googleapis" not in page.text
    for name, media in (("swagger-ui-bundle.js", "text/javascript"), ("swagger-ui.css", "text/css"),
                        ("redoc.standalone.js", "text/javascript"), ("favicon.png", "image/png")):
        answer = httpx.get(f"{server}/docs/assets/{name}", timeout=60)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(media)
        assert answer.content == (Path(offline).parent / "static" / name).read_bytes()
    missing = httpx.get(f"{server}/docs/assets/swagger.js", timeout=60)
    assert missing.status_code == 404 and missing.json()["detail"].startswith("The documentation has no file 'swagger.js'")


# -- in a real browser ---------------------------------------------------------------------------------------

class Page:
    """The explorer page as a test sees it."""

    def __init__(self, driver, url: str) -> None:
        self.driver, self.url = driver, url

    def open(self, fragment: str = "") -> None:
        self.driver.get_log("browser")  # reading the log empties it: what an earlier test did on purpose is gone
        self.driver.get(f"{self.url}/{fragment}")
        self.driver.refresh()  # going to another fragment of the same page does not load it again
        self.wait(lambda: self.body("state") in ("ready", "done", "error"))

    def body(self, name: str) -> str:
        return self.driver.find_element("tag name", "body").get_attribute(f"data-{name}")

    def wait(self, condition, seconds: float | None = None) -> None:
        """Until ``condition()`` holds; by default as long as the page itself waits for an answer (its ``data-wait``:
        the server's answer deadline and a minute) and half a minute more, so that a loaded machine's slow answer
        is waited for, as the page waits for it, and only a page that never gets there fails (a fixed 90 s failed
        while the page still rightly waited for its four players' answers)."""
        from selenium.webdriver.support.ui import WebDriverWait

        if seconds is None:
            seconds = float(self.body("wait") or 90) + 30
        WebDriverWait(self.driver, seconds, poll_frequency=0.02).until(lambda _: condition())

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

    def players(self, *texts: str) -> None:
        """Exactly these players (empty text: random), through the add and remove buttons."""
        while len(self.driver.find_elements("css selector", "#players .player")) > max(len(texts), 2):
            self.driver.find_elements("css selector", "#players .remove")[-1].click()
        while len(self.driver.find_elements("css selector", "#players .player")) < len(texts):
            self.element("add-player").click()
        for k, text in enumerate(texts, start=1):
            self.type(f"player-{k}", text)

    def select(self, player: int) -> None:
        self.driver.find_element("css selector", f'#players input[name="active"][value="{player - 1}"]').click()

    def pick(self, card: str) -> None:
        self.driver.find_element("css selector", f'#picker button[data-card="{card}"]').click()

    def after(self, action) -> str:
        """Do ``action`` (which asks the page a question), wait for the answers; the page's state afterwards."""
        before = int(self.body("shown"))
        action()
        self.wait(lambda: int(self.body("shown")) > before)
        return self.body("state")

    def show(self) -> str:
        return self.after(self.element("go").click)

    def rows_done(self, count: int) -> None:
        self.wait(lambda: int(self.body("rows") or 0) >= count)

    def cell(self, name: str):
        return self.driver.find_element("css selector", f'#grid td[data-class="{name}"]')

    def cells(self) -> list[tuple[str, str, str, str, str, str]]:
        """(class, full value, value shown, weight, background, text colour) of every grid cell, row by row."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#grid td.cell')].map(td => [td.dataset.class, td.dataset.value,"
            " td.querySelector('.value').textContent, td.dataset.weight, getComputedStyle(td).backgroundColor,"
            " getComputedStyle(td).color]);"
        )

    def player_rows(self) -> list[dict]:
        """Every row of the players' table: the figures the page keeps (floats, None where not given) and its note."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#players-result tbody tr')].map(tr => ({"
            " text: tr.cells[1].textContent, how: tr.cells[5].textContent,"
            " equity: tr.querySelector('.equity').dataset.value, win: tr.querySelector('.win').dataset.value,"
            " tie: tr.querySelector('.tie').dataset.value, shown: tr.querySelector('.equity').textContent}));"
        )

    def severe_logs(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]


# Why the shared error path is tested against a stand-in: ``matchdb serve`` answers every error it foresees as JSON with
# one sentence (a MatchdbError's: 4xx, or 503 for a damaged database or a question past its deadline), so no request
# makes it answer otherwise. A plain-text or HTML error reaches a page only from something else: a proxy in front of
# the server (nginx's "502 Bad Gateway" page), a server that closed the connection, or an exception the service did
# not foresee (Starlette's plain "Internal Server Error", a bug, which no test may rely on staying unfixed). So these
# tests serve the real pages (``page_html``, the files of web/, the same headers) from a small real HTTP server that
# answers the API as such a proxy or crashed server does, and drive them in the real browser.

#: nginx's page for an upstream that is down, as it sends it.
NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>"
             b"\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n")
#: What Starlette (under FastAPI) sends for an exception nothing handled.
STARLETTE_500 = (500, "text/plain; charset=utf-8", b"Internal Server Error")


@contextmanager
def stand_in(answers: dict):
    """A real HTTP server on 127.0.0.1 serving the pages and their files as ``matchdb serve`` does, and answering each
    path of ``answers`` (GET or POST, its query ignored) with (status, content type, body), or ``"hang"`` (no answer:
    the page's timeout), ``"close"`` (the connection closed with no answer) or ``"broken"`` (the body cut short). Any
    other path: 404. Yields its URL."""
    import http.server

    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            name = path.removeprefix("/web/")
            if path in PAGES:
                self.send(200, "text/html", page_html(path).encode(), PAGE_HEADERS)
            elif path.startswith("/web/") and name in PAGE_FILES:
                from importlib.resources import files

                self.send(200, PAGE_FILES[name], (files("matchdb.service") / "web" / name).read_bytes(), PAGE_HEADERS)
            elif answers.get(path) == "hang":
                done.wait(60)
            elif answers.get(path) == "close":
                self.close_connection = True
            elif answers.get(path) == "broken":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.write(b'{"equity": 0.')
                self.close_connection = True
            elif path in answers:
                self.send(*answers[path])
            else:
                self.send(404, "application/json", json.dumps({"detail": f"No {path} here."}).encode())

        do_POST = do_GET

        def send(self, status: int, media: str, body: bytes, headers: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    try:
        with serving(Handler) as server:
            yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        done.set()


def _rgb(hex_colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)))


def _assert_grid(page: Page, grid: np.ndarray, center: float = 0.5) -> None:
    cells = page.cells()
    assert len(cells) == 169
    for k, (name, value, shown, _, background, ink) in enumerate(cells):
        i, j = divmod(k, 13)
        assert name == class_name(i, j)
        if np.isnan(grid[i, j]):
            assert (value, shown) == ("", "-")
        else:
            assert float(value) == grid[i, j], (name, value, grid[i, j])  # the API's float, exactly
            assert abs(float(shown) - 100 * grid[i, j]) <= 0.05 + 1e-9, (name, shown)
        expected_background, expected_ink = grid_colour(grid[i, j], center)  # the notebook's and the plot's colours
        assert (background, ink) == (_rgb(expected_background), _rgb(expected_ink)), (name, background, ink)


def _assert_range_drawn(page: Page, text: str | None) -> None:
    """The grid draws exactly the range ``text`` (None: none) as each class's mean weight."""
    expected = _class_weights(text) if text else {}
    drawn = {name: float(weight) for name, _, _, weight, _, _ in page.cells() if float(weight) > 0}
    assert drawn == pytest.approx(expected, abs=1e-12), (text, drawn)


def _pct(value: float) -> str:
    """A figure as the page prints it: a percentage, two decimals (the float itself is in data-value)."""
    return f"{100 * value:.2f} %"


def _assert_outcome(row: dict, outcome) -> None:
    assert (float(row["equity"]), float(row["win"]), float(row["tie"])) == (outcome.equity, outcome.win, outcome.tie)
    assert row["shown"] == _pct(outcome.equity)


def _assert_mirror(row: dict, outcome) -> None:
    assert float(row["equity"]) == 1 - outcome.equity and float(row["win"]) == outcome.loss and float(row["tie"]) == outcome.tie


def _assert_not_blank(path) -> None:
    from matplotlib.image import imread

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(path)[:, :, :3]
    assert pixels.shape[0] > 500 and pixels.shape[1] > 500
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 100  # not one colour: text, cards and a coloured grid
    red, green, blue = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    assert ((green > red + 0.2) & (green > blue + 0.1)).sum() > 1000  # green cells (above the fair share) ...
    assert ((red > green + 0.2) & (red > blue + 0.2)).sum() > 1000  # ... and red ones were drawn


@pytest.fixture(scope="module")
def page(browser, server):
    return Page(browser, server)


def test_a_hand_against_a_range_heads_up(page, db):
    page.open()
    info = db.info()
    assert page.text("page-info") == f"format {info['format_version']}, {info['tables_built']} of {info['tables']} tables"
    assert not page.shown("headline") and page.shown("grid-section")  # nothing asked yet: the grid builds ranges

    # a board from the card picker, player 1's hand picked too, against a random hand
    for card in ("2c", "7d", "Jh"):
        page.pick(card)
    page.select(1)
    page.driver.find_element("css selector", 'input[name="pick"][value="player"]').click()
    for card in ("Ah", "Kh"):
        page.pick(card)
    assert page.element("board").get_attribute("value") == "2c7dJh"
    assert page.element("player-1").get_attribute("value") == "AhKh"
    assert page.show() == "done"
    outcome = db.outcome("AhKh", "2c7dJh")
    assert page.text("headline-equity") == _pct(outcome.equity) == "57.26 %"  # as players read equities
    assert float(page.element("headline-equity").get_attribute("data-value")) == outcome.equity
    assert page.text("headline-how") == "(exact)" and page.text("headline-title") == "AhKh on 2c7dJh against random"
    naive = db.win_rate("AhKh", "2c7dJh", players=2)  # beside it, labelled: the article's formula
    assert page.text("naive-label") == "naive win rate, 2 players" and float(page.element("naive-value").get_attribute("data-value")) == naive
    assert "random opponents, no card removal" in page.text("naive")
    page.rows_done(2)
    first, second = page.player_rows()
    _assert_outcome(first, outcome)
    _assert_mirror(second, outcome)
    assert (first["text"], second["text"]) == ("AhKh", "random")

    # the grid: every hand's exact equity against player 2 (random), its colours the notebook's, a legend with its scale
    table = db.equities("2c7dJh")
    _assert_grid(page, table.grid())
    assert page.text("grid-title") == "exact equity vs random of every hand on 2c7dJh"
    ticks = [t.text for t in page.driver.find_elements("css selector", "#legend-ticks .tick")]
    assert ticks == ["0 %", "50.0 % (fair share)", "100 %"] and page.element("legend-bar").get_attribute("data-center") == "0.5"
    gradient = page.element("legend-bar").value_of_css_property("background-image")
    assert gradient == "linear-gradient(to right, rgb(215, 48, 39) 0%, rgb(255, 255, 191) 50%, rgb(26, 152, 80) 100%)"
    _assert_range_drawn(page, "AhKh")  # player 1 is selected: its hand is a quarter of AKs
    page.select(2)
    page.wait(lambda: page.text("range-summary").startswith("Player 2: empty, a random hand; click or drag classes"))
    _assert_range_drawn(page, None)  # an empty field draws nothing: the grid builds a range from there
    hero_cell = page.driver.find_element("css selector", "#grid td.hero")
    assert hero_cell.get_attribute("data-class") == "AKs"

    # hovering a class shows its value and each of its hands' values
    from selenium.webdriver import ActionChains

    ActionChains(page.driver).move_to_element(hero_cell).perform()
    page.wait(lambda: page.shown("tip"))
    tip = page.text("tip")
    assert tip.startswith(f"AKs: {_pct(table.grid()[0, 1])}")
    for hand in ("AhKh", "AsKs", "AdKd"):
        assert f"{hand} {_pct(table.value(hand))}" in tip
    assert "AcKc" in tip  # 2c is on the board: listed, with no number

    # one hand heads-up on a flop: its distribution over the runouts
    distribution = db.distribution("AhKh", "2c7dJh")
    assert page.shown("distribution") and not page.shown("dist-note")
    assert [page.text(f"dist-{name}") for name in ("ehs", "ehs2", "hs", "ppot", "npot")] == [
        f"{distribution.ehs2:.6f}" if name == "ehs2" else _pct(getattr(distribution, name))
        for name in ("ehs", "ehs2", "hs", "ppot", "npot")
    ]
    bars = page.driver.find_elements("css selector", "#dist-histogram .bar")
    assert [float(bar.get_attribute("data-probability")) for bar in bars] == distribution.river_histogram.tolist()
    assert page.text("dist-title") == "AhKh on 2c7dJh against random: 1081 runouts"
    assert page.severe_logs() == []  # no script error, nothing refused by the content security policy

    # a villain range with '+', typed: drawn on the grid, sent encoded (an unencoded '+' is refused by the server)
    page.type("player-2", "qq+, aks")
    page.element("player-1").click()  # the change event: the range is read and drawn
    page.select(2)
    page.wait(lambda: page.text("range-summary") == "Player 2: QQ+,AKs, 22 combos, 1.7 % of all hands")
    assert page.show() == "done"
    _assert_range_drawn(page, "QQ+,AKs")
    outcome = db.outcome("AhKh", "2c7dJh", villain="QQ+,AKs")
    assert page.text("headline-equity") == _pct(outcome.equity) == "26.66 %"
    assert page.text("headline-title") == "AhKh on 2c7dJh against qq+, aks"
    page.rows_done(2)
    first, second = page.player_rows()
    _assert_outcome(first, outcome)
    _assert_mirror(second, outcome)
    _assert_grid(page, db.equities("2c7dJh", villain="QQ+,AKs").grid())

    # a range for player 1: its exact equity, win and tie (the mirror for player 2), no distribution
    page.type("player-1", "JJ-99")
    assert page.show() == "done"
    outcome = db.range_outcome("JJ-99", "QQ+,AKs", "2c7dJh")
    assert float(page.element("headline-equity").get_attribute("data-value")) == outcome.equity
    assert not page.shown("naive")
    page.rows_done(2)
    first, second = page.player_rows()
    _assert_outcome(first, outcome)
    _assert_mirror(second, outcome)
    assert first["how"] == second["how"] == "exact"
    assert page.shown("dist-note") and not page.shown("dist-body")
    assert page.text("dist-note") == (
        "The distribution over runouts is drawn for one hand against one opponent on a flop or turn; here the hero is the range JJ-99."
    )
    # ranges that often split the pot: the tie shown is the Python API's
    page.players("AK,AQ", "AK,KQ")
    assert page.show() == "done"
    outcome = db.range_outcome("AK,AQ", "AK,KQ", "2c7dJh")
    page.rows_done(2)
    first, second = page.player_rows()
    _assert_outcome(first, outcome)
    _assert_mirror(second, outcome)
    assert outcome.tie > 0.2 and first["shown"] == _pct(outcome.equity)
    page.players("JJ-99", "QQ+,AKs")

    # errors are the API's one sentence, and no stale numbers stay on the page
    page.type("player-1", "AhKh")
    page.type("board", "2c7dJhAh")
    assert page.show() == "error"
    with pytest.raises(MatchdbError) as caught:
        db.outcome("AhKh", "2c7dJhAh", "QQ+,AKs")
    assert page.text("error") == str(caught.value) == "The hole cards 'AhKh' and the board '2c7dJhAh' share 'Ah'; expected distinct cards."
    assert not page.shown("headline") and all(value == "" and shown == "" for _, value, shown, *_ in page.cells())
    page.type("board", "2c7dJh")
    page.type("player-2", "QQ+,AKx")
    assert page.show() == "error"
    with pytest.raises(MatchdbError) as caught:
        db.equities("2c7dJh", villain="QQ+,AKx")
    assert page.text("error") == str(caught.value)


def test_building_a_range_on_the_grid(page, db):
    """Click and drag add classes at the weight chosen, a click on a class at that weight removes it; the answers
    follow each click, and the time from a click to its answers on a flop is measured."""
    from selenium.webdriver import ActionChains

    page.open("#board=2c7dJh&hero=AhKh&villain=AA")
    page.wait(lambda: page.body("state") == "done")
    page.select(2)
    page.wait(lambda: page.text("range-summary").startswith("Player 2: AA, 6 combos"))
    _assert_range_drawn(page, "AA")

    # drag along the first row: AKs to AJs, all at weight 100 %
    drag = ActionChains(page.driver).click_and_hold(page.cell("AKs")).move_to_element(page.cell("AQs"))
    assert page.after(drag.move_to_element(page.cell("AJs")).release().perform) == "done"
    assert page.element("player-2").get_attribute("value") == "AA,AKs,AQs,AJs"
    _assert_range_drawn(page, "AA,AKs,AQs,AJs")
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "2c7dJh", "AA,AKs,AQs,AJs"))
    _assert_grid(page, db.equities("2c7dJh", "AA,AKs,AQs,AJs").grid())

    # a weight: KK at 50 %, then AA at 50 % (a class at another weight takes the new one), then AA removed
    page.type("weight", "50")
    assert page.after(page.cell("KK").click) == "done"
    assert page.element("player-2").get_attribute("value") == "AA,AKs,AQs,AJs,0.5(KK)"
    assert page.after(page.cell("AA").click) == "done"
    assert page.after(page.cell("AA").click) == "done"
    text = page.element("player-2").get_attribute("value")
    assert text == "AKs,AQs,AJs,0.5(KK)"
    _assert_range_drawn(page, text)
    bar = page.cell("KK").find_element("css selector", ".weight")
    assert bar.get_attribute("style") == "width: 50%;" and bar.size["width"] == pytest.approx(page.cell("KK").size["width"] / 2, abs=1.5)
    page.rows_done(2)
    outcome = db.outcome("AhKh", "2c7dJh", text)
    _assert_outcome(page.player_rows()[0], outcome)
    assert page.text("headline-equity") == _pct(outcome.equity)
    _assert_grid(page, db.equities("2c7dJh", text).grid())

    # how long from a click on the grid to the grid and the equities redrawn, on a flop (target: 100 ms)
    took = []
    for name in ("QQ", "JJ", "QQ", "JJ", "T9s", "T9s", "QQ", "QQ", "JJ", "JJ"):
        assert page.after(page.cell(name).click) == "done"
        took.append(int(page.body("took")))
    print(f"page: click to answers on a flop, ms: {took}; median {statistics.median(took)} ms")
    print(page.driver.execute_script(
        "return performance.getEntriesByType('resource').slice(-5).map(e => [e.name.split('?')[0].split('/').pop(), Math.round(e.duration)]);"
    ))
    assert statistics.median(took) < 300, took  # target 100 ms (met here: median 78-90 ms with the machine loaded; docs/performance.md)
    assert page.severe_logs() == []


def _drag(page: Page, *names: str) -> None:
    """Click (one class) or drag (across several) on the grid."""
    from selenium.webdriver import ActionChains

    chain = ActionChains(page.driver).click_and_hold(page.cell(names[0]))
    for name in names[1:]:
        chain = chain.move_to_element(page.cell(name))
    chain.release().perform()


def test_the_grid_builds_a_range_from_empty_before_the_first_show(page, db):
    """Issue 29: an empty player was drawn as every hand (random), so a click on AA took AA out and 'clear' could not
    give an empty range to build on; and the grid only came after a first Show. Now it is there at once, an empty
    player draws nothing, clicks build the range without asking, and Show asks."""
    page.open()
    assert page.shown("grid-section") and not page.shown("headline") and page.body("shown") == "0"
    assert page.text("grid-title") == "starting hands" and "Show asks the question" in page.text("grid-note")
    assert len(page.cells()) == 169 and all(value == "" for _, value, *_ in page.cells())
    page.wait(lambda: page.text("range-summary").startswith("Player 2: empty, a random hand"))
    _assert_range_drawn(page, None)

    def field() -> str:
        return page.element("player-2").get_attribute("value")

    _drag(page, "AA")
    page.wait(lambda: field() == "AA")
    _drag(page, "KK")
    page.wait(lambda: page.text("range-summary").startswith("Player 2: AA,KK, 12 combos"))
    _assert_range_drawn(page, "AA,KK")
    _drag(page, "AA")  # a class at the weight chosen: taken out
    page.wait(lambda: field() == "KK")
    page.element("clear-range").click()
    page.wait(lambda: field() == "" and page.text("range-summary").startswith("Player 2: empty"))
    _assert_range_drawn(page, None)
    _drag(page, "AKs", "AQs", "AJs")
    page.wait(lambda: page.text("range-summary").startswith("Player 2: AKs,AQs,AJs, 12 combos"))
    assert field() == "AKs,AQs,AJs" and page.body("shown") == "0" and not page.shown("headline")  # nothing asked yet
    _assert_range_drawn(page, "AKs,AQs,AJs")
    assert page.element("player-1").get_attribute("value") == ""  # only the selected player is edited

    page.type("board", "2c7dJh")
    page.type("player-1", "AhKh")  # typing there selects player 1
    page.select(2)
    assert page.show() == "done"
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "2c7dJh", "AKs,AQs,AJs"))
    page.wait(lambda: page.text("range-summary").startswith("Player 2: AKs,AQs,AJs"))
    assert page.after(lambda: _drag(page, "QQ")) == "done"  # once asked, each click asks again
    assert field() == "AKs,AQs,AJs,QQ"
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "2c7dJh", "AKs,AQs,AJs,QQ"))
    page.type("player-2", "random")  # typed, 'random' is every hand, drawn
    page.element("board").click()
    page.wait(lambda: page.text("range-summary").startswith("Player 2: random, 1326 combos"))
    _assert_range_drawn(page, "random")
    assert page.severe_logs() == []


def test_the_grid_edits_the_selected_player_only(page, db):
    """Issue 29: a range drawn late (an answer of /v1/range arriving after another player was selected) was drawn under
    the selected player, and the next click wrote it into that player's field. Now only the selected player's own
    range is drawn and edited."""
    page.open("#board=2c7dJh&hero=QQ%2B&villain=AA")
    page.wait(lambda: page.body("state") == "done")
    page.select(1)
    page.wait(lambda: page.text("range-summary").startswith("Player 1: QQ+, 18 combos"))
    # player 2 gets a new text (its range is asked of the server) and player 1 is selected again at once (its range
    # is known): player 2's answer comes last and must not be drawn
    page.driver.execute_script(
        "const field = document.getElementById('player-2'); field.value = 'JJ-99';"
        "field.dispatchEvent(new Event('focus')); field.dispatchEvent(new Event('change'));"
        "document.querySelector('#players input[name=\"active\"][value=\"0\"]').click();"
    )
    page.wait(lambda: page.text("range-summary").startswith("Player 1: QQ+"))
    page.driver.execute_script("return new Promise((done) => setTimeout(done, 500));")  # player 2's answer has come
    assert page.text("range-summary").startswith("Player 1: QQ+")
    _assert_range_drawn(page, "QQ+")
    assert page.after(lambda: _drag(page, "AKs")) == "done"
    hero = page.element("player-1").get_attribute("value")
    assert hero == "AA,AKs,KK,QQ" and np.array_equal(range_weights(hero), range_weights("QQ+,AKs"))  # the grid's text
    assert page.element("player-2").get_attribute("value") == "JJ-99"
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.range_outcome("QQ+,AKs", "JJ-99", "2c7dJh"))
    page.select(2)
    page.wait(lambda: page.text("range-summary").startswith("Player 2: JJ-99, 18 combos"))
    assert page.after(lambda: _drag(page, "TT")) == "done"  # TT is in JJ-99 at 100 %: taken out
    assert page.element("player-2").get_attribute("value") == "JJ,99"
    assert page.element("player-1").get_attribute("value") == hero


def test_ranges_pasted_from_solvers_on_the_page(page, db):
    """PioSOLVER / GTO Wizard ``AA:0.5`` and GTO+ / Flopzilla ``[50]...[/50]`` typed for a player: drawn, summarised in
    the usual notation, and answered as the Python API answers them."""
    page.open("#board=2c7dJh&hero=AhKh")
    page.wait(lambda: page.body("state") == "done")
    page.players("AhKh", "AA:0.5,KK,[25]QQ,JJ[/25]")
    page.select(2)
    page.wait(lambda: page.text("range-summary").startswith("Player 2: 0.5(AA),KK,0.25(QQ,JJ), 12 combos"))
    _assert_range_drawn(page, "0.5(AA),KK,0.25(QQ,JJ)")
    assert page.show() == "done"
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "2c7dJh", "0.5(AA),KK,0.25(QQ,JJ)"))
    assert page.text("headline-equity").endswith(" %")


def test_several_players_each_with_its_own_figures(page, db):
    """Up to ten players: every player's equity, win and tie is the Python API's answer with that player as the hero."""
    page.open()
    page.type("board", "2c7dJh")
    page.players("AhKh", "QsQd", "JcTc")
    assert page.show() == "done"
    page.rows_done(3)
    players = ["AhKh", "QsQd", "JcTc"]
    for k, row in enumerate(page.player_rows()):
        answer = db.multiway(players[k], "2c7dJh", players[:k] + players[k + 1:])
        assert answer.exact and row["how"] == "exact"
        assert (float(row["equity"]), float(row["win"]), float(row["tie"])) == (answer.equity, answer.win, answer.tie)
    assert sum(float(row["equity"]) for row in page.player_rows()) == pytest.approx(1, abs=1e-12)
    assert page.text("naive-label") == "naive win rate, 3 players"
    assert float(page.element("naive-value").get_attribute("data-value")) == db.win_rate("AhKh", "2c7dJh", players=3)
    assert page.text("grid-title") == "naive win rate, 3 players of every hand on 2c7dJh"
    _assert_grid(page, db.win_rates("2c7dJh", players=3).grid(), center=1 / 3)
    assert page.text("dist-note").endswith("here there are 3 players.")

    # a range and a random hand among them; the exact equity is the headline, the naive rate beside it
    page.players("AhKh", "QQ+,AKs", "", "AsQs")
    assert page.show() == "done"
    hero = db.multiway("AhKh", "2c7dJh", ["QQ+,AKs", "random", "AsQs"])
    assert float(page.element("headline-equity").get_attribute("data-value")) == hero.equity
    assert page.text("headline-title") == "AhKh on 2c7dJh against QQ+,AKs, random, AsQs"
    page.rows_done(4)
    rows = page.player_rows()
    players = ["AhKh", "QQ+,AKs", "random", "AsQs"]
    for k, row in enumerate(rows):
        answer = db.multiway(players[k], "2c7dJh", players[:k] + players[k + 1:])
        assert row["how"] == ("exact" if answer.exact else row["how"])
        assert (float(row["equity"]), float(row["win"]), float(row["tie"])) == (answer.equity, answer.win, answer.tie), k

    # ten players at most: the add button stops there
    page.players(*(["AhKh"] + [""] * 9))
    assert not page.element("add-player").is_enabled()
    assert len(page.driver.find_elements("css selector", "#players .player")) == 10


def test_many_random_opponents_headline_the_exact_equity(page, db):
    """Issue 21: against N random opponents the page headlined the naive rate (0.288560) and put the exact
    equity (0.279227) lower down; now the exact (or sampled) equity is the headline and the naive rate is labelled."""
    page.open("#board=2c7dJh&hero=AhKh&opponents=3")
    page.wait(lambda: page.body("state") == "done")
    hero = db.multiway("AhKh", "2c7dJh", 3)
    assert page.text("headline-equity") == _pct(hero.equity) and hero.exact
    assert page.text("naive-label") == "naive win rate, 4 players" and page.text("naive-value") == "28.86 %"
    assert page.text("headline-how") == "(exact)"


def test_the_address_is_read_again_when_it_changes(page, db):
    page.open("#board=AhTcTh&hero=AcAd")
    page.wait(lambda: page.body("state") == "done")
    assert page.text("headline-equity") == _pct(db.equity('AcAd', 'AhTcTh')) == "99.47 %"  # the published 99.4682 %
    _assert_grid(page, db.equities("AhTcTh").grid())
    # changing the fragment in the open tab, as a user editing the address does: no reload, a new question
    assert page.after(lambda: page.driver.execute_script("location.hash = '#board=AsTs9h&hero=KdKc&villain=QQ%2B'")) == "done"
    assert page.element("board").get_attribute("value") == "AsTs9h"
    assert page.text("headline-equity") == _pct(db.equity('KdKc', 'AsTs9h', 'QQ+'))
    assert page.element("player-2").get_attribute("value") == "QQ+"
    requested = page.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert requested and all(name.startswith(page.url + "/") for name in requested), requested


def test_a_screenshot_is_not_blank(page, tmp_path):
    page.open("#board=2c7dJh&hero=AhKh&villain=QQ%2B,AKs")
    page.wait(lambda: page.body("state") == "done")
    screenshot = tmp_path / "page.png"
    assert page.driver.save_screenshot(str(screenshot))
    _assert_not_blank(screenshot)
    if os.environ.get("MATCHDB_PAGE_SCREENSHOT"):
        shutil.copyfile(screenshot, os.environ["MATCHDB_PAGE_SCREENSHOT"])
    refused = [m for m in page.severe_logs() if "status of 400" not in m]  # the refused questions asked on purpose
    assert refused == [], json.dumps(refused)


def test_the_api_documentation_draws_offline(page):
    """/docs drew a blank page without a network (Swagger UI came from a CDN); the browser here has no network."""
    page.driver.get(f"{page.url}/docs")
    page.wait(lambda: len(page.driver.find_elements("css selector", ".swagger-ui .opblock")) >= 9, seconds=60)
    summaries = [e.text for e in page.driver.find_elements("css selector", ".opblock-summary-path")]
    assert "/v1/range" in summaries and "/v1/hands" in summaries
    requested = page.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert all(name.startswith(page.url + "/") for name in requested), requested


# -- what needs the equity branch (preflop and percent ranges in the Python API) ------------------------------



def test_the_percentage_slider_draws_the_top_percent(page, db):
    page.open("#board=2c7dJh&hero=AhKh")
    page.wait(lambda: page.body("state") == "done")
    page.select(2)
    slider = page.element("percent")
    page.driver.execute_script("arguments[0].value = '15'; arguments[0].dispatchEvent(new Event('input'));"
                               "arguments[0].dispatchEvent(new Event('change'));", slider)
    page.wait(lambda: int(page.body("shown")) >= 2 and page.body("state") in ("done", "error"))
    assert page.body("state") == "done", page.text("error")
    assert page.element("player-2").get_attribute("value") == "15%" and page.text("percent-value") == "15 %"
    _assert_range_drawn(page, "15%")
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "2c7dJh", "15%"))


@pytest.fixture(scope="module")
def full_server(full_store, full_matchups, tmp_path_factory):
    """The full database with its preflop matchups stored, as a served one has them: without them a preflop range
    question would first compute them (75 s of work), and the server refuses that with 413."""
    with running_server(full_store, tmp_path_factory.mktemp("page-full") / "serve.log") as url:
        yield url


def test_equity_without_a_board_is_preflop(full_server, full_store):
    """``/v1/equity`` and ``/v1/multiway`` without ``board=`` ask before the flop (they answered 422, 'board' missing):
    OMPEval's exact AhKh vs QsQd, 0.4621445724590958, and the Python API's answers."""
    import matchdb

    db = matchdb.open(full_store)
    answer = httpx.get(f"{full_server}/v1/equity", params={"hole": "AhKh", "villain": "QsQd"}, timeout=300)
    assert answer.status_code == 200, answer.text
    assert answer.json() == db.outcome("AhKh", "", "QsQd").to_dict() | {"board": ""}
    assert answer.json()["equity"] == pytest.approx(0.4621445724590958, abs=1e-12)
    assert httpx.get(f"{full_server}/v1/equity", params={"hole": "AhKh", "board": "", "villain": "QsQd"},
                     timeout=300).json() == answer.json()
    multiway = httpx.get(f"{full_server}/v1/multiway", params={"hole": "AhKh", "villain": ["QsQd", "JcTc"]}, timeout=300)
    assert multiway.status_code == 200, multiway.text
    assert multiway.json()["equity"] == pytest.approx(0.4020918414245004, abs=1e-12)


def test_preflop_on_an_empty_board(browser, full_server, full_store):
    """OMPEval's published exact figures: AhKh vs QsQd 0.4621445724590958; AhKh vs QsQd vs JcTc 0.4020918414245004."""
    import matchdb

    db = matchdb.open(full_store)
    page = Page(browser, full_server)
    page.open("#board=&hero=AhKh&villain=QsQd")
    page.wait(lambda: page.body("state") in ("done", "error"), seconds=300)
    assert page.body("state") == "done", page.text("error")
    assert float(page.element("headline-equity").get_attribute("data-value")) == pytest.approx(0.4621445724590958, abs=1e-12)
    page.rows_done(2)
    _assert_outcome(page.player_rows()[0], db.outcome("AhKh", "", "QsQd"))
    assert page.text("headline-title") == "AhKh preflop against QsQd" and not page.shown("naive")
    assert page.text("grid-title") == "starting hands, preflop"
    assert page.text("dist-note").endswith("here it is preflop.")
    page.players("AhKh", "QsQd", "JcTc")
    assert page.show() == "done"
    assert float(page.element("headline-equity").get_attribute("data-value")) == pytest.approx(0.4020918414245004, abs=1e-12)
    page.rows_done(3)
    players = ["AhKh", "QsQd", "JcTc"]
    for k, row in enumerate(page.player_rows()):
        answer = db.multiway(players[k], "", players[:k] + players[k + 1:])
        assert (float(row["equity"]), float(row["win"]), float(row["tie"])) == (answer.equity, answer.win, answer.tie)
    # a range against a range heads-up: every player's win and tie, the Python API's range outcome
    page.players("QQ+,AKs", "JJ-99,AQs")
    assert page.show() == "done"
    page.rows_done(2)
    first, second = page.player_rows()
    outcome = db.range_outcome("QQ+,AKs", "JJ-99,AQs", "")
    assert (float(first["equity"]), float(first["win"]), float(first["tie"])) == pytest.approx(
        (outcome.equity, outcome.win, outcome.tie), abs=1e-15)
    assert (float(second["equity"]), float(second["win"]), float(second["tie"])) == pytest.approx(
        (1 - outcome.equity, outcome.loss, outcome.tie), abs=1e-15)
    assert outcome.tie > 0.005 and first["how"] == "exact"


# -- the pages' shared base (issue 31): one error path, each failure said as what it was ------------------------


def test_the_pages_base_says_what_each_failure_was(browser):
    """base.js's request(), in the browser, against a stand-in answering as a proxy, a crashed server, the API and no
    server at all do: the API's sentence when it gives one; otherwise the status and what the body says (an HTML
    page's words); a connection closed or refused, a body cut short, a timeout: each a sentence saying so. The page
    only says "could not be reached" where nothing answered."""
    answers = {
        "/v1/plain": STARLETTE_500,
        "/v1/crash": (500, "text/plain", b"RuntimeError: the worker crashed\n"),
        "/v1/proxy": (502, "text/html", NGINX_502),
        "/v1/refused": (400, "application/json", b'{"detail": "The board \'2c7d\' has 2 cards; expected 0 or 3 to 5."}'),
        "/v1/damaged": (503, "application/json", b'{"detail": "The database is damaged; expected it rebuilt."}'),
        "/v1/listed": (422, "application/json", b'{"detail": [{"msg": "Field required"}]}'),
        "/v1/empty": (500, "text/plain", b""),
        "/v1/html": (200, "text/html", b"<p>Welcome to <b>nginx</b>!</p>"),
        "/v1/ok": (200, "application/json", b'{"equity": 0.5}'),
        "/v1/hang": "hang", "/v1/close": "close", "/v1/broken": "broken",
    }
    asks = [["GET", path, {"params": {"board": "2c7d"}, "timeout": 0.5} if path == "/v1/hang" else {}] for path in answers]
    asks.append(["POST", "/v1/plain", {"body": {"text": "x"}}])
    script = """
const done = arguments[arguments.length - 1];
import("/web/base.js").then(async (base) => {
  const out = [];
  for (const [method, path, options] of arguments[0]) {
    try { out.push({ok: await base.request(method, path, options)}); } catch (error) { out.push({error: error.message}); }
  }
  done(out);
}, (error) => done([{error: "import: " + error.message}]));
"""
    with stand_in(answers) as url:
        browser.set_script_timeout(60)
        browser.get(f"{url}/replayer")
        said = browser.execute_async_script(script, asks)
    fault = "; the fault is the server's, not the question's."
    assert said == [
        {"error": "The server answered /v1/plain with 500 Internal Server Error" + fault},
        {"error": 'The server answered /v1/crash with 500 Internal Server Error, saying "RuntimeError: the worker crashed"' + fault},
        {"error": 'The server answered /v1/proxy with 502 Bad Gateway, saying "502 Bad Gateway nginx/1.24.0"' + fault},
        {"error": "The board '2c7d' has 2 cards; expected 0 or 3 to 5."},
        {"error": "The database is damaged; expected it rebuilt."},
        {"error": 'The server answered /v1/listed with 422 Unprocessable Entity, saying "{"detail": [{"msg": "Field required"}]}".'},
        {"error": "The server answered /v1/empty with 500 Internal Server Error" + fault},
        {"error": 'The server answered /v1/html with 200 OK but not with JSON, saying "Welcome to nginx!"; expected matchdb\'s API.'},
        {"ok": {"equity": 0.5}},
        {"error": "The server did not answer /v1/hang within 0.5 s; the page stopped waiting."},
        {"error": "No answer came for /v1/close (Failed to fetch): the server could not be reached or closed the connection; "
                  "is matchdb serve still running?"},
        {"error": "The server's answer to /v1/broken (200 OK) broke off before its end; expected it whole."},
        {"error": "The server answered /v1/plain with 500 Internal Server Error" + fault},
    ], said
    # the server gone: nothing answers at all
    gone = browser.execute_async_script(script, [["GET", "/v1/ok", {}]])
    assert gone == [{"error": "No answer came for /v1/ok (Failed to fetch): the server could not be reached or closed the "
                              "connection; is matchdb serve still running?"}]
    assert sum("could not be reached" in one.get("error", "") for one in said) == 1  # only where nothing answered


def test_the_explorer_shows_what_a_failing_server_answered(browser):
    """The explorer's first request (/v1/info) answered with Starlette's plain-text 500, then its question with a
    proxy's 502 page: each shown as what the server answered (it read "could not be reached" for a server that had
    answered, and the first error was wiped out when the empty range was drawn)."""
    answers = dict.fromkeys(("/v1/equity", "/v1/win-rate", "/v1/hands", "/v1/distribution", "/v1/multiway"),
                            (502, "text/html", NGINX_502))
    answers["/v1/info"] = STARLETTE_500
    # the range typed is drawn from the real route's answer (a failure there would race the question's for the box)
    answers["/v1/range"] = (200, "application/json", json.dumps(range_answer("AhKh")).encode())
    with stand_in(answers) as url:
        page = Page(browser, url)
        page.open()
        page.wait(lambda: page.shown("error"))
        assert page.text("error") == ("The server answered /v1/info with 500 Internal Server Error; the fault is the "
                                      "server's, not the question's.")
        assert page.body("state") == "ready" and page.text("page-info") == ""
        page.type("board", "2c7dJh")
        page.type("player-1", "AhKh")
        assert page.show() == "error"
        assert page.text("error") == ('The server answered /v1/equity with 502 Bad Gateway, saying "502 Bad Gateway '
                                      'nginx/1.24.0"; the fault is the server\'s, not the question\'s.')
        assert not page.shown("headline")



def test_the_page_waits_a_minute_past_the_servers_answer_deadline(server):
    """The page stopped waiting after a fixed 90 s while a server (with --answer-deadline 300, as the tests' servers
    run) was still answering: now each page waits a minute past its server's deadline, which the server writes in."""
    import httpx

    from matchdb.service.page import page_html
    from tests.helpers import TEST_ANSWER_DEADLINE

    for path in ("/", "/play", "/replayer", "/solver"):
        assert f'data-wait="{float(TEST_ANSWER_DEADLINE) + 60:g}"' in httpx.get(f"{server}{path}", timeout=60).text
    assert 'data-wait="90"' in page_html("/")  # the default deadline, 30 s
