"""The server around the application: the listening socket, uvicorn, worker processes, and the connection limits.

:func:`serve` binds the port before anything is printed, so a port in use is
one sentence and exit status 2. A connection that sends nothing for
:data:`IDLE_SECONDS` is closed (before its first request too), small writes
leave at once (TCP_NODELAY), the open-file limit is raised to the hard one,
and SIGTERM stops the server within 3 s. ``workers=N`` runs N processes on
one listening socket, sharing the operating system's page cache.
"""

from __future__ import annotations

import os
import resource
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matchdb.errors import MatchdbError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from matchdb.db.query import MatchDB

__all__ = ["IDLE_SECONDS", "IdleClosingProtocol", "app_from_environment", "serve"]

#: A connection that sends nothing for this long is closed (before its first request too).
IDLE_SECONDS = 5
#: How ``serve --workers N`` tells its worker processes which database to open.
_ENVIRON_DB = "MATCHDB_SERVE_DB"


try:
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError:  # the service extra is not installed; serve() says so
    IdleClosingProtocol = None
else:

    class IdleClosingProtocol(H11Protocol):  # type: ignore[no-redef]
        """uvicorn's h11 protocol, also closing a connection that sends nothing before its first request.

        (uvicorn starts its keep-alive timer only after a response, so a client
        that connects and stays silent held a descriptor forever.) A class of
        this module, not of a function: ``--workers N`` sends it to its worker processes.
        """

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            _no_delay(transport.get_extra_info("socket"))
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)


def serve(db: MatchDB, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, access_log: bool = False,
          play_dir: str | os.PathLike | None = None, play_limit: int | None = None, play_idle: float | None = None) -> None:
    """Serve ``db`` over HTTP until interrupted (SIGINT or SIGTERM); the port is bound before anything is printed.

    ``workers`` processes share the listening socket, each with its own
    decoded-table cache over the operating system's shared page cache.
    ``play_dir``, ``play_limit`` and ``play_idle`` set the sessions of
    ``/play`` (:func:`matchdb.service.app.create_app`); a person's session
    lives in one process, so with several workers ``/play`` seats nobody.
    """
    try:
        import uvicorn
    except ImportError:
        raise MatchdbError("'matchdb serve' needs the service extra; install it with: pip install 'matchdb[service]'.") from None
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MatchdbError(f"The port {port!r} is out of range; expected an integer 0..65535.")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise MatchdbError(f"The number of workers {workers!r} is out of range; expected an integer 1..64.")
    _more_file_descriptors()
    listener = _listen(host, port)
    print(
        f"matchdb: serving {db.path} ({db.info()['tables_built']} tables) on http://{host}:{listener.getsockname()[1]}"
        + (f" with {workers} worker processes" if workers > 1 else ""),
        flush=True,
    )
    settings: dict[str, Any] = {
        "http": IdleClosingProtocol,
        "timeout_keep_alive": IDLE_SECONDS,
        "timeout_graceful_shutdown": 3,
        "log_level": "info" if access_log else "warning",
        "access_log": access_log,
    }
    if workers == 1:
        from matchdb.service.app import create_app

        options: dict[str, Any] = {"play_dir": play_dir}
        if play_limit is not None:
            options["play_limit"] = play_limit
        if play_idle is not None:
            options["play_idle"] = play_idle
        uvicorn.Server(uvicorn.Config(create_app(db, **options), **settings)).run(sockets=[listener])
        return
    from uvicorn.supervisors import Multiprocess

    # A folder or file by its absolute path (the workers may resolve it elsewhere); a URL as it is.
    os.environ[_ENVIRON_DB] = str(db.path.resolve()) if isinstance(db.path, Path) else str(db.path)
    config = uvicorn.Config("matchdb.service.server:app_from_environment", factory=True, workers=workers, **settings)
    Multiprocess(config, sockets=[listener]).run()


def app_from_environment() -> FastAPI:
    """The application of one worker process of ``matchdb serve --workers N`` (the database comes by environment)."""
    from matchdb.db.query import open as open_database
    from matchdb.service.app import create_app

    return create_app(open_database(os.environ[_ENVIRON_DB]), play_limit=0)  # a session must stay in one process


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
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass


def _more_file_descriptors() -> None:
    """Raise the soft open-file limit to the hard one: each connection holds a descriptor."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass
