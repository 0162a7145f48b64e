"""Issues 20 and 30: no request may cost more than it is allowed (every question estimated from what it will do,
a work budget, heavy questions answered where they can be stopped, and stopped when abandoned), no question runs
forever, connections with total deadlines and caps, /v1/info telling strangers little, SIGTERM without a traceback.

Every test here checks behaviour, not speed: where a test waits, it waits on a state (a worker's CPU growing, a
process gone), with a generous limit that only a hang reaches. The figures (CPU seconds, throughput beside abusive
clients) are in ``scripts/bench_costs.py``, ``scripts/bench_service.py`` and the tests marked ``slow``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from matchdb.errors import MatchdbError, RangeError, WorkLimitError
from tests.helpers import running_server
from tests.service.test_service import _positions, _throughput

#: Six opponents and five million samples: a large accepted question (about 20 s of work), answered in the pool.
HEAVY = "/v1/multiway?hole=AhKh&board=2c7dJh&opponents=6&method=sample&samples=5000000"
#: The issue's giant question: refused at once by the bound on samples.
GIANT = "/v1/multiway?hole=AhKh&board=2c7dJh&opponents=6&samples=1000000000000"
#: A heavy question of a fraction of a second, to start the pool's fork server and a worker.
WARM = "/v1/multiway?hole=AhKh&board=2c7dJh&opponents=6&method=sample&samples=100000"


@pytest.fixture(scope="module")
def served(small_store, tmp_path_factory):
    log = tmp_path_factory.mktemp("limits") / "serve.log"
    with running_server(small_store, log) as url:
        yield url, log


def _get(url: str, **options: Any) -> httpx.Response:
    """A GET that waits up to a minute: on a loaded 2-core machine a server's first answers can take seconds."""
    return httpx.get(url, timeout=60, **options)


def _post(url: str, **options: Any) -> httpx.Response:
    """A POST that waits up to a minute."""
    return httpx.post(url, timeout=60, **options)


def _abandon(url: str, path: str, after: float = 0.5) -> None:
    """Send a GET and hang up ``after`` seconds later, as an impatient (or hostile) client does."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        time.sleep(after)


def _server(url: str) -> list[psutil.Process]:
    """The server processes listening on ``url``'s port."""
    port = url.rsplit(":", 1)[1]
    pids = subprocess.run(["pgrep", "-f", "--", f"--port {port}"], check=False, capture_output=True, text=True).stdout.split()
    return [psutil.Process(int(pid)) for pid in pids]


def _server_cpu(url: str) -> float:
    """CPU seconds used so far by the server on ``url`` and every process under it (its heavy workers)."""
    total = 0.0
    for top in _server(url):
        for process in [top, *top.children(recursive=True)]:
            try:
                times = process.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                pass  # a worker killed meanwhile
    return total


def _workers(url: str) -> list[psutil.Process]:
    """The server's workers for heavy questions: the children of its fork server."""
    out = []
    for top in _server(url):
        for child in top.children():
            try:
                if "forkserver" in " ".join(child.cmdline()):
                    out += [p for p in child.children() if _running(p.pid)]
            except psutil.Error:
                pass
    return out


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system


def _wait(condition: Callable[[], Any], limit: float = 120.0) -> Any:
    """``condition()`` once it is true, polled; a generous ``limit`` that only a hang reaches fails the test."""
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            assert value, f"still not true after {limit:.0f} s"
            return value
        time.sleep(0.05)


def _busy(url: str, before: dict[int, float], count: int = 1) -> list[psutil.Process]:
    """Wait until ``count`` workers have used CPU since ``before`` (their CPU by pid): each got a question."""

    def working() -> list[psutil.Process]:
        found = [p for p in _workers(url) if _cpu(p) > before.get(p.pid, 0.0) + 0.3]
        return found if len(found) >= count else []

    return _wait(working)


