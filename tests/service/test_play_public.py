"""/v1/play as a public service runs it (issue 30): names every history can carry, per-client limits, no session
left behind by a failed request or an empty visit, private files, kept states that load no code and never answer
500, idle sessions that keep their hand, seeds that say what they give away, a sessions' folder checked at start.

Each test runs a real ``matchdb serve`` over the small store with bots that need no hand strength.
"""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import httpx
import pytest

from matchdb.cli.main import main
from matchdb.hands import read
from tests.helpers import running_server


@pytest.fixture(scope="module")
def play_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("play")


@pytest.fixture(scope="module")
def server(small_store, play_dir, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("serve") / "serve.log", "--play-dir", str(play_dir)) as url:
        yield url


def start(url: str, client: httpx.Client | None = None, **settings) -> httpx.Response:
    body = {"seats": 2, "opponents": "station", "stack": 100, "small_blind": 1, "big_blind": 2} | settings
    text = json.dumps(body)  # ASCII, escapes and all: a lone surrogate travels as the JSON text a client may send
    return (client or httpx).post(f"{url}/v1/play", content=text, headers={"content-type": "application/json"},
                                  timeout=60)


def play_hands(url: str, view: dict, hands: int) -> dict:
    """Check or call through ``hands`` hands (the last one left finished)."""
    sid = view["id"]
    with httpx.Client(timeout=60) as client:
        while True:
            if view["hand_over"]:
                if view["hands_played"] >= hands or view["over"]:
                    return view
                view = client.post(f"{url}/v1/play/{sid}/next").json()
            elif view["your_turn"]:
                view = client.post(f"{url}/v1/play/{sid}/act",
                                   json={"kind": "check" if view["legal"]["check"] else "call"}).json()
            else:
                view = client.post(f"{url}/v1/play/{sid}/step").json()["view"]


def folders(play_dir: Path) -> set[str]:
    return {p.name for p in play_dir.iterdir() if p.is_dir()}


def test_names_a_history_cannot_carry_are_refused_and_every_written_history_reads_back(server, play_dir):
    """A newline, ''' or NUL in the name made the whole hands.phhs unreadable (0 hands): refused in one sentence;
    quotes, backslashes, brackets and other letters are written by pokerkit and read back by pokerkit and matchdb."""
    from pokerkit import HandHistory

    for name in ("a\nb", "x'''y", "n\x00", "del\x7f", "tab\there", "\ud800"):
        answer = start(server, name=name)
        detail = answer.json()["detail"]
        assert answer.status_code == 400 and detail.startswith("The player's name ") and "\n" not in detail, name
    for name in ("Ann O'Neil", 'q"""w \\ [1] # x = 1', "''", "é ☃ 'a'"):
        view = start(server, name=name, seed=5).json()
        assert view["names"][0] == name
        play_hands(server, view, 3)
        summary = httpx.post(f"{server}/v1/play/{view['id']}/leave", timeout=60).json()
        assert summary["hands"] == 3 and summary["names"][0] == name
        path = play_dir / view["id"] / "hands.phhs"
        with open(path, "rb") as file:
            histories = list(HandHistory.load_all(file))
        assert len(histories) == 3 and all(name in h.players for h in histories), name
        records = list(read(path))
        assert len(records) == 3 and all(name in r.players for r in records), name


