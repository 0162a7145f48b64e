"""Benchmark the table for a person (issue 24): a bot's decision with exact equity, the round trip of an action on a
flop, and an equity query's latency with 100 sessions playing on the same ``matchdb serve`` process.

    python scripts/bench_play.py [--db PATH] [--decisions 300] [--sessions 100] [--seconds 20]

1. **A bot's decision**: West's player with exact equity (``west:exact``) in
   five seats of a six-seat session, the person checking and calling;
   every bot decision after the flop (``Session.step``: the view, the exact
   equity against the live opponents, West's decision, the engine) is timed
   in this process, a table's first decode included, after ten that load the
   compiled kernels.
2. **An action's round trip**: ``POST /v1/play/{id}/act`` on a flop against
   a running server, from sending to the whole view received. (The browser
   test ``tests/service/test_play_page.py`` prints the page's own figure,
   click to drawn table.)
3. **100 sessions**: ``GET /v1/equity`` on warmed positions, one request at a
   time, in four alternating rounds with ``--sessions`` sessions paused and
   playing through the routes at the page's pace (a request every 0.6 s
   each: a bot step, an action or a deal). The figure is the ratio of the
   median latencies.

The machine may be shared: every figure is printed with its spread. The load
generator runs in a process of its own at a lower priority (``nice 10``): real
players' browsers run on their own machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import matchdb
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP
from matchdb.core.cards import format_cards
from matchdb.human import Session, TableConfig
from matchdb.play.strength import StrengthSource


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):.2f} ms, p95 {p95:.2f} ms, max {ordered[-1]:.2f} ms over {len(ordered)}"


def bot_decisions(db, count: int, warm: int = 10) -> list[float]:
    """Milliseconds of each bot decision after the flop (west:exact), in this process, after ``warm`` decisions that
    load the compiled kernels from numba's cache (half a second, once a process)."""
    source = StrengthSource(db, capacity=64)
    times: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        config = TableConfig(seats=6, opponents="west:exact", stack=2000, small_blind=5, big_blind=10, seed=1)
        session = Session.new(config, db, folder, source)
        while len(times) < count + warm:
            if session.hand_over:
                session.next_hand()
                continue
            view = session.view()
            if view["your_turn"]:
                session.act("check" if view["legal"]["check"] else "call")
                continue
            postflop = view["street"] != "preflop"
            start = time.perf_counter()
            session.step()
            if postflop:
                times.append(1000 * (time.perf_counter() - start))
    return times[warm:]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(db_path: str, folder: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(Path(folder) / "serve.log", "w")  # noqa: SIM115  (open for the server's life)
    process = subprocess.Popen([sys.executable, "-m", "matchdb", "serve", "--db", db_path, "--port", str(port),
                                "--play-dir", str(Path(folder) / "play"), "--play-limit", "500"],
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start:\n{(Path(folder) / 'serve.log').read_text()}")
        time.sleep(0.2)


def act_round_trips(url: str, count: int) -> list[float]:
    """Milliseconds of POST act on a flop, sent to received."""
    times: list[float] = []
    with httpx.Client(timeout=60) as client:
        settings = {"seats": 4, "opponents": "west,west-loose,station", "stack": 5000, "seed": 2}
        view = client.post(f"{url}/v1/play", json=settings).json()
        sid = view["id"]
        while len(times) < count:
            if view["hand_over"]:
                view = client.post(f"{url}/v1/play/{sid}/next").json()
            elif view["your_turn"]:
                body = {"kind": "check" if view["legal"]["check"] else "call"}
                on_flop = view["street"] == "flop"
                start = time.perf_counter()
                view = client.post(f"{url}/v1/play/{sid}/act", json=body).json()
                if on_flop:
                    times.append(1000 * (time.perf_counter() - start))
            else:
                view = client.post(f"{url}/v1/play/{sid}/step").json()["view"]
    return times


def positions(db, count: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(0)
    built = db.built()
    out = []
    for _ in range(count):
        perm = int(rng.integers(24))  # one renaming of the suits for the whole flop
        flop = [int(CARD_MAP[perm, c]) for c in CANONICAL_FLOPS[int(rng.choice(built))]]
        hole = [int(c) for c in rng.choice([c for c in range(52) if c not in flop], size=2, replace=False)]
        out.append((format_cards(hole), format_cards(flop)))
    return out


async def equity_latencies(url: str, wanted: list[tuple[str, str]], seconds: float) -> list[float]:
    times: list[float] = []
    async with httpx.AsyncClient(timeout=60) as client:
        end = time.monotonic() + seconds
        k = 0
        while time.monotonic() < end:
            hole, board = wanted[k % len(wanted)]
            start = time.perf_counter()
            answer = await client.get(f"{url}/v1/equity", params={"hole": hole, "board": board})
            assert answer.status_code == 200, answer.text
            times.append(1000 * (time.perf_counter() - start))
            k += 1
            await asyncio.sleep(0.02)
    return times


class Connection:
    """One kept-alive HTTP/1.1 connection over plain asyncio streams: the cheapest client Python has, so the load
    generator takes as little of the machine's cores from the server as it can."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str) -> Connection:
        host, port = url.removeprefix("http://").split(":")
        return cls(*await asyncio.open_connection(host, int(port)))

    async def post(self, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else b""
        head = f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        answer = json.loads(await self.reader.readexactly(length))
        if not status.startswith((b"HTTP/1.1 200", b"HTTP/1.1 201")):
            raise SystemExit(f"{path} answered {status!r}: {answer}")
        return answer

    def close(self) -> None:
        self.writer.close()


async def one_player(url: str, seed: int, control: Any, counter: Any) -> None:
    """A person at the page's pace: one request (a bot step, an action or a deal) every 0.6 s while not paused."""
    connection: Connection | None = await Connection.open(url)
    assert connection is not None
    view = await connection.post("/v1/play", {"seats": 6, "stack": 1000, "seed": seed})
    sid = view["id"]
    await asyncio.sleep(0.6 * (seed % 10) / 10)  # the players do not move in step
    while control.value != _STOP:
        if control.value == _PAUSE:
            if connection is not None:  # the server closes a connection silent for 5 s: open another after
                connection.close()
                connection = None
            await asyncio.sleep(0.1)
            continue
        if connection is None:
            connection = await Connection.open(url)
        if view["hand_over"]:
            view = await connection.post(f"/v1/play/{sid}/next")
        elif view["your_turn"]:
            view = await connection.post(f"/v1/play/{sid}/act", {"kind": "check" if view["legal"]["check"] else "call"})
        else:
            view = (await connection.post(f"/v1/play/{sid}/step"))["view"]
        counter.value += 1
        await asyncio.sleep(0.6)
    if connection is not None:
        connection.close()


_PAUSE, _PLAY, _STOP = 0, 1, 2


async def players(url: str, sessions: int, control: Any, counter: Any) -> None:
    await asyncio.gather(*(one_player(url, seed, control, counter) for seed in range(sessions)))


def run_players(url: str, sessions: int, control: Any, counter: Any) -> None:
    """The sessions' load, in a process of its own (so measuring the equity query shares no event loop with it), at a
    lower priority: the browsers of real players run elsewhere, so the load generator yields the cores it shares."""
    os.nice(10)
    asyncio.run(players(url, sessions, control, counter))


def alternating(url: str, wanted: list[tuple[str, str]], sessions: int, seconds: float,
                rounds: int = 4) -> tuple[list[float], list[float], float]:
    """Equity latencies with the sessions paused and playing, in alternating rounds (the machine's other load
    drifts: alternating shares it out); the play requests per second while playing."""
    control = multiprocessing.Value("q", _PLAY)
    counter = multiprocessing.Value("q", 0)
    process = multiprocessing.Process(target=run_players, args=(url, sessions, control, counter))
    process.start()
    time.sleep(8)  # every session seated and playing
    alone: list[float] = []
    busy: list[float] = []
    played = 0
    for _ in range(rounds):
        control.value = _PAUSE
        time.sleep(1)
        alone += asyncio.run(equity_latencies(url, wanted, seconds / rounds))
        control.value = _PLAY
        time.sleep(1)
        before = counter.value
        busy += asyncio.run(equity_latencies(url, wanted, seconds / rounds))
        played += counter.value - before
    control.value = _STOP
    process.join()
    return alone, busy, played / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="database path (default $MATCHDB_PATH or data/matchdb.zarr)")
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    db = matchdb.open(args.db)
    db_path = str(db.path)

    times = bot_decisions(db, args.decisions)
    print(f"1. bot decision after the flop, west:exact in 5 of 6 seats (Session.step): {quantiles(times)}")

    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(db_path, folder)
        try:
            trips = act_round_trips(url, 40)
            print(f"2. POST /v1/play/{{id}}/act on a flop, sent to view received: {quantiles(trips)}")
            wanted = positions(db, 50)
            with httpx.Client(timeout=60) as client:
                for hole, board in wanted:  # warm: the tables decoded, the answers' code paths run
                    client.get(f"{url}/v1/equity", params={"hole": hole, "board": board})
            alone, busy, rate = alternating(url, wanted, args.sessions, args.seconds)
            ratio = statistics.median(busy) / statistics.median(alone)
            print(f"3. GET /v1/equity alone: {quantiles(alone)}")
            print(f"   with {args.sessions} sessions playing ({rate:.0f} play requests/s): "
                  f"{quantiles(busy)}")
            print(f"   median slowdown: {100 * (ratio - 1):+.1f} %")
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"(machine: {os.cpu_count()} cores; figures are the machine's, the load generator shares them)")


if __name__ == "__main__":
    main()