def _running(pid: int) -> bool:
    """True while the process runs (a server that exited stays a zombie until the test reaps it)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_samples_beyond_the_bound_are_refused_everywhere(small_db, served):
    """samples=10**30 was HTTP 500 (GET and batch) and OverflowError in Python; opponents=0 answered against one."""
    url, _ = served
    message = "The number of samples 1000000000000000000000000000000 is out of range; expected 1..10,000,000."
    with pytest.raises(MatchdbError) as caught:
        small_db.multiway("AhKh", "2c7dJh", 6, samples=10**30)
    assert str(caught.value) == message
    with pytest.raises(MatchdbError, match="expected 1..10,000,000"):
        small_db.multiway("AhKh", "", 2, method="sample", samples=10**30)
    answer = _get(f"{url}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "opponents": 6, "samples": 10**30})
    assert answer.status_code == 400 and answer.json()["detail"] == message
    item = {"kind": "multiway", "hole": "AhKh", "board": "2c7dJh", "opponents": 6, "samples": 10**30}
    answer = _post(f"{url}/v1/batch", json={"queries": [item]})
    assert answer.status_code == 400 and answer.json()["detail"] == f"Query 0: {message}"
    answer = _get(f"{url}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "opponents": 0})
    assert answer.status_code == 400 and "no opponents" in answer.json()["detail"]
    one = _get(f"{url}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "villain": "AA", "opponents": 0}).json()
    assert one["opponents"] == ["AA"] and one["equity"] == small_db.equity("AhKh", "2c7dJh", villain="AA")


def test_work_over_the_budget_is_refused_naming_the_bound(served):
    url, _ = served
    wide = {"hole": "random", "board": "2c7dJh", "opponents": 6, "method": "sample", "samples": 100_000}
    answer = _get(f"{url}/v1/multiway", params=wide)
    assert answer.status_code == 413, answer.text
    detail = answer.json()["detail"]
    assert detail.startswith("The question would take about ") and detail.endswith(
        " s of work (1,176 hero hands x 43 visits to each of 1,081 runouts, 2 partial deals each, 3 of 6 opponents "
        "drawn); expected at most 30 s: ask for fewer samples, opponents or hands."), detail
    # The issue's hero range of every hand against three wide ranges (175 s); against one range it is answered.
    wide_ranges = [("hole", "random"), ("board", "2c7dJh")] + [("villain", "22+,A2+,K2+")] * 3
    answer = _get(f"{url}/v1/multiway", params=wide_ranges)
    assert answer.status_code == 413 and "(exact counts against 3 opponents on 1,081 runouts x 1,176 hero hands)" in \
        answer.json()["detail"], answer.text
    # The issue's batch of 1,000 exact four-opponent questions (2.4 s each): refused before any is answered.
    item = {"kind": "multiway", "hole": "AhKh", "board": "2c7dJh", "opponents": 4, "method": "exact"}
    answer = _post(f"{url}/v1/batch", json={"queries": [item] * 1000})
    assert answer.status_code == 413, answer.text
    assert answer.json()["detail"].startswith("The batch would take about ") and "(1,000 queries)" in answer.json()["detail"]


def test_the_issues_light_but_heavy_questions_are_estimated_from_their_work(small_db):
    """Issue 30 item 1: samples=1 with a hero range of every hand was estimated at 0.008 s and took 21.9 s of CPU
    (27.6 s with 9 opponents); preflop, 10,000,000 samples against 9 opponents 0.001 s for 168 s, a batch of 49 of
    them 0.049 s. Each estimate now counts the work the question does (the bench compares it with the CPU)."""
    from matchdb.service.batch import Batch, batch_cost
    from matchdb.service.costs import HEAVY_SECONDS, check, hands_cost, multiway_cost

    for opponents, measured in ((6, 21.9), (9, 27.6)):
        cost = multiway_cost(small_db, "random", "2c7dJh", ["random"] * opponents, "sample", 1)
        assert cost.heavy and measured / 2 <= cost.bound <= measured * 2, cost
        assert cost.draws == 1176 * 2 * 1081 * 2  # every hand of the hero range visits every runout twice, 2 draws each
    preflop = multiway_cost(small_db, "AhKh", "", ["random"] * 9, "sample", 10_000_000)
    assert 168 / 2 <= preflop.bound <= 168 * 2 and preflop.draws == 10_002_432, preflop
    with pytest.raises(WorkLimitError, match=r"^The question would take about \d+ s of work \(10,002,432 sampled deals"):
        check(preflop)
    known = multiway_cost(small_db, "AhKh", "", ["QsQd", "JcTc"], "sample", 10_000_000)  # known hands, sampled
    assert known.heavy and known.draws == 10_002_432 and "10,002,432 sampled deals of 3 players" in known.what, known
    item = {"kind": "multiway", "hole": "AhKh", "board": "", "opponents": 9, "method": "sample", "samples": 1_000_000}
    with pytest.raises(WorkLimitError, match=r"^The batch would take about [\d,]+ s of work \(49 queries\)"):
        batch_cost(small_db, Batch.model_validate({"queries": [item] * 49}))
    # The preflop grid of a database lacking tables counts its matchups by enumeration: seconds, heavy.
    grid = hands_cost(small_db, "", "equity", "QQ+,AKs", 2, None)
    assert grid.heavy and "1,774 matchup classes" in grid.what, grid
    # The flop's grid and a distribution stay light: tens of milliseconds and a few (the bench measures both).
    assert hands_cost(small_db, "2c7dJh", "equity", "22+,A2+,K2+", 2, "JJ-99").bound < HEAVY_SECONDS


def test_the_estimated_work_bounds_the_work_each_answer_reports(small_db):
    """The partial deals a sampled answer reports (its ``samples``) never exceed what its estimate counts, and a
    fixed ``samples`` is a floor too: every runout is visited twice at least, for each hero hand."""
    from matchdb.service.costs import multiway_cost

    cases = [
        ("AhKh", "2c7dJh", ["random"] * 4, "auto", None),
        ("AhKh", "2c7dJh", ["random"] * 6, "auto", None),
        ("AhKh", "2c7dJh8s", ["random"] * 6, "auto", None),
        ("AhKh", "2c7dJh8s9d", ["random"] * 9, "auto", None),
        ("AhKh", "2c7dJh", ["QsQd", *["random"] * 5], "auto", None),
        ("AhKh", "2c7dJh", ["random"] * 2, "sample", 1),
        ("AhKh", "2c7dJh", ["random"] * 6, "sample", 5_000),
        ("AhKh", "2c7dJh", ["QQ+,AKs", *["random"] * 4], "sample", 3_000),
        ("QQ+", "2c7dJh", ["random"] * 6, "sample", 1),
        ("AhKh", "", ["random"] * 3, "sample", 10_000),
        ("AhKh", "", ["QsQd", "JcTc"], "sample", 10_000),  # known hands, sampled when asked: the samples counted
    ]
    for hole, board, opponents, method, samples in cases:
        cost = multiway_cost(small_db, hole, board, opponents, method, samples)
        answer = small_db.multiway(hole, board, opponents, method=method, samples=samples, seed=1)
        assert not answer.exact and 0 < answer.samples <= cost.draws, (hole, board, opponents, answer.samples, cost)
        if samples is not None and board:
            assert answer.samples >= cost.draws // 2, (hole, board, opponents, answer.samples, cost)  # a draw a visit
        if not board:
            assert answer.samples == cost.draws


def test_an_abandoned_heavy_question_is_stopped_and_its_worker_killed(served):
    """Abandoned giant questions kept the server burning CPU with no client left (issue 20 item 4, issue 30 item 1):
    the worker answering one is killed when its client hangs up, and the next heavy question gets a fresh one."""
    url, _ = served
    warm = _get(f"{url}{WARM}")
    assert warm.status_code == 200, warm.text  # the pool's fork server and a worker are up
    before = {p.pid: _cpu(p) for p in _workers(url)}
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(f"GET {HEAVY} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        (worker, *_) = _busy(url, before)  # about 20 s of work, begun
    _wait(lambda: not _running(worker.pid))  # hung up: its worker killed, long before its question's end
    again = _get(f"{url}{WARM}")
    assert again.status_code == 200, again.text
    giant = _get(f"{url}{GIANT}")
    assert giant.status_code == 400 and "expected 1..10,000,000" in giant.json()["detail"]


@pytest.mark.slow  # a throughput ratio: it measures the machine's load as much as the server (issue 29)
def test_abandoned_giants_and_a_big_batch_leave_ordinary_clients_their_throughput(small_db, served, small_flops):
    """Six clients asking giant questions and hanging up, a big batch and a refused one, beside eight ordinary clients.

    Marked slow: a throughput ratio depends on what else the machine runs (on a fresh, loaded 2-core machine it
    fell below its bound with the server behaving); the default run checks the behaviour behind it instead
    (:func:`test_an_abandoned_heavy_question_is_stopped_and_its_worker_killed`).

    The giant questions are the largest the budget accepts (about 30 s of work each) and the issue's
    samples=10**12 (refused at once); the big batch (eight sampled six-opponent questions, about 7 s of
    work) is answered in the pool of worker processes while the ordinary clients are measured. Their
    throughput alone is measured before and after (when the batch is answered), as other work on the
    machine comes and goes.
    """
    url, _ = served
    positions = [p for p in _positions(small_flops, 60, seed=9) if small_db.win_rate(p[0], p[1])]
    expected = {p: small_db.win_rate(*p) for p in positions}
    warm = _get(f"{url}/v1/multiway?hole=AhKh&board=2c7dJh&opponents=6&method=sample&samples=100000")
    assert warm.status_code == 200, warm.text  # the pool of worker processes is running, as on a server in use
    _throughput(url, positions, expected, 1, clients=8)  # warm up
    before = _throughput(url, positions, expected, 4, clients=8)
    stop = threading.Event()
    statuses: list[int] = []

    def abuser(number: int) -> None:  # the issue's six giant questions abandoned after 0.5 s, twice, and six refused ones
        for _ in range(2):
            _abandon(url, GIANT, after=0.1)
            _abandon(url, HEAVY, after=0.5)
            stop.wait(2.0)

    batch = [{"kind": "multiway", "hole": hole, "board": "2c7dJh", "opponents": 6, "method": "sample",
              "samples": 150_000, "seed": seed} for seed, hole in enumerate(["AhKh", "QsQd", "7h6h", "AcAd"] * 2)]
    batch_answer: list[httpx.Response] = []

    def big_batch() -> None:
        batch_answer.append(httpx.post(f"{url}/v1/batch", json={"queries": batch}, timeout=60))
        refused = [{"kind": "multiway", "hole": "AhKh", "board": "2c7dJh", "opponents": 4, "method": "exact"}] * 1000
        statuses.append(httpx.post(f"{url}/v1/batch", json={"queries": refused}, timeout=60).status_code)

    threads = [threading.Thread(target=abuser, args=(n,)) for n in range(6)] + [threading.Thread(target=big_batch)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(0.5)
        beside = _throughput(url, positions, expected, 5, clients=8)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=90)
    after = _throughput(url, positions, expected, 4, clients=8)
    alone = (before + after) / 2
    print(f"ordinary throughput alone {before:.0f}/s and {after:.0f}/s, beside the abuse {beside:.0f}/s ({beside / alone:.0%})")
    assert beside >= 0.8 * alone, (alone, beside)
    assert statuses == [413]
    answer = batch_answer[0]
    assert answer.status_code in (200, 503), answer.text  # 503: over 30 s on a loaded machine, stopped
    if answer.status_code == 200:
        results = answer.json()["results"]
        for position in (0, 5):
            item = batch[position]
            want = small_db.multiway(item["hole"], "2c7dJh", 6, method="sample", samples=150_000, seed=item["seed"])
            assert results[position]["equity"] == want.equity


def test_info_tells_strangers_only_format_tables_and_codec(small_db, small_store, served, tmp_path):
    url, _ = served
    info = _get(f"{url}/v1/info").json()
    assert set(info) == {"format", "format_version", "packed", "tables", "tables_built", "chunk_rows", "codec"}
    assert str(small_store) not in json.dumps(info) and "provenance" not in info
    assert "0.1" not in _get(f"{url}/openapi.json").json()["info"]["version"]
    with running_server(small_store, tmp_path / "serve.log", "--info-details") as detailed:
        assert _get(f"{detailed}/v1/info").json() == json.loads(json.dumps(small_db.info()))


def test_slow_headers_and_bodies_are_closed_and_connections_capped(small_store, tmp_path):
    """One header byte every few seconds held a connection forever; 20,000 of them filled the descriptors.

    Two clients trickle a byte every half second (a header, and a body): each is answered 408 "did not arrive within
    10 s" (the total deadline's own answer: the 5 s idle timeout, which every byte resets, closes a connection
    silently) while ordinary clients are served. The 408 itself says which limit closed it: no clock in the test.
    """
    log = tmp_path / "serve.log"
    with running_server(small_store, log, "--max-client-connections", "20", "--max-connections", "45") as url:
        host, port = url.removeprefix("http://").split(":")
        trickles = []
        for body in (False, True):
            raw = socket.create_connection((host, int(port)))
            raw.sendall(b"POST /v1/batch HTTP/1.1\r\nHost: x\r\ncontent-length: 100\r\n\r\n{" if body else b"GET /v1/health HT")
            trickles.append(raw)
        replies: list[bytes] = []
        threads = [threading.Thread(target=lambda raw=raw: replies.append(_trickle(raw))) for raw in trickles]
        for thread in threads:
            thread.start()
        # From another client address (all of 127/8 is this machine): 30 connections, 20 allowed.
        crowd = []
        for _ in range(30):
            sock = socket.socket()
            sock.bind(("127.0.0.2", 0))
            sock.connect((host, int(port)))
            crowd.append(sock)
        refused = 0
        for sock in crowd[20:]:
            sock.settimeout(60)
            reply = sock.recv(1000)
            refused += reply.startswith(b"HTTP/1.1 503") and b"at most 20 from one client address" in reply
        assert refused == 10
        # Ordinary clients from 127.0.0.1 are still served while the slow ones trickle.
        while any(thread.is_alive() for thread in threads):
            assert _get(f"{url}/v1/win-rate", params={"hole": "AhKh", "board": "2c7dJh"}).status_code == 200
            time.sleep(0.2)
        for sock in crowd + trickles:
            sock.close()
    assert len(replies) == 2, replies
    for reply in replies:
        assert reply.startswith(b"HTTP/1.1 408") and b"did not arrive within 10 s" in reply, reply


def _trickle(raw: socket.socket, limit: float = 120.0) -> bytes:
    """Send ``raw`` a byte every half second until the server answers or closes it; what it said (b"" for a silent
    close). A generous ``limit`` that only a hang reaches ends it."""
    import select

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([raw], [], [], 0.5)
        if not ready:
            try:
                raw.sendall(b"x")
                continue
            except OSError:
                pass  # closed: what it said before is still to be read
        try:
            raw.settimeout(10)
            return raw.recv(1000)
        except OSError:
            return b""
    return b"(still open)"


def _connect_from(host: str, port: int, address: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect((host, port))
    return sock


def test_a_few_greedy_addresses_cannot_fill_the_server(small_store, tmp_path):
    """17 client addresses could fill the global cap of connections (issue 30 item 7): the last quarter of the cap is
    kept for addresses that hold no connection yet, so a new client is served beside greedy ones.

    Caps of 20 per address and 40 in all (the last 10 kept): 127.0.0.3 opens 20, 127.0.0.4 20 (10 refused),
    then eleven new addresses one each (ten accepted, the eleventh over the cap in all). Each connection's fate is
    read from the connection itself (a 503 at once, or closed silent after 5 s idle): no timing in the test.
    """
    log = tmp_path / "serve.log"
    with running_server(small_store, log, "--max-client-connections", "20", "--max-connections", "40") as url:
        host, port = url.removeprefix("http://").split(":")
        greedy = [_connect_from(host, int(port), address) for address in ("127.0.0.3", "127.0.0.4") for _ in range(20)]
        served = _connect_from(host, int(port), "127.0.0.5")
        served.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        served.settimeout(60)
        assert served.recv(1000).startswith(b"HTTP/1.1 200"), "a new address was refused"
        newcomers = [_connect_from(host, int(port), f"127.0.0.{last}") for last in range(6, 16)]
        replies = []
        for sock in greedy + newcomers:
            sock.settimeout(60)
            try:
                replies.append(sock.recv(1000))  # a refusal at once, or the idle connection closed after 5 s
            except OSError:
                replies.append(b"")
            sock.close()
        served.close()
    kept = b"expected at most 30 from addresses already connected (the last 10 of 40 are kept for new addresses)"
    full = b"expected at most 40 in all"
    assert [reply == b"" for reply in replies[:20]] == [True] * 20, replies[:20]  # 127.0.0.3: all 20 accepted
    assert sum(reply == b"" for reply in replies[20:40]) == 10 and sum(kept in reply for reply in replies[20:40]) == 10
    assert [reply == b"" for reply in replies[40:49]] == [True] * 9 and full in replies[49], replies[40:]


def test_sigterm_with_questions_in_flight_answers_them_and_stops_without_a_traceback(small_store, tmp_path):
    """SIGTERM while two heavy questions are being answered (each in a worker, seen using CPU) and after cheap ones:
    the heavy ones are answered 503 and the server stops (it failed on a loaded machine when the signal came before
    the questions had reached their workers: the test now waits for that state, not for a fixed time)."""
    log = tmp_path / "serve.log"
    answers: dict[str, list[int]] = {"heavy": [], "cheap": []}
    with running_server(small_store, log) as url:
        assert _get(f"{url}{WARM}").status_code == 200  # the fork server and a worker are up
        before = {p.pid: _cpu(p) for p in _workers(url)}

        def ask(kind: str, path: str) -> None:
            try:
                answers[kind].append(httpx.get(f"{url}{path}", timeout=120).status_code)
            except httpx.HTTPError:
                answers[kind].append(0)

        threads = [threading.Thread(target=ask, args=("heavy", HEAVY)) for _ in range(2)]
        for thread in threads:
            thread.start()
        _busy(url, before, count=2)  # both heavy questions are in their workers
        for _ in range(3):
            ask("cheap", "/v1/win-rate?hole=AhKh&board=2c7dJh")
        servers = _server(url)
        for server in servers:
            os.kill(server.pid, signal.SIGTERM)
        for server in servers:
            _wait(lambda server=server: not _running(server.pid))
        for thread in threads:
            thread.join(timeout=120)
    text = log.read_text()
    assert "Traceback" not in text and "CancelledError" not in text, text
    assert answers == {"heavy": [503, 503], "cheap": [200, 200, 200]}, answers


def test_weights_too_small_to_count_exactly_are_refused_and_small_ones_are_exact(small_db, served):
    """Subnormal weights ('0.000...0005(...)', 323 zeros) gave a hero equity of 0.5000015931 instead of 0.5 (issue 20 item 2)."""
    from matchdb.core.hole_cards import CLASSES

    url, _ = served
    every = ",".join(CLASSES)
    subnormal = f"0.{'0' * 323}5({every})"
    expected = "expected 0 or a weight of at least 1e-12 (smaller ones cannot be counted exactly)."
    with pytest.raises(MatchdbError, match=r"gives the weight '0\.0000000000\.\.\.00000005'; expected 0 or a weight of at least 1e-12"):
        small_db.range_outcome(subnormal, subnormal, "2c7dJh")
    for params in ({"board": "2c7dJh", "villain": subnormal}, {"board": "2c7dJh", "hero": subnormal, "villain": subnormal}):
        answer = _get(f"{url}/v1/hands", params=params)
        assert answer.status_code == 400 and answer.json()["detail"].endswith(expected), answer.text
    with pytest.raises(MatchdbError, match="A weight vector holds 4.94066e-324; expected 0 or weights of at least 1e-12"):
        small_db.outcome("AhKh", "2c7dJh", [5e-324] * 1326)
    # The smallest accepted weight answers exactly: the same as every hand at weight 1 (to 1e-12).
    smallest = f"0.000000000001({every})"
    body = _get(f"{url}/v1/hands", params={"board": "2c7dJh", "hero": smallest, "villain": smallest}).json()
    assert abs(body["hero"]["equity"] - 0.5) < 1e-12
    position = body["hands"].index("AhKh")
    assert abs(body["values"][position] - small_db.equity("AhKh", "2c7dJh")) < 1e-12
    assert abs(small_db.equity("AhKh", "2c7dJh", villain=smallest) - 0.5725712256702081) < 1e-12


def test_the_answer_deadline_stops_a_question_and_kills_its_worker(small_store, tmp_path, capsys):
    """``serve --answer-deadline``: a question not answered in time is answered 503 naming the deadline, and the
    worker answering it is killed. A deadline of 1 s against about 20 s of work: 503 however loaded the machine is.
    A deadline that is not a number of seconds above 0 (at most an hour) is refused before the port opens."""
    log = tmp_path / "serve.log"
    stopped = "The answer took longer than 1 s and was stopped; expected a question with less work."
    estimating = "The answer took longer than 1 s; the database could not be read in time."  # still in its estimate

    def killed() -> list[int]:
        """The worker processes the server's log says it killed."""
        return [int(pid) for pid in re.findall(r"its worker process (\d+) was killed", log.read_text())]

    def late() -> list[int]:
        answer = _get(f"{url}{HEAVY}")
        assert answer.status_code == 503 and answer.json()["detail"] in (stopped, estimating), answer.text
        return killed()

    with running_server(small_store, log, "--answer-deadline", "1") as url:
        # The first question may reach its deadline while the pool's first worker starts (it then joins the idle
        # ones), or on a loaded machine even while it is estimated; one reaches a worker, killed at its deadline.
        (pid, *_) = _wait(late)
        _wait(lambda: not _running(pid))
    from matchdb.cli.main import main

    for value in ("0", "-1", "nan", "3601"):
        assert main(["serve", "--db", str(small_store), "--port", "0", "--answer-deadline", value]) == 2
        assert capsys.readouterr().err == (f"matchdb: The answer deadline {float(value)!r} is out of range; expected "
                                           "seconds above 0, at most 3,600.\n")


