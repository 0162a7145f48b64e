"""The routes about the server itself: ``/v1/health`` (liveness) and ``/v1/info`` (the database's format and tables).

``/v1/info`` tells anyone only what a client needs: the format and its
version, whether the database is one packed file, its tables and codec. The
database's path, the host that built it and the library versions are for
the server's owner: they are added only when the server was started with
``matchdb serve --info-details`` (``create_app(db, info_details=True)``).

>>> sorted(public_info(db))
['chunk_rows', 'codec', 'format', 'format_version', 'packed', 'tables', 'tables_built']
"""

from typing import Any

from fastapi import FastAPI, Request

from matchdb.db.query import MatchDB

__all__ = ["PUBLIC_FIELDS", "add_routes", "public_info"]

#: The fields of :meth:`matchdb.MatchDB.info` that ``/v1/info`` shows to anyone.
PUBLIC_FIELDS = ("format", "format_version", "packed", "tables", "tables_built", "chunk_rows", "codec")


def public_info(db: MatchDB) -> dict[str, Any]:
    """What ``/v1/info`` tells anyone: no path, host name or versions."""
    info = db.info()
    return {name: info[name] for name in PUBLIC_FIELDS}


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the health and info routes of a server answering from ``db``."""

    @app.get("/v1/health", summary="Liveness: the database is open")
    def get_health() -> dict[str, Any]:
        return {"status": "ok"}

    @app.get("/v1/info", summary="Format version, tables and codec (with serve --info-details: path and build provenance)")
    def get_info(request: Request) -> dict[str, Any]:
        return db.info() if request.app.state.info_details else public_info(db)
