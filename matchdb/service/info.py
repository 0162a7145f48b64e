"""The routes about the server itself: ``/v1/health`` (liveness) and ``/v1/info`` (the database's format and provenance)."""

from fastapi import FastAPI

from matchdb.db.query import MatchDB

__all__ = ["add_routes"]


def add_routes(app: FastAPI, db: MatchDB) -> None:
    """Add the health and info routes of a server answering from ``db``."""

    @app.get("/v1/health", summary="Liveness: the database is open")
    def get_health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/info", summary="Format version, tables and build provenance")
    def get_info() -> dict:
        return db.info()

