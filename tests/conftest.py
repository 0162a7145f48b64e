"""Shared fixtures: match tables computed once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # lets tests import the reference twins


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
