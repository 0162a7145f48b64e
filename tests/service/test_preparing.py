"""A server over a store lacking derived data prepares it at start-up: meanwhile 503 with Retry-After, never 'could not be read'."""

from __future__ import annotations

import shutil
import threading
import time

import httpx
import pytest

import matchdb
from tests.helpers import free_port, private_copy


def _serve(app):
    """The application on a real uvicorn server in a thread of this process; returns (base URL, server, thread)."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    return url, server, thread


def test_questions_wait_for_the_data_being_prepared_with_a_clear_503(own_full_store, tmp_path):
    """Issue 29: a complete store built before `matchdb build` computed its derived data answered a preflop question
    503 "the database could not be read in time" after 30 s. Now the server prepares the data at start-up, in the
    background: a question that needs it meanwhile gets 503 at once with Retry-After and a sentence that says so (an
    'auto' one is answered by sampling), and once it is ready the same question is answered."""
    from matchdb.service.app import RETRY_SECONDS, create_app

    member = own_full_store / "derived" / "preflop_multiway.json"
    aside = tmp_path / "preflop_multiway.json"
    shutil.move(member, aside)  # the store now lacks the multiway table, like a store built before
    db = matchdb.open(own_full_store)
    try:
        assert db.missing_derived() == ["preflop_multiway"]
        db._preparing.acquire()  # holds the preparation at its start, so the questions below come while it runs
        held = True
        url, server, thread = _serve(create_app(db, answer_seconds=300))  # no answer fails by the machine's load
        try:
            params = {"hole": "JhTh", "board": "", "opponents": 2, "method": "exact"}
            waiting = httpx.get(f"{url}/v1/multiway", params=params, timeout=60)
            assert waiting.status_code == 503 and waiting.headers["retry-after"] == str(RETRY_SECONDS)
            assert "is being prepared" in waiting.json()["detail"] and "could not be read" not in waiting.json()["detail"]
            sampled = httpx.get(f"{url}/v1/multiway", params={**params, "method": "auto", "seed": 1}, timeout=60)
            assert sampled.status_code == 200 and not sampled.json()["exact"]
            assert httpx.get(f"{url}/v1/equity", params={"hole": "AhKh", "board": "", "villain": "QQ+"}).status_code == 200
            shutil.copy(aside, member)  # the preparation finds the table and ends at once (this test computes nothing)
            db._preparing.release()
            held = False
            deadline = time.monotonic() + 60
            while db._background:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            ready = httpx.get(f"{url}/v1/multiway", params=params, timeout=60)
            assert ready.status_code == 200 and ready.json()["exact"]
            assert ready.json()["equity"] == matchdb.open(own_full_store).preflop_multiway().row("JTs")["equity"][2]
        finally:
            if held:
                db._preparing.release()
            server.should_exit = True
            thread.join(timeout=30)
    finally:
        if not member.exists():
            shutil.move(aside, member)


@pytest.mark.slow
def test_a_server_prepares_missing_derived_data_and_hands_it_to_its_workers(full_store, tmp_path):
    """The whole preparation, for real, on a packed file that lacks every derived file (one packed before `matchdb
    build` computed them): the server cannot write it, so it keeps what it prepared and hands it to the worker processes
    that answer heavy questions (minutes on 2 cores)."""
    from matchdb.db.pack import pack
    from matchdb.service.app import create_app

    folder = tmp_path / "old.zarr"
    private_copy(full_store, folder, skip=("derived",))
    packed = pack(folder, tmp_path / "old.zip", preflop=False).path
    shutil.rmtree(folder)
    before = packed.read_bytes()
    db = matchdb.open(packed)
    assert sorted(db.missing_derived()) == ["preflop", "preflop_matchups", "preflop_multiway"]
    url, server, thread = _serve(create_app(db, answer_seconds=300))
    try:
        params = {"hole": "QQ+", "board": "", "villain": "JJ-99"}  # a hero range preflop: a heavy question, a worker's
        deadline = time.monotonic() + 1200
        while (answer := httpx.get(f"{url}/v1/multiway", params=params, timeout=60)).status_code == 503:
            assert answer.headers["retry-after"] and "being prepared" in answer.json()["detail"] and time.monotonic() < deadline
            time.sleep(5)
        assert answer.status_code == 200 and answer.json()["exact"]
        assert answer.json()["equity"] == pytest.approx(matchdb.open(full_store).range_equity("QQ+", "JJ-99", ""), abs=1e-12)
        grid = httpx.get(f"{url}/v1/hands", params={"board": ""}, timeout=60)
        assert grid.status_code == 200
        assert packed.read_bytes() == before  # nothing written into the file
    finally:
        server.should_exit = True
        thread.join(timeout=30)
