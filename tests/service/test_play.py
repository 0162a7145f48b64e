"""The table over HTTP (/v1/play): no hidden card in any response, isolation, ids, bounds, idle expiry, restart resume.

A real ``matchdb serve`` runs over the small store with bots that need no
hand strength (allin, station, fives, random), so the sessions are seeded:
the test deals each hand's deck again (Generator seeded with ``(seed, hand)``,
as :mod:`matchdb.human.session` does) and knows every card the server must
not have sent yet.
"""

from __future__ import annotations

import json
import re
import time

import httpx
import numpy as np
import pytest

from matchdb.core.cards import format_cards
from matchdb.play.engine import shuffled_decks
from tests.helpers import running_server

CARD = re.compile(r'"([2-9TJQKA][cdhs])"')


@pytest.fixture(scope="module")
def play_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("play")


@pytest.fixture(scope="module")
def server(small_store, play_dir, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("serve") / "serve.log", "--play-dir", str(play_dir)) as url:
        yield url


def deck_of(seed: int, hand: int) -> list[str]:
    return [format_cards([int(c)]) for c in shuffled_decks(np.random.default_rng([seed, hand]), 1)[0]]


def hidden(view: dict, seed: int) -> set[str]:
    """Cards of this view's hand the person may not see: bots' cards not shown at a showdown, the undealt board."""
    n = len(view["seats"])
    deck = deck_of(seed, view["hand"] - 1 if not view["hand_over"] else view["hands_played"] - 1)
    shown = set(view["last"]["shown"]) if view["hand_over"] and view["last"] and view["last"]["showdown"] else set()
    cards = set(deck[2 * n : 2 * n + 5]) - set(view["board"])
    for seat in range(1, n):
        if str(seat) not in shown:
            cards |= {deck[2 * seat], deck[2 * seat + 1]}
    return cards


def check(view: dict, seed: int) -> None:
    visible = {key: value for key, value in view.items() if view["hand_over"] or key != "last"}
    assert not set(CARD.findall(json.dumps(visible))) & hidden(view, seed), view


def policy(legal: dict, step: int) -> dict:
    if legal["raise"] and step % 6 == 0:
        return {"kind": "raise", "amount": legal["presets"]["all_in"]}
    if legal["raise"] and step % 4 == 0:
        return {"kind": "bet" if legal["bet"] else "raise", "amount": legal["presets"]["half_pot"]}
    if legal["check"]:
        return {"kind": "check"}
    return {"kind": "fold"} if step % 5 == 0 else {"kind": "call"}


def play(url: str, view: dict, hands: int, seed: int, responses: list | None = None) -> dict:
    """Play ``hands`` hands through the routes, checking (and keeping) every response."""
    sid, step = view["id"], 0
    with httpx.Client(timeout=60) as client:
        while True:
            check(view, seed)
            if responses is not None:
                responses.append(view)
            if view["hand_over"]:
                if view["hands_played"] >= hands or view["over"]:
                    return view
                view = client.post(f"{url}/v1/play/{sid}/next").json()
            elif view["your_turn"]:
                answer = client.post(f"{url}/v1/play/{sid}/act", json=policy(view["legal"], step))
                assert answer.status_code == 200, answer.text
                view, step = answer.json(), step + 1
            else:
                answer = client.post(f"{url}/v1/play/{sid}/step").json()
                assert answer["action"] is not None
                view = answer["view"]


def test_no_response_of_whole_sessions_holds_a_hidden_card(server):
    responses: list = []
    for seed, seats, opponents in ((1, 4, "allin,station,fives"), (2, 6, "random,station"), (3, 2, "allin")):
        settings = {"seats": seats, "opponents": opponents, "stack": 80, "small_blind": 2, "big_blind": 4, "seed": seed}
        answer = httpx.post(f"{server}/v1/play", json=settings, timeout=60)
        assert answer.status_code == 201
        play(server, answer.json(), 25, seed, responses)
    assert len(responses) > 300
    showdowns = [v for v in responses if v["hand_over"] and v["last"]["showdown"]]
    assert showdowns and all(any(s["cards"] for s in v["seats"] if not s["human"]) for v in showdowns)


def test_bad_actions_are_one_sentence_and_change_nothing(server):
    view = httpx.post(f"{server}/v1/play", json={"seats": 3, "opponents": "station", "seed": 9}, timeout=60).json()
    sid = view["id"]
    while not view["your_turn"]:
        view = httpx.post(f"{server}/v1/play/{sid}/step", timeout=60).json()["view"]
    legal = view["legal"]
    for body in ({"kind": "shove"}, {"kind": "raise", "amount": legal["max_raise_to"] + 1}, {"kind": "raise"},
                 {"kind": "check"} if legal["to_call"] else {"kind": "fold"}, {"kind": "call", "extra": 1}, [1], "call",
                 {"kind": "raise", "amount": "lots"}):
        answer = httpx.post(f"{server}/v1/play/{sid}/act", json=body, timeout=60)
        detail = answer.json()["detail"]
        assert answer.status_code == 400 and detail.endswith(".") and "\n" not in detail, (body, detail)
        assert httpx.get(f"{server}/v1/play/{sid}", timeout=60).json() == view
    answer = httpx.post(f"{server}/v1/play/{sid}/act", content=b"{not json", headers={"content-type": "application/json"})
    assert answer.status_code in (400, 422) and httpx.get(f"{server}/v1/play/{sid}", timeout=60).json() == view
    for settings, words in (({"seats": 12}, "seat count"), ({"opponents": "evil.py:Bot"}, "not a built-in bot"),
                            ({"opponents": ["west:fast"]}, "not a built-in bot"), ({"speed": 3}, "unknown")):
        answer = httpx.post(f"{server}/v1/play", json=settings, timeout=60)
        assert answer.status_code == 400 and words in answer.json()["detail"]


