"""Fixtures of the solver's tests: a store holding the flop of postflop-solver's public spots (Td9d6h), built once."""

from __future__ import annotations

import pytest

#: The ranges of postflop-solver's own example (examples/basic.rs), used by every spot compared with it.
PEER_OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
PEER_IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


@pytest.fixture(autouse=True)
def _solver_compiled(solver_compiled):
    """Every solver test runs after the kernels were compiled once for the whole run (conftest.py)."""


@pytest.fixture(scope="session")
def peer_store(tmp_path_factory):
    """A real store of the one table of the flop Td9d6h (not in the small store), built once per session."""
    from matchdb.db.build import build

    root = tmp_path_factory.mktemp("peer") / "matchdb.zarr"
    report = build(root, flops="Td9d6h", workers=1, quiet=True)
    assert len(report.built) == 1
    return root


@pytest.fixture(scope="session")
def peer_db(peer_store):
    import matchdb

    return matchdb.open(peer_store)
