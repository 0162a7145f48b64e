"""A packed database opened by URL: the same answers as the local file, kilobytes fetched, faults refused in one sentence."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import matchdb
from matchdb.db.pack import pack
from matchdb.db.verify import verify
from matchdb.errors import (
    CorruptDatabaseError,
    DatabaseError,
    DatabaseNotFoundError,
    MatchdbError,
)
from matchdb.storage.remote import HttpFile
from tests.helpers import file_server, random_position


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def shipped(small_store, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hosted")
    pack(small_store, folder / "small.zip")
    return folder


def test_answers_over_http_equal_the_local_file(shipped, small_flops):
    local = matchdb.open(shipped / "small.zip")
    with file_server(shipped) as (url, _):
        remote = matchdb.open(f"{url}/small.zip")
        assert remote.info()["tables_built"] == 8 and remote.info()["path"] == f"{url}/small.zip"
        rng = np.random.default_rng(15)
        for n in range(200):
            hole, board = random_position(rng, small_flops, n % 3)
            assert remote.win_rate(hole, board, 3) == local.win_rate(hole, board, 3)
            if n % 10 == 0:
                assert remote.outcome(hole, board) == local.outcome(hole, board)
        assert verify(f"{url}/small.zip", sample=5).ok


def test_twenty_queries_on_five_tables_fetch_under_a_megabyte(full_store, tmp_path):
    hosted = tmp_path / "hosted"
    hosted.mkdir()
    try:
        pack(full_store, hosted / "matchdb.zip")
        with file_server(hosted) as (url, server):
            db = matchdb.open(f"{url}/matchdb.zip")
            local = matchdb.open(full_store)
            boards = ["2c7dJh", "AhTcTh", "KsQd5c", "9h8h2s", "AcAdKh"]
            holes = ["AhKh", "QcJc", "7s7d", "5d4d"]
            for board in boards:
                free = [hole for hole in holes if not set(matchdb.parse_cards(hole)) & set(matchdb.parse_cards(board))]
                for hole in free:
                    assert db.win_rate(hole, board, 4) == local.win_rate(hole, board, 4)
                assert db.equity(free[0], board) == local.equity(free[0], board)
            assert db.store.source.fetched_bytes < 1_000_000, db.store.source.fetched_bytes
            assert server.served == db.store.source.fetched_bytes
            before = server.served
            again = matchdb.open(f"{url}/matchdb.zip")  # a second client on this machine: the cache answers
            assert again.equity("AhKh", "2c7dJh") == local.equity("AhKh", "2c7dJh")
            assert server.served - before < 10_000  # only the probe and the directory's tail are asked again
    finally:
        shutil.rmtree(hosted, ignore_errors=True)


def test_a_server_that_ignores_ranges_is_refused(shipped):
    with file_server(shipped, ignore_ranges=True) as (url, _):
        with pytest.raises(DatabaseError, match="ignores HTTP range requests .* expected 206 Partial Content"):
            matchdb.open(f"{url}/small.zip")


def test_a_truncated_file_is_refused(shipped, tmp_path):
    (tmp_path / "cut.zip").write_bytes((shipped / "small.zip").read_bytes()[:-5000])
    with file_server(tmp_path) as (url, _):
        with pytest.raises(CorruptDatabaseError, match="is truncated or damaged"):
            matchdb.open(f"{url}/cut.zip")


def test_a_file_changed_on_the_server_is_refused_never_mixed(shipped, small_store, tmp_path):
    hosted = tmp_path / "hosted"
    hosted.mkdir()
    shutil.copy(shipped / "small.zip", hosted / "db.zip")
    with file_server(hosted) as (url, _):
        db = matchdb.open(f"{url}/db.zip")
        assert db.win_rate("AhKh", "2c7dJh") == pytest.approx(0.580707, abs=1e-6)
        other = tmp_path / "other.zarr"
        shutil.copytree(small_store, other)
        (other / "extra.txt").write_text("a changed file")
        pack(other, hosted / "db.zip", preflop=False)
        os.utime(hosted / "db.zip", ns=(1, 1))
        with pytest.raises(DatabaseError, match="changed since it was opened"):
            db.equity("AcAd", "AhTcTh")


def test_missing_and_unreachable_urls_are_one_sentence(shipped):
    with file_server(shipped) as (url, _):
        with pytest.raises(DatabaseNotFoundError, match="No database at .*nothing.zip' \\(HTTP 404\\)"):
            matchdb.open(f"{url}/nothing.zip")
    with pytest.raises(DatabaseError, match="cannot be reached"):
        HttpFile("http://127.0.0.1:1/x.zip", timeout=5)
    with pytest.raises(MatchdbError, match="is not a path"):
        matchdb.open(b"http://x")
