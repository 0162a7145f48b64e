"""Helpers shared by the tests: a free port, a real matchdb server, small HTTP servers in a thread, random positions."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: The answer deadline of the tests' servers: generous, so that no answer fails by the machine's load (a test of the
#: deadline itself gives its own, tiny, against deliberately heavy work).
TEST_ANSWER_DEADLINE = "300"


@contextmanager
def running_server(db_path, log_path, *extra):
    """``matchdb serve`` in its own process on 127.0.0.1 (``extra`` arguments added); yields its base URL.

    Its answer deadline is :data:`TEST_ANSWER_DEADLINE` unless ``extra`` gives ``--answer-deadline``.
    """
    import httpx

    port = free_port()
    if "--answer-deadline" not in extra:
        extra = ("--answer-deadline", TEST_ANSWER_DEADLINE, *extra)
    with open(log_path, "w") as output:  # a file, not a pipe: an unread pipe fills up and stalls the server
        process = subprocess.Popen(
            [sys.executable, "-m", "matchdb", "serve", "--db", str(db_path), "--port", str(port), *extra],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start:\n{Path(log_path).read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        for child in _children(process.pid):  # worker processes of --workers N
            subprocess.run(["kill", str(child)], check=False)


def _children(pid: int) -> list[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


def random_position(rng, flops, extra_cards):
    """A random (hole, board) whose flop is one of ``flops`` (canonical indices), renamed and shuffled."""
    from matchdb.core.canonical import CANONICAL_FLOPS, CARD_MAP
    from matchdb.core.cards import format_cards

    index = int(rng.choice(flops))
    perm = int(rng.integers(24))
    flop = [int(CARD_MAP[perm, c]) for c in CANONICAL_FLOPS[index]]
    rng.shuffle(flop)
    rest = [c for c in range(52) if c not in flop]
    picked = [int(c) for c in rng.choice(rest, size=2 + extra_cards, replace=False)]
    return format_cards(picked[:2]), format_cards(flop + picked[2:])


@contextmanager
def file_server(folder, ignore_ranges: bool = False):
    """A static file server on 127.0.0.1 over ``folder`` with HTTP range requests and ETags (or ignoring ranges).

    Yields (base URL, server); ``server.served`` counts the body bytes sent.
    """
    import http.server
    import os
    import re

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            path = os.path.join(folder, self.path.lstrip("/"))
            if not os.path.isfile(path):
                self.send_error(404)
                return
            info = os.stat(path)
            etag = f'"{info.st_mtime_ns}-{info.st_size}"'
            if self.headers.get("If-Match") not in (None, etag):
                self.send_error(412)
                return
            with open(path, "rb") as handle:
                data = handle.read()
            wanted = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
            if wanted and not ignore_ranges:
                start, end = int(wanted[1]), min(int(wanted[2]), len(data) - 1)
                body = data[start : end + 1]
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            else:
                body = data
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", etag)
            self.end_headers()
            self.wfile.write(body)
            server.served += len(body)

    with serving(Handler) as server:
        server.served = 0  # before any request: the server only answers once this is yielded
        yield f"http://127.0.0.1:{server.server_address[1]}", server


@contextmanager
def serving(handler):
    """A real HTTP server on 127.0.0.1 answering with ``handler`` (a request handler class), a thread per client;
    stopped and closed on exit. Yields the server (its port: ``server.server_address[1]``)."""
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def private_copy(store: Path, folder: Path, skip: tuple[str, ...] = ()) -> Path:
    """A copy of ``store`` at ``folder`` that a test may edit: its derived data and JSON files copied, its table data
    hard-linked (seconds, no space; a test edits the derived files only). ``skip`` names folders left out."""

    def link_or_copy(source: str, target: str) -> None:
        parts = Path(source).relative_to(store).parts
        if parts[0] == "derived" or source.endswith(".json"):
            shutil.copy2(source, target)
            return
        try:
            os.link(source, target)
        except OSError:  # another file system
            shutil.copy2(source, target)

    shutil.copytree(store, folder, copy_function=link_or_copy, ignore=shutil.ignore_patterns(*skip))
    return folder
