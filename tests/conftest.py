"""Fixtures over the session's full database (built once with its derived data, see the root conftest.py): opened as ``full_db``, as ``db`` with its preflop table read, and a strength source over it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def full_db(full_store):
    """The session's full database."""
    import matchdb

    return matchdb.open(full_store)


@pytest.fixture(scope="module")
def db(full_store):
    """The full database (all 1,755 tables), opened read-only; its preflop table read (the build computed it)."""
    import matchdb

    database = matchdb.open(full_store)
    database.preflop()
    return database


@pytest.fixture(scope="module")
def source(db):
    """A strength source decoding tables lazily into 96 slots (270 MB)."""
    from matchdb.play.strength import StrengthSource

    return StrengthSource(db, capacity=96)


@pytest.fixture(scope="session")
def full_matchups(full_store):
    """The full database's heads-up preflop matchups (derived data the build computed and kept in its store)."""
    import matchdb

    return matchdb.open(full_store).preflop_matchups()


#: A toy spot for solution libraries (pot 100, stacks 100, one size and all-in): cheap to solve on a flop.
TOY_SPEC = 'name = "toy"\noop = "AA,KK,AK"\nip = "QQ,JJ,AQs,T9s"\npot = 100\nstack = 100\nbet = "50%, a"\ntarget = 3.0\n'


@pytest.fixture(scope="session")
def toy_library(small_store, solver_compiled):
    """A library of the toy spot on two flops of the small store (AhKhQh, AsTs9h), built once per test run in this
    process (the Dask build is tested in tests/library); read only."""
    import matchdb
    from conftest import built_once
    from matchdb.library import LibrarySpec, build_library

    def make(folder):
        build_library(folder / "toy.zarr", LibrarySpec.from_toml(TOY_SPEC), matchdb.open(small_store),
                      flops="AhKhQh,AsTs9h", serial=True, quiet=True)

    return built_once("toy-library", make) / "toy.zarr"