def test_session_files_are_private_and_a_visit_without_play_leaves_no_folder(server, play_dir):
    view = start(server, seed=2).json()
    folder = play_dir / view["id"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {"hands.phhs": 0o600, "state.json": 0o600}
    summary = httpx.post(f"{server}/v1/play/{view['id']}/leave", timeout=60).json()
    assert summary["hands"] == 0 and not folder.exists()  # created and left: nothing kept
    view = play_hands(server, start(server, seed=2).json(), 1)
    httpx.post(f"{server}/v1/play/{view['id']}/leave", timeout=60)
    assert (play_dir / view["id"] / "hands.phhs").stat().st_size > 0  # a hand played is kept


def test_a_seeded_session_says_its_cards_are_predictable(server):
    assert start(server, seed=7).json()["seeded"] is True
    assert start(server).json()["seeded"] is False


EVIL = '''
from pathlib import Path
Path(__file__).with_name("ran").write_text("the kept state loaded this file")


class Evil:
    name = "evil"

    def act(self, view):
        return 2, 0
'''


def test_a_tampered_state_never_loads_code_and_never_answers_500(server, play_dir, tmp_path):
    (tmp_path / "evil.py").write_text(EVIL)
    view = play_hands(server, start(server, seed=3).json(), 1)
    sid = view["id"]
    httpx.post(f"{server}/v1/play/{sid}/leave", timeout=60)  # closed: the next request resumes it from its folder
    state_path, history = play_dir / sid / "state.json", play_dir / sid / "hands.phhs"
    good, size = json.loads(state_path.read_text()), history.stat().st_size
    tampered = {
        "a file's class": {"config": good["config"] | {"opponents": [f"{tmp_path}/evil.py:Evil"]}},
        "a module's class": {"config": good["config"] | {"opponents": ["matchdb.play.examples:Exploiter"]}},
        "stacks as text": {"stacks": "lots"}, "a negative stack": {"stacks": [-5, 205]},
        "a stack for a missing seat": {"stacks": [100, 100, 100]}, "a button off the table": {"button": 9},
        "a history longer than the file": {"phh_size": 10**9}, "over as text": {"over": "yes"},
        "seats as text": {"config": good["config"] | {"seats": "two"}}, "no config": {"config": None},
        "hands as a list": {"hands": [1]}, "last as a number": {"last": 3},
    }
    for label, change in tampered.items():
        state_path.write_text(json.dumps(good | change))
        answer = httpx.get(f"{server}/v1/play/{sid}", timeout=60)
        assert answer.status_code == 404 and answer.json()["detail"].startswith("No session has the id"), label
    for raw in (b"{not json", b"[]", b"\xff\xfe", json.dumps({k: v for k, v in good.items() if k != "stacks"}).encode()):
        state_path.write_bytes(raw)
        assert httpx.get(f"{server}/v1/play/{sid}", timeout=60).status_code == 404, raw
    assert not (tmp_path / "ran").exists() and history.stat().st_size == size
    state_path.write_text(json.dumps(good))
    again = httpx.get(f"{server}/v1/play/{sid}", timeout=60).json()  # the state as written resumes
    assert again["hands_played"] == 1 and not again["hand_over"]


def test_one_client_holds_a_few_sessions_not_the_whole_table(small_store, tmp_path):
    extra = ("--play-dir", str(tmp_path / "play"), "--play-limit", "5", "--play-client-limit", "2")
    with running_server(small_store, tmp_path / "serve.log", *extra) as url:
        first = [start(url) for _ in range(2)]
        assert [a.status_code for a in first] == [201, 201]
        refused = start(url)
        assert refused.status_code == 429 and refused.json()["detail"] == (
            "You hold 2 sessions, the most one client may; leave one before starting another.")
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:  # another address
            assert start(url, other).status_code == 201
        httpx.post(f"{url}/v1/play/{first[0].json()['id']}/leave", timeout=60)
        assert start(url).status_code == 201


def test_a_session_whose_request_failed_holds_no_seat_and_leaves_no_folder(small_store, tmp_path):
    """--play-deadline 0: every new session outlives its request (503), as a first compile of 30 s did; the
    sessions made after their request failed are removed, so the table is never full of them."""
    play = tmp_path / "play"
    extra = ("--play-dir", str(play), "--play-limit", "1", "--play-deadline", "0")
    with running_server(small_store, tmp_path / "serve.log", *extra) as url:
        answer = start(url)
        assert answer.status_code == 503 and "it was not kept" in answer.json()["detail"]
        probe, deadline = f"{url}/v1/play/{'A' * 24}", time.monotonic() + 25  # an id of no session: 404 once a seat is free
        while (answer := httpx.get(probe, timeout=60)).status_code == 429 and time.monotonic() < deadline:
            time.sleep(0.1)  # the session is still being made: it holds the one seat until then
        assert answer.status_code == 404  # the seat came free: the abandoned session holds none...
        assert folders(play) == set()  # ...and left no folder


def test_waiting_out_the_idle_time_does_not_undo_a_hand_in_play(small_store, tmp_path):
    extra = ("--play-dir", str(tmp_path / "play"), "--play-limit", "1", "--play-idle", "1")
    with running_server(small_store, tmp_path / "serve.log", *extra) as url:
        view = start(url, opponents="allin", seed=11).json()
        sid = view["id"]
        for hand in (1, 2):
            if hand == 2:  # the first hand folded; the second dealt
                view = httpx.post(f"{url}/v1/play/{sid}/act", json={"kind": "fold"}, timeout=60).json()
                view = httpx.post(f"{url}/v1/play/{sid}/next", timeout=60).json()
            while not view["your_turn"]:
                view = httpx.post(f"{url}/v1/play/{sid}/step", timeout=60).json()["view"]
        assert view["legal"]["to_call"] > 0 and view["hands_played"] == 1  # a blind in, facing a bet: it waits
        time.sleep(1.5)
        other = start(url, seed=12)
        assert other.status_code == 201  # the table's one seat: the idle session is put away
        httpx.post(f"{url}/v1/play/{other.json()['id']}/leave", timeout=60)
        again = httpx.get(f"{url}/v1/play/{sid}", timeout=60).json()
        assert again["hands_played"] == 2 and again["last"]["hand"] == 2 and again["last"]["net"][0] < 0  # kept, folded
        assert again["stacks"][0] + again["seats"][0]["bet"] == again["last"]["stacks"][0] < 100


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_serve_refuses_a_sessions_folder_that_is_a_file_in_one_sentence(small_store, tmp_path, capsys, where):
    file = tmp_path / "passwd"
    file.write_text("root:x:0:0\n")
    folder = file if where == "file" else file / "sessions"
    assert main(["serve", "--db", str(small_store), "--port", "0", "--play-dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"matchdb: The sessions' folder {str(folder)!r} ") and err.count("\n") == 1, err
    assert main(["serve", "--db", str(small_store), "--port", "0", "--play-deadline", "nan"]) == 2
    assert capsys.readouterr().err == "matchdb: The play deadline nan is out of range; expected 0..3,600.\n"
