"""Shared fixtures: match tables computed once per session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def table_cache():
    """Memoised ``match_table`` so several tests can share a flop's table."""
    from matchdb.kernels import match_table

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
    from matchdb.build import build

    root = tmp_path_factory.mktemp("db") / "matchdb.zarr"
    report = build(root, flops=SMALL_FLOPS, workers=2, quiet=True)
    assert len(report.built) == 8
    return root


@pytest.fixture(scope="session")
def small_flops(small_store):
    """Canonical indices of the tables in ``small_store``."""
    from matchdb.build import parse_flop_spec

    return sorted(parse_flop_spec(SMALL_FLOPS))
