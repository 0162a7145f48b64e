"""``/v1/solve`` on a real server: a river spot solved as a job, its progress, its nodes, cancelling, refusals."""

from __future__ import annotations

import time

import httpx
import numpy as np
import pytest

from tests.helpers import running_server

pytestmark = pytest.mark.usefixtures("solver_compiled")  # compiled once per run (conftest.py)

#: A node's first answer loads the solver's compiled code in the server (seconds on a loaded machine).
http = httpx.Client(timeout=300)

SPOT = {"oop": "AA-88,AJs+,KJs+", "ip": "TT-55,A9s+,KTs+,QTs+", "board": "2c7dJh5s8d", "pot": 60, "stack": 200,
        "bet": "50%, a", "raise": "3x", "target": 0.3}
#: A turn spot far from solved when it is cancelled (target 0: it would run its 1,000 iterations).
LONG = {"oop": "AA-22,AJs+,KJs+,QJs,JTs,AQo+", "ip": "TT-55,A9s+,KTs+,QTs+,JTs,T9s,98s,87s,AJo+,KQo",
        "board": "2c7dJh5s", "pot": 60, "stack": 200, "bet": "33%, 75%, a", "raise": "3x", "target": 0}


@pytest.fixture(scope="module")
def server(small_store, tmp_path_factory):
    with running_server(small_store, tmp_path_factory.mktemp("solve") / "serve.log") as url:
        yield url


def _wait(url: str, job: str, states: tuple[str, ...]) -> dict:
    """Poll the job until its state is one of ``states`` (a generous bound only against a hung test)."""
    deadline = time.monotonic() + 600
    while True:
        body = http.get(f"{url}/v1/solve/{job}").json()
        if body["state"] in states or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


def test_a_river_spot_is_solved_as_a_job_and_browsed_by_node(server, small_db):
    posted = http.post(f"{server}/v1/solve", json=SPOT)
    assert posted.status_code == 202, posted.text
    job = posted.json()
    assert job["state"] in ("queued", "running") and job["estimate"]["memory_bytes"] > 0
    done = _wait(server, job["id"], ("done", "failed"))
    assert done["state"] == "done", done
    expected = small_db.solve(SPOT["oop"], SPOT["ip"], SPOT["board"], SPOT["pot"], SPOT["stack"], SPOT["bet"],
                              SPOT["raise"], target=SPOT["target"])
    summary = done["solution"]
    assert summary["iterations"] == expected.iterations == done["progress"]["iterations"]
    assert summary["exploitability"] == pytest.approx(expected.exploitability, rel=1e-6)
    assert summary["root"]["actions"] == expected.root.actions
    assert summary["root"]["frequencies"] == pytest.approx(expected.root.frequencies(), abs=1e-6)

    root = http.get(f"{server}/v1/solve/{job['id']}/node", params={"path": ""}).json()
    assert root["player"] == "OOP" and root["actions"] == expected.root.actions
    i = expected.root.hands("oop").index("AhAd")
    aa = next(h for h in root["hands"]["oop"] if h["hand"] == "AhAd")
    assert aa["strategy"] == pytest.approx(expected.root.strategy[:, i].tolist(), abs=1e-6)
    assert aa["action_ev"] == pytest.approx(expected.root.action_ev()[:, i].tolist(), abs=1e-4)
    assert aa["equity"] == pytest.approx(float(expected.root.equity("oop")[i]), abs=1e-9)
    assert "strategy" not in root["hands"]["ip"][0]
    assert sum(row["combos"] for row in root["categories"]["oop"]["made"]) == pytest.approx(
        float(expected.root.combos("oop").sum()))

    line = f"{expected.root.actions[1]}"  # OOP bets: IP to act
    node = http.get(f"{server}/v1/solve/{job['id']}/node", params={"path": line}).json()
    there = expected.node(line)
    assert node["player"] == "IP" and node["actions"] == there.actions and node["pot"] == there.pot
    assert node["frequencies"] == pytest.approx(there.frequencies(), abs=1e-6)
    weights = {h["hand"]: h["weight"] for h in node["hands"]["oop"]}
    kept = [(h, w) for h, w in zip(there.hands("oop"), there.weights("oop"), strict=True) if w > 0]
    assert [weights[h] for h, _ in kept] == pytest.approx([w for _, w in kept])

    wrong = http.get(f"{server}/v1/solve/{job['id']}/node", params={"path": "Raise 5000"})
    assert wrong.status_code == 400 and wrong.json()["detail"].endswith(".")
    assert http.delete(f"{server}/v1/solve/{job['id']}").json()["state"] == "done"
    assert http.get(f"{server}/v1/solve/{job['id']}").status_code == 404


def test_a_turn_spot_can_be_dealt_a_river_card(server, small_db):
    spot = dict(SPOT, board="2c7dJh5s", bet="a", target=1.0)
    job = http.post(f"{server}/v1/solve", json=spot).json()
    assert _wait(server, job["id"], ("done", "failed"))["state"] == "done"
    chance = http.get(f"{server}/v1/solve/{job['id']}/node", params={"path": "Check, Check"}).json()
    assert chance["kind"] == "chance" and "8d" in chance["cards"] and "Jh" not in chance["cards"]
    river = http.get(f"{server}/v1/solve/{job['id']}/node", params={"path": "Check, Check, 8d"}).json()
    assert river["board"] == "2c7dJh5s8d" and river["player"] == "OOP"
    http.delete(f"{server}/v1/solve/{job['id']}")