def _spin(db: object, seconds: float) -> float:
    """A job for the pool: burn a core for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return seconds


def test_a_question_past_its_deadline_is_killed_with_its_cpu(small_store):
    """The deadline answered 503 but the computation went on (issue 20 item 4): now its process is killed."""
    import anyio

    from matchdb.service.pool import HeavyPool

    pool = HeavyPool(str(small_store), processes=1)

    async def ask() -> int:
        assert await pool.run(_spin, 0.05) == 0.05  # starts the worker
        (worker,) = pool._idle
        with anyio.move_on_after(0.5):  # the question's deadline
            await pool.run(_spin, 3600)
        return worker.process.pid

    try:
        pid = anyio.run(ask)
        _wait(lambda: not _running(pid))  # killed, not left to spin for an hour
    finally:
        pool.stop()


@pytest.mark.timeout(300)  # a question that spins fails here instead of holding the run
def test_impossible_deals_are_refused_at_once_everywhere(small_db, small_store, served):
    """AA against AA, AA and a random hand needs six aces: the sampler drew deals forever (10.5 minutes in Python and
    the command line, 30 s over HTTP; issue 30 item 2). Now refused up front in one sentence; ranges too many to
    search are stopped by the sampler's bound on rejected deals."""
    url, _ = served
    message = ("No deal is possible: the hero and opponents 1 and 2 cannot all be dealt a hand of their ranges "
               "without sharing a card.")
    with pytest.raises(RangeError) as caught:
        small_db.multiway("AA", "", ["AA", "AA", "random"])
    assert str(caught.value) == message
    for method in ("exact", "sample"):
        with pytest.raises(RangeError, match="^No deal is possible"):
            small_db.multiway("AA", "", ["AA", "AA", "random"], method=method)
    done = subprocess.run(
        [sys.executable, "-m", "matchdb", "query", "AA", "", "--villain", "AA", "--villain", "AA", "--opponents", "1",
         "--db", str(small_store)], capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    answer = _get(f"{url}/v1/multiway", params=[("hole", "AA"), ("board", ""), ("villain", "AA"), ("villain", "AA"),
                                                 ("opponents", 1)])
    assert answer.status_code == 400 and answer.json()["detail"] == message, answer.text
    # Five players holding an ace each, and a random hand: too many deals to search, and none possible: the sampler
    # stops after 200,000 rejected deals in a row.
    aces = "A2+,AA"
    with pytest.raises(RangeError, match="^The players' ranges leave almost no deal: 200,000 deals drawn in a row"):
        small_db.multiway(aces, "", [aces] * 4 + ["random"])
    # Narrow ranges that can be dealt are answered: AK four times (about one deal in 114 fits) and a random hand.
    answer = small_db.multiway("AK", "", ["AK", "AK", "AK", "random"], method="sample", samples=8192, seed=3)
    assert answer.samples == 8192 and 0.05 < answer.equity < 0.2


def test_small_ones_a_huge_schedule_no_candidates_and_hands_into_the_database(small_store, served, tmp_path):
    """Issue 30 item 7: a sit-and-go schedule of 1e30 chips answered 500; 'hands fit --candidates 0' printed a
    traceback; 'arena --hands-out' wrote into the database folder."""
    from matchdb.errors import MatchdbError
    from matchdb.play.games import GameSettings

    url, _ = served
    for schedule in ([[1e30, 2e30, 0]], [[1, 2**60, 0]], [[1, 2, float("inf")]], [["x", 2, 0]]):
        with pytest.raises(MatchdbError, match=r"^The blind levels .* are not \(small blind, big blind, ante\) rows"):
            GameSettings(schedule=schedule)
    answer = _post(f"{url}/v1/play", json={"game": "sng", "opponents": "station", "schedule": [[1e30, 2e30, 0]]})
    assert answer.status_code == 400, answer.text
    assert "are not (small blind, big blind, ante) rows" in answer.json()["detail"] or "blind schedule" in answer.json()["detail"]

    def matchdb_cli(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "matchdb", *arguments], capture_output=True, text=True, timeout=240)

    hands = Path(__file__).resolve().parents[1] / "data" / "hands"
    fitted = matchdb_cli("hands", "fit", str(hands), "--player", "ann", "--candidates", "0", "--db", str(small_store))
    assert fitted.returncode == 2 and "Traceback" not in fitted.stderr, fitted.stderr
    assert fitted.stderr.strip() == "matchdb: --candidates is 0; expected 1..100,000.", fitted.stderr
    inside = small_store / "hands"
    played = matchdb_cli("arena", "--bots", "allin,station", "--games", "1", "--hands-out", str(inside), "--db", str(small_store))
    assert played.returncode == 2 and "is inside the database" in played.stderr and not inside.exists(), played.stderr


@pytest.mark.slow  # minutes of measuring, and CPU seconds depend on the machine and its load (issue 29)
def test_every_estimate_is_within_a_factor_of_3_of_the_measured_cpu(full_store, small_store):
    """scripts/bench_costs.py: every route's and kind's estimate beside the CPU its question measures."""
    done = subprocess.run(
        [sys.executable, "scripts/bench_costs.py", "--db", str(full_store), "--small", str(small_store), "--factor", "3"],
        capture_output=True, text=True, timeout=3600, env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
