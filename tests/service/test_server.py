"""The server around the application: the listening socket, worker processes, a database opened by URL."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest

from matchdb.db.pack import pack
from tests.helpers import file_server, free_port, running_server
from tests.service.test_limits import _running
from tests.service.test_service import _positions


def test_two_workers_serve_a_database_opened_by_url(db_by_url, small_db, tmp_path):
    """``serve --workers 2`` passed the database to its workers as ``db.path.resolve()``, a str's missing method."""
    with running_server(db_by_url, tmp_path / "serve.log", "--workers", "2") as url:
        for hole, board in [("AhKh", "2c7dJh"), ("QcJc", "2c7dJh"), ("5s5h", "2c7dJh")]:
            answer = httpx.get(f"{url}/v1/win-rate", params={"hole": hole, "board": board, "players": 3})
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert body["win_rate"] == small_db.win_rate(hole, board, 3)
        log = (tmp_path / "serve.log").read_text()
    assert f"serving {db_by_url} " in log and "with 2 worker processes" in log


@pytest.fixture
def db_by_url(small_store, tmp_path, monkeypatch):
    """The small store packed and served over HTTP; yields its URL."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the server's processes inherit it
    hosted = tmp_path / "hosted"
    hosted.mkdir()
    pack(small_store, hosted / "small.zip", preflop=False)
    with file_server(hosted) as (url, _):
        yield f"{url}/small.zip"


#: Opens the database, uses up the file descriptors, then serves: creating the socket itself fails (EMFILE).
_NO_DESCRIPTORS = """
import os, resource, sys
import uvicorn  # what serve() imports, loaded while files can still be opened
import matchdb.service.guards  # and the check of its answer deadline
import matchdb
from matchdb.errors import MatchdbError
from matchdb.service.server import serve
db = matchdb.open(sys.argv[1])
lowest_free = os.dup(0)
os.close(lowest_free)
resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, lowest_free))
try:
    serve(db, port=0)
except MatchdbError as error:
    print(error)
"""


def test_a_socket_that_cannot_be_created_is_one_sentence(small_store):
    """A failing ``socket.socket()`` went on to close the ``listener`` it never assigned (UnboundLocalError)."""
    done = subprocess.run([sys.executable, "-c", _NO_DESCRIPTORS, str(small_store)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout == "Cannot open a socket for 127.0.0.1:0 (Too many open files); expected a free file descriptor.\n"


def test_serve_refuses_a_missing_database_before_listening(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "matchdb", "serve", "--db", str(tmp_path / "none.zarr"), "--port", str(free_port())],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert done.returncode == 2 and done.stderr.startswith("matchdb: No database at")


def test_sigterm_stops_the_server_within_seconds(small_store, tmp_path):
    import signal
    import socket
    import time

    with running_server(small_store, tmp_path / "serve.log") as url:
        host, port = url.removeprefix("http://").split(":")
        idle = socket.create_connection((host, int(port)))
        pids = subprocess.run(["pgrep", "-f", "--", f"--port {port}"], check=False, capture_output=True, text=True).stdout.split()
        started = time.monotonic()
        for pid in pids:
            os.kill(int(pid), signal.SIGTERM)
        assert pids
        for pid in pids:
            while _running(int(pid)) and time.monotonic() - started < 15:
                time.sleep(0.05)
        assert time.monotonic() - started < 5
        idle.close()


def test_a_port_in_use_or_out_of_range_is_one_sentence(small_store):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "matchdb", "serve", "--db", str(small_store), "--port", str(port)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"matchdb: Cannot listen on 127.0.0.1:{port} (Address already in use)") and done.stderr.count("\n") == 1
    done = subprocess.run([sys.executable, "-m", "matchdb", "serve", "--db", str(small_store), "--port", "99999"], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr == "matchdb: The port 99999 is out of range; expected an integer 0..65535.\n"


def test_two_worker_processes_answer_like_the_api(small_db, small_store, tmp_path, small_flops):
    with running_server(small_store, tmp_path / "serve.log", "--workers", "2") as url:
        for hole, board, players in _positions(small_flops, 30, seed=4):
            body = httpx.get(f"{url}/v1/win-rate", params={"hole": hole, "board": board, "players": players}).json()
            assert body["win_rate"] == small_db.win_rate(hole, board, players)
        assert "with 2 worker processes" in (tmp_path / "serve.log").read_text()