def test_a_running_solve_is_followed_and_cancelled(server):
    job = http.post(f"{server}/v1/solve", json=LONG).json()
    running = _wait(server, job["id"], ("running", "done", "failed"))
    assert running["state"] == "running"
    deadline = time.monotonic() + 600
    while running["progress"]["iterations"] < 10 and time.monotonic() < deadline:  # a first check came back
        time.sleep(0.2)
        running = http.get(f"{server}/v1/solve/{job['id']}").json()
    assert running["progress"]["exploitability"] > 0
    assert np.isfinite(running["progress"]["exploitability_pct"])
    cancelled = http.delete(f"{server}/v1/solve/{job['id']}")
    assert cancelled.json()["state"] == "cancelled"
    assert http.get(f"{server}/v1/solve/{job['id']}").status_code == 404
    # the pool goes on: a new solve is answered by a new worker
    again = http.post(f"{server}/v1/solve", json=dict(SPOT, bet="a")).json()
    assert _wait(server, again["id"], ("done", "failed"))["state"] == "done"
    http.delete(f"{server}/v1/solve/{again['id']}")


@pytest.mark.parametrize(("change", "status", "words"), [
    ({"board": "2c7dJh5s8d2c"}, 400, "2c"),
    ({"board": "2c7d"}, 400, "board"),
    ({"oop": "AA,ZZ"}, 400, "ZZ"),
    ({"bet": "50 percent"}, 400, "50 percent"),
    ({"stack": 0}, 400, "stack"),
    ({"rake": 2.0}, 400, "rake"),
    ({"target": -1}, 422, "target"),
    ({"pot": "sixty"}, 422, "pot"),
    ({"colour": "red"}, 422, "colour"),
    ({"board": "2c7dJh", "bet": "10%, 20%, 33%, 50%, 75%, 100%, 150%, a", "raise": "2x, 3x, 4x, a",
      "oop": "random", "ip": "random"}, 413, "memory"),
    ({"board": "2c7dJh5s", "max_iterations": 1_000_000}, 413, "iterations"),
])
def test_bad_spots_are_refused_in_one_sentence(server, change, status, words):
    answer = http.post(f"{server}/v1/solve", json=dict(SPOT, **change))
    if answer.status_code == 202:  # not refused: let it go before failing, so that the other tests can post theirs
        http.delete(f"{server}/v1/solve/{answer.json()['id']}")
    assert answer.status_code == status, answer.text
    detail = answer.json()["detail"]
    assert words in detail and detail.endswith(".") and detail.count(". ") == 0, detail


def test_jobs_are_limited_per_client_and_unknown_ids_are_404(server):
    first = http.post(f"{server}/v1/solve", json=LONG).json()
    second = http.post(f"{server}/v1/solve", json=LONG).json()
    third = http.post(f"{server}/v1/solve", json=SPOT)
    assert third.status_code == 429 and "DELETE" in third.json()["detail"]
    for job in (first, second):
        assert http.delete(f"{server}/v1/solve/{job['id']}").status_code == 200
    assert http.get(f"{server}/v1/solve/nothing-here").status_code == 404
    assert http.delete(f"{server}/v1/solve/nothing-here").status_code == 404


def test_play_offers_the_solutions_of_its_folder(small_store, small_db, tmp_path):
    folder = tmp_path / "solutions"
    folder.mkdir()
    small_db.solve("AA,QQ", "KK", "2c7dJh3s8c", pot=100, stack=100, bet="a", target=1).save(folder / "river.npz")
    with running_server(small_store, tmp_path / "serve.log", "--play-solutions", str(folder)) as url:
        view = http.post(f"{url}/v1/play", json={"seats": 2, "opponents": "solver:river", "seed": 3})
        assert view.status_code == 201, view.text
        assert [seat["name"] for seat in view.json()["seats"]][1] == "solver"
        assert str(folder) not in view.text  # the server's path is not the client's business
        for name in ("nothing", "../river", "/etc/passwd"):
            refused = http.post(f"{url}/v1/play", json={"seats": 2, "opponents": f"solver:{name}"})
            assert refused.status_code == 400 and "river" in refused.json()["detail"], refused.text


def test_a_finished_solve_is_let_go_after_the_keep_time(small_store, tmp_path, monkeypatch):
    """``serve --solve-keep 1``: a finished solve is there while it is asked about; a second after the last question
    it is gone (404), and so is its file in the server's temporary folder."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    with running_server(small_store, tmp_path / "serve.log", "--solve-keep", "1") as url:
        job = http.post(f"{url}/v1/solve", json=dict(SPOT, bet="a")).json()
        assert _wait(url, job["id"], ("done", "failed"))["state"] == "done"
        assert [path.name for path in scratch.glob("matchdb-solves-*/*")] == [job["id"]]
        time.sleep(2.5)
        assert http.get(f"{url}/v1/solve/{job['id']}").status_code == 404
        assert list(scratch.glob("matchdb-solves-*/*")) == []


def test_a_keep_time_out_of_range_is_one_sentence(small_store, capsys):
    from matchdb.cli.main import main

    assert main(["serve", "--db", str(small_store), "--solve-keep", "-1"]) == 2
    assert capsys.readouterr().err == "matchdb: The time a finished solve is kept -1.0 is out of range; expected 0..1e+09.\n"
