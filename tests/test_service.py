"""The HTTP service against a real server on 127.0.0.1: the API's answers, one-sentence errors, load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchdb.errors import MatchdbError
from tests.helpers import free_port, random_position, running_server
from tests.test_cli import BAD_QUERIES, _api_call


@pytest.fixture(scope="module")
def db(small_db):
    return small_db


@pytest.fixture(scope="module")
def server(small_store, tmp_path_factory):
    """The real service: ``matchdb serve`` in its own process on 127.0.0.1."""
    with running_server(small_store, tmp_path_factory.mktemp("serve") / "serve.log") as url:
        yield url


def _positions(small_flops, count, seed):
    rng = np.random.default_rng(seed)
    return [random_position(rng, small_flops, int(rng.integers(0, 3))) + (int(rng.integers(2, 10)),) for _ in range(count)]


@pytest.mark.parametrize(("hole", "board", "players", "villain", "message"), BAD_QUERIES)
def test_bad_input_http(db, server, hole, board, players, villain, message):
    with pytest.raises(MatchdbError) as caught:
        _api_call(db, hole, board, players, villain)
    first = httpx.get(f"{server}/v1/win-rate", params={"hole": hole, "board": board, "players": players})
    params = {"hole": hole, "board": board} | ({"villain": villain} if villain is not None else {})
    second = httpx.get(f"{server}/v1/equity", params=params)
    answer = first if first.status_code != 200 else second
    assert answer.status_code == 400
    assert answer.json() == {"detail": str(caught.value)}


def test_bad_input_http_types_and_batches(server):
    cases = [
        ("get", "/v1/win-rate", {"hole": "AhKh", "board": "2c7dJh", "players": "two"}, None, 422, "'players' is 'two'"),
        ("get", "/v1/win-rate", {"hole": "AhKh"}, None, 422, "'board' is missing"),
        ("get", "/v1/equity", {"board": "2c7dJh"}, None, 422, "'hole' is missing"),
        ("post", "/v1/batch", None, b"not json", 422, "request body cannot be read"),
        ("post", "/v1/batch", None, json.dumps({"queries": [{"hole": "AhKh"}]}), 422, "'queries.0.board' is missing"),
        ("post", "/v1/batch", None, json.dumps({"queries": [{"kind": "odds", "hole": "AhKh", "board": "2c7dJh"}]}), 422, "'queries.0.kind' is 'odds'"),
        ("post", "/v1/batch", None, json.dumps({"queries": [{"hole": "AhKh", "board": "2c7dJh"}] * 1001}), 422, "queries"),
        ("post", "/v1/batch", None, json.dumps({"queries": [{"hole": "AhKh", "board": "2c7dJh"}, {"hole": "AhKh", "board": "2c7d"}]}), 400, "Query 1: The board '2c7d' has 2 cards"),
        ("get", "/v1/win-rate", {"hole": "AhKh", "board": "3c8d9s"}, None, 404, "lacks table"),
    ]
    for method, path, params, body, status, message in cases:
        if method == "get":
            answer = httpx.get(server + path, params=params)
        else:
            answer = httpx.post(server + path, content=body, headers={"content-type": "application/json"})
        assert answer.status_code == status, (path, params, answer.text)
        detail = answer.json()["detail"]
        assert isinstance(detail, str) and message in detail and "\n" not in detail, detail


_CARDISH = st.text(alphabet="23456789TJQKAcdhsx1 ,;+-.()sAoÄ\x00", max_size=14)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    hole=_CARDISH,
    board=_CARDISH,
    players=st.one_of(st.integers(-(10**30), 10**30), st.text(max_size=5)),
    villain=st.one_of(st.none(), _CARDISH),
)
def test_no_input_gets_a_server_error(server, hole, board, players, villain):
    """Whatever arrives, the real server answers 200 or a 4xx with one sentence, never a 5xx."""
    params = {"hole": hole, "board": board, "players": players} | ({"villain": villain} if villain is not None else {})
    for path in ("/v1/win-rate", "/v1/equity"):
        answer = httpx.get(server + path, params=params, timeout=60)
        assert answer.status_code in (200, 400, 404, 422), (path, params, answer.text)
        if answer.status_code != 200:
            detail = answer.json()["detail"]
            assert isinstance(detail, str) and detail.endswith(".") and "\n" not in detail, detail


# -- the service under load -----------------------------------------------------------


def test_concurrent_clients_get_exactly_the_api_answers(db, server, small_flops):
    """8 clients x 200 requests against the real server; every answer equals the Python API's."""
    positions = _positions(small_flops, 200, seed=11)
    expected = {}
    for hole, board, players in positions:
        outcome = db.outcome(hole, board)
        expected[(hole, board, players)] = (db.win_rate(hole, board, players), outcome.equity, outcome.win, outcome.tie)

    def client(number: int) -> int:
        checked = 0
        with httpx.Client(base_url=server, timeout=60) as http:
            for i in range(200):
                hole, board, players = positions[(number * 37 + i) % len(positions)]
                want = expected[(hole, board, players)]
                if i % 2:
                    got = http.get("/v1/win-rate", params={"hole": hole, "board": board, "players": players})
                    assert got.status_code == 200, got.text
                    assert got.json()["win_rate"] == want[0]
                else:
                    got = http.get("/v1/equity", params={"hole": hole, "board": board})
                    assert got.status_code == 200, got.text
                    body = got.json()
                    assert (body["equity"], body["win"], body["tie"]) == want[1:]
                checked += 1
        return checked

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(client, range(8))) == 1600


def test_batch_info_health_and_openapi(db, server):
    queries = [
        {"kind": "win_rate", "hole": "AhKh", "board": "2c7dJh", "players": 3},
        {"kind": "equity", "hole": "AcAd", "board": "AhTcTh", "villain": "JJ+"},
    ]
    results = httpx.post(f"{server}/v1/batch", json={"queries": queries}).json()["results"]
    assert results[0]["win_rate"] == db.win_rate("AhKh", "2c7dJh", 3)
    assert results[1]["equity"] == db.equity("AcAd", "AhTcTh", villain="JJ+")
    assert httpx.get(f"{server}/v1/health").json() == {"status": "ok"}
    info = httpx.get(f"{server}/v1/info").json()
    assert info == json.loads(json.dumps(db.info()))
    paths = httpx.get(f"{server}/openapi.json").json()["paths"]
    assert {"/v1/win-rate", "/v1/equity", "/v1/batch", "/v1/health", "/v1/info"} <= set(paths)


def test_serve_refuses_a_missing_database_before_listening(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "matchdb", "serve", "--db", str(tmp_path / "none.zarr"), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert done.returncode == 2 and done.stderr.startswith("matchdb: No database at")
