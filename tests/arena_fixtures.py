"""Fixtures of the arena tests that need the full database.

For now they read a built database at ``$MATCHDB_ARENA_DB`` (default
/work/db-v1/matchdb.zarr) and skip, saying why, when it is absent; at merge
time they can be rewired to the project's session fixtures. Import them into
a test module with ``from tests.arena_fixtures import db, source``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from matchdb.errors import MatchdbError

DB_PATH = Path(os.environ.get("MATCHDB_ARENA_DB", "/work/db-v1/matchdb.zarr"))


@pytest.fixture(scope="module")
def db():
    """The full database (all 1,755 tables and the preflop table), opened read-only."""
    if not (DB_PATH / "zarr.json").is_file():
        pytest.skip(f"needs a full built database at {DB_PATH} (set MATCHDB_ARENA_DB to its path)")
    import matchdb

    try:
        database = matchdb.open(DB_PATH)
        database.table(1754)  # the last table: a database missing tables says so here
    except MatchdbError as error:  # another format version, missing tables
        pytest.skip(f"the database at {DB_PATH} cannot serve these tests: {error}")
    return database


@pytest.fixture(scope="module")
def source(db):
    """A strength source decoding tables lazily into 96 slots (270 MB)."""
    from matchdb.strength import StrengthSource

    return StrengthSource(db, capacity=96)