def test_sessions_are_isolated_and_ids_unguessable(server):
    first = httpx.post(f"{server}/v1/play", json={"seats": 2, "opponents": "station", "seed": 4}, timeout=60).json()
    second = httpx.post(f"{server}/v1/play", json={"seats": 2, "opponents": "station", "seed": 4}, timeout=60).json()
    assert first["id"] != second["id"] and len(first["id"]) == 24 and re.fullmatch(r"[A-Za-z0-9_-]+", first["id"])
    play(server, second, 3, 4)
    assert httpx.get(f"{server}/v1/play/{first['id']}", timeout=60).json() == first  # untouched by the other
    for bad in ("A" * 24, first["id"][:-1] + ("A" if first["id"][-1] != "A" else "B"), "short", "x" * 80):
        answer = httpx.get(f"{server}/v1/play/{bad}", timeout=60)
        assert answer.status_code == 404 and answer.json()["detail"].startswith("No session has the id")
        assert httpx.post(f"{server}/v1/play/{bad}/act", json={"kind": "call"}, timeout=60).status_code == 404


def test_sessions_are_bounded_and_idle_ones_put_away_then_resumed(small_store, tmp_path):
    extra = ("--play-dir", str(tmp_path / "play"), "--play-limit", "2", "--play-idle", "1")
    with running_server(small_store, tmp_path / "serve.log", *extra) as url:
        settings = {"seats": 2, "opponents": "allin", "seed": 6, "stack": 50, "small_blind": 1, "big_blind": 2}
        first = httpx.post(f"{url}/v1/play", json=settings, timeout=60).json()
        first = play(url, first, 2, 6)
        httpx.post(f"{url}/v1/play", json=settings, timeout=60)
        full = httpx.post(f"{url}/v1/play", json=settings, timeout=60)
        assert full.status_code == 429 and full.json()["detail"].startswith("The table is full")
        time.sleep(1.5)  # both idle: put away when room is needed
        assert httpx.post(f"{url}/v1/play", json=settings, timeout=60).status_code == 201
        again = httpx.get(f"{url}/v1/play/{first['id']}", timeout=60).json()  # resumes by its id
        assert again["hands_played"] == first["hands_played"] and not again["hand_over"]
        carried = [stack or 50 for stack in first["stacks"]]  # a broke player buys in again
        assert [seat["stack"] + seat["bet"] for seat in again["seats"]] == carried


def test_a_restarted_server_resumes_sessions_with_their_stacks(small_store, tmp_path):
    extra = ("--play-dir", str(tmp_path / "play"))
    settings = {"seats": 3, "opponents": "fives,station", "seed": 8, "stack": 100, "small_blind": 1, "big_blind": 2}
    with running_server(small_store, tmp_path / "one.log", *extra) as url:
        view = play(url, httpx.post(f"{url}/v1/play", json=settings, timeout=60).json(), 5, 8)
        view = httpx.post(f"{url}/v1/play/{view['id']}/next", timeout=60).json()  # a hand in play, lost with the server
        assert view["hand"] == 6
    with running_server(small_store, tmp_path / "two.log", *extra) as url:
        again = httpx.get(f"{url}/v1/play/{view['id']}", timeout=60).json()
        assert again["hands_played"] == 5 and again["hand"] == 6 and not again["hand_over"]
        assert [seat["stack"] + seat["bet"] for seat in again["seats"]] == [s or 100 for s in view["last"]["stacks"]]
        assert sum(s["stack"] + s["bet"] for s in again["seats"]) == sum(again["buyins"])
        summary = httpx.post(f"{url}/v1/play/{view['id']}/leave", timeout=60).json()
        assert summary["hands"] == 6 and "history" not in summary


def test_a_server_without_a_play_dir_leaves_no_folder_behind(small_store, tmp_path, monkeypatch):
    """Its sessions live in a temporary folder that goes when the server stops (servers used to leave one each)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    with running_server(small_store, tmp_path / "serve.log") as url:
        settings = {"seats": 2, "opponents": "allin", "stack": 80, "small_blind": 2, "big_blind": 4, "seed": 1}
        assert httpx.post(f"{url}/v1/play", json=settings, timeout=60).status_code == 201
        assert [path.name.startswith("matchdb-play-") for path in scratch.iterdir()] == [True]
    assert not [path for path in scratch.iterdir() if path.name.startswith("matchdb-play-")]
