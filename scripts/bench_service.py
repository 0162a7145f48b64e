"""Benchmark the HTTP service: requests per second and latency percentiles, one worker process against several.

Usage: python scripts/bench_service.py [--db PATH] [--workers 1,2] [--clients 8,32]
                                       [--seconds 10] [--kind win-rate|equity] [--positions 300]

Starts ``matchdb serve`` on 127.0.0.1 for each worker count, warms every
worker's cache on the positions it will be asked (so this measures serving,
not first touches), then runs each number of concurrent keep-alive clients
for ``--seconds`` and prints throughput, median and 99th-percentile latency.
The clients are plain asyncio streams speaking HTTP/1.1 in this process, the
cheapest load generator Python has; on a 2-core machine they share the cores
with the server, so read the figures as the machine's, not the server's alone.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
import urllib.parse

import numpy as np

import matchdb
from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP
from matchdb.core.cards import format_cards


def positions(built: list[int], count: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        perm = int(rng.integers(24))
        flop = [int(CARD_MAP[perm, c]) for c in CANONICAL_FLOPS[int(rng.choice(built))]]
        picked = [int(c) for c in rng.choice([c for c in range(52) if c not in flop], size=2 + int(rng.integers(3)), replace=False)]
        out.append((format_cards(picked[:2]), format_cards(flop + picked[2:])))
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _request(reader, writer, path: str) -> float:
    start = time.perf_counter()
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    await writer.drain()
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        if line.startswith(b"HTTP/1.1 ") and not line.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"the server answered {line.decode().strip()} to {path}")
    await reader.readexactly(length)
    return time.perf_counter() - start


async def _load(port: int, paths: list[str], clients: int, seconds: float) -> list[float]:
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []

    async def client(number: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = number
        while time.perf_counter() < deadline:
            latencies.append(await _request(reader, writer, paths[i % len(paths)]))
            i += clients
        writer.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path (default: the default database)")
    parser.add_argument("--workers", default="1,2", help="worker process counts to compare")
    parser.add_argument("--clients", default="8,32", help="numbers of concurrent clients")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--kind", choices=["win-rate", "equity"], default="win-rate")
    parser.add_argument("--positions", type=int, default=300)
    args = parser.parse_args()

    db = matchdb.open(args.db)
    sample = positions(db.built(), args.positions)
    paths = [f"/v1/{args.kind}?" + urllib.parse.urlencode({"hole": hole, "board": board}) for hole, board in sample]
    print(f"database {db.path}; {args.kind} over {len(paths)} positions, {args.seconds:.0f} s per figure")
    print(f"{'workers':>7} {'clients':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for workers in (int(w) for w in args.workers.split(",")):
        port = free_port()
        command = [sys.executable, "-m", "matchdb", "serve", "--db", str(db.path), "--port", str(port), "--workers", str(workers)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.2)
            asyncio.run(_load(port, paths, 4 * workers, 3.0))  # every worker's cache meets the positions
            for clients in (int(c) for c in args.clients.split(",")):
                latencies = asyncio.run(_load(port, paths, clients, args.seconds))
                p50, p99 = (float(np.percentile(latencies, q)) * 1e3 for q in (50, 99))
                print(f"{workers:>7} {clients:>7} {len(latencies) / args.seconds:>9.0f} {p50:>8.2f} {p99:>8.2f}")
        finally:
            server.terminate()
            server.wait(timeout=30)
            subprocess.run(["pkill", "-f", f"serve --db .* --port {port} "], check=False)


if __name__ == "__main__":
    main()
