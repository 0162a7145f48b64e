"""Shared fixtures (for tests/ and for the doctests of matchdb/, docs/ and README.md): match tables, a small store and the full database, each built once per session.

The small store also backs every doctest: the package's, the docs' and the README's
examples run with ``db`` (and ``path``) naming it, ``matchdb.open()``
finding it through ``MATCHDB_PATH``, in a scratch folder of their own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def table_cache():
    """Memoised ``match_table`` so several tests can share a flop's table."""
    from matchdb.core.table import match_table

    cache: dict[str, object] = {}

    def get(flop: str):
        if flop not in cache:
            cache[flop] = match_table(flop)
        return cache[flop]

    return get


#: Tables the shared test store holds: the published references plus a few more.
SMALL_FLOPS = "AhTcTh,AsTs9h,2c7dJh,AhKhQh,7c7d2s,0-2"


@pytest.fixture(scope="session")
def small_store(tmp_path_factory):
    """A real store of a few tables, built once per session through the default Dask cluster."""
    from matchdb.db.build import build

    root = tmp_path_factory.mktemp("db") / "matchdb.zarr"
    report = build(root, flops=SMALL_FLOPS, workers=2, quiet=True)
    assert len(report.built) == 8
    return root


@pytest.fixture(scope="session")
def small_db(small_store):
    """The small store, opened once."""
    import matchdb

    return matchdb.open(small_store)


@pytest.fixture(autouse=True)
def _doctest_setup(request, doctest_namespace, tmp_path, monkeypatch):
    """For doctests only: the small store as ``db``, ``path`` and the default database; a scratch folder as cwd."""
    from _pytest.doctest import DoctestItem

    if not isinstance(request.node, DoctestItem):
        return
    import numpy as np

    import matchdb

    small_store = request.getfixturevalue("small_store")
    doctest_namespace.update(db=request.getfixturevalue("small_db"), path=str(small_store), matchdb=matchdb, np=np)
    monkeypatch.setenv("MATCHDB_PATH", str(small_store))
    samples = tmp_path / "tests" / "data"  # the sample hand histories where the docs name them (from the repo's root)
    samples.mkdir(parents=True)
    (samples / "hands").symlink_to(Path(__file__).resolve().parent / "tests" / "data" / "hands")
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def small_flops(small_store):
    """Canonical indices of the tables in ``small_store``."""
    from matchdb.db.build import parse_flop_spec

    return sorted(parse_flop_spec(SMALL_FLOPS))


@pytest.fixture(scope="session")
def full_store(tmp_path_factory):
    """The whole database, built as ``matchdb build`` builds it, its derived data included (about 2 minutes on 2 cores).

    A developer who already has a full store built by this checkout's code can set
    ``MATCHDB_TEST_FULL_STORE`` to its path: the session then works on a copy of it
    (about 2 s) instead of building one. CI leaves it unset and builds.
    """
    from matchdb.db.build import build

    root = tmp_path_factory.mktemp("full") / "matchdb.zarr"
    prebuilt = os.environ.get("MATCHDB_TEST_FULL_STORE")
    if prebuilt:
        shutil.copytree(prebuilt, root)
    report = build(root, quiet=True)  # with a copy: checks it is complete and computes only the derived data it lacks
    assert len(report.built) + report.skipped == 1755
    yield root
    shutil.rmtree(root, ignore_errors=True)  # 238 MB: never left behind under /tmp
