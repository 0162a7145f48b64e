"""``matchdb serve``: the HTTP service and the page (needs the ``service`` extra)."""

from __future__ import annotations

import argparse

from matchdb.cli.common import DB_HELP, open_db

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the subcommands ``sub``."""
    p = sub.add_parser("serve", help="answer queries over HTTP (needs the service extra)")
    p.add_argument("--db", help=DB_HELP)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="server processes sharing the port (default 1)")
    p.add_argument("--access-log", action="store_true", help="log every request (quiet by default)")
    p.add_argument("--info-details", action="store_true", help="let /v1/info show the database's path, the host that "
                   "built it and the library versions (by default it shows only the format, tables and codec)")
    p.add_argument("--max-connections", type=int, default=4096, help="connections open at once in all, per process "
                   "(default 4096); more are answered 503 and closed")
    p.add_argument("--max-client-connections", type=int, default=256, help="connections open at once from one client "
                   "address, per process (default 256); more are answered 503 and closed")
    p.add_argument("--answer-deadline", type=float, default=30.0, metavar="SECONDS",
                   help="seconds a question may take before it is answered 503 and its work stopped (default 30)")
    p.add_argument("--play-dir", help="folder keeping the sessions of /play, so they survive a restart (default: a "
                   "temporary folder)")
    p.add_argument("--play-limit", type=int, default=None, help="most sessions of /play open at once (default 200)")
    p.add_argument("--play-idle", type=float, default=None,
                   help="seconds after which an unused session of /play is put away, its hand in play settled as if "
                   "you folded; it resumes by its id (default 1800)")
    p.add_argument("--play-client-limit", type=int, default=None,
                   help="most sessions of /play one client address holds open at once (default 8)")
    p.add_argument("--play-deadline", type=float, default=None,
                   help="seconds a new session of /play may take to make before the request fails with 503; the "
                   "session is then not kept (default 30)")
    p.add_argument("--play-solutions", default=None, metavar="DIR",
                   help="folder of saved solutions (matchdb solve --save) and solution libraries that /play offers as "
                   "opponents 'solver:NAME' for DIR/NAME.npz, DIR/NAME.zarr or DIR/NAME.zip: the solver bot")
    p.add_argument("--solve-keep", type=float, default=None, metavar="SECONDS",
                   help="seconds a finished solve of /v1/solve is kept after it was last asked about; then it and its "
                   "file go (default 900)")
    p.add_argument("--library", action="append", default=None, metavar="DIR",
                   help="a solution library (matchdb library build) answered at /v1/library/NAME/node; repeatable")
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from matchdb.service.server import serve

    db = open_db(args)  # a missing or damaged database fails here, before the port opens
    serve(db, host=args.host, port=args.port, workers=args.workers, access_log=args.access_log, info_details=args.info_details,
          max_connections=args.max_connections, max_client_connections=args.max_client_connections,
          play_dir=args.play_dir, play_limit=args.play_limit, play_idle=args.play_idle,
          play_client_limit=args.play_client_limit, play_deadline=args.play_deadline, answer_deadline=args.answer_deadline,
          play_solutions=args.play_solutions, solve_keep=args.solve_keep, libraries=args.library)
    return 0
