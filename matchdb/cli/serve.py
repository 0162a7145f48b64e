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
    p.add_argument("--play-dir", help="folder keeping the sessions of /play, so they survive a restart (default: a "
                   "temporary folder)")
    p.add_argument("--play-limit", type=int, default=None, help="most sessions of /play open at once (default 200)")
    p.add_argument("--play-idle", type=float, default=None,
                   help="seconds after which an unused session of /play is put away; it resumes by its id (default 1800)")
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from matchdb.service.server import serve

    db = open_db(args)  # a missing or damaged database fails here, before the port opens
    serve(db, host=args.host, port=args.port, workers=args.workers, access_log=args.access_log, play_dir=args.play_dir,
          play_limit=args.play_limit, play_idle=args.play_idle)
    return 0
