"""The server around the application: the listening socket, uvicorn, worker processes, and the connection limits.

:func:`serve` binds the port before anything is printed, so a port in use is
one sentence and exit status 2. A connection that sends nothing for
:data:`IDLE_SECONDS` is closed (before its first request too); a request
whose header and body have not all arrived :data:`REQUEST_SECONDS` after its
first byte (or after the connection opened) is answered 408 and closed, however
slowly it trickles in (slow loris); a client address may hold at most
:data:`MAX_CLIENT_CONNECTIONS` connections and the server
:data:`MAX_CONNECTIONS` in all (per process), the last quarter of them
(:data:`RESERVED_SHARE`) only for addresses that hold none yet: one more is
answered 503 and closed at once. Small writes leave at once (TCP_NODELAY), the open-file limit
is raised to the hard one, and SIGTERM stops the server within 3 s (heavy
questions in flight are stopped first and answered 503). ``workers=N`` runs
N processes on one listening socket, sharing the operating system's page cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from matchdb.db.query import MatchDB

__all__ = [
    "IDLE_SECONDS",
    "MAX_CLIENT_CONNECTIONS",
    "MAX_CONNECTIONS",
    "REQUEST_SECONDS",
    "RESERVED_SHARE",
    "IdleClosingProtocol",
    "app_from_environment",
    "serve",
]

#: A connection that sends nothing for this long is closed (before its first request too).
IDLE_SECONDS = 5
#: A request's header and body must have arrived this long after its first byte (the connection's opening, for
#: its first request), however steadily they trickle in; else 408 and the connection is closed.
REQUEST_SECONDS = 10
#: Connections one client address may hold open at once (per server process); one more is answered 503 and closed.
MAX_CLIENT_CONNECTIONS = 256
#: Connections open at once in all (per server process), at most the open-file limit less a margin.
MAX_CONNECTIONS = 4096
#: The share of :data:`MAX_CONNECTIONS` kept for client addresses that hold no connection yet (each gets one there).
RESERVED_SHARE = 0.25
#: How ``serve --workers N`` tells its worker processes which database to open, and its settings.
_ENVIRON_DB = "MATCHDB_SERVE_DB"
_ENVIRON_SETTINGS = "MATCHDB_SERVE_SETTINGS"
#: This process's connection limits (set by :func:`serve`) and its open connections by client address.
_LIMITS = {"client": MAX_CLIENT_CONNECTIONS, "total": MAX_CONNECTIONS}
_OPEN: Counter[str] = Counter()


def _raw_response(status: str, detail: str) -> bytes:
    """A whole HTTP response that closes its connection, for refusals made before any request is read."""
    body = json.dumps({"detail": detail}).encode()
    head = f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    return head.encode() + body


try:
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError:  # the service extra is not installed; serve() says so
    IdleClosingProtocol = None
else:

    import h11

    class IdleClosingProtocol(H11Protocol):  # type: ignore[no-redef]
        """uvicorn's h11 protocol, closing connections that are idle, too slow or too many.

        (uvicorn starts its keep-alive timer only after a response, so a client
        that connects and stays silent held a descriptor forever; one that sent
        a header byte every few seconds reset it forever.) A class of this
        module, not of a function: ``--workers N`` sends it to its worker processes.
        """

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._request_timer: Any = None
            peer = transport.get_extra_info("peername")
            self._address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
            _OPEN[self._address] += 1
            self._counted = True
            total = sum(_OPEN.values())
            _no_delay(transport.get_extra_info("socket"))
            refused = _refusal(_OPEN[self._address], total)
            if refused:
                self._uncount()  # at once: a refused connection holds no place while its close is on its way
                transport.write(_raw_response("503 Service Unavailable", refused))
                transport.close()
                return
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
            self._request_timer = self.loop.call_later(REQUEST_SECONDS, self._request_too_slow)

        def connection_lost(self, exc: Exception | None) -> None:
            self._uncount()
            self._stop_request_timer()
            super().connection_lost(exc)

        def _uncount(self) -> None:
            if getattr(self, "_counted", False):
                self._counted = False
                _OPEN[self._address] -= 1
                if _OPEN[self._address] <= 0:
                    del _OPEN[self._address]

        def data_received(self, data: bytes) -> None:
            if self._request_timer is None and self.conn.their_state is h11.IDLE:  # a new request's first byte
                self._request_timer = self.loop.call_later(REQUEST_SECONDS, self._request_too_slow)
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._stop_request_timer()  # all of it arrived (or the connection is done)

        def shutdown(self) -> None:
            from matchdb.service.pool import stop_all

            stop_all()  # heavy questions in flight stop now and are answered 503; the rest finish in milliseconds
            super().shutdown()

        def _stop_request_timer(self) -> None:
            if getattr(self, "_request_timer", None) is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _request_too_slow(self) -> None:
            self._request_timer = None
            if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                return
            # 408 unless a response is on its way: a header still arriving (the last request's answered, or none
            # yet), or a body the application still waits for (its answer not begun)
            answering = self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete
            if not answering:
                self.transport.write(_raw_response(
                    "408 Request Timeout",
                    f"The request did not arrive within {REQUEST_SECONDS} s; expected its header and body in that time.",
                ))
            self.transport.close()


def _refusal(mine: int, total: int) -> str | None:
    """Why a new connection is refused (None: accepted), with ``mine`` its address's open connections and ``total``
    the process's, both counting it: over the address's cap, over the cap in all, or, in the last
    :data:`RESERVED_SHARE` of the cap, from an address that already holds a connection (a few greedy addresses
    cannot fill the server: the last share is kept for addresses that have none open).

    >>> _LIMITS.update(client=20, total=40)
    >>> _refusal(20, 30) is None, _refusal(1, 40) is None
    (True, True)
    >>> _refusal(21, 21)
    'Too many open connections; expected at most 20 from one client address.'
    >>> _refusal(2, 31)
    'Too many open connections; expected at most 30 from addresses already connected (the last 10 of 40 are kept for new addresses).'
    >>> _LIMITS.update(client=MAX_CLIENT_CONNECTIONS, total=MAX_CONNECTIONS)
    """
    client, cap = _LIMITS["client"], _LIMITS["total"]
    kept = int(cap * RESERVED_SHARE)
    if mine > client:
        return f"Too many open connections; expected at most {client:,} from one client address."
    if total > cap:
        return f"Too many open connections; expected at most {cap:,} in all."
    if mine > 1 and total > cap - kept:
        return (f"Too many open connections; expected at most {cap - kept:,} from addresses already connected "
                f"(the last {kept:,} of {cap:,} are kept for new addresses).")
    return None


def serve(
    db: MatchDB,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    access_log: bool = False,
    info_details: bool = False,
    max_connections: int = MAX_CONNECTIONS,
    max_client_connections: int = MAX_CLIENT_CONNECTIONS,
    play_dir: str | os.PathLike[str] | None = None,
    play_limit: int | None = None,
    play_idle: float | None = None,
    play_client_limit: int | None = None,
    play_deadline: float | None = None,
    answer_deadline: float | None = None,
    play_solutions: str | os.PathLike[str] | None = None,
    solve_keep: float | None = None,
    libraries: list[str] | None = None,
) -> None:
    """Serve ``db`` over HTTP until interrupted (SIGINT or SIGTERM); the port is bound before anything is printed.

    ``workers`` processes share the listening socket, each with its own
    decoded-table cache over the operating system's shared page cache.
    ``info_details`` lets ``/v1/info`` show the database's path, build host and
    library versions; ``max_connections`` and ``max_client_connections`` bound
    the open connections of each process in all and per client address.
    ``play_dir``, ``play_limit``, ``play_idle``, ``play_client_limit`` and
    ``play_deadline`` set the sessions of ``/play``, ``play_solutions`` the folder of
    saved solutions it offers as ``solver:NAME`` opponents
    (:func:`matchdb.service.app.create_app`); a ``play_dir`` that cannot be
    a folder is refused before the port opens. A person's session lives in
    one process, so with several workers ``/play`` seats nobody.
    ``answer_deadline`` is the seconds a question may take before it is
    answered 503 (:data:`matchdb.service.guards.ANSWER_SECONDS` by default);
    a heavy one's worker process is then killed. ``solve_keep`` is the seconds a finished solve
    stays after it was last asked about (:data:`matchdb.service.solves.KEEP_SECONDS` by default).
    ``libraries`` are folders of solution libraries answered at ``/v1/library`` (checked before the port opens).
    """
    try:
        import uvicorn
    except ImportError:
        raise MatchdbError("'matchdb serve' needs the service extra; install it with: pip install 'matchdb[service]'.") from None
    from matchdb.service.guards import ANSWER_SECONDS, check_deadline

    deadline = check_deadline(ANSWER_SECONDS if answer_deadline is None else answer_deadline)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MatchdbError(f"The port {port!r} is out of range; expected an integer 0..65535.")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise MatchdbError(f"The number of workers {workers!r} is out of range; expected an integer 1..64.")
    for name, value in (("maximum of connections", max_connections), ("maximum of connections per client", max_client_connections)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1_000_000:
            raise MatchdbError(f"The {name} {value!r} is out of range; expected an integer 1..1,000,000.")
    play_settings: tuple[tuple[str, float | None, float, float], ...] = (
        ("limit of play sessions", play_limit, 0, 1_000_000),
        ("limit of play sessions per client", play_client_limit, 1, 1_000_000),
        ("play idle time", play_idle, 0.001, 1e9), ("play deadline", play_deadline, 0.0, 3600.0),
        ("time a finished solve is kept", solve_keep, 0.0, 1e9))
    for label, setting, low, high in play_settings:
        if setting is not None and (isinstance(setting, bool) or not isinstance(setting, (int, float))
                                    or not low <= setting <= high):
            raise MatchdbError(f"The {label} {setting!r} is out of range; expected {low:g}..{high:,g}.")
    if play_dir is not None and workers == 1:
        from matchdb.human.store import private_directory

        private_directory(play_dir)  # a file, or a folder that cannot be made, is one sentence before anything starts
    libraries = [str(Path(folder).resolve()) for folder in libraries or []]
    if libraries:
        from matchdb.service.library import open_libraries

        open_libraries(libraries, db)  # a folder that is not a library, or two of one name: one sentence, no port
    descriptors = _more_file_descriptors()
    _LIMITS.update(client=max_client_connections, total=max(1, min(max_connections, descriptors - 64)))
    listener = _listen(host, port)
    print(
        f"matchdb: serving {db.path} ({db.info()['tables_built']} tables) on http://{host}:{listener.getsockname()[1]}"
        + (f" with {workers} worker processes" if workers > 1 else ""),
        flush=True,
    )
    settings: dict[str, Any] = {
        "http": IdleClosingProtocol,
        "timeout_keep_alive": IDLE_SECONDS,
        "timeout_graceful_shutdown": 2,  # and then a moment to stop: 3 s in all
        "log_level": "info" if access_log else "warning",
        "access_log": access_log,
    }
    if workers == 1:
        from matchdb.service.app import create_app

        options: dict[str, Any] = {"play_dir": play_dir, "answer_seconds": deadline, "play_solutions": play_solutions,
                                   "libraries": libraries}
        if play_limit is not None:
            options["play_limit"] = play_limit
        if play_idle is not None:
            options["play_idle"] = play_idle
        if play_client_limit is not None:
            options["play_client_limit"] = play_client_limit
        if play_deadline is not None:
            options["play_deadline"] = play_deadline
        if solve_keep is not None:
            options["solve_keep"] = solve_keep
        uvicorn.Server(uvicorn.Config(create_app(db, info_details, **options), **settings)).run(sockets=[listener])
        return
    from uvicorn.supervisors import Multiprocess

    # A folder or file by its absolute path (the workers may resolve it elsewhere); a URL as it is.
    os.environ[_ENVIRON_DB] = str(db.path.resolve()) if isinstance(db.path, Path) else str(db.path)
    os.environ[_ENVIRON_SETTINGS] = json.dumps({"info_details": info_details, "limits": _LIMITS, "answer_seconds": deadline,
                                                "solve_keep": solve_keep, "libraries": libraries})
    config = uvicorn.Config("matchdb.service.server:app_from_environment", factory=True, workers=workers, **settings)
    Multiprocess(config, sockets=[listener]).run()


def app_from_environment() -> FastAPI:
    """The application of one worker process of ``matchdb serve --workers N`` (the database comes by environment)."""
    from matchdb.db.query import open as open_database
    from matchdb.service.app import create_app
    from matchdb.service.guards import ANSWER_SECONDS
    from matchdb.service.solves import KEEP_SECONDS

    settings = json.loads(os.environ.get(_ENVIRON_SETTINGS, "{}"))
    _LIMITS.update(settings.get("limits", {}))
    return create_app(open_database(os.environ[_ENVIRON_DB]), bool(settings.get("info_details", False)),
                      play_limit=0,  # a session must stay in one process
                      answer_seconds=float(settings.get("answer_seconds", ANSWER_SECONDS)),
                      solve_keep=KEEP_SECONDS if settings.get("solve_keep") is None else float(settings["solve_keep"]),
                      libraries=settings.get("libraries", []))


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``; failures are one sentence."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as error:
        reason = error.strerror or str(error)
        raise MatchdbError(f"Cannot open a socket for {host}:{port} ({reason}); expected a free file descriptor.") from None
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
    except (OSError, OverflowError) as error:
        listener.close()
        reason = getattr(error, "strerror", None) or str(error)
        raise MatchdbError(f"Cannot listen on {host}:{port} ({reason}); expected a free port and a local address.") from None
    return listener


def _no_delay(sock: socket.socket | None) -> None:
    """Send small writes at once (TCP_NODELAY) on an accepted connection.

    uvicorn writes a response's head and body separately; without this the body
    waits for the client's delayed ACK, 40 ms on every request of a kept-alive
    connection after its first. (asyncio sets the option itself only on sockets
    created with ``proto=IPPROTO_TCP``.)
    """
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _more_file_descriptors() -> int:
    """Raise the soft open-file limit to the hard one (each connection holds a descriptor); the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1_000_000
